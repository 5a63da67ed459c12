"""New variant: pick a parent and a name; the file is created in the workspace and opened."""
from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.tools.exits import shown_markup

from ..files import atomic_write
from ..i18n import N_, _
from ..skeleton import variant_text
from ..widgets.footer import FittingFooter
from ..workspace import Workspace, display_path, name_pattern, name_rule


class NewVariantScreen(ModalScreen[Path | None]):
    """Dismisses with the path of the created file, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("ctrl+s", "create", N_("Create"), priority=True),
    ]

    def __init__(self, workspace: Workspace, parent: str | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.workspace = workspace
        self.parents = workspace.names()
        self.parent_name = parent if parent in self.parents else (self.parents[0] if self.parents else None)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog new-variant") as box:
            box.border_title = _("New variant")
            yield Static(_("A variant extends its parent: it starts identical to it and you write down "
                           "only what differs."), classes="dialog-detail")
            with Horizontal(classes="field-row"):
                yield Label(_("Parent"), classes="field-label")
                yield Select([(n, n) for n in self.parents], value=self.parent_name or Select.NULL,
                             allow_blank=False, id="parent", compact=True)
            with Horizontal(classes="field-row"):
                yield Label(_("Name"), classes="field-label")
                yield Input(self._suggest_name(), id="name", compact=True,
                            placeholder=_("lower-case letters, digits and '-' (also the file name)"))
            with Horizontal(classes="field-row"):
                yield Label(_("Title"), classes="field-label")
                yield Input("", placeholder=_("optional, e.g. Our town's rules"), id="title", compact=True)
            yield Static("", id="target")
            with Horizontal(classes="dialog-buttons"):
                yield Button(_("Create"), id="create", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)
            yield Label(_("[b]enter[/b] create  [b]tab[/b] next field  [b]esc[/b] cancel"),
                        classes="dialog-keys")
        yield FittingFooter()

    def _suggest_name(self) -> str:
        base = f"{self.parent_name or 'my'}-house"
        name, n = base, 2
        while self.workspace.variant_path(name).exists():
            name, n = f"{base}-{n}", n + 1
        return name

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        self._check()

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self, _event) -> None:
        self._check()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "create":
            self.action_create()
        else:
            self.action_cancel()

    def problem(self) -> str | None:
        """Why the current name cannot be created, or None."""
        name = self.query_one("#name", Input).value.strip()
        if not name:
            return _("give the variant a name")
        if not name_pattern().match(name):
            return name_rule()
        if self.workspace.variant_path(name).exists():
            return _("{path} already exists; choose another name").format(path=display_path(self.workspace.variant_path(name)))
        if self.chosen_parent() is None:
            return _("choose a parent ruleset")
        return None

    def chosen_parent(self) -> str | None:
        value = self.query_one("#parent", Select).value
        return value if isinstance(value, str) else None

    def _check(self) -> bool:
        target = self.query_one("#target", Static)
        problem = self.problem()
        if problem:
            target.update(f"[red]✗ {shown_markup(problem)}[/red]")  # names from files: no markup (issue 22)
        else:
            name = self.query_one("#name", Input).value.strip()
            target.update(_("→ creates [b]{path}[/b] with [b]extends: {parent}[/b]").format(
                path=shown_markup(display_path(self.workspace.variant_path(name))), parent=shown_markup(self.chosen_parent())))
        self.query_one("#create", Button).disabled = problem is not None
        return problem is None

    def action_create(self) -> None:
        if not self._check():
            self.app.bell()
            return
        name = self.query_one("#name", Input).value.strip()
        parent = self.chosen_parent()
        assert parent is not None
        title = self.query_one("#title", Input).value.strip() or None
        path = self.workspace.variant_path(name)
        try:
            parent_resolved = resolve(self.workspace.parent_path(parent), search=self.workspace.search)
        except GoujiError:
            parent_resolved = None  # a broken parent still gets a variant (without the current values)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():  # created meanwhile by something else: never overwrite
                raise FileExistsError(path)
            atomic_write(path, variant_text(name, parent, path, title=title, parent_resolved=parent_resolved))
        except OSError as e:
            self.query_one("#target", Static).update("[red]✗ " + _("cannot create {path}: {error}").format(
                path=display_path(path), error=e.strerror or e) + "[/red]")
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
