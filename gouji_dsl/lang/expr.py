"""The expression language: parse (Lark grammar ``grammar/expr.lark``), type-check, compile.

An expression is parsed once into a small typed AST, every name checked against a
:class:`Scope` (the interpreter's vocabulary plus the ruleset's settings and definitions), and
compiled into a Python closure ``fn(ctx) -> value``. Nothing is ever ``eval``-ed.

Types are plain strings: ``bool int str seat seats rank play map list any``. ``seat`` is an int;
``seats`` a list of seats; ``rank`` a card symbol compared by the ruleset's strength order; a
string literal compared with a rank is read as a rank. A missing map key or a ``none`` compares
false with anything but ``==``/``!=``.

Errors are :class:`ExprError` with a 0-based offset into the expression text and a hint.
"""
from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from gouji_dsl.resources import grammar_dir

Fn = Callable[[Any], Any]
TYPES = ("bool", "int", "str", "seat", "seats", "rank", "play", "map", "list", "any", "none")


class RuleRuntimeError(Exception):
    """A rule met a value of the wrong type while the game ran (e.g. a setting written as text
    where a number is compared); :class:`~gouji_dsl.ruleset.graph.RuleGraph` adds the rule's position."""


class ExprError(Exception):
    """A problem in one expression: ``offset`` (0-based, into the text), message and hint."""

    def __init__(self, message: str, offset: int = 0, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The cached LALR parser built from ``grammar/expr.lark``."""
    text = (grammar_dir() / "expr.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False)


@dataclass(frozen=True)
class FnSig:
    """A vocabulary function: parameter types, return type, implementation ``impl(ctx, *args)``."""

    params: tuple[str, ...]
    returns: str
    impl: Callable[..., Any]
    doc: str = ""
    variadic: bool = False


@dataclass(frozen=True)
class VarSig:
    """A vocabulary name: its type and getter ``get(ctx)``."""

    type: str
    get: Fn
    doc: str = ""


@dataclass
class Scope:
    """What names an expression may use.

    ``variables``: bare names; ``functions``: callables; ``attrs``: per-type attribute tables
    (e.g. ``attrs["play"]["rank"]``); ``settings``: the ruleset's resolved setting values (read at
    compile time, so their lookups cost nothing at run time); ``definitions``: compiled named
    expressions (``name -> (param names, param types, return type, fn(ctx, *args))``);
    ``rank_strength``: symbol -> strength used for rank comparisons."""

    variables: dict[str, VarSig]
    functions: dict[str, FnSig]
    attrs: dict[str, dict[str, VarSig]]
    settings: dict[str, Any] = field(default_factory=dict)
    definitions: dict[str, tuple[tuple[str, ...], str, Fn]] = field(default_factory=dict)
    rank_strength: dict[str, int] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)  # parameters of the definition being compiled

    def all_names(self) -> list[str]:
        return sorted(set(self.variables) | set(self.functions) | set(self.definitions)
                      | set(self.params) | {"settings"})


def _type_of_value(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "str"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, list):
        return "list"
    if v is None:
        return "none"
    return "any"


def _compatible(want: str, got: str) -> bool:
    if want == "any" or got in ("any", "none"):
        return True
    if want == got:
        return True
    if want == "int" and got == "seat" or want == "seat" and got == "int":
        return True
    if want == "list" and got == "seats" or want == "seats" and got == "list":
        return True
    return want == "rank" and got == "str" or want == "str" and got == "rank"


@dataclass
class Compiled:
    """A compiled expression: its type, the closure, and the names it reads."""

    type: str
    fn: Fn
    reads: frozenset[str] = frozenset()
    const: bool = False
    value: Any = None


def _const(v: Any, t: str | None = None) -> Compiled:
    return Compiled(t or _type_of_value(v), lambda ctx, v=v: v, frozenset(), True, v)


def _norm_key(k: Any) -> Any:
    return str(k) if isinstance(k, (int, str)) and not isinstance(k, bool) else k


def normalize_setting(v: Any) -> Any:
    """Settings as the compiler sees them: map keys become strings (YAML reads ``2:`` as int)."""
    if isinstance(v, dict):
        return {_norm_key(k): normalize_setting(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize_setting(x) for x in v]
    return v


class _Compiler:
    def __init__(self, scope: Scope, text: str):
        self.scope = scope
        self.text = text

    def err(self, node: Tree | Token, msg: str, hint: str | None = None) -> ExprError:
        off = 0
        if isinstance(node, Token):
            off = node.start_pos or 0
        elif isinstance(node, Tree) and node.meta and not node.meta.empty:
            off = node.meta.start_pos
        return ExprError(msg, off, hint)

    def unknown(self, node, name: str, candidates) -> ExprError:
        close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else None
        return self.err(node, f"unknown name {name!r}", hint)

    # --- entry
    def compile(self, tree) -> Compiled:
        if isinstance(tree, Token):
            raise self.err(tree, f"unexpected {tree!s}")
        meth = getattr(self, "c_" + tree.data.rstrip("_"), None)
        if meth is None:  # pragma: no cover - grammar and compiler are kept in step
            raise self.err(tree, f"unsupported expression {tree.data!r}")
        return meth(tree)

    def c_number(self, t):
        return _const(int(t.children[0]), "int")

    def c_string(self, t):
        return _const(t.children[0][1:-1], "str")

    def c_true(self, t):
        return _const(True)

    def c_false(self, t):
        return _const(False)

    def c_none(self, t):
        return _const(None, "none")

    def c_list(self, t):
        items = [self.compile(c) for c in t.children]
        types = {i.type for i in items}
        typ = "seats" if types and types <= {"seat", "int"} else "list"
        fns = [i.fn for i in items]
        reads = frozenset().union(*[i.reads for i in items]) if items else frozenset()
        if all(i.const for i in items):
            return _const([i.value for i in items], typ)
        return Compiled(typ, lambda ctx: [f(ctx) for f in fns], reads)

    def c_name(self, t):
        name = str(t.children[0])
        sc = self.scope
        if name in sc.params:
            idx = list(sc.params).index(name)
            return Compiled(sc.params[name], lambda ctx, i=idx: ctx.args[i], frozenset())
        if name in sc.variables:
            v = sc.variables[name]
            return Compiled(v.type, v.get, frozenset({name}))
        if name in sc.definitions:
            params, rtype, fn = sc.definitions[name]
            if params:
                raise self.err(t, f"{name!r} takes {len(params)} argument(s): write {name}({', '.join(params)})")
            return Compiled(rtype, lambda ctx, fn=fn: fn(ctx), frozenset({name}))
        if name == "settings":
            raise self.err(t, "write settings.NAME to read a setting",
                           "settings: " + ", ".join(sorted(sc.settings)[:12]))
        if name in sc.functions:
            raise self.err(t, f"{name!r} is a function: call it as {name}(...)")
        raise self.unknown(t, name, sc.all_names())

    def c_attr(self, t):
        base_node, attr_tok = t.children
        attr = str(attr_tok)
        if isinstance(base_node, Tree) and base_node.data == "name" and str(base_node.children[0]) == "settings" \
                and "settings" not in self.scope.variables:
            if attr not in self.scope.settings:
                close = difflib.get_close_matches(attr, list(self.scope.settings), n=1, cutoff=0.6)
                raise self.err(attr_tok, f"unknown setting {attr!r}",
                               f"did you mean {close[0]!r}?" if close else
                               "settings: " + ", ".join(sorted(self.scope.settings)))
            return _const(self.scope.settings[attr])
        base = self.compile(base_node)
        table = self.scope.attrs.get(base.type)
        if base.type == "map" and base.const:
            val = base.value
            if attr in val:
                return _const(val[attr])
            raise self.err(attr_tok, f"no key {attr!r} in this map", f"keys: {', '.join(map(str, val))}")
        if table is None:
            raise self.err(attr_tok, f"a value of type {base.type} has no attribute {attr!r}")
        if attr not in table:
            close = difflib.get_close_matches(attr, list(table), n=1, cutoff=0.6)
            raise self.err(attr_tok, f"{base.type} has no attribute {attr!r}",
                           f"did you mean {close[0]!r}?" if close else "attributes: " + ", ".join(sorted(table)))
        sig = table[attr]
        bf, get = base.fn, sig.get

        def fn(ctx):
            b = bf(ctx)
            return None if b is None else get(b)
        return Compiled(sig.type, fn, base.reads)

    def c_index(self, t):
        base = self.compile(t.children[0])
        key = self.compile(t.children[1])
        if base.type not in ("map", "list", "seats", "any"):
            raise self.err(t, f"cannot index a value of type {base.type}")
        bf, kf = base.fn, key.fn
        if base.type == "map":
            if base.const and key.const:
                return _const(base.value.get(_norm_key(key.value)))
            if base.const:
                table = base.value
                return Compiled("any", lambda ctx: table.get(_norm_key(kf(ctx))), key.reads)

            def fn(ctx):
                b = bf(ctx)
                return None if b is None else b.get(_norm_key(kf(ctx)))
            return Compiled("any", fn, base.reads | key.reads)
        etype = "seat" if base.type == "seats" else "any"

        def fn2(ctx):
            b, k = bf(ctx), kf(ctx)
            if isinstance(b, dict):
                return b.get(_norm_key(k))
            if b is None or not isinstance(k, int) or not -len(b) <= k < len(b):
                return None
            return b[k]
        return Compiled(etype, fn2, base.reads | key.reads)

    def c_call(self, t):
        name_tok, *arg_nodes = t.children
        name = str(name_tok)
        args = [self.compile(a) for a in arg_nodes]
        reads = frozenset().union(*[a.reads for a in args]) if args else frozenset()
        sc = self.scope
        if name in sc.definitions:
            params, rtype, dfn = sc.definitions[name]
            ptypes = getattr(dfn, "param_types", ("any",) * len(params))
            if len(args) != len(params):
                raise self.err(t, f"{name}() takes {len(params)} argument(s), got {len(args)}",
                               f"write {name}({', '.join(params)})")
            for a, pt, node in zip(args, ptypes, arg_nodes):
                if not _compatible(pt, a.type):
                    raise self.err(node, f"{name}() expects {pt} here, got {a.type}")
            afns = [a.fn for a in args]
            return Compiled(rtype, lambda ctx: dfn(ctx, *[f(ctx) for f in afns]), reads | {name})
        if name not in sc.functions:
            if name in sc.variables:
                raise self.err(name_tok, f"{name!r} is not a function: write it without parentheses")
            raise self.unknown(name_tok, name, list(sc.functions) + list(sc.definitions))
        sig = sc.functions[name]
        if not sig.variadic and len(args) != len(sig.params):
            raise self.err(t, f"{name}() takes {len(sig.params)} argument(s), got {len(args)}",
                           f"{name}({', '.join(sig.params)}): {sig.doc}")
        for i, (a, node) in enumerate(zip(args, arg_nodes)):
            want = sig.params[min(i, len(sig.params) - 1)] if sig.params else "any"
            if not _compatible(want, a.type):
                raise self.err(node, f"{name}() expects {want} for argument {i + 1}, got {a.type}",
                               f"{name}({', '.join(sig.params)}): {sig.doc}")
        impl = sig.impl
        afns = [a.fn for a in args]
        if len(afns) == 0:
            fn = lambda ctx: impl(ctx)
        elif len(afns) == 1:
            a0 = afns[0]
            fn = lambda ctx: impl(ctx, a0(ctx))
        elif len(afns) == 2:
            a0, a1 = afns
            fn = lambda ctx: impl(ctx, a0(ctx), a1(ctx))
        else:
            fn = lambda ctx: impl(ctx, *[f(ctx) for f in afns])
        return Compiled(sig.returns, fn, reads | {name})

    def _bool(self, node) -> Compiled:
        c = self.compile(node)
        if c.type not in ("bool", "any", "none"):
            raise self.err(node, f"expected a true/false value here, got {c.type}",
                           "compare it, e.g. x > 0 or x == none")
        return c

    def c_and(self, t):
        a, b = self._bool(t.children[0]), self._bool(t.children[1])
        af, bf = a.fn, b.fn
        return Compiled("bool", lambda ctx: bool(af(ctx)) and bool(bf(ctx)), a.reads | b.reads)

    def c_or(self, t):
        a, b = self._bool(t.children[0]), self._bool(t.children[1])
        af, bf = a.fn, b.fn
        return Compiled("bool", lambda ctx: bool(af(ctx)) or bool(bf(ctx)), a.reads | b.reads)

    def c_not(self, t):
        a = self._bool(t.children[0])
        af = a.fn
        return Compiled("bool", lambda ctx: not af(ctx), a.reads)

    def c_cond(self, t):
        then, cond, other = t.children
        c = self._bool(cond)
        a, b = self.compile(then), self.compile(other)
        typ = a.type if _compatible(a.type, b.type) and a.type != "none" else b.type
        if not (_compatible(a.type, b.type) or _compatible(b.type, a.type)):
            raise self.err(t, f"both branches must have the same type: {a.type} vs {b.type}")
        cf, af, bf = c.fn, a.fn, b.fn
        return Compiled(typ, lambda ctx: af(ctx) if cf(ctx) else bf(ctx), c.reads | a.reads | b.reads)

    def c_compare(self, t):
        left, op_tok, right = t.children
        a, b = self.compile(left), self.compile(right)
        op = str(op_tok)
        if not (_compatible(a.type, b.type) or _compatible(b.type, a.type)):
            hint = ("ranks are quoted text: write '3', not 3 (in settings too)"
                    if {a.type, b.type} == {"rank", "int"} else None)
            raise self.err(op_tok, f"cannot compare {a.type} with {b.type}", hint)
        af, bf = a.fn, b.fn
        reads = a.reads | b.reads
        if "rank" in (a.type, b.type) and op not in ("==", "!="):
            strength = self.scope.rank_strength
            for c, node in ((a, left), (b, right)):
                if c.const and c.value is not None and str(c.value) not in strength:
                    raise self.err(node, f"{c.value!r} is not a rank of this ruleset",
                                   "ranks: " + " ".join(strength))
            af0, bf0 = af, bf
            af = lambda ctx: strength.get(af0(ctx))
            bf = lambda ctx: strength.get(bf0(ctx))
        if op in ("==", "!=") and (a.const or b.const) and not (a.const and b.const):
            var, c = (bf, a.value) if a.const else (af, b.value)
            if op == "==":
                return Compiled("bool", lambda ctx: var(ctx) == c, reads)
            return Compiled("bool", lambda ctx: var(ctx) != c, reads)
        if op == "==":
            return Compiled("bool", lambda ctx: af(ctx) == bf(ctx), reads)
        if op == "!=":
            return Compiled("bool", lambda ctx: af(ctx) != bf(ctx), reads)
        import operator
        pyop = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def fn(ctx):
            x, y = af(ctx), bf(ctx)
            if x is None or y is None:
                return False
            try:
                return pyop(x, y)
            except TypeError:
                raise RuleRuntimeError(f"cannot compare {x!r} with {y!r} ({op})") from None
        return Compiled("bool", fn, reads)

    def _membership(self, t, negate: bool):
        a, b = self.compile(t.children[0]), self.compile(t.children[1])
        if b.type not in ("list", "seats", "map", "any", "str", "none"):
            raise self.err(t.children[1], f"'in' needs a list or map on the right, got {b.type}")
        af, bf = a.fn, b.fn
        if b.type == "map":
            def fn(ctx):
                m = bf(ctx)
                return (m is not None and _norm_key(af(ctx)) in m) != negate
        else:
            def fn(ctx):
                m = bf(ctx)
                return (m is not None and af(ctx) in m) != negate
        return Compiled("bool", fn, a.reads | b.reads)

    def c_in(self, t):
        return self._membership(t, False)

    def c_not_in(self, t):
        return self._membership(t, True)

    def c_listop(self, t):
        left, op_tok, right = t.children
        a, b = self.compile(left), self.compile(right)
        for c, node in ((a, left), (b, right)):
            if c.type not in ("list", "seats", "any", "none"):
                raise self.err(node, f"{op_tok} works on lists, got {c.type}")
        typ = "seats" if "seats" in (a.type, b.type) else "list"
        af, bf = a.fn, b.fn
        op = str(op_tok)
        if op == "++":
            fn = lambda ctx: list(af(ctx) or []) + list(bf(ctx) or [])
        elif op == "--":
            def fn(ctx):
                drop = set(bf(ctx) or [])
                return [x for x in (af(ctx) or []) if x not in drop]
        else:
            def fn(ctx):
                keep = set(bf(ctx) or [])
                return [x for x in (af(ctx) or []) if x in keep]
        return Compiled(typ, fn, a.reads | b.reads)

    def c_arith(self, t):
        left, op_tok, right = t.children
        a, b = self.compile(left), self.compile(right)
        for c, node in ((a, left), (b, right)):
            if c.type not in ("int", "seat", "any", "none"):
                raise self.err(node, f"arithmetic needs numbers, got {c.type}")
        af, bf = a.fn, b.fn
        op = str(op_tok)
        import operator
        pyop = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
                "/": operator.truediv, "%": operator.mod}[op]
        if a.const and b.const and a.value is not None and b.value is not None and not (op in ("//", "/", "%") and b.value == 0):
            return _const(pyop(a.value, b.value), "int")

        def fn(ctx):
            x, y = af(ctx), bf(ctx)
            if x is None or y is None:
                return None
            if op in ("//", "/", "%") and y == 0:
                return None
            try:
                return pyop(x, y)
            except TypeError:
                raise RuleRuntimeError(f"cannot compute {x!r} {op} {y!r}") from None
        return Compiled("int", fn, a.reads | b.reads)

    def c_neg(self, t):
        a = self.compile(t.children[0])
        if a.type not in ("int", "any"):
            raise self.err(t, f"'-' needs a number, got {a.type}")
        if a.const:
            return _const(-a.value, "int")
        af = a.fn
        return Compiled("int", lambda ctx: -af(ctx), a.reads)


def parse(text: str) -> Tree:
    """Parse expression text into a Lark tree. Raises :class:`ExprError` on a syntax error."""
    try:
        return parser().parse(text)
    except UnexpectedCharacters as e:
        raise ExprError(f"unexpected character {text[e.pos_in_stream]!r}", e.pos_in_stream,
                        "expressions use names, numbers, \"strings\", and/or/not, == != < <= > >=, "
                        "in, ++ -- &, + - * // %, f(x), a.b, a[b], x if c else y") from None
    except UnexpectedEOF:
        raise ExprError("the expression ends too early", len(text), "is an operand missing?") from None
    except UnexpectedToken as e:
        tok = e.token
        pos = tok.start_pos if tok.start_pos is not None else len(text)
        what = "end of the expression" if tok.type == "$END" else repr(str(tok))
        raise ExprError(f"unexpected {what}", pos if tok.type != "$END" else len(text),
                        "check for a missing operand or bracket") from None
    except UnexpectedInput as e:  # pragma: no cover
        raise ExprError(str(e), getattr(e, "pos_in_stream", 0) or 0) from None


def compile_expr(text: str, scope: Scope, *, want: str | None = None) -> Compiled:
    """Parse, check and compile ``text`` in ``scope``.

    ``want`` is the type the caller needs (``bool`` for guards, ``seats`` for orders, ...).
    Raises :class:`ExprError` with the offset of the problem."""
    tree = parse(text)
    c = _Compiler(scope, text).compile(tree)
    if want and not _compatible(want, c.type):
        raise ExprError(f"expected {want}, but this expression gives {c.type}", 0)
    return c
