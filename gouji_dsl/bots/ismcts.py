"""ISMCTS: information-set Monte Carlo tree search, single observer (SO-ISMCTS, Cowling, Powley and
Whitehouse 2012), for any ruleset.

One tree of the deciding seat's information sets: a node is a sequence of moves seen from that seat;
its children are the moves made next, by whichever seat acts. Every iteration plays on a deal drawn
consistent with the seat's view (:mod:`gouji_dsl.bots.determinize`): it walks down the tree choosing
among the children that are legal in that deal (UCB1 with availability counts: a child's
exploration term counts the iterations in which it could have been chosen), adds one new node,
plays the game out with the heuristic bot at every seat (:func:`~gouji_dsl.bots.search.rollout`)
and credits every node with the final score of the seat that made its move (each seat scores its
team's result, so teammates pull together and opponents against).

Made to work on a small budget:

- the root is searched in rounds: one deal per round, and every candidate move of the deciding seat
  is tried once on it (so the candidates are compared on the same cards, paired, as in PIMC); below
  the root the tree grows by UCB;
- progressive widening below the root: a node first follows only the heuristic's move (the first
  candidate) and considers one more candidate as its visits grow (``1 + sqrt(visits / WIDEN)``), so
  a few iterations do not replace the heuristic's play with untested moves;
- forced moves (one legal move) make no node; each decision considers only the moves
  :func:`~gouji_dsl.bots.search.candidates` keeps;
- the move played is the candidate with the best mean over the finished rounds when its gain over
  the heuristic's move, paired by deal, is at least ``Z`` standard errors; else the heuristic's.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence

from gouji_dsl.bots.budget import Budget
from gouji_dsl.bots.search import Analysis, Driver, MoveValue, SearchBot, candidates, driver, paired_analysis, paired_rounds, rollout
from gouji_dsl.engine.interpreter import GameState, Move


class Node:
    """A node of the tree: the ``move`` that led here (by ``seat``), its children by move, visits,
    availability (iterations in which it could have been chosen) and the total score credited."""

    __slots__ = ("move", "seat", "children", "visits", "avail", "total", "squares")

    def __init__(self, move: Move | None, seat: int):
        self.move = move
        self.seat = seat
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.squares = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    @property
    def variance(self) -> float:
        """The sample variance of the scores credited here (0 below two visits)."""
        if self.visits < 2:
            return 0.0
        return max(0.0, (self.squares - self.total * self.total / self.visits) / (self.visits - 1))


class IsmctsBot(SearchBot):
    """SO-ISMCTS (see the module docstring)."""

    name = "ismcts"
    #: UCB1 exploration constant, on scores scaled to [0, 1] by the range seen in the search
    C = 0.7
    #: play another move than the heuristic's only when its paired gain is this many standard errors
    Z = 1.5
    #: progressive widening below the root: a node with n visits considers 1 + sqrt(n / WIDEN) candidates
    WIDEN = 4.0

    def __init__(self, rng: random.Random, budget: Budget, *, limit: int | None = None, c: float | None = None,
                 z: float | None = None, widen: float | None = None):
        super().__init__(rng, budget, limit=limit)
        self.c = self.C if c is None else c
        self.z = self.Z if z is None else z
        self.widen = self.WIDEN if widen is None else widen

    def analyse(self, state: GameState, moves: Sequence[Move] | None = None) -> Analysis:
        """Search the decision of the seat to act; the analysis lists the root's candidates with
        their mean scores over the finished rounds."""
        t0 = time.perf_counter()
        moves = state.legal_moves() if moves is None else moves
        first = moves[0] if len(moves) == 1 else self.policy(state, moves)
        root_cands = candidates(state, moves, first, self.limit)
        if len(root_cands) == 1:
            return Analysis(first, [MoveValue(first, 0, 0.0)], 0, 0.0, first, forced=True)
        seat = first.seat
        obs = self.observer(seat).observe(state)
        rng = random.Random(self.rng.getrandbits(64))
        n = len(root_cands)
        done = self._done(n)
        root = Node(None, seat)
        kids = [Node(m, seat) for m in root_cands]
        for m, k in zip(root_cands, kids):
            root.children[m] = k
        self._range = [math.inf, -math.inf]
        drive = driver(state.graph)

        def evaluate(g: GameState, i: int) -> float:
            k = kids[i]
            assert k.move is not None
            drive.apply(g, k.move)
            return self._iterate(g, k, drive)[seat]

        rows, its = paired_rounds(state, obs, rng, n, done, evaluate)
        return paired_analysis(root_cands, rows, its, self.z, t0, first)

    def _iterate(self, g: GameState, top: Node, drive: Driver) -> Mapping[int, float]:
        """One iteration below the root child ``top`` (its move already applied to ``g``): descend
        by UCB with progressive widening, add one node, play out, credit the path."""
        policy, limit, c, widen = self.policy, self.limit, self.c, self.widen
        lo, hi = self._range
        node = top
        path = [top]
        while True:
            moves_g: Sequence[Move] = ()
            while g.to_act is not None and g.phase != "over":
                moves_g = drive.moves(g)
                if len(moves_g) > 1:
                    break
                drive.apply(g, moves_g[0])
            if g.phase == "over" or g.to_act is None or node.visits == 0:
                break
            width = 1 + int(math.sqrt(node.visits / widen))
            first = policy(g, moves_g)
            # (the first candidate is the policy's move: with one to consider, no list is made)
            cands = [first] if width == 1 else candidates(g, moves_g, first, limit)[:width]
            child = None
            for m in cands:
                if m not in node.children:
                    child = node.children[m] = Node(m, m.seat)
                    break
            if child is None:
                options = [node.children[m] for m in cands]
                for o in options:
                    o.avail += 1
                span = hi - lo if hi > lo else 1.0
                child = max(options, key=lambda o: (o.total / o.visits - lo) / span
                            + c * math.sqrt(math.log(max(o.avail, 1)) / o.visits))
            assert child.move is not None
            drive.apply(g, child.move)
            path.append(child)
            node = child
        scores = rollout(g, policy, drive=drive, scores_only=True)
        for nd in path:
            v = float(scores[nd.seat])
            nd.visits += 1
            nd.total += v
            nd.squares += v * v
            lo, hi = min(lo, v), max(hi, v)
        self._range = [lo, hi]
        return scores
