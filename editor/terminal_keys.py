"""Keys Textual cannot tell from terminal replies (F3 with a modifier in the xterm encoding), and keys
that reach a dialog before it is ready (held for it); and SIGTERM, which closes either gouji app
as Ctrl+Q does (:meth:`XtermKeysApp.interrupted_notes`, :func:`run_as_command`).

xterm, tmux, VTE terminals (GNOME Terminal, Tilix...) and xterm.js (the browser) send shift+F3 as
``ESC [1;2R`` and ctrl+F3 as ``ESC [1;5R`` — exactly the shape of a cursor position report (the
answer to ``ESC [6n``: row 1, column 2 or 5). Textual 8.2.8 reads every such sequence as
:class:`textual.events.CursorPosition`, so the key never arrives as a key. A full-screen app never
asks where the cursor is (only the inline driver does), so a report there is a key press: the
column is 1 + the xterm modifier bits (1 shift, 2 alt, 4 ctrl).

A key that opens a dialog (ctrl+S: the save path) is handled before the dialog exists: Textual pushes
the screen, and the dialog composes, mounts and focuses its text box in later rounds of the event
loop. Keys the terminal delivered meanwhile (typed on at once, or queued while a search bot held the
interpreter and the loop ran slowly: issue 22.27) went to a screen with no focused widget, which
drops them. :class:`XtermKeysApp` holds such keys until the dialog has focused a widget (or has
settled without one) and then delivers them in the order typed.
"""
from __future__ import annotations

import asyncio
import signal
import sys
import threading
from typing import Any

from textual import events
from textual.app import App, SystemCommand
from textual.screen import ModalScreen
from textual.widgets import HelpPanel

from .i18n import N_, _
from .widgets.keys_panel import KeysHelpPanel

#: Textual's own commands of the palette (their titles and help, as Textual 8.2.8 writes them), translated where shown
TEXTUAL_COMMANDS = (
    N_("Theme"), N_("Change the current theme"), N_("Quit"), N_("Quit the application as soon as possible"),
    N_("Keys"), N_("Hide the keys and widget help panel"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Minimize"), N_("Minimize the widget and restore to normal size"), N_("Maximize"),
    N_("Maximize the focused widget"), N_("Screenshot"), N_("Save an SVG 'screenshot' of the current screen"),
    N_("palette"),  # the footer's ctrl+p key
    N_("Focus Next"), N_("Focus Previous"), N_("Copy selected text"),  # Textual's Screen / Input bindings
)

_MODIFIER_BITS = ((1, "shift"), (2, "alt"), (4, "ctrl"))
HELD_KEY_ROUNDS = 8
"""How many idle rounds of the screen held keys wait for a new dialog to focus a widget before they
are delivered to it as it is (a dialog that focuses nothing gets its keys all the same), and for the
key before them to move on (a node that closed with the key's follower queued: the keys go on)."""


def modified_f3(x: int, y: int) -> str | None:
    """The key name Textual gives F3 with the modifiers of report ``(x, y)`` (0-based), or None.

    ``ESC [1;2R`` (row 1, column 2 → ``x=1, y=0``) is ``shift+f3``; modifiers in Textual's
    (alphabetical) order: ``ctrl+shift+f3``.
    """
    bits = x  # column = 1 + bits, and x = column - 1
    if y != 0 or not 1 <= bits <= 7:
        return None
    names = sorted(name for bit, name in _MODIFIER_BITS if bits & bit)
    return "+".join([*names, "f3"])


class XtermKeysApp(App[None]):
    """The gouji apps' base: a cursor position report in a full-screen app is F3 with modifiers, as a key;
    an unexpected exception ends the app as it ends every gouji command (below)."""

    def _handle_exception(self, error: Exception) -> None:
        """One line naming the exception and its saved crash report, and exit status 2 — not Textual's
        traceback with every local variable over the screen and status 1 (which means bad input here;
        the command exited 0, a fresh tester saw)."""
        super()._handle_exception(error)  # exits; a test's pilot still gets the exception
        from rich.text import Text

        from gouji_dsl.tools.cli import internal_error_line
        from gouji_dsl.tools.exits import EXIT_INTERNAL
        self._exit_renderables[:] = [Text(internal_error_line(error))]
        self._return_code = EXIT_INTERNAL

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._held_keys: list[events.Key] = []
        self._key_in_flight: events.Key | None = None
        self._path_left: list[Any] = []
        self._held_rounds = 0
        self._delivery_due = False
        #: set when SIGTERM closed the app: the line :func:`run_as_command` prints once the terminal is back
        self.interrupted: str | None = None
        self._sigterm_before: object = None

    def get_system_commands(self, screen: Any) -> Any:
        """Textual's own commands of the palette (Theme, Keys, Screenshot ...), in the active language."""
        for cmd in super().get_system_commands(screen):
            yield SystemCommand(_(cmd.title), _(cmd.help), cmd.callback, cmd.discover)

    def action_command_palette(self) -> None:
        """Textual's command palette, its prompt in the active language."""
        from textual.command import CommandPalette
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(CommandPalette(placeholder=_("Search for commands…"), id="--command-palette"))

    def action_show_help_panel(self) -> None:
        """The Keys panel, its bindings in the active language (Textual's renders them as written)."""
        if not self.screen.query(HelpPanel):
            self.screen.mount(KeysHelpPanel())

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification of the gouji apps as plain text: names from files (a file ``a[b]x.yaml``,
        a rule id, a ruleset name, a message quoting them) are shown literally with their control
        characters escaped (:func:`gouji_dsl.tools.exits.shown`), never read as Textual markup (a
        closing tag that matches none crashed the app, issue 22). No notification uses markup."""
        from gouji_dsl.tools.exits import shown
        super().notify(shown(message, lines=True), title=shown(title), severity=severity, timeout=timeout,
                       markup=False)

    # -------------------------------------------------------------- SIGTERM
    def on_mount(self) -> None:
        self._catch_sigterm()

    def on_unmount(self) -> None:
        self._release_sigterm()

    def _catch_sigterm(self) -> None:
        """SIGTERM (``kill PID``, a closed session) closes the app as Ctrl+Q does, without asking: the
        screens are closed as on Ctrl+Q (a running simulation is cancelled and its worker processes
        end, a search bot's process ends, unsaved text is kept in its recovery copy), the terminal is
        restored; then one line and exit status 130, as a command's run stopped by SIGTERM. Only
        where the app runs in the main thread (issue 29)."""
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            before = signal.getsignal(signal.SIGTERM)
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._terminated)
        except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - no signals here
            return
        self._sigterm_before = before

    def _release_sigterm(self) -> None:
        if self._sigterm_before is None:
            return
        before, self._sigterm_before = self._sigterm_before, None
        try:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, before)  # type: ignore[arg-type]
        except (RuntimeError, ValueError, TypeError):  # pragma: no cover - the loop is gone already
            pass

    def interrupted_notes(self) -> list[str]:
        """What closing now costs, in words, for the SIGTERM line: each open screen's
        ``interrupted_note()`` (a screen class that has one: the compare screen's running
        simulation, the editor's unsaved text, the play screen's unsaved game), each note once."""
        notes: list[str] = []
        for screen in self.screen_stack:
            note_of = getattr(screen, "interrupted_note", None)
            note = note_of() if callable(note_of) else None
            if isinstance(note, str) and note and note not in notes:
                notes.append(note)
        return notes

    def _terminated(self) -> None:
        from gouji_dsl.tools.exits import EXIT_INTERRUPTED
        self._release_sigterm()  # a second SIGTERM while the app closes ends it at once
        self.interrupted = "; ".join(["interrupted (SIGTERM): the app closed", *self.interrupted_notes()])
        self.exit(return_code=EXIT_INTERRUPTED)

    def _dialog_not_ready(self) -> bool:
        """The screen on top is a dialog that has not focused a widget yet but is about to (it is
        still being mounted, or it has a widget to focus)."""
        screen = self.screen
        if not isinstance(screen, ModalScreen) or screen.focused is not None:
            return False
        return not screen.is_mounted or any(w.focusable for w in screen.query("*"))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._held_keys.append(event)  # in the order typed, behind any key not yet delivered
            await self._deliver_keys()
            return
        await super().on_event(event)

    async def _deliver_keys(self) -> None:
        """Deliver the held keys one at a time: a key goes on only once the key before it has been
        handled all the way up (its action done: a dialog it opens exists), and once a dialog on top
        has focused its widget (or after :data:`HELD_KEY_ROUNDS` idle rounds of it)."""
        self._delivery_due = False
        while self._held_keys and self._key_in_flight is None:
            if self._dialog_not_ready() and self._held_rounds < HELD_KEY_ROUNDS:
                self._held_rounds += 1
                if not self._delivery_due:
                    self._delivery_due = True
                    self.call_after_refresh(self._deliver_later)
                return
            self._held_rounds = 0
            key = self._held_keys.pop(0)
            target = self.focused or self.screen
            await super().on_event(key)  # Textual's own dispatch: priority bindings, else to the focused widget
            if key.is_forwarded:
                self._key_in_flight = key
                self._follow(key, list(target.ancestors_with_self))
                if self._key_in_flight is key:
                    self.call_after_refresh(self._watch_in_flight, key, 0, len(self._path_left))

    def _deliver_later(self) -> None:
        self._delivery_due = False
        self.call_later(self._deliver_keys)

    def _follow(self, key: events.Key, path: list[Any]) -> None:
        """Follow ``key`` up ``path`` (the widget it went to, its parents, the screen, the app): a
        callback queued on each node after the key runs once that node has handled it (each node's
        messages are handled in order); the key is done where it stopped or at the app."""
        if self._key_in_flight is not key:
            return  # given up on (see _watch_in_flight)
        while path and not key._stop_propagation:
            node = path.pop(0)
            if node.call_later(self._follow, key, path):
                self._path_left = path
                return
        self._key_in_flight = None
        self.call_later(self._deliver_keys)

    def _watch_in_flight(self, key: events.Key, rounds: int, left: int) -> None:
        """Bound the wait for a key's follower: :data:`HELD_KEY_ROUNDS` idle rounds of the screen in
        which it moved no node up, and the next key goes on."""
        if self._key_in_flight is not key:
            return
        now = len(self._path_left)
        rounds = 0 if now != left else rounds + 1
        if rounds >= HELD_KEY_ROUNDS:
            self._key_in_flight = None
            self.call_later(self._deliver_keys)
            return
        self.call_after_refresh(self._watch_in_flight, key, rounds, now)

    def on_cursor_position(self, event: events.CursorPosition) -> None:
        if self.is_inline:
            return  # the inline driver asks for the cursor position: a real report
        key = modified_f3(event.x, event.y)
        if key is not None:
            self.simulate_key(key)


def run_as_command(app: XtermKeysApp) -> None:
    """Run ``app`` as a gouji command ends: after SIGTERM its one line (once the terminal is back) and
    exit status 130; after an internal error (its one line is printed) exit status 2; else return."""
    app.run()
    if app.interrupted:
        print(app.interrupted, file=sys.stderr)
    if app.return_code:
        sys.exit(app.return_code)
