"""The determinizer: what one seat knows of a game, and full deals sampled consistent with it.

Search bots (PIMC, ISMCTS) must not look at the other seats' cards. They see a game only through
:func:`observe`, which reads what the seat itself could know at the table (确定化, determinization):

- its own hand, and the hand it was dealt;
- every card played, burned or thrown away, by whom (plays are made face up);
- each seat's card count: dealt sizes are public (cards are dealt one at a time), plays are public
  and so is the size of every transfer (cards are handed over at the table), so a seat that counts
  knows them; ``view()`` shows them too once the ruleset's ``see_count`` rules allow it (报牌);
- the hands the ruleset's ``see_hand`` rules let it see now (e.g. Qingdao's 挑牌: teammates advise a
  player with ten cards or fewer);
- transfers between games: the cards of a transfer the rules make by themselves (tribute, buying)
  are public — seed 000: “贡牌必须向所有玩家出示亮明” (tribute cards must be shown to every player);
  the cards a player chooses to hand back with a ``return`` move (还贡) are seen only by the two
  seats involved; the others see how many.

From this it keeps, per seat, the cards known to be held (public tribute received and not yet
possibly played) and the exact hands it sees. It infers no void from a pass or a yield (a seat may
always decline) and none from a rule's expression: facts that only a rule implies (a revolutionary
was dealt no 2s or jokers, a buyer had no 3, who showed the most 3s) are not used, so sampled deals
are consistent with everything listed above and assume nothing more.

:func:`sample_deal` places every card the seat cannot see: each other seat gets exactly its count,
every card it is known to hold, and a uniformly random share of the rest (a shuffle of the unseen
cards, dealt into the free places). The deal at the start of the game is rebuilt by taking back
plays and transfers; a hidden return is given contents drawn from what its receiver holds, and a
sample that no such contents can explain (e.g. a seat that got two public jokers and handed back one
card must still hold one of them) is drawn again. :func:`determinize` turns a sample into a
:class:`~gouji_dsl.engine.interpreter.GameState` to search in (its record and generator are its own,
so nothing of the real game leaks into it).
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from gouji_dsl.engine.interpreter import GameState, choice_words, parse_move
from gouji_dsl.engine.native.record import render_event
from gouji_dsl.ruleset.game.cards import Card
from gouji_dsl.ruleset.game.terms import Verb

#: transfers whose cards only the giver and the receiver see: a transfer made by one of these moves
HIDDEN_TRANSFER_RULES: frozenset[str] = frozenset({Verb.RETURN})
#: moves whose cards leave the hand face up
PUBLIC_CARD_VERBS: frozenset[str] = frozenset({Verb.PLAY, Verb.BURN, Verb.DISCARD})
#: the record events the observer reads (the others say nothing about cards)
READ_EVENTS: frozenset[str] = frozenset({"deal", "move", "transfer"})
#: draws of a sample before :func:`sample_deal` gives up (only hidden returns can make one fail)
MAX_DRAWS = 500


class DeterminizeError(RuntimeError):
    """No deal consistent with the observation could be drawn (a contradiction in what the seat
    saw, or a very unlikely one). The message says which seat and why."""


@dataclass(frozen=True)
class Transfer:
    """Cards handed from ``giver`` to ``receiver`` between games: ``cards`` (a count vector), or
    ``None`` when the observer does not see them; ``n`` cards in all."""

    giver: int
    receiver: int
    cards: tuple[int, ...] | None
    n: int


@dataclass(frozen=True)
class Observation:
    """What ``seat`` knows of a game (see the module docstring). Vectors are counts per card kind
    (the ruleset's kind order); per-seat tuples are indexed by seat (index 0 unused)."""

    seat: int
    kinds: tuple[str, ...]
    deck: tuple[int, ...]
    hand: tuple[int, ...]
    dealt: tuple[int, ...]
    counts: tuple[int, ...]
    played: tuple[tuple[int, ...], ...]
    known: tuple[tuple[int, ...], ...]
    seen: dict[int, tuple[int, ...]]
    transfers: tuple[Transfer, ...]
    game_number: int = 1

    @property
    def n_seats(self) -> int:
        return len(self.counts) - 1

    @property
    def undealt(self) -> int:
        """Cards of the pack nobody was dealt (a fixed deal, as in a scenario, may deal only some)."""
        return sum(self.deck) - sum(self.counts) - sum(sum(p) for p in self.played)

    @property
    def hidden_seats(self) -> tuple[int, ...]:
        """Seats whose hands are not fully known: not the observer, not seen, and holding cards."""
        return tuple(s for s in range(1, self.n_seats + 1)
                     if s != self.seat and s not in self.seen and self.counts[s] > 0)

    def unseen(self) -> list[int]:
        """The cards the observer cannot place: the pack less its own hand, the cards out of play,
        the hands it sees and the cards known to be held. Raises :class:`DeterminizeError` when
        what it saw does not add up (more cards of a kind than the pack holds)."""
        K = len(self.kinds)
        pool = list(self.deck)
        for k in range(K):
            pool[k] -= self.hand[k]
            for s in range(1, self.n_seats + 1):
                pool[k] -= self.played[s][k]
                if s == self.seat:
                    continue
                pool[k] -= self.seen[s][k] if s in self.seen else self.known[s][k]
            if pool[k] < 0:
                raise DeterminizeError(f"seat {self.seat}'s view accounts for {-pool[k]} more {self.kinds[k]} than the pack holds")
        return pool


@dataclass
class Deal:
    """One sampled deal: ``hands`` now and ``dealt`` at the start of the game (per seat, index 0
    unused), the contents drawn for each hidden transfer (same order as the observation's) and the
    cards of the pack nobody was dealt (``undealt``: empty or zeros after a full deal)."""

    hands: list[list[int]]
    dealt: list[list[int]]
    transfers: list[tuple[int, ...]] = field(default_factory=list)
    undealt: list[int] = field(default_factory=list)


# ------------------------------------------------------------------------------ observing
class Observer:
    """Builds one seat's :class:`Observation` of a game, reading each new record event once (a bot
    asks at every decision of the same game: the knowledge is kept and only new events are read)."""

    def __init__(self, seat: int):
        self.seat = seat
        self._key: tuple[int, int] | None = None
        self._read = 0
        self._reset(None)

    def _reset(self, state: GameState | None) -> None:
        n = state.n_seats if state else 0
        K = len(state.kinds) if state else 0
        self.played = [[0] * K for _ in range(n + 1)]
        self.known = [[0] * K for _ in range(n + 1)]
        self.transfers: list[Transfer] = []
        self.dealt: tuple[int, ...] = ()
        self._last_return: int | None = None

    def observe(self, state: GameState) -> Observation:
        """The observation of ``state`` from this seat."""
        rec = state.record
        key = (id(rec), id(rec[0]) if rec else 0)
        if key != self._key or self._read > len(rec):
            self._key, self._read = key, 0
            self._reset(state)
        for e in rec[self._read:]:
            if not isinstance(e, dict):
                # a compact entry of the native core's play phase: (kind, ...); render the ones read here
                if e[0] not in READ_EVENTS:
                    continue
                e = render_event(state.model, e)
            self._event(state, e)
        self._read = len(rec)
        seat = self.seat
        n = state.n_seats
        seen: dict[int, tuple[int, ...]] = {}
        view = state.view(seat)
        for t, info in view["others"].items():
            if "hand" in info:
                seen[int(t)] = state.model.parse(info["hand"]) if info["hand"] else (0,) * len(state.kinds)
        counts = (0,) + tuple(state.hand_size(s) for s in range(1, n + 1))
        return Observation(seat, tuple(state.kinds), tuple(state.model.deck_counts), tuple(state.hands[seat]),
                           self.dealt, counts, tuple(tuple(p) for p in self.played), tuple(tuple(k) for k in self.known),
                           seen, tuple(self.transfers), state.game_number)

    def _event(self, state: GameState, e: dict) -> None:
        kind = e["type"]
        if kind not in READ_EVENTS:
            return
        if kind == "deal":
            self._reset(state)
            text = e["hands"].get(str(self.seat), "")
            self.dealt = state.model.parse(text) if text else (0,) * len(state.kinds)
        elif kind == "move":
            self._move(state, e["move"])
        elif kind == "transfer":
            self._transfer(state, e)

    def _move(self, state: GameState, text: str) -> None:
        """A move seen: the cards of a play, burn or discard are out of play (and no longer known to be held)."""
        verb = text.split(" ", 2)[1]
        if verb in PUBLIC_CARD_VERBS:
            m = parse_move(text, state.model, state.n_seats, words=choice_words(state.graph))
            cards = m.cards or ()
            played, known = self.played[m.seat], self.known[m.seat]
            for k, c in enumerate(cards):
                if c:
                    played[k] += c
                    known[k] = max(0, known[k] - c)
        elif verb == Verb.RETURN:
            self._last_return = int(text.split(" ", 1)[0])

    def _transfer(self, state: GameState, e: dict) -> None:
        """Cards handed from one seat to another (a tribute, a return...): their kinds unless the observer may not see them."""
        g, r = int(e["giver"]), int(e["receiver"])
        cards = state.model.parse(e["cards"])
        n = sum(cards)
        hidden = e.get("rule") in HIDDEN_TRANSFER_RULES and self.seat not in (g, r)
        self.transfers.append(Transfer(g, r, None if hidden else cards, n))
        kg, kr = self.known[g], self.known[r]
        for k in range(len(kg)):
            kg[k] = max(0, kg[k] - (n if hidden else cards[k]))
            if not hidden:
                kr[k] += cards[k]


def observe(state: GameState, seat: int) -> Observation:
    """What ``seat`` knows of ``state`` (a one-off :class:`Observer`)."""
    return Observer(seat).observe(state)


# ------------------------------------------------------------------------------ sampling
def _free_places(obs: Observation) -> dict[int, int]:
    """Hidden seat -> how many of its cards are not known; raises :class:`DeterminizeError` where a seat is known to
    hold more cards than it holds."""
    free = {s: obs.counts[s] - sum(obs.known[s]) for s in obs.hidden_seats}
    for s in range(1, obs.n_seats + 1):
        if s != obs.seat and s not in obs.seen and s not in free and sum(obs.known[s]) > obs.counts[s]:
            raise DeterminizeError(f"seat {s} is known to hold {sum(obs.known[s])} cards but holds {obs.counts[s]}")
    if any(f < 0 for f in free.values()):
        s = next(s for s, f in free.items() if f < 0)
        raise DeterminizeError(f"seat {s} is known to hold {sum(obs.known[s])} cards but holds {obs.counts[s]}")
    return free


def _dealt_out(obs: Observation, cards: list[int], free: dict[int, int]) -> tuple[list[list[int]], list[int]]:
    """The unseen ``cards`` (shuffled) placed: the hands of every seat and the cards left undealt."""
    K = len(obs.kinds)
    hands: list[list[int]] = [[0] * K for _ in range(obs.n_seats + 1)]
    hands[obs.seat] = list(obs.hand)
    for s, seen in obs.seen.items():
        hands[s] = list(seen)
    i = 0
    for s in obs.hidden_seats:
        h = hands[s] = list(obs.known[s])
        for k in cards[i:i + free[s]]:
            h[k] += 1
        i += free[s]
    rest = [0] * K
    for k in cards[i:]:
        rest[k] += 1
    return hands, rest


def sample_deal(obs: Observation, rng: random.Random) -> Deal:
    """A full deal consistent with ``obs``, drawn with ``rng`` (see the module docstring).
    Raises :class:`DeterminizeError` when none can be drawn."""
    pool = obs.unseen()
    free = _free_places(obs)
    cards = [k for k in range(len(obs.kinds)) for _ in range(pool[k])]
    stock = obs.undealt
    if sum(free.values()) + stock != len(cards):
        raise DeterminizeError(f"seat {obs.seat} cannot place {len(cards)} unseen cards in {sum(free.values())} free places"
                               + (f" and {stock} undealt" if stock else ""))
    for _ in range(MAX_DRAWS):
        rng.shuffle(cards)
        hands, rest = _dealt_out(obs, cards, free)
        deal = _rebuild(obs, hands, rng)
        if deal is not None:
            deal.undealt = rest
            return deal
        if not any(t.cards is None for t in obs.transfers):
            break
    raise DeterminizeError(f"no deal consistent with seat {obs.seat}'s view after {MAX_DRAWS} draws")


def _hidden_cards(ts: tuple[Transfer, ...] | list[Transfer], j: int, held: list[list[int]], rng: random.Random) -> tuple[int, ...] | None:
    """The cards of hidden transfer ``ts[j]``, drawn from what its receiver holds; None when they cannot be."""
    t = ts[j]
    got = held[t.receiver]
    K = len(got)
    # the receiver of a hidden return must have got whatever the giver lacks for its
    # earlier known cards (the public ones it received before, still to be taken back)
    need = [0] * K
    for u in ts[:j]:
        if u.receiver == t.giver and u.cards is not None:
            for k in range(K):
                need[k] += u.cards[k]
        if u.giver == t.giver and u.cards is not None:
            for k in range(K):
                need[k] -= u.cards[k]
    must = [max(0, need[k] - held[t.giver][k]) for k in range(K)]
    if sum(must) > t.n or any(must[k] > got[k] for k in range(K)):
        return None
    rest = [k for k in range(K) for _ in range(got[k] - must[k])]
    if len(rest) < t.n - sum(must):
        return None
    cl = must[:]
    for k in rng.sample(rest, t.n - sum(must)):
        cl[k] += 1
    return tuple(cl)


def _take_back(c: tuple[int, ...], got: list[int], gave: list[int]) -> bool:
    """Cards ``c`` handed back from the receiver (``got``) to the giver (``gave``); False when the receiver lacks them."""
    K = len(got)
    if any(c[k] > got[k] for k in range(K)):
        return False
    for k in range(K):
        got[k] -= c[k]
        gave[k] += c[k]
    return True


def _rebuild(obs: Observation, hands: list[list[int]], rng: random.Random) -> Deal | None:
    """Take plays and transfers back to get the deal; None when a hidden transfer cannot be explained."""
    n = obs.n_seats
    K = len(obs.kinds)
    held = [[hands[s][k] + obs.played[s][k] for k in range(K)] for s in range(n + 1)]
    contents: list[tuple[int, ...]] = []
    ts = obs.transfers
    for j in range(len(ts) - 1, -1, -1):
        t = ts[j]
        c = t.cards if t.cards is not None else _hidden_cards(ts, j, held, rng)
        if c is None:
            return None
        if t.cards is None:
            contents.append(c)
        if not _take_back(c, held[t.receiver], held[t.giver]):
            return None
    contents.reverse()
    if any(h < 0 for row in held for h in row):
        return None
    if obs.dealt and tuple(held[obs.seat]) != tuple(obs.dealt):
        raise DeterminizeError(f"seat {obs.seat}'s own deal does not add up with its plays and transfers")
    return Deal(hands, held, contents)


# ------------------------------------------------------------------------------ determinized states
def determinize(state: GameState, obs: Observation, deal: Deal, rng: random.Random) -> GameState:
    """A copy of ``state`` with the sampled ``deal`` (of observation ``obs``) in place of the real
    hands, dealt hands and received cards, an empty record and its own generator seeded from
    ``rng``: a perfect-information game to search in."""
    g = state.copy()
    g.record = []
    n = state.n_seats
    kinds = state.kinds
    g.hands = [list(h) for h in deal.hands]
    g.dealt = [tuple(h) for h in deal.dealt]
    one = [Card(k) for k in kinds]  # (frozen: one card object per kind, repeated)
    g.dealt_cards = {s: [c for c, m in zip(one, deal.dealt[s]) for _ in range(m)] for s in range(1, n + 1)}
    received: dict[int, dict[str, int]] = {s: {} for s in range(1, n + 1)}
    hidden = iter(deal.transfers)
    for t in obs.transfers:
        cards = t.cards if t.cards is not None else next(hidden)
        got = received[t.receiver]
        for k, c in enumerate(cards):
            if c:
                got[kinds[k]] = got.get(kinds[k], 0) + c
    g.received = received
    g.rng = random.Random(rng.getrandbits(64))
    return g


def _pack_problems(obs: Observation, deal: Deal, undealt: list[int]) -> Iterator[str]:
    """Each kind of card of ``deal`` adds up to the pack: in hands, out of play and undealt; dealt and undealt."""
    n = obs.n_seats
    for k in range(len(obs.kinds)):
        total = sum(deal.hands[s][k] + obs.played[s][k] for s in range(1, n + 1)) + undealt[k]
        if total != obs.deck[k]:
            yield f"{obs.kinds[k]}: {total} in hands, out of play and undealt, the pack has {obs.deck[k]}"
        dealt = sum(deal.dealt[s][k] for s in range(1, n + 1)) + undealt[k]
        if dealt != obs.deck[k]:
            yield f"{obs.kinds[k]}: {dealt} dealt, the pack has {obs.deck[k]}"


def _seat_problems(obs: Observation, deal: Deal, s: int) -> Iterator[str]:
    """Seat ``s``'s hand in ``deal`` agrees with what the observer knows of it."""
    h = deal.hands[s]
    if sum(h) != obs.counts[s]:
        yield f"seat {s} holds {sum(h)} cards, not {obs.counts[s]}"
    if any(c < 0 for c in h) or any(c < 0 for c in deal.dealt[s]):
        yield f"seat {s}: a negative count"
    if s == obs.seat and tuple(h) != obs.hand:
        yield f"seat {s}: the observer's own hand changed"
    if s in obs.seen and tuple(h) != obs.seen[s]:
        yield f"seat {s}: a hand the observer sees changed"
    if any(h[k] < obs.known[s][k] for k in range(len(obs.kinds))):
        yield f"seat {s} lacks cards it is known to hold"


def consistent(obs: Observation, deal: Deal) -> list[str]:
    """Every way ``deal`` contradicts ``obs`` (empty when consistent): the property the tests check."""
    out: list[str] = []
    undealt = deal.undealt or [0] * len(obs.kinds)
    if sum(undealt) != obs.undealt:
        out.append(f"{sum(undealt)} cards left undealt, not {obs.undealt}")
    out += _pack_problems(obs, deal, undealt)
    for s in range(1, obs.n_seats + 1):
        out += _seat_problems(obs, deal, s)
    if obs.dealt and tuple(deal.dealt[obs.seat]) != obs.dealt:
        out.append("the observer's dealt hand changed")
    return out
