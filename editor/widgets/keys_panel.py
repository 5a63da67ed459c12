"""Textual's Keys panel (the palette's "Keys" command, HelpPanel) in the active language: Textual
renders each binding's description and tooltip itself, so the panel here re-labels the rows of
Textual's table with the translations (the bindings' texts are ``N_``-marked English).

It subclasses Textual's private ``textual.widgets._key_panel`` (checked against the pinned Textual):
what it relies on — the table's second column holds each binding's description and tooltip as
Textual renders them, HelpPanel composes a Markdown and a KeyPanel — is checked where it runs
(:attr:`TranslatedBindingsTable.untranslated` lists every row it could not re-label, never a
crash) and by tests/test_app_words.py, which fail naming what changed after a Textual upgrade."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import HelpPanel, Markdown
from textual.widgets._key_panel import BindingsTable, KeyPanel

from ..i18n import _


class TranslatedBindingsTable(BindingsTable):
    """Textual's bindings table, each description and tooltip translated. ``untranslated``: the
    rows of the last rendering left as Textual wrote them (a binding row whose text is none of
    the active bindings', or the whole table when its shape is not Textual's as pinned)."""

    untranslated: list[str]

    def render_bindings_table(self) -> Table:
        table = super().render_bindings_table()
        self.untranslated = []
        shown: dict[str, tuple[str, str]] = {}  # the English row → (description, tooltip)
        for _ns, binding, _enabled, _tip in self.screen.active_bindings.values():
            english = Text.from_markup(binding.description).plain
            english += (" " if english and binding.tooltip else "") + (binding.tooltip or "")
            shown[english] = (binding.description, binding.tooltip or "")
        keys = getattr(table.columns[0], "_cells", None) if table.columns else None  # (rich's, private too)
        cells = getattr(table.columns[1], "_cells", None) if len(table.columns) == 2 else None
        if not isinstance(keys, list) or not isinstance(cells, list) or len(keys) != len(cells):
            self.untranslated = [f"a table of {len(table.columns)} columns, not (keys, descriptions)"]
            return table
        for i, (key, cell) in enumerate(zip(keys, cells, strict=True)):
            if isinstance(cell, Text) and cell.plain in shown:
                description, tooltip = shown[cell.plain]
                text = Text.from_markup(_(description) if description else "", end="", style=cell.style)
                if tooltip:
                    text.append((" " if description else "") + _(tooltip), "dim")
                cells[i] = text
            elif not (isinstance(key, str | Text) and not str(key)):  # (a group's title row has no key)
                self.untranslated.append(cell.plain if isinstance(cell, Text) else repr(cell))
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
