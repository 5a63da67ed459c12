"""The play screen as a standalone app (:class:`PlayApp`), run by ``gouji play``.

    python -m gouji_app.play.command online --seed 7
    python -c "from gouji_app.play.command import main; main()" rulebook

The click command itself is :data:`editor.play.command.play_command` (importable without Textual).
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from functools import partial
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from gouji_dsl.engine.records import GameRecord
from gouji_dsl.ruleset.graph import RuleGraph, load_graph

from ..i18n import N_, _
from ..terminal_keys import XtermKeysApp
from .screen import PlayScreen


def palette_commands(app: App, screen: Screen) -> Iterable[SystemCommand]:
    """Every binding of the screen (shown in the footer or not) as a command-palette entry."""
    seen: set[str] = set()
    for active in screen.active_bindings.values():
        b = active.binding
        if not b.description or not active.enabled or b.description in seen:
            continue
        if not isinstance(active.node, (Screen, App)) and not b.show:
            continue  # a widget's own keys (cursor movement, ...): not commands
        seen.add(b.description)
        help_text = f"{_(b.tooltip)} ({app.get_key_display(b)})" if b.tooltip else app.get_key_display(b)
        yield SystemCommand(_(b.description), help_text, partial(app.run_action, b.action, active.node))


class PlayApp(XtermKeysApp):
    """Test-play one ruleset (a :class:`RuleGraph`, a bundled name or a path)."""

    TITLE = "gouji play"
    STANDALONE_PLAY = True  # the play screen's close quits this app (PlayScreen.action_close)
    CSS_PATH = "play.tcss"  # the default screen's own CSS_PATH is not loaded by Textual
    BINDINGS = [Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False)]

    def __init__(self, ruleset: RuleGraph | str = "online", *, seat: int = 1, seed: Any = None,
                 bots: str = "heuristic", record: GameRecord | str | None = None, hands: dict[int, Any] | None = None,
                 leader: int | None = None, speed: str = "normal", autopass: bool = True, show_steps: bool = True,
                 review: bool = False):
        super().__init__()
        self.graph = ruleset if isinstance(ruleset, RuleGraph) else load_graph(ruleset)
        self.play_args: dict[str, Any] = dict(seat=seat, seed=random.randrange(1_000_000) if seed is None else seed, bots=bots,
                              record=record, hands=hands, leader=leader, speed=speed, autopass=autopass,
                              show_steps=show_steps, review=review)

    def get_default_screen(self) -> Screen:
        return PlayScreen(self.graph, **self.play_args)

    @property
    def play_screen(self) -> PlayScreen:
        for s in reversed(self.screen_stack):
            if isinstance(s, PlayScreen):
                return s
        raise LookupError("no play screen")

    async def action_quit(self) -> None:
        """ctrl+q: quit; a game or match still being played is not dropped without a question (the
        play screen's ctrl+b and ctrl+o ask the same: save the record first, leave, or stay)."""
        try:
            screen = self.play_screen
        except LookupError:
            self.exit()
            return
        screen.confirm_leave(N_("Quitting"), self.exit)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        names = set()
        for cmd in palette_commands(self, screen):
            names.add(cmd.title)
            yield cmd
        for cmd in super().get_system_commands(screen):
            if cmd.title not in names:
                yield cmd


__all__ = ["PlayApp", "palette_commands"]
