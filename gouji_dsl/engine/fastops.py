"""Helpers the generated play-out modules call (see :mod:`gouji_dsl.engine.codegen`): the
vocabulary's own implementations and a few small functions. Operators come from the language's
operator table (:mod:`gouji_dsl.lang.ops`), bound once per module; the generated code inlines an
operator only where the operand types make the inline form give the same value.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, GLOBAL_VARS

__all__ = ["_FN", "_GV", "_G", "_coalesce", "_raise", "_AmountOf"]


class _G:
    """What a vocabulary implementation reads of its context: the game (``c.g``)."""

    __slots__ = ("g",)

    def __init__(self, g: Any):
        self.g = g


_FN: dict[str, Callable[..., Any]] = {name: sig.impl for name, sig in FUNCTIONS.items()}
"""The vocabulary functions' implementations ``impl(ctx, *args)`` (the generated code applies the
none rule of :func:`gouji_dsl.lang.compile.call_closure` before calling them)."""

_GV: dict[str, Callable[[Any], Any]] = {name: v.get for name, v in GLOBAL_VARS.items()}


def _coalesce(a: Any, b: Any) -> Any:
    return a if a is not None else b


def _raise(e: BaseException) -> Any:
    """Raise ``e`` (a constant part of an expression that always fails, where it is reached)."""
    raise e


class _AmountOf:
    """A value in the shape :meth:`RuleGraph._amount` reads (``r.amount(ctx)``), so that an
    amount is checked by the graph's own code."""

    __slots__ = ("v",)

    def __init__(self, v: Any):
        self.v = v

    def amount(self, ctx: Any) -> Any:
        return self.v
