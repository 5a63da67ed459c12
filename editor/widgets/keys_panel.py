"""Textual's Keys panel (the palette's "Keys" command, HelpPanel) in the active language: Textual
renders each binding's description and tooltip itself, so the panel here re-labels the rows of
Textual's table with the translations (the bindings' texts are ``N_``-marked English)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import HelpPanel, Markdown
from textual.widgets._key_panel import BindingsTable, KeyPanel

from ..i18n import _


class TranslatedBindingsTable(BindingsTable):
    """Textual's bindings table, each description and tooltip translated."""

    def render_bindings_table(self) -> Table:
        table = super().render_bindings_table()
        shown: dict[str, tuple[str, str]] = {}  # the English row → (description, tooltip)
        for _ns, binding, _enabled, _tip in self.screen.active_bindings.values():
            english = Text.from_markup(binding.description).plain
            english += (" " if english and binding.tooltip else "") + (binding.tooltip or "")
            shown[english] = (binding.description, binding.tooltip or "")
        if len(table.columns) < 2:
            return table
        cells = table.columns[1]._cells
        for i, cell in enumerate(cells):
            if isinstance(cell, Text) and cell.plain in shown:
                description, tooltip = shown[cell.plain]
                text = Text.from_markup(_(description) if description else "", end="", style=cell.style)
                if tooltip:
                    text.append((" " if description else "") + _(tooltip), "dim")
                cells[i] = text
        return table


class TranslatedKeyPanel(KeyPanel):
    def compose(self) -> ComposeResult:
        yield TranslatedBindingsTable(shrink=True, expand=False)


class KeysHelpPanel(HelpPanel):
    """Textual's HelpPanel (its styles: a subclass matches its selectors) with :class:`TranslatedKeyPanel`."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield TranslatedKeyPanel(id="keys-help")


__all__ = ["KeysHelpPanel", "TranslatedBindingsTable"]
