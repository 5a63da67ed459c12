"""What one seat sees of a game (:class:`SeatView`): the only input a bot from outside the project gets.

A view is built from :meth:`GameState.view(seat) <gouji_dsl.engine.interpreter.GameState.view>`
(the seat's own hand, the other seats' counts and hands as the ruleset's ``see_count`` /
``see_hand`` rules allow, the public table) and the game's public history: every move line, and
every transfer between games (tribute, buying, return tribute) as ``"6 gives 1: R B"``. Cards a
seat hands back with a ``return`` move (还贡) are seen only by the two seats involved
(:data:`gouji_dsl.bots.determinize.HIDDEN_TRANSFER_RULES`): the others see the line without its
cards and how many there were (``hidden``). Nothing else of the record is read: the deal event
(every seat's hand, the seed) never reaches a view, so two games that differ only in cards the seat
cannot see give equal views.

A view is immutable, compared by value, and JSON-ready through :meth:`SeatView.to_json` (the
message an external process bot reads: README "Bots from outside").
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from gouji_dsl.bots.determinize import HIDDEN_TRANSFER_RULES, PUBLIC_CARD_VERBS
from gouji_dsl.engine.interpreter import GameState
from gouji_dsl.engine.native.record import render_event
from gouji_dsl.ruleset.game.terms import Verb

#: the record events a view reads (the others are the engine's bookkeeping, or hidden: ``deal``)
VIEW_EVENTS = frozenset({"move", "transfer"})

PROTOCOL_VERSION = 1
"""The version of the view and of the exec bots' messages (README "Bots from outside")."""


@dataclass(frozen=True)
class Seen:
    """One public event as the seat sees it: ``line`` (a move line in the project's notation, or a
    transfer ``"6 gives 1: R B"``) and ``hidden``: how many of its cards the seat does not see
    (a return tribute between two other seats: the line then names no cards)."""

    line: str
    hidden: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, **({"hidden": self.hidden} if self.hidden else {})}


@dataclass(frozen=True)
class OtherSeat:
    """Another seat as the viewer sees it: its ``team``, its card ``count`` and ``hand`` (canonical
    text) where the ruleset's rules show them (else None), and the cards it has ``played`` face up
    in this game (plays, burns, discards; canonical text, ``""`` for none)."""

    seat: int
    team: int
    count: int | None
    hand: str | None
    played: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "team": self.team, "count": self.count, "hand": self.hand, "played": self.played}


@dataclass(frozen=True)
class SeatView:
    """What ``seat`` sees when it is asked (see the module docstring). Cards are canonical text in
    the notation (``"RB 22 JJJ"``); ``kinds`` are the ruleset's card symbols in its order (lowest
    first) and ``deck`` how many of each the pack holds; ``played`` the cards the seat itself has
    played face up this game."""

    ruleset: str
    seats: int
    seat: int
    team: int
    phase: str
    capacity: str
    game_number: int
    kinds: tuple[str, ...]
    deck: tuple[int, ...]
    hand: str
    played: str
    others: tuple[OtherSeat, ...]
    top: tuple[int, str] | None
    passed: tuple[int, ...]
    places: tuple[tuple[int, int], ...]
    revolted: tuple[int, ...]
    burner: int | None
    history: tuple[Seen, ...]

    def to_json(self) -> dict[str, Any]:
        """The view as the JSON object of the exec bots' ``choose`` message."""
        return {
            "ruleset": self.ruleset, "seats": self.seats, "seat": self.seat, "team": self.team, "phase": self.phase,
            "capacity": self.capacity, "game_number": self.game_number, "kinds": list(self.kinds), "deck": list(self.deck),
            "hand": self.hand, "played": self.played, "others": [o.to_json() for o in self.others],
            "top": None if self.top is None else {"seat": self.top[0], "cards": self.top[1]},
            "passed": list(self.passed), "places": {str(s): p for s, p in self.places}, "revolted": list(self.revolted),
            "burner": self.burner, "history": [h.to_json() for h in self.history],
        }


@dataclass
class _Entry:
    """One public event, read once: ``line`` (whole), who ``moved`` (a move) or ``giver`` /
    ``receiver`` (a transfer), ``hidden_rule``: a return (its cards shown to the two seats involved
    only), ``n``: its cards."""

    line: str
    mover: int = 0
    giver: int = 0
    receiver: int = 0
    hidden_rule: bool = False
    n: int = 0


class _History:
    """A game record's public entries and the cards played face up per seat, read incrementally
    (a bot is asked at every decision of the same game: only the new events are read)."""

    def __init__(self, state: GameState):
        self.first = id(state.record[0]) if state.record else 0
        self.read = 0
        self.entries: list[_Entry] = []
        self.played = {s: [0] * len(state.kinds) for s in state.seat_list}
        self._texts: dict[int, str] = {}  # seat → its played cards as text (made when first asked)
        self._model = state.model

    def played_text(self, seat: int) -> str:
        """The cards ``seat`` played face up, canonical text."""
        t = self._texts.get(seat)
        if t is None:
            t = self._texts[seat] = self._model.text(self.played[seat])
        return t

    def update(self, state: GameState) -> None:
        model = state.model
        for e in state.record[self.read:]:
            if not isinstance(e, dict):
                if e[0] not in VIEW_EVENTS:
                    continue
                e = render_event(model, e)  # (a compact entry of the native core's play phase)
            kind = e["type"]
            if kind == "transfer":
                g, r = int(e["giver"]), int(e["receiver"])
                self.entries.append(_Entry(f"{g} gives {r}: {e['cards']}", giver=g, receiver=r,
                                           hidden_rule=e.get("rule") in HIDDEN_TRANSFER_RULES, n=sum(model.parse(e["cards"]))))
            elif kind == "move":
                text = str(e["move"])
                who, verb, *rest = text.split(" ", 2)
                vec = model.parse(rest[0]) if rest and verb in _CARD_TEXT_VERBS else ()
                if verb in PUBLIC_CARD_VERBS:
                    mine = self.played[int(who)]
                    for k, c in enumerate(vec):
                        mine[k] += c
                    self._texts.pop(int(who), None)
                self.entries.append(_Entry(text, mover=int(who), hidden_rule=verb == Verb.RETURN, n=sum(vec)))
        self.read = len(state.record)

    def seen_by(self, seat: int) -> tuple[Seen, ...]:
        out = []
        for x in self.entries:
            if not x.hidden_rule or seat in (x.mover, x.giver, x.receiver):
                out.append(Seen(x.line))
            elif x.mover:  # the transfer that follows names the receiver and shows the two of them the cards
                out.append(Seen(x.line.split(" ", 2)[0] + " return", x.n))
            else:
                out.append(Seen(f"{x.giver} gives {x.receiver}:", x.n))
        return tuple(out)


_CARD_TEXT_VERBS = frozenset({Verb.PLAY, Verb.BURN, Verb.DISCARD, Verb.RETURN})
_CACHE: dict[int, tuple[list[Any], _History]] = {}
_CACHE_SIZE = 16
_CACHE_LOCK = threading.Lock()


def _history(state: GameState) -> _History:
    """The history of ``state``'s record, read up to its end (kept for the next decision of the game)."""
    rec = state.record
    with _CACHE_LOCK:  # (the app and the table server ask bots from worker threads)
        got = _CACHE.get(id(rec))
        if got is not None and got[0] is rec and got[1].read <= len(rec) and got[1].first == (id(rec[0]) if rec else 0):
            h = got[1]
        else:
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.clear()
            h = _History(state)
            _CACHE[id(rec)] = (rec, h)
        h.update(state)
        return h


def public_history(state: GameState, seat: int) -> tuple[tuple[Seen, ...], dict[int, list[int]]]:
    """The history ``seat`` sees, and the cards each seat has played face up (count vectors)."""
    h = _history(state)
    return h.seen_by(seat), h.played


def seat_view(state: GameState, seat: int | None = None, *, history: bool = True) -> SeatView:
    """The view of ``seat`` (by default the seat to act) of ``state``; without ``history`` its
    ``history`` is empty (the cards played per seat are still given)."""
    s = state.to_act if seat is None else seat
    if s is None:
        raise ValueError("no seat to act: the game is over")
    v = state.view(s)
    model = state.model
    h = _history(state)
    seen = h.seen_by(s) if history else ()
    others = tuple(OtherSeat(int(t), int(info["team"]), info.get("count"), info.get("hand"), h.played_text(int(t)))
                   for t, info in v["others"].items())
    top = v["top"]
    return SeatView(
        ruleset=str(state.graph.name), seats=state.n_seats, seat=s, team=state.team(s), phase=str(state.phase),
        capacity=str(state.capacity), game_number=int(state.game_number), kinds=tuple(state.kinds),
        deck=tuple(model.deck_counts), hand=str(v["hand"]), played=h.played_text(s), others=others,
        top=None if top is None else (int(top["seat"]), str(top["cards"])), passed=tuple(v["passed"]),
        places=tuple((int(k), int(p)) for k, p in v["places"].items()), revolted=tuple(v["revolted"]),
        burner=v["burner"], history=seen)


__all__ = ["PROTOCOL_VERSION", "OtherSeat", "SeatView", "Seen", "public_history", "seat_view"]
