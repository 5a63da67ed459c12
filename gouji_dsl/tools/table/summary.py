"""A game's result for the table's ``game_over`` / ``match_over`` messages: places, scores, team
scores, sweep and the tribute paid before its play (read as the play screen reads its scoreboard:
:mod:`gouji_dsl.tools.scoreboard`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gouji_dsl.engine.interpreter import GameState
from gouji_dsl.tools.scoreboard import team_score, tribute_of


def game_summary(state: GameState) -> dict[str, Any]:
    teams = sorted({state.team(s) for s in state.seat_list})
    return {"places": {str(s): p for s, p in sorted(state.places.items())},
            "scores": {str(s): v for s, v in sorted(state.scores.items())},
            "team_scores": {str(t): team_score(state, t) for t in teams}, "sweep": bool(state.sweep),
            "voided": bool(state.voided), "tribute": [dict(e) for e in tribute_of(state)]}


def match_totals(finals: Sequence[GameState]) -> dict[str, Any]:
    """Team totals over the finished games of the match."""
    totals: dict[str, Any] = {}
    for st in finals:
        if st.over:
            for t in sorted({st.team(s) for s in st.seat_list}):
                totals[str(t)] = totals.get(str(t), 0) + team_score(st, t)
    return totals


__all__ = ["game_summary", "match_totals", "team_score", "tribute_of"]
