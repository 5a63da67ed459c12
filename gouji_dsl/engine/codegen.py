"""The generator: a compiled :class:`~gouji_dsl.ruleset.graph.RuleGraph` → one Python module per
ruleset (its play-out engine).

The module is the template :mod:`gouji_dsl.engine.playout` (the interpreter's game loop) with its
stub block replaced by the ruleset's tables and every hook as a straight-line function: settings
folded into constants, definitions inlined, vocabulary functions written out as table lookups
(``opposite(seat)`` → ``OPP[seat]``), each rule preceded by a comment with its id and file:line.
Expressions are emitted from the same parse tree and with the same typing rules as the
interpreter's closures (:mod:`gouji_dsl.lang.expr`), so both give the same answer; the
differential test (``tests/test_differential.py``) checks it game by game.

:func:`generate` returns the source; :func:`load` compiles it (cached by a hash of the resolved
ruleset and of the generator) and returns a :class:`Generated` module, or raises
:class:`Unsupported` naming what the generator does not handle (the caller then plays with the
interpreter, and says so).
"""
from __future__ import annotations

import hashlib
import json
import threading
import types
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Token, Tree

from gouji_dsl.lang.expr import _norm_key, legacy_type, parse
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.vocabulary import CONTEXT_VARS, FUNCTIONS, GLOBAL_VARS, HOOKS, PLAY_ATTRS

#: bump when the generated code changes for the same ruleset (part of the cache key)
GENERATOR_VERSION = "1"

_BEGIN = "# ---- generated: begin"
_END = "# ---- generated: end"

#: hooks whose ``play`` is a candidate play (a :class:`~gouji_dsl.engine.model.Play` and whether it
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
    rt: str | None = None  # the type the value has at run time, where the language types it 'any'
    conj: tuple[E, ...] = ()  # the operands of a conjunction (flattened)
    negates: E | None = None  # for ``not x``: x

    @property
    def cost(self) -> int:
        """A rough cost of evaluating the code (calls weigh most), to order conjunctions."""
        return 10 * sum(1 for i, ch in enumerate(self.code) if ch == "(" and i and (self.code[i - 1].isalnum()
                                                                                 or self.code[i - 1] == "_")) \
            + len(self.code) // 16

    @property
    def safe(self) -> bool:
        """Evaluating the code cannot raise (so it may be evaluated in another order, or not at all,
        without changing what the interpreter would do)."""
        return self.pure and not any(m in self.code for m in _UNSAFE)


#: helpers and calls that may raise (a rule failure) or read the game through the vocabulary
_UNSAFE = ("_lt(", "_le(", "_gt(", "_ge(", "_add(", "_sub(", "_mul(", "_floordiv(", "_truediv(", "_mod(",
           "_FN[", "_GV[", "int(", "(-", "shown_leader(", "min(", "max(", "_map_get(", "_list_index(",
           "_classify(", "KINDS[")


def _const(v: Any, typ: str | None = None) -> E:
    return E(repr(v), typ or _type_of_value(v), nn=v is not None, cheap=True, const=True, value=v,
             boolish=isinstance(v, bool))


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


def _simple(code: str) -> bool:
    return code.isidentifier()


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
        return x if x.boolish else E(f"bool({x.code})", "bool", nn=True, pure=x.pure, boolish=True)
    return E(f"(not {a.code})", "bool", nn=True, pure=a.pure, boolish=True, negates=a)


def _conjunction(items: list[E]) -> E:
    """``a and b and ...`` (each made a bool), flattened; when every operand is side-effect free
    and cannot raise, the cheapest are tested first (the value is the same)."""
    flat: list[E] = []
    for e in items:
        flat.extend(e.conj or (e,))
    if all(e.safe for e in flat):
        flat.sort(key=lambda e: e.cost)
    code = " and ".join(e.code if e.boolish else f"bool({e.code})" for e in flat)
    return E(f"({code})", "bool", nn=True, pure=all(e.pure for e in flat), boolish=True, conj=tuple(flat))


#: context variables a hook does not bind read as the interpreter's ``Ctx`` defaults
_CTX_DEFAULTS: dict[str, Any] = {"seat": None, "play": None, "top": None, "beaten": None, "target": None,
                                 "leading": False, "kind": None, "card": None, "amount": 0}

#: play attributes on a TablePlay (attribute name in the language → Python attribute)
_TABLE_ATTR = {"seat": "seat", "rank": "rank", "count": "count", "carried": "carried", "filler": "filler",
               "jokers": "jokers", "pure_jokers": "play.pure_jokers", "gouji": "gouji", "cards": "play.text",
               "beaten": "beaten_seat", "over_yield": "over_yield", "yielder": "yielder",
               "empties_hand": "empties_hand", "burn": "is_burn"}
_BOOL_ATTRS = {"pure_jokers", "gouji", "over_yield", "empties_hand", "burn"}


class _Emitter:
    """Turns one expression tree into an :class:`E`, in the environment of one hook."""

    def __init__(self, gen: Generator, env: dict[str, E], params: dict[str, E] | None = None, depth: int = 0):
        self.gen = gen
        self.env = env
        self.params = params or {}
        self.depth = depth

    # --- entry
    def emit(self, tree: Any) -> E:
        if isinstance(tree, Token):
            raise Unsupported(f"unexpected token {tree!s}")
        meth = getattr(self, "e_" + tree.data.rstrip("_"), None)
        if meth is None:
            raise Unsupported(f"expression {tree.data!r}")
        return meth(tree)

    # --- literals
    def e_number(self, t: Tree) -> E:
        return _const(int(str(t.children[0])), "int")

    def e_string(self, t: Tree) -> E:
        return _const(str(t.children[0])[1:-1], "str")

    def e_true(self, t: Tree) -> E:
        return _const(True)

    def e_false(self, t: Tree) -> E:
        return _const(False)

    def e_none(self, t: Tree) -> E:
        return _const(None, "none")

    def e_list(self, t: Tree) -> E:
        items = [self.emit(c) for c in t.children]
        types = {i.typ for i in items}
        typ = "seats" if types and types <= {"seat", "int"} else "list"
        if all(i.const for i in items):
            return E(self.gen.constant([i.value for i in items]), typ, nn=True, cheap=True, const=True,
                     value=[i.value for i in items])
        return E("[" + ", ".join(i.code for i in items) + "]", typ, nn=True, pure=all(i.pure for i in items))

    # --- names
    def e_name(self, t: Tree) -> E:
        name = str(t.children[0])
        if name in self.params:
            return self.params[name]
        if name in CONTEXT_VARS:
            if name in self.env:
                return self.env[name]
            return _const(_CTX_DEFAULTS[name], legacy_type(CONTEXT_VARS[name].type))
        if name in GLOBAL_VARS:
            return self.gen.global_var(name)
        defs = self.gen.graph.resolved.definitions
        if name in defs:
            d = defs[name]
            if d.params:
                raise Unsupported(f"definition {name!r} used without its arguments")
            return self.gen.inline_definition(name, [], self)
        raise Unsupported(f"unknown name {name!r}")

    def e_attr(self, t: Tree) -> E:
        base_node, attr_tok = t.children
        attr = str(attr_tok)
        if isinstance(base_node, Tree) and base_node.data == "name" and str(base_node.children[0]) == "settings":
            settings = self.gen.graph.settings
            if attr not in settings:
                raise Unsupported(f"unknown setting {attr!r}")
            v = settings[attr]
            if isinstance(v, (dict, list)):
                return E(self.gen.constant(v), _type_of_value(v), nn=True, cheap=True, const=True, value=v)
            return _const(v)
        base = self.emit(base_node)
        if base.typ == "map" and base.const:
            if attr in base.value:
                v = base.value[attr]
                if isinstance(v, (dict, list)):
                    return E(self.gen.constant(v), _type_of_value(v), nn=True, cheap=True, const=True, value=v)
                return _const(v)
            raise Unsupported(f"no key {attr!r}")
        if base.typ != "play" or attr not in PLAY_ATTRS:
            raise Unsupported(f"attribute {attr!r} of {base.typ}")
        typ = legacy_type(PLAY_ATTRS[attr].type)
        if base.const:  # none
            return _const(None, typ)
        if base.play == "cand":
            assert base.cand is not None
            code = base.cand[attr]
            if code in ("None", "False"):
                return _const(None if code == "None" else False, typ)
            nn = attr != "seat" or self.env.get("seat", E("", "seat")).nn
            return E(code, typ, nn=nn, cheap=attr not in ("gouji", "cards"), boolish=attr in _BOOL_ATTRS)
        if base.play != "table":
            raise Unsupported(f"a play value of unknown form ({base.code})")
        a = _TABLE_ATTR[attr]
        if base.nn:
            nn = attr in ("seat", "count", "carried", "filler", "jokers", "pure_jokers", "gouji", "cards",
                          "over_yield", "empties_hand", "burn")
            return E(f"{base.code}.{a}", typ, nn=nn, cheap=base.cheap, boolish=nn and attr in _BOOL_ATTRS)
        if not _simple(base.code):
            raise Unsupported("attribute of a play expression that may be none")
        return E(f"(None if {base.code} is None else {base.code}.{a})", typ, cheap=True)

    def e_index(self, t: Tree) -> E:
        base = self.emit(t.children[0])
        key = self.emit(t.children[1])
        if base.typ not in ("map", "list", "seats", "any"):
            raise Unsupported(f"index of {base.typ}")
        pure = base.pure and key.pure
        if base.typ == "map":
            if base.const and key.const:
                v = base.value.get(_norm_key(key.value))
                if isinstance(v, (dict, list)):
                    return E(self.gen.constant(v), "any", nn=True, cheap=True, const=True, value=v)
                return _const(v, "any")
            k = self._norm_key_code(key)
            if base.const:
                return E(f"{base.code}.get({k})", "any", pure=pure)
            return E(f"_map_get({base.code}, {key.code})", "any", pure=pure)
        etype = "seat" if base.typ == "seats" else "any"
        return E(f"_list_index({base.code}, {key.code})", etype, pure=pure)

    @staticmethod
    def _norm_key_code(key: E) -> str:
        if key.const:
            return repr(_norm_key(key.value))
        if key.typ in ("str", "rank") and key.nn:
            return key.code
        if key.typ in ("int", "seat") and key.nn:
            return f"str({key.code})"
        return f"_nk({key.code})"

    # --- calls
    def e_call(self, t: Tree) -> E:
        name_tok, *arg_nodes = t.children
        name = str(name_tok)
        args = [self.emit(a) for a in arg_nodes]
        defs = self.gen.graph.resolved.definitions
        if name in defs:
            return self.gen.inline_definition(name, args, self)
        if name not in FUNCTIONS:
            raise Unsupported(f"unknown function {name!r}")
        return self.gen.function(name, args)

    # --- logic
    def _bool(self, node: Any) -> E:
        c = self.emit(node)
        if c.typ not in ("bool", "any", "none"):
            raise Unsupported(f"a {c.typ} where true/false is expected")
        return c

    @staticmethod
    def _b(e: E) -> str:
        return e.code if e.boolish else f"bool({e.code})"

    def e_and(self, t: Tree) -> E:
        a, b = self._bool(t.children[0]), self._bool(t.children[1])
        if a.const and b.pure:
            return b if a.value and b.boolish else (E(self._b(b), "bool", nn=True, pure=b.pure, boolish=True)
                                                     if a.value else _const(False))
        if b.const and b.value and a.boolish:
            return a
        return _conjunction([a, b])

    def e_or(self, t: Tree) -> E:
        a, b = self._bool(t.children[0]), self._bool(t.children[1])
        if a.const and b.pure:
            return _const(True) if a.value else (b if b.boolish else E(self._b(b), "bool", nn=True, pure=b.pure,
                                                                       boolish=True))
        if b.const and not b.value and a.boolish:
            return a
        a, b = _order(a, b)
        return E(f"({self._b(a)} or {self._b(b)})", "bool", nn=True, pure=a.pure and b.pure, boolish=True)

    def e_not(self, t: Tree) -> E:
        return _negate(self._bool(t.children[0]))

    def e_cond(self, t: Tree) -> E:
        then, cond, other = t.children
        c = self._bool(cond)
        a, b = self.emit(then), self.emit(other)
        typ = a.typ if _compatible(a.typ, b.typ) and a.typ != "none" else b.typ
        if not (_compatible(a.typ, b.typ) or _compatible(b.typ, a.typ)):
            raise Unsupported("branches of different types")
        play = a.play if a.play == b.play else None
        if (a.play or b.play) and play is None and not (a.const or b.const):
            raise Unsupported("a conditional between plays of different forms")
        if a.play == "cand" or b.play == "cand":
            raise Unsupported("a conditional over the candidate play")
        return E(f"({a.code} if {c.code} else {b.code})", typ, nn=a.nn and b.nn, pure=a.pure and b.pure and c.pure,
                 boolish=a.boolish and b.boolish, play=play or (a.play or b.play))

    def e_compare(self, t: Tree) -> E:
        left, op_tok, right = t.children
        a, b = self.emit(left), self.emit(right)
        op = str(op_tok)
        pure = a.pure and b.pure
        if not (_compatible(a.typ, b.typ) or _compatible(b.typ, a.typ)):
            raise Unsupported(f"cannot compare {a.typ} with {b.typ}")
        if "rank" in (a.typ, b.typ) and op not in ("==", "!="):
            a, b = self._strength(a), self._strength(b)
        if op in ("==", "!="):
            return E(f"({a.code} {op} {b.code})", "bool", nn=True, pure=pure, boolish=True)
        if a.nn and b.nn and a.typ in ("int", "seat") and b.typ in ("int", "seat"):
            return E(f"({a.code} {op} {b.code})", "bool", nn=True, pure=pure, boolish=True)
        helper = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}[op]
        return E(f"{helper}({a.code}, {b.code})", "bool", nn=True, pure=pure, boolish=True)

    def _strength(self, e: E) -> E:
        strength = self.gen.strength
        if e.const:
            v = strength.get(e.value)  # type: ignore[call-overload]
            return _const(v, "int") if v is not None else _const(None, "none")
        return E(f"STRENGTH.get({e.code})", "int", pure=e.pure)

    def _membership(self, t: Tree, negate: bool) -> E:
        a, b = self.emit(t.children[0]), self.emit(t.children[1])
        if b.typ not in ("list", "seats", "map", "any", "str", "none"):
            raise Unsupported(f"'in' over {b.typ}")
        pure = a.pure and b.pure
        neg = "not " if negate else ""
        if b.const:
            if b.value is None:
                return _const(negate)
            key = self._norm_key_code(a) if b.typ == "map" else a.code
            return E(f"({key} {neg}in {b.code})", "bool", nn=True, pure=pure, boolish=True)
        if b.members:
            return E(f"({a.code} {neg}in {b.members})", "bool", nn=True, pure=pure, boolish=True)
        if b.typ == "map":
            return E(f"(_in_map({a.code}, {b.code}) != {negate})", "bool", nn=True, pure=pure, boolish=True)
        if b.nn:
            return E(f"({a.code} {neg}in {b.code})", "bool", nn=True, pure=pure, boolish=True)
        return E(f"(_in({a.code}, {b.code}) != {negate})", "bool", nn=True, pure=pure, boolish=True)

    def e_in(self, t: Tree) -> E:
        return self._membership(t, False)

    def e_not_in(self, t: Tree) -> E:
        return self._membership(t, True)

    def e_listop(self, t: Tree) -> E:
        left, op_tok, right = t.children
        a, b = self.emit(left), self.emit(right)
        for c in (a, b):
            if c.typ not in ("list", "seats", "any", "none"):
                raise Unsupported(f"{op_tok} on {c.typ}")
        typ = "seats" if "seats" in (a.typ, b.typ) else "list"
        op = str(op_tok)
        pure = a.pure and b.pure
        if op == "++":
            if a.nn and b.nn:
                return E(f"({a.code} + {b.code})", typ, nn=True, pure=pure)
            return E(f"_concat({a.code}, {b.code})", typ, nn=True, pure=pure)
        if b.members and a.nn:
            neg = "not " if op == "--" else ""
            if a.cheap:  # (an empty set: nothing to drop / keep; the list is not changed by its users)
                empty = a.code if op == "--" else "[]"
                return E(f"([_x for _x in {a.code} if _x {neg}in {b.members}] if {b.members} else {empty})", typ,
                         nn=True, pure=pure)
            return E(f"[_x for _x in {a.code} if _x {neg}in {b.members}]", typ, nn=True, pure=pure)
        fn = "_minus" if op == "--" else "_inter"
        return E(f"{fn}({a.code}, {b.code})", typ, nn=True, pure=pure)

    def e_arith(self, t: Tree) -> E:
        left, op_tok, right = t.children
        a, b = self.emit(left), self.emit(right)
        for c in (a, b):
            if c.typ not in ("int", "seat", "any", "none"):
                raise Unsupported(f"arithmetic on {c.typ}")
        op = str(op_tok)
        if a.const and b.const and a.value is not None and b.value is not None \
                and not (op in ("//", "/", "%") and b.value == 0):
            import operator
            pyop = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
                    "/": operator.truediv, "%": operator.mod}[op]
            try:
                return _const(pyop(a.value, b.value), "int")
            except TypeError:
                pass
        pure = a.pure and b.pure
        if a.nn and b.nn and op in ("+", "-", "*") and a.typ in ("int", "seat") and b.typ in ("int", "seat") \
                and not (a.const and not isinstance(a.value, int)) and not (b.const and not isinstance(b.value, int)):
            return E(f"({a.code} {op} {b.code})", "int", nn=True, pure=pure)
        name = {"+": "_add", "-": "_sub", "*": "_mul", "//": "_floordiv", "/": "_truediv", "%": "_mod"}[op]
        return E(f"{name}({a.code}, {b.code})", "int", pure=pure)

    def e_neg(self, t: Tree) -> E:
        a = self.emit(t.children[0])
        if a.typ not in ("int", "any"):
            raise Unsupported(f"'-' on {a.typ}")
        if a.const:
            return _const(-a.value, "int")
        return E(f"(-{a.code})", "int", nn=a.nn, pure=a.pure)


# ------------------------------------------------------------------------------ the generator
@dataclass
class _HookSig:
    params: list[str]
    env: dict[str, E] = field(default_factory=dict)


class Generator:
    """Generates the module source of one compiled ruleset (see :func:`generate`)."""

    def __init__(self, graph: RuleGraph):
        self.graph = graph
        self.model = graph.model
        self.strength = {k: i for i, k in enumerate(self.model.kinds)}
        self.consts: dict[str, str] = {}
        self.rules: list[Any] = []  # RuleNodes, by index (failure messages)
        self._trees: dict[str, Any] = {}

    def tree(self, text: str) -> Any:
        """The parse tree of an expression text (parsed once per generation)."""
        t = self._trees.get(text)
        if t is None:
            t = self._trees[text] = parse(text)
        return t

    # --- constants
    def constant(self, v: Any) -> str:
        """A module-level constant holding ``v`` (a setting's map or list): its name."""
        text = repr(v)
        name = self.consts.get(text)
        if name is None:
            name = f"_K{len(self.consts) + 1}"
            self.consts[text] = name
        return name

    # --- vocabulary
    def global_var(self, name: str) -> E:
        g = {
            "all_seats": E("SEATS_LIST", "seats", nn=True, cheap=True),
            "active_seats": E("S.active_list()", "seats", nn=True),
            "finished": E("S.finish_order", "seats", nn=True, cheap=True),
            "finished_in_trick": E("S.finished_in_trick", "seats", nn=True, cheap=True),
            "revolted_seats": E("sorted(S.revolted)", "seats", nn=True, members="S.revolted"),
            "passed_seats": E("sorted(S.passed)", "seats", nn=True, members="S.passed"),
            "leader": E("S.trick_leader", "seat", cheap=True),
            "burner": E("S.burner", "seat", cheap=True),
            "game_number": E("S.game_number", "int", nn=True, cheap=True),
            "places_taken": E("len(S.places)", "int", nn=True, cheap=True),
            "trick_number": E("S.trick_no", "int", nn=True, cheap=True),
            "prev_sweep": E("bool(S.prev and S.prev.sweep)", "bool", nn=True, boolish=True),
            "first_game": E("(S.prev is None)", "bool", nn=True, cheap=True, boolish=True),
        }.get(name)
        if g is None:
            return E(f"_GV[{name!r}](_G(S))", legacy_type(GLOBAL_VARS[name].type))
        return g

    def function(self, name: str, args: list[E]) -> E:
        sig = FUNCTIONS[name]
        if len(args) != len(sig.params):
            raise Unsupported(f"{name}() with {len(args)} arguments")
        pure = all(a.pure for a in args)
        ret = legacy_type(sig.returns)
        a = [x.code for x in args]

        def seatlike(x: E) -> bool:
            return x.nn and (x.rt or x.typ) in ("seat", "int") and not x.const

        table = {"opposite": "OPP", "downstream": "NEXT", "upstream": "PREV", "team": "TEAM"}
        if name in table:
            t = table[name]
            if seatlike(args[0]):
                return E(f"{t}[{a[0]}]", ret, nn=True, pure=pure, cheap=args[0].cheap)
            return E(f"{t}.get({a[0]})", ret, pure=pure, cheap=args[0].cheap)
        lists = {"after": "AFTER_L", "teammates": "MATES", "opponents": "OPPS", "team_seats": "TEAM_L"}
        if name in lists:
            t = lists[name]
            if seatlike(args[0]):
                return E(f"{t}[{a[0]}]", ret, nn=True, pure=pure, cheap=args[0].cheap)
            return E(f"{t}.get({a[0]}, [])", ret, nn=True, pure=pure)
        if name == "next_active":
            if seatlike(args[0]):
                return E(f"_next_active(S, {a[0]})", ret, pure=pure)
            return E(f"_next_active_n(S, {a[0]})", ret, pure=pure)
        if name == "active":
            if seatlike(args[0]) and args[0].cheap:
                x = a[0]
                return E(f"({x} not in S.places and {x} not in S.revolted and {x} not in S.failed)", ret, nn=True,
                         pure=pure, boolish=True)
            return E(f"_active_n(S, {a[0]})", ret, nn=True, pure=pure, boolish=True)
        if name == "out":
            if seatlike(args[0]) and args[0].cheap:
                x = a[0]
                return E(f"({x} in S.places and {x} not in S.revolted)", ret, nn=True, pure=pure, boolish=True)
            return E(f"_out_n(S, {a[0]})", ret, nn=True, pure=pure, boolish=True)
        if name == "revolted":
            return E(f"({a[0]} in S.revolted)", ret, nn=True, pure=pure, boolish=True)
        if name == "passed":
            return E(f"({a[0]} in S.passed)", ret, nn=True, pure=pure, boolish=True)
        if name == "place":
            return E(f"S.places.get({a[0]})", ret, pure=pure)
        if name == "hand_size":
            if seatlike(args[0]):
                return E(f"sum(S.hands[{a[0]}])", ret, nn=True, pure=pure)
            return E(f"_hand_size(S, {a[0]})", ret, nn=True, pure=pure)
        if name == "holds" and args[1].const and seatlike(args[0]):
            i = self.strength.get(str(args[1].value))
            if i is None:
                return _const(0, "int")
            return E(f"S.hands[{a[0]}][{i}]", ret, nn=True, pure=pure)
        if name == "flag":
            return E(f"({a[0]} in S.flags.get({a[1]}, ()))", ret, nn=True, pure=pure, boolish=True)
        if name == "counter":
            return E(f"S.counters.get({a[0 + 1]}, {{}}).get({a[0]}, 0)", ret, nn=True, pure=pure)
        if name == "count":
            if args[0].code == "S.active_list()":
                return E("(N - len(S.places.keys() | S.revolted | S.failed))", ret, nn=True, pure=pure)
            if args[0].code.startswith("sorted(") and args[0].code.endswith(")") and args[0].nn \
                    and _simple(args[0].code[7:-1].replace("S.", "", 1)):
                return E(f"len({args[0].code[7:-1]})", ret, nn=True, pure=pure)
            if args[0].nn:
                return E(f"len({a[0]})", ret, nn=True, pure=pure)
            return E(f"len({a[0]} or [])", ret, nn=True, pure=pure)
        if name == "first":
            if args[0].cheap:
                return E(f"({a[0]}[0] if {a[0]} else None)", ret, pure=pure)
            return E(f"_first({a[0]})", ret, pure=pure)
        if name == "coalesce":
            if args[0].cheap and args[1].pure:
                return E(f"({a[0]} if {a[0]} is not None else {a[1]})", args[0].typ if args[0].typ != "none" else ret,
                         nn=args[1].nn, pure=pure)
            return E(f"_coalesce({a[0]}, {a[1]})", ret, nn=args[1].nn, pure=pure)
        if name in ("min", "max"):
            return E(f"{name}({a[0]}, {a[1]})", ret, nn=args[0].nn and args[1].nn, pure=pure)
        if name == "random_seat":
            return E("S.rng.randint(1, N)", ret, nn=True, pure=False)
        if name == "shown_leader":
            return E(f"S.shown_leader({a[0]}, {a[1]})", ret, pure=pure)
        # every other function: the vocabulary's own implementation (it reads the GameState)
        return E(f"_FN[{name!r}](_G(S){''.join(', ' + x for x in a)})", ret, pure=pure and name != "random_seat")

    def inline_definition(self, name: str, args: list[E], caller: _Emitter) -> E:
        d = self.graph.resolved.definitions[name]
        if len(args) != len(d.params):
            raise Unsupported(f"{name}() with {len(args)} arguments")
        if caller.depth > 40:
            raise Unsupported(f"definitions nested too deep at {name!r}")
        params: dict[str, E] = {}
        for p, a in zip(d.params, args):
            if not a.pure:
                raise Unsupported(f"an argument of {name}() with a side effect")
            # the interpreter's compiler types a parameter 'any' inside the definition
            params[p] = E(a.code if a.cheap or a.const else f"({a.code})", "any", nn=a.nn, pure=True,
                          cheap=a.cheap or a.const, const=False, boolish=a.boolish, rt=a.rt or a.typ,
                          members=a.members)
        sub = _Emitter(self, caller.env, params, caller.depth + 1)
        body = sub.emit(self.tree(d.expr.text))
        typ = self._definition_type(name)
        return E(body.code, typ, nn=body.nn, pure=body.pure, cheap=body.cheap, const=body.const, value=body.value,
                 boolish=body.boolish, play=body.play, cand=body.cand)

    def _definition_type(self, name: str) -> str:
        d = self.graph.definitions.get(name)
        return legacy_type(d.type) if d else "any"

    # --- hooks
    def _env(self, hook: str, codes: bool = False) -> _HookSig:
        ctx = HOOKS[hook].context
        sig = _HookSig([])
        cand = hook in CANDIDATE_HOOKS
        for v in ctx:
            if v == "play" and cand and codes:
                sig.params += ["r", "n", "f", "j", "empties"]
                sig.env["play"] = E("(r, n, f, j)", "play", nn=True, play="cand", cand=_CODE_ATTRS)
            elif v == "play" and cand:
                sig.params += ["p", "empties"]
                sig.env["play"] = E("p", "play", nn=True, cheap=True, play="cand", cand=_PLAY_OBJ_ATTRS)
            elif v in ("play", "top", "beaten"):
                sig.params.append(v)
                nn = (v == "play") or (v == "top" and hook in _TOP_SET)
                sig.env[v] = E(v, "play", nn=nn, cheap=True, play="table")
            else:
                sig.params.append(v)
                typ = legacy_type(CONTEXT_VARS[v].type)
                nn = v in ("seat", "target", "leading", "amount") and hook not in _SEAT_MAYBE_NONE
                sig.env[v] = E(v, typ, nn=nn, cheap=True, boolish=v == "leading")
        return sig

    def _rule_index(self, node: Any) -> int:
        self.rules.append(node)
        return len(self.rules) - 1

    def _spec(self, rule_id: str) -> Any:
        for s in self.graph.resolved.rules:
            if s.id == rule_id:
                return s
        raise Unsupported(f"rule {rule_id!r} has no specification")

    def _expr(self, text: str, env: dict[str, E]) -> E:
        return _Emitter(self, env).emit(self.tree(text))

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
        if h.kind == "permit":
            body += self._permit_body(hook, rules, sig)
        elif h.kind == "value":
            body += self._value_body(hook, rules, sig)
        else:
            body += self._trigger_body(hook, rules, sig)
        return "\n".join([head, doc] + body) + "\n"

    def _guarded(self, i: int, lines: list[str]) -> list[str]:
        out = ["    try:"] + ["    " + ln for ln in lines]
        out += ["    except RuleRuntimeError as e:", f"        raise _failed({i}, e) from None"]
        return out

    def _permit_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        default = bool(HOOKS[hook].default)
        has_allow = any(r.node.effect == "allow" for r in rules)
        out: list[str] = []
        if has_allow and not default:
            out.append("    granted = False")
        if has_allow and not default and self._all_safe(rules, sig):
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
            fn = self._expr(node.expr, sig.env)
            when = self._expr(node.when, sig.env) if node.when else None
            eff = node.effect
            if eff == "require":
                fn = _negate(fn)
            elif eff not in ("allow", "deny"):
                raise Unsupported(f"effect {eff!r} on a permit question")
            if eff == "allow" and default and fn.pure and (when is None or when.pure):
                out.append("    # (allows what is allowed anyway)")
                continue
            parts = [x for x in (when, fn) if x is not None]
            if any(x.const and not x.value for x in parts) and all(x.pure for x in parts):
                out.append("    # (never applies under these settings)")
                continue
            parts = [x for x in parts if not (x.const and x.value)]
            cond = _conjunction(parts).code if parts else "True"
            action = "granted = True" if eff == "allow" and not default else ("pass" if eff == "allow" else "return False")
            out += self._guarded(i, [f"    if {cond}:", f"        {action}"])
        out.append(f"    return {'granted' if has_allow and not default else repr(default)}")
        return out

    def _all_safe(self, rules: tuple[Any, ...], sig: _HookSig) -> bool:
        for r in rules:
            for text in (r.node.expr, r.node.when):
                if text and not self._expr(text, sig.env).safe:
                    return False
        return True

    def _value_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        out: list[str] = []
        for r in reversed(rules):
            node = r.node
            i = self._rule_index(node)
            out.append("    " + self._comment(node))
            fn = self._expr(node.expr, sig.env)
            if fn.play == "cand":
                raise Unsupported("a value that is the candidate play")
            if node.when:
                when = self._expr(node.when, sig.env)
                out += self._guarded(i, [f"    if {when.code}:", f"        return {fn.code}"])
            else:
                out += self._guarded(i, [f"    return {fn.code}"])
                return out
        out.append(f"    return {HOOKS[hook].default!r}")
        return out

    def _trigger_body(self, hook: str, rules: tuple[Any, ...], sig: _HookSig) -> list[str]:
        out: list[str] = []
        for r in rules:
            node = r.node
            spec = self._spec(node.id)
            i = self._rule_index(node)
            out.append("    " + self._comment(node))
            lines: list[str] = []
            indent = "    "
            if node.when:
                lines.append(f"{indent}if {self._expr(node.when, sig.env).code}:")
                indent += "    "
            if spec.target is not None:
                lines.append(f"{indent}_s = {self._expr(spec.target.text, sig.env).code}")
            else:
                lines.append(f"{indent}_s = {sig.env['seat'].code if 'seat' in sig.env else 'None'}")
            lines.append(f"{indent}if _s is not None:")
            ind2 = indent + "    "
            eff = node.effect
            if eff == "mark":
                lines.append(f"{ind2}S.flags.setdefault({r.name!r}, set()).add(_s)")
            elif eff == "unmark":
                lines.append(f"{ind2}S.flags.get({r.name!r}, set()).discard(_s)")
            elif eff == "count":
                amt = self._expr(spec.amount.text, sig.env).code if spec.amount is not None else "1"
                lines.append(f"{ind2}_d = S.counters.setdefault({r.name!r}, {{}})")
                lines.append(f"{ind2}_d[_s] = _d.get(_s, 0) + int({amt} or 0)")
            elif eff == "place":
                fn = self._expr(node.expr, sig.env).code
                lines.append(f"{ind2}_retire(S, _s, str({fn}), {node.id!r})")
            elif eff == "give":
                giver = self._expr(spec.giver.text, sig.env).code if spec.giver is not None else \
                    (sig.env["seat"].code if "seat" in sig.env else "None")
                kind = self._expr(node.expr, sig.env).code
                amt = f"int({self._expr(spec.amount.text, sig.env).code})" if spec.amount is not None else "1"
                lines.append(f"{ind2}_giver = {giver}")
                lines.append(f"{ind2}_kind = {kind}")
                lines.append(f"{ind2}_amt = {amt}")
                lines.append(f"{ind2}if _giver is not None and _kind is not None and _amt > 0:")
                lines.append(f"{ind2}    _transfer(S, _giver, _s, {{str(_kind): _amt}}, {node.id!r})")
            else:
                raise Unsupported(f"effect {eff!r} on a trigger")
            out += self._guarded(i, lines)
        if not rules:
            out.append("    return None")
        return out

    # --- the module
    def tables(self) -> list[str]:
        g = self.graph
        m = self.model
        n = g.n_seats
        seats = list(range(1, n + 1))
        n_teams = int(g.settings["teams"])

        def opp(s: int) -> int:
            return (s - 1 + n // 2) % n + 1

        def team(s: int) -> int:
            return (s - 1) % n_teams + 1

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
            f"OPP = {{{', '.join(f'{s}: {opp(s)}' for s in seats)}}}",
            f"NEXT = {{{', '.join(f'{s}: {s % n + 1}' for s in seats)}}}",
            f"PREV = {{{', '.join(f'{s}: {(s - 2) % n + 1}' for s in seats)}}}",
            f"TEAM = {{{', '.join(f'{s}: {team(s)}' for s in seats)}}}",
            f"MATES = {({s: [t for t in after[s] if team(t) == team(s)] for s in seats})!r}",
            f"OPPS = {({s: [t for t in after[s] if team(t) != team(s)] for s in seats})!r}",
            f"TEAM_L = {({s: [t for t in seats if team(t) == team(s)] for s in seats})!r}",
            f"KINDS = {m.kinds!r}",
            f"KIDX = {({k: i for i, k in enumerate(m.kinds)})!r}",
            "STRENGTH = KIDX  # rank comparisons go by the ruleset's strength order",
            f"NR = {m.n_ranks}",
            f"K = {len(m.kinds)}",
            f"FILLER = {m.filler!r}",
            f"COVER_MODEL = {m.model == 'cover'!r}",
            f"SAME_COUNT = {m.same_count!r}",
            f"SPARE_FOR_RANK = {m.spare_for_rank!r}",
            f"HAS_PLAY = {bool(g.by_hook['play'])!r}",
            f"HAS_DISCARD = {bool(g.by_hook['discard'])!r}",
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
        g = self.graph
        block = [
            _BEGIN,
            f"# ruleset {g.name!r} ({_short(g.resolved.path)}), generator {GENERATOR_VERSION}, "
            f"hash {ruleset_hash(g)[:16]}",
            *self.tables(),
            "# settings read by rules (folded where a rule reads a single value)",
            *consts,
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
        return template[:start] + "\n".join(block) + template[end:]


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


def _short(path: str) -> str:
    from gouji_dsl.resources import rules_dir
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
        "settings": graph.settings,
        "definitions": {k: [list(d.params), d.expr.text] for k, d in sorted(r.definitions.items())},
        "rules": [[c.node.id, c.node.hook, c.node.effect, c.node.when, c.node.expr,
                   _spec_texts(r, c.node.id), c.node.origin.path, c.node.origin.line]
                  for h in HOOKS for c in graph.by_hook[h]],
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _spec_texts(r: Any, rule_id: str) -> list[str | None]:
    for s in r.rules:
        if s.id == rule_id:
            return [None if t is None else t.text for t in (s.target, s.amount, s.giver)]
    return []


def generate(graph: RuleGraph) -> str:
    """The source of the play-out module for ``graph``. Raises :class:`Unsupported`."""
    return Generator(graph).generate()


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
        code = compile(source, f"<generated {graph.name} {digest[:12]}>", "exec")
        exec(code, mod.__dict__)
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
