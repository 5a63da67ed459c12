"""The heuristic bot in the native core (issue 24): heuristic.h chooses exactly what
gouji_dsl/bots/heuristic.py's HeuristicBot chooses, in every state of the play phase.

Game by game (places, scores, decisions, tricks, burns, events, generators): with heuristic bots at
every seat (and heuristic and random bots mixed) the native core plays the same games as the
Python bot on the interpreter, on every bundled ruleset and every
examples/variants file the native flow plays. Where it does not play the bot, the summaries say why.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from gouji_dsl.bots import HeuristicBot, make_bot
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine import fast, native
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.engine.native import flow as F
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import simulate
from gouji_dsl.tools.simulate import engine_summary

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in rules_dir().glob("*.yaml"))
VARIANTS = sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))
ALL = BUNDLED + VARIANTS
GAMES = {"online": 24, "base": 12, "six-deck-eagle": 3}

pytestmark = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


def _engine(name: str) -> tuple[object, fast.Engine]:
    g = load_graph(name)
    eng = fast.engine(g)
    assert eng is not None
    return g, eng


def _games(g, eng, games: int, specs: list[str], *, native_flow: bool, seed: str = "heur") -> list[tuple]:
    if not native_flow:
        eng = fast.Engine(g, None)  # (every move on the interpreter, the bots choosing in Python)
    out = []
    prev = None
    length = match_length(g)
    for i in range(games):
        players = [make_bot(specs[(s - 1) % len(specs)], random.Random(f"{seed}:{i}:bot{s}"))
                   for s in range(1, g.n_seats + 1)]
        st = eng.play_game(seed, i, players, previous=prev if i % length else None)
        prev = st
        out.append((st.places, st.scores, st.sweep, st.decisions, st.trick_no, st.burns, eng.render_record(st),
                    [p.rng.getstate() for p in players], st.rng.getstate(), st.finish_order, st.failed))
    return out


FIELDS = ("places", "scores", "sweep", "decisions", "tricks", "burns", "events", "bot generators", "game generator",
          "finish order", "failed")


def _compare(a: list[tuple], b: list[tuple]) -> list[str]:
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        for name, u, v in zip(FIELDS, x, y):
            if u != v:
                if name == "events":
                    j = next((k for k, (p, q) in enumerate(zip(u, v)) if p != q), min(len(u), len(v)))
                    out.append(f"game {i}, event {j}: interpreter {u[j:j + 1]} != native {v[j:j + 1]}")
                else:
                    out.append(f"game {i}: {name}: interpreter {str(u)[:200]} != native {str(v)[:200]}")
    return out


class _Counted:
    """Counts the play-phase choices the Python bot makes (HeuristicBot._lead / _follow / _burn)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        for name in ("_lead", "_follow", "_burn"):
            orig = getattr(HeuristicBot, name)

            def counted(bot, *a, _orig=orig, **k):
                self.calls += 1
                return _orig(bot, *a, **k)
            monkeypatch.setattr(HeuristicBot, name, counted)


@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_the_native_heuristic_plays_the_python_heuristics_games(name, monkeypatch):
    g, eng = _engine(name)
    reason = F.fallback_reason(g)
    summary = engine_summary(g, "native", "heuristic")
    if reason is not None:  # the native flow does not play this ruleset: said so, the interpreter plays
        assert summary == {"engine": "interpreter", "engine_fallback": reason}
        return
    assert F.heuristic_fallback_reason(g, HeuristicBot().native_policy) is None
    assert summary["play_phase"] == "native" and "native_fallback" not in summary
    # (whole games in one crossing where the core plays them: random and heuristic bots)
    assert summary.get("whole_games") == ("native" if F.games_fallback(g) is None else "per_game")
    games = GAMES.get(name, 6)
    python = _games(g, eng, games, ["heuristic"], native_flow=False)
    counted = _Counted(monkeypatch)
    got = _games(g, eng, games, ["heuristic"], native_flow=True)
    assert counted.calls == 0  # (every play-phase choice was the core's)
    diffs = _compare(python, got)
    assert not diffs, "\n".join(diffs[:10])


@pytest.mark.parametrize("name", ["online", "base"])
def test_heuristic_and_random_bots_mixed(name):
    g, eng = _engine(name)
    for specs in (["heuristic", "random"], ["random", "random", "heuristic"]):
        diffs = _compare(_games(g, eng, 8, specs, native_flow=False, seed="mixed"),
                         _games(g, eng, 8, specs, native_flow=True, seed="mixed"))
        assert not diffs, "\n".join(diffs[:10])


@pytest.mark.parametrize("name", ["online", "rulebook", "qingdao", str(ROOT / "examples" / "variants" / "hidden-counts.yaml")],
                         ids=lambda n: Path(n).stem)
def test_the_interpreter_plays_the_same_games(name):
    """The reference: the interpreter with the Python bot, game for game (simulate.differences)."""
    g = load_graph(name)
    assert not simulate.differences(g, "heur-ref", 3, "heuristic")


def test_a_subclass_of_the_bot_is_asked_in_python(monkeypatch):
    g, eng = _engine("online")

    class Other(HeuristicBot):
        pass
    assert Other().native_policy is None
    counted = _Counted(monkeypatch)
    st = eng.play_game("sub", 0, [Other(random.Random(s)) for s in range(g.n_seats)])
    assert st.phase == "over" and counted.calls > 0


def test_a_see_count_rule_that_fails_is_reported_as_the_interpreter_reports_it(tmp_path):
    path = tmp_path / "fails.yaml"
    path.write_text(
        "ruleset: fails\nextends: online\ntitle: a see_count rule that divides by zero\n"
        "rules:\n"
        "  - id: view.divides\n"
        "    on: see_count\n"
        "    allow: \"1 // (hand_size(target) - hand_size(target)) == 0\"\n"
        "    says: \"Fails whenever it is asked.\"\n", encoding="utf-8")
    g, eng = _engine(str(path))
    assert F.heuristic_fallback_reason(g, HeuristicBot().native_policy) is None
    texts = []
    for e_ in (fast.Engine(g, None), eng):
        st = e_.new_game("fail")
        with pytest.raises(GoujiError) as e:
            e_.play_out(st, [HeuristicBot(random.Random(s)) for s in range(g.n_seats)])
        texts.append((type(e.value).__name__, str(e.value)))
    assert texts[0] == texts[1]
    assert texts[0][0] == "RuleFailed" and "view.divides" in texts[0][1]


@pytest.mark.parametrize("spec", ["ismcts:6", "pimc:6"])
def test_search_bots_play_out_natively_and_choose_the_same_moves(spec, monkeypatch):
    """Their rollout policy is the heuristic bot: its play-outs run in the core (one crossing per
    play-out), and the search chooses the same moves as with the bot choosing in Python."""
    from gouji_dsl.engine.native import heuristic as NH
    g, eng = _engine("online")

    def decisions() -> list:
        players = [make_bot(spec if s % 2 else "heuristic", random.Random(f"search:{s}")) for s in range(1, g.n_seats + 1)]
        st = eng.new_game("search")
        out = []
        for _ in range(40):
            if st.phase == "over":
                break
            moves = eng.legal_moves(st)
            m = players[st.to_act - 1].choose(st, moves)
            out.append((st.to_act, m))
            eng.apply(st, m)
        return out
    native_moves = decisions()
    counted = _Counted(monkeypatch)
    native_calls = counted.calls
    native_moves_again = decisions()
    native_calls = counted.calls - native_calls
    monkeypatch.setenv(NH.DISABLE_ENV, "1")
    before = counted.calls
    python_moves = decisions()
    python_calls = counted.calls - before
    assert native_moves == native_moves_again == python_moves
    assert native_calls * 5 < python_calls  # (the play-outs' choices were the core's)
