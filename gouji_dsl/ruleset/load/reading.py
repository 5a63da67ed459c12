"""Reading one ruleset file: its text from disk (:func:`read_text`) and, from the text, plain data that keeps where
every value and key was written (:func:`parse_text` gives a :class:`RawRuleset`), within the loader's limits.

The data is built from the YAML events without recursion (:class:`_Builder`), refusing what YAML allows and rulesets
do not: aliases, tags, merge keys, duplicate keys, keys that are lists or mappings, more than one document. PyYAML's
(and libyaml's) syntax errors are told in our words (:data:`_YAML_WORDS`), at the character concerned.

The limits (named here; exceeding one is a positioned error, never a hang or a crash): :data:`MAX_FILE_CHARS`,
:data:`MAX_NESTING`, :data:`MAX_NUMBER_CHARS` / :data:`MAX_INTEGER`; the others are named where they are checked:
``MAX_RULES_PER_FILE`` in :mod:`~gouji_dsl.ruleset.load.checking`, ``MAX_REFERENCE_CHARS`` in
:mod:`~gouji_dsl.ruleset.load.finding`.
What the data must look like (the schema) is :mod:`~gouji_dsl.ruleset.load.checking`'s.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos, quoted
from gouji_dsl.i18n import N_, _
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, os_reason, read_regular
from gouji_dsl.ruleset.load.locating import split_lines
from gouji_dsl.ruleset.spec import Text

__all__ = [
    "MAX_FILE_CHARS", "MAX_NESTING", "MAX_NUMBER_CHARS", "MAX_INTEGER",
    "Loc", "Spot", "RawRuleset", "read_text", "parse_text", "diag_at", "file_diag", "join_hints",
]

# -- limits ----------------------------------------------------------------------------------------
MAX_FILE_CHARS = 4_000_000
"""Largest ruleset file read, in characters (a 10,000-rule file is about 2,000,000)."""

MAX_NESTING = 64
"""Deepest nesting of YAML mappings and lists (the deepest bundled value is 5 levels)."""

MAX_NUMBER_CHARS = 40
"""Longest number written in a ruleset, in characters."""

MAX_INTEGER = 10**15
"""Largest whole number (in absolute value) a ruleset may write."""

Loc = tuple[Any, ...]  # a path into the data: str keys and int indexes

_MERGE_TAG = "tag:yaml.org,2002:merge"
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's event parser when available (faster)


def _source_line(text: str, line: int) -> str | None:
    lines = split_lines(text)
    return lines[line - 1] if 1 <= line <= len(lines) else None


def diag_at(path: str, text: str, pos: SourcePos | tuple[int, int], message: str, hint: str | None = None, *,
          code: str = Code.UNSPECIFIED, severity: str = Severity.ERROR) -> Diagnostic:
    """A diagnostic in ``text`` (the file ``path``) at ``pos`` (a SourcePos or ``(line, col)``)."""
    if not isinstance(pos, SourcePos):
        pos = SourcePos(path, pos[0], pos[1])
    return Diagnostic.at(pos, message, hint=hint, source_line=_source_line(text, pos.line) if pos.line > 0 else None,
                         code=code, severity=severity)


def file_diag(path: str, message: str, hint: str | None = None, *, code: str) -> Diagnostic:
    """A diagnostic about a whole file (no line, no text shown)."""
    return Diagnostic(path, 0, 0, message, hint, code=code)


def join_hints(hints: Iterable[str | None]) -> str | None:
    out = ""
    for h in hints:
        if h:
            out += ("" if out.endswith("？") else " " if out.endswith("?") else _("; ") if out else "") + h
    return out or None


def _expr_source(value: Any) -> str:
    """Expression text of a scalar: strings as is, YAML booleans as ``true``/``false``, numbers as digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return value if isinstance(value, str) else str(value)


# --------------------------------------------------------------------------------------------------
# one file, with positions


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one YAML value (or key) was written: ``pos`` spans the value (for a quoted scalar: the
    characters inside the quotes; for a block scalar: from its first content character), ``style``
    is the scalar style (``""`` plain or a collection, ``"'"``, ``'"'``, ``"|"``, ``">"``)."""

    pos: SourcePos
    style: str = ""


@dataclass
class RawRuleset:
    """One ruleset file as read: plain data plus where every value and key was written.

    ``data`` is plain Python data (mapping keys are always strings: the key as written, so ``on:``
    stays ``"on"``). ``values[loc]`` / ``keys[loc]`` are the :class:`Spot` of the value / key at
    ``loc``, a tuple path like ``("rules", 0, "id")`` (the same shape as jsonschema's
    ``absolute_path``)."""

    path: str
    text: str
    data: Any
    values: dict[Loc, Spot] = field(default_factory=dict)
    keys: dict[Loc, Spot] = field(default_factory=dict)

    def get(self, loc: Loc, default: Any = None) -> Any:
        """The plain value at ``loc`` or ``default``."""
        cur = self.data
        for part in loc:
            try:
                cur = cur[part]
            except (KeyError, IndexError, TypeError):
                return default
        return cur

    def spot(self, loc: Loc, *, key: bool = False) -> Spot:
        """The :class:`Spot` of the value (or key) at ``loc``; the nearest enclosing value's when
        ``loc`` has none of its own."""
        table = self.keys if key else self.values
        found = table.get(loc)
        while found is None and loc:
            loc = loc[:-1]
            found = self.values.get(loc)
        return found if found is not None else Spot(SourcePos(self.path, 1, 1))

    def origin(self, loc: Loc, *, key: bool = False) -> SourcePos:
        """Where the value (or, with ``key=True``, the key) at ``loc`` was written; falls back to the
        nearest enclosing node when ``loc`` has no node of its own."""
        return self.spot(loc, key=key).pos

    def text_at(self, loc: Loc) -> Text:
        """The value at ``loc`` as expression :class:`Text` (booleans/numbers turned into their text)."""
        spot = self.spot(loc)
        return Text(_expr_source(self.get(loc)), spot.pos, spot.style)

    def diag(self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False,
             code: str = Code.UNSPECIFIED, severity: str = Severity.ERROR) -> Diagnostic:
        """A :class:`Diagnostic` at the value (or key) at ``loc``."""
        return diag_at(self.path, self.text, self.origin(loc, key=key), message, hint, code=code, severity=severity)


def _spot(path: str, text: str, event: Any, end: Any = None) -> Spot:
    """The :class:`Spot` of a YAML event (``end``: the event closing a collection)."""
    mark = event.start_mark
    stop = (end or event).end_mark
    line, col = mark.line + 1, mark.column + 1
    end_line, end_col = stop.line + 1, stop.column + 1
    style = getattr(event, "style", None) or "" if isinstance(event, yaml.ScalarEvent) else ""
    if style in ("'", '"'):
        col += 1
        end_col -= 1
    elif style in ("|", ">"):
        # The value starts on the line after the indicator, at the block's indentation.
        lines = split_lines(text)
        for n in range(mark.line + 1, min(stop.line + 1, len(lines))):
            stripped = lines[n].lstrip(" ")
            if stripped:
                line, col = n + 1, len(lines[n]) - len(stripped) + 1
                break
    return Spot(SourcePos(path, line, col, end_line, end_col), style)


_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TAG = "tag:yaml.org,2002:"


class _Frame:
    """A mapping or list being built (see :class:`_Builder`). A mapping's ``expect`` says what its
    next node is: ``"key"``, its ``"value"``, a value to ``"drop"`` (after a bad key) or the end of a
    ``"keyskip"`` (a list or mapping written as a key)."""

    __slots__ = ("value", "loc", "event", "key", "first", "expect")

    def __init__(self, value: Any, loc: Loc, event: Any):
        self.value, self.loc, self.event = value, loc, event
        self.key: str | None = None
        self.first: dict[str, int] = {}  # key -> line first written
        self.expect = "key"


class _Builder:
    """Builds plain data from YAML events without recursion, recording every value's :class:`Spot`
    and the problems YAML allows but rulesets do not (aliases, tags, merge keys, duplicate keys,
    complex keys, nesting deeper than :data:`MAX_NESTING`, numbers beyond :data:`MAX_INTEGER`)."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.values: dict[Loc, Spot] = {}
        self.keys: dict[Loc, Spot] = {}
        self.diags: list[Diagnostic] = []

    def error(self, spot: Spot, message: str, hint: str | None = None, *, code: str) -> None:
        self.diags.append(diag_at(self.path, self.text, spot.pos, message, hint, code=code))

    def build(self, events: Iterator[Any]) -> tuple[bool, Any]:
        """``(found, data)``: the document's root value (``found`` is False for an empty stream)."""
        self.stack: list[_Frame] = []
        self.skipping = 0  # depth inside a list or mapping that is being dropped
        self.root: Any = None
        self.found = False
        self.documents = 0
        for ev in events:
            if not self._step(ev):
                break
        return self.found, self.root

    def _step(self, ev: Any) -> bool:
        """Take one event; False: stop reading (a second document)."""
        if self.skipping:
            self._skip(ev)
        elif isinstance(ev, yaml.DocumentStartEvent):
            return self._document(ev)
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self._close(ev)
        elif not isinstance(ev, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)):
            parent = self.stack[-1] if self.stack else None
            if parent is not None and isinstance(parent.value, dict) and parent.expect != "value":
                self._in_mapping(parent, ev)
            else:
                self._value(parent, ev)
        return True

    def _skip(self, ev: Any) -> None:
        """An event inside a list or mapping that is being dropped."""
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self.skipping += 1
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.skipping -= 1
            if not self.skipping and self.stack:
                self._finish(self.stack[-1], None, assign=True)

    def _document(self, ev: Any) -> bool:
        """A document starts: False (and an error) for a second one."""
        self.documents += 1
        if self.documents > 1:
            self.error(_spot(self.path, self.text, ev), _("a ruleset file holds one YAML document"),
                       _("remove the `---` line and what follows, or split the file"), code=Code.YAML_SYNTAX)
            return False
        return True

    def _close(self, ev: Any) -> None:
        """A list or mapping ends."""
        frame = self.stack.pop()
        self.values[frame.loc] = _spot(self.path, self.text, frame.event, ev)
        if self.stack:
            self._finish(self.stack[-1], frame.value, assign=False)
        else:
            self.root, self.found = frame.value, True

    def _in_mapping(self, parent: _Frame, ev: Any) -> None:
        """A node of mapping ``parent`` that is not a value to keep: a key, or what a bad key drops."""
        if parent.expect == "key":
            if self._key(parent, ev):
                parent.expect = "value"
            elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                parent.expect, self.skipping = "keyskip", 1
            else:
                parent.expect = "drop"
        elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self.skipping = 1  # the value of a bad key, dropped (its end resets expect)
        else:
            parent.expect = "key"

    def _value(self, parent: _Frame | None, ev: Any) -> None:
        """A value: a list item, a mapping's value or the root."""
        loc: Loc = () if parent is None else (
            parent.loc + (len(parent.value),) if isinstance(parent.value, list) else parent.loc + (parent.key,))
        if isinstance(ev, yaml.AliasEvent):
            self.error(_spot(self.path, self.text, ev), _("YAML aliases (*{anchor}) are not allowed in rulesets").format(anchor=ev.anchor),
                       _("write the value out in full; to share rules between files use `extends:`"), code=Code.YAML_ALIAS)
            if parent is None:
                self.found = True
            else:
                self._finish(parent, None, assign=True)
        elif isinstance(ev, yaml.ScalarEvent):
            spot = _spot(self.path, self.text, ev)
            self.values[loc] = spot
            value = self._scalar(ev, spot)
            if parent is None:
                self.root, self.found = value, True
            else:
                self._finish(parent, value, assign=True)
        else:
            self._open(parent, loc, ev)

    def _open(self, parent: _Frame | None, loc: Loc, ev: Any) -> None:
        """A list or mapping starts at ``loc``."""
        if self._explicit_tag(ev):
            self.error(_spot(self.path, self.text, ev), _("YAML tags ({tag}) are not used in rulesets").format(tag=_tag(ev.tag or '')),
                       _("remove the tag"), code=Code.YAML_TAG)
        if len(self.stack) >= MAX_NESTING:
            self.error(_spot(self.path, self.text, ev), _("nesting deeper than {max_nesting} levels").format(max_nesting=MAX_NESTING),
                       _("a ruleset needs only a few levels of mappings and lists"), code=Code.TOO_DEEP)
            self.skipping = 1
            return
        frame = _Frame({} if isinstance(ev, yaml.MappingStartEvent) else [], loc, ev)
        if parent is not None:
            self._finish(parent, frame.value, assign=True, complete=False)
        self.stack.append(frame)

    # -- pieces
    @staticmethod
    def _finish(parent: _Frame, value: Any, *, assign: bool, complete: bool = True) -> None:
        """A node under ``parent`` starts (``complete=False``: a list or mapping, stored at once to
        keep its place) or is complete; ``assign``: store ``value`` there."""
        if isinstance(parent.value, list):
            if assign:
                parent.value.append(value)
            return
        if parent.expect == "keyskip":
            parent.expect = "drop"
            return
        if parent.expect == "drop":
            parent.expect = "key"
            return
        if assign:
            parent.value[parent.key] = value
        if complete:
            parent.expect = "key"

    def _key(self, parent: _Frame, ev: Any) -> bool:
        """Take ``ev`` as the next key of the mapping ``parent``; False when it cannot be one."""
        if isinstance(ev, yaml.AliasEvent):
            self.error(_spot(self.path, self.text, ev), _("YAML aliases (*{anchor}) are not allowed in rulesets").format(anchor=ev.anchor),
                       _("write the key out"), code=Code.YAML_ALIAS)
            return False
        if not isinstance(ev, yaml.ScalarEvent):
            self.error(_spot(self.path, self.text, ev), _("a key must be a plain word, not a list or mapping"),
                       code=Code.WRONG_TYPE)
            return False
        spot = _spot(self.path, self.text, ev)
        if self._explicit_tag(ev):
            self.error(spot, _("YAML tags ({tag}) are not used in rulesets").format(tag=_tag(ev.tag or '')), _("remove the tag"), code=Code.YAML_TAG)
            return False
        name = ev.value
        if ev.implicit[0] and _RESOLVER.resolve(yaml.ScalarNode, name, (True, False)) == _MERGE_TAG:
            self.error(spot, _("YAML merge keys (<<) are not supported in rulesets"),
                       _("write the keys out, or use `extends:` to share rules"), code=Code.YAML_MERGE_KEY)
            return False
        if name in parent.first:
            self.error(spot, _("duplicate key {name!r}").format(name=name),
                       _("first written at line {parent}; remove one of them").format(parent=parent.first[name]), code=Code.DUPLICATE_KEY)
            return False
        parent.first[name] = spot.pos.line
        parent.key = name
        self.keys[parent.loc + (name,)] = spot
        return True

    @staticmethod
    def _explicit_tag(ev: Any) -> bool:
        return ev.tag not in (None, "!") and not (isinstance(ev, yaml.ScalarEvent) and ev.implicit[0])

    def _scalar(self, ev: Any, spot: Spot) -> Any:
        value = ev.value
        if self._explicit_tag(ev):
            self.error(spot, _("YAML tags ({tag}) are not used in rulesets").format(tag=_tag(ev.tag or '')),
                       _("remove the tag; quote the value if it is meant as text"), code=Code.YAML_TAG)
            return value
        if not ev.implicit[0]:  # quoted, block or `!`: text
            return value
        tag = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
        if tag in (_TAG + "str", _TAG + "timestamp", _MERGE_TAG, _TAG + "value"):
            return value  # a date-like plain scalar stays the text as written
        if tag in (_TAG + "int", _TAG + "float"):
            return self._number(tag, value, spot)
        if tag == _TAG + "null":
            return None
        if tag == _TAG + "bool":
            return _CONSTRUCTOR.construct_yaml_bool(yaml.ScalarNode(tag, value))
        return value

    def _number(self, tag: str, value: str, spot: Spot) -> Any:
        """A plain scalar YAML reads as a number, within :data:`MAX_NUMBER_CHARS` and :data:`MAX_INTEGER`; None
        (and an error) otherwise."""
        if len(value) > MAX_NUMBER_CHARS:
            self.error(spot, _("number too long ({n} characters; at most {max_number_chars})").format(
                n=len(value), max_number_chars=MAX_NUMBER_CHARS),
                       _("numbers in a ruleset are at most {max_integer:,}").format(max_integer=MAX_INTEGER), code=Code.NUMBER_TOO_LARGE)
            return None
        try:
            number = _CONSTRUCTOR.construct_object(yaml.ScalarNode(tag, value), deep=True)
        except (ValueError, yaml.YAMLError) as e:
            self.error(spot, _("cannot read this number: {e}").format(e=e), code=Code.WRONG_TYPE)
            return None
        if isinstance(number, float) and not math.isfinite(number):
            self.error(spot, _("{value!r} is not a finite number").format(value=value), _("write a number such as 0.5"),
                       code=Code.NUMBER_TOO_LARGE)
            return None
        if abs(number) > MAX_INTEGER:
            self.error(spot, _("number too large: {value}").format(value=value), _("numbers in a ruleset are at most {max_integer:,}").format(
                max_integer=MAX_INTEGER),
                       code=Code.NUMBER_TOO_LARGE)
            return None
        return number


def _tag(tag: str) -> str:
    """A tag as written: ``tag:yaml.org,2002:timestamp`` → ``!!timestamp``."""
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


def _reader_error(path: str, text: str) -> Diagnostic | None:
    """The first character YAML does not accept (control characters ...), positioned."""
    m = _NON_PRINTABLE.search(text)
    if m is None:
        return None
    before = text[: m.start()]
    line = len(split_lines(before))
    col = len(split_lines(before)[-1]) + 1
    return diag_at(path, text, (line, col), _("invalid character in YAML: U+{ord:04X}").format(ord=ord(m.group())),
                 _("remove the character (control characters are not allowed) or save the file as UTF-8 text"),
                 code=Code.NOT_TEXT)


_YAML_KINDS: tuple[tuple[str, str, str], ...] = (
    # (context contains, problem contains, kind): the first that matches; PyYAML's and libyaml's words
    ("quoted scalar", "end of stream", "unclosed_quote"),
    ("", "cannot start any token", "bad_start"),
    ("", "mapping values are not allowed", "mapping_values"),
    ("", "unknown escape character", "escape"),
    ("flow sequence", "expected ','", "unclosed_list"),
    ("flow mapping", "expected ','", "unclosed_map"),
    ("simple key", "could not find expected ':'", "no_colon"),
    ("block collection", "", "not_an_item"),
    ("block mapping", "expected key", "block_end"),
    ("block mapping", "expected <block end>", "block_end"),
    ("", "node content", "no_value"),
)
"""How PyYAML's (and libyaml's) problems are recognised."""

_YAML_WORDS: dict[str, tuple[str, str]] = {
    "unclosed_quote": (N_("the quoted text that starts here is not closed"),
                       N_("end it with the same quote mark ({char}); a quote inside it is written twice ('') "
                          "or as \\\"")),
    "tab": (N_("a tab character"), N_("use spaces, not tabs, for indentation")),
    "bad_start": (N_("a value cannot start with {char}"), N_("put the value in quotes (\"...\")")),
    "mapping_values": (N_("a ':' where no key can start"),
                       N_("quote the value if it contains ': ' (e.g. says: \"...\"), or check the indentation")),
    "escape": (N_("unknown escape \\{char} in a text in double quotes"),
               N_("write \\\\ for a backslash, or use single quotes")),
    "unclosed_list": (N_("the list that starts here ([) is not closed, or lacks a comma"),
                      N_("separate its items with ',' and close it with ']' before the next key")),
    "unclosed_map": (N_("the map that starts here ({{) is not closed, or lacks a comma"),
                     N_("separate its entries with ',' and close it with '}}' before the next key")),
    "no_colon": (N_("this line is not `key: value`"),
                 N_("add ': ' after the key, or indent the line under the key it belongs to")),
    "not_an_item": (N_("a line among the items of a list that is not an item"),
                    N_("start the line with '- ', or indent it under its item")),
    "indent": (N_("this line is indented otherwise than the lines above it"),
               N_("check the indentation of this line: the keys of one map start in the same column")),
    "after_value": (N_("text after a value that has ended"),
                    N_("put the whole value in quotes, or check the indentation of this line")),
    "no_value": (N_("a value is missing here"),
                 N_("write the value, or put it in quotes if it starts with a sign such as {char}")),
}
"""What each kind of YAML problem is called, and the hint ({char}: the character concerned)."""

_AT_CONTEXT = frozenset({"unclosed_quote", "unclosed_list", "unclosed_map", "no_colon"})
"""The kinds reported where the unclosed quote, bracket or key started (PyYAML's context mark)."""


def _char_at(text: str, line: int, col: int) -> str:
    """The character at ``line``, ``col`` (from 0, as YAML marks count), or ""."""
    lines = text.split("\n")
    here = lines[line] if 0 <= line < len(lines) else ""
    return here[col] if 0 <= col < len(here) else ""


def _yaml_kind(e: yaml.YAMLError, text: str) -> str | None:
    context = getattr(e, "context", None) or ""
    problem = getattr(e, "problem", None) or ""
    kind = next((k for ctx, prob, k in _YAML_KINDS if ctx in context and prob in problem), None)
    mark = getattr(e, "problem_mark", None)
    if kind == "bad_start" and mark is not None and _char_at(text, mark.line, mark.column) == "\t":
        return "tab"
    if kind == "block_end" and mark is not None:
        line = text.split("\n")[mark.line] if mark.line < text.count("\n") + 1 else ""
        return "indent" if not line[:mark.column].strip() else "after_value"
    return kind


def _yaml_problem(e: yaml.YAMLError, text: str) -> tuple[str, str | None, Any]:
    """(message, hint, mark) for a PyYAML error: its problem in our words where we know it (an
    unclosed quote or bracket at where it opened), else PyYAML's own text in our frame."""
    kind = _yaml_kind(e, text)
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    if kind is None:
        problem = getattr(e, "problem", None) or str(e)
        return _("YAML syntax error: {problem}").format(problem=problem), getattr(e, "context", None), mark
    if kind in _AT_CONTEXT and getattr(e, "context_mark", None) is not None:
        mark = e.context_mark  # type: ignore[attr-defined]
    char = _char_at(text, mark.line, mark.column) if mark is not None else ""
    if kind == "escape" and char == "\\" and mark is not None:  # (libyaml points at the backslash, PyYAML at the letter)
        char = _char_at(text, mark.line, mark.column + 1)
    message, hint = _YAML_WORDS[kind]
    fields = {"char": (char if kind in ("escape", "unclosed_quote") and char.isprintable() else quoted(char)) if char else "?"}
    return (_("YAML syntax error: {problem}").format(problem=_(message).format(**fields)), _(hint).format(**fields),
            mark)


def _yaml_error(path: str, text: str, e: yaml.YAMLError) -> Diagnostic:
    if isinstance(e, yaml.reader.ReaderError):
        found = _reader_error(path, text)
        if found is not None:
            return found
        return file_diag(path, _("invalid character in YAML: {reason}").format(reason=e.reason), code=Code.NOT_TEXT)
    message, hint, mark = _yaml_problem(e, text)
    if mark is None:
        return Diagnostic(path, 0, 0, message, hint=hint, code=Code.YAML_SYNTAX)
    return diag_at(path, text, (mark.line + 1, mark.column + 1), message, hint, code=Code.YAML_SYNTAX)


def parse_text(text: str, path: str) -> tuple[RawRuleset | None, list[Diagnostic]]:
    """Parse ``text`` with positions; returns the raw file (None when nothing could be read) and problems."""
    if len(text) > MAX_FILE_CHARS:
        return None, [file_diag(path, _("the file is too large ({n:,} characters; at most {max_file_chars:,})").format(
            n=len(text), max_file_chars=MAX_FILE_CHARS),
                                 _("split it: a ruleset may `extends:` another"), code=Code.FILE_TOO_LARGE)]
    bad = _reader_error(path, text)
    if bad is not None:
        return None, [bad]
    builder = _Builder(path, text)
    try:
        found, data = builder.build(yaml.parse(text, Loader=_PARSER))
    except yaml.YAMLError as e:
        return None, builder.diags + [_yaml_error(path, text, e)]
    if not found:
        return None, [diag_at(path, text, (1, 1), _("the ruleset file is empty"), code=Code.EMPTY_FILE,
                            hint=_("a ruleset starts with `ruleset: NAME` (use the file stem)"))]
    return RawRuleset(path, text, data, builder.values, builder.keys), builder.diags


def read_text(path: str) -> str:
    """The text of the ruleset file ``path``, refusing what is not a regular file or larger than
    :data:`MAX_FILE_CHARS` before reading it."""
    try:
        data = read_regular(path, 4 * MAX_FILE_CHARS)  # UTF-8 takes at most 4 bytes a character
    except NotRegularFile as e:
        raise GoujiError(file_diag(path, _("cannot read ruleset: {kind}").format(kind=os_reason(e)), _("give the path of a .yaml file"),
                                    code=Code.NOT_A_RULESET)) from None
    except FileTooLarge as e:
        raise GoujiError(file_diag(path, _("the file is too large ({size:,} bytes; at most "
                                          "{max_file_chars:,} characters)").format(size=e.size, max_file_chars=MAX_FILE_CHARS),
                                    _("split it: a ruleset may `extends:` another"), code=Code.FILE_TOO_LARGE)) from None
    except OSError as e:
        raise GoujiError(file_diag(path, _("cannot read ruleset: {e}").format(e=os_reason(e)), code=Code.UNREADABLE)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        good = data[: e.start].decode("utf-8-sig", errors="replace")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        raise GoujiError(Diagnostic(path, line, col, _("cannot read ruleset: not UTF-8 text ({reason})").format(reason=os_reason(e)),
                                    _("save the file as UTF-8"), code=Code.NOT_TEXT)) from None
    return text
