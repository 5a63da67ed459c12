"""Operators and vocabulary helpers the generated play-out modules call (see
:mod:`gouji_dsl.engine.codegen`). Each one has exactly the semantics of the interpreter's compiled
closure for the same operator (:mod:`gouji_dsl.lang.expr`): a ``none`` operand makes an order
comparison false and arithmetic none, a division by zero gives none, a type clash raises
:class:`~gouji_dsl.lang.expr.RuleRuntimeError` (which the module turns into an error naming the rule).
The generated code inlines the cases where types are known (``seat == opposite(top.seat)``) and calls
these for the rest.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from gouji_dsl.lang.compile import total
from gouji_dsl.lang.expr import RuleRuntimeError, _norm_key
from gouji_dsl.ruleset.vocabulary import FUNCTIONS, GLOBAL_VARS

_nk = _norm_key


def _order(op: Callable[[Any, Any], bool], sym: str) -> Callable[[Any, Any], bool]:
    def fn(x: Any, y: Any) -> bool:
        if x is None or y is None:
            return False
        try:
            return op(x, y)
        except TypeError:
            raise RuleRuntimeError(f"cannot compare {x!r} with {y!r} ({sym})") from None
    return fn


_lt = _order(operator.lt, "<")
_le = _order(operator.le, "<=")
_gt = _order(operator.gt, ">")
_ge = _order(operator.ge, ">=")


def _arith(op: Callable[[Any, Any], Any], sym: str) -> Callable[[Any, Any], Any]:
    div = sym in ("//", "/", "%")

    def fn(x: Any, y: Any) -> Any:
        if x is None or y is None:
            return None
        if div and y == 0:
            return None
        try:
            return op(x, y)
        except TypeError:
            raise RuleRuntimeError(f"cannot compute {x!r} {sym} {y!r}") from None
    return fn


_add = _arith(operator.add, "+")
_sub = _arith(operator.sub, "-")
_mul = _arith(operator.mul, "*")
_floordiv = _arith(operator.floordiv, "//")
_truediv = _arith(operator.truediv, "/")
_mod = _arith(operator.mod, "%")


def _map_get(m: Any, k: Any) -> Any:
    return None if m is None else m.get(_norm_key(k))


def _list_index(b: Any, k: Any) -> Any:
    if isinstance(b, dict):
        return b.get(_norm_key(k))
    if b is None or not isinstance(k, int) or not -len(b) <= k < len(b):
        return None
    return b[k]


def _in(a: Any, m: Any) -> bool:
    return m is not None and a in m


def _in_map(a: Any, m: Any) -> bool:
    return m is not None and _norm_key(a) in m


def _concat(a: Any, b: Any) -> list[Any]:
    return list(a or []) + list(b or [])


def _minus(a: Any, b: Any) -> list[Any]:
    drop = set(b or [])
    return [x for x in (a or []) if x not in drop]


def _inter(a: Any, b: Any) -> list[Any]:
    keep = set(b or [])
    return [x for x in (a or []) if x in keep]


def _first(xs: Any) -> Any:
    return xs[0] if xs else None


def _coalesce(a: Any, b: Any) -> Any:
    return a if a is not None else b


class _G:
    """What a vocabulary implementation reads of its context: the game (``c.g``)."""

    __slots__ = ("g",)

    def __init__(self, g: Any):
        self.g = g


_FN: dict[str, Callable[..., Any]] = {name: total(sig) for name, sig in FUNCTIONS.items()}
_GV: dict[str, Callable[[Any], Any]] = {name: v.get for name, v in GLOBAL_VARS.items()}


def _active_n(S: Any, s: Any) -> bool:
    return bool(s) and s not in S.places and s not in S.revolted and s not in S.failed


def _out_n(S: Any, s: Any) -> bool:
    return bool(s) and s in S.places and s not in S.revolted


def _next_active_n(S: Any, s: Any) -> Any:
    return S.next_active(s) if s else None


def _hand_size(S: Any, s: Any) -> int:
    return sum(S.hands[s]) if s else 0


def _n_active(S: Any) -> int:
    """How many seats still play (``count(active_seats)`` without building the list)."""
    return S.n_seats - len(S.places.keys() | S.revolted | S.failed)
