"""Check a ruleset the way ``gouji validate`` does: every problem of every file at once.

:func:`check` runs every stage — reading and structure of each file of the ``extends`` chain
(:func:`gouji_dsl.ruleset.load.resolving.load_chain`), then settings, names, hooks and expressions
(:func:`gouji_dsl.ruleset.graph.compile_ruleset`), the warnings of settings nothing reads, and
with ``strict`` the lint (:func:`gouji_dsl.ruleset.lint.lint`), where the caller adds the findings
of the floors above (``played``: :data:`gouji_dsl.engine.bounds.PLAYED`, which play sample deals;
:func:`gouji_dsl.check` passes them, so this floor never imports the engine) — and keeps going past
the problems it finds:
broken rules and settings are left out of the later stages (their problems are already reported)
so that the rest can still be checked. It returns all diagnostics, errors and warnings, sorted by
position (the ruleset asked for first, then its parents), each with a stable code. It never raises
for bad input.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity
from gouji_dsl.ruleset import graph as rule_graph
from gouji_dsl.ruleset import lint
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.lint import Finding
from gouji_dsl.ruleset.load.reading import RawRuleset
from gouji_dsl.ruleset.load.resolving import Chain, load_chain

__all__ = ["CheckResult", "check", "MAX_REPAIR_ROUNDS"]

MAX_REPAIR_ROUNDS = 4
"""How many times the compile stage is retried with broken settings left out (each retry can only
find problems that the settings stopped it from reaching)."""


@dataclass
class CheckResult:
    """Everything :func:`check` found.

    ``chain`` is the loaded chain (its ``resolved`` merge may leave broken parts out); ``graph`` is
    the compiled rule graph when there is no error at all; ``diagnostics`` every problem, sorted."""

    path: str
    chain: Chain
    graph: RuleGraph | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lint: list[Diagnostic] = field(default_factory=list)  # the lint's findings (strict), also in diagnostics
    held_back: tuple[str, ...] = ()
    """The checks that did not run because the ruleset has errors (they read the ruleset compiled as
    written): ``"unread-settings"`` (the warnings of settings nothing reads, a setting another one
    disables), ``"lint"`` (``strict``). Empty when the ruleset compiled."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.WARNING]

    @property
    def ok(self) -> bool:
        """No error (warnings allowed) and the graph compiled."""
        return self.graph is not None and not self.errors


HELD_BACK_QUICK = "unread-settings"
"""A :attr:`CheckResult.held_back` entry: the warnings that need the compiled ruleset (settings nothing reads)."""
HELD_BACK_LINT = "lint"
"""A :attr:`CheckResult.held_back` entry: the lint (``strict``)."""


def check(name_or_path: str | os.PathLike[str], *, text: str | None = None,
          search: Sequence[str | os.PathLike[str]] = (), referrer: str | os.PathLike[str] | None = None,
          strict: bool = False, layers: Sequence[tuple[str, str]] = (), played: Sequence[Finding] = ()) -> CheckResult:
    """Check a ruleset (by name or path, or the unsaved ``text`` of the file ``name_or_path``) and
    its whole ``extends`` chain. ``strict`` adds the lint's findings (``gouji validate --strict``),
    and ``played`` those of a floor above (findings that play sample deals, see the module doc).
    See :func:`gouji_dsl.ruleset.load.resolving.load_chain` for ``search``, ``referrer`` and ``layers``."""
    path = os.fspath(name_or_path)
    chain = load_chain(name_or_path, text=text, search=search, referrer=referrer, layers=layers)
    diags = list(chain.diagnostics)
    graph = None
    findings: list[Diagnostic] = []
    if chain.resolved is not None:
        overlay = {**({path: text} if text is not None else {}), **dict(layers)}
        graph, found = _compile(chain, overlay or None)
        # a value the reader refused (a number too large: read as null) is not reported again by
        # the later stages ("setting X is null, but must be ..."): one problem per spot
        spots = {(d.path, d.line, d.col) for d in chain.diagnostics if d.severity == Severity.ERROR and d.line > 0}
        diags += [d for d in found if (d.path, d.line, d.col) not in spots]
        if graph is not None and chain.errors:
            graph = None  # compiled from what was left of broken files: not the ruleset as written
        if graph is not None:
            findings = _warnings(graph, strict, played)
            diags += findings
    order = chain.paths
    rank = {p: i for i, p in enumerate(order)}
    seen: set[tuple[object, ...]] = set()
    out = []
    for d in sorted(diags, key=lambda d: (rank.get(d.path, len(rank)), d.path, d.line, d.col)):
        k = (d.path, d.line, d.col, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    held = () if graph is not None else (HELD_BACK_QUICK, HELD_BACK_LINT) if strict else (HELD_BACK_QUICK,)
    return CheckResult(path, chain, graph, out, findings if strict else [], held)


def _compile(chain: Chain, overlay: dict[str, str] | None) -> tuple[RuleGraph | None, list[Diagnostic]]:
    """Compile ``chain.resolved``; when settings stop the compiler before it reaches the rules,
    compile again without those settings (each file's own value; the parent's value is used) and
    add what it then finds in the rules and definitions."""
    resolved = chain.resolved
    raws = [f.raw for f in chain.files if f.raw is not None]
    found: list[Diagnostic] = []
    dropped: dict[str, set[str]] = {}
    for round_ in range(MAX_REPAIR_ROUNDS):
        if resolved is None:
            break
        try:
            return rule_graph.compile_ruleset(resolved, overlay=overlay), found
        except GoujiError as e:
            new = list(e.diagnostics)
        if round_ == 0:
            found += new
        else:  # only what the broken settings hid: not again at a spot already reported, and not
            # "unknown setting" for a new setting left out because it is broken
            spots = {(d.path, d.line, d.col) for d in found}
            # (nor a said_by naming it: "said_by names 'x', which is not a setting")
            gone = {repr(n) for names in dropped.values() for n in names}
            found += [d for d in new if _in_rules(raws, d) and (d.path, d.line, d.col) not in spots
                      and not (d.code == Code.UNKNOWN_SETTING and any(g in d.message for g in gone))]
        broken = {(p, name) for d in new for p, name in _settings_at(raws, d)}
        broken -= {(p, n) for p, names in dropped.items() for n in names}
        if not broken:
            break
        for p, name in broken:
            dropped.setdefault(p, set()).add(name)
        resolved = chain.remerge(dropped)
    return None, found


def _within(raw: RawRuleset, loc: tuple[object, ...], d: Diagnostic) -> bool:
    spot = raw.values.get(loc)
    key = raw.keys.get(loc)
    if spot is None:
        return False
    start = key.pos if key is not None else spot.pos
    end = spot.pos
    here = (d.line, d.col)
    return (start.line, start.col) <= here and (end.end_line == 0 or here <= (end.end_line, end.end_col))


def _settings_at(raws: Sequence[RawRuleset], d: Diagnostic) -> list[tuple[str, str]]:
    """The settings (file, name) a diagnostic points into."""
    out = []
    for raw in raws:
        if raw.path != d.path or d.line <= 0:
            continue
        settings = raw.get(("settings",))
        if isinstance(settings, dict):
            out += [(raw.path, name) for name in settings if _within(raw, ("settings", name), d)]
    return out


def _in_rules(raws: Sequence[RawRuleset], d: Diagnostic) -> bool:
    """True when ``d`` points into the rules or definitions of a file of the chain."""
    return any(raw.path == d.path and d.line > 0 and (_within(raw, ("rules",), d) or _within(raw, ("definitions",), d))
               for raw in raws)


def _warnings(graph: RuleGraph, strict: bool, played: Sequence[Finding]) -> list[Diagnostic]:
    """Findings on a graph that compiled: settings nothing reads (always), the lint's and ``played``
    (``strict``)."""
    try:
        if strict:
            return list(lint.lint(graph, also=played))
        return [d if d.code != Code.UNSPECIFIED else replace(d, code=Code.UNREAD_SETTING)
                for d in lint.quick_warnings(graph)]
    except GoujiError as e:
        return list(e.diagnostics)
