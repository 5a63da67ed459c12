"""Memory flat in the number of games (issue 29 item 4): the caches on the play path are bounded.

A worker playing heuristic bots grew from 58 to 197 MiB between 1,000 and 20,000 deals because
``CardModel.classify`` kept every card set it was asked about (the bot asks about its whole hand at
every lead: as many sets as hands). The measured figures are in the README (benchmarks/bench_compare.py
--memory), not asserted here."""
from __future__ import annotations

import dataclasses
import random

from gouji_dsl.ruleset.graph import compile_ruleset, load_graph
from gouji_dsl.tools.simulate import play_game


def _fields(p) -> tuple:
    return dataclasses.astuple(p)


def test_classify_keeps_only_the_shapes_a_play_can_have():
    g = load_graph("online")
    m = dataclasses.replace(g.model, _cache={}, _jcache={})
    rng = random.Random(29)
    ranks = [i for i in range(m.n_ranks) if i != m.filler]
    for _ in range(500):  # whole hands: two ranks or more besides the filler, never a play
        v = [0] * len(m.kinds)
        for r in rng.sample(ranks, rng.randint(2, len(ranks))):
            v[r] = rng.randint(1, 4)
        p = m.classify(tuple(v))
        assert not p.valid and _fields(p) == _fields(m._classify(tuple(v)))
    assert m._cache == {}
    # a play's shape (one rank, 2s as filler, jokers) is kept: the same object every time
    for text in ("JJJ", "JJJ 22", "AAAA 2 R", "BR", "3"):
        v = m.parse(text)
        p = m.classify(v)
        assert m.classify(v) is p and _fields(p) == _fields(m._classify(v))
    assert len(m._cache) == 5


def test_the_generated_playouts_answer_tables_are_bounded_and_play_the_same_games(monkeypatch):
    from gouji_dsl.engine import codegen
    from gouji_dsl.engine.native import flow
    monkeypatch.setenv(flow.DISABLE_ENV, "1")  # (the generated module's own loop fills its answer tables)
    base = load_graph("online")
    small, free = compile_ruleset(base.resolved), compile_ruleset(base.resolved)
    mod = codegen.load(small).module
    monkeypatch.setattr(mod, "_RT_MAX", 4)
    for i in range(6):
        got, _ = play_game(small, "bounded", i, "random", record=False)
        want, _ = play_game(free, "bounded", i, "random", record=False)
        assert (got.places, got.scores, got.decisions, got.tricks) == (
            want.places, want.scores, want.decisions, want.tricks)
        assert len(mod._RT) <= 4
    assert len(codegen.load(free).module._RT) > 4  # (the tables were needed: the bound was reached)
