"""File safety for the editor: atomic saves, change detection and crash-recovery copies.

Nothing here knows about Textual, so it is tested directly.

- :func:`atomic_write` writes a temporary file in the target's folder, fsyncs it and renames it over
  the target (``os.replace``), so a reader sees either the old file or the new one, never half of it.
- :class:`DiskState` remembers what a file looked like when it was opened or last saved, so a save
  can refuse to silently overwrite a file that something else changed since.
- Recovery copies: while a buffer has unsaved changes the editor writes it to ``FILE.recovery`` beside
  the file (``*.recovery`` is git-ignored) or, when that folder is not writable, to a per-user cache
  folder. The copy is removed when the buffer is saved or explicitly discarded, and offered back when
  the file is opened again.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from gouji_dsl.atomic import atomic_write

RECOVERY_SUFFIX = ".recovery"


def read_text(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """The text of ``path`` (UTF-8, a BOM dropped, line endings kept as written) and its raw bytes.

    Raises ``OSError`` when the file cannot be read and ``UnicodeDecodeError`` when it is not UTF-8."""
    data = Path(path).read_bytes()
    text = data.decode("utf-8-sig")
    return text, data


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class DiskState:
    """What a file looked like on disk: ``None`` digest when it did not exist."""

    digest: str | None
    mtime_ns: int = 0
    size: int = -1

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> DiskState:
        """The current state of ``path`` (reads and hashes the file)."""
        try:
            st = os.stat(path)
            data = Path(path).read_bytes()
        except FileNotFoundError:
            return cls(None)
        return cls(digest(data), st.st_mtime_ns, st.st_size)

    @classmethod
    def from_bytes(cls, path: str | os.PathLike[str], data: bytes) -> DiskState:
        """The state after ``data`` was read from / written to ``path``."""
        try:
            st = os.stat(path)
            return cls(digest(data), st.st_mtime_ns, st.st_size)
        except OSError:
            return cls(digest(data))

    def quick_same(self, path: str | os.PathLike[str]) -> bool:
        """True when ``path``'s size and mtime are unchanged (cheap; no read)."""
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return self.digest is None
        return (st.st_mtime_ns, st.st_size) == (self.mtime_ns, self.size)

    def changed_on_disk(self, path: str | os.PathLike[str]) -> bool:
        """True when the file's content is no longer what this state recorded."""
        if self.quick_same(path):
            return False
        return DiskState.of(path).digest != self.digest


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gouji" / "recovery"


def _cache_recovery_path(path: Path) -> Path:
    key = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:16]
    return _cache_dir() / f"{path.name}.{key}{RECOVERY_SUFFIX}"


def recovery_candidates(path: str | os.PathLike[str]) -> list[Path]:
    """Where a recovery copy of ``path`` may be: beside it, then in the cache folder."""
    p = Path(path)
    return [p.with_name(p.name + RECOVERY_SUFFIX), _cache_recovery_path(p)]


def recovery_path(path: str | os.PathLike[str]) -> Path:
    """Where to write the recovery copy of ``path``: beside it when that folder is writable."""
    beside, cached = recovery_candidates(path)
    folder = beside.parent
    if folder.is_dir() and os.access(folder, os.W_OK):
        return beside
    return cached


@dataclass(frozen=True)
class Recovery:
    """A recovery copy found on disk."""

    path: Path
    text: str
    saved_at: float  # seconds since the epoch

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))


def write_recovery(path: str | os.PathLike[str], text: str) -> Path:
    """Write the unsaved ``text`` of ``path`` to its recovery copy (atomically) and return where."""
    where = recovery_path(path)
    where.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(where, text, fsync=False)
    return where


def find_recovery(path: str | os.PathLike[str]) -> Recovery | None:
    """The newest readable recovery copy of ``path``, or None."""
    found: list[Recovery] = []
    for cand in recovery_candidates(path):
        try:
            text, _ = read_text(cand)
            found.append(Recovery(cand, text, cand.stat().st_mtime))
        except (OSError, UnicodeDecodeError):
            continue
    return max(found, key=lambda r: r.saved_at) if found else None


def remove_recovery(path: str | os.PathLike[str]) -> None:
    """Delete every recovery copy of ``path`` (missing ones are fine)."""
    for cand in recovery_candidates(path):
        try:
            cand.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass
