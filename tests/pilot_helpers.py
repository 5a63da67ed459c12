"""Pilot helpers shared by the app's tests (editor, compare, play wiring)."""
from __future__ import annotations

import time

from gouji_app.screens.editor import EditorScreen
from gouji_app.screens.home import HomeScreen


async def wait_for(pilot, condition, timeout: float = 5.0, what: str = "condition") -> None:
    """Pause the app until ``condition()`` holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def editor_ready(pilot) -> EditorScreen:
    """The editor screen, once the current text is validated."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, EditorScreen), what="the editor")
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.is_validated, what="validation")
    return screen


async def home_ready(pilot) -> HomeScreen:
    """The home screen, once every listed ruleset is checked."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen), what="home")
    home = pilot.app.screen
    await wait_for(pilot, lambda: home.entries and not home.checking, what="home validation")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return home
