"""Keys Textual cannot tell from terminal replies: F3 with a modifier in the xterm encoding.

xterm, tmux, VTE terminals (GNOME Terminal, Tilix...) and xterm.js (the browser) send shift+F3 as
``ESC [1;2R`` and ctrl+F3 as ``ESC [1;5R`` — exactly the shape of a cursor position report (the
answer to ``ESC [6n``: row 1, column 2 or 5). Textual 8.2.8 reads every such sequence as
:class:`textual.events.CursorPosition`, so the key never arrives as a key. A full-screen app never
asks where the cursor is (only the inline driver does), so a report there is a key press: the
column is 1 + the xterm modifier bits (1 shift, 2 alt, 4 ctrl).
"""
from __future__ import annotations

from textual import events
from textual.app import App

_MODIFIER_BITS = ((1, "shift"), (2, "alt"), (4, "ctrl"))


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

    def on_cursor_position(self, event: events.CursorPosition) -> None:
        if self.is_inline:
            return  # the inline driver asks for the cursor position: a real report
        key = modified_f3(event.x, event.y)
        if key is not None:
            self.simulate_key(key)
