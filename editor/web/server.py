"""The ``gouji serve`` web server: textual-serve's :class:`Server` with the checks a server on a
user's machine needs (a page on another site must not get an app that reads and writes the user's
files, one client must not exhaust the machine).

- **Who may connect.** Every request must name the served address in its ``Host`` header (a page
  on another site that points its own name at 127.0.0.1, "DNS rebinding", is refused); the page and
  its websocket carry a per-server key (``secrets.token_urlsafe``) that only the address the command
  prints contains; a websocket must come from the served page (its ``Origin``). A refused request
  gets 403 and one line saying why.
- **Bounds.** At most ``max_apps`` apps at once (a websocket over the cap is closed with a reason the
  page shows); the terminal size from the address (``?width=&height=``) and from resize messages is
  clamped to :data:`MAX_COLS` x :data:`MAX_ROWS` (at least :data:`MIN_COLS` x :data:`MIN_ROWS`); a
  websocket message is at most :data:`MAX_MESSAGE_BYTES`; a malformed message is ignored; a page
  sending more than :data:`MESSAGES_PER_S` messages or :data:`BYTES_PER_S` bytes a second is slowed
  (:class:`Throttle`).
- **Reaping.** An app ends when its websocket closes (also a tab closed while the app starts): it
  is asked to quit, its input is closed, and after :data:`STOP_GRACE_S` it is terminated, then
  killed. The server stops every app when it stops.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import secrets
import shlex
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.app_service import AppService
from textual_serve.server import Server

from gouji_dsl.i18n import Language, UnknownLanguage, parse
from gouji_dsl.tools.netguard import Answers, Throttle, _host_port, _is_loopback, _is_wildcard, _url_host

log = logging.getLogger("gouji-serve")

DEFAULT_MAX_APPS = 4
"""Apps (browser tabs) at once unless ``--max-apps`` says otherwise (each app is a ~50 MB process)."""
MAX_COLS, MAX_ROWS = 400, 200
"""The largest terminal an app gets (a larger size asked for is clamped)."""
MIN_COLS, MIN_ROWS = 10, 4
"""The smallest terminal an app gets (a smaller size asked for is clamped)."""
DEFAULT_COLS, DEFAULT_ROWS = 80, 24
"""The terminal size when the address gives none (or one that is not a number)."""
MAX_MESSAGE_BYTES = 256 * 1024
"""The largest websocket message from a browser (a key, a paste or a resize); a larger one closes it."""
MESSAGES_PER_S = 500
"""Messages a websocket may send per second (and at once, in a burst); faster ones wait their turn."""
BYTES_PER_S = 1024 * 1024
"""Bytes a websocket may send per second (and at once); more wait their turn."""
STOP_GRACE_S = 5.0
"""How long an app whose tab went has to quit before it is terminated (and as long again before it is killed)."""
KEY_PARAM = "key"
"""The query parameter of the page's address that carries the server's key."""

def _b64(text: str) -> str:
    """``text`` in a path segment (URL-safe base64, no padding)."""
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def clamp_size(width: Any, height: Any) -> tuple[int, int] | None:
    """The terminal size to give an app for a size asked for (clamped into the bounds), or None
    when either is not a whole number."""
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (width, height)):
        return None
    return min(max(width, MIN_COLS), MAX_COLS), min(max(height, MIN_ROWS), MAX_ROWS)


def _query_int(text: str | None, default: int) -> int:
    if text is None or not (0 < len(text) <= 6) or not text.isascii() or not text.isdigit():
        return default
    return int(text)


class OneLineRefusals(logging.Filter):
    """A malformed HTTP request (aiohttp logs it with its traceback) is one line in the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            first = (str(error.message).strip().splitlines() or [""])[0]
            record.msg, record.args = "gouji serve: refused a malformed request (%s %s)", (error.code, ascii(first)[1:-1][:200])
            record.exc_info, record.exc_text, record.levelno, record.levelname = None, None, logging.WARNING, "WARNING"
        return True


class GoujiAppService(AppService):
    """One tab's app process, started without a shell and always reaped (see the module's docstring)."""

    async def _open_app_process(self, width: int = DEFAULT_COLS, height: int = DEFAULT_ROWS) -> Any:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *shlex.split(self.command), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=environment)
        self._stdin = process.stdin
        return process

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    _stopping: asyncio.Future[None] | None = None

    async def stop(self) -> None:
        """Ask the app to quit, close its input, wait :data:`STOP_GRACE_S`, then terminate, then kill
        it (once: a second call waits for the first; a cancelled caller does not stop it halfway)."""
        await asyncio.shield(self.begin_stop())

    def begin_stop(self) -> asyncio.Future[None]:
        """Start stopping the app (once) and return the future of its end."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        return self._stopping

    async def _stop(self) -> None:
        process, task = self._process, self._task
        self._task = None
        if process is None:
            return
        try:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        except Exception:  # pragma: no cover - the download manager's own bookkeeping
            log.debug("cancelling downloads failed", exc_info=True)
        if process.returncode is None and self._stdin is not None:
            await self.send_meta({"type": "quit"})
            try:
                self._stdin.close()
            except Exception:
                pass
        for ending in (None, process.terminate, process.kill):
            if process.returncode is not None:
                break
            if ending is not None:
                try:
                    ending()
                except ProcessLookupError:
                    break
            try:
                await asyncio.wait_for(process.wait(), STOP_GRACE_S)
            except TimeoutError:
                continue
        if task is not None:
            try:
                await asyncio.wait_for(task, STOP_GRACE_S)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
            except Exception:
                log.debug("the app's output reader failed", exc_info=True)


class GoujiServer(Server):
    """textual-serve's server with Host/Origin/key checks, caps and reaping (see the module's docstring)."""

    def __init__(self, command: str, host: str, port: int, *, title: str = "gouji", public_url: str | None = None,
                 templates_path: str | os.PathLike[str], max_apps: int = DEFAULT_MAX_APPS,
                 secret: str | None = None) -> None:
        default_url = f"http://{_url_host('127.0.0.1' if _is_wildcard(host) else host)}:{port}"
        super().__init__(command, host=host, port=port, title=title, public_url=public_url or default_url,
                         templates_path=templates_path)
        self.explicit_public_url = public_url
        self.secret = secret or secrets.token_urlsafe(24)
        self.max_apps = max_apps
        self.apps: set[GoujiAppService] = set()
        self.answers = Answers(host, port, public_url)

    # -- the address -------------------------------------------------------------------------------
    @property
    def page_url(self) -> str:
        """The address the command prints: the page with this server's key."""
        return f"{self.public_url.rstrip('/')}/?{KEY_PARAM}={self.secret}"

    def listening_lines(self) -> list[str]:
        """What ``gouji serve`` prints when it listens."""
        if _is_loopback(self.host):
            where = f"listening on {_url_host(self.host)}:{self.port}: this machine only (--host 0.0.0.0 serves every network)"
        elif _is_wildcard(self.host):
            where = (f"listening on every network this machine is on, port {self.port} (--host {self.host}): anyone who "
                     f"can reach it and has the address above gets an app")
        else:
            where = f"listening on {_url_host(self.host)}:{self.port} (--host)"
        lines = [f"gouji serve: open {self.page_url}", f"  {where}"]
        if _is_wildcard(self.host) and not self.explicit_public_url:
            lines.append(f"  from another machine: http://{socket.gethostname()}:{self.port}/?{KEY_PARAM}={self.secret} "
                         f"(or this machine's IP address in place of its name)")
        return [
            *lines,
            "  no login: the key in the address is the only pass; anyone with it gets an app that reads and "
            "writes your files as you. A new key each start.",
            f"  at most {self.max_apps} apps at once (--max-apps); Ctrl+C stops the server",
        ]

    def initialize_logging(self) -> None:
        """The server's log on stderr, one line a message (no Rich tracebacks with local variables);
        a malformed request is one line (:class:`OneLineRefusals`)."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.addFilter(OneLineRefusals())
        logging.basicConfig(level="DEBUG" if self.debug else "INFO", handlers=[handler], force=True)

    async def on_startup(self, app: web.Application) -> None:
        print("\n".join(self.listening_lines()), flush=True)

    async def on_shutdown(self, app: web.Application) -> None:
        await asyncio.gather(*(a.stop() for a in list(self.apps)), return_exceptions=True)
        self.apps.clear()

    # -- the checks --------------------------------------------------------------------------------
    def _default_port(self, request: web.Request) -> int:
        return 443 if request.scheme == "https" else 80

    @web.middleware
    async def _check_host(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not self.answers(request.headers.get("Host"), self._default_port(request)):
            raise web.HTTPForbidden(text=(
                f"gouji serve: refused: this server answers to {self._answers_to()} only, not to the Host "
                f"{request.headers.get('Host', '(none)')!r} (a page of another site can point its own name "
                f"at this machine); use --public-url when browsers reach it by another name\n"))
        response: web.StreamResponse = await handler(request)
        return response

    def _answers_to(self) -> str:
        if _is_wildcard(self.host):
            return f"this machine's IP addresses and names, port {self.port}" + (
                f", and {self.explicit_public_url}" if self.explicit_public_url else "")
        return self.public_url

    def _check_key(self, given: str | None) -> None:
        if not given:
            raise web.HTTPForbidden(text=(
                f"gouji serve: refused: this address has no key; open the address gouji serve printed "
                f"({self.public_url}/?{KEY_PARAM}=...)\n"))
        if not secrets.compare_digest(given.encode("utf-8", "surrogatepass"), self.secret.encode("ascii")):
            raise web.HTTPForbidden(text=(
                "gouji serve: refused: the key in this address is not this server's (each start of gouji "
                "serve prints a new one): open the address it printed\n"))

    def _origin(self, url: str) -> tuple[str, str, int] | None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.path not in ("", "/") or parts.query or parts.fragment:
            return None
        hp = _host_port(parts.netloc, 443 if parts.scheme == "https" else 80)
        return None if hp is None else (parts.scheme, *hp)

    def _check_origin(self, request: web.Request) -> None:
        """The websocket must come from this server's page: its Origin is the address the page was
        loaded from (the scheme and the Host of this request), or the ``--public-url``."""
        origin = request.headers.get("Origin")
        host = request.headers.get("Host", "")
        if self.explicit_public_url and self.answers.is_public(host):
            public = urlsplit(self.explicit_public_url)  # its scheme and host (a path prefix is not part of an origin)
            page = self._origin(f"{public.scheme}://{public.netloc}")
        else:
            page = self._origin(f"{request.scheme}://{host}")
        if not origin or page is None or self._origin(origin) != page:
            raise web.HTTPForbidden(text=(
                f"gouji serve: refused: a websocket from {origin or 'a page without an Origin'!s}, not from "
                f"this server's page ({self.public_url})\n"))

    # -- the routes --------------------------------------------------------------------------------
    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._check_host], client_max_size=64 * 1024)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{key}", self.handle_websocket, name="websocket"),
            web.get("/ws/{key}/{lang}", self.handle_websocket, name="websocket-lang"),
            web.get("/ws/{key}/join/{table}", self.handle_websocket, name="websocket-join"),
            web.get("/ws/{key}/{lang}/join/{table}", self.handle_websocket, name="websocket-lang-join"),
            web.get("/ws", self.handle_websocket, name="websocket-without-key"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, show_index=False, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def _base_url(self, request: web.Request) -> str:
        if self.explicit_public_url:
            return self.explicit_public_url.rstrip("/")
        # the Host header checked above: the name the browser used (not request.host, which an absolute-form
        # request line 'GET http://evil.example/ HTTP/1.1' sets to a name that was never checked)
        return f"{request.scheme}://{request.headers.get('Host', '')}"

    @staticmethod
    def _language(value: str | None) -> Language | None:
        """The language a page's address asks for (``&lang=zh``), or None; another value is refused."""
        if value is None:
            return None
        try:
            return parse(value, "lang")
        except UnknownLanguage as e:
            raise web.HTTPBadRequest(text=f"gouji serve: refused: {ascii(e.value)[1:-1][:40]} is no language "
                                          f"(lang= takes one of: {', '.join(lang.value for lang in Language)})\n") from None

    @staticmethod
    def _table(value: str | None) -> str | None:
        """The club table a page's address asks its tab to join (``&join=K7QM``, or a table's room or
        seat link: issue 27), as the link ``gouji join`` takes; another value is refused (400)."""
        if value is None:
            return None
        from ..play.remote import AddressError, parse_address
        try:
            return parse_address(value).link
        except AddressError as e:
            raise web.HTTPBadRequest(text=f"gouji serve: refused: join= {ascii(str(e))[1:-1][:160]}\n") from None

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        self._check_key(request.query.get(KEY_PARAM))
        lang = self._language(request.query.get("lang"))
        table = self._table(request.query.get("join"))
        base = self._base_url(request)
        ws_base = ("wss:" if base.startswith("https:") else "ws:") + base.split(":", 1)[1]
        font_size = min(max(_query_int(request.query.get("fontsize"), 16), 6), 64)
        context = {
            "font_size": font_size,
            "app_websocket_url": f"{ws_base}/ws/{self.secret}" + (f"/{lang.value}" if lang is not None else "")
            + (f"/join/{_b64(table)}" if table is not None else ""),
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"  # the key stays out of other sites' logs
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._check_origin(request)
        self._check_key(request.match_info.get("key"))
        lang = self._language(request.match_info.get("lang"))
        command = self.command if lang is None else f"{self.command} --lang {lang.value}"  # (the last --lang wins)
        carried = request.match_info.get("table")
        if carried is not None:  # the tab joins a club table: `gouji join LINK` (the link checked again here)
            try:
                link = self._table(base64.urlsafe_b64decode(carried + "=" * (-len(carried) % 4)).decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                raise web.HTTPBadRequest(text="gouji serve: refused: the table in the address does not read\n") from None
            command += f" join {shlex.quote(str(link))}"
        width, height = clamp_size(_query_int(request.query.get("width"), DEFAULT_COLS),
                                   _query_int(request.query.get("height"), DEFAULT_ROWS)) or (DEFAULT_COLS, DEFAULT_ROWS)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
        await websocket.prepare(request)
        if len(self.apps) >= self.max_apps:
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=(
                f"gouji serve: {len(self.apps)} apps are open (--max-apps {self.max_apps}): close a tab, "
                f"then Restart").encode()[:123])
            return websocket

        async def write_bytes(data: bytes) -> None:
            if not websocket.closed:
                try:
                    await websocket.send_bytes(data)
                except ConnectionError:
                    pass

        async def write_str(data: str) -> None:
            if not websocket.closed:
                try:
                    await websocket.send_str(data)
                except ConnectionError:
                    pass

        async def close() -> None:
            await websocket.close()

        service = GoujiAppService(command, write_bytes=write_bytes, write_str=write_str, close=close,
                                  download_manager=self.download_manager, debug=self.debug)
        self.apps.add(service)
        try:
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except Exception as error:  # an app that cannot start: the server goes on serving the others
            log.error("gouji serve: an app failed: %s: %s", type(error).__name__, error)
        finally:
            # the app is stopped to its end even when this handler is cancelled (aiohttp cancels it when the
            # tab's connection drops); it leaves the count when it has ended
            stopping = service.begin_stop()
            stopping.add_done_callback(lambda _: self.apps.discard(service))
            try:
                await asyncio.shield(stopping)
            finally:
                if not websocket.closed:
                    await websocket.close()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """Relay the page's messages to the app; a message that is not one of the page's is ignored."""
        messages, volume = Throttle(MESSAGES_PER_S, MESSAGES_PER_S), Throttle(BYTES_PER_S, BYTES_PER_S)
        async for message in websocket:
            size = len(message.data) if isinstance(message.data, (str, bytes)) else 0
            wait = max(messages.delay(1), volume.delay(size))
            if wait > 0:
                await asyncio.sleep(wait)
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):  # not JSON, or arrays nested deeper than the decoder goes
                continue
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                continue
            kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                clamped = clamp_size(data.get("width"), data.get("height"))
                if clamped is not None:
                    await app_service.set_terminal_size(*clamped)
            elif kind == "ping" and isinstance(data, str) and len(data) <= 64:
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()


__all__ = ["GoujiServer", "GoujiAppService", "Answers", "Throttle", "OneLineRefusals", "clamp_size", "DEFAULT_MAX_APPS", "MAX_COLS", "MAX_ROWS",
           "MIN_COLS", "MIN_ROWS", "MAX_MESSAGE_BYTES", "STOP_GRACE_S", "KEY_PARAM"]
