"""Static folding: what a checked expression is worth before any game is played.

The second interpretation of the checked tree (the first is :mod:`gouji_dsl.lang.compile`); both
use the operator table (:mod:`gouji_dsl.lang.ops`), so wherever folding says "constant", running
the compiled closure gives that constant (a property test checks it). The ruleset analysis
(:mod:`gouji_dsl.ruleset.analysis`: "can this rule ever fire?", which the lint's findings read) and
the rule graph's pruning use it.

An abstract value is :class:`K` (known: ``v``) or :class:`U` (unknown, with what is known about
it: never none, a finite domain, a key naming the sub-expression, constraints that must hold when
a truth value is true, so that ``hand_size(x) > 0 and 0 == hand_size(x)`` folds to false).
:class:`Facts` are what the analysis knows about the ruleset beyond its settings (flags and
counters some rule can set, tribute kinds, settings to treat as unknown).
"""
from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gouji_dsl.lang import ast as A
from gouji_dsl.lang.ops import OPS, EvalError, Semantics, attr_impl, index_impl

__all__ = ["K", "U", "Abs", "Facts", "Folder", "truthy", "UNKNOWN", "UBOOL"]


@dataclass(frozen=True)
class K:
    """A known value."""

    v: Any


@dataclass(frozen=True)
class U:
    """An unknown value: ``nonnull`` (never none), ``domain`` (the values it can take, when finite
    and known), ``key`` (canonical text of the sub-expression, for comparisons in an and-chain),
    ``cons`` (for a truth value: what must hold when it is true, as ``(key, op, value)``)."""

    nonnull: bool = False
    domain: frozenset[Any] | None = None
    key: str | None = None
    cons: tuple[tuple[str, str, Any], ...] = ()


Abs = K | U
UNKNOWN = U()
UBOOL = U(nonnull=True)


@dataclass(frozen=True)
class Facts:
    """What folding may assume. ``flags`` / ``counters``: the names some rule (or the engine) can
    set (None: any); ``tribute_kinds``: the values ``kind`` can take (None: any); ``unknown_settings``:
    settings (``NAME`` or ``NAME.KEY``) to treat as unknown; ``maybe_none``: names (variables,
    play attributes, functions) that may be none; ``hook_maybe_none``: context variables that may
    be none in this hook."""

    flags: frozenset[str] | None = None
    counters: frozenset[str] | None = None
    tribute_kinds: frozenset[str] | None = None
    unknown_settings: frozenset[str] = frozenset()
    maybe_none: frozenset[str] = frozenset()
    hook_maybe_none: frozenset[str] = frozenset()


def truthy(a: Abs) -> bool | None:
    """True / False when known, None when not."""
    return bool(a.v) if isinstance(a, K) else None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def satisfiable(cons: Iterable[tuple[str, str, Any]]) -> bool:
    """Can every ``key op value`` hold at once? (Whole numbers: intervals; anything: == and !=.)"""
    by_key: dict[str, list[tuple[str, Any]]] = {}
    for k, op, v in cons:
        by_key.setdefault(k, []).append((op, v))
    return all(_one_key_satisfiable(items) for items in by_key.values())


def _one_key_satisfiable(items: list[tuple[str, Any]]) -> bool:
    """Can every ``op value`` about one key hold at once?"""
    eq = [v for op, v in items if op == "=="]
    ne = [v for op, v in items if op == "!="]
    if any(a != eq[0] for a in eq[1:]):
        return False
    if eq and eq[0] in ne:
        return False
    lo, hi = _interval(items)
    if lo > hi:
        return False
    return not (eq and _is_int(eq[0]) and not lo <= eq[0] <= hi)


def _interval(items: list[tuple[str, Any]]) -> tuple[float, float]:
    """The whole numbers the orderings (``>``, ``>=``, ``<``, ``<=`` a whole number) leave: ``lo..hi``."""
    lo: float = float("-inf")
    hi: float = float("inf")
    for op, v in items:
        if not _is_int(v):
            continue
        if op == ">":
            lo = max(lo, v + 1)
        elif op == ">=":
            lo = max(lo, v)
        elif op == "<":
            hi = min(hi, v - 1)
        elif op == "<=":
            hi = min(hi, v)
    return lo, hi


_FLIP = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_RANDOM = frozenset({"random_seat"})
MAX_INLINE = 24


class Folder:
    """Folds checked trees of one ruleset under one hook's :class:`Facts`.

    ``strength``: card kind -> strength; ``functions`` / ``play_attrs``: the vocabulary (their
    ``fold`` knowledge is used); ``definitions``: the checked definitions (inlined)."""

    def __init__(self, strength: Mapping[str, int], functions: Mapping[str, Any], play_attrs: Mapping[str, Any],
                 definitions: Mapping[str, Any], facts: Facts):
        self.strength = strength
        self.functions = functions
        self.play_attrs = play_attrs
        self.definitions = definitions
        self.facts = facts

    def fold(self, node: A.Node) -> Abs:
        """The abstract value of a checked tree."""
        return _Run(self, (), (), 0).ev(node)


class _Run:
    def __init__(self, f: Folder, env: tuple[Abs, ...], params: tuple[str, ...], depth: int):
        self.f, self.env, self.params, self.depth = f, env, params, depth

    def key(self, n: A.Node) -> str | None:
        if self.params and any(p in n.reads for p in self.params):
            return None
        if _RANDOM & n.reads:
            return None
        return A.unparse(n)

    def sem(self, n: A.Node) -> Semantics:
        return Semantics(self.f.strength, n.pos)

    def ev(self, n: A.Node) -> Abs:
        meth = getattr(self, "e_" + type(n).__name__)
        out: Abs = meth(n)
        return out

    # ------------------------------------------------------------------ atoms
    def e_Literal(self, n: A.Literal) -> Abs:
        return K(n.value)

    def e_Setting(self, n: A.Setting) -> Abs:
        unknown = self.f.facts.unknown_settings
        if n.name in unknown or (n.path and f"{n.name}.{n.path[0]}" in unknown):
            return UNKNOWN
        return K(n.value)

    def e_ListLit(self, n: A.ListLit) -> Abs:
        items = [self.ev(i) for i in n.items]
        if all(isinstance(i, K) for i in items):
            return K([i.v for i in items])  # type: ignore[union-attr]
        return U(nonnull=True)

    def e_Name(self, n: A.Name) -> Abs:
        facts = self.f.facts
        if n.ref == A.Ref.PARAM:
            return self.env[n.index] if n.index < len(self.env) else UNKNOWN
        if n.ref == A.Ref.DEFINITION:
            return self.call_def(n.name, [])
        if n.ref == A.Ref.CONTEXT:
            if n.name == "kind" and facts.tribute_kinds is not None:
                return U(nonnull=True, domain=facts.tribute_kinds, key=n.name)
            return U(nonnull=n.name not in facts.hook_maybe_none and n.name not in facts.maybe_none, key=n.name)
        return U(nonnull=n.name not in facts.maybe_none, key=n.name)

    # ------------------------------------------------------------------ postfix
    def e_Attr(self, n: A.Attr) -> Abs:
        base = self.ev(n.base)
        getter = self.f.play_attrs[n.attr].get if n.attr in self.f.play_attrs else None
        if isinstance(base, K):
            if base.v is None:
                return K(None)
            if isinstance(base.v, dict):
                try:
                    return K(attr_impl(self.sem(n), n.attr, None)(base.v))
                except EvalError:
                    return UNKNOWN
            return UNKNOWN
        if n.ref == A.Ref.PLAY_ATTR and getter is not None:
            nonnull = base.nonnull and n.attr not in self.f.facts.maybe_none
            return U(nonnull=nonnull, key=self.key(n))
        return UNKNOWN

    def e_Index(self, n: A.Index) -> Abs:
        base, key = self.ev(n.base), self.ev(n.key)
        if isinstance(base, K) and isinstance(key, K):
            try:
                return K(index_impl(self.sem(n))(base.v, key.v))
            except EvalError:
                return UNKNOWN
        if isinstance(base, K) and base.v is None or isinstance(key, K) and key.v is None:
            return K(None)
        return U(key=self.key(n))

    def call_def(self, name: str, args: list[Abs]) -> Abs:
        info = self.f.definitions.get(name)
        if info is None or info.body is None or self.depth > MAX_INLINE or len(args) != len(info.params):
            return UNKNOWN
        return _Run(self.f, tuple(args), info.params, self.depth + 1).ev(info.body)

    def e_Call(self, n: A.Call) -> Abs:
        args = [self.ev(a) for a in n.args]
        if n.ref == A.Ref.DEFINITION:
            return self.call_def(n.func, args)
        sig = self.f.functions[n.func]
        for i, a in enumerate(args):
            if not sig.accepts_none(i) and isinstance(a, K) and a.v is None:
                return K(sig.none_result)
        if sig.fold is not None:
            got = sig.fold(args, self.f.facts)
            if got is not None:
                return got
        if sig.pure and all(isinstance(a, K) for a in args):
            try:
                return K(sig.impl(None, *[a.v for a in args]))  # type: ignore[union-attr]
            except Exception:
                return UNKNOWN
        maybe_none = n.func in self.f.facts.maybe_none
        if not maybe_none and sig.none_result is None:
            maybe_none = any(not sig.accepts_none(i) and not (isinstance(a, K) or a.nonnull) for i, a in enumerate(args))
        return U(nonnull=not maybe_none, key=self.key(n))

    # ------------------------------------------------------------------ operators
    def e_Unary(self, n: A.Unary) -> Abs:
        a = self.ev(n.operand)
        if isinstance(a, K):
            try:
                return K(OPS[n.impl].make(self.sem(n))(a.v))
            except EvalError:
                return UNKNOWN
        return UBOOL if n.impl == "not" else UNKNOWN

    def e_BoolOp(self, n: A.BoolOp) -> Abs:
        vals = [self.ev(o) for o in n.operands]
        is_and = n.op == A.BoolOpKind.AND
        known = [truthy(v) for v in vals]
        if any(k is (not is_and) for k in known):
            return K(not is_and)
        rest = [v for v, k in zip(vals, known) if k is None]
        if not rest:
            return K(is_and)
        if len(rest) == 1:
            r = rest[0]
            assert isinstance(r, U)
            return r if r.nonnull or r.cons else U(nonnull=True)
        if not is_and:
            return UBOOL
        cons = tuple(c for r in rest if isinstance(r, U) for c in r.cons)
        if cons and not satisfiable(cons):
            return K(False)
        return U(nonnull=True, cons=cons)

    def e_Cond(self, n: A.Cond) -> Abs:
        c = truthy(self.ev(n.cond))
        if c is True:
            return self.ev(n.then)
        if c is False:
            return self.ev(n.other)
        a, b = self.ev(n.then), self.ev(n.other)
        if isinstance(a, K) and isinstance(b, K) and a.v == b.v and type(a.v) is type(b.v):
            return a
        nonnull = all((isinstance(x, K) and x.v is not None) or (isinstance(x, U) and x.nonnull) for x in (a, b))
        return U(nonnull=nonnull)

    def e_Binary(self, n: A.Binary) -> Abs:
        a, b = self.ev(n.left), self.ev(n.right)
        spec = OPS[n.impl]
        if isinstance(a, K) and isinstance(b, K):
            try:
                return K(spec.make(self.sem(n))(a.v, b.v))
            except EvalError:
                return UNKNOWN
        op = spec.op
        if op in _FLIP:
            return self.compare(op, a, b)
        if op in ("in", "not in"):
            return self.member(op == "not in", a, b)
        if op in ("++", "--", "&"):
            return U(nonnull=True)
        if isinstance(a, K) and a.v is None or isinstance(b, K) and b.v is None:
            return K(None)  # arithmetic: none in, none out
        return UNKNOWN

    def compare(self, op: str, a: Abs, b: Abs) -> Abs:
        if isinstance(a, K):
            a, b, op = b, a, _FLIP[op]
        if not isinstance(b, K):
            return UBOOL
        assert isinstance(a, U)
        v = b.v
        if v is None:
            if op in _ORDER:
                return K(False)
            if a.nonnull:
                return K(op == "!=")
            return UBOOL
        dom = a.domain
        if dom is not None and op in ("==", "!=") and v not in dom and str(v) not in dom:
            return K(op == "!=")
        if a.key is not None and (_is_int(v) or op in ("==", "!=")):
            return U(nonnull=True, cons=((a.key, op, v),))
        return UBOOL

    def member(self, negate: bool, a: Abs, b: Abs) -> Abs:
        if isinstance(b, K):
            m = b.v
            if not m:
                return K(negate)
            if isinstance(a, U) and a.domain is not None:
                inside = {x for x in a.domain if x in m}
                if not inside:
                    return K(negate)
                if inside == set(a.domain):
                    return K(not negate)
        return UBOOL
