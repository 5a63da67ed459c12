"""The operator table: for every operator and operand types, the result type and the Python
semantics. The checker (:mod:`gouji_dsl.lang.check`) resolves each operator node to one entry
(the node's ``impl``); the compiler (:mod:`gouji_dsl.lang.compile`) and the folder
(:mod:`gouji_dsl.lang.fold`) both run that entry's function, so the two always agree (a property
test checks it). A code generator may call :func:`bind` to get the same function.

Semantics in short (``none`` is an absent value: no seat, no play, a null setting):

- ``==`` / ``!=``: Python equality (``none == none`` is true).
- ``<`` ``<=`` ``>`` ``>=``: numbers by value; ranks by the ruleset's rank order (``settings.ranks``
  then ``settings.jokers``), never as text; false when either side is ``none``.
- ``in`` / ``not in``: list membership, or a map's keys; ``x in none`` is false.
- ``++`` ``--`` ``&``: list concatenation, difference (keeps order), intersection (keeps order);
  ``none`` counts as the empty list.
- ``+ - * // %``: whole numbers, ``/`` exact division (a fraction when it does not divide);
  ``none`` in gives ``none`` out; dividing by zero is an error (:class:`EvalError`), never 0.
- ``not``, ``and``, ``or``: truth values; ``none`` counts as false.
- ``m[k]``: the value of key ``k`` (a missing key is an error, not ``none``; ``k in m`` tests it
  first); ``xs[i]``: the i-th item from 0 (negative from the end; out of range is an error);
  ``none[k]`` and ``m[none]`` are ``none``.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gouji_dsl.diagnostics import Code, SourcePos
from gouji_dsl.i18n import _
from gouji_dsl.lang.ast import BinOp, UnOp
from gouji_dsl.lang.types import ANY, BOOL, INT, Type, category, describe

__all__ = ["EvalError", "Semantics", "OpSpec", "BINARY", "UNARY", "OPS", "resolve_binary", "resolve_unary", "bind",
           "index_impl", "attr_impl", "truth"]

Fn = Callable[[Any], Any]


class EvalError(Exception):
    """An expression failed while it ran (division by zero, missing key, a value of the wrong kind):
    ``message``, the ``where`` of the failing sub-expression and a ``code``. The rule graph turns it
    into :class:`~gouji_dsl.ruleset.graph.RuleFailed` naming the rule."""

    def __init__(self, message: str, where: SourcePos | None = None, code: str = Code.RULE_FAILED):
        super().__init__(message)
        self.message = message
        self.where = where
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return (EvalError, (self.message, self.where, self.code))


@dataclass(frozen=True)
class Semantics:
    """What an operator needs to know beyond its operands: the rank order (card kind -> strength)
    and where the operator was written (for error messages)."""

    strength: Mapping[str, int]
    where: SourcePos | None = None


def _show(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in list(v.items())[:8]) + (", …}" if len(v) > 8 else "}")
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v[:8]) + (", …]" if len(v) > 8 else "]")
    return str(v)


# ------------------------------------------------------------------------------ failure texts
# (one text per failure, in the active language: the native core's programs (engine/native/hooks.py)
# report the same failures with these functions, so a rule failure reads the same on every engine)
def compare_numbers_text(x: Any, op: str, y: Any) -> str:
    """An order of values that are not both numbers."""
    return _("cannot compare {show} {op} {show2}: both must be numbers").format(show=_show(x), op=op, show2=_show(y))


def compare_kinds_text(x: Any, op: str, y: Any, bad: Any) -> str:
    """An order of ranks where ``bad`` is not a card kind."""
    return _("cannot compare {show} {op} {show2}: {show3} is not a card kind of this ruleset").format(
        show=_show(x), op=op, show2=_show(y), show3=_show(bad))


def compare_text(x: Any, op: str, y: Any) -> str:
    """An order of values of kinds that have none."""
    return _("cannot compare {show} {op} {show2}").format(show=_show(x), op=op, show2=_show(y))


def compute_text(x: Any, op: str, y: Any) -> str:
    """Arithmetic on values that are not both numbers."""
    return _("cannot compute {show} {op} {show2}: both must be numbers").format(show=_show(x), op=op, show2=_show(y))


def division_by_zero_text(x: Any, op: str) -> str:
    """A division (or remainder) by zero."""
    return _("division by zero: {show} {op} 0").format(show=_show(x), op=op)


def no_key_text(k: Any, b: Any) -> str:
    """A key the map ``b`` does not hold."""
    return _("no key {show} in {show2}").format(show=_show(k), show2=_show(b))


def list_index_text(k: Any) -> str:
    """A list indexed by something else than a number."""
    return _("a list is indexed by a number, not {show}").format(show=_show(k))


def no_item_text(k: Any, b: Any) -> str:
    """An index outside the list ``b``."""
    return _("no item {k} in {show} ({n} items, counted from 0)").format(k=k, show=_show(b), n=len(b))


def truth(v: Any) -> bool:
    """How a value counts as a condition: ``none`` is false."""
    return bool(v)


@dataclass(frozen=True)
class OpSpec:
    """One entry of the table.

    ``name``: the key a checked node stores in ``impl``; ``op``: the operator; ``result``: the result
    type (None: the checker computes it, e.g. the item type of a list concatenation); ``doc``;
    ``make(sem) -> fn(x[, y])``: the semantics as a Python function of the operand values;
    ``fuse(sem, af, bf) -> fn(ctx)`` (optional): the same semantics fused with the operand closures,
    for speed (the compiler uses it when present)."""

    name: str
    op: str
    result: Type | None
    doc: str
    make: Callable[[Semantics], Callable[..., Any]]
    fuse: Callable[[Semantics, Fn, Fn], Fn] | None = None


OPS: dict[str, OpSpec] = {}


def _reg(spec: OpSpec) -> OpSpec:
    OPS[spec.name] = spec
    return spec


def bind(name: str, sem: Semantics) -> Callable[..., Any]:
    """The Python function of table entry ``name`` under ``sem``."""
    return OPS[name].make(sem)


# ------------------------------------------------------------------------------ equality
_reg(OpSpec("eq", "==", BOOL, "equal values (none == none)", lambda s: operator.eq,
            lambda s, af, bf: lambda ctx: af(ctx) == bf(ctx)))
_reg(OpSpec("ne", "!=", BOOL, "different values", lambda s: operator.ne,
            lambda s, af, bf: lambda ctx: af(ctx) != bf(ctx)))

# ------------------------------------------------------------------------------ ordering
_PY_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _order_int(op: str) -> Callable[[Semantics], Callable[[Any, Any], bool]]:
    py = _PY_ORDER[op]

    def make(s: Semantics) -> Callable[[Any, Any], bool]:
        def fn(x: Any, y: Any) -> bool:
            if x is None or y is None:
                return False
            if not _is_num(x) or not _is_num(y):
                raise EvalError(compare_numbers_text(x, op, y), s.where)
            return py(x, y)
        return fn
    return make


def _fuse_order_int(op: str) -> Callable[[Semantics, Fn, Fn], Fn]:
    py = _PY_ORDER[op]

    def fuse(s: Semantics, af: Fn, bf: Fn) -> Fn:
        def fn(ctx: Any) -> bool:
            x, y = af(ctx), bf(ctx)
            if x is None or y is None:
                return False
            if x.__class__ is int and y.__class__ is int:
                return py(x, y)
            if not _is_num(x) or not _is_num(y):
                raise EvalError(compare_numbers_text(x, op, y), s.where)
            return py(x, y)
        return fn
    return fuse


def _order_rank(op: str) -> Callable[[Semantics], Callable[[Any, Any], bool]]:
    py = _PY_ORDER[op]

    def make(s: Semantics) -> Callable[[Any, Any], bool]:
        strength = s.strength

        def fn(x: Any, y: Any) -> bool:
            if x is None or y is None:
                return False
            sx, sy = strength.get(x), strength.get(y)
            if sx is None or sy is None:
                bad = x if sx is None else y
                raise EvalError(compare_kinds_text(x, op, y, bad), s.where)
            return py(sx, sy)
        return fn
    return make


def _order_any(op: str) -> Callable[[Semantics], Callable[[Any, Any], bool]]:
    py = _PY_ORDER[op]

    def make(s: Semantics) -> Callable[[Any, Any], bool]:
        by_rank = _order_rank(op)(s)

        def fn(x: Any, y: Any) -> bool:
            if x is None or y is None:
                return False
            if _is_num(x) and _is_num(y):
                return py(x, y)
            if isinstance(x, str) and isinstance(y, str):
                return by_rank(x, y)
            raise EvalError(compare_text(x, op, y), s.where)
        return fn
    return make


for _op, _nm in (("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge")):
    _reg(OpSpec(f"{_nm}_int", _op, BOOL, f"numbers: x {_op} y; false if either is none", _order_int(_op), _fuse_order_int(_op)))
    _reg(OpSpec(f"{_nm}_rank", _op, BOOL, f"ranks by the ruleset's rank order: x {_op} y; false if either is none",
                _order_rank(_op)))
    _reg(OpSpec(f"{_nm}_any", _op, BOOL, f"numbers by value, ranks by rank order: x {_op} y; false if either is none",
                _order_any(_op)))


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ------------------------------------------------------------------------------ membership
def _member(negate: bool) -> Callable[[Semantics], Callable[[Any, Any], bool]]:
    def make(s: Semantics) -> Callable[[Any, Any], bool]:
        def fn(x: Any, m: Any) -> bool:
            if m is None:
                return negate
            try:
                return (x in m) != negate
            except TypeError:
                raise EvalError(_("cannot look for {show} in {show2}").format(show=_show(x), show2=_show(m)), s.where) from None
        return fn
    return make


def _fuse_member(negate: bool) -> Callable[[Semantics, Fn, Fn], Fn]:
    def fuse(s: Semantics, af: Fn, bf: Fn) -> Fn:
        fn = _member(negate)(s)
        return lambda ctx: fn(af(ctx), bf(ctx))
    return fuse


for _negate, _nm in ((False, "in"), (True, "not_in")):
    _word = "not in" if _negate else "in"
    _reg(OpSpec(f"{_nm}_list", _word, BOOL, f"x {_word} a list; none is the empty list", _member(_negate)))
    _reg(OpSpec(f"{_nm}_map", _word, BOOL, f"x {_word} the keys of a map; none is the empty map", _member(_negate)))
    _reg(OpSpec(f"{_nm}_any", _word, BOOL, f"x {_word} a list or the keys of a map; none is empty", _member(_negate)))


# ------------------------------------------------------------------------------ lists
def _as_list(v: Any, s: Semantics, op: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, (list, tuple)):
        raise EvalError(_("{op} works on lists, not {show}").format(op=op, show=_show(v)), s.where)
    return list(v)


def _concat(s: Semantics) -> Callable[[Any, Any], list[Any]]:
    return lambda x, y: _as_list(x, s, "++") + _as_list(y, s, "++")


def _remove(s: Semantics) -> Callable[[Any, Any], list[Any]]:
    def fn(x: Any, y: Any) -> list[Any]:
        drop = _as_list(y, s, "--")
        return [i for i in _as_list(x, s, "--") if i not in drop]
    return fn


def _keep(s: Semantics) -> Callable[[Any, Any], list[Any]]:
    def fn(x: Any, y: Any) -> list[Any]:
        keep = _as_list(y, s, "&")
        return [i for i in _as_list(x, s, "&") if i in keep]
    return fn


_reg(OpSpec("concat", "++", None, "the items of x, then the items of y", _concat))
_reg(OpSpec("remove", "--", None, "the items of x that are not in y, in x's order", _remove))
_reg(OpSpec("keep", "&", None, "the items of x that are in y, in x's order", _keep))

# ------------------------------------------------------------------------------ arithmetic
_PY_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod}


def _arith(op: str) -> Callable[[Semantics], Callable[[Any, Any], Any]]:
    py = _PY_ARITH[op]
    divides = op in ("/", "//", "%")

    def make(s: Semantics) -> Callable[[Any, Any], Any]:
        def fn(x: Any, y: Any) -> Any:
            if x is None or y is None:
                return None
            if not _is_num(x) or not _is_num(y):
                raise EvalError(compute_text(x, op, y), s.where)
            if divides and y == 0:
                raise EvalError(division_by_zero_text(x, op), s.where, Code.DIVISION_BY_ZERO)
            return py(x, y)
        return fn
    return make


def _fuse_arith(op: str) -> Callable[[Semantics, Fn, Fn], Fn]:
    py = _PY_ARITH[op]

    def fuse(s: Semantics, af: Fn, bf: Fn) -> Fn:
        slow = _arith(op)(s)

        def fn(ctx: Any) -> Any:
            x, y = af(ctx), bf(ctx)
            if x.__class__ is int and y.__class__ is int and (y or op in ("+", "-", "*")):
                return py(x, y)
            return slow(x, y)
        return fn
    return fuse


_ARITH_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod"}
for _op, _nm in _ARITH_NAMES.items():
    _reg(OpSpec(_nm, _op, INT, f"numbers: x {_op} y; none if either is none"
                + ("; dividing by zero is an error" if _op in ("/", "//", "%") else ""), _arith(_op), _fuse_arith(_op)))


# ------------------------------------------------------------------------------ unary
def _not(s: Semantics) -> Callable[[Any], bool]:
    return lambda x: not x


def _neg(s: Semantics) -> Callable[[Any], Any]:
    def fn(x: Any) -> Any:
        if x is None:
            return None
        if not _is_num(x):
            raise EvalError(_("cannot negate {show}: not a number").format(show=_show(x)), s.where)
        return -x
    return fn


_reg(OpSpec("not", "not", BOOL, "true when x is false or none", _not))
_reg(OpSpec("neg", "-", INT, "minus x; none if x is none", _neg))

BINARY: dict[str, dict[str, OpSpec]] = {}
for _spec in OPS.values():
    BINARY.setdefault(_spec.op, {})[_spec.name] = _spec
UNARY: dict[str, OpSpec] = {"not": OPS["not"], "-": OPS["neg"]}


# ------------------------------------------------------------------------------ lookups
def index_impl(s: Semantics) -> Callable[[Any, Any], Any]:
    """``base[key]``: a map's value (missing key: error), a list's item (out of range: error)."""
    def fn(b: Any, k: Any) -> Any:
        if b is None or k is None:
            return None
        if isinstance(b, dict):
            try:
                return b[k]
            except KeyError:
                raise EvalError(no_key_text(k, b), s.where, Code.MISSING_KEY) from None
            except TypeError:
                raise EvalError(_("{show} cannot be a key").format(show=_show(k)), s.where) from None
        if isinstance(b, (list, tuple)):
            if not (isinstance(k, int) and not isinstance(k, bool)):
                raise EvalError(list_index_text(k), s.where)
            if not -len(b) <= k < len(b):
                raise EvalError(no_item_text(k, b), s.where, Code.MISSING_KEY)
            return b[k]
        raise EvalError(_("cannot index {show}").format(show=_show(b)), s.where)
    return fn


def attr_impl(s: Semantics, attr: str, getter: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    """``base.attr``: a play's attribute (``getter``), or a map's key read by name."""
    def fn(b: Any) -> Any:
        if b is None:
            return None
        if isinstance(b, dict):
            if attr not in b:
                raise EvalError(_("no key {attr!r} in {show}").format(attr=attr, show=_show(b)), s.where, Code.MISSING_KEY)
            return b[attr]
        if getter is None:
            raise EvalError(_("{show} has no attribute {attr!r}").format(show=_show(b), attr=attr), s.where)
        return getter(b)
    return fn


# ------------------------------------------------------------------------------ resolution
_ORDER_NAMES = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def resolve_binary(op: BinOp, left: Type, right: Type) -> OpSpec | str:
    """The table entry for ``left op right``, or a message saying why the types do not fit."""
    o = op.value
    if op in (BinOp.EQ, BinOp.NE):
        return OPS["eq" if op == BinOp.EQ else "ne"]
    if o in _ORDER_NAMES:
        return _resolve_order(o, left, right)
    if op in (BinOp.IN, BinOp.NOT_IN):
        return _resolve_membership(op, right)
    if op in (BinOp.CONCAT, BinOp.REMOVE, BinOp.KEEP):
        wrong = _first_not_in(("list", "any", "none"), left, right)
        return _("{o} works on lists, not {t}").format(o=o, t=describe(wrong)) if wrong is not None else \
            OPS[{"++": "concat", "--": "remove", "&": "keep"}[o]]
    if o in _ARITH_NAMES:
        wrong = _first_not_in(("int", "seat", "any", "none"), left, right)
        return _("arithmetic needs numbers, not {t}").format(t=describe(wrong)) if wrong is not None else \
            OPS[_ARITH_NAMES[o]]
    return _("unknown operator {o}").format(o=o)  # pragma: no cover


def _first_not_in(categories: tuple[str, ...], *types: Type) -> Type | None:
    """The first of ``types`` whose category is not one of ``categories`` (None: all are)."""
    return next((t for t in types if category(t) not in categories), None)


def _resolve_order(o: str, left: Type, right: Type) -> OpSpec | str:
    """``<``, ``<=``, ``>``, ``>=``: numbers, ranks (or text against a rank), anything unknown."""
    nm = _ORDER_NAMES[o]
    pair = {category(left), category(right)} - {"none"}
    if pair <= {"int", "seat"}:
        return OPS[f"{nm}_int"]
    if pair <= {"rank", "text"} and "rank" in pair:
        return OPS[f"{nm}_rank"]
    if "any" in pair and pair <= {"any", "int", "seat", "rank", "text"}:
        return OPS[f"{nm}_any"]
    if pair == {"text"}:
        return _("cannot order texts ({o}): only numbers and ranks have an order").format(o=o)
    return _("cannot compare {left} with {right} ({o})").format(left=left, right=right, o=o)


def _resolve_membership(op: BinOp, right: Type) -> OpSpec | str:
    """``in`` / ``not in``: a list, a map or anything unknown on the right."""
    nm = "in" if op == BinOp.IN else "not_in"
    cr = category(right)
    if cr == "list":
        return OPS[f"{nm}_list"]
    if cr == "map":
        return OPS[f"{nm}_map"]
    if cr in ("any", "none"):
        return OPS[f"{nm}_any"]
    return _("'{o}' needs a list or a map on the right, not {right}").format(o=op.value, right=right)


def resolve_unary(op: UnOp, operand: Type) -> OpSpec | str:
    """The table entry for ``op operand``, or a message."""
    c = category(operand)
    if op == UnOp.NOT:
        if c in ("bool", "any", "none"):
            return OPS["not"]
        return _("'not' needs true/false, not {operand}").format(operand=operand)
    if c in ("int", "seat", "any", "none"):
        return OPS["neg"]
    return _("'-' needs a number, not {operand}").format(operand=operand)


_KEEP = ANY
