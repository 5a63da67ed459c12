"""``gouji duel`` and the ``--bots`` option shared by ``gouji simulate`` and ``gouji diff --simulate``."""
from __future__ import annotations

import errno
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import click

from gouji_dsl.bots import BOTS, EXEC_SECONDS, canonical_spec, installed_plugins, parse_bot_spec
from gouji_dsl.bots.budget import MAX_THINK_MS
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _, formatted_later, ngettext
from gouji_dsl.tools.exits import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_RUN_STOPPED,
    SEED,
    SafePath,
    echo,
    echo_json,
    seed_value,
    set_option,
    shown,
    shown_markup,
)
from gouji_dsl.tools.exits import err as _err
from gouji_dsl.tools.exits import load_graph_or_exit as _load_graph
from gouji_dsl.tools.exits import report as _report
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_DUEL_DEALS, Engine


def bots_help(what: str = N_("The bots")) -> str:
    """The help of ``--bots`` (English; shown in the active language by ``--help``: i18n.formatted_later).
    ``what``: its first words, marked with N_()."""
    defaults = ", ".join(f"{k.name} {k.default_iterations}" for k in BOTS.values() if k.searches)
    return formatted_later(N_("{what}: one bot for every seat, or A,B (A at the odd seats 1/3/5, B at the even ones), "
                              "or one per seat. Bots: {bots}, exec[@SECONDS]:CMD or an installed gouji.bots plug-in; a "
                              "search bot takes an iteration budget per decision as NAME:N (e.g. ismcts:200; default "
                              "{defaults})."),
                           what=what, bots=", ".join(BOTS),
                           defaults=defaults)


def engine_option(f: Any) -> Any:
    """``--engine native|interpreter`` (``gouji simulate``, ``gouji diff --simulate``, ``gouji sweep``,
    ``gouji duel``): the summary says which engine played (tools/played.py). ``generated``, the fast
    engine's name before the native core, is accepted and read as ``native``."""
    return click.option("--engine", type=click.Choice([*(e.value for e in Engine), "generated"]),
                        default=DEFAULT_ENGINE.value, show_default=True,
                        callback=lambda _ctx, _param, value: Engine(value).value,
                        help=N_("How games are played: native (the native core, where it plays the ruleset: the "
                                "same games as the interpreter, far faster; a ruleset it does not play, or no core "
                                "built, is played by the interpreter) or interpreter (the reference). generated, "
                                "its name before, means native. The summary says which engine played and why."))(f)


class PositiveFloat(click.FloatRange):
    """A number > 0 that is finite: ``nan`` and ``inf`` pass a plain FloatRange (a think time of
    ``nan`` never ends a search; a half-width of ``nan`` is never reached)."""

    def __init__(self, max: float | None = None) -> None:
        super().__init__(min=0, min_open=True, max=max)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not math.isfinite(click.FLOAT.convert(value, param, ctx)):  # before the range: inf is not "too large"
            self.fail(_("{value!r} is not a finite number").format(value=value), param, ctx)
        return super().convert(value, param, ctx)


class BotSpecType(click.ParamType):
    """One bot spec: ``NAME`` or ``NAME:N`` (checked against the registry)."""

    name = "bot"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if "," in str(value):
            self.fail(_("one bot here, not a list ({str!r}): a duel plays BOT_A's team against BOT_B's").format(str=str(value)[:40]),
                      param, ctx)
        try:
            return canonical_spec(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


class BotsType(click.ParamType):
    """``A``, ``A,B`` or one spec per seat; each checked against the registry. The value stays text;
    :func:`gouji_dsl.bots.seat_bots` gives the per-seat list once the ruleset's seat count is known."""

    name = "bots"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return ",".join(canonical_spec(part) for part in str(value).split(","))
        except ValueError as e:
            self.fail(str(e), param, ctx)


def bots_epilog() -> str:
    """The bot list for ``--help`` texts: every kind of the registry, its summary and default budget."""
    lines = ["\b", _("Bots:")]
    for k in BOTS.values():
        budget = _(" (default {default_iterations} iterations per decision; NAME:N sets N)").format(
            default_iterations=k.default_iterations) if k.searches else ""
        lines.append(f"  {k.name:<10} {_(k.summary)}{budget}")
    lines.append(f"  {'exec:CMD':<10} " + _("an external program speaking JSON lines on stdin/stdout, given only its seat's "
                                           "view (README: Bots from outside); exec@SECONDS:CMD sets its time limit per "
                                           "decision (default {seconds} s)").format(seconds=f"{EXEC_SECONDS:g}"))
    for name, ep in installed_plugins().items():
        shadowed = _(" (shadowed by the built-in bot of that name)") if name in BOTS or name == "exec" else ""
        lines.append(f"  {name:<10} " + _("plug-in {value}").format(value=ep.value) + shadowed)
    return "\n".join(lines)


class BotsCommand(click.Command):
    """A command whose ``--help`` ends with the bot list (:func:`bots_epilog`), written when shown:
    in the language of that run, with the plug-ins installed then."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.epilog = bots_epilog()
        super().format_epilog(ctx, formatter)


class _LineProgress:
    """Progress for a log file (stderr not a terminal): one line at every tenth of the run and at
    least every minute, so that a long duel written to a file shows how far it got."""

    EVERY_S = 60.0

    def __init__(self, what: str, unit: str):
        self.what, self.unit = what, unit
        self.t0 = self.last = time.monotonic()
        self.step = -1

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        step = 10 * done // total
        if step != self.step or now - self.last >= self.EVERY_S or done == total:
            self.step, self.last = step, now
            end = _(", done") if done == total else ""
            line = _("{what}: {done}/{total} {unit}{end} ({secs:.0f} s)").format(
                what=self.what, done=done, total=total, unit=_(self.unit), end=end, secs=now - self.t0)
            print(shown(line), file=sys.stderr, flush=True)


def _kept(save: Path | None, any_saved: bool) -> str:
    """What a stopped duel leaves in its save file, and how to go on."""
    if save is None:
        return _(" (nothing kept: --save FILE keeps each finished deal)")
    if any_saved:
        return _("; the finished deals are in {shown}: run the same command to play the rest").format(shown=shown(save))
    return _("; no deal had finished yet, nothing saved in {shown}: the same command starts again").format(shown=shown(save))


_RESUMABLE = {getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM") if hasattr(errno, n)}
"""OS errors of a save that the same command overcomes once they are mended (space, permission)."""


@click.command("duel", cls=BotsCommand)
@click.argument("ruleset")
@click.argument("bot_a", type=BotSpecType())
@click.argument("bot_b", type=BotSpecType())
@click.option("--deals", "-n", type=click.IntRange(min=1, max=MAX_DUEL_DEALS), default=50, show_default=True,
              help=N_("Deals to play; each is played twice, with the teams' bots swapped."))
@click.option("--seed", "-s", type=SEED, default="1", show_default=True, help=N_("Seed of the deals (deal i is dealt from SEED:i)."))
@click.option("--think-ms", type=PositiveFloat(max=MAX_THINK_MS), default=None, metavar="MS",
              help=N_("Search bots think this long per decision (the result then depends on the machine's speed; "
                   "a bot with its own budget, ismcts:200, stops at whichever comes first); "
                   "default: a fixed number of iterations (same seed, same result anywhere)."))
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help=N_("Processes to play deals in (the result does not depend on it, except with --think-ms)."))
@click.option("--save", "save", type=SafePath(dir_okay=False, writable=True, path_type=Path), default=None,
              metavar="FILE", help=N_("Append each finished deal (or match) to FILE (JSON lines) as it is played; run "
                                   "the same command again to resume: what FILE holds is not played again."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the report as JSON."))
@engine_option
@set_option
def duel_command(ruleset: str, bot_a: str, bot_b: str, deals: int, seed: str, think_ms: float | None, workers: int,
                 save: Path | None, as_json: bool, engine: str = DEFAULT_ENGINE.value,
                 overrides: tuple[str, ...] = ()) -> None:
    """Play BOT_A against BOT_B under RULESET and say which is stronger.

    Each deal is played twice, once with A's team at the odd seats and once at the even seats. The
    report gives the mean team-score difference A − B per game with its confidence interval at 95% (over deals and
    their replays: matches and their replays where the ruleset plays matches), A's win rate, each
    bot's mean score and place at every seat, and decisions per second of each bot.
    """
    from gouji_dsl.engine.interpreter import match_length  # lazy: start-up
    from gouji_dsl.tools.duel import (  # lazy: start-up
        DuelGame,
        SaveFailed,
        check_saved_header,
        duel,
        load_saved,
        repair_tail,
        run_header,
        save_unit,
        still_to_play,
        units,
    )

    if think_ms is not None and not any(parse_bot_spec(b)[0].searches for b in (bot_a, bot_b)):
        _err(_("warning: --think-ms {think_ms:g} has no effect: neither {bot_a} nor {bot_b} searches "
             "(search bots: {join})").format(
                 think_ms=think_ms, bot_a=bot_a, bot_b=bot_b, join=', '.join(k.name for k in BOTS.values() if k.searches)))
        think_ms = None
    graph = _load_graph(ruleset, overrides)
    done: list[DuelGame] = []
    on_unit = None
    saved_now: list[int] = []  # games saved by this run (one entry per finished deal or match)
    if save is not None:
        from gouji_dsl.tools.runspec import fingerprint  # lazy: start-up
        header = run_header(graph.name, bot_a, bot_b, seed_value(seed), think_ms, fingerprint(graph.resolved))
        try:
            check_saved_header(save, header)  # not this duel's file: refused before anything in it is changed
            cut = repair_tail(save)
            if cut is not None:
                _err(_("warning: {save}:{cut}: the last line was cut short (the run was stopped while writing "
                     "it): removed, its deal is played again").format(save=save, cut=cut))
            done = load_saved(save, header, graph.n_seats)  # read once: every bad line at once
        except (ValueError, OSError) as e:
            for line in str(e).splitlines():  # a save file's problems: one line each
                _err(_("error: {line}").format(line=line))
            sys.exit(EXIT_BAD_INPUT)
        if done:
            whole = len({g.deal for g in still_to_play(graph, deals, done)[1]})
            again = len({g.deal for g in done if g.deal < deals}) - whole
            beyond = len({g.deal for g in done if g.deal >= deals})
            more = _(" ({beyond} more saved beyond --deals {deals}: left out)").format(beyond=beyond, deals=deals) if beyond else ""
            rest = _("; playing the rest") if whole < deals else _(": nothing to play")
            unfinished = (ngettext(" ({again} deal of an unfinished match played again from its first deal)",
                                   " ({again} deals of an unfinished match played again from its first deal)", again).format(
                again=again) if again else "")
            _err(_("{save}: {whole} of the {deals} deals saved already{rest}{unfinished}{more}").format(
                save=save, whole=whole, deals=deals, rest=rest, unfinished=unfinished, more=more))

        def on_unit(games: list[DuelGame]) -> None:
            save_unit(save, games, header)
            saved_now.append(len(games))

    show_bar = not as_json and sys.stderr.isatty()
    try:
        if show_bar:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), TimeRemainingColumn(), transient=True, console=Console(stderr=True)) as bar:
                total = len(units(graph, deals))  # known from the start: not "0/?" until a unit is done
                task = bar.add_task(shown_markup(_("{name}: {bot_a} vs {bot_b}").format(name=graph.name, bot_a=bot_a, bot_b=bot_b)), total=total,
                                    completed=total - len(still_to_play(graph, deals, done)[0]))

                def progress(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                report = duel(graph, bot_a, bot_b, deals, seed_value(seed), think_ms=think_ms, workers=workers,
                              progress=progress, done=done, on_unit=on_unit, engine=engine)
        else:
            report = duel(graph, bot_a, bot_b, deals, seed_value(seed), think_ms=think_ms, workers=workers,
                          progress=_LineProgress(_("{name}: {bot_a} vs {bot_b}").format(name=graph.name, bot_a=bot_a, bot_b=bot_b),
                                                 N_("matches") if match_length(graph) > 1 else N_("deals")), done=done, on_unit=on_unit,
                          engine=engine)
    except KeyboardInterrupt:
        _err(_("interrupted{kept}").format(kept=_kept(save, bool(done or saved_now))))
        sys.exit(EXIT_INTERRUPTED)
    except SaveFailed as e:  # a full disk, a folder gone: resumable once mended, as a run's --out folder
        _err(_("error: {e}; stopped{kept}").format(e=e, kept=_kept(save, bool(done or saved_now))))
        sys.exit(EXIT_RUN_STOPPED if e.errno in _RESUMABLE else EXIT_BAD_INPUT)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)
    except (RuntimeError, ValueError, TypeError, KeyError, ZeroDivisionError) as e:
        _err(_("{ruleset}: duel failed: {type}: {e}").format(ruleset=ruleset, type=type(e).__name__, e=e))
        sys.exit(EXIT_INTERNAL)
    if as_json:
        echo_json(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        echo(report.text())
