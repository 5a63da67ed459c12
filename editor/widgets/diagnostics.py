"""The problems list under the editor: ``line:col message`` per diagnostic; Enter or a click jumps."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from gouji_dsl.diagnostics import Diagnostic

from ..i18n import _, chinese
from ..validation import same_file
from .cjkwrap import hanging


def location(d: Diagnostic, own_path: str | os.PathLike[str]) -> str:
    """``12:5`` for a problem in the edited file, ``base.yaml:12:5`` for one in another file."""
    pos = f"{d.line}:{max(d.col, 1)}" if d.line > 0 else ""
    if same_file(d.path, own_path):
        return pos or "file"
    name = Path(d.path).name
    return f"{name}:{pos}" if pos else name


class DiagnosticsList(OptionList):
    """Lists diagnostics; posts :class:`DiagnosticsList.Jump` when one is chosen."""

    BORDER_TITLE = "Problems"

    @dataclass
    class Jump(Message):
        diagnostic: Diagnostic

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.diagnostics: list[Diagnostic] = []
        self.own_path = ""
        self._width = 0

    def show(self, diagnostics: list[Diagnostic], own_path: str | os.PathLike[str]) -> None:
        self.own_path = os.fspath(own_path)
        # problems in the edited file first, by position; then those in other files
        self.diagnostics = sorted(diagnostics, key=lambda d: (not same_file(d.path, own_path), d.path, d.line, d.col))
        highlighted = self.highlighted
        self.clear_options()
        if not self.diagnostics:
            self.add_option(Option(Text(_("No problems."), style="dim"), disabled=True))
            self.border_title = _("Problems")
            return
        width = self._width = self._room()
        for i, d in enumerate(self.diagnostics):
            self.add_option(Option(self._label(d, width), id=f"d{i}"))
        n = len(self.diagnostics)
        self.border_title = _("Problems ({n})").format(n=n)
        if highlighted is not None and highlighted < n:
            self.highlighted = highlighted

    def _label(self, d: Diagnostic, width: int) -> Text:
        """``  49:9 message [Code]（hint）``: the code as the CLI shows it, the hint in brackets
        (full-width in Chinese), the lines after the first under the message (Chinese broken between
        characters, never before its closing punctuation nor inside a quoted ``': '``)."""
        label = Text()
        style = "bold red" if d.severity == "error" else "bold yellow"
        head = f"{location(d, self.own_path):>7} "
        label.append(head, style=style)
        label.append(d.message)
        label.append(f" [{d.code}]", style="dim")
        if d.hint:
            label.append(f"（{d.hint}）" if chinese() else f"  ({d.hint})", style="dim")
        return hanging(label, width, len(head)) if width > cell_len(head) + 8 else label

    def _room(self) -> int:
        """The labels' width with room kept for a scroll bar (one shown later would fold them again)."""
        return max(self.size.width - self.styles.gutter.width - self.styles.scrollbar_size_vertical, 0)

    def on_resize(self) -> None:
        if self.diagnostics and self._room() != self._width:
            self._width = self._room()
            highlighted = self.highlighted
            for i, d in enumerate(self.diagnostics):
                self.replace_option_prompt(f"d{i}", self._label(d, self._width))
            self.highlighted = highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id and event.option_id.startswith("d"):
            self.post_message(self.Jump(self.diagnostics[int(event.option_id[1:])]))
