"""The text of a new variant file: schema line, name, parent, title and a commented skeleton.

The skeleton lists the settings variants change most often with the value the parent gives today,
commented out, so a variant starts out identical to its parent and every change is one uncomment
(Ctrl+T in the editor) and an edit away.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from gouji_dsl import resources
from gouji_dsl.ruleset.spec import ResolvedRuleset, said
from gouji_dsl.tools.textlayout import wrap

from .i18n import _, chinese

COMMON_SETTINGS: tuple[str, ...] = (
    "gouji_minimum", "filler_rank", "comparison", "revolution", "place_points", "sweep_multiplier",
)
"""Settings offered in a new variant's skeleton, in this order (only those the parent has)."""

FLOW_WIDTH = 72  # longer values are written in block style, one key per line
COMMENT_WIDTH = 72


def schema_ref(file: str | os.PathLike[str]) -> str:
    """The schema path for the ``yaml-language-server`` line of ``file``: relative when possible.

    When gouji runs from an installed package (the schema lives in site-packages, which moves with
    the virtual environment), a copy of the schema is written beside the new file
    (``ruleset.schema.json``, refreshed when it differs) and referred to by its bare name."""
    schema = resources.schema_path().resolve()
    folder = Path(file).absolute().parent
    if "site-packages" in schema.parts or "dist-packages" in schema.parts:
        copy = folder / "ruleset.schema.json"
        data = schema.read_bytes()
        try:
            if not copy.exists() or copy.read_bytes() != data:
                folder.mkdir(parents=True, exist_ok=True)
                from gouji_dsl.atomic import atomic_write
                atomic_write(copy, data.decode("utf-8"))
            return copy.name
        except OSError:
            return schema.as_posix()
    try:
        rel = Path(os.path.relpath(schema, folder.resolve() if folder.exists() else folder))
    except ValueError:  # another drive (Windows)
        return schema.as_posix()
    if rel.parts.count("..") > 2:  # far away (e.g. an installed package): the absolute path reads better
        return schema.as_posix()
    return rel.as_posix()


def flow(value: Any) -> str:
    """``value`` as one line of YAML flow style (``{T: 5, '2': 1}``, ``'2'``, ``null``)."""
    text = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, sort_keys=False,
                          width=1 << 30).strip()
    return text[1:-1]


def _block(name: str, value: Any) -> list[str]:
    text = yaml.safe_dump({name: value}, default_flow_style=None, allow_unicode=True, sort_keys=False,
                          width=FLOW_WIDTH)
    return text.rstrip("\n").split("\n")


def setting_lines(name: str, value: Any) -> list[str]:
    """``name: value`` as YAML lines (one line when short enough)."""
    one = f"{name}: {flow(value)}"
    if len(one) <= FLOW_WIDTH or not isinstance(value, (dict, list)):
        return [one]
    return _block(name, value)


def _comment(lines: list[str], indent: str = "") -> list[str]:
    return [f"# {indent}{line}".rstrip() for line in lines]


def _header(name: str, parent: str) -> list[str]:
    """The comment at the head of a new variant: what a variant is and how to change it."""
    text = _("{name}: a variant of {parent}; it inherits everything it does not change. "
             "Settings: uncomment `settings:` and the lines you change (Ctrl+T toggles a comment). "
             "The values shown are {parent}'s. A mapping is merged key by key with the parent's: "
             "write only the keys you change (null removes a key). Other values replace the parent's. "
             "Rules: a rule with an inherited rule's id replaces it; `remove: [id]` drops one. "
             "Ctrl+N inserts names and ids.").format(name=name, parent=parent)
    return [f"# {ln}" for ln in _wrap(text, COMMENT_WIDTH - 2)]


#: where a Chinese comment may break without cutting a word: after its punctuation
_CLAUSE_END = re.compile(r"(?<=[，。；：、）])")


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells; Chinese broken after its punctuation, not inside
    a clause (``取消``, ``删除`` stay whole), unless a clause is longer than a line."""
    clauses = [c.strip() for c in _CLAUSE_END.split(text) if c.strip()] if chinese() else []
    return wrap(text, width, keep=clauses) or [""]


def variant_text(name: str, parent: str, file: str | os.PathLike[str], *, title: str | None = None,
                 parent_resolved: ResolvedRuleset | None = None) -> str:
    """The initial text of the variant ``name`` extending ``parent``, to be saved as ``file``."""
    title = title or _("{parent} with local changes").format(parent=parent)
    out = [
        f"# yaml-language-server: $schema={schema_ref(file)}",
        "#",
        *_header(name, parent),
        f"ruleset: {name}",
        f"extends: {parent}",
        # under Chinese the file's plain strings (the title, what the organiser writes) are Chinese
        *(["languages: [zh, en]"] if chinese() else []),
        f"title: {flow(title)}",
        "# description: >",
        "#   " + _("What this variant changes, in a sentence or two."),
        "# source: " + flow(_("where these rules come from")),
        "",
    ]
    settings = parent_resolved.settings if parent_resolved is not None else {}
    chosen = [n for n in COMMON_SETTINGS if n in settings] if settings else list(COMMON_SETTINGS)
    if chosen:
        out.append("# settings:")
        for n in chosen:
            spec = settings.get(n)
            if spec is None:
                out.append(f"#   {n}: ")
                continue
            where = Path(spec.origin.path).name
            says = " ".join((said(spec.says) or "").split())
            note = (f"{says}（{where}）" if chinese() else f"{says} ({where})") if says else f"({where})"
            out.extend(f"#   # {ln}" for ln in _wrap(note, COMMENT_WIDTH - 6))
            out.extend(_comment(setting_lines(n, spec.value), "  "))
        out.append("")
    out.append("rules: []")
    return "\n".join(out) + "\n"
