"""Compile a checked expression tree into a Python closure ``fn(ctx) -> value``.

One interpretation of the checked tree (the other is :mod:`gouji_dsl.lang.fold`). Operators run
their operator-table entry (:mod:`gouji_dsl.lang.ops`; the entry's fused form when it has one);
constant sub-expressions (literals, settings, operators and pure functions of constants) are
computed once, here, with the same entries; like the folder, the compiler does not look at an
operand whose value cannot matter (``false and x``, ``none + x``, ``holds(none, x)``). Nothing is
ever ``eval``-ed.

``ctx`` is the interpreter's context object: the hook's variables as attributes (``ctx.seat``,
``ctx.play``...), the game as ``ctx.g`` and a definition's arguments as ``ctx.args``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gouji_dsl.lang import ast as A
from gouji_dsl.lang.check import DefInfo, FnSig, VarSig
from gouji_dsl.lang.ops import OPS, EvalError, Semantics, attr_impl, index_impl

__all__ = ["Compiler", "Fn", "call_closure", "total"]

Fn = Callable[[Any], Any]
_ARITH = frozenset({"add", "sub", "mul", "div", "floordiv", "mod"})
_ORDER = frozenset(f"{o}_{t}" for o in ("lt", "le", "gt", "ge") for t in ("int", "rank", "any"))
_MEMBER = frozenset(f"{o}_{t}" for o in ("in", "not_in") for t in ("list", "map", "any"))


class Compiler:
    """Compiles checked trees of one ruleset. ``strength``: card kind -> rank strength;
    ``variables``/``functions``/``play_attrs``: the vocabulary; ``definitions``: the checked
    definitions (compiled on first use into ``fn(ctx, *args)``)."""

    def __init__(self, strength: Mapping[str, int], variables: Mapping[str, VarSig], functions: Mapping[str, FnSig],
                 play_attrs: Mapping[str, VarSig], definitions: Mapping[str, DefInfo] | None = None):
        self.strength = strength
        self.variables = variables
        self.functions = functions
        self.play_attrs = play_attrs
        self.definitions = definitions or {}
        self.compiled_defs: dict[str, Callable[..., Any]] = {}

    # ------------------------------------------------------------------ entry points
    def compile(self, node: A.Node) -> Fn:
        """The closure of a checked tree (a constant part that always fails, like
        ``settings.place_points[0 + 0]``, raises its :class:`~gouji_dsl.lang.ops.EvalError` when reached)."""
        fn, const, value = self._c(node)
        if const:
            def constant(ctx: Any) -> Any:
                return value
            return constant
        return fn

    def constant(self, node: A.Node) -> tuple[bool, Any]:
        """``(True, value)`` when the checked tree is a constant (computed here), else ``(False, None)``."""
        _, const, value = self._c(node)
        return (const, value) if const else (False, None)

    def definition(self, name: str) -> Callable[..., Any]:
        """The compiled definition ``name`` as ``fn(ctx, *args)``."""
        if name in self.compiled_defs:
            return self.compiled_defs[name]
        info = self.definitions[name]
        holder: list[Fn] = []

        def late(ctx: Any, *args: Any) -> Any:  # a definition may be compiled while it is compiled (never called then)
            return holder[0](ctx)
        self.compiled_defs[name] = late
        body = self.compile(info.body) if info.body is not None else (lambda ctx: None)
        holder.append(body)
        if info.params:
            def call(ctx: Any, *args: Any) -> Any:
                saved = ctx.args
                ctx.args = args
                try:
                    return body(ctx)
                finally:
                    ctx.args = saved
        else:
            def call(ctx: Any, *args: Any) -> Any:
                return body(ctx)
        self.compiled_defs[name] = call
        return call

    # ------------------------------------------------------------------ nodes
    def _sem(self, n: A.Node) -> Semantics:
        return Semantics(self.strength, n.pos)

    def _c(self, n: A.Node) -> tuple[Fn, bool, Any]:
        meth = getattr(self, "c_" + type(n).__name__)
        out: tuple[Fn, bool, Any] = meth(n)
        return out

    @staticmethod
    def _const(v: Any) -> tuple[Fn, bool, Any]:
        return (lambda ctx: v), True, v

    def _fold_const(self, n: A.Node, f: Callable[[], Any]) -> tuple[Fn, bool, Any]:
        try:
            return self._const(f())
        except EvalError as e:
            err = e  # a constant part that always fails: it fails (loudly) where it is reached

            def fails(ctx: Any) -> Any:
                raise err
            return fails, False, None

    def c_Literal(self, n: A.Literal) -> tuple[Fn, bool, Any]:
        return self._const(n.value)

    def c_Setting(self, n: A.Setting) -> tuple[Fn, bool, Any]:
        return self._const(n.value)

    def c_ListLit(self, n: A.ListLit) -> tuple[Fn, bool, Any]:
        items = [self._c(i) for i in n.items]
        if all(c for _, c, _ in items):
            return self._const([v for _, _, v in items])
        fns = [f for f, _, _ in items]
        return (lambda ctx: [f(ctx) for f in fns]), False, None

    def c_Name(self, n: A.Name) -> tuple[Fn, bool, Any]:
        if n.ref == A.Ref.PARAM:
            i = n.index
            return (lambda ctx: ctx.args[i]), False, None
        if n.ref == A.Ref.DEFINITION:
            info = self.definitions[n.name]
            if info.body is not None:
                const, value = self.constant(info.body)
                if const:
                    return self._const(value)
            d = self.definition(n.name)
            return (lambda ctx: d(ctx)), False, None
        return self.variables[n.name].get, False, None

    def c_Attr(self, n: A.Attr) -> tuple[Fn, bool, Any]:
        bf, bc, bv = self._c(n.base)
        getter = self.play_attrs[n.attr].get if n.attr in self.play_attrs else None
        if n.ref == A.Ref.PLAY_ATTR and n.base.type is not None and str(n.base.type) == "play" and getter is not None:
            g = getter

            def play_attr(ctx: Any) -> Any:
                b = bf(ctx)
                return None if b is None else g(b)
            return play_attr, False, None
        impl = attr_impl(self._sem(n), n.attr, getter if n.ref == A.Ref.PLAY_ATTR else None)
        if bc:
            return self._fold_const(n, lambda: impl(bv))
        return (lambda ctx: impl(bf(ctx))), False, None

    def c_Index(self, n: A.Index) -> tuple[Fn, bool, Any]:
        bf, bc, bv = self._c(n.base)
        if bc and bv is None:
            return self._const(None)
        kf, kc, kv = self._c(n.key)
        if kc and kv is None:
            return self._const(None)
        impl = index_impl(self._sem(n))
        if bc and kc:
            return self._fold_const(n, lambda: impl(bv, kv))
        if bc:
            return (lambda ctx: impl(bv, kf(ctx))), False, None
        return (lambda ctx: impl(bf(ctx), kf(ctx))), False, None

    def c_Call(self, n: A.Call) -> tuple[Fn, bool, Any]:
        if n.ref == A.Ref.DEFINITION:
            fns = [self._c(a)[0] for a in n.args]
            info = self.definitions[n.func]
            d = self.definition(n.func)
            if info.body is not None and not info.params:
                const, value = self.constant(info.body)
                if const:
                    return self._const(value)
            if len(fns) == 1:
                a0 = fns[0]
                return (lambda ctx: d(ctx, a0(ctx))), False, None
            if len(fns) == 2:
                a0, a1 = fns
                return (lambda ctx: d(ctx, a0(ctx), a1(ctx))), False, None
            return (lambda ctx: d(ctx, *[f(ctx) for f in fns])), False, None
        sig = self.functions[n.func]
        args = []
        for i, a in enumerate(n.args):
            c = self._c(a)
            if c[1] and c[2] is None and not sig.accepts_none(i):
                return self._const(sig.none_result)  # a none argument: the function's none result
            args.append(c)
        fn = call_closure(sig, [f for f, _, _ in args])
        if sig.pure and all(c for _, c, _ in args):
            return self._fold_const(n, lambda: fn(None))
        return fn, False, None

    def c_Unary(self, n: A.Unary) -> tuple[Fn, bool, Any]:
        af, ac, av = self._c(n.operand)
        impl = OPS[n.impl].make(self._sem(n))
        if ac:
            return self._fold_const(n, lambda: impl(av))
        if n.impl == "not":
            return (lambda ctx: not af(ctx)), False, None
        return (lambda ctx: impl(af(ctx))), False, None

    def c_Binary(self, n: A.Binary) -> tuple[Fn, bool, Any]:
        spec = OPS[n.impl]
        arith = spec.name in _ARITH
        af, ac, av = self._c(n.left)
        if ac and av is None and (arith or spec.name in _ORDER):
            return self._const(None if arith else False)  # none in: none out / false, whatever the other side
        bf, bc, bv = self._c(n.right)
        if bc and bv is None and (arith or spec.name in _ORDER):
            return self._const(None if arith else False)
        if bc and not bv and spec.name in _MEMBER:
            return self._const(spec.name.startswith("not"))  # nothing is in an empty list or map
        sem = self._sem(n)
        impl = spec.make(sem)
        if ac and bc:
            return self._fold_const(n, lambda: impl(av, bv))
        if spec.name in ("eq", "ne") and (ac or bc):
            var, c = (bf, av) if ac else (af, bv)
            if spec.name == "eq":
                return (lambda ctx: var(ctx) == c), False, None
            return (lambda ctx: var(ctx) != c), False, None
        if spec.fuse is not None:
            return spec.fuse(sem, af, bf), False, None
        if bc:
            return (lambda ctx: impl(af(ctx), bv)), False, None
        if ac:
            return (lambda ctx: impl(av, bf(ctx))), False, None
        return (lambda ctx: impl(af(ctx), bf(ctx))), False, None

    def c_BoolOp(self, n: A.BoolOp) -> tuple[Fn, bool, Any]:
        is_and = n.op == A.BoolOpKind.AND
        fns: list[Fn] = []
        for o in n.operands:
            f, c, v = self._c(o)
            if c and bool(v) != is_and:  # a constant false in an and (true in an or) decides it
                return self._const(not is_and)
            if not c:
                fns.append(f)
        if not fns:
            return self._const(is_and)
        return _all_of(fns) if is_and else _any_of(fns), False, None

    def c_Cond(self, n: A.Cond) -> tuple[Fn, bool, Any]:
        cf, cc, cv = self._c(n.cond)
        if cc:
            return self._c(n.then if cv else n.other)
        tf, tc, tv = self._c(n.then)
        of, oc, ov = self._c(n.other)
        if tc and oc:
            return (lambda ctx: tv if cf(ctx) else ov), False, None
        return (lambda ctx: tf(ctx) if cf(ctx) else of(ctx)), False, None


def total(sig: FnSig) -> Callable[..., Any]:
    """``sig.impl`` as ``fn(ctx, *args)`` that gives ``sig.none_result`` for a none argument where
    the function does not take none (for code that calls vocabulary functions directly)."""
    impl, nr = sig.impl, sig.none_result
    guard = tuple(not sig.accepts_none(i) for i in range(len(sig.params)))

    def fn(ctx: Any, *args: Any) -> Any:
        for a, g in zip(args, guard):
            if a is None and g:
                return nr
        return impl(ctx, *args)
    return fn


def call_closure(sig: FnSig, fns: list[Fn]) -> Fn:
    """``fn(ctx)`` calling ``sig.impl`` with the argument closures' values; an argument that is
    ``none`` where the function does not take none gives ``sig.none_result`` (every function is total)."""
    impl, nr = sig.impl, sig.none_result
    guard = [not sig.accepts_none(i) for i in range(len(fns))]
    if not fns:
        return lambda ctx: impl(ctx)
    if len(fns) == 1:
        return _call_one(impl, nr, fns[0], guard[0])
    if len(fns) == 2:
        return _call_two(impl, nr, fns, guard)
    return _call_many(impl, nr, fns, guard)


def _call_one(impl: Callable[..., Any], nr: Any, a0: Fn, g0: bool) -> Fn:
    if g0:
        def one(ctx: Any) -> Any:
            x = a0(ctx)
            return nr if x is None else impl(ctx, x)
        return one
    return lambda ctx: impl(ctx, a0(ctx))


def _call_two(impl: Callable[..., Any], nr: Any, fns: list[Fn], guard: list[bool]) -> Fn:
    a0, a1 = fns
    g0, g1 = guard

    def two(ctx: Any) -> Any:
        x = a0(ctx)
        if x is None and g0:
            return nr
        y = a1(ctx)
        if y is None and g1:
            return nr
        return impl(ctx, x, y)
    return two


def _call_many(impl: Callable[..., Any], nr: Any, fns: list[Fn], guard: list[bool]) -> Fn:
    def many(ctx: Any) -> Any:
        vals = []
        for f, g in zip(fns, guard):
            v = f(ctx)
            if v is None and g:
                return nr
            vals.append(v)
        return impl(ctx, *vals)
    return many


def _all_of(fns: list[Fn]) -> Fn:
    """``fn(ctx)``: every one of ``fns`` (two or three unrolled), as a bool."""
    if len(fns) == 1:
        f0 = fns[0]
        return lambda ctx: bool(f0(ctx))
    if len(fns) == 2:
        f0, f1 = fns
        return lambda ctx: bool(f0(ctx)) and bool(f1(ctx))
    if len(fns) == 3:
        f0, f1, f2 = fns
        return lambda ctx: bool(f0(ctx)) and bool(f1(ctx)) and bool(f2(ctx))
    return lambda ctx: all(f(ctx) for f in fns)


def _any_of(fns: list[Fn]) -> Fn:
    """``fn(ctx)``: any one of ``fns`` (two or three unrolled), as a bool."""
    if len(fns) == 1:
        f0 = fns[0]
        return lambda ctx: bool(f0(ctx))
    if len(fns) == 2:
        f0, f1 = fns
        return lambda ctx: bool(f0(ctx)) or bool(f1(ctx))
    if len(fns) == 3:
        f0, f1, f2 = fns
        return lambda ctx: bool(f0(ctx)) or bool(f1(ctx)) or bool(f2(ctx))
    return lambda ctx: any(f(ctx) for f in fns)

