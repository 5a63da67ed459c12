"""Atomic file writes: a temporary file in the same folder, fsync, then ``os.replace`` — a save
either happens completely or not at all (used by the editor and by saved game records)."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: str | os.PathLike[str], text: str, *, fsync: bool = True) -> bytes:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the bytes written.

    A temporary file is created in the same folder (so the rename never crosses file systems),
    written, flushed and fsynced, given the old file's permissions (or 0644), then renamed over
    ``path`` with ``os.replace``; the folder is fsynced too where the OS allows it. On any error the
    temporary file is removed and the original file is untouched."""
    target = Path(path)
    folder = target.parent
    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
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


# ------------------------------------------------------------------------------ recovery copies
