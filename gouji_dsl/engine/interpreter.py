"""The one interpreter: game state, legal moves, apply, explain — for every ruleset.

The interpreter knows seats, teams, tricks, turns, places and phases; every Gouji decision is a
question put to the :class:`~gouji_dsl.ruleset.graph.RuleGraph` (see :mod:`gouji_dsl.ruleset.game.vocabulary`).

Flow of one game: deal → setup (each seat the ``revolt`` rules allow is asked; then ``redeal``;
then opposites the ``choose`` rules name choose head / head-less) → play (tricks) → over.

A trick: the leader plays; the ruleset's ``burn_order`` and ``follow_order`` give the queue of
seats to ask about the play on the table; each is asked only while the ``burn`` / ``follow`` rules
allow it; a new play rebuilds the queue; an empty queue means the top play won the trick and
``next_leader`` leads the next one.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, SourcePos, did_you_mean
from gouji_dsl.engine.outcome import Outcome
from gouji_dsl.i18n import _
from gouji_dsl.lang import ast as A
from gouji_dsl.ruleset.game.cards import Card, parse_cards
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.model import CardModel, Play
from gouji_dsl.ruleset.game.terms import CARD_VERBS as _CARD_VERBS
from gouji_dsl.ruleset.game.terms import Capacity, Choice, CounterReset, Phase, Placement, Point, Verb
from gouji_dsl.ruleset.game.vocabulary import HookName
from gouji_dsl.ruleset.graph import MAX_SETUP_ROUNDS, Reason, RuleFailed, RuleGraph, Verdict
from gouji_dsl.ruleset.words import Term, game_words

VERBS: tuple[Verb, ...] = tuple(Verb)
"""Every move verb (NOTATION.md "Moves"), as :class:`Verb` members (each equal to its text)."""
CARD_VERBS: tuple[Verb, ...] = tuple(v for v in Verb if v in _CARD_VERBS)
_PLACEMENTS = frozenset(Placement)
MAX_SEAT_DIGITS = 3
"""A seat number longer than this is refused before it is converted (seats are 1..N, N small)."""
MAX_REDEALS = 200
"""The most deals of one game a ``redeal`` rule may void in a row: the next void deal is a rule
failure naming the rule (a rule that always voids the deal would deal for ever)."""


# ------------------------------------------------------------------------------ moves
class Move(NamedTuple):
    """An immutable move: ``seat`` (1..N), ``verb`` (a :class:`Verb`), ``cards`` (count vector
    for play/burn/discard/return) and ``arg`` (``head``/``headless`` for choose). A named tuple:
    cheap to create by the thousand in legal-move generation, hashable, compared by value (a verb
    compares equal to its text, so ``Move(1, "pass") == Move(1, Verb.PASS)``)."""

    seat: int
    verb: Verb
    cards: tuple[int, ...] | None = None
    arg: str = ""

    def text(self, model: CardModel) -> str:
        """NOTATION.md move line, cards canonical: ``3 play RR TTT``."""
        if self.cards is not None:
            return f"{self.seat} {self.verb} {model.text(self.cards)}"
        if self.arg:
            return f"{self.seat} {self.verb} {self.arg}"
        return f"{self.seat} {self.verb}"


_SEAT_RE = re.compile(r"[0-9]+")


def read_seat(text: str) -> int | None:
    """The seat number ``text`` writes (a move's seat, ``--deal SEAT=CARDS``, a scenario's seat
    key): ASCII digits 0-9 only, at most :data:`MAX_SEAT_DIGITS` of them, spaces around allowed;
    else None (``²``, ``１``, ``+1``, ``1_0`` are no seats, although ``str.isdigit`` or ``int``
    take some of them). The one reader of a seat written as text; the caller checks the range."""
    t = text.strip()
    return int(t) if _SEAT_RE.fullmatch(t) and len(t) <= MAX_SEAT_DIGITS else None


def choice_words(graph: Any) -> tuple[str, ...]:
    """The words of the choices ``graph``'s ruleset defines (``settings.choices``), in its order."""
    return tuple(str(w) for w in (graph.settings.get("choices") or {}))


@dataclass(frozen=True)
class _MoveLine:
    """A move line being read, for errors at a column of it (its source line shown when it has a line number)."""

    text: str
    path: str
    line: int
    col: int

    def fail(self, pos: int, msg: str, hint: str | None = None, code: Code = Code.BAD_MOVE) -> GoujiError:
        return GoujiError(Diagnostic(self.path, self.line, self.col + pos, msg, hint, self.text if self.line else None, code=code))


def _move_seat(m: _MoveLine, seat_s: str, n_seats: int | None) -> tuple[int, int]:
    """The seat a move starts with and where it is written."""
    spos = m.text.find(seat_s)
    seats = f"1..{n_seats}" if n_seats else "a seat number"
    seat = read_seat(seat_s)
    if seat is None:
        raise m.fail(spos, _("a move starts with a seat {seats} written in digits 0-9, got {seat_s!r}").format(seats=seats, seat_s=seat_s[:20]),
                     _("e.g. '3 play RR TTT'"), Code.BAD_SEAT)
    if seat < 1 or (n_seats is not None and seat > n_seats):
        raise m.fail(spos, _("seat must be {seats}, got {seat_s!r}").format(seats=seats, seat_s=seat_s), None, Code.BAD_SEAT)
    return seat, spos


def _move_verb(m: _MoveLine, verb: str, vpos: int) -> Verb:
    """The verb of a move (unknown: did-you-mean and the list of verbs)."""
    if verb not in VERBS:
        guess = did_you_mean(verb, [str(v) for v in VERBS])
        raise m.fail(vpos, _("unknown move {verb!r}").format(verb=verb),
                     (f"{guess} " if guess else "") + _("moves: {verbs}").format(verbs=", ".join(VERBS)), Code.UNKNOWN_MOVE)
    return Verb(verb)


def _choice(m: _MoveLine, arg: str, vpos: int, words: Iterable[str]) -> str:
    """What ``choose`` answers: one of the engine's choices or the ruleset's own ``words``."""
    known = tuple(Choice) + tuple(words)
    if arg not in known:
        raise m.fail(vpos, _("choose takes {join}, got {arg!r}").format(join=' or '.join(repr(str(c)) for c in known), arg=arg),
                     did_you_mean(arg, known) if arg else _("e.g. '6 choose head'"))
    return arg


def parse_move(text: str, model: CardModel, n_seats: int | None = None, *, path: str = "<move>", line: int = 0,
               col: int = 1, words: Iterable[str] = ()) -> Move:
    """Parse a move line (NOTATION.md "Moves"). Raises :class:`GoujiError` with the column, a hint
    and a stable code: :attr:`Code.BAD_MOVE` (shape), :attr:`Code.BAD_SEAT`, :attr:`Code.UNKNOWN_MOVE`
    (did-you-mean and the list of verbs), or the card parser's :attr:`Code.UNKNOWN_CARD`. ``words``:
    the ruleset's own choices (:func:`choice_words`), answered ``choose WORD``."""
    m = _MoveLine(text, path, line, col)
    parts = text.strip().split(None, 2)
    if len(parts) < 2:
        raise m.fail(0, _("a move is '<seat> <verb> [cards]', got {text!r}").format(text=text), _("e.g. '3 play RR TTT' or '2 pass'"))
    seat_s, verb = parts[0], parts[1]
    seat, spos = _move_seat(m, seat_s, n_seats)
    vpos = text.find(verb, spos + len(seat_s))
    v = _move_verb(m, verb, vpos)
    rest = parts[2] if len(parts) > 2 else ""
    if v in _CARD_VERBS:
        if not rest.strip():
            raise m.fail(len(text), _("'{verb}' needs cards").format(verb=verb), _("e.g. '{seat} {verb} RR TTT'").format(seat=seat, verb=verb))
        cpos = text.find(rest, vpos + len(verb))
        return Move(seat, v, model.parse(rest, path=path, line=line, col=col + cpos))
    if v is Verb.CHOOSE:
        return Move(seat, v, None, _choice(m, rest.strip(), vpos, words))
    if rest.strip():
        raise m.fail(text.find(rest, vpos + len(verb)), _("'{verb}' takes no argument").format(verb=verb))
    return Move(seat, v)


class LegalMoves(Sequence[Move]):
    """A read-only list of moves whose many play moves are built only when looked at.

    A 36-card hand has hundreds of distinct leads; a random bot looks at one of them. Indexing,
    ``len``, iteration and ``in`` behave as on a list of :class:`Move` (``in`` by value, without
    building the moves); ``list(moves)`` gives a plain list."""

    __slots__ = ("seat", "verb", "cards", "extra", "_index")

    def __init__(self, seat: int, verb: Verb, cards: list[tuple[int, ...]], extra: Sequence[Move] = ()):
        self.seat = seat
        self.verb = verb
        self.cards = cards
        self.extra = list(extra)
        self._index: set[tuple[int, ...]] | None = None

    def __len__(self) -> int:
        return len(self.cards) + len(self.extra)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self.cards)
        if i < 0:
            i += len(self)
        if 0 <= i < n:
            return Move(self.seat, self.verb, self.cards[i])
        return self.extra[i - n]

    def __contains__(self, m: object) -> bool:
        if isinstance(m, tuple) and len(m) == 4 and m[0] == self.seat and m[1] == self.verb and m[3] == "":
            if self._index is None:
                self._index = set(self.cards)
            if m[2] in self._index:
                return True
        return m in self.extra

    def __add__(self, other: list[Move]) -> list[Move]:
        return list(self) + list(other)

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (list, LegalMoves)) else NotImplemented

    def __repr__(self) -> str:
        return f"LegalMoves({len(self)} moves for seat {self.seat})"


class ReturnMoves(Sequence[Move]):
    """Every way for ``seat`` to return ``n`` cards from ``hand`` (还贡), in a fixed order (more of a
    weaker kind first), without building them: a 15-card return from a full hand has billions of
    ways. ``len`` is counted once (a table of ``K × (n + 1)`` numbers), ``moves[i]`` is built in
    ``O(K)`` steps, ``in`` checks the cards: the cost grows with the number of kinds times the cards
    returned, never with the number of ways."""

    __slots__ = ("seat", "hand", "n", "_ways")

    def __init__(self, seat: int, hand: Sequence[int], n: int):
        self.seat = seat
        self.hand = tuple(hand)
        self.n = n
        K = len(self.hand)
        # ways[i][left]: the ways to return `left` more cards from kinds i.. (ways[K][0] = 1)
        ways = [[0] * (n + 1) for _ in range(K + 1)]
        ways[K][0] = 1
        for i in range(K - 1, -1, -1):
            row, nxt, h = ways[i], ways[i + 1], self.hand[i]
            row[0] = 1
            for left in range(1, n + 1):
                row[left] = sum(nxt[left - k] for k in range(min(h, left) + 1))
        self._ways = ways

    def __len__(self) -> int:
        return self._ways[0][self.n]

    def cards(self, index: int) -> tuple[int, ...]:
        """The card vector of the ``index``-th way (0-based)."""
        out = [0] * len(self.hand)
        left = self.n
        for i, h in enumerate(self.hand):
            if left == 0:
                break
            nxt = self._ways[i + 1]
            for k in range(min(h, left), -1, -1):
                c = nxt[left - k]
                if index < c:
                    out[i] = k
                    left -= k
                    break
                index -= c
        return tuple(out)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("return move index out of range")
        return Move(self.seat, Verb.RETURN, self.cards(i))

    def __contains__(self, m: object) -> bool:
        if not (isinstance(m, tuple) and len(m) == 4 and m[0] == self.seat and m[1] == Verb.RETURN and m[3] == ""):
            return False
        c = m[2]
        return isinstance(c, tuple) and len(c) == len(self.hand) and sum(c) == self.n and \
            all(0 <= x <= h for x, h in zip(c, self.hand))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReturnMoves):
            return (self.seat, self.hand, self.n) == (other.seat, other.hand, other.n)
        return list(self) == list(other) if isinstance(other, (list, LegalMoves)) else NotImplemented

    def __repr__(self) -> str:
        return f"ReturnMoves({len(self)} ways for seat {self.seat} to return {self.n} cards)"


class IllegalMove(GoujiError):
    """An illegal move: ``reasons`` are the rules (or interpreter checks) that forbade it."""

    def __init__(self, move_text: str, reasons: list[Reason]):
        self.move_text = move_text
        self.reasons = reasons
        forb = [r for r in reasons if r.verdict == Verdict.FORBADE] or reasons
        msg = f"illegal move {move_text!r}: " + "; ".join(f"{r.rule_id}: {r.text}" for r in forb[:3])
        super().__init__(Diagnostic("<game>", 0, 0, msg))


# ------------------------------------------------------------------------------ state
@dataclass(frozen=True)
class PrevGame:
    """What the between-game rules may know of the previous game of a match."""

    places: dict[int, int]
    flags: dict[str, frozenset[int]]
    counters: dict[str, dict[int, int]]
    burns: tuple[dict[str, Any], ...]
    sweep: bool
    scores: dict[int, int | float]
    game_number: int

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (kept in the next game's deal event, so match games replay)."""
        return {"places": {str(k): v for k, v in sorted(self.places.items())},
                "flags": {k: sorted(v) for k, v in sorted(self.flags.items())},
                "counters": {k: {str(s): n for s, n in sorted(v.items())} for k, v in sorted(self.counters.items())},
                "burns": [dict(b) for b in self.burns], "sweep": self.sweep,
                "scores": {str(k): v for k, v in sorted(self.scores.items())}, "game_number": self.game_number}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PrevGame:
        return cls({int(k): v for k, v in d["places"].items()}, {k: frozenset(v) for k, v in d["flags"].items()},
                   {k: {int(s): n for s, n in v.items()} for k, v in d["counters"].items()},
                   tuple(dict(b) for b in d["burns"]), bool(d["sweep"]),
                   {int(k): v for k, v in d["scores"].items()}, int(d["game_number"]))


class GameState:
    """The full state of one game. Mutated only through :meth:`apply_in_place`; use
    :func:`apply` for a functional update. ``record`` holds every event (dicts, JSON-ready)."""

    def __init__(self, graph: RuleGraph, hands: dict[int, list[Card]] | None, *, rng: random.Random,
                 game_number: int = 1, leader: int | None = None, source: str = "random",
                 seed: int | str | None = None, prev: PrevGame | None = None, _redeals: int | None = None,
                 _counters: dict[str, dict[int, int]] | None = None):
        """A game dealt ``hands`` (seat → cards), or, with ``hands=None``, dealt from ``rng`` in the
        ruleset's dealing order (the ``first_drawer`` question); then the between-game phase
        (tribute after ``prev``, buying) and the setup questions run until a seat must decide.
        ``_redeals``: the deals of this game voided so far, ``_counters`` the counters it keeps
        (given when a void deal is dealt again)."""
        self.graph = graph
        self.model = graph.model
        self.kinds = graph.model.kinds
        n = graph.n_seats
        self.n_seats = n
        self.seat_list = tuple(range(1, n + 1))
        check_seats(n, hands, leader)
        self._after = {s: tuple(((s - 1 + i) % n) + 1 for i in range(1, n)) for s in self.seat_list}
        self.n_teams = int(graph.settings["teams"])
        self.rng = rng
        self.game_number = game_number
        self.source = source
        K = len(self.kinds)
        self.hands: list[list[int]] = [[0] * K for _ in range(n + 1)]
        self.dealt_cards: dict[int, list[Card]] = {s: [] for s in self.seat_list}
        self.dealt: list[tuple[int, ...]] = [tuple(h) for h in self.hands]
        self.phase = Phase.SETUP
        self.setup_queue: list[int] = []
        self.choose_queue: list[int] = []
        self.revolted: set[int] = set()
        self.places: dict[int, int] = {}
        self.finish_order: list[int] = []
        self.failed: set[int] = set()
        self.flags: dict[str, set[int]] = {}
        self.counters: dict[str, dict[int, int]] = {}
        self.top: TablePlay | None = None
        self.trick_leader: int | None = None
        self.passed: set[int] = set()
        self.queue: list[tuple[int, str]] = []
        self.yielders: list[int] = []
        self.yielded_this_top: set[int] = set()
        self.to_act: int | None = None
        self.capacity = Capacity.LEAD
        self.burner: int | None = None
        self.burned_seat: int | None = None
        self.burns: list[dict[str, Any]] = []
        self.trick_no = 0
        self.decisions = 0
        self.finished_in_trick: list[int] = []
        self.scores: dict[int, int | float] = {}
        self.sweep = False
        self.redealt = False
        self.redeals = 0 if _redeals is None else _redeals
        self.redeal_pending = False
        self.ask_queue: list[tuple[int, str]] = []
        self.ask_point = ""
        self.forced_leader = leader
        self.prev = prev
        self.received: dict[int, dict[str, int]] = {s: {} for s in self.seat_list}
        self.discarded = [0] * K
        self.return_queue: list[tuple[int, int, int]] = []
        self.declare_queue: list[int] = []
        self.late: list[int] = []
        self.record: list[dict[str, Any]] = []
        self.seed = seed
        self.decided: dict[str, tuple[Reason, ...]] = {}
        self.marked_by: dict[tuple[str, int], str] = {}
        self.plan: tuple[tuple[int, str], ...] = ()
        if hands is None:
            hands = deal_hands(self.model, n, rng, first=self._first_drawer())
        self.dealt_cards = {s: list(hands.get(s, [])) for s in self.seat_list}
        kidx = {k: i for i, k in enumerate(self.kinds)}
        for s, cards in hands.items():
            h = self.hands[s]
            for c in cards:
                i = kidx.get(c.symbol)
                h[self.kinds.index(c.symbol) if i is None else i] += 1  # (a kind of no pack: index's ValueError)
        self.dealt = [tuple(h) for h in self.hands]
        if _counters is not None:
            self.counters = _counters
        elif prev is not None:
            self.counters = kept_counters(graph, prev.counters, (CounterReset.MATCH,))
        self._event("deal", game_number=game_number, source=source, seed=seed,
                    prev=None if prev is None else prev.to_json(),
                    hands={str(s): " ".join(str(c) for c in self.dealt_cards[s]) for s in self.seat_list})
        self.phase = Phase.BETWEEN
        self._begin_point(Point.DEAL)
        if self.redeal_pending and _redeals is None:
            self._redeal()

    # -------------------------------------------------------------- copying
    def copy(self) -> GameState:
        """An independent copy (containers copied, the generator state too)."""
        g = object.__new__(GameState)
        g.__dict__.update(self.__dict__)
        g.hands = [h[:] for h in self.hands]
        g.setup_queue = self.setup_queue[:]
        g.choose_queue = self.choose_queue[:]
        g.revolted = set(self.revolted)
        g.places = dict(self.places)
        g.finish_order = self.finish_order[:]
        g.failed = set(self.failed)
        g.flags = {k: set(v) for k, v in self.flags.items()}
        g.counters = {k: dict(v) for k, v in self.counters.items()}
        g.passed = set(self.passed)
        g.queue = self.queue[:]
        g.yielders = self.yielders[:]
        g.yielded_this_top = set(self.yielded_this_top)
        g.burns = [dict(b) for b in self.burns]
        g.finished_in_trick = self.finished_in_trick[:]
        g.scores = dict(self.scores)
        g.record = self.record[:]
        g.received = {k: dict(v) for k, v in self.received.items()}
        g.discarded = self.discarded[:]
        g.return_queue = self.return_queue[:]
        g.declare_queue = self.declare_queue[:]
        g.late = self.late[:]
        g.decided = dict(self.decided)
        g.marked_by = dict(self.marked_by)
        g.ask_queue = self.ask_queue[:]
        r = random.Random.__new__(random.Random)  # (not Random(): it seeds from os.urandom, ~35 µs a copy, then overwritten)
        r.setstate(self.rng.getstate())  # (gauss_next too)
        g.rng = r
        return g

    # -------------------------------------------------------------- the position
    KEY_FIXED = frozenset({"graph", "model", "kinds", "n_seats", "seat_list", "_after", "n_teams", "game_number",
                           "source", "seed", "dealt", "dealt_cards", "prev", "forced_leader"})
    """Fields set when the game is dealt and never changed by a move: the same in every state of one
    game, so :meth:`position_key` leaves them out (it compares positions of one game)."""
    KEY_UNREAD = frozenset({"record", "decided", "marked_by", "decisions"})
    """Fields no rule and no step of play reads: the event log, the explanations kept for F5 /
    ``explain`` (which rule decided what), and the count of moves made."""

    def position_key(self) -> tuple[Any, ...]:
        """One hashable key of everything the game can still read from this state: two states of
        the same game (copies of one deal) with equal keys have the same legal moves, answer every
        rule alike and go on alike, move for move.

        Why it is exact: every field of the state is either in the key, in :data:`KEY_FIXED`
        (the same for every state of the game) or in :data:`KEY_UNREAD` (read by nothing that
        decides play; tests/test_burn_lookahead.py checks that every field is in one of the three).
        The rules read the state only through the vocabulary (``ruleset/game/vocabulary.py``), whose
        names all read fields in the key; the play on the table is kept as its cards (the
        interpreter classifies a move's cards, so they decide its reading) and what the table adds
        to it. The generator is in the key only when a rule that may still be asked draws
        (``random_seat()``; in the bundled rulesets only ``first_leader`` does, asked before the
        first lead); otherwise nothing reads it."""
        top = self.top
        return (
            self.phase, self.to_act, self.capacity, self.burner, self.burned_seat, self.trick_leader, self.trick_no,
            tuple(tuple(h) for h in self.hands),
            None if top is None else (top.play.counts, top.seat, top.beaten_seat, top.over_yield, top.yielder,
                                      top.empties_hand, top.is_burn),
            tuple(self.queue), self.plan, tuple(self.yielders), frozenset(self.yielded_this_top), frozenset(self.passed),
            frozenset(self.places.items()), tuple(self.finish_order), tuple(self.finished_in_trick),
            frozenset(self.failed), frozenset(self.revolted), tuple(self.late),
            tuple(sorted((k, frozenset(v)) for k, v in self.flags.items())),
            tuple(sorted((k, tuple(sorted(v.items()))) for k, v in self.counters.items())),
            tuple(tuple(sorted(b.items())) for b in self.burns),
            tuple(sorted((s, tuple(sorted(r.items()))) for s, r in self.received.items())), tuple(self.discarded),
            tuple(sorted(self.scores.items())), self.sweep, self.redealt, self.redeals, self.redeal_pending,
            tuple(self.setup_queue), tuple(self.choose_queue), tuple(self.declare_queue), tuple(self.return_queue),
            tuple(self.ask_queue), self.ask_point,
            self.rng.getstate() if _draws(self.graph, self.phase in (Phase.PLAY, Phase.OVER)) else None,
        )

    # -------------------------------------------------------------- table geometry
    def next_seat(self, s: int) -> int:
        return s % self.n_seats + 1

    def prev_seat(self, s: int) -> int:
        return (s - 2) % self.n_seats + 1

    def after(self, s: int) -> tuple[int, ...]:
        return self._after[s]

    def opposite(self, s: int) -> int:
        return (s - 1 + self.n_seats // 2) % self.n_seats + 1

    def team(self, s: int) -> int:
        return (s - 1) % self.n_teams + 1

    def is_active(self, s: int) -> bool:
        return s not in self.places and s not in self.revolted and s not in self.failed

    def active_list(self) -> list[int]:
        return [s for s in self.seat_list if self.is_active(s)]

    def next_active(self, s: int) -> int | None:
        for t in self._after[s]:
            if self.is_active(t):
                return t
        return None

    def hand_size(self, s: int) -> int:
        return sum(self.hands[s])

    def holds(self, s: int, sym: str) -> int:
        try:
            return self.hands[s][self.kinds.index(str(sym))]
        except ValueError:
            return 0

    def dealt_count(self, s: int, sym: str) -> int:
        try:
            return self.dealt[s][self.kinds.index(str(sym))]
        except ValueError:
            return 0

    def received_count(self, s: int, sym: str) -> int:
        return self.received.get(s, {}).get(str(sym), 0)

    def rank_groups(self, s: int) -> int:
        return sum(1 for c in self.hands[s][:self.model.n_ranks] if c)

    def jokers_held(self, s: int) -> int:
        return sum(self.hands[s][self.model.n_ranks:])

    def count_at_least(self, counts: Any, sym: str) -> int:
        try:
            i = self.kinds.index(str(sym))
        except ValueError:
            return 0
        return sum(counts[i:])

    def summary(self) -> PrevGame:
        """What the next game of a match may know of this one."""
        return PrevGame(dict(self.places), {k: frozenset(v) for k, v in self.flags.items()},
                        {k: dict(v) for k, v in self.counters.items()}, tuple(dict(b) for b in self.burns),
                        self.sweep, dict(self.scores), self.game_number)

    # -------------------------------------------------------------- transfers (tribute, buying)
    def transfer(self, giver: int, receiver: int, cards: dict[str, int], rule_id: str = "") -> dict[str, int]:
        """Move cards between hands (as many as the giver holds); records a ``transfer`` event."""
        moved: dict[str, int] = {}
        for sym, n in cards.items():
            i = self.kinds.index(sym)
            k = min(n, self.hands[giver][i])
            if k <= 0:
                continue
            self.hands[giver][i] -= k
            self.hands[receiver][i] += k
            moved[sym] = k
            r = self.received.setdefault(receiver, {})
            r[sym] = r.get(sym, 0) + k
        if moved:
            text = self.model.text([moved.get(k, 0) for k in self.kinds])
            self._event("transfer", giver=giver, receiver=receiver, cards=text, rule=rule_id)
        return moved

    def retire(self, seat: int, how: str, rule_id: str = "") -> None:
        """The seat stops playing before it goes out (a ``place`` rule, a failed burn, no lead):
        ``how`` is a :class:`Placement` — ``last`` takes the worst free place, ``next`` the best,
        ``after-finishers`` is placed when the game ends, after every player who went out.
        Raises :class:`GoujiError` (:attr:`Code.RULE_FAILED`, naming ``rule_id``) for another value.
        Whether the game is then over is decided by the caller, once the move's effects are done."""
        if how not in _PLACEMENTS:
            raise self._rule_error(rule_id, _("placed seat {seat} {how!r}, which is not a placement").format(seat=seat, how=how),
                                   _("a placement is one of: ") + ", ".join(repr(str(p)) for p in Placement))
        if not self.is_active(seat):
            return
        self.failed.add(seat)
        self._event("retire", seat=seat, how=str(how), rule=rule_id)
        if how == Placement.AFTER_FINISHERS:
            self.late.append(seat)
        else:
            free = self._free_places()
            self._place(seat, free[-1] if how == Placement.LAST else free[0], rule_id)

    # -------------------------------------------------------------- asking the rules
    def _ask(self, hook: str, ctx: Ctx, key: str | None = None) -> Any:
        """A value question whose answer is kept, with the rule that gave it, for explanations
        (``decided[key or hook]``)."""
        trace: list[Reason] = []
        v = self.graph.value(hook, ctx, trace)
        self.decided[key or hook] = tuple(trace)
        return v

    def _answered_by(self, key: str) -> str:
        """The id of the rule that answered the question kept under ``key`` ("" when none did)."""
        reasons = self.decided.get(key, ())
        return reasons[-1].rule_id if reasons else ""

    def _rule_error(self, rule_id: str, message: str, hint: str | None = None) -> GoujiError:
        """A rule answered outside what the engine can use: an error naming the rule and its line."""
        node = self.graph.node(rule_id) if rule_id else None
        if node is None:
            return GoujiError(Diagnostic("<game>", 0, 0, _("{rule_id}: {message}").format(rule_id=rule_id or _("the ruleset"), message=message), hint,
                                         code=Code.RULE_FAILED))
        # a RuleFailed, as a failing expression is: the play screen keeps the game, simulate names the game
        return RuleFailed(node.id, node.origin, message, hint=hint)

    def _seat_answer(self, v: Any, key: str, what: str) -> int:
        """A seat given by a rule (kept under ``key``), checked to be 1..N."""
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= self.n_seats:
            raise self._rule_error(self._answered_by(key), _("{what} must be a seat 1..{n_seats}, got {v!r}").format(
                what=what, n_seats=self.n_seats, v=v))
        return v

    def _placement(self, v: Any, key: str, default: Placement) -> Placement:
        """A placement given by a value rule (kept under ``key``), checked against :class:`Placement`."""
        if v is None:
            return default
        if v not in _PLACEMENTS:
            raise self._rule_error(self._answered_by(key), _("answered {v!r}, which is not a placement").format(v=v),
                                   _("a placement is one of: ") + ", ".join(repr(str(p)) for p in Placement))
        return Placement(v)

    def _first_drawer(self) -> int:
        """Who is dealt the first card (the ruleset's ``first_drawer`` question)."""
        v = self._ask(HookName.FIRST_DRAWER, Ctx(self))
        return self._seat_answer(1 if v is None else v, "first_drawer", _("the first drawer"))

    # -------------------------------------------------------------- between games
    def _pay_tribute(self) -> None:
        g = self.graph
        kinds = self._ask(HookName.TRIBUTE_KINDS, Ctx(self)) or []
        for kind in kinds:
            for giver in self.seat_list:
                for receiver in self.after(giver):
                    trace: list[Reason] = []
                    n = int(g.value(HookName.TRIBUTE, Ctx(self, seat=giver, target=receiver, kind=kind), trace) or 0)
                    if n <= 0:
                        continue
                    cards: dict[str, int] = {}
                    left = n
                    for i in range(len(self.kinds) - 1, -1, -1):
                        if left <= 0:
                            break
                        sym = self.kinds[i]
                        have = self.hands[giver][i] - cards.get(sym, 0)
                        lim = g.value(HookName.TRIBUTE_CARD, Ctx(self, seat=giver, card=sym))
                        k = min(have, left, have if lim is None else int(lim))
                        if k > 0:
                            cards[sym] = k
                            left -= k
                    if cards:
                        moved = self.transfer(giver, receiver, cards, f"tribute:{kind}")
                        self.record[-1]["kind"] = kind
                        self.decided[f"tribute:{kind}:{giver}:{receiver}"] = tuple(trace)
                        rctx = Ctx(self, seat=receiver, target=giver, kind=kind)
                        rctx.amount = sum(moved.values())
                        back = int(self._ask(HookName.RETURN_TRIBUTE, rctx, f"return_tribute:{receiver}:{giver}") or 0)
                        if back > 0:
                            self.return_queue.append((receiver, giver, min(back, sum(moved.values()))))

    def _advance_between(self) -> None:
        if self.return_queue:
            self.phase = Phase.RETURN
            self.to_act = self.return_queue[0][0]
            self.capacity = Capacity.RETURN
            return
        if self.phase in (Phase.BETWEEN, Phase.RETURN):
            rounds = self._ask(HookName.SETUP_ROUNDS, Ctx(self))
            rounds = 1 if rounds is None else rounds
            if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 <= rounds <= MAX_SETUP_ROUNDS:
                raise self._rule_error(self._answered_by(HookName.SETUP_ROUNDS),
                                       _("setup_rounds must be a whole number 0..{max_setup_rounds}, got {rounds!r}").format(
                                           max_setup_rounds=MAX_SETUP_ROUNDS, rounds=rounds))
            for r in range(1, rounds + 1):
                for s in self.seat_list:
                    self.graph.trigger(HookName.SEAT_SETUP, Ctx(self, seat=s, round=r))
            self._begin_setup()

    def _return_moves(self, s: int, n: int) -> ReturnMoves:
        """The return moves of seat ``s`` giving back ``n`` cards (built when looked at)."""
        return ReturnMoves(s, self.hands[s], n)

    def parse(self, text: str) -> Move:
        """Parse a move line for this game (seat range and cards of this ruleset)."""
        return parse_move(text, self.model, self.n_seats, words=choice_words(self.graph))

    def hand_text(self, s: int) -> str:
        return self.model.text(self.hands[s])

    def shown_leader(self, sym: str, k: int) -> int | None:
        """Seat that showed the most same-suit cards of ``sym`` (at least ``k``); ties: who completed
        that count first in dealing order (card i of seat s is dealt at time i*N + s); in a fixed
        deal, which has no dealing order, the lowest seat."""
        best: tuple[int, int, int] | None = None
        sym = str(sym)
        for s in self.seat_list:
            seen: dict[str, int] = {}
            top_n, top_t = 0, 0
            cards = self.dealt_cards[s]
            symbols = [c.symbol for c in cards]
            i = -1
            for _k in range(symbols.count(sym)):  # (only the cards of that kind are looked at)
                i = symbols.index(sym, i + 1)
                c = cards[i]
                if not c.suit:
                    continue
                seen[c.suit] = seen.get(c.suit, 0) + 1
                if seen[c.suit] > top_n:
                    # a fixed deal (scenario) has no dealing order: ties go by seat, whatever order
                    # the cards were written in (NOTATION.md: cards are written in any order)
                    top_n, top_t = seen[c.suit], (s if self.source == "fixed" else i * self.n_seats + s)
            if top_n >= k and (best is None or (-top_n, top_t) < (-best[0], best[1])):
                best = (top_n, top_t, s)
        return best[2] if best else None

    # -------------------------------------------------------------- events
    def _event(self, kind: str, **data: Any) -> None:
        self.record.append({"type": kind, **data})

    def _ctx(self, **kw: Any) -> Ctx:
        return Ctx(self, **kw)

    @property
    def over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def voided(self) -> bool:
        """The deal was voided (e.g. by two revolutions) and, having fixed hands, not dealt again."""
        return self.phase == Phase.OVER and self.redealt and not self.places

    @property
    def outcome(self) -> Outcome | None:
        """The result of a finished game (places, scores, sweep, voided), or None while it runs."""
        if self.phase != Phase.OVER:
            return None
        return Outcome.of(places=self.places, scores=self.scores, sweep=self.sweep, voided=self.voided,
                          finish_order=self.finish_order)

    # -------------------------------------------------------------- setup
    def _begin_setup(self) -> None:
        self.phase = Phase.SETUP
        for s in self.seat_list:
            if self._ask(HookName.MUST_REVOLT, self._ctx(seat=s), f"must_revolt:{s}"):
                self.revolted.add(s)
                self._event("revolution", seat=s, automatic=True)
        self.setup_queue = [s for s in self.seat_list if s not in self.revolted
                            and self.graph.permit(HookName.REVOLT, self._ctx(seat=s))]
        self._advance_setup()

    def _advance_setup(self) -> None:
        if self.phase == Phase.SETUP:
            if self.setup_queue:
                self.to_act = self.setup_queue[0]
                self.capacity = Capacity.SETUP
                return
            self._begin_point(Point.SETUP)
            return
        if self.phase == Phase.CHOOSE:
            if self.choose_queue:
                self.to_act = self.choose_queue[0]
                self.capacity = Capacity.CHOOSE
                return
            self.declare_queue = [s for s in self.seat_list if s not in self.revolted
                                  and self.graph.permit(HookName.DECLARE, self._ctx(seat=s))]
            self.phase = Phase.DECLARE
        if self.phase == Phase.DECLARE:
            if self.declare_queue:
                self.to_act = self.declare_queue[0]
                self.capacity = Capacity.DECLARE
                return
            self._start_play()

    # -------------------------------------------------------------- the ruleset's choices
    def _begin_point(self, point: Point) -> None:
        """Ask, seat by seat, the choices of ``settings.choices`` asked at ``point`` (each seat the
        ``offer`` rules allow when its turn comes), then put the point's redeal question."""
        self.ask_point = point
        self.ask_queue = [(s, c) for c in choices_at(self.graph, point) for s in self.seat_list]
        self._advance_asks()

    def _advance_asks(self) -> None:
        while self.ask_queue:
            s, c = self.ask_queue[0]
            if self.graph.permit(HookName.OFFER, Ctx(self, seat=s, choice=c)):
                self.phase = Phase.ASK
                self.to_act = s
                self.capacity = Capacity.ASK
                return
            self.ask_queue.pop(0)
        if self.ask_point == Point.DEAL:
            if self._ask(HookName.REDEAL_BEFORE_TRIBUTE, self._ctx()):
                self._void_deal("redeal_before_tribute")
                return
            self.phase = Phase.BETWEEN
            if self.prev is not None:
                self._pay_tribute()
            self._advance_between()
            return
        if self._ask(HookName.REDEAL, self._ctx()):
            self._void_deal("redeal")
            return
        self.choose_queue = [s for s in self.seat_list if s not in self.revolted
                             and self.graph.permit(HookName.CHOOSE, self._ctx(seat=s))]
        self.phase = Phase.CHOOSE
        self._advance_setup()

    def _answered(self, seat: int, choice: str, answer: str) -> None:
        self.graph.trigger(HookName.ANSWERED, Ctx(self, seat=seat, choice=choice, answer=answer))

    def _void_deal(self, key: str) -> None:
        """The rule answering ``key`` voided the deal: a random deal is dealt again (by
        :meth:`_redeal`, once the move or the deal that voided it is done), a fixed one ends the game.
        The :data:`MAX_REDEALS`-th void deal in a row is a rule failure."""
        self._event("redeal", revolted=sorted(self.revolted))
        self.redealt = True
        self.to_act = None
        if self.source != "random":
            self.phase = Phase.OVER
            return
        self.redeals += 1
        if self.redeals >= MAX_REDEALS:
            raise self._rule_error(self._answered_by(key),
                                   _("it voided the deal {redeals} times in a row (at most {max_redeals} "
                                   "redeals per game, MAX_REDEALS): it voids (almost) every deal").format(
                                       redeals=self.redeals, max_redeals=MAX_REDEALS - 1),
                                   _("check its condition against the pack; gouji validate --strict estimates how "
                                   "often a deal is void"))
        self.redeal_pending = True

    def _redeal(self) -> None:
        """Deal again until a deal stands (a loop, never a recursion: bounded by :data:`MAX_REDEALS`)."""
        record = self.record
        while True:
            keep = kept_counters(self.graph, self.counters, (CounterReset.GAME, CounterReset.MATCH))
            fresh = GameState(self.graph, None, rng=self.rng, game_number=self.game_number,
                              leader=self.forced_leader, source=self.source, seed=self.seed, prev=self.prev,
                              _redeals=self.redeals, _counters=keep)
            fresh.record[0]["redeal"] = True
            record = record + fresh.record
            pending = fresh.redeal_pending
            self.__dict__.update(fresh.__dict__)
            if not pending:
                break
        self.record = record
        self.redealt = True

    def deal_again(self, hands: dict[int, list[Card]]) -> None:
        """Deal a voided fixed deal again with ``hands`` (a scenario's ``redeal_deals``, a record's
        later deals), as :meth:`_redeal` deals a random one again: the same game, its game and match
        counters kept ("once per game"), the void deals counted; the new deal's own questions then
        run (it may be voided in turn). Raises ValueError unless the deal is fixed and voided."""
        if self.source == "random" or not self.voided:
            raise ValueError(_("only a voided fixed deal is dealt again with given hands"))
        if self.redeals + 1 >= MAX_REDEALS:
            raise ValueError(_("at most {max_redeals} redeals per game (MAX_REDEALS)").format(max_redeals=MAX_REDEALS - 1))
        keep = kept_counters(self.graph, self.counters, (CounterReset.GAME, CounterReset.MATCH))
        fresh = GameState(self.graph, hands, rng=self.rng, game_number=self.game_number, leader=self.forced_leader,
                          source=self.source, seed=self.seed, prev=self.prev, _redeals=self.redeals + 1, _counters=keep)
        fresh.record[0]["redeal"] = True
        record = self.record + fresh.record
        self.__dict__.update(fresh.__dict__)
        self.record = record
        self.redealt = True

    def decline_setup(self) -> None:
        """Answer every pending setup question with 'no' (scenarios that go straight to play)."""
        while Phase(self.phase).before_play and self.to_act is not None:
            if self.phase in (Phase.SETUP, Phase.DECLARE, Phase.ASK):
                self.apply_in_place(Move(self.to_act, Verb.PASS))
            else:
                self.apply_in_place(Move(self.to_act, Verb.CHOOSE, None, Choice.HEAD))

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self.graph.trigger(HookName.GAME_START, self._ctx())
        for s in self.seat_list:
            self.graph.trigger(HookName.SEAT_START, self._ctx(seat=s))
        if self._settle():
            return
        leader: int | None
        if self.forced_leader:
            leader = self.forced_leader
        else:
            v = self._ask(HookName.FIRST_LEADER, self._ctx())
            leader = None if v is None else self._seat_answer(v, "first_leader", _("the first leader"))
        if not leader or not self.is_active(leader):
            leader = self.next_active(leader or self.n_seats)
        self._event("first_leader", seat=leader, forced=self.forced_leader)
        self.decided["leader"] = self.decided.get("first_leader", ()) if not self.forced_leader else \
            (Reason("engine.forced-leader", Verdict.NOTE, _("seat {leader} was made to lead first").format(leader=leader)),)
        self._new_trick(leader)

    # -------------------------------------------------------------- tricks
    def _new_trick(self, leader: int | None) -> None:
        if leader is None:
            return
        self.trick_no += 1
        for name in counters_reset(self.graph, CounterReset.TRICK):
            self.counters.pop(name, None)
        self.top = None
        self.passed = set()
        self.queue = []
        self.yielders = []
        self.yielded_this_top = set()
        self.finished_in_trick = []
        self.trick_leader = leader
        self.to_act = leader
        self.capacity = Capacity.LEAD
        if self.burner == leader and not any(True for _ in self._lead_plays(leader)):
            self._fail_burn(leader)
        elif not any(True for _ in self._lead_plays(leader)) and not self._discard_moves(leader):
            key = f"no_lead:{leader}"
            how = self._placement(self._ask(HookName.NO_LEAD, Ctx(self, seat=leader), key), key, Placement.AFTER_FINISHERS)
            self._event("no_lead", seat=leader)
            self.retire(leader, how, "engine.no-lead")
            if f"place:{leader}" in self.decided and self.decided.get(key):
                self.decided[f"place:{leader}"] = self.decided[key]
            if not self._settle():
                self._new_trick(self.next_active(leader))

    def _lead_plays(self, seat: int) -> Iterable[Play]:
        g = self.graph
        kinds = self.kinds
        burning = self.burner == seat
        hand_n = self.hand_size(seat)
        if not burning and not g.by_hook["play"]:
            yield from self.model.plays_from(self.hands[seat])
            return
        tp = None
        ctx = Ctx(self, seat=seat, leading=True)
        for p in self.model.plays_from(self.hands[seat]):
            if tp is None:
                tp = TablePlay(p, seat, kinds)
                ctx.play = tp
            else:
                tp.set_play(p)
            tp.empties_hand = p.count == hand_n
            if not g.permit(HookName.PLAY, ctx):
                continue
            if burning and not g.permit(HookName.BURN_LEAD, ctx):
                continue
            yield p

    def _answer_plays(self, seat: int) -> Iterable[Play]:
        top = self.top
        assert top is not None
        g = self.graph
        model = self.model
        kinds = self.kinds
        hand_n = self.hand_size(seat)
        check_rules = bool(g.by_hook["play"])
        ctx = Ctx(self, seat=seat, top=top)
        beats = model.beats
        tplay = top.play
        for p in model.plays_from(self.hands[seat], tplay.count if model.same_count else None,
                                  model.answer_floor(tplay)):
            if not beats(tplay, p):
                continue
            if not check_rules:
                yield p
                continue
            tp = TablePlay(p, seat, kinds)
            tp.empties_hand = p.count == hand_n
            ctx.play = tp
            if g.permit(HookName.PLAY, ctx):
                yield p

    def _seats_answer(self, v: Any, key: str) -> list[int]:
        """A list of seats given by an order rule (kept under ``key``), checked to be seats 1..N."""
        if v is None:
            return []
        if not isinstance(v, list) or any(isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= self.n_seats
                                          for s in v):
            raise self._rule_error(self._answered_by(key), _("{key} must be a list of seats 1..{n_seats}, got {v!r}").format(
                key=key, n_seats=self.n_seats, v=v))
        return v

    def _rebuild_queue(self) -> None:
        top = self.top
        assert top is not None
        ctx = Ctx(self, top=top)
        burn = self._seats_answer(self._ask(HookName.BURN_ORDER, ctx), "burn_order")
        follow = self._ask(HookName.FOLLOW_ORDER, ctx)
        follow = list(self.after(top.seat)) if follow is None else self._seats_answer(follow, "follow_order")
        self.queue = [(s, Capacity.BURN) for s in burn] + [(s, Capacity.FOLLOW) for s in follow]
        self.plan = tuple(self.queue)

    def _advance(self) -> None:
        """Ask the next seat of the queue that the rules let answer. Whether a seat is asked depends
        on the rules and the table, never on its cards: a seat offered a burn that cannot beat the
        play answers ``pass`` (NOTATION.md)."""
        g = self.graph
        while self.queue:
            seat, cap = self.queue[0]
            if seat is None or not self.is_active(seat) or (self.top is not None and seat == self.top.seat):
                self.queue.pop(0)
                continue
            ctx = Ctx(self, seat=seat, top=self.top)
            if cap == Capacity.BURN:
                if g.permit(HookName.BURN, ctx):
                    self.to_act, self.capacity = seat, Capacity.BURN
                    return
            elif g.permit(HookName.FOLLOW, ctx):
                self.to_act, self.capacity = seat, Capacity.FOLLOW
                return
            self.queue.pop(0)
        self._trick_won()

    def _trick_won(self) -> None:
        top = self.top
        assert top is not None
        winner = top.seat
        self.graph.trigger(HookName.TRICK_WON, Ctx(self, seat=winner, top=top))
        self._event("trick_won", seat=winner, play=top.play.text)
        if self._settle():
            return
        v = self._ask(HookName.NEXT_LEADER, Ctx(self, top=top))
        leader = None if v is None else self._seat_answer(v, "next_leader", _("the next leader"))
        self.decided["leader"] = self.decided["next_leader"]
        if not leader or not self.is_active(leader):
            leader = winner if self.is_active(winner) else self.next_active(winner)
            self.decided["leader"] = (Reason("engine.next-active", Verdict.NOTE,
                                             _("the trick went to the next seat still playing, {leader}").format(leader=leader)),)
        self._new_trick(leader)

    # -------------------------------------------------------------- places
    def _reserved(self) -> set[int]:
        out = set()
        for r in self.revolted:
            p = self._ask(HookName.REVOLUTION_PLACE, Ctx(self, seat=r), f"revolution_place:{r}")
            if p:
                out.add(int(p))
        return out

    def _free_places(self) -> list[int]:
        taken = set(self.places.values()) | self._reserved()
        free = [p for p in range(1, self.n_seats + 1) if p not in taken]
        if not free:
            raise GoujiError(Diagnostic("<game>", 0, 0, _("no free place left (places: {places}, "
                                        "reserved for revolutionaries: {sorted})").format(places=self.places, sorted=sorted(self._reserved())),
                                        _("check the ruleset's revolution_place and place rules"), code=Code.RULE_FAILED))
        return free

    def _place(self, seat: int, place: int, rule: str = "", why: str = "") -> None:
        """Fix ``seat``'s place; ``rule`` (a rule id, or an ``engine.`` check) decided it, kept in
        ``decided["place:SEAT"]`` for explanations (the record's event stays ``seat, place``)."""
        self.places[seat] = place
        self._event("place", seat=seat, place=place)
        self.decided[f"place:{seat}"] = (self._because(rule, why or _("seat {seat} takes place {place}").format(seat=seat, place=place)),)

    def _because(self, rule_id: str, text: str) -> Reason:
        """A note that ``rule_id`` decided something (its sentence and position when it is a rule)."""
        node = self.graph.node(rule_id) if rule_id and not rule_id.startswith("engine.") else None
        if node is None:
            return Reason(rule_id or "engine", Verdict.NOTE, text)
        return Reason(node.id, Verdict.ANSWERED, f"{node.sentence()} ({text})", node.origin, node)

    def _finish(self, seat: int) -> None:
        """``seat`` played its last card (走科): it takes the best free place. A seat a rule already
        placed (say, as 大落 in the same play) keeps its place."""
        if not self.is_active(seat):
            return
        self._place(seat, self._free_places()[0], "engine.finish", _("went out: the best free place (走科)"))
        self.finish_order.append(seat)
        self.finished_in_trick.append(seat)
        if self.burner == seat:
            self.burns[-1]["success"] = True
            self._event("burn_success", seat=seat, burned=self.burned_seat)
            self.burner = None
        self.graph.trigger(HookName.FINISH, Ctx(self, seat=seat))

    def _fail_burn(self, seat: int) -> None:
        """A burner who cannot lead as burning requires (诈烧): placed where ``burn_failure`` says."""
        key = f"burn_failure:{seat}"
        self.decided[f"burn_lead:{seat}"] = self._lead_refusals(seat)
        how = self._placement(self._ask(HookName.BURN_FAILURE, Ctx(self, seat=seat), key), key, Placement.LAST)
        self.burner = None
        if self.burns:
            self.burns[-1]["failed"] = True
        self._event("burn_failed", seat=seat)
        self.retire(seat, how, "engine.burn-failure")
        if f"place:{seat}" in self.decided:  # placed at once: the burn_failure rule decided it
            self.decided[f"place:{seat}"] = self.decided.get(key, ())
        if self._settle():
            return
        if self.to_act == seat or self.to_act is None:
            self.decided["leader"] = self.decided.get(key, ()) + (
                Reason("engine.next-active", Verdict.NOTE, _("the failed burner's lead goes to the next seat still playing")),)
            self._new_trick(self.next_active(seat))

    def _lead_refusals(self, seat: int) -> tuple[Reason, ...]:
        """Why ``seat`` has no lead it may make while burning: the ``burn_lead`` rules (then the
        ``play`` rules) that refuse the leads its hand holds, each rule once, in the order asked."""
        g = self.graph
        ctx = Ctx(self, seat=seat, leading=True)
        hand_n = self.hand_size(seat)
        found: dict[str, Reason] = {}
        played: dict[str, Reason] = {}
        for p in self.model.plays_from(self.hands[seat]):
            tp = TablePlay(p, seat, self.kinds)
            tp.empties_hand = p.count == hand_n
            ctx.play = tp
            t: list[Reason] = []
            if g.permit(HookName.PLAY, ctx, t):
                t = []
                g.permit(HookName.BURN_LEAD, ctx, t)
                for r in t:
                    if r.verdict == Verdict.FORBADE:
                        found.setdefault(r.rule_id, r)
            else:
                for r in t:
                    if r.verdict == Verdict.FORBADE:
                        played.setdefault(r.rule_id, r)
        return tuple(found.values()) + tuple(r for k, r in played.items() if k not in found)

    def _settle(self) -> bool:
        """Once a move's placements are done: end the game if the rules say so (or nobody is left
        to play). True when the game is over."""
        self._check_over()
        return self.phase == Phase.OVER

    def _check_over(self) -> None:
        if self.phase == Phase.OVER:
            return
        if not self._ask(HookName.GAME_OVER, Ctx(self)) and self.active_list():
            return
        self.end_game()

    def end_game(self) -> None:
        """The end of a game the rules (``game_over``) or an empty table ended: the places left
        (revolted seats, ``unfinished_order``, seats finished after the others), sweep and scores.
        Also what the native core's play phase hands back when the game's end is not its own."""
        for r in sorted(self.revolted):
            if r in self.places:
                continue
            key = f"revolution_place:{r}"
            p = self._ask(HookName.REVOLUTION_PLACE, Ctx(self, seat=r), key)
            taken = set(self.places.values())
            free = [q for q in range(1, self.n_seats + 1) if q not in taken]
            self._place(r, int(p) if p and int(p) in free else free[0], self._answered_by(key))
        rest = [s for s in self.seat_list if s not in self.places and s not in self.late]
        if rest:
            order = self._seats_answer(self._ask(HookName.UNFINISHED_ORDER, Ctx(self)), "unfinished_order")
            missing = [s for s in rest if s not in order]
            if missing:
                raise self._rule_error(self._answered_by(HookName.UNFINISHED_ORDER),
                                       _("the game ended with seat(s) {missing} still holding cards, but "
                                       "unfinished_order ({order}) does not rank them").format(missing=missing, order=order),
                                       _("unfinished_order lists every seat still playing, best first"))
            rest = sorted(rest, key=order.index)
        rule = self._answered_by(HookName.UNFINISHED_ORDER)
        ranked = [(s, rule) for s in rest] + [(s, "engine.after-finishers") for s in self.late if s not in self.places]
        taken = set(self.places.values())
        free = [q for q in range(1, self.n_seats + 1) if q not in taken]
        for (s, why), p in zip(ranked, free):
            self._place(s, p, why)
        self.phase = Phase.OVER
        self.to_act = None
        self.sweep = bool(self._ask(HookName.SWEEP, Ctx(self)))
        self.scores = {s: _num(self._ask(HookName.SCORE, Ctx(self, seat=s), f"score:{s}")) for s in self.seat_list}
        self._event("game_over", places={str(s): p for s, p in sorted(self.places.items())},
                    scores={str(s): v for s, v in self.scores.items()}, sweep=self.sweep)

    # -------------------------------------------------------------- legality
    def legal_moves(self) -> Sequence[Move]:
        """Every legal move for the seat to act (empty when the game is over). A sequence of
        :class:`Move`; for a lead, a :class:`LegalMoves` that builds its moves lazily."""
        s = self.to_act
        if s is None or self.phase == Phase.OVER:
            return []
        if self.phase == Phase.RETURN:
            return self._return_moves(s, self.return_queue[0][2])
        if self.phase == Phase.ASK:
            return [Move(s, Verb.CHOOSE, None, self.ask_queue[0][1]), Move(s, Verb.PASS)]
        if self.phase == Phase.SETUP:
            return [Move(s, Verb.REVOLT), Move(s, Verb.PASS)]
        if self.phase == Phase.DECLARE:
            return [Move(s, Verb.DECLARE), Move(s, Verb.PASS)]
        if self.phase == Phase.CHOOSE:
            return [Move(s, Verb.CHOOSE, None, Choice.HEAD), Move(s, Verb.CHOOSE, None, Choice.HEADLESS)]
        if self.capacity == Capacity.LEAD:
            return LegalMoves(s, Verb.PLAY, [p.counts for p in self._lead_plays(s)], self._discard_moves(s))
        if self.capacity == Capacity.BURN:
            return [Move(s, Verb.BURN, p.counts) for p in self._answer_plays(s)] + [Move(s, Verb.PASS)]
        moves = [Move(s, Verb.PLAY, p.counts) for p in self._answer_plays(s)] + [Move(s, Verb.PASS)]
        if self._may_yield(s):
            moves.append(Move(s, Verb.YIELD))
        return moves

    def _discard_moves(self, s: int) -> list[Move]:
        if not self.graph.by_hook["discard"]:
            return []
        out = []
        hand = self.hands[s]
        for i, k in enumerate(hand):
            if not k:
                continue
            v = [0] * len(hand)
            v[i] = k
            tp = TablePlay(self.model.classify(tuple(v)), s, self.kinds)
            if self.graph.permit(HookName.DISCARD, Ctx(self, seat=s, play=tp)):
                out.append(Move(s, Verb.DISCARD, tuple(v)))
        return out

    def _may_yield(self, s: int, trace: list[Reason] | None = None) -> bool:
        if s in self.yielded_this_top:
            if trace is not None:
                trace.append(Reason("engine.yield-once", Verdict.FORBADE, _("You have already yielded this play.")))
            return False
        return self.graph.permit(HookName.YIELD, Ctx(self, seat=s, top=self.top), trace)

    def check(self, move: Move, trace: list[Reason] | None = None) -> bool:
        """Is ``move`` legal now? With ``trace``, append the reasons (rules and checks)."""
        t = trace if trace is not None else []
        s = self.to_act
        if self.phase == Phase.OVER:
            t.append(Reason("engine.over", Verdict.FORBADE, _("The game is over.")))
            return False
        if move.seat != s:
            t.append(Reason("engine.turn", Verdict.FORBADE, _("It is seat {s}'s turn, not seat {seat}'s.").format(s=s, seat=move.seat)))
            if trace is not None:
                self._why_not_asked(move, t)
            return False
        if self.phase in _SETUP_CHECKS:
            return _SETUP_CHECKS[self.phase](self, move, s, t)
        return self._check_trick_move(move, s, t)

    def _check_return(self, move: Move, s: int, t: list[Reason]) -> bool:
        """A move while return tribute is being chosen (还贡)."""
        want = self.return_queue[0][2]
        if move.verb != Verb.RETURN:
            t.append(Reason("engine.phase", Verdict.FORBADE, _("Return {want} card(s) to seat {giver} first (还贡).").format(
                want=want, giver=self.return_queue[0][1])))
            return False
        cards = move.cards or ()
        if sum(cards) != want:
            t.append(Reason("engine.return", Verdict.FORBADE, _("Return exactly {want} card(s).").format(want=want)))
            return False
        if any(c > h for c, h in zip(cards, self.hands[s])):
            t.append(Reason("engine.cards", Verdict.FORBADE, _("You do not hold {cards}.").format(cards=self.model.text(cards))))
            return False
        return True

    def _check_ask(self, move: Move, s: int, t: list[Reason]) -> bool:
        """The answer to a choice the ruleset defines (settings.choices)."""
        word = self.ask_queue[0][1]
        if move.verb == Verb.PASS or (move.verb == Verb.CHOOSE and move.arg == word):
            if move.verb == Verb.CHOOSE:
                self.graph.permit(HookName.OFFER, Ctx(self, seat=s, choice=word), t)
            return True
        t.append(Reason("engine.phase", Verdict.FORBADE, _("Answer 'choose {word}' or 'pass' first.").format(word=word)))
        return False

    def _check_declare(self, move: Move, s: int, t: list[Reason]) -> bool:
        """The answer to whether the seat declares the point (宣点)."""
        if move.verb in (Verb.DECLARE, Verb.PASS):
            if move.verb == Verb.DECLARE:
                self.graph.permit(HookName.DECLARE, Ctx(self, seat=s), t)
            return True
        t.append(Reason("engine.phase", Verdict.FORBADE, _("Answer 'declare' or 'pass' first (宣点).")))
        return False

    def _check_setup(self, move: Move, s: int, t: list[Reason]) -> bool:
        """The answer to whether the seat revolts (革命)."""
        if move.verb in (Verb.REVOLT, Verb.PASS):
            if move.verb == Verb.REVOLT:
                self.graph.permit(HookName.REVOLT, Ctx(self, seat=s), t)
            return True
        t.append(Reason("engine.phase", Verdict.FORBADE, _("Setup: answer 'revolt' or 'pass' first.")))
        return False

    def _check_choose(self, move: Move, s: int, t: list[Reason]) -> bool:
        """After the opposite's revolution: head or head-less."""
        if move.verb == Verb.CHOOSE and move.arg in tuple(Choice):
            self.graph.permit(HookName.CHOOSE, Ctx(self, seat=s), t)
            return True
        t.append(Reason("engine.phase", Verdict.FORBADE, _("Choose 'head' or 'headless' first.")))
        return False

    def _check_trick_move(self, move: Move, s: int, t: list[Reason]) -> bool:
        """A move during the tricks: pass, yield and discard here, a play or burn in :meth:`_check_cards`."""
        cap = self.capacity
        if move.verb == Verb.PASS:
            if cap == Capacity.LEAD:
                t.append(Reason("engine.lead", Verdict.FORBADE, _("The leader must play: a lead cannot be passed.")))
                return False
            return True
        if move.verb == Verb.YIELD:
            if cap != Capacity.FOLLOW:
                t.append(Reason("engine.yield", Verdict.FORBADE, _("You can yield only when asked to answer a play.")))
                return False
            ok = self._may_yield(s, t)
            if not ok and not any(r.verdict == Verdict.FORBADE for r in t):
                t.append(Reason("engine.yield", Verdict.FORBADE, _("No rule of this ruleset allows a yield here.")))
            return ok
        if move.verb == Verb.DISCARD:
            if cap != Capacity.LEAD:
                t.append(Reason("engine.discard", Verdict.FORBADE, _("You may throw cards away only when you lead.")))
                return False
            cards = move.cards or ()
            if any(c > h for c, h in zip(cards, self.hands[s])):
                t.append(Reason("engine.cards", Verdict.FORBADE, _("You do not hold {cards}.").format(cards=self.model.text(cards))))
                return False
            tp = TablePlay(self.model.classify(tuple(cards)), s, self.kinds)
            ok = self.graph.permit(HookName.DISCARD, Ctx(self, seat=s, play=tp), t)
            if not ok and not any(r.verdict == Verdict.FORBADE for r in t):
                t.append(Reason("engine.discard", Verdict.FORBADE, _("No rule of this ruleset allows throwing these cards away.")))
            return ok
        return self._check_cards(move, s, cap, t)

    def _check_cards(self, move: Move, s: int, cap: Capacity, t: list[Reason]) -> bool:
        """A play (a lead or an answer to the play on the table) or a burn."""
        if move.verb not in (Verb.PLAY, Verb.BURN):
            t.append(Reason("engine.verb", Verdict.FORBADE, _("'{verb}' is not a move in this phase.").format(verb=move.verb)))
            return False
        if move.verb == Verb.BURN and cap != Capacity.BURN:
            if cap == Capacity.FOLLOW and self.top is not None:
                self.graph.permit(HookName.BURN, Ctx(self, seat=s, top=self.top), t)
            t.append(Reason("engine.burn", Verdict.FORBADE, _("You are not offered a burn of this play now.")))
            return False
        if move.verb == Verb.PLAY and cap == Capacity.BURN:
            t.append(Reason("engine.burn", Verdict.FORBADE, game_words(self.graph.resolved).own(
                _("You are asked whether to burn: answer 'burn CARDS' or 'pass'."), Term.BURN)))
            return False
        cards = move.cards or ()
        hand = self.hands[s]
        if any(c > h for c, h in zip(cards, hand)):
            t.append(Reason("engine.cards", Verdict.FORBADE, _("You do not hold {cards} (hand: {hand}).").format(
                cards=self.model.text(cards), hand=self.hand_text(s))))
            return False
        p = self.model.classify(tuple(cards))
        if not p.valid:
            t.append(Reason("setting.play-shape", Verdict.FORBADE, _("{text} is not a play: {why}.").format(
                text=p.text, why=p.why), self._setting_where("filler_rank")))
            return False
        tp = TablePlay(p, s, self.kinds)
        tp.empties_hand = p.count == self.hand_size(s)
        if cap == Capacity.LEAD:
            ok = self.graph.permit(HookName.PLAY, Ctx(self, seat=s, play=tp, leading=True), t)
            if self.burner == s:
                ok = self.graph.permit(HookName.BURN_LEAD, Ctx(self, seat=s, play=tp, leading=True), t) and ok
            return ok
        return self._check_answer(p, tp, s, cap, t)

    def _check_answer(self, p: Play, tp: TablePlay, s: int, cap: Capacity, t: list[Reason]) -> bool:
        """A play that answers the play on the table (follow) or burns it: the question asked, then the comparison."""
        top = self.top
        assert top is not None
        if cap == Capacity.FOLLOW:
            self.graph.permit(HookName.FOLLOW, Ctx(self, seat=s, top=top), t)
        else:
            self.graph.permit(HookName.BURN, Ctx(self, seat=s, top=top), t)
        if not self.model.beats(top.play, p):
            t.append(Reason("setting.comparison", Verdict.FORBADE,
                            _("{text} does not beat {text2}: {why}.").format(text=p.text, text2=top.play.text, why=self.model.why_not(top.play, p)),
                            self._setting_where("comparison")))
            return False
        t.append(Reason("setting.comparison", Verdict.ALLOWED, _("{text} beats {text2}.").format(
            text=p.text, text2=top.play.text), self._setting_where("comparison")))
        return self.graph.permit(HookName.PLAY, Ctx(self, seat=s, play=tp, top=top), t)

    def _why_not_asked(self, move: Move, t: list[Reason]) -> None:
        """For a seat that is not to act during a trick: the rules that keep it out of the queue."""
        seat = move.seat
        if self.phase != Phase.PLAY or self.top is None or not 1 <= seat <= self.n_seats:
            return
        if not self.is_active(seat):
            t.append(Reason("engine.out", Verdict.FORBADE, _("Seat {seat} no longer plays in this game.").format(seat=seat)))
            return
        if seat == self.top.seat:
            t.append(Reason("engine.own-play", Verdict.FORBADE, _("The play on the table is your own.")))
            return
        sub: list[Reason] = []
        ctx = Ctx(self, seat=seat, top=self.top)
        if move.verb == Verb.BURN:
            self.graph.permit(HookName.BURN, ctx, sub)
        else:
            self.graph.permit(HookName.FOLLOW, ctx, sub)
        t.extend(r for r in sub if r.verdict == Verdict.FORBADE)
        waiting = [q for q, _cap in self.queue]
        if not any(r.verdict == Verdict.FORBADE for r in sub) and seat in waiting:
            t.append(Reason("engine.order", Verdict.NOTE, _("Seat {seat} will be asked after seat {to_act}.").format(seat=seat, to_act=self.to_act)))

    def _setting_where(self, name: str) -> SourcePos | None:
        st = self.graph.resolved.settings.get(name)
        return st.origin if st else None

    # -------------------------------------------------------------- applying
    def require_legal(self, move: Move) -> None:
        """Raise :class:`IllegalMove` with the rules that refuse ``move`` unless it is legal here
        (the one legality gate of every ``apply``: interpreter and native engine)."""
        if not self.check(move):
            trace: list[Reason] = []
            self.check(move, trace)
            raise IllegalMove(move.text(self.model), trace)

    def apply_in_place(self, move: Move, *, trusted: bool = False) -> None:
        """Apply a legal move, mutating this state. Raises :class:`IllegalMove` (state unchanged).
        ``trusted=True`` skips the legality check: only for a move just taken from
        :meth:`legal_moves` of this very state (the simulation loop)."""
        if not trusted:
            self.require_legal(move)
        self._event("move", move=move.text(self.model))
        if self.phase != Phase.PLAY:
            self._apply_before_play(move)
            if self.redeal_pending:
                self._redeal()
            return
        self._apply_in_play(move)

    def _apply_before_play(self, move: Move) -> None:
        s = move.seat
        if self.phase == Phase.ASK:
            _, word = self.ask_queue.pop(0)
            self._answered(s, word, word if move.verb == Verb.CHOOSE else Verb.PASS)
            self._advance_asks()
            return
        if self.phase == Phase.RETURN:
            receiver, giver, n = self.return_queue.pop(0)
            cards = move.cards or ()
            self.transfer(receiver, giver, {k: n for k, n in zip(self.kinds, cards) if n}, "return")
            self.graph.trigger(HookName.AFTER_RETURN, Ctx(self, seat=receiver, target=giver, amount=n))
            self._advance_between()
            return
        if self.phase == Phase.DECLARE:
            self.declare_queue.pop(0)
            if move.verb == Verb.DECLARE:
                self.flags.setdefault("declared", set()).add(s)
            self._answered(s, Verb.DECLARE, move.verb)
            self._advance_setup()
            return
        if self.phase == Phase.SETUP:
            self.setup_queue.pop(0)
            if move.verb == Verb.REVOLT:
                self.revolted.add(s)
                self._event("revolution", seat=s)
            self._answered(s, Verb.REVOLT, move.verb)
            self._advance_setup()
            return
        if self.phase == Phase.CHOOSE:
            self.choose_queue.pop(0)
            self.flags.setdefault("chose_" + move.arg, set()).add(s)
            self._answered(s, Verb.CHOOSE, move.arg)
            self._advance_setup()
            return

    def _apply_in_play(self, move: Move) -> None:
        self.decisions += 1
        if move.verb == Verb.PASS:
            self._pass(move.seat)
        elif move.verb == Verb.DISCARD:
            self._discard(move.seat, move.cards or ())
        elif move.verb == Verb.YIELD:
            self._yield(move.seat)
        else:
            self._play(move)

    def _pass(self, s: int) -> None:
        """Seat ``s`` passes: out of the trick if it was asked to follow."""
        _, cap = self.queue.pop(0)
        if cap == Capacity.FOLLOW:
            self.passed.add(s)
        self._after_turn(HookName.AFTER_PASS, s)

    def _yield(self, s: int) -> None:
        """Seat ``s`` yields: it follows again after as many of the following players as ``yield_to`` answers."""
        self.queue.pop(0)
        n = int(self._ask(HookName.YIELD_TO, Ctx(self, seat=s, top=self.top)) or 0)
        self.queue.insert(self._after_followers(s, n), (s, Capacity.FOLLOW))
        self.yielders.append(s)
        self.yielded_this_top.add(s)
        self._after_turn(HookName.AFTER_YIELD, s)

    def _after_followers(self, s: int, n: int) -> int:
        """The place in the queue after the next ``n`` active followers other than ``s``."""
        i, seen = 0, 0
        while i < len(self.queue) and seen < n:
            t, cap = self.queue[i]
            if cap == Capacity.FOLLOW and t != s and self.is_active(t):
                seen += 1
            i += 1
        return i

    def _after_turn(self, hook: HookName, s: int) -> None:
        """After a pass or a yield: its trigger rules (if any) and, unless they settle the game, the next turn."""
        if self.graph.by_hook[hook]:
            self.graph.trigger(hook, Ctx(self, seat=s, top=self.top))
            if self._settle():
                return
        self._advance()

    def _discard(self, s: int, cards: tuple[int, ...]) -> None:
        """Seat ``s`` discards ``cards`` (out of the game); a seat that is no longer playing hands the lead on."""
        for i, c in enumerate(cards):
            self.hands[s][i] -= c
            self.discarded[i] += c
        self._event("discard", seat=s, cards=self.model.text(cards))
        if self.graph.by_hook[HookName.AFTER_DISCARD]:
            tp = TablePlay(self.model.classify(tuple(cards)), s, self.kinds)
            tp.empties_hand = self.hand_size(s) == 0
            self.graph.trigger(HookName.AFTER_DISCARD, Ctx(self, seat=s, play=tp))
        if self.hand_size(s) == 0:
            self._finish(s)
        if not self.is_active(s) and not self._settle():  # (went out, or a rule placed the seat)
            self._new_trick(self.next_active(s))

    def _play(self, move: Move) -> None:
        s = move.seat
        cards = move.cards or ()
        p = self.model.classify(tuple(cards))
        hand = self.hands[s]
        for i, c in enumerate(cards):
            hand[i] -= c
        prev = self.top
        tp = TablePlay(p, s, self.kinds)
        tp.beaten_seat = prev.seat if prev else None
        tp.is_burn = move.verb == Verb.BURN
        tp.empties_hand = sum(hand) == 0
        if self.yielders:
            tp.over_yield = True
            tp.yielder = self.yielders[0]
            self.passed.update(self.yielders)
            self.yielders = []
        if tp.is_burn:
            counter = self.burner is not None and prev is not None and prev.seat == self.burner
            if counter:
                self._event("counter_burn", seat=s, burned=self.burner)
                if self.burns:
                    self.burns[-1]["countered"] = True
            self.burner = s
            self.burned_seat = prev.seat if prev else None
            self.burns.append({"burner": s, "burned": self.burned_seat, "success": False, "counter": counter})
            self._event("burn", seat=s, burned=self.burned_seat)
        elif self.burner is not None and prev is not None and prev.seat == self.burner and s != self.burner:
            self._event("burn_undone", seat=s, burner=self.burner)
            self.burner = None
        self.top = tp
        self.capacity = Capacity.FOLLOW
        self.yielded_this_top = set()
        self.graph.trigger(HookName.AFTER_PLAY, Ctx(self, seat=s, play=tp, beaten=prev))
        if tp.empties_hand:
            self._finish(s)
        if self._settle():
            return
        self._rebuild_queue()
        self._advance()

    # -------------------------------------------------------------- views
    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: its own hand, other seats' counts / hands as the ruleset's
        ``see_count`` / ``see_hand`` rules allow, and the public table (JSON-ready)."""
        others = {}
        for t in self.seat_list:
            if t == seat:
                continue
            ctx = Ctx(self, seat=seat, target=t)
            info: dict[str, Any] = {"team": self.team(t)}
            if self.graph.permit(HookName.SEE_COUNT, ctx):
                info["count"] = self.hand_size(t)
            if self.graph.permit(HookName.SEE_HAND, ctx):
                info["hand"] = self.hand_text(t)
            others[str(t)] = info
        return {
            "seat": seat, "hand": self.hand_text(seat), "others": others, "phase": self.phase,
            "to_act": self.to_act, "top": None if self.top is None else {"seat": self.top.seat, "cards": self.top.play.text},
            "passed": sorted(self.passed), "places": {str(k): v for k, v in sorted(self.places.items())},
            "revolted": sorted(self.revolted), "burner": self.burner,
        }


_BEFORE_PLAY = frozenset({"deal", "tribute", "setup"})  # hook phases (vocabulary.PHASES) asked only before play
_DRAWS: list[tuple[RuleGraph, bool, bool]] = []  # (the last ruleset asked: a graph is frozen, its answers too)


def _draws(graph: RuleGraph, in_play: bool) -> bool:
    """A rule of ``graph`` that may still be asked calls ``random_seat()`` (draws from the game's
    generator): any rule, or, ``in_play`` (the first leader chosen), a rule of a hook asked after the
    deal, the tribute and the setup questions. A definition that draws counts wherever it is used."""
    if not (_DRAWS and _DRAWS[0][0] is graph):
        def draws(trees: Iterable[A.Node]) -> bool:
            return any(isinstance(x, A.Call) and x.func == "random_seat" for t in trees for x in A.walk(t))
        by_def = draws(d.body for d in graph.definitions.values() if d.body is not None)
        late = by_def or draws(t for n in graph.nodes if n.phase not in _BEFORE_PLAY for t in n.checked.values())
        _DRAWS[:] = [(graph, late or draws(t for n in graph.nodes for t in n.checked.values()), late)]
    return _DRAWS[0][2] if in_play else _DRAWS[0][1]


def _num(v: Any) -> int | float:
    """Scores are ints unless a rule divides (six-deck: team sum / 3); floats are rounded to 2 places."""
    if v is None:
        return 0
    if isinstance(v, float):
        return int(v) if v.is_integer() else round(v, 2)
    return int(v)


def score_range(graph: RuleGraph, seats: tuple[int, int] = (1, 2)) -> float | None:
    """The largest difference between the scores of ``seats`` (one of each team: what a duel measures)
    that the ruleset's own ``sweep`` and ``score`` rules give at the end of a game, over every order of
    finish (asked of a freshly dealt game with its places set); None when the rules cannot be asked so.
    The bound of a game's team-score difference (``online``: 24, a sweep's doubled 6 − (−6))."""
    import itertools
    n = graph.n_seats
    if not 2 <= n <= 8 or max(seats) > n:
        return None
    try:
        st = new_game(graph, "score-range")
        best: float = 0
        for order in itertools.permutations(range(1, n + 1)):
            st.places = dict(zip(range(1, n + 1), order))
            st.phase = Phase.OVER
            st.sweep = bool(st._ask(HookName.SWEEP, Ctx(st)))
            a, b = (_num(st._ask(HookName.SCORE, Ctx(st, seat=s), f"score:{s}")) for s in seats)
            best = max(best, abs(a - b))
    except Exception:  # a rule that needs more than the places: no bound (nothing is clipped)
        return None
    return best


# ------------------------------------------------------------------------------ choices and counters
def choices_at(graph: Any, point: str) -> list[str]:
    """The words of ``settings.choices`` asked at ``point`` (a :class:`Point`), in the setting's order."""
    return [str(w) for w, spec in (graph.settings.get("choices") or {}).items() if spec.get("asked") == point]


def counters_reset(graph: Any, reset: str) -> list[str]:
    """The counters of ``settings.counters`` that start again at ``reset`` (a :class:`CounterReset`)."""
    return [str(c) for c, spec in (graph.settings.get("counters") or {}).items() if spec.get("reset") == reset]


def kept_counters(graph: Any, counters: Mapping[str, Mapping[int, int]], resets: Sequence[str]) -> dict[str, dict[int, int]]:
    """Copies of the counters whose reset is one of ``resets`` (what a new deal or game keeps)."""
    keep = {c for r in resets for c in counters_reset(graph, r)}
    return {k: dict(v) for k, v in counters.items() if k in keep}


# ------------------------------------------------------------------------------ dealing
def deal_hands(model: CardModel, n_seats: int, rng: random.Random, first: int = 1) -> dict[int, list[Card]]:
    """Shuffle the ruleset's pack with ``rng`` and deal one card at a time, starting at ``first``."""
    deck = model.deck()
    rng.shuffle(deck)
    hands: dict[int, list[Card]] = {s: [] for s in range(1, n_seats + 1)}
    for i, c in enumerate(deck):
        hands[(first - 1 + i) % n_seats + 1].append(c)
    return hands


def check_seats(n: int, hands: Mapping[int, Any] | None, leader: int | None) -> None:
    """Refuse a dealt hand or a forced leader for a seat that does not exist (``BadSeat``): it would
    index another seat's hand (-1 is the last seat). Shared by the interpreter and the generated
    play-out (:mod:`gouji_dsl.engine.fast`)."""
    seats = range(1, n + 1)
    bad = [s for s in (hands or {}) if s not in seats] + \
        ([leader] if leader is not None and leader not in seats else [])
    if bad:
        raise GoujiError(Diagnostic("<game>", 0, 0, _("seat {bad!r} does not exist: this ruleset has seats 1..{n}").format(bad=bad[0], n=n),
                                    code=Code.BAD_SEAT))


_SETUP_CHECKS: dict[Phase, Callable[[GameState, Move, int, list[Reason]], bool]] = {
    Phase.RETURN: GameState._check_return, Phase.ASK: GameState._check_ask, Phase.DECLARE: GameState._check_declare,
    Phase.SETUP: GameState._check_setup, Phase.CHOOSE: GameState._check_choose,
}
"""How :meth:`GameState.check` checks a move in each phase before the tricks."""


def game_seed(seed: Any, index: int) -> str:
    """The seed of game ``index`` of a run seeded ``seed`` (every engine deals game ``index`` from it)."""
    return f"{seed}:{index}"


def new_game(graph: RuleGraph, seed: int | str | None = None, *, hands: dict[int, list[Card]] | None = None,
             leader: int | None = None, game_number: int = 1) -> GameState:
    """Start a game from ``random.Random(seed)``: it shuffles and deals in the ruleset's dealing
    order (unless ``hands`` are given) and draws whatever else the rules leave to chance. The seed
    is kept in the record so the game can be replayed (:func:`replay`)."""
    rng = random.Random(seed)
    return GameState(graph, hands, rng=rng, game_number=game_number, leader=leader,
                     source="random" if hands is None else "fixed", seed=seed)


def match_length(graph: RuleGraph) -> int:
    """Games per match as the ruleset's ``match_length`` rule says (1 when it has none): the
    games a match (比赛) chains, tribute between them."""
    return max(1, int(graph.value(HookName.MATCH_LENGTH, Ctx(None)) or 1))


def next_game(state: GameState, seed: int | str | None = None, *,
              hands: dict[int, list[Card]] | None = None) -> GameState:
    """The next game of a match: a new deal (from ``seed`` or ``hands``) whose between-game phase
    (tribute, returns, buying) sees ``state`` as the previous game."""
    return GameState(state.graph, hands, rng=random.Random(seed), game_number=state.game_number + 1,
                     source="random" if hands is None else "fixed", seed=seed, prev=state.summary())


def replay(graph: RuleGraph, record: list[dict[str, Any]], upto: int | None = None) -> GameState:
    """Rebuild a game from its record: the first deal (by seed when the record has one, else the
    dealt hands) and the first ``upto`` moves (all by default). Raises :class:`IllegalMove` if
    a recorded move is illegal under ``graph`` (a record made under another ruleset)."""
    deal = next(e for e in record if e["type"] == "deal")
    leader = next((e.get("forced") for e in record if e["type"] == "first_leader" and e.get("forced")), None)
    prev = PrevGame.from_json(deal["prev"]) if deal.get("prev") else None
    seed = deal.get("seed")
    hands = None
    if deal.get("source") != "random":
        hands = {int(s): parse_cards(t, allow_empty=True) for s, t in deal["hands"].items()}
    g = GameState(graph, hands, rng=random.Random(seed), game_number=deal.get("game_number", 1), leader=leader,
                  source="random" if hands is None else deal.get("source", "fixed"), seed=seed, prev=prev)
    moves = [e["move"] for e in record if e["type"] == "move"]
    # a voided fixed deal dealt again with given hands (a scenario's redeal_deals): its later deals
    again = [{int(s): parse_cards(t, allow_empty=True) for s, t in e["hands"].items()}
             for e in record if e["type"] == "deal" and e is not deal and e.get("redeal") and e.get("source") != "random"]
    for text in moves[:upto]:
        while again and g.voided:
            g.deal_again(again.pop(0))
        g.apply_in_place(parse_move(text, g.model, g.n_seats, words=choice_words(graph)))
    while again and g.voided and (upto is None or upto >= len(moves)):
        g.deal_again(again.pop(0))
    return g


def hands_from_text(graph: RuleGraph, deal: dict[Any, str], **pos: Any) -> dict[int, list[Card]]:
    """Seat → card text (scenario ``deal``) to seat → cards. Raises GoujiError."""
    out: dict[int, list[Card]] = {s: [] for s in range(1, graph.n_seats + 1)}
    for k, text in deal.items():
        s = int(k)
        cards = parse_cards(str(text), allow_empty=True, **pos)
        graph.model.counts_of(cards)
        out[s] = cards
    return out


# ------------------------------------------------------------------------------ functional API
def legal_moves(state: GameState) -> Sequence[Move]:
    """The legal moves of the seat to act."""
    return state.legal_moves()


def apply(state: GameState, move: Move) -> GameState:
    """A new state with ``move`` applied; ``state`` is untouched. Raises :class:`IllegalMove`."""
    state.require_legal(move)
    g = state.copy()
    g.apply_in_place(move)
    return g


__all__ = ["CARD_VERBS", "Capacity", "Choice", "GameState", "IllegalMove",
           "LegalMoves", "Move", "Outcome", "Phase", "Placement", "PrevGame", "ReturnMoves", "VERBS", "Verb",
           "apply", "deal_hands", "hands_from_text", "legal_moves", "new_game", "next_game",
           "parse_move", "replay", "score_range"]
