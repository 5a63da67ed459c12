"""Reading JSON a user could edit (records, run folders' ``run.json`` and chunks, duel save files): the one JSON
reader of gouji, positioned and within limits, as :mod:`gouji_dsl.ruleset.load.reading` is for YAML.

- :func:`json_limit`: one scan before ``json`` reads a text, for where it passes a reader's limits (nesting, keys of
  one object, NaN and Infinity, numbers longer than :data:`MAX_NUMBER_CHARS`).
- :func:`load_json`: ``json.loads`` refusing a key written twice in one object (:class:`DuplicateKeyError`, at the
  second one).
- :class:`Positions`: where each value and key starts (``line, col``), found on demand for a path of keys and indexes.
- :func:`strict_validator_class`, :func:`schema_message`: JSON Schema validation as every reader of these files does it.

Each reader names its own limits and says its own errors (:mod:`gouji_dsl.engine.records`, :mod:`gouji_dsl.tools.runfiles`,
:mod:`gouji_dsl.tools.duel`); this module reads no files and knows nothing of what the JSON means.
"""
from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from gouji_dsl.diagnostics import SHOWN_VALUE_CHARS, quoted
from gouji_dsl.i18n import _

__all__ = ["MAX_NUMBER_CHARS", "JsonLimit", "json_limit", "DuplicateKeyError", "load_json", "Positions",
           "strict_validator_class", "schema_message"]

MAX_NUMBER_CHARS = 40
"""Longest number :func:`json_limit` lets through (with ``numbers``), in characters (the YAML reader's limit is the
same: :data:`gouji_dsl.ruleset.load.reading.MAX_NUMBER_CHARS`)."""

_LINE = re.compile(r"\r\n|\r|\n")
_WS = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()
# what the limit scan looks at: strings (skipped whole), brackets, and runs of number characters.
# A string is matched with possessive repeats: no backtracking state is kept per character (the
# plain `(?:[^"\\]|\\.)*` kept ~120 bytes a character: a 15,000,000-character string took 1.8 GB);
# a quote that opens no complete string (the last alternative) is unterminated up to the end of the
# text, where the scan stops (json reports it; scanning on from each later quote was quadratic). A
# key is matched with its colon (the keys of each object are counted: MAX_RECORD_KEYS).
_SCAN = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"(?:[ \t\r\n]*+:)?+|[\[\]{}]|[-+0-9.eE]{' + str(MAX_NUMBER_CHARS + 1)
                   + r',}|NaN|-?Infinity|"')


class _Lookup:
    """``path -> (line, col)`` on demand (``.get`` like a dict): values (``key=False``) or keys."""

    def __init__(self, owner: Positions, key: bool):
        self._owner, self._key = owner, key

    def get(self, path: tuple, default: tuple[int, int]) -> tuple[int, int]:
        value_at, key_at = self._owner.offsets(path)
        at = key_at if self._key else value_at
        return default if at is None else self._owner.pos(at)


class Positions:
    """Where JSON values and keys start: ``at.get(path)`` / ``keys.get(path)`` give ``(line, col)``,
    1-based, for a path of keys and indexes. Found on demand by walking the text and skipping the
    values on the way with the C JSON decoder (``raw_decode``); the offsets of an array's items are
    found in one pass and kept, so every event of a long record is located in linear time. Runs on
    text that ``json.loads`` accepted and whose nesting and numbers :func:`json_limit` bounded."""

    def __init__(self, text: str):
        self.text = text
        self._starts: list[int] | None = None
        self._items: dict[tuple, list[int]] = {}
        self._members: dict[tuple, dict[str, tuple[int, int]]] = {}
        self._found: dict[tuple, tuple[int, int | None]] = {}
        self.at = _Lookup(self, key=False)
        self.keys = _Lookup(self, key=True)

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _LINE.finditer(self.text)]
        return self._starts

    def pos(self, i: int) -> tuple[int, int]:
        starts = self._line_starts()
        ln = bisect.bisect_right(starts, i) - 1
        return ln + 1, i - starts[ln] + 1

    def line(self, ln: int) -> str | None:
        """The 1-based line ``ln`` of the text (lines as :meth:`pos` counts them), or None. Found from
        the line starts, not by splitting the text again for every diagnostic (``line_of``: a record
        with 20,000 bad events took minutes)."""
        starts = self._line_starts()
        if not 1 <= ln <= len(starts):
            return None
        end = starts[ln] if ln < len(starts) else len(self.text)
        return self.text[starts[ln - 1]:end].rstrip("\r\n")

    def _ws(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def _skip(self, i: int) -> int:
        """The offset just after the JSON value at ``i`` and the whitespace after it."""
        return self._ws(_DECODER.raw_decode(self.text, i)[1])

    def items(self, path: tuple, at: int) -> list[int]:
        """Offsets of the items of the array that starts at ``at`` (the value at ``path``)."""
        if path not in self._items:
            t, out = self.text, []
            i = self._ws(at + 1)
            while i < len(t) and t[i] != "]":
                out.append(i)
                i = self._skip(i)
                if i < len(t) and t[i] == ",":
                    i = self._ws(i + 1)
            self._items[path] = out
        return self._items[path]

    def members(self, path: tuple, at: int) -> dict[str, tuple[int, int]]:
        """key -> (offset of its value, offset of the key) of the object that starts at ``at`` (the
        value at ``path``), found in one pass and kept (an object of 5,000 keys each looked up from its
        start was quadratic: 20 s). A key written twice is the last one, as ``json.loads`` reads it."""
        if path not in self._members:
            t, out = self.text, {}
            i = self._ws(at + 1)
            while i < len(t) and t[i] == '"':
                k, end = _DECODER.raw_decode(t, i)
                key_at, i = i, self._ws(self._ws(end) + 1)   # past the colon
                out[k] = (i, key_at)
                i = self._skip(i)
                if i < len(t) and t[i] == ",":
                    i = self._ws(i + 1)
            self._members[path] = out
        return self._members[path]

    def offsets(self, path: tuple) -> tuple[int | None, int | None]:
        """(offset of the value at ``path``, offset of its key when the last step is a key)."""
        t = self.text
        if path in self._found:
            return self._found[path]
        start = next((n for n in range(len(path) - 1, 0, -1) if path[:n] in self._found), 0)
        try:
            i, key_at = self._found[path[:start]] if start else (self._ws(0), None)
            for n, step in enumerate(path[start:], start):
                if i >= len(t):
                    return None, None
                if t[i] == "[" and isinstance(step, int):
                    items = self.items(path[:n], i)
                    if not 0 <= step < len(items):
                        return None, None
                    i, key_at = items[step], None
                elif t[i] == "{" and isinstance(step, str):
                    member = self.members(path[:n], i).get(step)
                    if member is None:
                        return None, None
                    i, key_at = member
                else:
                    return None, None
                self._found[path[:n + 1]] = (i, key_at)
            return i, key_at
        except (ValueError, IndexError):
            return None, None


class JsonLimit(NamedTuple):
    """Where a JSON text first passes a reader's limits (:func:`json_limit`): ``kind`` is ``keys`` (an
    object of too many keys), ``nesting``, ``constant`` (NaN, Infinity: Python's json reads them,
    JSON has no such values) or ``number`` (more than :data:`MAX_NUMBER_CHARS` digits);
    ``offset`` where it starts; ``token`` the constant or number written there."""

    kind: str
    offset: int
    token: str = ""


def json_limit(text: str, *, nesting: int, keys: int, numbers: bool = True) -> JsonLimit | None:
    """The first place ``text`` nests deeper than ``nesting``, writes an object of more than ``keys``
    keys, a NaN or Infinity, or (``numbers``) a number of more than :data:`MAX_NUMBER_CHARS`
    digits; None if none. One scan, before ``json`` reads the text (which would recurse, convert or
    build without bound), in memory of the order of the text (strings are skipped whole without
    backtracking); shared by records and run folders."""
    counts = [0]  # keys written so far in each open object or array (arrays count none)
    for m in _SCAN.finditer(text):
        start, end = m.span()
        if text[start] == '"':  # a string, or a key with its colon (not copied: it may be most of the text)
            if end - start == 1:  # an unterminated string: nothing after it is JSON
                break
            if text[end - 1] == ":":
                counts[-1] += 1
                if counts[-1] > keys:
                    return JsonLimit("keys", start)
            continue
        tok = m.group()
        if tok in "[{":
            counts.append(0)
            if len(counts) > nesting + 1:
                return JsonLimit("nesting", start)
        elif tok in "]}":
            del counts[max(1, len(counts) - 1):]  # the outermost count stays (a stray closing bracket)
        elif (found := _bad_value(tok, start, numbers)) is not None:
            return found
    return None


def _bad_value(tok: str, start: int, numbers: bool) -> JsonLimit | None:
    """A NaN or Infinity (Python's json reads them, JSON has no such values), or with ``numbers`` a
    number of more than :data:`MAX_NUMBER_CHARS` digits, as :func:`json_limit` reports it."""
    if tok[-1] in "Ny":
        return JsonLimit("constant", start, tok)
    if numbers and sum(ch.isdigit() for ch in tok) > MAX_NUMBER_CHARS:
        return JsonLimit("number", start, tok)
    return None


class DuplicateKeyError(ValueError):
    """JSON text that writes ``key`` twice in one object: ``offset`` is where the second one starts.
    ``json.loads`` keeps the last and says nothing (a hand-edited ``"games"`` written twice, the first
    one read by nobody)."""

    def __init__(self, key: str, offset: int):
        super().__init__(_("the key {quoted} is written twice in one object").format(quoted=quoted(key)))
        self.key, self.offset = key, offset


class _Twice(Exception):
    def __init__(self, key: str, closed: int):
        self.key, self.closed = key, closed


def load_json(text: str, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """``json.loads(text)`` refusing a key written twice in one object (:class:`DuplicateKeyError`):
    the one JSON reading of every file a user could edit (records, run folders' ``run.json`` and
    chunks, duel save files). ``parse_constant`` as ``json.loads`` takes it (NaN, Infinity)."""
    closed = 0

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal closed
        closed += 1  # objects end in the order the text closes them
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for k, _ in pairs:
                if k in seen:
                    raise _Twice(k, closed)
                seen.add(k)
        return out

    try:
        return json.loads(text, object_pairs_hook=pairs_hook, parse_constant=parse_constant)
    except _Twice as e:
        raise DuplicateKeyError(e.key, _second_key(text, _object_start(text, e.closed), e.key)) from None


def _object_start(text: str, closed: int) -> int:
    """Where the ``closed``-th object to end in ``text`` starts."""
    opened: list[int] = []
    for m in _SCAN.finditer(text):
        tok = m.group()
        if tok == "{":
            opened.append(m.start())
        elif tok == "}" and opened:
            start = opened.pop()
            closed -= 1
            if closed == 0:
                return start
    return 0


def _second_key(text: str, at: int, key: str) -> int:
    """Where ``key`` is written the second time in the object that starts at ``at``."""
    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i
    i, seen = ws(at + 1), False
    while i < len(text) and text[i] == '"':
        k, end = _DECODER.raw_decode(text, i)
        if k == key and seen:
            return i
        seen = seen or k == key
        i = ws(_DECODER.raw_decode(text, ws(ws(end) + 1))[1])
        if i < len(text) and text[i] == ",":
            i = ws(i + 1)
    return at


def strict_validator_class() -> Any:
    """Draft-07 validation where an integer is an int (1.0 and true are not): for every JSON file gouji reads."""
    from jsonschema import Draft7Validator, validators

    # a seat or game number is a whole number: 1.0 is not one (JSON Schema would take it)
    checker = Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda _c, x: isinstance(x, int) and not isinstance(x, bool))
    return validators.extend(Draft7Validator, type_checker=checker)


def schema_message(err: Any) -> str:
    """A JSON Schema error's message with the value it quotes shortened (:func:`quoted`): jsonschema
    writes the whole value (``'xxx…' is not of type 'integer'`` for a 1 MB string)."""
    whole = repr(err.instance)
    return err.message.replace(whole, quoted(err.instance), 1) if len(whole) > SHOWN_VALUE_CHARS else err.message
