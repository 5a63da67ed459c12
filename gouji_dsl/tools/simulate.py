"""Play whole games with bots: one game (:func:`play_game`) or many (:func:`simulate`).

Determinism: game ``i`` of a run with seed ``S`` deals from ``random.Random(f"{S}:{i}")``
(string seeds hash the same on every machine) and each seat's bot draws from its own generator
seeded ``f"{S}:{i}:bot{seat}"``; the same ruleset, seed and bots give the same record, byte for byte.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from gouji_dsl.engine.bots import make_bot
from gouji_dsl.engine.interpreter import Ctx, GameState, new_game, next_game
from gouji_dsl.ruleset.graph import RuleGraph


@dataclass
class GameResult:
    """Outcome of one game: places and scores per seat, counts, and the full record."""

    seed: str
    places: dict[int, int]
    scores: dict[int, int]
    sweep: bool
    decisions: int
    tricks: int
    first_leader: int | None
    burns: list[dict[str, Any]]
    revolutions: int
    redeals: int
    record: list[dict[str, Any]] = field(repr=False, default_factory=list)


def game_seed(seed: Any, index: int) -> str:
    """The seed of game ``index`` of a run seeded ``seed``."""
    return f"{seed}:{index}"


class Engine(StrEnum):
    """How a simulated game is played: the generated play-out or the reference interpreter."""

    GENERATED = "generated"
    INTERPRETER = "interpreter"


def play_game(graph: RuleGraph, seed: Any, index: int = 0, bots: str | list[str] = "random",
              max_decisions: int = 100_000, game_number: int = 1,
              previous: GameState | None = None, engine: str = Engine.INTERPRETER) -> tuple[GameResult, GameState]:
    """Deal game ``index`` of run ``seed`` and let bots play it to the end.

    Every simulated game (``gouji simulate``, ``gouji diff --simulate``, the compare screen, run
    chunks on any executor) is played here. ``bots`` is one bot name for every seat or one per
    seat. With ``previous`` (the last game of the same match) the new game starts with the
    between-game phase (tribute, returns). ``engine``: :class:`Engine` (the generated play-out is
    not built yet: asking for it raises ValueError).
    Raises RuntimeError if the game does not end within ``max_decisions`` (a ruleset with no way out)."""
    if Engine(engine) is Engine.GENERATED:
        raise ValueError("the generated engine is not available in this version: use engine='interpreter'")
    n = graph.n_seats
    names = [bots] * n if isinstance(bots, str) else list(bots)
    players = {s: make_bot(names[s - 1], random.Random(f"{seed}:{index}:bot{s}")) for s in range(1, n + 1)}
    if previous is not None:
        state = next_game(previous, game_seed(seed, index))
    else:
        state = new_game(graph, game_seed(seed, index), game_number=game_number)
    steps = 0
    while not state.over:
        moves = state.legal_moves()
        if not moves:
            raise RuntimeError(f"seat {state.to_act} has no legal move (phase {state.phase})")
        choice = players[state.to_act].choose(state, moves)
        state.apply_in_place(choice, trusted=choice in moves)
        steps += 1
        if steps > max_decisions:
            raise RuntimeError(f"game {seed}:{index} did not end after {max_decisions} decisions")
    first = next((e["seat"] for e in state.record if e["type"] == "first_leader"), None)
    res = GameResult(seed=f"{seed}:{index}", places=dict(state.places), scores=dict(state.scores),
                     sweep=state.sweep, decisions=state.decisions, tricks=state.trick_no, first_leader=first,
                     burns=[dict(b) for b in state.burns],
                     revolutions=sum(1 for e in state.record if e["type"] == "revolution"),
                     redeals=sum(1 for e in state.record if e["type"] == "redeal"),
                     record=state.record)
    return res, state


def simulate(graph: RuleGraph, games: int, seed: Any, bots: str | list[str] = "random",
             progress: Callable[[int], None] | None = None) -> list[GameResult]:
    """Play ``games`` games; ``progress(i)`` is called after each one."""
    out = []
    length = match_length(graph)
    prev: GameState | None = None
    for i in range(games):
        res, state = play_game(graph, seed, i, bots, previous=prev if i % length else None)
        prev = state
        res.record = []  # keep memory flat; replay from seed when needed
        out.append(res)
        if progress:
            progress(i + 1)
    return out


def match_length(graph: RuleGraph) -> int:
    """Games per match as the ruleset's ``match_length`` rule says (1 when it has none)."""
    return max(1, int(graph.value("match_length", Ctx(None)) or 1))


def summarize(graph: RuleGraph, results: Iterable[GameResult], seed: Any, elapsed: float) -> dict[str, Any]:
    """The summary ``gouji simulate`` prints (JSON keys fixed by the CLI contract)."""
    rs = list(results)
    n = len(rs) or 1
    seats = range(1, graph.n_seats + 1)
    place_dist = {str(s): {str(p): sum(1 for r in rs if r.places.get(s) == p) / n for p in seats} for s in seats}
    teams = sorted({(s - 1) % int(graph.settings.get("teams", 2)) + 1 for s in seats})
    team_rep = {t: next(s for s in seats if (s - 1) % len(teams) + 1 == t) for t in teams}
    return {
        "ruleset": graph.name,
        "games": len(rs),
        "seed": seed,
        "mean_decisions": sum(r.decisions for r in rs) / n,
        "mean_tricks": sum(r.tricks for r in rs) / n,
        "sweep_rate": sum(r.sweep for r in rs) / n,
        "burn_rate": sum(1 for r in rs if r.burns) / n,
        "revolution_rate": sum(1 for r in rs if r.revolutions) / n,
        "team_score_mean": {str(t): round(sum(r.scores.get(team_rep[t], 0) for r in rs) / n, 4) for t in teams},
        "place_distribution": place_dist,
        "elapsed_s": round(elapsed, 3),
        "games_per_s": round(len(rs) / elapsed, 2) if elapsed > 0 else None,
    }


def timed_simulate(graph: RuleGraph, games: int, seed: Any, bots: str | list[str] = "random",
                   progress: Callable[[int], None] | None = None) -> tuple[list[GameResult], dict[str, Any]]:
    t0 = time.perf_counter()
    res = simulate(graph, games, seed, bots, progress)
    return res, summarize(graph, res, seed, time.perf_counter() - t0)
