"""Looking ahead at a burn (烧牌): can the burner still make the leads the ruleset requires?

A burn stays on only while the burner can lead as the ruleset's ``burn_lead`` rules require (every
lead carries a joker, except the last one, in the bundled rulesets); a burner who cannot is placed by
``burn_failure`` (诈烧). A burn that can never succeed is still a legal move (a bluff is a move), but
the player should know before making it: :func:`doomed_burn` plays the burner's best case on copies
of the state — every other seat passes, so the burner wins each trick and leads again — trying his
leads in turn, and reports a burn that fails on every line of play, with the rules that refused the
last leads (their file:line). The search keeps the positions already shown to fail (a transposition
table keyed by :meth:`GameState.position_key`, exact: everything the rules and the play can read), so
the same leads in another order are searched once, and it is bounded by :data:`BURN_LOOKAHEAD`
distinct positions; a search that runs out says so (:class:`UndecidedBurn`: no claim either way; a
warning is given only when the failure is certain). Nothing here
knows what a joker is: what a lead needs is whatever the ruleset's rules say.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine.interpreter import GameState, Move
from gouji_dsl.ruleset.game.terms import Capacity, Phase, Verb
from gouji_dsl.ruleset.graph import Reason

BURN_LOOKAHEAD = 300
"""The most distinct positions (each after one move of the burner and the others' passes) one
look-ahead reaches; about 1 ms each with a long hand (README, benchmarks/bench_burn_lookahead.py)."""


class _Line(Enum):
    SUCCEEDS = "succeeds"
    FAILS = "fails"
    UNKNOWN = "unknown"
    LEADS = "leads"  # (internal: the burner is to lead again)


@dataclass(frozen=True)
class DoomedBurn:
    """A burn that cannot succeed: ``seat`` (the burner), ``reasons`` (the rules that refused his
    leads where each line of play ended, each rule once) and ``examined`` (distinct positions reached)."""

    seat: int
    reasons: tuple[Reason, ...]
    examined: int


@dataclass(frozen=True)
class UndecidedBurn:
    """A burn whose outcome the look-ahead could not decide: it ran out of its budget of positions
    (``examined``) before finding a line that succeeds or showing that every line fails. No claim
    either way."""

    seat: int
    examined: int


class _Search:
    """The burner's best case, depth first. ``failed`` is the transposition table: the positions
    (:meth:`GameState.position_key`) already shown to fail on every line. The burner's leads are
    separate tricks while the others pass, so the same leads made in another order reach the same
    position; each is searched once. ``states`` counts the distinct positions reached (the budget)."""

    def __init__(self, seat: int, budget: int):
        self.seat = seat
        self.budget = budget
        self.states = 0
        self.reasons: dict[str, Reason] = {}
        self.failed: set[tuple[object, ...]] = set()

    def settle(self, g: GameState) -> _Line:
        """Let every other seat pass until the burner must lead again or the burn is decided."""
        seat = self.seat
        while True:
            burn = g.burns[-1] if g.burns else None
            if burn is not None and burn.get("burner") == seat:
                if burn.get("success"):
                    return _Line.SUCCEEDS
                if burn.get("failed"):
                    for r in g.decided.get(f"burn_lead:{seat}", ()):
                        self.reasons.setdefault(r.rule_id, r)
                    return _Line.FAILS
            if g.burner != seat or g.phase != Phase.PLAY or g.to_act is None:
                return _Line.UNKNOWN
            if g.to_act == seat:
                return _Line.LEADS if g.capacity == Capacity.LEAD else _Line.UNKNOWN
            if g.capacity == Capacity.LEAD:
                return _Line.UNKNOWN
            g.apply_in_place(Move(g.to_act, Verb.PASS), trusted=True)  # (at most one pass a seat a trick)

    def search(self, g: GameState) -> _Line:
        """``g``: the position after a move of the burner (the others have not answered yet)."""
        if self.states >= self.budget:
            return _Line.UNKNOWN
        self.states += 1
        line = self.settle(g)
        if line != _Line.LEADS:
            return line
        key = g.position_key()
        if key in self.failed:
            self.states -= 1  # (not a new position)
            return _Line.FAILS
        hand_n = g.hand_size(self.seat)
        # leads that go out first (a success ends the search), then those using the fewest cards the
        # rules may ask for (jokers, filler: the scarce ones), the most cards
        moves = sorted(g.legal_moves(), key=lambda m: (sum(m.cards or ()) != hand_n, _extra(g, m), -sum(m.cards or ())))
        out = _Line.FAILS
        for m in moves:
            h = g.copy()
            h.apply_in_place(m, trusted=True)
            r = self.search(h)
            if r == _Line.SUCCEEDS:
                return r
            if r == _Line.UNKNOWN:
                out = r
                if self.states >= self.budget:
                    break
        if out == _Line.FAILS:
            self.failed.add(key)
        return out


def _extra(g: GameState, m: Move) -> int:
    """Cards of the play above the rank count of its cheapest kinds (jokers, filler): spent sparingly."""
    if m.cards is None:
        return 0
    return sum(m.cards[g.model.n_ranks:])


def doomed_burn(state: GameState, move: Move, budget: int = BURN_LOOKAHEAD) -> DoomedBurn | UndecidedBurn | None:
    """``move`` burns (or is a lead of the seat burning) and the burner cannot succeed whatever
    the others do: every line of play in which they all pass ends with a lead the ``burn_lead``
    rules refuse. An :class:`UndecidedBurn` when the look-ahead ran out of ``budget`` positions
    before deciding; None when it can succeed, or when the move is no burn (or is illegal)."""
    seat = move.seat
    burning_lead = state.burner == seat and state.capacity == Capacity.LEAD and move.verb in (Verb.PLAY, Verb.DISCARD)
    if move.verb != Verb.BURN and not burning_lead:
        return None
    if state.phase != Phase.PLAY or not state.check(move):
        return None
    s = _Search(seat, budget)
    g = state.copy()
    try:
        g.apply_in_place(move, trusted=True)
        line = s.search(g)
    except GoujiError:  # a rule failed on the way: the move itself will say so when it is made
        return None
    if line == _Line.UNKNOWN and s.states >= budget:
        return UndecidedBurn(seat, s.states)
    if line != _Line.FAILS or not s.reasons:
        return None
    return DoomedBurn(seat, tuple(s.reasons.values()), s.states)


__all__ = ["BURN_LOOKAHEAD", "DoomedBurn", "UndecidedBurn", "doomed_burn"]
