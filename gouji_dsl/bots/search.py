"""What the search bots share: how they move a game (:class:`Driver`), the one rollout function,
candidate moves, budgets and analyses.

:func:`rollout` is the only place a search bot plays a game to its end: with the ruleset's native
engine (:mod:`gouji_dsl.engine.fast`) when the native core plays the ruleset, else with the
interpreter (``legal_moves`` / ``apply_in_place``). Both play the same games.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.bots.budget import Budget
from gouji_dsl.bots.determinize import Observer, determinize, sample_deal
from gouji_dsl.bots.heuristic import HeuristicBot, _model_tables
from gouji_dsl.engine.interpreter import GameState, Move
from gouji_dsl.ruleset.game.terms import Verb
from gouji_dsl.ruleset.graph import RuleGraph

#: a move-choosing function: ``policy(state, legal_moves) -> move``
Policy = Callable[[GameState, Sequence[Move]], Move]
#: verbs that decline to answer the play on the table
DECLINE_VERBS = (Verb.PASS, Verb.YIELD)


class RolloutError(RuntimeError):
    """A play-out did not end (a ruleset without a way out)."""


class Driver:
    """Moves a game forward for a search: the native engine of the ruleset when there is one
    (``engine`` is then its :class:`~gouji_dsl.engine.fast.Engine`: rollouts), the tree walks'
    moves by :func:`~gouji_dsl.engine.fast.walker` (``walk``), else the interpreter."""

    def __init__(self, graph: RuleGraph, *, generated: bool = True):
        self.graph = graph
        self.engine: Any = None
        self.walk: Any = None
        if generated:
            from gouji_dsl.engine import fast
            self.engine = fast.engine(graph)
            self.walk = fast.walker(graph) if self.engine is not None else None

    def moves(self, state: GameState) -> Sequence[Move]:
        """The legal moves of the seat to act (the interpreter's, in its order)."""
        return self.walk.legal_moves(state) if self.walk is not None else state.legal_moves()

    def apply(self, state: GameState, move: Move) -> None:
        """Apply a move just taken from :meth:`moves` of this very state."""
        if self.walk is not None:
            self.walk.apply_move(state, move)
        else:
            state.apply_in_place(move, trusted=True)


_drivers: dict[int, Driver] = {}


def driver(graph: RuleGraph) -> Driver:
    """The driver of ``graph`` (kept per graph object)."""
    d = _drivers.get(id(graph))
    if d is None or d.graph is not graph:
        d = _drivers[id(graph)] = Driver(graph)
        if len(_drivers) > 16:
            _drivers.pop(next(iter(_drivers)))
    return d


def rollout(state: GameState, policy: Policy, max_decisions: int = 20_000, *,
            drive: Driver | None = None, scores_only: bool = False) -> Mapping[int, float]:
    """Play ``state`` to its end in place, every seat choosing with ``policy`` (forced moves are
    applied without asking it); return the final score of every seat. ``drive``: how (default: the
    ruleset's native engine when there is one). ``scores_only``: the caller needs only the
    scores (a search's play-out), so a game the native core plays whole is not unpacked into
    ``state``, which is then used up (left as it was or played out: the same scores either way)."""
    d = drive or driver(state.graph)
    if d.engine is not None:
        def ask(st: GameState, moves: Sequence[Move]) -> Move:
            return moves[0] if len(moves) == 1 else policy(st, moves)
        # a bot the native core plays (the heuristic bot: its native_policy) is given as it is: the
        # core makes its play-phase choices, one crossing per play-out (it answers a forced move with
        # that move, as the bot does)
        bot = getattr(policy, "__self__", None)
        native = getattr(policy, "__name__", "") == "choose" and getattr(bot, "native_policy", None) is not None
        try:
            if native and scores_only:  # (nothing unpacked where the core plays the game whole)
                return d.engine.heuristic_scores(state, bot, max_decisions=max_decisions)  # type: ignore[no-any-return]
            return d.engine.play_out(state, ask, max_decisions=max_decisions).scores
        except RuntimeError as e:
            raise RolloutError(str(e)) from None
    steps = 0
    while state.to_act is not None and state.phase != "over":
        moves = state.legal_moves()
        m = moves[0] if len(moves) == 1 else policy(state, moves)
        state.apply_in_place(m, trusted=True)
        steps += 1
        if steps > max_decisions:
            raise RolloutError(f"a play-out did not end after {max_decisions} decisions")
    return state.scores


# ------------------------------------------------------------------------------ candidates
def _spread(moves: Sequence[Move], first: Move, limit: int) -> list[Move]:
    """``first`` and a spread of ``moves``, ``limit`` in all (ways to return cards can be billions: never all)."""
    step = len(moves) / limit
    spread = [moves[int(j * step)] for j in range(limit)]
    return [first] + [m for m in spread if m != first][:limit - 1]


def _cheapest_plays(state: GameState, moves: Sequence[Move], hand: Sequence[int]) -> dict[tuple, tuple[tuple, Move]]:
    """For each (verb, rank, with jokers or 2s) the cheapest play of ``moves`` and its key: a whole group first, then
    the summed card values, then the most cards."""
    model = state.model
    vals, sums = _model_tables(model)  # (the card values, and each play's summed once per model)
    nr = model.n_ranks
    filler = model.filler
    best: dict[tuple, tuple[tuple, Move]] = {}
    for m in moves:
        if m.cards is None:
            continue
        p = model.classify(m.cards)
        premium = bool(p.jokers) or (filler is not None and p.filler > 0)
        whole = 0 <= p.rank < nr and hand[p.rank] == p.carried - p.filler
        cost = sums.get(p)
        if cost is None:
            cost = sums[p] = sum(vals[i] * c for i, c in enumerate(p.counts) if c)
        key = (m.verb, p.rank, premium)
        rank_key = (not whole, cost, -p.count)
        cur = best.get(key)
        if cur is None or rank_key < cur[0]:
            best[key] = (rank_key, m)
    return best


def candidates(state: GameState, moves: Sequence[Move], first: Move, limit: int) -> list[Move]:
    """At most ``limit`` moves worth searching, ``first`` (the rollout policy's choice) first.

    With more legal moves than that, the search considers pass / yield, and for each rank it could
    play the cheapest play with and the cheapest without jokers or 2s (a whole group preferred),
    cheapest ranks first: different ranks are different plans; different ways of making the same
    play rarely are."""
    if len(moves) <= limit:
        out = [first] + [m for m in moves if m != first]
        return out
    if state.phase == "return":
        return _spread(moves, first, limit)
    best = _cheapest_plays(state, moves, state.hands[first.seat])
    out = [first]
    for m in moves:
        if m.cards is None and m.verb in DECLINE_VERBS and m not in out:
            out.append(m)
    for _, m in sorted(best.values(), key=lambda km: (km[0][1], km[0])):
        if len(out) >= limit:
            break
        if m not in out:
            out.append(m)
    return out


def paired_pick(rows: list[list[float]], means: list[float], z: float) -> int:
    """The candidate to play from rounds of scores (``rows[r][i]``: candidate ``i`` on round ``r``'s
    deal; candidate 0 is the heuristic's move): the best mean, when its gain over candidate 0,
    paired by deal, is positive and at least ``z`` standard errors (``z`` = 0: the best mean); else 0."""
    best = max(range(len(means)), key=lambda i: (means[i], -i))
    if best == 0 or z <= 0:
        return best
    if len(rows) < 2:
        return 0
    d = [r[best] - r[0] for r in rows]
    m = math.fsum(d) / len(d)
    sd = statistics.stdev(d)
    return best if m > 0 and m >= z * sd / math.sqrt(len(d)) else 0


# ------------------------------------------------------------------------------ analyses
@dataclass
class MoveValue:
    """A searched move: how often it was tried (``visits``: the deals it was played out on), the
    mean final score of its player (``value``) and the standard error of that mean (``stderr``;
    None below two visits)."""

    move: Move
    visits: int
    value: float
    stderr: float | None = None


def move_values(cands: Sequence[Move], rows: list[list[float]], order: Sequence[int]) -> list[MoveValue]:
    """Each candidate's :class:`MoveValue` from paired rounds (``rows[r][i]``: candidate ``i`` on
    round ``r``'s deal), in ``order``."""
    n = len(rows)
    out = []
    for i in order:
        col = [r[i] for r in rows]
        mean = math.fsum(col) / n if n else 0.0
        se = statistics.stdev(col) / math.sqrt(n) if n >= 2 else None
        out.append(MoveValue(cands[i], n, mean, se))
    return out


@dataclass
class Analysis:
    """The result of one search: the chosen ``best`` move, the searched moves with their values
    (best first), how many iterations ran, how long it took, the rollout policy's own choice, and
    the paired gain in standard errors (``z``) another move needs to be played instead of it."""

    best: Move
    moves: list[MoveValue] = field(default_factory=list)
    iterations: int = 0
    elapsed_ms: float = 0.0
    policy_move: Move | None = None
    forced: bool = False
    #: the bot plays another move than the heuristic's only for a paired gain of this many standard errors
    z: float = 0.0


class SearchBot:
    """Shared plumbing: the budget, an observer per seat, the heuristic rollout policy."""

    name = "search"
    #: candidate moves considered per decision (see :func:`candidates`)
    LIMIT = 4

    def __init__(self, rng: random.Random, budget: Budget, *, limit: int | None = None):
        self.rng = rng
        self.budget = budget
        self.limit = limit or self.LIMIT
        self.policy_bot = HeuristicBot(random.Random(0))
        self.policy: Policy = self.policy_bot.choose
        self._observers: dict[int, Observer] = {}
        self.last: Analysis | None = None

    def observer(self, seat: int) -> Observer:
        o = self._observers.get(seat)
        if o is None:
            o = self._observers[seat] = Observer(seat)
        return o

    def choose(self, state: GameState, moves: Sequence[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        a = self.analyse(state, moves)
        self.last = a
        return a.best

    def analyse(self, state: GameState, moves: Sequence[Move] | None = None) -> Analysis:  # pragma: no cover - abstract
        raise NotImplementedError

    # budget ---------------------------------------------------------------
    #: set (from another thread) to end a search early, e.g. a hint nobody waits for any more: asked
    #: after each play-out once a whole round is done; the rounds finished so far are the answer
    stop: Callable[[], bool] | None = None

    def _done(self, n: int) -> Callable[[int], bool]:
        """``done(iterations)`` of a search over ``n`` candidates: an iteration budget in whole rounds
        of ``n`` play-outs, or the think time (:meth:`_clock`); and :attr:`stop`."""
        if self.budget.think_ms is None:
            assert self.budget.iterations is not None
            wanted = max(1, self.budget.iterations // n) * n
            done: Callable[[int], bool] = lambda i: i >= wanted
        else:
            done = self._clock()
        stop = self.stop
        if stop is None:
            return done
        return lambda i: done(i) or (i >= n and stop())

    def _clock(self) -> Callable[[int], bool]:
        """A function ``done(iterations)`` telling whether the budget is spent."""
        b = self.budget
        limit = b.iterations
        if b.think_ms is None:
            assert limit is not None
            return lambda i: i >= limit
        deadline = time.perf_counter() + b.think_ms / 1000.0
        if limit is None:
            return lambda i: i > 0 and time.perf_counter() >= deadline
        return lambda i: i >= limit or (i > 0 and time.perf_counter() >= deadline)


def paired_rounds(state: GameState, obs: Any, rng: random.Random, n: int, done: Callable[[int], bool],
                  evaluate: Callable[[GameState, int], float]) -> tuple[list[list[float]], int]:
    """The root rounds both search bots play, paired by deal: each round samples one deal consistent
    with ``obs`` and scores every one of the ``n`` candidates on its own copy of it
    (``evaluate(copy, i)``); a round cut short by ``done(iterations)`` is dropped unless no round
    is complete yet. Returns the complete rounds' rows and the iterations spent."""
    rows: list[list[float]] = []
    its = 0
    while True:
        base = determinize(state, obs, sample_deal(obs, rng), rng)
        got: list[float] = []
        for i in range(n):
            got.append(evaluate(base.copy(), i))
            its += 1
            if len(got) < n and done(its) and rows:
                break
        if len(got) == n:
            rows.append(got)
        if done(its):
            return rows, its


def paired_analysis(cands: Sequence[Move], rows: list[list[float]], its: int, z: float, t0: float,
                    first: Move) -> Analysis:
    """The move the paired rounds pick (:func:`paired_pick`) and every candidate's value, best first."""
    n = len(cands)
    rounds = len(rows)
    means = [math.fsum(r[i] for r in rows) / rounds for i in range(n)]
    best = paired_pick(rows, means, z)
    order = [best] + sorted((i for i in range(n) if i != best), key=lambda i: (-means[i], i))
    return Analysis(cands[best], move_values(cands, rows, order), its, (time.perf_counter() - t0) * 1000, first, z=z)
