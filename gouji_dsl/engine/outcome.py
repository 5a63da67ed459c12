"""The result of a finished game, as one immutable value."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``places``: seat → place (1 = 头科 … N = 大落); ``scores``: seat → points for the game;
    ``sweep``: one team took the sweep places (串三户); ``voided``: the deal was voided (e.g. by two
    revolutions) and the game never started, so there are no places; ``finish_order``: the seats
    that went out by playing their last card, in order (players placed otherwise are not in it).
    The mappings are read-only views."""

    places: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    scores: Mapping[int, int | float] = field(default_factory=lambda: MappingProxyType({}))
    sweep: bool = False
    voided: bool = False
    finish_order: tuple[int, ...] = ()

    @classmethod
    def of(cls, *, places: Mapping[int, int], scores: Mapping[int, int | float], sweep: bool, voided: bool,
           finish_order: tuple[int, ...] | list[int] = ()) -> Outcome:
        """An outcome holding copies of the given mappings (so later changes to them do not leak in)."""
        return cls(MappingProxyType(dict(sorted(places.items()))), MappingProxyType(dict(sorted(scores.items()))),
                   bool(sweep), bool(voided), tuple(finish_order))

    def seat_at(self, place: int) -> int | None:
        """The seat that took ``place``, or None."""
        return next((s for s, p in self.places.items() if p == place), None)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (seat keys as strings, as in game records)."""
        return {"places": {str(s): p for s, p in self.places.items()},
                "scores": {str(s): v for s, v in self.scores.items()},
                "sweep": self.sweep, "voided": self.voided, "finish_order": list(self.finish_order)}
