"""A game's result for the table's ``game_over`` / ``match_over`` messages: places, scores, team
scores, sweep and the tribute paid before its play (the same reading as the play screen's
scoreboard, editor/play/session.py ``summarize``; a candidate to share once both settle)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gouji_dsl.engine.interpreter import GameState


def team_score(state: GameState, team: int) -> int | float:
    """A team's score for the game: its players' common score, or their sum when they differ."""
    vals = [v for s, v in state.scores.items() if state.team(s) == team]
    if not vals:
        return 0
    return vals[0] if all(v == vals[0] for v in vals) else sum(vals)


def tribute_of(state: GameState) -> list[dict[str, Any]]:
    """The tribute transfers paid at the start of the deal that was played (none for a voided game)."""
    if state.voided:
        return []
    rec = state.record
    start = max((i for i, e in enumerate(rec) if e["type"] == "deal"), default=0)
    return [dict(e) for e in rec[start:] if e["type"] == "transfer" and str(e.get("rule", "")).startswith("tribute")]


def game_summary(state: GameState) -> dict[str, Any]:
    teams = sorted({state.team(s) for s in state.seat_list})
    return {"places": {str(s): p for s, p in sorted(state.places.items())},
            "scores": {str(s): v for s, v in sorted(state.scores.items())},
            "team_scores": {str(t): team_score(state, t) for t in teams}, "sweep": bool(state.sweep),
            "voided": bool(state.voided), "tribute": tribute_of(state)}


def match_totals(finals: Sequence[GameState]) -> dict[str, Any]:
    """Team totals over the finished games of the match."""
    totals: dict[str, Any] = {}
    for st in finals:
        if st.over:
            for t in sorted({st.team(s) for s in st.seat_list}):
                totals[str(t)] = totals.get(str(t), 0) + team_score(st, t)
    return totals


__all__ = ["game_summary", "match_totals", "team_score", "tribute_of"]
