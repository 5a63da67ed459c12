"""Compare two rulesets: rule by rule (:func:`rule_diff`) and by play on the same deals
(:func:`paired_simulation`).

Rule diff
    :func:`rule_diff` takes two resolved rulesets (related by ``extends`` or not) and returns a
    :class:`RuleDiff`: the settings that differ (deep comparison; one entry per changed key of a
    mapping, each value with the file:line that set it), settings only in one side, rules added,
    removed or changed by id (hook, guard, effect or expression differ; both sides kept), and
    definitions that differ. Every difference carries a one-line ``summary`` built from the
    rules' / settings' ``says`` and their provenance, e.g.
    ``gouji_minimum.2: 1 (base.yaml:57, RULES.md §3 [S1][S2][S3]) vs 2 (rulebook.yaml:20, seed 000)``.
    Renderers: :func:`diff_text`, :func:`diff_markdown`, :func:`diff_json`.

Paired simulation
    :func:`paired_simulation` plays game ``i`` (``i = 0 .. games-1``) of run ``seed`` under both
    rulesets with :func:`gouji_dsl.tools.simulate.play_game`, so the two games of a pair are dealt the
    same cards whenever the two rulesets have the same pack. As ``gouji simulate`` does, each
    ruleset's games are chained into matches of its ``match_length`` (tribute between games);
    ``matches=False`` plays every deal as a first game. Games run in worker processes
    (``spawn``-safe: each worker receives the *resolved* rulesets, which are plain data, and
    compiles them itself; a :class:`~gouji_dsl.ruleset.graph.RuleGraph` holds closures and cannot be
    pickled). Results are gathered by game index, so a report depends only on the rulesets,
    ``games``, ``seed`` and ``bots``, never on ``workers``. The :class:`PairedReport` gives, per
    ruleset, means and rates with 95% intervals (:mod:`gouji_dsl.tools.stats`), the paired differences
    ``b - a``, and the deals whose outcomes differ most with both game records
    (:func:`save_divergent` writes them as JSON files). Renderers: :func:`report_text`,
    :func:`report_markdown`, :func:`report_json`.
"""
from __future__ import annotations

import json
import math
import os
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import Diagnostic, GoujiError, SourcePos
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.ruleset.spec import DefinitionSpec, ResolvedRuleset, RuleSpec, SettingSpec
from gouji_dsl.tools.stats import Estimate, mean_ci, newcombe_diff, paired_mean_diff, wilson

__all__ = [
    # rule diff
    "RulesetInfo", "SettingValue", "KeyChange", "SettingChange", "RuleSide", "RuleChange",
    "DefinitionSide", "DefinitionChange", "RuleDiff", "rule_diff", "diff_text", "diff_markdown", "diff_json",
    # paired simulation
    "GameSummary", "SideStats", "DivergentDeal", "PairedReport", "SimulationError", "SimulationCancelled",
    "paired_simulation", "save_divergent", "report_text", "report_markdown", "report_json",
    "DIFF_FIGURES", "SIDE_FIGURES", "fmt_value", "disp_width", "wrap",
]

# ==================================================================================================
# rule diff: data


@dataclass(frozen=True)
class RulesetInfo:
    """Which ruleset a side of a comparison is: its name, file, title, source and ``extends`` chain."""

    name: str
    path: str
    title: str | None
    source: str | None
    chain: tuple[str, ...]

    @classmethod
    def of(cls, r: ResolvedRuleset) -> RulesetInfo:
        return cls(r.name, r.path, r.title, r.source, tuple(r.chain))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "title": self.title, "source": self.source,
                "chain": list(self.chain)}


@dataclass(frozen=True)
class SettingValue:
    """One side of a setting difference: the value, where it was written, and what it means.

    ``says``/``source`` are those written (for this setting) in the file that set the value; when
    that file gives no ``source`` for the setting, the file's own top-level ``source``."""

    value: Any
    origin: SourcePos
    says: str | None = None
    source: str | None = None

    @property
    def where(self) -> str:
        """``file.yaml:line`` (file name only; ``origin`` has the full path)."""
        return _short_where(self.origin)

    def provenance(self) -> str:
        """``file.yaml:line, source`` (or just ``file.yaml:line``)."""
        return f"{self.where}, {self.source}" if self.source else self.where

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "origin": str(self.origin), "where": self.where,
                "says": self.says, "source": self.source}


@dataclass(frozen=True)
class KeyChange:
    """A changed key inside a mapping setting. ``key`` is the dotted path below the setting
    (``"2"`` for ``gouji_minimum.2``, ``"joker_cover.equal"`` for nested maps). ``kind`` is
    ``changed``, ``added`` (only in B) or ``removed`` (only in A); the missing side is None."""

    key: str
    kind: str
    a: SettingValue | None
    b: SettingValue | None
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "a": _opt(self.a), "b": _opt(self.b), "summary": self.summary}


@dataclass(frozen=True)
class SettingChange:
    """A top-level setting that differs. ``kind``: ``changed``, ``added`` (only in B), ``removed``
    (only in A). For two mappings, ``keys`` lists every changed key (deep); otherwise it is empty
    and the whole values differ. ``summary`` is one line (the key summaries joined by ``; ``)."""

    name: str
    kind: str
    a: SettingValue | None
    b: SettingValue | None
    keys: tuple[KeyChange, ...]
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "a": _opt(self.a), "b": _opt(self.b),
                "keys": [k.to_dict() for k in self.keys], "summary": self.summary}


@dataclass(frozen=True)
class RuleSide:
    """One side of a rule difference: the rule as written (after inheritance)."""

    id: str
    on: str
    effect: str
    expr: str
    when: str | None
    target: str | None
    amount: str | None
    says: str | None
    source: str | None
    origin: SourcePos
    file: str

    @classmethod
    def of(cls, r: RuleSpec, source: str | None) -> RuleSide:
        return cls(r.id, r.on.text, r.effect, r.effect_expr.text, r.when.text if r.when else None,
                   r.target.text if r.target else None, r.amount.text if r.amount else None,
                   r.says, source, r.origin, r.file or r.origin.path)

    @property
    def where(self) -> str:
        return _short_where(self.origin)

    def provenance(self) -> str:
        return f"{self.where}, {self.source}" if self.source else self.where

    def sentence(self) -> str:
        """``says``, or the rule in short when it has none."""
        if self.says:
            return self.says
        w = f"when {self.when}: " if self.when else ""
        return f"{w}{self.effect} {self.expr}"

    def lines(self) -> list[tuple[str, str]]:
        """(label, text) rows: on, when, effect (and target/amount)."""
        out = [("on", self.on)]
        if self.when is not None:
            out.append(("when", self.when))
        out.append((self.effect, self.expr))
        if self.target is not None:
            out.append(("target", self.target))
        if self.amount is not None:
            out.append(("amount", self.amount))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "on": self.on, "when": self.when, "effect": self.effect, "expr": self.expr,
                "target": self.target, "amount": self.amount, "says": self.says, "source": self.source,
                "origin": str(self.origin), "where": self.where, "file": self.file}


@dataclass(frozen=True)
class RuleChange:
    """A rule that differs, by id. ``kind``: ``changed`` (``fields`` names what differs among
    ``on``, ``when``, ``effect``, ``expr``, ``target``, ``amount``), ``added`` (only in B) or
    ``removed`` (only in A; ``removed_by`` is true when B drops it with ``remove:``)."""

    id: str
    kind: str
    a: RuleSide | None
    b: RuleSide | None
    fields: tuple[str, ...]
    summary: str
    removed_by: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "fields": list(self.fields), "a": _opt(self.a),
                "b": _opt(self.b), "summary": self.summary, "removed_by_remove": self.removed_by}


@dataclass(frozen=True)
class DefinitionSide:
    name: str
    params: tuple[str, ...]
    expr: str
    says: str | None
    source: str | None
    origin: SourcePos

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})" if self.params else self.name

    @property
    def where(self) -> str:
        return _short_where(self.origin)

    def provenance(self) -> str:
        return f"{self.where}, {self.source}" if self.source else self.where

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": list(self.params), "expr": self.expr, "says": self.says,
                "source": self.source, "origin": str(self.origin), "where": self.where}


@dataclass(frozen=True)
class DefinitionChange:
    """A definition that differs (parameters or expression), or exists on one side only."""

    name: str
    kind: str
    a: DefinitionSide | None
    b: DefinitionSide | None
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "a": _opt(self.a), "b": _opt(self.b), "summary": self.summary}


@dataclass(frozen=True)
class RuleDiff:
    """Every difference between ruleset ``a`` and ruleset ``b`` (B relative to A)."""

    a: RulesetInfo
    b: RulesetInfo
    settings: tuple[SettingChange, ...]
    rules: tuple[RuleChange, ...]
    definitions: tuple[DefinitionChange, ...]

    @property
    def empty(self) -> bool:
        """True when the two rulesets play the same: no setting, rule or definition differs."""
        return not (self.settings or self.rules or self.definitions)

    def __len__(self) -> int:
        return len(self.settings) + len(self.rules) + len(self.definitions)

    @property
    def labels(self) -> tuple[str, str]:
        """Short names for the two sides: the ruleset names, or ``A name`` / ``B name`` when equal."""
        return _labels(self.a.name, self.b.name)

    def summaries(self) -> list[str]:
        """One line per difference (per changed key for mapping settings), in report order."""
        out: list[str] = []
        for s in self.settings:
            out.extend([k.summary for k in s.keys] or [s.summary])
        out.extend(r.summary for r in self.rules)
        out.extend(d.summary for d in self.definitions)
        return out

    def setting(self, name: str) -> SettingChange | None:
        return next((s for s in self.settings if s.name == name), None)

    def rule(self, rule_id: str) -> RuleChange | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; keys: ``a, b, identical, counts, settings, rules, definitions, summaries``."""
        return {
            "a": self.a.to_dict(), "b": self.b.to_dict(), "identical": self.empty,
            "counts": {"settings": len(self.settings), "rules": len(self.rules), "definitions": len(self.definitions),
                       "rules_added": sum(r.kind == "added" for r in self.rules),
                       "rules_removed": sum(r.kind == "removed" for r in self.rules),
                       "rules_changed": sum(r.kind == "changed" for r in self.rules)},
            "settings": [s.to_dict() for s in self.settings],
            "rules": [r.to_dict() for r in self.rules],
            "definitions": [d.to_dict() for d in self.definitions],
            "summaries": self.summaries(),
        }


def _opt(x: Any) -> Any:
    return None if x is None else x.to_dict()


def _labels(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (f"A {a}", f"B {b}")


def _display(path: str) -> str:
    """``rules/NAME.yaml`` / ``<bundled>/NAME.yaml`` / the path, as the other commands show files."""
    from gouji_dsl.tools.render import display_path
    return display_path(path)


def _short_where(o: SourcePos) -> str:
    return f"{os.path.basename(o.path) or o.path}:{o.line}"


# ==================================================================================================
# rule diff: computing


class _Provenance:
    """Per-file ``says``/``source`` lookups for one side (the file's own text may be an unsaved buffer)."""

    def __init__(self, r: ResolvedRuleset):
        self.texts = {r.path: r.text} if r.text else {}
        self.raw: dict[str, Any] = {}

    def _data(self, path: str) -> dict[str, Any]:
        if path not in self.raw:
            data: Any = {}
            try:
                from gouji_dsl.ruleset.loader import load_file, load_text
                rr = load_text(self.texts[path], path) if path in self.texts else load_file(path)
                data = rr.data
            except (GoujiError, OSError, KeyError):  # pragma: no cover - files resolved a moment ago
                data = {}
            self.raw[path] = data if isinstance(data, dict) else {}
        return self.raw[path]

    def file_source(self, path: str) -> str | None:
        s = self._data(path).get("source")
        return s if isinstance(s, str) else None

    def setting(self, path: str, name: str) -> tuple[str | None, str | None, bool]:
        """(says, source, known) written for setting ``name`` in file ``path``: ``says`` only from
        that file's long form; ``source`` falls back to the file's top-level source; ``known`` is
        false when the file could not be read (then the caller keeps the merged values)."""
        data = self._data(path)
        written = (data.get("settings") or {}).get(name)
        says = source = None
        if isinstance(written, dict) and "value" in written:
            says, source = written.get("says"), written.get("source")
        return says, source or self.file_source(path), bool(data)


def _same(x: Any, y: Any) -> bool:
    """Deep equality that tells booleans from numbers and strings from numbers."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y))
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y
    return type(x) is type(y) and x == y


def fmt_value(v: Any) -> str:
    """A value in YAML flow style: ``null``, ``true``, ``"2"``, ``[a, b]``, ``{T: 5, "2": 1}``."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_fmt_key(k)}: {fmt_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt_value(x) for x in v) + "]"
    return str(v)


def _fmt_key(k: Any) -> str:
    k = str(k)
    return k if k.isidentifier() else json.dumps(k, ensure_ascii=False)


def _norm_expr(s: str | None) -> str | None:
    return None if s is None else " ".join(s.split())


def _setting_side(spec: SettingSpec, prov: _Provenance, key: str | None = None, value: Any = ...) -> SettingValue:
    origin = spec.key_origins.get(key, spec.origin) if key is not None else spec.origin
    says, source, known = prov.setting(origin.path, spec.name)
    if not known:  # pragma: no cover - the file was read a moment ago by the loader
        says, source = spec.says, spec.source
    # A file that overrides a value without its own `says` gets none: the parent's sentence
    # describes the parent's value, not this one.
    return SettingValue(spec.value if value is ... else value, origin, says, source)


def _walk(a: Any, b: Any, path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], str, Any, Any]]:
    """Changed leaves between two mappings: (path, kind, a value, b value)."""
    for k in list(a) + [k for k in b if k not in a]:
        p = path + (str(k),)
        if k not in b:
            yield p, "removed", a[k], None
        elif k not in a:
            yield p, "added", None, b[k]
        elif isinstance(a[k], dict) and isinstance(b[k], dict):
            yield from _walk(a[k], b[k], p)
        elif not _same(a[k], b[k]):
            yield p, "changed", a[k], b[k]


def _tail(a_says: str | None, b_says: str | None, lb: str) -> str:
    """`` — B: says`` when B explains its value differently from A."""
    if b_says and _norm_expr(b_says) != _norm_expr(a_says):
        return f" — {lb}: {b_says}"
    return ""


def _value_summary(label: str, kind: str, a: SettingValue | None, b: SettingValue | None, la: str, lb: str) -> str:
    if kind == "added":
        assert b is not None
        return f"{label}: only in {lb}: {fmt_value(b.value)} ({b.provenance()})" + (f" — {b.says}" if b.says else "")
    if kind == "removed":
        assert a is not None
        return f"{label}: only in {la}: {fmt_value(a.value)} ({a.provenance()})" + (f" — {a.says}" if a.says else "")
    assert a is not None and b is not None
    return (f"{label}: {fmt_value(a.value)} ({a.provenance()}) vs {fmt_value(b.value)} ({b.provenance()})"
            + _tail(a.says, b.says, lb))


def _diff_settings(ra: ResolvedRuleset, rb: ResolvedRuleset, pa: _Provenance, pb: _Provenance,
                   la: str, lb: str) -> list[SettingChange]:
    out: list[SettingChange] = []
    names = list(ra.settings) + [n for n in rb.settings if n not in ra.settings]
    for name in names:
        sa, sb = ra.settings.get(name), rb.settings.get(name)
        if sa is None or sb is None:
            kind = "added" if sa is None else "removed"
            va = _setting_side(sa, pa) if sa else None
            vb = _setting_side(sb, pb) if sb else None
            out.append(SettingChange(name, kind, va, vb, (), _value_summary(name, kind, va, vb, la, lb)))
            continue
        if _same(sa.value, sb.value):
            continue
        if isinstance(sa.value, dict) and isinstance(sb.value, dict):
            keys: list[KeyChange] = []
            for path, kind, x, y in _walk(sa.value, sb.value, ()):
                top = path[0]
                va = _setting_side(sa, pa, top, x) if kind != "added" else None
                vb = _setting_side(sb, pb, top, y) if kind != "removed" else None
                label = name + "." + ".".join(path)
                keys.append(KeyChange(".".join(path), kind, va, vb, _value_summary(label, kind, va, vb, la, lb)))
            va, vb = _setting_side(sa, pa), _setting_side(sb, pb)
            out.append(SettingChange(name, "changed", va, vb, tuple(keys), "; ".join(k.summary for k in keys)))
        else:
            va, vb = _setting_side(sa, pa), _setting_side(sb, pb)
            out.append(SettingChange(name, "changed", va, vb, (), _value_summary(name, "changed", va, vb, la, lb)))
    return out


_RULE_FIELDS = ("on", "when", "effect", "expr", "target", "amount")


def _rule_summary(kind: str, rid: str, a: RuleSide | None, b: RuleSide | None, fields: Sequence[str],
                  la: str, lb: str, removed_by: bool) -> str:
    if kind == "added":
        assert b is not None
        return f"{rid}: only in {lb}: {b.sentence()} ({b.provenance()})"
    if kind == "removed":
        assert a is not None
        how = f"{lb} removes it" if removed_by else f"not in {lb}"
        return f"{rid}: {how}: {a.sentence()} ({a.provenance()})"
    assert a is not None and b is not None
    if a.says and b.says and _norm_expr(a.says) != _norm_expr(b.says):
        return f"{rid}: {a.says} ({a.provenance()}) vs {b.says} ({b.provenance()})"
    # the same words (or none): show what changed in the rule itself
    parts = []
    for f in fields:
        if f == "effect" and "expr" in fields:
            continue
        if f == "expr":
            parts.append(f"{a.effect} {_q(a.expr)} → {b.effect + ' ' if b.effect != a.effect else ''}{_q(b.expr)}")
        else:
            parts.append(f"{f} {_q(getattr(a, f))} → {_q(getattr(b, f))}")
    words = b.says or a.says
    return (f"{rid}: " + "; ".join(parts) + f" ({a.provenance()} vs {b.provenance()})"
            + (f" — {words}" if words else ""))


def _q(s: str | None) -> str:
    return "(none)" if s is None else f"`{s}`"


def _diff_rules(ra: ResolvedRuleset, rb: ResolvedRuleset, pa: _Provenance, pb: _Provenance,
                la: str, lb: str) -> list[RuleChange]:
    out: list[RuleChange] = []
    ids_b = {r.id: r for r in rb.rules}
    ids_a = {r.id for r in ra.rules}

    def side(r: RuleSpec, prov: _Provenance) -> RuleSide:
        return RuleSide.of(r, r.source or prov.file_source(r.file or r.origin.path))

    for r in ra.rules:
        a = side(r, pa)
        other = ids_b.get(r.id)
        if other is None:
            removed_by = r.id in rb.removed
            out.append(RuleChange(r.id, "removed", a, None, (), _rule_summary("removed", r.id, a, None, (), la, lb,
                                                                                removed_by), removed_by))
            continue
        b = side(other, pb)
        fields = tuple(f for f in _RULE_FIELDS if _norm_expr(getattr(a, f)) != _norm_expr(getattr(b, f)))
        if fields:
            out.append(RuleChange(r.id, "changed", a, b, fields, _rule_summary("changed", r.id, a, b, fields, la, lb,
                                                                               False)))
    for r in rb.rules:
        if r.id not in ids_a:
            b = side(r, pb)
            out.append(RuleChange(r.id, "added", None, b, (), _rule_summary("added", r.id, None, b, (), la, lb, False)))
    return out


def _diff_definitions(ra: ResolvedRuleset, rb: ResolvedRuleset, pa: _Provenance, pb: _Provenance,
                      la: str, lb: str) -> list[DefinitionChange]:
    def side(d: DefinitionSpec, prov: _Provenance) -> DefinitionSide:
        return DefinitionSide(d.name, tuple(d.params), d.expr.text, d.says,
                              d.source or prov.file_source(d.origin.path), d.origin)

    out: list[DefinitionChange] = []
    for name in list(ra.definitions) + [n for n in rb.definitions if n not in ra.definitions]:
        da, db = ra.definitions.get(name), rb.definitions.get(name)
        a = side(da, pa) if da else None
        b = side(db, pb) if db else None
        if a is None:
            assert b is not None
            out.append(DefinitionChange(name, "added", None, b,
                                        f"definition {b.signature}: only in {lb}: `{b.expr}` ({b.provenance()})"
                                        + (f" — {b.says}" if b.says else "")))
        elif b is None:
            out.append(DefinitionChange(name, "removed", a, None,
                                        f"definition {a.signature}: only in {la}: `{a.expr}` ({a.provenance()})"
                                        + (f" — {a.says}" if a.says else "")))
        elif a.params != b.params or _norm_expr(a.expr) != _norm_expr(b.expr):
            out.append(DefinitionChange(
                name, "changed", a, b,
                f"definition {a.signature}: `{a.expr}` ({a.provenance()}) vs "
                + (f"{b.signature} " if b.params != a.params else "") + f"`{b.expr}` ({b.provenance()})"
                + _tail(a.says, b.says, lb)))
    return out


def _resolved(x: Any) -> ResolvedRuleset:
    if isinstance(x, RuleGraph):
        return x.resolved
    if isinstance(x, ResolvedRuleset):
        return x
    from gouji_dsl.ruleset.loader import resolve
    return resolve(x)


def rule_diff(a: ResolvedRuleset | RuleGraph | str, b: ResolvedRuleset | RuleGraph | str) -> RuleDiff:
    """Every difference between ``a`` and ``b`` (B relative to A); see the module docstring.

    ``a``/``b`` are resolved rulesets (or compiled graphs, or bundled names / paths, resolved here
    and possibly raising :class:`GoujiError`). ``rule_diff(x, x).empty`` is true."""
    ra, rb = _resolved(a), _resolved(b)
    pa, pb = _Provenance(ra), _Provenance(rb)
    la, lb = _labels(ra.name, rb.name)
    return RuleDiff(RulesetInfo.of(ra), RulesetInfo.of(rb),
                    tuple(_diff_settings(ra, rb, pa, pb, la, lb)),
                    tuple(_diff_rules(ra, rb, pa, pb, la, lb)),
                    tuple(_diff_definitions(ra, rb, pa, pb, la, lb)))


# ==================================================================================================
# plain-text layout helpers (display width aware: CJK characters take two columns)


def _cw(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def disp_width(s: str) -> int:
    """Terminal columns taken by ``s``."""
    return sum(_cw(c) for c in s)


def _split_to_width(word: str, width: int) -> list[str]:
    out, cur, w = [], "", 0
    for c in word:
        cwid = _cw(c)
        if cur and w + cwid > width:
            out.append(cur)
            cur, w = "", 0
        cur += c
        w += cwid
    if cur:
        out.append(cur)
    return out


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """Greedy word wrap by display width; over-long words (and runs of CJK text) are split."""
    width = max(width, 4)
    lines: list[str] = []
    for para in str(text).split("\n"):
        cur, w = indent, disp_width(indent)
        first = True
        for word in para.split():
            ww = disp_width(word)
            need = ww + (0 if first else 1)
            if w + need <= width:
                cur += ("" if first else " ") + word
                w += need
                first = False
                continue
            if not first:
                lines.append(cur)
                cur, w, first = indent, disp_width(indent), True
            avail = width - w
            if ww <= avail:
                cur, w, first = cur + word, w + ww, False
                continue
            pieces = _split_to_width(word, max(avail, 1))
            for p in pieces[:-1]:
                lines.append(cur + p)
                cur, w = indent, disp_width(indent)
            cur, w, first = cur + pieces[-1], w + disp_width(pieces[-1]), False
        lines.append(cur)
    return lines


def _pad(s: str, width: int) -> str:
    return s + " " * max(0, width - disp_width(s))


def _columns(left: list[str], right: list[str], col: int, sep: str = " │ ") -> list[str]:
    lw = [x for line in left for x in wrap(line, col)]
    rw = [x for line in right for x in wrap(line, col)]
    n = max(len(lw), len(rw))
    lw += [""] * (n - len(lw))
    rw += [""] * (n - len(rw))
    return [(_pad(x, col) + sep + y).rstrip() for x, y in zip(lw, rw)]


def _side_by_side(la: str, lb: str, left: list[str] | None, right: list[str] | None, width: int) -> list[str]:
    """Two columns (``A | B``) when each gets at least 30 columns; otherwise one block per side."""
    left = left if left is not None else ["(absent)"]
    right = right if right is not None else ["(absent)"]
    inner = width - 2
    col = (inner - 3) // 2
    if col >= 30:
        rows = _columns([la], [lb], col)
        rows.append("─" * col + "─┼─" + "─" * col)
        rows += _columns(left, right, col)
        return ["  " + r for r in rows]
    out = []
    for label, lines in ((la, left), (lb, right)):
        out.append(f"  {label}:")
        for line in lines:
            out += wrap(line, width, "    ")
    return out


def _keys_block(s: SettingChange, la: str, lb: str, width: int) -> list[str]:
    """A mapping setting with several changed keys: its sentences once, then one row per key
    (``key: A value (file:line) │ B value (file:line)``)."""
    out = wrap(f"{s.name}: {len(s.keys)} keys differ", width)
    said: list[tuple[str, str]] = []
    for label, side in ((la, "a"), (lb, "b")):
        for k in s.keys:
            v = getattr(k, side)
            if v is not None and v.says:
                said.append((label, f"“{v.says}” ({v.provenance()})"))
                break
    for label, text in said:
        out += wrap(f"{label}: {text}", width, "  ")
    left = [f"{k.key}: {fmt_value(k.a.value)} ({k.a.where})" if k.a else f"{k.key}: (absent)" for k in s.keys]
    right = [f"{fmt_value(k.b.value)} ({k.b.where})" if k.b else "(absent)" for k in s.keys]
    inner = width - 2
    col = (inner - 3) // 2
    if col < 30:
        return out + [f"  {a} → {b}" for a, b in zip(left, right)]
    rows = _columns([la], [lb], col)
    rows.append("─" * col + "─┼─" + "─" * col)
    for a, b in zip(left, right):
        rows += _columns([a], [b], col)
    return out + ["  " + r for r in rows]


def _setting_lines(v: SettingValue | None) -> list[str] | None:
    if v is None:
        return None
    out = [fmt_value(v.value), f"from {v.provenance()}"]
    if v.says:
        out.append(f"“{v.says}”")
    return out


def _rule_lines(r: RuleSide | None) -> list[str] | None:
    if r is None:
        return None
    out = [f"{k}: {t}" for k, t in r.lines()]
    out.append(f"from {r.provenance()}")
    if r.says:
        out.append(f"“{r.says}”")
    return out


def _def_lines(d: DefinitionSide | None) -> list[str] | None:
    if d is None:
        return None
    out = [f"{d.signature} = {d.expr}", f"from {d.provenance()}"]
    if d.says:
        out.append(f"“{d.says}”")
    return out


def _heading(text: str) -> list[str]:
    return ["", text, "─" * disp_width(text)]


def diff_text(diff: RuleDiff, width: int = 100) -> str:
    """The diff as plain text (no colour codes): per difference its one-line summary, then the two
    sides in two columns when ``width`` allows (≥ 66 columns), else one after the other."""
    la, lb = diff.labels
    out = wrap(f"{la} ({_display(diff.a.path)})  vs  {lb} ({_display(diff.b.path)})", width)
    if diff.empty:
        out += wrap("No differences: the two rulesets have the same settings, rules and definitions.", width)
        return "\n".join(out) + "\n"
    n_r = {k: sum(r.kind == k for r in diff.rules) for k in ("changed", "added", "removed")}
    out += wrap(f"{len(diff.settings)} setting(s), {len(diff.rules)} rule(s) "
                f"({n_r['changed']} changed, {n_r['added']} only in {lb}, {n_r['removed']} only in {la}), "
                f"{len(diff.definitions)} definition(s) differ.", width)
    if diff.settings:
        out += _heading("Settings")
        for s in diff.settings:
            if len(s.keys) > 1:
                out.append("")
                out += _keys_block(s, la, lb, width)
            elif s.keys:
                for k in s.keys:
                    out.append("")
                    out += wrap(k.summary, width, "")
                    out += _side_by_side(la, lb, _setting_lines(k.a), _setting_lines(k.b), width)
            else:
                out.append("")
                out += wrap(s.summary, width)
                out += _side_by_side(la, lb, _setting_lines(s.a), _setting_lines(s.b), width)
    if diff.rules:
        out += _heading("Rules")
        for r in diff.rules:
            out.append("")
            kind = {"changed": "changed: " + ", ".join(r.fields), "added": f"only in {lb}",
                    "removed": f"only in {la}" + (" (removed with `remove:`)" if r.removed_by else "")}[r.kind]
            out += wrap(f"{r.id} [{kind}]", width)
            out += wrap(r.summary, width, "  ")
            out += _side_by_side(la, lb, _rule_lines(r.a), _rule_lines(r.b), width)
    if diff.definitions:
        out += _heading("Definitions")
        for d in diff.definitions:
            out.append("")
            out += wrap(d.summary, width)
            out += _side_by_side(la, lb, _def_lines(d.a), _def_lines(d.b), width)
    return "\n".join(out) + "\n"


def _md(s: Any) -> str:
    """A markdown table cell: pipes escaped, line breaks as <br>."""
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def _code(s: str) -> str:
    return f"`{_md(s)}`" if "`" not in s else _md(s)


def diff_markdown(diff: RuleDiff) -> str:
    """The diff as GitHub markdown: a table per section and the one-line summaries."""
    la, lb = diff.labels
    out = [f"# `{diff.a.name}` vs `{diff.b.name}`", "",
           f"- A: `{diff.a.name}` — {_md(diff.a.title or '')} ({_md(_display(diff.a.path))})",
           f"- B: `{diff.b.name}` — {_md(diff.b.title or '')} ({_md(_display(diff.b.path))})", ""]
    if diff.empty:
        out.append("No differences: the two rulesets have the same settings, rules and definitions.")
        return "\n".join(out) + "\n"

    def sv(v: SettingValue | None) -> str:
        if v is None:
            return "—"
        cell = f"{_code(fmt_value(v.value))}<br>{_md(v.provenance())}"
        return cell + (f"<br>{_md(v.says)}" if v.says else "")

    if diff.settings:
        out += ["## Settings", "", f"| Setting | {_md(la)} | {_md(lb)} |", "| --- | --- | --- |"]
        for s in diff.settings:
            if s.keys:
                for k in s.keys:
                    out.append(f"| `{_md(s.name + '.' + k.key)}` | {sv(k.a)} | {sv(k.b)} |")
            else:
                only = {"changed": "", "added": f" (only in {_md(lb)})", "removed": f" (only in {_md(la)})"}[s.kind]
                out.append(f"| `{_md(s.name)}`{only} | {sv(s.a)} | {sv(s.b)} |")
        out.append("")

    def rv(r: RuleSide | None) -> str:
        if r is None:
            return "—"
        cells = [f"{_md(k)}: {_code(t)}" for k, t in r.lines()] + [_md(r.provenance())]
        if r.says:
            cells.append(_md(r.says))
        return "<br>".join(cells)

    if diff.rules:
        out += ["## Rules", "", f"| Rule | Change | {_md(la)} | {_md(lb)} |", "| --- | --- | --- | --- |"]
        for r in diff.rules:
            change = {"changed": "changed: " + ", ".join(r.fields), "added": f"only in {lb}",
                      "removed": f"only in {la}" + (" (`remove:`)" if r.removed_by else "")}[r.kind]
            out.append(f"| `{_md(r.id)}` | {_md(change)} | {rv(r.a)} | {rv(r.b)} |")
        out.append("")

    def dv(d: DefinitionSide | None) -> str:
        if d is None:
            return "—"
        cell = f"{_code(d.signature + ' = ' + d.expr)}<br>{_md(d.provenance())}"
        return cell + (f"<br>{_md(d.says)}" if d.says else "")

    if diff.definitions:
        out += ["## Definitions", "", f"| Definition | {_md(la)} | {_md(lb)} |", "| --- | --- | --- |"]
        for d in diff.definitions:
            out.append(f"| `{_md(d.name)}` | {dv(d.a)} | {dv(d.b)} |")
        out.append("")
    out += ["## In words", ""] + [f"- {_md(s)}" for s in diff.summaries()]
    return "\n".join(out) + "\n"


def diff_json(diff: RuleDiff, indent: int | None = 2) -> str:
    """The diff as JSON (:meth:`RuleDiff.to_dict`, keys sorted)."""
    return json.dumps(diff.to_dict(), ensure_ascii=False, sort_keys=True, indent=indent, default=str) + "\n"


# ==================================================================================================
# paired simulation: data


@dataclass(frozen=True)
class GameSummary:
    """The figures of one game (no record): seat-indexed tuples (index 0 is seat 1)."""

    index: int
    places: tuple[int, ...]
    scores: tuple[int, ...]
    sweep: bool
    decisions: int
    tricks: int
    first_leader: int | None
    burn_attempts: int
    burn_successes: int
    burn_failures: int
    revolutions: int
    redeals: int

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "places": {str(s + 1): p for s, p in enumerate(self.places)},
                "scores": {str(s + 1): v for s, v in enumerate(self.scores)}, "sweep": self.sweep,
                "decisions": self.decisions, "tricks": self.tricks, "first_leader": self.first_leader,
                "burn_attempts": self.burn_attempts, "burn_successes": self.burn_successes,
                "burn_failures": self.burn_failures, "revolutions": self.revolutions, "redeals": self.redeals}


def _summarize(index: int, res: Any, n_seats: int) -> GameSummary:
    seats = range(1, n_seats + 1)
    return GameSummary(
        index=index, places=tuple(int(res.places.get(s, 0)) for s in seats),
        scores=tuple(int(res.scores.get(s, 0)) for s in seats), sweep=bool(res.sweep),
        decisions=int(res.decisions), tricks=int(res.tricks), first_leader=res.first_leader,
        burn_attempts=len(res.burns), burn_successes=sum(1 for b in res.burns if b.get("success")),
        burn_failures=sum(1 for b in res.burns if b.get("failed")),
        revolutions=int(res.revolutions), redeals=int(res.redeals))


# (key, label, kind) — kind: "mean" (a number per game) or "rate" (shown as a percentage)
SIDE_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("decisions", "decisions per game", "mean"),
    ("tricks", "tricks per game", "mean"),
    ("score_spread", "team score spread", "mean"),
    ("first_leader_team_score", "first leader's team score", "mean"),
    ("sweep_rate", "sweep rate (串三户)", "rate"),
    ("burns_per_game", "burn attempts per game", "mean"),
    ("burn_success_rate", "burn success rate", "rate"),
    ("revolution_rate", "games with a revolution", "rate"),
    ("redeal_rate", "games redealt", "rate"),
)
"""The per-ruleset figures of a :class:`SideStats`, in report order."""

DIFF_FIGURES: tuple[tuple[str, str, str], ...] = tuple(
    f for f in SIDE_FIGURES) + (("outcome_changed", "deals whose places differ", "rate"),)
"""The keys of :attr:`PairedReport.differences` (besides ``seat_score``), in report order."""


@dataclass(frozen=True)
class SideStats:
    """One ruleset's figures over the paired games, each an :class:`~gouji_dsl.tools.stats.Estimate`
    (95% interval: means mean ± 1.96·sd/√n, rates Wilson). ``seat_score[s]`` is seat ``s``'s mean
    score; ``place_distribution[s][p]`` the rate of seat ``s`` finishing in place ``p``."""

    name: str
    games: int
    decisions: Estimate
    tricks: Estimate
    score_spread: Estimate
    first_leader_team_score: Estimate
    sweep_rate: Estimate
    burns_per_game: Estimate
    burn_success_rate: Estimate
    revolution_rate: Estimate
    redeal_rate: Estimate
    seat_score: dict[int, Estimate]
    place_distribution: dict[int, dict[int, Estimate]]
    burn_attempts: int = 0
    burn_successes: int = 0

    def figure(self, key: str) -> Estimate:
        return getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "games": self.games,
                               "burn_attempts": self.burn_attempts, "burn_successes": self.burn_successes}
        for key, _, _ in SIDE_FIGURES:
            out[key] = self.figure(key).to_dict()
        out["seat_score"] = {str(s): e.to_dict() for s, e in self.seat_score.items()}
        out["place_distribution"] = {str(s): {str(p): e.to_dict() for p, e in d.items()}
                                     for s, d in self.place_distribution.items()}
        return out


@dataclass(frozen=True)
class DivergentDeal:
    """A deal whose outcome differs between the two rulesets, with both full game records.

    ``score_difference`` = Σ over seats |score_b − score_a|; ``places_changed`` = seats whose place
    differs. ``record_a``/``record_b`` are the engine's event lists; ``match_start_a``/``_b`` the
    first game of the match each game belongs to (equal to ``index`` for a first game, which
    ``play_game(graph, seed, index, bots)`` re-creates on its own)."""

    rank: int
    index: int
    deal: str
    score_difference: int
    places_changed: int
    a: GameSummary
    b: GameSummary
    record_a: list[dict[str, Any]] = field(default_factory=list, repr=False)
    record_b: list[dict[str, Any]] = field(default_factory=list, repr=False)
    match_start_a: int = 0
    match_start_b: int = 0

    def to_dict(self, records: bool = False) -> dict[str, Any]:
        out = {"rank": self.rank, "index": self.index, "deal": self.deal, "score_difference": self.score_difference,
               "places_changed": self.places_changed, "a": self.a.to_dict(), "b": self.b.to_dict(),
               "match_start_a": self.match_start_a, "match_start_b": self.match_start_b}
        if records:
            out["record_a"], out["record_b"] = self.record_a, self.record_b
        return out


@dataclass
class PairedReport:
    """The result of :func:`paired_simulation`.

    ``differences`` maps each key of :data:`DIFF_FIGURES` to the paired difference ``b − a`` (mean of
    per-deal differences with its interval; ``burn_success_rate`` is unpaired: Newcombe), and
    ``differences["seat_score"]`` maps seat → paired difference of that seat's score.
    ``same_deck`` is false when the two packs differ (then game ``i`` is only seeded alike, not dealt
    alike). ``games_a``/``games_b`` hold every game's :class:`GameSummary` (for charts).
    ``match_length_a``/``_b``: games per match as played (1: every deal a first game)."""

    a_name: str
    b_name: str
    a_path: str
    b_path: str
    games: int
    seed: Any
    bots: str | list[str]
    workers: int
    elapsed_s: float
    same_deck: bool
    a: SideStats
    b: SideStats
    differences: dict[str, Any]
    divergent: list[DivergentDeal]
    games_a: list[GameSummary] = field(default_factory=list, repr=False)
    games_b: list[GameSummary] = field(default_factory=list, repr=False)
    match_length_a: int = 1
    match_length_b: int = 1

    @property
    def labels(self) -> tuple[str, str]:
        return _labels(self.a_name, self.b_name)

    def to_dict(self, records: bool = False, timing: bool = True) -> dict[str, Any]:
        """JSON-ready. Keys: ``a, b, games, seed, bots, workers, elapsed_s, same_deck, match_length,
        stats, differences, divergent``. ``timing=False`` drops ``workers``/``elapsed_s`` (which vary from
        run to run) so two reports can be compared."""
        diffs: dict[str, Any] = {k: v.to_dict() for k, v in self.differences.items() if k != "seat_score"}
        diffs["seat_score"] = {str(s): e.to_dict() for s, e in self.differences["seat_score"].items()}
        out: dict[str, Any] = {
            "a": {"name": self.a_name, "path": self.a_path}, "b": {"name": self.b_name, "path": self.b_path},
            "games": self.games, "seed": self.seed, "bots": self.bots, "same_deck": self.same_deck,
            "match_length": {"a": self.match_length_a, "b": self.match_length_b},
            "stats": {"a": self.a.to_dict(), "b": self.b.to_dict()}, "differences": diffs,
            "divergent": [d.to_dict(records) for d in self.divergent],
        }
        if timing:
            out["workers"], out["elapsed_s"] = self.workers, round(self.elapsed_s, 3)
        return out


class SimulationError(RuntimeError):
    """A game could not be played to the end (e.g. a ruleset in which some seat has no legal move)."""


class SimulationCancelled(RuntimeError):
    """Raised by :func:`paired_simulation` when its ``cancel`` event was set."""


# ==================================================================================================
# paired simulation: running


def _match_length(g: RuleGraph, matches: bool) -> int:
    """Games per match (the ruleset's ``match_length`` rule, as ``gouji simulate`` plays them); 1
    when ``matches`` is false: every deal is then played as a first game."""
    if not matches:
        return 1
    from gouji_dsl.tools import simulate
    fn = getattr(simulate, "match_length", None)
    return max(1, int(fn(g))) if fn is not None else 1


class _Runner:
    """Plays consecutive games of one ruleset, chaining the games of a match (``previous``)."""

    def __init__(self, g: RuleGraph, seed: Any, bots: Any, matches: bool):
        self.g, self.seed, self.bots = g, seed, bots
        self.length = _match_length(g, matches)
        self.prev: Any = None

    def play(self, index: int) -> tuple[Any, Any]:
        from gouji_dsl.tools.simulate import play_game
        kw = {"previous": self.prev} if index % self.length and self.prev is not None else {}
        try:
            res, state = play_game(self.g, self.seed, index, self.bots, **kw)
        except Exception as e:
            raise SimulationError(f"game {self.seed}:{index} under {self.g.name!r}: {type(e).__name__}: {e}") from None
        self.prev = state
        return res, state

    def replay(self, index: int) -> Any:
        """Game ``index`` again with its record (the games of its match before it are replayed too)."""
        self.prev = None
        res = None
        for i in range(index - index % self.length, index + 1):
            res, _ = self.play(i)
        return res


def _play_range(ga: RuleGraph, gb: RuleGraph, start: int, stop: int, seed: Any, bots: Any, matches: bool,
                cancel: threading.Event | None = None, progress: Callable[[int], None] | None = None
                ) -> list[tuple[GameSummary, GameSummary]]:
    """Games ``start .. stop-1`` under both rulesets; ``start`` begins a match of both."""
    ra, rb = _Runner(ga, seed, bots, matches), _Runner(gb, seed, bots, matches)
    out = []
    for i in range(start, stop):
        if cancel is not None and cancel.is_set():
            raise SimulationCancelled("paired simulation cancelled")
        x, _ = ra.play(i)
        y, _ = rb.play(i)
        out.append((_summarize(i, x, ga.n_seats), _summarize(i, y, gb.n_seats)))
        if progress is not None:
            progress(i + 1)
    return out


_WORKER: dict[str, Any] = {}


def _init_worker(ra: ResolvedRuleset, rb: ResolvedRuleset) -> None:
    """Worker start-up: compile both rulesets once (they were compiled fine in the parent)."""
    try:
        _WORKER["graphs"] = (compile_ruleset(ra), compile_ruleset(rb))
    except GoujiError as e:  # pragma: no cover - the parent compiled the same data
        _WORKER["error"] = ("gouji", e.diagnostics)
    except Exception as e:  # pragma: no cover
        _WORKER["error"] = ("other", f"{type(e).__name__}: {e}")


def _run_chunk(start: int, stop: int, seed: Any, bots: Any, matches: bool) -> tuple[str, Any]:
    """Play games ``start .. stop-1`` under both rulesets. Returns ``("ok", [(a, b), ...])`` or an
    error tuple (GoujiError does not survive pickling, so nothing is raised across processes)."""
    if "error" in _WORKER:
        return _WORKER["error"]
    ga, gb = _WORKER["graphs"]
    try:
        return "ok", _play_range(ga, gb, start, stop, seed, bots, matches)
    except SimulationError as e:
        return "other", str(e)


def _raise_worker_error(kind: str, payload: Any) -> None:
    if kind == "gouji":
        raise GoujiError(list(payload) if payload else [Diagnostic("<worker>", 0, 0, "ruleset error")])
    raise SimulationError(str(payload))


def _graph(x: Any) -> RuleGraph:
    if isinstance(x, RuleGraph):
        return x
    return compile_ruleset(_resolved(x))


def _deck_key(g: RuleGraph) -> tuple[int, tuple[str, ...]]:
    return g.n_seats, tuple(str(c) for c in g.model.deck())


def _chunks(games: int, workers: int, unit: int = 1) -> list[tuple[int, int]]:
    """Index ranges for the workers: whole multiples of ``unit`` (so every chunk starts a match of
    both rulesets), small enough for smooth progress and a quick cancel."""
    size = max(1, min(10, math.ceil(games / (workers * 8))))
    size = max(unit, size - size % unit)
    return [(i, min(i + size, games)) for i in range(0, games, size)]


def _run_pool(ga: RuleGraph, gb: RuleGraph, games: int, seed: Any, bots: Any, workers: int, matches: bool,
              progress: Callable[[int, int], None] | None, cancel: threading.Event | None
              ) -> list[tuple[GameSummary, GameSummary]]:
    import multiprocessing

    results: dict[int, tuple[GameSummary, GameSummary]] = {}
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                               initargs=(ga.resolved, gb.resolved))
    try:
        unit = math.lcm(_match_length(ga, matches), _match_length(gb, matches))
        pending = {pool.submit(_run_chunk, s, e, seed, bots, matches) for s, e in _chunks(games, workers, unit)}
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            if cancel is not None and cancel.is_set():
                raise SimulationCancelled("paired simulation cancelled")
            for fut in done:
                kind, payload = fut.result()
                if kind != "ok":
                    _raise_worker_error(kind, payload)
                for pair in payload:
                    results[pair[0].index] = pair
            if done and progress is not None:
                progress(len(results), games)
    except BrokenProcessPool as e:
        raise SimulationError(f"a simulation worker died: {e}") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [results[i] for i in range(games)]


def paired_simulation(a: RuleGraph | ResolvedRuleset | str, b: RuleGraph | ResolvedRuleset | str, games: int,
                      seed: Any, bots: str | list[str] = "random", workers: int = 2,
                      progress: Callable[[int, int], None] | None = None, *, top: int = 5,
                      matches: bool = True, cancel: threading.Event | None = None) -> PairedReport:
    """Play the same ``games`` seeded deals under ``a`` and ``b`` and compare the outcomes.

    ``a``/``b``: compiled graphs, resolved rulesets (e.g. an editor's unsaved buffer via
    ``loader.resolve_text``), or bundled names / paths. ``bots``: ``"random"``, ``"heuristic"`` or
    one name per seat. ``workers`` > 1 uses that many ``spawn`` processes (each compiles the
    resolved rulesets once); ``workers=1`` plays in this process. ``progress(done, total)`` is
    called as games complete (from the calling thread). ``top``: how many divergent deals to keep
    (re-played here to get their records). ``matches``: play each ruleset's games in matches of
    its ``match_length`` (tribute between games), as ``gouji simulate`` does; false: every deal is
    a first game. ``cancel``: a :class:`threading.Event`; when set, the run stops and
    :class:`SimulationCancelled` is raised.

    The report depends only on the rulesets, ``games``, ``seed`` and ``bots`` (not on ``workers``).
    Raises :class:`GoujiError` for a bad ruleset, :class:`SimulationError` when a game cannot be
    finished, ``ValueError`` for bad arguments."""
    from gouji_dsl.engine.bots import BOTS

    if games < 1:
        raise ValueError("games must be at least 1")
    names = [bots] if isinstance(bots, str) else list(bots)
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r} (bots: {', '.join(BOTS)})")
    ga, gb = _graph(a), _graph(b)
    if not isinstance(bots, str) and len(names) != ga.n_seats:
        raise ValueError(f"one bot per seat: {ga.n_seats} names expected, got {len(names)}")
    workers = max(1, min(int(workers), games))
    t0 = time.perf_counter()
    if workers == 1:
        pairs = _play_range(ga, gb, 0, games, seed, bots, matches, cancel,
                            (lambda i: progress(i, games)) if progress is not None else None)
    else:
        pairs = _run_pool(ga, gb, games, seed, bots, workers, matches, progress, cancel)
    elapsed = time.perf_counter() - t0
    sa = [p[0] for p in pairs]
    sb = [p[1] for p in pairs]
    stats_a = _side_stats(ga, sa)
    stats_b = _side_stats(gb, sb)
    diffs = _differences(ga, gb, sa, sb, stats_a, stats_b)
    divergent = _divergent(ga, gb, sa, sb, seed, bots, top, matches)
    return PairedReport(ga.name, gb.name, ga.resolved.path, gb.resolved.path, games, seed, bots, workers,
                        elapsed, _deck_key(ga) == _deck_key(gb), stats_a, stats_b, diffs, divergent, sa, sb,
                        _match_length(ga, matches), _match_length(gb, matches))


# ---------------------------------------------------------------------------------------- figures
def _team_of(g: RuleGraph) -> Callable[[int], int]:
    n_teams = max(1, int(g.settings.get("teams", 2) or 2))
    return lambda s: (s - 1) % n_teams + 1


def _team_scores(g: RuleGraph, gs: GameSummary) -> dict[int, float]:
    team = _team_of(g)
    by: dict[int, list[int]] = {}
    for s, v in enumerate(gs.scores, start=1):
        by.setdefault(team(s), []).append(v)
    return {t: sum(v) / len(v) for t, v in by.items()}


def _spread(g: RuleGraph, gs: GameSummary) -> float:
    ts = list(_team_scores(g, gs).values())
    return max(ts) - min(ts) if ts else 0.0


def _leader_team_score(g: RuleGraph, gs: GameSummary) -> float | None:
    if gs.first_leader is None:
        return None
    return _team_scores(g, gs)[_team_of(g)(gs.first_leader)]


def _side_stats(g: RuleGraph, gs: list[GameSummary]) -> SideStats:
    n = len(gs)
    seats = range(1, g.n_seats + 1)
    attempts = sum(x.burn_attempts for x in gs)
    successes = sum(x.burn_successes for x in gs)
    leader = [v for v in (_leader_team_score(g, x) for x in gs) if v is not None]
    return SideStats(
        name=g.name, games=n,
        decisions=mean_ci(x.decisions for x in gs),
        tricks=mean_ci(x.tricks for x in gs),
        score_spread=mean_ci(_spread(g, x) for x in gs),
        first_leader_team_score=mean_ci(leader),
        sweep_rate=wilson(sum(x.sweep for x in gs), n),
        burns_per_game=mean_ci(x.burn_attempts for x in gs),
        burn_success_rate=wilson(successes, attempts),
        revolution_rate=wilson(sum(1 for x in gs if x.revolutions), n),
        redeal_rate=wilson(sum(1 for x in gs if x.redeals), n),
        seat_score={s: mean_ci(x.scores[s - 1] for x in gs) for s in seats},
        place_distribution={s: {p: wilson(sum(1 for x in gs if x.places[s - 1] == p), n) for p in seats}
                            for s in seats},
        burn_attempts=attempts, burn_successes=successes)


def _differences(ga: RuleGraph, gb: RuleGraph, sa: list[GameSummary], sb: list[GameSummary],
                 stats_a: SideStats, stats_b: SideStats) -> dict[str, Any]:
    def paired(f: Callable[[GameSummary], float]) -> Estimate:
        return paired_mean_diff([f(x) for x in sa], [f(y) for y in sb])

    la = [_leader_team_score(ga, x) for x in sa]
    lb = [_leader_team_score(gb, y) for y in sb]
    both = [(x, y) for x, y in zip(la, lb) if x is not None and y is not None]
    out: dict[str, Any] = {
        "decisions": paired(lambda x: x.decisions),
        "tricks": paired(lambda x: x.tricks),
        "score_spread": paired_mean_diff([_spread(ga, x) for x in sa], [_spread(gb, y) for y in sb]),
        "first_leader_team_score": paired_mean_diff([x for x, _ in both], [y for _, y in both]),
        "sweep_rate": paired(lambda x: float(x.sweep)),
        "burns_per_game": paired(lambda x: x.burn_attempts),
        "burn_success_rate": newcombe_diff(stats_a.burn_successes, stats_a.burn_attempts,
                                           stats_b.burn_successes, stats_b.burn_attempts),
        "revolution_rate": paired(lambda x: float(x.revolutions > 0)),
        "redeal_rate": paired(lambda x: float(x.redeals > 0)),
        "outcome_changed": wilson(sum(1 for x, y in zip(sa, sb) if x.places != y.places), len(sa)),
    }
    n = min(ga.n_seats, gb.n_seats)
    out["seat_score"] = {s: paired(lambda x, s=s: x.scores[s - 1] if s - 1 < len(x.scores) else 0)
                         for s in range(1, n + 1)}
    return out


def _divergent(ga: RuleGraph, gb: RuleGraph, sa: list[GameSummary], sb: list[GameSummary], seed: Any,
               bots: Any, top: int, matches: bool) -> list[DivergentDeal]:
    scored = []
    for x, y in zip(sa, sb):
        d_score = sum(abs(p - q) for p, q in zip(x.scores, y.scores))
        d_place = sum(1 for p, q in zip(x.places, y.places) if p != q)
        if d_score or d_place:
            scored.append((-d_score, -d_place, x.index, x, y))
    scored.sort(key=lambda t: t[:3])
    out = []
    run_a, run_b = _Runner(ga, seed, bots, matches), _Runner(gb, seed, bots, matches)
    for rank, (ds, dp, i, x, y) in enumerate(scored[:max(0, top)], start=1):
        ra, rb = run_a.replay(i), run_b.replay(i)
        out.append(DivergentDeal(rank, i, f"{seed}:{i}", -ds, -dp, x, y, ra.record, rb.record,
                                 i - i % run_a.length, i - i % run_b.length))
    return out


def save_divergent(report: PairedReport, directory: str | os.PathLike[str]) -> list[Path]:
    """Write each divergent deal of ``report`` to ``DIR/divergent-RANK-game-INDEX.json`` (the folder is
    created) and return the paths. Each file: ``format``, ``deal``, ``seed``, ``index``, ``bots``,
    ``score_difference``, ``places_changed`` and, for ``a`` and ``b``: ``ruleset``, ``path``,
    ``places``, ``scores``, ``sweep``, ``match_start``, ``match_length`` and ``record`` (the
    engine's event list). A game that is not the first of its match (``index != match_start``)
    follows the games ``match_start .. index-1`` (tribute); ``play_game`` with ``previous`` chained
    from ``match_start`` re-creates it."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for deal in report.divergent:
        data = {
            "format": "gouji-paired-deal/1", "deal": deal.deal, "seed": report.seed, "index": deal.index,
            "bots": report.bots, "score_difference": deal.score_difference, "places_changed": deal.places_changed,
        }
        for key, name, path, gs, rec, start, length in (
                ("a", report.a_name, report.a_path, deal.a, deal.record_a, deal.match_start_a, report.match_length_a),
                ("b", report.b_name, report.b_path, deal.b, deal.record_b, deal.match_start_b, report.match_length_b)):
            g = gs.to_dict()
            data[key] = {"ruleset": name, "path": path, "places": g["places"], "scores": g["scores"],
                         "sweep": gs.sweep, "match_start": start, "match_length": length, "record": rec}
        p = d / f"divergent-{deal.rank:02d}-game-{deal.index:05d}.json"
        tmp = p.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True, default=str) + "\n",
                       encoding="utf-8")
        os.replace(tmp, p)
        paths.append(p)
    return paths


# ---------------------------------------------------------------------------------------- rendering
def _fig(e: Estimate | None, kind: str, signed: bool = False, compact: bool = False) -> str:
    if e is None:
        return "—"
    rate = kind == "rate" or e.kind == "wilson"
    if not compact:
        return e.format(1, percent=True, signed=signed) if rate else e.format(2, signed=signed)
    scale, unit = (100.0, "%") if rate else (1.0, "")
    v = "n/a" if math.isnan(e.value) else f"{e.value * scale:{'+' if signed else ''}.1f}{unit}"
    if math.isnan(e.low) or math.isnan(e.high):
        return v
    if abs((e.high - e.value) - (e.value - e.low)) < 1e-9:
        return f"{v} ±{e.half_width * scale:.1f}"
    return f"{v} [{e.low * scale:.0f}–{e.high * scale:.0f}]"


def _mark(e: Estimate) -> str:
    return " *" if e.excludes_zero else ""


def _figure_rows(r: PairedReport, compact: bool = False) -> list[tuple[str, str, str, str]]:
    rows = []
    for key, label, kind in SIDE_FIGURES:
        d = r.differences[key]
        rows.append((label, _fig(r.a.figure(key), kind, False, compact), _fig(r.b.figure(key), kind, False, compact),
                     _fig(d, kind, True, compact) + _mark(d)))
    for s, e in r.differences["seat_score"].items():
        rows.append((f"mean score, seat {s}", _fig(r.a.seat_score.get(s), "mean", False, compact),
                     _fig(r.b.seat_score.get(s), "mean", False, compact), _fig(e, "mean", True, compact) + _mark(e)))
    oc = r.differences["outcome_changed"]
    rows.append(("deals whose places differ", "", "", _fig(oc, "rate", False, compact)))
    return rows


def _title(r: PairedReport) -> str:
    bots = r.bots if isinstance(r.bots, str) else ",".join(r.bots)
    rate = 2 * r.games / r.elapsed_s if r.elapsed_s else 0.0
    if r.match_length_a == r.match_length_b == 1:
        how = ""
    elif r.match_length_a == r.match_length_b:
        how = f", matches of {r.match_length_a}"
    else:
        how = f", matches of {r.match_length_a} / {r.match_length_b}"
    return (f"Paired simulation: {r.games} deals{how}, seed {r.seed}, {bots} bots — "
            f"{r.workers} worker(s), {r.elapsed_s:.1f} s ({rate:.0f} games/s)")


def report_text(report: PairedReport, width: int = 100) -> str:
    """The simulation report as plain text: a figures table (A, B, B − A; ``*`` marks a difference
    whose 95% interval excludes 0), places by seat, and the most divergent deals."""
    r = report
    la, lb = r.labels
    out = wrap(_title(r), width)
    if not r.same_deck:
        out += wrap("note: the two rulesets use different packs, so game i is seeded alike but not dealt alike.",
                    width)
    head = ("", la, lb, "B − A")
    for compact in (False, True):
        rows = _figure_rows(r, compact)
        c0 = max(disp_width(x[0]) for x in rows + [head])
        cw = [max(disp_width(x[i]) for x in rows + [head]) for i in (1, 2, 3)]
        if c0 + sum(cw) + 6 <= width:
            break
    out += wrap("95% intervals (means: ±1.96·sd/√n; rates: Wilson); B − A: mean paired difference, "
                "* where its interval excludes 0. Spread: mean |team 1 − team 2| score.", width)
    if c0 + sum(cw) + 6 <= width:
        out.append("")
        out.append(_pad(head[0], c0) + "  " + "  ".join(_pad(h, w) for h, w in zip(head[1:], cw)).rstrip())
        out.append("─" * (c0 + sum(cw) + 6))
        for row in rows:
            out.append((_pad(row[0], c0) + "  " + "  ".join(_pad(v, w) for v, w in zip(row[1:], cw))).rstrip())
    else:
        for row in rows:
            out.append("")
            out.append(row[0])
            for lab, v in zip((la, lb, "B − A"), row[1:]):
                if v:
                    out += wrap(f"{lab}: {v}", width, "  ")
    # places
    n = len(r.a.place_distribution)
    out += ["", f"Places by seat, % of games ({la} / {lb}):"]
    cell = 11
    if 8 + n * (cell + 1) <= width:
        out.append(("seat    " + " ".join(_pad(f"place {p}", cell) for p in range(1, n + 1))).rstrip())
        for s in range(1, n + 1):
            da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
            cells = [f"{da[p].value * 100:4.1f}/" + (f"{db[p].value * 100:4.1f}" if p in db else "—")
                     for p in range(1, n + 1)]
            out.append((f"{s:<8}" + " ".join(_pad(c, cell) for c in cells)).rstrip())
    else:
        for s in range(1, n + 1):
            da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
            out.append(f"seat {s}: " + "  ".join(
                f"{p}: {da[p].value * 100:.0f}/" + (f"{db[p].value * 100:.0f}" if p in db else "—")
                for p in range(1, n + 1)))
    # divergent deals
    out += ["", "Deals whose outcomes differ most:" if r.divergent else "No deal ended differently."]
    for d in r.divergent:
        pa = " ".join(str(p) for p in d.a.places)
        pb = " ".join(str(p) for p in d.b.places)
        out += wrap(f"#{d.rank} deal {d.deal}: Σ|Δscore| {d.score_difference}, {d.places_changed} seat(s) placed "
                    f"differently; places by seat {la}: {pa} | {lb}: {pb}", width, "")
    return "\n".join(out) + "\n"


def report_markdown(report: PairedReport) -> str:
    """The simulation report as GitHub markdown tables."""
    r = report
    la, lb = r.labels
    out = [f"## {_md(_title(r))}", ""]
    if not r.same_deck:
        out += ["> The two rulesets use different packs: game *i* is seeded alike but not dealt alike.", ""]
    out += ["95% intervals: means ± 1.96·sd/√n, rates Wilson; B − A is the mean paired difference "
            "(burn success: Newcombe, unpaired). **Bold**: the interval excludes 0.", "",
            f"| Figure | {_md(la)} | {_md(lb)} | B − A |", "| --- | --- | --- | --- |"]
    for label, a, b, d in _figure_rows(r):
        if d.endswith(" *"):
            d = f"**{d[:-2]}**"
        out.append(f"| {_md(label)} | {_md(a)} | {_md(b)} | {_md(d)} |")
    n = len(r.a.place_distribution)
    out += ["", f"### Places by seat (% of games, {_md(la)} / {_md(lb)})", "",
            "| Seat | " + " | ".join(f"place {p}" for p in range(1, n + 1)) + " |",
            "| --- |" + " --- |" * n]
    for s in range(1, n + 1):
        da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
        cells = [f"{da[p].value * 100:.1f} / {db[p].value * 100:.1f}" if p in db else f"{da[p].value * 100:.1f} / —"
                 for p in range(1, n + 1)]
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out += ["", "### Deals whose outcomes differ most", ""]
    if not r.divergent:
        out.append("No deal ended differently.")
    else:
        out += [f"| # | Deal | Σ\\|Δscore\\| | Seats placed differently | Places {_md(la)} | Places {_md(lb)} |",
                "| --- | --- | --- | --- | --- | --- |"]
        for d in r.divergent:
            out.append(f"| {d.rank} | `{_md(d.deal)}` | {d.score_difference} | {d.places_changed} | "
                       f"{' '.join(map(str, d.a.places))} | {' '.join(map(str, d.b.places))} |")
    return "\n".join(out) + "\n"


def report_json(report: PairedReport, records: bool = False, indent: int | None = 2) -> str:
    """The simulation report as JSON (:meth:`PairedReport.to_dict`, keys sorted)."""
    return json.dumps(report.to_dict(records), ensure_ascii=False, sort_keys=True, indent=indent, default=str) + "\n"
