"""The app in a browser: ``gouji serve`` (textual-serve, the optional ``[web]`` extra) and browser
downloads for what the app exports.

Each browser tab that opens the page gets its own ``gouji`` process (textual-serve starts the
command below per connection and relays the terminal over a websocket). The page is textual-serve's
own, with the terminal font served locally: see ``app_index.html`` in this folder for the fonts the
Chinese terms need.
"""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from gouji_dsl.tools.netguard import CannotListen, check_listen

TEMPLATES = Path(__file__).parent
"""The folder of the page template (``app_index.html``)."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class WebExtraMissing(RuntimeError):
    """textual-serve is not installed."""

    def __init__(self) -> None:
        super().__init__("gouji serve needs the web extra: pip install 'gouji-dsl[web]' (textual-serve)")


def app_command(workspace: str | os.PathLike[str] | None = None, lang: str | None = None) -> str:
    """The shell command textual-serve runs for each browser tab: this Python running the gouji app
    (in the language ``lang``, a :class:`gouji_dsl.i18n.Language` code, when given)."""
    parts = [sys.executable, "-m", "gouji_app"]
    if lang is not None:
        parts += ["--lang", str(lang)]
    if workspace is not None:
        parts += ["--workspace", os.fspath(Path(workspace).absolute())]
    return " ".join(shlex.quote(p) for p in parts)


def make_server(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workspace: str | os.PathLike[str] | None = None,
                public_url: str | None = None, max_apps: int | None = None, secret: str | None = None,
                lang: str | None = None) -> Any:
    """A :class:`gouji_app.web.server.GoujiServer` (textual-serve's server with the Host, Origin and
    key checks, the caps and the reaping of ``gouji serve``) for the gouji app (raises
    :class:`WebExtraMissing`). ``secret``: the key the page's address must carry (default: a new
    unguessable one); ``lang``: the language of the apps (default: what each app resolves from the
    server's environment)."""
    try:
        import textual_serve.server  # noqa: F401
    except ImportError as e:
        raise WebExtraMissing() from e
    from .server import DEFAULT_MAX_APPS, GoujiServer
    return GoujiServer(app_command(workspace, lang), host=host, port=port, title="gouji", public_url=public_url,
                       templates_path=str(TEMPLATES), max_apps=DEFAULT_MAX_APPS if max_apps is None else max_apps,
                       secret=secret)


def offer_download(app: Any, path: str | os.PathLike[str], mime_type: str | None = None) -> bool:
    """When ``app`` runs in a browser (``gouji serve``), send the file at ``path`` to the browser as
    a download and return True; in a terminal, do nothing (the file is already where it was saved)."""
    if not getattr(app, "is_web", False):
        return False
    p = Path(path)
    app.deliver_binary(p, save_filename=p.name, mime_type=mime_type)
    return True


__all__ = ["CannotListen", "check_listen",
           "make_server", "app_command", "offer_download", "WebExtraMissing", "DEFAULT_HOST", "DEFAULT_PORT", "TEMPLATES"]
