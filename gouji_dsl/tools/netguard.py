"""Checks a server on a user's machine needs, shared by ``gouji serve`` (editor/web/server.py) and
``gouji host`` (:mod:`gouji_dsl.tools.table`): which ``Host`` headers name the server (a page of
another site that points its own name at 127.0.0.1, "DNS rebinding", is refused) and a token bucket
for a connection's messages. No aiohttp here."""
from __future__ import annotations

import errno
import ipaddress
import socket
import time
from typing import Any
from urllib.parse import urlsplit

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def _host_port(netloc: str, default_port: int) -> tuple[str, int] | None:
    """``("name", port)`` of a ``Host`` header or an address's ``host[:port]`` (lower case, IPv6
    without brackets), or None when it is not one."""
    try:
        parts = urlsplit("//" + netloc)
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.username is not None or parts.password is not None or parts.path or parts.query:
        return None
    return name.lower().rstrip("."), default_port if port is None else port


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class Answers:
    """Which ``Host`` headers name this server: the address it listens on (for 127.0.0.1 also
    ``localhost`` and ``::1``; for every network, any IP address and this machine's names) and the
    ``--public-url``'s host."""

    def __init__(self, host: str, port: int, public_url: str | None) -> None:
        self.port = port
        self.wildcard = _is_wildcard(host)
        self.names: set[tuple[str, int]] = set()
        if _is_loopback(host):
            self.names |= {(n, port) for n in _LOOPBACK_NAMES}
        elif self.wildcard:
            self.names |= {(n, port) for n in _LOOPBACK_NAMES}
            for name in {socket.gethostname(), socket.getfqdn()}:
                if name:
                    self.names.add((name.lower().rstrip("."), port))
        else:
            self.names.add((host.lower(), port))
        self.public: tuple[str, int] | None = None
        self.public_default_port = False
        if public_url:
            parts = urlsplit(public_url)
            default = 443 if parts.scheme == "https" else 80
            self.public = _host_port(parts.netloc, default)
            self.public_default_port = self.public is not None and self.public[1] == default

    def is_public(self, host_header: str | None) -> bool:
        """``host_header`` names the ``--public-url``'s host (without a port when that is its scheme's
        default: a proxy that ends TLS forwards ``Host: name`` over plain HTTP)."""
        if self.public is None or not host_header:
            return False
        hp = _host_port(host_header, -1)
        if hp is None or hp[0] != self.public[0]:
            return False
        return hp[1] == self.public[1] or (hp[1] == -1 and self.public_default_port)

    def __call__(self, host_header: str | None, default_port: int = 80) -> bool:
        if not host_header:
            return False
        hp = _host_port(host_header, default_port)
        if hp is None:
            return False
        if hp in self.names or self.is_public(host_header):
            return True
        return self.wildcard and hp[1] == self.port and _is_ip(hp[0])  # an IP address cannot be rebound


class Throttle:
    """A token bucket: ``rate`` units a second, at most ``burst`` at once. :meth:`delay` spends a
    cost and says how long to wait before it may go (the page's next messages wait in its
    connection meanwhile: slowed, never dropped)."""

    def __init__(self, rate: float, burst: float, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.last = burst, clock()

    def delay(self, cost: float) -> float:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate) - cost
        self.last = now
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


class CannotListen(RuntimeError):
    """The address or port given to ``gouji serve`` or ``gouji host`` cannot be listened on (a user's error, said in one line)."""


def check_listen(host: str, port: int, command: str = "gouji serve") -> None:
    """Raise :class:`CannotListen` when ``host``:``port`` cannot be listened on: an unknown address,
    an address of another machine, or a port in use (bound the way the server binds it, with
    SO_REUSEADDR, then released)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise CannotListen(f"cannot listen on {host!r}: {e.strerror} (--host takes an address of this "
                           f"machine: 127.0.0.1 for this machine only, 0.0.0.0 for every network)") from None
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(addr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise CannotListen(f"port {port} on {host} is in use (another {command}?): "
                                       f"pick another with --port") from None
                raise CannotListen(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


__all__ = ["Answers", "Throttle", "CannotListen", "check_listen"]
