"""``gouji join``: the play screen as a seat (or a spectator) of a club table (issue 27).

The table server here is tests/table_fake.py (docs/table-protocol.md, the real interpreter as the
judge, heuristic bots at the other seats) on loopback, in the test's own event loop. Waits are on
events (pilot_helpers.wait_for), never on time.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib

import pytest
from click.testing import CliRunner
from pilot_helpers import footer_settled, notes, screen_text, wait_for
from table_fake import CODE, FakeTable

from gouji_app.play.dialogs import WhyScreen
from gouji_app.play.join import JoinApp
from gouji_app.play.remote import AddressError, RemoteSession, graph_from_text, parse_address
from gouji_app.play.screen import PlayScreen
from gouji_app.play.widgets import HandView, SeatBox

SIZE = (130, 42)


def run_async(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


@pytest.fixture(autouse=True)
def _tokens_in_tmp(tmp_path, monkeypatch):
    """The seat tokens `gouji join` keeps go to a temporary folder."""
    monkeypatch.setattr("gouji_app.play.join._tokens_file", lambda: str(tmp_path / "table-seats.json"))


# ------------------------------------------------------------------------------ addresses
def test_addresses_a_code_a_room_link_and_a_seat_link():
    a = parse_address("k7qm")
    assert (a.server, a.code, a.token) == ("http://127.0.0.1:8765", "K7QM", None)
    assert parse_address("K7QM", "http://10.0.0.5:9000/").websocket == "ws://10.0.0.5:9000/ws"
    b = parse_address("http://127.0.0.1:8765/t/K7QM?token=q3V-x_y")
    assert (b.code, b.token, b.link) == ("K7QM", "q3V-x_y", "http://127.0.0.1:8765/t/K7QM?token=q3V-x_y")
    for bad in ("K0QM", "ftp://x/t/K7QM", "http://127.0.0.1:8765/rooms/K7QM", "hello"):
        with pytest.raises(AddressError):
            parse_address(bad)


@run_async
async def test_a_table_that_never_answers_is_given_up_after_a_few_tries(monkeypatch):
    """A wrong address: a few tries (no wait here: the backoff is zero), then the command's one line."""
    import socket

    from gouji_app.play import remote
    monkeypatch.setattr(remote, "BACKOFF", (0.0,))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # (nothing listens there)
    app = JoinApp(parse_address(CODE, f"http://127.0.0.1:{port}"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.failure is not None, what="the failure")
    assert app.failure.startswith(f"Could not join table {CODE} at http://127.0.0.1:{port}: the table did not answer 5 times")
    assert app.link.tries == remote.FIRST_TRIES + 1


def test_join_refuses_a_bad_address_and_seat_with_watch():
    from gouji_app.cli import gouji
    r = CliRunner().invoke(gouji, ["join", "K0QM"])
    assert r.exit_code == 2 and "not a room code" in r.output
    r = CliRunner().invoke(gouji, ["join", "K7QM", "--seat", "2", "--watch"])
    assert r.exit_code == 2 and "--watch" in r.output
    r = CliRunner().invoke(gouji, ["join", "K7QM", "--again"])  # (no seat kept for that table)
    assert r.exit_code == 2 and "no seat kept for table K7QM" in r.output


# ------------------------------------------------------------------------------ the screen at a table
async def _joined(pilot, app: JoinApp) -> PlayScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.session is not None
                   and app.session.started and app.screen.table_seq == app.session.seq > 0,
                   what="the play screen at the table, showing its state")
    return app.screen


@run_async
async def test_a_seat_plays_its_moves_through_the_table_and_sees_the_seats():
    table = FakeTable(people=(1,))
    server = await table.start()
    app = JoinApp(parse_address(CODE, server), name="Li")
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _joined(pilot, app)
            s = app.session
            assert isinstance(s, RemoteSession) and s.seat == 1 and not s.watching
            assert table.hellos[0] == {"type": "hello", "protocol": 1, "code": CODE, "name": "Li"}
            assert s.seed_sha256 and s.seed_sha256 in "".join(str(n.message) for n in notes(app))
            # the seats: bots by name, the hand is this seat's own, other hands unknown
            assert "heuristic bot" in str(screen.query_one("#seat-1", SeatBox).border_subtitle)
            assert s.state.hand_text(1) == table.state.hand_text(1)
            assert all(sum(s.state.hands[x]) == 0 for x in range(2, 7))
            await wait_for(pilot, lambda: s.your_turn, what="seat 1 to act")
            # an illegal move: refused as the play screen refuses one, the table's rules in the why box
            before = len(table.state.record)
            hand = table.state.hand_text(1).split()
            await pilot.press(*[{" ": "space"}.get(c, c) for c in hand[0] + " " + hand[-1]])
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.query_one("#why").has_class("-shown"), what="the why box")
            assert len(table.state.record) == before  # nothing was sent: the table's legal list refused it
            # the table's rules come into the why box; F5 shows the table's answer in the why dialog
            await wait_for(pilot, lambda: any(r.rule_id != "table.legal" for r in screen._why), what="the table's why")
            await pilot.press("f5")
            await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the why dialog")
            assert not app.screen.explanation.legal and app.screen.explanation.reasons
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
            await pilot.press("escape")
            # F3: the table's hint, Enter plays it; the table moves on and the bots answer
            await pilot.press("f3")
            await wait_for(pilot, lambda: screen.query_one("#move").value != "", what="the hint")
            n = len(s.entries)
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(s.entries) > n and table.state.to_act != 1 or table.state.over
                           or len(s.entries) > n + 1, what="the move made at the table")
            assert any(e["type"] == "move" and e["move"].startswith("1 ") for e in table.state.record)
    finally:
        await table.stop()


@run_async
async def test_an_out_of_turn_move_is_refused_by_the_server_as_a_refused_move():
    table = FakeTable(people=(1,))
    server = await table.start()
    app = JoinApp(parse_address(CODE, server))
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _joined(pilot, app)
            s = app.session
            await wait_for(pilot, lambda: s.your_turn, what="seat 1 to act")
            table.state.to_act = 2  # (the server's game moved on before the move arrived)
            s.apply(next(iter(s.legal())))
            await wait_for(pilot, lambda: any("refused" in str(n.title) for n in notes(app)), what="the refusal")
            refusal = next(n for n in notes(app) if "refused" in str(n.title))
            assert "not_your_turn" in str(refusal.title) and "seat 2 is to act" in str(refusal.message)
            assert s.pending is None and screen.is_attached
    finally:
        await table.stop()


@run_async
async def test_a_lost_connection_is_said_and_the_seat_is_taken_back_with_its_token():
    table = FakeTable(people=(1,))
    server = await table.start()
    app = JoinApp(parse_address(CODE, server))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _joined(pilot, app)
            s = app.session
            token = table.tokens[1]
            assert app.seat_link == f"{server}/t/{CODE}?token={token}"
            await table.drop(1)
            await wait_for(pilot, lambda: s.connection == "lost", what="the lost connection")
            assert any("lost" in str(n.message) for n in notes(app))
            await wait_for(pilot, lambda: s.connection == "connected" and len(table.hellos) == 2, what="reconnected")
            assert table.hellos[1]["token"] == token  # the same seat again
            assert s.seat == 1 and 1 in table.sockets
    finally:
        await table.stop()
    # `gouji join CODE --again` (a killed terminal, no seat link at hand) uses the kept token
    from gouji_app.play.join import remembered_token
    assert remembered_token(parse_address(CODE, server)) == token


# ------------------------------------------------------------------------------ at a real table server, in this loop
MOVE_KEYS = {"pass_move", "hint", "legal", "why", "table_auto", "table_start", "next_game"}


@contextlib.asynccontextmanager
async def hosted(tmp_path, rules="online", *, people=frozenset({1}), seed="club", between=0.0):
    """``gouji host``'s own server (gouji_dsl.tools.table) on loopback port 0 with one table of
    ``rules`` (a bundled name or a file), heuristic bots at the seats not kept for ``people``."""
    from aiohttp.test_utils import TestServer

    from gouji_dsl.tools.cli_host import table_rules
    from gouji_dsl.tools.table.protocol import Limits
    from gouji_dsl.tools.table.server import TableServer

    server = TableServer("127.0.0.1", 0, limits=Limits(messages_per_s=100_000, burst=100_000), record_dir=tmp_path)
    room = server.open_table(table_rules(str(rules)), people=set(people), between=between, seed=seed)
    ts = TestServer(server.make_app(), host="127.0.0.1", port=0)
    await ts.start_server()
    assert ts.port is not None
    server.listening_on(ts.port)
    try:
        yield server, room
    finally:
        await ts.close()


def _moves(record) -> list[str]:
    return [e["move"] for e in record if e["type"] == "move"]


def _log_lines(screen) -> list[str]:
    from gouji_app.play.widgets import GameLog
    out = []

    def walk(node) -> None:
        for child in node.children:
            out.append(str(child.label.plain if hasattr(child.label, "plain") else child.label))
            walk(child)
    walk(screen.query_one(GameLog).root)
    return out


async def _play_until_mid_trick(client, room, *, tricks: int = 1) -> None:
    """Seat 1 (the protocol's own client) plays its hints until ``tricks`` tricks were won and the
    trick on the table has a play in it, with seat 1 to act (the table then waits for it)."""
    for _round in range(400):  # bounded: far more than the moves of one game
        await client.receive("state", where=lambda m: m.get("your_turn"))
        st = room.table.state
        won = [i for i, e in enumerate(st.record) if e["type"] == "trick_won"]
        if len(won) >= tricks and st.top is not None and st.to_act == 1:
            return
        hint = await client.ask("hint")
        await client.move(hint["move"])
    raise AssertionError("the game never reached a trick in play with seat 1 to act")


@run_async
async def test_a_spectator_who_comes_late_sees_the_whole_game_from_nobodys_side(tmp_path):
    """A spectator (``gouji join CODE --watch``) who joins mid-game: every move so far in the log,
    the trick on the table with its plays, the seats by number (no "you", no partner / opposite of
    seat 1), no hand, no move box, and no move key offered (F2–F5, 托管, start: not in the footer,
    not in the keys panel; pressed, nothing is sent)."""
    from gouji_app.play.widgets import TrickView
    from gouji_dsl.tools.table.client import TableClient

    async with hosted(tmp_path, people={1}) as (server, room):
        li = await TableClient.connect(server.room_link(room), name="Li", timeout=60)
        try:
            await _play_until_mid_trick(li, room, tricks=2)
            app = JoinApp(parse_address(server.room_link(room)), watch=True)
            try:
                async with app.run_test(size=SIZE) as pilot:
                    screen = await _joined(pilot, app)
                    s = app.session
                    assert s.watching and s.viewer is None and not s.your_turn
                    table_moves = _moves(room.table.state.record)
                    # the whole game so far: one log line per move, in order, none of them "you"
                    assert [e.move for e in s.entries if e.move] == table_moves
                    lines = _log_lines(screen)
                    assert sum(1 for line in lines if line.strip()[:1].isdigit()) >= len(table_moves)
                    assert not [line for line in lines if "you" in line.split()]
                    # the trick on the table, with its plays (not only "last trick: ...")
                    top = room.table.state.top
                    trick = str(screen.query_one(TrickView).render())
                    assert top is not None and top.play.text in trick and "last trick" not in trick
                    # the seats by number and team, from nobody's side
                    for rel in range(1, 6):
                        title = str(screen.query_one(f"#seat-{rel}", SeatBox).border_title)
                        assert "team" in title and not any(w in title for w in ("partner", "opposite", "opponent", "you"))
                    you = str(screen.query_one("#you").render())
                    assert "Watching table" in you and "you ·" not in you
                    assert "Li" in you  # seat 1's player, told as any seat is
                    # no hand, no move box, no move keys
                    assert not screen.query_one(HandView).display and not screen.query_one("#move").display
                    shown = {b.binding.action for b in screen.active_bindings.values()}
                    assert not MOVE_KEYS & shown and "help" in shown
                    await footer_settled(pilot)
                    footer = screen_text(app).splitlines()[-1]
                    assert not any(w in footer for w in ("Pass", "Hint", "Moves", "Why")), footer
                    seq = room.table.seq
                    await pilot.press("f2", "f3", "f4", "f5", "f12", "ctrl+g", "f10")
                    await pilot.pause()
                    assert (await s.ask("ping"))["type"] == "pong"  # (after the answers to anything sent before it)
                    assert "error" not in app.received and room.table.seq == seq  # nothing was asked of the table
                    assert not [n for n in notes(app) if "refused" in str(n.title)]
                    # the game goes on: the spectator's log follows it
                    n = len(s.entries)
                    hint = await li.ask("hint")
                    await li.move(hint["move"])
                    await wait_for(pilot, lambda: len(s.entries) > n and screen.table_seq == s.seq, what="the next move")
                    assert [e.move for e in s.entries if e.move] == _moves(room.table.state.record)
            finally:
                app.link.close()
        finally:
            await li.close()


# ------------------------------------------------------------------------------ a browser tab through gouji serve
def test_a_tab_of_gouji_serve_joins_a_table_with_join_in_its_address():
    """``/?key=K&join=CODE-or-link``: the page's websocket carries the table; the tab's app is
    ``gouji join LINK`` (the link read again on the server); a bad one is refused (400)."""
    import base64

    import aiohttp
    from test_serve import SECRET, _next_json, serve

    link = "http://127.0.0.1:8765/t/K7QM?token=abc_DEF-123"
    carried = base64.urlsafe_b64encode(link.encode()).decode().rstrip("=")

    async def test(s) -> None:
        async with s.session.get(s.base + f"/?key={SECRET}&join=" + link.replace("?", "%3F").replace("=", "%3D")) as r:
            assert r.status == 200
            assert f'/ws/{SECRET}/join/{carried}"' in await r.text()
        async with s.session.get(s.base + f"/?key={SECRET}&lang=zh&join=k7qm") as r:
            room = base64.urlsafe_b64encode(b"http://127.0.0.1:8765/t/K7QM").decode().rstrip("=")
            assert f'/ws/{SECRET}/zh/join/{room}"' in await r.text()
        for bad in ("K0QM", "file:///etc/passwd", "http://127.0.0.1:8765/rooms/K7QM"):
            async with s.session.get(s.base + f"/?key={SECRET}&join={bad}") as r:
                assert r.status == 400 and "refused: join=" in await r.text()
        ws = await s.connect(query=f"/join/{carried}")
        started = await _next_json(ws)
        assert started["argv"][-2:] == ["join", link]
        await ws.close()
        bad = base64.urlsafe_b64encode(b"; rm -rf /").decode().rstrip("=")
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # refused before the websocket opens
            await s.connect(query=f"/join/{bad}")
        assert refused.value.status == 400
    serve(test)


# ------------------------------------------------------------------------------ at the real table server
@run_async
async def test_at_gouji_hosts_table_a_seat_plays_a_game_loses_its_connection_and_takes_its_seat_back(tmp_path):
    """``gouji host``'s own server (gouji_dsl.tools.table), two seats kept for people (the second one
    the protocol's own client, who does not move), heuristic bots at the others: the play screen
    plays its moves (F3, Enter); its
    connection is cut mid-game (its seat is played by the bot, 托管) and comes back with the token;
    then both players leave their seats to their bots (``auto``), who play the game out: the game's
    end, the seed revealed after the match (its hash checked) and the record the host saved."""
    from aiohttp.test_utils import TestServer

    from gouji_dsl.tools.cli_host import table_rules
    from gouji_dsl.tools.table.client import TableClient
    from gouji_dsl.tools.table.protocol import Limits
    from gouji_dsl.tools.table.server import TableServer

    server = TableServer("127.0.0.1", 0, limits=Limits(messages_per_s=100_000, burst=100_000), record_dir=tmp_path)
    room = server.open_table(table_rules("online"), people={1, 2}, between=0.0, seed="club")
    ts = TestServer(server.make_app(), host="127.0.0.1", port=0)
    await ts.start_server()
    assert ts.port is not None
    server.listening_on(ts.port)
    app = JoinApp(parse_address(server.room_link(room)), name="Li")
    other: TableClient | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.session is not None and app.session.seat == 1, what="seat 1 taken")
            # a second player (the protocol's own client) who does not move: the table waits for him
            other = await TableClient.connect(server.room_link(room), name="Wang", timeout=60)
            screen = await _joined(pilot, app)
            s = app.session
            assert "Li" in s.seat_caption(1) and "Wang" in s.seat_caption(2) and "heuristic" in s.seat_caption(3)
            assert s.seed_sha256 == hashlib.sha256(b"club").hexdigest()
            moves = 0
            for _round in range(600):  # bounded: a game of online is far fewer of your moves
                if s.state.to_act == 2 and moves >= 2 or s.state.over:
                    break  # seat 2 thinks (the table waits for him)
                if s.state.to_act == 2:  # seat 2 plays his hint
                    seq = s.seq
                    hint = await other.ask("hint")
                    await other.move(hint["move"])
                    await wait_for(pilot, lambda seq=seq: s.seq > seq, what="seat 2's move")
                    continue
                if s.your_turn and s.pending is None:
                    seq = s.seq
                    await pilot.press("f3")
                    await wait_for(pilot, lambda: screen.query_one("#move").value != "" or not s.your_turn,
                                   what="the table's hint")
                    if s.your_turn:
                        await pilot.press("enter")
                        await wait_for(pilot, lambda seq=seq: s.seq > seq, what="the move made at the table")
                        moves += 1
                else:
                    seq = s.seq
                    await wait_for(pilot, lambda seq=seq: s.seq > seq or s.state.over or (s.your_turn and s.pending is None)
                                   or s.state.to_act == 2, what="the table moving on")
            assert moves >= 2 and s.state.to_act == 2 and not s.state.over
            # the terminal's connection drops while seat 2 thinks: the seat is taken back with its token
            await app.link._ws.close()
            await wait_for(pilot, lambda: s.connection == "lost", what="the connection lost")
            await wait_for(pilot, lambda: s.connection == "connected" and not s.seats[1].auto, what="back at the table")
            # both players leave their seats to their bots (托管; F12 for the play screen), who play the game out
            await other.send({"type": "auto", "on": True})
            await pilot.press("f12")
            await wait_for(pilot, lambda: s.state.over, what="the end of the game")
            cut = True
            assert cut and s.state.over and s.state.places
            said = " ".join(str(n.message) for n in notes(app))
            assert "lost" in said and "You play your seat again" in said and said.count("seed hash") == 1
            assert "Seat 2: a bot plays it" in said and "A bot plays your seat (托管: asked)" in said
            assert not [n for n in notes(app) if "refused" in str(n.title)]
            await wait_for(pilot, lambda: s.seed_revealed == "club", what="the seed after the match")
            assert "its hash matches" in " ".join(str(n.message) for n in notes(app))
            assert list(tmp_path.glob("table-*.json"))  # the host saved the record
    finally:
        app.link.close()
        if other is not None:
            await other.close()
        await ts.close()


def test_a_browser_tab_of_gouji_serve_sits_at_gouji_hosts_table(tmp_path):
    """Headless Chromium (as tests/test_web.py drives it) opens ``gouji serve``'s address with
    ``&join=`` the table's link: the tab shows the play screen at the table (its code, your hand),
    and a move typed there (seat 1's first legal move) with Enter reaches the host's table."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import threading
    import time
    from urllib.parse import quote

    from aiohttp.test_utils import TestServer
    from test_web import CHROMIUM, FLAGS, HANG_GUARD_MS, _free_port, _need_browser, _wait_address

    from gouji_dsl.tools.cli_host import table_rules
    from gouji_dsl.tools.table.protocol import Limits
    from gouji_dsl.tools.table.server import TableServer

    _need_browser()
    from playwright.sync_api import sync_playwright

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = TableServer("127.0.0.1", 0, limits=Limits(messages_per_s=100_000, burst=100_000), record_dir=tmp_path)

    async def start() -> TestServer:
        room = server.open_table(table_rules("online"), people={1}, between=0.0, seed="browser")
        ts = TestServer(server.make_app(), host="127.0.0.1", port=0)
        await ts.start_server()
        assert ts.port is not None
        server.listening_on(ts.port)
        server.test_room = room  # type: ignore[attr-defined]
        return ts

    ts = asyncio.run_coroutine_threadsafe(start(), loop).result(60)
    room = server.test_room  # type: ignore[attr-defined]
    link = server.room_link(room)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gouji_app", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--max-apps", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, cwd=tmp_path)
    frames: list[str] = []

    def seen(*words: str) -> bool:
        text = "".join(frames)
        return all(w in text for w in words)

    def moved() -> bool:
        return any(e["type"] == "move" and e["move"].startswith("1 ") for e in room.table.state.record)

    try:
        address = _wait_address(proc)
        with sync_playwright() as pw:
            browser = pw.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"), executable_path=CHROMIUM if os.path.exists(CHROMIUM) else
                shutil.which("chromium"), headless=True, args=FLAGS, viewport={"width": 1400, "height": 900})
            try:
                page = browser.pages[0] if browser.pages else browser.new_page()
                page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
                    payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload)))
                page.goto(address + "&join=" + quote(link, safe=""), timeout=HANG_GUARD_MS)

                def wait(check) -> None:
                    deadline = time.monotonic() + HANG_GUARD_MS / 1000
                    while not check():
                        if time.monotonic() > deadline:
                            raise AssertionError(f"never happened: {''.join(frames)[-2000:]!r}")
                        page.wait_for_timeout(100)

                wait(lambda: seen("Your hand", room.table.code))   # the play screen, at this table
                wait(lambda: room.table.state.to_act == 1 or moved())
                if not moved():
                    st = room.table.state
                    mv = next(iter(st.legal_moves()))
                    page.keyboard.type(mv.text(st.model).split(None, 1)[1])  # "play KK", "pass": as typed
                    page.keyboard.press("Enter")
                    wait(moved)                                    # seat 1's move reached the host's table
                assert room.table.seats[1].connected
            finally:
                browser.close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        asyncio.run_coroutine_threadsafe(ts.close(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)


CLUB = """ruleset: club
extends: qingdao
settings:
  match_games:
    value: 2
    says: {en: "A match is two games.", zh: "一场比赛两局。"}
"""


@run_async
async def test_who_joins_after_the_match_sees_the_match_totals_the_table_sent(tmp_path):
    """A client that joins when the match is over saw none of game 1: its scoreboard (and the
    "match n/m" totals) take the finished games the table re-sends (game_over, match_over)."""
    from gouji_dsl.tools.table.client import TableClient
    from gouji_dsl.tools.table.summary import match_totals

    rules = tmp_path / "club.yaml"
    rules.write_text(CLUB, encoding="utf-8")
    async with hosted(tmp_path, rules, people=set()) as (server, room):
        first = await TableClient.connect(server.room_link(room), watch=True, timeout=60)
        room.start()
        await first.receive("match_over", timeout=60)
        await first.close()
        late = await TableClient.connect(server.room_link(room), watch=True, timeout=60)
        try:
            await late.receive("match_over", timeout=60)
            ruleset = next(m for m in late.messages if m["type"] == "ruleset")
            s = RemoteSession(graph_from_text(ruleset["name"], ruleset["text"]), seat=None,
                              address=parse_address(server.room_link(room)))
            for m in late.messages:
                s.handle(m)
        finally:
            await late.close()
        games = s.match_summary()
        assert [g.number for g in games] == [1, 2] and all(g.over for g in games)
        assert s.match_totals() == {int(k): v for k, v in match_totals(room.table.finals).items()}


@run_async
async def test_a_whole_match_with_tribute_through_the_play_screen(tmp_path):
    """A match of two games of qingdao (tribute between them: 落贡 returned card for card) at the
    host's table, seat 1 played through the play screen's keys only (F3 the table's hint, Enter;
    F10 ready for the next game), heuristic bots at the other seats. Seat 1 comes first in game 1
    (seed ``club9``), so before game 2 it has to return tribute: it does so with the keys. At the
    end: the seed revealed, and ctrl+s saves the match's record (the table's), which replays with
    the checks of ``gouji replay --check``."""
    from textual.screen import ModalScreen

    from gouji_app.play.dialogs import PathScreen
    from gouji_dsl.engine.records import check_record, load_record, record_graph

    rules = tmp_path / "club.yaml"
    rules.write_text(CLUB, encoding="utf-8")
    async with hosted(tmp_path, rules, seed="club9", between=600.0) as (server, room):
        app = JoinApp(parse_address(server.room_link(room)), name="Li", autopass=False)  # (only the keys move seat 1)
        try:
            async with app.run_test(size=SIZE) as pilot:
                screen = await _joined(pilot, app)
                s = app.session
                returned = asked_next = 0
                for _round in range(3000):  # bounded: far more than seat 1's moves in two games
                    if s.match_done and s.record_link:
                        break
                    if s.state.over and not s.match_done:
                        if room.table.seats[1].ready:
                            await wait_for(pilot, lambda: not s.state.over or s.match_done, what="the next game")
                            continue
                        await wait_for(pilot, lambda: "F10: ready for" in str(screen.query_one("#feedback").render()),
                                       what="F10 offered")
                        await pilot.press("f10")
                        asked_next += 1
                        await wait_for(pilot, lambda: room.table.seats[1].ready or not s.state.over, what="ready sent")
                        continue
                    if s.your_turn and s.pending is None:
                        seq = s.seq
                        await pilot.press("f3")
                        await wait_for(pilot, lambda seq=seq: screen.query_one("#move").value != "" or s.seq != seq
                                       or not s.your_turn, what="the table's hint")
                        if s.your_turn and s.seq == seq:
                            typed = screen.query_one("#move").value
                            await pilot.press("enter")
                            await wait_for(pilot, lambda seq=seq: s.seq > seq, what="the move made at the table")
                            returned += typed.split()[:1] == ["return"]
                        continue
                    seq = s.seq
                    await wait_for(pilot, lambda seq=seq: s.seq > seq or s.state.over or s.record_link
                                   or (s.your_turn and s.pending is None), what="the table moving on")
                assert s.match_done and s.record_link and room.table.match_over
                assert asked_next == 1 and returned == 0  # (the hint of a return puts its cards in the box: "33")
                mine = [e.move for e in s.entries if e.by == "you" and e.game_index == 1]
                assert any(m.split()[1] == "return" for m in mine)  # seat 1's return, sent by Enter at the screen
                game2 = room.table.finals[1].record
                assert [e for e in game2 if e["type"] == "transfer" and e.get("receiver") == 1]  # tribute paid to seat 1
                assert [e for e in game2 if e["type"] == "move" and e["move"].startswith("1 return")]
                assert s.seed_revealed == "club9"
                # the end of the match offers only the keys that work at the table, ctrl+s among them
                said = str(screen.query_one("#feedback").render())
                assert "ctrl+s saves the match's record" in said and "F10 asks for a new match" in said
                assert screen.check_action("save", ()) is True
                await wait_for(pilot, lambda: not isinstance(app.screen, ModalScreen) or app.screen.__class__.__name__
                               == "ScoreboardScreen", what="the final scoreboard")
                if app.screen is not screen:
                    await pilot.press("escape")
                    await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
                await pilot.press("ctrl+s")
                await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), what="the save dialog")
                path = tmp_path / "match.json"
                app.screen.query_one("#path-input").value = str(path)
                await pilot.press("enter")
                await wait_for(pilot, lambda: path.exists() and app.screen is screen, what="the record saved")
                rec = load_record(path)
                assert rec.seed == "club9" and len(check_record(record_graph(rec), rec)) == 2  # (replay --check's check)
        finally:
            app.link.close()


@run_async
async def test_a_seat_taken_by_another_connection_with_its_link_is_said_and_not_taken_back(tmp_path):
    """The seat link opened elsewhere (the same person on another terminal): the table's
    ``replaced`` is said at the play screen, the status line says the seat is held by another
    connection, and this screen does not reconnect (the two would push each other out)."""
    from gouji_dsl.tools.table.client import TableClient

    async with hosted(tmp_path, people={1}) as (server, room):
        app = JoinApp(parse_address(server.room_link(room)), name="Li", autopass=False)
        other: TableClient | None = None
        try:
            async with app.run_test(size=SIZE) as pilot:
                await _joined(pilot, app)
                s = app.session
                other = await TableClient.connect(server.seat_link(room, 1), timeout=60)
                assert other.seat == 1
                await wait_for(pilot, lambda: s.connection == "replaced" and app.link._ws is None, what="the seat replaced")
                said = " ".join(str(n.message) for n in notes(app))
                assert "Your seat was taken by another connection with its seat link" in said
                assert "left: the seat is held by another connection" in s.status_text()
                held = [c for c in room.conns if c.seat is room.table.seats[1]]
                assert len(held) == 1 and room.table.seats[1].connected and not room.table.seats[1].auto
                await pilot.pause()
                assert app.link.closed or app.link._ws is None  # (no new hello from this screen)
        finally:
            app.link.close()
            if other is not None:
                await other.close()


@run_async
async def test_f1_at_a_table_lists_only_the_keys_that_work_there():
    """F1 at a club table: the table's keys (托管, start, ready), none of test-play's that the table
    turns off (undo, new game, play-on, speed, review, ask a bot...); a spectator's help has no move key."""
    from gouji_app.play.dialogs import PlayHelpScreen
    from gouji_app.play.screen import TABLE_OFF, WATCH_OFF

    table = FakeTable(people=(1,))
    server = await table.start()
    app = JoinApp(parse_address(CODE, server), name="Li")
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _joined(pilot, app)
            await pilot.press("f1")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayHelpScreen), what="the help")
            text = app.screen.text
            assert app.screen.at_table == "seat" and "托管" in text and "ctrl+g" in text and "F3 the table's hint" in text
            keys = {b.key: b.action for b in PlayScreen.BINDINGS}
            off = {k for k, a in keys.items() if a.split("(")[0] in TABLE_OFF and a != "save"}
            shown = {k.replace("shift+f3", "shift+F3").upper() if k.startswith("f") else k for k in off}
            assert not [k for k in shown if f"{k} " in text], shown
            for word in ("undo", "new game", "review", "speed", "ask a bot"):
                assert word not in text.lower(), word
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
    finally:
        await table.stop()
    watch = PlayHelpScreen("watch").text
    moving = {k.upper() for k, a in keys.items() if a.split("(")[0] in WATCH_OFF and k.startswith("f")} | {"ctrl+g"}
    assert not [k for k in moving if f"{k} " in watch], moving
    assert "ctrl+z undo" in PlayHelpScreen(None).text  # (test-play's own help unchanged)


def test_a_return_tribute_hidden_from_this_seat_is_said_as_hidden_cards_never_none():
    from gouji_dsl.ruleset.event_words import _plain_event_text
    hidden = {"type": "transfer", "giver": 3, "receiver": 4, "rule": "return", "cards": None, "count": 1}
    text = _plain_event_text("transfer", hidden, lambda s: f"seat {s}")
    assert "None" not in text and "seat 3 → seat 4: 1 card (hidden)" in text
    assert "None" not in _plain_event_text("transfer", {**hidden, "count": None}, str)
    assert "33" in _plain_event_text("transfer", {**hidden, "cards": "33"}, str)


@run_async
async def test_the_last_matchs_final_scoreboard_closes_when_the_next_match_is_dealt(tmp_path):
    from gouji_app.play.dialogs import ScoreboardScreen

    rules = tmp_path / "club.yaml"
    rules.write_text(CLUB, encoding="utf-8")
    async with hosted(tmp_path, rules) as (server, room):
        app = JoinApp(parse_address(server.room_link(room)), name="Li")
        try:
            async with app.run_test(size=SIZE) as pilot:
                await _joined(pilot, app)
                s = app.session
                app.link.send({"type": "auto", "on": True})
                await wait_for(pilot, lambda: isinstance(app.screen, ScoreboardScreen) and app.screen.final,
                               what="the match's final scoreboard")
                app.link.send({"type": "auto", "on": False})  # (the next match waits for seat 1)
                await wait_for(pilot, lambda: not room.table.seats[1].auto, what="托管 off")
                app.link.send({"type": "start"})
                await wait_for(pilot, lambda: s.match_number == 2 and not s.state.over
                               and isinstance(app.screen, PlayScreen), what="match 2 shown, the stale scoreboard closed")
        finally:
            app.link.close()
