import ptxspec
import pytest


@pytest.fixture(scope="session")
def spec():
    return ptxspec.load()
