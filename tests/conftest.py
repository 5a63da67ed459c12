import functools

import pytest

from gouji_dsl.ruleset.graph import load_graph


@pytest.fixture(autouse=True, scope="session")
def _crash_reports_in_a_temporary_folder(tmp_path_factory):
    """Crash reports written by tests (gouji's internal-error path) go to a temporary folder."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GOUJI_CRASH_DIR", str(tmp_path_factory.mktemp("crashes")))
    yield
    mp.undo()


@functools.cache
def _graph(name):
    return load_graph(name)


@pytest.fixture
def online():
    return _graph("online")


@pytest.fixture
def graph_of():
    return _graph
