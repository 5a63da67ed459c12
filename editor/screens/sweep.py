"""The sweep screen (扫参): a grid of settings of one ruleset played on the same deals, figure by figure.

``SweepScreen(workspace, source)`` runs ``gouji sweep`` from the app: up to :data:`GRIDS` grid lines,
each ``KEY=V1,V2,...`` as ``--grid`` takes it (:func:`gouji_dsl.tools.sweep.parse_grids`; a problem
is shown with its position at ``--grid[N]``, as the command prints it), the number of deals, seed and
bots; F5 plays every point against the ruleset on the same deals (:func:`~gouji_dsl.tools.sweep.run_sweep`)
in a thread worker, Escape cancels. ``o`` opens a saved run folder (``gouji sweep … --out DIR``, read as
``gouji report DIR`` reads it). The result: one table (a row per figure, a column per point, Holm's
marks) and a chart of one figure per point (pick it with the figure list).

The screen only wires widgets to the sweep module; the table and chart are
:mod:`editor.widgets.sweep_view`. Entry points: ``w`` on the compare screen (ruleset B) and on the
home screen (the highlighted ruleset).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, ProgressBar, Select, Static

from gouji_dsl.bots import runner_bots
from gouji_dsl.diagnostics import GoujiError, printable
from gouji_dsl.tools import sweep
from gouji_dsl.tools.exits import seed_value
from gouji_dsl.tools.runkinds import MAX_SWEEP_POINTS
from gouji_dsl.tools.runs import RunError

from ..i18n import N_, _, chinese, spaced
from ..widgets.background import ENDED, BackgroundRun, Outcome, RunsInBackground, ended_status
from ..widgets.footer import FittingFooter
from ..widgets.header import Header
from ..widgets.sweep_view import SweepChart, figures, legend, significant_count, sweep_table
from ..workspace import Workspace, display_path
from .compare import (
    DEFAULT_BOTS,
    DEFAULT_SEED,
    NARROW,
    POOL_FROM,
    SHORT,
    RulesetPickerScreen,
    RulesetSource,
    bot_options,
    start_resource_tracker,
    workspace_sources,
)

GRIDS = 3                 # grid lines on the screen (the command takes any number)
DEFAULT_GAMES = 200
MAX_APP_GAMES = 200_000   # deals × (points + 1) one sweep of the app plays at most (bounded: minutes, not hours)
DEFAULT_FIGURE = "score_spread"


class FolderScreen(ModalScreen[str | None]):
    """Ask for a run folder (``gouji sweep … --out DIR``); dismisses with its path, or None."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog sweep-folder") as box:
            box.border_title = _("Open a sweep's run folder")
            yield Input(placeholder=_("folder written by gouji sweep … --out DIR"), id="sweep-folder-input", compact=True)
            yield Static(_("The folder is read as gouji report reads it (an interrupted run shows its missing chunks)."),
                         classes="dialog-detail")
            yield Label(_("[b]enter[/b] open  [b]esc[/b] cancel"), classes="dialog-keys")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SweepScreen(RunsInBackground, Screen[None]):
    """A sweep of one ruleset's settings (see the module docstring)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]   # narrow: no "Open run" button (o still opens)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]       # short: no app header, no blank lines

    BINDINGS = [
        Binding("f5", "run", N_("Sweep"), tooltip=N_("Play every point of the grid and the ruleset on the same deals")),
        Binding("escape", "cancel", N_("Cancel"), tooltip=N_("Stop the sweep")),
        Binding("escape,ctrl+b", "close", N_("Close"), tooltip=N_("Back to where you came from")),
        Binding("o", "open_folder", N_("Open run"), tooltip=N_("Show a sweep's saved run folder (gouji sweep --out DIR)")),
        Binding("r", "pick", N_("Ruleset"), tooltip=N_("Choose the ruleset to sweep")),
        Binding("f1", "app.help", N_("Help"), show=False, tooltip=N_("The ruleset language, with examples")),
    ]

    def __init__(self, workspace: Workspace, source: RulesetSource | None, *, grids: tuple[str, ...] = (),
                 games: int = DEFAULT_GAMES, seed: str = DEFAULT_SEED, bots: str = DEFAULT_BOTS,
                 folder: str | None = None, run: bool = False, workers: int | None = None) -> None:
        super().__init__(classes="sweep-screen")
        self.workspace = workspace
        self.source = source
        self.initial = (tuple(grids)[:GRIDS], games, seed, bots)
        self.open_on_mount = folder
        self.run_on_mount = run
        self.sweep_workers = workers
        self.report: sweep.SweepReport | None = None
        self.state = "idle"   # idle | running | cancelling | cancelled | done | failed | problems
        self.background = BackgroundRun(self, "sweep-run", self._finished, self._progress)  # a sweep, or a folder read
        self.reading: str | None = None  # the run folder being read (or shown)
        self._given: list[Input] = []      # the fields of --grid[1], [2], ... of the last F5
        self._typed_in: Input | None = None  # the field F5 was pressed in
        self.checking = False  # a sweep started, its points not yet loaded (no deal played)

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        grids, games, seed, bots = self.initial
        yield Header()
        yield Static("", id="sweep-title")
        with Vertical(id="sweep-form"):
            for i in range(1, GRIDS + 1):
                with Horizontal(classes="sweep-grid-row"):
                    yield Label(f"--grid[{i}]", classes="sim-label")
                    yield Input(grids[i - 1] if i <= len(grids) else "", id=f"sweep-grid-{i}", compact=True,
                                placeholder=_("KEY=V1,V2,...  e.g. gouji_minimum.2=1,2") if i == 1 else "")
            with Horizontal(id="sweep-controls"):
                yield Label(_("Deals"), classes="sim-label")
                yield Input(str(games), id="sweep-games", type="integer", compact=True, max_length=6)
                yield Label(_("Seed"), classes="sim-label")
                yield Input(str(seed), id="sweep-seed", compact=True)
                yield Label(_("Bots"), classes="sim-label")
                yield Select(bot_options(bots), value=bots, allow_blank=False, id="sweep-bots", compact=True)
                yield Button(_("Sweep F5"), id="sweep-run", compact=True, variant="primary")
                yield Button(_("Open run o"), id="sweep-open", compact=True)
        yield Static("", id="sweep-problems")
        with Horizontal(id="sweep-progress-row"):
            yield ProgressBar(id="sweep-progress", show_eta=False)
            yield Static("", id="sweep-status")
        with ScrollableContainer(id="sweep-results"):  # both ways: the table at its natural width (← → at 80 columns)
            yield Static("", id="sweep-note")
            yield Static("", id="sweep-legend")
            yield Static("", id="sweep-table")
            yield Select([], id="sweep-figure", allow_blank=True, compact=True, prompt=_("figure to chart"))
            yield SweepChart(id="sweep-chart")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.sub_title = _("settings sweep")
        self.query_one("#sweep-progress", ProgressBar).display = False
        self.query_one("#sweep-problems").display = False
        self.query_one("#sweep-figure").display = False
        self._show_title()
        self._show_status()
        # a grid to type, or (given one) the results: their keys (F5, o, r) work there, not in a field
        self.query_one("#sweep-results" if self.initial[0] else "#sweep-grid-1").focus()
        if self.open_on_mount:
            self._open(self.open_on_mount)
        elif self.run_on_mount:
            self.action_run()

    def _show_title(self, folder: str | None = None) -> None:
        t = Text()
        if folder is not None:
            t.append(_("Saved run") + " ", style="bold reverse cyan")
            t.append(f" {display_path(folder)}", style="bold")
        elif self.source is None:
            t.append(_("No ruleset: r picks one, o opens a saved run."), style="yellow")
        else:
            zh = chinese()
            t.append(_("Sweep of") + ("" if zh else " "), style="bold reverse cyan")
            t.append(f" {self.source.label}" + ("" if zh else " "), style="bold")
            t.append(f"（{self.source.where}）" if zh else f"({self.source.where})", style="dim")
        self.query_one("#sweep-title", Static).update(t)

    # -------------------------------------------------------------- keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "close":
            return not self.running
        if action in ("run", "open_folder", "pick"):
            return True if not self.running else None
        return True

    def action_close(self) -> None:
        if isinstance(self.focused, (Input, Select)):
            self.query_one("#sweep-results").focus()  # Escape leaves the field first
            return
        self.dismiss(None)

    def action_cancel(self) -> None:
        if self.background.cancel():
            self.state = "cancelling"
            self._show_status()

    def on_unmount(self) -> None:
        self.background.stop()

    def interrupted_note(self) -> str | None:
        """(SIGTERM: :meth:`editor.terminal_keys.XtermKeysApp.interrupted_notes`) what closing cost."""
        return _("the running sweep was stopped") if self.running else None

    def action_pick(self) -> None:
        if self.running:
            return
        current = self.source.key if self.source is not None else None

        def chosen(src: RulesetSource | None) -> None:
            if src is not None:
                self.source = src
                self._show_title()
        self.app.push_screen(RulesetPickerScreen(workspace_sources(self.workspace), _("Ruleset to sweep"),
                                                 current=current), chosen)

    @on(Button.Pressed, "#sweep-run")
    def _run_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_run()

    @on(Button.Pressed, "#sweep-open")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_folder()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    @on(Select.Changed, "#sweep-figure")
    def _figure(self, event: Select.Changed) -> None:
        if event.value != Select.NULL:
            self.query_one(SweepChart).show(self.report, str(event.value))

    # -------------------------------------------------------------- running a sweep
    def grid_texts(self) -> list[str]:
        """The grid lines given (empty lines skipped; numbered as ``--grid[N]`` in the order given)."""
        return [text for _field, text in self._grid_lines()]

    def _grid_lines(self) -> list[tuple[Input, str]]:
        """The fields given a grid line, each with its line (``--grid[N]`` is the N-th of them)."""
        fields = [self.query_one(f"#sweep-grid-{i}", Input) for i in range(1, GRIDS + 1)]
        return [(f, f.value.strip()) for f in fields if f.value.strip()]

    def _focus_problem(self, error: Exception | None) -> None:
        """Put the cursor where the first problem at a ``--grid[N]`` is (its field, its column), so
        the fix is typed there (and not taken for the screen's keys: o, r); a problem elsewhere (the
        ruleset's own file): back to the field F5 was pressed in."""
        for d in getattr(error, "diagnostics", ()):
            m = re.fullmatch(re.escape(sweep.OPTION) + r"\[(\d+)\]", d.path)
            if m and 1 <= int(m.group(1)) <= len(self._given):
                field = self._given[int(m.group(1)) - 1]
                at = max(d.col - 1, 0) if d.col else len(field.value)
                self.set_focus(field)  # (now: the field's Focus, which selects its text, is handled before the cursor is put)
                field.call_later(setattr, field, "cursor_position", at)
                return
        if self._typed_in is not None and self._typed_in.is_attached:
            self._typed_in.focus()

    def _problems(self, text: str | None) -> None:
        box = self.query_one("#sweep-problems", Static)
        box.update(Text(text or "", style="red"))
        box.display = bool(text)

    def action_run(self) -> None:
        if self.running:
            return
        src = self.source
        if src is None:
            self.notify(_("Choose a ruleset first (r)."), title=_("Sweep"), severity="warning")
            return
        if src.unsaved:
            self.notify(_("Save {name} first: a sweep reads the ruleset's file.").format(name=src.name),
                        title=_("Sweep"), severity="warning")
            return
        lines = self._grid_lines()
        texts = [text for _field, text in lines]
        self._given = [field for field, _text in lines]
        self._typed_in = self.focused if isinstance(self.focused, Input) else None
        if not texts:
            self._problems(_("Give at least one grid line: KEY=V1,V2,... (as gouji sweep --grid takes it)."))
            self.query_one("#sweep-grid-1", Input).focus()
            return
        try:
            grids = sweep.parse_grids(texts)
        except GoujiError as e:
            self.state = "problems"
            self._problems(e.format())
            self._show_status()
            self._focus_problem(e)
            return
        try:
            games = int(self.query_one("#sweep-games", Input).value.strip())
        except ValueError:
            games = 0
        n_points = len(sweep.points(grids))
        most = MAX_APP_GAMES // (n_points + 1)
        if not 1 <= games <= most:
            self._problems(_("Deals: a whole number from 1 to {most} for {n} points (the app plays at most {total} "
                             "games in one sweep; gouji sweep plays more).").format(most=most, n=n_points, total=MAX_APP_GAMES))
            self.query_one("#sweep-games", Input).focus()
            return
        self._problems(None)
        seed = self.query_one("#sweep-seed", Input).value.strip() or DEFAULT_SEED
        bots = self.query_one("#sweep-bots", Select).value
        bots_text = str(bots) if bots != Select.NULL else DEFAULT_BOTS
        workers = self.sweep_workers or (1 if games < POOL_FROM else max(1, min(os.cpu_count() or 1, 4)))
        if workers > 1:
            start_resource_tracker()
        self.state = "running"
        self.reading = None
        self.report = None
        self._show_report()
        search = list(self.workspace.search)

        def job(progress: Any, cancel: Any) -> sweep.SweepReport:
            base = src.compile(src.resolve(search))
            graphs = sweep.load_points(src.path, grids, search)
            labels = [sweep.point_label(p) for p in sweep.points(grids)]
            return sweep.run_sweep(base, graphs, labels, texts, games, seed_value(seed),
                                   runner_bots(bots_text, base.n_seats), workers=workers, progress=progress, cancel=cancel)
        self.background.start(job)
        bar = self.query_one("#sweep-progress", ProgressBar)
        bar.update(total=games, progress=0)
        bar.display = False  # (shown from the first deals played: a grid the points refuse shows its problem, no 0 %)
        self.checking = True
        self.query_one("#sweep-results").focus()  # Escape cancels
        self._show_title()
        self._show_status(games)
        self.refresh_bindings()

    def _progress(self, done: int, total: int) -> None:
        self.checking = False
        bar = self.query_one("#sweep-progress", ProgressBar)
        bar.update(total=total, progress=done)
        bar.display = True
        self._show_status(total)

    def _finished(self, state: str, payload: Any) -> None:
        self.state = state
        self.checking = False
        self.refresh_bindings()
        if state == "done":
            self.report = payload
            self.query_one("#sweep-progress", ProgressBar).update(total=payload.games, progress=payload.games)
            if self.reading is not None:
                self._fill_from(payload)
        elif state == "problems":
            self._problems(str(payload))
            self._focus_problem(self.background.error)
        elif state == "failed":
            self.notify(printable(str(payload)), title=_("Sweep failed"), severity="error", timeout=10, markup=False)
        self.query_one("#sweep-progress", ProgressBar).display = state == "done"
        self._show_status(error=payload if state == "failed" else None)
        self._show_report()
        if state == "done" and self.reading is not None:
            self._show_title(self.reading)

    def _fill_from(self, r: sweep.SweepReport) -> None:
        """The form shows what an opened run was: its grid lines, deals, seed and (if offered) bots."""
        for i in range(1, GRIDS + 1):
            self.query_one(f"#sweep-grid-{i}", Input).value = r.grids[i - 1] if i <= len(r.grids) else ""
        self.query_one("#sweep-games", Input).value = str(r.games)
        self.query_one("#sweep-seed", Input).value = str(r.seed)
        bots = self.query_one("#sweep-bots", Select)
        said = r.bots if isinstance(r.bots, str) else ",".join(r.bots)
        if any(value == said for _label, value in bot_options(said)):
            with bots.prevent(Select.Changed):
                bots.set_options(bot_options(said))
                bots.value = said

    # -------------------------------------------------------------- a saved run
    def action_open_folder(self) -> None:
        if self.running:
            return

        def chosen(path: str | None) -> None:
            if path:
                self._open(path)
        self.app.push_screen(FolderScreen(classes="dialog-screen"), chosen)

    def _open(self, folder: str) -> None:
        def read(progress: Any, cancel: Any) -> sweep.SweepReport:
            return sweep.load_report([Path(folder)])

        def unread(e: Exception) -> Outcome:
            if isinstance(e, RunError):
                return "problems", str(e)
            if isinstance(e, OSError):
                return "problems", f"{folder}: {e.strerror or e}"
            return "failed", f"{type(e).__name__}: {e}"

        self.reading = folder
        self._given, self._typed_in = [], None  # (a folder's problem names no field)
        self.background.start(read, unread)
        self.state = "reading"
        self.report = None
        self._problems(None)
        self._show_report()
        self._show_status()
        self.refresh_bindings()

    # -------------------------------------------------------------- showing it
    def _show_status(self, games: int | None = None, error: str | None = None) -> None:
        t = Text()
        state = self.state
        if state == "idle":
            t.append(spaced(_("F5 plays every point of the grid and the ruleset on the same deals.")), style="bold")
            t.append(_("At most {n} points; o opens a saved run.").format(n=MAX_SWEEP_POINTS), style="dim")
        elif state == "running" and self.checking:
            t.append(_("checking the grid's points…") + " ", style="bold")
            t.append(_("Esc cancels"), style="dim")
        elif state == "running":
            t.append(_("{done}/{games} deals…").format(done=self.progress_done, games=games or "?") + " ", style="bold")
            t.append(_("Esc cancels"), style="dim")
        elif state == "reading":
            t.append(_("reading the run folder…"), style="bold")
        elif state in ENDED:
            ended_status(t, state, self.progress_done, error, _("the sweep failed"))
        elif state == "problems":
            t.append("✗ " + _("see the problems above"), style="bold red")
        elif state == "done" and self.report is not None:
            r = self.report
            bots = r.bots if isinstance(r.bots, str) else ",".join(r.bots)
            t.append("✓ " + _("{points} points × {games} deals").format(points=len(r.labels), games=r.games), style="bold green")
            t.append(_(", seed {seed}, {bots} bots").format(seed=r.seed, bots=bots))
        self.query_one("#sweep-status", Static).update(t)

    def _show_report(self) -> None:
        r = self.report
        chart = self.query_one(SweepChart)
        select = self.query_one("#sweep-figure", Select)
        for box in ("#sweep-note", "#sweep-legend", "#sweep-table"):
            self.query_one(box, Static).update("")
        if r is None:
            chart.show(None)
            select.display = False
            return
        significant, family = significant_count(r)
        note = Text(_("{n} of {m} differences significant after Holm's adjustment").format(n=significant, m=family)
                    + ("" if significant else " — " + _("none: the points may play alike at this number of deals")),
                    style="bold" if significant else "yellow")
        if r.missing:
            note.append("\n" + _("Chunks missing (an interrupted run: gouji sweep --resume plays them): {chunks}").format(
                chunks="; ".join(r.missing)), style="yellow")
        self.query_one("#sweep-note", Static).update(note)
        self.query_one("#sweep-legend", Static).update(legend(r))
        self.query_one("#sweep-table", Static).update(sweep_table(r))
        options = [(label, key) for key, label, _rate in figures(r)]
        key = chart.key if any(k == chart.key for _l, k in options) else DEFAULT_FIGURE
        with select.prevent(Select.Changed):
            select.set_options(options)
            select.value = key
        select.display = True
        chart.show(r, key)


__all__ = ["SweepScreen", "FolderScreen", "GRIDS", "MAX_APP_GAMES"]
