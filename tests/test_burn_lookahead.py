"""Issue 22.22: a burn that cannot succeed is legal (a bluff is a move) but said so before it is made.

The bundled rulesets require every lead of a burner to carry a joker except the last one (base.yaml
``burn.carry-jokers``, RULES.md §5 "While burning, every lead must carry a joker, except the last one,
which may be a single rank group"); a burner who cannot keep to it becomes 大落 (``burn.failure-last``,
seed 001 烧牌 条件 1). The positions are those of tests/scenarios/online.yaml §5.
"""
from __future__ import annotations

import textwrap

from gouji_dsl.engine.cards import parse_cards
from gouji_dsl.engine.explain import burn_warnings
from gouji_dsl.engine.interpreter import explain, new_game
from gouji_dsl.engine.lookahead import BURN_LOOKAHEAD, doomed_burn
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
    assert doomed_burn(st, st.parse("3 burn AA"), budget=1) is None  # no certainty: no warning
