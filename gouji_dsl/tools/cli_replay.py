"""``gouji replay RECORD [--check] [--json] [--ruleset R]``: replay a saved game record headless.

The record is read by the one record reader (:func:`gouji_dsl.engine.records.load_record`) and
replayed under the ruleset it names (:func:`~gouji_dsl.engine.records.record_graph`) or ``--ruleset``.
Without ``--check`` the game is printed (every move, numbered, with the engine's events between
them, then places and scores); with ``--check`` every recorded event is compared with the replay
(:func:`~gouji_dsl.engine.records.check_record`) and one verdict line is printed. A malformed
record, an illegal move or a differing event is a positioned diagnostic and exit status 1.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.ruleset.event_words import NO_WORDS, event_text
from gouji_dsl.ruleset.words import GameWords, game_words
from gouji_dsl.tools.exits import SafePath, echo, echo_json, err

__all__ = ["replay_command", "game_summary"]

# the engine's events that are not shown between the moves (the deal heads the game; the result ends it)
_QUIET = frozenset({"deal", "move", "game_over"})


def game_summary(state: Any, number: int) -> dict[str, Any]:
    """The JSON form of one replayed game: its number, seed, first leader, moves, engine events
    (other than deal / move / game_over), whether it is over, places and scores."""
    rec = state.record
    deal: dict[str, Any] = next((e for e in rec if e.get("type") == "deal"), {})
    first = next((e.get("seat") for e in rec if e.get("type") == "first_leader"), None)
    return {"game": number, "game_number": deal.get("game_number", number), "seed": deal.get("seed"),
            "first_leader": first, "moves": [e["move"] for e in rec if e.get("type") == "move"],
            "events": [e for e in rec if e.get("type") not in _QUIET],
            "over": bool(state.over), "places": {str(s): p for s, p in sorted(state.places.items())},
            "scores": {str(s): v for s, v in sorted(state.scores.items())}}


def _event_text(e: dict[str, Any], words: GameWords = NO_WORDS, team_of: Callable[[int], int] | None = None) -> str:
    """An engine event as the play screen's log says it (:func:`~gouji_dsl.ruleset.event_words.event_text`:
    in the active language, with the ruleset's words; in English its Chinese term in brackets)."""
    return event_text(e, None, words, english_terms=True, team_of=team_of)


def _game_text(state: Any, number: int) -> list[str]:
    g = game_summary(state, number)
    head = _("game {number}").format(number=number)
    if g["game_number"] != number:
        head += _(" (game {g} of its match)").format(g=g['game_number'])
    out = [head + (_(", seed {g!r}").format(g=g['seed']) if g["seed"] is not None else _(", a fixed deal"))]
    n = 0
    words = game_words(state.graph.resolved)  # the ruleset's names of the events and places
    for e in json.loads(json.dumps(state.record, ensure_ascii=False, default=str)):
        if e.get("type") == "move":
            n += 1
            out.append(f"  {n:4d}. {e['move']}")
        elif e.get("type") not in _QUIET:
            out.append(f"        · {_event_text(e, words, state.team)}")
    if g["over"]:
        by_place = sorted(g["places"].items(), key=lambda kv: kv[1])
        out.append("  " + _("places: ") + ", ".join(_("{p}. seat {s}").format(p=p, s=s) + " — " + words.place(int(p))
                                                    for s, p in by_place))
        out.append("  " + _("scores: ") + ", ".join(_("seat {s} {v:+}").format(s=s, v=v) for s, v in g["scores"].items()))
    else:
        out.append(_("  not over: seat {to_act} is to act").format(to_act=state.to_act))
    return out


@click.command("replay")
@click.argument("record", metavar="RECORD", type=SafePath(dir_okay=False, path_type=str))
@click.option("--check", is_flag=True,
              help=N_("Verify the record: every recorded event (deal, first leader, tricks, tribute, places, scores) "
                   "must be the one the replay gives; prints one verdict line."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the result as JSON on stdout (its keys: the README, `gouji replay`)."))
@click.option("--ruleset", "ruleset", default=None, metavar="RULESET",
              help=N_("Replay under this ruleset (a bundled name or a .yaml file) instead of the one the record names."))
def replay_command(record: str, check: bool, as_json: bool, ruleset: str | None) -> None:
    """Replay a saved game record (from `gouji play`) without the app.

    Prints every game: its moves, numbered, with the engine's events between them (tricks won,
    places, tribute ...), then the places and scores. With --check, verifies that the record replays
    to the same events and result under its ruleset (or --ruleset) and prints `RECORD: ok ...`; the
    first event that differs is reported with what the record says, what the replay gives and the
    rules behind the replay's decision.

    Exit status 0 ok; 1 a malformed record (every problem as file:line:col), an illegal move or a
    differing event; 2 an internal error. --json prints {"file", "ok", "ruleset", "checked",
    "games": [{"game", "game_number", "seed", "first_leader", "moves", "events", "over", "places",
    "scores"}]} or {"file", "ok": false, "diagnostics": [...]}.
    """
    from gouji_dsl.engine.records import check_record, load_record, record_graph, replay_record  # lazy: start-up
    from gouji_dsl.ruleset.graph import load_graph  # lazy: start-up

    try:
        rec = load_record(record)
        graph = load_graph(ruleset) if ruleset else record_graph(rec)
        finals = check_record(graph, rec) if check else replay_record(graph, rec)
    except GoujiError as e:
        if as_json:
            echo_json(json.dumps({"file": record, "ok": False, "diagnostics": [d.to_dict() for d in e.diagnostics]},
                                 ensure_ascii=False, indent=2))
        else:
            for d in e.diagnostics:
                err(d.format())
        sys.exit(1)
    games = [game_summary(st, i) for i, st in enumerate(finals, 1)]
    if as_json:
        echo_json(json.dumps({"file": record, "ok": True, "ruleset": graph.name, "checked": check, "games": games},
                             ensure_ascii=False, indent=2, default=str))
        return
    n_moves = sum(len(g["moves"]) for g in games)
    what = ngettext("{n} game, {n_moves} moves", "{n} games, {n_moves} moves", len(games)).format(n=len(games), n_moves=n_moves)
    if check:
        echo(_("{record}: ok — every event and the result replay the same under {name!r} ({what})").format(record=record, name=graph.name, what=what))
        return
    echo(_("{record}: ruleset {name!r}, {what}").format(record=record, name=graph.name, what=what))
    for i, st in enumerate(finals, 1):
        echo("\n".join(_game_text(st, i)))
