"""Atomic file writes: a temporary file in the same folder, fsync, then ``os.replace`` — a save
either happens completely or not at all (used by the editor and by saved game records).

The temporary file is named ``.NAME.gouji-PID-RANDOM.tmp`` beside ``NAME``. A process killed in the
middle of a save (``kill -9``, a power cut) leaves it behind; :func:`remove_stale_temp_files` removes
such leftovers of one target — those whose writing process is gone, or older than
:data:`STALE_TEMP_SECONDS` — and runs at the start of every save of that target (and when the editor
opens it)."""
from __future__ import annotations

import os
import re
import secrets
import stat
import time
from pathlib import Path

STALE_TEMP_SECONDS = 60.0
"""A temporary file of a save older than this is a leftover even if its process id is alive again
(a save takes milliseconds; process ids are reused)."""

_TEMP_TAG = "gouji"


def temp_name(target: str | os.PathLike[str]) -> str:
    """The name of a new temporary file for a save of ``target``: ``.NAME.gouji-PID-RANDOM.tmp``."""
    return f".{Path(target).name}.{_TEMP_TAG}-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def _temp_re(target: Path) -> re.Pattern[str]:
    # ours (with the writing process's id) and the older mkstemp names (.NAME.XXXXXXXX.tmp)
    return re.compile(rf"^\.{re.escape(target.name)}\.(?:{_TEMP_TAG}-(\d+)-[0-9a-f]+|[A-Za-z0-9_]{{8}})\.tmp$")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else (or we cannot tell): leave it to the age rule
    return True


def stale_temp_files(target: str | os.PathLike[str], *, now: float | None = None) -> list[Path]:
    """Temporary files a save of ``target`` left behind: named like :func:`temp_name` (or the older
    ``.NAME.XXXXXXXX.tmp``), in ``target``'s folder, whose writing process is gone or that are older
    than :data:`STALE_TEMP_SECONDS`."""
    t = Path(target)
    pattern = _temp_re(t)
    now = time.time() if now is None else now
    out: list[Path] = []
    try:
        names = os.listdir(t.parent if str(t.parent) else ".")
    except OSError:
        return out
    for name in names:
        m = pattern.match(name)
        if m is None:
            continue
        p = t.parent / name
        try:
            age = now - p.lstat().st_mtime
        except OSError:
            continue
        pid = int(m.group(1)) if m.group(1) else None
        if age > STALE_TEMP_SECONDS or (pid is not None and not _alive(pid)):
            out.append(p)
    return sorted(out)


def remove_stale_temp_files(target: str | os.PathLike[str]) -> list[Path]:
    """Remove :func:`stale_temp_files` of ``target``; the ones removed (a file that cannot be
    removed is left alone)."""
    removed = []
    for p in stale_temp_files(target):
        try:
            p.unlink()
            removed.append(p)
        except OSError:
            pass
    return removed


def atomic_write(path: str | os.PathLike[str], text: str, *, fsync: bool = True) -> bytes:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the bytes written.

    A temporary file is created in the same folder (so the rename never crosses file systems),
    written, flushed and fsynced, given the old file's permissions (or 0644), then renamed over
    ``path`` with ``os.replace``; the folder is fsynced too where the OS allows it. On any error the
    temporary file is removed and the original file is untouched. Leftover temporary files of
    earlier saves of ``path`` that were killed midway are removed first (:func:`remove_stale_temp_files`)."""
    target = Path(path)
    folder = target.parent
    data = text.encode("utf-8")
    remove_stale_temp_files(target)
    tmp = str(folder / temp_name(target))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync and hasattr(os, "O_DIRECTORY"):
        try:
            dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
    return data


__all__ = ["atomic_write", "temp_name", "stale_temp_files", "remove_stale_temp_files", "STALE_TEMP_SECONDS"]
