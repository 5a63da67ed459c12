"""Lines of text in any language laid out by display width (排版): a Chinese character takes two
columns, a line of Chinese text may break between two Chinese characters (they need no space), and
CJK punctuation stays with its neighbour — ``、。，）”`` never start a line, ``“（`` never end one;
English (with a Chinese term or two in it) breaks at spaces only. Used by the
Chinese ``--help`` (:mod:`gouji_dsl.tools.cli`), the rulebook (:mod:`gouji_dsl.tools.doc`) and
``gouji diff`` (:mod:`gouji_dsl.tools.compare`); text
without double-width characters breaks at spaces only, as before.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from gouji_dsl.i18n import display_width

__all__ = ["NO_START", "NO_END", "break_units", "wrap"]

NO_START = "，。、；：！？）」』》〉】〕”’…·%)]},.;:!?"
"""Punctuation that never starts a line (kept with the text before it): CJK, and the ASCII closing
marks (``)`` after Chinese text in a source note)."""
NO_END = "（「『《〈【〔“‘([{"
"""Punctuation that never ends a line (kept with the text after it): CJK, and the ASCII opening marks."""


def _inside_terms(text: str, keep: Iterable[str]) -> set[int]:
    """The positions of ``text`` a line may not break before: inside a term of ``keep`` (大王, 革命,
    四人乱缠: a word of the game is never cut)."""
    inside: set[int] = set()
    for term in keep:
        if len(term) < 2:
            continue
        start = text.find(term)
        while start >= 0:
            inside.update(range(start + 1, start + len(term)))
            start = text.find(term, start + 1)
    return inside


def _measured(units: list[tuple[str, bool]], c: str, space: bool) -> bool:
    """``c`` (a Chinese measure word or unit after a number: ``20 局``, ``1 个``, ``一个``) stays with
    the number before it, across the space between them."""
    if not units:
        return False
    last = units[-1][0][-1:]
    if not space and last in _CHINESE_NUMERALS and c in _MEASURE_WORDS:
        return True
    return space and last.isdigit() and display_width(c) == 2 and c not in NO_END


_CHINESE_NUMERALS = frozenset("一二两三四五六七八九十百千万几每")
_MEASURE_WORDS = frozenset("个张局次副种位人轮家条项秒队组场")


def break_units(text: str, keep: Iterable[str] = ()) -> list[tuple[str, bool]]:
    """``text`` cut where a line may break: at spaces (``True``: a space before the unit), and
    between double-width characters, which need none; CJK punctuation stays with its neighbour, a
    number with the measure word after it (``20 局``), and a term of ``keep`` is never cut."""
    units: list[tuple[str, bool]] = []
    space, glue = False, False
    inside = _inside_terms(text, keep)
    for i, c in enumerate(text):
        if c.isspace():
            space, glue = bool(units), False
            continue
        wide = display_width(c) == 2
        if units and (_measured(units, c, space) or i in inside or (not space and (
                glue or c in NO_START or not (wide or display_width(units[-1][0][-1]) == 2)))):
            units[-1] = (units[-1][0] + (" " if space else "") + c, units[-1][1])
        else:
            units.append((c, space))
        space, glue = False, c in NO_END
    return units


def _pieces(word: str, width: int) -> list[str]:
    """``word`` cut into pieces of at most ``width`` columns (a word wider than a line)."""
    out, cur, used = [], "", 0
    for c in word:
        w = display_width(c)
        if cur and used + w > width:
            out.append(cur)
            cur, used = "", 0
        cur, used = cur + c, used + w
    return out + [cur] if cur else out


def _mostly_wide(text: str) -> bool:
    """Chinese text (with Chinese punctuation, or mostly double-width characters) breaks between
    characters; English with a Chinese term in it (``4 small jokers (小王)``) only at spaces, keeping
    its words whole."""
    if any(c in _CJK_PUNCTUATION for c in text):
        return True
    chars = [c for c in text if not c.isspace()]
    return sum(display_width(c) == 2 for c in chars) * 2 > len(chars)


_CJK_PUNCTUATION = frozenset("，。、；：！？（）“”「」《》【】")


def _words(text: str, keep: Iterable[str]) -> list[tuple[str, bool]]:
    """English text cut at its spaces, but not inside a term of ``keep`` (a list of places ``3 4 5 1 6 2``)."""
    inside = _inside_terms(text, keep) if keep else set()
    units: list[tuple[str, bool]] = []
    for m in re.finditer(r"\S+", text):
        if units and m.start() in inside:
            units[-1] = (units[-1][0] + " " + m.group(), units[-1][1])
        else:
            units.append((m.group(), bool(units)))
    return units


def wrap(text: str, width: int, first: str = "", rest: str | None = None, keep: Iterable[str] = ()) -> list[str]:
    """``text`` in lines of at most ``width`` columns (greedy), the first prefixed with ``first``, the
    others with ``rest`` (default: ``first``); trailing spaces stripped. ``keep``: terms never cut
    (the ruleset's words of the game)."""
    rest = first if rest is None else rest
    units = break_units(text, keep) if _mostly_wide(text) else _words(text, keep)
    lines: list[str] = []
    cur, used, has = first, display_width(first), False
    room = max(width - max(display_width(first), display_width(rest)), 4)
    for unit, space in units:
        for piece in _pieces(unit, room):
            w, sep = display_width(piece), 1 if space and has else 0
            if has and used + sep + w > width:
                lines.append(cur)
                cur, used, sep = rest, display_width(rest), 0
            cur, used, has, space = cur + " " * sep + piece, used + sep + w, True, False
    lines.append(cur)
    return [line.rstrip() for line in lines]
