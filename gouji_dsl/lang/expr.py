"""Deprecated compatibility names for the code generator (:mod:`gouji_dsl.engine.codegen`,
:mod:`gouji_dsl.engine.fastops`), which still reads Lark trees with the language's first
semantics. New code uses :mod:`gouji_dsl.lang.parse` (the typed, positioned AST),
:mod:`gouji_dsl.lang.check`, :mod:`gouji_dsl.lang.compile` and :mod:`gouji_dsl.lang.fold`; this
module goes away once the generator emits from the checked AST.
"""
from __future__ import annotations

import functools
from typing import Any

from lark import Lark, Tree
from lark.exceptions import UnexpectedInput

from gouji_dsl.lang.ops import EvalError as RuleRuntimeError
from gouji_dsl.lang.parse import MAX_LENGTH, ExprError, _syntax_error
from gouji_dsl.lang.types import ListOf, Type, category, strip
from gouji_dsl.resources import grammar_dir

__all__ = ["RuleRuntimeError", "ExprError", "parse", "legacy_type", "_norm_key"]


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    text = (grammar_dir() / "expr.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def parse(text: str) -> Tree:
    """The Lark tree of ``text`` (deprecated: use :func:`gouji_dsl.lang.parse.parse`)."""
    if len(text) > MAX_LENGTH:
        raise ExprError(f"the expression is too long ({len(text)} characters; at most {MAX_LENGTH})", MAX_LENGTH)
    try:
        return _parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(text, e) from None


def _norm_key(k: Any) -> Any:
    return str(k) if isinstance(k, (int, str)) and not isinstance(k, bool) else k


def legacy_type(t: Type) -> str:
    """A type as the first version of the language named it (``bool int str seat seats rank play map list any none``)."""
    s = strip(t)
    if isinstance(s, ListOf):
        return "seats" if category(s.elem) == "seat" else "list"
    c = category(s)
    return {"text": "str"}.get(c, c)
