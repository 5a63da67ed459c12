"""``gouji join``: the play screen as a seat (or a spectator) of a club table (issue 27).

:class:`JoinApp` connects (:class:`~editor.play.remote.TableLink`, on the app's event loop), waits
for the table's ruleset, then shows the play screen on a :class:`~editor.play.remote.RemoteSession`;
every later message of the server goes to the session and the screen redraws. A lost connection is
said on the screen and tried again with bounded backoff; the seat token the server gave is kept
(:func:`remember_token`), so ``gouji join CODE --again`` — or the seat link — takes the seat back.
"""
from __future__ import annotations

import json
import os
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from gouji_dsl.diagnostics import GoujiError

from ..i18n import N_, _
from ..terminal_keys import XtermKeysApp
from .remote import Address, RemoteSession, TableLink, graph_from_text
from .screen import PlayScreen

#: seconds a state waits before it is drawn: the states that come meanwhile (bots move at once) are
#: drawn with it (drawing the table and the log takes tens of milliseconds; a state, microseconds)
DRAW_EVERY_S = 0.1


def _tokens_file() -> str:
    import platformdirs
    return os.path.join(platformdirs.user_state_dir("gouji", appauthor=False), "table-seats.json")


def _read_tokens() -> dict[str, str]:
    try:
        with open(_tokens_file(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _key(address: Address, name: str | None) -> str:
    return f"{address.server}/t/{address.code}" + (f"#{name}" if name else "")


def remembered_token(address: Address, name: str | None = None) -> str | None:
    """The seat token this user was last given at the table ``address`` (server and code) — as the
    player ``name`` when given (two terminals of one account at one table are two players) — if any."""
    return _read_tokens().get(_key(address, name))


def remember_token(address: Address, name: str | None = None) -> None:
    """Keep the seat token of ``address`` (a small JSON file in the user's state folder; at most 20
    tables), so that joining the same table again takes the same seat back."""
    if not address.token:
        return
    from gouji_dsl.atomic import atomic_write
    tokens = _read_tokens()
    for key in {_key(address, None), _key(address, name)}:
        tokens.pop(key, None)
        tokens[key] = address.token
    tokens = dict(list(tokens.items())[-40:])
    try:
        os.makedirs(os.path.dirname(_tokens_file()), exist_ok=True)
        atomic_write(_tokens_file(), json.dumps(tokens, indent=1))
    except OSError:
        pass  # (only a convenience: the seat link printed at the end takes the seat back too)


class WaitingScreen(Screen[None]):
    """What shows until the table's ruleset arrives: where we connect, or why we cannot."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="waiting")

    def say(self, text: str) -> None:
        self.text = text
        self.query_one("#waiting", Static).update(text)


class JoinApp(XtermKeysApp):
    """A seat (``seat`` or the first free one; the token's seat) or a spectator (``watch``) of the
    table at ``address``."""

    TITLE = "gouji join"
    CSS_PATH = "play.tcss"
    BINDINGS = [Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False)]

    def __init__(self, address: Address, *, name: str | None = None, seat: int | None = None, watch: bool = False,
                 autopass: bool = True, remember: bool = True):
        super().__init__()
        self.address = address
        self.remember = remember
        self.session: RemoteSession | None = None
        self.autopass = autopass
        self.failure: str | None = None  # why the table could not be joined (the command says it)
        self._early: list[dict[str, Any]] = []
        self._play: PlayScreen | None = None
        self._redraw = False
        self.received: dict[str, int] = {}  # messages of the table by type (what came: for the status and tests)
        self.link = TableLink(address, self._message, self._connection, name=name, seat=seat, watch=watch)

    def get_default_screen(self) -> Screen:
        return WaitingScreen(_("Connecting to table {code} at {server}…").format(code=self.address.code,
                                                                               server=self.address.server))

    def on_mount(self) -> None:
        self.run_worker(self.link.run(), group="table-link", exclusive=True)  # (a bug in it ends the app, said)

    @property
    def play_screen(self) -> PlayScreen | None:
        return self._play

    def _message(self, msg: dict[str, Any]) -> None:
        kind = str(msg.get("type"))
        self.received[kind] = self.received.get(kind, 0) + 1
        if kind == "welcome" and self.remember and msg.get("token"):
            remember_token(self.link.address, self.link.name)
        s = self.session
        if s is None:
            self._early.append(msg)
            if kind == "ruleset":
                self._open(msg)
            elif kind == "error":
                self._waiting(_("The table refused: {code}: {message}").format(code=msg.get("code"),
                                                                               message=msg.get("message", "")))
            return
        if kind == "ruleset":
            return  # (sent again after a reconnection: the same table, the same text)
        note = s.handle(msg)
        screen = self.play_screen
        if screen is None:
            return
        if note or kind == "error":
            screen.table_update(kind, note, msg if kind == "error" else None)
        elif not self._redraw:  # a burst of states (the bots' moves): drawn at most every DRAW_EVERY_S
            self._redraw = True
            self.set_timer(DRAW_EVERY_S, self._draw)

    def _draw(self) -> None:
        self._redraw = False
        if self._play is not None:
            self._play.table_update("state")

    def _open(self, msg: dict[str, Any]) -> None:
        """The ruleset arrived: the play screen on the session, with what came before it."""
        try:
            graph = graph_from_text(str(msg.get("path") or msg.get("name") or "table"), str(msg.get("text") or ""))
        except GoujiError as e:
            self.failure = _("The table's ruleset does not compile here:") + "\n" + e.format()
            self.link.close()
            self.exit()
            return
        welcome = next((m for m in self._early if m.get("type") == "welcome"), {})
        seat = welcome.get("seat")
        s = RemoteSession(graph, seat=int(seat) if seat is not None else None, address=self.link.address,
                          name=welcome.get("name"))
        s.link = self.link
        for m in self._early:
            s.handle(m)
        self._early = []
        self.session = s
        screen = PlayScreen(graph, source=s, autopass=self.autopass, show_steps=False)
        self._play = screen
        self.push_screen(screen)

    def _waiting(self, text: str) -> None:
        screen = self.screen
        if isinstance(screen, WaitingScreen):
            screen.say(text + "\n\n" + _("ctrl+q quits."))

    def _connection(self, state: str, detail: str) -> None:
        s = self.session
        if s is None:
            if state == "gave up":
                self.failure = _("Could not join table {code} at {server}: {why}").format(
                    code=self.address.code, server=self.address.server, why=detail)
                self.exit()
            else:
                self._waiting(_("Cannot reach table {code} at {server}: {why}").format(
                    code=self.address.code, server=self.address.server, why=detail))
            return
        if s.connection != "replaced":  # (pushed out of the seat: said by the table's message, no retry)
            s.connection = state
        screen = self.play_screen
        if screen is not None:
            screen.notify((_("The connection to the table was lost: {detail}") if state == "lost" else
                           _("Left the table: {detail}")).format(detail=detail),
                          severity="warning" if state == "lost" else "error", timeout=8)
            screen.table_update("connection")

    @property
    def seat_link(self) -> str | None:
        """The link that takes this seat back (None for a spectator, or before the server gave one)."""
        a = self.link.address
        return a.link if a.token else None

    async def action_quit(self) -> None:
        """ctrl+q: leave the table (the seat goes to its bot, 托管, until the seat link comes back)."""
        self.link.send({"type": "bye"})
        self.link.close()
        self.exit()


__all__ = ["JoinApp", "remember_token", "remembered_token"]
