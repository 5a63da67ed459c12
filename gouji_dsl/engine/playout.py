"""Template of the generated play-out module: the interpreter's game loop, written once, that
:mod:`gouji_dsl.engine.codegen` specialises for one ruleset.

The generator replaces the block between the ``generated: begin`` / ``generated: end`` markers
with the ruleset's tables and its hooks as straight-line functions (settings folded, definitions
inlined, a comment with the rule id and file:line on each), and compiles the result into one module
per ruleset. This file is valid Python on its own (the block holds stubs) so that it is linted and
type-checked like any other module; it is never used unspecialised.

State: a game is an ordinary :class:`~gouji_dsl.engine.interpreter.GameState` (the same attributes,
so the interpreter can explain, check or continue any state the play-out left, and bots see the
state they know). What differs is how it is driven: no per-question context objects, no ``Move``
objects for bots that do not look at them (random bots draw an index into a lazily counted move
list), answers generated from per-ruleset tables (joker readings, cover results per pair of joker
parts), a quick path for forced passes, and a compact event log. Events are kept in
``state.record`` as tuples while the play-out runs; :func:`render_record` turns them into the
interpreter's event dicts when asked.

Every function here mirrors the interpreter method of the same name (``_advance`` mirrors
``GameState._advance``...): the interpreter is the reference semantics, and
``tests/test_differential.py`` plays every bundled ruleset through both, game by game.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.engine.fastops import _FN, _G, _GV, _AmountOf, _coalesce, _raise  # noqa: F401 - called by the hooks
from gouji_dsl.engine.interpreter import MAX_REDEALS, GameState, LegalMoves, Move, PrevGame, _num, choices_at, counters_reset, kept_counters
from gouji_dsl.lang.ops import OPS, EvalError, Semantics, attr_impl, index_impl  # noqa: F401 - raised by the hooks
from gouji_dsl.ruleset.game.cards import Card
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.model import CardModel, Play
from gouji_dsl.ruleset.game.terms import Capacity, Phase, Placement, Verb
from gouji_dsl.ruleset.graph import MAX_SETUP_ROUNDS, PLACE_TYPE, PLACE_WORDS, RuleGraph  # noqa: F401 - read by the hooks


def _bind(name: str, pos: SourcePos | None) -> Any:
    """The operator table's function ``name`` with this ruleset's rank order and its position."""
    return OPS[name].make(Semantics(STRENGTH, pos))


def _index_fn(pos: SourcePos | None) -> Any:
    return index_impl(Semantics(STRENGTH, pos))


def _attr_fn(attr: str, pos: SourcePos | None) -> Any:
    return attr_impl(Semantics(STRENGTH, pos), attr, None)


def _amount(v: Any) -> int:
    """An amount checked as the interpreter checks it (a whole number, not none)."""
    return GRAPH._amount(_AmountOf(v), None)  # type: ignore[arg-type]


class _RuleRef:
    __slots__ = ("node",)

    def __init__(self, node: Any):
        self.node = node


def _rule_failed(i: int, e: BaseException, S: GameState, amount: int = 0, **ctx: Any) -> Exception:
    """The error of rule ``i`` failing while the game ran, as the interpreter reports it
    (:class:`~gouji_dsl.ruleset.graph.RuleFailed`: the rule, its line and the question's values)."""
    c = Ctx(S, **ctx)
    c.amount = amount
    return GRAPH._failed(_RuleRef(RULES[i]), e, c)  # type: ignore[arg-type]


# ---- generated: begin
# (stubs: the generator replaces this block with the ruleset's tables and hooks)
GRAPH: RuleGraph = None  # type: ignore[assignment]
MODEL: CardModel = None  # type: ignore[assignment]
N: int = 6
N_TEAMS: int = 2
SEATS: tuple[int, ...] = ()
AFTER: dict[int, tuple[int, ...]] = {}
KINDS: tuple[str, ...] = ()
KIDX: dict[str, int] = {}
STRENGTH: dict[str, int] = {}
NR: int = 13
K: int = 15
FILLER: int | None = None
COVER_MODEL: bool = True
SAME_COUNT: bool = True
SPARE_FOR_RANK: bool = True
HAS_PLAY: bool = False
HAS_DISCARD: bool = False
PLAY_RANKS: frozenset[int] | None = None  # ranks whose plays the play rules may forbid (None: any)
PLAY_RANKS_JOKERS: bool = True  # ... and whether pure joker plays are among them
DISCARD_RANKS: tuple[int, ...] = ()  # the kinds a discard rule can allow throwing away
BURN_LEAD_BY_JOKERS: bool = False  # the burn_lead rules read only a play's jokers and whether it empties the hand
RULES: list[Any] = []


def h_permit(S: GameState, *args: Any) -> bool: raise NotImplementedError


def h_value(S: GameState, *args: Any) -> Any: raise NotImplementedError


def h_trigger(S: GameState, *args: Any) -> None: raise NotImplementedError


h_revolt = h_declare = h_choose = h_follow = h_yield = h_burn = h_see_count = h_see_hand = h_offer = h_permit
h_play = h_burn_lead = h_discard = c_play = c_burn_lead = c_discard = h_permit
h_first_leader = h_tribute_kinds = h_tribute = h_tribute_card = h_return_tribute = h_must_revolt = h_value
h_first_drawer = h_setup_rounds = h_unfinished_order = h_value
h_redeal = h_follow_order = h_yield_to = h_burn_order = h_no_lead = h_match_length = h_redeal_before_tribute = h_value
h_burn_failure = h_next_leader = h_revolution_place = h_game_over = h_sweep = h_score = h_value
t_seat_setup = t_game_start = t_seat_start = t_after_play = t_trick_won = t_finish = h_trigger
t_answered = t_after_return = t_after_pass = t_after_yield = t_after_discard = h_trigger
# ---- generated: end

DECK: list[Card] = MODEL.deck() if MODEL is not None else []
HAS_AFTER_PASS = bool(GRAPH.by_hook["after_pass"]) if MODEL is not None else False  # (a pass then runs rules)
HAS_AFTER_YIELD = bool(GRAPH.by_hook["after_yield"]) if MODEL is not None else False
HAS_AFTER_DISCARD = bool(GRAPH.by_hook["after_discard"]) if MODEL is not None else False
TRICK_COUNTERS = counters_reset(GRAPH, "trick") if MODEL is not None else []  # (started again each trick)
_KEPT_BY_DEAL = ("game", "match")
_SHUFFLE = [(i, i + 1, (i + 1).bit_length()) for i in range(len(DECK) - 1, 0, -1)]  # (the shuffle's draws)
JC_ALL: list[tuple[int, ...]] = []
JC_INDEX: dict[tuple[int, ...], int] = {}
JC_N: list[int] = []
PLAY_JOKERS: list[tuple[int, ...]] = []
_JBYSUM: dict[tuple[int, ...], dict[int, list[int]]] = {}
_JFLAT: dict[tuple[int, ...], list[int]] = {}
_COVER: dict[tuple[int, ...], list[int]] = {}
_OKC: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[int, list[int]]] = {}
_FREE: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[int, list[int]]] = {}
_HB: list[Any] = [None] * (N + 1)  # per seat: what answering needs of its hand (see _hand_info)
_GONE: set[int] = set()  # the seats out in the state being played (see _recount; never changed in place)
_OUT = [0]  # how many (see _recount)
_LEFT = N  # how many are still playing (see _recount; what count(active seats) reads)
MAXK = max(MODEL.deck_counts[:NR], default=0) if MODEL is not None else 0  # the most cards of one rank a hand can hold
_RT: dict[int, tuple[Any, ...]] = {}  # answers by rank group size (see _rank_table)
_RT_MAX = 1024  # tables kept at most (about 2 MB; 4,096 held about 9 MB, reached only after tens of thousands
# of deals: worker memory crept for as long): the keys are finite but many; emptied when full. Rebuilding
# costs no measurable CPU: 3,000 random-bot paired deals, 11.1-11.2 s with 16,452 tables built, 11.1-11.6 s with 2,804
_KEY_IDS: dict[Any, int] = {}  # (numbers stay far below 2**24: a key is two of them)
_TINFO: dict[Play, tuple[Any, ...]] = {}
_PINFO: dict[Play, tuple[Any, ...]] = {}  # per play: what playing it needs (see _play_info)
_NO_MOVES: list[Any] = []  # (no discards: never changed)
_BL = tuple(i.bit_length() for i in range(4096))  # (bits drawn for a choice among i moves)
_NEW = object.__new__
_SYMBOL = attrgetter("symbol")
# the phases and turn roles the hot paths test by identity (every assignment uses the members; the
# play-out's entry makes sure of it for a state that comes from elsewhere)
_PLAYING, _OVER = Phase.PLAY, Phase.OVER
_LEAD, _FOLLOW, _BURN = Capacity.LEAD, Capacity.FOLLOW, Capacity.BURN
_CODE_PLAY: dict[tuple[int, int, int, int], Play] = {}
_CODE_KEY: dict[tuple[int, int, int, int], tuple[int, ...]] = {}
_PASS_MOVE = {s: Move(s, Verb.PASS) for s in SEATS}  # (moves and log entries are immutable: one per seat)
_YIELD_MOVE = {s: Move(s, Verb.YIELD) for s in SEATS}
_PASS_EVENT = {s: ("move", s, "pass", None, "") for s in SEATS}
_YIELD_EVENT = {s: ("move", s, "yield", None, "") for s in SEATS}


class _Entries(dict):  # type: ignore[type-arg]
    """Seat queue entries ``(seat, turn role)``, made once per seat (a queue is built by looking
    them up); any other value a rule answers gets its entry as the interpreter makes it."""

    def __init__(self, role: str):
        super().__init__()
        self.role = role

    def __missing__(self, s: Any) -> tuple[Any, str]:
        got = self[s] = (s, self.role)
        return got


_FOLLOW_ENTRY = _Entries("follow").__getitem__
_BURN_ENTRY = _Entries("burn").__getitem__
_VERB = {"play", "burn", "discard", "return"}
_PLACEMENTS = frozenset(Placement)
#: the play phase with random bots in the native core (gouji_dsl/engine/native/flow.py installs it
#: for a ruleset it plays; None: _random_run plays it here)
_NATIVE_RUN: Callable[..., int] | None = None
#: the seats of the choosers whose bots the native core plays too (its heuristic bot), seat → policy;
#: installed with _NATIVE_RUN (None: no chooser is played natively)
_NATIVE_SEATS: Callable[[dict[int, Any]], dict[int, Any]] | None = None
#: the deal in the native core (installed with _NATIVE_RUN): the game's generator is the core's
#: Random (the same draws as random.Random: shuffle, randint, getstate), seeded from a text seed in
#: C, and the pack is shuffled and counted per seat there (``_core.deal``: random.Random.shuffle's
#: permutation); None: random.Random and the shuffle below
_NATIVE_RANDOM: Any = None
_NATIVE_DEAL: Any = None
_DECK_KINDS = bytes(KIDX[c.symbol] for c in DECK) if MODEL is not None else b""


# ------------------------------------------------------------------------------ tables
def _jc_index(jc: tuple[int, ...]) -> int:
    """The index of a joker combination in ``JC_ALL`` (added on first sight, with its reading)."""
    i = JC_INDEX.get(jc)
    if i is None:
        i = JC_INDEX[jc] = len(JC_ALL)
        JC_ALL.append(jc)
        JC_N.append(sum(jc))
        PLAY_JOKERS.append(MODEL.classify((0,) * NR + jc).jokers if any(jc) else ())
        # (tables by holding only name combinations of that holding: they stay right; the cover
        # lists are extended when next read)
    return i


def _jokers_by_sum(jh: tuple[int, ...]) -> dict[int, list[int]]:
    """Joker combinations a holding ``jh`` can make (as indices into ``JC_ALL``), grouped by their
    total in the order ``CardModel._joker_combos`` groups them (``itertools.product`` order)."""
    got = _JBYSUM.get(jh)
    if got is None:
        got = {}
        for jc in itertools.product(*[range(k + 1) for k in jh]):
            got.setdefault(sum(jc), []).append(_jc_index(jc))
        _JBYSUM[jh] = got
        _JFLAT[jh] = [i for v in got.values() for i in v]
    return got


def _cover(tj: tuple[int, ...]) -> list[int]:
    """For a lead's jokers ``tj``: per joker combination of an answer, the jokers it has spare
    after covering every lead joker (``CardModel._cover_one``, the model's own rule), or -1."""
    got = _COVER.get(tj)
    if got is None:
        got = _COVER[tj] = []
    for pj in PLAY_JOKERS[len(got):]:  # (combinations met since the list was made)
        avail = list(pj)
        ok = all(MODEL._cover_one(x, avail) for x in tj)
        got.append(len(avail) if ok else -1)
    return got


def _key(r: int, n: int, f: int, jci: int) -> tuple[int, ...]:
    """The count vector of a play: ``n`` cards of rank ``r`` (``r`` < 0: none), ``f`` filler
    cards and joker combination ``jci``."""
    v = [0] * NR
    if r >= 0:
        v[r] = n
    if f:
        v[FILLER] = f  # type: ignore[index]
    return tuple(v) + JC_ALL[jci]


def _classify(r: int, n: int, f: int, jci: int) -> Play:
    return MODEL.classify(_key(r, n, f, jci))


def _play_of(code: tuple[int, int, int, int]) -> Play:
    """The classified play of a code ``(rank, count, filler, joker combination)`` (kept per code)."""
    p = _CODE_PLAY.get(code)
    if p is None:
        p = _CODE_PLAY[code] = MODEL.classify(_key(*code))
    return p


# ------------------------------------------------------------------------------ rule failures
# ------------------------------------------------------------------------------ dealing
def _deal(rng: random.Random, first: int = 1) -> dict[int, list[Card]]:
    """``interpreter.deal_hands`` (shuffle the pack, one card at a time from seat ``first``), on a
    pack built once: the same cards in the same order, so the same seed deals the same hands."""
    deck = DECK[:]
    if type(rng) is random.Random:
        # random.Random.shuffle with its index draws (_randbelow) written out: the same permutation
        gb = rng.getrandbits
        for i, n, k in _SHUFFLE:
            j = gb(k)
            while j >= n:
                j = gb(k)
            deck[i], deck[j] = deck[j], deck[i]
    else:
        rng.shuffle(deck)
    return {s: deck[(s - first) % N::N] for s in SEATS}


def new_state(seed: Any = None, *, hands: dict[int, list[Card]] | None = None, leader: int | None = None,
              game_number: int = 1, prev: PrevGame | None = None) -> GameState:
    """``interpreter.new_game`` (and ``next_game`` with ``prev``): deal from ``random.Random(seed)``
    unless ``hands`` are given, then run the between-game and setup phases up to the first
    question a seat must answer."""
    rng = _NATIVE_RANDOM(text=seed.encode()) if _NATIVE_RANDOM is not None and type(seed) is str else random.Random(seed)
    S = _init(hands, rng, game_number, leader, "random" if hands is None else "fixed", seed, prev, 0, None)
    if S.redeal_pending:
        _redeal(S)
    return S


def _init(hands: dict[int, list[Card]] | None, rng: random.Random, game_number: int, leader: int | None,
          source: str, seed: Any, prev: PrevGame | None, redeals: int, counters: dict[str, dict[int, int]] | None
          ) -> GameState:
    """``GameState.__init__``: the same attributes, set directly."""
    S = object.__new__(GameState)
    S.graph = GRAPH
    S.model = MODEL
    S.kinds = KINDS
    S.n_seats = N
    S.seat_list = SEATS
    S._after = AFTER
    S.n_teams = N_TEAMS
    S.rng = rng
    S.game_number = game_number
    S.source = source
    hs = [[0] * K for _ in range(N + 1)]
    # (placeholders first: the attributes in the interpreter's order, one shared key table)
    S.hands = hs
    S.dealt_cards = {}
    S.dealt = []
    S.phase = Phase.SETUP
    S.setup_queue = []
    S.choose_queue = []
    S.revolted = set()
    S.places = {}
    S.finish_order = []
    S.failed = set()
    _recount(S)
    S.flags = {}
    S.counters = {}
    S.top = None
    S.trick_leader = None
    S.passed = set()
    S.queue = []
    S.yielders = []
    S.yielded_this_top = set()
    S.to_act = None
    S.capacity = Capacity.LEAD
    S.burner = None
    S.burned_seat = None
    S.burns = []
    S.trick_no = 0
    S.decisions = 0
    S.finished_in_trick = []
    S.scores = {}
    S.sweep = False
    S.redealt = False
    S.redeals = redeals
    S.redeal_pending = False
    S.ask_queue = []
    S.ask_point = ""
    S.forced_leader = leader
    S.prev = prev
    S.received = {s: {} for s in SEATS}
    S.discarded = [0] * K
    S.return_queue = []
    S.declare_queue = []
    S.late = []
    S.record = []
    S.seed = seed
    S.decided = {}
    S.marked_by = {}
    S.plan = ()
    counted = None
    if hands is None:
        first = S._seat_answer(1 if (f := h_first_drawer(S)) is None else f, "first_drawer", "the first drawer")
        if _NATIVE_DEAL is not None and type(rng) is _NATIVE_RANDOM:
            order, counted = _NATIVE_DEAL(rng, _DECK_KINDS, N, K, NR, first)
            deck = [DECK[i] for i in order]
            hands = {s: deck[(s - first) % N::N] for s in SEATS}
        else:
            hands = _deal(rng, first)
    S.dealt_cards = {s: list(hands.get(s, [])) for s in SEATS}
    if counted is not None:
        for s in SEATS:
            hs[s][:] = counted[s]
    else:
        kidx = KIDX
        for s, cards in hands.items():
            h = hs[s]
            for sym, k in Counter(map(_SYMBOL, cards)).items():
                h[kidx[sym]] += k
    S.dealt = [tuple(h) for h in hs]
    if counters is not None:
        S.counters = counters
    elif prev is not None:
        S.counters = kept_counters(GRAPH, prev.counters, ("match",))
    S.record = [("deal", game_number, source, seed, prev, S.dealt_cards, False)]  # type: ignore[list-item]
    S.phase = Phase.BETWEEN
    _begin_point(S, "deal")
    return S


# ------------------------------------------------------------------------------ geometry
def _active(S: GameState, s: Any) -> bool:
    return s not in _GONE


def _next_active(S: GameState, s: int) -> int | None:
    gone = _GONE
    for t in AFTER[s]:
        if t not in gone:
            return t
    return None


# ------------------------------------------------------------------------------ transfers
def _transfer(S: GameState, giver: int, receiver: int, cards: dict[str, int], rule_id: str = "") -> dict[str, int]:
    moved: dict[str, int] = {}
    hands = S.hands
    for sym, n in cards.items():
        i = KIDX[sym]
        k = min(n, hands[giver][i])
        if k <= 0:
            continue
        hands[giver][i] -= k
        hands[receiver][i] += k
        _changed(giver)
        _changed(receiver)
        moved[sym] = k
        r = S.received.setdefault(receiver, {})
        r[sym] = r.get(sym, 0) + k
    if moved:
        S.record.append(("transfer", giver, receiver, tuple(moved.get(k, 0) for k in KINDS), rule_id))  # type: ignore[arg-type]
    return moved


def _retire(S: GameState, seat: int, how: str, rule_id: str = "") -> None:
    if how not in _PLACEMENTS:
        S.retire(seat, how, rule_id)  # the interpreter's error (RuleFailed, naming the rule)
    if not _active(S, seat):
        return
    S.failed.add(seat)
    _recount(S)
    S.record.append(("retire", seat, str(how), rule_id))  # type: ignore[arg-type]
    if how == "after-finishers":
        S.late.append(seat)
    else:
        free = _free_places(S)
        _place(S, seat, free[-1] if how == "last" else free[0])


def _pay_tribute(S: GameState) -> None:
    kinds = h_tribute_kinds(S) or []
    hands = S.hands
    for kind in kinds:
        for giver in SEATS:
            for receiver in AFTER[giver]:
                n = int(h_tribute(S, giver, receiver, kind) or 0)
                if n <= 0:
                    continue
                cards: dict[str, int] = {}
                left = n
                for i in range(K - 1, -1, -1):
                    if left <= 0:
                        break
                    sym = KINDS[i]
                    have = hands[giver][i] - cards.get(sym, 0)
                    lim = h_tribute_card(S, giver, sym)
                    k = min(have, left, have if lim is None else int(lim))
                    if k > 0:
                        cards[sym] = k
                        left -= k
                if cards:
                    moved = _transfer(S, giver, receiver, cards, f"tribute:{kind}")
                    ev = S.record[-1]
                    S.record[-1] = ev + (kind,)  # type: ignore[operator]
                    back = int(h_return_tribute(S, receiver, giver, kind, sum(moved.values())) or 0)
                    if back > 0:
                        S.return_queue.append((receiver, giver, min(back, sum(moved.values()))))


def _advance_between(S: GameState) -> None:
    if S.return_queue:
        S.phase = Phase.RETURN
        S.to_act = S.return_queue[0][0]
        S.capacity = Capacity.RETURN
        return
    if S.phase in ("between", "return"):
        rounds = h_setup_rounds(S)
        rounds = 1 if rounds is None else rounds
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 <= rounds <= MAX_SETUP_ROUNDS:
            raise S._rule_error("", f"setup_rounds must be a whole number 0..{MAX_SETUP_ROUNDS}, got {rounds!r}")
        for r in range(1, rounds + 1):
            for s in SEATS:
                t_seat_setup(S, s, r)
        _begin_setup(S)


def _return_moves(S: GameState, s: int, n: int) -> Sequence[Move]:
    return S._return_moves(s, n)


# ------------------------------------------------------------------------------ setup
def _begin_setup(S: GameState) -> None:
    S.phase = Phase.SETUP
    for s in SEATS:
        if h_must_revolt(S, s):
            S.revolted.add(s)
            _recount(S)
            S.record.append(("revolution", s, True))  # type: ignore[arg-type]
    S.setup_queue = [s for s in SEATS if s not in S.revolted and h_revolt(S, s)]
    _advance_setup(S)


def _advance_setup(S: GameState) -> None:
    if S.phase == "setup":
        if S.setup_queue:
            S.to_act = S.setup_queue[0]
            S.capacity = Capacity.SETUP
            return
        _begin_point(S, "setup")
        return
    if S.phase == "choose":
        if S.choose_queue:
            S.to_act = S.choose_queue[0]
            S.capacity = Capacity.CHOOSE
            return
        S.declare_queue = [s for s in SEATS if s not in S.revolted and h_declare(S, s)]
        S.phase = Phase.DECLARE
    if S.phase == "declare":
        if S.declare_queue:
            S.to_act = S.declare_queue[0]
            S.capacity = Capacity.DECLARE
            return
        _start_play(S)


def _begin_point(S: GameState, point: str) -> None:
    """``GameState._begin_point``."""
    S.ask_point = point
    S.ask_queue = [(s, c) for c in choices_at(GRAPH, point) for s in SEATS]
    _advance_asks(S)


def _advance_asks(S: GameState) -> None:
    """``GameState._advance_asks``."""
    while S.ask_queue:
        s, c = S.ask_queue[0]
        if h_offer(S, s, c):
            S.phase = Phase.ASK
            S.to_act = s
            S.capacity = Capacity.ASK
            return
        S.ask_queue.pop(0)
    if S.ask_point == "deal":
        if h_redeal_before_tribute(S):
            _void_deal(S, "redeal_before_tribute")
            return
        S.phase = Phase.BETWEEN
        if S.prev is not None:
            _pay_tribute(S)
        _advance_between(S)
        return
    if h_redeal(S):
        _void_deal(S, "redeal")
        return
    S.choose_queue = [s for s in SEATS if s not in S.revolted and h_choose(S, s)]
    S.phase = Phase.CHOOSE
    _advance_setup(S)


def _void_deal(S: GameState, hook: str) -> None:
    """``GameState._void_deal``."""
    S.record.append(("redeal", sorted(S.revolted)))  # type: ignore[arg-type]
    S.redealt = True
    S.to_act = None
    if S.source != "random":
        S.phase = Phase.OVER
        return
    S.redeals += 1
    if S.redeals >= MAX_REDEALS:
        trace: list[Any] = []
        GRAPH.value(hook, Ctx(S), trace)  # (which rule voided it: the interpreter's graph says)
        raise S._rule_error(trace[-1].rule_id if trace else "",
                            f"it voided the deal {S.redeals} times in a row (at most {MAX_REDEALS - 1} "
                            "redeals per game, MAX_REDEALS): it voids (almost) every deal",
                            "check its condition against the pack; gouji validate --strict estimates how "
                            "often a deal is void")
    S.redeal_pending = True


def _redeal(S: GameState) -> None:
    """``GameState._redeal``: deal again until a deal stands."""
    record = S.record
    while True:
        fresh = _init(None, S.rng, S.game_number, S.forced_leader, S.source, S.seed, S.prev, S.redeals,
                      kept_counters(GRAPH, S.counters, _KEPT_BY_DEAL))
        ev = fresh.record[0]
        fresh.record[0] = ev[:6] + (True,)  # type: ignore[index]
        record = record + fresh.record  # type: ignore[operator]
        pending = fresh.redeal_pending
        S.__dict__.update(fresh.__dict__)
        _recount(S)
        if not pending:
            break
    S.record = record
    S.redealt = True


def _start_play(S: GameState) -> None:
    S.phase = Phase.PLAY
    t_game_start(S)
    for s in SEATS:
        t_seat_start(S, s)
    if _settle(S):
        return
    leader: int | None
    if S.forced_leader:
        leader = S.forced_leader
    else:
        v = h_first_leader(S)
        leader = None if v is None else S._seat_answer(v, "first_leader", "the first leader")
    if not leader or not _active(S, leader):
        leader = _next_active(S, leader or N)
    S.record.append(("first_leader", leader, S.forced_leader))  # type: ignore[arg-type]
    _new_trick(S, leader)


# ------------------------------------------------------------------------------ tricks
def _new_trick(S: GameState, leader: int | None) -> None:
    if leader is None:
        return
    S.trick_no += 1
    for name in TRICK_COUNTERS:
        S.counters.pop(name, None)
    S.top = None
    S.passed = set()
    S.queue = []
    S.yielders = []
    S.yielded_this_top = set()
    S.finished_in_trick = []
    S.trick_leader = leader
    S.to_act = leader
    S.capacity = _LEAD
    if S.burner == leader and not _has_lead(S, leader):
        _fail_burn(S, leader)
    elif not (any(S.hands[leader]) if not (HAS_PLAY or S.burner == leader) else _has_lead(S, leader)) \
            and not _discard_moves(S, leader):  # (_has_lead's first test inlined)
        how = h_no_lead(S, leader)
        S.record.append(("no_lead", leader))  # type: ignore[arg-type]
        _retire(S, leader, "after-finishers" if how is None else how, "engine.no-lead")
        if not _settle(S):
            _new_trick(S, _next_active(S, leader))


def _lead_filtered(S: GameState, seat: int) -> bool:
    """Whether the leads of ``seat`` must each be asked of the rules (else: every play counts)."""
    return HAS_PLAY or S.burner == seat


def _has_lead(S: GameState, seat: int) -> bool:
    if not _lead_filtered(S, seat):
        return any(S.hands[seat])
    if BURN_LEAD_BY_JOKERS and not HAS_PLAY:  # (then the seat is the burner)
        hand = S.hands[seat]
        ranks = [r for r in range(NR) if hand[r] and r != FILLER]
        if len(ranks) >= 2:
            # no play empties the hand, and the burn_lead rules read only the jokers: the first
            # block of leads :func:`_lead_codes` asks (one card of the lowest rank, each joker
            # combination) decides, asked with the same arguments in the same order
            r0 = next(r for r in range(NR) if hand[r])
            jh = tuple(hand[NR:])
            if jh not in _JFLAT:
                _jokers_by_sum(jh)
            return any(c_burn_lead(S, seat, r0, 1, 0, j, False) for j in _JFLAT[jh])
    if PLAY_RANKS is not None and S.burner != seat:  # a play of a rank no rule asks about is a lead
        hand = S.hands[seat]
        if any(hand[r] for r in range(NR) if r not in PLAY_RANKS) or (not PLAY_RANKS_JOKERS and any(hand[NR:])):
            return True
    return bool(_lead_codes(S, seat, True))


def _lead_count(hand: list[int]) -> int:
    """How many distinct plays ``hand`` can lead (no rule filters them): counted, not listed."""
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    J = len(_JFLAT[jh])
    if FILLER is None:
        return J - 1 + J * sum(hand[:NR])
    fill = hand[FILLER]
    # every other rank's cards alone or with 0..fill filler cards; the filler rank alone
    return J - 1 + J * ((fill + 1) * (sum(hand[:NR]) - fill) + fill)


def _lead_at(hand: list[int], i: int) -> tuple[int, ...]:
    """The ``i``-th play of ``CardModel.plays_from(hand)`` (in its order), found by arithmetic."""
    return _key(*_lead_code_at(hand, i))


def _lead_code_at(hand: list[int], i: int) -> tuple[int, int, int, int]:
    """The code ``(rank, count, filler, joker combination)`` of :func:`_lead_at`."""
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    flat = _JFLAT[jh]
    J = len(flat)
    fill = hand[FILLER] if FILLER is not None else 0
    step = (fill + 1) * J  # the leads of one card count of a rank: its filler choices, each with every joker combination
    for r in range(NR):
        hr = hand[r]
        if hr:
            if FILLER is None or r != FILLER:
                block = hr * step
                if i < block:
                    n, rest = divmod(i, step)
                    f, j = divmod(rest, J)
                    return (r, n + 1, f, flat[j])
            else:  # the filler rank alone
                block = hr * J
                if i < block:
                    n, j = divmod(i, J)
                    return (r, n + 1, 0, flat[j])
            i -= block
    return (-1, 0, 0, flat[i + 1])


def _lead_codes(S: GameState, seat: int, first: bool = False) -> list[tuple[int, int, int, int]]:
    """``GameState._lead_plays`` as codes ``(rank, count, filler, joker combination)``: every play
    ``seat`` may lead, in the interpreter's order, each asked of the ``play`` (and, for a burner,
    ``burn_lead``) rules without building it. ``first``: stop at the first one."""
    hand = S.hands[seat]
    burning = S.burner == seat
    hand_n = sum(hand)
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    flat = _JFLAT[jh]
    fill = hand[FILLER] if FILLER is not None else 0
    jn = JC_N
    out: list[tuple[int, int, int, int]] = []
    for r in range(NR):
        hr = hand[r]
        if not hr:
            continue
        fm = fill if r != FILLER else 0
        ask = HAS_PLAY and (PLAY_RANKS is None or r in PLAY_RANKS)  # (other ranks: no play rule forbids)
        for n in range(1, hr + 1):
            for f in range(fm + 1):
                for j in flat:
                    e = n + f + jn[j] == hand_n
                    if ask and not c_play(S, seat, r, n, f, j, e, None, True):
                        continue
                    if burning and not c_burn_lead(S, seat, r, n, f, j, e):
                        continue
                    out.append((r, n, f, j))
                    if first:
                        return out
    ask = HAS_PLAY and (PLAY_RANKS is None or PLAY_RANKS_JOKERS)
    for j in flat[1:]:
        e = jn[j] == hand_n
        if ask and not c_play(S, seat, -1, 0, 0, j, e, None, True):
            continue
        if burning and not c_burn_lead(S, seat, -1, 0, 0, j, e):
            continue
        out.append((-1, 0, 0, j))
        if first:
            return out
    return out


def _random_lead_asked(S: GameState, seat: int, pick: Callable[[int], int], extra: int) -> tuple[int, int, int, int] | int:
    """A lead drawn (as ``random.Random.randrange`` draws) among the leads the ``play`` rules allow
    and ``extra`` other moves, when those rules can forbid only plays of the ranks in
    ``PLAY_RANKS``: the leads of every other rank are counted, not asked. Returns the lead's code,
    or the index among the other moves."""
    hand = S.hands[seat]
    hand_n = sum(hand)
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    flat = _JFLAT[jh]
    J = len(flat)
    jn = JC_N
    fill = hand[FILLER] if FILLER is not None else 0
    parts: list[tuple[int, int, int, list[tuple[int, int, int, int]] | None]] = []
    total = 0
    asked = PLAY_RANKS or frozenset()
    for r in range(NR):
        hr = hand[r]
        if not hr:
            continue
        fm = fill if r != FILLER else 0
        if r in asked:
            codes = [(r, n, f, j) for n in range(1, hr + 1) for f in range(fm + 1) for j in flat
                     if c_play(S, seat, r, n, f, j, n + f + jn[j] == hand_n, None, True)]
            parts.append((r, len(codes), fm, codes))
            total += len(codes)
        else:
            b = hr * (fm + 1) * J
            parts.append((r, b, fm, None))
            total += b
    jokers = [(-1, 0, 0, j) for j in flat[1:]
              if PLAY_RANKS_JOKERS is False or c_play(S, seat, -1, 0, 0, j, jn[j] == hand_n, None, True)]
    total += len(jokers)
    m = total + extra
    k = m.bit_length()
    i = pick(k)
    while i >= m:
        i = pick(k)
    if i >= total:
        return i - total
    for r, c, fm, listed in parts:
        if i < c:
            if listed is not None:
                return listed[i]
            n, rest = divmod(i, (fm + 1) * J)
            f, j = divmod(rest, J)
            return (r, n + 1, f, flat[j])
        i -= c
    return jokers[i]


def _random_burn_lead(S: GameState, seat: int, pick: Callable[[int], int], extra: int) -> tuple[int, int, int, int] | int | None:
    """A burner's lead drawn (as ``random.Random.randrange`` draws) among the leads the
    ``burn_lead`` rules allow and ``extra`` other moves, when those rules read only the play's
    joker combination and whether it empties the hand (``BURN_LEAD_BY_JOKERS``) and no ``play``
    rule is asked: with two ranks or more in the hand no play empties it, so each joker combination
    is asked once and the leads are counted by arithmetic, in :func:`_lead_codes` order. Returns
    the lead's code, or the index among the other moves; None (nothing drawn) when one play could
    empty the hand: then the leads are listed."""
    hand = S.hands[seat]
    if sum(1 for r in range(NR) if hand[r] and r != FILLER) < 2:
        return None
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    flat = _JFLAT[jh]
    ok = [j for j in flat if c_burn_lead(S, seat, -1, 0, 0, j, False)]
    J = len(ok)
    fill = hand[FILLER] if FILLER is not None else 0
    if FILLER is None:
        total = J * sum(hand[:NR])
    else:  # every other rank's cards alone or with 0..fill filler cards; the filler rank alone
        total = J * ((fill + 1) * (sum(hand[:NR]) - fill) + fill)
    jokers = [j for j in ok if j != flat[0]]  # pure joker leads (the first combination has no joker)
    m = total + len(jokers) + extra
    k = m.bit_length()
    i = pick(k)
    while i >= m:
        i = pick(k)
    if i >= total + len(jokers):
        return i - total - len(jokers)
    if i >= total:
        return (-1, 0, 0, jokers[i - total])
    for r in range(NR):
        hr = hand[r]
        if not hr:
            continue
        fm = (fill if r != FILLER else 0) + 1
        block = hr * fm * J
        if i < block:
            n, rest = divmod(i, fm * J)
            f, j = divmod(rest, J)
            return (r, n + 1, f, ok[j])
        i -= block
    raise AssertionError("a drawn lead beyond the count")  # pragma: no cover - the count covers every block


def _lead_plays(S: GameState, seat: int) -> list[Play]:
    """``GameState._lead_plays``: every play ``seat`` may lead, in the interpreter's order."""
    return [_play_of(c) for c in _lead_codes(S, seat)]


def _answers_by_sum(jh: tuple[int, ...], tj: tuple[int, ...]) -> dict[int, list[int]]:
    """Same-count cover model: the joker combinations of holding ``jh`` (grouped by total, in
    order) that let an answer beat a lead with jokers ``tj``: they cover every lead joker and, with
    the rank cards, still make the lead's count of rank cards. Both depend only on the combination
    (an answer of total count ``c`` with ``s`` jokers has ``c - s`` rank cards), so the table is
    built once per (holding, lead jokers)."""
    key = (jh, tj)
    got = _OKC.get(key)
    if got is None:
        byc = _jokers_by_sum(jh)
        cov = _cover(tj)
        nt = len(tj)
        got = {}
        for s, jcs in byc.items():
            ok = [j for j in jcs if cov[j] >= 0 and (SPARE_FOR_RANK or cov[j] == 0) and cov[j] >= s - nt]
            if ok:
                got[s] = ok
        got[-1] = sorted(got, reverse=True)  # type: ignore[assignment]
        _OKC[key] = got
    return got


def _rank_table(jh: tuple[int, ...], tj: tuple[int, ...], tc: int, fill: int, key: int) -> tuple[Any, ...]:
    """Same-count cover model, a lead of ``tc`` cards with jokers ``tj``, answered from a holding
    of jokers ``jh`` and ``fill`` filler cards: for a rank group of ``h`` cards (``h`` up to
    ``tc``: more cards answer as ``tc`` do), the answers of that rank as ``(count, filler, joker
    combination)`` in the interpreter's order, and how many there are for every group size a hand
    can hold; the same for the filler rank itself (no filler added); and the pure joker answers
    (codes). Built once per key (``key``: the numbers of the holding and of the lead,
    :func:`_key_id`): a random bot counts the answers of a hand with one ``sum`` over
    its rank groups and builds only the one it draws."""
    okc = _OKC.get((jh, tj)) or _answers_by_sum(jh, tj)
    sums = okc[-1]  # the joker totals that can answer, largest first (filler count ascending)
    jt = sum(jh)
    parts: list[Any] = []
    for fm in (fill, 0):
        lo = tc - fm - jt  # fewer rank cards than this cannot make the count
        by_h: list[tuple[tuple[int, int, int], ...]] = []
        for h in range(tc + 1):
            got: list[tuple[int, int, int]] = []
            if h and h >= lo:
                for n in range(max(lo, 1), h + 1):
                    rem = tc - n
                    for t in sums:
                        f = rem - t
                        if f < 0:
                            continue
                        if f > fm:
                            break
                        got += [(n, f, j) for j in okc[t]]
            by_h.append(tuple(got))
        counts = tuple([len(by_h[h if h < tc else tc]) for h in range(max(MAXK, tc) + 1)])
        parts += [tuple(by_h), counts]
    # (tuples of numbers only: the collector stops tracking them, however many tables there are)
    out = (*parts, tuple([(-1, 0, 0, j) for j in okc.get(tc, ())]))
    if len(_RT) >= _RT_MAX:  # (joker holdings × filler counts × leads: memory would grow for a long while)
        _RT.clear()
    _RT[key] = out
    return out


def _hand_info(S: GameState, seat: int) -> tuple[Any, ...]:
    """What answering needs of a seat's hand: jokers held, filler cards held, the joker holding,
    the cards an answer can add to a rank group (filler and jokers), and whether no rank group is
    larger than the pack allows (the count tables of :func:`_rank_table` are indexed by group
    size), and a number naming (joker holding, filler cards) for the keys of those tables. Kept
    per seat (``_HB``) until the hand changes: every change of a hand here goes through
    :func:`_changed`, and every entry point starts with :func:`_forget`."""
    hand = S.hands[seat]
    jh = tuple(hand[NR:])
    jt = sum(jh)
    fill = hand[FILLER] if FILLER is not None else 0
    hk = (jh, fill)
    info = (jt, fill, jh, fill + jt, (max(hand[:NR]) if NR else 0) <= MAXK, _KEY_IDS.get(hk) or _key_id(hk))
    _HB[seat] = info
    return info


def _changed(seat: int) -> None:
    _HB[seat] = None


def _forget(S: GameState) -> None:
    """Forget what is kept of the state being played (it may have been changed by other code
    since, or another state played): the per-seat hand figures; recount the seats out."""
    _HB[:] = [None] * (N + 1)
    _recount(S)


def _minus(x: list[Any], y: list[Any]) -> list[Any]:
    """``x -- y`` of two lists (the operator table's ``remove`` without its checks: the generator
    writes this call only where both are known to be lists)."""
    return [i for i in x if i not in y]


def _common(x: list[Any], y: list[Any]) -> list[Any]:
    """``x & y`` of two lists (``keep``, likewise)."""
    return [i for i in x if i in y]


def _recount(S: GameState) -> None:
    """``_GONE``: the seats out (placed, revolted or failed), ``_OUT[0]``, how many, and ``_LEFT``,
    how many are still playing: what the hooks and the loop read to tell who is still playing and
    how many are left (``count(...)`` of the active seats is ``_LEFT``). Made again
    whenever one of those changes here, and by :func:`_forget`."""
    global _GONE, _LEFT
    _GONE = S.places.keys() | S.revolted | S.failed
    _OUT[0] = len(_GONE)
    _LEFT = N - _OUT[0]


def _top_info(top: Play) -> tuple[Any, ...]:
    """What answering needs of the play on the table: its count, rank cards, the first rank above
    it, its jokers, and a number naming (jokers, count) for the keys of :func:`_rank_table`."""
    got = (top.count, top.carried, top.rank + 1, top.jokers, _key_id((top.jokers, top.count)))
    _TINFO[top] = got
    return got


def _key_id(k: Any) -> int:
    """A small number for ``k`` (the same for equal keys): two of them make an int key."""
    i = _KEY_IDS.get(k)
    if i is None:
        i = _KEY_IDS[k] = len(_KEY_IDS) + 1
    return i


def _answer_codes(S: GameState, seat: int, top: Play) -> list[tuple[int, int, int, int]]:
    """Every play ``seat`` can beat ``top`` with (cover model), in the interpreter's order, as
    ``(rank, count, filler, joker combination)``: from the cover tables, not by trying each play."""
    return _answers(S.hands[seat], _HB[seat] or _hand_info(S, seat), _TINFO.get(top) or _top_info(top))


def _answers(hand: list[int], hi: tuple[Any, ...], ti: tuple[Any, ...]) -> list[tuple[int, int, int, int]]:
    """:func:`_answer_codes` from the hand's and the top's figures (:func:`_hand_info`,
    :func:`_top_info`)."""
    tc, tcar, tr1, tj, tk = ti
    jt, fill, jh, extra, _, hk = hi
    if SAME_COUNT:
        if tcar:
            if (max(hand[tr1:NR]) if tr1 < NR else 0) + extra < tc:
                return []  # the quick path of a forced pass: no group is big enough
            by_h, _, by_h0, _, jokers = _RT.get(hk << 24 | tk) or _rank_table(jh, tj, tc, fill, hk << 24 | tk)
            out: list[tuple[int, int, int, int]] = []
            for r in range(tr1, NR):
                hr = hand[r]
                if hr:
                    got = (by_h if r != FILLER else by_h0)[hr if hr < tc else tc]
                    if got:
                        out += [(r, n, f, j) for n, f, j in got]
            out += jokers
            return out
        if jt < tc:
            return []
        byc = _jokers_by_sum(jh)  # (may add joker combinations: the cover table is read after it)
        cov = _cover(tj)
        return [(-1, 0, 0, j) for j in byc.get(tc, ()) if cov[j] >= 0]
    # free count (two / three kill one): every card is used exactly: rank cards + spare jokers = the
    # lead's rank cards
    spd = _FREE.get((jh, tj))
    if spd is None:
        spd = _free_by_spare(jh, tj)
    out = []
    app = out.append
    if tcar:
        spares = spd[-1]  # the spare counts that occur, largest first (filler count ascending)
        for r in range(tr1, NR):
            hr = hand[r]
            if not hr:
                continue
            fm = fill if r != FILLER else 0
            for n in range(1, (hr if hr < tcar else tcar) + 1):
                rem = tcar - n
                for sp in spares:
                    f = rem - sp
                    if f < 0:
                        continue
                    if f > fm:
                        break
                    for j in spd[sp]:
                        app((r, n, f, j))
        for j in spd.get(tcar, ()):
            if JC_N[j]:
                app((-1, 0, 0, j))
    else:
        for j in spd.get(0, ()):
            if JC_N[j]:
                app((-1, 0, 0, j))
    return out


def _free_by_spare(jh: tuple[int, ...], tj: tuple[int, ...]) -> dict[int, list[int]]:
    """Free-count model: the joker combinations of holding ``jh`` that cover the lead jokers ``tj``,
    by how many jokers they have spare, each list in the order answers are generated."""
    byc = _jokers_by_sum(jh)
    cov = _cover(tj)
    got: dict[int, list[int]] = {}
    for jcs in byc.values():
        for j in jcs:
            sp = cov[j]
            if sp < 0 or (sp and not SPARE_FOR_RANK):
                continue
            got.setdefault(sp, []).append(j)
    got[-1] = sorted(got, reverse=True)  # type: ignore[assignment]
    _FREE[(jh, tj)] = got
    return got


def _answer_plays(S: GameState, seat: int) -> list[Play]:
    """``GameState._answer_plays``: the plays ``seat`` may answer the table with, in order."""
    top: TablePlay = S.top  # type: ignore[assignment]  # (answers are asked with a play on the table)
    tplay = top.play
    hand = S.hands[seat]
    if COVER_MODEL:
        return [_play_of(c) for c in _answer_codes_allowed(S, seat)]
    beats = MODEL.beats
    plays = [p for p in MODEL.plays_from(hand, tplay.count if SAME_COUNT else None, MODEL.answer_floor(tplay))
             if beats(tplay, p)]
    if not HAS_PLAY:
        return plays
    hand_n = sum(hand)
    return [p for p in plays if h_play(S, seat, p, p.count == hand_n, top, False)]


def _answer_counts(S: GameState, seat: int) -> list[tuple[int, ...]]:
    """The count vectors of :func:`_answer_plays` (the cards of each answer move; no play is
    classified here: a bot that needs the play classifies the cards it looks at)."""
    if not COVER_MODEL:
        return [p.counts for p in _answer_plays(S, seat)]
    keys = _CODE_KEY
    out = []
    for c in _answer_codes_allowed(S, seat):
        k = keys.get(c)
        if k is None:
            k = keys[c] = _key(*c)
        out.append(k)
    return out


def _answer_codes_allowed(S: GameState, seat: int) -> list[tuple[int, int, int, int]]:
    """The answers of ``seat`` as codes, each asked of the ``play`` rules (cover model)."""
    top: TablePlay = S.top  # type: ignore[assignment]  # (answers are asked with a play on the table)
    hand = S.hands[seat]
    codes = _answer_codes(S, seat, top.play)
    if not HAS_PLAY or not codes:
        return codes
    hand_n = sum(hand)
    jn = JC_N
    if PLAY_RANKS is not None:  # (a play of another rank is allowed without asking)
        asked, jokers = PLAY_RANKS, PLAY_RANKS_JOKERS
        return [c for c in codes if (c[0] not in asked if c[0] >= 0 else not jokers)
                or c_play(S, seat, c[0], c[1], c[2], c[3], c[1] + c[2] + jn[c[3]] == hand_n, top, False)]
    return [c for c in codes if c_play(S, seat, c[0], c[1], c[2], c[3], c[1] + c[2] + jn[c[3]] == hand_n, top, False)]


def _can_answer(S: GameState, seat: int) -> bool:
    if COVER_MODEL:
        return bool(_answer_codes_allowed(S, seat))
    return bool(_answer_plays(S, seat))


def _advance(S: GameState) -> None:
    queue = S.queue
    top: TablePlay = S.top  # type: ignore[assignment]  # (a play is on the table)
    gone = _GONE  # (the questions asked here change nobody's place)
    tseat = top.seat
    while queue:
        seat, cap = queue[0]
        if seat is None or seat in gone or seat == tseat:
            queue.pop(0)
            continue
        if cap == "burn":
            if h_burn(S, seat, top):
                S.to_act = seat
                S.capacity = _BURN
                return
        elif h_follow(S, seat, top):
            S.to_act = seat
            S.capacity = _FOLLOW
            return
        queue.pop(0)
    _trick_won(S)


def _trick_won(S: GameState) -> None:
    top: TablePlay = S.top  # type: ignore[assignment]  # (the trick's last play)
    winner = top.seat
    t_trick_won(S, winner, top)
    S.record.append(("trick_won", winner, top.play))  # type: ignore[arg-type]
    if S.phase is not _OVER and (h_game_over(S) or _LEFT <= 0):  # (_settle, inlined)
        _game_over(S)
    if S.phase is _OVER:
        return
    v = h_next_leader(S, top)
    # (a seat 1..N needs no check; anything else is checked as the interpreter checks it)
    leader = v if type(v) is int and 0 < v <= N else None if v is None else \
        S._seat_answer(v, "next_leader", "the next leader")
    if not leader or leader in _GONE:  # (not active)
        leader = winner if winner not in _GONE else _next_active(S, winner)
    _new_trick(S, leader)


# ------------------------------------------------------------------------------ places
def _reserved(S: GameState) -> set[int]:
    out = set()
    for r in S.revolted:
        p = h_revolution_place(S, r)
        if p:
            out.add(int(p))
    return out


def _free_places(S: GameState) -> list[int]:
    taken = set(S.places.values())
    if S.revolted:
        taken |= _reserved(S)
    return [p for p in range(1, N + 1) if p not in taken]


def _place(S: GameState, seat: int, place: int) -> None:
    S.places[seat] = place
    _recount(S)
    S.record.append(("place", seat, place))  # type: ignore[arg-type]


def _finish(S: GameState, seat: int) -> None:
    if not _active(S, seat):
        return
    free = _free_places(S)
    _place(S, seat, free[0])
    S.finish_order.append(seat)
    S.finished_in_trick.append(seat)
    if S.burner == seat:
        S.burns[-1]["success"] = True
        S.record.append(("burn_success", seat, S.burned_seat))  # type: ignore[arg-type]
        S.burner = None
    t_finish(S, seat)


def _fail_burn(S: GameState, seat: int) -> None:
    where = h_burn_failure(S, seat)
    S.burner = None
    if S.burns:
        S.burns[-1]["failed"] = True
    S.record.append(("burn_failed", seat))  # type: ignore[arg-type]
    _retire(S, seat, "last" if where is None else where, "engine.burn-failure")
    if _settle(S):
        return
    if S.to_act == seat or S.to_act is None:
        _new_trick(S, _next_active(S, seat))


def _settle(S: GameState) -> bool:
    _check_over(S)
    return S.phase is _OVER


def _check_over(S: GameState) -> None:
    if S.phase is _OVER:
        return
    if not h_game_over(S) and N - _OUT[0] > 0:
        return
    _game_over(S)


def _game_over(S: GameState) -> None:
    """The end of the game (the rest of ``GameState._check_over``): the places left, the scores."""
    for r in sorted(S.revolted):
        if r in S.places:
            continue
        p = h_revolution_place(S, r)
        taken = set(S.places.values())
        free = [q for q in range(1, N + 1) if q not in taken]
        _place(S, r, int(p) if p and int(p) in free else free[0])
    rest = [s for s in SEATS if s not in S.places and s not in S.late]
    if rest:
        order = h_unfinished_order(S)
        if not isinstance(order, list) or any(s not in order for s in rest):
            raise S._rule_error("", f"the game ended with seat(s) {rest} still holding cards, but "
                                f"unfinished_order ({order!r}) does not rank them all")
        rest.sort(key=order.index)
    rest += [s for s in S.late if s not in S.places]
    taken = set(S.places.values())
    free = [q for q in range(1, N + 1) if q not in taken]
    for s, p in zip(rest, free):
        _place(S, s, p)
    S.phase = Phase.OVER
    S.to_act = None
    S.sweep = bool(h_sweep(S))
    S.scores = {s: _num(h_score(S, s)) for s in SEATS}
    S.record.append(("game_over", dict(S.places), dict(S.scores), S.sweep))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ legal moves
def _lead_keys(hand: list[int]) -> list[tuple[int, ...]]:
    """Every play ``hand`` can lead, as count vectors, in ``CardModel.plays_from`` order (built in
    one pass, without classifying them)."""
    jh = tuple(hand[NR:])
    if jh not in _JFLAT:
        _jokers_by_sum(jh)
    jcs = [JC_ALL[j] for j in _JFLAT[jh]]
    fill = hand[FILLER] if FILLER is not None else 0
    out: list[tuple[int, ...]] = []
    base = [0] * NR
    for r in range(NR):
        hr = hand[r]
        if not hr:
            continue
        fm = fill if r != FILLER else 0
        for n in range(1, hr + 1):
            base[r] = n
            for f in range(fm + 1):
                if fm:
                    base[FILLER] = f  # type: ignore[index]
                t = tuple(base)
                out.extend([t + jc for jc in jcs])
        base[r] = 0
        if fm:
            base[FILLER] = 0  # type: ignore[index]
    zeros = tuple(base)
    out.extend([zeros + jc for jc in jcs[1:]])
    return out


class _Leads(Sequence[Move]):
    """The leads of a seat whose plays no rule filters: counted by arithmetic, one looked at is
    built alone, and they are listed (once, in one pass) only when iterated."""

    __slots__ = ("seat", "hand", "n", "extra", "_cards")

    def __init__(self, seat: int, hand: list[int], extra: list[Move]):
        self.seat = seat
        self.hand = list(hand)
        self.n = _lead_count(hand)
        self.extra = extra
        self._cards: list[tuple[int, ...]] | None = None

    def __len__(self) -> int:
        return self.n + len(self.extra)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if 0 <= i < self.n:
            cards = self._cards
            return Move(self.seat, Verb.PLAY, cards[i] if cards is not None else _lead_at(self.hand, i))
        if i < 0 or i >= len(self):
            raise IndexError(i)
        return self.extra[i - self.n]

    def __iter__(self):  # type: ignore[override]
        if self._cards is None:
            self._cards = _lead_keys(self.hand)
        seat = self.seat
        for cards in self._cards:
            yield Move(seat, Verb.PLAY, cards)
        yield from self.extra

    def __contains__(self, m: object) -> bool:
        if isinstance(m, tuple) and len(m) == 4 and m[0] == self.seat and m[1] == "play" and m[3] == "" \
                and isinstance(m[2], tuple) and len(m[2]) == K:
            cards = m[2]
            if all(0 <= c <= h for c, h in zip(cards, self.hand)) and MODEL.classify(cards).valid:
                return True
        return m in self.extra

    def __add__(self, other: list[Move]) -> list[Move]:
        return list(self) + list(other)

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (list, Sequence)) else NotImplemented

    def __repr__(self) -> str:
        return f"Leads({len(self)} moves for seat {self.seat})"


def legal_moves(S: GameState) -> Sequence[Move]:
    """``GameState.legal_moves``: the same moves in the same order."""
    _forget(S)  # (the state may have been changed by other code since)
    return _legal_moves(S)


def _legal_moves(S: GameState) -> Sequence[Move]:
    s = S.to_act
    if s is None or S.phase == "over":
        return []
    phase = S.phase
    if phase == "return":
        return _return_moves(S, s, S.return_queue[0][2])
    if phase == "ask":
        return [Move(s, Verb.CHOOSE, None, S.ask_queue[0][1]), _PASS_MOVE[s]]
    if phase == "setup":
        return [Move(s, Verb.REVOLT), Move(s, Verb.PASS)]
    if phase == "declare":
        return [Move(s, Verb.DECLARE), Move(s, Verb.PASS)]
    if phase == "choose":
        return [Move(s, Verb.CHOOSE, None, "head"), Move(s, Verb.CHOOSE, None, "headless")]
    cap = S.capacity
    if cap == "lead":
        if not _lead_filtered(S, s):
            return _Leads(s, S.hands[s], _discard_moves(S, s))
        return LegalMoves(s, Verb.PLAY, [p.counts for p in _lead_plays(S, s)], _discard_moves(S, s))
    if cap == "burn":
        return [Move(s, Verb.BURN, k) for k in _answer_counts(S, s)] + [_PASS_MOVE[s]]
    moves = [Move(s, Verb.PLAY, k) for k in _answer_counts(S, s)] + [_PASS_MOVE[s]]
    if _may_yield(S, s):
        moves.append(_YIELD_MOVE[s])
    return moves


def _discard_moves(S: GameState, s: int) -> list[Move]:
    if not HAS_DISCARD:
        return []
    out = []
    hand = S.hands[s]
    for i in DISCARD_RANKS:  # (the kinds no discard rule can allow are never asked: the answer is no)
        k = hand[i]
        if not k:
            continue
        v = [0] * K
        v[i] = k
        p = MODEL.classify(tuple(v))
        if h_discard(S, s, p, False):
            out.append(Move(s, Verb.DISCARD, tuple(v)))
    return out


def _may_yield(S: GameState, s: int) -> bool:
    if s in S.yielded_this_top:
        return False
    return bool(h_yield(S, s, S.top))


# ------------------------------------------------------------------------------ applying
def apply_move(S: GameState, move: Move) -> None:
    """``GameState.apply_in_place(move, trusted=True)``: ``move`` must be one of
    :func:`legal_moves` of this very state."""
    _forget(S)  # (the state may have been changed by other code since)
    _apply_move(S, move)


def _apply_move(S: GameState, move: Move) -> None:
    S.record.append(("move", move.seat, move.verb, move.cards, move.arg))  # type: ignore[arg-type]
    if S.phase != "play":
        _apply_before_play(S, move)
        if S.redeal_pending:
            _redeal(S)
        return
    _apply_in_play(S, move)


def _apply_before_play(S: GameState, move: Move) -> None:
    s = move.seat
    phase = S.phase
    if phase == "ask":
        _, word = S.ask_queue.pop(0)
        t_answered(S, s, word, word if move.verb == "choose" else "pass")
        _advance_asks(S)
        return
    if phase == "return":
        receiver, giver, n = S.return_queue.pop(0)
        cards = move.cards or ()
        _transfer(S, receiver, giver, {k: n for k, n in zip(KINDS, cards) if n}, "return")
        t_after_return(S, receiver, giver, n)
        _advance_between(S)
        return
    if phase == "declare":
        S.declare_queue.pop(0)
        if move.verb == "declare":
            S.flags.setdefault("declared", set()).add(s)
        t_answered(S, s, "declare", str(move.verb))
        _advance_setup(S)
        return
    if phase == "setup":
        S.setup_queue.pop(0)
        if move.verb == "revolt":
            S.revolted.add(s)
            _recount(S)
            S.record.append(("revolution", s, False))  # type: ignore[arg-type]
        t_answered(S, s, "revolt", str(move.verb))
        _advance_setup(S)
        return
    if phase == "choose":
        S.choose_queue.pop(0)
        S.flags.setdefault("chose_" + move.arg, set()).add(s)
        t_answered(S, s, "choose", move.arg)
        _advance_setup(S)
        return


def _apply_in_play(S: GameState, move: Move) -> None:
    s = move.seat
    S.decisions += 1
    verb = move.verb
    if verb == "pass":
        _, cap = S.queue.pop(0)
        if cap == "follow":
            S.passed.add(s)
        if HAS_AFTER_PASS:
            t_after_pass(S, s, S.top)
            if _settle(S):
                return
        _advance(S)
        return
    if verb == "discard":
        cards = move.cards or ()
        hand = S.hands[s]
        for i, c in enumerate(cards):
            hand[i] -= c
            S.discarded[i] += c
        _changed(s)
        S.record.append(("discard", s, cards))  # type: ignore[arg-type]
        if HAS_AFTER_DISCARD:
            tp = TablePlay(MODEL.classify(tuple(cards)), s, KINDS)
            tp.empties_hand = sum(hand) == 0
            t_after_discard(S, s, tp)
        if sum(hand) == 0:
            _finish(S, s)
        if s in _GONE and not _settle(S):  # (went out, or a rule placed the seat)
            _new_trick(S, _next_active(S, s))
        return
    if verb == "yield":
        _yield(S, s)
        return
    _play(S, s, MODEL.classify(tuple(move.cards or ())), verb == "burn")


def _yield(S: GameState, s: int) -> None:
    queue = S.queue
    queue.pop(0)
    n = int(h_yield_to(S, s, S.top) or 0)
    i, seen = 0, 0
    while i < len(queue) and seen < n:
        t, cap = queue[i]
        if cap == "follow" and t != s and t not in _GONE:
            seen += 1
        i += 1
    queue.insert(i, (s, "follow"))
    S.yielders.append(s)
    S.yielded_this_top.add(s)
    if HAS_AFTER_YIELD:
        t_after_yield(S, s, S.top)
        if _settle(S):
            return
    _advance(S)


def _play_info(p: Play) -> tuple[Any, ...]:
    """What playing ``p`` needs, kept per play: its cards as (kind, count) pairs, and the fields
    of a ``TablePlay`` of it (``TablePlay.set_play`` reads them from the play: one is made here and
    its fields copied)."""
    t = TablePlay(p, 0, KINDS)
    got = _PINFO[p] = (tuple((i, c) for i, c in enumerate(p.counts) if c),
                       (t.rank, t.count, t.carried, t.filler, t.jokers, t.gouji))
    return got


def _play(S: GameState, s: int, p: Play, is_burn: bool) -> None:
    hand = S.hands[s]
    pairs, fields = _PINFO.get(p) or _play_info(p)
    for i, c in pairs:
        hand[i] -= c
    _HB[s] = None
    prev = S.top
    tp = _NEW(TablePlay)  # (TablePlay(p, s, KINDS), its fields copied from the play's)
    tp.play = p
    tp.seat = s
    tp.g_kinds = KINDS
    tp.rank, tp.count, tp.carried, tp.filler, tp.jokers, tp.gouji = fields
    tp.beaten_seat = None if prev is None else prev.seat
    tp.is_burn = is_burn
    tp.empties_hand = not any(hand)
    if S.yielders:
        tp.over_yield = True
        tp.yielder = S.yielders[0]
        S.passed.update(S.yielders)
        S.yielders = []
    else:
        tp.over_yield = False
        tp.yielder = None
    if is_burn:
        counter = S.burner is not None and prev is not None and prev.seat == S.burner
        if counter:
            S.record.append(("counter_burn", s, S.burner))  # type: ignore[arg-type]
            if S.burns:
                S.burns[-1]["countered"] = True
        S.burner = s
        S.burned_seat = prev.seat if prev else None
        S.burns.append({"burner": s, "burned": S.burned_seat, "success": False, "counter": counter})
        S.record.append(("burn", s, S.burned_seat))  # type: ignore[arg-type]
    elif S.burner is not None and prev is not None and prev.seat == S.burner and s != S.burner:
        S.record.append(("burn_undone", s, S.burner))  # type: ignore[arg-type]
        S.burner = None
    S.top = tp
    S.capacity = _FOLLOW
    if S.yielded_this_top:
        S.yielded_this_top = set()
    t_after_play(S, s, tp, prev)
    if tp.empties_hand:
        _finish(S, s)
    if S.phase is _OVER:  # (_settle, inlined)
        return
    if h_game_over(S) or _OUT[0] >= N:
        _game_over(S)
        return
    # _rebuild_queue, inlined
    burn = h_burn_order(S, tp)
    follow = h_follow_order(S, tp)
    if follow is None:
        follow = AFTER[s]
    queue = S.queue = [*map(_BURN_ENTRY, burn), *map(_FOLLOW_ENTRY, follow)] if burn else \
        [*map(_FOLLOW_ENTRY, follow)]
    gone = _GONE  # (_advance, inlined: the first seat asked who may answer)
    while queue:
        t, cap = queue[0]
        if t is None or t in gone or t == s:
            queue.pop(0)
            continue
        if cap == "burn":
            if h_burn(S, t, tp):
                S.to_act = t
                S.capacity = _BURN
                return
        elif h_follow(S, t, tp):
            S.to_act = t
            S.capacity = _FOLLOW
            return
        queue.pop(0)
    _trick_won(S)


# ------------------------------------------------------------------------------ the play-out loop
Policy = Callable[[GameState, Sequence[Move]], Move]


def play_out(S: GameState, pickers: dict[int, Callable[[int], int]], choosers: dict[int, Policy],
             max_decisions: int = 100_000, steps: int = 0) -> int:
    """Play ``S`` to the end, in place. For a seat in ``pickers`` (a random bot: its generator's
    ``getrandbits``) no moves are built: the moves are counted, an index drawn as
    ``random.Random.randrange`` draws it, and only that move made (the same draws as the
    interpreter's loop makes); a seat in ``choosers`` is asked
    ``choose(state, moves)`` with the interpreter's moves. Returns the number of moves made
    (``steps`` counted in). Raises RuntimeError past ``max_decisions`` moves, IllegalMove if a
    chooser answers a move that is not legal."""
    _forget(S)  # (the state may have been changed by other code since)
    S.phase, S.capacity = Phase(S.phase), Capacity(S.capacity)  # (members: the loop tests them by identity)
    native = _NATIVE_SEATS(choosers) if _NATIVE_SEATS is not None and choosers else {}
    while S.phase != "over":
        seat = S.to_act
        if seat is None:
            raise RuntimeError(f"nobody is to act (phase {S.phase})")
        pick = pickers.get(seat)
        if S.phase == "play" and (pick is not None or seat in native):
            before = steps
            steps = _play_run(S, pickers, steps, max_decisions, native)
            if steps > max_decisions:
                raise RuntimeError(f"the game did not end after {max_decisions} decisions")
            if steps != before or pick is not None:
                continue
            # (the native core did not move this seat: its bot chooses here)
        moves = _legal_moves(S)
        if not moves:
            raise RuntimeError(f"seat {seat} has no legal move (phase {S.phase})")
        if pick is not None:
            n = len(moves)
            k = n.bit_length()
            i = pick(k)
            while i >= n:
                i = pick(k)
            _apply_move(S, moves[i])
        else:
            chooser = choosers.get(seat)
            if chooser is None:
                raise RuntimeError(f"no bot for seat {seat}")
            choice = chooser(S, moves)  # (bots read the state; one that changed it would be wrong anyway)
            _forget(S)  # (a bot may have played other states here: its rollouts)
            if choice in moves:
                _apply_move(S, choice)
            else:
                S.apply_in_place(choice)  # checked by the interpreter: raises IllegalMove
                _forget(S)
        steps += 1
        if steps > max_decisions:
            raise RuntimeError(f"the game did not end after {max_decisions} decisions")
    return steps


def _play_run(S: GameState, pickers: dict[int, Callable[[int], int]], steps: int, max_decisions: int,
              native: dict[int, Any]) -> int:
    """The play phase while random bots (and the choosers the native core plays) are to act."""
    if native and _NATIVE_RUN is not None:
        return _NATIVE_RUN(S, pickers, steps, max_decisions, native)
    return (_NATIVE_RUN or _random_run)(S, pickers, steps, max_decisions)


def _random_run(S: GameState, pickers: dict[int, Callable[[int], int]], steps: int, max_decisions: int) -> int:
    """The play phase while random bots are to act: count the moves, draw an index as
    ``random.Random.randrange`` does, make that move, building only it (a forced pass builds
    nothing). Returns at a seat that is not a random bot, or when the play phase ends.

    This is the hot loop: what it asks of the state is kept in locals (the figures of the play on
    the table, the per-seat hand figures of ``_HB``), a forced pass is recognised from those
    figures alone, and a pass moves the seat queue here (``_advance``, inlined)."""
    picks = [pickers.get(s) for s in range(N + 1)]
    hands = S.hands
    record: Callable[[Any], None] = S.record.append  # type: ignore[assignment]  # (compact entries)
    bl = _BL
    last: Play | None = None  # the play whose figures are in ti, tc, tcar, tr1
    ti: Any = None
    tc = tcar = tr1 = 0
    codes: Any = None
    plays: Any = None
    base = S.decisions - steps  # (the decisions are counted in steps here, written back on leaving)
    try:
        while S.phase is _PLAYING:
            if steps > max_decisions:  # (counted as the interpreter's loop counts: after a move)
                raise RuntimeError(f"the game did not end after {max_decisions} decisions")
            seat: int = S.to_act  # type: ignore[assignment]  # (a seat is to act in the play phase)
            pick = picks[seat]
            if pick is None:
                return steps
            p: Play | None
            steps += 1
            cap = S.capacity
            if cap is _LEAD:
                hand = hands[seat]
                discards = _discard_moves(S, seat) if HAS_DISCARD else _NO_MOVES
                if not (HAS_PLAY or S.burner == seat):  # (_lead_filtered, inlined)
                    n = _lead_count(hand)
                    m = n + len(discards) if HAS_DISCARD else n
                    try:
                        k = bl[m]
                    except IndexError:  # (more moves than the table has)
                        k = m.bit_length()
                    i = pick(k)
                    while i >= m:
                        i = pick(k)
                    if i < n:
                        code = _lead_code_at(hand, i)
                        p = _CODE_PLAY.get(code) or _play_of(code)
                        record(("move", seat, "play", p.counts, ""))
                        _play(S, seat, p, False)
                        continue
                    _apply_move(S, discards[i - n])
                    continue
                if PLAY_RANKS is not None and S.burner != seat:
                    key = _random_lead_asked(S, seat, pick, len(discards))
                    if type(key) is tuple:
                        p = _play_of(key)  # type: ignore[arg-type]
                        record(("move", seat, "play", p.counts, ""))
                        _play(S, seat, p, False)
                        continue
                    _apply_move(S, discards[key])  # type: ignore[index]
                    continue
                if BURN_LEAD_BY_JOKERS and not HAS_PLAY and S.burner == seat:
                    bkey = _random_burn_lead(S, seat, pick, len(discards))
                    if type(bkey) is tuple:
                        p = _play_of(bkey)  # type: ignore[arg-type]
                        record(("move", seat, "play", p.counts, ""))
                        _play(S, seat, p, False)
                        continue
                    if bkey is not None:
                        _apply_move(S, discards[bkey])  # type: ignore[index]
                        continue
                lcodes = _lead_codes(S, seat)
                n = len(lcodes)
                m = n + len(discards)
                try:
                    k = bl[m]
                except IndexError:  # (more moves than the table has)
                    k = m.bit_length()
                i = pick(k)
                while i >= m:
                    i = pick(k)
                if i < n:
                    p = _play_of(lcodes[i])
                    record(("move", seat, "play", p.counts, ""))
                    _play(S, seat, p, False)
                    continue
                _apply_move(S, discards[i - n])
                continue
            top: TablePlay = S.top  # type: ignore[assignment]  # (a follow or burn: a play is on the table)
            if COVER_MODEL and not HAS_PLAY:
                tplay = top.play
                if tplay is not last:
                    last = tplay
                    ti = _TINFO.get(tplay) or _top_info(tplay)
                    tc, tcar, tr1 = ti[0], ti[1], ti[2]
            while True:  # the seats asked about this play: after a pass or a yield, the next one is played here
                rt = None
                if COVER_MODEL and not HAS_PLAY:
                    hi = _HB[seat] or _hand_info(S, seat)
                    hand = hands[seat]
                    if not SAME_COUNT or not tcar or not hi[4]:
                        codes = _answers(hand, hi, ti)
                        n = len(codes)
                    elif (max(hand[tr1:NR]) if tr1 < NR else 0) + hi[3] < tc:
                        n = 0  # a forced pass: no group is big enough (_answers' quick path)
                    else:  # counted from the rank table; only the answer drawn is built
                        key = hi[5] << 24 | ti[4]
                        rt = _RT.get(key) or _rank_table(hi[2], ti[3], tc, hi[1], key)
                        cnt = rt[1]
                        n = sum(map(cnt.__getitem__, hand[tr1:NR])) + len(rt[4])
                        if FILLER is not None and tr1 <= FILLER:
                            n += rt[3][hand[FILLER]] - cnt[hand[FILLER]]
                elif COVER_MODEL:
                    codes = _answer_codes_allowed(S, seat)
                    n = len(codes)
                else:
                    plays = _answer_plays(S, seat)
                    n = len(plays)
                m = n + 2 if cap is _FOLLOW and seat not in S.yielded_this_top and h_yield(S, seat, top) else n + 1
                try:
                    k = bl[m]
                except IndexError:  # (more moves than the table has)
                    k = m.bit_length()
                i = pick(k)
                while i >= m:
                    i = pick(k)
                if i < n:
                    if rt is not None:  # the i-th answer: its rank group, then its place in the group's list
                        j = i
                        for r in range(tr1, NR):
                            c = (rt[1] if r != FILLER else rt[3])[hand[r]]
                            if j < c:
                                hr = hand[r]
                                code = (r, *(rt[0] if r != FILLER else rt[2])[hr if hr < tc else tc][j])
                                break
                            j -= c
                        else:
                            code = rt[4][j]
                        p = _CODE_PLAY.get(code) or _play_of(code)
                    elif COVER_MODEL:
                        code = codes[i]
                        p = _CODE_PLAY.get(code) or _play_of(code)
                    else:
                        p = plays[i]
                    if cap is _BURN:
                        record(("move", seat, "burn", p.counts, ""))  # type: ignore[union-attr]
                        _play(S, seat, p, True)  # type: ignore[arg-type]
                    else:
                        record(("move", seat, "play", p.counts, ""))  # type: ignore[union-attr]
                        _play(S, seat, p, False)  # type: ignore[arg-type]
                    break
                gone = _GONE  # (the questions asked here change nobody's place)
                queue = S.queue
                if i > n:  # a yield (_yield, inlined)
                    record(_YIELD_EVENT[seat])
                    queue.pop(0)
                    ny = h_yield_to(S, seat, top)
                    if type(ny) is not int:
                        ny = int(ny or 0)
                    j = seen = 0
                    while j < len(queue) and seen < ny:
                        t, qcap = queue[j]
                        if qcap == "follow" and t != seat and t not in gone:
                            seen += 1
                        j += 1
                    queue.insert(j, _FOLLOW_ENTRY(seat))
                    S.yielders.append(seat)
                    S.yielded_this_top.add(seat)
                    if HAS_AFTER_YIELD:
                        t_after_yield(S, seat, top)
                        if _settle(S):
                            break
                        gone = _GONE  # (a rule may have placed a seat)
                else:  # a pass
                    record(_PASS_EVENT[seat])
                    if queue.pop(0)[1] == "follow":
                        S.passed.add(seat)
                    if HAS_AFTER_PASS:
                        t_after_pass(S, seat, top)
                        if _settle(S):
                            break
                        gone = _GONE
                # the next seat asked (_advance, inlined)
                tseat = top.seat
                while queue:
                    s, qcap = queue[0]
                    if s is None or s in gone or s == tseat:
                        queue.pop(0)
                        continue
                    if qcap == "burn":
                        if h_burn(S, s, top):
                            S.to_act = s
                            S.capacity = cap = _BURN
                            break
                    elif h_follow(S, s, top):
                        S.to_act = s
                        S.capacity = cap = _FOLLOW
                        break
                    queue.pop(0)
                else:
                    _trick_won(S)
                    break
                # the next seat is asked about the same play (the outer loop's steps, without reading
                # back what was just set: the phase, the seat to act and its role, the play on the table)
                seat = s
                if steps > max_decisions:
                    raise RuntimeError(f"the game did not end after {max_decisions} decisions")
                pick = picks[seat]
                if pick is None:
                    return steps
                steps += 1
        return steps
    finally:
        S.decisions = steps + base


# ------------------------------------------------------------------------------ the event log
def render_event(e: Any) -> dict[str, Any]:
    """One compact log entry as the interpreter's event dict (dicts pass through)."""
    if isinstance(e, dict):
        return e
    kind = e[0]
    text = MODEL.text
    if kind == "move":
        _, seat, verb, cards, arg = e
        if cards is not None:
            return {"type": "move", "move": f"{seat} {verb} {text(cards)}"}
        if arg:
            return {"type": "move", "move": f"{seat} {verb} {arg}"}
        return {"type": "move", "move": f"{seat} {verb}"}
    if kind == "place":
        return {"type": "place", "seat": e[1], "place": e[2]}
    if kind == "trick_won":
        return {"type": "trick_won", "seat": e[1], "play": e[2].text}
    if kind == "deal":
        _, game_number, source, seed, prev, dealt_cards, redeal = e
        out = {"type": "deal", "game_number": game_number, "source": source, "seed": seed,
               "prev": None if prev is None else prev.to_json(),
               "hands": {str(s): " ".join(str(c) for c in dealt_cards[s]) for s in SEATS}}
        if redeal:
            out["redeal"] = True
        return out
    if kind == "first_leader":
        return {"type": "first_leader", "seat": e[1], "forced": e[2]}
    if kind == "revolution":
        return {"type": "revolution", "seat": e[1], "automatic": True} if e[2] else {"type": "revolution", "seat": e[1]}
    if kind == "redeal":
        return {"type": "redeal", "revolted": e[1]}
    if kind == "transfer":
        out = {"type": "transfer", "giver": e[1], "receiver": e[2], "cards": text(e[3]), "rule": e[4]}
        if len(e) > 5:
            out["kind"] = e[5]
        return out
    if kind == "retire":
        return {"type": "retire", "seat": e[1], "how": e[2], "rule": e[3]}
    if kind == "no_lead":
        return {"type": "no_lead", "seat": e[1]}
    if kind == "burn":
        return {"type": "burn", "seat": e[1], "burned": e[2]}
    if kind == "counter_burn":
        return {"type": "counter_burn", "seat": e[1], "burned": e[2]}
    if kind == "burn_undone":
        return {"type": "burn_undone", "seat": e[1], "burner": e[2]}
    if kind == "burn_success":
        return {"type": "burn_success", "seat": e[1], "burned": e[2]}
    if kind == "burn_failed":
        return {"type": "burn_failed", "seat": e[1]}
    if kind == "discard":
        return {"type": "discard", "seat": e[1], "cards": text(e[2])}
    if kind == "game_over":
        return {"type": "game_over", "places": {str(s): p for s, p in sorted(e[1].items())},
                "scores": {str(s): v for s, v in e[2].items()}, "sweep": e[3]}
    raise ValueError(f"unknown log entry {e!r}")  # pragma: no cover - the template writes every kind


def render_record(S: GameState) -> list[dict[str, Any]]:
    """Turn the compact entries of ``S.record`` into the interpreter's event dicts (in place);
    returns the record."""
    S.record = [render_event(e) for e in S.record]
    return S.record
