"""Bots: choose a move from the legal moves. Each bot takes its own seeded generator.

- :class:`RandomBot` picks uniformly among legal moves.
- :class:`HeuristicBot` plays sensibly under any ruleset: it leads its weakest groups, answers
  with the cheapest play that beats, keeps jokers and gouji plays for when they matter, never
  bluff-burns, and passes rather than beat a teammate.
"""
from __future__ import annotations

import random
from typing import Protocol

from .engine import GameState, Move


class Bot(Protocol):
    name: str

    def choose(self, state: GameState, moves: list[Move]) -> Move: ...


class RandomBot:
    """Uniform choice among legal moves, from ``rng``."""

    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        return moves[self.rng.randrange(len(moves))]


class HeuristicBot:
    """A simple, ruleset-independent strategy (see module docstring)."""

    name = "heuristic"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def _cost(self, state: GameState, m: Move) -> tuple:
        p = state.model.classify(m.cards or ())
        # fewer jokers and fillers first, then a weaker rank, then more cards (shed more)
        return (len(p.jokers), p.filler, p.gouji, p.rank, -p.count)

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        seat = moves[0].seat
        by_verb: dict[str, list[Move]] = {}
        for m in moves:
            by_verb.setdefault(m.verb, []).append(m)
        if state.phase == "setup":
            return next((m for m in moves if m.verb == "pass"), moves[0])
        if state.phase == "choose":
            return next((m for m in moves if m.arg == "headless"), moves[0])
        plays = by_verb.get("play", []) + by_verb.get("burn", [])
        top = state.top
        if top is None:  # lead: shed the weakest whole group, keep jokers
            return min(plays, key=lambda m: self._lead_key(state, m))
        partner = state.team(top.seat) == state.team(seat)
        if partner and "pass" in by_verb:
            return by_verb["pass"][0]
        burns = by_verb.get("burn", [])
        if burns:
            # burn only when the hand can really be played out with jokers
            hand = state.hands[seat]
            nr = state.model.n_ranks
            jokers = sum(hand[nr:])
            groups = sum(1 for c in hand[:nr] if c)
            if jokers >= groups:
                return min(burns, key=lambda m: self._cost(state, m))
            return by_verb.get("pass", burns)[0]
        normal = by_verb.get("play", [])
        if normal:
            cheap = min(normal, key=lambda m: self._cost(state, m))
            p = state.model.classify(cheap.cards or ())
            if p.jokers and state.hand_size(seat) > 2 * p.count and "pass" in by_verb:
                return by_verb["pass"][0]
            return cheap
        return by_verb.get("pass", moves)[0]

    def _lead_key(self, state: GameState, m: Move) -> tuple:
        p = state.model.classify(m.cards or ())
        seat = m.seat
        whole = state.hands[seat][p.rank] == p.carried - p.filler if p.rank < state.model.n_ranks else False
        return (len(p.jokers), p.filler, not whole, p.rank, -p.count)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(kind: str, rng: random.Random) -> Bot:
    """A bot by name (``random`` or ``heuristic``). Raises KeyError for an unknown name."""
    return BOTS[kind](rng)
