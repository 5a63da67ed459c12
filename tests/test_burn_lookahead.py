"""Issue 22.22: a burn that cannot succeed is legal (a bluff is a move) but said so before it is made.

The bundled rulesets require every lead of a burner to carry a joker except the last one (base.yaml
``burn.carry-jokers``, RULES.md §5 "While burning, every lead must carry a joker, except the last one,
which may be a single rank group"); a burner who cannot keep to it becomes 大落 (``burn.failure-last``,
seed 001 烧牌 条件 1). The positions are those of tests/scenarios/online.yaml §5.
"""
from __future__ import annotations

import random
import textwrap

from gouji_dsl.bots import make_bot
from gouji_dsl.engine.explain import burn_warnings, explain
from gouji_dsl.engine.interpreter import GameState, Move, new_game
from gouji_dsl.engine.lookahead import BURN_LOOKAHEAD, DoomedBurn, UndecidedBurn, doomed_burn
from gouji_dsl.ruleset.game.cards import parse_cards
from gouji_dsl.ruleset.game.terms import Capacity, Verb
from gouji_dsl.ruleset.graph import load_graph

BLUFF = {1: "KK 3 4", 2: "5", 3: "AA 66 7", 4: "8", 5: "9", 6: "T"}    # no joker left after AA
BURN = {1: "KK 3 4", 2: "5", 3: "AA B 66 7", 4: "8", 5: "9", 6: "T"}   # B 66, then 7: it succeeds


def _after_kk(g, deal):
    st = new_game(g, 0, hands={int(k): parse_cards(v, allow_empty=True) for k, v in deal.items()}, leader=1)
    st.decline_setup()
    st.apply_in_place(st.parse("1 play KK"))
    return st


def test_a_burn_without_a_joker_for_the_next_lead_is_legal_but_doomed(online):
    st = _after_kk(online, BLUFF)
    mv = st.parse("3 burn AA")
    ex = explain(st, mv)
    assert ex.legal  # a bluff is a move
    doomed = doomed_burn(st, mv)
    assert doomed is not None and doomed.seat == 3 and 0 < doomed.examined <= BURN_LOOKAHEAD
    assert [r.rule_id for r in doomed.reasons] == ["burn.carry-jokers"]
    r = doomed.reasons[0]
    assert r.pos is not None and r.pos.path.endswith("base.yaml") and r.pos.line > 0
    assert r.text == "While burning, every lead must carry a joker, except the last one, which may be a single rank group."
    assert [w.rule_ids for w in ex.warnings] == [("burn.carry-jokers",)]
    assert "cannot succeed" in ex.sentence() and "burn.carry-jokers" in ex.format()
    assert "burn.carry-jokers" in ex.rule_ids
    # and so it goes: seat 3 is placed last as soon as it must lead (tests/scenarios/online.yaml)
    st.apply_in_place(mv)
    for m in ["5 pass", "1 pass", "4 pass", "2 pass", "6 pass"]:
        st.apply_in_place(st.parse(m))
    assert st.places == {3: 6}
    assert [r.rule_id for r in st.decided["burn_lead:3"]] == ["burn.carry-jokers"]


def test_a_burn_that_can_succeed_has_no_warning(online):
    st = _after_kk(online, BURN)
    mv = st.parse("3 burn AA")
    assert doomed_burn(st, mv) is None and explain(st, mv).warnings == []
    assert burn_warnings(st, st.parse("3 pass")) == []  # not a burn


def test_a_burning_lead_that_leaves_no_way_out_is_doomed(online):
    """Burning with AA B 66 7 succeeds by B 66 then 7; leading B alone (or B 7) leaves 66 7 and no joker."""
    st = _after_kk(online, BURN)
    st.apply_in_place(st.parse("3 burn AA"))
    for m in ["5 pass", "1 pass", "4 pass", "2 pass", "6 pass"]:
        st.apply_in_place(st.parse(m))
    assert st.to_act == 3 and st.burner == 3
    assert doomed_burn(st, st.parse("3 play B 66")) is None
    bad = explain(st, st.parse("3 play B"))
    assert bad.legal and [w.rule_ids for w in bad.warnings] == [("burn.carry-jokers",)]
    assert bad.warnings[0].fact.startswith("this lead cannot succeed")


def test_the_warning_cites_the_rulesets_own_burn_lead_rule(tmp_path):
    """Rules are data: a house rule that asks a burner for pairs (not jokers) is the one cited."""
    path = tmp_path / "pairs.yaml"
    path.write_text(textwrap.dedent("""
        ruleset: burn-with-pairs
        extends: online
        remove: [burn.carry-jokers]
        rules:
          - id: x.burn-with-pairs
            on: burn_lead
            require: "play.count >= 2 or play.empties_hand"
            says: "While burning, every lead but the last is of two cards or more."
        """).lstrip(), encoding="utf-8")
    g = load_graph(str(path))
    doomed_deal = {**BLUFF, 3: "AA 6 7"}  # 6, then 7: two single leads
    st = _after_kk(g, doomed_deal)
    d = doomed_burn(st, st.parse("3 burn AA"))
    assert d is not None and [r.rule_id for r in d.reasons] == ["x.burn-with-pairs"]
    assert d.reasons[0].pos is not None and d.reasons[0].pos.path == str(path)
    st = _after_kk(g, BLUFF)  # AA 66 7: 66, then 7 goes out
    assert doomed_burn(st, st.parse("3 burn AA")) is None


def test_the_look_ahead_stops_at_its_budget(online):
    st = _after_kk(online, BLUFF)
    d = doomed_burn(st, st.parse("3 burn AA"), budget=0)  # no certainty: no warning, but said so
    assert isinstance(d, UndecidedBurn) and d.seat == 3


def test_a_long_hand_burn_out_of_budget_is_undecided_not_passed_over(online):
    """Issue 22.22: a look-ahead that runs out of its budget said nothing, and the play screen
    showed the burn as plainly legal. Now it is undecided: not None, not a warning."""
    st = _seed7_before_decision(online, 85)
    mv = st.parse("2 burn AA")
    assert isinstance(doomed_burn(st, mv), DoomedBurn)  # (the full budget decides it)
    d = doomed_burn(st, mv, budget=1)
    assert isinstance(d, UndecidedBurn) and d.seat == 2 and d.examined == 1
    ok = _after_kk(online, TWO_JOKERS)
    assert doomed_burn(ok, ok.parse("3 burn AA")) is None  # a burn that can succeed: neither


TWO_JOKERS = {1: "KK 3 4", 2: "5", 3: "AA B R 66 7 8", 4: "9", 5: "T", 6: "J"}


def test_a_burn_that_succeeds_only_by_some_leads_is_not_warned(online):
    """B R 66 7 8 after AA: three leads, each of the first two with a joker, the last a single rank
    group (RULES.md §5). Only lines that keep the pair 66 whole succeed (R 66, B 7, 8 and the like);
    a lead of one 6 (R 6, B 6) leaves four groups for one joker, and one of both jokers leaves none."""
    st = _after_kk(online, TWO_JOKERS)
    assert doomed_burn(st, st.parse("3 burn AA")) is None
    st.apply_in_place(st.parse("3 burn AA"))
    while st.to_act != 3:
        st.apply_in_place(Move(st.to_act, Verb.PASS))
    ok = {"R 66", "B 66", "R 7", "B 7", "R 8", "B 8"}
    for m in st.legal_moves():
        text = m.text(st.model).removeprefix("3 play ")
        d = doomed_burn(st, m)
        assert (d is None) == (text in ok), text
        if d is not None:
            assert [r.rule_id for r in d.reasons] == ["burn.carry-jokers"]


def _seed7_before_decision(graph, n):
    """online, seed 7, heuristic bots at every seat (seeded), up to decision ``n``."""
    st = new_game(graph, 7)
    bot = make_bot("heuristic", random.Random(7))
    while st.decisions < n:
        st.apply_in_place(bot.choose(st, st.legal_moves()))
    return st


def test_doomed_burns_with_long_hands_are_found(online):
    """A tester's report (issue 22.22): with a long hand the look-ahead ran out of its 400 moves on
    doomed burns (online seed 7, 28 cards, 2 jokers: ``burn 22`` needed 17,754 moves) and said
    nothing (the tester's record was not kept). The same kind of position here: seat 2 holds 28
    cards, one joker and ten rank groups (B 22 AAAA K JJ TTT 888 666 5 4 3333333) against 2 K, so at
    most two leads are left to it after any burn: each of its five burns is doomed (``burn AA``
    needed 438 moves, more than the old 400)."""
    st = _seed7_before_decision(online, 85)
    assert st.to_act == 2 and st.capacity == Capacity.BURN and st.hand_size(2) == 28 and st.jokers_held(2) == 1
    for text in ["2 burn 22", "2 burn 2 A", "2 burn AA", "2 burn B 2", "2 burn B A"]:
        d = doomed_burn(st, st.parse(text))
        assert isinstance(d, DoomedBurn) and [r.rule_id for r in d.reasons] == ["burn.carry-jokers"], text
        assert 0 < d.examined <= BURN_LOOKAHEAD


def test_the_position_key_covers_every_field_of_the_state(online):
    """GameState.position_key is exact only if every field is in it, fixed at the deal or read by
    nothing that decides play: a field added to the state must be placed in one of the three."""
    st = _after_kk(online, BLUFF)
    keyed = {"phase", "to_act", "capacity", "burner", "burned_seat", "trick_leader", "trick_no", "hands", "top",
             "queue", "plan", "yielders", "yielded_this_top", "passed", "places", "finish_order",
             "finished_in_trick", "failed", "revolted", "late", "flags", "counters", "burns", "received",
             "discarded", "scores", "sweep", "redealt", "redeals", "redeal_pending", "setup_queue", "choose_queue",
             "declare_queue", "return_queue", "ask_queue", "ask_point", "rng"}
    assert set(vars(st)) == keyed | GameState.KEY_FIXED | GameState.KEY_UNREAD
    a = st.copy()
    a.apply_in_place(a.parse("3 burn AA"))
    b = st.copy()
    b.apply_in_place(b.parse("3 pass"))
    assert a.position_key() != b.position_key() and st.copy().position_key() == st.position_key()
