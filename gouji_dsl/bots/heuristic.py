"""The rule-following bots: random and heuristic. Each bot takes its own seeded generator.

- :class:`RandomBot` picks uniformly among legal moves.
- :class:`HeuristicBot` plays sensibly under any ruleset, from public information only (its own
  hand, the table, and the other seats' card counts as ``state.view(seat)`` shows them):

  * leads its weakest whole rank group, without jokers or 2s; near the end (two leads left) it
    leads its strongest group first so that the last, weak one goes out;
  * answers an opponent with the cheapest play that beats, and only when that play is cheap
    enough for the stage of the game: jokers and 2s are kept for late in the game, for the
    opposite's gouji plays and for an opponent about to go out; gouji plays are kept for the
    opposite;
  * never beats a teammate (unless that play takes it out), yields rather than passes;
  * burns only when it can surely go out (a joker left for every lead but the last);
  * declares revolution only with a weak hand, keeps a head with a strong one, declares the
    point with a strong one, returns its weakest cards as return tribute, throws away void cards.

The bot only chooses among ``moves`` (the engine's legal moves), so it never needs to know a
ruleset's rules; it only reads generic facts (rank strength, jokers, the filler rank, gouji plays,
teams, the opposite). Ties are broken deterministically, so the same game gives the same moves.
"""
from __future__ import annotations

import random
import weakref
from collections.abc import Sequence
from typing import Any

from gouji_dsl.engine.interpreter import GameState, Move, ReturnMoves
from gouji_dsl.ruleset.game.context import Ctx
from gouji_dsl.ruleset.game.model import CardModel, Play
from gouji_dsl.ruleset.game.terms import Verb
from gouji_dsl.ruleset.game.vocabulary import HookName


class RandomBot:
    """Uniform choice among legal moves, from ``rng``."""

    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, state: GameState, moves: Sequence[Move]) -> Move:
        return moves[self.rng.randrange(len(moves))]

    def index_rng(self) -> Any:
        """The generator this bot draws its moves' indices from and nothing else, so that a play-out may
        draw them without building the moves (:mod:`gouji_dsl.engine.fast`); None for a subclass, which
        may choose otherwise."""
        return self.rng if type(self) is RandomBot else None


def random_policies(seed: Any, n_seats: int = 6) -> dict[int, Any]:
    """A random bot per seat, each with its own generator seeded ``f"{seed}:bot{seat}"`` (play-outs and
    rollouts of :mod:`gouji_dsl.engine.fast`)."""
    return {s: RandomBot(random.Random(f"{seed}:bot{s}")) for s in range(1, n_seats + 1)}


# --------------------------------------------------------------------------------- card values
def card_values(model: CardModel) -> list[float]:
    """What spending one card of each kind costs the heuristic bot: rank cards from 0 (the
    weakest rank) to 3 (the strongest, e.g. the 2) on a convex curve, jokers 5 and up."""
    nr = model.n_ranks
    out = []
    for i in range(len(model.kinds)):
        if i < nr:
            x = i / max(nr - 1, 1)
            out.append(3.0 * x * x)
        else:
            out.append(5.0 + (i - nr))
    return out


def hand_power(model: CardModel, hand: list[int] | tuple[int, ...]) -> float:
    """A rough measure of a hand's strength: jokers, the top ranks and big groups."""
    nr = model.n_ranks
    p = 0.0
    for i, c in enumerate(hand):
        if not c:
            continue
        if i >= nr:
            p += 1.0 * c
        else:
            x = i / max(nr - 1, 1)
            p += c * (0.5 if i == nr - 1 else (0.25 if x >= 0.9 else (0.1 if x >= 0.8 else 0.0)))
            if c >= 6:
                p += 0.1 * (c - 5)
    return p


#: a card model's card values and the summed card values of its plays (a play is one object per
#: card signature of its model, compared by identity, so each sum is computed once per model, not
#: once per bot: simulations make fresh bots every game). Kept while the model lives.
_ModelTables = tuple[list[float], dict[Play, float]]
_PER_MODEL: dict[int, _ModelTables] = {}


def _model_tables(model: CardModel) -> _ModelTables:
    got = _PER_MODEL.get(id(model))
    if got is None:
        got = _PER_MODEL[id(model)] = (card_values(model), {})
        weakref.finalize(model, _PER_MODEL.pop, id(model), None)
    return got


_NATIVE_POLICY: Any = None  # (HeuristicBot.native_policy, made once)


class HeuristicBot:
    """A ruleset-independent strategy (see the module docstring)."""

    name = "heuristic"

    #: below this :func:`hand_power` a hand is weak (revolt, go head-less, do not declare)
    WEAK = 1.2
    #: above this a hand is strong (declare the point, keep a head)
    STRONG = 5.0
    #: extra cost of a gouji play spent on a player other than the opposite
    GOUJI_PENALTY = 2.0
    #: "late in the game" once the hand is down to this share of the cards dealt to it
    LATE = 0.7

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random(0)
        self._model: CardModel | None = None
        self._tables: _ModelTables = ([], {})

    @property
    def native_policy(self) -> Any:
        """What the native core needs to choose as this bot chooses in the play phase
        (``engine/native/heuristic.h``: the same moves in every state); None for a subclass, which
        may choose otherwise."""
        if type(self) is not HeuristicBot:
            return None
        global _NATIVE_POLICY
        if _NATIVE_POLICY is None:
            from gouji_dsl.engine.native.heuristic import NativePolicy
            _NATIVE_POLICY = NativePolicy("heuristic", card_values, self.GOUJI_PENALTY, self.LATE)
        return _NATIVE_POLICY

    # ---------------------------------------------------------------------- helpers
    def _tables_of(self, model: CardModel) -> _ModelTables:
        if model is not self._model:
            self._model, self._tables = model, _model_tables(model)
        return self._tables

    def _vals(self, model: CardModel) -> list[float]:
        return self._tables_of(model)[0]

    def _cost(self, state: GameState, seat: int, p: Play) -> float:
        """What the play spends: its cards' values, less a bonus when it clears a whole group."""
        vals, sums = self._tables if state.model is self._model else self._tables_of(state.model)
        cost = sums.get(p)  # (a play is one object per card signature: its card values, summed once)
        if cost is None:
            cost = sums[p] = sum(vals[i] * c for i, c in enumerate(p.counts) if c)
        nr = state.model.n_ranks
        hand = state.hands[seat]
        if 0 <= p.rank < nr:
            left = hand[p.rank] - (p.carried - p.filler)
            if left == 0:
                cost -= 1.5          # one group fewer to get rid of
            elif left <= 2 and p.rank < nr - 1:
                cost += 0.5          # a small leftover that will need a lead of its own
        return cost

    @staticmethod
    def _premium(state: GameState, p: Play) -> bool:
        """Uses jokers or the filler rank (the 2s)."""
        m = state.model
        f = m.filler
        return bool(p.jokers) or (f is not None and p.counts[f] > 0) or p.rank >= m.n_ranks - 1

    @staticmethod
    def _seen_count(state: GameState, seat: int, target: int) -> int | None:
        """How many cards ``target`` holds, if ``seat`` may see it (the ``see_count`` rules, as
        ``state.view(seat)`` decides it; asked for one seat rather than building the whole view)."""
        if state.graph.permit(HookName.SEE_COUNT, Ctx(state, seat=seat, target=target)):
            return state.hand_size(target)
        return None

    @staticmethod
    def _pick(moves: Sequence[Move], verb: str) -> Move | None:
        return next((m for m in moves if m.verb == verb), None)

    def _decline(self, moves: Sequence[Move]) -> Move:
        """Yield when the rules allow it (the decision comes back), else pass."""
        return self._pick(moves, "yield") or self._pick(moves, "pass") or moves[0]

    # ---------------------------------------------------------------------- entry point
    def choose(self, state: GameState, moves: Sequence[Move]) -> Move:
        seat = moves[0].seat
        phase = state.phase
        if phase in ("setup", "declare", "choose", "ask"):
            return self._answer(state, seat, moves)
        if phase == "return":
            return self._best_return(state, seat, moves)
        cap = state.capacity
        if cap == "lead":
            return self._lead(state, seat, moves)
        if cap == "burn":
            return self._burn(state, seat, moves)
        return self._follow(state, seat, moves)

    def _answer(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move:
        """A question before the play, by the hand's power: revolt with a weak hand, declare with a strong one, head
        with a good one; a choice of the ruleset's own (a redeal on request...) taken with a weak hand."""
        model = state.model
        phase = state.phase
        if phase == "setup":
            revolt = self._pick(moves, "revolt")
            if revolt and hand_power(model, state.hands[seat]) < self.WEAK:
                return revolt
        elif phase == "declare":
            declare = self._pick(moves, "declare")
            if declare and hand_power(model, state.hands[seat]) >= self.STRONG:
                return declare
        elif phase == "choose":
            want = "head" if hand_power(model, state.hands[seat]) >= self.WEAK * 2 else "headless"
            return next((m for m in moves if m.arg == want), moves[0])
        else:
            take = next((m for m in moves if m.verb == "choose"), None)
            if take and hand_power(model, state.hands[seat]) < self.WEAK:
                return take
        return self._pick(moves, "pass") or moves[0]

    # ---------------------------------------------------------------------- between games
    def _best_return(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move:
        """The return with the least :meth:`_return_key`, found without looking at every way (a
        15-card return has billions): the key is a sum per kind, then the cards kind by kind, so
        the best return of ``left`` cards from kinds ``i..`` is built from the best of ``i+1..``."""
        if not isinstance(moves, ReturnMoves):
            return min(moves, key=lambda m: self._return_key(state, seat, m))
        hand, n = moves.hand, moves.n
        vals = self._vals(state.model)
        K = len(hand)
        # best[left]: (value, broken, (-c_i, ...)) of the best return of `left` cards from kinds i..
        best: list[tuple | None] = [(0, 0, ())] + [None] * n
        for i in range(K - 1, -1, -1):
            new: list[tuple | None] = [None] * (n + 1)
            for left in range(n + 1):
                for k in range(min(hand[i], left) + 1):
                    rest = best[left - k]
                    if rest is None:
                        continue
                    key = (vals[i] * k + rest[0], rest[1] + (1 if k and hand[i] - k > 0 else 0), (-k,) + rest[2])
                    if new[left] is None or key < new[left]:  # type: ignore[operator]
                        new[left] = key
            best = new
        won = best[n]
        assert won is not None
        return Move(seat, Verb.RETURN, tuple(-c for c in won[2]))

    def _return_key(self, state: GameState, seat: int, m: Move) -> tuple:
        cards = m.cards or ()
        hand = state.hands[seat]
        vals = self._vals(state.model)
        broken = sum(1 for i, c in enumerate(cards) if c and hand[i] - c > 0)
        return (sum(vals[i] * c for i, c in enumerate(cards)), broken, tuple(-c for c in cards))

    # ---------------------------------------------------------------------- leading
    def _lead(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move:
        quick = self._quick_lead(state, seat, moves)
        if quick is not None:
            return quick
        model = state.model
        discards = [m for m in moves if m.verb == "discard"]
        if discards:  # void cards: throwing them away costs nothing and the lead stays
            return max(discards, key=lambda m: (sum(m.cards or ()), m.cards))
        plays = [m for m in moves if m.verb == "play"]
        if not plays:
            return moves[0]
        hand = state.hands[seat]
        size = sum(hand)
        classified = [(m, model.classify(m.cards or ())) for m in plays]
        out = [(m, p) for m, p in classified if p.count == size]
        if out:
            return out[0][0]
        nr = model.n_ranks
        groups = [r for r in range(nr) if hand[r]]
        if state.burner == seat:
            # burning: every lead carries a joker; spend the weakest joker on the weakest group
            return min(classified, key=lambda mp: (len(mp[1].jokers), sum(mp[1].jokers), mp[1].filler,
                                                   not self._whole(hand, mp[1], nr), mp[1].rank, -mp[1].count))[0]
        if (len(groups) == 2 or (len(groups) == 1 and sum(hand[nr:]) > 0)):
            # endgame: lead the strong group first (jokers attached), the weak one last
            strong = max(groups)
            best = [mp for mp in classified if mp[1].rank == strong and self._whole(hand, mp[1], nr)]
            if best:
                return max(best, key=lambda mp: (len(mp[1].jokers), mp[1].count))[0]
        return min(classified, key=lambda mp: self._lead_key(hand, mp[1], nr))[0]

    def _quick_lead(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move | None:
        """The same lead as the full scan below, found without looking at every lead: a lazy lead
        list (``extra`` holds its non-play moves, ``in`` is a lookup) usually has a few thousand
        plays, and the choice is nearly always a whole rank group. None: let the full scan decide
        (the burner, the endgame, no whole group to lead, a plain list of moves)."""
        extra = getattr(moves, "extra", None)
        if extra is None or any(m.verb == "discard" for m in extra) or len(moves) == len(extra):
            return None
        if state.burner == seat:
            return None
        model = state.model
        hand = state.hands[seat]
        nr = model.n_ranks
        everything = Move(seat, Verb.PLAY, tuple(hand))
        if model.classify(everything.cards or ()).valid and everything in moves:
            return everything
        groups = [r for r in range(nr) if hand[r]]
        if len(groups) == 2 or (len(groups) == 1 and sum(hand[nr:]) > 0):
            return None
        zeros = [0] * len(hand)
        gouji_first = None
        for r in groups:
            v = zeros[:]
            v[r] = hand[r]
            m = Move(seat, Verb.PLAY, tuple(v))
            if m not in moves:
                continue
            if not model.classify(m.cards or ()).gouji:
                return m
            if gouji_first is None:
                gouji_first = m
        return gouji_first

    @staticmethod
    def _whole(hand: list[int], p: Play, nr: int) -> bool:
        return 0 <= p.rank < nr and hand[p.rank] == p.carried - p.filler

    def _lead_key(self, hand: list[int], p: Play, nr: int) -> tuple:
        # no jokers, no 2s as filler, a whole group, not a gouji play, the weakest rank, most cards
        return (len(p.jokers), p.filler, not self._whole(hand, p, nr), p.gouji, p.rank, -p.count)

    # ---------------------------------------------------------------------- burning
    def _sure_out(self, state: GameState, seat: int, p: Play) -> bool:
        """After playing ``p``, can every further lead carry a joker except the last one?"""
        hand = state.hands[seat]
        nr = state.model.n_ranks
        rest = [h - c for h, c in zip(hand, p.counts)]
        groups = sum(1 for r in range(nr) if rest[r])
        jokers = sum(rest[nr:])
        if groups == 0:
            return True
        return jokers >= groups - 1 and groups <= 3

    def _burn(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move:
        model = state.model
        top = state.top
        burns = [m for m in moves if m.verb == "burn"]
        mate = top is not None and state.team(top.seat) == state.team(seat)
        ok = []
        for m in burns:
            p = model.classify(m.cards or ())
            if p.count == state.hand_size(seat) or (not mate and self._sure_out(state, seat, p)):
                ok.append((self._cost(state, seat, p), m))
        if ok:
            return min(ok, key=lambda cm: cm[0])[1]
        return self._decline(moves)

    # ---------------------------------------------------------------------- following
    def _follow(self, state: GameState, seat: int, moves: Sequence[Move]) -> Move:
        model = state.model
        top = state.top
        plays = [(m, model.classify(m.cards or ())) for m in moves if m.verb in ("play", "burn")]
        if not plays or top is None:
            return self._decline(moves)
        size = state.hand_size(seat)
        out = [m for m, p in plays if p.count == size]
        if out:
            return out[0]
        if state.team(top.seat) == state.team(seat):
            return self._decline(moves)
        opposite = top.seat == state.opposite(seat)
        seen = self._seen_count(state, seat, top.seat)
        danger = (99 if seen is None else seen) <= max(top.play.count, 5)
        late = size <= self.LATE * max(sum(state.dealt[seat]), 1)
        scored = []
        for m, p in plays:
            c = self._cost(state, seat, p)
            if p.gouji and not opposite and not top.play.gouji:
                c += self.GOUJI_PENALTY  # keep gouji plays for the opposite
            scored.append((c, m, p))
        cost, best, p = min(scored, key=lambda t: (t[0], t[2].rank))
        if self._premium(state, p) and not (late or danger or (opposite and top.play.gouji)):
            return self._decline(moves)  # keep jokers and 2s early in the game
        return best

