"""File safety for the editor: atomic saves, change detection and crash-recovery copies.

Nothing here knows about Textual, so it is tested directly.

- :func:`atomic_write` writes a temporary file in the target's folder, fsyncs it and renames it over
  the target (``os.replace``), so a reader sees either the old file or the new one, never half of it.
- :class:`DiskState` remembers what a file looked like when it was opened or last saved, so a save
  can refuse to silently overwrite a file that something else changed since.
- Recovery copies: while a buffer has unsaved changes the editor writes it to its own copy,
  ``FILE.recovery`` (or ``FILE.2.recovery``... when an older copy is still waiting) beside the file
  (``*.recovery`` is git-ignored) or, when that folder is not writable, in a per-user cache folder.
  A copy is removed only when its editor saves or drops its changes, when the user discards it, or
  when it holds exactly the file's text; every other copy is offered back (with a diff) each time
  the file is opened.
"""
from __future__ import annotations

import difflib
import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from gouji_dsl.atomic import atomic_write, remove_stale_temp_files
from gouji_dsl.readfile import read_regular
from gouji_dsl.ruleset.load.reading import MAX_FILE_CHARS

MAX_READ_BYTES = 4 * MAX_FILE_CHARS
"""The largest file the editor opens: what the loader reads of a ruleset (UTF-8 takes at most 4 bytes a character)."""

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; recovery copies are not locked
    fcntl = None  # type: ignore[assignment]

RECOVERY_SUFFIX = ".recovery"


def read_text(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """The text of ``path`` (UTF-8, a BOM dropped, line endings kept as written) and its raw bytes.

    Raises ``OSError`` when the file cannot be read and ``UnicodeDecodeError`` when it is not UTF-8.
    Temporary files a killed save of ``path`` left behind are removed (:func:`remove_stale_temp_files`).
    Read as every file a user names is (:func:`gouji_dsl.readfile.read_regular`): a named pipe (it
    waited for a writer, the app frozen), a device or a file larger than a ruleset may be is refused
    with an ``OSError`` that says so."""
    data = read_regular(path, MAX_READ_BYTES)
    remove_stale_temp_files(path)
    text = data.decode("utf-8-sig")
    return text, data


class SaveProblem(Exception):
    """Why a save cannot go ahead before anything is written: the target is a folder, a link
    that loops, ... (``str()`` is the message for the user)."""


def save_target(path: str | os.PathLike[str]) -> Path:
    """The file a save of ``path`` writes: ``path`` itself, or, when ``path`` is a symbolic link
    (a chain of them), the file it points to — a save writes through the link and keeps it a
    link. Raises :class:`SaveProblem` when the link loops or the target is a folder."""
    p = Path(path)
    try:
        target = Path(os.path.realpath(p, strict=False))
    except (OSError, RuntimeError) as e:  # pragma: no cover - realpath(strict=False) rarely raises
        raise SaveProblem(f"{p} cannot be resolved: {e}") from None
    if p.is_symlink():
        try:
            os.stat(p)
        except FileNotFoundError:
            pass  # a dangling link: the save creates the file it names
        except OSError as e:  # ELOOP: a link that points to itself, round and round
            raise SaveProblem(f"{p} is a link that cannot be followed ({e.strerror or e})") from None
    if target.is_dir():
        raise SaveProblem(f"{p} is now a folder" + (f" ({target})" if target != p.absolute() else ""))
    return target


def is_read_only(path: str | os.PathLike[str]) -> bool:
    """True when the file ``path`` names exists and nobody may write it (no write permission bit),
    or this process may not (``os.access``). (Root may write any file: the permission bits say
    what the file's owner meant.)"""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not (st.st_mode & 0o222) or not os.access(path, os.W_OK)


def save_text(path: str | os.PathLike[str], text: str) -> bytes:
    """Save ``text`` over the file ``path`` names, atomically (:func:`atomic_write`), through a
    symbolic link to its target (:func:`save_target`; the link stays a link) and with the file's
    permissions kept. Raises :class:`SaveProblem` or ``OSError`` (nothing was changed then)."""
    return atomic_write(save_target(path), text)


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
        """The current state of ``path`` (reads and hashes the file). A path that is no longer a
        file one can read (a folder now, a looping link, no permission) has a digest naming why,
        so it counts as changed and nothing raises."""
        try:
            st = os.stat(path)
            if stat.S_ISDIR(st.st_mode):
                return cls("<a folder>", st.st_mtime_ns, -2)
            data = read_regular(path, MAX_READ_BYTES)  # a file turned into a named pipe froze the app
        except FileNotFoundError:
            return cls(None)
        except OSError as e:
            return cls(f"<unreadable: {e.strerror or e}>")
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
        except OSError:
            return False
        return (st.st_mtime_ns, st.st_size) == (self.mtime_ns, self.size)

    def changed_on_disk(self, path: str | os.PathLike[str]) -> bool:
        """True when the file's content is no longer what this state recorded."""
        if self.quick_same(path):
            return False
        return DiskState.of(path).digest != self.digest


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gouji" / "recovery"


def _cache_stem(path: Path) -> str:
    key = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:16]
    return f"{path.name}.{key}"


def _slots(folder: Path, stem: str) -> list[Path]:
    """Recovery copies named ``STEM.recovery`` or ``STEM.N.recovery`` in ``folder``."""
    if not folder.is_dir():
        return []
    pattern = re.compile(re.escape(stem) + r"(?:\.(\d+))?" + re.escape(RECOVERY_SUFFIX) + "$")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [folder / n for n in names if pattern.match(n)]


def recovery_candidates(path: str | os.PathLike[str]) -> list[Path]:
    """Every recovery copy of ``path`` on disk: beside it (``FILE.recovery``, ``FILE.2.recovery``, ...)
    and in the per-user cache folder."""
    p = Path(path).absolute()
    return sorted(_slots(p.parent, p.name)) + sorted(_slots(_cache_dir(), _cache_stem(p)))


def _writable_folder(path: Path) -> tuple[Path, str]:
    folder = path.parent
    if folder.is_dir() and os.access(folder, os.W_OK):
        return folder, path.name
    return _cache_dir(), _cache_stem(path)


def new_recovery_slot(path: str | os.PathLike[str]) -> Path:
    """A recovery file name for ``path`` that no copy uses yet: ``FILE.recovery``, else
    ``FILE.2.recovery``, ``FILE.3.recovery``... (beside the file when its folder is writable, else
    in the cache folder). Each editor session writes to its own slot, so a copy that was not
    restored or discarded (the recovery dialog's "Later") is never overwritten."""
    folder, stem = _writable_folder(Path(path).absolute())
    first = folder / f"{stem}{RECOVERY_SUFFIX}"
    if not first.exists():
        return first
    n = 2
    while (folder / f"{stem}.{n}{RECOVERY_SUFFIX}").exists():
        n += 1
    return folder / f"{stem}.{n}{RECOVERY_SUFFIX}"


def recovery_path(path: str | os.PathLike[str]) -> Path:
    """Where the first recovery copy of ``path`` goes (``FILE.recovery`` when its folder is writable)."""
    folder, stem = _writable_folder(Path(path).absolute())
    return folder / f"{stem}{RECOVERY_SUFFIX}"


@dataclass(frozen=True)
class Recovery:
    """A recovery copy found on disk."""

    path: Path
    text: str
    saved_at: float  # seconds since the epoch

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))


def write_recovery(path: str | os.PathLike[str], text: str, slot: str | os.PathLike[str] | None = None) -> Path:
    """Write the unsaved ``text`` of ``path`` to the recovery copy ``slot`` (default: a fresh one from
    :func:`new_recovery_slot`), atomically, and return where."""
    where = Path(slot) if slot is not None else new_recovery_slot(path)
    where.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(where, text, fsync=False)
    return where


def find_recoveries(path: str | os.PathLike[str]) -> list[Recovery]:
    """Every readable recovery copy of ``path``, newest first."""
    found: list[Recovery] = []
    for cand in recovery_candidates(path):
        try:
            text, _ = read_text(cand)
            found.append(Recovery(cand, text, cand.stat().st_mtime))
        except (OSError, UnicodeDecodeError):
            continue
    return sorted(found, key=lambda r: (-r.saved_at, str(r.path)))


def find_recovery(path: str | os.PathLike[str]) -> Recovery | None:
    """The newest readable recovery copy of ``path``, or None."""
    found = find_recoveries(path)
    return found[0] if found else None


class CopyLock:
    """Held by the live editor that writes a recovery copy, for as long as it is its copy: another
    editor of the same file (a second terminal) does not offer that copy as left by a crash, nor
    discard it. An advisory lock (``flock``) on a file in the per-user cache folder, so the OS drops
    it when the process ends, crash or not. Where ``flock`` does not exist, nothing is locked."""

    def __init__(self, copy: str | os.PathLike[str]) -> None:
        self.copy = Path(copy)
        self._fd: int | None = None
        if fcntl is None:
            return
        try:
            where = _lock_path(self.copy)
            where.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(where, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _lock_path(copy: Path) -> Path:
    key = hashlib.sha1(str(copy.absolute()).encode("utf-8")).hexdigest()[:16]
    return _cache_dir().parent / "recovery-locks" / f"{key}.lock"


def copy_in_use(copy: str | os.PathLike[str]) -> bool:
    """True when a live editor holds ``copy`` (:class:`CopyLock`)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(_lock_path(Path(copy)), os.O_RDWR)
    except OSError:
        return False  # never locked
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def remove_recovery_copy(copy: str | os.PathLike[str] | None) -> None:
    """Delete one recovery copy (a missing one is fine)."""
    if copy is None:
        return
    try:
        Path(copy).unlink()
    except OSError:
        pass


def remove_recovery(path: str | os.PathLike[str]) -> None:
    """Delete every recovery copy of ``path`` (missing ones are fine). The editor removes only its
    own copy (:func:`remove_recovery_copy`); this is for tools and tests."""
    for cand in recovery_candidates(path):
        remove_recovery_copy(cand)


def recovery_diff(saved: str, recovered: str, name: str = "file", context: int = 2) -> list[str]:
    """The unified diff from the file's text to the recovered text (lines without newlines)."""
    return [ln.rstrip("\n") for ln in difflib.unified_diff(
        saved.splitlines(keepends=True), recovered.splitlines(keepends=True),
        fromfile=f"{name} (on disk)", tofile=f"{name} (recovered)", n=context)]
