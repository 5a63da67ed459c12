"""Setting types: every setting of a ruleset has a type, and its value is checked against it.

Where a setting's type comes from (:class:`TypeSource`), first match wins:

1. **engine**: the settings the interpreter itself reads (``seats``, ``teams``, ``deck``,
   ``ranks``, ``jokers``, ``filler_rank``, ``mixed_jokers_read_as_lowest``, ``comparison``) have the
   types of the engine's declared interface, :data:`gouji_dsl.ruleset.game.model.ENGINE_SETTINGS`, which
   also gives their defaults (a setting or record key left out takes its default; ``seats``,
   ``teams``, ``ranks``, ``deck.decks`` and ``deck.cards_per_rank`` have none);
2. **declared**: the long form of a setting may say ``type:`` (notation of
   :mod:`gouji_dsl.lang.types`, e.g. ``rank?``, ``{rank -> int(1..)}``, ``{order: [text], burn: int}``);
   the first file of the ``extends`` chain that declares it decides, children inherit it (a child
   declaring another type is an error);
3. **inferred** from the value as first written (see :func:`infer_type`): ``true`` -> ``bool``,
   ``3`` -> ``int``, ``'3'`` -> ``rank`` when it is a card kind of the ruleset, else ``text``;
   ``null`` -> ``any?``; a list -> a list of its items' type; a map whose keys are all card kinds ->
   ``{rank -> V}``, all whole numbers -> ``{int -> V}``, else a record of exactly its keys.

:func:`check_settings` checks every value against its type (unknown keys at any depth with a
did-you-mean, wrong kinds, values outside an allowed set, missing keys) and the constraints between
settings (:data:`CONSTRAINTS`, e.g. ``comparison.joker_cover.equal_many`` has no effect while
``comparison.same_count`` is true), each problem a positioned :class:`~gouji_dsl.diagnostics.Diagnostic`
with a code. The result, :class:`Settings`, maps each name to a :class:`SettingInfo` (type, typed
value, default, sentence, source, sub-keys): the data behind ``gouji show --settings``, the
expression checker (``settings.NAME`` has its setting's type) and the card model.

Typed values differ from the values as written in one way: map keys have their key type
(``place_points: {1: 4}`` has the whole number 1 as key, ``gouji_minimum: {K: 2}`` the rank ``'K'``).
"""
from __future__ import annotations

import copy
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeGuard

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos, did_you_mean, quoted
from gouji_dsl.i18n import _
from gouji_dsl.lang.types import (
    ANY,
    BOOL,
    INT,
    PLACE,
    RANK,
    SEAT,
    SYMBOL,
    TEXT,
    Enum,
    Int,
    ListOf,
    MapOf,
    Nullable,
    Prim,
    Record,
    Type,
    TypeSyntaxError,
    describe,
    join,
    parse_type,
)
from gouji_dsl.ruleset.game.cards import SYMBOLS
from gouji_dsl.ruleset.game.model import CONSTRAINTS, ENGINE_SETTINGS, REQUIRED, Constraint, setting_at
from gouji_dsl.ruleset.load.locating import locator
from gouji_dsl.ruleset.sources import short_path, source_text
from gouji_dsl.ruleset.spec import ResolvedRuleset, SettingSpec, Text

__all__ = [
    "TypeSource", "SettingInfo", "SubKey", "Settings", "Constraint", "CONSTRAINTS", "check_settings", "settings_of",
    "infer_type", "conform", "normalize_setting", "engine_types", "REMOVING_A_KEY",
]


REMOVING_A_KEY = (
    "A key set to `null` in a map whose keys are data (a `{K -> V}` type) removes that key, the "
    "parent's value for it included: `gouji_minimum: {Q: null}` leaves queens without a minimum, so "
    "no number of queens alone is a gouji play. In a record (fixed keys, such as `tribute`) and in a "
    "map whose values may be null (`{K -> V?}`), `null` is the value itself, allowed only where the "
    "type has a `?`."
)
"""How a child removes a key of a map setting: the one sentence of docs/ruleset-format.md and of
the editor's F1 help (a test checks that both say it)."""


class TypeSource(StrEnum):
    """Where a setting's type comes from."""

    ENGINE = "engine"  # the engine's declared interface (gouji_dsl.ruleset.game.model.ENGINE_SETTINGS)
    DECLARED = "declared"  # a `type:` in the long form of the setting
    INFERRED = "inferred"  # inferred from the value as first written


@dataclass(frozen=True)
class SubKey:
    """One key of a map or record setting: its name (for a map: the key as typed), type, value."""

    key: Any
    type: Type
    value: Any


@dataclass(frozen=True)
class SettingInfo:
    """One setting with its type.

    ``value``: the typed value (what rules and the engine read); ``plain``: the value as resolved
    (map keys as written); ``default``: the value as first written (by the root-most file that has
    it); ``says`` / ``source``: its sentence and provenance; ``origin``: where the value was last
    set; ``type_source`` / ``type_pos``: where the type comes from (``type_pos`` None for the engine
    and inferred types); ``engine_doc``: what the engine does with it (engine settings only)."""

    name: str
    type: Type
    value: Any
    plain: Any
    default: Any
    says: str | None
    source: str | None
    origin: SourcePos
    type_source: TypeSource
    type_pos: SourcePos | None = None
    engine_doc: str | None = None
    inherited: bool = False

    @property
    def allowed(self) -> tuple[Any, ...] | None:
        """The allowed values when the type is an enumeration (None for null when nullable)."""
        t = self.type
        nullable = isinstance(t, Nullable)
        if nullable:
            t = t.inner  # type: ignore[attr-defined]
        if isinstance(t, Enum):
            return t.values + ((None,) if nullable else ())
        if t == BOOL:
            return (True, False)
        return None

    @property
    def sub_keys(self) -> tuple[SubKey, ...]:
        """For a record: every declared key; for a map: the keys it has; else ()."""
        t = self.type.inner if isinstance(self.type, Nullable) else self.type
        v = self.value if isinstance(self.value, dict) else {}
        if isinstance(t, Record):
            return tuple(SubKey(k, ft, v.get(k)) for k, ft in t.fields)
        if isinstance(t, MapOf):
            return tuple(SubKey(k, t.value, x) for k, x in v.items())
        return ()

    @property
    def type_text(self) -> str:
        """The type in the notation."""
        return str(self.type)


class Settings(Mapping[str, SettingInfo]):
    """A ruleset's settings by name, each a :class:`SettingInfo`; ``kinds`` are the card kinds
    (``ranks`` then ``jokers``) and ``n_seats`` the number of seats (None when they are broken)."""

    def __init__(self, infos: dict[str, SettingInfo], kinds: tuple[str, ...], n_seats: int | None):
        self._infos = infos
        self.kinds = kinds
        self.n_seats = n_seats

    def __getitem__(self, name: str) -> SettingInfo:
        return self._infos[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def typed(self) -> dict[str, Any]:
        """name -> typed value."""
        return {n: i.value for n, i in self._infos.items()}

    def for_expressions(self) -> dict[str, tuple[Type, Any]]:
        """name -> (type, typed value): what ``settings.NAME`` is in an expression."""
        return {n: (i.type, i.value) for n, i in self._infos.items()}


@functools.cache
def engine_types() -> dict[str, tuple[Type, str]]:
    """The engine's declared setting types: name -> (type, what the engine does with it)."""
    return {n: (parse_type(t), doc) for n, (t, doc, _) in ENGINE_SETTINGS.items()}


def engine_default(name: str) -> Any:
    """The default of engine setting ``name`` (:data:`gouji_dsl.ruleset.game.model.REQUIRED` when there is
    none; for a record, a map of its keys' defaults)."""
    return ENGINE_SETTINGS[name][2]


def _with_defaults(value: Any, default: Any) -> Any:
    """``value`` with the keys it leaves out taken from ``default`` (REQUIRED keys are left out)."""
    if not isinstance(value, dict) or not isinstance(default, dict):
        return value
    out = {k: copy.deepcopy(v) for k, v in default.items() if v is not REQUIRED and k not in value}
    for k, v in value.items():
        out[k] = _with_defaults(v, default[k]) if k in default else v
    return out


# ------------------------------------------------------------------------------ plain values
def _norm_key(k: Any) -> Any:
    return str(k) if isinstance(k, (int, str)) and not isinstance(k, bool) else k


def normalize_setting(v: Any) -> Any:
    """A value as written, with every map key as text (YAML reads ``2:`` as a number)."""
    if isinstance(v, dict):
        return {_norm_key(k): normalize_setting(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize_setting(x) for x in v]
    return v


# ------------------------------------------------------------------------------ inference
def _is_whole(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _digits(k: Any) -> bool:
    return _is_whole(k) or isinstance(k, str) and k.lstrip("-").isdigit() and len(k) <= 18


def _joined(types: Iterator[Type]) -> Type | None:
    """The join of ``types`` (ANY where two do not join; None when there are none)."""
    t: Type | None = None
    for xt in types:
        t = xt if t is None else (join(t, xt) or ANY)
    return t


def _infer_map(value: dict[Any, Any], kinds: tuple[str, ...] | frozenset[str]) -> Type:
    """The type of a map nobody declared: by rank, by whole number, else a record of exactly its keys."""
    if not value:
        return MapOf(TEXT, ANY)
    # each value's type is inferred once (inferring it again for the record below made the
    # work double per level of nesting: 60 levels never finished)
    items = [(str(k), infer_type(x, kinds)) for k, x in value.items()]
    vt = _joined(xt for _, xt in items)
    nullable = any(x is None for x in value.values())
    if vt is not None and nullable and not isinstance(vt, Nullable):
        vt = Nullable(vt)
    keys = [str(k) for k in value]
    if all(k in kinds for k in keys):
        return MapOf(RANK, vt or ANY)
    if all(_digits(k) for k in keys):
        return MapOf(INT, vt or ANY)
    return Record(tuple(items))


def infer_type(value: Any, kinds: tuple[str, ...] | frozenset[str]) -> Type:
    """The type of a setting nobody declared, from its value (rules in the module doc)."""
    if value is None:
        return Nullable(ANY)
    if isinstance(value, bool):
        return BOOL
    if _is_whole(value):
        return INT
    if isinstance(value, str):
        return RANK if value in kinds else TEXT
    if isinstance(value, list):
        return ListOf(_joined(infer_type(x, kinds) for x in value) or ANY)
    if isinstance(value, dict):
        return _infer_map(value, kinds)
    return ANY


# ------------------------------------------------------------------------------ checking a value
Path = tuple[Any, ...]


@dataclass(frozen=True)
class Problem:
    """A value that does not fit its type: at ``path`` below the setting, with ``code``, a
    message (the label of the place is added by the caller) and a hint. ``key``: the problem is
    the key at ``path`` (an unknown key), not its value."""

    path: Path
    code: str
    message: str
    hint: str | None = None
    key: bool = False
    not_a_kind: bool = False  # the value (or key) is no card kind of the ruleset


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return _("true/false")
    if _is_whole(v):
        return _("a number")
    if isinstance(v, float):
        return _("a fraction")
    if isinstance(v, str):
        return _("text")
    if isinstance(v, list):
        return _("a list")
    if isinstance(v, dict):
        return _("a map")
    return type(v).__name__


def _card_hint(v: Any, kinds: tuple[str, ...]) -> str:
    hint = _("card kinds: ") + " ".join(kinds)
    if str(v) == "10":
        return _("10 is written T; ") + hint
    if isinstance(v, str) and v.upper() in kinds and v not in kinds:
        return _("kinds are upper case ({v!r}); ").format(v=v.upper()) + hint
    if _is_whole(v):
        return _("ranks are quoted text: write '{v}'; ").format(v=v) + hint
    return hint


def conform(value: Any, t: Type, *, kinds: tuple[str, ...], n_seats: int | None = None,
            path: Path = ()) -> tuple[Any, list[Problem]]:
    """``value`` checked against ``t``: the typed value and the problems found (all of them).
    ``kinds``: the card kinds of the ruleset (for ``rank``); ``n_seats`` (for ``seat``)."""
    out: list[Problem] = []
    typed = _conform(value, t, kinds, n_seats, path, out)
    return typed, out


def _bad(out: list[Problem], path: Path, message: str, hint: str | None = None,
         code: str = Code.SETTING_TYPE_MISMATCH) -> None:
    out.append(Problem(path, code, message, hint))


def _conform(v: Any, t: Type, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> Any:
    """``v`` typed as ``t`` (map keys in their key type), each way it is not one put in ``out``."""
    if isinstance(t, Nullable):
        return None if v is None else _conform(v, t.inner, kinds, n_seats, path, out)
    if t == ANY:
        return v
    if v is None:
        _bad(out, path, _("is null, but must be {describe}").format(describe=describe(t)),
             _("write a value (null is not allowed here)"))
        return None
    if isinstance(t, ListOf):
        return _conform_list(v, t, kinds, n_seats, path, out)
    if isinstance(t, MapOf):
        return _conform_map(v, t, kinds, n_seats, path, out)
    if isinstance(t, Record):
        return _conform_record(v, t, kinds, n_seats, path, out)
    _check_scalar(v, t, kinds, n_seats, path, out)
    return v


def _check_scalar(v: Any, t: Type, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> None:
    """The problems of a value ``v`` (not null) of a type that holds no other values."""
    if isinstance(t, Int):
        _check_int(v, t, path, out)
    elif t in (BOOL, TEXT):
        _check_plain(v, t, path, out)
    elif t in (RANK, SYMBOL):
        _check_card(v, t, kinds, path, out)
    elif t == SEAT:
        _check_seat(v, n_seats, path, out)
    elif t == PLACE:
        _check_place(v, n_seats, path, out)
    elif isinstance(t, Enum):
        _check_enum(v, t, path, out)
    elif isinstance(t, Prim) and t.name in ("play", "none"):
        _bad(out, path, _("cannot be a setting value of type {t}").format(t=t))


def _check_plain(v: Any, t: Type, path: Path, out: list[Problem]) -> None:
    if t == BOOL and not isinstance(v, bool):
        _bad(out, path, _("is {kind} ({quoted}), but must be true or false").format(kind=_kind(v), quoted=quoted(v)))
    elif t == TEXT and not isinstance(v, str):
        _bad(out, path, _("is {kind} ({quoted}), but must be text").format(kind=_kind(v), quoted=quoted(v)), _("quote it"))


def _check_card(v: Any, t: Type, kinds: tuple[str, ...], path: Path, out: list[Problem]) -> None:
    if t == RANK:
        if not isinstance(v, str) or (kinds and v not in kinds):
            out.append(Problem(path, Code.VALUE_NOT_ALLOWED, _("is {v!r}, which is not a card kind of this ruleset").format(v=v),
                               _card_hint(v, kinds), not_a_kind=True))
    elif not isinstance(v, str) or len(v) != 1 or v not in SYMBOLS:
        _bad(out, path, _("is {v!r}, which is not a card symbol").format(v=v), _card_hint(v, tuple(SYMBOLS)),
             Code.VALUE_NOT_ALLOWED)


def _check_int(v: Any, t: Int, path: Path, out: list[Problem]) -> None:
    if not _is_whole(v):
        _bad(out, path, _("is {kind} ({quoted}), but must be {describe}").format(kind=_kind(v), quoted=quoted(v), describe=describe(t)),
             _("write a number without quotes") if isinstance(v, str) and _digits(v) else None)
    elif t.lo is not None and v < t.lo or t.hi is not None and v > t.hi:
        _bad(out, path, _("is {v}, but must be {describe}").format(v=v, describe=describe(t)), None, Code.OUT_OF_RANGE)


def _check_seat(v: Any, n_seats: int | None, path: Path, out: list[Problem]) -> None:
    if not _is_whole(v) or (n_seats is not None and not 1 <= v <= n_seats):
        _bad(out, path, _("is {v!r}, which is not a seat").format(v=v) + (_(" (1 to {n_seats})").format(
            n_seats=n_seats) if n_seats else ""), None, Code.VALUE_NOT_ALLOWED)


def _check_place(v: Any, n_seats: int | None, path: Path, out: list[Problem]) -> None:
    if not _is_whole(v):
        _bad(out, path, _("is {kind} ({quoted}), but must be {describe}").format(kind=_kind(v), quoted=quoted(v), describe=describe(PLACE)))
    elif v < 1 or n_seats is not None and v > n_seats:
        _bad(out, path, _("is {v}, but there is no place {v} with {n} seats").format(v=v, n=n_seats), None, Code.OUT_OF_RANGE)


def _check_enum(v: Any, t: Enum, path: Path, out: list[Problem]) -> None:
    if v not in t.values:
        hint = did_you_mean(str(v), t.values) if isinstance(v, str) else None
        _bad(out, path, _("is {v!r}, which is not allowed").format(v=v),
             (hint + " " if hint else "") + _("allowed: ") + ", ".join(map(repr, t.values)), Code.VALUE_NOT_ALLOWED)


def _conform_list(v: Any, t: ListOf, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> Any:
    if not isinstance(v, list):
        _bad(out, path, _("is {kind} ({quoted}), but must be a list ({t})").format(
            kind=_kind(v), quoted=quoted(v), t=t), _("write a list, e.g. [{example}]").format(example=_example(t.elem)))
        return v
    return [_conform(x, t.elem, kinds, n_seats, path + (i,), out) for i, x in enumerate(v)]


def _conform_map(v: Any, t: MapOf, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> Any:
    if not isinstance(v, dict):
        _bad(out, path, _("is {kind} ({quoted}), but must be a map ({t})").format(kind=_kind(v), quoted=quoted(v), t=t))
        return v
    result = {}
    removes = _removes(t)
    for k, x in v.items():
        key = _conform_key(k, t.key, kinds, n_seats, path + (k,), out)
        if x is None and removes:  # `{Q: null}` removes the key Q (the parent's value for it too)
            continue
        result[key] = _conform(x, t.value, kinds, n_seats, path + (k,), out)
    return result


def _conform_record(v: Any, t: Record, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> Any:
    if not isinstance(v, dict):
        _bad(out, path, _("is {kind} ({quoted}), but must be a map with keys {join}").format(
            kind=_kind(v), quoted=quoted(v), join=', '.join(t.names)))
        return v
    result = {}
    for k, x in v.items():
        ft = t.field(str(k))
        if ft is None:
            hint = did_you_mean(str(k), t.names)
            out.append(Problem(path + (k,), Code.UNKNOWN_SETTING_KEY, _("has no key {k!r}").format(k=k),
                               (hint + " " if hint else "") + _("keys: ") + ", ".join(t.names), key=True))
            continue
        result[str(k)] = _conform(x, ft, kinds, n_seats, path + (k,), out)
    for k, ft in t.fields:
        if k not in v and not isinstance(ft, Nullable):
            out.append(Problem(path, Code.MISSING_SETTING_KEY, _("has no key {k!r} ({describe})").format(k=k, describe=describe(ft)),
                               _("add {k}: {example}").format(k=k, example=_example(ft))))
        elif k not in v:
            result[k] = None
    return result


def _removes(t: MapOf) -> bool:
    """A null value in a map of type ``t`` removes its key (:data:`REMOVING_A_KEY`)."""
    return not isinstance(t.value, Nullable) and t.value != ANY


def _pruned(v: Any, t: Type) -> Any:
    """``v`` (a value as resolved) without the map keys set to null that remove themselves (as in the
    typed value: the plain values the engine and the fast core read must agree with it)."""
    if isinstance(t, Nullable):
        t = t.inner
    if isinstance(t, MapOf) and isinstance(v, dict):
        return {k: _pruned(x, t.value) for k, x in v.items() if not (x is None and _removes(t))}
    if isinstance(t, Record) and isinstance(v, dict):
        return {k: _pruned(x, ft) if (ft := t.field(str(k))) is not None else x for k, x in v.items()}
    if isinstance(t, ListOf) and isinstance(v, list):
        return [_pruned(x, t.elem) for x in v]
    return v


def _conform_key(k: Any, t: Type, kinds: tuple[str, ...], n_seats: int | None, path: Path, out: list[Problem]) -> Any:
    """Map keys are written as text in YAML: a whole-number key type reads ``"6"`` as 6."""
    if isinstance(t, Nullable):
        t = t.inner
    if isinstance(t, Int) or t in (SEAT, PLACE):
        if isinstance(k, str) and _digits(k):
            k = int(k)
        if not _is_whole(k):
            out.append(Problem(path, Code.SETTING_TYPE_MISMATCH, _("has the key {k!r}, but its keys must be {describe}").format(
                k=k, describe=describe(t)),
                               None, key=True))
            return k
        if isinstance(t, Int) and (t.lo is not None and k < t.lo or t.hi is not None and k > t.hi) \
                or t in (SEAT, PLACE) and n_seats is not None and not 1 <= k <= n_seats or t == PLACE and k < 1:
            out.append(Problem(path, Code.OUT_OF_RANGE, _("has the key {k}, but its keys must be {describe}").format(
                k=k, describe=describe(t)), None, key=True))
        return k
    k = str(k) if _is_whole(k) else k
    if t == RANK and kinds and k not in kinds:
        out.append(Problem(path, Code.VALUE_NOT_ALLOWED, _("has the key {k!r}, which is not a card kind of this ruleset").format(k=k),
                           _card_hint(k, kinds), key=True, not_a_kind=True))
    elif isinstance(t, Enum) and k not in t.values:
        hint = did_you_mean(str(k), t.values)
        out.append(Problem(path, Code.UNKNOWN_SETTING_KEY, _("has the key {k!r}, which is not allowed").format(k=k),
                           (hint + " " if hint else "") + _("keys: ") + ", ".join(map(repr, t.values)), key=True))
    return k


def _example(t: Type) -> str:
    t = t.inner if isinstance(t, Nullable) else t
    if t == PLACE:
        return "1"
    if isinstance(t, Int):
        return str(t.lo if t.lo is not None else 1)
    if t == BOOL:
        return "true"
    if t in (RANK, SYMBOL):
        return "'3'"
    if isinstance(t, Enum):
        return repr(t.values[0])
    if isinstance(t, ListOf):
        return f"[{_example(t.elem)}]"
    if isinstance(t, (MapOf, Record)):
        return "{}"
    return "..."


# ------------------------------------------------------------------------------ the whole ruleset
@dataclass
class _Ctx:
    resolved: ResolvedRuleset
    diags: list[Diagnostic] = field(default_factory=list)
    lines: dict[str, list[str] | None] = field(default_factory=dict)

    def source_line(self, pos: SourcePos) -> str | None:
        if pos.path not in self.lines:
            text: str | None = self.resolved.text if pos.path == self.resolved.path else None
            if text is None:
                try:
                    text = source_text(pos.path)
                except OSError:
                    text = None
            self.lines[pos.path] = text.splitlines() if text is not None else None
        lines = self.lines[pos.path]
        return lines[pos.line - 1] if lines is not None and 1 <= pos.line <= len(lines) else None

    def add(self, pos: SourcePos, message: str, hint: str | None, code: str, severity: str = Severity.ERROR) -> None:
        self.diags.append(Diagnostic.at(pos, message, hint=hint, source_line=self.source_line(pos), severity=severity,
                                        code=code))


def _short(pos: SourcePos) -> str:
    return f"{short_path(pos.path)}:{pos.line}"


def _label(name: str, path: Path) -> str:
    out = name
    for p in path:
        out += f"[{p}]" if isinstance(p, int) and not isinstance(p, bool) else f".{p}"
    return out


def _pos_of(spec: SettingSpec, path: Path, key: bool = False) -> SourcePos:
    """Where the value (or with ``key``, the key) at ``path`` below the setting was written; the
    nearest enclosing place when it has none of its own (a key written as text, typed as a number)."""
    for i in range(len(path), 0, -1):
        sub = tuple(path[:i])
        alt = sub[:-1] + (str(sub[-1]),)
        for table in ((spec.key_positions, spec.positions) if key and i == len(path) else (spec.positions,)):
            p = table.get(sub) or table.get(alt)
            if p is not None:
                return p
    return spec.origin


def _declared(ctx: _Ctx, spec: SettingSpec) -> tuple[Type, SourcePos] | None:
    """The type the chain declares for ``spec`` (first declaration wins; others must agree)."""
    first: tuple[Type, SourcePos] | None = None
    for decl in spec.type_decls:
        try:
            t = parse_type(decl.text)
        except TypeSyntaxError as e:
            line, col = locator(decl)(e.offset)
            ctx.add(SourcePos(decl.origin.path, line, col), _("setting {name!r}: type {text!r}: {message}").format(
                name=spec.name, text=decl.text, message=e.message), e.hint,
                    Code.TYPE_SYNTAX)
            return first
        if first is None:
            first = (t, decl.origin)
        elif t != first[0]:
            ctx.add(decl.origin, _("setting {name!r} is declared {t} here, but {first} where it was first declared").format(
                name=spec.name, t=t, first=first[0]),
                    _("declared at {short}; a child cannot change a setting's type").format(short=_short(first[1])), Code.TYPE_CHANGED)
    return first


def _appended(hint: str | None, more: str, sep: str = "; ") -> str:
    """``hint`` followed by ``more`` (just ``more`` when there is no hint)."""
    return (hint + sep if hint else "") + more


@dataclass
class _Checker:
    """Types and checks the settings of one ruleset, one at a time: the card kinds (``kinds``) and the number of seats
    (``n_seats``) are filled in as ranks, jokers, seats and teams are typed, since other types refer to them."""

    ctx: _Ctx
    specs: Mapping[str, SettingSpec]
    engine: dict[str, tuple[Type, str]] = field(default_factory=engine_types)
    kinds: tuple[str, ...] = ()
    n_seats: int | None = None

    def type_of(self, spec: SettingSpec) -> tuple[Type, TypeSource, SourcePos | None, str | None]:
        """The type of ``spec``: the engine's, else the one declared, else inferred from its first value."""
        declared = _declared(self.ctx, spec)
        if spec.name in self.engine:
            t, doc = self.engine[spec.name]
            if declared is not None and declared[0] != t:
                self.ctx.add(declared[1], _("setting {name!r} is read by the engine as {t}; it cannot be declared {declared}").format(
                    name=spec.name, t=t, declared=declared[0]),
                        _("remove the type:"), Code.TYPE_CHANGED)
            return t, TypeSource.ENGINE, None, doc
        if declared is not None:
            return declared[0], TypeSource.DECLARED, declared[1], None
        return infer_type(spec.first_value, self.kinds), TypeSource.INFERRED, None, None

    def hint(self, spec: SettingSpec, p: Problem, pos: SourcePos, t: Type, src: TypeSource, tpos: SourcePos | None) -> str | None:
        """The hint of problem ``p`` at ``pos``, with where the type came from when that is another file."""
        mismatch = p.code == Code.SETTING_TYPE_MISMATCH
        if src == TypeSource.DECLARED and tpos is not None and mismatch:
            return _appended(p.hint, _("its type is {t} ({short})").format(t=t, short=_short(tpos)))
        if src == TypeSource.INFERRED and mismatch and spec.first_origin is not None and spec.first_origin.path != pos.path:
            return _appended(p.hint, _("its type {t} comes from its first value ({short})").format(
                t=t, short=_short(spec.first_origin)))
        if p.not_a_kind:  # a kind a nearer file's ranks / jokers left out
            kind_specs = [self.specs[n] for n in ("ranks", "jokers") if n in self.specs and self.specs[n].origin.path != pos.path]
            if kind_specs:
                return _appended(p.hint, _("the card kinds are set by {settings}").format(
                    settings=_(" and ").join(_("{name} at {where}").format(name=k.name, where=_short(k.origin))
                                             for k in kind_specs)), _("; "))
        return p.hint

    def one(self, spec: SettingSpec) -> SettingInfo:
        """``spec`` typed, each problem of its value reported where it was written."""
        t, src, tpos, doc = self.type_of(spec)
        value = _with_defaults(spec.value, engine_default(spec.name)) if src == TypeSource.ENGINE else spec.value
        typed, problems = conform(value, t, kinds=self.kinds, n_seats=self.n_seats)
        for p in problems:
            pos = _pos_of(spec, p.path, p.key)
            label = _label(spec.name, p.path[:-1] if p.key else p.path)
            self.ctx.add(pos, _("setting {label} {message}").format(label=label, message=p.message),
                         self.hint(spec, p, pos, t, src, tpos), p.code)
        default, _problems = conform(spec.first_value, t, kinds=self.kinds, n_seats=self.n_seats)
        return SettingInfo(spec.name, t, typed, _pruned(spec.value, t), default, spec.says, spec.source, spec.origin, src, tpos, doc,
                           spec.inherited)

    def engine_default(self, name: str) -> SettingInfo | None:
        """Engine setting ``name``, which no file sets, at its default (None, reported, when it is required)."""
        t, doc = self.engine[name]
        default = engine_default(name)
        path = self.ctx.resolved.path
        if default is REQUIRED:
            self.ctx.add(SourcePos(path, 1, 1), _("setting {name!r} is required ({describe})").format(name=name, describe=describe(t)),
                         _("add settings.{name} to the ruleset or a parent ({doc})").format(name=name, doc=_(doc)), Code.MISSING_KEY)
            return None
        typed_default, _problems = conform(copy.deepcopy(default), t, kinds=self.kinds, n_seats=self.n_seats)
        return SettingInfo(name, t, typed_default, copy.deepcopy(default), typed_default, None, None,
                           SourcePos(path), TypeSource.ENGINE, None, doc, True)


def _type_card_kinds(checker: _Checker, infos: dict[str, SettingInfo]) -> None:
    """ranks and jokers typed into ``infos``, and ``checker.kinds`` set from them when they are lists of symbols."""
    specs = checker.specs
    for name in ("ranks", "jokers"):
        if name in specs:
            infos[name] = checker.one(specs[name])
    ranks = infos["ranks"].value if "ranks" in infos else None
    jokers = infos["jokers"].value if "jokers" in infos else []
    if isinstance(ranks, list) and isinstance(jokers, list) and all(isinstance(x, str) for x in ranks + jokers):
        checker.kinds = _card_kinds(checker.ctx, checker.ctx.resolved, specs, ranks, jokers)


def _type_seats(checker: _Checker, infos: dict[str, SettingInfo]) -> None:
    """seats and teams (both required) typed into ``infos``, ``checker.n_seats`` set, and the teams checked to split them."""
    ctx, specs, resolved = checker.ctx, checker.specs, checker.ctx.resolved
    for name in ("seats", "teams"):
        if name not in specs:
            ctx.add(SourcePos(resolved.path, 1, 1), _("setting {name!r} is required ({describe})").format(
                name=name, describe=describe(checker.engine[name][0])),
                    _("add settings.{name} to the ruleset or a parent").format(name=name), Code.MISSING_KEY)
        else:
            infos[name] = checker.one(specs[name])
    seats = infos["seats"].value if "seats" in infos else None
    teams = infos["teams"].value if "teams" in infos else None
    checker.n_seats = n_seats = seats if _is_whole(seats) and 2 <= seats <= 12 else None
    if n_seats is not None and _is_whole(teams) and teams >= 1 and n_seats % teams:
        ctx.add(_pos_of(specs[_newest(resolved, specs, "seats", "teams")], ()), _("seats ({n_seats}) must split evenly into teams ({teams})").format(
            n_seats=n_seats, teams=teams),
                _("teams must divide seats"), Code.VALUE_NOT_ALLOWED)


def _warn_without_effect(ctx: _Ctx, specs: Mapping[str, SettingSpec], settings: Settings) -> None:
    """A warning for each setting set to a value that has no effect (:data:`CONSTRAINTS`)."""
    values = settings.typed()
    for c in CONSTRAINTS:
        name = c.path[0]
        if name in specs and setting_at(values, *c.path) is not None and c.holds(values):
            ctx.add(_pos_of(specs[name], c.path[1:]), _("setting {join} {message}").format(join='.'.join(c.path), message=_(c.message)), _(c.hint),
                    Code.SETTING_HAS_NO_EFFECT, Severity.WARNING)


def check_settings(resolved: ResolvedRuleset) -> tuple[Settings, list[Diagnostic]]:
    """Type every setting of ``resolved`` and check its value; never raises. Returns the
    :class:`Settings` (a broken value keeps its value as written) and every problem found
    (errors, and warnings for :data:`CONSTRAINTS`), in file order."""
    ctx = _Ctx(resolved)
    specs = resolved.settings
    checker = _Checker(ctx, specs)
    infos: dict[str, SettingInfo] = {}
    # the card kinds and the seats first: other types refer to them
    _type_card_kinds(checker, infos)
    _type_seats(checker, infos)
    for name, spec in specs.items():
        if name not in infos:
            infos[name] = checker.one(spec)
    for name in checker.engine:
        if name not in infos and name not in ("seats", "teams") and (info := checker.engine_default(name)) is not None:
            infos[name] = info
    ordered = {n: infos[n] for n in specs if n in infos}
    ordered.update({n: i for n, i in infos.items() if n not in ordered})
    settings = Settings(ordered, checker.kinds, checker.n_seats)
    _warn_without_effect(ctx, specs, settings)
    return settings, sorted(ctx.diags, key=Diagnostic.sort_key)


def _newest(resolved: ResolvedRuleset, specs: Mapping[str, SettingSpec], *names: str) -> str:
    """Of settings ``names``, the one set by the file nearest the ruleset (the user's, before a parent's)."""
    rank = {p: i for i, p in enumerate(resolved.chain)}
    return min((n for n in names if n in specs), key=lambda n: rank.get(specs[n].origin.path, len(rank)))


def _card_kinds(ctx: _Ctx, resolved: ResolvedRuleset, specs: Mapping[str, SettingSpec], ranks: list[str],
                jokers: list[str]) -> tuple[str, ...]:
    """The card kinds (``ranks`` then ``jokers``), each problem of the two lists reported once, where
    it was written (an empty list, a kind listed twice, a kind both a rank and a joker). With a
    problem, the kinds the lists mean (each kind once; an empty list: its first value) are used to
    check the other settings, so that one mistake is not reported again in every setting and rule
    of the parents that names a card (the bundled base.yaml gave 7 to 29 such errors)."""
    lists = {"ranks": ranks, "jokers": jokers}
    meant: dict[str, list[str]] = {}
    for name, values in lists.items():
        spec = specs.get(name)
        if spec is None:
            meant[name] = values
            continue
        if not values and (name == "ranks" or spec.first_value):
            ctx.add(_pos_of(spec, ()), _("setting {name} is empty").format(name=name),
                    _("list the rank order, low to high") if name == "ranks" else
                    _("list the joker kinds (the inherited settings and rules name them); to play without jokers, "
                    "also remove them from deck.jokers_per_deck and every rule that names one"), Code.EMPTY_VALUE)
            first = spec.first_value if isinstance(spec.first_value, list) else []
            meant[name] = [x for x in first if isinstance(x, str)]
            continue
        seen: dict[str, int] = {}
        broken = False
        for i, v in enumerate(values):
            if len(v) != 1 or v not in SYMBOLS:  # (reported by its type: not a card symbol)
                broken = True
            elif v in seen:
                broken = True
                ctx.add(_pos_of(spec, (i,)), _("setting {name}[{i}] is {v!r}, which is already {name}[{seen}]").format(
                    name=name, i=i, v=v, seen=seen[v]),
                        _("list each card kind once"), Code.DUPLICATE_ENTRY)
            else:
                seen[v] = i
        meant[name] = list(seen)
        if broken and isinstance(spec.first_value, list):  # and what the parents name stays a kind
            meant[name] += [x for x in spec.first_value if isinstance(x, str) and x not in seen]
    both = [v for v in meant["jokers"] if v in meant["ranks"]]
    if both and "ranks" in specs and "jokers" in specs:
        where = _newest(resolved, specs, "jokers", "ranks")
        for v in both:
            other = "ranks" if where == "jokers" else "jokers"
            ctx.add(_pos_of(specs[where], (meant[where].index(v),)), _("setting {where} has {v!r}, which is also one of the {other}").format(
                where=where, v=v, other=other),
                    _("a card kind is either a rank or a joker"), Code.DUPLICATE_ENTRY)
        meant["jokers"] = [v for v in meant["jokers"] if v not in both]
    return tuple(meant["ranks"] + meant["jokers"])


def settings_of(resolved: ResolvedRuleset) -> Settings:
    """The typed settings of ``resolved``; raises :class:`GoujiError` with every error (warnings are
    left out: :func:`check_settings` gives them)."""
    settings, diags = check_settings(resolved)
    errors = [d for d in diags if d.severity == Severity.ERROR]
    if errors:
        raise GoujiError(errors)
    return settings


_KEEP = (Text, INT)
