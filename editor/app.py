"""GoujiApp: browse, author and validate Gouji rulesets.

Screens: :class:`~editor.screens.home.HomeScreen` (the rulesets of the workspace and the bundled
ones), :class:`~editor.screens.editor.EditorScreen` (one file), and modal dialogs for a new variant,
help, the insert picker and confirmations. Every key binding of the current screen is also a command
in the command palette (Ctrl+P).
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from gouji_dsl.diagnostics import GoujiError, printable

from . import files
from .helptext import help_markdown
from .i18n import N_, _
from .screens.editor import EditorScreen
from .screens.help import HelpScreen
from .screens.home import HomeScreen
from .screens.new_variant import NewVariantScreen
from .terminal_keys import XtermKeysApp
from .validation import same_file
from .workspace import Workspace, display_path

DEFAULT_WORKSPACE = "rules"


#: Textual's own tooltips the command palette shows (get_system_commands translates them)
TEXTUAL_TOOLTIPS = (N_("Open the command palette"),)


class GoujiApp(XtermKeysApp):
    """The gouji app on a workspace folder; ``open_path`` opens a file straight in the editor."""

    TITLE = "gouji"
    CSS_PATH = ["app.tcss", "editor.tcss", "compare.tcss"]
    BINDINGS = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False),
    ]

    def __init__(self, workspace: str | os.PathLike[str] | None = None, open_path: str | os.PathLike[str] | None = None,
                 *, cursor_blink: bool = True, compare: dict | None = None) -> None:
        super().__init__()
        self.compare_request = compare  # gouji compare A B: {"a", "b", "games", "seed", "bots", "simulate"}
        self.workspace = Workspace(workspace if workspace is not None else Path.cwd() / DEFAULT_WORKSPACE)
        self.open_path = Path(open_path) if open_path is not None else None
        self.cursor_blink = cursor_blink
        self.home: HomeScreen | None = None

    def get_default_screen(self) -> Screen:
        self.home = HomeScreen(self.workspace)
        return self.home

    def on_mount(self) -> None:
        if self.open_path is not None:
            self.open_file(self.open_path)
        if self.compare_request is not None:
            self.open_compare(**self.compare_request)
        # the help text reads the bundled rulesets for its examples: prepare it in the background
        self.run_worker(help_markdown, thread=True, group="warm-help", exit_on_error=False)

    # -------------------------------------------------------------- commands
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            b = active.binding
            if not b.description or not active.enabled or _(b.description) in seen:
                continue
            if not isinstance(active.node, (Screen, App)) and not b.show:
                continue  # a widget's own keys (cursor movement, ...): not commands
            seen.add(_(b.description))
            yield SystemCommand(_(b.description), f"{_(b.tooltip or b.description)} ({self.get_key_display(b)})",
                                partial(self.run_action, b.action, active.node))
        if _("Help") not in seen:
            yield SystemCommand(_("Help"), _("The ruleset language, with examples (F1)"), self.action_help)
        for cmd in super().get_system_commands(screen):  # (Textual's own, translated by XtermKeysApp)
            if cmd.title not in seen:
                yield cmd

    # -------------------------------------------------------------- actions
    @property
    def editor(self) -> EditorScreen | None:
        """The open editor screen, if any."""
        for s in reversed(self.screen_stack):
            if isinstance(s, EditorScreen):
                return s
        return None

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def open_file(self, path: str | os.PathLike[str]) -> None:
        """Open ``path`` in the editor (replacing an open one after asking about unsaved changes)."""
        path = Path(path)
        current = self.editor
        if current is not None:
            if same_file(current.path, path):
                while self.screen is not current:
                    self.pop_screen()
                return

            def replace(ok: bool) -> None:
                if ok:
                    self._close_editors()
                    self._open(path)
            current.confirm_leave(replace)
            return
        self._open(path)

    def _close_editors(self) -> None:
        while len(self.screen_stack) > 1 and self.editor is not None:
            self.pop_screen()

    def _open(self, path: Path) -> None:
        raw: bytes | None
        try:
            text, raw = files.read_text(path)
        except FileNotFoundError:
            name = path.stem if path.suffix in (".yaml", ".yml") else path.name
            text, raw = f"ruleset: {name}\n", None
            self.notify(printable(_("{path} does not exist yet: it is created when you save.").format(path=display_path(path))),
                        title=_("New file"), markup=False)
        except UnicodeDecodeError:
            self.notify(printable(_("{path} is not UTF-8 text.").format(path=display_path(path))), title=_("Cannot open"),
                        severity="error", markup=False)
            return
        except OSError as e:
            self.notify(printable(f"{display_path(path)}: {e.strerror or e}"), title=_("Cannot open"), severity="error",
                        markup=False)  # a file's name is no markup
            return
        screen = EditorScreen(path, self.workspace, text=text, raw=raw,
                              read_only=self.workspace.is_read_only(path), cursor_blink=self.cursor_blink)
        self.push_screen(screen)  # it offers the unsaved text of an editor that did not close normally

    def open_compare(self, a: str, b: str, **options) -> None:
        """Open the compare screen on rulesets ``a`` and ``b`` (names or paths); ``options``: games,
        seed, bots, simulate (see :class:`~editor.screens.compare.CompareScreen`)."""
        from .screens.compare import CompareScreen, RulesetSource
        try:
            sa, sb = RulesetSource.find(a, self.workspace), RulesetSource.find(b, self.workspace)
        except GoujiError as e:  # no such ruleset
            self.notify(e.format(), title=_("Cannot compare"), severity="error", timeout=10)
            return
        self.push_screen(CompareScreen(self.workspace, sa, sb, **options))

    def open_sweep(self, source: Any, **options: Any) -> None:
        """Open the sweep screen on ``source`` (a :class:`~editor.screens.compare.RulesetSource`, or None);
        ``options``: grids, games, seed, bots (see :class:`~editor.screens.sweep.SweepScreen`). The
        compare screen opens it so (the screens import each other one way: sweep uses compare's)."""
        from .screens.sweep import SweepScreen
        self.push_screen(SweepScreen(self.workspace, source, **options))

    def new_variant(self, parent: str | None = None) -> None:
        def created(path: Path | None) -> None:
            if path is not None:
                self.notify(_("Created {path}.").format(path=display_path(path)), title=_("New variant"))
                if self.home is not None and self.screen is self.home:
                    self.home.refresh_entries(select=path)
                self.open_file(path)
        self.push_screen(NewVariantScreen(self.workspace, parent), created)

    async def action_quit(self) -> None:
        """ctrl+q: quit, asking first about a game still being played on a play screen (F9, p) —
        save its record, leave, or stay — and then about an editor's unsaved text."""
        from .play.screen import PlayScreen
        playing = [s for s in self.screen_stack if isinstance(s, PlayScreen) and s.session.unfinished]
        if playing:
            playing[-1].confirm_leave(N_("Quitting"), self._quit_editor)
            return
        self._quit_editor()

    def _quit_editor(self) -> None:
        editor = self.editor
        if editor is None or not editor.dirty:
            self.exit()
            return
        if not isinstance(self.screen, EditorScreen):
            while self.screen is not editor:
                self.pop_screen()
        editor.confirm_leave(lambda ok: self.exit() if ok else None)


__all__ = ["GoujiApp", "DEFAULT_WORKSPACE"]
