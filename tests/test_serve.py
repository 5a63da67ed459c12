"""``gouji serve`` at its edges, over loopback: who may connect (Host, Origin, the per-server key),
the caps (apps at once, terminal size, message size), and that an app ends when its tab goes.

The server is the real one (:func:`gouji_app.web.make_server`) on 127.0.0.1; the app behind it is
``tests/serve_fake_app.py``, which speaks the app's protocol, starts in milliseconds and answers
each message with what it got. Every wait is bounded (``asyncio.wait_for``).
"""
from __future__ import annotations

import asyncio
import json
import os
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual_serve")

import aiohttp
from aiohttp.test_utils import TestServer

from gouji_app.web import make_server
from gouji_app.web import server as web_server

FAKE_APP = Path(__file__).with_name("serve_fake_app.py")
SECRET = "test-secret-0123456789abcdef"
WAIT_S = 30.0  # a wait this long is a hang, not a slow machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fake_command(*args: str) -> str:
    return " ".join(shlex.quote(p) for p in [sys.executable, str(FAKE_APP), *args])


class Served:
    """A running server: its address, key, and a session to talk to it."""

    def __init__(self, server: Any, port: int, session: aiohttp.ClientSession) -> None:
        self.server, self.port, self.session = server, port, session
        self.base = f"http://127.0.0.1:{port}"
        self.origin = self.base

    def ws_url(self, key: str | None = SECRET, query: str = "") -> str:
        path = "/ws" if key is None else f"/ws/{key}"
        return f"ws://127.0.0.1:{self.port}{path}{query}"

    async def connect(self, key: str | None = SECRET, query: str = "", **headers: str) -> aiohttp.ClientWebSocketResponse:
        headers.setdefault("Origin", self.origin)
        return await asyncio.wait_for(self.session.ws_connect(self.ws_url(key, query), headers=headers), WAIT_S)


def serve(test: Callable[[Served], Awaitable[None]], *, command: str | None = None, max_apps: int | None = None,
          host: str = "127.0.0.1", public_url: str | None = None) -> None:
    """Run ``test`` against a server on 127.0.0.1 (stopped, with its apps, when the test ends)."""
    async def main() -> None:
        port = _free_port()
        server = make_server(host, port, public_url=public_url, max_apps=max_apps, secret=SECRET)
        server.command = command or _fake_command()
        app = await server._make_app()
        test_server = TestServer(app, host="127.0.0.1", port=port)
        await test_server.start_server()
        try:
            async with aiohttp.ClientSession() as session:
                await asyncio.wait_for(test(Served(server, port, session)), WAIT_S * 4)
        finally:
            await test_server.close()
        assert not server.apps, "an app outlived the server"
    asyncio.run(main())


async def _next_json(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    """The next thing the (fake) app said."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), WAIT_S)
        if msg.type == aiohttp.WSMsgType.BINARY:
            return json.loads(msg.data)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            raise AssertionError(f"the websocket closed: {msg}")


async def _apps_below(server: Any, n: int) -> None:
    """Until the server has fewer than ``n`` apps (bounded)."""
    async def below() -> None:
        while len(server.apps) >= n:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(below(), WAIT_S)


async def _wait_gone(pid: int) -> None:
    """Until process ``pid`` has ended (bounded)."""
    async def gone() -> None:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            await asyncio.sleep(0.05)
    await asyncio.wait_for(gone(), WAIT_S)


# -- 1. who may connect -----------------------------------------------------------------------------

def test_the_page_needs_the_servers_key():
    async def test(s: Served) -> None:
        async with s.session.get(s.base + f"/?key={SECRET}") as r:
            page = await r.text()
            assert r.status == 200
            assert f'data-session-websocket-url="ws://127.0.0.1:{s.port}/ws/{SECRET}"' in page
            assert r.headers["Referrer-Policy"] == "no-referrer" and r.headers["Cache-Control"] == "no-store"
        for query, words in (("", "this address has no key"), ("?key=", "this address has no key"),
                             ("?key=wrong", "not this server's"), (f"?key={SECRET}x", "not this server's"),
                             (f"?key={SECRET[:-1]}", "not this server's"), ("?key=%ED%A0%80", "not this server's")):
            async with s.session.get(s.base + "/" + query) as r:
                text = await r.text()
                assert r.status == 403, query
                assert text.startswith("gouji serve: refused:") and words in text, (query, text)
                assert SECRET not in text
    serve(test)


def test_a_request_naming_another_host_is_refused_dns_rebinding():
    async def test(s: Served) -> None:
        for host in ("evil.example", f"evil.example:{s.port}", f"127.0.0.1:{s.port + 1}", f"localhost.evil.example:{s.port}",
                     f"127.0.0.1.nip.io:{s.port}", f"user@127.0.0.1:{s.port}", "", f"127.0.0.1:{s.port}/x"):
            for path in (f"/?key={SECRET}", "/static/js/textual.js", "/download/x"):
                async with s.session.get(s.base + path, headers={"Host": host}) as r:
                    text = await r.text()
                    assert r.status == 403, (host, path)
                    assert "this server answers to" in text and "Host" in text, text
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await s.connect(Host=host)
            assert e.value.status == 403
        for host in (f"127.0.0.1:{s.port}", f"localhost:{s.port}", f"LOCALHOST:{s.port}", f"[::1]:{s.port}"):
            async with s.session.get(s.base + f"/?key={SECRET}", headers={"Host": host}) as r:
                assert r.status == 200, host
        async with s.session.get(s.base + "/static/js/textual.js") as r:  # the page's script: Host checked, no key needed
            assert r.status == 200
        async with s.session.get(s.base + "/static/") as r:               # no folder listings
            assert r.status in (403, 404)
    serve(test)


def test_the_page_names_the_checked_host_not_an_absolute_request_lines():
    async def test(s: Served) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        writer.write(f"GET http://evil.example/?key={SECRET} HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\n"
                     "Connection: close\r\n\r\n".encode())
        page = (await asyncio.wait_for(reader.read(), WAIT_S)).decode()
        writer.close()
        assert page.startswith("HTTP/1.1 200")
        assert "evil.example" not in page
        assert f'data-session-websocket-url="ws://127.0.0.1:{s.port}/ws/{SECRET}"' in page
    serve(test)


def test_a_websocket_from_another_origin_or_without_the_key_is_refused():
    async def test(s: Served) -> None:
        refusals = [
            ({"Origin": "http://evil.example"}, SECRET),
            ({"Origin": f"http://evil.example:{s.port}"}, SECRET),
            ({"Origin": f"http://127.0.0.1:{s.port + 1}"}, SECRET),    # another server of this machine
            ({"Origin": f"https://127.0.0.1:{s.port}"}, SECRET),       # another scheme is another origin
            ({"Origin": "null"}, SECRET),                              # a sandboxed frame or a file:// page
            ({"Origin": f"http://localhost:{s.port}"}, SECRET),        # an origin other than the Host the page came from
            ({"Origin": f"http://127.0.0.1:{s.port}/x"}, SECRET),
            ({"Origin": ""}, SECRET),
            ({"Origin": s.origin}, None),                              # the old address, without a key
            ({"Origin": s.origin}, "wrong"),
            ({"Origin": s.origin}, SECRET + "x"),
        ]
        for headers, key in refusals:
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await s.connect(key, **headers)
            assert e.value.status == 403, (headers, key)
        # no Origin header at all (aiohttp's client sends none unless told)
        with pytest.raises(aiohttp.WSServerHandshakeError) as e:
            await asyncio.wait_for(s.session.ws_connect(s.ws_url()), WAIT_S)
        assert e.value.status == 403
        assert not s.server.apps                                       # nothing was started
        # the good case: the page's own origin and key
        ws = await s.connect()
        started = await _next_json(ws)
        assert started["started"] == [80, 24]
        await ws.send_json(["stdin", "x"])
        assert (await _next_json(ws)) == {"stdin": "x"}
        await ws.close()
        await _wait_gone(started["pid"])
    serve(test)


def test_the_printed_lines_give_the_address_with_its_key_and_say_who_can_connect():
    server = make_server("127.0.0.1", 8123, max_apps=3)
    assert server.secret and len(server.secret) >= 32 and server.secret != make_server("127.0.0.1", 8123).secret
    lines = server.listening_lines()
    assert lines[0] == f"gouji serve: open http://127.0.0.1:8123/?key={server.secret}"
    text = "\n".join(lines)
    assert "this machine only" in text and "no login" in text and "at most 3 apps" in text and "--max-apps" in text
    everywhere = "\n".join(make_server("0.0.0.0", 8123).listening_lines())
    assert "every network" in everywhere and "http://127.0.0.1:8123/?key=" in everywhere
    assert f"from another machine: http://{socket.gethostname()}:8123/?key=" in everywhere


def test_every_network_answers_to_ip_addresses_and_the_public_url_but_not_to_other_names():
    answers = web_server.Answers("0.0.0.0", 8000, "https://games.example.org/")
    assert answers("192.168.1.20:8000") and answers("127.0.0.1:8000") and answers("[fe80::1]:8000")
    assert answers("games.example.org", 443) and not answers("games.example.org:8000", 80)
    assert not answers("evil.example:8000") and not answers("192.168.1.20:9000") and not answers(None)
    only = web_server.Answers("192.168.1.20", 8000, None)
    assert only("192.168.1.20:8000") and not only("127.0.0.1:8000") and not only("10.0.0.1:8000")


def test_behind_a_proxy_the_public_urls_origin_and_host_are_the_pages():
    async def test(s: Served) -> None:
        async with s.session.get(s.base + f"/?key={SECRET}", headers={"Host": "games.example.org"}) as r:
            page = await r.text()
            assert r.status == 200 and f'data-session-websocket-url="wss://games.example.org/gouji/ws/{SECRET}"' in page
        ws = await s.connect(Origin="https://games.example.org", Host="games.example.org")
        assert "started" in await _next_json(ws)
        await ws.close()
        for origin in ("http://games.example.org", "https://games.example.org:8443", "https://evil.example"):
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await s.connect(Origin=origin, Host="games.example.org")
    serve(test, public_url="https://games.example.org/gouji/")


# -- 2. bounds --------------------------------------------------------------------------------------

@pytest.mark.parametrize("query, size", [
    ("?width=10000&height=10000", [web_server.MAX_COLS, web_server.MAX_ROWS]),
    ("?width=120&height=40", [120, 40]),
    ("?width=0&height=-5", [web_server.MIN_COLS, 24]),    # 0: the least; -5 is not a size: the default
    ("?width=1&height=1", [web_server.MIN_COLS, web_server.MIN_ROWS]),
    ("?width=abc&height=1e9", [80, 24]),
    ("?width=99999999999999999999&height=40", [80, 40]),
    ("?width=%EF%BC%91%EF%BC%92&height=40", [80, 40]),  # full-width digits are not a number here
    ("", [80, 24]),
])
def test_the_terminal_size_from_the_address_is_bounded(query: str, size: list[int]):
    async def test(s: Served) -> None:
        ws = await s.connect(query=query)
        assert (await _next_json(ws))["started"] == size
        await ws.close()
    serve(test)


def test_a_resize_message_is_bounded_and_a_malformed_one_ignored():
    async def test(s: Served) -> None:
        ws = await s.connect()
        await _next_json(ws)
        for data, size in (({"width": 10000, "height": 10000}, (400, 200)), ({"width": -1, "height": 0}, (10, 4)),
                           ({"width": 10**30, "height": 30}, (400, 30)), ({"width": 100, "height": 30}, (100, 30))):
            await ws.send_json(["resize", data])
            assert (await _next_json(ws)) == {"meta": {"type": "resize", "width": size[0], "height": size[1]}}
        for bad in (["resize", {"width": "9" * 5000, "height": 10}], ["resize", {"width": 1.5, "height": 10}],
                    ["resize", {"width": True, "height": 10}], ["resize", {}], ["resize", None], ["resize"],
                    ["stdin", 5], ["stdin"], ["ping", "x" * 100], [], {}, "x", 7, [None], ["nothing", 1]):
            await ws.send_json(bad)
        await ws.send_str("{not json")
        await ws.send_str("[" * 1000 + "]" * 1000)           # nested deeper than json decodes: ignored (closed the tab)
        await ws.send_str('{"a":' * 5000 + "1" + "}" * 5000)
        await ws.send_bytes(b"\x00\xff")
        await ws.send_json(["stdin", "\ud800ok"])            # a lone surrogate: replaced, not a crash
        assert (await _next_json(ws)) == {"stdin": "?ok"}
        await ws.send_json(["ping", "1"])
        msg = await asyncio.wait_for(ws.receive(), WAIT_S)
        assert json.loads(msg.data) == ["pong", "1"]
        await ws.close()
    serve(test)


def test_a_message_over_the_size_bound_closes_its_websocket_and_its_app():
    async def test(s: Served) -> None:
        ws = await s.connect()
        pid = (await _next_json(ws))["pid"]
        await ws.send_str(json.dumps(["stdin", "x" * (web_server.MAX_MESSAGE_BYTES + 1)]))
        while True:
            msg = await asyncio.wait_for(ws.receive(), WAIT_S)
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                break
        assert ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        await _wait_gone(pid)
    serve(test)


def test_connections_over_the_cap_are_told_so_and_a_freed_place_is_given_again():
    async def test(s: Served) -> None:
        first = [await s.connect() for _ in range(2)]
        pids = [(await _next_json(ws))["pid"] for ws in first]
        over = await s.connect()
        msg = await asyncio.wait_for(over.receive(), WAIT_S)
        assert msg.type == aiohttp.WSMsgType.CLOSE
        assert over.close_code == aiohttp.WSCloseCode.TRY_AGAIN_LATER
        assert "2 apps are open (--max-apps 2)" in msg.extra and len(msg.extra.encode()) <= 123
        assert len(s.server.apps) == 2
        await first[0].close()
        await _wait_gone(pids[0])
        await _apps_below(s.server, 2)
        again = await s.connect()
        assert "started" in await _next_json(again)
        for ws in (first[1], again):
            await ws.close()
    serve(test, max_apps=2)


def test_an_app_ends_when_its_tab_goes_even_while_it_starts():
    async def test(s: Served) -> None:
        ws = await s.connect()                        # closed at once: the app is still starting
        await ws.close()
        await _apps_below(s.server, 1)
        ws = await s.connect()                        # a tab that goes without closing its websocket
        pid = (await _next_json(ws))["pid"]
        ws._conn.transport.abort()                    # type: ignore[attr-defined]  # no close frame: the connection drops
        await _wait_gone(pid)
    serve(test)


def test_an_app_that_does_not_quit_is_terminated(monkeypatch):
    monkeypatch.setattr(web_server, "STOP_GRACE_S", 0.5)

    async def test(s: Served) -> None:
        ws = await s.connect()
        pid = (await _next_json(ws))["pid"]
        await ws.close()
        await _wait_gone(pid)
    serve(test, command=_fake_command("--ignore-quit"))


def test_serve_help_documents_the_options():
    from click.testing import CliRunner

    from gouji_app import cli
    res = CliRunner().invoke(cli.gouji, ["serve", "--help"])
    assert "--max-apps" in res.output and "key" in res.output and "400x200" in res.output
    res = CliRunner().invoke(cli.gouji, ["serve", "--max-apps", "0"])
    assert res.exit_code == 2 and "--max-apps" in res.output


# -- 14. a tab that goes early, a bad resize: no crash report -----------------------------------------

def test_the_real_app_leaves_no_crash_report_when_its_tab_goes_early_or_resizes_badly(monkeypatch, tmp_path):
    """The gouji app itself behind the server: tabs closed at once, while the app starts and once it
    draws, and resize messages out of every bound; each app ends and no crash report is written
    (a tab closed while the app started raised NoMatches in Textual's header: a crash report)."""
    from gouji_app.web import app_command

    crashes = tmp_path / "crashes"
    crashes.mkdir()
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(crashes))

    async def drawn(ws: aiohttp.ClientWebSocketResponse, at_least: int) -> None:
        seen = 0
        while seen < at_least:
            msg = await asyncio.wait_for(ws.receive(), WAIT_S)
            assert msg.type == aiohttp.WSMsgType.BINARY, msg
            seen += len(msg.data)

    async def goes(wait: int | None) -> None:
        ws = await s_.connect()
        if wait is not None:
            await drawn(ws, wait)
        await ws.close()

    async def resizes() -> None:
        ws = await s_.connect(query="?width=100000&height=-1")
        await drawn(ws, 20_000)
        for data in ({"width": 0, "height": 0}, {"width": -5, "height": 3}, {"width": 10**9, "height": 10**9},
                     {"width": "x", "height": None}, {"width": 1.5}, {}):
            await ws.send_json(["resize", data])
        await ws.send_json(["resize", {"width": 80, "height": 24}])
        await drawn(ws, 1_000)                     # still drawing after them
        await ws.close()

    async def test(s: Served) -> None:
        nonlocal s_
        s_ = s
        # at once, at the app's first output (it is starting), and a drawn app resized out of every bound
        await asyncio.gather(goes(None), goes(1), resizes())
        await _apps_below(s.server, 1)

    s_: Any = None
    serve(test, command=app_command(tmp_path / "rules"))
    assert list(crashes.iterdir()) == []


def test_the_header_of_a_screen_being_taken_down_does_not_fail():
    """The race behind it, without a browser: the header's title widget is gone when the title changes."""
    from textual.app import App, ComposeResult
    from textual.widgets._header import HeaderTitle

    from gouji_app.widgets.header import Header

    class Titled(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()

    async def main() -> None:
        app = Titled()
        async with app.run_test() as pilot:
            app.query_one(HeaderTitle).remove()
            await pilot.pause()
            app.title = "another title"
            app.sub_title = "and another"
            await pilot.pause()
        assert app.return_code in (0, None)
    asyncio.run(main())


def test_a_malformed_request_is_one_line_in_the_servers_log():
    import logging

    from aiohttp.http_exceptions import InvalidURLError
    try:
        raise InvalidURLError("Invalid char in url path:\n\n    b'GET /\\xc3 HTTP/1.1'\n")
    except InvalidURLError:
        record = logging.LogRecord("aiohttp.server", logging.ERROR, __file__, 1, "Error handling request from %s",
                                   ("127.0.0.1",), sys.exc_info())
    assert web_server.OneLineRefusals().filter(record)
    text = logging.Formatter("%(message)s").format(record)
    assert text == "gouji serve: refused a malformed request (400 Invalid char in url path:)" and record.levelno == logging.WARNING


def test_a_page_sending_too_fast_is_slowed_not_cut():
    now = [0.0]
    bucket = web_server.Throttle(rate=10, burst=10, clock=lambda: now[0])
    assert [bucket.delay(1) for _ in range(10)] == [0.0] * 10      # a burst of ten goes at once
    assert bucket.delay(1) == pytest.approx(0.1)                    # the eleventh waits a tenth of a second
    now[0] += 0.1
    assert bucket.delay(1) == pytest.approx(0.1)                    # still behind by one
    now[0] += 10
    assert bucket.delay(5) == 0.0 and bucket.tokens == 5            # refilled, never above the burst
    assert web_server.MESSAGES_PER_S >= 200 and web_server.BYTES_PER_S >= web_server.MAX_MESSAGE_BYTES
