"""Locate the data shipped with the package: bundled rulesets, grammars, the JSON Schema.

After a plain ``pip install .`` they live inside the installed package (``gouji_dsl/rules``,
``gouji_dsl/grammar``, ``gouji_dsl/schema``); in a source checkout they are the top-level
``rules/``, ``grammar/`` and ``schema/`` folders beside ``gouji_dsl/``.
"""
from __future__ import annotations

from pathlib import Path

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


def run_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for a run folder's ``run.json`` (``--out DIR``)."""
    return _data_dir("schema") / "run.schema.json"


def chunk_schema_path() -> Path:
    """Path of the draft-07 JSON Schema for a run folder's chunk files (``chunk-START-STOP.json``)."""
    return _data_dir("schema") / "chunk.schema.json"


def bundled_names() -> list[str]:
    """Names of the bundled rulesets, sorted (file stems of ``rules/*.yaml``)."""
    return sorted(p.stem for p in rules_dir().glob("*.yaml"))
