"""Rich texts laid out as Chinese is (排版): a line may break between two Chinese characters and CJK
punctuation (``，。、”``) never starts a line (:mod:`gouji_dsl.tools.textlayout`), the styles kept."""
from __future__ import annotations

from rich.console import Console
from rich.text import Text

from gouji_dsl.i18n import display_width
from gouji_dsl.tools.textlayout import wrap


def _wide(plain: str) -> bool:
    return any(display_width(c) == 2 for c in plain)


def wrap_text(text: Text, width: int, console: Console | None = None) -> list[Text]:
    """``text`` in lines of at most ``width`` cells: a text with Chinese in it broken as
    :func:`gouji_dsl.tools.textlayout.wrap` breaks it (each line a slice of ``text``, its styles
    kept); any other text as Rich wraps it (at spaces)."""
    plain = text.plain
    if not _wide(plain) or "\n" in plain:
        return list(text.wrap(console or Console(width=max(width, 1)), max(width, 1), overflow="fold"))
    out: list[Text] = []
    pos = 0
    for line in wrap(plain, max(width, 4)):
        while pos < len(plain) and plain[pos].isspace():
            pos += 1
        need, end = sum(not c.isspace() for c in line), pos
        while end < len(plain) and need:
            need -= not plain[end].isspace()
            end += 1
        piece = text[pos:end]
        piece.rstrip()
        out.append(piece)
        pos = end
    return out or [Text("")]


__all__ = ["wrap_text"]
