"""Positions inside a ruleset file's text: the line breaks YAML knows, and where the character at an offset
of a scalar's value was written (:func:`position_in`, :func:`locator`), for the carets of expression errors.

A scalar's value is not its source text: quotes, escapes, folded lines and indentation come between.
:func:`locator` re-scans the scalar as written (once) to map every offset of the value back to the file.
This module reads no files and knows nothing of rulesets beyond :class:`~gouji_dsl.ruleset.spec.Text`.
"""
from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.ruleset.spec import Text

__all__ = ["LINE_BREAK", "split_lines", "locator", "position_in"]

LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
"""The line breaks of YAML (CR LF, LF, CR, NEL, LS, PS; not the form feed and others ``str.splitlines`` also splits at)."""


@functools.lru_cache(maxsize=16)
def split_lines(text: str) -> list[str]:
    """The lines of ``text`` split at YAML line breaks (cached: do not mutate)."""
    return LINE_BREAK.split(text)


@functools.lru_cache(maxsize=16)
def _line_starts(source: str) -> list[int]:
    starts = [0]
    for m in LINE_BREAK.finditer(source):
        starts.append(m.end())
    return starts


def _align(value: str, source: str, origin: SourcePos, style: str) -> list[int] | None:
    """Source index of each character of ``value`` (plus one past the end), scanning the scalar as
    written from ``origin``; None when the source does not match the value."""
    starts = _line_starts(source)
    if not 1 <= origin.line <= len(starts):
        return None
    j = starts[origin.line - 1] + origin.col - 1
    if j > len(source):
        return None
    dq, sq = style == '"', style == "'"
    out: list[int] = []
    i = 0
    while i < len(value):
        if j >= len(source):
            return None
        step = _advance(value[i], source, j, dq, sq)
        if step is None:
            return None
        if step[0]:
            out.append(j)
            i += 1
        j = step[1]
    out.append(out[-1] + 1 if out else j)
    return out


def _advance(c: str, source: str, j: int, dq: bool, sq: bool) -> tuple[int, int] | None:
    """How the value's next character ``c`` is written at ``source[j]``: (how many characters of the
    value it gives, 0 or 1; where the source goes on), or None when it is not written there."""
    sc = source[j]
    if dq and sc == "\\":
        return _escape(source, j)
    if sq and sc == "'" and source[j + 1: j + 2] == "'":
        return 1, j + 2
    if sc == c:
        return 1, j + 1
    if sc in " \t\r\n\x85\u2028\u2029":
        # a folded line break (or kept newline) in the value; else indentation / folded whitespace in the source
        return (1, j) if c in " \n" else (0, j + 1)
    return None


def _escape(source: str, j: int) -> tuple[int, int]:
    """An escape of a double-quoted scalar at ``source[j]`` (see :func:`_advance`)."""
    nxt = source[j + 1: j + 2]
    if nxt in ("\n", "\r"):  # escaped line break produces nothing
        j += 2
        while j < len(source) and source[j] in " \t\r\n":
            j += 1
        return 0, j
    return 1, j + {"x": 4, "u": 6, "U": 10}.get(nxt, 2)


def locator(text: Text, source: str | None = None) -> Callable[[int], tuple[int, int]]:
    """:func:`position_in` for many offsets of one ``text`` (the scalar is scanned once): the
    expression parser places every node with it."""
    if source is None:
        return lambda offset: position_in(text, offset)
    where = _align(text.text, source, text.origin, text.style)
    if where is None:
        return lambda offset: position_in(text, offset)
    starts = _line_starts(source)
    n_chars = len(text.text)

    def locate(offset: int) -> tuple[int, int]:
        index = where[max(0, min(offset, n_chars))]
        n = bisect.bisect_right(starts, index) - 1
        return n + 1, index - starts[n] + 1
    return locate


def position_in(text: Text, offset: int, source: str | None = None) -> tuple[int, int]:
    """The 1-based ``(line, col)`` in the file of the character at 0-based ``offset`` in ``text.text``
    (``offset == len(text.text)`` gives the position just after the last character).

    Exact without ``source`` for single-line plain scalars, quoted scalars without escapes and
    literal (``|``) block scalars; folded (``>``), multi-line flow and escaped scalars are best
    effort. Pass ``source`` (the file's text, e.g. ``ResolvedRuleset.text``) to make those exact
    too: the scalar is then re-scanned as written."""
    o = text.origin
    s = text.text
    offset = max(0, min(offset, len(s)))
    if source is not None:
        where = _align(s, source, o, text.style)
        if where is not None:
            index = where[offset]
            starts = _line_starts(source)
            n = bisect.bisect_right(starts, index) - 1
            return n + 1, index - starts[n] + 1
    before = s[:offset]
    row = before.count("\n")
    if row and text.style in ("|", ">"):
        return o.line + row, o.col + offset - (before.rfind("\n") + 1)
    return o.line, o.col + offset
