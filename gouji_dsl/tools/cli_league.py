"""``gouji league RULESET BOT... [--deals N]``: every pair of bots on the same deals (:mod:`gouji_dsl.tools.league`).
The click group registers it."""
from __future__ import annotations

import json
import sys

import click

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _
from gouji_dsl.tools.cli_duel import BotsCommand, BotSpecType
from gouji_dsl.tools.exits import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, SEED, echo, echo_json, seed_value, set_option
from gouji_dsl.tools.exits import err as _err
from gouji_dsl.tools.exits import load_graph_or_exit as _load_graph
from gouji_dsl.tools.exits import report as _report
from gouji_dsl.tools.runkinds import MAX_DUEL_DEALS


@click.command("league", cls=BotsCommand)
@click.argument("ruleset")
@click.argument("bots", nargs=-1, required=True, type=BotSpecType())
@click.option("--deals", "-n", type=click.IntRange(min=1, max=MAX_DUEL_DEALS), default=50, show_default=True,
              help=N_("Deals to play; each is played twice, with the teams' bots swapped."))
@click.option("--seed", "-s", type=SEED, default="1", show_default=True, help=N_("Seed of the deals (deal i is dealt from SEED:i)."))
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help=N_("Processes to play deals in (the result does not depend on it, except with --think-ms)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the report as JSON."))
@set_option
def league_command(ruleset: str, bots: tuple[str, ...], deals: int, seed: str, workers: int, as_json: bool,
                   overrides: tuple[str, ...] = ()) -> None:
    """Play every pair of BOTS against each other under RULESET on the same deals.

    Each pair plays a duel (as gouji duel: every deal twice, with the teams' bots swapped), every pair the
    same deals. For each pair the report gives the mean team-score difference per game with its
    confidence interval at 95%. Then the table of them (row − column) and each bot's mean difference
    against the others; no rating (README: gouji league RULESET BOT...).
    """
    from gouji_dsl.tools.league import league  # lazy: start-up
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise click.BadParameter(_("give two bots or more, each once"), param_hint="'BOTS...'")
    graph = _load_graph(ruleset, overrides)

    def progress(a: str, b: str, done: int, total: int) -> None:
        if not as_json:
            print(_("{name}: {bot_a} vs {bot_b}").format(name=graph.name, bot_a=a, bot_b=b) + f" ({done}/{total})",
                  file=sys.stderr, flush=True)
    try:
        report = league(graph, bots, deals, seed_value(seed), workers=workers, progress=progress)
    except KeyboardInterrupt:
        _err(_("interrupted"))
        sys.exit(EXIT_INTERRUPTED)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)
    except (RuntimeError, ValueError, TypeError, KeyError, ZeroDivisionError) as e:
        _err(_("{ruleset}: league failed: {type}: {e}").format(ruleset=ruleset, type=type(e).__name__, e=e))
        sys.exit(EXIT_INTERNAL)
    if as_json:
        echo_json(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        echo(report.text())
