"""Home: the bundled rulesets and the workspace's own, with parents, titles and validation state."""
from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from gouji_dsl.ruleset.spec import said

from ..i18n import N_, _, chinese, ngettext
from ..widgets.cjkwrap import WrappedStatic
from ..widgets.footer import FittingFooter
from ..widgets.header import Header
from ..workspace import RulesetEntry, Workspace, display_path

STATUS = {
    "pending": (N_("… checking"), "dim"),
    "valid": (N_("✓ valid"), "green"),
}


def status_text(entry: RulesetEntry) -> Text:
    if entry.status == "invalid":
        n = len(entry.problems)
        return Text(ngettext("✗ {n} error", "✗ {n} errors", n).format(n=n), style="bold red")
    if entry.status == "valid" and entry.warnings:
        n = len(entry.warnings)
        return Text(ngettext("▲ {n} warning", "▲ {n} warnings", n).format(n=n), style="bold yellow")
    if entry.status == "valid":
        return Text(_("✓ {n} rules").format(n=entry.rule_count), style="green")
    text, style = STATUS.get(entry.status, (entry.status, ""))
    return Text(_(text), style=style)


class RulesetTable(DataTable):
    """The list of rulesets: Home / End go to the first / last ruleset (a plain table only scrolls)."""

    BINDINGS = [
        Binding("home", "first", N_("First"), show=False, tooltip=N_("The first ruleset")),
        Binding("end", "last", N_("Last"), show=False, tooltip=N_("The last ruleset")),
    ]

    def action_first(self) -> None:
        self.move_cursor(row=0)

    def action_last(self) -> None:
        self.move_cursor(row=max(self.row_count - 1, 0))


class HomeScreen(Screen[None]):
    """Lists rulesets; Enter opens one, N creates a variant of the highlighted one."""

    BINDINGS = [
        Binding("o,e", "open", N_("Open"), tooltip=N_("Open the highlighted ruleset in the editor (or Enter)")),
        Binding("n", "new_variant", N_("New variant"), tooltip=N_("Create a variant that extends the highlighted ruleset")),
        Binding("c", "compare", N_("Compare"), tooltip=N_("Compare the highlighted ruleset with another: rules and play")),
        Binding("w", "sweep", N_("Sweep"), tooltip=N_("Sweep the highlighted ruleset's settings: a grid of values on the same deals")),
        Binding("p", "play", N_("Play"), tooltip=N_("Test-play the highlighted ruleset against heuristic bots")),
        Binding("r", "refresh", N_("Refresh"), tooltip=N_("List and check the rulesets again")),
        Binding("f1,question_mark", "app.help", N_("Help"), tooltip=N_("The ruleset language, with examples")),
        Binding("q", "app.quit", N_("Quit"), tooltip=N_("Quit gouji")),
    ]

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(id="home")
        self.workspace = workspace
        self.entries: dict[str, RulesetEntry] = {}
        self._signature: dict[str, int] = {}
        self._checked = asyncio.Event()  # set once every listed ruleset is checked

    def compose(self) -> ComposeResult:
        yield Header()
        yield WrappedStatic("", id="workspace-info")
        with Vertical(id="home-body"):
            table: DataTable = RulesetTable(id="rulesets", cursor_type="row", zebra_stripes=True)
            table.border_title = _("Rulesets")
            yield table
            details = WrappedStatic("", id="details")
            details.border_title = _("Details")
            yield details
        yield FittingFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(_("Name"), key="name")
        table.add_column(_("Status"), key="status", width=12)  # fixed: "… checking" and "✓ 53 rules" alike (cells, not characters)
        table.add_column(_("Kind"), key="kind")
        table.add_column(_("Extends"), key="extends")
        table.add_column(_("Title"), key="title")
        self.refresh_entries()
        table.focus()

    def on_screen_resume(self) -> None:
        # back from the editor or a dialog: list again only if files were saved, created or removed
        if self.entries and self._files_signature() != self._signature:
            self.refresh_entries()

    def _files_signature(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in [*self.workspace.workspace_files(), *self.workspace.bundled_files()]:
            try:
                out[str(p)] = p.stat().st_mtime_ns
            except OSError:
                pass
        return out

    # -------------------------------------------------------------- listing
    def refresh_entries(self, select: Path | None = None) -> None:
        ws = self.workspace
        self._signature = self._files_signature()
        info = Text.assemble((_("Workspace") + " ", "dim"), (ws.display, "bold"))
        if not ws.folder.exists():
            info.append("  " + _("(does not exist yet: it is created with the first variant)"), style="dim")
        elif ws.is_bundled_folder:
            info.append("  " + _("(the bundled rules folder: its files are editable here)"), style="yellow")
        if not ws.is_bundled_folder and not ws.workspace_files():
            info.append("  · " + _("no rulesets of your own yet: press n to start a variant"), style="dim")
        self.query_one("#workspace-info", WrappedStatic).show(info)
        table = self.query_one(DataTable)
        current = self._current_key()
        old = self.entries
        table.clear()
        self.entries = {}
        for e in ws.entries():
            prev = old.get(e.key)
            if prev is not None:  # keep showing the last result until the new one arrives
                e = replace(e, chain=prev.chain, status=prev.status, problems=prev.problems,
                            warnings=prev.warnings, rule_count=prev.rule_count, words=prev.words)
            self.entries[e.key] = e
            table.add_row(*self._cells(e), key=e.key)
        want = str(select) if select else current
        if want and want in self.entries:
            table.move_cursor(row=table.get_row_index(want))
        self._show_details()
        self._fit_titles()
        self._checked.clear()
        self.validate_all(list(self.entries.values()))

    def _cells(self, e: RulesetEntry) -> list:
        name = Text(e.name, style="bold" if not e.read_only else "")
        kind = Text(_(e.kind), style="dim" if e.read_only else "cyan")
        return [name, status_text(e), kind, Text(e.parents, style="dim"), Text(said(e.title) or "", overflow="ellipsis", no_wrap=True)]

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_titles)

    def _fit_titles(self) -> None:
        """The titles' column as wide as the table leaves it (a longer title ends in …, not cut off
        at the table's edge): the other columns keep their width."""
        table = self.query_one(DataTable)
        column = table.columns.get(ColumnKey("title"))
        if column is None or not table.row_count:
            return
        others = sum(c.get_render_width(table) for k, c in table.columns.items() if k != "title")
        room = table.scrollable_content_region.width - others - 2 * table.cell_padding
        want = max([cell_len(said(e.title) or "") for e in self.entries.values()] + [cell_len(str(column.label))])
        width = max(min(want, room), 8)
        if column.auto_width or column.width != width:
            column.auto_width, column.width = False, width
            table._require_update_dimensions = True
            table.refresh()

    def _current_key(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None

    def current(self) -> RulesetEntry | None:
        key = self._current_key()
        return self.entries.get(key) if key else None

    @work(thread=True, exclusive=True, group="home-validate", exit_on_error=False)
    def validate_all(self, entries: list[RulesetEntry]) -> None:
        for e in entries:
            checked = self.workspace.validate(e)
            try:
                self.app.call_from_thread(self._update_entry, checked)
            except RuntimeError:  # the app is closing
                return
        try:
            self.app.call_from_thread(self._all_checked)
        except RuntimeError:
            pass

    def _all_checked(self) -> None:
        if not self.checking:
            self._checked.set()

    async def wait_checked(self) -> None:
        """Return once every listed ruleset is checked (event-driven: for tests and scripts)."""
        while True:
            await self._checked.wait()
            if not self.checking:
                return
            self._checked.clear()  # listed again meanwhile: the new check sets it

    def _update_entry(self, entry: RulesetEntry) -> None:
        if entry.key not in self.entries:
            return
        self.entries[entry.key] = entry
        table = self.query_one(DataTable)
        for col, cell in zip(("name", "status", "kind", "extends", "title"), self._cells(entry)):
            table.update_cell(entry.key, col, cell, update_width=True)
        self._fit_titles()
        if self._current_key() == entry.key:
            self._show_details()

    @property
    def checking(self) -> bool:
        return any(e.status == "pending" for e in self.entries.values())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_details()

    def _show_details(self) -> None:
        e = self.current()
        details = self.query_one("#details", WrappedStatic)
        if e is None:
            details.show(Text(_("No rulesets yet: press n to create a variant of a bundled one."), style="dim"))
            return
        t = Text()
        t.append(said(e.title) or e.name, style="bold")
        t.append("   " + (_("bundled: {name}").format(name=e.path.name) if e.read_only else display_path(e.path)), style="dim")
        if e.description:
            t.append("\n" + " ".join((said(e.description) or "").split()))
        if e.status == "invalid":
            for d in e.problems[:4]:
                t.append(f"\n✗ {Path(d.path).name}:{d.line}:{max(d.col, 1)}: {d.message}", style="red")
            if len(e.problems) > 4:
                t.append("\n  " + _("… and {n} more (open the file to see them all)").format(n=len(e.problems) - 4), style="red")
        for d in e.warnings[:3] if e.status == "valid" else ():
            t.append(f"\n▲ {Path(d.path).name}:{d.line}:{max(d.col, 1)}: {d.message}", style="yellow")
            if d.hint:
                t.append(f"（{d.hint}）" if chinese() else f" ({d.hint})", style="yellow")
        if e.read_only:
            t.append("\n" + _("Read-only: open it to read it, or press n to start a variant of it."), style="dim")
        details.show(t, keep=e.words)

    # -------------------------------------------------------------- actions
    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        e = self.current()
        if e is not None:
            self.app.open_file(e.path)  # type: ignore[attr-defined]

    def action_new_variant(self) -> None:
        e = self.current()
        self.app.new_variant(parent=e.name if e else None)  # type: ignore[attr-defined]

    def action_compare(self) -> None:
        e = self.current()
        if e is not None:
            from .compare import RulesetSource, ask_compare
            ask_compare(self.app, self.workspace, RulesetSource(str(e.path), e.name, e.bundled, None, e.title),
                        parent=e.chain[0] if e.chain else e.extends, side="a")

    def action_sweep(self) -> None:
        e = self.current()
        if e is not None:
            from .compare import RulesetSource
            from .sweep import SweepScreen
            self.app.push_screen(SweepScreen(self.workspace, RulesetSource(str(e.path), e.name, e.bundled, None, e.title)))

    def action_play(self) -> None:
        e = self.current()
        if e is None:
            return
        from gouji_dsl.ruleset.graph import load_graph

        from ..play import open_test_play

        def show_rule(path: str, line: int) -> None:
            self.app.open_file(path)  # type: ignore[attr-defined]
            ed = self.app.editor  # type: ignore[attr-defined]
            if ed is not None:
                ed.call_after_refresh(ed.jump_to, line, 1)
        open_test_play(self.app, lambda: load_graph(e.path), e.path, show_rule)

    def action_refresh(self) -> None:
        self.refresh_entries()
