"""A match's scoreboard, read the same way by the play screen (editor/play/session.py) and the club
table (:mod:`gouji_dsl.tools.table`): a team's score for a game, and the tribute paid before it."""
from __future__ import annotations

from typing import Any

from gouji_dsl.engine.interpreter import GameState


def team_score(state: GameState, team: int) -> int | float:
    """A team's score for the game: its players' common score, or their sum when they differ."""
    vals = [v for s, v in state.scores.items() if state.team(s) == team]
    if not vals:
        return 0
    return vals[0] if all(v == vals[0] for v in vals) else sum(vals)


def tribute_of(state: GameState) -> list[dict[str, Any]]:
    """The tribute paid at the start of ``state``'s game (transfers the engine made as tribute) —
    of the deal that is played: a deal voided and dealt again (a redeal) keeps its events in the
    record, but its tribute was never paid (the cards went back into the pack); a voided game
    that was not dealt again (fixed hands) paid none."""
    if state.voided:
        return []
    rec = state.record
    start = max((i for i, e in enumerate(rec) if e["type"] == "deal"), default=0)
    return [e for e in rec[start:] if e["type"] == "transfer" and str(e.get("rule", "")).startswith("tribute")]


__all__ = ["team_score", "tribute_of"]
