"""Compare two rulesets: rule by rule (:func:`rule_diff`, here) and by play on the same deals
(:func:`paired_simulation`, in :mod:`gouji_dsl.tools.paired`, re-exported here).

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
    :mod:`gouji_dsl.tools.paired` (the report and its renderers), :mod:`gouji_dsl.tools.runs`
    (chunked, streaming, resumable runs on a process pool or Dask), :mod:`gouji_dsl.tools.figures`
    (what is measured, as mergeable totals) and :mod:`gouji_dsl.tools.stats` (the statistics).
"""
from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gouji_dsl.diagnostics import GoujiError, SourcePos
from gouji_dsl.i18n import N_, Language, _, bracketed, current
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.languages import file_text
from gouji_dsl.ruleset.spec import DefinitionSpec, ResolvedRuleset, RuleSpec, SettingSpec, Wording, said
from gouji_dsl.tools import textlayout
from gouji_dsl.tools.doc import cited

__all__ = [
    # rule diff
    "RulesetInfo", "SettingValue", "KeyChange", "SettingChange", "RuleSide", "RuleChange",
    "DefinitionSide", "DefinitionChange", "WordSide", "WordChange", "RuleDiff", "rule_diff", "diff_text", "diff_markdown", "diff_json",
    "fmt_value", "disp_width", "wrap", "field_words", "said_after", "RULE_FIELD_WORDS",
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
        return {"name": self.name, "path": self.path, "title": self.title, "source": said(self.source),
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
        return _provenance(self.where, self.source)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "origin": str(self.origin), "where": self.where,
                "says": said(self.says), "source": said(self.source)}


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
    said_by: str | None = None  # the settings whose sentences state it in the rulebook (said_by:)

    @classmethod
    def of(cls, r: RuleSpec, source: str | None) -> RuleSide:
        return cls(r.id, r.on.text, r.effect, r.effect_expr.text, r.when.text if r.when else None,
                   r.target.text if r.target else None, r.amount.text if r.amount else None,
                   r.says, source, r.origin, r.file or r.origin.path, ", ".join(r.said_by) or None)

    @property
    def where(self) -> str:
        return _short_where(self.origin)

    def provenance(self) -> str:
        return _provenance(self.where, self.source)

    def sentence(self) -> str:
        """``says``, or the rule in short when it has none."""
        if self.says:
            return said(self.says)
        w = _("when {when}: ").format(when=self.when) if self.when else ""
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
                "target": self.target, "amount": self.amount, "says": said(self.says), "source": said(self.source),
                "origin": str(self.origin), "where": self.where, "file": self.file, "said_by": self.said_by}


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
        return _provenance(self.where, self.source)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": list(self.params), "expr": self.expr, "says": said(self.says),
                "source": said(self.source), "origin": str(self.origin), "where": self.where}


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
class WordSide:
    """One side of a word of the game that differs (``words:``): the word, in every language it is
    given in, and where it was written."""

    word: Wording
    origin: SourcePos | None

    @property
    def where(self) -> str:
        """``file.yaml:line`` ("" for a word not read from a file)."""
        return _short_where(self.origin) if self.origin is not None else ""

    def to_dict(self) -> dict[str, Any]:
        return {"word": said(self.word), "texts": {str(lang): t for lang, t in self.word.texts.items()},
                "origin": str(self.origin) if self.origin is not None else None, "where": self.where}


@dataclass(frozen=True)
class WordChange:
    """A word of the game (``words.GROUP.KEY``: a place, a term or a card's name) that the two
    rulesets give otherwise, or that one of them gives only. ``kind``: ``changed``, ``added`` (only
    in B), ``removed`` (only in A); the missing side is None."""

    group: str
    key: str
    kind: str
    a: WordSide | None
    b: WordSide | None
    summary: str

    @property
    def name(self) -> str:
        """``words.places.6``: the word's path in a ruleset file."""
        return f"words.{self.group}.{self.key}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "group": self.group, "key": self.key, "kind": self.kind, "a": _opt(self.a),
                "b": _opt(self.b), "summary": self.summary}


@dataclass(frozen=True)
class RuleDiff:
    """Every difference between ruleset ``a`` and ruleset ``b`` (B relative to A)."""

    a: RulesetInfo
    b: RulesetInfo
    settings: tuple[SettingChange, ...]
    rules: tuple[RuleChange, ...]
    definitions: tuple[DefinitionChange, ...]
    words: tuple[WordChange, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing differs: no setting, rule, definition or word of the game (two rulesets
        that differ only in their words play the same but read otherwise)."""
        return not (self.settings or self.rules or self.definitions or self.words)

    def __len__(self) -> int:
        return len(self.settings) + len(self.rules) + len(self.definitions) + len(self.words)

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
        out.extend(w.summary for w in self.words)
        return out

    def setting(self, name: str) -> SettingChange | None:
        return next((s for s in self.settings if s.name == name), None)

    def rule(self, rule_id: str) -> RuleChange | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; keys: ``a, b, identical, counts, settings, rules, definitions, words, summaries``."""
        return {
            "a": self.a.to_dict(), "b": self.b.to_dict(), "identical": self.empty,
            "counts": {"settings": len(self.settings), "rules": len(self.rules), "definitions": len(self.definitions),
                       "rules_added": sum(r.kind == "added" for r in self.rules),
                       "rules_removed": sum(r.kind == "removed" for r in self.rules),
                       "rules_changed": sum(r.kind == "changed" for r in self.rules), "words": len(self.words)},
            "settings": [s.to_dict() for s in self.settings],
            "rules": [r.to_dict() for r in self.rules],
            "definitions": [d.to_dict() for d in self.definitions],
            "words": [w.to_dict() for w in self.words],
            "summaries": self.summaries(),
        }


def _opt(x: Any) -> Any:
    return None if x is None else x.to_dict()


def _labels(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (f"A {a}", f"B {b}")


def _display(path: str) -> str:
    """``rules/NAME.yaml`` / ``<bundled>/NAME.yaml`` / the path, as the other commands show files."""
    return display_path(path)


def _provenance(where: str, source: str | None) -> str:
    """``file.yaml:line, source``: the source cited as the rulebook cites it (in Chinese the seeds as
    资料 001, :func:`gouji_dsl.tools.doc.cited`), or ``file.yaml:line`` alone."""
    return f"{where}{_(', ')}{cited(said(source))}" if source else where


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
                from gouji_dsl.ruleset.load.checking import load_file, load_text
                rr = load_text(self.texts[path], path) if path in self.texts else load_file(path)
                data = rr.data
            except (GoujiError, OSError, KeyError):  # pragma: no cover - files resolved a moment ago
                data = {}
            self.raw[path] = data if isinstance(data, dict) else {}
        return self.raw[path]

    def file_source(self, path: str) -> str | None:
        data = self._data(path)
        return file_text(data.get("source"), data)

    def setting(self, path: str, name: str) -> tuple[str | None, str | None, bool]:
        """(says, source, known) written for setting ``name`` in file ``path``: ``says`` only from
        that file's long form; ``source`` falls back to the file's top-level source; ``known`` is
        false when the file could not be read (then the caller keeps the merged values)."""
        data = self._data(path)
        written = (data.get("settings") or {}).get(name)
        says = source = None
        if isinstance(written, dict) and "value" in written:
            says, source = file_text(written.get("says"), data), file_text(written.get("source"), data)
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


def _said_differently(a: str | None, b: str | None) -> bool:
    """Two sentences differ (spacing aside) in a language both give them in: a change of the
    Chinese alone is a change; a sentence given in fewer languages is compared in those."""
    if isinstance(a, Wording) and isinstance(b, Wording):
        common = [lang for lang in a.texts if lang in b.texts]
        if common:
            return any(_norm_expr(a.texts[lang]) != _norm_expr(b.texts[lang]) for lang in common)
    return _norm_expr(a) != _norm_expr(b)


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
    if b_says and _said_differently(a_says, b_says):
        return _(" — {lb}: {says}").format(lb=lb, says=said(b_says))
    return ""


def _value_summary(label: str, kind: str, a: SettingValue | None, b: SettingValue | None, la: str, lb: str) -> str:
    if kind == "added":
        assert b is not None
        return _("{label}: only in {lb}: {fmt_value} ({b})").format(
            label=label, lb=lb, fmt_value=fmt_value(b.value), b=b.provenance()) + (said_after(said(b.says)) if b.says else "")
    if kind == "removed":
        assert a is not None
        return _("{label}: only in {la}: {fmt_value} ({a})").format(
            label=label, la=la, fmt_value=fmt_value(a.value), a=a.provenance()) + (said_after(said(a.says)) if a.says else "")
    assert a is not None and b is not None
    return (_("{label}: {fmt_value} ({a}) vs {fmt_value2} ({b})").format(
        label=label, fmt_value=fmt_value(a.value), a=a.provenance(), fmt_value2=fmt_value(b.value), b=b.provenance())
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
            if sa.says and sb.says and _said_differently(sa.says, sb.says):  # said differently: the rulebook changes
                va, vb = _setting_side(sa, pa), _setting_side(sb, pb)
                out.append(SettingChange(name, "changed", va, vb, (), _value_summary(name, "changed", va, vb, la, lb)))
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


#: the fields of a rule in words, for a reader of another language than the format's keys (已改：表达式、说法)
RULE_FIELD_WORDS = {"on": N_("hook"), "when": N_("condition"), "effect": N_("kind of effect"), "expr": N_("expression"),
                    "target": N_("target"), "amount": N_("amount"), "says": N_("sentence"), "said_by": N_("stated by")}


def field_words(fields: Iterable[str]) -> str:
    """The changed fields of a rule: in English the ruleset format's keys (``when, says``), which are
    its words; in another language their names in it (Chinese ``条件、说法``)."""
    if current() is Language.EN:
        return ", ".join(fields)
    return "、".join(_(RULE_FIELD_WORDS[f]) if f in RULE_FIELD_WORDS else f for f in fields)  # (Chinese lists with 、)


def said_after(says: str) -> str:
    """`` — says``: a difference's sentence after it (Chinese: ``——says``)."""
    return _(" — {says}").format(says=says)


_RULE_FIELDS = ("on", "when", "effect", "expr", "target", "amount", "says", "said_by")
"""What makes a rule differ; ``says`` and ``said_by`` too: a rule overridden only to change its
sentence, or the settings that state it, changes the printed rulebook (``gouji doc``)."""


def _rule_summary(kind: str, rid: str, a: RuleSide | None, b: RuleSide | None, fields: Sequence[str],
                  la: str, lb: str, removed_by: bool) -> str:
    if kind == "added":
        assert b is not None
        return _("{rid}: only in {lb}: {b} ({b2})").format(rid=rid, lb=lb, b=b.sentence(), b2=b.provenance())
    if kind == "removed":
        assert a is not None
        how = _("{lb} removes it").format(lb=lb) if removed_by else _("not in {lb}").format(lb=lb)
        return _("{rid}: {how}: {sentence} ({a})").format(rid=rid, how=how, sentence=a.sentence(), a=a.provenance())
    assert a is not None and b is not None
    if a.says and b.says and _said_differently(a.says, b.says):
        return _("{rid}: {says} ({a}) vs {says2} ({b})").format(rid=rid, says=said(a.says), a=a.provenance(),
                                                               says2=said(b.says), b=b.provenance())
    # the same words (or none): show what changed in the rule itself
    parts = []
    for f in fields:
        if f == "effect" and "expr" in fields:
            continue
        if f == "expr":
            parts.append(f"{a.effect} {_q(a.expr)} → {b.effect + ' ' if b.effect != a.effect else ''}{_q(b.expr)}")
        else:
            parts.append(f"{field_words([f])} {_q(getattr(a, f))} → {_q(getattr(b, f))}")
    words = b.says or a.says
    return (rid + _(": ") + _("; ").join(parts) + _(" ({a} vs {b})").format(a=a.provenance(), b=b.provenance())
            + (said_after(said(words)) if words else ""))


def _q(s: str | None) -> str:
    return _("(none)") if s is None else f"`{s}`"


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
        fields = tuple(f for f in _RULE_FIELDS if (_said_differently(a.says, b.says) if f == "says"
                                                   else _norm_expr(getattr(a, f)) != _norm_expr(getattr(b, f))))
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
                                        _("definition {signature}: only in {lb}: `{expr}` ({b})").format(
                                            signature=b.signature, lb=lb, expr=b.expr, b=b.provenance())
                                        + (said_after(said(b.says)) if b.says else "")))
        elif b is None:
            out.append(DefinitionChange(name, "removed", a, None,
                                        _("definition {signature}: only in {la}: `{expr}` ({a})").format(
                                            signature=a.signature, la=la, expr=a.expr, a=a.provenance())
                                        + (said_after(said(a.says)) if a.says else "")))
        elif a.params != b.params or _norm_expr(a.expr) != _norm_expr(b.expr):
            out.append(DefinitionChange(
                name, "changed", a, b,
                _("definition {signature}: `{expr}` ({a}) vs ").format(signature=a.signature, expr=a.expr, a=a.provenance())
                + (f"{b.signature} " if b.params != a.params else "") + f"`{b.expr}`" + bracketed(b.provenance(), after=True)
                + _tail(a.says, b.says, lb)))
    return out


def _word_text(w: Wording, other: Wording | None) -> str:
    """A word as a diff shows it: in the active language, quoted; in every language it is given in
    (``{en: "last (大落)", zh: "大落"}``) when the two sides read alike in the active language (only
    another language's word changed)."""
    if other is not None and said(w) == said(other):
        return fmt_value({str(lang): t for lang, t in w.texts.items()})
    return fmt_value(said(w))


def _diff_words(ra: ResolvedRuleset, rb: ResolvedRuleset, la: str, lb: str) -> list[WordChange]:
    """The words of the game (``words:`` places, terms, cards) the two rulesets give otherwise, in the
    order written (A's, then those only B gives)."""
    out: list[WordChange] = []
    for group in list(ra.words) + [g for g in rb.words if g not in ra.words]:
        wa, wb = ra.words.get(group, {}), rb.words.get(group, {})
        for key in list(wa) + [k for k in wb if k not in wa]:
            a, b = wa.get(key), wb.get(key)
            if a is not None and b is not None and dict(a.texts) == dict(b.texts):
                continue
            kind = "added" if a is None else "removed" if b is None else "changed"
            sa = WordSide(a, a.origin) if a is not None else None
            sb = WordSide(b, b.origin) if b is not None else None
            label = f"words.{group}.{key}"
            if sa is None:
                assert b is not None and sb is not None
                summary = _("{label}: only in {lb}: {fmt_value} ({b})").format(
                    label=label, lb=lb, fmt_value=_word_text(b, None), b=sb.where)
            elif sb is None:
                assert a is not None
                summary = _("{label}: only in {la}: {fmt_value} ({a})").format(
                    label=label, la=la, fmt_value=_word_text(a, None), a=sa.where)
            else:
                assert a is not None and b is not None
                summary = _("{label}: {fmt_value} ({a}) vs {fmt_value2} ({b})").format(
                    label=label, fmt_value=_word_text(a, b), a=sa.where, fmt_value2=_word_text(b, a), b=sb.where)
            out.append(WordChange(group, str(key), kind, sa, sb, summary))
    return out


def _resolved(x: Any) -> ResolvedRuleset:
    if isinstance(x, RuleGraph):
        return x.resolved
    if isinstance(x, ResolvedRuleset):
        return x
    from gouji_dsl.ruleset.load.resolving import resolve
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
                    tuple(_diff_definitions(ra, rb, pa, pb, la, lb)),
                    tuple(_diff_words(ra, rb, la, lb)))


# ==================================================================================================
# plain-text layout helpers (display width aware: CJK characters take two columns)


def _cw(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def disp_width(s: str) -> int:
    """Terminal columns taken by ``s``."""
    return sum(_cw(c) for c in s)


def wrap(text: str, width: int, indent: str = "", keep: Iterable[str] = ()) -> list[str]:
    """``text`` in lines of at most ``width`` columns, each prefixed with ``indent``, paragraph by
    paragraph (``\\n``): the one layout of Chinese and English text (:func:`gouji_dsl.tools.textlayout.wrap`:
    Chinese breaks between characters, its punctuation kept with its neighbour; ``keep``: never cut)."""
    width = max(width, 4)
    return [line for para in str(text).split("\n") for line in textlayout.wrap(para, width, indent, keep=keep)]


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
    left = left if left is not None else [_("(absent)")]
    right = right if right is not None else [_("(absent)")]
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
    out = wrap(_("{name}: {n} keys differ").format(name=s.name, n=len(s.keys)), width)
    sentences: list[tuple[str, str]] = []
    for label, side in ((la, "a"), (lb, "b")):
        for k in s.keys:
            v = getattr(k, side)
            if v is not None and v.says:
                sentences.append((label, f"“{said(v.says)}” ({v.provenance()})"))
                break
    for label, text in sentences:
        out += wrap(f"{label}: {text}", width, "  ")
    left = [f"{k.key}: {fmt_value(k.a.value)} ({k.a.where})" if k.a else _("{key}: (absent)").format(key=k.key) for k in s.keys]
    right = [f"{fmt_value(k.b.value)} ({k.b.where})" if k.b else _("(absent)") for k in s.keys]
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
    out = [fmt_value(v.value), _("from {v}").format(v=v.provenance())]
    if v.says:
        out.append(f"“{said(v.says)}”")
    return out


def _rule_lines(r: RuleSide | None) -> list[str] | None:
    if r is None:
        return None
    out = [f"{k}: {t}" for k, t in r.lines()]
    out.append(_("from {r}").format(r=r.provenance()))
    if r.says:
        out.append(f"“{said(r.says)}”")
    return out


def _def_lines(d: DefinitionSide | None) -> list[str] | None:
    if d is None:
        return None
    out = [f"{d.signature} = {d.expr}", _("from {d}").format(d=d.provenance())]
    if d.says:
        out.append(f"“{said(d.says)}”")
    return out


def _word_lines(w: WordSide | None) -> list[str] | None:
    """A word of the game in every language it is given in (the active one first), and where."""
    if w is None:
        return None
    first = said(w.word)
    out = [f"{lang}: {t}" for lang, t in sorted(w.word.texts.items(), key=lambda kv: kv[1] != first)]
    return out + ([_("from {v}").format(v=w.where)] if w.where else [])


def _heading(text: str) -> list[str]:
    return ["", text, "─" * disp_width(text)]


def _text_counts(diff: RuleDiff, width: int) -> list[str]:
    """How many settings, rules, definitions and words of the game differ."""
    la, lb = diff.labels
    out: list[str] = []
    n_r = {k: sum(r.kind == k for r in diff.rules) for k in ("changed", "added", "removed")}
    if len(diff) > len(diff.words):  # (two rulesets that differ in their words only: that line alone)
        out += wrap(_("{settings} setting(s), {rules} rule(s) "
                    "({changed} changed, {added} only in {lb}, {removed} only in {la}), "
                    "{definitions} definition(s) differ.").format(
                        settings=len(diff.settings), rules=len(diff.rules), changed=n_r['changed'], added=n_r['added'], lb=lb,
                        removed=n_r['removed'], la=la, definitions=len(diff.definitions)), width)
    if diff.words:
        out += wrap(_("{n} word(s) of the game (words:) differ.").format(n=len(diff.words)), width)
    return out


def _text_settings(diff: RuleDiff, width: int) -> list[str]:
    """The settings that differ: a map's keys in a block, one key or a whole value side by side."""
    la, lb = diff.labels
    out = _heading(_("Settings"))
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
    return out


def _text_rules(diff: RuleDiff, width: int) -> list[str]:
    """The rules that differ: id and change, the summary, the two sides."""
    la, lb = diff.labels
    out = _heading(_("Rules"))
    for r in diff.rules:
        out.append("")
        kind = {"changed": _("changed: ") + field_words(r.fields), "added": _("only in {lb}").format(lb=lb),
                "removed": _("only in {la}").format(la=la) + (_(" (removed with `remove:`)") if r.removed_by else "")}[r.kind]
        out += wrap(f"{r.id} [{kind}]", width)
        out += wrap(r.summary, width, "  ")
        out += _side_by_side(la, lb, _rule_lines(r.a), _rule_lines(r.b), width)
    return out


def _text_section(diff: RuleDiff, heading: str, entries: Sequence[Any], lines: Callable[[Any], list[str] | None],
                  width: int) -> list[str]:
    """A section of summaries, each with the two sides (the definitions, the words of the game)."""
    la, lb = diff.labels
    out = _heading(heading)
    for e in entries:
        out.append("")
        out += wrap(e.summary, width)
        out += _side_by_side(la, lb, lines(e.a), lines(e.b), width)
    return out


def diff_text(diff: RuleDiff, width: int = 100) -> str:
    """The diff as plain text (no colour codes): per difference its one-line summary, then the two
    sides in two columns when ``width`` allows (≥ 66 columns), else one after the other."""
    la, lb = diff.labels
    out = wrap(_("{la} ({display})  vs  {lb} ({display2})").format(
        la=la, display=_display(diff.a.path), lb=lb, display2=_display(diff.b.path)), width)
    if diff.empty:
        out += wrap(_("No differences: the two rulesets have the same settings, rules, definitions and words of the game."), width)
        return "\n".join(out) + "\n"
    out += _text_counts(diff, width)
    if diff.settings:
        out += _text_settings(diff, width)
    if diff.rules:
        out += _text_rules(diff, width)
    if diff.definitions:
        out += _text_section(diff, _("Definitions"), diff.definitions, _def_lines, width)
    if diff.words:
        out += _text_section(diff, _("Words of the game"), diff.words, _word_lines, width)
    return "\n".join(out) + "\n"


def _md(s: Any) -> str:
    """A markdown table cell: pipes escaped, line breaks as <br>."""
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def _code(s: str) -> str:
    return f"`{_md(s)}`" if "`" not in s else _md(s)


def _md_setting(v: SettingValue | None) -> str:
    """A setting's side as a markdown cell: value, provenance, sentence."""
    if v is None:
        return "—"
    cell = f"{_code(fmt_value(v.value))}<br>{_md(v.provenance())}"
    return cell + (f"<br>{_md(said(v.says))}" if v.says else "")


def _md_rule(r: RuleSide | None) -> str:
    """A rule's side as a markdown cell: its fields, provenance, sentence."""
    if r is None:
        return "—"
    cells = [f"{_md(k)}: {_code(t)}" for k, t in r.lines()] + [_md(r.provenance())]
    if r.says:
        cells.append(_md(said(r.says)))
    return "<br>".join(cells)


def _md_definition(d: DefinitionSide | None) -> str:
    """A definition's side as a markdown cell: signature and expression, provenance, sentence."""
    if d is None:
        return "—"
    cell = f"{_code(d.signature + ' = ' + d.expr)}<br>{_md(d.provenance())}"
    return cell + (f"<br>{_md(said(d.says))}" if d.says else "")


def _md_word(w: WordSide | None) -> str:
    """A word of the game's side as a markdown cell."""
    return "—" if w is None else "<br>".join(_md(x) for x in _word_lines(w) or [])


def _md_settings(diff: RuleDiff) -> list[str]:
    """The settings table (a map's keys one row each)."""
    la, lb = diff.labels
    out = [_("## Settings"), "", _("| Setting | {md} | {md2} |").format(md=_md(la), md2=_md(lb)), "| --- | --- | --- |"]
    for s in diff.settings:
        if s.keys:
            for k in s.keys:
                out.append(f"| `{_md(s.name + '.' + k.key)}` | {_md_setting(k.a)} | {_md_setting(k.b)} |")
        else:
            only = {"changed": "", "added": _(" (only in {md})").format(md=_md(lb)), "removed": _(" (only in {md})").format(md=_md(la))}[s.kind]
            out.append(f"| `{_md(s.name)}`{only} | {_md_setting(s.a)} | {_md_setting(s.b)} |")
    out.append("")
    return out


def _md_rules(diff: RuleDiff) -> list[str]:
    """The rules table: id, change, the two sides."""
    la, lb = diff.labels
    out = [_("## Rules"), "", _("| Rule | Change | {md} | {md2} |").format(md=_md(la), md2=_md(lb)), "| --- | --- | --- | --- |"]
    for r in diff.rules:
        change = {"changed": _("changed: ") + field_words(r.fields), "added": _("only in {lb}").format(lb=lb),
                  "removed": _("only in {la}").format(la=la) + (" (`remove:`)" if r.removed_by else "")}[r.kind]
        out.append(f"| `{_md(r.id)}` | {_md(change)} | {_md_rule(r.a)} | {_md_rule(r.b)} |")
    out.append("")
    return out


def diff_markdown(diff: RuleDiff) -> str:
    """The diff as GitHub markdown: a table per section and the one-line summaries."""
    la, lb = diff.labels
    out = [_("# `{name}` vs `{name2}`").format(name=diff.a.name, name2=diff.b.name), "",
           f"- A: `{diff.a.name}` — {_md(diff.a.title or '')} ({_md(_display(diff.a.path))})",
           f"- B: `{diff.b.name}` — {_md(diff.b.title or '')} ({_md(_display(diff.b.path))})", ""]
    if diff.empty:
        out.append(_("No differences: the two rulesets have the same settings, rules, definitions and words of the game."))
        return "\n".join(out) + "\n"
    if diff.settings:
        out += _md_settings(diff)
    if diff.rules:
        out += _md_rules(diff)
    if diff.definitions:
        out += [_("## Definitions"), "", _("| Definition | {md} | {md2} |").format(md=_md(la), md2=_md(lb)), "| --- | --- | --- |"]
        out += [f"| `{_md(d.name)}` | {_md_definition(d.a)} | {_md_definition(d.b)} |" for d in diff.definitions] + [""]
    if diff.words:
        out += [_("## Words of the game"), "", _("| Word | {md} | {md2} |").format(md=_md(la), md2=_md(lb)), "| --- | --- | --- |"]
        out += [f"| `{_md(w.name)}` | {_md_word(w.a)} | {_md_word(w.b)} |" for w in diff.words] + [""]
    out += [_("## In words"), ""] + [f"- {_md(s)}" for s in diff.summaries()]
    return "\n".join(out) + "\n"


def diff_json(diff: RuleDiff, indent: int | None = 2) -> str:
    """The diff as JSON (:meth:`RuleDiff.to_dict`, keys sorted)."""
    return json.dumps(diff.to_dict(), ensure_ascii=False, sort_keys=True, indent=indent, default=str) + "\n"
