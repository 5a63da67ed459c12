"""Reading a file a user named, without trusting it: :func:`read_regular`, the one way every reader of
gouji's file formats (rulesets, scenarios, records, run folders, duel save files) gets a file's bytes.

A named pipe would wait for a writer for ever, ``/dev/zero`` would be read to the end of memory, a
folder is not a file: all are refused before a byte is read. The file is opened without blocking
(``O_NONBLOCK``: a pipe opens at once) and its kind is asked of the open descriptor (``fstat``), so
what is checked is what is read, even if the path is replaced in between."""
from __future__ import annotations

import errno
import os
import stat


class NotRegularFile(OSError):
    """``path`` is a folder, a named pipe, a device or a socket. ``kind`` (also the ``strerror``) says
    which, as a message quotes it: ``a folder``, ``a named pipe, not a regular file`` ..."""

    def __init__(self, path: str, kind: str):
        super().__init__(errno.EINVAL, kind, path)
        self.kind = kind


class FileTooLarge(OSError):
    """``path`` holds more than ``limit`` bytes (``size``: its size, or at least ``limit + 1`` for a
    file that grew while it was read)."""

    def __init__(self, path: str, size: int, limit: int):
        super().__init__(errno.EFBIG, f"{size:,} bytes; at most {limit:,} are read", path)
        self.size, self.limit = size, limit


def kind_of(mode: int) -> str | None:
    """What a file of ``st_mode`` ``mode`` is, as a refusal says it; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them. Raises
    :class:`NotRegularFile`, :class:`FileTooLarge`, or the ``OSError`` of the open or the read (with
    ``path`` as its ``filename``: a read's error has none of its own, ``[Errno 5]`` named no file)."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)  # before the descriptor becomes a file object (which refuses a folder itself)
            kind = kind_of(info.st_mode)
            if kind is not None:
                raise NotRegularFile(name, kind)
            if info.st_size > limit:
                raise FileTooLarge(name, info.st_size, limit)
        except OSError:
            os.close(fd)
            raise
        with open(fd, "rb") as f:
            data = f.read(limit + 1)  # bounded too: a file that grows while it is read, /proc files of size 0
    except OSError as e:
        if e.filename is None:
            e.filename = name
        raise
    if len(data) > limit:
        raise FileTooLarge(name, len(data), limit)
    return data
