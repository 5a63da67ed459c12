"""Whole games in the native core (issue 24: gouji_dsl/engine/native/batch.h, ``flow.play_games``)
against the reference, game by game: for every bundled ruleset and examples/variants file whose
whole games the core plays, seeded games with random bots at every seat (each game starting a
match: no previous game) give the figures ``tools.simulate.play_game`` gives (places, scores,
sweep, decisions, tricks, first leader, burns and their outcomes) on the interpreter; a game the
core leaves to Python (a seat that may revolt, a voided deal, ...) is said so, and played there; a
ruleset whose whole games the core cannot play is refused by name, visibly in the summary."""
from __future__ import annotations

from pathlib import Path

import pytest

from gouji_dsl.engine import fast, native
from gouji_dsl.engine.native import flow as F
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.figures import summarize_game
from gouji_dsl.tools.simulate import engine_summary, native_games, play_game

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in rules_dir().glob("*.yaml"))
VARIANTS = sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))

pytestmark = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


def _figures(s):
    return (s.places, s.scores, s.sweep, s.decisions, s.tricks, s.first_leader, s.burn_attempts, s.burn_successes,
            s.burn_failures, s.revolutions, s.redeals)


@pytest.mark.parametrize("name", BUNDLED + VARIANTS, ids=lambda n: Path(n).stem)
def test_whole_native_games_are_the_interpreters_games(name):
    g = load_graph(name)
    eng = fast.engine(g)
    assert eng is not None
    reason = F.games_fallback(g)
    got = native_games(g, "games", 0, 40)
    if reason is not None:
        assert got is None and engine_summary(g, "native").get("games_fallback") == reason
        return
    assert got is not None and engine_summary(g, "native")["whole_games"] == "native"
    native_played = 0
    for i, s in enumerate(got):
        ref = summarize_game(i, play_game(g, "games", i, engine="interpreter", record=False)[0], g.n_seats)
        if s is None:  # (left to Python: played there, as every game is on the interpreter)
            continue
        native_played += 1
        assert _figures(s) == _figures(ref), f"game {i}"
    if name in ("online", "base", "qingdao"):  # (every game: revolutions, voided deals, choices and declarations
        assert native_played == len(got)     # are the core's too)


@pytest.mark.parametrize("name", ["online", "base", "qingdao", "examples/variants/redeal-weak-hands.yaml"],
                         ids=lambda n: Path(n).stem)
def test_setup_decisions_and_voided_deals_are_played_in_the_core(name):
    """Revolutions (online voids the first game's deal and deals again from the same generator;
    base lets one stand, and the revolutionary's opposite chooses head or headless), declarations
    (qingdao: every seat may declare the point) and deals void before the tribute (redeal-weak-hands):
    the random bots' setup decisions are drawn in the core, and the games are the interpreter's."""
    g = load_graph(name)
    got = native_games(g, "setup", 0, 120)
    assert got is not None and all(s is not None for s in got)
    eventful = [s for s in got if s.revolutions or s.redeals] if name != "qingdao" else got
    assert eventful
    for s in eventful[:3]:
        ref = summarize_game(s.index, play_game(g, "setup", s.index, engine="interpreter", record=False)[0], g.n_seats)
        assert _figures(s) == _figures(ref), f"game {s.index}"


def test_the_summary_says_how_many_games_the_core_left_to_python(monkeypatch, refused_by_the_flow):
    from gouji_dsl.tools import simulate, single
    g = load_graph("online")
    summary = single.run_simulation(g, 60, 3, workers=1, matches=False)
    assert summary["whole_games"] == "native" and summary["games_replayed"] == 0
    real = simulate.native_games

    def every_third_left(*a, **k):  # (as the core leaves a game it does not finish: None in its place)
        got = real(*a, **k)
        return None if got is None else [None if s.index % 3 == 0 else s for s in got]

    monkeypatch.setattr(simulate, "native_games", every_third_left)
    again = single.run_simulation(g, 60, 3, workers=1, matches=False)
    # (the games left are played move by move, looked at: the design metrics of every deal are the same)
    assert again["games_replayed"] == 20 and again["intervals"] == summary["intervals"]
    assert summary["intervals"]["real_choice_share"]["n"] == 60
    summary = single.run_simulation(load_graph(refused_by_the_flow), 4, 3,
                                    workers=1, matches=False)  # (no whole native games: nothing replayed)
    assert "games_replayed" not in summary


def test_the_games_the_issue_names_are_whole_native_games_and_the_rest_say_why(refused_by_the_flow):
    for name in ("online", "base"):
        g = load_graph(name)
        assert F.games_fallback(g) is None
    g = load_graph("six-deck-eagle")  # (its buying rounds: setup_rounds rules; its scores divided by 3: floats)
    assert F.games_fallback(g) is None and None not in native_games(g, 1, 0, 20)
    g = load_graph(str(ROOT / "examples" / "variants" / "ask-redeal.yaml"))  # (a choice it offers: batch.h bt_asks)
    assert F.games_fallback(g) is None and engine_summary(g, "native")["whole_games"] == "native"
    g = load_graph(str(ROOT / "examples" / "variants" / "positional-jokers.yaml"))  # (the positional comparison)
    assert F.games_fallback(g) is None and engine_summary(g, "native")["whole_games"] == "native"
    g = load_graph(refused_by_the_flow)  # (an after_discard rule: the flow does not ask it)
    assert "after_discard" in (F.games_fallback(g) or "")
    assert engine_summary(g, "native") == {"engine": "interpreter", "engine_fallback": F.fallback_reason(g)}


@pytest.mark.parametrize("name", BUNDLED + VARIANTS, ids=lambda n: Path(n).stem)
def test_whole_native_games_with_heuristic_bots_are_the_interpreters_games(name):
    """The heuristic bot (heuristic.h) at every seat, and at the odd seats beside random bots: its
    setup decisions by hand_power, its play-phase choices, game by game the interpreter's."""
    g = load_graph(name)
    eng = fast.engine(g)
    assert eng is not None
    reason = F.games_fallback(g)
    for specs, games in ((["heuristic"] * g.n_seats, 8), (["heuristic", "random"] * (g.n_seats // 2), 6)):
        got = native_games(g, "heur", 0, games, specs)
        if reason is not None:
            assert got is None
            continue
        assert got is not None and engine_summary(g, "native", specs)["whole_games"] == "native"
        for i, s in enumerate(got):
            ref = summarize_game(i, play_game(g, "heur", i, specs, engine="interpreter", record=False)[0], g.n_seats)
            if s is not None:
                assert _figures(s) == _figures(ref), f"game {i} ({specs[0]})"


def test_other_bots_and_the_interpreter_are_not_batched():
    g = load_graph("online")
    assert native_games(g, 1, 0, 5, "heuristic") is not None
    assert native_games(g, 1, 0, 5, ["random"] * 5 + ["ismcts"]) is None
    assert native_games(g, 1, 0, 5, engine="interpreter") is None
    summary = engine_summary(g, "native", ["random"] * 5 + ["pimc"])
    assert summary["whole_games"] == "per_game" and "random and heuristic bots only" in summary["games_fallback"]


def test_a_batch_is_the_same_games_however_it_is_cut():
    g = load_graph("online")
    whole = native_games(g, 7, 0, 30)
    parts = native_games(g, 7, 0, 11) + native_games(g, 7, 11, 30)
    assert whole == parts and whole == [native_games(g, 7, i, i + 1)[0] for i in range(30)]


def test_a_rule_that_fails_leaves_the_game_to_python_which_reports_it(tmp_path):
    from gouji_dsl.ruleset.graph import RuleFailed
    path = tmp_path / "fails.yaml"
    path.write_text(
        "ruleset: fails\nextends: online\ntitle: a follow rule that divides by zero\n"
        "rules:\n"
        "  - id: follow.divides\n"
        "    on: follow\n"
        "    when: \"count(finished) >= 0\"\n"
        "    require: \"1 // (count(passed_seats) - count(passed_seats)) == 0\"\n"
        "    says: \"Fails whenever it is asked.\"\n", encoding="utf-8")
    g = load_graph(str(path))
    got = native_games(g, "fail", 0, 3)
    assert got == [None, None, None]
    with pytest.raises(RuleFailed) as e:
        play_game(g, "fail", 0)
    assert "follow.divides" in str(e.value)


@pytest.mark.parametrize("seed", ["够级", 12345678901234567890, 0, "a b"])
def test_any_seed_gives_the_games_play_game_gives(seed):
    """The seeds' texts are hashed in C as random.Random hashes them (UTF-8, big numbers); the design
    metrics' facts the core counts are the ones a probed game gives (tools/design.py)."""
    from gouji_dsl.tools.design import play_probed
    g = load_graph("online")
    for i, s in enumerate(native_games(g, seed, 0, 4)):
        if s is not None:
            assert s == summarize_game(i, play_probed(g, seed, i, "random", None, "generated")[0], g.n_seats)


def test_games_chained_into_matches_are_whole_native_matches():
    """qingdao-classic plays matches of 5 (tribute between games): with matches or without, its
    games are whole native games (the tribute and returns between them the core's: batch.h
    bt_between), the same figures either way as the games played one by one; online-xuandian's
    seat_start rules (when play begins) are the core's; rulebook's buying
    rounds (seat_setup rules: mark and give) are the core's, with matches or without."""
    from gouji_dsl.engine.interpreter import match_length
    from gouji_dsl.tools import runchunks
    from gouji_dsl.tools.single import run_simulation
    g = load_graph("qingdao-classic")
    assert match_length(g) == 5 and F.games_fallback(g) is None
    with_matches = run_simulation(g, 60, 1, workers=1)
    assert with_matches["whole_games"] == "native" and "games_fallback" not in with_matches
    assert with_matches["games_replayed"] == 0
    without = run_simulation(g, 10, 1, workers=1, matches=False)
    assert without["whole_games"] == "native" and "games_fallback" not in without
    # the same run with every match played one by one (the core's batches switched off)
    real = runchunks._whole_matches
    try:
        runchunks._whole_matches = lambda got, start, length: [None] * len(got)  # type: ignore[assignment]
        again = run_simulation(g, 60, 1, workers=1)
    finally:
        runchunks._whole_matches = real  # type: ignore[assignment]
    drop = ("elapsed_s", "games_per_s", "games_replayed")
    assert {k: v for k, v in again.items() if k not in drop} == {k: v for k, v in with_matches.items() if k not in drop}
    rb = run_simulation(load_graph("rulebook"), 10, 1, workers=1)
    assert rb["whole_games"] == "native" and "games_fallback" not in rb and rb["games_replayed"] == 0
    xd = run_simulation(load_graph("online-xuandian"), 10, 1, workers=1)  # (its seat_start rules: batch.h)
    assert xd["whole_games"] == "native" and "games_fallback" not in xd and xd["games_replayed"] == 0
    heur = engine_summary(g, "native", "heuristic", 5)  # (the heuristic's return tribute: batch.h bt_heur_return)
    assert heur["whole_games"] == "native" and "games_fallback" not in heur

