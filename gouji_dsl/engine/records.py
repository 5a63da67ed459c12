"""Game records on disk, replay step by step, and positions as rule scenarios.

A **record file** is JSON (one event per line, so that it diffs well)::

    {
      "format": "gouji-record",
      "version": 1,
      "ruleset": "online",
      "ruleset_path": "/path/to/rules/online.yaml",
      "seed": "7",
      "bots": {"1": "human", "2": "heuristic", ...},
      "events": [
        {"type": "deal", "game_number": 1, "source": "random", "seed": "7:0", "hands": {...}},
        {"type": "move", "move": "2 play 33333"},
        ...
      ]
    }

``events`` are the engine's events (:attr:`GameState.record`) of every game of the match in order;
a ``deal`` event with a new ``game_number`` starts the next game. Only the deals (by seed, or the
dealt hands) and the ``move`` events are needed to replay; the other events are checked against the
replay (a record made under another ruleset, or edited by hand, is refused with the position of the
first event that disagrees).

Errors are :class:`GoujiError` with ``file:line:col`` (JSON syntax, a missing or mistyped field,
an unknown move, an illegal move with the rule that forbids it), never a traceback.

A position as a NOTATION.md game case for a scenario file: :mod:`gouji_dsl.tools.cases`.
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl import resources
from gouji_dsl.atomic import atomic_write
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, did_you_mean, line_of, quoted
from gouji_dsl.engine.interpreter import GameState, IllegalMove, Move, choice_words, new_game, next_game, parse_move
from gouji_dsl.i18n import N_, _
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, os_reason, read_regular
from gouji_dsl.readjson import MAX_NUMBER_CHARS, DuplicateKeyError, Positions, json_limit, load_json, schema_message, strict_validator_class
from gouji_dsl.ruleset.game.cards import parse_cards
from gouji_dsl.ruleset.graph import RuleGraph, Verdict, compile_ruleset
from gouji_dsl.ruleset.load.finding import allowed_place, find_ruleset
from gouji_dsl.ruleset.load.reading import MAX_NESTING
from gouji_dsl.ruleset.load.resolving import resolve, resolve_text

FORMAT = "gouji-record"
VERSION = 1


# ------------------------------------------------------------------------------ the record
@dataclass
class GameRecord:
    """A saved game or match: the ruleset, the run seed, who played each seat and every event.

    ``positions`` (filled by :func:`load_record`) maps an event's index to the ``(line, col)`` of
    that event in the file, and ``move_positions`` to the position of its ``move`` text."""

    ruleset: str
    seed: Any = None
    bots: dict[int, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    ruleset_path: str | None = None
    path: str = "<record>"
    positions: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)
    move_positions: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)
    text: str = field(default="", repr=False)
    ruleset_text: str | None = field(default=None, repr=False)

    @classmethod
    def from_states(cls, finals: Sequence[GameState], *, seed: Any = None, bots: dict[int, str] | None = None,
                    ruleset_path: str | None = None) -> GameRecord:
        """The record of the games of one match, each given by its latest state, in order."""
        if not finals:
            raise ValueError(_("a record needs at least one game"))
        graph = finals[0].graph
        events: list[dict[str, Any]] = []
        for st in finals:
            events.extend(json.loads(json.dumps(st.record, ensure_ascii=False, default=str)))
        path = ruleset_path
        if path is None and graph.resolved.path and os.path.exists(graph.resolved.path):
            path = graph.resolved.path
        # the played ruleset file's own text, so a game played on an unsaved editor buffer (or on a
        # file that changed since) replays under the rules it was played with
        return cls(graph.name, seed, dict(bots or {}), events, path, ruleset_text=graph.resolved.text or None)

    @property
    def game_starts(self) -> list[int]:
        """Indexes of the events that start a game (a deal with a new game number)."""
        out, last = [], None
        for i, e in enumerate(self.events):
            if e.get("type") == "deal" and not e.get("redeal") and e.get("game_number", 1) != last:
                out.append(i)
                last = e.get("game_number", 1)
        return out

    def games(self) -> list[list[dict[str, Any]]]:
        """The events split by game."""
        starts = self.game_starts + [len(self.events)]
        return [self.events[a:b] for a, b in zip(starts, starts[1:])]

    @property
    def moves(self) -> list[str]:
        return [e["move"] for e in self.events if e.get("type") == "move"]

    def to_json(self) -> dict[str, Any]:
        out = {"format": FORMAT, "version": VERSION, "ruleset": self.ruleset, "ruleset_path": self.ruleset_path,
               "seed": self.seed, "bots": {str(k): v for k, v in sorted(self.bots.items())}}
        if self.ruleset_text:
            out["ruleset_text"] = self.ruleset_text
        out["events"] = self.events
        return out

    def dumps(self) -> str:
        """The file text: JSON with one event per line."""
        head = self.to_json()
        head.pop("events")
        lines = ["{"]
        for k, v in head.items():
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
        lines.append('  "events": [')
        for i, e in enumerate(self.events):
            sep = "," if i < len(self.events) - 1 else ""
            lines.append("    " + json.dumps(e, ensure_ascii=False) + sep)
        lines.append("  ]")
        lines.append("}")
        return "\n".join(lines) + "\n"


def save_record(path: str | os.PathLike[str], record: GameRecord) -> Path:
    """Write ``record`` to ``path`` atomically (:func:`gouji_dsl.atomic.atomic_write`)."""
    p = Path(path)
    p.absolute().parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, record.dumps())
    record.path = str(path)
    return p


# ------------------------------------------------------------------------------ loading
MAX_RECORD_CHARS = 16_000_000
"""Largest record file read, in characters (a game's events are about 12,000; a record may also
carry its ruleset's text, itself at most :data:`gouji_dsl.ruleset.load.reading.MAX_FILE_CHARS`)."""

MAX_RECORD_NESTING = MAX_NESTING
"""Deepest nesting of JSON objects and arrays in a record (a record written by gouji nests 5 deep)."""

MAX_RECORD_NUMBER_CHARS = MAX_NUMBER_CHARS
"""Longest number written in a record, in characters (the JSON reader's, :mod:`gouji_dsl.readjson`)."""

MAX_RECORD_KEYS = 1_000
"""Most keys of one object in a record (its objects have a few keys, or one per seat: at most 64).
Counted before ``json`` builds anything: a record of one object of 500,000 keys (7 MB) took 211 MB
of memory to refuse; now 50 MB (the text)."""


class _Reader:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.pos = Positions(text)

    def diag(self, where: tuple, message: str, hint: str | None = None, *, key: bool = False,
             code: str = Code.UNSPECIFIED) -> Diagnostic:
        ln, col = (self.pos.keys if key else self.pos.at).get(where, (0, 0))
        if (ln, col) == (0, 0) and self.text:
            ln, col = self.pos.at.get(where[:-1], (1, 1)) if where else (1, 1)
        return Diagnostic(self.path, ln, col, message, hint, self.pos.line(ln), code=code)

    def fail(self, where: tuple, message: str, hint: str | None = None, *, key: bool = False,
             code: str = Code.UNSPECIFIED) -> GoujiError:
        return GoujiError(self.diag(where, message, hint, key=key, code=code))

    def fail_at(self, ln: int, col: int, message: str, hint: str | None = None, *,
                code: str = Code.UNSPECIFIED) -> GoujiError:
        return GoujiError(Diagnostic(self.path, ln, col, message, hint, self.pos.line(ln), code=code))


def _offset_pos(text: str, i: int) -> tuple[int, int]:
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


def _check_limits(text: str, path: str) -> None:
    """Refuse a text longer than :data:`MAX_RECORD_CHARS`, nested deeper than
    :data:`MAX_RECORD_NESTING`, with a number longer than :data:`MAX_RECORD_NUMBER_CHARS` or an
    object of more than :data:`MAX_RECORD_KEYS` keys, at the place the limit is passed (:func:`json_limit`)."""
    if len(text) > MAX_RECORD_CHARS:
        raise GoujiError(Diagnostic(path, 0, 0, _("the record is {n:,} characters long; at most "
                                    "{max_record_chars:,} are read (MAX_RECORD_CHARS)").format(
                                        n=len(text), max_record_chars=MAX_RECORD_CHARS), code=Code.FILE_TOO_LARGE))
    found = json_limit(text, nesting=MAX_RECORD_NESTING, keys=MAX_RECORD_KEYS)
    if found is None:
        return
    kind, at, tok = found
    if kind == "keys":
        raise _limit(text, path, at, _("an object of more than {max_record_keys:,} keys (MAX_RECORD_KEYS)").format(max_record_keys=MAX_RECORD_KEYS),
                     _("a gouji record's objects have a few keys, or one per seat"), Code.TOO_MANY_KEYS)
    if kind == "nesting":
        raise _limit(text, path, at, _("nested more than {max_record_nesting} levels deep (MAX_RECORD_NESTING)").format(
            max_record_nesting=MAX_RECORD_NESTING),
                     _("a gouji record nests 5 levels deep"), Code.TOO_DEEP)
    if kind == "constant":
        raise _limit(text, path, at, _("not valid JSON: {tok} is not a JSON value").format(tok=tok), _("write a number or null"),
                     Code.JSON_SYNTAX)
    raise _limit(text, path, at, _("a number of {n:,} characters; at most {max_record_number_chars} are read "
                 "(MAX_RECORD_NUMBER_CHARS)").format(n=len(tok), max_record_number_chars=MAX_RECORD_NUMBER_CHARS), None, Code.NUMBER_TOO_LARGE)


def _limit(text: str, path: str, at: int, message: str, hint: str | None, code: str) -> GoujiError:
    ln, col = _offset_pos(text, at)
    return GoujiError(Diagnostic(path, ln, col, message, hint, line_of(text, ln), code=code))


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _NotJson(_("{name} is not a JSON value").format(name=name))


@functools.lru_cache(maxsize=1)
def record_schema() -> dict[str, Any]:
    """The record JSON Schema (draft-07, ``schema/record.schema.json``) as a dict."""
    with open(resources.record_schema_path(), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=1)
def _validators() -> tuple[Any, dict[str, Any], Any]:
    """The record schema as validators: one for the record without its events, and one per event
    type made from the event schema's ``if type == T then ...`` branches (the same rules as the
    whole schema, applied without evaluating every branch for every event: a long record's
    thousands of events are checked in linear time), plus one for an event of any other type."""
    cls = strict_validator_class()
    schema = record_schema()
    defs = schema["definitions"]
    top = {**schema, "properties": {**schema["properties"], "events": {k: v for k, v in schema["properties"]["events"].items()
                                                                      if k != "items"}}}
    event = defs["event"]
    base = {k: v for k, v in event.items() if k != "allOf"}
    by_type = {}
    for branch in event.get("allOf", []):
        kind = branch["if"]["properties"]["type"]["const"]
        by_type[kind] = cls({"definitions": defs, "allOf": [base, branch["then"]]})
    return cls(top), by_type, cls({"definitions": defs, **base})


def _schema_errors(data: Any) -> Iterator[Any]:
    """(path prefix, error) for every schema finding in ``data``, as they are found."""
    top, by_type, other = _validators()
    yield from (((), e) for e in top.iter_errors(data))
    events = data.get("events") if isinstance(data, dict) else None
    if isinstance(events, list):
        for i, ev in enumerate(events):
            kind = ev.get("type") if isinstance(ev, dict) else None
            v = by_type.get(kind, other) if isinstance(kind, str) else other
            yield from ((("events", i), e) for e in v.iter_errors(ev))


MAX_RECORD_PROBLEMS = 200
"""Most schema problems of one record reported one by one; one more diagnostic at the next says
there are more (a record of 500,000 bad seat keys gave 1.5 million lines of messages: 43 s and 2 GB)."""


def _schema_diags(r: _Reader, data: Any) -> list[Diagnostic]:
    """The schema's findings in ``data`` as diagnostics: the first :data:`MAX_RECORD_PROBLEMS`, and
    one saying there are more at the next of them."""
    errors = _schema_errors(data)
    out = [_schema_diag(r, e, pre) for pre, e in itertools.islice(errors, MAX_RECORD_PROBLEMS)]
    rest = next(errors, None)  # the rest are not looked for: validating them all cost 40 µs a value
    if rest is not None:
        first = _schema_diag(r, rest[1], rest[0])
        out.append(Diagnostic(r.path, first.line, first.col,
                              _("and more problems of the record's form from here on (the first {max_record_problems} "
                              "are listed; MAX_RECORD_PROBLEMS): ").format(
                                  max_record_problems=MAX_RECORD_PROBLEMS) + first.message, first.hint, first.source_line,
                              code=first.code))
    return out


_JSON_TYPES: dict[str, str] = {"string": N_("a string"), "integer": N_("a whole number"), "number": N_("a number"), "null": "null",
               "object": N_("an object"), "array": N_("an array"), "boolean": N_("true or false")}


_REQUIRED_HINTS = {"ruleset": N_("the ruleset the game was played under: \"ruleset\": \"online\""),
                   "events": N_("the engine's events, a deal first: \"events\": [{\"type\": \"deal\", ...}, ...]"),
                   "move": N_("a move event: {\"type\": \"move\", \"move\": \"<seat> <verb> [cards]\"}"),
                   "type": N_("every event has a \"type\" (deal, move, first_leader, game_over ...)"),
                   "scores": N_("a game_over event has \"scores\": {seat: points}")}


def _json_type(x: Any) -> str:
    for t, py in (("null", type(None)), ("boolean", bool), ("integer", int), ("number", float), ("string", str),
                  ("object", dict), ("array", list)):
        if isinstance(x, py):
            return _(_JSON_TYPES[t])
    return type(x).__name__


def _where(path: tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or _("the record")


def _schema_diag(r: _Reader, err: Any, prefix: tuple = ()) -> Diagnostic:
    """One JSON Schema finding as a positioned diagnostic with a stable code."""
    where = prefix + tuple(err.absolute_path)
    v, inst, what = err.validator, err.instance, _where(where)
    if v == "required":
        missing = next((k for k in err.validator_value if isinstance(inst, dict) and k not in inst), "?")
        return r.diag(where, _("{what}: missing key {missing!r}").format(
            what=what, missing=missing), _(_REQUIRED_HINTS[missing]) if missing in _REQUIRED_HINTS else None,
                      code=Code.MISSING_KEY)
    if v == "additionalProperties" and isinstance(inst, dict):
        known = list(err.schema.get("properties", {}))
        extra = next((k for k in inst if k not in known), "?")
        return r.diag(where + (extra,), _("unknown record key {quoted}").format(quoted=quoted(extra)),
                      did_you_mean(str(extra), known) or _("keys: ") + ", ".join(known), key=True, code=Code.UNKNOWN_KEY)
    if "propertyNames" in err.absolute_schema_path:
        return r.diag(where + (inst,), _("{what}: {quoted} is not a seat: seats are written in digits (\"1\", \"2\" ...)").format(
            what=what, quoted=quoted(inst)),
                      key=True, code=Code.BAD_SEAT)
    if v == "type":
        want: list[str] = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        got = _json_type(inst) + (f" ({quoted(inst, as_json=True)})" if isinstance(inst, (int, float, str)) else "")
        return r.diag(where, _("{what} must be {join}, not {got}").format(
            what=what, join=_(' or ').join(_(_JSON_TYPES[t]) if t in _JSON_TYPES else t for t in want), got=got),
                      code=Code.WRONG_TYPE)
    if v in ("const", "enum"):
        allowed = [err.validator_value] if v == "const" else list(err.validator_value)
        return r.diag(where, _("{what}: {quoted} is not allowed").format(
            what=what, quoted=quoted(inst)), _("allowed: ") + ", ".join(json.dumps(a) for a in allowed),
                      code=Code.VALUE_NOT_ALLOWED)
    if v in ("minimum", "maximum"):
        return r.diag(where, _("{what}: {quoted} is out of range ({v} {validator_value})").format(
            what=what, quoted=quoted(inst), v=v, validator_value=err.validator_value), code=Code.OUT_OF_RANGE)
    if v in ("minItems", "minLength"):
        return r.diag(where, _("{what} is empty").format(what=what), code=Code.EMPTY_VALUE)
    return r.diag(where, _("{what}: {schema_message}").format(what=what, schema_message=schema_message(err)), code=Code.SCHEMA_VIOLATION)


def _read_json(text: str, path: str) -> Any:
    """The JSON value of a record's text (limits checked first), or a :class:`GoujiError` at the problem."""
    _check_limits(text, path)
    try:
        return load_json(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise GoujiError(Diagnostic(path, e.lineno, e.colno, _("not valid JSON: {msg}").format(msg=e.msg), None,
                                    line_of(text, e.lineno), code=Code.JSON_SYNTAX)) from None
    except DuplicateKeyError as e:
        raise _limit(text, path, e.offset, str(e), "remove one of them: json keeps the last one silently",
                     Code.DUPLICATE_KEY) from None
    except (_NotJson, RecursionError, ValueError) as e:  # NaN / Infinity; the limits above prevent the others
        raise GoujiError(Diagnostic(path, 0, 0, _("not valid JSON: {e}").format(e=e), code=Code.JSON_SYNTAX)) from None


def _event_problems(r: _Reader, events: list[Any]) -> list[Diagnostic]:
    """What the schema cannot say about the events of a record: a fixed deal has hands, the first event is the deal."""
    out = [r.diag(("events", i), _("events[{i}]: a fixed deal needs 'hands': {{seat: cards}}").format(i=i), code=Code.MISSING_KEY)
           for i, ev in enumerate(events)
           if ev["type"] == "deal" and ev.get("source", "random") != "random" and not isinstance(ev.get("hands"), dict)]
    if events[0]["type"] != "deal":
        out.append(r.diag(("events", 0), _("the first event of a record is the deal"), code=Code.VALUE_NOT_ALLOWED))
    return out


def _move_positions(r: _Reader, events: list[Any]) -> dict[int, tuple[int, int]]:
    """Event index -> where the text of its move starts (inside the quotes), for each move event."""
    move_pos: dict[int, tuple[int, int]] = {}
    for i, ev in enumerate(events):
        if ev["type"] == "move":
            ln, col = r.pos.at.get(("events", i, "move"), (0, 0))
            move_pos[i] = (ln, col + 1)  # inside the quotes
    return move_pos


def parse_record(text: str, path: str = "<record>") -> GameRecord:
    """Read a record from ``text`` (the contents of ``path``), checked against the record schema
    (``schema/record.schema.json``) and the limits (:data:`MAX_RECORD_CHARS`,
    :data:`MAX_RECORD_NESTING`, :data:`MAX_RECORD_NUMBER_CHARS`, :data:`MAX_RECORD_KEYS`; a key
    written twice in one object is refused). Raises :class:`GoujiError` with every problem found,
    each at its ``file:line:col`` with a :class:`~gouji_dsl.diagnostics.Code`."""
    data = _read_json(text, path)
    r = _Reader(path, text)
    if not isinstance(data, dict):
        raise r.fail((), _("a record is a JSON object with 'ruleset' and 'events', not {json_type}").format(json_type=_json_type(data)),
                     code=Code.NOT_A_RECORD)
    if data.get("format", FORMAT) != FORMAT:
        raise r.fail(("format",), _("not a gouji record: format is {quoted}").format(
            quoted=quoted(data.get('format'))), _("expected {format!r}").format(format=FORMAT),
                     code=Code.NOT_A_RECORD)
    found = {(d.line, d.col, d.message): d for d in _schema_diags(r, data)}
    events = data.get("events")
    if not found and isinstance(events, list):
        found.update(((d.line, d.col, d.message), d) for d in _event_problems(r, events))
    if found:
        raise GoujiError(sorted(found.values(), key=Diagnostic.sort_key))
    assert isinstance(events, list)
    positions = {i: r.pos.at.get(("events", i), (0, 0)) for i in range(len(events))}
    bots = {int(k): v for k, v in (data.get("bots") or {}).items()}
    return GameRecord(data["ruleset"], data.get("seed"), bots, events, data.get("ruleset_path"), path, positions,
                      _move_positions(r, events), text, data.get("ruleset_text"))


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read the record file ``path``. Raises :class:`GoujiError` (``file:line:col: why`` and a code)."""
    p = str(path)
    try:  # a named pipe waited for a writer for ever, /dev/zero was read to the limit
        raw = read_regular(p, MAX_RECORD_CHARS * 4)
    except FileNotFoundError:
        raise GoujiError(Diagnostic(p, 0, 0, _("no such file"), code=Code.UNREADABLE)) from None
    except NotRegularFile as e:
        raise GoujiError(Diagnostic(p, 0, 0, _("cannot read: {kind}").format(kind=e.kind), _("give the path of a record file (.json)"),
                                    code=Code.UNREADABLE)) from None
    except FileTooLarge:
        raise GoujiError(Diagnostic(p, 0, 0, _("the file is larger than a record may be ({max_record_chars:,} "
                                    "characters, MAX_RECORD_CHARS)").format(max_record_chars=MAX_RECORD_CHARS), code=Code.FILE_TOO_LARGE)) from None
    except OSError as e:
        raise GoujiError(Diagnostic(p, 0, 0, _("cannot read: {e}").format(e=os_reason(e)), code=Code.UNREADABLE)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        good = raw[:e.start].decode("utf-8", errors="replace")
        ln, col = _offset_pos(good, len(good))
        raise GoujiError(Diagnostic(p, ln, col, _("not UTF-8 text: byte 0x{raw:02x} at offset {start} "
                                    "({reason})").format(
                                        raw=raw[e.start], start=e.start, reason=e.reason), _("a record is UTF-8 JSON as `gouji play` saves it"),
                                    code=Code.NOT_TEXT)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return parse_record(text, p)


def record_graph(record: GameRecord, *, search: Sequence[str | os.PathLike[str]] = ()) -> RuleGraph:
    """The ruleset a record was played under: the ruleset text it carries (resolved as if it were
    ``ruleset_path`` when that is a place rulesets may be read from, else as if it were beside the
    record), else its ``ruleset_path``, else the ruleset by name (beside the record, in ``search`` or
    the rules path, or bundled). What a record names is read only where
    :func:`gouji_dsl.ruleset.load.finding.find_ruleset` allows (never an absolute path elsewhere, never
    ``..`` out of the record's folder). Raises :class:`GoujiError`."""
    referrer = record.path if record.path != "<record>" else os.path.join(os.getcwd(), "<record>")
    # the carried text is resolved as a file beside the record: its name never leaves that folder
    stem = re.sub(r"[^\w-]", "_", Path(record.ruleset).name).strip("_") or "record"
    beside = str(Path(referrer).parent / f"{stem}.yaml")
    field_name = "ruleset_path" if record.ruleset_path else "ruleset"
    try:
        if record.ruleset_text:
            field_name = "ruleset_text"
            where = record.ruleset_path
            if not where or not allowed_place(where, referrer=referrer, search=search):
                where = beside
            return compile_ruleset(resolve_text(record.ruleset_text, where, search=search))
        ref = record.ruleset_path or record.ruleset
        return compile_ruleset(resolve(find_ruleset(ref, referrer=referrer, search=search), search=search))
    except GoujiError as e:
        if not record.text:
            raise
        r = _Reader(record.path, record.text)
        carried = where if record.ruleset_text else None

        def placed(d: Diagnostic) -> Diagnostic:
            if carried is not None and d.path == carried:  # a problem of the carried text: in the record's field
                return _in_carried_text(r, record.ruleset_text or "", d)
            if d.path == record.path and d.line <= 0:  # a refusal about the record's own field: point at it
                return r.diag((field_name,), d.message, d.hint, code=d.code)
            return d
        raise GoujiError([placed(d) for d in e.diagnostics]) from None


def _in_carried_text(r: _Reader, text: str, d: Diagnostic) -> Diagnostic:
    """``d``, a problem at ``line:col`` of the ruleset text a record carries (resolved as if it were
    the file it names), placed where that character is written in the record file: inside the JSON
    string of ``ruleset_text`` (escapes counted as written), with the record's line as source."""
    start = r.pos.offsets(("ruleset_text",))[0]
    if start is None or d.line <= 0:
        return r.diag(("ruleset_text",), _("in the ruleset text this record carries: {message}").format(message=d.message), d.hint, code=d.code)
    lines = text.split("\n")
    target = sum(len(x) + 1 for x in lines[:d.line - 1]) + max(d.col - 1, 0)
    raw, i, k = r.text, start + 1, 0  # i: in the record's text (after the opening quote); k: in the decoded string
    while k < target and i < len(raw) and raw[i] != '"':
        if raw[i] == "\\":
            i += 6 if raw[i + 1:i + 2] == "u" else 2
            if raw[i - 6:i - 4] == "\\u" and 0xD800 <= int(raw[i - 4:i], 16) < 0xDC00 and raw[i:i + 2] == "\\u":
                i += 6  # a surrogate pair is one character of the text
        else:
            i += 1
        k += 1
    ln, col = _offset_pos(raw, i)
    return Diagnostic(r.path, ln, col, _("in the ruleset text this record carries (its line {line}): {message}").format(
        line=d.line, message=d.message), d.hint,
                      line_of(raw, ln), code=d.code)


# ------------------------------------------------------------------------------ replay
@dataclass
class Step:
    """One point of a replayed record: the state, the move that led here (None for the start of a
    game) and the index of that move's event in the record."""

    state: GameState
    move: str | None = None
    event: int | None = None


def _seat_fail(r: _Reader, where: tuple, seat: Any, n: int, what: str) -> GoujiError:
    return r.fail(where, _("{where}: {what} {quoted} does not exist: this ruleset has seats 1..{n}").format(
        where=_where(where[:-1]), what=what, quoted=quoted(seat), n=n),
                  key=True, code=Code.BAD_SEAT)


def _check_seats(graph: RuleGraph, record: GameRecord, r: _Reader) -> None:
    """Every seat a record names (bots, dealt hands, forced leaders) is a seat of ``graph``."""
    n = graph.n_seats
    for s in record.bots:
        if not 1 <= int(s) <= n:
            raise _seat_fail(r, ("bots", str(s)), str(s), n, "seat")
    for i, ev in enumerate(record.events):
        if ev.get("type") == "deal" and isinstance(ev.get("hands"), dict) and ev.get("source", "random") != "random":
            for k in ev["hands"]:
                if not (str(k).isdigit() and 1 <= int(k) <= n):
                    raise _seat_fail(r, ("events", i, "hands", k), k, n, "seat")
        if ev.get("type") == "first_leader" and ev.get("forced") is not None:
            f = ev["forced"]
            if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= n:
                raise r.fail(("events", i, "forced"), _("events[{i}].forced: seat {quoted} does not exist: this ruleset "
                             "has seats 1..{n}").format(i=i, quoted=quoted(f), n=n), code=Code.BAD_SEAT)


def _hands(graph: RuleGraph, deal: dict[str, Any], r: _Reader, i: int) -> dict[int, list]:
    """A fixed deal's hands (seat -> cards), each card text checked against the ruleset's pack."""
    out: dict[int, list] = {}
    for k, text in (deal.get("hands") or {}).items():
        ln, col = r.pos.at.get(("events", i, "hands", k), (0, 0))
        pos: dict[str, Any] = dict(path=r.path, line=ln, col=col + 1)
        cards = parse_cards(str(text), allow_empty=True, **pos)
        graph.model.counts_of(cards, **pos)
        out[int(k)] = cards
    return out


def _compare_deal(state: GameState, deal: dict[str, Any]) -> bool:
    want = deal.get("hands")
    if not isinstance(want, dict):
        return True
    got = state.record[0]["hands"]
    return all(str(want.get(k, "")) == v for k, v in got.items())


def _dealt_again(state: GameState, ev: dict[str, Any], graph: RuleGraph, r: _Reader, i: int) -> bool:
    """``ev`` is a later fixed deal of a voided fixed deal (a scenario's ``redeal_deals``): dealt again
    in ``state`` with its hands, as the game was (a random deal is dealt again by its seed)."""
    if ev.get("type") != "deal" or not ev.get("redeal") or ev.get("source", "random") == "random" or not state.voided:
        return False
    state.deal_again(_hands(graph, ev, r, i))
    return True


def _deal_game(graph: RuleGraph, record: GameRecord, r: _Reader, gi: int, start: int, end: int,
               prev: GameState | None) -> GameState:
    """Game ``gi`` (from 0) of ``record`` dealt as it was: the first by :func:`new_game`, the others after ``prev``;
    a random deal must give the recorded hands."""
    deal = record.events[start]
    where = record.positions.get(start, (0, 0))
    leader = next((e.get("forced") for e in record.events[start:end]
                   if e.get("type") == "first_leader" and e.get("forced")), None)
    hands = None if deal.get("source", "random") == "random" else _hands(graph, deal, r, start)
    try:
        if prev is None or gi == 0:
            state = new_game(graph, deal.get("seed"), hands=hands, leader=leader,
                             game_number=deal.get("game_number", 1))
        else:
            state = next_game(prev, deal.get("seed"), hands=hands)
    except GoujiError as e:
        d = e.diagnostics[0]
        raise r.fail_at(*where, _("game {gi}: cannot deal: {message}").format(gi=gi + 1, message=d.message), d.hint, code=d.code) from None
    if hands is None and not _compare_deal(state, deal):
        raise r.fail_at(*where, _("game {gi}: seed {quoted} does not deal these hands under "
                        "ruleset {name!r}").format(
                            gi=gi + 1, quoted=quoted(deal.get('seed')), name=graph.name),
                        _("was the record made under another ruleset or version?"),
                        code=Code.RECORD_DIFFERS)
    return state


def _recorded_move(graph: RuleGraph, record: GameRecord, r: _Reader, i: int) -> tuple[Move, int, int]:
    """The move of event ``i`` read, and where it is written."""
    ln, col = record.move_positions.get(i, record.positions.get(i, (0, 0)))
    try:
        mv = parse_move(record.events[i]["move"], graph.model, graph.n_seats, path=record.path, line=ln, col=col,
                        words=choice_words(graph))
    except GoujiError as err:
        d = err.diagnostics[0]
        raise GoujiError(Diagnostic(d.path, d.line, d.col, d.message, d.hint, line_of(r.text, ln),
                                    code=d.code)) from None
    return mv, ln, col


def _replay_move(graph: RuleGraph, state: GameState, r: _Reader, text: str, mv: Move, ln: int, col: int, gi: int) -> None:
    """The recorded move ``text`` (read as ``mv``, written at ``ln``:``col``) made in ``state``; an error there when
    game ``gi`` is over or the move is illegal."""
    if state.over:
        raise r.fail_at(ln, col, _("move {quoted} comes after the end of game {gi}").format(quoted=quoted(text), gi=gi + 1),
                        code=Code.ILLEGAL_RECORDED_MOVE)
    try:
        state.apply_in_place(mv)
    except IllegalMove as err:
        forb = [x for x in err.reasons if x.verdict == Verdict.FORBADE] or err.reasons
        why = "; ".join(f"{x.rule_id}: {x.text}" + (f" ({x.where})" if x.where else "") for x in forb[:3])
        raise r.fail_at(ln, col, _("move {quoted} is illegal here under {name!r}: {why}").format(
            quoted=quoted(text), name=graph.name, why=why),
                        _("seat {to_act} is to act ({phase}, {capacity})").format(
                            to_act=state.to_act, phase=state.phase, capacity=state.capacity),
                        code=Code.ILLEGAL_RECORDED_MOVE) from None


def _check_result(state: GameState, record: GameRecord, r: _Reader, gi: int, start: int, end: int) -> None:
    """Game ``gi`` replayed ends as its ``game_over`` event says (when it has one)."""
    over = next((e for e in record.events[start:end] if e.get("type") == "game_over"), None)
    if over is None:
        return
    got = {str(s): v for s, v in state.scores.items()}
    if not state.over or {k: got.get(k) for k in over.get("scores", {})} != over.get("scores", {}):
        i = record.events.index(over, start)
        raise r.fail_at(*record.positions.get(i, (0, 0)),
                        _("game {gi}: the recorded result differs from the replay "
                        "({over})").format(gi=gi + 1, over='not over' if not state.over else got),
                        _("was the record made under another ruleset or version?"), code=Code.RECORD_DIFFERS)


def replay_steps(graph: RuleGraph, record: GameRecord) -> list[Step]:
    """Replay every game of ``record`` under ``graph``: the state at the start of each game and
    after each move (each state an independent copy). Raises :class:`GoujiError` at the event that
    cannot be replayed: a seat the ruleset does not have, a deal that the seed no longer gives, an
    unknown or illegal move, a result that differs from the recorded one."""
    r = _Reader(record.path, record.text)
    _check_seats(graph, record, r)
    starts = record.game_starts
    steps: list[Step] = []
    prev: GameState | None = None
    for gi, start in enumerate(starts):
        end = starts[gi + 1] if gi + 1 < len(starts) else len(record.events)
        state = _deal_game(graph, record, r, gi, start, end, prev)
        steps.append(Step(state.copy()))
        for i in range(start, end):
            ev = record.events[i]
            if _dealt_again(state, ev, graph, r, i) or ev.get("type") != "move":
                continue
            _replay_move(graph, state, r, ev["move"], *_recorded_move(graph, record, r, i), gi)
            steps.append(Step(state.copy(), ev["move"], i))
        _check_result(state, record, r, gi, start, end)
        prev = state
    return steps


def replay_record(graph: RuleGraph, record: GameRecord) -> list[GameState]:
    """The final state of every game of ``record``. Raises :class:`GoujiError`."""
    steps = replay_steps(graph, record)
    out: list[GameState] = []
    for st in steps:
        if st.move is None:
            out.append(st.state)
        else:
            out[-1] = st.state
    return out


def _decision_keys(event: dict[str, Any]) -> list[str]:
    """The keys of :attr:`GameState.decided` that hold the rules behind an event of this type."""
    kind = event.get("type")
    keys = {"first_leader": ["first_leader", "leader"], "trick_won": ["next_leader", "leader"],
            "place": [f"place:{event.get('seat')}"]}.get(str(kind), [])
    return keys + [str(kind)]


def check_record(graph: RuleGraph, record: GameRecord) -> list[GameState]:
    """Replay ``record`` under ``graph`` (:func:`replay_steps`) and check that every recorded event
    — deals, first leaders, tricks won, tribute, places, scores — is the one the replay gives.
    Returns the final state of every game; raises :class:`GoujiError` (code ``RecordDiffers``) at the
    first event that differs, saying what the record says, what the replay gives and which rules
    decided the replay's answer."""
    steps = replay_steps(graph, record)
    starts = record.game_starts
    r = _Reader(record.path, record.text)
    finals: list[GameState] = []
    by_game: list[list[Step]] = []
    for st in steps:
        if st.move is None:
            finals.append(st.state)
            by_game.append([st])
        else:
            finals[-1] = st.state
            by_game[-1].append(st)
    for gi, (start, final) in enumerate(zip(starts, finals)):
        end = starts[gi + 1] if gi + 1 < len(starts) else len(record.events)
        recorded = record.events[start:end]
        replayed = json.loads(json.dumps(final.record, ensure_ascii=False, default=str))
        for k in range(max(len(recorded), len(replayed))):
            want = recorded[k] if k < len(recorded) else None
            got = replayed[k] if k < len(replayed) else None
            if want == got:
                continue
            i = start + min(k, len(recorded) - 1)
            what = (want or got or {}).get("type", "event")
            said = _("nothing more") if want is None else json.dumps(want, ensure_ascii=False)
            gave = _("nothing more") if got is None else json.dumps(got, ensure_ascii=False)
            # the state in which the replay made this event: its decisions name the rules
            at = next((st.state for st in by_game[gi] if len(st.state.record) > k), final)
            reasons = next((at.decided[key] for key in _decision_keys(got or {}) if at.decided.get(key)), ())
            hint = None
            if reasons:
                hint = _("the replay's decision: ") + "; ".join(
                    f"{x.rule_id} ({x.verdict})" + (_(" at {short}").format(short=x.pos.short) if x.pos else "") for x in reasons[:3])
            raise r.fail_at(*record.positions.get(i, (0, 0)),
                            _("game {gi}, event {k} ({what}): the record says {cut}, "
                            "the replay under {name!r} gives {cut2}").format(
                                gi=gi + 1, k=k + 1, what=what, cut=_cut(said), name=graph.name, cut2=_cut(gave)), hint, code=Code.RECORD_DIFFERS)
    return finals


def _cut(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


__all__ = ["GameRecord", "Step", "save_record", "load_record", "parse_record", "record_graph", "replay_steps",
           "replay_record", "check_record", "record_schema", "MAX_RECORD_CHARS", "MAX_RECORD_NESTING",
           "MAX_RECORD_NUMBER_CHARS", "FORMAT", "VERSION"]
_KEEP = Any
