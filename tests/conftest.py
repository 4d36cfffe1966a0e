import pytest

import ptxspec


@pytest.fixture(scope="session")
def spec():
    return ptxspec.load()
