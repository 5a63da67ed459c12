"""Rich texts laid out as Chinese is (排版): a line may break between two Chinese characters and CJK
punctuation (``，。、”``) never starts a line (:mod:`gouji_dsl.tools.textlayout`), the styles kept."""
from __future__ import annotations

import re
from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.widgets import Static

from gouji_dsl.i18n import display_width
from gouji_dsl.tools.textlayout import wrap

#: a short quoted piece of code in a sentence (``':'``, ``': '``, ``"..."``): never cut by a line break
_QUOTED = re.compile(r"'[^'\s][^']{0,10}'|\"[^\"]{1,12}\"")


def _wide(plain: str) -> bool:
    return any(display_width(c) == 2 for c in plain)


def wrap_text(text: Text, width: int, console: Console | None = None, keep: Iterable[str] = ()) -> list[Text]:
    """``text`` in lines of at most ``width`` cells: a text with Chinese in it broken as
    :func:`gouji_dsl.tools.textlayout.wrap` breaks it (each line a slice of ``text``, its styles
    kept; a short quoted piece such as ``': '`` and a term of ``keep`` never cut); any other text as
    Rich wraps it (at spaces). A text of several lines is wrapped line by line."""
    plain = text.plain
    if "\n" in plain:
        return [part for line in text.split("\n") for part in wrap_text(line, width, console, keep)]
    if not _wide(plain):
        return list(text.wrap(console or Console(width=max(width, 1)), max(width, 1), overflow="fold")) or [Text("")]
    out: list[Text] = []
    pos, carry = 0, 0
    lines = wrap(plain, max(width, 4), keep=[*keep, *_QUOTED.findall(plain)])
    for i, line in enumerate(lines):
        while pos < len(plain) and plain[pos].isspace():
            pos += 1
        need, end = sum(not c.isspace() for c in line) + carry, pos
        while end < len(plain) and need:
            need -= not plain[end].isspace()
            end += 1
        if i == len(lines) - 1:
            end = len(plain)
        cut = end
        while cut > pos + 1 and cell_len(plain[pos:cut].rstrip()) > width:
            cut -= 1  # (the layout counts a run of spaces as one: the slice may be wider)
        carry = sum(not c.isspace() for c in plain[cut:end])
        piece = text[pos:cut]
        piece.rstrip()
        out.append(piece)
        pos = cut
    if pos < len(plain) and plain[pos:].strip():
        out.extend(wrap_text(text[pos:], width, console, keep))
    return out or [Text("")]


def hanging(text: Text, width: int, head: int, keep: Iterable[str] = ()) -> Text:
    """``text`` wrapped by :func:`wrap_text` into ``width`` cells after its first ``head`` characters
    (a label such as ``  49:9 ``), the lines after the first indented by as many cells."""
    first, body = text[:head], text[head:]
    indent = cell_len(first.plain)
    lines = wrap_text(body, max(width - indent, 4), keep=keep)
    out = first + lines[0]
    for line in lines[1:]:
        out.append("\n" + " " * indent)
        out.append_text(line)
    return out


_CODE_GAP = re.compile(r"\S {2,}(?=\S)")


def help_lines(text: Text, width: int) -> Text:
    """A help text (lines indented by spaces; ``    RR TTT      what it does``: a key or example,
    then its description after two spaces or more) in ``width`` cells: a line too long is wrapped
    under its own start — a description under the description — never back at the first column."""
    out: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        if cell_len(plain) <= width:
            out.append(line)
            continue
        head = len(plain) - len(plain.lstrip(" "))
        gap = _CODE_GAP.search(plain, head) if head >= 4 else None
        if gap is not None and cell_len(plain[:gap.end()]) < width // 2:
            head = gap.end()
        out.append(hanging(line, width, head))
    return Text("\n").join(out)


class HelpStatic(Static):
    """A help text laid out by :func:`help_lines` to the widget's width (again when resized)."""

    def __init__(self, markup: str, **kwargs) -> None:
        super().__init__("", **kwargs)
        self._text = Text.from_markup(markup)

    def on_resize(self) -> None:
        width = self.content_size.width
        self.update(help_lines(self._text, width) if width > 20 else self._text)


class WrappedStatic(Static):
    """A :class:`~textual.widgets.Static` whose text is laid out by :func:`wrap_text` to its width
    (again when it is resized): Chinese broken between characters, not at its few spaces."""

    def __init__(self, text: Text | str = "", *, keep: Iterable[str] = (), **kwargs) -> None:
        super().__init__("", **kwargs)
        self._text = Text(text) if isinstance(text, str) else text
        self.keep = tuple(keep)

    def show(self, text: Text | str, keep: Iterable[str] | None = None) -> None:
        """Show ``text`` (``keep``: terms never cut; default: those given before)."""
        self._text = Text(text) if isinstance(text, str) else text
        if keep is not None:
            self.keep = tuple(keep)
        self._layout()

    def on_mount(self) -> None:
        self._layout()

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        width = self.content_size.width
        if width > 4 and _wide(self._text.plain):
            self.update(Text("\n").join(wrap_text(self._text, width, keep=self.keep)))
        else:
            self.update(self._text)


__all__ = ["HelpStatic", "WrappedStatic", "hanging", "help_lines", "wrap_text"]
