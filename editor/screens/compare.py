"""The compare screen: two rulesets side by side, rule by rule and by play on the same deals.

``CompareScreen(workspace, a, b)`` takes two :class:`RulesetSource` s (a workspace or bundled file,
or an editor's unsaved buffer) and shows, in three tabs:

- **Rules** — the rule diff (:func:`gouji_dsl.tools.compare.rule_diff`) in two synchronised panes, A left
  and B right (stacked when the screen is narrow), one block per difference; ↑/↓ move between
  differences, the one-line summary of the current one is shown under the panes (Enter: in full).
- **Stats** — N paired deals played under both rulesets (:func:`gouji_dsl.tools.paired.paired_simulation`)
  in a thread worker, with a progress bar; Escape cancels (the worker's ``cancel`` event stops
  the games, worker processes included). Then the figures as a table (A and B with 95% intervals,
  the paired difference B − A) and charts.
- **Deals** — the deals whose outcomes differ most; Enter shows both game records and opens the
  deal in the play screen under either ruleset (when :mod:`editor.play` is installed), or saves them
  as record files that ``gouji play`` opens (Ctrl+O there).

Entry points: ``c`` on the home screen, F8 in the editor (the unsaved buffer is side B) and
``gouji compare A B [--simulate N]`` (:mod:`editor.cli`), all through :func:`ask_compare` /
:class:`CompareScreen`.
"""
from __future__ import annotations

import importlib
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.fuzzy import Matcher
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    DataTable,
    Input,
    Label,
    OptionList,
    ProgressBar,
    Select,
    Static,
    TabbedContent,
    TabPane,
)
from textual.widgets.option_list import Option

from gouji_dsl.bots import BOTS, runner_bots
from gouji_dsl.diagnostics import GoujiError, printable
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.ruleset.load import finding, resolving
from gouji_dsl.ruleset.spec import ResolvedRuleset, said
from gouji_dsl.ruleset.words import GameWords, game_words
from gouji_dsl.tools.compare import RuleDiff, rule_diff
from gouji_dsl.tools.exits import shown_markup
from gouji_dsl.tools.paired import DivergentDeal, PairedReport, few_matches_note, paired_simulation, save_divergent

from ..i18n import N_, _, chinese, ngettext, spaced
from ..widgets.background import ENDED, BackgroundRun, RunsInBackground, ended_status
from ..widgets.cjkwrap import WrappedStatic
from ..widgets.compare_charts import PlacesChart, SpreadChart, methods_note, stats_table
from ..widgets.compare_diff import DiffPanes, counts_text, diff_blocks
from ..widgets.footer import FittingFooter
from ..widgets.header import Header
from ..workspace import Workspace, display_path

DEFAULT_GAMES = 200
DEFAULT_BOTS = "heuristic"
"""The bots of a simulation unless told: the heuristic bot (random bots never burn successfully, so
their figures say little about a ruleset)."""
DEFAULT_SEED = "1"
NARROW = 100          # below this width the panes are stacked (v toggles) and the header lines are shorter
SHORT = 30            # below this height the app header is hidden
POOL_FROM = 40        # fewer paired deals than this are played in one process (no start-up cost)
RECORDS_DIR = "compare-records"  # (the save binding's tooltip names it)


# ==================================================================================================
# what is compared


@dataclass(frozen=True)
class RulesetSource:
    """One side of a comparison: a ruleset file, or the unsaved ``text`` of one (an editor buffer)."""

    path: str
    name: str
    bundled: bool = False
    text: str | None = None
    title: str | None = None

    @property
    def unsaved(self) -> bool:
        return self.text is not None

    @property
    def label(self) -> str:
        return self.name + (_(" (unsaved)") if self.unsaved else "")

    @property
    def where(self) -> str:
        """``bundled: online.yaml``, ``rules/town.yaml`` or ``unsaved buffer of rules/town.yaml``."""
        if self.unsaved:
            return _("unsaved buffer of {path}").format(path=display_path(self.path))
        return _("bundled: {name}").format(name=Path(self.path).name) if self.bundled else display_path(self.path)

    @property
    def key(self) -> str:
        return ("buffer:" if self.unsaved else "") + os.path.abspath(self.path)

    def resolve(self, search: list[str]) -> ResolvedRuleset:
        if self.text is not None:
            return resolving.resolve_text(self.text, self.path, search=search)
        return resolving.resolve(Path(self.path), search=search)

    def compile(self, resolved: ResolvedRuleset) -> RuleGraph:
        return compile_ruleset(resolved, overlay={self.path: self.text} if self.text is not None else None)

    @classmethod
    def of_path(cls, path: str | os.PathLike[str], workspace: Workspace, title: str | None = None) -> RulesetSource:
        p = Path(path)
        return cls(str(p), p.stem, workspace.is_bundled(p), None, title)

    @classmethod
    def find(cls, name_or_path: str, workspace: Workspace) -> RulesetSource:
        """A bundled or workspace name, or a path. Raises :class:`GoujiError` when there is none."""
        return cls.of_path(finding.ruleset_path(name_or_path, search=workspace.search), workspace)


def workspace_sources(workspace: Workspace) -> list[RulesetSource]:
    return [RulesetSource(str(e.path), e.name, e.bundled, None, e.title) for e in workspace.entries()]


def ask_compare(app: Any, workspace: Workspace, this: RulesetSource, *, parent: str | None = None,
                side: str = "b") -> None:
    """Ask for the other ruleset (``parent`` offered first) and open the compare screen with ``this``
    as side ``side`` ("a" or "b"; the home screen's selection is A, the editor's text is B)."""
    sources = workspace_sources(workspace)
    if this.unsaved:
        sources.insert(0, this)
    first = None
    if parent:
        try:
            first = RulesetSource.find(parent, workspace).key
        except GoujiError:
            first = None

    def chosen(other: RulesetSource | None) -> None:
        if other is not None:
            app.push_screen(CompareScreen(workspace, this, other) if side == "a" else CompareScreen(workspace, other, this))
    if side == "a":
        title = _("Compare {name} with…").format(name=this.label)
        note = _("A is {where}, B is the ruleset you pick. Swap them later with x.").format(where=this.where)
    else:
        title = _("Compare {name} against…").format(name=this.label)
        note = _("A is the ruleset you pick, B is {where}. Swap them later with x.").format(where=this.where)
    app.push_screen(RulesetPickerScreen(sources, title, first=first, note=note), chosen)


# ==================================================================================================
# dialogs


class RulesetPickerScreen(ModalScreen[RulesetSource | None]):
    """Pick a ruleset (type to filter); dismisses with it, or None."""

    BINDINGS = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("down", "move(1)", N_("Down"), show=False),
        Binding("up", "move(-1)", N_("Up"), show=False),
        Binding("pagedown", "move(10)", N_("Page down"), show=False),
        Binding("pageup", "move(-10)", N_("Page up"), show=False),
        Binding("enter", "pick", N_("Choose")),
    ]

    def __init__(self, sources: list[RulesetSource], title: str, *, first: str | None = None,
                 current: str | None = None, note: str = "") -> None:
        super().__init__(classes="dialog-screen")
        if first is not None:
            sources = sorted(sources, key=lambda s: s.key != first)
        self.sources = sources
        self.title_text = title
        self.current = current if current is not None else first
        self.note = note
        self.shown: list[RulesetSource] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog compare-picker") as box:
            box.border_title = self.title_text
            yield Input(placeholder=_("type to filter by name or title"), id="cmp-picker-input", compact=True)
            yield OptionList(id="cmp-picker-list")
            if self.note:
                yield Static(self.note, classes="dialog-detail")
            yield Label(_("[b]enter[/b] choose  [b]↑↓[/b] move  [b]esc[/b] cancel"), classes="dialog-keys")
        yield FittingFooter()

    def on_mount(self) -> None:
        self._filter("")
        self.query_one(Input).focus()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_pick()

    def _filter(self, query: str) -> None:
        query = query.strip()
        if query:
            m = Matcher(query)
            scored = [(max(m.match(s.label), m.match(said(s.title) or "") * 0.5), s) for s in self.sources]
            self.shown = [s for sc, s in sorted(scored, key=lambda p: -p[0]) if sc > 0]
        else:
            self.shown = list(self.sources)
        olist = self.query_one(OptionList)
        olist.clear_options()
        for i, s in enumerate(self.shown):
            kind = _("unsaved") if s.unsaved else (_("bundled") if s.bundled else _("workspace"))
            olist.add_option(Option(Content.assemble((f"{s.label:<22} ", "bold"), (kind + " " * max(11 - cell_len(kind), 1), "dim"),
                                                     (said(s.title) or "", "")), id=str(i)))
        if self.shown:
            keys = [s.key for s in self.shown]
            olist.highlighted = keys.index(self.current) if not query and self.current in keys else 0

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[int(event.option_id or 0)])

    def action_move(self, delta: int) -> None:
        olist = self.query_one(OptionList)
        if self.shown:
            olist.highlighted = max(0, min(len(self.shown) - 1, (olist.highlighted or 0) + delta))

    def action_pick(self) -> None:
        i = self.query_one(OptionList).highlighted
        self.dismiss(self.shown[i] if i is not None and i < len(self.shown) else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextScreen(ModalScreen[None]):
    """A long text (a difference's summary) in a scrollable dialog."""

    BINDINGS = [Binding("escape,enter,q", "close", N_("Close"))]

    def __init__(self, title: str, text: Text | str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog compare-text") as box:
            box.border_title = self.title_text
            yield Static(self.text)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)


def _event_line(e: dict[str, Any]) -> Text:
    kind = e.get("type", "?")
    if kind == "move":
        return Text(str(e.get("move", "")))
    if kind == "deal":
        return Text(f"deal {e.get('seed', '')} (game {e.get('game_number', 1)})", style="bold")
    rest = " ".join(f"{k}={v}" for k, v in e.items() if k not in ("type", "hands"))
    style = {"game_over": "bold", "place": "green", "transfer": "yellow", "revolution": "magenta"}.get(kind, "dim")
    return Text(f"{kind} {rest}".rstrip(), style=style)


def record_text(events: list[dict[str, Any]]) -> Text:
    """A game record (the engine's events) one line per event."""
    return Text("\n").join(_event_line(e) for e in events)


def play_screen_class() -> type | None:
    """The play screen class of :mod:`editor.play` with a close key added, or None when the play
    screen (or the game records it replays) is not available."""
    try:
        mod = importlib.import_module("gouji_app.play.screen")
        importlib.import_module("gouji_dsl.engine.records")
    except ImportError:
        return None
    base = getattr(mod, "PlayScreen", None)
    if base is None:
        return None
    return _closable(base)


_CLOSABLE: dict[type, type] = {}


def _closable(base: type) -> type:
    if base not in _CLOSABLE:
        _CLOSABLE[base] = type("ComparePlayScreen", (base,), {
            "__module__": base.__module__,  # its CSS_PATH is relative to the play screen's module
            "BINDINGS": [Binding("ctrl+b", "app.pop_screen", N_("Close"), tooltip=N_("Back to the comparison"))],
        })
    return _CLOSABLE[base]


def match_record(graph: RuleGraph, report: PairedReport, deal: DivergentDeal, side: str) -> Any:
    """The :class:`gouji_dsl.engine.records.GameRecord` of ``deal`` under side ``a`` or ``b``: the games of
    its match from the first (tribute between games) to the deal, played again as the simulation
    played them. Needs :mod:`gouji_dsl.engine.records`."""
    from gouji_dsl.engine.records import GameRecord
    from gouji_dsl.tools.simulate import play_game

    start = deal.match_start_a if side == "a" else deal.match_start_b
    finals = []
    prev = None
    for i in range(start, deal.index + 1):
        kw: dict[str, Any] = {"previous": prev} if prev is not None else {}
        _first, prev = play_game(graph, report.seed, i, report.bots, **kw)
        finals.append(prev)
    n = graph.n_seats
    bots = report.bots
    names = {s: (bots if isinstance(bots, str) else bots[s - 1]) for s in range(1, n + 1)}
    return GameRecord.from_states(finals, seed=report.seed, bots=names)


class DealScreen(ModalScreen[None]):
    """A divergent deal: places and scores under A and B, both game records, and keys to replay it in
    the play screen under either ruleset or to save the records."""

    BINDINGS = [
        Binding("escape", "close", N_("Close")),
        Binding("a", "play('a')", N_("Review A"), tooltip=N_("Review the deal under ruleset A: hands open, every decision explained")),
        Binding("b", "play('b')", N_("Review B"), tooltip=N_("Review the deal under ruleset B: hands open, every decision explained")),
        Binding("s", "save", N_("Save"), tooltip=N_("Save both game records as JSON files in ./compare-records/")),
    ]

    def __init__(self, report: PairedReport, deal: DivergentDeal, graphs: tuple[RuleGraph, RuleGraph],
                 sources: tuple[RulesetSource, RulesetSource]) -> None:
        super().__init__(classes="dialog-screen")
        self.report = report
        self.deal = deal
        self.graphs = graphs
        self.sources = sources
        self.play_class = play_screen_class()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "play" and self.play_class is None:
            return None
        return True

    def compose(self) -> ComposeResult:
        r, d = self.report, self.deal
        la, lb = r.labels
        with Vertical(classes="dialog compare-deal") as box:
            box.border_title = _("Deal {deal}").format(deal=d.deal)
            head = Text()
            head.append(_("Game {n} of the run (seed {seed}, {bots} bots):").format(n=d.index, seed=r.seed, bots=r.bots_text) + " ",
                        style="bold")
            head.append(_("Σ|Δscore| {d}, {n} seat(s) placed differently.").format(d=d.score_difference, n=d.places_changed))
            matches = [(side, d.index - start + 1, length) for side, start, length in
                       (("A", d.match_start_a, r.match_length_a), ("B", d.match_start_b, r.match_length_b))
                       if length > 1]
            if len(matches) == 2 and matches[0][1:] == matches[1][1:]:
                matches = [(_("A and B"), *matches[0][1:])]
            if matches:
                head.append(" " + "; ".join(_("{side}: game {i} of a match of {n}").format(side=side, i=i, n=n)
                                            for side, i, n in matches)
                            + " " + _("(the records start with the match's first game)."), style="dim")
            yield Static(head, id="deal-head")
            yield Static(self._table(), id="deal-table")
            with Horizontal(id="deal-records"):
                for side, name, rec in (("a", la, d.record_a), ("b", lb, d.record_b)):
                    pane = VerticalScroll(Static(record_text(rec)), id=f"deal-record-{side}",
                                          classes="deal-record")
                    pane.border_title = f"{side.upper()} {shown_markup(name)}: " + _("{n} events").format(n=len(rec))
                    yield pane
            keys = _("[b]a[/b]/[b]b[/b] review under A/B (hands open)") + "  " if self.play_class else \
                _("the play screen is not available here: [b]s[/b] saves the records for [b]gouji play[/b]") + "  "
            yield Label(keys + _("[b]s[/b] save records  [b]esc[/b] close"), classes="dialog-keys")
        yield FittingFooter()

    def _table(self) -> Text:
        d = self.deal
        n = len(d.a.places)
        t = Text()
        t.append(_cells(_("seat"), 9), style="dim")
        t.append("".join(f"{s:>5}" for s in range(1, n + 1)), style="dim")
        for side, gs, other, style in (("A", d.a, d.b, "cyan"), ("B", d.b, d.a, "magenta")):
            t.append("\n" + _cells(side + " " + _("place"), 9), style=f"bold {style}")
            for s in range(n):
                t.append(f"{gs.places[s]:>5}", style="bold" if gs.places[s] != other.places[s] else "dim")
            t.append("\n" + _cells(side + " " + _("score"), 9), style=style)
            t.append("".join(f"{v:>+5}" for v in gs.scores))
        return t

    def on_mount(self) -> None:
        self.query_one("#deal-record-a").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    async def action_play(self, side: str) -> None:
        if self.play_class is None:
            self.notify(_("The play screen is not available: save the records with s."), severity="warning")
            return
        graph = self.graphs[0 if side == "a" else 1]
        try:
            rec = match_record(graph, self.report, self.deal, side)
        except Exception as e:
            self.notify(_("Cannot replay the deal: {error}").format(error=e), title=_("Replay"), severity="error")
            return
        # review mode: every hand open, each decision with its legal moves and the rules behind them
        screen = self.play_class(graph, seat=1, seed=self.report.seed, bots="random", record=rec, review=True)
        await self.app.push_screen(screen)
        start = self.deal.match_start_a if side == "a" else self.deal.match_start_b
        game = self.deal.index - start
        try:  # show the divergent game itself (the record starts with the first game of its match)
            s = screen.session
            at = next(i for i, e in enumerate(s.entries) if e.game_index == game and e.move is None)
            s.goto(at)
            screen.refresh_all()
        except Exception:
            pass
        if screen.is_mounted:
            screen.notify(_("Deal {deal} under {ruleset}, hands open: →/← step through every decision, "
                            "↑/↓ its legal moves, Enter the rules; ctrl+b back to the comparison.").format(
                                deal=self.deal.deal, ruleset=graph.name), title=_("Review"), timeout=8)

    def action_save(self) -> None:
        folder = Path(RECORDS_DIR)
        try:
            paths = save_deal(self.report, self.deal, self.graphs, folder)
        except OSError as e:  # the file named, escaped (a name is no markup); "[Errno 28] ..." named none
            where = Path(e.filename) if isinstance(e.filename, str) else folder
            self.notify(printable(_("Could not save {path}: {reason}").format(path=where, reason=e.strerror or e)),
                        title=_("Not saved"), severity="error",
                        markup=False)
            return
        except Exception as e:
            self.notify(printable(_("Could not save: {reason}").format(reason=e)), title=_("Not saved"), severity="error",
                        markup=False)
            return
        unsaved = [s.label for s in self.sources if s.unsaved]
        extra = " " + _("({names}: save the file before replaying them later)").format(names=_(", ").join(unsaved)) \
            if unsaved else ""
        from ..web import offer_download
        if any([offer_download(self.app, p, "application/json") for p in paths]):
            extra += _("; sent to the browser as downloads")
        self.notify(_(", ").join(display_path(p) for p in paths) + extra, title=_("Saved the records"), timeout=8)


def save_deal(report: PairedReport, deal: DivergentDeal, graphs: tuple[RuleGraph, RuleGraph],
              folder: Path) -> list[Path]:
    """Save ``deal`` under both rulesets as game-record files the play screen opens (``gouji-record``
    format, one per ruleset, the whole match up to the deal), or, without :mod:`gouji_dsl.engine.records`,
    as one ``gouji-paired-deal`` file (:func:`gouji_dsl.tools.paired.save_divergent`)."""
    try:
        from gouji_dsl.engine.records import save_record
    except ImportError:
        return save_divergent(replace(report, divergent=[deal]), folder)
    out = []
    safe = deal.deal.replace(":", "-").replace("/", "-")
    for side, graph in zip("ab", graphs):
        rec = match_record(graph, report, deal, side)
        out.append(save_record(folder / f"deal-{safe}-{side}-{graph.name}.json", rec))
    return out


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (once per process) with its stderr on ``os.devnull``.

    The worker processes of :func:`~gouji_dsl.tools.paired.paired_simulation` need it, and it is started
    with ``sys.stderr.fileno()``; inside a running Textual app ``sys.stderr`` is Textual's capture
    object, whose ``fileno()`` is -1, and starting the pool fails with "bad value(s) in
    fds_to_keep". Call it on the UI thread before a simulation with more than one worker."""
    try:
        from multiprocessing import resource_tracker
    except ImportError:  # pragma: no cover
        return
    saved = sys.stderr
    try:
        with open(os.devnull, "w") as null:
            sys.stderr = null
            resource_tracker.ensure_running()
    except Exception:
        pass
    finally:
        sys.stderr = saved


# ==================================================================================================
# the screen


def _cells(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal cells (a Chinese character takes two)."""
    return text + " " * max(width - cell_len(text), 0)


def bots_phrase(bots: str | list[str]) -> str:
    """Which bots played, in words: ``heuristic bots at every seat``, or seat by seat."""
    names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    if len(set(names)) == 1:
        return _("{bot} bots at every seat").format(bot=names[0])
    if isinstance(bots, str) and len(names) == 2:
        return _("{a} bots at the odd seats, {b} at the even seats").format(a=names[0], b=names[1])
    return _(", ").join(_("seat {seat} {bot}").format(seat=i, bot=n) for i, n in enumerate(names, 1))


def bot_options(current: str = DEFAULT_BOTS) -> list[tuple[str, str]]:
    """The bots the simulation offers: every kind of the registry (a search bot marked slow: it
    searches at every decision of every seat), and ``current`` when it is another spec (``A,B``,
    ``ismcts:44``) given on the command line."""
    options = [(f"{k.name} (search: slow)" if k.searches else k.name, k.name) for k in BOTS.values()]
    if current not in BOTS:
        options.append((current, current))
    return options


class CompareScreen(RunsInBackground, Screen[None]):
    """Compares ruleset ``a`` with ruleset ``b`` (see the module docstring)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]

    BINDINGS = [
        Binding("f5", "simulate", N_("Simulate"), tooltip=N_("Play N paired deals under both rulesets (the same deals)")),
        Binding("escape", "cancel", N_("Cancel"), tooltip=N_("Stop the simulation")),
        Binding("escape,ctrl+b", "close", N_("Close"), tooltip=N_("Back to where you came from")),
        Binding("1", "tab('tab-rules')", N_("Rules"), show=False, tooltip=N_("The rule diff (tab 1)")),
        Binding("2", "tab('tab-stats')", N_("Stats"), show=False,
                tooltip=N_("The simulation: settings, progress, figures and charts (tab 2)")),
        Binding("3", "tab('tab-deals')", N_("Deals"), show=False, tooltip=N_("The deals whose outcomes differ most (tab 3)")),
        Binding("a", "pick('a')", N_("Pick A"), tooltip=N_("Choose ruleset A (left)")),
        Binding("b", "pick('b')", N_("Pick B"), tooltip=N_("Choose ruleset B (right)")),
        Binding("x", "swap", N_("Swap"), tooltip=N_("Swap A and B")),
        Binding("v", "toggle_layout", N_("Layout"), tooltip=N_("The two panes side by side or one above the other")),
        Binding("w", "sweep", N_("Sweep"), tooltip=N_("Sweep ruleset B's settings: a grid of values played on the same deals")),
        Binding("n", "edit_games", N_("Deals N"), show=False, tooltip=N_("Set the number of deals, the seed and the bots")),
        Binding("f1", "app.help", N_("Help"), show=False, tooltip=N_("The ruleset language, with examples")),
    ]

    def __init__(self, workspace: Workspace, a: RulesetSource, b: RulesetSource, *, games: int = DEFAULT_GAMES,
                 seed: str = DEFAULT_SEED, bots: str = DEFAULT_BOTS, simulate: bool = False,
                 show_timing: bool = True, workers: int | None = None) -> None:
        super().__init__(classes="compare-screen")
        self.workspace = workspace
        self.a, self.b = a, b
        self.initial = (games, seed, bots)
        self.simulate_on_load = simulate
        self.show_timing = show_timing
        self.sim_workers = workers
        self.generation = 0
        self.comparing = False
        self.diff: RuleDiff | None = None
        self.graphs: tuple[RuleGraph, RuleGraph] | None = None
        self.problems: str | None = None
        self.report: PairedReport | None = None
        self.sim_state = "idle"      # idle | running | cancelling | cancelled | done | failed
        self.background = BackgroundRun(self, "compare-simulate", self._finished, self._progress, gouji_error="failed")
        self._simulated = 0          # the rulesets' load (generation) the simulation plays
        self._started = 0.0
        self.stacked_choice: bool | None = None   # None: stacked when narrow

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        games, seed, bots = self.initial
        yield Header()
        yield Static("", id="compare-sides")
        yield Static("", id="compare-counts")
        with TabbedContent(id="compare-tabs"):
            with TabPane("1 " + _("Rules"), id="tab-rules"):
                yield DiffPanes(id="diff-panes")
                yield Static("", id="diff-empty")
                yield Static("", id="diff-summary")
            with TabPane("2 " + _("Stats"), id="tab-stats"):
                with Horizontal(id="sim-controls"):
                    yield Label(_("Deals"), classes="sim-label")
                    yield Input(str(games), id="sim-games", type="integer", compact=True, max_length=6)
                    yield Label(_("Seed"), classes="sim-label")
                    yield Input(str(seed), id="sim-seed", compact=True)
                    yield Label(_("Bots"), classes="sim-label")
                    yield Select(bot_options(bots), value=bots, allow_blank=False, id="sim-bots", compact=True)
                    yield Button(_("Simulate F5"), id="sim-run", compact=True, variant="primary")
                with Horizontal(id="sim-progress-row"):
                    yield ProgressBar(id="sim-progress", show_eta=False)
                    yield Static("", id="sim-status")
                with VerticalScroll(id="sim-results"):
                    yield Static("", id="sim-time")
                    yield Static("", id="sim-table")
                    yield WrappedStatic("", id="sim-methods")
                    yield PlacesChart(id="sim-places")
                    yield SpreadChart(id="sim-spread")
            with TabPane("3 " + _("Deals"), id="tab-deals"):
                yield Static("", id="deals-note")
                yield DataTable(id="deals", cursor_type="row", zebra_stripes=True)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.sub_title = _("compare")
        table = self.query_one("#deals", DataTable)
        for key, label in (("rank", "#"), ("deal", N_("deal")), ("score", N_("Σ|Δscore|")), ("moved", N_("seats moved")),
                           ("a", N_("places A")), ("b", N_("places B"))):
            table.add_column(_(label) if label != "#" else label, key=key)
        self.query_one("#sim-progress", ProgressBar).display = False  # shown from the first run on
        self.query_one("#sim-time").display = False
        self._show_sim_status()
        self._show_deals()
        self.query_one(DiffPanes).focus()
        self._apply_layout()
        self.load()

    # -------------------------------------------------------------- narrow and wide
    @property
    def narrow(self) -> bool:
        return self.size.width < NARROW if self.size.width else self.app.size.width < NARROW

    @property
    def stacked(self) -> bool:
        return self.narrow if self.stacked_choice is None else self.stacked_choice

    def on_resize(self) -> None:
        self._apply_layout()

    def _apply_layout(self) -> None:
        self.set_class(self.stacked, "-stacked")
        if self.is_mounted:
            self.query_one(DiffPanes).relayout()
            self._show_sides()
            if self.diff is not None:
                self.query_one("#compare-counts", Static).update(counts_text(self.diff, compact=self.narrow))
            if self.report is not None and self.sim_state == "done":
                self.query_one("#sim-table", Static).update(stats_table(self.report, self.narrow, self._words()))

    def _words(self) -> tuple[GameWords, ...]:
        """The two rulesets' words of the game (the figures are labelled in them)."""
        return tuple(game_words(g.resolved) for g in self.graphs or () if g.resolved is not None)

    def action_toggle_layout(self) -> None:
        self.stacked_choice = not self.stacked
        self._apply_layout()

    # -------------------------------------------------------------- loading and the diff
    def load(self) -> None:
        """Resolve, compile and diff the two rulesets (in a thread)."""
        self.generation += 1
        self.comparing = True
        self.diff = None
        self.graphs = None
        self.problems = None
        self._show_sides()
        self.query_one("#compare-counts", Static).update(Text(_("… comparing"), style="dim"))
        self._load(self.generation, self.a, self.b, list(self.workspace.search))

    @work(thread=True, exclusive=True, group="compare-load", exit_on_error=False)
    def _load(self, generation: int, a: RulesetSource, b: RulesetSource, search: list[str]) -> None:
        resolved: list[ResolvedRuleset | None] = [None, None]
        graphs: list[RuleGraph | None] = [None, None]
        problems: list[str] = []
        for i, (side, src) in enumerate((("A", a), ("B", b))):
            try:
                resolved[i] = r = src.resolve(search)
                graphs[i] = src.compile(r)
            except GoujiError as e:
                problems.append(f"{side} {src.label} ({src.where}) has problems:\n{e.format()}")
            except Exception as e:
                problems.append(f"{side} {src.label}: {type(e).__name__}: {e}")
        diff = None
        if resolved[0] is not None and resolved[1] is not None:
            try:
                diff = rule_diff(resolved[0], resolved[1])
            except Exception as e:
                problems.append(f"cannot compare: {type(e).__name__}: {e}")
        result = (diff, tuple(graphs) if None not in graphs else None, "\n\n".join(problems) or None)
        try:
            self.app.call_from_thread(self._loaded, generation, *result)
        except RuntimeError:  # the app is closing
            pass

    def _loaded(self, generation: int, diff: RuleDiff | None, graphs: tuple[RuleGraph, RuleGraph] | None,
                problems: str | None) -> None:
        if generation != self.generation or not self.is_mounted:
            return
        self.comparing = False
        self.diff, self.graphs, self.problems = diff, graphs, problems
        self._show_sides()
        self._show_diff()
        self.refresh_bindings()
        if self.simulate_on_load:
            self.simulate_on_load = False
            self.action_simulate()

    @property
    def labels(self) -> tuple[str, str]:
        if self.diff is not None:
            return self.diff.labels
        la, lb = self.a.label, self.b.label
        return (la, lb) if la != lb else (f"A {la}", f"B {lb}")

    def _show_sides(self) -> None:
        t = Text()
        t.append(" A ", style="bold reverse cyan")
        zh = chinese()
        t.append(f" {self.a.label}" + ("" if zh and not self.narrow else " "), style="bold")
        if not self.narrow:
            t.append(f"（{self.a.where}）" if zh else f"({self.a.where})", style="dim")
        t.append("   " + _("vs") + "   ")
        t.append(" B ", style="bold reverse magenta")
        t.append(f" {self.b.label}" + ("" if zh and not self.narrow else " "), style="bold")
        if not self.narrow:
            t.append(f"（{self.b.where}）" if zh else f"({self.b.where})", style="dim")
        self.query_one("#compare-sides", Static).update(t)
        self.sub_title = f"{self.a.label} " + _("vs") + f" {self.b.label}"

    def _show_diff(self) -> None:
        counts = self.query_one("#compare-counts", Static)
        panes = self.query_one(DiffPanes)
        empty = self.query_one("#diff-empty", Static)
        summary = self.query_one("#diff-summary", Static)
        if self.diff is None:
            counts.update(Text("✗ " + _("cannot compare: a ruleset has problems (see below); pick another with a / b"),
                               style="bold red"))
            panes.display = False
            summary.display = False
            empty.display = True
            empty.update(Text(self.problems or "", style="red"))
            return
        counts.update(counts_text(self.diff, compact=self.narrow))
        blocks = diff_blocks(self.diff)
        panes.display = bool(blocks)
        summary.display = bool(blocks)
        empty.display = not blocks
        if not blocks:
            la, lb = self.diff.labels
            empty.update(Text.assemble((_("No differences"), "bold green"),
                                       _(": {a} and {b} have the same settings, rules, definitions and words of the "
                                         "game, so they play the same (a simulation would give the same games).").format(a=la, b=lb)))
        la, lb = self.diff.labels
        panes.show(blocks, (la, lb), (f"A · {la}", f"B · {lb}"), (self.a.where, self.b.where))

    @on(DiffPanes.Moved)
    def _moved(self, event: DiffPanes.Moved) -> None:
        summary = self.query_one("#diff-summary", Static)
        if event.index is None:
            summary.update("")
            return
        blk = event.panes.blocks[event.index]
        t = Text()
        t.append(f"{event.index + 1}/{len(event.panes.blocks)} ", style="bold")
        t.append(blk.summary)
        summary.update(t)

    @on(DiffPanes.Chosen)
    def _chosen(self, event: DiffPanes.Chosen) -> None:
        blk = event.panes.blocks[event.index]
        self.app.push_screen(TextScreen(shown_markup(f"{blk.section} {blk.name}"), Text(blk.summary)))

    # -------------------------------------------------------------- picking
    def action_pick(self, side: str) -> None:
        if self.running:
            self.notify(_("Stop the simulation first (Esc)."), severity="warning")
            return
        sources = workspace_sources(self.workspace)
        for s in (self.a, self.b):
            if s.unsaved and s.key not in {x.key for x in sources}:
                sources.insert(0, s)
        current = self.a if side == "a" else self.b

        def chosen(src: RulesetSource | None) -> None:
            if src is None:
                return
            if side == "a":
                self.a = src
            else:
                self.b = src
            self._reset_simulation()
            self.load()
        self.app.push_screen(RulesetPickerScreen(sources, _("Ruleset {side}").format(side=side.upper()), current=current.key), chosen)

    def action_swap(self) -> None:
        if self.running:
            self.notify(_("Stop the simulation first (Esc)."), severity="warning")
            return
        self.a, self.b = self.b, self.a
        self._reset_simulation()
        self.load()

    def action_sweep(self) -> None:
        if self.running:
            self.notify(_("Stop the simulation first (Esc)."), severity="warning")
            return
        games, seed, bots = self._settings_or_initial()
        self.app.open_sweep(self.b, games=games, seed=seed, bots=bots)  # type: ignore[attr-defined]

    def _settings_or_initial(self) -> tuple[int, str, str]:
        """The deals, seed and bots of the Stats tab (its initial ones where a field does not read)."""
        games, seed, bots = self.initial
        try:
            games = max(1, int(self.query_one("#sim-games", Input).value.strip()))
        except ValueError:
            pass
        seed = self.query_one("#sim-seed", Input).value.strip() or seed
        value = self.query_one("#sim-bots", Select).value
        return games, seed, str(value) if value != Select.NULL else bots

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self._focus_tab(tab)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane is not None and event.pane.id:
            self._focus_tab(event.pane.id)

    def _focus_tab(self, tab: str) -> None:
        """Focus the tab's main widget, unless the focus is already inside the tab."""
        pane = self.query_one(f"#{tab}")
        focused = self.focused
        if focused is not None and pane in focused.ancestors_with_self:
            return
        target = {"tab-rules": "#diff-panes", "tab-stats": "#sim-results", "tab-deals": "#deals"}[tab]
        self.query_one(target).focus()

    def action_edit_games(self) -> None:
        self.action_tab("tab-stats")
        self.query_one("#sim-games", Input).focus()

    # -------------------------------------------------------------- keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "close":
            return not self.running
        if action == "simulate":
            return True if not self.running and self.graphs is not None else None
        return True

    def action_close(self) -> None:
        focused = self.focused
        if isinstance(focused, (Input, Select)):
            self.query_one("#sim-results").focus()  # Escape leaves the field first
            return
        self.dismiss(None)

    def interrupted_note(self) -> str | None:
        """(SIGTERM: :meth:`editor.terminal_keys.XtermKeysApp.interrupted_notes`) what closing cost."""
        return _("the running simulation was stopped") if self.running else None

    def on_unmount(self) -> None:
        self.background.stop()

    # -------------------------------------------------------------- simulation
    def _settings(self) -> tuple[int, str, str] | None:
        raw = self.query_one("#sim-games", Input).value.strip()
        try:
            games = int(raw)
        except ValueError:
            games = 0
        if games < 1:
            self.notify(_("Deals: a whole number of at least 1."), title=_("Simulate"), severity="error")
            self.action_edit_games()
            return None
        seed = self.query_one("#sim-seed", Input).value.strip() or DEFAULT_SEED
        bots = self.query_one("#sim-bots", Select).value
        return games, seed, str(bots) if bots != Select.NULL else DEFAULT_BOTS

    @on(Button.Pressed, "#sim-run")
    def _run_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_simulate()

    @on(Input.Submitted, "#sim-games, #sim-seed")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_simulate()

    def action_simulate(self) -> None:
        if self.running:
            return
        if self.graphs is None:
            self.notify(_("Both rulesets must load without problems first.") if not self.comparing
                        else _("Still comparing the rules…"), title=_("Simulate"), severity="warning")
            return
        settings = self._settings()
        if settings is None:
            return
        games, seed, bots = settings
        workers = self.sim_workers or (1 if games < POOL_FROM else max(1, min(os.cpu_count() or 1, 4)))
        if workers > 1:
            start_resource_tracker()
        self._reset_simulation()
        ga, gb = self.graphs

        def job(progress: Any, cancel: Any) -> PairedReport:
            return paired_simulation(ga, gb, games, seed, bots=runner_bots(bots, ga.n_seats), workers=workers,
                                     progress=progress, cancel=cancel)
        self.background.start(job)
        self._simulated = self.generation
        self.sim_state = "running"
        self._started = time.monotonic()
        bar = self.query_one("#sim-progress", ProgressBar)
        bar.update(total=games, progress=0)
        bar.display = True
        if isinstance(self.focused, (Input, Select, Button)):
            self.query_one("#sim-results").focus()  # the keys (Esc, 1-3, a, b) work again
        self.action_tab("tab-stats")
        self._show_sim_status(games=games)
        self.refresh_bindings()

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#sim-progress", ProgressBar).update(total=total, progress=done)
        self._show_sim_status(games=total)

    def _finished(self, state: str, payload: Any) -> None:
        self.refresh_bindings()
        if self._simulated != self.generation:
            return  # the rulesets were loaded again meanwhile: its figures are of the old ones
        self.sim_state = state
        if state == "done":
            self.report = payload
            bar = self.query_one("#sim-progress", ProgressBar)
            bar.update(total=payload.games, progress=payload.games)
            bar.display = not self.narrow  # (narrow: the full bar gives its room to the line that says what was played)
            self._show_report()
        elif state == "failed":
            self.notify(str(payload), title=_("Simulation failed"), severity="error", timeout=10)
        self._show_sim_status(error=payload if state == "failed" else None)
        self._show_deals()

    def action_cancel(self) -> None:
        if self.background.cancel():
            self.sim_state = "cancelling"
            self._show_sim_status()

    def _reset_simulation(self) -> None:
        self.report = None
        self.sim_state = "idle"
        if self.is_mounted:
            self.query_one("#sim-table", Static).update("")
            self.query_one("#sim-methods", WrappedStatic).show("")
            self.query_one("#sim-time", Static).update("")
            self.query_one("#sim-time").display = False
            self.query_one(PlacesChart).show(None)
            self.query_one(SpreadChart).show(None)
            bar = self.query_one("#sim-progress", ProgressBar)
            bar.update(total=100, progress=0)
            bar.display = False
            self._show_sim_status()
            self._show_deals()

    def _show_sim_status(self, games: int | None = None, error: str | None = None) -> None:
        t = Text()
        state = self.sim_state
        if state == "idle":
            t.append(spaced(_("F5 plays the same deals under A and B.")), style="bold")
            t.append(_("n: number of deals, seed and bots"), style="dim")
        elif state == "running":
            t.append(_("{done}/{games} paired deals…").format(done=self.progress_done, games=games or '?') + " ", style="bold")
            elapsed = time.monotonic() - self._started
            if self.progress_done and games and self.show_timing:
                left = elapsed / self.progress_done * (games - self.progress_done)
                t.append(_("about {s} s left").format(s=f"{left:.0f}") + " ", style="dim")
            t.append(_("Esc cancels"), style="dim")
        elif state in ENDED:
            ended_status(t, state, self.progress_done, error, _("the simulation failed"))
        elif state == "done" and self.report is not None:
            r = self.report
            t.append("✓ " + _("{n} paired deals").format(n=r.games), style="bold green")
            t.append(_(", seed {seed}, {bots} bots").format(seed=r.seed, bots=r.bots_text), style="")
            if r.match_length_a == r.match_length_b > 1:
                t.append(_(", matches of {n}").format(n=r.match_length_a), style="dim")
            elif r.match_length_a != r.match_length_b:
                t.append(_(", matches of {a} games under A, {b} under B").format(a=r.match_length_a, b=r.match_length_b),
                         style="dim")
        self.query_one("#sim-status", Static).update(t)

    def _show_report(self) -> None:
        r = self.report
        assert r is not None and self.graphs is not None
        ga, gb = self.graphs
        timing = self.query_one("#sim-time", Static)
        note = Text()
        note.append(_("Played by {bots}.").format(bots=bots_phrase(r.bots)) + "\n", style="bold")
        if not r.same_deck:
            note.append(_("The two rulesets use different packs: deal i is seeded alike but not dealt alike.") + "\n",
                        style="yellow")
        few = few_matches_note(r)
        if few is not None:
            note.append(few[0].upper() + few[1:] + "\n", style="yellow")
        family = r.family()
        significant = sum(1 for _key, e in family if e.significant)
        note.append(_("{n} of {m} differences significant after Holm's adjustment").format(n=significant, m=len(family))
                    + ("" if significant else " — " + _("none: the rulesets may play alike at this number of deals")),
                    style="bold" if significant else "yellow")
        if self.show_timing:
            rate = r.games_per_s
            note.append("\n" + ngettext("{s:.1f} s, {rate:.0f} games/s, {n} worker", "{s:.1f} s, {rate:.0f} games/s, {n} workers",
                                          r.workers).format(s=r.elapsed_s, rate=rate, n=r.workers), style="dim")
        timing.update(note)
        timing.display = bool(note.plain)
        self.query_one("#sim-table", Static).update(stats_table(r, self.narrow, self._words()))
        self.query_one("#sim-methods", WrappedStatic).show(methods_note())
        teams = (int(ga.settings.get("teams", 2) or 2), int(gb.settings.get("teams", 2) or 2))
        self.query_one(PlacesChart).show(r, teams, game_words(ga.resolved) if ga.resolved is not None else None)
        self.query_one(SpreadChart).show(r, teams)

    # -------------------------------------------------------------- divergent deals
    def _show_deals(self) -> None:
        table = self.query_one("#deals", DataTable)
        note = self.query_one("#deals-note", Static)
        table.clear()
        r = self.report
        la, lb = self.labels
        if r is None:
            note.update(Text(_("Run a simulation (F5) to list the deals that end differently under A and B."),
                             style="dim"))
            table.display = False
            return
        table.display = bool(r.divergent)
        if not r.divergent:
            note.update(Text(_("No deal ended differently."), style="bold green"))
            return
        where = _("Enter: both records, and replay under A or B") if play_screen_class() else \
            _("Enter: both records (s in there saves them for gouji play)")
        note.update(Text.assemble((_("Deals whose outcomes differ most") + ("" if chinese() else " "), "bold"),
                                  (_("(places by seat: A {a} / B {b}). {where}.").format(a=la, b=lb, where=where), "dim")))
        for d in r.divergent:
            table.add_row(str(d.rank), d.deal, str(d.score_difference), str(d.places_changed),
                          " ".join(map(str, d.a.places)), " ".join(map(str, d.b.places)), key=str(d.rank))
        table.move_cursor(row=0)

    @on(DataTable.RowSelected, "#deals")
    def _deal_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.report is None or self.graphs is None:
            return
        rank = int(event.row_key.value or 0)
        deal = next((d for d in self.report.divergent if d.rank == rank), None)
        if deal is not None:
            self.app.push_screen(DealScreen(self.report, deal, self.graphs, (self.a, self.b)))


__all__ = ["CompareScreen", "RulesetSource", "RulesetPickerScreen", "DealScreen", "TextScreen", "ask_compare",
           "match_record", "save_deal", "play_screen_class", "record_text", "workspace_sources"]
