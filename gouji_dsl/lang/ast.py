"""The typed, positioned syntax tree of the expression language.

:func:`gouji_dsl.lang.parse.parse` turns expression text into these frozen nodes (the only code
that sees Lark trees); :func:`gouji_dsl.lang.check.check` returns a copy of the tree with every
``type`` filled in and every name resolved (``ref``, ``impl``). Both the closure compiler
(:mod:`gouji_dsl.lang.compile`) and the static folder (:mod:`gouji_dsl.lang.fold`) walk the checked
tree; a code generator may too:

=================  ==========================================================================
node               fields (besides ``pos``, ``start``, ``end``, ``reads``, ``type``)
=================  ==========================================================================
:class:`Literal`   ``value``: int, str, bool or None
:class:`ListLit`   ``items``
:class:`Name`      ``name``; after checking ``ref`` (:class:`Ref`) and ``index`` (a parameter's)
:class:`Setting`   ``name``, ``path`` (keys below it), ``value`` (after checking: the constant)
:class:`Attr`      ``base``, ``attr``; after checking ``ref``: ``PLAY_ATTR`` or ``KEY`` (a map key)
:class:`Index`     ``base``, ``key`` (``base[key]``)
:class:`Call`      ``func``, ``args``; after checking ``ref``: ``FUNCTION`` or ``DEFINITION``
:class:`Unary`     ``op`` (:class:`UnOp`), ``operand``; after checking ``impl`` (an operator-table key)
:class:`Binary`    ``op`` (:class:`BinOp`), ``left``, ``right``; after checking ``impl``
:class:`BoolOp`    ``op`` (:class:`BoolOpKind`), ``operands`` (two or more: ``a and b and c`` is one node)
:class:`Cond`      ``then``, ``cond``, ``other`` (``then if cond else other``)
=================  ==========================================================================

``pos`` is a :class:`~gouji_dsl.diagnostics.SourcePos` in the file the expression was written in
(a span: ``end_line``/``end_col``); ``start``/``end`` are 0-based offsets into the expression text.
``reads`` is every name the node reads: variables, functions, definitions and ``settings.NAME``
(and ``settings.NAME.KEY`` for a key read by name).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any, TypeVar

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.lang.types import Type

__all__ = [
    "Node", "Literal", "ListLit", "Name", "Setting", "Attr", "Index", "Call", "Unary", "Binary", "BoolOp", "Cond",
    "UnOp", "BinOp", "BoolOpKind", "Ref", "children", "walk", "dump", "unparse", "NO_POS",
]

NO_POS = SourcePos("<expr>")


class UnOp(StrEnum):
    """Unary operators."""

    NOT = "not"
    NEG = "-"


class BinOp(StrEnum):
    """Binary operators (see :mod:`gouji_dsl.lang.ops` for what each does with which types)."""

    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    IN = "in"
    NOT_IN = "not in"
    CONCAT = "++"
    REMOVE = "--"
    KEEP = "&"
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    FLOORDIV = "//"
    MOD = "%"


class BoolOpKind(StrEnum):
    AND = "and"
    OR = "or"


class Ref(StrEnum):
    """What a name, call or attribute was resolved to by the checker."""

    CONTEXT = "context"  # a variable bound by the question (seat, play, top, ...)
    GLOBAL = "global"  # a game variable (active_seats, burner, ...)
    PARAM = "param"  # a parameter of the definition being checked
    DEFINITION = "definition"  # a definition of the ruleset
    FUNCTION = "function"  # a vocabulary function
    PLAY_ATTR = "play_attr"  # an attribute of a play (play.rank)
    KEY = "key"  # a key of a map or record read by name (settings.buy.ranks)


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Node:
    """Base of all nodes. Nodes are immutable; equality is identity (compare :func:`dump` output)."""

    pos: SourcePos = NO_POS
    start: int = 0
    end: int = 0
    reads: frozenset[str] = frozenset()
    type: Type | None = None


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Literal(Node):
    value: int | str | bool | None


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Name(Node):
    name: str
    ref: Ref | None = None
    index: int = -1  # position of a definition parameter


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Setting(Node):
    name: str
    path: tuple[str | int, ...] = ()
    value: Any = None


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Attr(Node):
    base: Node
    attr: str
    ref: Ref | None = None


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Index(Node):
    base: Node
    key: Node


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Call(Node):
    func: str
    args: tuple[Node, ...]
    ref: Ref | None = None


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Unary(Node):
    op: UnOp
    operand: Node
    impl: str = ""


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Binary(Node):
    op: BinOp
    left: Node
    right: Node
    impl: str = ""


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class BoolOp(Node):
    op: BoolOpKind
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Cond(Node):
    then: Node
    cond: Node
    other: Node


N = TypeVar("N", bound=Node)


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of ``node``, left to right as written."""
    if isinstance(node, ListLit):
        return node.items
    if isinstance(node, (Attr,)):
        return (node.base,)
    if isinstance(node, Index):
        return (node.base, node.key)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, BoolOp):
        return node.operands
    if isinstance(node, Cond):
        return (node.then, node.cond, node.other)
    return ()


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (iterative: safe on any depth)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def with_type(node: N, t: Type, **changes: Any) -> N:
    """A copy of ``node`` with its type (and any other field) set."""
    return replace(node, type=t, **changes)


_SKIP = {"pos", "start", "end", "reads", "type"}


def _dump_fields(n: Node) -> Iterator[str]:
    """``name=value`` of each plain field of ``n`` that :func:`dump` shows."""
    for f in fields(n):
        if f.name in _SKIP or f.name == "path" or isinstance(getattr(n, f.name), (tuple, Node)):
            continue
        v = getattr(n, f.name)
        if f.name in ("ref", "impl") and not v or f.name == "index" and v < 0 \
                or f.name == "value" and isinstance(n, Setting) and n.type is None:
            continue
        if f.name == "value" and isinstance(n, Setting) and not n.path and isinstance(v, (dict, list)):
            v = "…"
        yield f"{f.name}={v!r}" if not isinstance(v, StrEnum) else f"{f.name}={v.value}"


def dump(node: Node, *, positions: bool = True, spans: bool = False) -> str:
    """A readable, stable rendering of the tree, one node per line, indented: ``Binary op=== : bool
    @3:7`` then its children. ``positions=False`` leaves out the ``@line:col``; ``spans=True`` shows
    the offsets into the expression text instead (``[4:12]``: golden files use it, so that they do not
    change when lines are added above the expression)."""
    out: list[str] = []
    stack: list[tuple[Node, int, str]] = [(node, 0, "")]
    while stack:
        n, depth, label = stack.pop()
        parts = [type(n).__name__, *_dump_fields(n)]
        if isinstance(n, Setting) and n.path:
            parts.append("path=" + ".".join(map(str, n.path)))
        if n.type is not None:
            parts.append(f": {n.type}")
        if spans:
            parts.append(f"[{n.start}:{n.end}]")
        elif positions:
            parts.append(f"@{n.pos.line}:{n.pos.col}")
        out.append("  " * depth + (label + " " if label else "") + " ".join(parts))
        kids = children(n)
        for k in reversed(kids):
            stack.append((k, depth + 1, ""))
    return "\n".join(out)


_PREC = {BoolOpKind.OR: 2, BoolOpKind.AND: 3, UnOp.NOT: 4}
_BPREC = {BinOp.EQ: 5, BinOp.NE: 5, BinOp.LT: 5, BinOp.LE: 5, BinOp.GT: 5, BinOp.GE: 5, BinOp.IN: 5, BinOp.NOT_IN: 5,
          BinOp.CONCAT: 6, BinOp.REMOVE: 6, BinOp.KEEP: 6, BinOp.ADD: 7, BinOp.SUB: 7,
          BinOp.MUL: 8, BinOp.DIV: 8, BinOp.FLOORDIV: 8, BinOp.MOD: 8}


def _prec(n: Node) -> int:
    if isinstance(n, Cond):
        return 1
    if isinstance(n, BoolOp):
        return _PREC[n.op]
    if isinstance(n, Unary):
        return 4 if n.op == UnOp.NOT else 9
    if isinstance(n, Binary):
        return _BPREC[n.op]
    return 10


def unparse(node: Node) -> str:
    """Canonical expression text of ``node`` (normalised spacing, only the brackets needed)."""
    for cls in type(node).__mro__:
        write = _UNPARSE.get(cls)
        if write is not None:
            return write(node)
    raise TypeError(f"not a node: {node!r}")  # pragma: no cover


def _wrap(n: Node, at_least: int) -> str:
    """``n``'s text, bracketed when it binds less tightly than ``at_least``."""
    s = unparse(n)
    return f"({s})" if _prec(n) < at_least else s


def _unparse_literal(node: Literal) -> str:
    v = node.value
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"'{v}'" if "'" not in v else f'"{v}"'
    return str(v)


def _unparse_setting(node: Setting) -> str:
    return "settings." + node.name + "".join(f".{p}" if isinstance(p, str) and p.isidentifier() else f"[{p!r}]"
                                             for p in node.path)


def _unparse_unary(node: Unary) -> str:
    if node.op == UnOp.NOT:
        return f"not {_wrap(node.operand, 4)}"
    inner = _wrap(node.operand, 9)
    return f"-({inner})" if inner.startswith("-") else f"-{inner}"


def _unparse_binary(node: Binary) -> str:
    p = _BPREC[node.op]
    if p == 5:  # comparisons do not chain
        return f"{_wrap(node.left, 6)} {node.op.value} {_wrap(node.right, 6)}"
    return f"{_wrap(node.left, p)} {node.op.value} {_wrap(node.right, p + 1)}"


def _unparse_boolop(node: BoolOp) -> str:
    p = _PREC[node.op]
    return f" {node.op.value} ".join(_wrap(o, p + 1) for o in node.operands)


_UNPARSE: dict[type, Callable[[Any], str]] = {
    Literal: _unparse_literal,
    ListLit: lambda node: "[" + ", ".join(unparse(i) for i in node.items) + "]",
    Name: lambda node: node.name,
    Setting: _unparse_setting,
    Attr: lambda node: f"{_wrap(node.base, 10)}.{node.attr}",
    Index: lambda node: f"{_wrap(node.base, 10)}[{unparse(node.key)}]",
    Call: lambda node: f"{node.func}(" + ", ".join(unparse(a) for a in node.args) + ")",
    Unary: _unparse_unary,
    Binary: _unparse_binary,
    BoolOp: _unparse_boolop,
    Cond: lambda node: f"{_wrap(node.then, 2)} if {_wrap(node.cond, 2)} else {_wrap(node.other, 1)}",
}
"""How :func:`unparse` writes each kind of node."""

