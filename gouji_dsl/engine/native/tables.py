"""The per-ruleset tables the native game flow reads (``flow.h``), built from the compiled graph
directly: the card model's flags (the filler kind, same count, spare jokers for rank cards), which
hooks have rules, the ranks whose plays the ``play`` rules can forbid (other leads are counted,
not asked one by one), the kinds the ``discard`` rules can allow throwing away, and whether the
``burn_lead`` rules read only a play's jokers and whether it empties the hand (a burner's leads are
then counted). Each is read from the rules' checked trees (constants folded by the compiler,
definitions followed), never from generated text.

Every answer errs on the safe side: a table that cannot tell (a rule whose guard it does not read)
says "any rank" / "not by jokers", and the flow then asks every play, as the interpreter does.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from gouji_dsl.lang import ast as A
from gouji_dsl.ruleset.game.vocabulary import HOOKS
from gouji_dsl.ruleset.graph import RuleGraph

#: what the native tables are built from changes with this (part of :func:`ruleset_hash`)
TABLES_VERSION = 1


@dataclass(frozen=True)
class Tables:
    """The flow's per-ruleset tables (see the module's text)."""

    filler: int | None  # the kind index of the filler card (None: no filler)
    same_count: bool
    spare_for_rank: bool
    has_play: bool  # the ``play`` hook has rules
    has_discard: bool  # the ``discard`` hook has rules
    play_ranks: frozenset[int] | None  # the ranks whose plays a play rule can forbid (None: any)
    play_ranks_jokers: bool  # whether a play rule can forbid a pure joker play (with play_ranks)
    discard_ranks: tuple[int, ...]  # the kinds a discard rule can allow throwing away
    burn_lead_by_jokers: bool  # the burn_lead rules read only the play's jokers and empties_hand


def tables(graph: RuleGraph) -> Tables:
    """The tables of ``graph`` (cheap: a walk over its rules' trees)."""
    m = graph.model
    nr = int(m.n_ranks)
    forbid = _ranks_of(graph, [r for r in graph.by_hook["play"] if r.node.effect != "allow"])
    allow = _ranks_of(graph, [r for r in graph.by_hook["discard"] if r.node.effect == "allow"])
    return Tables(
        filler=m.filler, same_count=bool(m.same_count), spare_for_rank=bool(m.spare_for_rank),
        has_play=bool(graph.by_hook["play"]), has_discard=bool(graph.by_hook["discard"]),
        play_ranks=None if forbid is None else frozenset(k for k in forbid if k < nr),
        play_ranks_jokers=True if forbid is None else any(k >= nr for k in forbid),
        discard_ranks=tuple(range(len(m.kinds)) if allow is None else sorted(allow)),
        burn_lead_by_jokers=all(_by_jokers(graph, r) for r in graph.by_hook["burn_lead"]),
    )


# ------------------------------------------------------------------------------ rank tests
def _parts(r: Any) -> list[A.Node]:
    """The trees of a permit rule that decide whether it applies: its guard, and a deny's or an
    allow's effect."""
    node = r.node
    parts = [node.checked.get("when")]
    if node.effect in ("deny", "allow"):
        parts.append(node.checked.get("effect"))
    return [t for t in parts if t is not None]


def _conjuncts(n: A.Node) -> list[A.Node]:
    """The parts of a conjunction (``a and b and c``), else the node itself."""
    if isinstance(n, A.BoolOp) and n.op == A.BoolOpKind.AND:
        out: list[A.Node] = []
        for v in n.operands:
            out += _conjuncts(v)
        return out
    return [n]


def _ranks_of(graph: RuleGraph, rules: list[Any]) -> set[int] | None:
    """The kind indices for which one of ``rules`` can apply (a conjunct of its guard, or of a
    deny's effect, tests ``play.rank`` against a constant); None when one can apply to any play."""
    kinds: set[int] = set()
    for r in rules:
        ranks: set[int] | None = None
        for tree in _parts(r):
            for c in _conjuncts(tree):
                got = _rank_test(graph, c)
                if got is not None:
                    ranks = got if ranks is None else ranks & got
        if ranks is None:
            return None
        kinds |= ranks
    return kinds


def _rank_test(graph: RuleGraph, n: A.Node) -> set[int] | None:
    """For ``play.rank == C`` / ``play.rank in C`` (C constant): the kind indices it holds for."""
    if not isinstance(n, A.Binary) or n.impl not in ("eq", "in_list", "in_any"):
        return None
    a, b = n.left, n.right
    if not (isinstance(a, A.Attr) and a.attr == "rank" and isinstance(a.base, A.Name) and a.base.name == "play"
            and a.base.ref == A.Ref.CONTEXT):
        return None
    const, value = graph._compiler.constant(b)
    if not const:
        return None
    values = [value] if n.impl == "eq" else (value if isinstance(value, list) else None)
    if values is None:
        return None
    strength = graph._compiler.strength
    return {strength[v] for v in values if isinstance(v, str) and v in strength}


# ------------------------------------------------------------------------------ burn leads by jokers
#: the attributes of a candidate play that depend only on its joker combination and on whether it
#: empties the hand
_JOKER_ATTRS = frozenset({"jokers", "empties_hand"})


def _by_jokers(graph: RuleGraph, r: Any) -> bool:
    """Whether a ``burn_lead`` rule's answer depends only on the play's jokers and on whether it
    empties the hand (its guard and effect read nothing else but constants)."""
    node = r.node
    trees = [t for t in (node.checked.get("when"), node.checked.get("effect")) if t is not None]
    return all(_reads_jokers_only(graph, t, 0) for t in trees)


def _reads_jokers_only(graph: RuleGraph, n: A.Node, depth: int) -> bool:
    if depth > 40:
        return False
    const, _value = graph._compiler.constant(n)
    if const:
        return True
    if isinstance(n, A.Attr):
        return (n.attr in _JOKER_ATTRS and isinstance(n.base, A.Name) and n.base.name == "play"
                and n.base.ref == A.Ref.CONTEXT)
    if isinstance(n, A.Name):
        if n.ref == A.Ref.PARAM:
            return True  # (its argument is read where it is passed)
        if n.ref == A.Ref.DEFINITION:
            info = graph._compiler.definitions.get(n.name)
            return info is not None and info.body is not None and not info.params \
                and _reads_jokers_only(graph, info.body, depth + 1)
        return False
    if isinstance(n, (A.Binary, A.Unary, A.BoolOp, A.Cond, A.ListLit)):
        return all(_reads_jokers_only(graph, c, depth + 1) for c in _children(n))
    return False


def _children(n: A.Node) -> list[A.Node]:
    if isinstance(n, A.Binary):
        return [n.left, n.right]
    if isinstance(n, A.Unary):
        return [n.operand]
    if isinstance(n, A.BoolOp):
        return list(n.operands)
    if isinstance(n, A.Cond):
        return [n.cond, n.then, n.other]
    if isinstance(n, A.ListLit):
        return list(n.items)
    return []


# ------------------------------------------------------------------------------ hashing
def ruleset_hash(graph: RuleGraph) -> str:
    """A hash of the resolved ruleset (settings, definitions, rules in effect and their parts'
    texts and places): equal hashes give the same native tables and programs."""
    r = graph.resolved
    data = {
        "tables": TABLES_VERSION,
        "settings": graph.settings,
        "definitions": {k: [list(d.params), d.expr.text] for k, d in sorted(r.definitions.items())},
        "rules": [[c.node.id, c.node.hook, c.node.effect, c.node.when, c.node.expr,
                   _spec_texts(r, c.node.id), c.node.origin.path, c.node.origin.line]
                  for h in HOOKS for c in graph.by_hook[h]],
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _spec_texts(r: Any, rule_id: str) -> list[str | None]:
    for s in r.rules:
        if s.id == rule_id:
            return [None if t is None else t.text for t in (s.target, s.amount, s.giver)]
    return []
