"""``gouji sweep RULESET --grid KEY=V1,V2,... --simulate N``: every point of a grid of settings against
RULESET on the same deals (:mod:`gouji_dsl.tools.sweep`). The click group registers it."""
from __future__ import annotations

import sys
from typing import Any

import click

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _
from gouji_dsl.tools.cli_duel import BotsType, bots_help
from gouji_dsl.tools.cli_run import _interrupted, _stopped, progress_bar, run_options, skill_of, skill_options
from gouji_dsl.tools.exits import EXIT_BAD_INPUT, SEED, echo, echo_json, err, seed_value, set_option
from gouji_dsl.tools.runkinds import MAX_GAMES


@click.command("sweep")
@click.argument("ruleset")
@click.option("--grid", "grids", multiple=True, required=True, metavar="KEY=V1,V2,...",
              help=N_("A setting and its values (as --set takes them; dots go into a map; a comma inside [...] "
                      "belongs to its value). Repeatable: the points are every combination."))
@click.option("--simulate", "games", type=click.IntRange(min=1, max=MAX_GAMES), required=True, metavar="N",
              help=N_("Play N seeded deals under RULESET and under every point (paired)."))
@click.option("--seed", type=SEED, default="1", show_default=True, help=N_("Seed of the simulated deals (game i deals from SEED:i)."))
@click.option("--bots", type=BotsType(), default="random", show_default=True, help=bots_help(N_("Bots in the simulation")))
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help=N_("Worker processes for the simulation (the result does not depend on it)."))
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help=N_("Output format."))
@click.option("--single-games", is_flag=True, default=False,
              help=N_("Play every deal as a first game instead of in matches of the ruleset's match length."))
@set_option
@skill_options
@run_options
def sweep_command(ruleset: str, grids: tuple[str, ...], games: int, seed: str, bots: str, workers: int, fmt: str,
                  single_games: bool, overrides: tuple[str, ...] = (), skill_deals: int | None = None,
                  skill_bots: str | None = None, **run: Any) -> None:
    """Play every point of a grid of settings against RULESET on the same seeded deals.

    Each point is RULESET with one value of each --grid (checked as --set is); every point plays the
    same N deals as RULESET, and each figure of each point is compared with RULESET's (paired, as gouji
    diff --simulate), with Holm's adjustment across every independent figure of every point (a row that
    mirrors another on every deal, marked ≡, is that row's test). A point that plays exactly as RULESET
    (or as an earlier point) is marked "= base" ("= Pj") and not played. One table: a row per figure, a
    column per point. Resumable with --out DIR and --resume. With --set, RULESET is the base with those
    overrides, and every point has them too.

    \b
    Examples:
      gouji sweep online --grid gouji_minimum.2=1,2 --grid yield_to=1,2 --simulate 5000
      gouji sweep qingdao --grid filler_rank=2,null --simulate 2000 --out sweep1 --format markdown
      gouji sweep online --set filler_rank=null --grid yield_to=1,2,3 --simulate 2000
    """
    from gouji_dsl.bots import runner_bots
    from gouji_dsl.tools import sweep
    from gouji_dsl.tools.exits import load_graph_or_exit as _load_graph
    from gouji_dsl.tools.exits import report as _report
    from gouji_dsl.tools.runfiles import RunError  # lazy: start-up
    from gouji_dsl.tools.runspec import RunStopped, SimulationCancelled  # lazy: start-up

    for name in ("halfwidth", "max_games", "figure"):
        if run.get(name) is not None:
            raise click.UsageError(_("gouji sweep plays N deals: --until-halfwidth, --max-games and --figure are for "
                                     "gouji simulate and gouji diff"))
    if run.get("resume") and not run.get("out"):
        raise click.UsageError(_("--resume needs --out DIR"))
    base = _load_graph(ruleset, overrides)
    try:
        parsed = sweep.parse_grids(grids)
        graphs = sweep.load_points(ruleset, parsed, sets=overrides)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)
    try:
        seats = runner_bots(bots, base.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--bots'") from None
    labels = [sweep.point_label(p) for p in sweep.points(parsed)]
    same = sweep.same_as(base, graphs)
    if all(x is not None for x in same):
        raise click.UsageError(_("every point of the grid plays as {base}: nothing to compare").format(base=base.name))
    executor = run.get("executor") or ("dask" if run.get("scheduler") else None)
    try:
        with progress_bar(_("sweep of {name}").format(name=base.name), games, 1 + same.count(None), fmt != "json") as progress:
            report = sweep.run_sweep(base, graphs, labels, list(grids), games, seed_value(seed), seats, workers=workers,
                                     executor=executor, scheduler=run.get("scheduler"), chunk_size=run.get("chunk_size"),
                                     out=run.get("out"), resume=bool(run.get("resume")), matches=not single_games,
                                     engine=run.get("engine") or "native", progress=progress)
    except SimulationCancelled as e:
        _interrupted(e, run.get("out"))
    except RunStopped as e:
        _stopped(e, run.get("out"))
    except RunError as e:
        err(_("error: {e}").format(e=e))
        sys.exit(EXIT_BAD_INPUT)
    played = [g for g, x in zip(graphs, same) if x is None]  # (a point = base or = Pj: that one's trace, not played again)
    skills = skill_of([base, *played], skill_deals, skill_bots, seed_value(seed), workers)
    if skills is not None:
        by = iter(skills[1:])
        traces = {f"P{k}": next(by) for k, x in enumerate(same, start=1) if x is None}
        report.skills = [skills[0]] + [skills[0] if x == "base" else traces[x or f"P{k}"] for k, x in enumerate(same, start=1)]
    if fmt == "json":
        echo_json(sweep.report_json(report).rstrip("\n"))
    elif fmt == "markdown":
        echo(sweep.report_markdown(report), nl=False)
    else:
        from gouji_dsl.tools.exits import text_width as _width
        echo(sweep.report_text(report, _width()), nl=False)
