"""Lint findings about settings: settings and keys of map settings nothing reads, tribute kinds no
tribute rule asks about (``UnreadSetting``), lookups of a map setting that fail for some keys
(``MissingKey``), settings that do nothing, another setting disabling them or only rules of a
question never asked reading them (``SettingHasNoEffect``).

To add a finding about a setting, write a class here: ``@a_finding``, a subclass of
:class:`~gouji_dsl.ruleset.lint.registry.Finding` with a docstring, ``code = Code.X`` and a ``run``
yielding ``(position, message, hint)`` (see :mod:`gouji_dsl.ruleset.lint`).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gouji_dsl.diagnostics import Code, Diagnostic, Severity, SourcePos, did_you_mean
from gouji_dsl.i18n import _
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.types import Enum, strip
from gouji_dsl.ruleset.analysis import ALL, ENGINE_SETTINGS, KIND_HOOKS, Analysis, Dead, Why, walk_with_defs, where
from gouji_dsl.ruleset.lint.registry import Context, Finding, Found, a_finding, own_raw
from gouji_dsl.ruleset.settings import normalize_setting
from gouji_dsl.ruleset.spec import SettingSpec

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleGraph, RuleNode


@a_finding
class UnreadSetting(Finding):
    """A setting of this file that no rule, no definition a rule uses, and not the engine reads
    (most likely a misspelt name: did-you-mean)."""

    code = Code.UNREAD_SETTING

    def run(self, c: Context) -> Found:
        for name, s in c.own_settings():
            if name in c.an.reads or name in ENGINE_SETTINGS:
                continue
            meant = did_you_mean(name, [m for m in c.an.reads if m != name] + list(ENGINE_SETTINGS))
            hint = meant or _("rules read a setting as settings.") + name + _("; remove it, or check the name")
            at = s.name_origin or s.origin
            message = _("setting {name!r} is read by no rule, no definition a rule uses, and not by the engine").format(name=name)
            if meant and (c.parent is None or name not in c.parent.settings):
                # a new name next to one that is read: a misspelling, which would leave the setting meant
                # at its inherited value without a word: an error, not a warning
                yield Diagnostic.at(at, message, hint=meant + _(" (an error: a new setting nothing reads, named like one that is "
                                                                "read, is taken for a misspelling)"),
                                    source_line=c.lines.line(at.path, at.line), severity=Severity.ERROR,
                                    code=Code.UNREAD_SETTING)
                continue
            yield (at, message, hint)


@a_finding
class UnreadSettingKey(Finding):
    """A key this file writes in a map setting that the rules and the engine read key by key, and
    that nothing reads (did-you-mean, or the keys that are read)."""

    code = Code.UNREAD_SETTING

    def run(self, c: Context) -> Found:
        raw = own_raw(c.resolved.path, c.resolved.text or "")
        for name, s in c.own_settings():
            if name in ENGINE_SETTINGS and ENGINE_SETTINGS[name] is None:
                continue  # the engine reads all of it
            if name not in c.an.reads and name not in ENGINE_SETTINGS:
                continue  # nothing reads the setting at all: unread_setting
            keys_read = c.an.reads.get(name, set())
            if keys_read is ALL or not isinstance(s.value, dict):
                continue
            known = set(keys_read) | set(ENGINE_SETTINGS.get(name) or frozenset())
            written = (raw.get(("settings", name)) if raw is not None else None)
            base_loc = ("settings", name, "value") if isinstance(written, dict) and "value" in written else ("settings", name)
            for k in s.value:
                o = s.key_origins.get(str(k)) or s.key_origins.get(k)
                if o is None or o.path != c.own_path or str(k) in known:
                    continue
                if raw is not None and (base_loc + (k,)) in raw.keys:
                    o = raw.origin(base_loc + (k,), key=True)
                yield (o, _("key {k!r} of setting {name!r} is read by nothing").format(k=k, name=name),
                       did_you_mean(str(k), known) or _("keys read: {join}").format(join=', '.join(sorted(known)) or 'none'))


def _enum_lookups(an: Analysis, n: RuleNode) -> Iterator[tuple[A.Index, A.Setting, Enum]]:
    """The lookups (and their map setting) of a map setting by a key of an enumerated type (not a
    literal) in rule ``n``."""
    for tree in an.trees(n.id):
        for x in walk_with_defs(tree, an.defs):
            if isinstance(x, A.Index) and isinstance(x.base, A.Setting) and isinstance(x.base.value, dict):
                kt = strip(x.key.type) if x.key.type is not None else None
                if isinstance(kt, Enum) and not isinstance(x.key, A.Literal):
                    yield x, x.base, kt


@a_finding
class LookupWithoutEveryKey(Finding):
    """A map setting without every word of an enumerated key that a rule that can fire looks it up
    by: the rule fails while the game runs when the key is one of the absent words. Reported at the
    table when this file writes it, else at this file's rule."""

    code = Code.MISSING_KEY

    def run(self, c: Context) -> Found:
        for n in c.nodes:
            if n.id in c.an.dead:
                continue
            for x, base, kt in _enum_lookups(c.an, n):
                absent = [w for w in kt.values if w not in base.value]
                spec = c.resolved.settings.get(base.name)
                if not absent or spec is None:
                    continue
                at = spec.positions.get(base.path, spec.origin) if base.path else spec.origin
                if at.path != c.own_path and n.origin.path != c.own_path:
                    continue  # neither the rule nor the table is written here
                if at.path != c.own_path:
                    at = n.origin
                label = A.unparse(base)
                yield (at, _("{label} has no key ").format(label=label) + ", ".join(map(repr, absent)) + _(": rule {id!r} "
                       "({where}) fails while the game runs when its key {a} is one of them").format(
                           id=n.id, where=where(n.origin), a=A.unparse(x.key)),
                       _("give {label} every key ({join}), or test the key first (k in {label})").format(
                           label=label, join=', '.join(map(repr, kt.values))))


def _get(d: dict[Any, Any], key: Any) -> Any:
    """``d[key]`` with the key compared as text (YAML keys ``1`` and ``"1"``), or None."""
    return next((v for k, v in d.items() if str(k) == str(key)), None)


def _changed(s: SettingSpec, before: SettingSpec) -> list[tuple[str | None, SourcePos]]:
    """What this file changes of a setting: each changed key of a map (with its position), or the
    whole value (key None)."""
    if isinstance(s.value, dict) and isinstance(before.value, dict):
        return [(str(k), s.key_origins.get(str(k)) or s.key_origins.get(k) or s.origin) for k, v in s.value.items()
                if normalize_setting(v) != normalize_setting(_get(before.value, k))]
    return [(None, s.origin)]


def _key_readers(an: Analysis, name: str, readers_of: list[str]) -> dict[str | None, set[str]]:
    """Key of setting ``name`` (None: the whole value) -> the rules that read it."""
    out: dict[str | None, set[str]] = {}
    for rid in readers_of:
        for tree in an.trees(rid):
            for x in walk_with_defs(tree, an.defs):
                if isinstance(x, A.Setting) and x.name == name:
                    out.setdefault(str(x.path[0]) if x.path else None, set()).add(rid)
    return out


def _never_asked(w: Why | None) -> bool:
    return w is not None and w.kind == Dead.HOOK


@a_finding
class ChangeWithoutEffect(Finding):
    """A setting (or key) this file changes that only rules of a question never asked read (tribute
    settings in a one-game ruleset): the change does nothing."""

    code = Code.SETTING_HAS_NO_EFFECT

    def run(self, c: Context) -> Found:
        an = c.an
        for name, s in c.resolved.settings.items():
            before = c.parent.settings.get(name) if c.parent is not None else None
            if s.inherited or before is None or name in ENGINE_SETTINGS \
                    or normalize_setting(before.value) == normalize_setting(s.value):
                continue
            readers_of = [n.id for n in c.nodes if name in an.rule_settings.get(n.id, ())]
            if not any(_never_asked(an.dead.get(r)) for r in readers_of):
                continue  # no reader of it is on a question never asked: nothing to say (and no walk)
            key_readers = _key_readers(an, name, readers_of)
            for key, at in _changed(s, before):
                if at.path != c.own_path:
                    continue
                readers = key_readers.get(None, set()) | (key_readers.get(key, set()) if key else
                                                          {r for rs in key_readers.values() for r in rs})
                whys = [an.dead.get(r) for r in sorted(readers)]
                if not readers or not all(_never_asked(w) for w in whys):
                    continue
                label = f"{name}.{key}" if key else name
                yield (at, _("setting {label} is changed here but has no effect: every rule that reads it answers a "
                       "question that is never asked ({whys})").format(label=label, whys=whys[0].message if whys[0] else ''),
                       _("remove the change, or make the question asked (tribute needs a match of several games)"))


@a_finding
class UnpaidTributeKind(Finding):
    """A tribute kind the ruleset pays (``tribute: {order: [fal]}``) that no ``tribute`` /
    ``return_tribute`` rule compares ``kind`` with: nothing is paid of it, silently."""

    code = Code.UNREAD_SETTING

    def run(self, c: Context) -> Found:
        yield from _unpaid_tribute_kinds(c.graph, c.an, c.nodes, c.own_path)


def _kind_words(an: Analysis, nodes: Sequence[RuleNode]) -> set[str]:
    """The words the tribute rules compare ``kind`` with (``kind == 'fall'``, ``kind in [...]``),
    and the words any rule looks for in the order itself (``'declare' in settings.tribute.order``)."""
    words: set[str] = set()
    for n in nodes:
        if n.hook not in KIND_HOOKS and "tribute" not in an.rule_settings.get(n.id, ()):
            continue
        for tree in an.trees(n.id):
            for x in walk_with_defs(tree, an.defs):
                if not (isinstance(x, A.Binary) and x.op in (A.BinOp.EQ, A.BinOp.NE, A.BinOp.IN, A.BinOp.NOT_IN)):
                    continue
                if isinstance(x.right, A.Setting) and x.right.name == "tribute" and x.right.path == ("order",) \
                        and isinstance(x.left, A.Literal) and isinstance(x.left.value, str):
                    words.add(x.left.value)
                if n.hook not in KIND_HOOKS:
                    continue
                sides = (x.left, x.right)
                if not any(isinstance(y, A.Name) and y.name == "kind" for y in sides):
                    continue
                for y in sides:
                    items = y.items if isinstance(y, A.ListLit) else (y,)
                    words |= {i.value for i in items if isinstance(i, A.Literal) and isinstance(i.value, str)}
    return words


def _unpaid_tribute_kinds(graph: RuleGraph, an: Analysis, nodes: Sequence[RuleNode], own_path: str) -> list[tuple[SourcePos, str, str]]:
    """Each tribute kind the ruleset pays (``tribute_kinds``) that no ``tribute`` / ``return_tribute``
    rule compares ``kind`` with: (position, message, hint), at the ``tribute.order`` value that lists
    it when this file wrote it, else at this file's ``tribute_kinds`` rule (nothing for a parent's)."""
    if not an.tribute_paid or not an.tribute_kinds:
        return []
    words = _kind_words(an, nodes)
    unknown = sorted(an.tribute_kinds - words)
    if not words or not unknown:
        return []
    spec = graph.resolved.settings.get("tribute")
    at: SourcePos | None = None
    if spec is not None and isinstance(spec.value, dict) and "order" in spec.value:
        o = spec.key_origins.get("order")
        at = o if o is not None and o.path == own_path else None
    if at is None:
        own_rules = [n for n in nodes if n.hook == "tribute_kinds" and not n.inherited and n.id not in an.dead]
        at = own_rules[-1].origin if own_rules else None
    if at is None:
        return []
    known = ", ".join(map(repr, sorted(words)))
    order = list(spec.value["order"]) if spec is not None and isinstance(spec.value, dict) \
        and isinstance(spec.value.get("order"), list) else []

    fallback: SourcePos = at

    def listed_at(k: str) -> SourcePos:
        p = spec.positions.get(("order", order.index(k))) if spec is not None and k in order else None
        return p if p is not None and p.path == own_path else fallback

    return [(listed_at(k), _("tribute kind {k!r} is paid by no rule: no tribute rule asks about it (the rules know {known})").format(
        k=k, known=known),
             did_you_mean(k, words) or _("add rules `on: tribute` with `when: kind == '{k}'`, or remove it").format(k=k))
            for k in unknown]


@a_finding
class DisabledByAnotherSetting(Finding):
    """A setting of this file that another setting disables (found by
    :mod:`gouji_dsl.ruleset.settings` when the graph was built: passed on as found)."""

    code = Code.SETTING_HAS_NO_EFFECT

    def run(self, c: Context) -> Found:
        yield from (d for d in c.graph.warnings if d.path == c.own_path)
