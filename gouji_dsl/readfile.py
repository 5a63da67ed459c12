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

from gouji_dsl.i18n import N_, _


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
        return N_("a folder")
    if stat.S_ISFIFO(mode):
        return N_("a named pipe, not a regular file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return N_("a device, not a regular file")
    if stat.S_ISSOCK(mode):
        return N_("a socket, not a regular file")
    return N_("not a regular file")


#: the operating system's reasons a file cannot be read or written, in our words (its own ``strerror``
#: is English whatever the language): by ``errno``
_OS_REASONS = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"),
    errno.EISDIR: N_("a folder"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.ENOSPC: N_("no space left on the device"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EEXIST: N_("the file exists already"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.ELOOP: N_("too many symbolic links"),
    errno.EIO: N_("input/output error"),
}

#: why bytes are not UTF-8 (``UnicodeDecodeError.reason``), in our words
_DECODE_REASONS = {
    "invalid start byte": N_("a byte that cannot start a character"),
    "invalid continuation byte": N_("a character cut short by another byte"),
    "unexpected end of data": N_("the file ends inside a character"),
}


def os_reason(e: BaseException) -> str:
    """Why ``e`` (an ``OSError``, a :class:`NotRegularFile`, a ``UnicodeDecodeError``) stopped a read or
    a write, in the active language: the operating system's English ``strerror`` said in our words
    (an unknown one as it says it)."""
    if isinstance(e, NotRegularFile):
        return _(e.kind)
    if isinstance(e, UnicodeDecodeError):
        known = _DECODE_REASONS.get(e.reason)
        return _(known) if known else e.reason
    if isinstance(e, OSError) and e.errno in _OS_REASONS:
        return _(_OS_REASONS[e.errno])
    return getattr(e, "strerror", None) or str(e)


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
