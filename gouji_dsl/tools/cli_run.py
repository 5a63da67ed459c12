"""The simulation commands: ``gouji simulate``, ``gouji report DIR...`` and the run options that
``gouji diff --simulate`` shares (:func:`run_options`).

Every run is chunked and streaming (:mod:`gouji_dsl.tools.runs`): ``--executor process|dask|local``,
``--out DIR`` (a chunk file per finished chunk), ``--resume``, ``--until-halfwidth X``; the progress
bar shows deals, games/s and the time left; Ctrl+C stops after the finished chunks are written.
"""
from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from gouji_dsl.bots import runner_bots
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _, cjk_spaced, display_width
from gouji_dsl.ruleset.words import game_words
from gouji_dsl.tools.cli_duel import BotsType, PositiveFloat, bots_help, engine_option
from gouji_dsl.tools.exits import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_RUN_STOPPED,
    SEED,
    SafePath,
    echo,
    echo_json,
    load_graph_or_exit,
    seed_value,
    set_option,
    shown_markup,
    stdout_console,
    text_width,
)
from gouji_dsl.tools.exits import err as _err
from gouji_dsl.tools.played import engine_name, fell_back, report_line, why_not_native
from gouji_dsl.tools.runkinds import MAX_GAMES, Executor, RunKind, said_kind


# ------------------------------------------------------------------------------ shared options
def run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a chunked run, for ``gouji simulate`` and ``gouji diff --simulate``."""

    opts = [
        click.option("--executor", type=click.Choice([e.value for e in Executor]), default=None,
                     help=N_("Where chunks are played: process (a local process pool, the default), dask (a Dask "
                          "cluster: local, or --scheduler; needs pip install 'gouji-dsl[cluster]') or local "
                          "(this process). The result does not depend on it.")),
        click.option("--scheduler", metavar="ADDRESS", default=None,
                     help=N_("With --executor dask: join the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786) "
                          "instead of starting a local cluster.")),
        click.option("--chunk-size", type=click.IntRange(min=1), default=None, metavar="N",
                     help=N_("Deals per chunk (default: 100, fewer for short runs; rounded to whole matches).")),
        click.option("--out", "out", type=SafePath(file_okay=False), default=None, metavar="DIR",
                     help=N_("Write each finished chunk as JSON in DIR (run.json + chunk-*.json); `gouji report DIR` "
                          "reads them.")),
        click.option("--resume", is_flag=True, default=False,
                     help=N_("Continue the run in --out DIR: play only the chunks not written yet.")),
        click.option("--until-halfwidth", "halfwidth", type=PositiveFloat(), default=None,
                     metavar="X", help=N_("Stop when the interval (95%) of --figure is at most ±X, in the figure's "
                                       "units (rates as fractions: 0.01 is one percentage point); checked at chunk "
                                       "boundaries; N deals at most: --max-games.")),
        click.option("--max-games", type=click.IntRange(min=1, max=MAX_GAMES), default=None, metavar="N",
                     help=N_("With --until-halfwidth: the most deals to play (default: the run's N).")),
        click.option("--figure", default=None, metavar="NAME",
                     help=N_("The figure --until-halfwidth watches (default score_spread: the team score spread, "
                          "B − A in a comparison; e.g. decisions, sweep_rate; seat_score.N in a comparison, "
                          "team_score.N in gouji simulate).")),
        engine_option,
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def skill_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--skill N`` and ``--skill-bots STRONG,WEAK``: the skill trace (:mod:`gouji_dsl.tools.skill`) of
    ``gouji simulate``, ``gouji diff --simulate`` and ``gouji sweep``."""
    f = click.option("--skill-bots", "skill_bots", default=None, metavar="STRONG,WEAK",
                     help=N_("The bots of the skill trace (default heuristic,random; e.g. ismcts,heuristic: far slower)."))(f)
    return click.option("--skill", "skill_deals", type=click.IntRange(min=1, max=100_000), default=None, metavar="N",
                        help=N_("Also measure the skill trace: the mean team-score gain of a stronger bot over a weaker "
                                "one on N deals (each twice, seats swapped; as gouji duel)."))(f)


def skill_of(graphs: list[Any], deals: int | None, bots: str | None, seed: Any, workers: int) -> list[Any] | None:
    """Each ruleset's skill trace (None without ``--skill``); a bad ``--skill-bots`` is a usage error."""
    if deals is None:
        if bots is not None:
            raise click.UsageError(_("--skill-bots goes with --skill N"))
        return None
    from gouji_dsl.tools import skill  # lazy: start-up
    try:
        pair = skill.parse_bots(bots)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--skill-bots'") from None
    return [skill.skill_trace(g, deals, seed, pair, workers) for g in graphs]


def _until(halfwidth: float | None, max_games: int | None, figure: str | None, games: int | None) -> Any:
    from gouji_dsl.tools.runs import Until  # lazy: start-up
    if halfwidth is None:
        if max_games is not None:
            raise click.UsageError(_("--max-games goes with --until-halfwidth"))
        if figure is not None:
            raise click.UsageError(_("--figure goes with --until-halfwidth"))
        return None
    top = max_games or games
    if top is None:
        raise click.UsageError(_("--until-halfwidth needs --max-games N (or a number of deals)"))
    return Until(halfwidth, top, figure)


@contextmanager
def progress_bar(description: str, total: int, games_per_deal: int, enabled: bool
                 ) -> Iterator[Callable[[int, int], None] | None]:
    """A Rich progress bar on stderr (deals done, games/s, time left) when ``enabled`` and stderr is
    a terminal; yields the ``progress(done, total)`` callback (or None)."""
    from rich.console import Console
    console = Console(stderr=True)
    if not (enabled and console.is_terminal):
        yield None
        return
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("deals"),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(shown_markup(description), total=total, rate="")
        t0 = time.monotonic()
        first: list[int] = []

        def progress(done: int, tot: int) -> None:
            if not first:
                first.append(done)  # deals already done (resumed) do not count in the speed
            dt = time.monotonic() - t0
            rate = (done - first[0]) * games_per_deal / dt if dt > 0 else 0.0
            bar.update(task, completed=done, total=tot, rate=_("{rate:,.0f} games/s").format(rate=rate) if rate else "")

        yield progress


def _interrupted(e: Any, out: str | None) -> None:
    done = getattr(e, "games_done", 0)
    written = getattr(e, "chunks_written", 0)
    if out:
        _err(_("interrupted after {done} deals; {written} chunk file(s) in {out}: run the same command with "
             "--resume to continue, or `gouji report {out}` to see what is there").format(done=done, written=written, out=out))
    else:
        _err(_("interrupted after {done} deals (nothing saved: --out DIR keeps finished chunks)").format(done=done))
    sys.exit(EXIT_INTERRUPTED)


def _stopped(e: Any, out: str | None) -> None:
    """One line for a run stopped by its surroundings (:class:`~gouji_dsl.tools.runspec.RunStopped`),
    then exit :data:`EXIT_RUN_STOPPED`."""
    done = getattr(e, "games_done", 0)
    written = getattr(e, "chunks_written", 0)
    when = f" {e.hint}" if getattr(e, "hint", "") else ""
    if out:
        _err(_("error: {e}; stopped after {done} deals: the {written} chunk file(s) in {out} are whole (nothing "
             "is damaged): run the same command with --resume to continue{when}").format(e=e, done=done, written=written, out=out, when=when))
    else:
        _err(_("error: {e}; stopped after {done} deals (nothing saved: with --out DIR the finished chunks are "
             "kept and --resume continues)").format(e=e, done=done))
    sys.exit(EXIT_RUN_STOPPED)


# ------------------------------------------------------------------------------ gouji diff --simulate
def paired_run(ga: Any, gb: Any, games: int, seed: str, bots: Any, workers: int, top: int, matches: bool,
               show_progress: bool, run: dict[str, Any]) -> Any:
    """The simulation of ``gouji diff A B --simulate N`` with the :func:`run_options` ``run``; exits
    with a message on interruption, a bad folder or a bad figure name."""
    from gouji_dsl.tools import paired  # lazy: start-up
    from gouji_dsl.tools.runfiles import RunError  # lazy: start-up
    from gouji_dsl.tools.runspec import RunStopped, SimulationCancelled  # lazy: start-up

    until = _until(run.get("halfwidth"), run.get("max_games"), run.get("figure"), games)
    total = until.max_games if until is not None else games
    if run.get("resume") and not run.get("out"):
        raise click.UsageError(_("--resume needs --out DIR"))
    if run.get("scheduler") and run.get("executor") not in (None, "dask"):
        raise click.UsageError(_("--scheduler goes with --executor dask"))
    executor = run.get("executor") or ("dask" if run.get("scheduler") else None)
    try:
        with progress_bar(_("{name} vs {name2}").format(name=ga.name, name2=gb.name), total, 2, show_progress) as progress:
            return paired.paired_simulation(
                ga, gb, total, seed, bots=bots, workers=workers, top=top, matches=matches, progress=progress,
                executor=executor, scheduler=run.get("scheduler"), chunk_size=run.get("chunk_size"),
                out=run.get("out"), resume=bool(run.get("resume")), until=until,
                engine=run.get("engine") or "native")
    except SimulationCancelled as e:
        _interrupted(e, run.get("out"))
    except RunStopped as e:
        _stopped(e, run.get("out"))
    except RunError as e:
        _err(_("error: {e}").format(e=e))
        sys.exit(EXIT_BAD_INPUT)
    except KeyError as e:
        _err(_("error: unknown figure {e!r} (figures: {join})").format(e=e.args[0], join=', '.join(paired.figure_names(ga.n_seats))))
        sys.exit(EXIT_BAD_INPUT)


# ------------------------------------------------------------------------------ gouji simulate
def _design_text(console: Any, summary: dict[str, Any], ci: Callable[..., str]) -> None:
    """The design metrics of ``gouji simulate`` (README: Design metrics), with the deals they come from."""
    from gouji_dsl.tools.paired import design_note  # lazy: start-up
    iv = summary.get("intervals") or {}
    if "real_choice_share" not in iv:
        return
    seats = [k for k in iv if k.startswith("seat_score.")]
    pairs = [f"{k.split('.')[1]}: {iv[k]['value']:+.2f}" for k in seats]
    console.print(_("seat advantage:   ") + " ".join(pairs) + _("  (mean score by seat)"), keep=tuple(pairs))
    if "first_leader_team_score" in iv:
        console.print(_("first leader:     {v:+.2f}{ci}  (the first leader's team's mean score)").format(
            v=iv["first_leader_team_score"]["value"], ci=ci("first_leader_team_score")))
    n = iv["real_choice_share"]["n"]
    for key, label, percent in (("real_choice_share", _("real choice:      {v}{ci}  (decisions with more than one legal move)"), True),
                                ("lead_changes", _("lead changes:     {v}{ci}  (per game)"), False),
                                ("settled_at", _("settled after:    {v}{ci}  (share of the tricks before first place is settled)"), True)):
        v = iv[key]["value"]
        shown_v = "n/a" if v is None or v != v else (f"{v:.1%}" if percent else f"{v:.2f}")
        console.print(label.format(v=shown_v, ci=ci(key, percent)))
    console.print("[dim]" + shown_markup(design_note(n, summary["games"])) + "[/dim]")


_PLACE_COLUMN = 10

#: the column the values of the summary's Chinese lines start at (标签：value), after the longest label
_VALUE_COLUMN = 18
_STYLED = re.compile(r"^\[([a-z]+)\](.*)\[/\1\]$", re.S)
_LABEL = re.compile(r"^([^\s：（\[]{1,12}：)\s*(?=[\s\d+\-])")
_ANY_LABEL = re.compile(r"^([^\s：（\[]{1,12}：)\s*")
"""A label before words (联邦的平均分：联邦 1 …), where the caller says the line is labelled."""


class _Laid:
    """The summary's console, its Chinese lines laid out as Chinese is set (:mod:`~gouji_dsl.tools.textlayout`):
    a value after its label (``分差：``) in one column, a line broken between characters but never inside
    a number and its measure word (``20 局``) or a word of the game (``keep``: the ruleset's words);
    other lines and tables as the console prints them."""

    def __init__(self, console: Any, keep: tuple[str, ...] = (), words: Any = None):
        self.console, self.keep, self.words = console, keep, words

    def print(self, text: Any = "", *args: Any, keep: tuple[str, ...] = (), labelled: bool = False, **options: Any) -> None:
        """Print ``text``; ``keep``: more pieces of it no line break may cut (a list of seats);
        ``labelled``: the line is a label and its value even where the value starts with words."""
        if isinstance(text, str) and self.words is not None:
            text = self.words.own(text)  # the summary's own words in the ruleset's words of the game (火牌率)
        if args or not isinstance(text, str) or "\n" in text or display_width(text) == len(text):
            self.console.print(text, *args, **options)
            return
        tag = _STYLED.match(text)  # [dim]…[/dim]: each line styled
        if tag:
            text, options = tag.group(2), {**options, "style": tag.group(1)}
        if re.search(r"\[/?[a-z]", text):  # markup inside: as the console prints it
            self.console.print(text, **options)
            return
        text = cjk_spaced(text)  # (no space beside a full-width bracket: "1.2 秒（每秒 …）")
        m = (_ANY_LABEL if labelled else _LABEL).match(text)
        first = rest = ""
        if m:
            label = m.group(1)
            indent = max(_VALUE_COLUMN, display_width(label) + 1)
            first, rest, text = label + " " * (indent - display_width(label)), " " * indent, text[m.end():]
        from gouji_dsl.tools import textlayout  # lazy: start-up
        for line in textlayout.wrap(text, max(self.console.width, 40), first, rest, self.keep + keep):
            self.console.print(line, soft_wrap=True, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


def _kept_words(words: Any) -> tuple[str, ...]:
    """The ruleset's words of the game (places, terms, cards) in the active language: never cut."""
    if words is None:
        return ()
    return tuple(words.unbroken())
"""The widest place word the summary's table takes as a column header."""


def _engine_text(console: Any, summary: dict[str, Any]) -> None:
    """Who played (a run's own summary: why not the native core, its timing line names the engine;
    ``gouji report``: the engine the folder's chunks recorded, :func:`~gouji_dsl.tools.played.report_line`)."""
    if summary.get("executor") == "report":
        console.print(shown_markup(report_line(summary)))
        return
    why = why_not_native(summary)
    if why is not None and not fell_back(summary):  # (the engine that played, and why not the native core)
        console.print(f"[dim]{shown_markup(why)}[/dim]")
    if summary.get("games_replayed"):
        console.print(_("[dim]{replayed} of {games} games left to Python by the native core, played there from their "
                        "seeds[/dim]").format(replayed=summary['games_replayed'], games=summary.get('games')))
    if why is not None and fell_back(summary):
        console.print(f"[yellow]{shown_markup(why)}[/yellow]")


def _place_table(console: Any, summary: dict[str, Any], words: Any) -> None:
    """The place distribution by seat (share of games), headed by the ruleset's place names where they fit."""
    from rich.table import Table

    dist: dict[str, dict[str, float]] = summary.get("place_distribution") or {}
    places = sorted({p for row in dist.values() for p in row}, key=int)
    table = Table(title=_("place distribution by seat (share of games)"), title_justify="left")
    table.add_column(_("seat"), justify="right")
    named = {p: words.place(int(p)) for p in places} if words is not None else {}
    if any(display_width(w) > _PLACE_COLUMN for w in named.values()):
        named = {}  # (the ruleset's words as headers where they fit a column: 头科, not "first out (头科)")
    for p in places:
        table.add_column(named[p] if named else _("place {p}").format(p=p), justify="right")
    for seat in sorted(dist, key=int):
        table.add_row(seat, *(f"{dist[seat].get(p, 0.0):.1%}" for p in places))
    console.print(table)


def _team_line(console: Any, summary: dict[str, Any]) -> None:
    """The mean score of each team, with its seats."""
    from gouji_dsl.tools.figures import team_of  # lazy: start-up

    teams = summary.get("team_score_mean") or {}
    n_seats = len(summary.get("place_distribution") or {})

    def members(t: str) -> str:  # seats 1, 3, 5 (seed 001: ①③⑤为一方联邦)
        return ", ".join(str(s) for s in range(1, n_seats + 1) if team_of(s, len(teams)) == int(t))
    each = [_("team {t} (seats {seats}) {v:+.2f}").format(t=t, seats=members(t), v=v) for t, v in teams.items()]
    console.print(_("mean team score:  ") + _("; ").join(each), keep=tuple(cjk_spaced(x) for x in each),  # (a team is not cut)
                  labelled=True)


def _stopping_text(console: Any, summary: dict[str, Any], games: int) -> None:
    """Why the run stopped where it did: the precision reached (--until-*) or the interval narrow enough."""
    if summary.get("until"):
        from gouji_dsl.tools.paired import precision_text  # lazy: start-up
        line = precision_text(summary["until"], games, _("games"))
        console.print(shown_markup(line) if summary["until"].get("reached") else f"[yellow]{shown_markup(line)}[/yellow]")
    elif summary.get("stopped_by") == "halfwidth":
        console.print(_("stopped when the interval was narrow enough (--until-halfwidth)"))


def _progress_text(console: Any, summary: dict[str, Any]) -> None:
    """Games read back (--resume), a run still writing, and the chunks missing."""
    if summary.get("resumed_games"):
        console.print(_("resumed:          {summary} games read back from the output folder").format(summary=summary['resumed_games']))
    progress = summary.get("in_progress")
    if progress and summary.get("missing"):
        console.print(_("[yellow]still in progress (a run is writing {shown_markup}; report again "
                      "when it is done)[/yellow]").format(shown_markup=shown_markup(', '.join(progress))))
    for gap in summary.get("missing") or []:
        what = _("not played yet") if progress else _("missing chunks (an interrupted run: --resume plays them)")
        console.print(_("[yellow]{what}: {shown_markup}[/yellow]").format(what=what, shown_markup=shown_markup(gap)))


def _summary_text(summary: dict[str, Any], bots: str, words: Any = None) -> None:
    """The summary on the terminal; ``words`` (:class:`~gouji_dsl.ruleset.words.GameWords`) names the
    places as the ruleset does (头科 … 大落), else they are numbered."""
    from gouji_dsl.tools.stats import Estimate  # lazy: start-up

    console = _Laid(stdout_console(highlight=False), _kept_words(words), words)
    games = summary["games"]
    console.print(_("[bold]{ruleset}[/bold]: {games} games, seed {seed}, {bots} bots").format(
        ruleset=shown_markup(summary['ruleset']), games=games, seed=shown_markup(summary['seed']), bots=shown_markup(bots)))
    iv = summary.get("intervals") or {}

    def ci(key: str, percent: bool = False) -> str:
        d = iv.get(key)
        if not d or d.get("low") is None:
            return ""
        e = Estimate(d["value"], d["low"], d["high"], d["n"])
        return "  95% " + (f"[{e.low:.1%}, {e.high:.1%}]" if percent else f"[{e.low:.2f}, {e.high:.2f}]")

    console.print(_("mean decisions per game: {summary:.1f}{ci}").format(summary=summary['mean_decisions'], ci=ci('decisions')))
    console.print(_("mean tricks per game:    {summary:.1f}{ci}").format(summary=summary['mean_tricks'], ci=ci('tricks')))

    _place_table(console, summary, words)
    _team_line(console, summary)
    if "score_spread" in iv:
        console.print(_("score spread:     {iv:.2f}{ci}  "
                      "(between the teams' scores)").format(iv=iv['score_spread']['value'], ci=ci('score_spread')))
    console.print(_("sweep rate:       {summary:.1%}{ci}").format(summary=summary['sweep_rate'], ci=ci('sweep_rate', True)))
    console.print(_("burn rate:        {summary:.1%}{ci}  (games with at least one burn)").format(
        summary=summary['burn_rate'], ci=ci('burn_rate', True)))
    console.print(_("revolution rate:  {summary:.1%}{ci}  "
                  "(games with at least one revolution)").format(summary=summary['revolution_rate'], ci=ci('revolution_rate', True)))
    _design_text(console, summary, ci)
    _stopping_text(console, summary, games)
    _progress_text(console, summary)
    gps = summary.get("games_per_s")
    if summary.get("elapsed_s"):
        console.print(_("elapsed:          {summary:.3f} s").format(summary=summary['elapsed_s'])
                      + shown_markup(_("  ({gps:.1f} games/s, {executor}, {workers} worker(s){engine})").format(
                          gps=gps, executor=said_kind(summary.get('executor')), workers=summary.get('workers'),
                          engine=_(", {engine} engine").format(engine=engine_name(summary))
                          if engine_name(summary) else '')
                                     if gps is not None else ""))
    _engine_text(console, summary)
    console.print("[dim]95% " + _("intervals: means cluster-robust by match, rates Wilson (see README: Statistics)") + "[/dim]")


def _refuse_run_options(run: dict[str, Any]) -> None:
    """A usage error for run options that need another (--resume needs --out; --scheduler, dask)."""
    if run.get("resume") and not run.get("out"):
        raise click.UsageError(_("--resume needs --out DIR"))
    if run.get("scheduler") and run.get("executor") not in (None, "dask"):
        raise click.UsageError(_("--scheduler goes with --executor dask"))


def _simulate_or_exit(graph: Any, ruleset: str, total: int, seed: str, seats: Any, workers: int, until: Any,
                      show_progress: bool, run: dict[str, Any]) -> dict[str, Any]:
    """The summary of the run (a progress bar on a terminal); a run stopped, cancelled or failed is
    said in one line and exits (never a traceback)."""
    from gouji_dsl.tools.runfiles import RunError  # lazy: start-up
    from gouji_dsl.tools.runspec import RunStopped, SimulationCancelled  # lazy: start-up
    from gouji_dsl.tools.single import figure_names, run_simulation  # lazy: start-up

    executor = run.get("executor") or ("dask" if run.get("scheduler") else None)
    try:
        with progress_bar(graph.name, total, 1, show_progress and sys.stdout.isatty()) as progress:
            summary = run_simulation(graph, total, seed_value(seed), seats, executor=executor, workers=workers,
                                     engine=run.get("engine") or "native", chunk_size=run.get("chunk_size"),
                                     out=run.get("out"), resume=bool(run.get("resume")),
                                     scheduler=run.get("scheduler"), until=until, progress=progress)
    except SimulationCancelled as e:
        _interrupted(e, run.get("out"))
    except RunStopped as e:
        _stopped(e, run.get("out"))
    except RunError as e:
        _err(_("error: {e}").format(e=e))
        sys.exit(EXIT_BAD_INPUT)
    except KeyError as e:
        _err(_("error: unknown figure {e!r} (figures: {join})").format(e=e.args[0], join=', '.join(figure_names(graph))))
        sys.exit(EXIT_BAD_INPUT)
    except GoujiError as e:
        for d in e.diagnostics:
            _err(d.format())
        sys.exit(EXIT_BAD_INPUT)
    except (RuntimeError, ValueError, TypeError, ZeroDivisionError) as e:
        # A ruleset that compiles may still be unplayable (no legal move, a setting of the wrong type
        # read at run time): say so in one line rather than with a traceback.
        _err(_("{ruleset}: simulation failed: {type}: {e}").format(ruleset=ruleset, type=type(e).__name__, e=e))
        sys.exit(EXIT_INTERNAL)
    return summary


@click.command("simulate")
@click.argument("ruleset")
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=100, show_default=True,
              help=N_("Number of games to play."))
@click.option("--seed", "-s", type=SEED, default="1", show_default=True,
              help=N_("Seed of the run; game i deals from seed:i (same seed, same games)."))
@click.option("--bots", type=BotsType(), default="random", show_default=True, help=bots_help())
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help=N_("Worker processes (local pool or local Dask cluster); the result does not depend on it."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the summary as JSON (no progress bar)."))
@set_option
@skill_options
@run_options
def simulate_command(ruleset: str, games: int, seed: str, bots: str, workers: int, as_json: bool,
                     overrides: tuple[str, ...] = (), skill_deals: int | None = None, skill_bots: str | None = None,
                     **run: Any) -> None:
    """Play GAMES seeded games of RULESET with bots and summarise them.

    The summary gives games, mean decisions and tricks per game, the place distribution by seat, mean
    team scores, sweep / burn / revolution rates, each with its interval at 95%, elapsed seconds and games
    per second. Runs are chunked: --out DIR keeps every finished chunk (Ctrl+C, then --resume).
    """
    graph = load_graph_or_exit(ruleset, overrides)
    try:
        seats = runner_bots(bots, graph.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--bots'") from None
    until = _until(run.get("halfwidth"), run.get("max_games"), run.get("figure"), games)
    _refuse_run_options(run)
    total = until.max_games if until is not None else games
    summary = _simulate_or_exit(graph, ruleset, total, seed, seats, workers, until, not as_json, run)
    skills = skill_of([graph], skill_deals, skill_bots, seed_value(seed), workers)
    if skills:
        summary["skill"] = skills[0].to_dict()
    if as_json:
        echo_json(json.dumps({**summary, "bots": seats}, ensure_ascii=False, indent=2))
    else:
        from gouji_dsl.tools.skill import skill_lines  # lazy: start-up
        _summary_text(summary, bots, game_words(graph.resolved))
        for line in skill_lines([graph.name], skills or [None]):
            echo(line)


# ------------------------------------------------------------------------------ gouji report
@click.command("report")
@click.argument("folders", nargs=-1, required=True, type=SafePath(exists=True, file_okay=False), metavar="DIR...")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help=N_("Output format."))
def report_command(folders: tuple[str, ...], fmt: str) -> None:
    """Merge the chunk files of one or more run folders (written with --out, on any machine) into one
    report: the same report a single run over all their deals gives.

    Folders must be runs of the same comparison (the same rulesets by content, bots and matches);
    their seeds may differ (the deals of every seed are added). A chunk found in two folders counts
    once. Gaps (an interrupted run) are listed.

    \b
    Examples:
      gouji diff online rulebook --simulate 20000 --out run1
      gouji report run1
      gouji report machine1/run machine2/run --format json
    """
    from gouji_dsl.tools.runfiles import RunError  # lazy: start-up
    from gouji_dsl.tools.runfolders import load_runs  # lazy: start-up

    try:
        merged = load_runs(list(folders))
    except RunError as e:
        _err(_("error: {e}").format(e=e))
        sys.exit(EXIT_BAD_INPUT)
    spec = merged.spec
    seed = merged.seeds[0] if len(merged.seeds) == 1 else merged.seeds
    names = [r.get("name", "?") for r in spec.get("rulesets", [])]
    if merged.kind == RunKind.SINGLE:
        from gouji_dsl.tools.single import summarize_totals  # lazy: start-up
        summary = summarize_totals(names[0], merged.totals, seed, 0.0, executor="report", workers=0,
                                   missing=merged.missing)
        summary.pop("elapsed_s")
        summary.pop("games_per_s")
        summary["folders"] = merged.folders
        if merged.in_progress:
            summary["in_progress"] = merged.in_progress
        if merged.stopped_by != "games":
            summary["stopped_by"] = merged.stopped_by
        if merged.until is not None:
            summary["until"] = merged.until
        summary.update(merged.engines[0] if merged.engines else {})
        if fmt == "json":
            echo_json(json.dumps(summary, ensure_ascii=False, indent=2))
        else:
            bots = spec.get("bots")
            _summary_text(summary, bots if isinstance(bots, str) else ",".join(bots or []))
        return
    if merged.kind == RunKind.SWEEP:
        _sweep_report(merged, fmt)
        return
    from gouji_dsl.tools import paired  # lazy: start-up
    from gouji_dsl.tools.figures import PairTotals  # lazy: start-up
    assert isinstance(merged.totals, PairTotals)
    paths = [str(r.get("path", "")) for r in spec["rulesets"]]
    lengths = [int(x) for x in spec.get("match_length", (1, 1))]
    report = paired.build_report(
        merged.totals, names=(names[0], names[1]), paths=(paths[0], paths[1]), seed=seed, bots=spec.get("bots"),
        match_lengths=(lengths[0], lengths[1]), same_deck=bool(spec.get("same_deck", True)),
        missing=merged.missing, executor="report", stopped_by=merged.stopped_by)
    report.precision = merged.until
    report.in_progress = merged.in_progress
    report.engines = dict(zip(("a", "b"), merged.engines))
    if fmt == "json":
        data = report.to_dict(timing=False)
        data["folders"] = merged.folders
        data["engine"] = report.engines
        echo_json(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2, default=str))
    elif fmt == "markdown":
        echo(paired.report_markdown(report), nl=False)
    else:
        echo(paired.report_text(report, text_width()), nl=False)


def _sweep_report(merged: Any, fmt: str) -> None:
    """``gouji report`` of a sweep's folder(s): the sweep's table (:mod:`gouji_dsl.tools.sweep`)."""
    from gouji_dsl.tools import sweep  # lazy: start-up
    from gouji_dsl.tools.runfiles import RunError  # lazy: start-up
    try:
        report = sweep.report_of_runs(merged)
    except RunError as e:  # (a points file that disagrees with the chunks)
        _err(_("error: {e}").format(e=e))
        sys.exit(EXIT_BAD_INPUT)
    if fmt == "json":
        data = report.to_dict(timing=False)
        data["folders"] = merged.folders
        data["engine"] = dict(report.engines)
        echo_json(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2, default=str))
    elif fmt == "markdown":
        echo(sweep.report_markdown(report), nl=False)
    else:
        echo(sweep.report_text(report, text_width()), nl=False)
