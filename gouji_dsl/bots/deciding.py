"""Which bot from outside is deciding, for what ends a process while it does (issue 28).

A bot from outside (a ``gouji.bots`` plug-in) runs in the process that plays, so it can end that
process. Two guards, both set up by :func:`deciding` around each of its decisions
(:class:`gouji_dsl.bots.outside.ViewOnly`):

- In the deciding thread, ``os._exit`` (``posix._exit``) raises :class:`ExitCalled` instead of ending
  the process (which would skip every ``finally`` and ``atexit``: a command whose games did not
  finish would exit with the bot's code, 0 as often as not, saying nothing); the door turns it into
  the bot's failure. A bot that took the function before (``from os import _exit``), kills itself with
  a signal or crashes the interpreter is not caught so; in a run's worker the next guard names it.
- In a run's worker process (a process pool's), the bot deciding and its seat are kept in a small
  note, a file of the pool's notes folder mapped into memory (:func:`start_notes`; a write is a copy
  into memory, no system call). When a worker dies on its own (not ended by its pool), the driver
  reads its note (:func:`died_deciding`): the bot that was deciding is named, not "every worker died".
"""
from __future__ import annotations

import json
import mmap
import os
import posix
import re
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

NOTE_BYTES = 1024
"""The size of a worker's note (a bot's spec and seat as JSON, cut to fit)."""

_REAL_EXIT = os._exit
_DECIDING: dict[tuple[int, int], str] = {}  # (process, thread) -> the bot deciding there
_LOCK = threading.Lock()
_NOTE: mmap.mmap | None = None


class ExitCalled(BaseException):
    """``os._exit(code)`` called by a bot while it decides (a BaseException: the bot's own ``except
    Exception`` does not swallow it)."""

    def __init__(self, code: Any):
        super().__init__(code)
        self.code = code


def _exit_in_decision(status: int) -> NoReturn:
    if (os.getpid(), threading.get_ident()) in _DECIDING:  # (a child the bot forked exits for real)
        raise ExitCalled(status)
    _REAL_EXIT(status)


@contextmanager
def deciding(bot: str, seat: int | None) -> Iterator[None]:
    """While ``bot`` decides for ``seat`` in this thread: ``os._exit`` raises :class:`ExitCalled` here,
    and this worker's note names it."""
    key = (os.getpid(), threading.get_ident())
    with _LOCK:
        _DECIDING[key] = bot
        os._exit = posix._exit = _exit_in_decision
    _write_note(json.dumps([bot, seat], ensure_ascii=False))
    try:
        yield
    finally:
        _write_note("")
        with _LOCK:
            _DECIDING.pop(key, None)
            if not _DECIDING:
                os._exit = posix._exit = _REAL_EXIT


# ------------------------------------------------------------------------------ workers' notes
def _note_path(folder: str, pid: int) -> str:
    return os.path.join(folder, f"{pid}.note")


def start_notes(folder: str | None) -> None:
    """A worker's start-up: its note in ``folder`` (the pool's, made by :func:`notes_folder`), a new
    file (never one that is there: a planted name is refused, and the worker keeps no note)."""
    global _NOTE
    if not folder:
        return
    try:
        fd = os.open(_note_path(folder, os.getpid()), os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except OSError:
        return
    try:
        os.ftruncate(fd, NOTE_BYTES)
        _NOTE = mmap.mmap(fd, NOTE_BYTES)
    except (OSError, ValueError):
        _NOTE = None
    finally:
        os.close(fd)


def _write_note(text: str) -> None:
    note = _NOTE
    if note is None:
        return
    data = text.encode("utf-8")[:NOTE_BYTES - 4]
    note[0:4] = b"\0\0\0\0"  # (being written: empty until the length is)
    note[4:4 + len(data)] = data
    note[0:4] = len(data).to_bytes(4, "little")


def _read_note(folder: str, pid: int) -> tuple[str, int | None] | None:
    try:
        with open(_note_path(folder, pid), "rb") as f:
            data = f.read(NOTE_BYTES)
    except OSError:
        return None
    n = int.from_bytes(data[:4], "little") if len(data) >= 4 else 0
    if not 0 < n <= NOTE_BYTES - 4:
        return None
    try:
        bot, seat = json.loads(data[4:4 + n].decode("utf-8"))
    except (ValueError, TypeError):
        return None
    return (str(bot), seat if isinstance(seat, int) else None)


_PREFIX = "gouji-deciding-"


@contextmanager
def notes_folder() -> Iterator[str]:
    """A new private folder for the notes of one pool's workers (``gouji-deciding-PID-…`` in the
    temporary folder), removed afterwards; the folders of drivers that are gone (killed with ``kill -9``:
    no ``finally`` ran) are removed first."""
    remove_stale_folders()
    folder = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def remove_stale_folders(root: str | None = None) -> None:
    """Remove the notes folders in ``root`` (the temporary folder) of processes that are gone: real
    folders (never a symlink followed) of this user, named ``gouji-deciding-PID-…``."""
    root = root or tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        m = re.fullmatch(rf"{_PREFIX}(\d+)-[A-Za-z0-9_]+", name)
        if m is None or _alive(int(m.group(1))):
            continue
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's: alive, not ours to judge)
        return True
    return True


def workers_of(pool: Any) -> list[Any]:
    """The worker processes of a process pool (taken before it is shut down, which forgets them)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def died_deciding(workers: list[Any], folder: str) -> list[tuple[str, int | None, int | None]]:
    """The bots that were deciding in ``workers`` (:func:`workers_of` a broken pool, its workers since
    ended and joined) that died on their own — not ended by the pool (SIGTERM) — as (bot, seat, the
    worker's exit code)."""
    out = []
    for p in workers:
        code = getattr(p, "exitcode", None)
        if code is None or code == -signal.SIGTERM:
            continue
        note = _read_note(folder, p.pid)
        if note is not None:
            out.append((note[0], note[1], code))
    return out


__all__ = ["NOTE_BYTES", "ExitCalled", "deciding", "died_deciding", "notes_folder", "start_notes", "workers_of"]
