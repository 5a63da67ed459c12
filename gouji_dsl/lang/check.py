"""The type checker: resolves every name of a parsed expression against a :class:`Scope` and
returns the same tree with every node's ``type`` (and ``ref`` / ``impl``) filled in.

It is the one place that decides what an expression means: which operator-table entry an
operator is (:mod:`gouji_dsl.lang.ops`), that ``settings.filler_rank < 'A'`` compares ranks, that
``'Z'`` is not a card of the ruleset, that ``'worst'`` is not a place, that ``seat`` is not known
when the ``gouji`` question is asked. Settings are constants here (``settings.X`` becomes a
:class:`~gouji_dsl.lang.ast.Setting` node holding its typed value).

Problems are raised as :class:`~gouji_dsl.lang.parse.ExprError` (offset into the text, hint, code).
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gouji_dsl.diagnostics import Code, SourcePos
from gouji_dsl.i18n import _
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.ops import OpSpec, resolve_binary, resolve_unary
from gouji_dsl.lang.parse import ExprError
from gouji_dsl.lang.types import (
    ANY,
    BOOL,
    INT,
    NONE,
    PLAY,
    RANK,
    SEAT,
    Enum,
    Int,
    ListOf,
    MapOf,
    Nullable,
    Record,
    Type,
    assignable,
    category,
    join,
    strip,
)

__all__ = ["VarSig", "FnSig", "DefInfo", "Scope", "Definitions", "check", "closest"]


@dataclass(frozen=True)
class VarSig:
    """A name an expression may read: its type, ``get(ctx)``, a sentence, and whether it reads the
    game (``game``: not available where there is no game, e.g. the ``gouji`` question)."""

    type: Type
    get: Callable[[Any], Any]
    doc: str = ""
    game: bool = False


@dataclass(frozen=True)
class FnSig:
    """A vocabulary function.

    ``params``: parameter types; ``returns``: result type; ``impl(ctx, *args)``: the function.
    Every function is total: an argument that is ``none`` (where ``takes_none`` is not true for its
    position) gives ``none_result`` without calling ``impl``. ``game``: reads the game state;
    ``pure``: the result depends only on the arguments (so the folder may compute it);
    ``fold(args, facts)``: optional static knowledge for the folder (see :mod:`gouji_dsl.lang.fold`);
    ``flag_arg`` / ``counter_arg``: the position of an argument that names a flag / counter;
    ``typer(arg types)``: the result type when it depends on the arguments (``first``, ``coalesce``)."""

    params: tuple[Type, ...]
    returns: Type
    impl: Callable[..., Any]
    doc: str = ""
    none_result: Any = None
    takes_none: tuple[bool, ...] = ()
    game: bool = True
    pure: bool = False
    fold: Callable[..., Any] | None = None
    flag_arg: int | None = None
    counter_arg: int | None = None
    names: tuple[str, ...] = ()
    typer: Callable[[list[Type]], Type] | None = None

    def accepts_none(self, i: int) -> bool:
        return i < len(self.takes_none) and self.takes_none[i]

    def signature(self, name: str) -> str:
        args = self.names or tuple(str(p) for p in self.params)
        return f"{name}({', '.join(args)}) -> {self.returns}"


@dataclass(frozen=True)
class DefInfo:
    """A checked definition: ``params``, the checked ``body`` (None when it has an error), its
    ``type``, the free names it reads (through other definitions too, parameters excluded) and
    where it was written."""

    name: str
    params: tuple[str, ...]
    body: A.Node | None
    type: Type
    reads: frozenset[str]
    pos: SourcePos


class Definitions(Mapping[str, DefInfo]):
    """The ruleset's definitions, checked on first use (so their order does not matter).

    ``sources``: name -> (params, parsed body or the ExprError of its parse); ``scope_for(params)``
    gives the scope a body is checked in. Errors are kept in ``errors`` (name -> ExprError), each
    reported once, at the definition; a reference to a broken definition has type ``any``."""

    def __init__(self, sources: Mapping[str, tuple[tuple[str, ...], A.Node | ExprError, SourcePos]],
                 scope_for: Callable[[tuple[str, ...]], Scope]):
        self.sources = sources
        self.scope_for = scope_for
        self.done: dict[str, DefInfo] = {}
        self.errors: dict[str, ExprError] = {}
        self.active: list[str] = []

    def __getitem__(self, name: str) -> DefInfo:
        if name in self.done:
            return self.done[name]
        params, body, pos = self.sources[name]
        if name in self.active:
            cycle = self.active[self.active.index(name):] + [name]
            raise ExprError(_("definition {name!r} refers to itself: ").format(name=name) + " -> ".join(cycle), 0,
                            _("a definition cannot use itself, directly or through others"), Code.DEFINITION_CYCLE)
        if isinstance(body, ExprError):
            self.errors.setdefault(name, body)
            info = DefInfo(name, params, None, ANY, frozenset(), pos)
            self.done[name] = info
            return info
        self.active.append(name)
        try:
            scope = self.scope_for(params)
            scope.definitions = self
            typed = check(body, scope)
            reads = set(typed.reads) - set(params)
            for d in list(reads):
                if d in self.sources and d != name:
                    reads |= self[d].reads
            info = DefInfo(name, params, typed, typed.type or ANY, frozenset(reads), pos)
        except ExprError as e:
            if e.code == Code.DEFINITION_CYCLE and len(self.active) > 1:
                raise
            self.errors.setdefault(name, e)
            info = DefInfo(name, params, None, ANY, frozenset(), pos)
        finally:
            self.active.pop()
        self.done[name] = info
        return info

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def __contains__(self, name: object) -> bool:
        return name in self.sources


@dataclass
class Scope:
    """Everything an expression may use.

    ``variables``: names available here; ``unavailable``: names known elsewhere, with the reason
    they cannot be used here (context variables of other questions, game names where there is no
    game); ``functions``; ``play_attrs``: attributes of a play; ``settings``: name -> (type, typed
    value); ``kinds``: the card kinds in rank order; ``n_seats``; ``definitions``; ``params``: the
    parameters of the definition being checked."""

    variables: Mapping[str, VarSig]
    functions: Mapping[str, FnSig]
    play_attrs: Mapping[str, VarSig]
    settings: Mapping[str, tuple[Type, Any]] = field(default_factory=dict)
    kinds: tuple[str, ...] = ()
    n_seats: int | None = None
    definitions: Mapping[str, DefInfo] = field(default_factory=dict)
    params: tuple[str, ...] = ()
    unavailable: Mapping[str, str] = field(default_factory=dict)

    def all_names(self) -> list[str]:
        return sorted(set(self.variables) | set(self.functions) | set(self.definitions) | set(self.params) | {"settings"})


def closest(word: str, candidates: Any) -> str | None:
    """``did you mean 'x'?`` for the closest candidate, or None."""
    m = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return _("did you mean {m!r}?").format(m=m[0]) if m else None


def _err(node: A.Node, message: str, hint: str | None, code: str) -> ExprError:
    return ExprError(message, node.start, hint, code, node.end)


def _typed(node: A.Node, t: Type, **changes: Any) -> A.Node:
    return replace(node, type=t, **changes)


_BOOLISH = ("bool", "any", "none")


class _Checker:
    def __init__(self, scope: Scope):
        self.scope = scope
        self.kinds = set(scope.kinds)

    # ------------------------------------------------------------------ dispatch
    def check(self, n: A.Node) -> A.Node:
        meth = getattr(self, "c_" + type(n).__name__)
        out: A.Node = meth(n)
        return out

    # ------------------------------------------------------------------ words: ranks and enumerations
    def _words(self, n: A.Node) -> Iterator[A.Literal]:
        """The text literals a value may come from (through lists and both branches of an if)."""
        if isinstance(n, A.Literal) and isinstance(n.value, str):
            yield n
        elif isinstance(n, A.Cond):
            yield from self._words(n.then)
            yield from self._words(n.other)
        elif isinstance(n, A.ListLit):
            for i in n.items:
                yield from self._words(i)

    def _as_ranks(self, n: A.Node) -> A.Node:
        """``n`` (text literals in it) used as card kinds: each word must be a kind of the ruleset."""
        for lit in self._words(n):
            assert isinstance(lit.value, str)
            if self.kinds and lit.value not in self.kinds:
                hint = "card kinds: " + " ".join(self.scope.kinds)
                if lit.value == "10":
                    hint = "10 is written T; " + hint
                elif lit.value.upper() in self.kinds:
                    hint = _("kinds are upper case: {lit!r}; ").format(lit=lit.value.upper()) + hint
                elif len(lit.value) > 1 and len(set(lit.value)) == 1 and lit.value[0] in self.kinds:
                    hint = (_("one kind at a time: {lit!r} (count them with cards_of(play, "
                            "{lit!r}) >= {n}); ").format(lit=lit.value[0], n=len(lit.value)) + hint)
                raise _err(lit, _("{value!r} is not a card of this ruleset").format(value=lit.value), hint, Code.NOT_A_CARD)
        return self._retype_words(n, RANK)

    def _retype_words(self, n: A.Node, t: Type) -> A.Node:
        if isinstance(n, A.Literal) and isinstance(n.value, str):
            return _typed(n, t)
        if isinstance(n, A.Cond):
            then, other = self._retype_words(n.then, t), self._retype_words(n.other, t)
            return replace(n, then=then, other=other, type=join(then.type or ANY, other.type or ANY) or ANY)
        if isinstance(n, A.ListLit) and n.items:
            items = tuple(self._retype_words(i, t) for i in n.items)
            elem: Type = NONE
            for i in items:
                elem = join(elem, i.type or ANY) or ANY
            return replace(n, items=items, type=ListOf(elem))
        return n

    def _in_enum(self, n: A.Node, enum: Enum, what: str) -> None:
        for lit in self._words(n):
            if lit.value not in enum.values:
                hint = closest(str(lit.value), enum.values)
                raise _err(lit, _("{value!r} is not allowed as {what}").format(value=lit.value, what=what),
                           (hint + " " if hint else "") + _("allowed: ") + ", ".join(map(repr, enum.values)), Code.VALUE_NOT_ALLOWED)

    def _seat_literal(self, n: A.Node) -> None:
        if isinstance(n, A.Literal) and isinstance(n.value, int) and not isinstance(n.value, bool) \
                and self.scope.n_seats is not None and not 1 <= n.value <= self.scope.n_seats:
            raise _err(n, _("there is no seat {value} (seats are 1 to {n_seats})").format(
                value=n.value, n_seats=self.scope.n_seats), None, Code.VALUE_NOT_ALLOWED)

    def expect(self, n: A.Node, want: Type, what: str) -> A.Node:
        """Check that the checked node ``n`` fits where ``want`` is expected (``what`` names the
        place in messages); text literals used as ranks or words of an enumeration are checked."""
        got = n.type or ANY
        w = strip(want)
        if isinstance(w, Enum) and isinstance(strip(got), Enum):
            self._in_enum(n, w, what)  # a word outside the set: ValueNotAllowed at the word
        if not assignable(got, w):
            hint = None
            if {category(got), category(w)} == {"rank", "int"}:
                hint = _("ranks are quoted text: write '3', not 3 (in settings too)")
            elif category(w) == "bool":
                hint = _("compare it, e.g. x > 0 or x == none")
            raise _err(n, _("{what}: expected {w}, got {got}").format(what=what, w=w, got=got), hint, Code.TYPE_MISMATCH)
        if category(w) == "rank" or isinstance(w, ListOf) and category(w.elem) == "rank":
            return self._as_ranks(n)
        if isinstance(w, Enum):
            self._in_enum(n, w, what)
        if isinstance(w, ListOf) and isinstance(strip(w.elem), Enum):
            self._in_enum(n, strip(w.elem), what)  # type: ignore[arg-type]
        if category(w) == "seat":
            self._seat_literal(n)
        return n

    # ------------------------------------------------------------------ atoms
    def c_Literal(self, n: A.Literal) -> A.Node:
        v = n.value
        if v is None:
            return _typed(n, NONE)
        if isinstance(v, bool):
            return _typed(n, BOOL)
        if isinstance(v, int):
            return _typed(n, INT)
        return _typed(n, Enum((v,)))

    def c_ListLit(self, n: A.ListLit) -> A.Node:
        items = tuple(self.check(i) for i in n.items)
        elem: Type = NONE
        for i in items:
            j = join(elem, i.type or ANY)
            if j is None:
                raise _err(i, _("a list holds values of one type: {type} does not mix with {elem}").format(
                    type=i.type, elem=elem), None, Code.TYPE_MISMATCH)
            elem = j
        return _typed(n, ListOf(elem), items=items)

    def c_Name(self, n: A.Name) -> A.Node:
        sc, name = self.scope, n.name
        if name in sc.params:
            return _typed(n, ANY, ref=A.Ref.PARAM, index=sc.params.index(name))
        if name in sc.variables:
            v = sc.variables[name]
            return _typed(n, v.type, ref=A.Ref.GLOBAL if v.game else A.Ref.CONTEXT)
        if name in sc.unavailable:
            raise _err(n, _("{name!r} is not known here").format(name=name), sc.unavailable[name], Code.NAME_NOT_AVAILABLE)
        if name in sc.definitions:
            info = self._definition(n, name)
            if info.params:
                raise _err(n, _("{name!r} takes {n} argument(s): write {name}({join})").format(
                    name=name, n=len(info.params), join=', '.join(info.params)), None,
                           Code.WRONG_ARGUMENT_COUNT)
            return _typed(n, info.type, ref=A.Ref.DEFINITION)
        if name == "settings":
            raise _err(n, _("write settings.NAME to read a setting"), _("settings: ") + ", ".join(sorted(sc.settings)[:12]),
                       Code.UNKNOWN_SETTING)
        if name in sc.functions:
            raise _err(n, _("{name!r} is a function: call it as {name}(...)").format(name=name), sc.functions[name].signature(name),
                       Code.TYPE_MISMATCH)
        raise _err(n, _("unknown name {name!r}").format(name=name), closest(name, sc.all_names()), Code.UNKNOWN_NAME)

    def _definition(self, n: A.Node, name: str) -> DefInfo:
        info = self.scope.definitions[name]
        bad = sorted(r for r in info.reads if r in self.scope.unavailable)
        if bad:
            raise _err(n, _("definition {name!r} reads {bad!r}, which is not known here").format(name=name, bad=bad[0]),
                       self.scope.unavailable[bad[0]], Code.NAME_NOT_AVAILABLE)
        return info

    def c_Setting(self, n: A.Setting) -> A.Node:
        sc = self.scope
        if n.name not in sc.settings:
            hint = closest(n.name, sc.settings) or "settings: " + ", ".join(sorted(sc.settings))
            raise _err(n, _("unknown setting {name!r}").format(name=n.name), hint, Code.UNKNOWN_SETTING)
        t, v = sc.settings[n.name]
        return _typed(n, t, value=v)

    # ------------------------------------------------------------------ postfix
    def _key_of_setting(self, n: A.Node, base: A.Setting, key: Any, key_node: A.Node) -> A.Node:
        """``settings.X.key`` / ``settings.X[key]`` with a constant key: a constant."""
        t = strip(base.type or ANY)
        label = "settings." + ".".join([base.name, *map(str, base.path)])
        if isinstance(t, Record):
            ft = t.field(str(key))
            if ft is None:
                raise _err(key_node, _("{label} has no key {key!r}").format(
                    label=label, key=key), closest(str(key), t.names) or _("keys: ") + ", ".join(t.names),
                           Code.MISSING_KEY)
            v = None if base.value is None else base.value.get(str(key))
            return replace(base, path=base.path + (str(key),), value=v, type=ft, pos=n.pos, start=n.start, end=n.end,
                           reads=n.reads)
        if isinstance(t, MapOf):
            if isinstance(key, str) and category(t.key) == "rank":
                self._as_ranks(key_node)
            if base.value is None:
                return replace(base, path=base.path + (key,), value=None, type=t.value, pos=n.pos, start=n.start,
                               end=n.end, reads=n.reads)
            if key not in base.value:
                keys = ", ".join(map(str, base.value)) or "none"
                raise _err(key_node, _("{label} has no key {key!r}").format(
                    label=label, key=key), closest(str(key), map(str, base.value)) or _("keys: {keys}").format(keys=keys),
                           Code.MISSING_KEY)
            return replace(base, path=base.path + (key,), value=base.value[key], type=t.value, pos=n.pos, start=n.start,
                           end=n.end, reads=n.reads)
        raise _err(key_node, _("{label} is {t}, it has no keys").format(label=label, t=t), None, Code.TYPE_MISMATCH)

    def c_Attr(self, n: A.Attr) -> A.Node:
        base = self.check(n.base)
        bt = strip(base.type or ANY)
        if isinstance(base, A.Setting) and isinstance(bt, (Record, MapOf)):
            return self._key_of_setting(n, base, n.attr, n)
        c = category(bt)
        attrs = self.scope.play_attrs
        if c == "play":
            if n.attr not in attrs:
                raise _err(n, _("a play has no attribute {attr!r}").format(attr=n.attr),
                           closest(n.attr, attrs) or _("attributes: ") + ", ".join(sorted(attrs)), Code.UNKNOWN_ATTRIBUTE)
            return _typed(n, attrs[n.attr].type, base=base, ref=A.Ref.PLAY_ATTR)
        if isinstance(bt, Record):
            ft = bt.field(n.attr)
            if ft is None:
                raise _err(n, _("no key {attr!r} here").format(attr=n.attr), closest(n.attr, bt.names) or _("keys: ") + ", ".join(bt.names),
                           Code.MISSING_KEY)
            return _typed(n, ft, base=base, ref=A.Ref.KEY)
        if isinstance(bt, MapOf) and category(bt.key) in ("text", "rank", "any"):
            return _typed(n, bt.value, base=base, ref=A.Ref.KEY)
        if c in ("any", "none"):
            if n.attr in attrs:
                return _typed(n, attrs[n.attr].type, base=base, ref=A.Ref.PLAY_ATTR)
            return _typed(n, ANY, base=base, ref=A.Ref.KEY)
        raise _err(n, _("a value of type {bt} has no attribute {attr!r}").format(bt=bt, attr=n.attr), None, Code.UNKNOWN_ATTRIBUTE)

    def c_Index(self, n: A.Index) -> A.Node:
        base = self.check(n.base)
        key = self.check(n.key)
        bt = strip(base.type or ANY)
        kc = key if isinstance(key, (A.Literal, A.Setting)) else None
        if isinstance(base, A.Setting) and isinstance(bt, (Record, MapOf)) and kc is not None:
            kv = kc.value if isinstance(kc, A.Literal) else kc.value
            if kv is not None and not isinstance(kv, (dict, list, bool)):
                return self._key_of_setting(n, base, kv, key)
        c = category(bt)
        if isinstance(bt, MapOf):
            key = self.expect(key, bt.key, _("the key"))
            return _typed(n, bt.value, base=base, key=key)
        if isinstance(bt, Record):
            key = self.expect(key, Enum(bt.names), _("the key"))
            vt: Type = NONE
            for _field, ft in bt.fields:
                vt = join(vt, ft) or ANY
            return _typed(n, vt, base=base, key=key)
        if isinstance(bt, ListOf):
            key = self.expect(key, INT, _("the position"))
            return _typed(n, bt.elem, base=base, key=key)
        if c in ("any", "none"):
            return _typed(n, ANY if c == "any" else NONE, base=base, key=key)
        raise _err(n, _("cannot index a value of type {bt}").format(bt=bt), None, Code.TYPE_MISMATCH)

    def c_Call(self, n: A.Call) -> A.Node:
        sc, name = self.scope, n.func
        args = tuple(self.check(a) for a in n.args)
        if name in sc.definitions:
            info = self._definition(n, name)
            if len(args) != len(info.params):
                raise _err(n, _("{name}() takes {n} argument(s), got {n2}").format(name=name, n=len(info.params), n2=len(args)),
                           _("write {name}({join})").format(name=name, join=', '.join(info.params)), Code.WRONG_ARGUMENT_COUNT)
            return _typed(n, info.type, args=args, ref=A.Ref.DEFINITION)
        if name in sc.unavailable:
            raise _err(n, _("{name}() is not known here").format(name=name), sc.unavailable[name], Code.NAME_NOT_AVAILABLE)
        if name not in sc.functions:
            if name in sc.variables or name in sc.params:
                raise _err(n, _("{name!r} is not a function: write it without parentheses").format(name=name), None, Code.TYPE_MISMATCH)
            raise _err(n, _("unknown name {name!r}").format(name=name), closest(name, list(sc.functions) + list(sc.definitions)),
                       Code.UNKNOWN_FUNCTION)
        sig = sc.functions[name]
        if len(args) != len(sig.params):
            raise _err(n, _("{name}() takes {n} argument(s), got {n2}").format(name=name, n=len(sig.params), n2=len(args)),
                       _("{sig}: {doc}").format(sig=sig.signature(name), doc=sig.doc), Code.WRONG_ARGUMENT_COUNT)
        out = []
        for i, (a, pt) in enumerate(zip(args, sig.params)):
            try:
                out.append(self.expect(a, pt, _("argument {i} of {name}()").format(i=i + 1, name=name)))
            except ExprError as e:
                if e.code == Code.TYPE_MISMATCH and e.hint is None:
                    e.hint = f"{sig.signature(name)}: {sig.doc}"
                raise
        returns = sig.typer([a.type or ANY for a in out]) if sig.typer is not None else sig.returns
        return _typed(n, returns, args=tuple(out), ref=A.Ref.FUNCTION)

    # ------------------------------------------------------------------ operators
    def _bool(self, n: A.Node) -> A.Node:
        c = self.check(n)
        if category(c.type or ANY) not in _BOOLISH:
            raise _err(c, _("expected a true/false value here, got {type}").format(type=c.type), _("compare it, e.g. x > 0 or x == none"),
                       Code.TYPE_MISMATCH)
        return c

    def c_Unary(self, n: A.Unary) -> A.Node:
        a = self._bool(n.operand) if n.op == A.UnOp.NOT else self.check(n.operand)
        spec = resolve_unary(n.op, a.type or ANY)
        if isinstance(spec, str):
            raise _err(n, spec, None, Code.TYPE_MISMATCH)
        return _typed(n, spec.result or ANY, operand=a, impl=spec.name)

    def c_BoolOp(self, n: A.BoolOp) -> A.Node:
        ops = tuple(self._bool(o) for o in n.operands)
        return _typed(n, BOOL, operands=ops)

    def c_Cond(self, n: A.Cond) -> A.Node:
        cond = self._bool(n.cond)
        then, other = self.check(n.then), self.check(n.other)
        t = join(then.type or ANY, other.type or ANY)
        if t is None:
            raise _err(n, _("both branches must have the same type: {type} vs {type2}").format(
                type=then.type, type2=other.type), None, Code.TYPE_MISMATCH)
        return _typed(n, t, then=then, cond=cond, other=other)

    def c_Binary(self, n: A.Binary) -> A.Node:
        a, b = self.check(n.left), self.check(n.right)
        op = n.op
        if op in (A.BinOp.EQ, A.BinOp.NE, A.BinOp.LT, A.BinOp.LE, A.BinOp.GT, A.BinOp.GE):
            a, b = self._comparison(n, a, b)
        elif op in (A.BinOp.IN, A.BinOp.NOT_IN):
            a = self._membership(n, a, b)
        elif op in (A.BinOp.DIV, A.BinOp.FLOORDIV, A.BinOp.MOD) and _const_value(b) == 0:
            raise _err(b, _("division by zero"), _("the divisor is always 0 here"), Code.DIVISION_BY_ZERO)
        spec = resolve_binary(op, a.type or ANY, b.type or ANY)
        if isinstance(spec, str):
            bad = a if category(a.type or ANY) not in ("int", "seat", "list", "any", "none") else b
            raise _err(bad if op.value in "+-*/%//++--&" else n, spec, None, Code.TYPE_MISMATCH)
        return _typed(n, self._result(spec, a, b), left=a, right=b, impl=spec.name)

    def _comparison(self, n: A.Binary, a: A.Node, b: A.Node) -> tuple[A.Node, A.Node]:
        """The operands of a comparison, checked: comparable types, ranks as ranks, words of an
        enumeration, seat numbers."""
        ta, tb = a.type or ANY, b.type or ANY
        ca, cb = category(ta), category(tb)
        if not (assignable(ta, tb) or assignable(tb, ta)):
            for e, named, lit in ((strip(ta), a, b), (strip(tb), b, a)):  # a word outside the words a name can be
                if isinstance(e, Enum) and not isinstance(named, A.Literal) and isinstance(lit, A.Literal) \
                        and isinstance(lit.value, str):
                    self._in_enum(lit, e, _("a value of {e}").format(e=e))
            hint = _("ranks are quoted text: write '3', not 3 (in settings too)") if {ca, cb} == {"rank", "int"} else None
            raise _err(n, _("cannot compare {ta} with {tb}").format(ta=ta, tb=tb), hint, Code.TYPE_MISMATCH)
        if ca == "rank" or cb == "rank":
            a, b = (self._as_ranks(a) if ca != "rank" else a), (self._as_ranks(b) if cb != "rank" else b)
        elif isinstance(strip(ta), Enum) and not isinstance(a, A.Literal):
            self._in_enum(b, strip(ta), _("a value of {type}").format(type=a.type))  # type: ignore[arg-type]
        elif isinstance(strip(tb), Enum) and not isinstance(b, A.Literal):
            self._in_enum(a, strip(tb), _("a value of {type}").format(type=b.type))  # type: ignore[arg-type]
        if ca == "seat":
            self._seat_literal(b)
        if cb == "seat":
            self._seat_literal(a)
        return a, b

    def _membership(self, n: A.Binary, a: A.Node, b: A.Node) -> A.Node:
        """The left operand of ``in`` / ``not in``, checked against what the right one holds."""
        ta, tb = a.type or ANY, b.type or ANY
        bt = strip(tb)
        want = bt.elem if isinstance(bt, ListOf) else bt.key if isinstance(bt, MapOf) else None
        if want is None and category(bt) == "text" and isinstance(n.right, A.Attr) \
                and n.right.attr == "cards" and isinstance(a, A.Literal):
            src, w = _src_base(n.right), str(a.value)
            ex = f"cards_of({src}, {w[0]!r}) >= {len(w)}" if w and len(set(w)) == 1 else f"cards_of({src}, 'R') >= 1"
            raise _err(n, _("'in' needs a list or a map on the right, not text: a play's cards are not "
                       "searched as text"), _("count the cards of a kind: {ex} (jokers of each kind too; "
                       "{src}.jokers counts all jokers)").format(ex=ex, src=src), Code.TYPE_MISMATCH)
        if want is not None:
            if not (assignable(ta, want) or assignable(want, ta)):
                raise _err(a, _("{ta} cannot be in {bt}").format(ta=ta, bt=bt), None, Code.TYPE_MISMATCH)
            if category(want) == "rank":
                a = self._as_ranks(a)
        return a

    def _result(self, spec: OpSpec, a: A.Node, b: A.Node) -> Type:
        if spec.result is not None:
            return spec.result
        ta, tb = strip(a.type or ANY), strip(b.type or ANY)
        if spec.name in ("remove", "keep"):
            return ta if isinstance(ta, ListOf) else ListOf(ANY)
        t = join(ta, tb)
        return t if isinstance(t, ListOf) else ListOf(ANY)


def _src_base(n: A.Attr) -> str:
    """The name a play attribute is read from (``top`` of ``top.cards``), for hints."""
    return n.base.name if isinstance(n.base, A.Name) else "play"


def _const_value(n: A.Node) -> Any:
    if isinstance(n, A.Literal):
        return n.value
    if isinstance(n, A.Setting):
        return n.value
    return ...


def check(node: A.Node, scope: Scope, *, want: Type | None = None, what: str | None = None) -> A.Node:
    """Type-check the parsed ``node`` in ``scope``; returns the checked tree. ``want``: the type the
    place needs (``bool`` for a guard, ``[seat]`` for an order, an enumeration for a place...).
    Raises :class:`~gouji_dsl.lang.parse.ExprError`."""
    c = _Checker(scope)
    what = what or _("this expression")
    out = c.check(node)
    if want is not None:
        got = out.type or ANY
        if isinstance(strip(want), Enum) and isinstance(strip(got), Enum):
            c._in_enum(out, strip(want), what)  # type: ignore[arg-type]
        if not assignable(got, want):
            hint = _("compare it, e.g. x > 0 or x == none") if category(want) == "bool" else None
            raise ExprError(_("expected {strip}, but {what} gives {got}").format(
                strip=strip(want), what=what, got=got), out.start, hint, Code.TYPE_MISMATCH, out.end)
        out = c.expect(out, want, what)
    return out


_KEEP = (Int, Nullable, PLAY, SEAT)


NAME_CODES = frozenset({Code.UNKNOWN_NAME, Code.UNKNOWN_FUNCTION, Code.UNKNOWN_SETTING, Code.NAME_NOT_AVAILABLE})
"""The codes of a name an expression cannot use (reported for every such name, see :func:`unknown_names`)."""


def _nodes(node: A.Node) -> Iterator[A.Node]:
    """``node`` and every node below it, in text order."""
    from dataclasses import fields
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        below: list[A.Node] = []
        for f in fields(n):
            v = getattr(n, f.name)
            if isinstance(v, A.Node):
                below.append(v)
            elif isinstance(v, tuple):
                below.extend(x for x in v if isinstance(x, A.Node))
        stack.extend(reversed(below))


def unknown_names(node: A.Node, scope: Scope) -> list[ExprError]:
    """Every name of the parsed ``node`` that ``scope`` does not know (a variable, a function, a
    setting, a definition), each as the error :func:`check` would raise for it, in text order: the
    checker stops at the first problem, and an expression with three unknown names has three."""
    out: list[ExprError] = []
    c = _Checker(scope)
    for n in _nodes(node):
        try:
            if isinstance(n, A.Name | A.Setting):
                c.check(n)
            elif isinstance(n, A.Call) and n.func not in scope.functions and n.func not in scope.definitions:
                c.check(replace(n, args=()))
        except ExprError as e:
            if e.code in NAME_CODES:
                out.append(e)
    return sorted(out, key=lambda e: e.offset)
