"""Small modal dialogs: a question with a few answers (save / discard / cancel, ...)."""
from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ..i18n import N_, _
from ..widgets.footer import FittingFooter


@dataclass(frozen=True)
class Choice:
    """One answer: ``key`` is returned, ``label``'s first letter (or ``shortcut``) picks it; ``label``
    is shown as given (translated by the caller: a translated label wants a ``shortcut``)."""

    key: str
    label: str
    variant: str = "default"
    shortcut: str = ""

    @property
    def letter(self) -> str:
        return (self.shortcut or self.label[:1]).lower()


CANCEL = Choice("cancel", "Cancel", "default", "c")
"""Cancel, in English (see :func:`cancel_choice`)."""


def cancel_choice() -> Choice:
    """The Cancel answer in the active language (its key c, and Escape)."""
    return Choice("cancel", _("Cancel"), "default", "c")


class ConfirmScreen(ModalScreen[str]):
    """Asks ``question`` and dismisses with the key of the chosen :class:`Choice`.

    Keys: the first letter of an answer picks it, Enter the focused button, Escape cancels."""

    BINDINGS = [
        Binding("escape", "choose('cancel')", N_("Cancel")),
        Binding("left,shift+tab", "app.focus_previous", N_("Previous"), show=False),
        Binding("right,tab", "app.focus_next", N_("Next"), show=False),
    ]

    def __init__(self, title: str, question: str, choices: list[Choice], *, default: str | None = None,
                 detail: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.question = question
        self.choices = choices
        self.default = default or choices[0].key
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = self.title_text
            yield Static(self.question, classes="dialog-question")
            if self.detail:
                yield Static(self.detail, classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                for c in self.choices:
                    yield Button(c.label, id=f"choice-{c.key}", variant=c.variant,  # type: ignore[arg-type]
                                 compact=True)
            keys = "  ".join(f"[b]{c.letter}{'/esc' if c.key == 'cancel' else ''}[/b] {c.label.lower()}"
                             for c in self.choices)
            if not any(c.key == "cancel" for c in self.choices):
                keys += "  [b]esc[/b] " + _("cancel")
            yield Label(keys, classes="dialog-keys")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(f"#choice-{self.default}", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "choice-cancel").removeprefix("choice-"))

    def on_key(self, event: Key) -> None:
        for c in self.choices:
            if event.character and event.character.lower() == c.letter:
                event.stop()
                self.dismiss(c.key)
                return

    def action_choose(self, key: str) -> None:
        self.dismiss(key)
