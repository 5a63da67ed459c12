import functools

import pytest

from gouji_dsl.ruleset.graph import load_graph


@functools.cache
def _graph(name):
    return load_graph(name)


@pytest.fixture
def online():
    return _graph("online")


@pytest.fixture
def graph_of():
    return _graph
