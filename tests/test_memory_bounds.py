"""Memory flat in the number of games (issue 29 item 4): the caches on the play path are bounded.

A worker playing heuristic bots grew from 58 to 197 MiB between 1,000 and 20,000 deals because
``CardModel.classify`` kept every card set it was asked about (the bot asks about its whole hand at
every lead: as many sets as hands). The measured figures are in the README (benchmarks/bench_compare.py
--memory), not asserted here."""
from __future__ import annotations

import dataclasses
import random

from gouji_dsl.ruleset.graph import compile_ruleset, load_graph


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


def _walk(mod, graph, seed: str) -> tuple:
    """A game moved by ``mod`` (the generated module search bots' tree walks use): its legal moves,
    a random draw among them, its apply_move."""
    from gouji_dsl.engine.interpreter import new_game
    st = new_game(graph, seed)
    rng = random.Random(seed)
    while not st.over:
        moves = mod.legal_moves(st)
        mod.apply_move(st, moves[rng.randrange(len(moves))])
    return st.places, st.scores, st.decisions, st.trick_no


def test_the_generated_modules_answer_tables_are_bounded_and_list_the_same_moves(monkeypatch):
    from gouji_dsl.engine import codegen
    base = load_graph("online")
    small, free = compile_ruleset(base.resolved), compile_ruleset(base.resolved)
    mod = codegen.load(small).module
    monkeypatch.setattr(mod, "_RT_MAX", 4)
    for i in range(6):
        assert _walk(mod, small, f"bounded:{i}") == _walk(codegen.load(free).module, free, f"bounded:{i}")
        assert len(mod._RT) <= 4
    assert len(codegen.load(free).module._RT) > 4  # (the tables were needed: the bound was reached)
