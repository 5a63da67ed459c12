"""The settings reference (``gouji show --settings [RULESET]`` and ``docs/settings.md``): every
setting with its sub-keys, type, allowed values, default, value, sentence and source, from the
setting-type layer (:func:`gouji_dsl.ruleset.settings.check_settings`) — one source of data for the
terminal, the markdown file and the app.

``docs/settings.md`` is :func:`reference_markdown` of every bundled ruleset; regenerate it with
``gouji show --settings --format markdown > docs/settings.md`` (tests/test_settings_ref.py keeps it
in sync).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.i18n import _
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.spec import said

__all__ = ["SettingRow", "KeyRow", "rows", "reference_text", "reference_markdown", "all_bundled_rows"]


@dataclass(frozen=True)
class KeyRow:
    """One key of a map or record setting."""

    key: str
    type: str
    value: Any
    default: Any


@dataclass(frozen=True)
class SettingRow:
    """One setting as the reference shows it."""

    name: str
    type: str
    type_words: str
    type_source: str
    allowed: tuple[Any, ...] | None
    default: Any
    value: Any
    says: str | None
    source: str | None
    where: str
    engine_doc: str | None
    keys: tuple[KeyRow, ...] = ()
    rulesets: tuple[str, ...] = field(default_factory=tuple)  # (all_bundled_rows) the rulesets that have it


def _show(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, default=str)
    return str(v)


def _plain(v: Any) -> Any:
    """A typed value with map keys as text (for display)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def rows(resolved) -> list[SettingRow]:
    """The reference rows of a resolved ruleset (every setting it has, and the engine's settings it
    leaves to their defaults), in file order. Raises :class:`GoujiError` when a setting is broken."""
    from gouji_dsl.lang.types import describe
    from gouji_dsl.ruleset.settings import settings_of

    settings = settings_of(resolved)
    out = []
    for name, info in settings.items():
        default = info.default if isinstance(info.default, dict) else None
        keys = tuple(KeyRow(str(k.key), str(k.type), _plain(k.value),
                            _plain(default.get(k.key)) if default is not None else None) for k in info.sub_keys)
        where = f"{display_path(info.origin.path)}:{info.origin.line}" if info.origin.line > 0 else _("engine default")
        out.append(SettingRow(name, info.type_text, describe(info.type), str(info.type_source), info.allowed,
                              _plain(info.default), _plain(info.value), said(info.says), said(info.source), where,
                              info.engine_doc, keys))
    return out


def reference_text(resolved) -> str:
    """``gouji show --settings RULESET``: one block per setting."""
    lines = [_("settings of {name} ({n}): type, allowed values, default, value, sentence, source").format(name=resolved.name, n=len(rows(resolved)))]
    for r in rows(resolved):
        lines.append("")
        lines.append(_("{name}: {type}    ({type_source} type; {where})").format(name=r.name, type=r.type, type_source=r.type_source, where=r.where))
        lines.append(_("    type:     {type_words}").format(type_words=r.type_words))
        if r.allowed is not None:
            lines.append(_("    allowed:  {join}").format(join=', '.join(_show(a) for a in r.allowed)))
        lines.append(_("    value:    {show}").format(show=_show(r.value)))
        if r.default != r.value:
            lines.append(_("    default:  {show}  (as first written)").format(show=_show(r.default)))
        for k in r.keys:
            extra = "" if k.default == k.value or k.default is None else _("  (default {show})").format(show=_show(k.default))
            lines.append(f"      {k.key}: {k.type} = {_show(k.value)}{extra}")
        if r.engine_doc:
            lines.append(_("    engine:   {engine_doc}").format(engine_doc=r.engine_doc))
        if r.says:
            lines.append(f"    says:     {r.says}")
        if r.source:
            lines.append(f"    source:   {said(r.source)}")
    return "\n".join(lines) + "\n"


def all_bundled_rows() -> list[SettingRow]:
    """Every setting of every bundled ruleset: ``base``'s rows, then the settings other bundled
    rulesets add (``rulesets`` names where each appears)."""
    seen: dict[str, SettingRow] = {}
    where: dict[str, list[str]] = {}
    names = list_bundled()
    order = (["base"] if "base" in names else []) + [n for n in names if n != "base"]
    for name in order:
        for r in rows(resolve(name)):
            where.setdefault(r.name, []).append(name)
            seen.setdefault(r.name, r)
    return [SettingRow(**{**r.__dict__, "rulesets": tuple(where[r.name])}) for r in seen.values()]


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def reference_markdown(rows_: list[SettingRow] | None = None) -> str:
    """``docs/settings.md``: the reference of every setting of the bundled rulesets."""
    rs = all_bundled_rows() if rows_ is None else rows_
    out = ["# Settings reference", "",
           "Every setting of the bundled rulesets: its type (in the notation of `gouji_dsl.lang.types`), where the",
           "type comes from (the engine's declared interface, a `type:` in the ruleset, or inferred from the first",
           "value), the allowed values, the default (the value as first written, in `base` unless said otherwise),",
           "the keys of a map or record, the sentence (`says`) and its source. `gouji show --settings RULESET` shows",
           "the same for any ruleset, with its own values.", "",
           "Generated: `gouji show --settings --format markdown > docs/settings.md` (a test keeps it in sync).", ""]
    for r in rs:
        out.append(f"## `{r.name}`")
        out.append("")
        out.append(f"- **Type:** `{r.type}` — {_md(r.type_words)} ({r.type_source})")
        if r.allowed is not None:
            out.append(f"- **Allowed:** {', '.join(f'`{_md(_show(a))}`' for a in r.allowed)}")
        out.append(f"- **Default:** `{_md(_show(r.default))}`")
        if r.rulesets and r.rulesets[0] != "base":
            out.append(f"- **In:** {', '.join(r.rulesets)}")
        if r.engine_doc:
            out.append(f"- **Engine:** {_md(r.engine_doc)}")
        if r.says:
            out.append(f"- **Says:** {_md(r.says)}")
        if r.source:
            out.append(f"- **Source:** {_md(said(r.source))}")
        if r.keys:
            out += ["", "| key | type | default |", "| --- | --- | --- |"]
            out += [f"| `{_md(k.key)}` | `{_md(k.type)}` | `{_md(_show(k.default if k.default is not None else k.value))}` |"
                    for k in r.keys]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
