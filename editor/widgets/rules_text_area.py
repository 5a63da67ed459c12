"""A YAML TextArea that marks the lines with problems: a marker in the gutter, the text underlined."""
from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Offset
from textual.strip import Strip
from textual.widgets import TextArea

from ..i18n import N_
from .keys import run_binding_now

MARKERS = {"error": "●", "warning": "▲"}


class RulesTextArea(TextArea):
    """The ruleset source. ``set_marks({row: (severity, column)})`` marks problem lines (0-based)."""

    DEFAULT_CSS = """
    RulesTextArea .rules-text-area--error { color: $error; text-style: bold; }
    RulesTextArea .rules-text-area--warning { color: $warning; text-style: bold; }
    """
    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {"rules-text-area--error", "rules-text-area--warning"}
    BINDINGS = [
        Binding("ctrl+home", "document_start", N_("Start of file"), show=False),
        Binding("ctrl+end", "document_end", N_("End of file"), show=False),
        Binding("ctrl+shift+home", "document_start(True)", N_("Select to the start"), show=False),
        Binding("ctrl+shift+end", "document_end(True)", N_("Select to the end"), show=False),
    ]

    def action_document_start(self, select: bool = False) -> None:
        """Ctrl+Home: the start of the file (with Shift, selecting)."""
        self.move_cursor((0, 0), select=select)

    def action_document_end(self, select: bool = False) -> None:
        """Ctrl+End: the end of the file (with Shift, selecting)."""
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document.get_line(last))), select=select)

    def __init__(self, text: str = "", **kwargs) -> None:
        language = kwargs.pop("language", "yaml")
        super().__init__(text, **kwargs)
        self.marks: dict[int, tuple[str, int]] = {}
        # YAML highlighting needs the tree-sitter extra; without it the editor works as plain text.
        self.language = language if language in self.available_languages else None

    async def _on_key(self, event: events.Key) -> None:
        # cursor keys and the editor's keys take effect in the order typed (issue 15: Down, End, Q)
        own = ("enter", "tab", "escape") if self.tab_behavior == "indent" else ("enter",)
        if await run_binding_now(self, event, own):
            return
        if event.key == "enter" and not self.read_only:
            # Keep the indentation (YAML is all about it): same as the line above, deeper after
            # `key:` or inside a `- ` list item.
            event.stop()
            event.prevent_default()
            row, col = self.cursor_location
            line = self.document.get_line(row)
            stripped = line.lstrip(" ")
            indent = len(line) - len(stripped)
            before = line[:col].rstrip()
            if col <= indent:
                indent = col
            elif before.endswith(":") or stripped.startswith("- "):
                indent += 2
            start, end = self.selection
            self.replace("\n" + " " * indent, start, end)
            return
        await super()._on_key(event)

    def set_marks(self, marks: dict[int, tuple[str, int]]) -> None:
        if marks == self.marks:
            return
        self.marks = dict(marks)
        cache = getattr(self, "_line_cache", None)
        if cache is not None:  # rendered lines are cached by TextArea; the marks are not in its key
            cache.clear()
        self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        mark = self.marks.get(line_index)
        if mark is not None:
            _severity, column = mark
            if line.plain:
                start = min(max(column, 0), len(line.plain) - 1)
                line.stylize(Style(underline=True), start, len(line.plain))
        return line

    def _render_line(self, y: int) -> Strip:
        strip = super()._render_line(y)
        if not self.marks or not self.show_line_numbers:
            return strip
        scroll_y = self.scroll_offset.y
        if y + scroll_y >= self.wrapped_document.height:
            return strip
        row, column = self.wrapped_document.offset_to_location(Offset(0, y + scroll_y))
        mark = self.marks.get(row)
        if mark is None or column != 0:
            return strip
        gutter = self.gutter_width
        if strip.cell_length < gutter or gutter < 2:
            return strip
        style = self.get_component_rich_style(f"rules-text-area--{mark[0]}", partial=True)
        head = strip.crop(0, gutter - 2)
        segments = list(head)
        base = segments[-1].style if segments else None
        marker = Strip([Segment(MARKERS.get(mark[0], "●") + " ", (base + style) if base else style)], 2)
        return Strip.join([head, marker, strip.crop(gutter, strip.cell_length)])
