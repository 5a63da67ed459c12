"""The recovery dialog: unsaved text found from an editor that did not close normally, with a diff
preview against the file as it is on disk; Restore, Discard or Later (keep it for next time)."""
from __future__ import annotations

from enum import StrEnum

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from gouji_dsl.tools.exits import shown_markup

from ..files import Recovery, recovery_diff
from ..i18n import N_, _, ngettext
from ..workspace import display_path

MAX_DIFF_LINES = 400  # a longer diff is cut (the count of lines left out is shown)


class RecoveryChoice(StrEnum):
    """What the user does with a recovery copy."""

    RESTORE = "restore"   # put the recovered text in the editor (unsaved)
    DISCARD = "discard"   # delete the copy
    LATER = "later"       # keep the copy on disk; it is offered again next time


def diff_text(lines: list[str]) -> Text:
    """A unified diff coloured like ``git diff``."""
    out = Text(no_wrap=True, overflow="ellipsis")
    shown = lines[:MAX_DIFF_LINES]
    for ln in shown:
        style = ("bold" if ln.startswith(("---", "+++")) else "green" if ln.startswith("+")
                 else "red" if ln.startswith("-") else "cyan" if ln.startswith("@@") else "")
        out.append(ln + "\n", style=style)
    if len(lines) > len(shown):
        out.append(_("… {n} more diff lines").format(n=len(lines) - len(shown)), style="dim")
    if not lines:
        out.append(_("(the recovered text is the same as the file)"), style="dim")
    return out


class RecoveryScreen(ModalScreen[RecoveryChoice]):
    """Offers one recovery copy back. ``position`` is ``(i, n)`` when several copies wait."""

    BINDINGS = [
        Binding("escape", "choose('later')", N_("Later"), tooltip=N_("Keep the recovered text for next time")),
        Binding("left,shift+tab", "app.focus_previous", N_("Previous"), show=False),
        Binding("right,tab", "app.focus_next", N_("Next"), show=False),
    ]
    LETTERS = {"r": RecoveryChoice.RESTORE, "d": RecoveryChoice.DISCARD, "l": RecoveryChoice.LATER}

    def __init__(self, name: str, recovery: Recovery, file_text: str, *, position: tuple[int, int] = (1, 1)) -> None:
        super().__init__(classes="dialog-screen recovery-screen")
        self.file_name = name
        self.recovery = recovery
        self.file_text = file_text
        self.position = position

    def compose(self) -> ComposeResult:
        rec = self.recovery
        i, n = self.position
        with Vertical(classes="dialog recovery") as box:
            box.border_title = _("Recover unsaved text?") + (" " + _("({i} of {n})").format(i=i, n=n) if n > 1 else "")
            box.border_subtitle = shown_markup(display_path(rec.path))  # names from files: no markup (issue 22)
            lines = recovery_diff(self.file_text, rec.text, self.file_name)
            added = sum(1 for ln in lines if ln[:1] == "+" and not ln.startswith("+++"))
            removed = sum(1 for ln in lines if ln[:1] == "-" and not ln.startswith("---"))
            # an edited line is one removed and one added: say both, not "2 changed lines"
            changes = ngettext("{added} line added, {removed} removed", "{added} lines added, {removed} removed", added).format(
                added=added, removed=removed) if added or removed else _("no change")
            yield Static(_("Unsaved text of {name} from {when}: the editor did not close normally.").format(
                name=shown_markup(self.file_name), when=rec.when), classes="dialog-question")
            yield Static(_("{n} lines (the file has {m}); {changes}. Later keeps it on disk and asks again next time.").format(
                n=len(rec.text.splitlines()), m=len(self.file_text.splitlines()), changes=changes), classes="dialog-detail")
            with VerticalScroll(id="recovery-diff"):
                yield Static(diff_text(lines))
            with Horizontal(classes="dialog-buttons"):
                yield Button(_("Restore"), id="choice-restore", variant="primary", compact=True)
                yield Button(_("Discard changes"), id="choice-discard", variant="error", compact=True)
                yield Button(_("Later"), id="choice-later", compact=True)
            yield Label(_("[b]r[/b] restore  [b]d[/b] discard  [b]l/esc[/b] later  [b]↑↓[/b] scroll the diff"),
                        classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#choice-restore", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(RecoveryChoice((event.button.id or "choice-later").removeprefix("choice-")))

    def on_key(self, event: Key) -> None:
        choice = self.LETTERS.get((event.character or "").lower())
        if choice is not None:
            event.stop()
            self.dismiss(choice)
        elif event.key in ("up", "down", "pageup", "pagedown"):
            event.stop()
            scroll = self.query_one("#recovery-diff", VerticalScroll)
            {"up": scroll.scroll_up, "down": scroll.scroll_down,
             "pageup": scroll.scroll_page_up, "pagedown": scroll.scroll_page_down}[event.key](animate=False)

    def action_choose(self, key: str) -> None:
        self.dismiss(RecoveryChoice(key))
