"""The native flow's per-ruleset tables (``engine/native/tables.py``) are built from the compiled
graph (no generated text): for every bundled ruleset and examples/variants file they are what the
generated module's constants say, and a rule they cannot read makes them ask every play."""
from __future__ import annotations

from pathlib import Path

import pytest

from gouji_dsl.engine import codegen
from gouji_dsl.engine.native import tables as T
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph

ROOT = Path(__file__).resolve().parent.parent
ALL = sorted(p.stem for p in rules_dir().glob("*.yaml")) + sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))


@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_the_tables_are_the_generated_modules(name):
    g = load_graph(name)
    m = codegen.load(g).module
    t = T.tables(g)
    assert (t.filler, t.same_count, t.spare_for_rank, t.has_play, t.has_discard) == \
        (m.FILLER, m.SAME_COUNT, m.SPARE_FOR_RANK, m.HAS_PLAY, m.HAS_DISCARD)
    assert t.play_ranks == (None if m.PLAY_RANKS is None else frozenset(m.PLAY_RANKS))
    assert t.play_ranks_jokers == getattr(m, "PLAY_RANKS_JOKERS", True)
    assert t.discard_ranks == tuple(m.DISCARD_RANKS)
    assert t.burn_lead_by_jokers == m.BURN_LEAD_BY_JOKERS


HOUSE = """\
ruleset: tables-house
extends: online
title: rules the tables read and one they cannot
rules:
  - id: x.no-threes-lead
    on: play
    when: "leading and play.rank in ['3', '5']"
    deny: "play.count > 1"
    says: "Threes and fives lead alone."
  - id: x.seat-one-burns-freely
    on: burn_lead
    require: "seat == 1 or play.jokers > 0"
    says: "Seat 1 burns with any lead."
"""


def test_a_rank_guard_is_read_and_a_seat_is_not_a_joker(tmp_path):
    path = tmp_path / "tables-house.yaml"
    path.write_text(HOUSE, encoding="utf-8")
    g = load_graph(str(path))
    t = T.tables(g)
    strength = g._compiler.strength
    assert t.play_ranks == frozenset({strength["3"], strength["5"]}) and not t.play_ranks_jokers
    assert t.burn_lead_by_jokers is False  # (the seat is read: every burner's lead is asked)
    m = codegen.load(g).module
    assert t.play_ranks == frozenset(m.PLAY_RANKS) and t.burn_lead_by_jokers == m.BURN_LEAD_BY_JOKERS


def test_the_hash_follows_the_resolved_ruleset():
    assert T.ruleset_hash(load_graph("online")) == T.ruleset_hash(load_graph("online"))
    assert T.ruleset_hash(load_graph("online")) != T.ruleset_hash(load_graph("rulebook"))
