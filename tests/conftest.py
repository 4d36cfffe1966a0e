import ptxspec
import pytest

#: test files whose tests are spread over the workers one by one (`--dist loadgroup`): their tests share
#: no costly module fixture. Every other file's tests run on one worker, so that a module fixture (a
#: build, a loaded tree) is made once. test_bad_input.py: one group per case, so that a case's loader
#: and command-line checks share its one validation run.
SPREAD = {"test_bad_input.py", "test_ptxas_replay.py"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items):
    """xdist groups (used by `-n N --dist loadgroup`, the README's command; ignored otherwise)."""
    for item in items:
        name = item.path.name
        if name not in SPREAD:
            group = name
        elif name == "test_bad_input.py" and getattr(item, "callspec", None) and "name" in item.callspec.params:
            group = f"{name}:{item.callspec.params['name']}"
        else:
            group = item.nodeid
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def spec():
    return ptxspec.load()
