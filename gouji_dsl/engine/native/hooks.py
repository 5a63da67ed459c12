"""Hook programs for the native core: the rules' checked trees (:mod:`gouji_dsl.lang.ast`) →
the stack bytecode of ``vm.h``, with the semantics of the closure compiler
(:mod:`gouji_dsl.lang.compile`) and the operator table (:mod:`gouji_dsl.lang.ops`).

A fourth interpretation of the same trees (after the compiler, the folder and the Python
generator), held to the same answers by ``tests/test_native_core.py``: every expression of every
bundled ruleset and example that :func:`emit` accepts is run natively and by the compiler on
states of interpreter games, and must give the same value (or fail the same way).

Constant sub-trees are computed by the ruleset's own compiler (:meth:`Compiler.constant`), so the
folding and its short cuts (``false and x``, ``none + x``, a function's none result) are the
compiler's. What the bytecode does not express yet (texts, lists other than the game's seat
sets, maps, definitions with parameters, ``/`` with its fractions, flags and counters...) raises
:class:`~gouji_dsl.engine.native.Unsupported` naming the construct and its position: the caller
plays that ruleset another way.

:func:`pack_context` turns an interpreter :class:`~gouji_dsl.engine.interpreter.Ctx` into the
flat context the core reads (the same numbering as ``vm.h``); :func:`evaluate` runs a program on
it and returns the value as the compiler would (a rank as its kind text), raising the
compiler's :class:`~gouji_dsl.lang.ops.EvalError` where the program fails.
"""
from __future__ import annotations

import struct
import threading
from array import array
from dataclasses import dataclass
from typing import Any

from gouji_dsl.diagnostics import Code, SourcePos
from gouji_dsl.engine.native import Unsupported, _core_module
from gouji_dsl.lang import ast as A
from gouji_dsl.lang import ops
from gouji_dsl.lang.ops import EvalError
from gouji_dsl.lang.types import ListOf, category, strip
from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, no_place_text
from gouji_dsl.ruleset.graph import RuleGraph

# ---- the numbering of vm.h (keep in step with it)
T_NONE, T_BOOL, T_INT, T_RANK, T_TEXT, T_LIST, T_TLIST, T_FLOAT = 0, 1, 2, 3, 4, 5, 6, 7
LIST_MAX = 14  # (vm.h: VM_LIST_MAX; items 0..14, 15 for none)
TLIST_MAX = 7  # (vm.h: VM_TLIST_MAX: a list of texts, ids 0..255)
(OP_CONST, OP_SLOT, OP_PLAYATTR, OP_PLAYIS, OP_SEATFN, OP_HOLDS, OP_COUNTSET, OP_INSET, OP_NOT, OP_NEG, OP_TRUTH,
 OP_BIN, OP_JFALSE_KEEP, OP_JTRUE_KEEP, OP_JFALSE_POP, OP_JUMP, OP_RET, OP_STORE, OP_LOAD, OP_FLAG, OP_PREVFLAG,
 OP_COUNTER, OP_INMASK, OP_LISTFN, OP_SETLIST, OP_MKLIST, OP_LEN, OP_FIRST, OP_INLIST, OP_SORTEDPLACES, OP_ACTIVEOF,
 OP_COALESCE, OP_DEALT, OP_SUMKINDS, OP_WITHATLEAST, OP_FIRSTHELD, OP_MAPGET, OP_FEWEST, OP_SUMPLACES, OP_SHOWN, OP_RANDSEAT,
 OP_RECEIVED, OP_PREVBURNS, OP_FLAGGED, OP_NEXTWITHOUT, OP_MAXDEALT, OP_ATLEAST, OP_MINATLEAST, OP_WITHHELD, OP_FIRSTHOLDING,
 OP_LISTITEM, OP_TEXTS, OP_CARDSOF, OP_PREVCOUNTER, OP_TEE, OP_BINK) = range(56)
MAP_MAX = 16  # (vm.h: VM_MAP_MAX)
#: instructions reading what a play phase's own packing may leave out (the cards shown in the deal,
#: the previous game's burns and counters): a program holding one is packed by pack_context
PACKED_BY_CONTEXT = frozenset({OP_SHOWN, OP_PREVBURNS, OP_PREVCOUNTER})
#: instructions reading state a game flow must keep as it plays (vm_ctx.play_counts: a play's cards per kind)
PLAY_COUNTS = frozenset({OP_CARDSOF})
LIST_FNS = {"after": 0, "teammates": 1, "opponents": 2, "team_seats": 3}
SEAT_FNS = {name: i for i, name in enumerate(("opposite", "downstream", "upstream", "team", "next_active", "active", "out",
                                               "revolted", "passed", "place", "hand_size", "rank_groups", "jokers_held",
                                               "prev_place", "prev_seat_at"))}
#: what each seat function gives for a none seat in vm.h (checked against the vocabulary's none_result)
SEAT_FN_NONE: dict[str, Any] = {"active": False, "out": False, "revolted": False, "passed": False, "hand_size": 0,
                                "rank_groups": 0, "jokers_held": 0}
SETS = {name: i for i, name in enumerate(("all_seats", "active_seats", "finished", "revolted_seats", "passed_seats",
                                          "finished_in_trick"))}
BINS = {name: i for i, name in enumerate(("eq", "ne", "lt_int", "le_int", "gt_int", "ge_int", "lt_rank", "le_rank",
                                          "gt_rank", "ge_rank", "add", "sub", "mul", "floordiv", "mod", "concat", "remove",
                                          "keep", "min", "max", "div", "lt_any", "le_any", "gt_any", "ge_any"))}
#: scalar variables: the question's and the game's (slot numbers)
SLOTS = {"seat": 0, "target": 1, "leading": 2, "amount": 3, "round": 4, "card": 5, "kind": 6,
         "leader": 8, "burner": 9, "game_number": 10, "places_taken": 11, "trick_number": 12, "prev_sweep": 13,
         "first_game": 14, "choice": 15, "answer": 16}
PLAYS = {"play": 0, "top": 1, "beaten": 2}
#: play attributes (language name → number; the TablePlay attribute read)
ATTRS = {"seat": (0, "seat"), "rank": (1, "rank"), "count": (2, "count"), "carried": (3, "carried"),
         "filler": (4, "filler"), "jokers": (5, "jokers"), "pure_jokers": (6, None), "gouji": (7, "gouji"),
         "beaten": (8, "beaten_seat"), "over_yield": (9, "over_yield"), "yielder": (10, "yielder"),
         "empties_hand": (11, "empties_hand"), "burn": (12, "is_burn")}
INT32 = 2**31
NLOCALS, NFLAGS, NCOUNTERS = 32, 32, 16  # (vm.h: VM_NLOCALS, VM_NFLAGS, VM_NCOUNTERS)


class Names:
    """The texts, flags and counters one ruleset's programs name, numbered (text 0 is the empty
    text: the only false one). A text that is a card kind's name is always that kind (a rank),
    never a text, so that equality between the two is Python's."""

    def __init__(self) -> None:
        self.texts: dict[str, int] = {"": 0}
        self.flags: dict[str, int] = {}
        self.counters: dict[str, int] = {}
        self.lock = threading.Lock()

    def text(self, s: str) -> int:
        with self.lock:
            return self.texts.setdefault(s, len(self.texts))

    def flag(self, name: str) -> int | None:
        with self.lock:
            if name not in self.flags and len(self.flags) >= NFLAGS:
                return None
            return self.flags.setdefault(name, len(self.flags))

    def counter(self, name: str) -> int | None:
        with self.lock:
            if name not in self.counters and len(self.counters) >= NCOUNTERS:
                return None
            return self.counters.setdefault(name, len(self.counters))


_names: dict[int, tuple[RuleGraph, Names]] = {}
_names_lock = threading.Lock()


def names(graph: RuleGraph) -> Names:
    """The name table of ``graph`` (one per graph object; the most recent 64 are kept)."""
    with _names_lock:
        got = _names.get(id(graph))
        if got is not None and got[0] is graph:
            return got[1]
        table = Names()
        _names[id(graph)] = (graph, table)
        while len(_names) > 64:
            _names.pop(next(iter(_names)))
        return table

_OPS_TEXT = {"floordiv": "//", "mod": "%", "div": "/", "add": "+", "sub": "-", "mul": "*",
             **{f"{nm}_{kind}": op for nm, op in (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")) for kind in ("int", "rank", "any")}}


@dataclass(frozen=True)
class HookProgram:
    """One expression as a verified program: its words, and per instruction that can fail the
    node whose operator it runs (for the compiler's error text and position)."""

    code: bytes
    fails: dict[int, tuple[str, SourcePos]]  # pc → (operator name, position)
    maps: dict[int, Any]  # pc → the constant map (or list) an index reads
    text: str  # the expression, unparsed (for display)
    draws: bool = False  # it draws from the game's generator (random_seat())


class _Emitter:
    def __init__(self, graph: RuleGraph):
        self.graph = graph
        self.compiler = graph._compiler
        self.kinds = tuple(graph.model.kinds)
        self.kidx = {k: i for i, k in enumerate(self.kinds)}
        self.code: list[int] = []
        self.fails: dict[int, tuple[str, SourcePos]] = {}
        self.depth = 0  # (nested definitions)
        self.names = names(graph)
        self.frames: list[int] = []  # the first local of each definition being inlined
        self.nlocals = 0
        self.draws = False
        self.maps: dict[int, Any] = {}  # pc → the constant map (or list) an OP_MAPGET reads (for its error text)
        self.tails: set[int] = set()  # the nodes whose value is the expression's (a float may only be answered)

    def refuse(self, n: A.Node, what: str) -> Unsupported:
        return Unsupported(f"{what} ({n.pos.path}:{n.pos.line}:{n.pos.col}: {A.unparse(n)})")

    def const(self, n: A.Node, v: Any) -> None:
        if isinstance(v, list):
            self.const_list(n, v)
        elif isinstance(v, int) and not isinstance(v, bool) and not -INT32 < v < INT32:
            raise self.refuse(n, f"the number {v} is outside the core's constants")
        elif v is None or isinstance(v, (bool, int, str)):
            self.code += [OP_CONST, *self.scalar(n, v)]
        else:
            raise self.refuse(n, f"a constant of kind {type(v).__name__}")

    def const_list(self, n: A.Node, v: list[Any]) -> None:
        """A constant list of seats or small numbers (one word, or built when longer), or of texts."""
        if len(v) <= LIST_MAX and all(x is None or (isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 14) for x in v):
            word = len(v)
            for i, x in enumerate(v):
                word |= (15 if x is None else x) << (4 + 4 * i)
            if word >= INT32:  # (a constant is one 32-bit word: longer lists are built at run time)
                for x in v:
                    self.const(n, x)
                self.code += [OP_MKLIST, len(v)]
            else:
                self.code += [OP_CONST, T_LIST, word]
        elif v and all(isinstance(x, str) and x not in self.kidx for x in v):
            self.const_texts(n, v)
        else:
            raise self.refuse(n, "a constant of kind list")

    def const_texts(self, n: A.Node, v: list[str]) -> None:
        """A constant list of texts (none a card kind's name): OP_TEXTS with up to 7 text ids below
        256 (vm.h: T_TLIST packs them 8 bits each above the length)."""
        ids = [self.names.text(x) for x in v]
        if len(ids) > TLIST_MAX or max(ids) > 255:
            raise self.refuse(n, f"a list of more than {TLIST_MAX} texts, or of texts numbered past 255")
        self.code += [OP_TEXTS, len(ids), *ids, *[0] * (TLIST_MAX - len(ids))]

    def e(self, n: A.Node) -> None:
        const, value = self.compiler.constant(n)
        if const:
            self.const(n, value)
            return
        meth = getattr(self, "e_" + type(n).__name__, None)
        if meth is None:
            raise self.refuse(n, f"a {type(n).__name__} expression")
        meth(n)

    def e_Name(self, n: A.Name) -> None:
        if n.ref == A.Ref.DEFINITION:
            info = self.compiler.definitions[n.name]
            if info.params or info.body is None:
                raise self.refuse(n, f"the definition {n.name!r}")
            self.inline(n, info.body)
            return
        if n.ref == A.Ref.PARAM:
            if not self.frames or n.index < 0:
                raise self.refuse(n, f"the parameter {n.name!r} outside its definition")
            self.code += [OP_LOAD, self.frames[-1] + n.index]
            return
        if n.ref in (A.Ref.CONTEXT, A.Ref.GLOBAL) and n.name in SLOTS:
            self.code += [OP_SLOT, SLOTS[n.name]]
            return
        if n.ref == A.Ref.GLOBAL and n.name in SETS:
            self.code += [OP_SETLIST, SETS[n.name]]
            return
        if n.ref == A.Ref.CONTEXT and n.name in PLAYS:
            raise self.refuse(n, f"the play {n.name!r} as a value")
        raise self.refuse(n, f"the name {n.name!r}")

    def inline(self, n: A.Node, body: A.Node, args: tuple[A.Node, ...] = ()) -> None:
        """A definition's body in place; its arguments first, each into a local of its own (as
        the compiler evaluates them all, in order, before the body)."""
        if self.depth > 16:
            raise self.refuse(n, "definitions nested more than 16 deep")
        if self.nlocals + len(args) > NLOCALS:
            raise self.refuse(n, f"more than {NLOCALS} definition arguments in one expression")
        base = self.nlocals
        self.nlocals += len(args)
        for i, a in enumerate(args):
            self.truth_or_value(a)
            self.code += [OP_STORE, base + i]
        self.depth += 1
        self.frames.append(base)
        try:
            self.e(body)
        finally:
            self.depth -= 1
            self.frames.pop()

    def truth_or_value(self, a: A.Node) -> None:
        if isinstance(a, A.Name) and a.ref == A.Ref.CONTEXT and a.name in PLAYS:
            raise self.refuse(a, f"the play {a.name!r} as an argument")
        self.e(a)

    def e_Call(self, n: A.Call) -> None:
        if n.ref == A.Ref.DEFINITION:
            info = self.compiler.definitions[n.func]
            if info.body is None or len(info.params) != len(n.args):
                raise self.refuse(n, f"the definition {n.func!r}")
            self.inline(n, info.body, n.args)
            return
        sig = FUNCTIONS.get(n.func)
        if n.ref != A.Ref.FUNCTION or sig is None:
            raise self.refuse(n, f"the call {n.func!r}")
        handler = _CALLS.get(n.func)
        if handler is None or not handler(self, n, sig):
            raise self.refuse(n, f"the function {n.func!r}")

    # Each handler emits the call and returns True, returns False for a shape it does not take, or
    # raises naming why. Where the first argument is none the compiler answers the function's none
    # result without evaluating the rest: a later argument that could fail or draw is refused.
    def call(self, n: A.Call, sig: Any, kinds: str, words: list[int]) -> None:
        """The arguments of ``n`` (``kinds``: per argument s a seat, l a list, v a value), then the
        instruction ``words``. Where a later argument may fail or draw, the compiler does not
        evaluate it after a none argument (the function's none result): the arguments then go to
        locals, and a none one jumps to the none result."""
        parts = list(zip(kinds, n.args))
        emit = {"s": self.seat_operand, "l": self.list_operand, "v": self.e}
        guards = [i for i in range(len(parts) - 1) if not all(_infallible(a, self.compiler) for _, a in parts[i + 1:])]
        if not guards:
            for k, a in parts:
                emit[k](a)
            self.code += words
            return
        if self.nlocals + len(parts) > NLOCALS:
            raise self.refuse(n, f"more than {NLOCALS} definition arguments and call arguments in one expression")
        at, self.nlocals = self.nlocals, self.nlocals + len(parts)
        ends: list[int] = []
        for i, (k, a) in enumerate(parts):
            emit[k](a)
            self.code += [OP_STORE, at + i]
            if i in guards:
                self.code += [OP_LOAD, at + i, OP_CONST, T_NONE, 0, OP_BIN, BINS["eq"], OP_JFALSE_POP, -1]
                skip = len(self.code) - 1
                self.const(n, sig.none_result)
                self.code += [OP_JUMP, -1]
                ends.append(len(self.code) - 1)
                self.code[skip] = len(self.code)
        for i in range(len(parts)):
            self.code += [OP_LOAD, at + i]
        self.code += words
        for j in ends:
            self.code[j] = len(self.code)

    def c_seatfn(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 1:
            return False
        if SEAT_FN_NONE.get(n.func) != sig.none_result or sig.accepts_none(0):
            raise self.refuse(n, f"{n.func}'s none result")
        self.seat_operand(n.args[0])
        self.code += [OP_SEATFN, SEAT_FNS[n.func]]
        return True

    def c_kind_count(self, n: A.Call, sig: Any) -> bool:
        """holds / dealt / received / held_at_least / dealt_at_least (seat, kind)."""
        if len(n.args) != 2 or sig.none_result != 0:
            return False
        self.call(n, sig, "sv", _KIND_COUNTS[n.func])
        return True

    def c_coalesce(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 2:
            return False
        for a in n.args:
            self.truth_or_value(a)
        self.code += [OP_COALESCE]
        return True

    def written_kinds(self, n: A.Call, at: int) -> list[int]:
        """The kinds of a constant list argument, as indices (a word that is no kind holds nothing)."""
        c, v = self.compiler.constant(n.args[at])
        if not (c and isinstance(v, list) and all(isinstance(k, str) for k in v)):
            raise self.refuse(n, f"{n.func}() of kinds that are not written out")
        return [self.kidx[k] for k in v if k in self.kidx]

    def c_kinds(self, n: A.Call, sig: Any) -> bool:
        """holds_of / dealt_of (seat, kinds): a sum over a kind mask; first_held / first_holding
        (seat, kinds) and with_held (seats, kinds): the first kind held, in the list's order."""
        if len(n.args) != 2:
            return False
        known = self.written_kinds(n, 1)
        if n.func == "with_held":
            self.list_operand(n.args[0])
        else:
            self.seat_operand(n.args[0])
        if n.func in ("first_held", "first_holding", "with_held"):
            if len(known) > 10:
                raise self.refuse(n, f"{n.func}() of more than 10 kinds")
            words = [0, 0]
            for i, k in enumerate(known):
                words[i // 5] |= k << (6 * (i % 5))
            op = {"first_held": OP_FIRSTHELD, "first_holding": OP_FIRSTHOLDING, "with_held": OP_WITHHELD}[n.func]
            self.code += [op, len(known), *words]
            return True
        if len(set(known)) != len(known) or len(self.kinds) > 64:
            raise self.refuse(n, f"{n.func}() of a kind named twice")
        mask = sum(1 << k for k in known)
        self.code += [OP_SUMKINDS, int(n.func == "dealt_of"), *_mask_words(mask)]
        return True

    def c_with_at_least(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 3 or sig.none_result != []:
            return False
        self.call(n, sig, "lvv", [OP_WITHATLEAST])
        return True

    def named(self, n: A.Call, at: int, counter: bool = False) -> int:
        """The flag (or counter) slot of a name written out as argument ``at``."""
        c, v = self.compiler.constant(n.args[at])
        if not (c and isinstance(v, str)):
            raise self.refuse(n, f"{n.func}() of a name that is not written out")
        slot = self.names.counter(v) if counter else self.names.flag(v)
        if slot is None:
            raise self.refuse(n, f"more than {NCOUNTERS if counter else NFLAGS} {'counter' if counter else 'flag'} names")
        return slot

    def c_flag(self, n: A.Call, sig: Any) -> bool:
        """flag / prev_flag / counter (seat, name); flagged (seats, name); next_active_without (seat, name)."""
        if len(n.args) != 2 or sig.none_result != _FLAG_FNS[n.func][1]:
            return False
        slot = self.named(n, 1, counter=n.func in ("counter", "prev_counter"))
        if n.func == "flagged":
            self.list_operand(n.args[0])
        else:
            self.seat_operand(n.args[0])
        self.code += [_FLAG_FNS[n.func][0], slot]
        return True

    def c_count(self, n: A.Call, sig: Any) -> bool:
        a = n.args[0] if len(n.args) == 1 else None
        if isinstance(a, A.Name) and a.name in SETS and a.ref == A.Ref.GLOBAL:
            self.code += [OP_COUNTSET, SETS[a.name]]
            return True
        return self.c_fused(n, sig)

    def c_listfn(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 1 or sig.none_result != [] or sig.accepts_none(0):
            return False
        self.seat_operand(n.args[0])
        self.code += [OP_LISTFN, LIST_FNS[n.func]]
        return True

    def c_random_seat(self, n: A.Call, sig: Any) -> bool:
        if n.args:
            return False
        self.code += [OP_RANDSEAT]  # (draws from the game's generator: the caller passes it)
        self.draws = True
        return True

    def c_shown_leader(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 2 or sig.none_result is not None:
            return False
        self.call(n, sig, "vv", [OP_SHOWN])
        return True

    def c_minmax(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 2 or sig.none_result is not None:
            return False
        if not all(_cat(a) in ("int", "seat", "none") for a in n.args):
            raise self.refuse(n, f"{n.func}() of these arguments")
        self.call(n, sig, "vv", [OP_BIN, BINS[n.func]])
        return True

    def c_sum_places(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 2 or sig.none_result != 0:
            return False
        c, table = self.compiler.constant(n.args[1])
        if not (c and isinstance(table, dict)) or len(table) > MAP_MAX:
            raise self.refuse(n, "sum_places() of a table that is not a constant map of at most 16 places")
        pairs: dict[int, int] = {}
        for k, v in table.items():
            key = k if isinstance(k, int) and not isinstance(k, bool) else (int(k) if isinstance(k, str) and k.isdigit() else None)
            if key is None or key in pairs or not -INT32 < key < INT32:
                raise self.refuse(n, f"sum_places() of a table with the key {k!r}")
            if v is None or isinstance(v, bool) or (isinstance(v, int) and -INT32 < v < INT32):
                pairs[key] = int(v or 0)
            else:
                raise self.refuse(n, f"sum_places() of a table with the value {v!r}")
        self.list_operand(n.args[0])
        words = [w for kv in pairs.items() for w in kv] + [0, 0] * (MAP_MAX - len(pairs))
        self.fails[len(self.code)] = ("sum_places", n.pos)
        self.maps[len(self.code)] = table
        self.code += [OP_SUMPLACES, len(pairs), *words]
        return True

    def c_seat_pair(self, n: A.Call, sig: Any) -> bool:
        """prev_burns / prev_counter_burns (seat, seat): the previous game's successful burns."""
        if len(n.args) != 2 or sig.none_result != 0:
            return False
        self.call(n, sig, "ss", [OP_PREVBURNS, int(n.func == "prev_counter_burns")])
        return True

    def c_max_dealt(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 2 or sig.none_result != 0:
            return False
        self.call(n, sig, "lv", [OP_MAXDEALT])
        return True

    def c_min_dealt_at_least(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 1 or sig.none_result != 0:
            return False
        self.e(n.args[0])
        self.code += [OP_MINATLEAST]
        return True

    def c_cards_of(self, n: A.Call, sig: Any) -> bool:
        """cards_of(play, kind): the play's cards of the kind (0 for no play: the kind is then not evaluated)."""
        p = n.args[0] if len(n.args) == 2 else None
        if not (isinstance(p, A.Name) and p.ref == A.Ref.CONTEXT and p.name in PLAYS) or sig.none_result != 0:
            return False
        if not _infallible(n.args[1], self.compiler):
            raise self.refuse(n, "cards_of() with a kind that may fail")
        self.e(n.args[1])
        self.code += [OP_CARDSOF, PLAYS[p.name]]
        return True

    def c_fused(self, n: A.Call, sig: Any) -> bool:
        if len(n.args) != 1:
            return False
        self.list_operand(n.args[0])
        self.code += [_FUSED[n.func]]
        return True

    def seat_operand(self, a: A.Node) -> None:
        if _cat(a) not in ("seat", "int", "none", "any"):  # (any: a definition's parameter; checked when it runs)
            raise self.refuse(a, f"a seat argument of type {a.type}")
        self.e(a)

    def list_operand(self, a: A.Node) -> None:
        if not _small_list(a):
            raise self.refuse(a, f"a list of type {a.type}")
        self.e(a)

    def e_ListLit(self, n: A.ListLit) -> None:
        if len(n.items) > LIST_MAX or not _small_list(n):
            raise self.refuse(n, "a list of more than 14 items, or not of seats or numbers")
        for item in n.items:
            self.truth_or_value(item)
        self.code += [OP_MKLIST, len(n.items)]

    def scalar(self, n: A.Node, v: Any) -> tuple[int, int]:
        """A constant scalar as (tag, value), as :meth:`const` would push it."""
        if v is None:
            return T_NONE, 0
        if isinstance(v, bool):
            return T_BOOL, int(v)
        if isinstance(v, int) and -INT32 < v < INT32:
            return T_INT, v
        if isinstance(v, str):
            return (T_RANK, self.kidx[v]) if v in self.kidx else (T_TEXT, self.names.text(v))
        raise self.refuse(n, f"a map holding {type(v).__name__} values")

    def map_words(self, n: A.Node, m: dict[Any, Any], values: list[tuple[int, int]] | None = None) -> list[int]:
        """The operands of an OP_MAPGET over the constant map ``m`` (``values``: other values, in order)."""
        if len(m) > MAP_MAX:
            raise self.refuse(n, f"a map of more than {MAP_MAX} entries")
        words: list[int] = [len(m)]
        for i, (k, v) in enumerate(m.items()):
            if isinstance(k, bool) or not isinstance(k, (int, str)):
                raise self.refuse(n, "a map with keys that are not numbers or words")
            words += [*self.scalar(n, k), *(values[i] if values is not None else self.scalar(n, v))]
        return words + [0, 0, 0, 0] * (MAP_MAX - len(m))

    def mapget(self, n: A.Index, m: dict[Any, Any] | list[Any], words: list[int]) -> None:
        self.fails[len(self.code)] = ("index", n.pos)
        self.maps[len(self.code)] = m
        self.code += [OP_MAPGET, *words]

    def e_Index(self, n: A.Index) -> None:
        c, m = self.compiler.constant(n.base)
        if c and isinstance(m, list):  # (a constant list: a map of its positions, counted from 0 and from the end)
            if len(m) > MAP_MAX // 2 or _cat(n.key) not in ("int", "none"):
                raise self.refuse(n, f"indexing a list of more than {MAP_MAX // 2} items, or by a {n.key.type}")
            self.e(n.key)
            self.mapget(n, m, self.map_words(n, {**dict(enumerate(m)), **{i - len(m): v for i, v in enumerate(m)}}))
            return
        if c and isinstance(m, dict):
            self.e(n.key)
            self.mapget(n, m, self.map_words(n, m))
            return
        if isinstance(n.base, A.Index):
            self.nested_index(n, n.base)
            return
        if _small_list(n.base) and _cat(n.key) in ("int", "none"):
            self.e(n.base)
            self.e(n.key)
            self.fails[len(self.code)] = ("index", n.pos)
            self.code += [OP_LISTITEM]
            return
        raise self.refuse(n, "indexing a value that is not a constant map or a list of seats or numbers")

    def nested_index(self, n: A.Index, inner: A.Index) -> None:
        """``m[a][b]`` with ``m`` a constant map of maps: ``a``'s entry (its position among the
        maps) into a local, ``b`` into another, then the map at that position indexed by ``b``
        (none for a none map or key), the compiler's order and errors."""
        c, m = self.compiler.constant(inner.base)
        if not (c and isinstance(m, dict) and all(v is None or isinstance(v, dict) for v in m.values())):
            raise self.refuse(n, "indexing a value that is not a constant map of maps")
        if self.nlocals + 2 > NLOCALS:
            raise self.refuse(n, f"more than {NLOCALS} definition arguments and map keys in one expression")
        at, self.nlocals = self.nlocals, self.nlocals + 2
        self.e(inner.key)
        self.mapget(inner, m, self.map_words(inner, m, [(T_INT, i) for i in range(len(m))]))
        self.code += [OP_STORE, at]
        self.e(n.key)
        self.code += [OP_STORE, at + 1]
        ends: list[int] = []
        for i, sub in enumerate(m.values()):
            self.code += [OP_LOAD, at, OP_CONST, T_INT, i, OP_BIN, BINS["eq"], OP_JFALSE_POP, -1]
            skip = len(self.code) - 1
            if sub is None:
                self.code += [OP_CONST, T_NONE, 0]
            else:
                self.code += [OP_LOAD, at + 1]
                self.mapget(n, sub, self.map_words(n, sub))
            self.code += [OP_JUMP, -1]
            ends.append(len(self.code) - 1)
            self.code[skip] = len(self.code)
        self.code += [OP_CONST, T_NONE, 0]  # (a none key of the outer map)
        for j in ends:
            self.code[j] = len(self.code)

    def e_Attr(self, n: A.Attr) -> None:
        if n.ref == A.Ref.PLAY_ATTR and isinstance(n.base, A.Name) and n.base.ref == A.Ref.CONTEXT \
                and n.base.name in PLAYS and n.attr in ATTRS:
            self.code += [OP_PLAYATTR, PLAYS[n.base.name], ATTRS[n.attr][0]]
            return
        raise self.refuse(n, f"the attribute {n.attr!r} of this value")

    def e_Unary(self, n: A.Unary) -> None:
        if n.impl == "not":
            self.truth_operand(n.operand)
            self.code += [OP_NOT]
            return
        if n.impl == "neg" and _cat(n.operand) in ("int", "seat"):
            self.e(n.operand)
            self.code += [OP_NEG]
            return
        raise self.refuse(n, f"the operator {n.impl!r}")

    def truth_operand(self, a: A.Node) -> None:
        """An operand whose truth is used: a play counts as present."""
        if isinstance(a, A.Name) and a.ref == A.Ref.CONTEXT and a.name in PLAYS:
            self.code += [OP_PLAYIS, PLAYS[a.name]]
        else:
            self.e(a)

    def e_Binary(self, n: A.Binary) -> None:
        impl = n.impl
        if impl in _MEMBERSHIP:
            self.b_member(n)
            return
        if impl in ("eq", "ne") and self.b_play_is(n):
            return
        self.check_operands(n)
        self.e(n.left)
        self.e(n.right)
        if impl in _OPS_TEXT:  # (what can fail: its text and position)
            self.fails[len(self.code)] = (impl, n.pos)
        self.code += [OP_BIN, BINS[impl]]

    def b_play_is(self, n: A.Binary) -> bool:
        """``top == none`` / ``top != none``: whether the play is there (True: emitted)."""
        plays = [x for x in (n.left, n.right) if isinstance(x, A.Name) and x.ref == A.Ref.CONTEXT and x.name in PLAYS]
        if not plays:
            return False
        c, v = self.compiler.constant(n.right if plays[0] is n.left else n.left)
        if len(plays) != 1 or not c or v is not None:
            raise self.refuse(n, "comparing plays")
        self.code += [OP_PLAYIS, PLAYS[plays[0].name]]
        if n.impl == "eq":
            self.code += [OP_NOT]
        return True

    def check_operands(self, n: A.Binary) -> None:
        """The operands' types are ones the instruction takes (else Unsupported, naming them)."""
        impl, cats = n.impl, {_cat(n.left), _cat(n.right)}
        if impl in ("eq", "ne"):
            lists = [x for x in (n.left, n.right) if _cat(x) == "list"]
            ok, what = all(_small_list(x) for x in lists) and cats <= _EQ_CATS, "comparing"
        elif impl in BINS and impl[:3] in ("lt_", "le_", "gt_", "ge_"):
            ok, what = cats <= _ORDER_CATS[impl[3:]], "ordering"
        elif impl in ("concat", "remove", "keep"):
            ok, what = _small_list(n.left) and _small_list(n.right), impl
        elif impl == "div":
            if id(n) not in self.tails:
                raise self.refuse(n, "a division (/) whose fraction is computed with further")
            ok, what = cats <= _NUMBERS, "division of"
        elif impl in ("add", "sub", "mul", "floordiv", "mod"):
            ok, what = cats <= _NUMBERS, "arithmetic on"
        else:
            raise self.refuse(n, f"the operator {impl!r}")
        if not ok:
            raise self.refuse(n, f"{what} {n.left.type} and {n.right.type}")

    def b_member(self, n: A.Binary) -> None:
        """``x in list`` (and map keys): a seat set's bits, a constant set of ranks or small numbers
        as a mask, or a small list."""
        r, cl = n.right, _cat(n.left)
        c, v = self.compiler.constant(r)
        if isinstance(r, A.Name) and r.ref == A.Ref.GLOBAL and r.name in SETS and cl in ("seat", "int", "none"):
            self.e(n.left)
            self.code += [OP_INSET, SETS[r.name]]
        elif c and isinstance(v, (list, dict)) and v:
            keys = list(v)
            if all(isinstance(k, str) and k in self.kidx for k in keys) and len(self.kinds) <= 64:
                kind, bits = 0, [self.kidx[k] for k in keys]
            elif all(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 64 for k in keys):
                kind, bits = 1, keys
            else:
                raise self.refuse(n, "membership in a list of other values")
            if cl not in ("rank", "text", "int", "seat", "bool", "none"):
                raise self.refuse(n, f"membership of a {n.left.type}")
            self.e(n.left)
            self.code += [OP_INMASK, kind, *_mask_words(sum(1 << b for b in set(bits)))]
        elif _small_list(r):
            self.e(n.left)
            self.e(r)
            self.code += [OP_INLIST]
        else:
            raise self.refuse(n, "membership in this list")
        if n.impl.startswith("not"):
            self.code += [OP_NOT]

    def e_BoolOp(self, n: A.BoolOp) -> None:
        is_and = n.op == A.BoolOpKind.AND
        live: list[A.Node] = []
        for o in n.operands:
            c, v = self.compiler.constant(o)
            if c and bool(v) != is_and:  # (decided: the whole is constant, handled by e())
                self.const(n, not is_and)
                return
            if not c:
                live.append(o)
        if not live:
            self.const(n, is_and)
            return
        jumps: list[int] = []
        for i, o in enumerate(live):
            self.truth_operand(o)
            self.code += [OP_TRUTH]
            if i < len(live) - 1:
                self.code += [OP_JFALSE_KEEP if is_and else OP_JTRUE_KEEP, -1]
                jumps.append(len(self.code) - 1)
        for j in jumps:
            self.code[j] = len(self.code)

    def e_Cond(self, n: A.Cond) -> None:
        c, v = self.compiler.constant(n.cond)
        if c:
            self.e(n.then if v else n.other)
            return
        self.truth_operand(n.cond)
        self.code += [OP_JFALSE_POP, -1]
        at_else = len(self.code) - 1
        self.e(n.then)
        self.code += [OP_JUMP, -1]
        at_end = len(self.code) - 1
        self.code[at_else] = len(self.code)
        self.e(n.other)
        self.code[at_end] = len(self.code)


_CALLS: dict[str, Any] = {
    **{f: _Emitter.c_seatfn for f in SEAT_FNS}, **{f: _Emitter.c_listfn for f in LIST_FNS},
    **{f: _Emitter.c_kind_count for f in ("holds", "dealt", "received", "held_at_least", "dealt_at_least")},
    **{f: _Emitter.c_kinds for f in ("holds_of", "dealt_of", "first_held", "first_holding", "with_held")},
    **{f: _Emitter.c_flag for f in ("flag", "prev_flag", "counter", "prev_counter", "flagged", "next_active_without")},
    **{f: _Emitter.c_fused for f in ("first", "sorted_places", "active_of", "fewest_cards_first")},
    **{f: _Emitter.c_minmax for f in ("min", "max")}, **{f: _Emitter.c_seat_pair for f in ("prev_burns", "prev_counter_burns")},
    "coalesce": _Emitter.c_coalesce, "with_at_least": _Emitter.c_with_at_least, "count": _Emitter.c_count,
    "random_seat": _Emitter.c_random_seat, "shown_leader": _Emitter.c_shown_leader, "sum_places": _Emitter.c_sum_places,
    "max_dealt": _Emitter.c_max_dealt, "cards_of": _Emitter.c_cards_of, "min_dealt_at_least": _Emitter.c_min_dealt_at_least,
}
_MEMBERSHIP = frozenset({"in_list", "not_in_list", "in_any", "not_in_any", "in_map", "not_in_map"})
_NUMBERS = frozenset({"int", "seat", "none"})
_EQ_CATS = frozenset({"int", "seat", "bool", "rank", "text", "none", "list", "any"})  # (any: whatever the VM holds)
#: the operand types each order takes (the VM fails the others with the compiler's text)
_ORDER_CATS = {"int": _NUMBERS, "rank": frozenset({"rank", "text", "none"}),
               "any": frozenset({"int", "seat", "rank", "text", "none", "bool", "any"})}
_KIND_COUNTS = {"holds": [OP_HOLDS], "dealt": [OP_DEALT], "received": [OP_RECEIVED], "held_at_least": [OP_ATLEAST, 0],
                "dealt_at_least": [OP_ATLEAST, 1]}
#: the functions of a flag or counter name: their instruction, and the none result it gives
_FLAG_FNS: dict[str, tuple[int, Any]] = {"flag": (OP_FLAG, False), "prev_flag": (OP_PREVFLAG, False), "counter": (OP_COUNTER, 0),
                                         "prev_counter": (OP_PREVCOUNTER, 0), "flagged": (OP_FLAGGED, []),
                                         "next_active_without": (OP_NEXTWITHOUT, None)}
_FUSED = {"count": OP_LEN, "first": OP_FIRST, "sorted_places": OP_SORTEDPLACES, "active_of": OP_ACTIVEOF,
          "fewest_cards_first": OP_FEWEST}


def _mask_words(mask: int) -> list[int]:
    """A 64-bit mask as two signed 32-bit words, low first."""
    lo, hi = mask & 0xFFFFFFFF, mask >> 32
    return [lo - (1 << 32) if lo >= INT32 else lo, hi - (1 << 32) if hi >= INT32 else hi]


def _small_list(n: A.Node) -> bool:
    """A list the core holds: of seats or whole numbers (or none)."""
    t = strip(n.type) if n.type is not None else None
    if t is not None and category(t) == "none":
        return True
    return isinstance(t, ListOf) and category(t.elem) in ("int", "seat", "none")


def _cat(n: A.Node) -> str:
    return category(n.type) if n.type is not None else "any"


#: vocabulary functions that may fail (EvalError) or draw from the game's generator
_FALLIBLE_FNS = frozenset({"sum_places", "random_seat"})


def _infallible(n: A.Node, defs: Any = None, depth: int = 0) -> bool:
    """No operator under ``n`` can fail or draw (no division, index, failing function; a
    definition's body counts as what it calls): evaluating it or not changes nothing."""
    for x in A.walk(n):
        if isinstance(x, A.Index) or isinstance(x, A.Binary) and x.impl in ("floordiv", "mod", "div"):
            return False
        if isinstance(x, (A.Call, A.Name)) and x.ref == A.Ref.DEFINITION:
            info = defs.definitions.get(x.func if isinstance(x, A.Call) else x.name) if defs is not None else None
            if info is None or info.body is None or depth > 16 or not _infallible(info.body, defs, depth + 1):
                return False
        elif isinstance(x, A.Call) and (x.ref != A.Ref.FUNCTION or x.func in _FALLIBLE_FNS):
            return False
    return True


def emit(graph: RuleGraph, tree: A.Node) -> HookProgram:
    """The program of one checked expression of ``graph`` (Unsupported: what it does not express)."""
    em = _Emitter(graph)
    todo = [tree]
    while todo:  # (the answer's own nodes: the root and the branches of its conditionals)
        t = todo.pop()
        em.tails.add(id(t))
        if isinstance(t, A.Cond):
            todo += [t.then, t.other]
    em.e(tree)
    em.code.append(OP_RET)
    _peephole(em)
    # (a program that jumps to its very end needs an instruction there: the jumps of a trailing
    # and/or land on the RET)
    code = array("i", em.code).tobytes()
    core = _core_module()
    if len(em.code) > core.MAX_CODE:
        raise Unsupported(f"an expression of {len(em.code)} words: the core's programs hold at most {core.MAX_CODE}")
    if not core.vm_verify(code, len(em.kinds)):
        raise Unsupported(f"the emitted program does not pass the verifier (an emitter bug): {A.unparse(tree)}")
    return HookProgram(code, em.fails, em.maps, A.unparse(tree), em.draws)


_JUMPS = (OP_JFALSE_KEEP, OP_JTRUE_KEEP, OP_JFALSE_POP, OP_JUMP)
_BOOL_BINS = frozenset(BINS[b] for b in ("eq", "ne", "lt_int", "le_int", "gt_int", "ge_int", "lt_rank", "le_rank", "gt_rank",
                                          "ge_rank", "lt_any", "le_any", "gt_any", "ge_any"))
_BOOL_FNS = frozenset(SEAT_FNS[f] for f in ("active", "out", "revolted", "passed"))


def _bool_result(op: int, args: list[int]) -> bool:
    """The instruction always pushes a bool."""
    return (op in (OP_NOT, OP_TRUTH, OP_PLAYIS, OP_INSET, OP_INMASK, OP_FLAG, OP_PREVFLAG, OP_INLIST)
            or (op in (OP_BIN, OP_BINK) and args[0] in _BOOL_BINS) or (op == OP_SEATFN and args[0] in _BOOL_FNS)
            or (op == OP_CONST and args[0] == T_BOOL))


def _peephole(em: _Emitter) -> None:
    """Fewer instructions for the same values: drop a TRUTH after an instruction that already
    pushes a bool, NOT NOT is TRUTH (or nothing after a bool), a constant then a binary operator is
    one OP_BINK, STORE k then LOAD k is OP_TEE k; never across a jump target. Jump targets and
    the failure tables move with the code."""
    code = em.code
    op_args = _core_module().OP_ARGS  # (the operand counts of vm.h)
    instrs: list[tuple[int, int, list[int]]] = []
    pc = 0
    while pc < len(code):
        op = code[pc]
        n = op_args[op]
        instrs.append((pc, op, code[pc + 1:pc + 1 + n]))
        pc += 1 + n
    targets = {args[0] for _, op, args in instrs if op in _JUMPS}
    keep: list[tuple[int, int, list[int]]] = []
    for pc, op, args in instrs:
        if pc not in targets and keep and _fuse(em, keep, pc, op, args, targets):
            continue
        keep.append((pc, op, args))
    if len(keep) == len(instrs):
        return
    new_pc: dict[int, int] = {}
    at = 0
    for pc, _op, args in keep:
        new_pc[pc] = at
        at += 1 + len(args)
    out: list[int] = []
    for _pc, op, args in keep:
        out += [op, *([new_pc[args[0]]] if op in _JUMPS else args)]
    em.code = out
    em.fails = {new_pc[k]: v for k, v in em.fails.items()}
    em.maps = {new_pc[k]: v for k, v in em.maps.items()}


def _fuse(em: _Emitter, keep: list[tuple[int, int, list[int]]], pc: int, op: int, args: list[int], targets: set[int]) -> bool:
    """Fold the instruction at ``pc`` (no jump lands on it) into the ones kept (True: done)."""
    ppc, pop, pargs = keep[-1]
    if op == OP_TRUTH and _bool_result(pop, pargs):
        return True
    if op == OP_NOT and pop == OP_NOT:
        if ppc not in targets and len(keep) > 1 and _bool_result(keep[-2][1], keep[-2][2]):
            keep.pop()
        else:
            keep[-1] = (ppc, OP_TRUTH, [])
        return True
    if op == OP_BIN and pop == OP_CONST:
        keep[-1] = (ppc, OP_BINK, [args[0], *pargs])
        if pc in em.fails:
            em.fails[ppc] = em.fails.pop(pc)
        return True
    if op == OP_LOAD and pop == OP_STORE and pargs == args:
        keep[-1] = (ppc, OP_TEE, args)
        return True
    return False


# ------------------------------------------------------------------------------ contexts
def _tagged(v: Any, kidx: dict[str, int], table: Names) -> tuple[int, int]:
    if v is None:
        return T_NONE, 0
    if isinstance(v, bool):
        return T_BOOL, int(v)
    if isinstance(v, int):
        return T_INT, v
    if isinstance(v, str) and v in kidx:
        return T_RANK, kidx[v]
    if isinstance(v, str):
        return T_TEXT, table.text(v)
    raise Unsupported(f"a context value {v!r}")


def pack_context(graph: RuleGraph, ctx: Any) -> bytes:
    """The flat context of an interpreter ``Ctx`` (its game ``ctx.g`` and its bindings)."""
    core = _core_module()
    g = ctx.g
    kinds = tuple(graph.model.kinds)
    kidx = {k: i for i, k in enumerate(kinds)}
    table = names(graph)
    L = core.LAYOUT
    w = [0] * core.CTX_LEN
    w[0:4] = [g.n_seats, g.n_teams, len(kinds), graph.model.n_ranks]
    _pack_bindings(w, L, core, ctx, kidx, table)
    for s, place in g.places.items():
        w[L["place"] + s] = place
    for s in g.seat_list:
        for k, n in enumerate(g.hands[s]):
            w[L["hands"] + s * core.MAX_KINDS + k] = n
    _pack_sets(w, L, core, g)
    strength = graph._compiler.strength  # (the rank order the compiler's operators use)
    for kind, ki in kidx.items():
        w[L["strength"] + ki] = strength[kind]
    _pack_marks(w, L, core, g, table)
    _pack_seats(w, L, core, g, kidx)
    _pack_burns(w, L, core, g)
    return array("q", w).tobytes()


def _pack_bindings(w: list[int], L: dict[str, int], core: Any, ctx: Any, kidx: dict[str, int], table: Names) -> None:
    """The question's and the game's variables (slots), and the plays it may look at."""
    g = ctx.g
    vals = {"kind": ctx.kind, "seat": ctx.seat, "target": ctx.target, "leading": ctx.leading, "amount": ctx.amount, "round": ctx.round,
            "card": ctx.card, "leader": g.trick_leader, "burner": g.burner, "game_number": g.game_number,
            "places_taken": len(g.places), "trick_number": g.trick_no, "prev_sweep": bool(g.prev and g.prev.sweep),
            "first_game": g.prev is None, "choice": ctx.choice, "answer": ctx.answer}
    for name, slot in SLOTS.items():
        w[L["vars"] + 2 * slot], w[L["vars"] + 2 * slot + 1] = _tagged(vals[name], kidx, table)
    _check_at(L["vars"] + 2 * core.NSLOTS, L, "present")
    _check_at(L["present"] + core.NPLAYS, L, "attrs")
    plays = {"play": ctx.play, "top": ctx.top, "beaten": ctx.beaten}
    for name, p in PLAYS.items():
        tp = plays[name]
        if tp is None:
            continue
        w[L["present"] + p] = 1
        for a, field in ATTRS.values():
            v = tp.play.pure_jokers if field is None else getattr(tp, field)
            base = L["attrs"] + 2 * (p * core.NATTRS + a)
            w[base], w[base + 1] = _tagged(v, kidx, table)
        for k, n in enumerate(tp.play.counts):
            w[L["play_counts"] + p * core.MAX_KINDS + k] = int(n)


def _pack_sets(w: list[int], L: dict[str, int], core: Any, g: Any) -> None:
    """The game's seat sets: bits, sizes and orders."""
    sets = {"all_seats": list(g.seat_list), "active_seats": g.active_list(), "finished": list(g.finish_order),
            "revolted_seats": sorted(g.revolted), "passed_seats": sorted(g.passed),
            "finished_in_trick": list(g.finished_in_trick)}
    for name, i in SETS.items():
        w[L["set_bits"] + i] = sum(1 << s for s in set(sets[name]))
        w[L["set_count"] + i] = len(sets[name])
        for j, s in enumerate(sets[name][:core.MAX_SEATS]):
            w[L["set_order"] + i * core.MAX_SEATS + j] = s


def _pack_marks(w: list[int], L: dict[str, int], core: Any, g: Any, table: Names) -> None:
    """Flags (this game's, the previous one's) and counters (both) of the names the programs use."""
    seats = range(1, core.MAX_SEATS + 1)
    prev_flags = g.prev.flags if g.prev is not None else {}
    for name, f in list(table.flags.items()):
        w[L["flags"] + f] = sum(1 << s for s in seats if s in g.flags.get(name, ()))
        w[L["prev_flags"] + f] = sum(1 << s for s in seats if s in prev_flags.get(name, ()))
    for name, k in list(table.counters.items()):
        for key, counts in (("counters", g.counters), ("prev_counters", g.prev.counters if g.prev is not None else {})):
            for s, v in counts.get(name, {}).items():
                if isinstance(s, int) and 1 <= s <= core.MAX_SEATS:
                    if not (isinstance(v, int) and not isinstance(v, bool) and -2**53 < v < 2**53):
                        raise Unsupported(f"the counter {name!r} holds {v!r}" + (" (previous game)" if key != "counters" else ""))
                    w[L[key] + k * (core.MAX_SEATS + 1) + s] = v


def _pack_seats(w: list[int], L: dict[str, int], core: Any, g: Any, kidx: dict[str, int]) -> None:
    """Per seat: as dealt, received, the previous game's place, what it showed in the deal."""
    for s in g.seat_list:
        for k, n in enumerate(g.dealt[s]):
            w[L["dealt"] + s * core.MAX_KINDS + k] = n
        for sym, n in g.received.get(s, {}).items():
            if sym in kidx:
                w[L["received"] + s * core.MAX_KINDS + kidx[sym]] = n
        if g.prev is not None and g.prev.places.get(s):
            w[L["prev_place"] + s] = g.prev.places[s]
        for sym, (n, when) in _shown(g, s).items():
            if sym in kidx:
                w[L["shown_n"] + s * core.MAX_KINDS + kidx[sym]] = n
                w[L["shown_t"] + s * core.MAX_KINDS + kidx[sym]] = when


def _shown(g: Any, s: int) -> dict[str, tuple[int, int]]:
    """What seat ``s`` showed during the deal, per kind (interpreter.shown_leader's two figures)."""
    tops: dict[str, tuple[int, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for i, c in enumerate(g.dealt_cards.get(s, [])):
        if not c.suit:
            continue
        n = seen[(c.symbol, c.suit)] = seen.get((c.symbol, c.suit), 0) + 1
        if n > tops.get(c.symbol, (0, 0))[0]:
            tops[c.symbol] = (n, s if g.source == "fixed" else i * g.n_seats + s)
    return tops


def _pack_burns(w: list[int], L: dict[str, int], core: Any, g: Any) -> None:
    """The previous game's successful burns (and counter-burns) per burner and burned seat."""
    if g.prev is None:
        return
    side = core.MAX_SEATS + 1
    for b in g.prev.burns:
        s, t = b.get("burner"), b.get("burned")
        if not (b.get("success") and isinstance(s, int) and isinstance(t, int) and 1 <= s <= core.MAX_SEATS
                and 1 <= t <= core.MAX_SEATS):
            continue
        w[L["prev_burns"] + s * side + t] += 1
        if b.get("counter"):
            w[L["prev_burns"] + side * side + s * side + t] += 1


def _check_at(at: int, layout: dict[str, int], key: str) -> None:
    if at != layout[key]:  # pragma: no cover - the C layout and this packing disagree
        raise RuntimeError(f"context layout: {key} at {at}, the core reads it at {layout[key]}")


def evaluate(prog: HookProgram, graph: RuleGraph, packed: bytes, rng: Any = None) -> Any:
    """Run ``prog`` on a packed context: the value as the compiler gives it, or its EvalError
    (``rng``: the game's generator as a native Random, for a program that draws)."""
    status, pc, tag, value, atag, avalue = _core_module().vm_eval(prog.code, packed, rng)
    if status == 0:
        return _value(graph, tag, value)
    _fail(prog, status, pc, tag, value, graph, (atag, avalue))
    raise AssertionError("unreachable")  # pragma: no cover


def _value(graph: RuleGraph, tag: int, value: int) -> Any:
    if tag == T_NONE:
        return None
    if tag == T_BOOL:
        return bool(value)
    if tag == T_INT:
        return value
    if tag == T_TEXT:
        return _text_of(graph, value)
    if tag == T_LIST:
        items = [(value >> (4 + 4 * i)) & 15 for i in range(value & 15)]
        return [None if x == 15 else x for x in items]
    if tag == T_FLOAT:
        return struct.unpack("<d", struct.pack("<q", value))[0]
    if tag == T_TLIST:
        return [_text_of(graph, (value >> (4 + 8 * i)) & 255) for i in range(value & 15)]
    return graph.model.kinds[value]


def _text_of(graph: RuleGraph, i: int) -> str:
    for s, j in names(graph).texts.items():
        if j == i:
            return s
    raise Unsupported(f"the native program answered text {i}, which no rule names")


# ------------------------------------------------------------------------------ hooks
EFF_ALLOW, EFF_DENY, EFF_REQUIRE, EFF_VALUE = range(4)
_PERMIT_EFFECTS = {"allow": EFF_ALLOW, "deny": EFF_DENY, "require": EFF_REQUIRE}


@dataclass(frozen=True)
class HookPlan:
    """A permit or value hook of one ruleset as the core asks it: its rules' guards and effect
    programs, in the rule graph's order."""

    hook: str
    kind: int  # 0 permit, 1 value
    rules: tuple[tuple[bytes | None, int, bytes], ...]
    programs: tuple[tuple[HookProgram | None, HookProgram], ...]
    compiled: tuple[Any, ...]  # the rule graph's compiled rules (for RuleFailed)
    default: Any

    @property
    def draws(self) -> bool:
        """A rule of the hook draws from the game's generator."""
        return any(e.draws or (w is not None and w.draws) for w, e in self.programs)


def plan(graph: RuleGraph, hook: str) -> HookPlan:
    """The plan of ``hook`` (Unsupported: a rule the programs do not express, named)."""
    from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
    spec = HOOKS[hook]
    if spec.kind == HookKind.TRIGGER:
        raise Unsupported(f"the trigger hook {hook!r} (mark / count / place / give rules are run by the game flow)")
    kind = 0 if spec.kind == HookKind.PERMIT else 1
    rules, programs = [], []
    for r in graph.by_hook[hook]:
        node = r.node
        if kind == 0 and node.effect not in _PERMIT_EFFECTS:
            raise Unsupported(f"the effect {node.effect!r} of rule {node.id} in a permit hook")
        try:
            when = emit(graph, node.checked["when"]) if "when" in node.checked else None
            eff = emit(graph, node.checked["effect"])
        except KeyError:
            raise Unsupported(f"rule {node.id} ({node.where}) has no effect expression") from None
        except Unsupported as e:
            raise Unsupported(f"rule {node.id} ({node.where}): {e}") from None
        rules.append((when.code if when else None, _PERMIT_EFFECTS.get(node.effect, EFF_VALUE), eff.code))
        programs.append((when, eff))
    return HookPlan(hook, kind, tuple(rules), tuple(programs), tuple(graph.by_hook[hook]), spec.default)


def ask(p: HookPlan, graph: RuleGraph, ctx: Any, packed: bytes | None = None, rng: Any = None) -> Any:
    """The hook's answer natively, as ``graph.permit`` / ``graph.value`` give it (the same
    RuleFailed, naming the rule and its line, when a rule fails or answers outside the question).
    ``rng``: the game's generator as a native Random (a rule that draws, ``random_seat()``, draws
    from it; without one such a rule is Unsupported)."""
    if packed is None:
        packed = pack_context(graph, ctx)
    status, rule, in_when, pc, tag, value, atag, avalue = _core_module().hook_eval(p.kind, list(p.rules), T_BOOL,
                                                                      int(bool(p.default)) if p.kind == 0 else 0, packed,
                                                                      rng)
    if status != 0:
        when, eff = p.programs[rule]
        prog = when if in_when else eff
        assert prog is not None
        try:
            _fail(prog, status, pc, tag, value, graph, (atag, avalue))
        except EvalError as e:
            raise graph._failed(p.compiled[rule], e, ctx) from None
    if p.kind == 0:
        return bool(value)
    if rule < 0:
        return p.default
    v = _value(graph, tag, value)
    chk = graph._checks[p.hook]
    if chk is not None:
        bad = chk(v)
        if bad:
            raise graph._failed(p.compiled[rule], EvalError(bad), ctx)
    return v


def _cannot(fail: tuple[str, SourcePos], x: Any, y: Any, graph: RuleGraph) -> EvalError:
    """ops' error for an order or arithmetic of values it does not take (VM_CANNOT)."""
    impl, pos = fail
    op = _OPS_TEXT[impl]
    kinds = graph.model.kinds
    if impl.endswith("_rank") or (impl.endswith("_any") and isinstance(x, str) and isinstance(y, str)):
        return EvalError(ops.compare_kinds_text(x, op, y, y if x in kinds else x), pos)
    if impl.endswith("_any"):
        return EvalError(ops.compare_text(x, op, y), pos)
    if impl.endswith("_int"):
        return EvalError(ops.compare_numbers_text(x, op, y), pos)
    return EvalError(ops.compute_text(x, op, y), pos)


def _fail(prog: HookProgram, status: int, pc: int, tag: int, value: int, graph: RuleGraph, aux: tuple[int, int] = (0, 0)) -> None:
    if status == 5 and pc in prog.maps:  # (the vocabulary's own error: no position)
        table = prog.maps[pc]
        raise EvalError(no_place_text(value, table))
    if status in (4, 6) and pc in prog.fails:  # a key no map holds, an item no list has (ops.index_impl's texts)
        key = _value(graph, tag, value)
        where = prog.fails[pc][1]
        seq = prog.maps.get(pc) if status == 4 else _value(graph, *aux)
        if isinstance(seq, list):
            raise EvalError(ops.no_item_text(key, seq), where, Code.MISSING_KEY)
        if seq is not None:
            raise EvalError(ops.no_key_text(key, seq), where, Code.MISSING_KEY)
    if status == 7 and pc in prog.fails:
        raise EvalError(ops.list_index_text(_value(graph, tag, value)), prog.fails[pc][1])
    if status == 8 and pc in prog.fails:
        raise _cannot(prog.fails[pc], _value(graph, tag, value), _value(graph, *aux), graph)
    if status == 1 and pc in prog.fails:
        op, pos = prog.fails[pc]
        raise EvalError(ops.division_by_zero_text(value, _OPS_TEXT[op]), pos, Code.DIVISION_BY_ZERO)
    raise Unsupported(f"the native program of {prog.text!r} met a value it does not handle (status {status} at {pc})")
