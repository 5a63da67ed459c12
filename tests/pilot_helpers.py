"""Pilot helpers shared by the app's tests (editor, compare, play wiring).

Waits are event-driven: the editor and the home screen say when their checks are done
(:meth:`EditorScreen.wait_validated`, :meth:`HomeScreen.wait_checked`), and :func:`wait_for` lets the
app run (its message queue drained) until a condition holds. None of them
assumes how fast the machine is: :data:`HANG_GUARD` only stops a test that can never finish.
"""
from __future__ import annotations

import asyncio

from gouji_app.screens.editor import EditorScreen
from gouji_app.screens.home import HomeScreen
from gouji_app.widgets.footer import FittingFooter

HANG_GUARD = 600.0
"""Seconds after which a wait is taken for a hang (a bug), not for a slow machine."""


async def _guarded(awaitable, what: str) -> None:
    try:
        await asyncio.wait_for(awaitable, HANG_GUARD)
    except TimeoutError:
        raise AssertionError(f"{what} never happened (waited {HANG_GUARD:.0f} s: a hang)") from None


async def wait_for(pilot, condition, timeout: float | None = None, what: str = "condition") -> None:
    """Let the app run until ``condition()`` holds: each round drains the app's message queue
    (``pilot.pause``), so a condition the app's own events (a worker's result, a timer, a key)
    make true is seen as soon as they are handled. ``timeout`` is accepted for old callers and
    ignored: a slow (loaded) machine only makes the wait longer."""
    async def rounds() -> None:
        while not condition():
            await pilot.pause(0.02)
    await _guarded(rounds(), what)


def notes(app) -> list:
    """Every notification the app has shown, in order, expired or not (title, message, markup: kept by
    the conftest's ``_every_notification_is_kept``; ``app._notifications`` forgets them after their timeout)."""
    return list(getattr(app, "notes_seen", []))


async def footer_settled(pilot) -> None:
    """The current screen's footer has fitted its keys to the width (compact or not: it measures
    them once laid out, so a screenshot taken before could show either)."""
    await wait_for(pilot, lambda: all(f.settled for f in pilot.app.screen.query(FittingFooter)), what="the footer")


async def editor_ready(pilot) -> EditorScreen:
    """The editor screen, once the current text is validated."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, EditorScreen), what="the editor")
    screen = pilot.app.screen
    await _guarded(screen.wait_validated(), "validation")
    await pilot.pause()
    await footer_settled(pilot)
    return screen


async def home_ready(pilot) -> HomeScreen:
    """The home screen, once every listed ruleset is checked."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen), what="home")
    home = pilot.app.screen
    await _guarded(home.wait_checked(), "home validation")
    await pilot.pause()
    await footer_settled(pilot)
    return home


def screen_text(app) -> str:
    """What the terminal shows now, as plain text (one line per row): for checks of what a user
    reads at a given size (a cut word, a line too long)."""
    import io

    from rich.console import Console
    lines = app.screen._compositor.render_update(full=True)
    console = Console(width=app.size.width, height=app.size.height, record=True, color_system=None,
                      legacy_windows=False, force_terminal=False, file=io.StringIO())
    console.print(lines)
    return console.export_text()
