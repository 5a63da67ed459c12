import functools

import pytest

from gouji_dsl.graph import load_graph


@functools.lru_cache(maxsize=None)
def _graph(name):
    return load_graph(name)


@pytest.fixture
def online():
    return _graph("online")


@pytest.fixture
def graph_of():
    return _graph
