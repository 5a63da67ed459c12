"""F1 / ?: the ruleset language explained, with examples from the bundled rulesets."""
from __future__ import annotations

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..helptext import help_markdown
from ..i18n import N_, _
from ..widgets.footer import FittingFooter


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,f1,question_mark", "close", N_("Close")),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = _("Help — the ruleset language")
            # Rich's Markdown renders the whole page as one widget: much faster to open than
            # Textual's Markdown widget, which builds a widget per block.
            yield Static(Markdown(help_markdown(self.keys()), code_theme="monokai"), id="help-text")
        yield FittingFooter()

    def keys(self) -> list[tuple[str, str]]:
        """The keys of the screen below (where help was asked from)."""
        others = [s for s in self.app.screen_stack if s is not self]
        below = others[-1] if others else None
        out: list[tuple[str, str]] = []
        if below is None:
            return out
        for active in below.active_bindings.values():
            b = active.binding
            if b.description:
                out.append((self.app.get_key_display(b), _(b.tooltip or b.description)))
        return out

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
