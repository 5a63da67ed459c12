"""The listing of what the native core runs for a ruleset (``native.listing``): every rule with
each expression's program, instructions by name, nothing without a program in a bundled ruleset."""
from __future__ import annotations

import re

import pytest

from gouji_dsl.engine import native
from gouji_dsl.ruleset.graph import load_graph

needs_core = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


@needs_core
@pytest.mark.parametrize("name", ["online", "qingdao", "rulebook", "six-deck-eagle"])
def test_the_listing_names_every_rule_and_instruction(name):
    from gouji_dsl.engine.native import hooks, listing
    g = load_graph(name)
    text = listing.listing(g)
    assert "(no program" not in text
    for rules in g.by_hook.values():
        for r in rules:
            assert f"### {r.node.id} (" in text
    assert all(rid in text for rid in g.pruned)
    ops = re.findall(r"^\s+\d+  (\S+)", text, re.M)
    assert ops and all(not op.startswith("op") for op in ops)  # (every opcode by its name)
    # a program's lines are its instructions, in order, ending with ret
    tree = g.node("tribute.kinds").checked["effect"] if g.node("tribute.kinds") else next(iter(g.nodes[0].checked.values()))
    lines = listing.disassemble(g, hooks.emit(g, tree))
    assert lines[-1].split()[1] == "ret" and int(lines[0].split()[0]) == 0


@needs_core
def test_the_listing_shows_operands_by_name():
    from gouji_dsl.engine.native import listing
    text = listing.listing(load_graph("qingdao"))
    assert "texts         ['stuck', 'burn', 'point', 'fall']" in text  # (tribute.order)
    assert "seatfn        opposite" in text and "prevflag      'declared'" in text
    assert re.search(r"playattr\s+play\.jokers", text)
