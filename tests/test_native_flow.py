"""The native game flow (issue 24: gouji_dsl/engine/native/flow.h) against the interpreter's play
phase (the same Engine with ``flow.run`` replaced by ``flow.interpreter_run``), game by game: for every bundled ruleset and
examples/variants file the flow plays, seeded games with random bots at every seat (matches
chained as ``gouji simulate`` chains them) give the same decisions, places, scores, sweep, tricks,
burns, rendered events, flags, counters, and leave every generator (the bots' and the game's) in
the same state. A ruleset the flow does not play is refused by name (the interpreter plays it); a rule
that fails while the core runs is reported with the interpreter's RuleFailed text; the decision
bound stops both loops at the same move; a seat that is not a random bot is asked in Python
between two crossings."""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import random
from pathlib import Path

import pytest

from gouji_dsl.bots import make_bot
from gouji_dsl.bots.heuristic import random_policies
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine import fast, native
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.engine.native import flow as F
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in rules_dir().glob("*.yaml"))
VARIANTS = sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))
ALL = BUNDLED + VARIANTS
#: games per ruleset (the two the issue names get more, and the variant whose rule reads cards_of)
GAMES = {"online": 120, "base": 120, str(ROOT / "examples" / "variants" / "big-jokers-two-kill-one.yaml"): 60}

pytestmark = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


def _engine(name: str) -> tuple[object, fast.Engine]:
    g = load_graph(name)
    eng = fast.engine(g)
    assert eng is not None
    return g, eng


@contextlib.contextmanager
def _on_the_interpreter(native_flow: bool = False):
    """The engine's play phases played by the interpreter (``flow.interpreter_run``: the random
    bots' draws on its legal moves; the heuristic bot asked in Python), unless ``native_flow``."""
    real = F.run
    if not native_flow:
        F.run = lambda plan, S, pickers, steps, max_decisions, native=None: F.interpreter_run(S, pickers, steps, max_decisions)
    try:
        yield
    finally:
        F.run = real


def _games(g, eng, games: int, *, native_flow: bool, seed: str = "flow", chooser=None) -> list[tuple]:
    with _on_the_interpreter(native_flow):
        out = []
        prev = None
        length = match_length(g)
        for i in range(games):
            players = [make_bot("random", random.Random(f"{seed}:{i}:bot{s}")) for s in range(1, g.n_seats + 1)]
            if chooser is not None:
                players[2] = chooser
            st = eng.play_game(seed, i, players, previous=prev if i % length else None)
            prev = st
            out.append((st.places, st.scores, st.sweep, st.decisions, st.trick_no, st.burns, eng.render_record(st),
                        [p.rng.getstate() for p in players if hasattr(p, "rng")], st.rng.getstate(),
                        {k: set(v) for k, v in st.flags.items()}, st.counters, st.finish_order, st.failed, st.late))
        return out


FIELDS = ("places", "scores", "sweep", "decisions", "tricks", "burns", "events", "bot generators", "game generator",
          "flags", "counters", "finish order", "failed", "late")


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


@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_native_flow_plays_the_interpreters_games(name):
    g = load_graph(name)
    reason = F.fallback_reason(g)
    if reason is not None:
        # refused by name, visibly: the interpreter plays
        assert fast.engine(g) is None and fast.fallback_reason(g) == reason and "native" in reason
        return
    g, eng = _engine(name)
    assert eng.native_fallback is None
    games = GAMES.get(name, 20)
    diffs = _compare(_games(g, eng, games, native_flow=False), _games(g, eng, games, native_flow=True))
    assert not diffs, "\n".join(diffs[:10])


def test_the_rulesets_the_issue_names_are_played_natively():
    for name in ("online", "base"):
        g, eng = _engine(name)
        assert eng.native_fallback is None, eng.native_fallback


def test_every_bundled_ruleset_and_variant_is_played_natively(refused_by_the_flow):
    """Every bundled ruleset and variant plays natively, positional-jokers (the positional
    comparison) too; big-jokers-two-kill-one's play rule reads cards_of(play, 'B'), which the core
    answers from the play's cards per kind. A ruleset with a hook the flow does not ask is refused by name."""
    refused = {Path(n).stem: F.fallback_reason(_engine(n)[0]) for n in ALL}
    refused = {k: v for k, v in refused.items() if v is not None}
    assert refused == {}
    assert "'after_discard'" in (F.fallback_reason(load_graph(refused_by_the_flow)) or "")


POSITIONAL = str(ROOT / "examples" / "variants" / "positional-jokers.yaml")


@pytest.mark.parametrize("mixed", [False, True])
def test_the_positional_comparison_is_the_cover_tables_enumeration(mixed):
    """The positional model in the core is the same-count cover enumeration over flow._cover_table
    (an answer's spare jokers make up its count, its rank cards are of a higher rank): for every
    lead and answer of the same count made of one rank and a joker combination (each mixed joker
    reading too), CardModel.beats says exactly what that table and rule say."""
    g = load_graph(POSITIONAL)
    model = g.model
    if mixed:
        model = dataclasses.replace(model, mixed_as_lowest=True, _cache={}, _jcache={})
    nr = model.n_ranks
    combos = sorted(itertools.product(*[range(min(m, 3) + 1) for m in model.deck_counts[nr:]]), key=sum)
    readings = [model.classify((0,) * nr + c).jokers if any(c) else () for c in combos]
    table = F._cover_table(model, readings)
    n = len(combos)
    checked = 0
    for tj, tc in enumerate(combos):
        for j, pc in enumerate(combos):
            cover = table[tj * n + j]
            for lr, lc in [(-1, 0)] + [(r, c) for r in (0, 5, nr - 2) for c in (1, 2, 4)]:
                count = lc + sum(tc)
                if count == 0:
                    continue
                lead = model.classify(tuple(lc if i == lr else 0 for i in range(nr)) + tc)
                q = count - sum(pc)
                if q < 0:
                    continue
                for r in ((-1,) if q == 0 else range(nr)):
                    play = model.classify(tuple(q if i == r else 0 for i in range(nr)) + pc)
                    if not play.count:
                        continue
                    want = model.beats(lead, play)
                    # flow.h fl_answers (same count): a pure joker lead takes pure joker answers that answer
                    # its jokers; else an answer's combination answers with spare jokers making up the count
                    # (cover >= total - the lead's jokers), its rank cards of a higher rank
                    got = cover >= 0 and (q == 0 if lc == 0 else (r > lr if q else True) and cover >= sum(pc) - sum(tc))
                    assert got == want, (lead, play, cover)
                    checked += 1
    assert checked > 1000


POSITIONAL_HOUSE = """\
ruleset: positional-house
extends: online
title: card by card, mixed jokers read as the lowest, the count free (which card by card is not)
settings:
  comparison:
    value: {model: positional, same_count: false}
    says: "Card by card."
  mixed_jokers_read_as_lowest:
    value: true
    says: "A big and a small joker played together are two small jokers."
"""


def test_a_positional_house_ruleset_plays_the_same_games(tmp_path):
    """The positional comparison with the count left free and mixed jokers read as the lowest: the
    native flow plays the interpreter's games, and whole native games too."""
    path = tmp_path / "positional-house.yaml"
    path.write_text(POSITIONAL_HOUSE, encoding="utf-8")
    g, eng = _engine(str(path))
    assert eng.native_fallback is None and g.model.model == "positional" and not g.settings["comparison"]["same_count"]
    diffs = _compare(_games(g, eng, 30, native_flow=False), _games(g, eng, 30, native_flow=True))
    assert not diffs, "\n".join(diffs[:10])
    from gouji_dsl.tools import simulate
    assert simulate.differences(g, "house", 12) == []
    assert simulate.differences(g, "house-h", 6, "heuristic") == []


CARDS_OF = """\
ruleset: cards-of-everywhere
extends: online
title: rules reading a play's cards per kind in every question the flow asks
rules:
  - id: x.small-jokers-do-not-lead-alone
    on: play
    when: "leading"
    deny: "cards_of(play, 'B') >= 1 and cards_of(play, 'R') == 0"
    says: "Small jokers without a big one may not lead."
  - id: x.big-jokers-answered-by-opposite
    on: follow
    when: "cards_of(top, 'R') >= 1"
    require: "seat == opposite(top.seat)"
    says: "A big joker is answered only by the opposite."
  - id: x.beat-a-big-joker
    on: after_play
    when: "beaten != none and cards_of(beaten, 'R') + cards_of(play, 'B') >= 1"
    count: joker_beats
    says: "Counted: plays that beat a big joker or hold a small one."
  - id: x.rank-cards
    on: after_play
    amount: "cards_of(play, play.rank) + cards_of(play, '2')"
    count: rank_cards
    says: "Counted: the cards of the play's rank and its 2s."
"""


def test_rules_reading_a_plays_cards_per_kind_play_the_same_games(tmp_path):
    """cards_of of the play being made (a lead), of the play on the table (follow) and of the
    play it beat (after_play), the kind a constant or the play's own rank."""
    path = tmp_path / "cards-of.yaml"
    path.write_text(CARDS_OF, encoding="utf-8")
    g, eng = _engine(str(path))
    assert eng.native_fallback is None, eng.native_fallback
    assert F.flow_plan(g).tables[4 * native._core_module().FLOW_PLAY_COUNTS] == 1
    a, b = _games(g, eng, 30, native_flow=False), _games(g, eng, 30, native_flow=True)
    diffs = _compare(a, b)
    assert not diffs, "\n".join(diffs[:10])
    counted = [sum(c.get(name, {}).values()) for name in ("joker_beats", "rank_cards") for *_, c, _f, _x, _l in a]
    assert all(n > 0 for n in counted), counted  # (every rule took effect in every game)


CLUB = """\
ruleset: club-play
extends: online
settings:
  counters:
    value: {scramble_yields: {reset: game}}
    says: "Yields in the scramble are counted for the whole game."
  comparison:
    value: {same_count: false, joker_cover: {equal_many: 2}}
    says: "Two equal jokers beat one (two-kill-one)."
rules:
  - id: yield.counted-in-scramble
    on: after_yield
    when: "scramble"
    count: scramble_yields
    says: "A yield made in the scramble is counted."
  - id: yield.in-scramble
    on: yield
    when: "scramble"
    allow: "counter(seat, 'scramble_yields') < 1"
    says: "In the scramble each player may yield once."
  - id: jokers.only-big-two-kill-one
    on: play
    when: "not leading and play.count > top.count"
    require: "cards_of(play, 'B') == 0"
    says: "Only big jokers may two-kill-one."
  - id: burn.backed-up-front
    on: burn
    require: "jokers_held(seat) >= rank_groups(seat)"
    says: "A burn must be backed up front."
"""


def test_a_house_ruleset_with_two_kill_one_and_a_free_count_plays_the_same_games(tmp_path):
    """The play phase of a tester's house ruleset (issue 24, t23's club.yaml: same_count false,
    equal_many 2, a play rule reading cards_of, a burn rule, a counted yield in the scramble): the
    native flow loads it (it once reported "a joker combination is out of range", from a core
    built before the tables' layout changed: see test_native_build) and plays the same games."""
    path = tmp_path / "club-play.yaml"
    path.write_text(CLUB, encoding="utf-8")
    g, eng = _engine(str(path))
    assert eng.native_fallback is None, eng.native_fallback
    assert not g.settings["comparison"]["same_count"]
    diffs = _compare(_games(g, eng, 40, native_flow=False), _games(g, eng, 40, native_flow=True))
    assert not diffs, "\n".join(diffs[:10])


def test_a_seat_that_is_not_a_random_bot_is_asked_between_crossings():
    g, eng = _engine("online")

    class First:
        def choose(self, state, moves):
            return moves[0]
    diffs = _compare(_games(g, eng, 20, native_flow=False, chooser=First()),
                     _games(g, eng, 20, native_flow=True, chooser=First()))
    assert not diffs, "\n".join(diffs[:10])


def test_the_decision_bound_stops_both_loops_at_the_same_move():
    g, eng = _engine("base")
    got = []
    for native_flow in (False, True):
        with _on_the_interpreter(native_flow):
            st = eng.new_game("bound")
            with pytest.raises(RuntimeError, match="did not end after 40 decisions"):
                eng.play_out(st, random_policies("bound"), max_decisions=40)
            got.append((st.decisions, eng.render_record(st), st.hands))
    assert got[0] == got[1]


def test_a_rule_that_fails_in_the_core_is_reported_as_the_interpreter_reports_it(tmp_path):
    path = tmp_path / "fails.yaml"
    path.write_text(
        "ruleset: fails\nextends: online\ntitle: a follow rule that divides by zero\n"
        "rules:\n"
        "  - id: follow.divides\n"
        "    on: follow\n"
        "    when: \"count(finished) >= 0\"\n"
        "    require: \"1 // (count(passed_seats) - count(passed_seats)) == 0\"\n"
        "    says: \"Fails whenever it is asked.\"\n", encoding="utf-8")
    g, eng = _engine(str(path))
    assert eng.native_fallback is None, eng.native_fallback
    texts = []
    for native_flow in (False, True):
        with _on_the_interpreter(native_flow):
            st = eng.new_game("fail")
            with pytest.raises(GoujiError) as e:
                eng.play_out(st, random_policies("fail"))
            texts.append((type(e.value).__name__, str(e.value), st.decisions))
    assert texts[0] == texts[1]
    assert texts[0][0] == "RuleFailed" and "follow.divides" in texts[0][1] and "fails.yaml" in texts[0][1]


def test_the_games_end_is_played_in_the_core_where_its_answers_are_whole_numbers():
    """The places left, the sweep and the scores (fl_end) come from the core on the bundled
    rulesets; a score the core does not take as it is (six-deck-eagle divides by three: an exact
    fraction) is left to the interpreter's GameState.end_game for that game: the same games either
    way (test_native_flow_plays_the_interpreters_games)."""
    from gouji_dsl.engine.interpreter import GameState
    for name in BUNDLED:
        g, eng = _engine(name)
        assert F.flow_plan(g).end_fallback is None, name
    g, eng = _engine("online")
    ended_in_python = []
    real = GameState.end_game
    GameState.end_game = lambda S: (ended_in_python.append(S), real(S))[1]
    try:
        for i in range(5):
            st = eng.play_game("end", i, list(random_policies(f"end:{i}").values()))
            assert st.phase == "over" and sorted(st.places.values()) == list(range(1, g.n_seats + 1))
            assert st.record[-1][0] == "game_over" and st.record[-1][2] == st.scores
    finally:
        GameState.end_game = real
    assert ended_in_python == []


def test_a_score_rule_that_fails_at_the_end_fails_as_the_interpreter_says(tmp_path):
    """fl_end stops at an answer it does not take (here a rule that fails) and the interpreter
    ends the game: its RuleFailed text, on both paths."""
    value = "1 // (count(finished) - count(finished))"
    path = tmp_path / "ends.yaml"
    path.write_text(
        "ruleset: ends\nextends: online\ntitle: a score rule that fails\n"
        "rules:\n"
        "  - id: score.fails\n"
        "    on: score\n"
        f"    value: \"{value}\"\n"
        "    says: \"Fails whenever it is asked.\"\n", encoding="utf-8")
    g, eng = _engine(str(path))
    assert eng.native_fallback is None, eng.native_fallback
    texts = []
    for native_flow in (False, True):
        with _on_the_interpreter(native_flow):
            st = eng.new_game("fail")
            with pytest.raises(GoujiError) as e:
                eng.play_out(st, random_policies("fail"))
            texts.append((type(e.value).__name__, str(e.value), st.decisions, dict(st.places)))
    assert texts[0] == texts[1]
    assert texts[0][0] == "RuleFailed" and "score.fails" in texts[0][1] and "ends.yaml" in texts[0][1]


def test_switched_off_the_interpreter_plays_and_says_why(monkeypatch):
    monkeypatch.setenv(F.DISABLE_ENV, "1")
    g = load_graph("online")
    assert F.DISABLE_ENV in (F.fallback_reason(g) or "")
    assert fast.engine(g) is None and F.DISABLE_ENV in (fast.fallback_reason(g) or "")


@pytest.mark.parametrize("name", ["online", "base"])
def test_the_flows_context_is_the_hook_programs_context(name):
    """flow._pack (from a template) gives hooks.pack_context's words on states of a game, except
    what the deal showed, which no program of the flow reads (else pack_context packs)."""
    from array import array

    from gouji_dsl.engine.native import _core_module
    from gouji_dsl.engine.native import hooks as H
    from gouji_dsl.ruleset.game.context import Ctx
    core = _core_module()
    g, eng = _engine(name)
    plan = F.flow_plan(g)
    assert not plan.shown
    end = core.LAYOUT["shown_n"]
    rng = random.Random(3)
    st = eng.new_game("ctx")
    for step in range(3000):
        if step % 7 == 0:
            a, b = array("q"), array("q")
            a.frombytes(F._pack(plan, st, core))
            b.frombytes(H.pack_context(g, Ctx(st)))
            assert a[:end] == b[:end], step
        if st.phase == "over":
            break
        moves = eng.legal_moves(st)
        eng.apply(st, moves[rng.randrange(len(moves))], trusted=True)


@pytest.mark.parametrize("name", ["online", "base"])
def test_play_outs_from_states_in_the_middle_of_a_trick(name):
    """A search bot's rollouts start anywhere (a yield pending, a burn on the table, seats out):
    play-outs of copies of states along a game are the same natively and on the interpreter."""
    g, eng = _engine(name)
    rng = random.Random(5)
    states = []
    for game in range(6):
        st = eng.new_game(f"mid:{game}")
        for step in range(2000):
            if st.phase == "over":
                break
            if st.phase == "play" and step % 23 == 0:
                states.append(st.copy())
            moves = eng.legal_moves(st)
            eng.apply(st, moves[rng.randrange(len(moves))], trusted=True)
    assert len(states) > 30
    got = []
    for native_flow in (False, True):
        with _on_the_interpreter(native_flow):
            outs = []
            for i, st in enumerate(states):
                s = st.copy()
                pol = random_policies(f"roll{i}", g.n_seats)
                res = eng.play_out(s, pol)
                outs.append((res, eng.render_record(s), s.burns, [p.rng.getstate() for p in pol.values()]))
            got.append(outs)
    for i, (a, b) in enumerate(zip(*got)):
        assert a == b, f"state {i}"
