"""PIMC and ISMCTS: whole games under every bundled ruleset, determinism for a seed and an
iteration budget, no search where the move is forced, no peeking at hidden cards, the registry."""
from __future__ import annotations

import functools
import random

import pytest

from gouji_dsl.bots import BOTS, Budget, make_bot, parse_bot_spec, seat_bots
from gouji_dsl.bots.heuristic import HeuristicBot
from gouji_dsl.bots.ismcts import IsmctsBot
from gouji_dsl.bots.pimc import PimcBot
from gouji_dsl.bots.search import candidates, rollout
from gouji_dsl.engine.interpreter import hands_from_text, new_game, parse_move
from gouji_dsl.ruleset.game.cards import Card
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.tools.simulate import play_game


@functools.cache
def graph(name: str):
    return load_graph(name)


SEARCHERS = ["pimc:3", "ismcts:3"]


@pytest.mark.parametrize("name", sorted(list_bundled()))
def test_search_bots_play_whole_games_under_every_bundled_ruleset(name):
    g = graph(name)
    bots = ["ismcts:2", "heuristic", "pimc:2", "heuristic", "random", "heuristic"][:g.n_seats]
    res, state = play_game(g, "search", 0, bots)
    assert state.over and sorted(res.places.values()) == list(range(1, g.n_seats + 1))


@pytest.mark.parametrize("spec", SEARCHERS)
def test_same_seed_and_iterations_same_game(spec):
    g = graph("online")
    bots = [spec, "heuristic"] * 3
    a, _ = play_game(g, "det", 0, bots)
    b, _ = play_game(g, "det", 0, bots)
    assert a.record == b.record


def midgame(name: str = "online", seed: int = 7, steps: int = 30):
    g = graph(name)
    st = new_game(g, seed)
    bot = HeuristicBot()
    for _ in range(steps):
        st.apply_in_place(bot.choose(st, st.legal_moves()))
    while len(st.legal_moves()) < 2:
        st.apply_in_place(bot.choose(st, st.legal_moves()))
    return st


@pytest.mark.parametrize("cls", [PimcBot, IsmctsBot])
def test_a_forced_move_is_not_searched(cls, monkeypatch):
    g = graph("online")
    st = new_game(g, 0, hands=hands_from_text(g, {1: "5", 2: "33 4", 3: "KK 9", 4: "44 8", 5: "66 T", 6: "99 J"}), leader=1)
    st.decline_setup()
    import gouji_dsl.bots.search as search_mod  # both bots sample deals in search.paired_rounds

    def boom(*a, **k):
        raise AssertionError("searched a forced move")
    monkeypatch.setattr(search_mod, "sample_deal", boom)
    bot = cls(random.Random(0), Budget(50))
    moves = st.legal_moves()
    assert len(moves) == 1
    assert bot.choose(st, moves) == moves[0]
    # analysing a forced decision reports it as forced, without iterations
    a = bot.analyse(st, moves)
    assert a.forced and a.iterations == 0


@pytest.mark.parametrize("cls", [PimcBot, IsmctsBot])
def test_search_does_not_depend_on_hidden_cards(cls):
    """Two games that differ only in cards seat 1 cannot see give seat 1's bot the same analysis."""
    g = graph("online")
    base = new_game(g, "peek")
    hands = {s: [Card(c.symbol) for c in cs] for s, cs in base.dealt_cards.items()}
    a = next(c for c in hands[2] if c.symbol not in "BR2")
    b = next(c for c in hands[5] if c.symbol not in "BR2" and c.symbol != a.symbol)
    other = {s: list(cs) for s, cs in hands.items()}
    other[2].remove(a)
    other[2].append(b)
    other[5].remove(b)
    other[5].append(a)
    one = new_game(g, 1, hands=hands, leader=1)
    two = new_game(g, 1, hands=other, leader=1)
    one.decline_setup()
    two.decline_setup()
    r1 = cls(random.Random(3), Budget(12)).analyse(one)
    r2 = cls(random.Random(3), Budget(12)).analyse(two)
    assert r1.best == r2.best
    assert [(m.move, m.visits, m.value) for m in r1.moves] == [(m.move, m.visits, m.value) for m in r2.moves]


@pytest.mark.parametrize("cls", [PimcBot, IsmctsBot])
def test_analysis_lists_candidates_with_values(cls):
    st = midgame()
    moves = st.legal_moves()
    a = cls(random.Random(1), Budget(16)).analyse(st, moves)
    assert a.best in list(moves) and a.policy_move in list(moves)
    assert a.iterations >= 1 and {m.move for m in a.moves} <= set(moves)
    bound = 2 * max(abs(v) for v in g_points(st))
    assert all(-bound <= m.value <= bound for m in a.moves)
    assert a.moves[0].move == a.best


def g_points(st):
    return st.graph.settings["place_points"].values()


def test_think_time_budget_stops():
    st = midgame()
    bot = IsmctsBot(random.Random(0), Budget(None, 30.0))
    a = bot.analyse(st)
    assert a.iterations >= 1


def test_candidates_keep_the_policy_move_and_declines():
    st = midgame(steps=0)
    moves = st.legal_moves()
    first = HeuristicBot().choose(st, moves)
    cands = candidates(st, moves, first, 6)
    assert cands[0] == first and len(cands) <= 6 and len(set(cands)) == len(cands)
    assert all(c in moves for c in cands)


def test_rollout_finishes_the_game_in_place():
    st = midgame()
    g = st.copy()
    scores = rollout(g, HeuristicBot().choose)
    assert g.over and scores == g.scores and not st.over


@pytest.mark.parametrize("name", ["online", "rulebook"])
def test_a_scores_only_rollout_ends_with_the_scores_of_the_game_played_in_place(name):
    # (the search bots' play-outs: nothing unpacked where the native core plays the game whole)
    for seed in (3, 7, 11):
        st = midgame(name, seed)
        g = st.copy()
        in_place = dict(rollout(g, HeuristicBot().choose))
        assert g.over
        assert dict(rollout(st.copy(), HeuristicBot().choose, scores_only=True)) == in_place == dict(g.scores)


def test_the_native_core_plays_a_search_play_out_whole_and_leaves_the_state():
    from gouji_dsl.engine import fast
    from gouji_dsl.engine.native import available, flow
    if not available():
        pytest.skip("the native core is not built")
    st = midgame()
    eng = fast.engine(st.graph)
    bot = HeuristicBot()
    before = st.position_key()
    got = flow.heuristic_scores(flow.flow_plan(st.graph), st, bot.native_policy, 20_000)
    g = st.copy()
    assert got is not None and st.position_key() == before
    assert got == dict(eng.play_out(g, bot).scores)


def test_registry_specs():
    assert list(BOTS) == ["random", "heuristic", "pimc", "ismcts"]
    assert parse_bot_spec("ismcts:40")[1] == 40
    for bad, words in [("nope", "unknown bot"), ("heuristic:3", "does not search"), ("ismcts:0", "at least 1"),
                       ("ismcts:x", "whole number"), ("ismct", "did you mean 'ismcts'")]:
        with pytest.raises(ValueError, match=words):
            parse_bot_spec(bad)
    assert seat_bots("heuristic", 6) == ["heuristic"] * 6
    assert seat_bots("ismcts:5,random", 6) == ["ismcts:5", "random"] * 3
    with pytest.raises(ValueError):
        seat_bots("a,b,c", 6)
    bot = make_bot("pimc:7", random.Random(0))
    assert isinstance(bot, PimcBot) and bot.budget == Budget(7)
    bot = make_bot("ismcts", random.Random(0), think_ms=20)
    assert isinstance(bot, IsmctsBot) and bot.budget.think_ms == 20 and not bot.budget.deterministic
    with pytest.raises(ValueError):
        Budget()


def test_search_bot_moves_are_legal_after_transfers():
    # rulebook: a match (tribute, buying); the search bot decides from its own view only
    g = graph("rulebook")
    res, st = play_game(g, "m", 0, "heuristic")
    res2, st2 = play_game(g, "m", 1, ["pimc:2", "heuristic"] * 3, previous=st)
    assert st2.over
    moves = [parse_move(e["move"], g.model) for e in st2.record if e["type"] == "move"]
    assert moves


def test_paired_pick_keeps_the_heuristic_move_without_evidence():
    from gouji_dsl.bots.search import paired_pick
    rows = [[0.0, 6.0, -6.0], [0.0, -6.0, 0.0], [0.0, 6.0, 0.0]]   # candidate 1: +2 on average, noisy
    means = [0.0, 2.0, -2.0]
    assert paired_pick(rows, means, 1.5) == 0
    assert paired_pick(rows, means, 0) == 1
    steady = [[0.0, 2.0, 0.0]] * 2 + [[0.0, 3.0, 0.0], [0.0, 2.0, 0.0]]   # +2.25, small spread
    assert paired_pick(steady, [0.0, 2.25, 0.0], 1.5) == 1
    assert paired_pick(rows[:1], means, 1.5) == 0    # one round: no evidence
