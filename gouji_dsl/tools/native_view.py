"""What the native core runs for a ruleset, as text (``gouji show RULESET --generated``, issue 24).

One compiled core (``gouji_dsl/engine/native/_core.c``) runs every ruleset from a per-ruleset
program: its tables (seats, teams, the card kinds and the pack, the play order, who sits opposite,
the flags and counters the rules keep, the combinations a play can be) and its hook programs (every
rule's expressions, emitted from the typed AST the interpreter reads: settings folded, definitions
inlined; cached by the resolved ruleset's hash). This module prints them, readable: each hook with
its rules by id and line (:func:`gouji_dsl.engine.native.listing.listing`), and first, plainly,
whether the native core plays the ruleset and, where not, why.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.engine.native import Unsupported, flow, listing
from gouji_dsl.engine.native import program as P
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.played import PlayedBy, engine_name, played_by_of, why_not_native
from gouji_dsl.tools.simulate import engine_summary


def native_status(graph: RuleGraph) -> tuple[bool, str]:
    """``(native, sentence)``: whether the native core plays ``graph``'s games (random bots, as
    ``gouji simulate`` plays them) and, in words, how far and why not."""
    e = engine_summary(graph, "native", "random", match_length(graph))
    who = played_by_of(e)
    why = why_not_native(e)
    if who is PlayedBy.NATIVE:
        whole = _("whole games in the core")
        return True, _("engine: {name}").format(name=engine_name(e)) + " — " + (why or whole)
    return False, _("not native: {why}").format(why=why or e.get("played_by_reason", ""))


def _tables(graph: RuleGraph) -> list[str]:
    """The per-ruleset tables the core reads (``native.program``; ``native.flow``'s flags, counters and combinations)."""
    try:
        prog = P.program(graph)
    except Unsupported as e:
        return [f"(no tables: {e})"]
    kinds = prog.kinds
    per_kind = Counter(prog.deck_kinds)
    out = ["## tables", f"seats: {prog.n_seats}, teams: {prog.n_teams}",
           f"card kinds: {' '.join(kinds[:prog.n_ranks])} (ranks, low to high)"
           + (f"; {' '.join(kinds[prog.n_ranks:])} (jokers)" if len(kinds) > prog.n_ranks else ""),
           f"pack: {len(prog.deck_kinds)} cards — " + ", ".join(f"{kinds[k]}×{n}" for k, n in sorted(per_kind.items())),
           "play order after each seat: " + "; ".join(f"{s}: {' '.join(map(str, prog.after[s]))}"
                                                      for s in range(1, prog.n_seats + 1)),
           "opposite: " + ", ".join(f"{s}↔{prog.opposite[s]}" for s in range(1, prog.n_seats + 1)
                                   if s < prog.opposite[s]),
           "team of each seat: " + " ".join(f"{s}:{prog.team[s]}" for s in range(1, prog.n_seats + 1))]
    out += _flow_tables(graph)
    out.append("hooks with rules (in the order they are asked):")
    out += [f"  {hook}: {', '.join(ids)}" for hook, ids in prog.hooks]
    return out


def _flow_tables(graph: RuleGraph) -> list[str]:
    """The flow program's names and combinations (empty where the core does not load it)."""
    if flow.fallback_reason(graph) is not None:
        return []
    try:
        plan: Any = flow.flow_plan(graph)
    except Unsupported:
        return []
    return [f"flags: {', '.join(n for n, _i in plan.flags) or '(none)'}",
            f"counters: {', '.join(n for n, _i in plan.counters) or '(none)'}",
            f"combinations a play can be: {len(plan.combos)}"]


def native_view(graph: RuleGraph) -> tuple[bool, str]:
    """``(native, text)``: what the native core runs for ``graph`` — whether it plays it (and why
    not), the tables, the hook programs — or, where the core is missing, that and why."""
    native_ok, said = native_status(graph)
    out = [f"# what the native core runs for {graph.name}: one compiled core (gouji_dsl/engine/native/_core.c), "
           "this ruleset's program: its tables and hook programs",
           said, ""] + _tables(graph) + [""]
    if not native.available():
        out.append(f"(no hook programs listed: the native core is not available here: {native.unavailable_reason()})")
    else:
        body = listing.listing(graph).splitlines()
        out += ["## hook programs (each rule by id and line: its expressions and their instructions, vm.h)"] + body[1:]
    return native_ok, "\n".join(out).rstrip() + "\n"
