"""ISMCTS: information-set Monte Carlo tree search, single observer (SO-ISMCTS, Cowling, Powley and
Whitehouse 2012), for any ruleset.

One tree of the deciding seat's information sets: a node is a sequence of moves seen from that seat;
its children are the moves made next, by whichever seat acts. Each iteration draws a new deal
consistent with the seat's view (:mod:`gouji_dsl.bots.determinize`), walks down the tree choosing
among the children that are legal in that deal (UCB1 with availability counts: a child's
exploration term counts the iterations in which it could have been chosen), adds one new node,
plays the game out with the heuristic bot at every seat (:func:`~gouji_dsl.bots.search.rollout`)
and credits every node with the final score of the seat that made its move (each seat scores its
team's result, so teammates pull together and opponents against).

Cheap where it can be: forced moves (one legal move) make no node; each decision considers only
the moves :func:`~gouji_dsl.bots.search.candidates` keeps, the heuristic's choice first (so it is
the first child tried everywhere); the deciding seat's own candidates at the root are computed once.
The move played is the most visited child of the root (ties: the better mean, then the heuristic's).
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from gouji_dsl.bots import Budget
from gouji_dsl.bots.determinize import determinize, sample_deal
from gouji_dsl.bots.search import Analysis, MoveValue, SearchBot, candidates, driver, rollout
from gouji_dsl.engine.interpreter import GameState, Move


class Node:
    """A node of the tree: the ``move`` that led here (by ``seat``), its children by move, visits,
    availability (iterations in which it could have been chosen) and the total score credited."""

    __slots__ = ("move", "seat", "children", "visits", "avail", "total")

    def __init__(self, move: Move | None, seat: int):
        self.move = move
        self.seat = seat
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


class IsmctsBot(SearchBot):
    """SO-ISMCTS (see the module docstring)."""

    name = "ismcts"
    #: UCB1 exploration constant, on scores scaled to [0, 1] by the range seen in the search
    C = 0.7

    def __init__(self, rng: random.Random, budget: Budget, *, limit: int | None = None, c: float | None = None):
        super().__init__(rng, budget, limit=limit)
        self.c = self.C if c is None else c

    def analyse(self, state: GameState, moves: Sequence[Move] | None = None) -> Analysis:
        """Search the decision of the seat to act; the analysis lists the root's children."""
        t0 = time.perf_counter()
        moves = state.legal_moves() if moves is None else moves
        first = moves[0] if len(moves) == 1 else self.policy(state, moves)
        root_cands = candidates(state, moves, first, self.limit)
        if len(root_cands) == 1:
            return Analysis(first, [MoveValue(first, 0, 0.0)], 0, 0.0, first, forced=True)
        seat = first.seat
        obs = self.observer(seat).observe(state)
        rng = random.Random(self.rng.getrandbits(64))
        done = self._clock()
        root = Node(None, seat)
        lo, hi = math.inf, -math.inf
        policy = self.policy
        limit = self.limit
        drive = driver(state.graph)
        c = self.c
        its = 0
        while not done(its):
            g = determinize(state, obs, sample_deal(obs, rng), rng)
            node = root
            path = []
            cands = root_cands
            while True:
                child = None
                for m in cands:
                    if m not in node.children:
                        child = node.children[m] = Node(m, m.seat)
                        break
                if child is None:
                    kids = [node.children[m] for m in cands]
                    for k in kids:
                        k.avail += 1
                    span = hi - lo if hi > lo else 1.0
                    child = max(kids, key=lambda k: (k.total / k.visits - lo) / span
                                + c * math.sqrt(math.log(max(k.avail, 1)) / k.visits))
                assert child.move is not None
                drive.apply(g, child.move)
                path.append(child)
                new = child.visits == 0
                moves_g: Sequence[Move] = ()
                while g.to_act is not None and g.phase != "over":
                    moves_g = drive.moves(g)
                    if len(moves_g) > 1:
                        break
                    drive.apply(g, moves_g[0])
                if new or g.phase == "over" or g.to_act is None:
                    break
                node = child
                cands = candidates(g, moves_g, policy(g, moves_g), limit)
            scores = rollout(g, policy, drive=drive)
            for n in path:
                v = float(scores[n.seat])
                n.visits += 1
                n.total += v
                lo, hi = min(lo, v), max(hi, v)
            its += 1
        tried = [(m, root.children[m]) for m in root_cands if m in root.children]
        order = sorted(range(len(tried)), key=lambda i: (-tried[i][1].visits, -tried[i][1].mean, i))
        mv = [MoveValue(tried[i][0], tried[i][1].visits, tried[i][1].mean) for i in order]
        return Analysis(mv[0].move, mv, its, (time.perf_counter() - t0) * 1000, first)
