"""Which engine played a run's games, in words (issue 24): the native core or the interpreter (or,
in a run made before the native core, the generated module), and why not the native core — one wording for every summary that plays games
(``gouji simulate``, ``gouji diff --simulate``, ``gouji duel``), in its text, markdown and JSON.

Reads the engine summary :func:`gouji_dsl.tools.simulate.engine_summary` gives (``engine``,
``engine_fallback``, ``play_phase``, ``native_fallback``, ``whole_games``, ``games_fallback``);
:func:`played_by` adds its JSON keys, :func:`engine_name` and :func:`why_not_native` say it.
A light module: the vocabularies and the language only.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from gouji_dsl.i18n import _
from gouji_dsl.tools.runkinds import Engine, said_kind


class PlayedBy(StrEnum):
    """Who played the games: the native core (the bots' play phase at least, whole games where
    ``whole_games`` is ``native``; where ``play_phase`` is ``interpreter`` the bots' moves were the
    interpreter's), the reference interpreter, or (a run file written before the native core
    replaced it) the generated play-out module."""

    NATIVE = "native"
    GENERATED = "generated"
    INTERPRETER = "interpreter"
    #: a run folder whose chunks were played by different engines (``gouji report``: :func:`of_chunks`)
    MIXED = "mixed"


def played_by_of(e: Mapping[str, Any]) -> PlayedBy | None:
    """Who played, from an engine summary (None: it says nothing of the engine)."""
    if e.get("played_by") == PlayedBy.MIXED:
        return PlayedBy.MIXED
    if not e.get("engine"):
        return None
    if e.get("engine") == Engine.INTERPRETER or e.get("play_phase") == "interpreter":
        return PlayedBy.INTERPRETER
    return PlayedBy.GENERATED if e.get("play_phase") == "generated" else PlayedBy.NATIVE


def played_by(e: Mapping[str, Any]) -> dict[str, str]:
    """The JSON keys naming who played (added to an engine summary): ``played_by`` (:class:`PlayedBy`)
    and, when it is not the native core, ``played_by_reason`` (why not: the core is missing or does
    not play these bots or the ruleset, or the interpreter was asked for).
    Where the core plays only the play phase, ``games_fallback`` says why (``whole_games``)."""
    who = played_by_of(e)
    if who is None:
        return {}
    if who is PlayedBy.MIXED:
        return {"played_by": who.value, "played_by_reason": str(e.get("played_by_reason", ""))}
    out = {"played_by": who.value}
    if who is PlayedBy.INTERPRETER and e.get("play_phase") != "interpreter":
        out["played_by_reason"] = str(e.get("engine_fallback") or _("asked for with --engine interpreter"))
    elif who is not PlayedBy.NATIVE:
        out["played_by_reason"] = str(e.get("native_fallback") or _("the native core does not play these games"))
    return out


def with_played_by(e: dict[str, Any]) -> dict[str, Any]:
    """``e`` (an engine summary) with its :func:`played_by` keys, in place; returned."""
    e.update(played_by(e))
    return e


def engine_name(e: Mapping[str, Any]) -> str:
    """The engine as a timing line names it (``native``, ``interpreter``, ``generated`` for a run made
    before the native core, in the active language; ``native (play phase only)`` where the core played
    the bots' play phase but not whole games, so a header never says more than :func:`why_not_native`
    allows); empty when ``e`` says nothing of it."""
    who = played_by_of(e)
    if who is None:
        return ""
    if who is PlayedBy.NATIVE and e.get("whole_games") not in (None, "native"):
        return _("{engine} (play phase only)").format(engine=said_kind(who.value))
    return said_kind(who.value)


def why_not_native(e: Mapping[str, Any]) -> str | None:
    """One sentence saying how far the native core did not play the games and why (None: it
    played them whole, or ``e`` says nothing of the engine)."""
    who = played_by_of(e)
    if who is PlayedBy.MIXED:
        return _("chunks played by different engines: {why}").format(why=e.get("played_by_reason", ""))
    if e.get("play_phase") == "interpreter":
        return _("the bots' play phase played by the interpreter, not the native core ({why})").format(
            why=played_by(e)["played_by_reason"])
    if who is PlayedBy.INTERPRETER:
        if e.get("engine_fallback"):
            return _("played by the interpreter: the native core does not play this ruleset ({why})").format(
                why=e["engine_fallback"])
        return _("played by the interpreter, as asked (--engine interpreter): the reference, not the native core")
    if who is PlayedBy.GENERATED:
        return _("the bots' play phase played by the generated module, not the native core ({why})").format(
            why=played_by(e)["played_by_reason"])
    if who is PlayedBy.NATIVE and e.get("whole_games") not in (None, "native"):
        return _("whole games not played by the native core, only their play phase ({why})").format(
            why=e.get("games_fallback") or "")
    return None


def fell_back(e: Mapping[str, Any]) -> bool:
    """Whether the interpreter played because the native core does not play the ruleset
    (a warning, not a note)."""
    return played_by_of(e) is PlayedBy.INTERPRETER and bool(e.get("engine_fallback"))


def of_chunks(chunks: list[tuple[int, Mapping[str, Any] | None]]) -> dict[str, Any]:
    """Who played a run folder's games of one ruleset, from its chunks (``(deals, engine summary)``
    each, None for a chunk that does not say: written by an older gouji): the chunks' summary where
    they agree; ``played_by: mixed`` where they do not, ``played_by_reason`` saying how many deals
    each engine played and ``by_chunk`` the summaries with their deals; ``{}`` where no chunk says."""
    groups: dict[str, tuple[Mapping[str, Any] | None, int]] = {}
    for deals, e in chunks:
        key = "" if e is None else json.dumps(dict(e), sort_keys=True)
        groups[key] = (e, groups.get(key, (e, 0))[1] + deals)
    if len(groups) == 1:
        e = next(iter(groups.values()))[0]
        return {} if e is None else dict(e)
    said = [_("{deals} deals by {who}").format(deals=deals, who=_who(e)) for e, deals in groups.values()]
    return {"played_by": PlayedBy.MIXED.value, "played_by_reason": "; ".join(said),
            "by_chunk": [{**(dict(e) if e is not None else {}), "deals": deals} for e, deals in groups.values()]}


def _who(e: Mapping[str, Any] | None) -> str:
    """An engine summary in a few words: its engine's name, and why not the native core."""
    if e is None:
        return _("an engine not recorded (chunks of an older gouji)")
    why = why_not_native(e)
    return engine_name(e) + (f" ({why})" if why else "")


def report_line(e: Mapping[str, Any]) -> str:
    """What ``gouji report`` says of who played a folder's games (:func:`of_chunks`): the engine
    and, where not the native core whole, why; or that the folder does not record it."""
    if played_by_of(e) is None:
        return _("engine: not recorded (chunks written by an older gouji)")
    why = why_not_native(e)
    return _("engine: {name}").format(name=engine_name(e)) + (f" — {why}" if why else "")
