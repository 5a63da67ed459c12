"""The key footer of every screen, fitted to the terminal's width."""
from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ..i18n import _


class FittingFooter(Footer):
    """Textual's footer that keeps every shown key readable: when the keys do not fit the width (80
    columns cut "q Quit" to "Qui" under the ctrl+p key), it takes the compact style, then leaves out the
    keys its screen names in ``FOOTER_SPARE`` (actions, the least needed first: the play screen's
    shift+F3 and ^y, so that ^s, ^b and ^p stay), then the ctrl+p key (ctrl+p still opens the palette),
    then the keys that still do not fit whole. A wider terminal gives the full footer back."""

    LAYOUT_TRIES = 20
    """Refreshes to wait for the keys to be laid out before measuring them."""

    settled = True
    """False while a fitting is under way (a test waits for True before it compares a screenshot)."""

    _fitted_width = 0
    _tries = 0
    _replaced: set[int] = set()  # the keys a recompose is replacing: not measured
    _spared: frozenset[str] = frozenset()  # the actions of FOOTER_SPARE left out

    def compose(self) -> ComposeResult:
        """Textual's keys, with their descriptions and tooltips in the active language (the
        bindings are written in English, marked with :func:`gouji_app.i18n.N_`)."""
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action in self._spared:
                continue
            if isinstance(widget, FooterKey):
                widget.description = _(widget.description)
                if widget.tooltip:
                    widget.tooltip = _(str(widget.tooltip))
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width > self._fitted_width:  # wider: try the full footer again
            self.compact = False
            if not self.show_command_palette or self._spared:
                self.show_command_palette = True
                self._spared = frozenset()
                self.refresh(recompose=True)
        self._fitted_width = event.size.width
        self._measure_soon()

    def bindings_changed(self, screen) -> None:  # type: ignore[no-untyped-def]  # Textual's signal callback
        super().bindings_changed(screen)
        self._measure_soon()

    def _measure_soon(self) -> None:
        self._tries = 0
        self.settled = False
        self.call_after_refresh(self._fit)

    def needed_width(self) -> tuple[int, int] | None:
        """Columns the shown keys take (their right end) and the ctrl+p key docked at the right takes;
        None while they are not laid out yet."""
        shown = [c for c in self.children if c.display]
        if not shown or any(c.region.width == 0 or id(c) in self._replaced for c in shown):
            return None
        left = self.region.x
        keys = [c.region.right - left for c in shown if not c.has_class("-command-palette")]
        # the ctrl+p key's share is from its left edge to the footer's right end (its own width left a
        # column out at 100 columns: "^b Clos▏^p palette")
        palette = [c.region.x for c in shown if c.has_class("-command-palette")]
        return max(keys, default=0), (self.region.right - min(palette)) if palette else 0

    def _fit(self) -> None:
        self.settled = not self._shrink()

    def _spare_one(self) -> bool:
        """Leave out (at the next compose) the first key of the screen's ``FOOTER_SPARE`` still shown;
        False when none is left."""
        shown = {c.action for c in self.children if isinstance(c, FooterKey)}
        for action in getattr(self.screen, "FOOTER_SPARE", ()):
            if action in shown and action not in self._spared:
                self._spared = self._spared | {action}
                return True
        return False

    def _shrink(self) -> bool:
        """One step of fitting; True when another measurement was scheduled."""
        if not self.is_attached:
            return False
        need = self.needed_width()
        if need is None:
            if self._tries < self.LAYOUT_TRIES:
                self._tries += 1
                self.call_after_refresh(self._fit)
                return True
            return False
        keys, palette = need
        if keys + palette <= self.size.width:
            return False
        if not self.compact:
            self.compact = True
        elif self._spare_one():
            pass
        elif self.show_command_palette:  # (keys running on under it leak a letter: "^p palettee")
            self.show_command_palette = False
        else:  # even so the last keys do not fit: leave them out whole rather than cut one ("f4 Varia");
            # F1 and ctrl+p list them all, and a wider terminal recomposes the footer with every key
            end = self.region.x + self.size.width
            for c in self.children:
                if c.display and c.region.right > end:
                    c.display = False
            return False
        # new keys (Footer composes the ctrl+p key; the flag alone does not remove it), measured once laid out
        self._replaced = {id(c) for c in self.children}
        self.refresh(recompose=True)
        self._tries = 0
        self.call_after_refresh(self._fit)
        return True
