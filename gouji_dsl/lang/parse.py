"""Expression text to syntax tree: the grammar ``grammar/expr.lark`` (Lark, LALR) and a
non-recursive Lark transformer that builds the frozen nodes of :mod:`gouji_dsl.lang.ast`.

This module is the only code that sees Lark trees. Inputs are bounded (:data:`MAX_LENGTH`,
:data:`MAX_DEPTH`, :data:`MAX_INT_DIGITS`): a longer, deeper or bigger expression is a clean
:class:`ExprError` (code ``ExpressionTooLong`` / ``ExpressionTooDeep`` / ``IntegerTooLarge``), never
a ``RecursionError`` or ``ValueError``. Everything that walks a tree afterwards may recurse: depth is
at most :data:`MAX_DEPTH`.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.visitors import Transformer_NonRecursive

from gouji_dsl.diagnostics import Code, SourcePos
from gouji_dsl.i18n import N_, _
from gouji_dsl.lang.ast import (
    Attr,
    Binary,
    BinOp,
    BoolOp,
    BoolOpKind,
    Call,
    Cond,
    Index,
    ListLit,
    Literal,
    Name,
    Node,
    Setting,
    Unary,
    UnOp,
)
from gouji_dsl.resources import grammar_dir

__all__ = ["parse", "ExprError", "MAX_LENGTH", "MAX_DEPTH", "MAX_INT_DIGITS", "Locate", "RESERVED"]

MAX_LENGTH = 5000
"""Longest expression text, in characters (the longest bundled one has about 250)."""

MAX_DEPTH = 64
"""Deepest nesting of sub-expressions (``not not x`` is 3 deep; ``a or b or c`` is 2: and/or chains are flat)."""

MAX_INT_DIGITS = 18
"""Most digits of a number written in an expression (counts, scores and places are small)."""

RESERVED = frozenset({"settings"})
"""Names with a meaning of their own: ``settings.NAME`` reads a setting."""

Locate = Callable[[int], tuple[int, int]]
"""Maps a 0-based offset into the expression text to a 1-based ``(line, col)`` in its file."""

SYNTAX_HINT = N_("expressions use names, numbers, 'text', and/or/not, == != < <= > >=, in, not in, ++ -- &, "
                  "+ - * / // %, f(x), a.b, a[b], x if c else y")


class ExprError(Exception):
    """A problem in one expression: ``message``, 0-based ``offset`` (and ``end``) into the text, a
    ``hint``, a stable ``code`` (:class:`~gouji_dsl.diagnostics.Code`) and, when the problem was
    found in a positioned tree, ``pos`` (where it is in its file)."""

    def __init__(self, message: str, offset: int = 0, hint: str | None = None, code: str = Code.UNSPECIFIED,
                 end: int | None = None, pos: SourcePos | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.end = offset if end is None else end
        self.hint = hint
        self.code = code
        self.pos = pos


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The cached LALR parser built from ``grammar/expr.lark``."""
    text = (grammar_dir() / "expr.lark").read_text(encoding="utf-8")
    # every token is kept (brackets and keywords too): node spans come from the tokens, which is about
    # twice as fast as Lark's propagate_positions
    return Lark(text, parser="lalr", keep_all_tokens=True, maybe_placeholders=False)


_KEEP = frozenset({"NUMBER", "STRING", "NAME", "COMP_OP", "CONCAT_OP", "ADD_OP", "MUL_OP"})
"""The tokens the builder looks at; the others (brackets, commas, keywords) only give spans."""


_OPS = {op.value: op for op in BinOp}


class _Build(Transformer_NonRecursive):
    """Lark tree -> nodes, bottom-up without recursion; checks depth and number size. Every
    callback gets the Lark tree (for its span) and the already built children."""

    def __init__(self, text: str, path: str, locate: Locate):
        super().__init__(visit_tokens=False)
        self.text, self.path, self.locate = text, path, locate
        self.depth: dict[int, int] = {}

    def _call_userfunc(self, tree: Tree, new_children: Any = None) -> Any:
        raw = new_children if new_children is not None else tree.children
        start, end = len(self.text), 0
        children: list[Any] = []
        for c in raw:
            if isinstance(c, Node):
                s, e = c.start, c.end
                children.append(c)
            elif isinstance(c, Token):
                s = c.start_pos or 0
                e = c.end_pos if c.end_pos is not None else s + len(c)
                if c.type in _KEEP:
                    children.append(c)
            else:  # pragma: no cover - children are built nodes and tokens
                continue
            start, end = min(start, s), max(end, e)
        if tree.data == "atom":  # ( expr ): the expression itself
            return children[0]
        meth = getattr(self, "b_" + str(tree.data).rstrip("_"), None)
        if meth is None:  # pragma: no cover - grammar and builder are kept in step
            raise ExprError(_("unsupported expression {data!r}").format(data=tree.data), start)
        return meth((start, end), children)

    def _make(self, cls: type[Node], span: tuple[int, int], kids: tuple[Node, ...], reads: frozenset[str] = frozenset(),
              **fields: Any) -> Node:
        depth = 1 + max((self.depth.get(id(k), 1) for k in kids), default=0)
        start, end = span
        if depth > MAX_DEPTH:
            raise ExprError(_("the expression is nested too deeply (more than {max_depth} levels)").format(max_depth=MAX_DEPTH), start,
                            _("split it into definitions (definitions: name(args): expr)"), Code.EXPRESSION_TOO_DEEP, end)
        for k in kids:
            reads = reads | k.reads
        line, col = self.locate(start)
        end_line, end_col = self.locate(end)
        node = cls(pos=SourcePos(self.path, line, col, end_line, end_col), start=start, end=end, reads=reads, **fields)
        self.depth[id(node)] = depth
        return node

    # ------------------------------------------------------------------ atoms
    def b_number(self, span: tuple[int, int], children: list[Token]) -> Node:
        digits = str(children[0]).lstrip("0") or "0"
        if len(digits) > MAX_INT_DIGITS:
            raise ExprError(_("number too large ({n} digits; at most {max_int_digits})").format(
                n=len(digits), max_int_digits=MAX_INT_DIGITS), span[0],
                            _("counts, places and scores are small numbers"), Code.INTEGER_TOO_LARGE, span[1])
        return self._make(Literal, span, (), value=int(digits))

    def b_string(self, span: tuple[int, int], children: list[Token]) -> Node:
        return self._make(Literal, span, (), value=str(children[0])[1:-1])

    def b_true(self, span: tuple[int, int], children: list) -> Node:
        return self._make(Literal, span, (), value=True)

    def b_false(self, span: tuple[int, int], children: list) -> Node:
        return self._make(Literal, span, (), value=False)

    def b_none(self, span: tuple[int, int], children: list) -> Node:
        return self._make(Literal, span, (), value=None)

    def b_name(self, span: tuple[int, int], children: list[Token]) -> Node:
        name = str(children[0])
        return self._make(Name, span, (), frozenset({name}), name=name)

    def b_list(self, span: tuple[int, int], children: list[Node]) -> Node:
        return self._make(ListLit, span, tuple(children), items=tuple(children))

    # ------------------------------------------------------------------ postfix
    def b_attr(self, span: tuple[int, int], children: list) -> Node:
        base, tok = children
        attr = str(tok)
        if isinstance(base, Name) and base.name == "settings":
            return self._make(Setting, span, (), frozenset({f"settings.{attr}"}), name=attr)
        reads: frozenset[str] = frozenset()
        if isinstance(base, Setting) and not base.path:
            reads = frozenset({f"settings.{base.name}.{attr}"})
        return self._make(Attr, span, (base,), reads, base=base, attr=attr)

    def b_index(self, span: tuple[int, int], children: list[Node]) -> Node:
        base, key = children
        return self._make(Index, span, (base, key), base=base, key=key)

    def b_call(self, span: tuple[int, int], children: list) -> Node:
        tok, *args = children
        return self._make(Call, span, tuple(args), frozenset({str(tok)}), func=str(tok), args=tuple(args))

    # ------------------------------------------------------------------ operators
    def b_neg(self, span: tuple[int, int], children: list[Node]) -> Node:
        return self._make(Unary, span, tuple(children), op=UnOp.NEG, operand=children[0])

    def b_not(self, span: tuple[int, int], children: list[Node]) -> Node:
        return self._make(Unary, span, tuple(children), op=UnOp.NOT, operand=children[0])

    def _bool(self, kind: BoolOpKind, span: tuple[int, int], children: list[Node]) -> Node:
        operands: list[Node] = []
        for c in children:
            if isinstance(c, BoolOp) and c.op == kind:
                operands.extend(c.operands)
            else:
                operands.append(c)
        return self._make(BoolOp, span, tuple(operands), op=kind, operands=tuple(operands))

    def b_and(self, span: tuple[int, int], children: list[Node]) -> Node:
        return self._bool(BoolOpKind.AND, span, children)

    def b_or(self, span: tuple[int, int], children: list[Node]) -> Node:
        return self._bool(BoolOpKind.OR, span, children)

    def _binary(self, span: tuple[int, int], children: list) -> Node:
        a, tok, b = children
        return self._make(Binary, span, (a, b), op=_OPS[str(tok)], left=a, right=b)

    b_compare = b_listop = b_arith = _binary

    def b_in(self, span: tuple[int, int], children: list[Node]) -> Node:
        a, b = children
        return self._make(Binary, span, (a, b), op=BinOp.IN, left=a, right=b)

    def b_not_in(self, span: tuple[int, int], children: list[Node]) -> Node:
        a, b = children
        return self._make(Binary, span, (a, b), op=BinOp.NOT_IN, left=a, right=b)

    def b_cond(self, span: tuple[int, int], children: list[Node]) -> Node:
        then, c, other = children
        return self._make(Cond, span, (then, c, other), then=then, cond=c, other=other)


def _syntax_error(text: str, e: UnexpectedInput) -> ExprError:
    if isinstance(e, UnexpectedCharacters):
        pos = e.pos_in_stream or 0
        return ExprError(_("unexpected character {text!r}").format(text=text[pos]), pos, _(SYNTAX_HINT), Code.EXPRESSION_SYNTAX)
    if isinstance(e, UnexpectedEOF):
        return ExprError(_("the expression ends too early"), len(text), _("is an operand missing?"), Code.EXPRESSION_SYNTAX)
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return ExprError(_("unexpected end of the expression"), len(text), _("check for a missing operand or bracket"),
                             Code.EXPRESSION_SYNTAX)
        pos = tok.start_pos if tok.start_pos is not None else len(text)
        return ExprError(_("unexpected {str!r}").format(str=str(tok)), pos, _("check for a missing operand or bracket"), Code.EXPRESSION_SYNTAX)
    return ExprError(str(e), getattr(e, "pos_in_stream", 0) or 0, None, Code.EXPRESSION_SYNTAX)  # pragma: no cover


def _default_locate(offset: int) -> tuple[int, int]:
    return 1, offset + 1


def parse(text: str, *, path: str = "<expr>", locate: Locate | None = None) -> Node:
    """Parse expression ``text`` into a syntax tree (types not yet filled in).

    ``path`` and ``locate`` place every node in its file (default: line 1, column = offset + 1).
    Raises :class:`ExprError` (syntax, length, depth, number size) with the offset of the problem."""
    if len(text) > MAX_LENGTH:
        raise ExprError(_("the expression is too long ({n} characters; at most {max_length})").format(n=len(text), max_length=MAX_LENGTH), MAX_LENGTH,
                        _("split it into definitions (definitions: name(args): expr)"), Code.EXPRESSION_TOO_LONG)
    if not text.strip():
        raise ExprError(_("the expression is empty"), 0, _("write a value, e.g. true"), Code.EXPRESSION_SYNTAX)
    try:
        tree = parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(text, e) from None
    builder = _Build(text, path, locate or _default_locate)
    if isinstance(tree, Token):  # pragma: no cover - every atom is a rule
        raise ExprError(_("unexpected {tree!s}").format(tree=tree), 0, _(SYNTAX_HINT), Code.EXPRESSION_SYNTAX)
    try:
        node = builder.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, ExprError):
            raise e.orig_exc from None
        raise
    assert isinstance(node, Node)
    return node
