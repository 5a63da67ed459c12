"""The text of ruleset files, for the source line under a caret: read once per version of a file
(cached by path and modification time), or the unsaved text the editor lays over a file while a
ruleset compiles (:func:`overlaid`), so that error lines show the buffer rather than the file.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from gouji_dsl import resources
from gouji_dsl.diagnostics import line_of

_overlay: dict[str, str] = {}
_overlay_lock = threading.Lock()


@functools.lru_cache(maxsize=64)
def _read_cached(path: str, mtime: float) -> str:
    return Path(path).read_text(encoding="utf-8")


def source_text(path: str) -> str:
    """The text of the file ``path`` (the overlaid text while :func:`overlaid` lays one over it).
    Raises OSError when it cannot be read."""
    if path in _overlay:
        return _overlay[path]
    p = Path(path)
    return _read_cached(str(p), p.stat().st_mtime)


def source_line(path: str, line: int) -> str | None:
    """Line ``line`` (1-based) of the file ``path``, or None when there is none or it cannot be read."""
    try:
        return line_of(source_text(path), line)
    except OSError:
        return None


@contextmanager
def overlaid(overlay: Mapping[str, str]) -> Iterator[None]:
    """While the block runs, the text of each path of ``overlay`` is the text given (one block at a time)."""
    with _overlay_lock:
        _overlay.update(overlay)
        try:
            yield
        finally:
            for k in overlay:
                _overlay.pop(k, None)


def short_path(path: str) -> str:
    """A file as every citation shows it (:func:`gouji_dsl.resources.display_path`: a bundled file as
    ``<bundled>/NAME.yaml`` in the active language, not a path into site-packages)."""
    return resources.display_path(path)
