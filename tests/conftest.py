import pytest

import ptxspec

# The test files that take longest (pytest --durations, 2026-11-26), longest first. With
# `-n auto --dist loadfile` a file is one unit of work and the units are handed out in
# collection order: starting the long ones first keeps a worker from ending alone on one of
# them while the other idles (a shorter run, the same tests).
LONGEST_FIRST = ("test_bad_input.py", "test_ptxas_warp_search.py", "test_bindings.py", "test_cbind_api.py",
                 "test_core.py", "test_ptxas_wgmma.py", "test_tcgen05_harness.py", "test_fuzz.py", "test_diff.py",
                 "test_package.py", "test_blockscale_harness.py", "test_ptxas_tcgen05.py", "test_docs.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: file order otherwise kept


@pytest.fixture(scope="session")
def spec():
    return ptxspec.load()
