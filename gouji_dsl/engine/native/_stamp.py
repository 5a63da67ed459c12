"""The fingerprint of the native core's C sources (``*.c`` and ``*.h`` beside this file).

``setup.py`` compiles it into the core (``_core.SOURCE_HASH``); the package compares it with the
sources it ships. A core built from other sources (a checkout whose C files changed after the last
build) would read the tables Python writes with another layout, so it is not used, and the reason
says to rebuild it. Standard library only: ``setup.py`` loads this file before the package exists.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

SUFFIXES = (".c", ".h")


def source_hash(folder: Path | None = None) -> str | None:
    """SHA-256 over the names and bytes of the C sources in ``folder`` (this file's folder), in
    name order; None when there are none (a package installed without its sources)."""
    where = Path(__file__).resolve().parent if folder is None else folder
    files = sorted((p for p in where.iterdir() if p.suffix in SUFFIXES and p.is_file()), key=lambda p: p.name)
    if not files:
        return None
    h = hashlib.sha256()
    for p in files:
        data = p.read_bytes()
        h.update(f"{p.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()
