"""PIMC (perfect-information Monte Carlo, 完全信息蒙特卡洛): sample deals the seat's view allows,
play every candidate move out on each with the heuristic bot at every seat, keep the move with the
best mean final score.

Each round draws one deal (:mod:`gouji_dsl.bots.determinize`) and plays every candidate on it with
the same generator state, so candidates are compared on the same cards (paired): one iteration is
one play-out, and only whole rounds count. The candidates are the heuristic's own choice and the
moves :func:`~gouji_dsl.bots.search.candidates` keeps; ties go to the heuristic's choice. With one
legal move, or one candidate, nothing is searched.
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence

from gouji_dsl.bots.budget import Budget
from gouji_dsl.bots.search import Analysis, MoveValue, SearchBot, candidates, driver, paired_analysis, paired_rounds, rollout
from gouji_dsl.engine.interpreter import GameState, Move


class PimcBot(SearchBot):
    """Determinized rollout search (see the module docstring)."""

    name = "pimc"

    #: deviate from the heuristic's move only when the paired gain is at least Z standard errors
    Z = 1.5

    def __init__(self, rng: random.Random, budget: Budget, *, limit: int | None = None, z: float | None = None):
        super().__init__(rng, budget, limit=limit)
        self.z = self.Z if z is None else z

    def analyse(self, state: GameState, moves: Sequence[Move] | None = None) -> Analysis:
        """Search the decision of the seat to act; the analysis lists every candidate's mean score."""
        t0 = time.perf_counter()
        moves = state.legal_moves() if moves is None else moves
        first = moves[0] if len(moves) == 1 else self.policy(state, moves)
        cands = candidates(state, moves, first, self.limit)
        if len(cands) == 1:
            return Analysis(first, [MoveValue(first, 0, 0.0)], 0, 0.0, first, forced=True)
        seat = first.seat
        obs = self.observer(seat).observe(state)
        rng = random.Random(self.rng.getrandbits(64))
        n = len(cands)
        done = self._done(n)
        drive = driver(state.graph)

        def evaluate(g: GameState, i: int) -> float:
            drive.apply(g, cands[i])
            return float(rollout(g, self.policy, drive=drive, scores_only=True)[seat])

        rows, its = paired_rounds(state, obs, rng, n, done, evaluate)
        return paired_analysis(cands, rows, its, self.z, t0, first)
