"""The design metrics' per-move facts (设计指标): a probed deal (:func:`~gouji_dsl.tools.figures.probed`) is
played with each seat's bot wrapped in a :class:`Probe`, which looks at every decision it is asked
(the number of legal moves, the seats' hand sizes and places) before the bot answers; the game is the
same game (the same bots with the same generators). :func:`design_of` turns what it saw into a
:class:`~gouji_dsl.tools.figures.Design` (definitions: README, Design metrics).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gouji_dsl.ruleset.graph import RuleFailed
from gouji_dsl.tools.figures import Design, team_of

Snapshot = tuple[int, int, tuple[int, ...], dict[int, int]]  # (trick_no, legal moves, hand sizes, places)


class Probe:
    """A bot that writes down each decision it is asked (``log``) and lets ``bot`` answer it."""

    def __init__(self, bot: Any, log: list[Snapshot], n_seats: int):
        self.bot, self.log, self.n = bot, log, n_seats

    def choose(self, state: Any, moves: Sequence[Any]) -> Any:
        sizes = tuple(state.hand_size(s) for s in range(1, self.n + 1))
        self.log.append((int(state.trick_no), len(moves), sizes, dict(state.places)))
        return self.bot.choose(state, moves)


def provisional_first(sizes: tuple[int, ...], places: dict[int, int]) -> int | None:
    """The seat in first place at a moment of the game: the one already placed first, else the one
    holding the fewest cards (None on a tie)."""
    for seat, place in places.items():
        if place == 1:
            return seat
    least = min(sizes)
    holders = [s for s, n in enumerate(sizes, start=1) if n == least]
    return holders[0] if len(holders) == 1 else None


def design_of(log: Sequence[Snapshot], decisions: int, tricks: int, places: dict[int, int], teams: int) -> Design:
    """The :class:`Design` of one game from its decisions' ``log`` (every decision a bot was asked) and its
    end (``decisions``, ``tricks``, final ``places``). Snapshots: the first decision of each trick (the
    table after the tricks before it)."""
    choices = sum(1 for _t, n, _s, _p in log if n > 1)
    firsts: list[int | None] = []
    seen: set[int] = set()
    for trick, _n, sizes, at in log:
        if trick not in seen:
            seen.add(trick)
            firsts.append(provisional_first(sizes, at))
    leaders = [team_of(f, teams) for f in firsts if f is not None]
    changes = sum(1 for a, b in zip(leaders, leaders[1:]) if a != b)
    final = next((s for s, p in places.items() if p == 1), None)
    last_other = max((j for j, f in enumerate(firsts) if f != final), default=-1)
    total = max(tricks, len(firsts))
    return Design(choices, len(log) or decisions, changes, min(last_other + 1, total), total)


def play_probed(graph: Any, seed: Any, index: int, bots: str | list[str], previous: Any, engine: str,
                record: bool = False) -> tuple[Any, Any]:
    """Game ``index`` played as :func:`~gouji_dsl.tools.simulate.play_game` plays it, each bot wrapped in
    a :class:`Probe`; the result carries ``design``."""
    from gouji_dsl.tools.simulate import _players, play_game, teams
    n = graph.n_seats
    names = [bots] * n if isinstance(bots, str) else list(bots)
    log: list[Snapshot] = []
    players = {s: Probe(b, log, n) for s, b in _players(names, seed, index, None).items()}
    try:
        res, state = play_game(graph, seed, index, bots, previous=previous, engine=engine, record=record, players=players)
    except RuleFailed:  # the game as every game is played: it fails with the same words (or, were it not to, no design)
        return play_game(graph, seed, index, bots, previous=previous, engine=engine, record=record)
    design = design_of(log, int(res.decisions), int(res.tricks), dict(res.places), teams(graph))
    res.design = design  # type: ignore[attr-defined]  # (read by summarize_game)
    return res, state
