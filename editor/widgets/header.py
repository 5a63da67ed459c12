"""The screens' header: Textual's :class:`~textual.widgets.Header`, whose title update does not
fail while the header is being taken down.

Textual 8.2.8's header updates its title from watchers of the app's and the screen's title; when
the app quits while it is still starting (a browser tab of ``gouji serve`` closed at once) a watcher
can run after the header's title widget is gone, and ``query_one`` raises ``NoMatches``: an internal
error with a crash report, for a tab that simply went. Here a header without its title widget has
nothing to update.
"""
from __future__ import annotations

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widgets import Header as TextualHeader
from textual.widgets._header import HeaderTitle


class Header(TextualHeader):
    """:class:`textual.widgets.Header` that skips the title update when its title widget is gone."""

    def _on_mount(self, event: Mount) -> None:
        event.prevent_default()  # instead of Textual's header's own (Textual calls each class's handler)

        async def set_title() -> None:
            if not self.is_attached:
                return
            try:
                self.query_one(HeaderTitle).update(self.format_title())
            except (NoMatches, NoScreen):  # taken down (the app quit while starting): nothing to show the title in
                return

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
