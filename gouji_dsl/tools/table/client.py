"""A small client of the club table protocol (docs/table-protocol.md), on aiohttp: the tests' players
and spectators, and a base for ``gouji join``.

    async with TableClient.connect("http://127.0.0.1:8765/t/K7QM", name="Li") as c:
        welcome = c.welcome                    # seat, token ...
        state = await c.receive("state")       # the next state message (bounded wait)
        await c.move("3 play KK")
        why = await c.ask("why", move="3 play KK")

Every message received is kept in :attr:`TableClient.messages` (in order); :meth:`receive` waits for
the next one of the given types, with a timeout (never for ever).
"""
from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .protocol import DEFAULT_PORT, PROTOCOL, normal_code

DEFAULT_TIMEOUT_S = 30.0
MAX_UNREAD = 20_000
"""Messages kept unread at most (about two matches' worth); older unread ones are forgotten (still in ``messages``)."""


class TableClosed(ConnectionError):
    """The server closed the connection (or refused the hello: :attr:`error` holds its error message)."""

    def __init__(self, message: str, error: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.error = error


def parse_address(text: str, server: str | None = None) -> tuple[str, str, str | None]:
    """(server URL, room code, seat token or None) from a room link, a seat link or a bare code."""
    text = text.strip()
    if "://" not in text:
        return (server or f"http://127.0.0.1:{DEFAULT_PORT}").rstrip("/"), normal_code(text), None
    parts = urlsplit(text)
    segs = [p for p in parts.path.split("/") if p]
    if len(segs) < 2 or segs[-2] != "t":
        raise ValueError(f"not a table link (http://HOST:PORT/t/CODE): {text[:200]!r}")
    token = parse_qs(parts.query).get("token", [None])[0]
    return f"{parts.scheme}://{parts.netloc}", normal_code(segs[-1]), token


def websocket_url(server: str) -> str:
    scheme, rest = server.split("://", 1)
    return ("wss" if scheme == "https" else "ws") + "://" + rest.rstrip("/") + "/ws"


class TableClient:
    """One connection to a table (see the module's docstring)."""

    def __init__(self, session: Any, ws: Any, own_session: bool) -> None:
        self.session, self.ws, self._own = session, ws, own_session
        self.messages: list[dict[str, Any]] = []
        self._unread: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()
        self._ids = itertools.count(1)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.welcome: dict[str, Any] = {}
        self.closed = False

    @classmethod
    def connect(cls, address: str, *, name: str | None = None, seat: int | None = None, watch: bool = False,
                token: str | None = None, server: str | None = None, session: Any = None,
                timeout: float = DEFAULT_TIMEOUT_S) -> _Connecting:
        """Connect and say hello (``async with TableClient.connect(...) as c`` or ``c = await
        TableClient.connect(...)``). Raises :class:`TableClosed` when the hello is refused."""
        return _Connecting(cls._open(address, name=name, seat=seat, watch=watch, token=token, server=server,
                                     session=session, timeout=timeout))

    @classmethod
    async def _open(cls, address: str, *, name: str | None, seat: int | None, watch: bool, token: str | None,
                    server: str | None, session: Any, timeout: float) -> TableClient:
        import aiohttp
        base, code, link_token = parse_address(address, server)
        own = session is None
        session = session or aiohttp.ClientSession()
        try:
            ws = await session.ws_connect(websocket_url(base), timeout=aiohttp.ClientWSTimeout(ws_close=timeout))
        except BaseException:
            if own:
                await session.close()
            raise
        client = cls(session, ws, own)
        hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL, "code": code}
        if name is not None:
            hello["name"] = name
        if watch:
            hello["watch"] = True
        elif token or link_token:
            hello["token"] = token or link_token
        elif seat is not None:
            hello["seat"] = seat
        await client.send(hello)
        answer = await client.receive("welcome", "error", timeout=timeout)
        if answer["type"] == "error":
            await client.close()
            raise TableClosed(f"{answer['code']}: {answer['message']}", answer)
        client.welcome = answer
        return client

    # ------------------------------------------------------------------ receiving
    async def _read(self) -> None:
        import aiohttp
        try:
            async for msg in self.ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    data = json.loads(msg.data)
                    self.messages.append(data)
                    self._unread.append(data)
                    if len(self._unread) > MAX_UNREAD:  # (a caller that never asks for some type: the oldest go)
                        del self._unread[0]
                    self._arrived.set()
                elif msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    break
        finally:
            self.closed = True
            self._arrived.set()

    async def receive(self, *types: str, timeout: float = DEFAULT_TIMEOUT_S,
                      where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """The first unread message of one of ``types`` (any type when none is given) for which
        ``where`` holds, waiting for it; the messages it passes over stay unread (a later receive
        finds them; all are in :attr:`messages`). Raises :class:`asyncio.TimeoutError` after
        ``timeout`` seconds, :class:`TableClosed` when the socket closed before such a message came."""
        def wanted(m: dict[str, Any]) -> bool:
            return (not types or m.get("type") in types) and (where is None or where(m))

        async def wait() -> dict[str, Any]:
            while True:
                for i, m in enumerate(self._unread):
                    if wanted(m):
                        del self._unread[i]
                        return m
                if self.closed:
                    raise TableClosed("the server closed the connection")
                self._arrived.clear()
                await self._arrived.wait()
        return await asyncio.wait_for(wait(), timeout)

    @property
    def seat(self) -> int | None:
        return self.welcome.get("seat")

    @property
    def token(self) -> str | None:
        return self.welcome.get("token")

    def last(self, kind: str) -> dict[str, Any] | None:
        """The last message of type ``kind`` received so far."""
        return next((m for m in reversed(self.messages) if m.get("type") == kind), None)

    # ------------------------------------------------------------------ sending
    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(message, ensure_ascii=False))

    async def ask(self, kind: str, timeout: float = DEFAULT_TIMEOUT_S, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh ``id`` and wait for its answer (of type ``kind``) or its error."""
        rid = next(self._ids)
        await self.send({"type": kind, "id": rid, **fields})
        return await self.receive(timeout=timeout, where=lambda m: m.get("id") == rid and m.get("type") in (kind, "error"))

    async def move(self, move: str, at: int | None = None) -> None:
        msg: dict[str, Any] = {"type": "move", "move": move}
        if at is not None:
            msg["at"] = at
        await self.send(msg)

    async def close(self) -> None:
        if not self.ws.closed:
            await self.ws.close()
        self._reader.cancel()
        if self._own:
            await self.session.close()

    async def __aenter__(self) -> TableClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


class _Connecting:
    """``TableClient.connect(...)``: awaitable, or an async context manager that closes the client."""

    def __init__(self, opening: Any) -> None:
        self._opening = opening
        self._client: TableClient | None = None

    def __await__(self) -> Any:
        return self._opening.__await__()

    async def __aenter__(self) -> TableClient:
        self._client = await self._opening
        return self._client

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.close()


__all__ = ["TableClient", "TableClosed", "parse_address", "websocket_url", "DEFAULT_TIMEOUT_S"]
