"""The one interpreter: game state, legal moves, apply, explain — for every ruleset.

The interpreter knows seats, teams, tricks, turns, places and phases; every Gouji decision is a
question put to the :class:`~gouji_dsl.ruleset.graph.RuleGraph` (see :mod:`gouji_dsl.ruleset.vocabulary`).

Flow of one game: deal → setup (each seat the ``revolt`` rules allow is asked; then ``redeal``;
then opposites the ``choose`` rules name choose head / head-less) → play (tricks) → over.

A trick: the leader plays; the ruleset's ``burn_order`` and ``follow_order`` give the queue of
seats to ask about the play on the table; each is asked only while the ``burn`` / ``follow`` rules
allow it; a new play rebuilds the queue; an empty queue means the top play won the trick and
``next_leader`` leads the next one.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gouji_dsl.diagnostics import Diagnostic, GoujiError, SourcePos
from gouji_dsl.engine.cards import Card, parse_cards
from gouji_dsl.engine.model import CardModel, Play
from gouji_dsl.ruleset.graph import Reason, RuleGraph

VERBS = ("play", "pass", "yield", "burn", "revolt", "declare", "choose", "discard", "return")
CARD_VERBS = ("play", "burn", "discard", "return")


# ------------------------------------------------------------------------------ moves
class Move(NamedTuple):
    """An immutable move: ``seat`` (1..N), ``verb`` (one of :data:`VERBS`), ``cards`` (count vector
    for play/burn/discard/return) and ``arg`` (``head``/``headless`` for choose). A named tuple:
    cheap to create by the thousand in legal-move generation, hashable, compared by value."""

    seat: int
    verb: str
    cards: tuple[int, ...] | None = None
    arg: str = ""

    def text(self, model: CardModel) -> str:
        """NOTATION.md move line, cards canonical: ``3 play RR TTT``."""
        if self.cards is not None:
            return f"{self.seat} {self.verb} {model.text(self.cards)}"
        if self.arg:
            return f"{self.seat} {self.verb} {self.arg}"
        return f"{self.seat} {self.verb}"


def parse_move(text: str, model: CardModel, n_seats: int | None = None, *, path: str = "<move>", line: int = 0,
               col: int = 1) -> Move:
    """Parse a move line (NOTATION.md "Moves"). Raises :class:`GoujiError` with the column."""
    def fail(pos: int, msg: str, hint: str | None = None) -> GoujiError:
        return GoujiError(Diagnostic(path, line, col + pos, msg, hint, text if line else None))

    parts = text.strip().split(None, 2)
    if len(parts) < 2:
        raise fail(0, f"a move is '<seat> <verb> [cards]', got {text!r}", "e.g. '3 play RR TTT' or '2 pass'")
    seat_s, verb = parts[0], parts[1]
    if not seat_s.isdigit() or int(seat_s) < 1 or (n_seats is not None and int(seat_s) > n_seats):
        raise fail(0, f"seat must be 1..{n_seats or 'N'}, got {seat_s!r}")
    vpos = text.find(verb)
    if verb not in VERBS:
        from gouji_dsl.diagnostics import did_you_mean
        raise fail(vpos, f"unknown move {verb!r}", did_you_mean(verb, VERBS) or "moves: " + ", ".join(VERBS))
    rest = parts[2] if len(parts) > 2 else ""
    seat = int(seat_s)
    if verb in CARD_VERBS:
        if not rest.strip():
            raise fail(len(text), f"'{verb}' needs cards", f"e.g. '{seat} {verb} RR TTT'")
        cpos = text.find(rest, vpos + len(verb))
        cards = model.parse(rest, path=path, line=line, col=col + cpos)
        return Move(seat, verb, cards)
    if verb == "choose":
        if rest.strip() not in ("head", "headless"):
            raise fail(vpos, "choose takes 'head' or 'headless'")
        return Move(seat, verb, None, rest.strip())
    if rest.strip():
        raise fail(text.find(rest), f"'{verb}' takes no argument")
    return Move(seat, verb)


class LegalMoves(Sequence[Move]):
    """A read-only list of moves whose many play moves are built only when looked at.

    A 36-card hand has hundreds of distinct leads; a random bot looks at one of them. Indexing,
    ``len``, iteration and ``in`` behave as on a list of :class:`Move` (``in`` by value, without
    building the moves); ``list(moves)`` gives a plain list."""

    __slots__ = ("seat", "verb", "cards", "extra", "_index")

    def __init__(self, seat: int, verb: str, cards: list[tuple[int, ...]], extra: list[Move] = ()):
        self.seat = seat
        self.verb = verb
        self.cards = cards
        self.extra = list(extra)
        self._index: set[tuple[int, ...]] | None = None

    def __len__(self) -> int:
        return len(self.cards) + len(self.extra)

    def __getitem__(self, i):  # type: ignore[override]
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


class IllegalMove(GoujiError):
    """An illegal move: ``reasons`` are the rules (or interpreter checks) that forbade it."""

    def __init__(self, move_text: str, reasons: list[Reason]):
        self.move_text = move_text
        self.reasons = reasons
        forb = [r for r in reasons if r.verdict == "forbade"] or reasons
        msg = f"illegal move {move_text!r}: " + "; ".join(f"{r.rule_id}: {r.text}" for r in forb[:3])
        super().__init__(Diagnostic("<game>", 0, 0, msg))


# ------------------------------------------------------------------------------ context
class TablePlay:
    """A play with its seat, as rules see it (``top``, ``play``, ``beaten``)."""

    __slots__ = ("play", "seat", "g_kinds", "beaten_seat", "over_yield", "yielder", "empties_hand", "is_burn",
                 "rank", "count", "carried", "filler", "jokers", "gouji")

    def __init__(self, play: Play, seat: int, kinds: tuple[str, ...]):
        self.seat = seat
        self.g_kinds = kinds
        self.set_play(play)
        self.beaten_seat: int | None = None
        self.over_yield = False
        self.yielder: int | None = None
        self.empties_hand = False
        self.is_burn = False

    def set_play(self, play: Play) -> None:
        """Point this view at another play (the fields rules read are copied for speed)."""
        self.play = play
        self.rank = self.g_kinds[play.rank] if play.valid else None
        self.count = play.count
        self.carried = play.carried
        self.filler = play.filler
        self.jokers = len(play.jokers)
        self.gouji = play.gouji

    def __repr__(self) -> str:
        return f"TablePlay({self.seat}: {self.play.text})"


class Ctx:
    """The bindings an expression sees: the game and the hook's context variables."""

    __slots__ = ("g", "seat", "play", "top", "beaten", "target", "leading", "args", "kind", "card", "amount")

    def __init__(self, g: GameState | None, seat: int | None = None, play: TablePlay | None = None,
                 top: TablePlay | None = None, beaten: TablePlay | None = None, target: int | None = None,
                 leading: bool = False, kind: str | None = None, card: str | None = None):
        self.g = g
        self.seat = seat
        self.play = play
        self.top = top
        self.beaten = beaten
        self.target = target
        self.leading = leading
        self.args: tuple = ()
        self.kind = kind
        self.card = card
        self.amount = 0


@dataclass
class Explanation:
    """Why a move is legal or not: ``legal`` and the reasons in the order they were checked."""

    move: str
    legal: bool
    reasons: list[Reason] = field(default_factory=list)

    def format(self) -> str:
        head = f"{self.move}: {'legal' if self.legal else 'illegal'}"
        return "\n".join([head] + ["  " + r.format() for r in self.reasons])


# ------------------------------------------------------------------------------ state
@dataclass(frozen=True)
class PrevGame:
    """What the between-game rules may know of the previous game of a match."""

    places: dict[int, int]
    flags: dict[str, frozenset[int]]
    counters: dict[str, dict[int, int]]
    burns: tuple[dict[str, Any], ...]
    sweep: bool
    scores: dict[int, int]
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

    def __init__(self, graph: RuleGraph, hands: dict[int, list[Card]], *, rng: random.Random,
                 game_number: int = 1, leader: int | None = None, source: str = "random",
                 seed: int | str | None = None, prev: PrevGame | None = None):
        self.graph = graph
        self.model = graph.model
        self.kinds = graph.model.kinds
        n = graph.n_seats
        self.n_seats = n
        self.seat_list = tuple(range(1, n + 1))
        self._after = {s: tuple(((s - 1 + i) % n) + 1 for i in range(1, n)) for s in self.seat_list}
        self.n_teams = int(graph.settings["teams"])
        self.rng = rng
        self.game_number = game_number
        self.source = source
        K = len(self.kinds)
        self.hands: list[list[int]] = [[0] * K for _ in range(n + 1)]
        self.dealt_cards: dict[int, list[Card]] = {s: list(hands.get(s, [])) for s in self.seat_list}
        for s, cards in hands.items():
            for c in cards:
                self.hands[s][self.kinds.index(c.symbol)] += 1
        self.dealt: list[tuple[int, ...]] = [tuple(h) for h in self.hands]
        self.phase = "setup"
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
        self.capacity = "lead"
        self.burner: int | None = None
        self.burned_seat: int | None = None
        self.burns: list[dict[str, Any]] = []
        self.trick_no = 0
        self.decisions = 0
        self.finished_in_trick: list[int] = []
        self.scores: dict[int, int] = {}
        self.sweep = False
        self.redealt = False
        self.forced_leader = leader
        self.prev = prev
        self.received: dict[int, dict[str, int]] = {s: {} for s in self.seat_list}
        self.discarded = [0] * K
        self.return_queue: list[tuple[int, int, int]] = []
        self.declare_queue: list[int] = []
        self.late: list[int] = []
        self.record: list[dict[str, Any]] = []
        self.seed = seed
        self._event("deal", game_number=game_number, source=source, seed=seed,
                    prev=None if prev is None else prev.to_json(),
                    hands={str(s): " ".join(str(c) for c in self.dealt_cards[s]) for s in self.seat_list})
        self.phase = "between"
        if prev is not None:
            self._pay_tribute()
        self._advance_between()

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
        r = random.Random()
        r.setstate(self.rng.getstate())
        g.rng = r
        return g

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
        """The seat stops playing: ``last`` takes the worst free place, ``next`` the best,
        ``after-finishers`` is placed at the end after every finisher."""
        if not self.is_active(seat):
            return
        self.failed.add(seat)
        self._event("retire", seat=seat, how=how, rule=rule_id)
        if how == "after-finishers":
            self.late.append(seat)
        else:
            free = self._free_places()
            self._place(seat, free[-1] if how == "last" else free[0])
        self._check_over()

    def _pay_tribute(self) -> None:
        g = self.graph
        kinds = g.value("tribute_kinds", Ctx(self)) or []
        for kind in kinds:
            for giver in self.seat_list:
                for receiver in self.after(giver):
                    n = int(g.value("tribute", Ctx(self, seat=giver, target=receiver, kind=kind)) or 0)
                    if n <= 0:
                        continue
                    cards: dict[str, int] = {}
                    left = n
                    for i in range(len(self.kinds) - 1, -1, -1):
                        if left <= 0:
                            break
                        sym = self.kinds[i]
                        have = self.hands[giver][i] - cards.get(sym, 0)
                        lim = g.value("tribute_card", Ctx(self, seat=giver, card=sym))
                        k = min(have, left, have if lim is None else int(lim))
                        if k > 0:
                            cards[sym] = k
                            left -= k
                    if cards:
                        moved = self.transfer(giver, receiver, cards, f"tribute:{kind}")
                        self.record[-1]["kind"] = kind
                        rctx = Ctx(self, seat=receiver, target=giver, kind=kind)
                        rctx.amount = sum(moved.values())
                        back = int(g.value("return_tribute", rctx) or 0)
                        if back > 0:
                            self.return_queue.append((receiver, giver, min(back, sum(moved.values()))))

    def _advance_between(self) -> None:
        if self.return_queue:
            self.phase = "return"
            self.to_act = self.return_queue[0][0]
            self.capacity = "return"
            return
        if self.phase in ("between", "return"):
            for s in self.seat_list:
                self.graph.trigger("seat_setup", Ctx(self, seat=s))
            self._begin_setup()

    def _return_moves(self, s: int, n: int) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        hand = self.hands[s]
        K = len(hand)

        def rec(i: int, left: int, acc: list[int]) -> None:
            if left == 0:
                out.append(tuple(acc + [0] * (K - len(acc))))
                return
            if i == K:
                return
            for k in range(min(hand[i], left), -1, -1):
                rec(i + 1, left - k, acc + [k])
        rec(0, n, [])
        return out

    def parse(self, text: str) -> Move:
        """Parse a move line for this game (seat range and cards of this ruleset)."""
        return parse_move(text, self.model, self.n_seats)

    def hand_text(self, s: int) -> str:
        return self.model.text(self.hands[s])

    def shown_leader(self, sym: str, k: int) -> int | None:
        """Seat that showed the most same-suit cards of ``sym`` (at least ``k``); ties: who completed
        that count first in dealing order (card i of seat s is dealt at time i*N + s); in a fixed
        deal, which has no dealing order, the lowest seat."""
        best: tuple[int, int, int] | None = None
        for s in self.seat_list:
            seen: dict[str, int] = {}
            top_n, top_t = 0, 0
            for i, c in enumerate(self.dealt_cards[s]):
                if c.symbol != str(sym) or not c.suit:
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
        return self.phase == "over"

    # -------------------------------------------------------------- setup
    def _begin_setup(self) -> None:
        self.phase = "setup"
        for s in self.seat_list:
            if self.graph.value("must_revolt", self._ctx(seat=s)):
                self.revolted.add(s)
                self._event("revolution", seat=s, automatic=True)
        self.setup_queue = [s for s in self.seat_list if s not in self.revolted
                            and self.graph.permit("revolt", self._ctx(seat=s))]
        self._advance_setup()

    def _advance_setup(self) -> None:
        if self.phase == "setup":
            if self.setup_queue:
                self.to_act = self.setup_queue[0]
                self.capacity = "setup"
                return
            if self.graph.value("redeal", self._ctx()):
                self._event("redeal", revolted=sorted(self.revolted))
                self.redealt = True
                if self.source == "random":
                    self._redeal()
                else:
                    self.phase = "over"
                    self.to_act = None
                return
            self.choose_queue = [s for s in self.seat_list if s not in self.revolted
                                 and self.graph.permit("choose", self._ctx(seat=s))]
            self.phase = "choose"
        if self.phase == "choose":
            if self.choose_queue:
                self.to_act = self.choose_queue[0]
                self.capacity = "choose"
                return
            self.declare_queue = [s for s in self.seat_list if s not in self.revolted
                                  and self.graph.permit("declare", self._ctx(seat=s))]
            self.phase = "declare"
        if self.phase == "declare":
            if self.declare_queue:
                self.to_act = self.declare_queue[0]
                self.capacity = "declare"
                return
            self._start_play()

    def _redeal(self) -> None:
        hands = deal_hands(self.model, self.n_seats, self.rng)
        fresh = GameState(self.graph, hands, rng=self.rng, game_number=self.game_number,
                          leader=self.forced_leader, source=self.source, seed=self.seed, prev=self.prev)
        fresh.record[0]["redeal"] = True
        record = self.record + fresh.record
        self.__dict__.update(fresh.__dict__)
        self.record = record
        self.redealt = True

    def decline_setup(self) -> None:
        """Answer every pending setup question with 'no' (scenarios that go straight to play)."""
        while self.phase in ("setup", "declare", "choose") and self.to_act is not None:
            if self.phase in ("setup", "declare"):
                self.apply_in_place(Move(self.to_act, "pass"))
            else:
                self.apply_in_place(Move(self.to_act, "choose", None, "head"))

    def _start_play(self) -> None:
        self.phase = "play"
        self.graph.trigger("game_start", self._ctx())
        for s in self.seat_list:
            self.graph.trigger("seat_start", self._ctx(seat=s))
        leader = self.forced_leader or self.graph.value("first_leader", self._ctx())
        if not leader or not self.is_active(leader):
            leader = self.next_active(leader or self.n_seats)
        self._event("first_leader", seat=leader, forced=self.forced_leader)
        self._new_trick(leader)

    # -------------------------------------------------------------- tricks
    def _new_trick(self, leader: int | None) -> None:
        if leader is None:
            return
        self.trick_no += 1
        self.top = None
        self.passed = set()
        self.queue = []
        self.yielders = []
        self.yielded_this_top = set()
        self.finished_in_trick = []
        self.trick_leader = leader
        self.to_act = leader
        self.capacity = "lead"
        if self.burner == leader and not any(True for _ in self._lead_plays(leader)):
            self._fail_burn(leader)
        elif not any(True for _ in self._lead_plays(leader)) and not self._discard_moves(leader):
            how = str(self.graph.value("no_lead", Ctx(self, seat=leader)) or "after-finishers")
            self._event("no_lead", seat=leader)
            self.retire(leader, how, "engine.no-lead")
            if self.phase == "play":
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
            if not g.permit("play", ctx):
                continue
            if burning and not g.permit("burn_lead", ctx):
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
            if g.permit("play", ctx):
                yield p

    def _rebuild_queue(self) -> None:
        top = self.top
        assert top is not None
        ctx = Ctx(self, top=top)
        burn = self.graph.value("burn_order", ctx) or []
        follow = self.graph.value("follow_order", ctx)
        if follow is None:
            follow = list(self.after(top.seat))
        self.queue = [(s, "burn") for s in burn] + [(s, "follow") for s in follow]

    def _advance(self) -> None:
        g = self.graph
        while self.queue:
            seat, cap = self.queue[0]
            if seat is None or not self.is_active(seat) or seat == self.top.seat:
                self.queue.pop(0)
                continue
            ctx = Ctx(self, seat=seat, top=self.top)
            if cap == "burn":
                if g.permit("burn", ctx) and any(True for _ in self._answer_plays(seat)):
                    self.to_act, self.capacity = seat, "burn"
                    return
            elif g.permit("follow", ctx):
                self.to_act, self.capacity = seat, "follow"
                return
            self.queue.pop(0)
        self._trick_won()

    def _trick_won(self) -> None:
        top = self.top
        assert top is not None
        winner = top.seat
        self.graph.trigger("trick_won", Ctx(self, seat=winner, top=top))
        self._event("trick_won", seat=winner, play=top.play.text)
        leader = self.graph.value("next_leader", Ctx(self, top=top))
        if not leader or not self.is_active(leader):
            leader = winner if self.is_active(winner) else self.next_active(winner)
        self._new_trick(leader)

    # -------------------------------------------------------------- places
    def _reserved(self) -> set[int]:
        out = set()
        for r in self.revolted:
            p = self.graph.value("revolution_place", Ctx(self, seat=r))
            if p:
                out.add(int(p))
        return out

    def _free_places(self) -> list[int]:
        taken = set(self.places.values()) | self._reserved()
        return [p for p in range(1, self.n_seats + 1) if p not in taken]

    def _place(self, seat: int, place: int) -> None:
        self.places[seat] = place
        self._event("place", seat=seat, place=place)

    def _finish(self, seat: int) -> None:
        free = self._free_places()
        self._place(seat, free[0])
        self.finish_order.append(seat)
        self.finished_in_trick.append(seat)
        if self.burner == seat:
            self.burns[-1]["success"] = True
            self._event("burn_success", seat=seat, burned=self.burned_seat)
            self.burner = None
        self.graph.trigger("finish", Ctx(self, seat=seat))
        self._check_over()

    def _fail_burn(self, seat: int) -> None:
        where = self.graph.value("burn_failure", Ctx(self, seat=seat))
        free = self._free_places()
        place = free[-1] if where == "last" else free[0]
        self.failed.add(seat)
        self.burner = None
        if self.burns:
            self.burns[-1]["failed"] = True
        self._event("burn_failed", seat=seat)
        self._place(seat, place)
        self._check_over()
        if self.phase == "play" and (self.to_act == seat or self.to_act is None):
            self._new_trick(self.next_active(seat))

    def _check_over(self) -> None:
        if self.phase == "over":
            return
        if not self.graph.value("game_over", Ctx(self)):
            return
        for r in sorted(self.revolted):
            p = self.graph.value("revolution_place", Ctx(self, seat=r))
            taken = set(self.places.values())
            free = [q for q in range(1, self.n_seats + 1) if q not in taken]
            self._place(r, int(p) if p and int(p) in free else free[0])
        rest = sorted((s for s in self.seat_list if s not in self.places and s not in self.late),
                      key=lambda s: (self.hand_size(s), s)) + [s for s in self.late if s not in self.places]
        taken = set(self.places.values())
        free = [q for q in range(1, self.n_seats + 1) if q not in taken]
        for s, p in zip(rest, free):
            self._place(s, p)
        self.phase = "over"
        self.to_act = None
        self.sweep = bool(self.graph.value("sweep", Ctx(self)))
        self.scores = {s: _num(self.graph.value("score", Ctx(self, seat=s))) for s in self.seat_list}
        self._event("game_over", places={str(s): p for s, p in sorted(self.places.items())},
                    scores={str(s): v for s, v in self.scores.items()}, sweep=self.sweep)

    # -------------------------------------------------------------- legality
    def legal_moves(self) -> Sequence[Move]:
        """Every legal move for the seat to act (empty when the game is over). A sequence of
        :class:`Move`; for a lead, a :class:`LegalMoves` that builds its moves lazily."""
        s = self.to_act
        if s is None or self.phase == "over":
            return []
        if self.phase == "return":
            return [Move(s, "return", v) for v in self._return_moves(s, self.return_queue[0][2])]
        if self.phase == "setup":
            return [Move(s, "revolt"), Move(s, "pass")]
        if self.phase == "declare":
            return [Move(s, "declare"), Move(s, "pass")]
        if self.phase == "choose":
            return [Move(s, "choose", None, "head"), Move(s, "choose", None, "headless")]
        if self.capacity == "lead":
            return LegalMoves(s, "play", [p.counts for p in self._lead_plays(s)], self._discard_moves(s))
        if self.capacity == "burn":
            return [Move(s, "burn", p.counts) for p in self._answer_plays(s)] + [Move(s, "pass")]
        moves = [Move(s, "play", p.counts) for p in self._answer_plays(s)] + [Move(s, "pass")]
        if self._may_yield(s):
            moves.append(Move(s, "yield"))
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
            if self.graph.permit("discard", Ctx(self, seat=s, play=tp)):
                out.append(Move(s, "discard", tuple(v)))
        return out

    def _may_yield(self, s: int, trace: list[Reason] | None = None) -> bool:
        if s in self.yielded_this_top:
            if trace is not None:
                trace.append(Reason("engine.yield-once", "forbade", "You have already yielded this play."))
            return False
        return self.graph.permit("yield", Ctx(self, seat=s, top=self.top), trace)

    def check(self, move: Move, trace: list[Reason] | None = None) -> bool:
        """Is ``move`` legal now? With ``trace``, append the reasons (rules and checks)."""
        t = trace if trace is not None else []
        s = self.to_act
        if self.phase == "over":
            t.append(Reason("engine.over", "forbade", "The game is over."))
            return False
        if move.seat != s:
            t.append(Reason("engine.turn", "forbade", f"It is seat {s}'s turn, not seat {move.seat}'s."))
            if trace is not None:
                self._why_not_asked(move, t)
            return False
        if self.phase == "return":
            want = self.return_queue[0][2]
            if move.verb != "return":
                t.append(Reason("engine.phase", "forbade", f"Return {want} card(s) to seat {self.return_queue[0][1]} first (还贡)."))
                return False
            cards = move.cards or ()
            if sum(cards) != want:
                t.append(Reason("engine.return", "forbade", f"Return exactly {want} card(s)."))
                return False
            if any(c > h for c, h in zip(cards, self.hands[s])):
                t.append(Reason("engine.cards", "forbade", f"You do not hold {self.model.text(cards)}."))
                return False
            return True
        if self.phase == "declare":
            if move.verb in ("declare", "pass"):
                if move.verb == "declare":
                    self.graph.permit("declare", Ctx(self, seat=s), t)
                return True
            t.append(Reason("engine.phase", "forbade", "Answer 'declare' or 'pass' first (宣点)."))
            return False
        if self.phase == "setup":
            if move.verb in ("revolt", "pass"):
                if move.verb == "revolt":
                    self.graph.permit("revolt", Ctx(self, seat=s), t)
                return True
            t.append(Reason("engine.phase", "forbade", "Setup: answer 'revolt' or 'pass' first."))
            return False
        if self.phase == "choose":
            if move.verb == "choose":
                self.graph.permit("choose", Ctx(self, seat=s), t)
                return True
            t.append(Reason("engine.phase", "forbade", "Choose 'head' or 'headless' first."))
            return False
        cap = self.capacity
        if move.verb == "pass":
            if cap == "lead":
                t.append(Reason("engine.lead", "forbade", "The leader must play: a lead cannot be passed."))
                return False
            return True
        if move.verb == "yield":
            if cap != "follow":
                t.append(Reason("engine.yield", "forbade", "You can yield only when asked to answer a play."))
                return False
            ok = self._may_yield(s, t)
            if not ok and not any(r.verdict == "forbade" for r in t):
                t.append(Reason("engine.yield", "forbade", "No rule of this ruleset allows a yield here."))
            return ok
        if move.verb == "discard":
            if cap != "lead":
                t.append(Reason("engine.discard", "forbade", "You may throw cards away only when you lead."))
                return False
            cards = move.cards or ()
            if any(c > h for c, h in zip(cards, self.hands[s])):
                t.append(Reason("engine.cards", "forbade", f"You do not hold {self.model.text(cards)}."))
                return False
            tp = TablePlay(self.model.classify(tuple(cards)), s, self.kinds)
            ok = self.graph.permit("discard", Ctx(self, seat=s, play=tp), t)
            if not ok and not any(r.verdict == "forbade" for r in t):
                t.append(Reason("engine.discard", "forbade", "No rule of this ruleset allows throwing these cards away."))
            return ok
        if move.verb not in ("play", "burn"):
            t.append(Reason("engine.verb", "forbade", f"'{move.verb}' is not a move in this phase."))
            return False
        if move.verb == "burn" and cap != "burn":
            if cap == "follow" and self.top is not None:
                self.graph.permit("burn", Ctx(self, seat=s, top=self.top), t)
            t.append(Reason("engine.burn", "forbade", "You are not offered a burn of this play now."))
            return False
        if move.verb == "play" and cap == "burn":
            t.append(Reason("engine.burn", "forbade", "You are asked whether to burn: answer 'burn CARDS' or 'pass'."))
            return False
        cards = move.cards or ()
        hand = self.hands[s]
        if any(c > h for c, h in zip(cards, hand)):
            t.append(Reason("engine.cards", "forbade", f"You do not hold {self.model.text(cards)} (hand: {self.hand_text(s)})."))
            return False
        p = self.model.classify(tuple(cards))
        if not p.valid:
            t.append(Reason("setting.play-shape", "forbade", f"{p.text} is not a play: {p.why}.", self._setting_where("filler_rank")))
            return False
        tp = TablePlay(p, s, self.kinds)
        tp.empties_hand = p.count == self.hand_size(s)
        if cap == "lead":
            ok = self.graph.permit("play", Ctx(self, seat=s, play=tp, leading=True), t)
            if self.burner == s:
                ok = self.graph.permit("burn_lead", Ctx(self, seat=s, play=tp, leading=True), t) and ok
            return ok
        top = self.top
        assert top is not None
        if cap == "follow":
            self.graph.permit("follow", Ctx(self, seat=s, top=top), t)
        else:
            self.graph.permit("burn", Ctx(self, seat=s, top=top), t)
        if not self.model.beats(top.play, p):
            t.append(Reason("setting.comparison", "forbade",
                            f"{p.text} does not beat {top.play.text}: {self.model.why_not(top.play, p)}.",
                            self._setting_where("comparison")))
            return False
        t.append(Reason("setting.comparison", "allowed", f"{p.text} beats {top.play.text}.", self._setting_where("comparison")))
        return self.graph.permit("play", Ctx(self, seat=s, play=tp, top=top), t)

    def _why_not_asked(self, move: Move, t: list[Reason]) -> None:
        """For a seat that is not to act during a trick: the rules that keep it out of the queue."""
        seat = move.seat
        if self.phase != "play" or self.top is None or not 1 <= seat <= self.n_seats:
            return
        if not self.is_active(seat):
            t.append(Reason("engine.out", "forbade", f"Seat {seat} no longer plays in this game."))
            return
        if seat == self.top.seat:
            t.append(Reason("engine.own-play", "forbade", "The play on the table is your own."))
            return
        sub: list[Reason] = []
        ctx = Ctx(self, seat=seat, top=self.top)
        if move.verb == "burn":
            self.graph.permit("burn", ctx, sub)
        else:
            self.graph.permit("follow", ctx, sub)
        t.extend(r for r in sub if r.verdict == "forbade")
        waiting = [q for q, _ in self.queue]
        if not any(r.verdict == "forbade" for r in sub) and seat in waiting:
            t.append(Reason("engine.order", "note", f"Seat {seat} will be asked after seat {self.to_act}."))

    def _setting_where(self, name: str) -> SourcePos | None:
        st = self.graph.resolved.settings.get(name)
        return st.origin if st else None

    # -------------------------------------------------------------- applying
    def apply_in_place(self, move: Move, *, trusted: bool = False) -> None:
        """Apply a legal move, mutating this state. Raises :class:`IllegalMove` (state unchanged).
        ``trusted=True`` skips the legality check: only for a move just taken from
        :meth:`legal_moves` of this very state (the simulation loop)."""
        if not trusted and not self.check(move):
            trace: list[Reason] = []
            self.check(move, trace)
            raise IllegalMove(move.text(self.model), trace)
        s = move.seat
        self._event("move", move=move.text(self.model))
        if self.phase == "return":
            receiver, giver, _ = self.return_queue.pop(0)
            cards = move.cards or ()
            self.transfer(receiver, giver, {k: n for k, n in zip(self.kinds, cards) if n}, "return")
            self._advance_between()
            return
        if self.phase == "declare":
            self.declare_queue.pop(0)
            if move.verb == "declare":
                self.flags.setdefault("declared", set()).add(s)
            self._advance_setup()
            return
        if self.phase == "setup":
            self.setup_queue.pop(0)
            if move.verb == "revolt":
                self.revolted.add(s)
                self._event("revolution", seat=s)
            self._advance_setup()
            return
        if self.phase == "choose":
            self.choose_queue.pop(0)
            self.flags.setdefault("chose_" + move.arg, set()).add(s)
            self._advance_setup()
            return
        self.decisions += 1
        if move.verb == "pass":
            _, cap = self.queue.pop(0)
            if cap == "follow":
                self.passed.add(s)
            self._advance()
            return
        if move.verb == "discard":
            cards = move.cards or ()
            for i, c in enumerate(cards):
                self.hands[s][i] -= c
                self.discarded[i] += c
            self._event("discard", seat=s, cards=self.model.text(cards))
            if self.hand_size(s) == 0:
                self._finish(s)
                if self.phase == "play":
                    self._new_trick(self.next_active(s))
            return
        if move.verb == "yield":
            self.queue.pop(0)
            n = int(self.graph.value("yield_to", Ctx(self, seat=s, top=self.top)) or 0)
            i, seen = 0, 0
            while i < len(self.queue) and seen < n:
                t, cap = self.queue[i]
                if cap == "follow" and t != s and self.is_active(t):
                    seen += 1
                i += 1
            self.queue.insert(i, (s, "follow"))
            self.yielders.append(s)
            self.yielded_this_top.add(s)
            self._advance()
            return
        self._play(move)

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
        tp.is_burn = move.verb == "burn"
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
        self.capacity = "follow"
        self.yielded_this_top = set()
        self.graph.trigger("after_play", Ctx(self, seat=s, play=tp, beaten=prev))
        if tp.empties_hand:
            self._finish(s)
            if self.phase == "over":
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
            if self.graph.permit("see_count", ctx):
                info["count"] = self.hand_size(t)
            if self.graph.permit("see_hand", ctx):
                info["hand"] = self.hand_text(t)
            others[str(t)] = info
        return {
            "seat": seat, "hand": self.hand_text(seat), "others": others, "phase": self.phase,
            "to_act": self.to_act, "top": None if self.top is None else {"seat": self.top.seat, "cards": self.top.play.text},
            "passed": sorted(self.passed), "places": {str(k): v for k, v in sorted(self.places.items())},
            "revolted": sorted(self.revolted), "burner": self.burner,
        }


def _num(v: Any) -> int | float:
    """Scores are ints unless a rule divides (six-deck: team sum / 3); floats are rounded to 2 places."""
    if v is None:
        return 0
    if isinstance(v, float):
        return int(v) if v.is_integer() else round(v, 2)
    return int(v)


# ------------------------------------------------------------------------------ dealing
def deal_hands(model: CardModel, n_seats: int, rng: random.Random, first: int = 1) -> dict[int, list[Card]]:
    """Shuffle the ruleset's pack with ``rng`` and deal one card at a time, starting at ``first``."""
    deck = model.deck()
    rng.shuffle(deck)
    hands: dict[int, list[Card]] = {s: [] for s in range(1, n_seats + 1)}
    for i, c in enumerate(deck):
        hands[(first - 1 + i) % n_seats + 1].append(c)
    return hands


def new_game(graph: RuleGraph, seed: int | str | None = None, *, hands: dict[int, list[Card]] | None = None,
             leader: int | None = None, game_number: int = 1) -> GameState:
    """Start a game from ``random.Random(seed)``: it shuffles and deals (unless ``hands`` are given)
    and draws whatever else the rules leave to chance. The seed is kept in the record so the game
    can be replayed (:func:`replay`)."""
    rng = random.Random(seed)
    if hands is None:
        g = GameState(graph, deal_hands(graph.model, graph.n_seats, rng), rng=rng,
                      game_number=game_number, leader=leader, source="random", seed=seed)
    else:
        g = GameState(graph, hands, rng=rng, game_number=game_number, leader=leader, source="fixed", seed=seed)
    return g


def next_game(state: GameState, seed: int | str | None = None, *,
              hands: dict[int, list[Card]] | None = None) -> GameState:
    """The next game of a match: a new deal (from ``seed`` or ``hands``) whose between-game phase
    (tribute, returns, buying) sees ``state`` as the previous game."""
    graph = state.graph
    rng = random.Random(seed)
    if hands is None:
        return GameState(graph, deal_hands(graph.model, graph.n_seats, rng), rng=rng, game_number=state.game_number + 1,
                         source="random", seed=seed, prev=state.summary())
    return GameState(graph, hands, rng=rng, game_number=state.game_number + 1, source="fixed", seed=seed,
                     prev=state.summary())


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
    if prev is not None:  # a later game of a match: the between-game phase needs the previous game
        rng = random.Random(seed)
        if hands is None:
            hands = deal_hands(graph.model, graph.n_seats, rng)
        g = GameState(graph, hands, rng=rng, game_number=deal.get("game_number", 1), leader=leader,
                      source=deal.get("source", "random"), seed=seed, prev=prev)
    elif deal.get("source") == "random":
        g = new_game(graph, seed, leader=leader, game_number=deal.get("game_number", 1))
    else:
        g = new_game(graph, seed, hands=hands, leader=leader, game_number=deal.get("game_number", 1))
    moves = [e["move"] for e in record if e["type"] == "move"]
    for text in moves[:upto]:
        g.apply_in_place(parse_move(text, g.model, g.n_seats))
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
def legal_moves(state: GameState) -> list[Move]:
    """The legal moves of the seat to act."""
    return state.legal_moves()


def apply(state: GameState, move: Move) -> GameState:
    """A new state with ``move`` applied; ``state`` is untouched. Raises :class:`IllegalMove`."""
    if not state.check(move):
        trace: list[Reason] = []
        state.check(move, trace)
        raise IllegalMove(move.text(state.model), trace)
    g = state.copy()
    g.apply_in_place(move)
    return g


def explain(state: GameState, move: Move) -> Explanation:
    """Which rules allowed or forbade ``move`` now, in words, with rule ids and file:line."""
    trace: list[Reason] = []
    ok = state.check(move, trace)
    return Explanation(move.text(state.model), ok, trace)
