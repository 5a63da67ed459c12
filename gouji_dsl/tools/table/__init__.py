"""The club table (issue 27): ``gouji host`` holds tables of any ruleset that people join with
``gouji join`` and bots fill; the protocol is docs/table-protocol.md.

- :mod:`.protocol` — the protocol's words: error codes, limits, codes and tokens, what a seat may see.
- :mod:`.seatview` — the ``why`` answer from the asking seat's view (the reads of hidden cards watched).
- :mod:`.game` — one table without the network: seats, the match, the one move path, bots, the record.
- :mod:`.server` — the aiohttp server (needs aiohttp: the ``web`` extra).
- :mod:`.client` — a small client (the tests' players; a base for ``gouji join``).

aiohttp is imported only by :mod:`.server` and :mod:`.client`; :func:`require_aiohttp` says how to
install it when it is missing.
"""
from __future__ import annotations


class WebExtraMissing(RuntimeError):
    """aiohttp is not installed."""

    def __init__(self) -> None:
        super().__init__("gouji host needs aiohttp, which the web extra brings: pip install 'gouji-dsl[web]'")


def require_aiohttp() -> None:
    """Raise :class:`WebExtraMissing` unless aiohttp can be imported."""
    try:
        import aiohttp  # noqa: F401
    except ImportError as e:
        raise WebExtraMissing() from e


__all__ = ["WebExtraMissing", "require_aiohttp"]
