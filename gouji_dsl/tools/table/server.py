"""The table server of ``gouji host``: one asyncio aiohttp server holding tables (docs/table-protocol.md).

- **Who may connect.** Every request must name the served address in its ``Host`` header (DNS
  rebinding is refused, as ``gouji serve`` refuses it: :class:`gouji_dsl.tools.netguard.Answers`); a
  websocket that carries an ``Origin`` (a browser page) must come from this server's own address.
  There is no login: the room code lets anyone who has it take a free seat or watch; a seat token is
  the pass back to one seat.
- **The only judge.** Each table's :class:`~gouji_dsl.tools.table.game.Table` holds the one full
  game state; every move goes through the interpreter; each client is sent only its seat's view
  (spectators the public part) and the record events it may see.
- **No stalls.** One driver task per table moves its bots (a search bot thinks in a worker thread
  on a copy of the state), runs the turn timer (a person whose time runs out is played by his bot:
  托管), deals the next game, and saves the record when the match is over. A client that vanishes
  or cannot keep up is dropped and its seat played by its bot until its token comes back.
- **Bounds.** Tables, connections, spectators per table, message size, messages a second per
  connection (:class:`gouji_dsl.tools.table.protocol.Limits`); a bad message gets an error with a
  stable code and changes nothing.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from gouji_dsl.atomic import atomic_write
from gouji_dsl.bots import HeuristicBot
from gouji_dsl.i18n import _, ngettext
from gouji_dsl.tools.netguard import Answers, Throttle, _host_port, _is_loopback, _is_wildcard, _url_host

from .game import Seat, Table, TableRules, Who, clean_name
from .protocol import (
    PROTOCOL,
    SEED_SCHEME,
    AutoWhy,
    CloseCode,
    ErrorCode,
    Limits,
    Notice,
    TableError,
    legal_json,
    log_json,
    new_code,
    new_seed,
    normal_code,
    seat_view,
    trick_json,
    visible_event,
    visible_events,
)
from .summary import game_summary, match_totals

log = logging.getLogger("gouji-host")

DEFAULT_BETWEEN_S = 15.0
"""Seconds between two games of a match unless every connected player says ``next`` sooner."""

STATE_LEGAL = 200
"""Legal moves listed in a ``state`` message (a ``legal`` request may ask for more)."""

_SEATED_ONLY = frozenset({"move", "legal", "why", "hint", "auto", "start", "next"})


class Conn:
    """One websocket: its table and seat (None: a spectator), what of the current game it was sent,
    its outgoing queue (drained by its own writer task: a slow client never holds the table up)."""

    def __init__(self, ws: web.WebSocketResponse, limits: Limits) -> None:
        self.ws = ws
        self.room: Room | None = None
        self.seat: Seat | None = None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(maxsize=limits.outbox)
        self.throttle = Throttle(limits.messages_per_s, limits.burst)
        self.sent_game = -1
        self.sent_events = 0
        self.dropped = False
        self.close_code: int = CloseCode.NORMAL
        self.close_reason = ""
        self.flood = 0  # messages dropped as rate_limited in a row

    @property
    def seat_number(self) -> int | None:
        return None if self.seat is None else self.seat.number

    def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False, default=str)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # (a lone surrogate a client sent, echoed in an error: written as \\uXXXX)
            text = json.dumps(message, default=str)
        self.send_text(text)

    def send_text(self, text: str) -> None:
        if self.dropped:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def drop(self, code: int = CloseCode.TOO_SLOW, reason: str = "too_slow") -> None:
        """Stop sending (after what is queued) and close the socket with ``code`` and ``reason``
        (the first drop's say): the client cannot keep up (its outbox is full: the default), said
        bye, was replaced, flooded..."""
        if not self.dropped:
            self.dropped = True
            self.close_code, self.close_reason = int(code), reason
            with contextlib.suppress(asyncio.QueueFull):
                self.outbox.put_nowait(None)

    async def write(self) -> None:
        try:
            while True:
                text = await self.outbox.get()
                if text is None or self.ws.closed:
                    break
                await self.ws.send_str(text)
        except (Exception, asyncio.CancelledError):  # the socket went (or cannot take the text): the client is dropped
            log.debug("gouji host: a client's writer stopped", exc_info=True)
        finally:
            self.dropped = True
            if not self.ws.closed:
                with contextlib.suppress(Exception):
                    await self.ws.close(code=self.close_code, message=self.close_reason.encode())


class Room:
    """A table on the network: its clients, its driver task and what wakes it."""

    def __init__(self, server: TableServer, table: Table, *, timer: float | None, between: float,
                 start_after: float | None = None) -> None:
        self.server = server
        self.table = table
        self.timer = timer
        self.start_after = start_after
        self.first_seated: float | None = None  # when the first person sat (--start-after counts from then)
        self.base_seed: str | None = None  # the host's --seed (the next matches are seeded from it), or None: random
        self.between = between
        self.conns: set[Conn] = set()
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.turn: tuple[int, float] | None = None  # (seq, deadline) of a person's turn under the timer
        self.over_at: float | None = None  # when the current game was seen over
        self.record_path: Path | None = None
        self.record_text: str | None = None
        self.match_message: dict[str, Any] | None = None  # the match_over message (sent again to whoever joins after it)
        self.error: str | None = None

    # ------------------------------------------------------------------ sending
    def broadcast(self, message: dict[str, Any]) -> None:
        for c in list(self.conns):
            c.send(message)

    def table_json(self) -> dict[str, Any]:
        t = self.table
        return {"type": "table", "code": t.code, "started": t.started, "game": t.game_in_match if t.started else 0,
                "games": t.length, "spectators": sum(1 for c in self.conns if c.seat is None),
                "seats": [s.to_json() for s in t.seats.values()]}

    def state_json(self, conn: Conn, last: dict[str, Any] | None = None, full: bool = False) -> dict[str, Any]:
        full = full or conn.sent_game != self.table.game_index
        start = 0 if full else conn.sent_events
        conn.sent_game, conn.sent_events = self.table.game_index, len(self.table.state.record)
        return self._state_for(conn.seat_number, start, full, last)

    def _state_for(self, seat: int | None, start: int, full: bool, last: dict[str, Any] | None) -> dict[str, Any]:
        t = self.table
        st = t.state
        out: dict[str, Any] = {"type": "state", "seq": t.seq, "game": t.game_in_match, "full": full,
                               "view": seat_view(st, seat), "events": visible_events(st.record[start:], seat)}
        out.update(trick_json(st.record, seat, t.made_by))
        if st.over:  # (the game's result in its last state too: a screen never shows a finished game without its scores)
            from gouji_dsl.tools.table.summary import game_summary
            out["result"] = {k: v for k, v in game_summary(st).items() if k != "tribute"}
        if full:
            out["log"] = log_json(st.record, seat, t.made_by)
        if last is not None:  # (a return's or discard's cards only to the seat that made it)
            out["last"] = {**last, **visible_event({"type": "move", "move": last["move"]}, seat)}
            out["last"].pop("type", None)
        yours = seat is not None and not st.over and st.to_act == seat
        out["your_turn"] = yours
        out["timer_s"] = self.timer_left()
        if yours:
            out["legal"] = legal_json(st.legal_moves(), st.model, min(STATE_LEGAL, self.server.limits.legal_moves))
        return out

    def send_state(self, conn: Conn, last: dict[str, Any] | None = None, full: bool = False) -> None:
        if self.table.started:
            conn.send(self.state_json(conn, last, full))

    def broadcast_state(self, last: dict[str, Any] | None = None) -> None:
        """The new state to every client, each as its seat sees it (clients that see the same, e.g.
        the spectators, share one message)."""
        if not self.table.started:
            return
        t = self.table
        made: dict[tuple[Any, ...], str] = {}
        for c in list(self.conns):
            full = c.sent_game != t.game_index
            start = 0 if full else c.sent_events
            key = (c.seat_number, start, full)
            if key not in made:
                made[key] = json.dumps(self._state_for(c.seat_number, start, full, last), ensure_ascii=False, default=str)
            c.sent_game, c.sent_events = t.game_index, len(t.state.record)
            c.send_text(made[key])

    def timer_left(self) -> float | None:
        if self.turn is None or self.turn[0] != self.table.seq:
            return None if self.timer is None else self.timer
        return max(0.0, round(self.turn[1] - time.monotonic(), 1))

    def announce_auto(self, seat: Seat, on: bool, why: AutoWhy) -> None:
        self.broadcast({"type": "auto", "seat": seat.number, "on": on, "why": str(why)})
        self.broadcast(self.table_json())
        self.wake.set()

    # ------------------------------------------------------------------ the driver
    async def drive(self) -> None:
        """Move the table on until the match is over (bots, timers, next games); never raises."""
        try:
            if not self.table.started and not any(s.people for s in self.table.seats.values()):
                self.start()  # (--seats none: a table of bots, to watch, starts at once)
            while not (self.table.started and self.table.match_over):
                await self._step()
            self._announce_over()
            self._match_over()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a rule failure in a bot's game: said to every client, the server goes on
            self.fail(e)

    def fail(self, e: BaseException) -> None:
        """The table stops (a rule failed while a move was made): said to every client; its later
        requests get ``table_failed``; the server and its other tables go on."""
        log.error("gouji host: table %s stopped: %s: %s", self.table.code, type(e).__name__, e)
        self.error = f"{type(e).__name__}: {e}"
        self.broadcast(TableError(ErrorCode.TABLE_FAILED, f"the table stopped: {self.error}").to_json())
        if self.task is not None and not self.task.done() and self.task is not asyncio.current_task():
            self.task.cancel()

    async def _wait(self, timeout: float | None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wake.wait(), timeout)
        self.wake.clear()

    async def _step(self) -> None:
        t = self.table
        if not t.started:
            await self._before_start()
            return
        if t.state.over:
            await self._between_games()
            return
        seat = t.bot_to_move()
        if seat is not None:
            await self._bot_moves(seat)
            return
        await self._person_to_act()

    async def _before_start(self) -> None:
        """Wait for people; with ``start_after``, start that long after the first one sat."""
        if self.start_after is None or self.first_seated is None:
            await self._wait(None)
            return
        left = self.first_seated + self.start_after - time.monotonic()
        if left > 0:
            await self._wait(left)
            return
        self.start()

    def start(self) -> None:
        """Bots take the free seats; the first game is dealt and sent to everyone."""
        if self.table.started:
            return
        try:
            self.table.start()
        except Exception as e:  # a rule failed while the first deal was made
            self.fail(e)
            return
        log.info("gouji host: table %s started (%s)", self.table.code, ", ".join(
            f"{s.number} {s.name if s.who == Who.PLAYER else 'bot'}" for s in self.table.seats.values()))
        self.broadcast(self.table_json())
        self.broadcast_state()
        self.wake.set()

    async def _bot_moves(self, seat: int) -> None:
        t = self.table
        st, seq = t.state, t.seq
        legal = list(st.legal_moves())
        bot = t.bot_for(seat)
        draws = t.bot_draws(seat)
        if t.bot_searches(seat):
            mv = await asyncio.to_thread(bot.choose, st.copy(), legal)
        else:
            mv = bot.choose(st, legal)
            await asyncio.sleep(0)  # (let the clients' messages in between two bot moves)
        if t.bot_move(seat, mv, seq, draws):
            self.broadcast_state({"seat": seat, "move": mv.text(st.model), "by": "bot"})

    async def _person_to_act(self) -> None:
        t = self.table
        seat = t.state.to_act
        if self.timer is None or seat is None:
            await self._wait(None)
            return
        if self.turn is None or self.turn[0] != t.seq:
            self.turn = (t.seq, time.monotonic() + self.timer)
        left = self.turn[1] - time.monotonic()
        if left > 0:
            await self._wait(left)
            return
        person = t.seats[seat]
        if not person.auto:
            person.auto = True
            self.announce_auto(person, True, AutoWhy.TIMER)

    async def _between_games(self) -> None:
        t = self.table
        self._announce_over()
        if t.match_over or self.over_at is None:
            return
        left = self.over_at + self.between - time.monotonic()
        if left > 0 and self._break_goes_on():
            await self._wait(left)
            return
        self.over_at = None
        t.next_game()
        self.broadcast(self.table_json())
        self.broadcast_state()

    def _announce_over(self) -> None:
        """The game is over: its game_over to everyone, once (the break counts from now)."""
        if self.over_at is None:
            self.over_at = time.monotonic()
            for c in list(self.conns):
                c.send(self.game_over_json(c.seat_number))

    def _break_goes_on(self) -> bool:
        """The break between two games lasts ``between`` seconds unless every connected player (in
        托管 or not) has sent ``next`` sooner; with nobody connected it ends at once; with only
        spectators it lasts its whole length (they see the summary)."""
        if not self.conns:
            return False
        players = [s for s in self.table.seats.values() if s.who == Who.PLAYER and s.connected]
        return not players or any(not s.ready for s in players)

    def next_in(self) -> float | None:
        """Seconds left of the break (None after the last game)."""
        if self.table.match_over:
            return None
        if self.over_at is None:
            return self.between
        return max(0.0, round(self.over_at + self.between - time.monotonic(), 1))

    def game_over_json(self, seat: int | None) -> dict[str, Any]:
        t = self.table
        g = game_summary(t.state)
        g["tribute"] = [visible_event(e, seat) for e in g["tribute"]]
        return {"type": "game_over", "game": t.game_in_match, "games": t.length, **g,
                "totals": match_totals(t.finals), "match_games": self.games_json(), "next_in_s": self.next_in()}

    def games_json(self) -> list[dict[str, Any]]:
        """The match's finished games so far (a client that joined late shows them on its scoreboard)."""
        return [{"game": i + 1, **{k: v for k, v in game_summary(st).items() if k != "tribute"}}
                for i, st in enumerate(self.table.finals) if st.over]

    def save_record(self, *, unfinished: bool = False) -> Path | None:
        """Write the match's record to the server's record folder (``table-CODE-TIME.json``;
        ``-unfinished`` when the server stops before the match is over); None when it is not saved."""
        t = self.table
        text = t.record().dumps()
        folder = self.server.record_dir
        if folder is None:
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        match = f"-match{t.matches}" if t.matches > 1 else ""
        path = Path(folder) / f"table-{t.code}-{stamp}{match}{'-unfinished' if unfinished else ''}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text)
        except OSError as e:
            log.error("gouji host: table %s: cannot save the record to %s: %s", t.code, path, e)
            return None
        log.info("gouji host: table %s: %s; record saved to %s", t.code,
                 "stopped before the match was over" if unfinished else "the match is over", path)
        return path

    def _match_over(self) -> None:
        t = self.table
        self.record_text = t.record().dumps()
        self.record_path = self.save_record()
        self.match_message = {"type": "match_over", "games": self.games_json(), "totals": match_totals(t.finals), "seed": t.seed,
                              "seed_sha256": t.seed_sha256, "record": f"{self.server.base_url}/t/{t.code}/record"}
        self.broadcast(self.match_message)


def _replace_holders(room: Room, seat: Seat) -> None:
    """The token's holder on a new connection: the old connection goes (told why)."""
    t = room.table
    for other in [c for c in room.conns if c.seat is seat]:
        other.send({"type": "replaced", "code": str(Notice.REPLACED), "seat": seat.number, "message": (
            f"seat {seat.number} was taken by another connection with its token (the same person on a new "
            f"terminal, or someone who has the seat link): this one is closed; do not reconnect by yourself")})
        other.seat = None
        other.drop(CloseCode.REPLACED, str(Notice.REPLACED))
        log.info("gouji host: table %s: seat %d: taken over by a new connection with its token", t.code, seat.number)


class TableServer:
    """Tables and their clients on one aiohttp application (see the module's docstring)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8765, *, limits: Limits | None = None,
                 record_dir: str | os.PathLike[str] | None = ".", public_url: str | None = None) -> None:
        self.limits = limits or Limits()
        self.record_dir = None if record_dir is None else Path(record_dir)
        self.public_url = public_url
        self.host = host
        self.listening_on(port)
        self.rooms: dict[str, Room] = {}
        self.conns: set[Conn] = set()

    def listening_on(self, port: int) -> None:
        """The port the server listens on (known once it is bound, when port 0 was asked for)."""
        self.port = port
        self.answers = Answers(self.host, port, self.public_url)
        host = self.host
        self.base_url = (self.public_url or f"http://{_url_host('127.0.0.1' if _is_wildcard(host) else host)}:{port}").rstrip("/")

    # ------------------------------------------------------------------ tables
    def open_table(self, rules: TableRules, *, people: set[int] | None = None, bots: str = "heuristic",
                   timer: float | None = None, between: float = DEFAULT_BETWEEN_S, seed: str | None = None,
                   start_after: float | None = None) -> Room:
        """A new table (raises TableError ``too_many`` over the limit). Its driver starts with the server."""
        if len(self.rooms) >= self.limits.tables:
            raise TableError(ErrorCode.TOO_MANY, f"this server holds at most {self.limits.tables} tables")
        table = Table(rules, new_code(set(self.rooms)), seed=seed if seed is not None else new_seed(), people=people, bots=bots)
        room = Room(self, table, timer=timer, between=between, start_after=start_after)
        room.base_seed = seed
        self.rooms[table.code] = room
        with contextlib.suppress(RuntimeError):  # (no running loop yet: started with the app)
            self._run(room)
        return room

    def _run(self, room: Room) -> None:
        if room.task is None:
            room.task = asyncio.get_running_loop().create_task(room.drive())

    def room_link(self, room: Room) -> str:
        return f"{self.base_url}/t/{room.table.code}"

    def seat_link(self, room: Room, seat: int) -> str:
        return f"{self.room_link(room)}?token={room.table.seats[seat].token}"

    # ------------------------------------------------------------------ the application
    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._check_host], client_max_size=16 * 1024)
        app.add_routes([web.get("/", self.handle_index), web.get("/t/{code}", self.handle_table),
                        web.get("/t/{code}/record", self.handle_record), web.get("/ws", self.handle_websocket)])
        app.on_startup.append(self._on_startup)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_startup(self, app: web.Application) -> None:
        for room in self.rooms.values():
            self._run(room)

    async def _on_shutdown(self, app: web.Application) -> None:
        for room in self.rooms.values():
            if room.task is not None:
                room.task.cancel()
            if room.table.started and not room.table.match_over:  # (record_text is the last finished match's)
                room.record_path = room.save_record(unfinished=True)  # (what was played is kept)
        for c in list(self.conns):
            c.drop(CloseCode.GOING_AWAY, "server_stops")
            with contextlib.suppress(Exception):
                await c.ws.close(code=CloseCode.GOING_AWAY, message=b"server_stops")

    @web.middleware
    async def _check_host(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not self.answers(request.headers.get("Host"), 443 if request.scheme == "https" else 80):
            raise web.HTTPForbidden(text=(
                f"gouji host: refused: this server answers to {self.base_url} only, not to the Host "
                f"{request.headers.get('Host', '(none)')!r} (a page of another site can point its own name at this machine)\n"))
        response: web.StreamResponse = await handler(request)
        return response

    def _check_origin(self, request: web.Request) -> None:
        """A browser page's websocket must come from this server's own address (a page of another
        site must not sit at a table); clients that are not browsers send no Origin."""
        origin = request.headers.get("Origin")
        if origin is None:
            return
        parts = urlsplit(origin)
        mine = _host_port(request.headers.get("Host", ""), 443 if request.scheme == "https" else 80)
        theirs = _host_port(parts.netloc, 443 if parts.scheme == "https" else 80) if parts.scheme in ("http", "https") else None
        if theirs is None or mine is None or theirs != mine:
            raise web.HTTPForbidden(text=f"gouji host: refused: a websocket from the page {origin[:200]!r}, not from this server\n")

    def _room(self, code: str) -> Room:
        room = self.rooms.get(normal_code(code))
        if room is None:
            raise web.HTTPNotFound(text=json.dumps({"error": str(ErrorCode.NO_SUCH_TABLE), "message": "no table has that code"}),
                                   content_type="application/json")
        return room

    async def handle_index(self, request: web.Request) -> web.Response:
        return web.json_response({"server": "gouji-table", "protocol": PROTOCOL,
                                  "join": "gouji join CODE (the code the host printed)"})

    async def handle_table(self, request: web.Request) -> web.Response:
        room = self._room(request.match_info["code"])
        t = room.table
        info = {"protocol": PROTOCOL, "code": t.code, "ruleset": t.rules.name, "seats": [s.to_json() for s in t.seats.values()],
                "started": t.started, "game": t.game_in_match if t.started else 0, "games": t.length,
                "seed_sha256": t.seed_sha256, "websocket": "ws" + self.base_url[4:] + "/ws"}
        headers = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        accept = request.headers.get("Accept", "")
        if "text/html" in accept and "application/json" not in accept:  # a link opened in a browser: how to join
            return web.Response(text=self._join_page(room, request.query.get("token")), content_type="text/html", headers=headers)
        return web.json_response(info, headers=headers)

    def _join_page(self, room: Room, token: str | None) -> str:
        import html
        t = room.table
        link = self.room_link(room) + (f"?token={token}" if token and t.seat_of_token(token) is not None else "")
        who = "".join(f"<li>seat {s.number}: {html.escape(str(s.to_json()['name'] or 'free'))}"
                      f"{' (bot)' if s.bot_plays else ''}</li>" for s in t.seats.values())
        return (f"<!doctype html><meta charset=utf-8><title>gouji table {t.code}</title>"
                f"<h1>Gouji table {t.code}</h1><p>{html.escape(t.rules.name)}, {t.length} game(s) a match.</p>"
                f"<p>Join from a terminal: <code>gouji join {html.escape(link)}</code><br>"
                f"or in a browser through <code>gouji serve</code> (the play screen in a tab).</p><ul>{who}</ul>")

    async def handle_record(self, request: web.Request) -> web.Response:
        room = self._room(request.match_info["code"])
        if room.record_text is None:
            return web.json_response({"error": "match_not_over", "message": "the record is given once the match is over"},
                                     status=409)
        return web.Response(text=room.record_text, content_type="application/json")

    # ------------------------------------------------------------------ a connection
    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._check_origin(request)
        ws = web.WebSocketResponse(max_msg_size=4 * self.limits.message_bytes, heartbeat=30)
        await ws.prepare(request)
        conn = Conn(ws, self.limits)
        writer = asyncio.get_running_loop().create_task(conn.write())
        try:
            if len(self.conns) >= self.limits.connections:
                conn.send(TableError(ErrorCode.TOO_MANY, f"this server takes at most {self.limits.connections} connections").to_json())
                conn.drop(CloseCode.REFUSED, str(ErrorCode.TOO_MANY))
                return ws
            self.conns.add(conn)
            await self._serve(conn)
        finally:
            self.conns.discard(conn)
            self._gone(conn)
            conn.drop(CloseCode.NORMAL, "")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)
            if not ws.closed:
                with contextlib.suppress(Exception):
                    await ws.close()
        return ws

    async def _read(self, conn: Conn, timeout: float | None = None) -> tuple[dict[str, Any], float] | None:
        """The next message as a JSON object, and the time (``time.monotonic``) it may be handled
        at under the connection's rate (now, or later: slowed); None when the socket closed (or
        nothing came within ``timeout``). An unreadable message is answered with an error and
        skipped; so is a flood's (see :meth:`_flooded`). Reading never waits on the rate: a flood
        is seen as it comes."""
        while True:
            try:
                msg = await asyncio.wait_for(conn.ws.receive(), timeout)
            except TimeoutError:
                conn.drop(CloseCode.HELLO_TIMEOUT, "hello_timeout")
                return None
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR) or conn.dropped:
                return None
            if msg.type == WSMsgType.TEXT and self._too_big(conn, msg.data):
                return None
            wait = self._rate(conn)  # (every frame counts: a flood of binary or bad frames too)
            if wait is None:  # a flood's: dropped (or the socket closes)
                if conn.dropped:
                    return None
                continue
            if msg.type != WSMsgType.TEXT:
                conn.send(TableError(ErrorCode.BAD_JSON, "send JSON text frames").to_json())
                continue
            try:
                obj = json.loads(msg.data)
            except ValueError:
                obj = None
            if not isinstance(obj, dict):
                conn.send(TableError(ErrorCode.BAD_JSON, "a message is one JSON object with a \"type\"").to_json())
                continue
            return obj, time.monotonic() + max(0.0, wait)

    def _too_big(self, conn: Conn, data: str) -> bool:
        """A message over the size limit: said, and the socket closes (4003)."""
        if len(data.encode("utf-8", "surrogatepass")) <= self.limits.message_bytes:
            return False
        conn.send(TableError(ErrorCode.TOO_BIG, f"a message is at most {self.limits.message_bytes} bytes").to_json())
        conn.drop(CloseCode.TOO_BIG, str(ErrorCode.TOO_BIG))
        return True

    def _rate(self, conn: Conn) -> float | None:
        """Seconds the message just read waits for its turn under the rate; None: it would wait
        more than ``slowed_s`` and is dropped (:meth:`_flooded`; a dropped message costs nothing)."""
        wait = conn.throttle.delay(1)
        if wait > self.limits.slowed_s:
            conn.throttle.tokens += 1
            self._flooded(conn)
            return None
        if wait <= 0:
            conn.flood = 0  # (within the rate again: the flood is forgiven)
        return wait

    def _flooded(self, conn: Conn) -> bool:
        """A message dropped as ``rate_limited``; after :attr:`Limits.flood_drops` of them in a row
        (none within the rate between), the connection is closed (code 4002): True."""
        conn.flood += 1
        lim = self.limits
        closing = conn.flood > lim.flood_drops
        conn.send(TableError(ErrorCode.RATE_LIMITED, (
            f"at most {lim.messages_per_s:g} messages a second (bursts of {lim.burst:g}): this one would wait more than "
            f"{lim.slowed_s:g} s and was dropped" + ("; too many dropped: the connection is closed" if closing else ""))
        ).to_json())
        if closing:
            log.warning("gouji host: a connection flooded (%d messages dropped): closed", conn.flood)
            conn.drop(CloseCode.RATE_LIMITED, str(ErrorCode.RATE_LIMITED))
        return closing

    async def _serve(self, conn: Conn) -> None:
        first = await self._read(conn, self.limits.hello_s)
        if first is None:
            return
        hello = first[0]
        try:
            self._hello(conn, hello)
        except TableError as e:
            conn.send(e.to_json(_request_id(hello)))
            conn.drop(CloseCode.REFUSED, str(e.code))
            return
        inbox: asyncio.Queue[tuple[dict[str, Any], float]] = asyncio.Queue()
        handler = asyncio.get_running_loop().create_task(self._handle_all(conn, inbox))
        try:
            while (got := await self._read(conn)) is not None:
                inbox.put_nowait(got)  # (bounded: a message waits at most slowed_s, so at most burst + rate * slowed_s wait)
        finally:
            handler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await handler

    async def _handle_all(self, conn: Conn, inbox: asyncio.Queue[tuple[dict[str, Any], float]]) -> None:
        """Answer the connection's requests in the order they came, each when the rate lets it."""
        while not conn.dropped:
            msg, at = await inbox.get()
            wait = at - time.monotonic()
            if wait > 0:  # faster than the rate: slowed, never reordered
                await asyncio.sleep(wait)
            if conn.dropped or conn.room is None:
                return
            try:
                self._request(conn, msg)
            except TableError as e:
                conn.send(e.to_json(_request_id(msg)))
            except Exception as e:  # a fault of the server (a rule that fails while it is asked): said, logged, the table goes on
                log.exception("gouji host: a %s request failed", str(msg.get("type"))[:40])
                conn.send(TableError(ErrorCode.INTERNAL, f"the server failed on this request: {type(e).__name__}: {str(e)[:300]}")
                          .to_json(_request_id(msg)))

    def _hello(self, conn: Conn, msg: dict[str, Any]) -> None:
        room = self._room_of(msg)
        t = room.table
        seat, back = self._take_seat(room, msg)
        notes: list[dict[str, Any]] = []
        asked = clean_name(msg.get("name"))
        if seat is not None and t.name_kept(seat, asked):
            notes.append({"code": str(Notice.NAME_KEPT), "message": (
                f"seat {seat.number} keeps the name {seat.name!r} it was claimed with (a hello does not rename a seat)")})
        conn.room, conn.seat = room, seat
        room.conns.add(conn)
        if seat is not None:
            if room.first_seated is None:
                room.first_seated = time.monotonic()
            log.info("gouji host: table %s: seat %d: %s%s", t.code, seat.number, seat.name, " is back" if back else " sat down")
        self._welcome(conn, room, seat, notes, msg)
        room.broadcast(room.table_json())
        for why in back:
            assert seat is not None
            room.announce_auto(seat, False, why)
        if not t.started and seat is not None and not t.people_waited_for:
            room.start()
        else:
            self._catch_up(conn, room)
        room.wake.set()

    def _room_of(self, msg: dict[str, Any]) -> Room:
        """The room a hello asks for (a hello first, this protocol, a table's code)."""
        if msg.get("type") != "hello":
            raise TableError(ErrorCode.HELLO_FIRST, "the first message must be a hello")
        if msg.get("protocol", PROTOCOL) != PROTOCOL:
            raise TableError(ErrorCode.PROTOCOL, f"this server speaks protocol {PROTOCOL}")
        code = msg.get("code")
        room = self.rooms.get(normal_code(code)) if isinstance(code, str) else None
        if room is None:
            raise TableError(ErrorCode.NO_SUCH_TABLE, "no table has that code")
        return room

    def _take_seat(self, room: Room, msg: dict[str, Any]) -> tuple[Seat | None, list[AutoWhy]]:
        """The seat a hello takes (None: a spectator): its token's, the one asked for or a free one; and
        why the seat was played for while away (a seat taken back)."""
        t = room.table
        if msg.get("watch"):
            if sum(1 for c in room.conns if c.seat is None) >= self.limits.spectators:
                raise TableError(ErrorCode.TOO_MANY, f"a table takes at most {self.limits.spectators} spectators")
            return None, []
        if "token" in msg:
            seat = t.seat_of_token(msg["token"]) if isinstance(msg["token"], str) else None
            if seat is None or seat.who == Who.BOT:  # (a bot's seat is nobody's to take)
                raise TableError(ErrorCode.BAD_TOKEN, "that token is no seat's of this table")
            _replace_holders(room, seat)
            return seat, t.sit(seat, clean_name(msg.get("name")))
        wanted = msg.get("seat")
        if wanted is not None and (not isinstance(wanted, int) or isinstance(wanted, bool)):
            raise TableError(ErrorCode.BAD_MESSAGE, "'seat' must be a seat number")
        seat = t.free_seat(wanted)
        return seat, t.sit(seat, clean_name(msg.get("name")))

    def _welcome(self, conn: Conn, room: Room, seat: Seat | None, notes: list[dict[str, Any]], msg: dict[str, Any]) -> None:
        """The welcome, the ruleset's text and the seed's hash, to a connection just seated (or watching)."""
        t = room.table
        conn.send({"type": "welcome", "protocol": PROTOCOL, "code": t.code, "role": "spectator" if seat is None else "player",
                   "seat": conn.seat_number, "token": None if seat is None else seat.token,
                   "name": None if seat is None else seat.name, "seats": t.n_seats, "games": t.length,
                   "timer_s": room.timer, "server": "gouji-table", "limits": self.limits.to_json(), "notes": notes,
                   **_request_echo(msg)})
        conn.send({"type": "ruleset", "name": t.rules.name, "path": Path(t.rules.path).name, "text": t.rules.text,
                   "sha256": _sha(t.rules.text)})
        conn.send({"type": "seed", "sha256": t.seed_sha256, "scheme": SEED_SCHEME})

    @staticmethod
    def _catch_up(conn: Conn, room: Room) -> None:
        """The state of a table already under way, to a connection that joins it (with a game's or the match's end)."""
        t = room.table
        room.send_state(conn, full=True)
        if t.started and t.state.over and room.over_at is not None:  # (joined after a game ended: its summary again)
            conn.send(room.game_over_json(conn.seat_number))
        if room.match_message is not None and t.match_over:
            conn.send(room.match_message)

    def start_all(self) -> int:
        """Start every table that has not started (the host pressed Enter). Returns how many."""
        rooms = [r for r in self.rooms.values() if not r.table.started]
        for room in rooms:
            room.start()
        return len(rooms)

    def _gone(self, conn: Conn) -> None:
        room, seat = conn.room, conn.seat
        if room is None:
            return
        room.conns.discard(conn)
        conn.room = None
        if seat is not None and not any(c.seat is seat for c in room.conns):
            log.info("gouji host: table %s: seat %d: %s left", room.table.code, seat.number, seat.name)
            if room.table.leave(seat):
                room.announce_auto(seat, True, AutoWhy.DISCONNECTED)
            elif seat.who == Who.PLAYER and not room.table.started:
                seat.who, seat.name = Who.FREE, None  # (left before the start: the seat is free again)
        room.broadcast(room.table_json())
        room.wake.set()

    def _request(self, conn: Conn, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind is not None and not isinstance(kind, str):
            raise TableError(ErrorCode.BAD_MESSAGE, _unknown_type(kind))
        room = conn.room
        assert room is not None
        t = room.table
        rid = _request_echo(msg)
        if kind == "ping":
            conn.send({"type": "pong", **rid})
            return
        if kind == "view":
            if not t.started:
                raise TableError(ErrorCode.NOT_STARTED, "the table has not started")
            if t.started:
                conn.send({**room.state_json(conn, full=True), **rid})
            return
        if kind == "bye":
            conn.drop(CloseCode.NORMAL, "bye")
            return
        if kind not in _SEATED_ONLY:
            raise TableError(ErrorCode.BAD_MESSAGE, _unknown_type(kind))
        if room.error is not None:
            raise TableError(ErrorCode.TABLE_FAILED, f"the table stopped: {room.error}")
        seat = conn.seat
        if seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "spectators may not do that")
        getattr(self, f"_on_{kind}")(conn, room, seat, msg, rid)

    def _on_start(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        t = room.table
        if not t.started:
            room.start()
        elif t.match_over and room.task is not None and room.task.done():  # the next match on the same seats
            t.new_match(f"{room.base_seed}:match{t.matches + 1}" if room.base_seed is not None else new_seed())
            room.over_at = None
            room.match_message = None
            room.broadcast({"type": "seed", "sha256": t.seed_sha256, "scheme": SEED_SCHEME})
            room.broadcast(room.table_json())
            room.broadcast_state()
            room.task = None
            self._run(room)

    def _on_move(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        t = room.table
        if seat.auto and seat.connected:  # a move from a player in 托管: he is back
            seat.auto = False
            room.announce_auto(seat, False, AutoWhy.BACK)
        try:
            mv = t.move(seat.number, msg.get("move"), msg.get("at"))
        except TableError:
            raise
        except Exception as e:  # a rule failed while the move was made: the game cannot go on
            room.fail(e)
            raise TableError(ErrorCode.TABLE_FAILED, f"the table stopped: {room.error}") from None
        room.broadcast_state({"seat": seat.number, "move": mv.text(t.graph.model), "by": "player", **rid})
        room.wake.set()

    def _on_legal(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        t = room.table
        limit = msg.get("limit", 200)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise TableError(ErrorCode.BAD_MESSAGE, "'limit' must be a whole number")
        st = t._playing()
        moves = st.legal_moves() if st.to_act == seat.number else []
        conn.send({"type": "legal", **legal_json(moves, st.model, min(limit, self.limits.legal_moves)), **rid})

    def _on_why(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        conn.send({"type": "why", **room.table.why(seat.number, msg.get("move")), **rid})

    def _on_hint(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        import random
        st = room.table._playing()
        seq = room.table.seq
        move = None
        if st.to_act == seat.number:
            moves = st.legal_moves()
            if moves:
                move = HeuristicBot(random.Random(0)).choose(st, moves).text(st.model)
        conn.send({"type": "hint", "move": move, "by": "heuristic", "seq": seq, **rid})

    def _on_auto(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        on = msg.get("on")
        if not isinstance(on, bool):
            raise TableError(ErrorCode.BAD_MESSAGE, "'on' must be true or false")
        if seat.auto != on:
            seat.auto = on
            room.announce_auto(seat, on, AutoWhy.ASKED if on else AutoWhy.BACK)

    def _on_next(self, conn: Conn, room: Room, seat: Seat, msg: dict[str, Any], rid: dict[str, Any]) -> None:
        seat.ready = True
        room.wake.set()

    # ------------------------------------------------------------------ running
    def listening_lines(self) -> list[str]:
        """What ``gouji host`` prints when it listens (in the active language): each table's code and
        links, where it listens, who may connect."""
        lines = []
        for room in self.rooms.values():
            t = room.table
            lines.append(ngettext("gouji host: table {code} ({ruleset}, {n} game a match): gouji join {link}",
                                  "gouji host: table {code} ({ruleset}, {n} games a match): gouji join {link}", t.length).format(
                code=t.code, ruleset=t.rules.name, n=t.length, link=self.room_link(room)))
            for s in (s.number for s in t.seats.values() if s.people):
                lines.append("  " + _("seat {seat}: {link}").format(seat=s, link=self.seat_link(room, s)))
            lines.append("  " + _("seed sha256 {hash} (the seed is shown after the match)").format(hash=t.seed_sha256))
        where = f"{_url_host(self.host)}:{self.port}"
        if _is_loopback(self.host):
            lines.append("  " + _("listening on {where}: this machine only (--host 0.0.0.0 serves every network)").format(where=where))
        elif _is_wildcard(self.host):
            import socket
            lines.append("  " + _("listening on every network this machine is on, port {port} (--host {host})").format(
                port=self.port, host=self.host))
            lines.append("  " + _("from another machine: gouji join http://{name}:{port}/t/CODE ({codes}; or this machine's IP "
                                  "address in place of its name)").format(
                name=socket.gethostname(), port=self.port, codes=", ".join(r.table.code for r in self.rooms.values())))
        else:
            lines.append("  " + _("listening on {where} (--host)").format(where=where))
        lines.append("  " + _("no login: anyone with the code or a link who can reach this server can join (a seat link takes "
                              "that seat); bots take the free seats when every seat kept for people is taken or a seated player "
                              "asks to start; Ctrl+C stops the server"))
        return lines


def _unknown_type(kind: Any) -> str:
    """Why a message of this type is refused on a connection that has said hello."""
    if kind is None:
        return "the message has no 'type'"
    if not isinstance(kind, str):
        return f"the message's 'type' is a {type(kind).__name__}, not a text"
    if kind == "hello":
        return "this connection has already said hello (one hello a connection)"
    return f"unknown message type {str(kind)[:40]!r}"


def _request_id(msg: dict[str, Any]) -> Any:
    rid = msg.get("id")
    if isinstance(rid, (int, str)) and not isinstance(rid, bool) and len(str(rid)) <= 64:
        return rid
    return None


def _request_echo(msg: dict[str, Any]) -> dict[str, Any]:
    rid = _request_id(msg)
    return {} if rid is None else {"id": rid}


def _sha(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["TableServer", "Room", "Conn", "DEFAULT_BETWEEN_S"]
