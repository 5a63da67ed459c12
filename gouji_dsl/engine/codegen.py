"""The generator: a compiled :class:`~gouji_dsl.ruleset.graph.RuleGraph` → one Python module per
ruleset (its play-out engine).

The module is the template :mod:`gouji_dsl.engine.playout` (the interpreter's game loop) with its
stub block replaced by the ruleset's tables and every hook as a straight-line function: settings
folded into constants, definitions inlined, vocabulary functions written out as table lookups
(``opposite(seat)`` → ``OPP[seat]``), each rule preceded by a comment with its id and file:line.
Expressions are emitted from the rules' checked trees (:mod:`gouji_dsl.lang.ast`, the trees the
closure compiler :mod:`gouji_dsl.lang.compile` and the folder :mod:`gouji_dsl.lang.fold` walk): a
third interpretation of the same trees with the same semantics. Where an operator is not written
inline (the inline form is used only where the operand types make it give the same value: two
whole numbers, a seat looked up in a seat table...), the module calls the operator table's own
function (:mod:`gouji_dsl.lang.ops`), bound once to the ruleset's rank order and the operator's
position; a vocabulary function that is not written out is the vocabulary's own implementation,
called under the compiler's rule for none arguments. Value answers are checked as the
interpreter checks them (unless their form makes them valid), and a rule that fails raises the
interpreter's RuleFailed. The differential test (``tests/test_differential.py``) checks the whole
game by game.

:func:`generate` returns the source; :func:`load` compiles it (cached by a hash of the resolved
ruleset and of the generator) and returns a :class:`Generated` module, or raises
:class:`Unsupported` naming what the generator does not handle (the caller then plays with the
interpreter, and says so).
"""
from __future__ import annotations

import ast
import functools
import hashlib
import json
import math
import re
import threading
import types
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.lang import ast as A
from gouji_dsl.lang.compile import total
from gouji_dsl.lang.ops import OPS, EvalError, Semantics, attr_impl, index_impl
from gouji_dsl.lang.types import category
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.game.vocabulary import CONTEXT_VARS, FUNCTIONS, HOOKS
from gouji_dsl.ruleset.graph import RuleGraph, answer_bounds

#: bump when the generated code changes for the same ruleset (part of the cache key)
GENERATOR_VERSION = "3"

_BEGIN = "# ---- generated: begin"
_END = "# ---- generated: end"

#: hooks whose ``play`` is a candidate play (a :class:`~gouji_dsl.ruleset.game.model.Play` and whether it
#: empties the hand), not a play on the table
CANDIDATE_HOOKS = ("play", "burn_lead", "discard")
#: hooks the generated module does not ask: ``gouji`` is decided once per play signature by the card
#: model (shared with the interpreter)
NOT_ASKED = ("gouji",)


class Unsupported(Exception):
    """Something in the ruleset the generator does not turn into code; the interpreter plays it."""


# ------------------------------------------------------------------------------ emitted expressions
@dataclass(frozen=True)
class E:
    """An emitted expression: Python ``code``, the language type the interpreter's compiler gives
    it (``typ``), and what is known of it: never none (``nn``), free of side effects (``pure``),
    cheap and safe to repeat (``cheap``), a constant (``const``/``value``), a real bool (``boolish``).
    ``play``: for a play value, ``"table"`` (a TablePlay; ``code`` may be none) or ``"cand"`` (a
    candidate: ``cand`` maps each play attribute to its code)."""

    code: str
    typ: str
    nn: bool = False
    pure: bool = True
    cheap: bool = False
    const: bool = False
    value: Any = None
    boolish: bool = False
    play: str | None = None
    cand: dict[str, str] | None = None
    members: str | None = None  # a set with the same members, for 'in' / '--' / '&'
    conj: tuple[E, ...] = ()  # the operands of a conjunction (flattened)
    negates: E | None = None  # for ``not x``: x
    valid: bool = False  # a seat: none or 1..N; a list of seats: a list of 1..N (as the answer checks want)
    real_int: bool = False  # a Python int (not a bool, not a fraction) whenever it is not none
    is_list: bool = False  # a Python list whenever it is not none
    rank_ok: bool = False  # a card kind of the ruleset whenever it is not none
    p: float = 0.5  # a guess at how often a test is true (equal seats seldom, a member of a set of seats out seldom)

    @property
    def cost(self) -> int:
        """A rough cost of evaluating the code (calls weigh most), to order conjunctions."""
        return 10 * sum(1 for i, ch in enumerate(self.code) if ch == "(" and i and (self.code[i - 1].isalnum()
                                                                                 or self.code[i - 1] == "_")) \
            + len(self.code) // 16

    def and_key(self) -> float:
        """The order of a conjunction's operands: cheap tests that are often false first (cost per
        chance of deciding it)."""
        return (self.cost + 1) / max(1.0 - self.p, 0.05)

    def or_key(self) -> float:
        """The order of a disjunction's operands: cheap tests that are often true first."""
        return (self.cost + 1) / max(self.p, 0.05)

    @property
    def safe(self) -> bool:
        """Evaluating the code cannot raise (so it may be evaluated in another order, or not at all,
        without changing what the interpreter would do)."""
        return self.pure and not any(m in self.code for m in _UNSAFE)


#: calls that may raise (a rule failure) or read the game through the vocabulary
_UNSAFE = ("_OP", "_IX", "_AT", "_FN[", "_GV[", "int(", "shown_leader(", "min(", "max(", "_raise(", "_classify(",
           "KINDS[", "_S[")


#: operators of the table that cannot fail on operands of their checked types (an order of numbers:
#: false when either is none); any other bound operator, index or attribute function may fail
_NEVER_FAIL = frozenset({"lt_int", "le_int", "gt_int", "ge_int"})


def _const(v: Any, typ: str | None = None) -> E:
    t = _type_of_value(v) if typ is None or typ in ("any", "none") else typ
    return E(repr(v), t, nn=v is not None, cheap=True, const=True, value=v, boolish=isinstance(v, bool),
             real_int=isinstance(v, int) and not isinstance(v, bool), is_list=isinstance(v, list))


def _type_of_value(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "text"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, list):
        return "list"
    if v is None:
        return "none"
    return "any"


def _order(a: E, b: E) -> tuple[E, E]:
    """``a and b`` / ``a or b`` of two side-effect-free, non-raising operands: the cheaper first."""
    if a.safe and b.safe and b.cost < a.cost:
        return b, a
    return a, b


def _negate(a: E) -> E:
    """``not a`` (``not not x`` is ``x`` made a bool)."""
    if a.const:
        return _const(not a.value)
    if a.negates is not None:
        x = a.negates
        return x if x.boolish else E(f"bool({x.code})", "bool", nn=True, pure=x.pure, boolish=True, p=x.p)
    return E(f"(not {a.code})", "bool", nn=True, pure=a.pure, boolish=True, negates=a, p=1.0 - a.p)


def _conjunction(items: list[E]) -> E:
    """``a and b and ...`` (each made a bool), flattened; when every operand is side-effect free
    and cannot raise, the cheapest are tested first (the value is the same)."""
    flat: list[E] = []
    for e in items:
        flat.extend(e.conj or (e,))
    if all(e.safe for e in flat):
        flat.sort(key=E.and_key)
    code = " and ".join(e.code if e.boolish else f"bool({e.code})" for e in flat)
    return E(f"({code})", "bool", nn=True, pure=all(e.pure for e in flat), boolish=True, conj=tuple(flat),
             p=math.prod(e.p for e in flat))


#: context variables a hook does not bind read as the interpreter's ``Ctx`` defaults
_CTX_DEFAULTS: dict[str, Any] = {"seat": None, "play": None, "top": None, "beaten": None, "target": None,
                                 "leading": False, "kind": None, "card": None, "amount": 0, "choice": None,
                                 "answer": None}

#: play attributes on a TablePlay (attribute name in the language → Python attribute)
_TABLE_ATTR = {"seat": "seat", "rank": "rank", "count": "count", "carried": "carried", "filler": "filler",
               "jokers": "jokers", "pure_jokers": "play.pure_jokers", "gouji": "gouji", "cards": "play.text",
               "beaten": "beaten_seat", "over_yield": "over_yield", "yielder": "yielder",
               "empties_hand": "empties_hand", "burn": "is_burn"}
_BOOL_ATTRS = {"pure_jokers", "gouji", "over_yield", "empties_hand", "burn"}


def _cat(t: Any) -> str:
    """The coarse kind of a checked node's type (``bool int text rank seat play list map none any``)."""
    return category(t) if t is not None else "any"


def _is_int_const(e: E) -> bool:
    return e.const and isinstance(e.value, int) and not isinstance(e.value, bool)


class _Emitter:
    """Turns one checked expression tree (:mod:`gouji_dsl.lang.ast`) into an :class:`E`, in the
    environment of one hook: a third interpretation of the tree beside the closure compiler and
    the folder, with their semantics (the operator table's functions where nothing faster is
    known to give the same value)."""

    def __init__(self, gen: Generator, env: dict[str, E], params: tuple[E, ...] = (), depth: int = 0):
        self.gen = gen
        self.env = env
        self.params = params
        self.depth = depth

    def emit(self, n: A.Node) -> E:
        meth = getattr(self, "e_" + type(n).__name__, None)
        if meth is None:
            raise Unsupported(f"expression node {type(n).__name__}")
        out: E = meth(n)
        return out

    # --- constants
    def _value(self, v: Any, typ: str) -> E:
        if isinstance(v, (dict, list)):
            return E(self.gen.constant(v), typ, nn=True, cheap=True, const=True, value=v)
        return _const(v, typ)

    def _fails(self, err: Exception, typ: str) -> E:
        """A constant part that always fails: it fails where it is reached (as the compiler does)."""
        return E(f"_raise({self.gen.constant_object(err)})", typ, pure=True)

    def e_Literal(self, n: A.Literal) -> E:
        return _const(n.value, _cat(n.type))

    def e_Setting(self, n: A.Setting) -> E:
        return self._value(n.value, _cat(n.type))

    def e_ListLit(self, n: A.ListLit) -> E:
        items = [self.emit(i) for i in n.items]
        if all(i.const for i in items):
            v = [i.value for i in items]
            return E(self.gen.constant(v), "list", nn=True, cheap=True, const=True, value=v,
                     valid=all(self.gen.is_seat_value(x) for x in v), is_list=True)
        return E("[" + ", ".join(i.code for i in items) + "]", "list", nn=True, pure=all(i.pure for i in items),
                 valid=all(i.valid and i.nn for i in items), is_list=True)

    # --- names
    def e_Name(self, n: A.Name) -> E:
        if n.ref == A.Ref.PARAM:
            return self.params[n.index]
        if n.ref == A.Ref.CONTEXT:
            if n.name in self.env:
                return self.env[n.name]
            return _const(_CTX_DEFAULTS.get(n.name), _cat(n.type))
        if n.ref == A.Ref.GLOBAL:
            return self.gen.global_var(n.name)
        if n.ref == A.Ref.DEFINITION:
            return self.gen.inline_definition(n.name, [], self)
        raise Unsupported(f"name {n.name!r} ({n.ref})")

    # --- attributes and lookups
    def e_Attr(self, n: A.Attr) -> E:
        base = self.emit(n.base)
        typ = _cat(n.type)
        if n.ref == A.Ref.PLAY_ATTR and base.play is not None:
            attr = n.attr
            if base.const:  # none
                return _const(None, typ)
            if base.play == "cand":
                assert base.cand is not None
                code = base.cand[attr]
                if code in ("None", "False"):
                    return _const(None if code == "None" else False, typ)
                nn = attr != "seat" or self.env.get("seat", E("", "seat")).nn
                return E(code, typ, nn=nn, cheap=attr not in ("gouji", "cards"), boolish=attr in _BOOL_ATTRS,
                         valid=attr == "seat", rank_ok=attr == "rank", real_int=attr in _INT_ATTRS)
            a = _TABLE_ATTR[attr]
            seat_attr = attr in ("seat", "beaten", "yielder")
            if base.nn:
                nn = attr in _NN_ATTRS
                return E(f"{base.code}.{a}", typ, nn=nn, cheap=base.cheap, boolish=nn and attr in _BOOL_ATTRS,
                         valid=seat_attr, rank_ok=attr == "rank", real_int=attr in _INT_ATTRS,
                         p=0.3 if attr in _BOOL_ATTRS else 0.5)  # (a gouji, a burn, a yield... is the rarer play)
            if not base.cheap:
                raise Unsupported("an attribute of a play expression that may be none")
            return E(f"(None if {base.code} is None else {base.code}.{a})", typ, cheap=True, valid=seat_attr,
                     rank_ok=attr == "rank", real_int=attr in _INT_ATTRS)
        # a map key read by name (settings.buy.ranks, a record)
        getter = None
        if base.const:
            try:
                return self._value(attr_impl(self.gen.sem(n), n.attr, getter)(base.value), typ)
            except EvalError as e:
                return self._fails(e, typ)
        return E(f"{self.gen.attr_fn(n)}({base.code})", typ, pure=base.pure)

    def e_Index(self, n: A.Index) -> E:
        base = self.emit(n.base)
        typ = _cat(n.type)
        if base.const and base.value is None:
            return _const(None, typ)
        key = self.emit(n.key)
        if key.const and key.value is None:
            return _const(None, typ)
        if base.const and key.const:
            try:
                return self._value(index_impl(self.gen.sem(n))(base.value, key.value), typ)
            except EvalError as e:
                return self._fails(e, typ)
        return E(f"{self.gen.index_fn(n)}({base.code}, {key.code})", typ, pure=base.pure and key.pure)

    # --- calls
    def e_Call(self, n: A.Call) -> E:
        if n.ref == A.Ref.DEFINITION:
            return self.gen.inline_definition(n.func, [self.emit(a) for a in n.args], self)
        if n.ref != A.Ref.FUNCTION or n.func not in FUNCTIONS:
            raise Unsupported(f"call of {n.func!r}")
        sig = FUNCTIONS[n.func]
        args: list[E] = []
        for i, a in enumerate(n.args):
            e = self.emit(a)
            if e.const and e.value is None and not sig.accepts_none(i):
                return self._value(sig.none_result, _cat(n.type))  # a none argument: the function's none result
            args.append(e)
        if sig.pure and all(a.const for a in args):
            try:
                return self._value(total(sig)(None, *[a.value for a in args]), _cat(n.type))
            except EvalError as err:
                return self._fails(err, _cat(n.type))
        return self.gen.function(n.func, args, _cat(n.type), self)

    # --- operators
    @staticmethod
    def _b(e: E) -> str:
        return e.code if e.boolish else f"bool({e.code})"

    def e_BoolOp(self, n: A.BoolOp) -> E:
        is_and = n.op == A.BoolOpKind.AND
        items: list[E] = []
        for o in n.operands:
            e = self.emit(o)
            if e.const:
                if bool(e.value) != is_and:  # a constant false in an and (true in an or) decides it
                    return _const(not is_and)
                continue
            items.append(e)
        if not items:
            return _const(is_and)
        if len(items) == 1:
            e = items[0]
            return e if e.boolish else E(f"bool({e.code})", "bool", nn=True, pure=e.pure, boolish=True)
        if is_and:
            return _conjunction(items)
        a = list(items)
        if all(x.safe for x in a):
            a.sort(key=E.or_key)
        code = " or ".join(self._b(x) for x in a)
        return E(f"({code})", "bool", nn=True, pure=all(x.pure for x in a), boolish=True,
                 p=1.0 - math.prod(1.0 - x.p for x in a))

    def e_Unary(self, n: A.Unary) -> E:
        a = self.emit(n.operand)
        if n.impl == "not":
            return _negate(a)
        if a.const:
            try:
                return _const(OPS[n.impl].make(self.gen.sem(n))(a.value), "int")
            except EvalError as err:
                return self._fails(err, "int")
        if a.nn and a.typ == "int" and a.real_int:
            return E(f"(-{a.code})", "int", nn=True, pure=a.pure, real_int=True)
        return E(f"{self.gen.op_fn(n)}({a.code})", "int", pure=a.pure)

    def e_Cond(self, n: A.Cond) -> E:
        c = self.emit(n.cond)
        if c.const:
            return self.emit(n.then if c.value else n.other)
        a, b = self.emit(n.then), self.emit(n.other)
        if a.play == "cand" or b.play == "cand":
            raise Unsupported("a conditional over the candidate play")
        play = a.play if a.play == b.play else (a.play or b.play)
        return E(f"({a.code} if {c.code} else {b.code})", _cat(n.type), nn=a.nn and b.nn,
                 pure=a.pure and b.pure and c.pure, boolish=a.boolish and b.boolish, play=play,
                 valid=a.valid and b.valid, real_int=a.real_int and b.real_int)

    def e_Binary(self, n: A.Binary) -> E:
        spec = OPS[n.impl]
        name = spec.name
        arith = name in _ARITH
        order = name in _ORDER
        a = self.emit(n.left)
        if a.const and a.value is None and (arith or order):
            return _const(None if arith else False, "int" if arith else "bool")
        b = self.emit(n.right)
        if b.const and b.value is None and (arith or order):
            return _const(None if arith else False, "int" if arith else "bool")
        if b.const and not b.value and name in _MEMBER:
            return _const(name.startswith("not"))  # nothing is in an empty list or map
        if a.const and b.const:
            try:
                v = spec.make(self.gen.sem(n))(a.value, b.value)
            except EvalError as err:
                return self._fails(err, _cat(n.type))
            return self._value(v, _cat(n.type))
        pure = a.pure and b.pure
        if name in ("eq", "ne"):
            op = "==" if name == "eq" else "!="
            if (a.const and a.value is None) or (b.const and b.value is None):
                op = "is" if name == "eq" else "is not"  # (no value of the language equals none but none)
            return E(f"({a.code} {op} {b.code})", "bool", nn=True, pure=pure, boolish=True,
                     p=0.2 if name == "eq" else 0.8)
        if order:
            if name.endswith("_int") and a.real_int and b.real_int and a.nn and b.nn:
                return E(f"({a.code} {spec.op} {b.code})", "bool", nn=True, pure=pure, boolish=True)
            if name.endswith("_rank") and (a.const or b.const):
                # a rank against a constant rank: by strength, the constant's strength computed here
                va, vb = (self.gen.strength.get(a.value), None) if a.const else (None, self.gen.strength.get(b.value))
                if (a.const and va is not None) or (b.const and vb is not None):
                    x = b if a.const else a
                    k = va if a.const else vb
                    left, right = (repr(k), f"_S[{x.code}]") if a.const else (f"_S[{x.code}]", repr(k))
                    if x.nn and x.rank_ok:
                        return E(f"({left} {spec.op} {right})", "bool", nn=True, pure=pure, boolish=True)
            return E(f"{self.gen.op_fn(n)}({a.code}, {b.code})", "bool", nn=True, pure=pure, boolish=True)
        if name in _MEMBER:
            word = "not in" if name.startswith("not") else "in"
            hashable = a.typ in ("int", "seat", "text", "rank", "bool") or a.const
            pm = 0.7 if name.startswith("not") else 0.3
            if b.const and hashable:
                return E(f"({a.code} {word} {b.code})", "bool", nn=True, pure=pure, boolish=True, p=pm)
            if b.members and hashable:
                return E(f"({a.code} {word} {b.members})", "bool", nn=True, pure=pure, boolish=True, p=pm)
            if b.nn and hashable:
                return E(f"({a.code} {word} {b.code})", "bool", nn=True, pure=pure, boolish=True, p=pm)
            return E(f"{self.gen.op_fn(n)}({a.code}, {b.code})", "bool", nn=True, pure=pure, boolish=True)
        if name in ("concat", "remove", "keep"):
            valid = a.valid and (b.valid or name != "concat")
            lists = a.nn and a.is_list and b.nn and b.is_list
            if name == "concat" and lists:
                return E(f"({a.code} + {b.code})", "list", nn=True, pure=pure, valid=valid, is_list=True)
            if name != "concat" and a.nn and a.is_list and (b.members or (b.nn and b.is_list)):
                neg = "not " if name == "remove" else ""
                bset = b.members or b.code
                if b.members and a.cheap:  # (an empty set: nothing to drop / keep)
                    empty = a.code if name == "remove" else "[]"
                    return E(f"([_x for _x in {a.code} if _x {neg}in {bset}] if {bset} else {empty})", "list",
                             nn=True, pure=pure, valid=valid, is_list=True)
                if b.members or b.cheap:
                    return E(f"[_x for _x in {a.code} if _x {neg}in {bset}]", "list", nn=True, pure=pure,
                             valid=valid, is_list=True)
                # two lists: the template's plain difference / intersection (cannot fail)
                return E(f"{'_minus' if name == 'remove' else '_common'}({a.code}, {b.code})", "list", nn=True,
                         pure=pure, valid=valid, is_list=True)
            return E(f"{self.gen.op_fn(n)}({a.code}, {b.code})", "list", nn=True, pure=pure, valid=valid,
                     is_list=True)
        if arith:
            if name in ("add", "sub", "mul") and a.nn and b.nn and a.real_int and b.real_int:
                return E(f"({a.code} {spec.op} {b.code})", "int", nn=True, pure=pure, real_int=True)
            return E(f"{self.gen.op_fn(n)}({a.code}, {b.code})", "int", pure=pure)
        raise Unsupported(f"operator {name!r}")  # pragma: no cover - the table is covered above


def _conjuncts(n: A.Node) -> list[A.Node]:
    """The top-level operands of a conjunction (``a and (b and c)`` gives a, b, c)."""
    if isinstance(n, A.BoolOp) and n.op == A.BoolOpKind.AND:
        out: list[A.Node] = []
        for o in n.operands:
            out += _conjuncts(o)
        return out
    return [n]


_ARITH = frozenset({"add", "sub", "mul", "div", "floordiv", "mod"})
_ORDER = frozenset(f"{o}_{t}" for o in ("lt", "le", "gt", "ge") for t in ("int", "rank", "any"))
_MEMBER = frozenset(f"{o}_{t}" for o in ("in", "not_in") for t in ("list", "map", "any"))
_INT_ATTRS = frozenset({"count", "carried", "filler", "jokers"})
_NN_ATTRS = frozenset({"seat", "count", "carried", "filler", "jokers", "pure_jokers", "gouji", "cards", "over_yield",
                       "empties_hand", "burn"})


# ------------------------------------------------------------------------------ the generator
@dataclass
class _HookSig:
    params: list[str]
    env: dict[str, E] = field(default_factory=dict)
    ctx_args: str = ""  # the question's values as Ctx keywords (for a failure's message)


class Generator:
    """Generates the module source of one compiled ruleset (see :func:`generate`)."""

    def __init__(self, graph: RuleGraph):
        self.graph = graph
        self.model = graph.model
        self.strength = {k: i for i, k in enumerate(self.model.kinds)}
        self.consts: dict[str, str] = {}
        self.objects: list[str] = []  # module-level objects built from the graph (operator functions, errors)
        self._objects: dict[str, str] = {}
        self.rules: list[Any] = []  # RuleNodes, by index (failure messages)
        self._temp = 0
        self.inline: dict[str, str] = {}  # permit hook -> its answer as one expression (nothing in it can fail)
        self._inline_ok = False

    # --- constants and bound operator functions
    def constant(self, v: Any) -> str:
        """A module-level constant holding ``v`` (a setting's map or list): its name."""
        text = repr(v)
        name = self.consts.get(text)
        if name is None:
            name = f"_K{len(self.consts) + 1}"
            self.consts[text] = name
        return name

    def _object(self, code: str, may_fail: bool = False) -> str:
        """A module-level object built by ``code``: its name (``_OP...`` when calling it may fail,
        so that code calling it is not :attr:`E.safe`)."""
        name = self._objects.get(code)
        if name is None:
            name = self._objects[code] = f"_O{'P' if may_fail else ''}{len(self.objects) + 1}"
            self.objects.append(f"{name} = {code}")
        return name

    def constant_object(self, err: Exception) -> str:
        """A module-level error object (a constant part of an expression that always fails)."""
        assert isinstance(err, EvalError)
        return self._object(f"EvalError({err.message!r}, {_pos_code(err.where)}, {err.code!r})")

    def sem(self, n: A.Node) -> Semantics:
        return Semantics(self.strength, n.pos)

    def op_fn(self, n: A.Unary | A.Binary) -> str:
        """The operator table's function of ``n`` (its entry, the rank order and where it was written)."""
        return self._object(f"_bind({n.impl!r}, {_pos_code(n.pos)})", may_fail=n.impl not in _NEVER_FAIL)

    def index_fn(self, n: A.Index) -> str:
        return self._object(f"_index_fn({_pos_code(n.pos)})", may_fail=True)

    def attr_fn(self, n: A.Attr) -> str:
        return self._object(f"_attr_fn({n.attr!r}, {_pos_code(n.pos)})", may_fail=True)

    def temp(self) -> str:
        self._temp += 1
        return f"_t{self._temp}"

    def is_seat_value(self, v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= self.graph.n_seats

    # --- vocabulary
    def global_var(self, name: str) -> E:
        g = {
            "all_seats": E("SEATS_LIST", "list", nn=True, cheap=True, valid=True, is_list=True),
            "active_seats": E("[_x for _x in SEATS if _x not in _GONE]",
                              "list", nn=True, valid=True, is_list=True),
            "finished": E("S.finish_order", "list", nn=True, cheap=True, valid=True, is_list=True),
            "finished_in_trick": E("S.finished_in_trick", "list", nn=True, cheap=True, valid=True, is_list=True),
            "revolted_seats": E("sorted(S.revolted)", "list", nn=True, members="S.revolted", valid=True, is_list=True),
            "passed_seats": E("sorted(S.passed)", "list", nn=True, members="S.passed", valid=True, is_list=True),
            "leader": E("S.trick_leader", "seat", cheap=True, valid=True),
            "burner": E("S.burner", "seat", cheap=True, valid=True),
            "game_number": E("S.game_number", "int", nn=True, cheap=True, real_int=True),
            "places_taken": E("len(S.places)", "int", nn=True, cheap=True, real_int=True),
            "trick_number": E("S.trick_no", "int", nn=True, cheap=True, real_int=True),
            "prev_sweep": E("bool(S.prev and S.prev.sweep)", "bool", nn=True, boolish=True),
            "first_game": E("(S.prev is None)", "bool", nn=True, cheap=True, boolish=True),
        }.get(name)
        if g is None:
            return E(f"_GV[{name!r}](_G(S))", "any")
        return g

    def _guarded_call(self, name: str, args: list[E], typ: str, call: str) -> E:
        """``call`` (a format with ``{0}``, ``{1}``... for the arguments) under the compiler's rule for
        none arguments: evaluated left to right, the first none where the function does not take
        none gives its none result (and the arguments after it are not evaluated)."""
        sig = FUNCTIONS[name]
        nr = repr(sig.none_result)
        codes: list[str] = []
        guards: list[tuple[str, str]] = []
        for i, a in enumerate(args):
            if a.nn or sig.accepts_none(i):
                if a.cheap or a.const or i == len(args) - 1 or all(x.cheap or x.const for x in args[i + 1:]):
                    codes.append(a.code)
                else:
                    t = self.temp()
                    guards.append((f"({t} := {a.code})", ""))
                    codes.append(t)
            elif a.cheap:
                guards.append((a.code, ""))
                codes.append(a.code)
            else:
                t = self.temp()
                guards.append((f"({t} := {a.code})", t))
                codes.append(t)
        body = call.format(*codes)
        for g, _ in reversed(guards):
            body = f"({nr} if {g} is None else {body})" if not g.startswith("((") else body
        # walrus bindings that only hold a value (no none test) are made before the call
        prefix = [g for g, t in guards if g.startswith("((") or (g.startswith("(") and ":=" in g and not t)]
        if prefix:
            body = "(" + ", ".join(prefix) + f", {body})[-1]"
        pure = all(a.pure for a in args) and name != "random_seat"
        return E(body, typ, pure=pure)

    def function(self, name: str, args: list[E], typ: str, em: _Emitter) -> E:
        sig = FUNCTIONS[name]
        pure = all(a.pure for a in args)
        a = [x.code for x in args]

        def seat_nn(x: E) -> bool:
            return x.nn and x.valid and not x.const

        def seat_const(x: E) -> bool:  # a seat number written in the rule (team_seats(1)): a table entry
            return x.const and self.is_seat_value(x.value)

        tables = {"opposite": "OPP", "downstream": "NEXT", "upstream": "PREV", "team": "TEAM"}
        if name in tables:
            t = tables[name]
            if seat_const(args[0]):  # the seating is known here: opposite(1) is a number
                return _const(self.seating()[t][args[0].value], typ)
            if seat_nn(args[0]):
                return E(f"{t}[{a[0]}]", typ, nn=True, pure=pure, cheap=args[0].cheap or args[0].const,
                         valid=name != "team", real_int=name == "team")
            if args[0].valid and args[0].cheap:
                return E(f"{t}.get({a[0]})", typ, pure=pure, cheap=True, valid=name != "team", real_int=name == "team")
        lists = {"after": "AFTER_L", "teammates": "MATES", "opponents": "OPPS", "team_seats": "TEAM_L"}
        if name in lists:
            t = lists[name]
            if seat_nn(args[0]) or seat_const(args[0]):
                return E(f"{t}[{a[0]}]", typ, nn=True, pure=pure, cheap=args[0].cheap or args[0].const, valid=True,
                         is_list=True)
            if args[0].valid:
                return E(f"{t}.get({a[0]}, [])", typ, nn=True, pure=pure, valid=True, is_list=True)
        if name == "next_active" and seat_nn(args[0]):
            return E(f"_next_active(S, {a[0]})", typ, pure=pure, valid=True)
        if name == "active" and args[0].valid and args[0].cheap:
            x = a[0]
            inner = f"{x} not in _GONE"  # (the seats out: kept by the template, _recount)
            code = f"({inner})" if args[0].nn else f"({x} is not None and {inner})"
            return E(code, typ, nn=True, pure=pure, boolish=True, p=0.8)
        if name == "out" and args[0].cheap:
            return E(f"({a[0]} in S.places and {a[0]} not in S.revolted)", typ, nn=True, pure=pure, boolish=True,
                     p=0.2)
        if name in ("revolted", "passed"):
            return E(f"({a[0]} in S.{name})", typ, nn=True, pure=pure, boolish=True, p=0.1 if name == "revolted" else 0.3)
        if name == "place":
            return E(f"S.places.get({a[0]})", typ, pure=pure, real_int=True)
        if name == "hand_size" and seat_nn(args[0]):
            return E(f"sum(S.hands[{a[0]}])", typ, nn=True, pure=pure, real_int=True)
        if name == "holds" and args[1].const and seat_nn(args[0]):
            i = self.strength.get(args[1].value)  # type: ignore[arg-type]
            if i is not None:
                return E(f"S.hands[{a[0]}][{i}]", typ, nn=True, pure=pure, real_int=True)
        if name == "flag":
            return E(f"({a[0]} in S.flags.get({a[1]}, ()))", typ, nn=True, pure=pure, boolish=True, p=0.1)
        if name == "counter":  # (counts are whole numbers: amounts are checked when counted)
            return E(f"S.counters.get({a[1]}, {{}}).get({a[0]}, 0)", typ, nn=True, pure=pure, real_int=True)
        if name == "count":
            if a[0] == "[_x for _x in SEATS if _x not in _GONE]":
                # (the seats out, placed, revolted or failed, are counted by the template: _recount)
                return E("_LEFT", typ, nn=True, pure=pure, real_int=True, cheap=True)
            if args[0].members and args[0].code.startswith("sorted("):
                return E(f"len({args[0].members})", typ, nn=True, pure=pure, real_int=True)
            if args[0].nn and args[0].is_list:
                return E(f"len({a[0]})", typ, nn=True, pure=pure, real_int=True)
        if name == "first" and args[0].cheap and args[0].is_list:
            return E(f"({a[0]}[0] if {a[0]} else None)", typ, pure=pure, valid=args[0].valid)
        if name == "coalesce":
            ea, eb = args[0], args[1]
            if ea.cheap and eb.pure and eb.safe:
                return E(f"({ea.code} if {ea.code} is not None else {eb.code})", typ, nn=eb.nn, pure=pure,
                         valid=ea.valid and eb.valid)
            return E(f"_coalesce({ea.code}, {eb.code})", typ, nn=eb.nn, pure=pure, valid=ea.valid and eb.valid)
        if name in ("min", "max") and args[0].nn and args[1].nn:
            return E(f"{name}({a[0]}, {a[1]})", typ, nn=True, pure=pure,
                     real_int=args[0].real_int and args[1].real_int)
        if name in ("flagged", "active_of") and args[0].nn and args[0].is_list:
            if name == "flagged" and args[1].const:
                return E(f"[_x for _x in {a[0]} if _x in S.flags.get({a[1]}, ())]", typ, nn=True, pure=pure,
                         valid=args[0].valid, is_list=True)
            if name == "active_of":
                return E(f"[_x for _x in {a[0]} if _x and _x not in _GONE]", typ, nn=True, pure=pure,
                         valid=args[0].valid, is_list=True)
        kinds = self.strength
        if name in ("dealt", "received") and args[1].const and seat_nn(args[0]):
            sym = args[1].value
            if name == "received":
                return E(f"S.received.get({a[0]}, {{}}).get({sym!r}, 0)", typ, nn=True, pure=pure, real_int=True)
            i = kinds.get(sym)  # type: ignore[arg-type]
            return _const(0, "int") if i is None else E(f"S.dealt[{a[0]}][{i}]", typ, nn=True, pure=pure, real_int=True)
        if name in ("dealt_of", "holds_of") and args[1].const and isinstance(args[1].value, list) and seat_nn(args[0]):
            src = "S.dealt" if name == "dealt_of" else "S.hands"
            idx = [kinds[k] for k in args[1].value if isinstance(k, str) and k in kinds]
            if not idx:
                return _const(0, "int")
            return E("(" + " + ".join(f"{src}[{a[0]}][{i}]" for i in idx) + ")", typ, nn=True, pure=pure, real_int=True)
        if name == "max_dealt" and args[1].const and args[0].nn and args[0].valid and args[0].is_list:
            i = kinds.get(args[1].value)  # type: ignore[arg-type]
            if i is not None:
                return E(f"max([S.dealt[_x][{i}] for _x in {a[0]}], default=0)", typ, nn=True, pure=pure, real_int=True)
        if name == "cards_of":
            pl, kd = args
            if kd.const and kd.value in kinds and (pl.play == "cand" or pl.nn):
                src = f"{pl.code}.play.counts" if pl.play != "cand" else "p.counts" if pl.code == "p" else \
                    "_classify(r, n, f, j).counts"
                return E(f"{src}[{kinds[kd.value]}]", typ, nn=True, pure=pure, real_int=True)
            if pl.play == "cand":
                raise Unsupported("cards_of() of a candidate play with a kind known only while playing")
        if name == "random_seat":
            return E("S.rng.randint(1, N)", typ, nn=True, pure=False, valid=True, real_int=True)
        if name == "shown_leader":
            return self._guarded_call(name, args, typ, "S.shown_leader({0}, {1})")
        # every other function: the vocabulary's own implementation (it reads the GameState)
        call = f"_FN[{name!r}](_G(S)" + "".join(f", {{{i}}}" for i in range(len(args))) + ")"
        out = self._guarded_call(name, args, typ, call)
        whole = typ == "int" and isinstance(sig.none_result, int) and not isinstance(sig.none_result, bool)
        return E(out.code, typ, pure=out.pure and pure, is_list=typ == "list" and sig.none_result == [],
                 nn=(typ == "list" and sig.none_result == []) or whole, real_int=whole)

    def inline_definition(self, name: str, args: list[E], caller: _Emitter) -> E:
        """A definition's body written out in place, its parameters bound to the arguments: by
        substitution when every argument is free of side effects and cannot fail (then evaluating
        it where the body uses it is the same), else through a lambda called with the arguments
        (evaluated first, in order, as the compiler does)."""
        info = self.graph.definitions.get(name)
        if info is None or info.body is None:
            raise Unsupported(f"definition {name!r} has no checked body")
        if len(args) != len(info.params):
            raise Unsupported(f"{name}() with {len(args)} arguments")
        if caller.depth > 40:
            raise Unsupported(f"definitions nested too deep at {name!r}")
        if all(a.safe and a.pure for a in args):
            params = tuple(a if a.const else  # a constant stays one (the body folds what it can)
                           E(a.code if a.cheap else f"({a.code})", a.typ, nn=a.nn, pure=True,
                             cheap=a.cheap, boolish=a.boolish, members=a.members, valid=a.valid,
                             real_int=a.real_int, is_list=a.is_list, rank_ok=a.rank_ok) for a in args)
            body = _Emitter(self, caller.env, params, caller.depth + 1).emit(info.body)
            return body
        names = tuple(self.temp() for _ in args)
        params = tuple(E(nm, a.typ, nn=a.nn, cheap=True, boolish=a.boolish, valid=a.valid, real_int=a.real_int,
                         is_list=a.is_list, rank_ok=a.rank_ok) for nm, a in zip(names, args))
        body = _Emitter(self, caller.env, params, caller.depth + 1).emit(info.body)
        code = f"(lambda {', '.join(names)}: {body.code})({', '.join(a.code for a in args)})"
        return E(code, body.typ, nn=body.nn, pure=body.pure and all(a.pure for a in args), boolish=body.boolish,
                 valid=body.valid, real_int=body.real_int, is_list=body.is_list)

    # --- hooks
    def _env(self, hook: str, codes: bool = False) -> _HookSig:
        ctx = HOOKS[hook].context
        sig = _HookSig([])
        cand = hook in CANDIDATE_HOOKS
        kw: list[str] = []
        for v in ctx:
            if v == "play" and cand and codes:
                sig.params += ["r", "n", "f", "j", "empties"]
                sig.env["play"] = E("(r, n, f, j)", "play", nn=True, play="cand", cand=_CODE_ATTRS)
                kw.append("play=TablePlay(_classify(r, n, f, j), seat, KINDS)")
            elif v == "play" and cand:
                sig.params += ["p", "empties"]
                sig.env["play"] = E("p", "play", nn=True, cheap=True, play="cand", cand=_PLAY_OBJ_ATTRS)
                kw.append("play=TablePlay(p, seat, KINDS)")
            elif v in ("play", "top", "beaten"):
                sig.params.append(v)
                nn = (v == "play") or (v == "top" and hook in _TOP_SET)
                sig.env[v] = E(v, "play", nn=nn, cheap=True, play="table")
                kw.append(f"{v}={v}")
            else:
                sig.params.append(v)
                typ = _cat(CONTEXT_VARS[v].type)
                nn = v in ("seat", "target", "leading", "amount", "round", "choice", "answer")
                sig.env[v] = E(v, typ, nn=nn, cheap=True, boolish=v == "leading", valid=v in ("seat", "target"),
                               real_int=v in ("amount", "round"), rank_ok=v == "card")
                kw.append(f"{v}={v}")
        sig.ctx_args = ", ".join(kw)
        return sig

    def _rule_index(self, node: Any) -> int:
        self.rules.append(node)
        return len(self.rules) - 1

    def _part(self, node: Any, part: str, env: dict[str, E]) -> E | None:
        """The emitted code of one checked part of a rule (``when``, ``effect``, ``target``...)."""
        tree = node.checked.get(part)
        if tree is None:
            return None
        return _Emitter(self, env).emit(tree)

    @staticmethod
    def _comment(node: Any) -> str:
        where = _short(node.origin.path)
        return f"# {node.id} ({where}:{node.origin.line})"

    def hook_function(self, hook: str, codes: bool = False) -> str:
        h = HOOKS[hook]
        sig = self._env(hook, codes)
        prefix = "t_" if h.kind == "trigger" else ("c_" if codes else "h_")
        head = f"def {prefix}{hook}(S{''.join(', ' + p for p in sig.params)}):"
        doc = f'    """{h.doc}"""'
        rules = self.graph.by_hook[hook]
        body: list[str] = []
        self._inline_ok = prefix == "h_" and hook in _INLINE_HOOKS
        if h.kind == "permit":
            body += self._permit_body(hook, rules, sig)
        elif h.kind == "value":
            body += self._value_body(hook, rules, sig)
        else:
            body += self._trigger_body(hook, rules, sig)
        return "\n".join([head, doc] + body) + "\n"

    def _guarded(self, i: int, lines: list[str], sig: _HookSig) -> list[str]:
        """``lines`` in a try: a failure names the rule, its position and the question's values
        (as the interpreter's RuleFailed does)."""
        out = ["    try:"] + ["    " + ln for ln in lines]
        out += ["    except Exception as e:", f"        raise _rule_failed({i}, e, S, {sig.ctx_args}) from None"]
        return out

    def _permit_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        default = bool(HOOKS[hook].default)
        has_allow = any(r.node.effect == "allow" for r in rules)
        out: list[str] = []
        if has_allow and not default:
            out.append("    granted = False")
        parts_of = {}
        for r in rules:
            parts_of[r.node.id] = (self._part(r.node, "when", sig.env), self._part(r.node, "effect", sig.env))
        every_safe = all(x is None or (x.safe and x.pure) for w in parts_of.values() for x in w)
        grants: list[str] = []  # the conditions, for the answer as one expression (when every part is safe)
        denies: list[str] = []
        if has_allow and not default and every_safe:
            # nothing here can fail or draw: ask the allowing rules first, the others only when one granted
            rules = tuple(r for r in rules if r.node.effect == "allow") + \
                ("GRANTED?",) + tuple(r for r in rules if r.node.effect != "allow")  # type: ignore[assignment]
        for r in rules:
            if r == "GRANTED?":
                out.append("    if not granted:")
                out.append("        return False")
                continue
            node = r.node
            i = self._rule_index(node)
            out.append("    " + self._comment(node))
            when, fn = parts_of[node.id]
            assert fn is not None
            eff = node.effect
            if eff == "require":
                fn = _negate(fn)
            elif eff not in ("allow", "deny"):
                raise Unsupported(f"effect {eff!r} on a permit question")
            if eff == "allow" and default and fn.pure and fn.safe and (when is None or (when.pure and when.safe)):
                out.append("    # (allows what is allowed anyway)")
                continue
            parts = [x for x in (when, fn) if x is not None]
            if any(x.const and not x.value for x in parts) and all(x.pure for x in parts):
                out.append("    # (never applies under these settings)")
                continue
            parts = [x for x in parts if not (x.const and x.value)]
            if len(parts) == 2 and not (parts[0].safe and parts[1].safe):
                cond = f"{_Emitter._b(parts[0])} and {_Emitter._b(parts[1])}"  # (the guard first: as the interpreter)
            else:
                cond = _conjunction(parts).code if parts else "True"
            action = "granted = True" if eff == "allow" and not default else ("pass" if eff == "allow" else "return False")
            out += self._guarded(i, [f"    if {cond}:", f"        {action}"], sig)
            (grants if action == "granted = True" else denies if action == "return False" else []).append(cond)
        out.append(f"    return {'granted' if has_allow and not default else repr(default)}")
        if self._inline_ok and every_safe:
            terms = ([f"({' or '.join(f'({c})' for c in grants)})" if grants else "False"]
                     if has_allow and not default else []) + [f"not ({c})" for c in denies]
            self.inline[hook] = " and ".join(terms) if terms else repr(default)
        return out

    def _answer(self, hook: str, fn: E) -> tuple[str, bool]:
        """The answer's code and whether it must be checked against the question's type (as the
        interpreter checks every value answer: a seat that exists, a word of the allowed set...)."""
        chk = self.graph._checks.get(hook)
        if chk is None:
            return fn.code, False
        if fn.const:
            return fn.code, chk(fn.value) is not None
        h = HOOKS[hook]
        t = _cat(h.type)
        if t == "bool" and (fn.nn or h.none_ok) and (fn.boolish or chk(True) is None and chk(False) is None
                                                      and chk(0) is None and chk([]) is None):
            return fn.code, False  # (a bool question checks only for none)
        if t == "int" and fn.real_int and (fn.nn or h.none_ok) and answer_bounds(hook, self.graph.n_seats) is None:
            return fn.code, False  # (a bounded answer is checked: revolution_place, yield_to, ...)
        if t == "seat" and fn.valid and (fn.nn or h.none_ok):
            return fn.code, False
        if t == "list" and fn.valid and fn.nn:
            return fn.code, False
        return fn.code, True

    def _value_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        out: list[str] = []
        arms: list[tuple[str | None, str]] | None = [] if self._inline_ok else None  # (when, answer): one expression
        for r in reversed(rules):
            node = r.node
            i = self._rule_index(node)
            out.append("    " + self._comment(node))
            fn = self._part(node, "effect", sig.env)
            assert fn is not None
            if fn.play == "cand":
                raise Unsupported("a value that is the candidate play")
            code, check = self._answer(hook, fn)
            ret = [f"return {code}"] if not check else [f"_v = {code}", f"_bad = _CHECKS[{hook!r}](_v)",
                                                         "if _bad:", "    raise EvalError(_bad)", "return _v"]
            when = self._part(node, "when", sig.env)
            if arms is not None and (check or not fn.safe or (when is not None and not when.safe)):
                arms = None
            if when is not None:
                if when.const and not when.value:
                    out.append("    # (never applies under these settings)")
                    continue
                if not when.const:
                    out += self._guarded(i, [f"    if {when.code}:"] + [f"        {ln}" for ln in ret], sig)
                    if arms is not None:
                        arms.append((when.code, code))
                    continue
            out += self._guarded(i, [f"    {ln}" for ln in ret], sig)
            self._inline_value(hook, arms, code)
            return out
        out.append(f"    return {HOOKS[hook].default!r}")
        self._inline_value(hook, arms, repr(HOOKS[hook].default))
        return out

    def _inline_value(self, hook: str, arms: list[tuple[str | None, str]] | None, last: str) -> None:
        """The answer of a value question as one expression (``a if when else ...``), when nothing
        in it can fail and no answer needs checking."""
        if arms is None:
            return
        expr = last
        for when, code in reversed(arms):
            expr = f"({code}) if ({when}) else ({expr})"
        self.inline[hook] = expr

    def _trigger_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        out: list[str] = []
        seat = sig.env["seat"] if "seat" in sig.env else _const(None, "seat")
        for r in rules:
            node = r.node
            i = self._rule_index(node)
            out.append("    " + self._comment(node))
            lines: list[str] = []
            indent = "    "
            when = self._part(node, "when", sig.env)
            if when is not None:
                if when.const and not when.value:
                    out.append("    # (never applies under these settings)")
                    continue
                if not when.const:
                    lines.append(f"{indent}if {when.code}:")
                    indent += "    "
            target = self._part(node, "target", sig.env) or seat
            lines.append(f"{indent}_s = {target.code}")
            lines.append(f"{indent}if _s is not None:")
            ind2 = indent + "    "
            if not target.valid:
                lines.append(f"{ind2}GRAPH._check_seat(_s, 'target')")
            eff = node.effect
            amount = self._part(node, "amount", sig.env)
            amt = "1" if amount is None else (amount.code if amount.const and amount.real_int and amount.nn
                                              else f"_amount({amount.code})")
            if eff == "mark":
                lines.append(f"{ind2}S.flags.setdefault({node.expr!r}, set()).add(_s)")
            elif eff == "unmark":
                lines.append(f"{ind2}S.flags.get({node.expr!r}, set()).discard(_s)")
            elif eff == "count":
                lines.append(f"{ind2}_d = S.counters.setdefault({node.expr!r}, {{}})")
                lines.append(f"{ind2}_d[_s] = _d.get(_s, 0) + {amt}")
            elif eff == "place":
                fn = self._part(node, "effect", sig.env)
                assert fn is not None
                lines.append(f"{ind2}_how = {fn.code}")
                lines.append(f"{ind2}if _how not in PLACE_TYPE.values:")
                lines.append(f"{ind2}    raise EvalError(f'place answered {{_how!r}}; allowed: {{PLACE_WORDS}}')")
                lines.append(f"{ind2}_retire(S, _s, _how, {node.id!r})")
            elif eff == "give":
                giver = self._part(node, "giver", sig.env) or seat
                kind = self._part(node, "effect", sig.env)
                assert kind is not None
                lines.append(f"{ind2}_giver = {giver.code}")
                lines.append(f"{ind2}_kind = {kind.code}")
                lines.append(f"{ind2}_amt = {amt}")
                lines.append(f"{ind2}if _giver is not None and _kind is not None and _amt > 0:")
                lines.append(f"{ind2}    GRAPH._check_seat(_giver, 'giver')")
                lines.append(f"{ind2}    if _kind not in KINDS:")
                lines.append(f"{ind2}        raise EvalError(f'give answered {{_kind!r}}, which is not a card kind of this ruleset')")
                lines.append(f"{ind2}    _transfer(S, _giver, _s, {{_kind: _amt}}, {node.id!r})")
            else:
                raise Unsupported(f"effect {eff!r} on a trigger")
            out += self._guarded(i, lines, sig)
        if not rules:
            out.append("    return None")
        return out

    # --- which ranks the play rules can forbid
    def _play_ranks(self) -> list[str]:
        """``PLAY_RANKS``: the rank indices of the plays the ``play`` rules can forbid, when every
        rule that can forbid has a guard (or, for a deny, an effect) that holds only for some ranks
        (``play.rank == '3'``, ``play.rank in [...]``); None when some rule can forbid a play of
        any rank. Leads of the other ranks are then counted instead of asked one by one.
        ``DISCARD_RANKS``: likewise the kinds the ``discard`` rules can allow throwing away."""
        nr = self.model.n_ranks
        out = []
        forbid = self._ranks_of([r for r in self.graph.by_hook["play"] if r.node.effect != "allow"])
        if forbid is None:
            out.append("PLAY_RANKS = None  # (a play rule can forbid a play of any rank)")
        else:
            out += [f"PLAY_RANKS = frozenset({sorted(k for k in forbid if k < nr)!r})  "
                    "# the ranks whose plays a play rule can forbid: other leads are counted",
                    f"PLAY_RANKS_JOKERS = {any(k >= nr for k in forbid)!r}"]
        allow = self._ranks_of([r for r in self.graph.by_hook["discard"] if r.node.effect == "allow"])
        kinds = range(len(self.model.kinds)) if allow is None else sorted(allow)
        out.append(f"DISCARD_RANKS = {tuple(kinds)!r}  # the kinds a discard rule can allow throwing away")
        return out

    def _ranks_of(self, rules: list[Any]) -> set[int] | None:
        """The kind indices for which one of ``rules`` can apply (its guard, or a deny's effect,
        tests ``play.rank``); None when one of them can apply to any play."""
        kinds: set[int] = set()
        for r in rules:
            node = r.node
            parts = [node.checked.get("when")]
            if node.effect in ("deny", "allow"):
                parts.append(node.checked.get("effect"))
            ranks: set[int] | None = None
            for tree in parts:
                if tree is None:
                    continue
                for c in _conjuncts(tree):
                    got = self._rank_test(c)
                    if got is not None:
                        ranks = got if ranks is None else ranks & got
            if ranks is None:
                return None
            kinds |= ranks
        return kinds

    def _rank_test(self, n: A.Node) -> set[int] | None:
        """For ``play.rank == C`` / ``play.rank in C`` (C constant): the kind indices it holds for."""
        if not isinstance(n, A.Binary) or n.impl not in ("eq", "in_list", "in_any"):
            return None
        a, b = n.left, n.right
        if not (isinstance(a, A.Attr) and a.attr == "rank" and isinstance(a.base, A.Name) and a.base.name == "play"
                and a.base.ref == A.Ref.CONTEXT):
            return None
        env = {"play": E("p", "play", nn=True, play="cand", cand=_PLAY_OBJ_ATTRS)}
        try:
            c = _Emitter(self, env).emit(b)
        except Unsupported:
            return None
        if not c.const:
            return None
        values = [c.value] if n.impl == "eq" else (c.value if isinstance(c.value, list) else None)
        if values is None:
            return None
        return {self.strength[v] for v in values if isinstance(v, str) and v in self.strength}

    # --- the module
    def seating(self) -> dict[str, dict[int, int]]:
        """The seat tables (OPP, NEXT, PREV, TEAM: seat → seat or team), as the module defines them."""
        n = self.graph.n_seats
        n_teams = int(self.graph.settings["teams"])
        seats = range(1, n + 1)
        return {"OPP": {s: (s - 1 + n // 2) % n + 1 for s in seats}, "NEXT": {s: s % n + 1 for s in seats},
                "PREV": {s: (s - 2) % n + 1 for s in seats}, "TEAM": {s: (s - 1) % n_teams + 1 for s in seats}}

    def tables(self) -> list[str]:
        g = self.graph
        m = self.model
        n = g.n_seats
        seats = list(range(1, n + 1))
        n_teams = int(g.settings["teams"])
        seating = self.seating()
        team = seating["TEAM"].__getitem__

        after = {s: [((s - 1 + i) % n) + 1 for i in range(1, n)] for s in seats}
        lines = [
            "__graph__: RuleGraph",
            "GRAPH: RuleGraph = __graph__  # the compiled ruleset this module was generated from (bound by the loader)",
            "MODEL: CardModel = GRAPH.model",
            f"N = {n}",
            f"N_TEAMS = {n_teams}",
            f"SEATS = {tuple(seats)!r}",
            f"SEATS_LIST = {seats!r}",
            f"AFTER = {{s: tuple(v) for s, v in {after!r}.items()}}",
            f"AFTER_L = {after!r}",
            *(f"{name} = {table!r}" for name, table in seating.items()),
            f"MATES = {({s: [t for t in after[s] if team(t) == team(s)] for s in seats})!r}",
            f"OPPS = {({s: [t for t in after[s] if team(t) != team(s)] for s in seats})!r}",
            f"TEAM_L = {({s: [t for t in seats if team(t) == team(s)] for s in seats})!r}",
            f"KINDS = {m.kinds!r}",
            f"KIDX = {({k: i for i, k in enumerate(m.kinds)})!r}",
            "STRENGTH = _S = KIDX  # rank comparisons go by the ruleset's strength order",
            f"NR = {m.n_ranks}",
            f"K = {len(m.kinds)}",
            f"FILLER = {m.filler!r}",
            f"COVER_MODEL = {m.model == 'cover'!r}",
            f"SAME_COUNT = {m.same_count!r}",
            f"SPARE_FOR_RANK = {m.spare_for_rank!r}",
            f"HAS_PLAY = {bool(g.by_hook['play'])!r}",
            f"HAS_DISCARD = {bool(g.by_hook['discard'])!r}",
            *self._play_ranks(),
        ]
        return lines

    def generate(self) -> str:
        hooks = []
        for name in HOOKS:
            if name in NOT_ASKED:
                continue
            hooks.append(self.hook_function(name))
            if name in CANDIDATE_HOOKS:  # the same question about a play given by its code
                hooks.append(self.hook_function(name, codes=True))
        consts = [f"{name} = {text}" for text, name in self.consts.items()]
        consts += self.objects
        by_jokers = _reads_only(next(h for h in hooks if h.startswith("def c_burn_lead(")), _BY_JOKERS)
        consts.append(f"BURN_LEAD_BY_JOKERS = {by_jokers!r}  # the burn_lead rules read only the play's jokers "
                      "and whether it empties the hand (a burner's leads are then counted)")
        g = self.graph
        block = [
            _BEGIN,
            f"# ruleset {g.name!r} ({_short(g.resolved.path)}), generator {GENERATOR_VERSION}, "
            f"hash {ruleset_hash(g)[:16]}",
            *self.tables(),
            "# settings read by rules (folded where a rule reads a single value), operator-table functions",
            *consts,
            "_CHECKS = GRAPH._checks  # the interpreter's checks of value answers (a seat that exists...)",
            "# rule nodes by index (a rule that fails while the game runs is named with its position)",
            "RULES = [GRAPH.node(i) for i in " + repr([r.id for r in self.rules]) + "]",
            "",
            "",
            "# ---- hooks: one function per question; each rule is a comment and straight-line code",
            *hooks,
            _END,
        ]
        template = _template_source()
        start = template.index(_BEGIN)
        end = template.index(_END) + len(_END)
        return template[:start] + "\n".join(block) + self._inlined(template[end:])

    def _inlined(self, text: str) -> str:
        """``text`` (the template's loop) with the calls of the permit questions of
        :data:`_INLINE_HOOKS` in its hot functions written as the questions' answers (one expression:
        nothing in it can fail, so a rule failure cannot go unnamed), the call's arguments in place
        of the question's; the line says which question it asks."""
        def sub(m: re.Match[str]) -> str:
            line = m.group(0)

            def call(c: re.Match[str]) -> str:
                expr = self.inline.get(c.group(1))
                if expr is None:
                    return c.group(0)
                args = [a for a in c.group(2).split(", ") if a]
                got = _renamed(expr, dict(zip(HOOKS[c.group(1)].context, args)))
                return c.group(0) if got is None else f"({got})"
            new = _HOOK_CALL.sub(call, line)
            if new != line:
                asked = sorted(set(_HOOK_CALL.findall(line)))
                new += "  # (inlined: " + ", ".join(f"h_{h[0]}" for h in asked) + ")"
            return new

        out = []
        for part in _TOP_SPLIT.split(text):
            m = _TOP_DEF.match(part)
            out.append(re.sub(r"^.*$", sub, part, flags=re.M) if m and m.group(1) in _INLINE_IN else part)
        return "".join(out)


#: the permit questions whose answers the hot loop asks written in place (when nothing in them can
#: fail), and the template functions where
_INLINE_HOOKS = frozenset({"follow", "yield", "burn", "follow_order", "burn_order", "game_over", "next_leader",
                           "yield_to"})
_INLINE_IN = frozenset({"_random_run", "_play", "_advance", "_trick_won"})
_HOOK_CALL = re.compile(r"\bh_(" + "|".join(sorted(_INLINE_HOOKS, key=len, reverse=True)) + r")\(S((?:, \w+)*)\)")
_TOP_SPLIT = re.compile(r"(?=^def \w+\()", re.M)


def _renamed(expr: str, names: dict[str, str]) -> str | None:
    """``expr`` with the names ``names`` maps read as their values (None: it binds a name, or
    already reads one of the new names, so it is not renamed)."""
    tree = ast.parse(expr, mode="eval")
    new = set(names.values())
    for node in ast.walk(tree):
        bound: list[str] = []
        if isinstance(node, ast.Lambda):
            bound = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        elif isinstance(node, ast.comprehension):
            bound = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
        elif isinstance(node, ast.NamedExpr) or (isinstance(node, ast.Name) and node.id in new
                                                 and node.id not in names):
            return None
        if set(bound) & (new | set(names)):
            return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]
    return ast.unparse(tree)


#: what a candidate-play question may read for its answer to depend only on the play's joker
#: combination and whether it empties the hand: those two, module tables that never change, the
#: ruleset's constants and bound operator functions (functions of their arguments), builtins
_BY_JOKERS = frozenset({"j", "empties", "JC_N", "PLAY_JOKERS", "KINDS", "KIDX", "_S", "STRENGTH", "N", "NR", "K",
                        "len", "sum", "min", "max", "abs", "any", "all", "int", "bool", "granted"})


def _reads_only(source: str, allowed: frozenset[str]) -> bool:
    """Whether the generated function ``source`` reads, outside its ``except`` handlers (which
    only name a failing rule), no name but ``allowed`` and the ruleset's constants (``_K…``) and
    operator functions (``_O…``)."""
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    names: set[str] = set()

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Try):
            for part in (*node.body, *node.orelse, *node.finalbody):
                walk(part)
            return
        if isinstance(node, ast.Name):
            names.add(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child)

    for stmt in fn.body:
        walk(stmt)
    return all(n in allowed or re.fullmatch(r"_[KO]\d+", n) for n in names)


#: a candidate play as a Play object ``p`` (and ``empties``: it empties the hand)
_PLAY_OBJ_ATTRS = {"seat": "seat", "rank": "KINDS[p.rank]", "count": "p.count", "carried": "p.carried",
                   "filler": "p.filler", "jokers": "len(p.jokers)", "pure_jokers": "p.pure_jokers",
                   "gouji": "p.gouji", "cards": "p.text", "beaten": "None", "over_yield": "False",
                   "yielder": "None", "empties_hand": "empties", "burn": "False"}
#: a candidate play given by its code: ``n`` cards of rank ``r`` (< 0: none), ``f`` filler cards,
#: joker combination ``j``; only ``gouji`` and ``cards`` classify the play (cached per signature)
_CODE_ATTRS = {"seat": "seat", "rank": "KINDS[r if r >= 0 else PLAY_JOKERS[j][0]]", "count": "(n + f + JC_N[j])",
               "carried": "(n + f)", "filler": "f", "jokers": "JC_N[j]", "pure_jokers": "(r < 0)",
               "gouji": "_classify(r, n, f, j).gouji", "cards": "_classify(r, n, f, j).text", "beaten": "None",
               "over_yield": "False", "yielder": "None", "empties_hand": "empties", "burn": "False"}

_TOP_SET = ("follow", "yield", "yield_to", "burn", "follow_order", "burn_order", "trick_won", "next_leader")
_SEAT_MAYBE_NONE: tuple[str, ...] = ()


def _pos_code(pos: Any) -> str:
    """A SourcePos as code (for the operator table's error messages)."""
    if pos is None:
        return "None"
    return f"SourcePos({pos.path!r}, {pos.line}, {pos.col}, {pos.end_line}, {pos.end_col})"


def _short(path: str) -> str:
    try:
        if Path(path).resolve().parent == rules_dir().resolve():
            return f"rules/{Path(path).name}"
    except OSError:
        pass
    return path


_TEMPLATE: str | None = None


def _template_source() -> str:
    global _TEMPLATE
    if _TEMPLATE is None:
        from gouji_dsl.engine import playout
        _TEMPLATE = Path(playout.__file__).read_text(encoding="utf-8")
    return _TEMPLATE


# ------------------------------------------------------------------------------ hashing, loading
def ruleset_hash(graph: RuleGraph) -> str:
    """A hash of the resolved ruleset (settings, definitions, rules in effect, pruned ones) and of
    the generator: equal hashes give the same generated module."""
    r = graph.resolved
    data = {
        "generator": GENERATOR_VERSION,
        "template": hashlib.sha256(_template_source().encode()).hexdigest(),
        "code": _code_digest(),
        "settings": graph.settings,
        "definitions": {k: [list(d.params), d.expr.text] for k, d in sorted(r.definitions.items())},
        "rules": [[c.node.id, c.node.hook, c.node.effect, c.node.when, c.node.expr,
                   _spec_texts(r, c.node.id), c.node.origin.path, c.node.origin.line]
                  for h in HOOKS for c in graph.by_hook[h]],
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """A digest of the generator's own code (a changed generator makes new modules)."""
    from gouji_dsl.engine import fastops
    h = hashlib.sha256()
    for mod in (__file__, fastops.__file__):
        h.update(Path(mod).read_bytes())
    return h.hexdigest()


def _spec_texts(r: Any, rule_id: str) -> list[str | None]:
    for s in r.rules:
        if s.id == rule_id:
            return [None if t is None else t.text for t in (s.target, s.amount, s.giver)]
    return []


def generate(graph: RuleGraph) -> str:
    """The source of the play-out module for ``graph``. Raises :class:`Unsupported`."""
    return Generator(graph).generate()


#: the module constants the generator writes as literals (``COVER_MODEL = True``, ``FILLER = 12``)
#: that are folded into the template's functions; no function of the module binds them
#: (tests/test_differential.py checks it on every generated module)
FOLDED = ("COVER_MODEL", "SAME_COUNT", "SPARE_FOR_RANK", "HAS_PLAY", "HAS_DISCARD", "PLAY_RANKS_JOKERS",
          "BURN_LEAD_BY_JOKERS", "FILLER", "N", "NR", "K")
_FLAG_LINE = re.compile(r"^(" + "|".join(FOLDED) + r")(?:: [^=\n]+)? = (True|False|None|-?\d+)[ \t]*(?:#.*)?$", re.M)
_FLAG_USE = re.compile(r"\b(" + "|".join(FOLDED) + r")\b")
_TOP_DEF = re.compile(r"^def (\w+)\(", re.M)
_TOP_LINE = re.compile(r"\n(?=[^\s#)])")


#: what folding leaves alone: string literals (docstrings included) and comments
_NOT_CODE = re.compile(r'''"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*''')


def fold_functions(source: str) -> tuple[str, list[str]]:
    """The module's source with the constants of :data:`FOLDED` written, in its top-level
    functions, as the literals the module sets them to (the last ``NAME = literal`` line; an
    identity test of one against None, True or False as its result), so the compiler drops the
    branches this ruleset cannot take (``if COVER_MODEL and not HAS_PLAY``); and the functions
    changed. Text for text on each line: the line numbers stay those of the source shown
    (``gouji show --generated``), which is unchanged. Strings and comments are left alone; a name
    is read only where it is loaded (tests/test_differential.py checks that no function binds one)."""
    values = {m.group(1): ast.literal_eval(m.group(2)) for m in _FLAG_LINE.finditer(source)}
    if not values:
        return source, []
    names = "|".join(values)
    identity = re.compile(r"(?<![.\w])(" + names + r") is (not )?(None|True|False)\b")
    use = re.compile(r"(?<![.\w])(" + names + r")\b(?!\s*=(?!=))")

    def code(text: str) -> str:
        text = identity.sub(lambda m: repr((values[m.group(1)] is {"None": None, "True": True, "False": False}
                                            [m.group(3)]) != bool(m.group(2))), text)
        return use.sub(lambda m: repr(values[m.group(1)]), text)

    def fold(text: str) -> str:
        out, at = [], 0
        for m in _NOT_CODE.finditer(text):
            out += [code(text[at:m.start()]), m.group(0)]
            at = m.end()
        out.append(code(text[at:]))
        return "".join(out)

    starts = [(m.start(), m.group(1)) for m in _TOP_DEF.finditer(source)]
    parts = [source[:starts[0][0]] if starts else source]
    done = []
    for k, (start, name) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(source)
        m = _TOP_LINE.search(source, start, end)  # the function ends at the next top-level line
        stop = m.start() + 1 if m is not None else end
        text = source[start:stop]
        if _FLAG_USE.search(text):
            folded = fold(text)
            if folded != text:
                text = folded
                done.append(name)
        parts += [text, source[stop:end]]
    return "".join(parts), done


class Generated:
    """A loaded play-out module: ``module`` (its functions: ``new_state``, ``play_out``,
    ``legal_moves``, ``apply_move``, ``render_record``...), ``source`` and ``hash``."""

    def __init__(self, graph: RuleGraph, source: str, digest: str):
        self.graph = graph
        self.source = source
        self.hash = digest
        name = f"gouji_dsl.generated.{_ident(graph.name)}_{digest[:12]}"
        mod = types.ModuleType(name, f"Generated play-out module of ruleset {graph.name!r}")
        mod.__dict__["__graph__"] = graph
        filename = f"<generated {graph.name} {digest[:12]}>"
        text, self.folded = fold_functions(source)
        exec(compile(text, filename, "exec"), mod.__dict__)
        self.module = mod


def _ident(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


_CACHE_SIZE = 32
_modules: OrderedDict[int, Generated] = OrderedDict()  # by graph object (a module binds its graph)
_sources: OrderedDict[str, str] = OrderedDict()  # by ruleset hash (generation is skipped)
_cache_lock = threading.Lock()


def load(graph: RuleGraph) -> Generated:
    """The generated module of ``graph``: generated once per ruleset hash, compiled once per
    graph object (the most recent few are kept). Raises :class:`Unsupported` when something in
    the ruleset is not handled."""
    with _cache_lock:
        got = _modules.get(id(graph))
        if got is not None and got.graph is graph:
            _modules.move_to_end(id(graph))
            return got
        digest = ruleset_hash(graph)
        source = _sources.get(digest)
        if source is None:
            source = generate(graph)
            _sources[digest] = source
            if len(_sources) > _CACHE_SIZE:
                _sources.popitem(last=False)
        gen = Generated(graph, source, digest)
        _modules[id(graph)] = gen
        if len(_modules) > _CACHE_SIZE:
            _modules.popitem(last=False)
        return gen
