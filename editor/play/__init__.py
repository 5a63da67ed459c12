"""Test-play a ruleset in the TUI against bots, with every decision explained (issue 5).

- :class:`~editor.play.screen.PlayScreen`: the play screen (works inside any Textual app).
- :class:`~editor.play.app.PlayApp` / :data:`~editor.play.app.play_command`: ``gouji play``.
- :class:`~editor.play.session.PlaySession`: the game behind the screen (no Textual).
- :func:`graph_from_buffer`: compile an unsaved editor buffer for a test-play.
"""
from __future__ import annotations

import os

from gouji_dsl.graph import RuleGraph


def graph_from_buffer(text: str, path: str | os.PathLike[str]) -> RuleGraph:
    """Resolve and compile the unsaved ``text`` of the ruleset file ``path`` (its parents are read
    from disk). Raises :class:`~gouji_dsl.diagnostics.GoujiError` with every problem."""
    from gouji_dsl.graph import compile_ruleset
    from gouji_dsl.loader import resolve_text
    return compile_ruleset(resolve_text(text, path), overlay={os.fspath(path): text})


def __getattr__(name: str):
    if name == "PlayScreen":
        from .screen import PlayScreen
        return PlayScreen
    if name in ("PlayApp", "play_command", "main"):
        from . import app
        return getattr(app, name)
    if name == "PlaySession":
        from .session import PlaySession
        return PlaySession
    raise AttributeError(name)


__all__ = ["graph_from_buffer", "PlayScreen", "PlayApp", "PlaySession", "play_command", "main"]
