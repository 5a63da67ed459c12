"""The insert picker (Ctrl+N): filter setting names, rule ids, hooks, functions and keys; Enter inserts."""
from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.fuzzy import Matcher
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from ..completion import KIND_ORDER, Item, kind_word
from ..i18n import N_, _
from ..widgets.cjkwrap import WrappedStatic
from ..widgets.footer import FittingFooter

MAX_SHOWN = 200


class PickerScreen(ModalScreen[Item | None]):
    """Dismisses with the chosen :class:`~editor.completion.Item`, or None."""

    BINDINGS = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("down", "move(1)", N_("Down"), show=False),
        Binding("up", "move(-1)", N_("Up"), show=False),
        Binding("pagedown", "move(10)", N_("Page down"), show=False),
        Binding("pageup", "move(-10)", N_("Page up"), show=False),
        Binding("enter", "pick", N_("Insert")),
    ]

    def __init__(self, items: list[Item], query: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.items = items
        self.query_text = query
        self.shown: list[Item] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker") as box:
            box.border_title = _("Insert")
            yield Input(self.query_text, placeholder=_("type to filter: setting, rule id, hook, function, key…"),
                        id="picker-input", compact=True)
            yield OptionList(id="picker-list")
            yield WrappedStatic("", id="picker-help")
        yield FittingFooter()

    def on_mount(self) -> None:
        self._filter(self.query_text)
        self.query_one(Input).focus()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_pick()

    def _filter(self, query: str) -> None:
        query = query.strip()
        order = {k: i for i, k in enumerate(KIND_ORDER)}
        if query:
            matcher = Matcher(query)
            scored = [(matcher.match(it.label), it) for it in self.items]
            hits = [(s, it) for s, it in scored if s > 0]
            hits.sort(key=lambda p: (-p[0], order.get(p[1].kind, 99), p[1].label))
            self.shown = [it for _score, it in hits][:MAX_SHOWN]
        else:
            matcher = None
            self.shown = self.items[:MAX_SHOWN]
        olist = self.query_one("#picker-list", OptionList)
        olist.clear_options()
        for i, it in enumerate(self.shown):
            name = matcher.highlight(it.label) if matcher else Content(it.label)
            kind = kind_word(it.kind)
            olist.add_option(Option(Content.assemble((" " * max(10 - cell_len(kind), 0) + kind + " ", "dim"), name), id=str(i)))
        if self.shown:
            olist.highlighted = 0
        self._show_help()

    def _show_help(self) -> None:
        olist = self.query_one("#picker-list", OptionList)
        i = olist.highlighted
        help_text = self.shown[i].help if i is not None and i < len(self.shown) else _("nothing matches")
        self.query_one("#picker-help", WrappedStatic).show(Text(help_text))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        self._show_help()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[int(event.option_id or 0)])

    def action_move(self, delta: int) -> None:
        olist = self.query_one("#picker-list", OptionList)
        if not self.shown:
            return
        i = olist.highlighted or 0
        olist.highlighted = max(0, min(len(self.shown) - 1, i + delta))

    def action_pick(self) -> None:
        i = self.query_one("#picker-list", OptionList).highlighted
        self.dismiss(self.shown[i] if i is not None and i < len(self.shown) else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
