"""A single-ruleset run (``gouji simulate``): its figures with their 95% intervals, the summary it
prints, and the run itself over :func:`gouji_dsl.tools.runs.execute` (any executor, ``--out``, resume,
``--until-halfwidth``). :mod:`gouji_dsl.tools.paired` is the two-ruleset run; the games themselves are
played by :mod:`gouji_dsl.tools.simulate`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.figures import DESIGN_KEYS
from gouji_dsl.tools.paired import design_estimate, precision
from gouji_dsl.tools.played import with_played_by
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, Executor
from gouji_dsl.tools.runs import execute
from gouji_dsl.tools.runspec import RunSpec, empty_totals
from gouji_dsl.tools.simulate import engine_summary
from gouji_dsl.tools.stats import mean_estimate, rate_estimate, ratio_estimate

SINGLE_FIGURES: tuple[str, ...] = ("decisions", "tricks", "score_spread", "first_leader_team_score", "burns_per_game",
                                   "sweep_rate", "burn_rate", "revolution_rate", "redeal_rate", "burn_success_rate")
"""The figures of ``gouji simulate`` with an interval (``--figure`` for ``--until-halfwidth``; also
``team_score.T``)."""


def intervals(totals: Any) -> dict[str, Any]:
    """Every figure of one ruleset's totals with its 95% interval (see :mod:`gouji_dsl.tools.paired`)."""
    out: dict[str, Any] = {k: mean_estimate(totals.means[k]) for k in
                           ("decisions", "tricks", "score_spread", "first_leader_team_score", "burns_per_game")}
    for k in ("sweep_rate", "burn_rate", "revolution_rate", "redeal_rate"):
        f = totals.flags[k]
        out[k] = rate_estimate(int(f.s), totals.games, f.deff())
    out["burn_success_rate"] = ratio_estimate(totals.burn_success)
    for t, sums in enumerate(totals.team_score, start=1):
        out[f"team_score.{t}"] = mean_estimate(sums)
    for s, sums in enumerate(totals.seat_score, start=1):
        out[f"seat_score.{s}"] = mean_estimate(sums)  # each seat's advantage
    for k in DESIGN_KEYS:
        out[k] = design_estimate(totals.design[k])  # the design metrics (probed deals only; MIN_PROBED)
    return out


def summarize_totals(name: str, totals: Any, seed: Any, elapsed: float, *, executor: str = "local",
                     workers: int = 1, stopped_by: str = "games", missing: list[str] | None = None,
                     resumed_games: int = 0) -> dict[str, Any]:
    """The summary ``gouji simulate`` prints, from one ruleset's merged totals. The keys ``ruleset,
    games, seed, mean_decisions, mean_tricks, sweep_rate, burn_rate, revolution_rate,
    team_score_mean, place_distribution, elapsed_s, games_per_s`` are fixed by the CLI contract;
    ``intervals`` holds every figure with its 95% interval (cluster-robust by match; rates Wilson).
    ``games_per_s`` counts the games played in ``elapsed`` (not the ``resumed_games`` read back)."""
    n = totals.games or 1
    played = totals.games - resumed_games
    seats = range(1, totals.n_seats + 1)
    est = intervals(totals)
    out: dict[str, Any] = {
        "ruleset": name,
        "games": totals.games,
        "seed": seed,
        "mean_decisions": est["decisions"].value,
        "mean_tricks": est["tricks"].value,
        "sweep_rate": totals.flags["sweep_rate"].s / n,
        "burn_rate": totals.flags["burn_rate"].s / n,
        "revolution_rate": totals.flags["revolution_rate"].s / n,
        "team_score_mean": {str(t): round(float(s.mean), 4) for t, s in enumerate(totals.team_score, start=1)},
        "place_distribution": {str(s): {str(p): totals.places[s - 1][p - 1] / n for p in seats} for s in seats},
        "intervals": {k: e.to_dict() for k, e in est.items()},
        "stopped_by": stopped_by,
        "executor": executor,
        "workers": workers,
        "elapsed_s": round(elapsed, 3),
        "games_per_s": round(played / elapsed, 2) if elapsed > 0 and played > 0 else None,
    }
    if resumed_games:
        out["resumed_games"] = resumed_games
    if missing:
        out["missing"] = list(missing)
    return out


def run_simulation(graph: RuleGraph, games: int, seed: Any, bots: str | list[str] = "random", *,
                   executor: str | None = None, workers: int = 2, matches: bool = True, engine: str = DEFAULT_ENGINE,
                   chunk_size: int | None = None, out: Any = None, resume: bool = False, scheduler: str | None = None,
                   until: Any = None, progress: Callable[[int, int], None] | None = None,
                   cancel: Any = None) -> dict[str, Any]:
    """Play ``games`` games of ``graph`` as a chunked run (:func:`gouji_dsl.tools.runs.execute`: any
    executor, ``out`` folder, ``resume``, ``until``) and return :func:`summarize_totals`."""
    spec = RunSpec((graph.resolved,), seed, bots if isinstance(bots, str) else tuple(bots), matches, engine)
    if executor is None:
        executor = Executor.PROCESS if workers > 1 and games >= 40 else Executor.LOCAL
    hw = None
    if until is not None:
        name = until.figure or "score_spread"
        if name not in figure_names(graph):
            raise KeyError(name)

        def hw(t: Any, name: str = name) -> float:
            return float(intervals(t)[name].half_width)

    res = execute(spec, games, executor=executor, workers=min(workers, games), chunk_size=chunk_size, out=out,
                  resume=resume, scheduler=scheduler, until=until, halfwidth_of=hw, progress=progress, cancel=cancel,
                  graphs=(graph,))
    summary = summarize_totals(graph.name, res.totals, seed, res.elapsed_s, executor=res.executor,
                               workers=res.workers, stopped_by=res.stopped_by, resumed_games=res.resumed_games)
    if until is not None and hw is not None:
        summary["until"] = precision(until, hw(res.totals))
    summary.update(with_played_by(engine_summary(graph, engine, bots, match_length(graph) if matches else 1)))
    if summary.get("whole_games") == "native":  # (the games the core left to Python: played there one by one)
        summary["games_replayed"] = getattr(res.totals, "replayed", 0)  # (one ruleset: SideTotals)
    return summary


def figure_names(graph: RuleGraph) -> list[str]:
    """The figures of a single-ruleset run that ``--figure`` may name (``team_score.1`` ... per team)."""
    return list(intervals(_empty(graph)))


def _empty(graph: RuleGraph) -> Any:
    return empty_totals((graph,), 0)
