"""The editor screen: the ruleset text, its problems as you type, and the resolved ruleset / rule graph.

Validation runs ``VALIDATE_DELAY`` seconds after the last keystroke, in a thread worker; results
older than the latest edit are dropped. While the buffer has unsaved changes it is copied to a
recovery file of its own every ``RECOVERY_INTERVAL`` seconds (see :mod:`editor.files`); copies left
by an editor that did not close normally are offered back, with a diff, when the file is opened.
"""
from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static, TextArea

from gouji_dsl.diagnostics import GoujiError, SourcePos, printable
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.load.resolving import resolve, resolve_text
from gouji_dsl.ruleset.spec import ResolvedRuleset
from gouji_dsl.tools.exits import shown, shown_markup

from .. import files
from ..completion import Item, indent_for, items_for, replacement, word_before
from ..i18n import N_, _, ngettext
from ..validation import Validation, same_file, validate_text
from ..widgets import DiagnosticsList, RulesTextArea, SidePanel
from ..widgets.footer import FittingFooter
from ..widgets.header import Header
from ..widgets.side_panel import OriginTree
from ..workspace import Workspace, display_path
from .dialogs import Choice, ConfirmScreen, cancel_choice
from .picker import PickerScreen
from .recovery import RecoveryChoice, RecoveryScreen

VALIDATE_DELAY = 0.3
RECOVERY_INTERVAL = 2.0
_EXTENDS = re.compile(r"^extends:[ \t]*['\"]?([^'\"\s#]+)", re.M)
NARROW = 100  # below this terminal width the side panel starts hidden


def _signature(paths: list[str]) -> dict[str, int]:
    out = {}
    for p in paths:
        try:
            out[p] = os.stat(p).st_mtime_ns
        except OSError:
            out[p] = -1
    return out


class EditorScreen(Screen[None]):
    """Edits one ruleset file."""

    #: the footer's keys left out first where it is too narrow (FittingFooter): ^b and ^p stay at 80 columns
    FOOTER_SPARE = ("toggle_comment", "focus_problems", "new_variant")

    BINDINGS = [
        Binding("ctrl+s", "save", N_("Save"), tooltip=N_("Save the file atomically (asks if it changed on disk)"),
                priority=True),
        Binding("ctrl+n", "insert", N_("Insert"), tooltip=N_("Insert a setting name, rule id, hook, function or key")),
        Binding("ctrl+t", "toggle_comment", N_("Comment"), tooltip=N_("Comment / uncomment the line or selected lines")),
        Binding("ctrl+g", "next_problem", N_("Next error"), tooltip=N_("Move the cursor to the next problem")),
        Binding("ctrl+l", "focus_problems", N_("Problems"), tooltip=N_("Go to the problems list (Enter jumps to one)")),
        Binding("f2", "toggle_view", N_("View"), tooltip=N_("Switch the panel: resolved ruleset / rule graph")),
        Binding("f3", "toggle_panel", N_("Panel"), tooltip=N_("Show or hide the side panel")),
        Binding("f4", "new_variant", N_("Variant"), tooltip=N_("Create a new variant that extends this ruleset")),
        Binding("f9", "test_play", N_("Play"), show=False,
                tooltip=N_("Test-play this text (unsaved changes too) against bots")),
        Binding("f8", "compare", N_("Compare"), show=False,
                tooltip=N_("Compare this text (unsaved too) with another ruleset: rules and play")),
        # priority: the text area's own F6 (select the line) would take the key first
        Binding("f6", "recover", N_("Recovered text"), show=False, priority=True,
                tooltip=N_("Offer again the unsaved text kept with 'Later' (from an editor that did not close normally)")),
        Binding("f1", "app.help", N_("Help"), tooltip=N_("The ruleset language, with examples")),
        Binding("ctrl+b", "close", N_("Close"), tooltip=N_("Close the file and go back to the list")),
        Binding("ctrl+q", "app.quit", N_("Quit"), tooltip=N_("Quit gouji (asks about unsaved changes)")),
    ]

    def __init__(self, path: str | os.PathLike[str], workspace: Workspace, *, text: str, raw: bytes | None,
                 read_only: bool = False, cursor_blink: bool = True) -> None:
        super().__init__(classes="editor-screen")
        self.path = Path(path)
        self.path_str = os.fspath(path)
        self.workspace = workspace
        self.read_only = read_only
        self.saved_text = text if raw is not None else ""
        self.initial_text = text
        self.disk = files.DiskState.from_bytes(self.path, raw) if raw is not None else files.DiskState(None)
        self.cursor_blink = cursor_blink
        self.validation: Validation | None = None
        self.last_resolved: ResolvedRuleset | None = None
        self.last_graph: RuleGraph | None = None
        self.generation = 0          # bumped on every edit
        self.validated_generation = -1
        self.validated_text: str | None = None  # the text whose check is shown
        self._validated = asyncio.Event()  # set while the problems shown are those of the current text
        self._debounce: Timer | None = None
        self._recovery_text: str | None = None
        self._extends_cache: tuple[str, ResolvedRuleset | None] | None = None
        self._copy_lock: files.CopyLock | None = None
        self.recovery_slot: Path | None = None  # this editor's own recovery copy (created when first written)
        self._disk_warned = False
        self._area: RulesTextArea | None = None
        self._deps: dict[str, int] = {}
        self._parent_cache: tuple[tuple[str, dict[str, int]], ResolvedRuleset | None] | None = None

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="editor-body"):
            with Vertical(id="editor-main"):
                area = RulesTextArea(self.initial_text, id="source", read_only=self.read_only,
                                     show_line_numbers=True, tab_behavior="indent", soft_wrap=False,
                                     theme="vscode_dark")
                area.cursor_blink = self.cursor_blink
                area.border_title = shown_markup(self.display_name)  # a name from a file: no markup (issue 22)
                yield area
                yield Static("", id="status")
                yield DiagnosticsList(id="problems")
            yield SidePanel(id="side")
        yield FittingFooter()

    @property
    def display_name(self) -> str:
        return display_path(self.path) if not self.workspace.is_bundled(self.path) else _("bundled: {name}").format(name=self.path.name)

    def on_mount(self) -> None:
        self.text_area.focus()
        if self.app.size.width < NARROW:
            self.query_one(SidePanel).set_visible(False)
        self._update_title()
        self._schedule_validation(0)
        self.set_interval(RECOVERY_INTERVAL, self._tick)
        self.offer_recovery()

    @property
    def text_area(self) -> RulesTextArea:
        if self._area is None:
            self._area = self.query_one("#source", RulesTextArea)
        return self._area

    @property
    def text(self) -> str:
        return self.text_area.text

    @property
    def dirty(self) -> bool:
        return not self.read_only and self.text != self.saved_text

    def _update_title(self) -> None:
        marker = " ● " + _("modified") if self.dirty else ""
        ro = "  " + _("[read-only]") if self.read_only else ""
        self.sub_title = f"{shown(self.display_name)}{marker}{ro}"
        self.text_area.border_title = f"{'● ' if self.dirty else ''}{shown_markup(self.display_name)}{ro}"

    # -------------------------------------------------------------- validation
    @on(TextArea.Changed, "#source")
    def _changed(self, _event: TextArea.Changed) -> None:
        self.generation += 1
        self._validated.clear()
        self._update_title()
        self._schedule_validation(VALIDATE_DELAY)

    @on(TextArea.SelectionChanged, "#source")
    def _moved(self, _event: TextArea.SelectionChanged) -> None:
        self._show_status()

    def _schedule_validation(self, delay: float) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(delay, self._start_validation) if delay > 0 else None
        if delay <= 0:
            self._start_validation()

    def _start_validation(self) -> None:
        self._debounce = None
        self._validate(self.generation, self.text)
        self._save_recovery()  # a pause in typing: also a good moment for the recovery copy

    @work(thread=True, exclusive=True, group="validate", exit_on_error=False)
    def _validate(self, generation: int, text: str) -> None:
        result = validate_text(text, self.path_str, search=self.workspace.search)
        try:
            self.app.call_from_thread(self._show_validation, generation, result, text)
        except RuntimeError:  # the app is shutting down
            pass

    @property
    def is_validated(self) -> bool:
        """True when the problems shown are those of the current text."""
        return self.validated_generation == self.generation

    async def wait_validated(self) -> None:
        """Return once the problems shown are those of the current text (event-driven: for tests and
        scripts that drive the editor)."""
        while not self.is_validated:
            await self._validated.wait()

    def _show_validation(self, generation: int, result: Validation, text: str | None = None) -> None:
        if generation != self.generation or not self.is_mounted:
            return  # the text changed since: a newer check is on its way
        self.validation = result
        self.validated_generation = generation
        self.validated_text = text
        self._validated.set()
        self._deps = _signature(self._dependencies(result))
        stale = ""
        if result.resolved is not None:
            self.last_resolved = result.resolved
        if result.graph is not None:
            self.last_graph = result.graph
        if result.graph is None and self.last_graph is not None:
            stale = "⚠ " + _("the text has problems: the rule graph shows the last version that compiled")
            if result.resolved is None:
                stale = "⚠ " + _("the text has problems: showing the last version that loaded")
        panel = self.query_one(SidePanel)
        # a view with nothing yet shows the last good state; otherwise it keeps what it shows
        panel.show(result.resolved or (self.last_resolved if panel.view_is_empty("resolved") else None),
                   result.graph or (self.last_graph if panel.view_is_empty("graph") else None),
                   self.path_str, stale=stale)
        problems = self.query_one(DiagnosticsList)
        problems.show(list(result.diagnostics), self.path_str)
        problems.display = bool(result.diagnostics)  # room for the text when there is nothing to list
        self.call_after_refresh(self.text_area.scroll_cursor_visible)  # the list may have grown
        marks: dict[int, tuple[str, int]] = {}
        for d in result.in_file(self.path_str):
            row = max(d.line, 1) - 1
            if row not in marks or (d.severity == "error" and marks[row][0] != "error"):
                marks[row] = (d.severity, max(d.col, 1) - 1)
        self.text_area.set_marks(marks)
        self._show_status()

    def _dependencies(self, result: Validation) -> list[str]:
        """The other files this result depends on (parents, files with problems)."""
        paths = list(result.resolved.chain[1:]) if result.resolved is not None else []
        paths += [d.path for d in result.diagnostics if not same_file(d.path, self.path_str)]
        return list(dict.fromkeys(paths))

    def _show_status(self) -> None:
        status = Text()
        v = self.validation
        if v is None or not self.is_validated:
            status.append(_("… checking"), style="dim")
        elif v.ok:
            n = len(v.graph.nodes) if v.graph else 0
            warnings = v.warnings
            if warnings:  # valid, but most likely not what was meant (a misspelt setting nobody reads)
                w = len(warnings)
                status.append(ngettext("▲ {n} warning", "▲ {n} warnings", w).format(n=w), style="bold yellow")
                status.append(_(": ") + warnings[0].message, style="yellow")
                status.append("  " + _("ctrl+g next"), style="dim")
            else:
                status.append(_("✓ valid"), style="bold green")
            status.append("  " + _("{n} rules, {m} settings").format(n=n, m=len(v.resolved.settings) if v.resolved else 0),
                          style="dim")
        else:
            errors = v.errors
            here = len([d for d in errors if same_file(d.path, self.path_str)])
            status.append(ngettext("✗ {n} problem", "✗ {n} problems", len(errors)).format(n=len(errors)), style="bold red")
            if here != len(errors):
                status.append(" " + _("({n} in other files)").format(n=len(errors) - here), style="red")
            status.append("  " + _("ctrl+g next problem"), style="dim")
        if self._disk_warned:
            status.append("  ⚠ " + _("changed on disk"), style="bold yellow")
        row, col = self.text_area.cursor_location
        status.append("   " + _("Ln {row}, Col {col}").format(row=row + 1, col=col + 1), style="dim")
        self.query_one("#status", Static).update(status)

    # -------------------------------------------------------------- jumping
    def jump_to(self, line: int, col: int) -> None:
        """Put the cursor at 1-based ``line``:``col`` and focus the text."""
        area = self.text_area
        row = max(0, min(line - 1, area.document.line_count - 1))
        column = max(0, min(col - 1, len(area.document.get_line(row))))
        area.cursor_location = (row, column)
        area.scroll_cursor_visible(center=True)
        area.focus()

    @on(DiagnosticsList.Jump)
    def _jump_diagnostic(self, event: DiagnosticsList.Jump) -> None:
        self._jump_origin(event.diagnostic.path, event.diagnostic.line, event.diagnostic.col)

    @on(OriginTree.Jump)
    def _jump_tree(self, event: OriginTree.Jump) -> None:
        o: SourcePos = event.origin
        self._jump_origin(o.path, o.line, o.col)

    def _jump_origin(self, path: str, line: int, col: int) -> None:
        if same_file(path, self.path_str):
            self.jump_to(line, col)
        else:
            self.notify(_("That is in {where}, not in this file.").format(where=f"{display_path(path)}:{line}:{col}"),
                        title=_("Other file"))

    def action_next_problem(self) -> None:
        own = sorted((d for d in (self.validation.in_file(self.path_str) if self.validation else [])),
                     key=lambda d: (d.line, d.col))
        if not own:
            self.notify(_("No problems in this file.") if self.validation and not self.validation.diagnostics
                        else _("No problems in this file (see the list for other files)."))
            return
        row, col = self.text_area.cursor_location
        here = (row + 1, col + 1)
        nxt = next((d for d in own if (d.line, max(d.col, 1)) > here), own[0])
        self.jump_to(nxt.line, nxt.col)
        self.notify(nxt.message, title=f"{nxt.line}:{nxt.col}", severity="error" if nxt.severity == "error"
                    else "warning", timeout=4)

    def action_focus_problems(self) -> None:
        problems = self.query_one(DiagnosticsList)
        if not problems.display:
            self.notify(_("No problems."), timeout=2)
            return
        problems.focus()
        if problems.highlighted is None and problems.diagnostics:
            problems.highlighted = 0

    # -------------------------------------------------------------- panel
    def action_toggle_view(self) -> None:
        panel = self.query_one(SidePanel)
        if not panel.display:
            panel.set_visible(True)
        panel.toggle_view()

    def action_toggle_panel(self) -> None:
        panel = self.query_one(SidePanel)
        panel.set_visible(not panel.display)

    # -------------------------------------------------------------- editing helpers
    def action_insert(self) -> None:
        if self.read_only:
            self.notify(_("This ruleset is read-only: press F4 to start a variant of it."), severity="warning")
            return
        area = self.text_area
        row, col = area.cursor_location
        prefix = word_before(area.document.get_line(row), col)
        resolved, parent = self.last_resolved, self._parent_resolved()
        if self.validation is None or not self.validation.ok:
            # the text does not load (a new file, a broken one) and the version that last did, if any,
            # had another parent: offer what the parent the text names has
            named = self._parent_of_text()
            if named is not None and (resolved is None or len(resolved.chain) < 2
                                      or not same_file(resolved.chain[1], named.chain[1])):
                resolved = parent = named
        self.app.push_screen(PickerScreen(items_for(resolved, parent), prefix), self._inserted)

    def _parent_of_text(self) -> ResolvedRuleset | None:
        """The ruleset the text's ``extends:`` line names, resolved as from this file (a variant that
        changes nothing), or None. For Ctrl+N while the text does not load yet."""
        m = _EXTENDS.search(self.text)
        if m is None:
            return None
        name = m.group(1)
        if self._extends_cache is not None and self._extends_cache[0] == name:
            return self._extends_cache[1]
        try:
            value: ResolvedRuleset | None = resolve_text(f"ruleset: {self.path.stem}\nextends: {name}\n", self.path,
                                                         search=self.workspace.search)
        except GoujiError:
            value = None
        self._extends_cache = (name, value)
        return value

    def _parent_resolved(self) -> ResolvedRuleset | None:
        """The parent ruleset as resolved from disk (its values are what an inserted setting starts from)."""
        resolved = self.last_resolved
        if resolved is None or len(resolved.chain) < 2:
            return None
        parent = resolved.chain[1]
        key = (parent, _signature(list(resolved.chain[1:])))
        if self._parent_cache is not None and self._parent_cache[0] == key:
            return self._parent_cache[1]
        try:
            value: ResolvedRuleset | None = resolve(Path(parent), search=self.workspace.search)
        except GoujiError:
            value = None
        self._parent_cache = (key, value)
        return value

    def _inserted(self, item: Item | None) -> None:
        if item is None:
            return
        self.insert_item(item)

    def insert_item(self, item: Item) -> None:
        """Insert ``item`` at the cursor, replacing the part of the name already typed."""
        area = self.text_area
        row, col = area.cursor_location
        line = area.document.get_line(row)
        prefix = word_before(line, col)
        n = replacement(prefix, item.insert)
        text = indent_for(item.text_at(line[:col - n]), col - n)
        area.replace(text, (row, col - n), (row, col))
        area.focus()

    def action_toggle_comment(self) -> None:
        if self.read_only:
            return
        area = self.text_area
        start, end = sorted(area.selection)
        first, last = start[0], end[0]
        if last > first and end[1] == 0:
            last -= 1  # a selection ending at the start of a line does not include it
        lines = [area.document.get_line(i) for i in range(first, last + 1)]
        body = [ln for ln in lines if ln.strip()]
        uncomment = bool(body) and all(ln.lstrip().startswith("#") for ln in body)
        if uncomment:
            new = []
            for ln in lines:
                stripped = ln.lstrip()
                if stripped.startswith("#"):
                    lead = ln[: len(ln) - len(stripped)]
                    rest = stripped[1:]
                    new.append(lead + (rest[1:] if rest.startswith(" ") else rest))
                else:
                    new.append(ln)
        else:
            indent = min((len(ln) - len(ln.lstrip()) for ln in body), default=0)
            new = [ln[:indent] + "# " + ln[indent:] if ln.strip() else ln for ln in lines]
        area.replace("\n".join(new), (first, 0), (last, len(lines[-1])))
        area.selection = type(area.selection)((first, 0), (last, len(new[-1])))

    # -------------------------------------------------------------- saving
    def action_save(self) -> None:
        if self.read_only:
            self.notify(_("Bundled rulesets are read-only; a variant extends this one instead."),
                        title=_("Read-only"))
            self.action_new_variant()
            return
        self.save()

    def save(self, then: Callable[[bool], None] | None = None) -> None:
        """Save, asking first if the file changed on disk or is read-only; calls ``then(saved)`` when
        done. A save writes through a symbolic link to its target (the link stays); a save that
        cannot happen (a full disk, the file turned into a folder, no permission) leaves the text in
        the buffer and in this editor's recovery copy, and says so."""
        try:
            target = files.save_target(self.path)
        except files.SaveProblem as e:
            self._not_saved(str(e))
            if then:
                then(False)
            return
        if self.disk.changed_on_disk(self.path):
            def answer(choice: str | None) -> None:
                if choice == "overwrite":
                    self._save_checked(target, then)
                    return
                if choice == "reload":
                    self._reload()
                else:
                    self._keep_in_recovery()
                if then:
                    then(False)
            self.app.push_screen(ConfirmScreen(
                _("Changed on disk"),
                _("{name} was changed by something else since you opened it.").format(name=self.display_name),
                [Choice("overwrite", _("Overwrite"), "error", "o"), Choice("reload", _("Reload"), "warning", "r"), cancel_choice()],
                default="cancel",
                detail=_("Overwrite: save your text over it.  Reload: drop your changes and load the file.  "
                         "Cancel: keep editing (your text stays in the recovery file).")), answer)
            return
        self._save_checked(target, then)

    def _save_checked(self, target: Path, then: Callable[[bool], None] | None) -> None:
        """Save to ``target``, asking first when it is read-only."""
        if files.is_read_only(target):
            def answer(choice: str | None) -> None:
                ok = choice == "overwrite" and self._write(target)
                if choice != "overwrite":
                    self._keep_in_recovery()
                if then:
                    then(ok)
            where = "" if target == self.path.absolute() else " " + _("(the link's target {path})").format(path=display_path(target))
            self.app.push_screen(ConfirmScreen(
                _("Read-only file"), _("{name} is read-only.").format(name=f"{self.display_name}{where}"),
                [Choice("overwrite", _("Overwrite"), "error", "o"), cancel_choice()], default="cancel",
                detail=_("Overwrite: replace it with your text anyway (it stays read-only).  "
                         "Cancel: keep editing (your text stays in the recovery file).")), answer)
            return
        ok = self._write(target)
        if then:
            then(ok)

    def _keep_in_recovery(self) -> Path | None:
        """Write the buffer to this editor's recovery copy now; where, or None when that failed too."""
        if self.read_only or self.text == self.saved_text:
            return None
        try:
            self._write_own_recovery(self.text)
        except OSError as e:
            self.log.warning(f"recovery copy failed: {e}")
            return None
        return self.recovery_slot

    def _not_saved(self, why: str) -> None:
        """A save failed: the text stays in the buffer and goes to the recovery copy; say both."""
        copy = self._keep_in_recovery()
        kept = (_("Your text is kept here and in {path}.").format(path=display_path(copy)) if copy is not None else
                _("Your text is kept here (the recovery copy could not be written either): free some "
                  "space or save elsewhere before closing."))
        self.notify(printable(_("Could not save {name}: {why}.").format(name=self.display_name, why=why) + f" {kept}"),
                    title=_("Not saved"),
                    severity="error", timeout=12, markup=False)  # a file's name is no markup

    def _write(self, target: Path | None = None) -> bool:
        text = self.text
        try:
            data = files.atomic_write(target, text) if target is not None else files.save_text(self.path, text)
        except files.SaveProblem as e:
            self._not_saved(str(e))
            return False
        except OSError as e:
            self._not_saved(e.strerror or str(e))
            return False
        self.saved_text = text
        self.disk = files.DiskState.from_bytes(self.path, data)
        self._disk_warned = False
        self._drop_own_recovery()
        self._update_title()
        self._show_status()
        self.run_worker(self._report_saved(text), group="saved", exit_on_error=False)
        return True

    async def _report_saved(self, text: str) -> None:
        """Say the file was saved, and whether the saved text is valid: once the check of that very
        text is shown. A save right after typing waits for it, never reports the check of an earlier
        text — also when the keys and Ctrl+S came in one burst and the editor has not yet seen the
        text change of the last keys (its generation is behind then, the text is not). Typing on
        meanwhile: the message says only that it was saved."""
        name = self.display_name
        while self.validated_text != text and self.text == text:
            if self._debounce is not None:
                self._schedule_validation(0)  # no need to wait for the pause in typing
            elif self.validated_generation == self.generation:
                self._validate(self.generation, text)  # (the last check shown is of another text)
            self._validated.clear()
            await self._validated.wait()
        v = self.validation
        state = (_("valid") if v.ok else _("with problems")) if v is not None and self.validated_text == text else ""
        self.notify(printable((_("Saved {name} ({state}).") if state else _("Saved {name}.")).format(name=name, state=state)),
                    timeout=3, markup=False)

    def _reload(self) -> bool:
        try:
            text, raw = files.read_text(self.path)
        except (OSError, UnicodeDecodeError) as e:
            self.notify(printable(_("Could not reload {name}: {error}").format(name=self.display_name,
                                                                                 error=getattr(e, 'strerror', None) or e)),
                        severity="error", markup=False)
            return False
        self.saved_text = text
        self.disk = files.DiskState.from_bytes(self.path, raw)
        self._disk_warned = False
        self.text_area.load_text(text)
        self._drop_own_recovery()
        self._update_title()
        return True

    # -------------------------------------------------------------- recovery and disk watch
    def _write_own_recovery(self, text: str) -> None:
        if self.recovery_slot is None:
            self.recovery_slot = files.new_recovery_slot(self.path)
        self._hold(self.recovery_slot)
        files.write_recovery(self.path, text, self.recovery_slot)
        self._recovery_text = text

    def _drop_own_recovery(self) -> None:
        """The buffer was saved, reloaded or its changes discarded: its own copy is not needed.
        Copies of other sessions (kept with "Later") stay."""
        files.remove_recovery_copy(self.recovery_slot)
        self.recovery_slot = None
        self._recovery_text = None
        self._hold(None)

    def _hold(self, copy: Path | None) -> None:
        """Hold the lock of this editor's own copy (another editor of the file then leaves it alone)."""
        if self._copy_lock is not None and (copy is None or self._copy_lock.copy != copy):
            self._copy_lock.release()
            self._copy_lock = None
        if copy is not None and self._copy_lock is None:
            self._copy_lock = files.CopyLock(copy)

    def _save_recovery(self) -> None:
        if not self.dirty or not self.is_mounted:
            return
        text = self.text
        if text != self._recovery_text:
            try:
                self._write_own_recovery(text)
            except OSError as e:
                self.log.warning(f"recovery copy failed: {e}")

    def interrupted_note(self) -> str | None:
        """(SIGTERM: :meth:`editor.terminal_keys.XtermKeysApp.interrupted_notes`) what closing cost."""
        return _("unsaved text is kept in its recovery copy, offered when its file is opened again") if self.dirty else None

    def on_unmount(self) -> None:
        # The app is closing (or crashed) with unsaved text: keep it for next time.
        try:
            if not self.read_only and self.text != self.saved_text and self.text != self._recovery_text:
                self._write_own_recovery(self.text)
        except Exception:
            pass
        self._hold(None)  # closed: the copy left on disk is offered to the next editor of the file

    def pending_recoveries(self) -> list[files.Recovery]:
        """Recovery copies of this file other than this editor's own, newest first. A copy that holds
        exactly the file's text (nothing was lost) is removed on the way."""
        out = []
        for rec in files.find_recoveries(self.path):
            if self.recovery_slot is not None and same_file(rec.path, self.recovery_slot):
                continue
            if files.copy_in_use(rec.path):
                continue  # the copy of an editor still open (another terminal): not left by a crash
            if rec.text in (self.saved_text, self.initial_text):
                files.remove_recovery_copy(rec.path)
                continue
            out.append(rec)
        return out

    def offer_recovery(self, *, quiet: bool = True) -> None:
        """Offer each waiting recovery copy in turn (a dialog with a diff: restore, discard, later)."""
        if self.read_only:
            return
        pending = self.pending_recoveries()
        if not pending:
            if not quiet:
                self.notify(_("No unsaved text is waiting for this file."), timeout=3)
            return
        self._offer(pending, 0)

    def _offer(self, pending: list[files.Recovery], i: int) -> None:
        if i >= len(pending):
            return
        rec = pending[i]

        def answer(choice: RecoveryChoice | None) -> None:
            if choice == RecoveryChoice.RESTORE:
                self.restore(rec)
                self.notify(_("Recovered text restored; save it with Ctrl+S."), title=_("Restored"))
            elif choice == RecoveryChoice.DISCARD:
                files.remove_recovery_copy(rec.path)
            else:
                self.notify(_("Kept {path}: F6 (or the next time you open the file) offers it again.").format(path=display_path(rec.path)),
                            title=_("Recovered text kept"), timeout=5)
            self._offer(pending, i + 1)
        self.app.push_screen(RecoveryScreen(self.display_name, rec, self.saved_text, position=(i + 1, len(pending))),
                             answer)

    def action_recover(self) -> None:
        self.offer_recovery(quiet=False)

    def _tick(self) -> None:
        """Every few seconds: copy unsaved text to the recovery file; notice changes on disk (of this
        file: warn; of a parent: check again)."""
        self._save_recovery()
        if self.is_validated and self._deps and _signature(list(self._deps)) != self._deps:
            self._schedule_validation(0)
        if not self.read_only and not self._disk_warned and self.disk.changed_on_disk(self.path):
            self._disk_warned = True
            if self.path.is_dir():
                copy = self._keep_in_recovery()
                self.notify((_("{name} is now a folder: it cannot be saved there. Your text is kept here and in {path}.")
                             if copy is not None else
                             _("{name} is now a folder: it cannot be saved there. Your text is kept here.")).format(
                                 name=self.display_name, path=display_path(copy) if copy is not None else ""),
                            title=_("Changed on disk"), severity="warning", timeout=8)
            else:
                self.notify(_("{name} changed on disk. Saving will ask before overwriting it.").format(name=self.display_name),
                            title=_("Changed on disk"), severity="warning", timeout=6)
            self._show_status()

    def restore(self, recovery: files.Recovery | str) -> None:
        """Replace the buffer with recovered text (undoable; the buffer stays unsaved). A
        :class:`~editor.files.Recovery` copy becomes this editor's own copy: it is removed when the
        buffer is saved; the copy this editor wrote before, if any, stays on disk."""
        text = recovery if isinstance(recovery, str) else recovery.text
        area = self.text_area
        end = (area.document.line_count - 1, len(area.document.get_line(area.document.line_count - 1)))
        area.replace(text, (0, 0), end)
        area.cursor_location = (0, 0)
        if not isinstance(recovery, str):
            self.recovery_slot = recovery.path
            self._recovery_text = text
            self._hold(recovery.path)

    # -------------------------------------------------------------- leaving
    def action_new_variant(self) -> None:
        self.app.new_variant(parent=self.path.stem)  # type: ignore[attr-defined]

    def action_compare(self) -> None:
        from .compare import RulesetSource, ask_compare
        src = RulesetSource(self.path_str, self.path.stem, self.workspace.is_bundled(self.path),
                            self.text if self.dirty or not self.path.exists() else None)
        resolved = self.last_resolved  # its parent is offered first
        parent = resolved.chain[1] if resolved is not None and len(resolved.chain) > 1 else None
        ask_compare(self.app, self.workspace, src, parent=parent)

    def action_test_play(self) -> None:
        """Play the buffer as it is now (saved or not) against heuristic bots; a rule the play
        screen names opens here, at its line."""
        from ..play import graph_from_buffer, open_test_play
        open_test_play(self.app, lambda: graph_from_buffer(self.text, self.path_str), self.path_str,
                  lambda path, line: self.jump_to(line, 1))

    def action_close(self) -> None:
        def leave(ok: bool) -> None:
            if ok:
                self.dismiss(None)
        self.confirm_leave(leave)

    def confirm_leave(self, then: Callable[[bool], None]) -> None:
        """Ask about unsaved changes (save / discard / cancel); ``then(True)`` when it is fine to leave."""
        if not self.dirty:
            then(True)
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save(then)
            elif choice == "discard":
                self._drop_own_recovery()
                self.saved_text = self.text  # nothing left to ask about
                then(True)
            else:
                then(False)
        self.app.push_screen(ConfirmScreen(
            _("Unsaved changes"), _("{name} has unsaved changes.").format(name=self.display_name),
            [Choice("save", _("Save"), "primary", "s"), Choice("discard", _("Discard changes"), "error", "d"), cancel_choice()],
            default="save"), answer)
