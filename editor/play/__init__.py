"""Test-play a ruleset in the TUI against bots, with every decision explained (issue 5).

- :class:`~editor.play.screen.PlayScreen`: the play screen (works inside any Textual app).
- :class:`~editor.play.app.PlayApp` / :data:`~editor.play.command.play_command`: ``gouji play``.
- :class:`~editor.play.session.PlaySession`: the game behind the screen (no Textual).
- :func:`graph_from_buffer`: compile an unsaved editor buffer for a test-play.
- :func:`open_test_play`: open the play screen from another screen of the app.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:  # the engine is imported when a game starts, not by `gouji --help`
    from gouji_dsl.ruleset.graph import RuleGraph


def graph_from_buffer(text: str, path: str | os.PathLike[str]) -> RuleGraph:
    """Resolve and compile the unsaved ``text`` of the ruleset file ``path`` (its parents are read
    from disk). Raises :class:`~gouji_dsl.diagnostics.GoujiError` with every problem."""
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    return compile_ruleset(resolve_text(text, path), overlay={os.fspath(path): text})


def open_test_play(app, make_graph, own_path: str | os.PathLike[str], show_rule) -> None:
    """Open a play screen in ``app`` on the graph ``make_graph()`` returns, against heuristic bots
    from a fresh seed. A rule the screen names that lives in ``own_path`` is handed to
    ``show_rule(path, line)`` after the play screen is closed; a rule elsewhere is shown by the play
    screen itself. A ruleset that does not compile is reported as a notification."""
    import random

    from gouji_dsl.diagnostics import GoujiError

    from .screen import PlayScreen
    try:
        graph = make_graph()
    except GoujiError as e:
        app.notify(e.diagnostics[0].short(), title=_("Fix the ruleset to test-play it"), severity="error")
        return

    def open_rule(path: str, line: int) -> bool:
        if os.path.normcase(os.path.abspath(path)) != os.path.normcase(os.path.abspath(own_path)):
            return False  # another file: the play screen shows the rule's lines itself
        screen.leave()
        show_rule(path, line)
        return True
    screen = PlayScreen(graph, seat=1, seed=random.randrange(10**6), bots="heuristic", on_open_rule=open_rule)
    app.push_screen(screen)


def __getattr__(name: str):
    if name == "PlayScreen":
        from .screen import PlayScreen
        return PlayScreen
    if name == "PlayApp":
        from .app import PlayApp
        return PlayApp
    if name in ("play_command", "main"):
        from . import command
        return getattr(command, name)
    if name == "PlaySession":
        from .session import PlaySession
        return PlaySession
    raise AttributeError(name)


__all__ = ["graph_from_buffer", "open_test_play", "PlayScreen", "PlayApp", "PlaySession", "play_command", "main"]
