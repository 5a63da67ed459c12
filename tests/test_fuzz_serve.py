"""The fuzz suite on ``gouji serve``'s endpoints (a server on 127.0.0.1 with the stand-in app of
tests/serve_fake_app.py): raw HTTP requests with odd paths, query strings and headers (Host, Origin,
websocket upgrades), and odd websocket messages on an open connection. Each request gets an answer
below 500 in a bounded time, nothing is served without the key, the Host and the Origin being right,
and the connection and the server go on working. Bounded and derandomized like tests/test_fuzz.py
(``GOUJI_FUZZ_SCALE`` scales the examples)."""
from __future__ import annotations

import asyncio
import json
import shlex
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual_serve")

import aiohttp
from aiohttp.test_utils import TestServer
from fuzz_targets import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from gouji_app.web import make_server

SECRET = "fuzz-secret-0123456789abcdefghij"
FAKE_APP = Path(__file__).with_name("serve_fake_app.py")
WAIT_S = 20.0


class Loop:
    """One event loop for the module: the server, a client session, and a websocket kept open."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = make_server("127.0.0.1", self.port, max_apps=3, secret=SECRET)
        self.server.command = " ".join(shlex.quote(p) for p in [sys.executable, str(FAKE_APP)])
        self.ws: aiohttp.ClientWebSocketResponse | None = None

        async def start() -> None:
            self.test_server = TestServer(await self.server._make_app(), host="127.0.0.1", port=self.port)
            await self.test_server.start_server()
            self.session = aiohttp.ClientSession()
        self.run(start())

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, WAIT_S * 3))

    async def websocket(self) -> aiohttp.ClientWebSocketResponse:
        if self.ws is None or self.ws.closed:
            self.ws = await self.session.ws_connect(f"ws://127.0.0.1:{self.port}/ws/{SECRET}",
                                                    headers={"Origin": f"http://127.0.0.1:{self.port}"})
        return self.ws

    def close(self) -> None:
        async def stop() -> None:
            if self.ws is not None:
                await self.ws.close()
            await self.session.close()
            await self.test_server.close()
        self.run(stop())
        self.loop.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Loop]:
    loop = Loop()
    try:
        yield loop
    finally:
        loop.close()
    assert not loop.server.apps


# -- raw HTTP requests ------------------------------------------------------------------------------

_line_bytes = st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_word = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), max_size=12)


def _hosts(port: int) -> st.SearchStrategy[bytes]:
    good = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    odd = [f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", f"127.0.0.1.nip.io:{port}", "",
           f"127.0.0.1:{port}@evil.example", f"127.0.0.1:{port}:{port}", f"[::1:{port}", "127.0.0.1:99999999999999"]
    return st.one_of(st.sampled_from(good + odd).map(str.encode), _line_bytes)


_paths = st.one_of(st.sampled_from(["/", "/ws", f"/ws/{SECRET}", "/ws/x", f"/ws/{SECRET}/x", "/static/js/textual.js",
                                    "/static/", "/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                                    "/download/x", "/nothing", "//", "*"]),
                   _word.map(lambda w: "/" + w))
_values = st.one_of(st.sampled_from([SECRET, "", "0", "-1", "400", "1e9", "99999999999999999999", "%00", "%ED%A0%80",
                                     SECRET + "x", "abc"]), _word)
_queries = st.lists(st.tuples(st.sampled_from(["key", "width", "height", "fontsize", "delay", "ping", "x"]), _values),
                    max_size=5).map(lambda kv: "&".join(f"{k}={v}" for k, v in kv))
_origins = st.one_of(st.none(), st.sampled_from(["http://127.0.0.1:{port}", "http://evil.example", "null", "",
                                                 "https://127.0.0.1:{port}", "http://localhost:{port}"]), _word)


def _request(port: int, path: str, query: str, host: bytes, origin: str | None, upgrade: bool, extra: bytes) -> bytes:
    target = path + ("?" + query if query else "")
    lines = [b"GET " + target.encode("utf-8", "replace").replace(b" ", b"%20") + b" HTTP/1.1", b"Host: " + host]
    if origin is not None:
        lines.append(b"Origin: " + origin.replace("{port}", str(port)).encode("utf-8", "replace"))
    if upgrade:
        lines += [b"Connection: Upgrade", b"Upgrade: websocket", b"Sec-WebSocket-Version: 13",
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
    else:
        lines.append(b"Connection: close")
    if extra:
        lines.append(b"X-Fuzz: " + extra)
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _status(port: int, request: bytes) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), WAIT_S)
    finally:
        writer.close()
    assert line.startswith((b"HTTP/1.1 ", b"HTTP/1.0 ")), line
    return int(line.split()[1])


@fuzz_settings(60)
@given(data=st.data())
def test_odd_requests_get_an_answer_and_nothing_without_key_host_and_origin(served: Loop, data: st.DataObject):
    port = served.port
    path, query = data.draw(_paths), data.draw(_queries)
    host, origin = data.draw(_hosts(port)), data.draw(_origins)
    upgrade, extra = data.draw(st.booleans()), data.draw(_line_bytes)
    status = served.run(_status(port, _request(port, path, query, host, origin, upgrade, extra)))
    assert status < 500 or status == 503, status
    good_host = host in (f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode(), f"[::1]:{port}".encode())
    if status == 101:
        assert upgrade and good_host and path == f"/ws/{SECRET}"
        assert origin is not None and origin.replace("{port}", str(port)).encode() == b"http://" + host
    if status == 200 and path == "/":
        assert good_host and f"key={SECRET}" in query.split("&")


def test_the_server_still_serves_after_the_odd_requests(served: Loop):
    async def check() -> None:
        async with served.session.get(f"http://127.0.0.1:{served.port}/?key={SECRET}") as r:
            assert r.status == 200
    served.run(check())


# -- websocket messages -----------------------------------------------------------------------------

_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["width", "height", "x"]) | st.text(max_size=5), inner, max_size=4), max_leaves=10)
_envelope = st.tuples(st.sampled_from(["stdin", "resize", "ping", "blur", "focus", "quit", "exit"]) | st.text(max_size=8),
                      _value).map(list)
_messages = st.lists(st.one_of(
    _envelope.map(lambda e: ("text", json.dumps(e))),
    _value.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=200).map(lambda t: ("text", t)),
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
), min_size=1, max_size=8)


@fuzz_settings(40)
@given(messages=_messages)
def test_odd_websocket_messages_are_ignored_or_bounded_and_the_app_goes_on(served: Loop, messages: list[tuple[str, Any]]):
    async def check() -> None:
        ws = await served.websocket()
        for kind, payload in messages:
            if kind == "text":
                await ws.send_str(payload)
            else:
                await ws.send_bytes(payload)
        await ws.send_json(["ping", "alive"])
        while True:                                   # the app's echoes, then the answer to the ping
            msg = await asyncio.wait_for(ws.receive(), WAIT_S)
            assert msg.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY), msg
            if msg.type == aiohttp.WSMsgType.BINARY:
                echo = json.loads(msg.data)           # the stand-in app saw a clamped size, or text
                if "meta" in echo and echo["meta"]["type"] == "resize":
                    assert 10 <= echo["meta"]["width"] <= 400 and 4 <= echo["meta"]["height"] <= 200
            elif json.loads(msg.data) == ["pong", "alive"]:
                return
    served.run(check())
