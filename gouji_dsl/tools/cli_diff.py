"""``gouji diff A B``: the two resolved rulesets side by side, and optionally the same seeded deals
played under both (``--simulate N``). See :mod:`gouji_dsl.tools.compare`.

The click group (``gouji_dsl.tools.cli``) registers this with ``cli.add_command(diff_command)``.
"""
from __future__ import annotations

import json
import sys
from typing import Any

import click

from gouji_dsl.bots import runner_bots
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _
from gouji_dsl.tools.cli_duel import BotsType, bots_help
from gouji_dsl.tools.cli_run import paired_run, run_options, skill_of, skill_options
from gouji_dsl.tools.exits import SEED, SafePath, echo, echo_json, err, load_graph, os_failure, set_option, text_width
from gouji_dsl.tools.runkinds import MAX_GAMES


def _words(*graphs: Any) -> list[Any]:
    """The words of the game of the compared rulesets (their names of the places head the tables)."""
    from gouji_dsl.ruleset.words import game_words
    return [game_words(g.resolved) for g in graphs]


def _fail(message: str) -> None:
    err(message)
    sys.exit(1)


def _load(names: list[str], overrides: tuple[str, ...] = ()) -> list[Any]:
    """Resolve and compile each ruleset, the last with the ``--set`` ``overrides``; on errors print
    every diagnostic of every ruleset, exit 1."""

    graphs, errors = [], []
    for i, name in enumerate(names):
        try:
            graphs.append(load_graph(name, overrides if i == len(names) - 1 else ()))
        except GoujiError as e:
            errors.append(e.format())
    if errors:
        _fail("\n".join(errors))
    return graphs


@click.command("diff")
@click.argument("a")
@click.argument("b", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help=N_("Output format."))
@click.option("--simulate", "games", type=click.IntRange(min=1, max=MAX_GAMES), default=None, metavar="N",
              help=N_("Also play N seeded deals under both rulesets (paired) and compare the outcomes."))
@click.option("--seed", type=SEED, default="1", show_default=True, help=N_("Seed of the simulated deals (game i deals from SEED:i)."))
@click.option("--bots", type=BotsType(), default="random", show_default=True, help=bots_help(N_("Bots in the simulation")))
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help=N_("Worker processes for the simulation (the result does not depend on it)."))
@click.option("--top", type=click.IntRange(min=0), default=5, show_default=True,
              help=N_("How many of the most divergent deals to list (and save)."))
@click.option("--single-games", is_flag=True, default=False,
              help=N_("Play every deal as a first game instead of in matches of the ruleset's match length."))
@click.option("--save-divergent", "save_dir", type=SafePath(file_okay=False, writable=True), default=None,
              metavar="DIR", help=N_("Write the most divergent deals, with both game records, as JSON files in DIR."))
@set_option
@skill_options
@run_options
def diff_command(a: str, b: str | None, fmt: str, games: int | None, seed: str, bots: str, workers: int, top: int,
                 single_games: bool, save_dir: str | None, overrides: tuple[str, ...] = (), skill_deals: int | None = None,
                 skill_bots: str | None = None, **run: Any) -> None:
    """Compare rulesets A and B (bundled names or paths): settings, rules and definitions that
    differ, each with where it was written and a one-line summary.

    With --simulate N, the same N seeded deals are played under both rulesets (in matches, with
    tribute between games, when a ruleset has them) and the outcomes compared with confidence
    intervals at 95% (decisions, tricks, score spread, first-leader and seat
    advantage, sweep, burns, revolutions, places), plus the deals whose outcomes differ most.

    With --set KEY=VALUE, B is B (or, without B, A) with those settings changed.

    \b
    Examples:
      gouji diff online rulebook
      gouji diff online --set filler_rank=null --simulate 5000
      gouji diff qingdao qingdao-classic --simulate 500 --seed 7
      gouji diff online my/rules.yaml --format json
    """
    from gouji_dsl.tools import compare, paired, runspec  # lazy: start-up

    if games is None:  # an option of the simulation given without one would be silently ignored
        ctx = click.get_current_context()
        for param in ctx.command.params:
            if param.name not in ("a", "b", "fmt", "games", "overrides") and \
                    ctx.get_parameter_source(param.name or "") == click.core.ParameterSource.COMMANDLINE:
                raise click.UsageError(_("{param} needs --simulate N").format(param=param.opts[0]))
    if b is None and not overrides:
        raise click.UsageError(_("missing argument B (a second ruleset, or --set KEY=VALUE to compare A with A changed)"))
    ga, gb = _load([a, a if b is None else b], overrides)
    try:
        seats = runner_bots(bots, ga.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--bots'") from None
    diff = compare.rule_diff(ga.resolved, gb.resolved)
    report = None
    if games is not None:
        try:
            report = paired_run(ga, gb, games, seed, seats,
                                workers, top, not single_games,
                                show_progress=fmt != "json", run=run)
        except GoujiError as e:
            _fail(e.format())
        except runspec.SimulationError as e:
            _fail(_("error: {e}").format(e=e))
        except KeyboardInterrupt:
            _fail("interrupted")
    skills = skill_of([ga, gb], skill_deals, skill_bots, seed, workers) if games is not None else None
    from gouji_dsl.tools.skill import skill_difference, skill_lines  # lazy: start-up
    alike = paired.same_deck(ga, gb)
    said = skill_lines(report.labels if report else (ga.name, gb.name), skills or [None], alike)
    if fmt == "json":
        data: dict[str, Any] = {"diff": diff.to_dict(), "simulation": report.to_dict() if report else None}
        if skills:
            data["skill"] = {"a": skills[0].to_dict(), "b": skills[1].to_dict(), "paired_by": "deal" if alike else "seed",
                             "difference": skill_difference(skills[0], skills[1]).to_dict()}
        echo_json(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2, default=str))
    elif fmt == "markdown":
        echo(compare.diff_markdown(diff), nl=False)
        if report is not None:
            echo("")
            echo(paired.report_markdown(report, _words(ga, gb)), nl=False)
            echo("\n".join(f"- {line}" for line in said))
    else:
        width = text_width()
        echo(compare.diff_text(diff, width), nl=False)
        if report is not None:
            echo("")
            echo(paired.report_text(report, width, _words(ga, gb)), nl=False)
            echo("\n".join(said))
    if report is not None and save_dir is not None:
        try:
            paths = paired.save_divergent(report, save_dir)
        except OSError as e:
            _fail(_("error: {os_failure}").format(os_failure=os_failure(e.filename or save_dir, _('write divergent deals'), e)))
        err(_("saved {n} divergent deal(s) to {save_dir}").format(n=len(paths), save_dir=save_dir))
