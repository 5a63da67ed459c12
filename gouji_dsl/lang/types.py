"""Types of the expression language and of settings, and their notation.

One small family of immutable types serves both the expression checker (:mod:`gouji_dsl.lang.check`)
and the settings layer (:mod:`gouji_dsl.ruleset.settings`):

====================  ==============================================================
notation              meaning
====================  ==============================================================
``bool``              true or false
``int``               a whole number; ``int(0..)``, ``int(1..12)`` bound it (ends included)
``text``              a text
``rank``              a card kind of the ruleset (one of ``ranks`` or ``jokers``), e.g. ``'3'``, ``'B'``
``symbol``            any card symbol (``3``-``9 T J Q K A 2 B R E``); used by ``ranks`` and ``jokers``
``seat``              a seat number 1..N
``place``             a place 1..N (头科 is 1; N the seats): a whole number in expressions
``play``              a play (cards on the table); has attributes (``play.rank``...)
``any``               anything (the checker cannot say more)
``'a' | 'b'``         one of these words (an enumeration; a quoted text in an expression has the
                      one-word type ``'a'``)
``[T]``               a list of T
``{K -> V}``          a map from keys of type K to values of type V
``{a: T, b: U}``      a record: exactly the keys a and b, with these types
``T?``                T, or null (written ``null`` in YAML, ``none`` in expressions)
====================  ==============================================================

Every expression value may be ``none`` (an absent seat, a missing play); the operator table
(:mod:`gouji_dsl.lang.ops`) says what each operator does with it. ``T?`` matters for settings:
a setting whose type is not nullable must not be null.

The notation is parsed with Lark (``grammar/types.lark``): :func:`parse_type`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput

from gouji_dsl.i18n import N_, _
from gouji_dsl.resources import grammar_dir

__all__ = [
    "Type", "Prim", "Int", "Enum", "ListOf", "MapOf", "Record", "Nullable", "TypeSyntaxError",
    "BOOL", "INT", "TEXT", "RANK", "SYMBOL", "SEAT", "PLACE", "PLAY", "NONE", "ANY", "SEATS", "RANKS",
    "parse_type", "strip", "category", "assignable", "join", "describe", "PRIMS",
]


class Type:
    """Base class of all types. Types are immutable and compare by value; ``str(t)`` is the notation."""

    __slots__ = ()

    def notation(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def __str__(self) -> str:
        return self.notation()


@dataclass(frozen=True, slots=True)
class Prim(Type):
    """A named type without parameters: ``bool text rank symbol seat play none any``."""

    name: str

    def notation(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Int(Type):
    """A whole number, optionally bounded (``lo``/``hi`` included; None: unbounded)."""

    lo: int | None = None
    hi: int | None = None

    def notation(self) -> str:
        if self.lo is None and self.hi is None:
            return "int"
        return f"int({'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi})"


@dataclass(frozen=True, slots=True)
class Enum(Type):
    """One of a closed set of words (``'last' | 'next'``); a quoted text literal has the one-word
    type of its own value."""

    values: tuple[str, ...]

    def notation(self) -> str:
        return " | ".join(repr(v) for v in self.values)


@dataclass(frozen=True, slots=True)
class ListOf(Type):
    """A list whose items have type ``elem``."""

    elem: Type

    def notation(self) -> str:
        return f"[{self.elem}]"


@dataclass(frozen=True, slots=True)
class MapOf(Type):
    """A map from keys of type ``key`` to values of type ``value``."""

    key: Type
    value: Type

    def notation(self) -> str:
        return f"{{{self.key} -> {self.value}}}"


@dataclass(frozen=True, slots=True)
class Record(Type):
    """A map with exactly these keys (``fields``: name, type pairs in declared order)."""

    fields: tuple[tuple[str, Type], ...]

    def notation(self) -> str:
        return "{" + ", ".join(f"{k}: {t}" for k, t in self.fields) + "}"

    def field(self, name: str) -> Type | None:
        """The type of key ``name``, or None when the record has no such key."""
        for k, t in self.fields:
            if k == name:
                return t
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.fields)


@dataclass(frozen=True, slots=True)
class Nullable(Type):
    """``inner`` or null."""

    inner: Type

    def notation(self) -> str:
        inner = str(self.inner)
        return f"({inner})?" if isinstance(self.inner, Enum) else f"{inner}?"


BOOL = Prim("bool")
INT = Int()
TEXT = Prim("text")
RANK = Prim("rank")
SYMBOL = Prim("symbol")
SEAT = Prim("seat")
PLACE = Prim("place")
PLAY = Prim("play")
NONE = Prim("none")
ANY = Prim("any")
SEATS = ListOf(SEAT)
RANKS = ListOf(RANK)

PRIMS: dict[str, Type] = {t.notation(): t for t in (BOOL, INT, TEXT, RANK, SYMBOL, SEAT, PLACE, PLAY, ANY)}
"""The named types of the notation (``none`` is the type of the literal only, not writable)."""


class TypeSyntaxError(ValueError):
    """A type written in a wrong notation: ``message``, 0-based ``offset`` into the text, ``hint``."""

    def __init__(self, message: str, offset: int = 0, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


NOTATION_HINT = ("types: int, int(0..), bool, text, rank, seat, place, symbol, any, 'a' | 'b', [T], "
                 "{K -> V}, {key: T, ...}, T? (may be null)")


class _ToType(Transformer):
    def prim(self, items: list[Token]) -> Type:
        name = str(items[0])
        if name == "int":
            return INT
        if name not in PRIMS:
            raise TypeSyntaxError(f"unknown type {name!r}", items[0].start_pos or 0, NOTATION_HINT)
        return PRIMS[name]

    def int_range(self, items: list[Token | None]) -> Type:
        name, lo, hi = items
        assert isinstance(name, Token)
        if str(name) != "int":
            raise TypeSyntaxError(f"only int takes a range, not {name!s}", name.start_pos or 0, NOTATION_HINT)
        low = None if lo is None else int(lo)
        high = None if hi is None else int(hi)
        if low is not None and high is not None and low > high:
            raise TypeSyntaxError(f"empty range {low}..{high}", name.start_pos or 0)
        return Int(low, high)

    def enum(self, items: list[Token]) -> Type:
        values = tuple(dict.fromkeys(str(w)[1:-1] for w in items))
        return Enum(values)

    def listof(self, items: list[Type]) -> Type:
        return ListOf(items[0])

    def mapof(self, items: list[Type]) -> Type:
        return MapOf(items[0], items[1])

    def field(self, items: list) -> tuple[str, Type]:
        return str(items[0]), items[1]

    def record(self, items: list) -> Type:
        fields = tuple(f for f in items if f is not None)
        names = [k for k, _ in fields]
        for k in names:
            if names.count(k) > 1:
                raise TypeSyntaxError(f"key {k!r} is declared twice", 0)
        return Record(fields)

    def nullable(self, items: list[Type]) -> Type:
        inner = items[0]
        return inner if isinstance(inner, Nullable) else Nullable(inner)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    text = (grammar_dir() / "types.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr")


@functools.lru_cache(maxsize=512)
def parse_type(text: str) -> Type:
    """Parse the type notation (see the module doc). Raises :class:`TypeSyntaxError`."""
    if len(text) > 2000:
        raise TypeSyntaxError("the type is too long (2000 characters at most)", 2000)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        pos = getattr(e, "pos_in_stream", None)
        if pos is None:
            pos = len(text)
        raise TypeSyntaxError("cannot read this type", pos, NOTATION_HINT) from None
    try:
        out = _ToType().transform(tree)
    except Exception as e:  # lark wraps errors raised in callbacks
        inner = getattr(e, "orig_exc", e)
        if isinstance(inner, TypeSyntaxError):
            raise inner from None
        raise
    assert isinstance(out, Type)
    return out


# ------------------------------------------------------------------------------ expression-level
def strip(t: Type) -> Type:
    """``t`` without ``?`` and without integer bounds (what the expression checker looks at)."""
    if isinstance(t, Nullable):
        return strip(t.inner)
    if isinstance(t, Int) or t == PLACE:
        return INT
    if isinstance(t, ListOf):
        return ListOf(strip(t.elem))
    if isinstance(t, MapOf):
        return MapOf(strip(t.key), strip(t.value))
    if isinstance(t, Record):
        return Record(tuple((k, strip(v)) for k, v in t.fields))
    return t


def category(t: Type) -> str:
    """The coarse kind of a type: ``bool int text rank seat play list map none any``
    (a symbol and an enumeration are text; a record is a map)."""
    t = strip(t)
    if isinstance(t, Int):
        return "int"
    if isinstance(t, Enum) or t == SYMBOL:
        return "text"
    if isinstance(t, ListOf):
        return "list"
    if isinstance(t, (MapOf, Record)):
        return "map"
    assert isinstance(t, Prim)
    return t.name


def assignable(src: Type, dst: Type) -> bool:
    """Can a value of type ``src`` be used where ``dst`` is expected? (``none`` and ``any`` go
    anywhere; a seat is a number and a number may stand for a seat; a word of an enumeration is a
    text; text and ranks mix (a quoted rank is text until it is used as a rank: the checker then
    checks the word); an enumeration accepts only its own words.)"""
    src, dst = strip(src), strip(dst)
    if src == dst or src in (NONE, ANY) or dst == ANY:
        return True
    cs, cd = category(src), category(dst)
    if isinstance(dst, Enum):
        return isinstance(src, Enum) and set(src.values) <= set(dst.values) or cs in ("text", "rank") and not isinstance(src, Enum)
    if {cs, cd} <= {"int", "seat"}:
        return True
    if {cs, cd} <= {"text", "rank"}:
        return True
    if isinstance(src, ListOf) and isinstance(dst, ListOf):
        return assignable(src.elem, dst.elem)
    if cs == "map" and cd == "map":
        if isinstance(dst, MapOf):
            if isinstance(src, MapOf):
                return assignable(src.key, dst.key) and assignable(src.value, dst.value)
            assert isinstance(src, Record)
            return assignable(TEXT, dst.key) and all(assignable(v, dst.value) for _, v in src.fields)
        if isinstance(dst, Record) and isinstance(src, Record):
            return all(src.field(k) is not None and assignable(src.field(k), v)  # type: ignore[arg-type]
                       for k, v in dst.fields)
        return False
    return False


def join(a: Type, b: Type) -> Type | None:
    """The type of a value that is either an ``a`` or a ``b`` (the two branches of ``x if c else
    y``, the items of a list), or None when they do not mix."""
    a, b = strip(a), strip(b)
    if a == b:
        return a
    if a == NONE:
        return b
    if b == NONE:
        return a
    if ANY in (a, b):
        return ANY
    return _join_different(a, b)


def _join_different(a: Type, b: Type) -> Type | None:
    """:func:`join` of two stripped types, different, neither none nor any."""
    if isinstance(a, Enum) and isinstance(b, Enum):
        return Enum(tuple(dict.fromkeys(a.values + b.values)))
    ca, cb = category(a), category(b)
    if {ca, cb} <= {"text", "rank"}:
        return RANK if "rank" in (ca, cb) else TEXT
    if {ca, cb} <= {"int", "seat"}:
        return INT
    return _join_containers(a, b, ca, cb)


def _join_containers(a: Type, b: Type, ca: str, cb: str) -> Type | None:
    """:func:`join` of two lists, two maps or records (categories ``ca``, ``cb``), else None."""
    if isinstance(a, ListOf) and isinstance(b, ListOf):
        e = join(a.elem, b.elem)
        return None if e is None else ListOf(e)
    if isinstance(a, MapOf) and isinstance(b, MapOf):
        k, v = join(a.key, b.key), join(a.value, b.value)
        return None if k is None or v is None else MapOf(k, v)
    if ca == "map" and cb == "map":
        return MapOf(TEXT, ANY)
    return None


_WORDS = {
    "bool": N_("true or false"), "text": N_("a text"), "rank": N_("a card kind (rank or joker)"),
    "seat": N_("a seat number"),
    "place": N_("a place (1 to the number of seats)"), "symbol": N_("a card symbol"), "play": N_("a play"), "none": N_("none"),
    "any": N_("anything"),
}
"""The primitive types in words (marked for the catalog; :func:`describe` shows them translated)."""


def describe(t: Type) -> str:
    """``t`` in words, for messages: ``a whole number``, ``a list of card kinds``..."""
    if isinstance(t, Nullable):
        return _("{describe} or null").format(describe=describe(t.inner))
    if isinstance(t, Int):
        if t.lo is None and t.hi is None:
            return _("a whole number")
        if t.hi is None:
            return _("a whole number of at least {lo}").format(lo=t.lo)
        if t.lo is None:
            return _("a whole number of at most {hi}").format(hi=t.hi)
        return _("a whole number from {lo} to {hi}").format(lo=t.lo, hi=t.hi)
    if isinstance(t, Enum):
        return _("one of ") + ", ".join(repr(v) for v in t.values)
    if isinstance(t, ListOf):
        return _("a list ({t})").format(t=t)
    if isinstance(t, MapOf):
        return _("a map ({t})").format(t=t)
    if isinstance(t, Record):
        return _("a map with keys ") + ", ".join(t.names)
    assert isinstance(t, Prim)
    return _(_WORDS[t.name]) if t.name in _WORDS else t.name
