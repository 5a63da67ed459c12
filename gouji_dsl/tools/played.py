"""Which engine played a run's games, in words (issue 24): the native core, the generated module or
the interpreter, and why not the native core — one wording for every summary that plays games
(``gouji simulate``, ``gouji diff --simulate``, ``gouji duel``), in its text, markdown and JSON.

Reads the engine summary :func:`gouji_dsl.tools.simulate.engine_summary` gives (``engine``,
``engine_fallback``, ``play_phase``, ``native_fallback``, ``whole_games``, ``games_fallback``);
:func:`played_by` adds its JSON keys, :func:`engine_name` and :func:`why_not_native` say it.
A light module: the vocabularies and the language only.
"""
from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from gouji_dsl.i18n import _
from gouji_dsl.tools.runkinds import Engine, said_kind


class PlayedBy(StrEnum):
    """Who played the games: the native core (the bots' play phase at least, whole games where
    ``whole_games`` is ``native``), the generated play-out module, or the reference interpreter."""

    NATIVE = "native"
    GENERATED = "generated"
    INTERPRETER = "interpreter"


def played_by_of(e: Mapping[str, Any]) -> PlayedBy | None:
    """Who played, from an engine summary (None: it says nothing of the engine)."""
    if not e.get("engine"):
        return None
    if e.get("engine") == Engine.INTERPRETER:
        return PlayedBy.INTERPRETER
    return PlayedBy.NATIVE if e.get("play_phase") == "native" else PlayedBy.GENERATED


def played_by(e: Mapping[str, Any]) -> dict[str, str]:
    """The JSON keys naming who played (added to an engine summary): ``played_by`` (:class:`PlayedBy`)
    and, when it is not the native core, ``played_by_reason`` (why not: the core is missing or does
    not play these bots, the generator does not handle the ruleset, or the interpreter was asked for).
    Where the core plays only the play phase, ``games_fallback`` says why (``whole_games``)."""
    who = played_by_of(e)
    if who is None:
        return {}
    out = {"played_by": who.value}
    if who is PlayedBy.INTERPRETER:
        out["played_by_reason"] = str(e.get("engine_fallback") or _("asked for with --engine interpreter"))
    elif who is PlayedBy.GENERATED:
        out["played_by_reason"] = str(e.get("native_fallback") or _("the native core does not play these games"))
    return out


def with_played_by(e: dict[str, Any]) -> dict[str, Any]:
    """``e`` (an engine summary) with its :func:`played_by` keys, in place; returned."""
    e.update(played_by(e))
    return e


def engine_name(e: Mapping[str, Any]) -> str:
    """The engine as a timing line names it (``native``, ``generated``, ``interpreter``, in the
    active language); empty when ``e`` says nothing of it."""
    who = played_by_of(e)
    return said_kind(who.value) if who is not None else ""


def why_not_native(e: Mapping[str, Any]) -> str | None:
    """One sentence saying how far the native core did not play the games and why (None: it
    played them whole, or ``e`` says nothing of the engine)."""
    who = played_by_of(e)
    if who is PlayedBy.INTERPRETER:
        if e.get("engine_fallback"):
            return _("played by the interpreter: the generated engine does not handle this ruleset ({why})").format(
                why=e["engine_fallback"])
        return _("played by the interpreter, as asked (--engine interpreter): the reference, not the native core")
    if who is PlayedBy.GENERATED:
        return _("the bots' play phase played by the generated module, not the native core ({why})").format(
            why=played_by(e)["played_by_reason"])
    if who is PlayedBy.NATIVE and e.get("whole_games") == "generated":
        return _("whole games not played by the native core, only their play phase ({why})").format(
            why=e.get("games_fallback") or "")
    return None


def fell_back(e: Mapping[str, Any]) -> bool:
    """Whether the interpreter played because the generated engine does not handle the ruleset
    (a warning, not a note)."""
    return played_by_of(e) is PlayedBy.INTERPRETER and bool(e.get("engine_fallback"))
