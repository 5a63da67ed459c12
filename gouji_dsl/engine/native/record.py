"""The native core's compact record entries, rendered as the interpreter's event dicts.

The play phase the core plays (:func:`gouji_dsl.engine.native.flow.run`) appends compact entries
to a :class:`~gouji_dsl.engine.interpreter.GameState`'s ``record`` (tuples: ``(kind, ...)``), which
cost nothing to keep when nobody reads the game's events (a simulation without records, a
rollout); the interpreter's own steps append event dicts to the same record. :func:`render_event`
turns one entry into the interpreter's dict (a dict passes through), :func:`render_record` a whole
record, in place: the same events the interpreter logs for the same game
(``tests/test_differential.py``).
"""
from __future__ import annotations

from typing import Any


def _move(model: Any, e: Any) -> dict[str, Any]:
    _, seat, verb, cards, arg = e
    if cards is not None:
        return {"type": "move", "move": f"{seat} {verb} {model.text(cards)}"}
    return {"type": "move", "move": f"{seat} {verb} {arg}" if arg else f"{seat} {verb}"}


_RENDER: dict[str, Any] = {
    "move": _move,
    "place": lambda model, e: {"type": "place", "seat": e[1], "place": e[2]},
    "trick_won": lambda model, e: {"type": "trick_won", "seat": e[1], "play": e[2].text},
    "retire": lambda model, e: {"type": "retire", "seat": e[1], "how": e[2], "rule": e[3]},
    "no_lead": lambda model, e: {"type": "no_lead", "seat": e[1]},
    "burn_failed": lambda model, e: {"type": "burn_failed", "seat": e[1]},
    "burn": lambda model, e: {"type": "burn", "seat": e[1], "burned": e[2]},
    "counter_burn": lambda model, e: {"type": "counter_burn", "seat": e[1], "burned": e[2]},
    "burn_success": lambda model, e: {"type": "burn_success", "seat": e[1], "burned": e[2]},
    "burn_undone": lambda model, e: {"type": "burn_undone", "seat": e[1], "burner": e[2]},
    "discard": lambda model, e: {"type": "discard", "seat": e[1], "cards": model.text(e[2])},
    "game_over": lambda model, e: {"type": "game_over", "places": {str(s): p for s, p in sorted(e[1].items())},
                                   "scores": {str(s): v for s, v in e[2].items()}, "sweep": e[3]},
}


def _deal(model: Any, e: Any) -> dict[str, Any]:
    _, game_number, source, seed, prev, dealt_cards, redeal = e
    out = {"type": "deal", "game_number": game_number, "source": source, "seed": seed,
           "prev": None if prev is None else prev.to_json(),
           "hands": {str(s): " ".join(str(c) for c in dealt_cards[s]) for s in sorted(dealt_cards)}}
    if redeal:
        out["redeal"] = True
    return out


def _transfer(model: Any, e: Any) -> dict[str, Any]:
    out = {"type": "transfer", "giver": e[1], "receiver": e[2], "cards": model.text(e[3]), "rule": e[4]}
    if len(e) > 5:
        out["kind"] = e[5]
    return out


# (the setup's entries: written by the generated play-out's moves, which search bots' tree walks still use)
_RENDER_SETUP: dict[str, Any] = {
    "deal": _deal,
    "transfer": _transfer,
    "first_leader": lambda model, e: {"type": "first_leader", "seat": e[1], "forced": e[2]},
    "revolution": lambda model, e: ({"type": "revolution", "seat": e[1], "automatic": True} if e[2]
                                    else {"type": "revolution", "seat": e[1]}),
    "redeal": lambda model, e: {"type": "redeal", "revolted": e[1]},
}
_RENDER.update(_RENDER_SETUP)


def render_event(model: Any, e: Any) -> dict[str, Any]:
    """One record entry as the interpreter's event dict (``model``: the ruleset's card model,
    which writes the cards)."""
    if isinstance(e, dict):
        return e
    got = _RENDER.get(e[0])
    if got is None:
        raise ValueError(f"unknown record entry {e!r}")
    return got(model, e)  # type: ignore[no-any-return]


def render_record(state: Any) -> list[dict[str, Any]]:
    """``state.record`` as the interpreter's event dicts (compact entries rendered, in place)."""
    model = state.model
    state.record = [e if isinstance(e, dict) else render_event(model, e) for e in state.record]
    return state.record  # type: ignore[no-any-return]
