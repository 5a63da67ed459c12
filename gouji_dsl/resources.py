"""Locate the data shipped with the package: bundled rulesets, grammars, the JSON Schema.

After a plain ``pip install .`` they live inside the installed package (``gouji_dsl/rules``,
``gouji_dsl/grammar``, ``gouji_dsl/schema``); in a source checkout they are the top-level
``rules/``, ``grammar/`` and ``schema/`` folders beside ``gouji_dsl/``.
"""
from __future__ import annotations

import os
from pathlib import Path

from gouji_dsl.i18n import _

_HERE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"gouji_dsl data folder {name!r} not found next to {_HERE}")


def rules_dir() -> Path:
    """Folder of the bundled rulesets (``*.yaml``)."""
    return _data_dir("rules")


def grammar_dir() -> Path:
    """Folder of the Lark grammars (``*.lark``)."""
    return _data_dir("grammar")


def schema_path() -> Path:
    """Path of the draft-07 JSON Schema for ruleset files."""
    return _data_dir("schema") / "ruleset.schema.json"


def record_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for game record files (``gouji replay``)."""
    return _data_dir("schema") / "record.schema.json"


def duel_save_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for a line of a ``gouji duel --save`` file."""
    return _data_dir("schema") / "duel-save.schema.json"


def bot_protocol_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for the exec bots' messages (``--bots exec:CMD``)."""
    return _data_dir("schema") / "bot-protocol.schema.json"


def run_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for a run folder's ``run.json`` (``--out DIR``)."""
    return _data_dir("schema") / "run.schema.json"


def chunk_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for a run folder's chunk files (``chunk-START-STOP.json``)."""
    return _data_dir("schema") / "chunk.schema.json"


def bundled_names() -> list[str]:
    """Names of the bundled rulesets, sorted (file stems of ``rules/*.yaml``)."""
    return sorted(p.stem for p in rules_dir().glob("*.yaml"))


# ------------------------------------------------------------------------------ showing a ruleset's path
def _bundled_folder() -> tuple[Path | None, bool]:
    """The bundled rules folder and whether it is inside the installed package (not a checkout)."""
    try:
        d = rules_dir().resolve()
    except (FileNotFoundError, OSError):
        return None, False
    return d, d.parent == _HERE


def bundled_path(name: str) -> str:
    """How a bundled ruleset file is shown when no path would do: ``<bundled>/NAME.yaml``, the
    placeholder in the active language (Chinese ``自带/NAME.yaml``, the word the catalog uses for
    bundled everywhere); the JSON outputs keep the real path."""
    return _("<bundled>/{name}").format(name=name)


def display_path(path: str) -> str:
    """A short name for a ruleset file, the one printer of a file's name in text: ``<bundled>/NAME.yaml``
    (:func:`bundled_path`) for a bundled ruleset of the installed package; else the path relative to
    the current directory when the file lies below it (so a source checkout shows ``rules/NAME.yaml``);
    else ``<bundled>/NAME.yaml`` for a bundled file; else the path as given."""
    if not path or path.startswith("<"):
        return path
    try:
        p = Path(path).resolve()
    except OSError:
        return path
    bundled, installed = _bundled_folder()
    is_bundled = bundled is not None and p.parent == bundled
    if is_bundled and installed:
        return bundled_path(p.name)
    try:
        rel = os.path.relpath(p, Path.cwd())
    except ValueError:  # another drive (Windows)
        rel = ".."
    if not rel.startswith(".."):
        return rel
    return bundled_path(p.name) if is_bundled else path
