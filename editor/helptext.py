"""The help screen's text: the ruleset language explained with examples cut from the bundled files.

Examples are read from the bundled rulesets at run time (a setting, a definition, a rule with a
guard, a child overriding its parent), so the help never drifts from the real files.
"""
from __future__ import annotations

import functools
import textwrap
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import APP_DOMAIN, DOMAIN, Language, catalog, current, display_width
from gouji_dsl.ruleset.game.vocabulary import COMBINING, FUNCTIONS, KNOWN_EVERYWHERE, PLAY_ATTRS, hooks_markdown
from gouji_dsl.ruleset.load import checking, finding
from gouji_dsl.ruleset.load.reading import RawRuleset
from gouji_dsl.ruleset.settings import REMOVING_A_KEY
from gouji_dsl.ruleset.spec import EFFECT_KEYS

from .i18n import N_, _

EXAMPLE_SETTING = "gouji_minimum"


def _snippet(raw: RawRuleset, loc: tuple[Any, ...], key: bool = True) -> str | None:
    """The lines of ``raw``'s file from the key at ``loc`` (or, for a list item, its ``- ``) to the
    end of its value: the following lines indented deeper than the first, dedented."""
    spot = raw.keys.get(loc) if key else raw.values.get(loc)
    if spot is None:
        return None
    lines = raw.text.splitlines()
    first = spot.pos.line - 1
    if first >= len(lines):
        return None
    head = lines[first]
    indent = len(head) - len(head.lstrip())
    block = [head]
    for line in lines[first + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    while block and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
        block.pop()
    return textwrap.dedent("\n".join(block))


def _bundled() -> list[RawRuleset]:
    out = []
    for name in finding.list_bundled():
        try:
            out.append(checking.load_file(finding.ruleset_path(name)))
        except GoujiError:
            continue
    return out


def _examples() -> dict[str, tuple[str, str]]:
    """name -> (file name, snippet) for each kind of example found in the bundled rulesets."""
    found: dict[str, tuple[str, str]] = {}
    files = _bundled()
    for raw in files:
        fname = Path(raw.path).name
        data = raw.data if isinstance(raw.data, dict) else {}
        settings = data.get("settings") or {}
        if "setting" not in found and settings:
            name = EXAMPLE_SETTING if EXAMPLE_SETTING in settings else next(iter(settings))
            s = _snippet(raw, ("settings", name))
            if s:
                found["setting"] = (fname, s)
        for dname in data.get("definitions") or {}:
            if "definition" not in found and "(" in dname:
                s = _snippet(raw, ("definitions", dname))
                if s:
                    found["definition"] = (fname, s)
        for i, rule in enumerate(data.get("rules") or []):
            if not isinstance(rule, dict):
                continue
            kind = "guarded rule" if "when" in rule and any(k in rule for k in ("require", "allow", "deny")) \
                else "value rule" if "value" in rule else None
            if kind and kind not in found:
                s = _snippet(raw, ("rules", i), key=False)
                if s:
                    found[kind] = (fname, s)
        if data.get("extends") and "child" not in found:
            head = [f"ruleset: {data.get('ruleset')}", f"extends: {data.get('extends')}"]
            parts = ["\n".join(head)]
            if settings:
                first = next(iter(settings))
                s = _snippet(raw, ("settings", first))
                if s:
                    parts.append("settings:\n" + textwrap.indent(s, "  "))
            rules = data.get("rules") or []
            if rules:
                s = _snippet(raw, ("rules", 0), key=False)
                if s:
                    parts.append("rules:\n" + textwrap.indent(s, "  "))
            found["child"] = (fname, "\n".join(parts))
        if data.get("remove") and "remove" not in found:
            s = _snippet(raw, ("remove",))
            if s:
                found["remove"] = (fname, s)
    return found


def _code(example: tuple[str, str] | None, fallback: str) -> str:
    if example is None:
        return f"```yaml\n{fallback}\n```"
    fname, text = example
    return _("From the bundled `{file}`:").format(file=fname) + f"\n\n```yaml\n{text}\n```"


def keys_table(keys: list[tuple[str, str]]) -> str:
    """A markdown table of (key, what it does)."""
    rows = "\n".join(f"| {k} | {what} |" for k, what in keys)
    head = "| " + _("key") + " | " + _("action") + " |"
    return f"{head}\n| --- | --- |\n{rows}"


def help_markdown(keys: list[tuple[str, str]] | None = None) -> str:
    """The help text in the active language; ``keys`` (key, action) lists the keys of the screen help was asked from."""
    return _language_help(current()).replace("{keys}", keys_table(keys or []))


HELP_TEMPLATE = N_("""\
# Writing a Gouji ruleset

A ruleset is one YAML file. A **variant** names its parent with `extends:` and writes down only what
differs: everything else is inherited. The right-hand panel shows the result: the **resolved**
ruleset (every value with the file that set it; inherited values dimmed) and the **rule graph**
(the phases of a game and the rules in each; ⟲ marks a rule that overrides its parent's).

## The top of a file

```yaml
ruleset: my-town          # the name: lower-case words joined by '-', same as the file name
extends: online           # the parent: a bundled ruleset or a file beside this one
title: My town's rules
```

## Settings

A setting is a value the rules read as `settings.NAME`. A child's value replaces the parent's; a
mapping is merged key by key, so a variant writes only the keys it changes.
{REMOVING_A_KEY} The long form `{{value, says, source}}` adds the sentence players see and where it
comes from.

{setting}

## Definitions

Named expressions the rules can call.

{definition}

## Rules

Each rule has a stable `id`, the question it answers (`on:`, a hook), an optional guard (`when:`)
and exactly one effect: {effects}. `says:` is the sentence shown to
players; `source:` says where the rule comes from; `said_by: [SETTING]` names the settings whose
sentences state the rule in the printed rulebook (they replace its `says` there: each point once).

{guarded}

{value_rule}

| effect | meaning |
| --- | --- |
| `allow: EXPR` | grants the move when `when` and EXPR hold |
| `deny: EXPR` | forbids it when `when` and EXPR hold |
| `require: EXPR` | forbids it when `when` holds and EXPR does not |
| `value: EXPR` / `order: EXPR` | the answer (the last matching rule wins) |
| `mark:` / `unmark: FLAG` | sets / clears a per-seat flag (seat: `target:`, default `seat`) |
| `count: COUNTER` | adds 1 (or `amount:`) to a per-seat counter, read as `counter(seat, 'COUNTER')` |

`settings.counters` says when a counter starts again: `{{COUNTER: {{reset: trick | deal | game | match}}}}`
(default: each deal). Every kind of move has an event to count it by: `after_play`, `after_pass`, `after_yield`, `after_discard`,
`after_return`, `answered` (an answer before play). A question of the ruleset's own: `settings.choices`
(`{{WORD: {{asked: deal | setup}}}}`), `offer` rules say who is asked (the seat answers `choose WORD` or
`pass`), `answered` rules what an answer does, `redeal_before_tribute` / `redeal` whether the deal is void.

{COMBINING}

## A variant

A rule with the id of an inherited rule replaces it in place; new ids are added; `remove: [id, ...]`
drops inherited rules.

{child}

## Expressions

Written in the expression language: `and`, `or`, `not`, comparisons, `in`, `a if c else b`,
lists with `++` (join), `--` (without), `&` (both). Names:

- variables: `seat`, `top` (the play on the table), `play`, `beaten`, `target`, ...
- attributes of a play: {attrs}
- functions: {funcs}
- `settings.NAME` reads a setting; definitions are called by name.

## Questions (hooks) a rule can answer

{hooks}

{KNOWN_EVERYWHERE}

## Keys

{{keys}}

Escape leaves the text (Tab indents inside it); Ctrl+P lists every command.

Unsaved text is copied to `FILE.recovery` (`FILE.2.recovery`... when an older copy is still waiting)
every few seconds; if the editor or the terminal dies, the next time you open the file every copy is
offered back with a diff: Restore, Discard, or Later (kept on disk; F6 offers it again).
""")
"""The help page (Markdown): the examples, the vocabulary and the library's texts filled in where shown."""


@functools.lru_cache(maxsize=4)
def _language_help(lang: Language) -> str:
    ex = _examples()
    hooks = hooks_markdown().rstrip("\n")
    funcs = ", ".join(f"`{n}({', '.join(map(str, f.params))})`" for n, f in FUNCTIONS.items())
    attrs = ", ".join(f"`{n}`" for n in PLAY_ATTRS)
    effects = ", ".join(f"`{k}`" for k in EFFECT_KEYS)
    setting = _code(ex.get("setting"), "settings:\n  filler_rank: null")
    definition = _code(ex.get("definition"), "definitions:\n  done(s): passed(s) or not active(s)")
    guarded = _code(ex.get("guarded rule"), "- id: my.rule\n  on: follow\n  require: seat == opposite(top.seat)")
    value_rule = _code(ex.get("value rule"), "- id: my.value\n  on: yield_to\n  value: settings.yield_to")
    child = _code(ex.get("child"), "ruleset: child\nextends: base")
    text = catalog(APP_DOMAIN, lang).gettext(HELP_TEMPLATE).format(
        REMOVING_A_KEY=library_text(REMOVING_A_KEY, lang), COMBINING=library_text(COMBINING, lang),
        KNOWN_EVERYWHERE=library_text(KNOWN_EVERYWHERE, lang), setting=setting, definition=definition, effects=effects,
        guarded=guarded, value_rule=value_rule, child=child, attrs=attrs, funcs=funcs, hooks=hooks)
    return joined_paragraphs(text) if lang is Language.ZH else text


def library_text(text: str, lang: Language) -> str:
    """A text of the library (domain ``gouji``) in ``lang``, when its catalog has it; else the app's
    catalog's (``gouji_app``: a library sentence the help shows, such as REMOVING_A_KEY)."""
    said = catalog(DOMAIN, lang).gettext(text)
    return said if said != text else catalog(APP_DOMAIN, lang).gettext(text)


_BLOCK_STARTS = ("#", "|", "-", "*", ">", "`", " ")


def joined_paragraphs(markdown: str) -> str:
    """``markdown`` with the lines of each Chinese paragraph joined (outside code blocks, tables,
    lists and headings): a soft line break between two Chinese characters shows as a space, and
    the paragraph then wraps only there, leaving short ragged lines."""
    out: list[str] = []
    code = False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            code = not code
        prev = out[-1] if out else ""
        if (not code and out and prev and line and not line.startswith(_BLOCK_STARTS)
                and not prev.startswith(("#", "|", "```")) and not line[:1].isdigit()
                and (display_width(prev[-1]) == 2 or display_width(line[0]) == 2)):
            glued = display_width(prev[-1]) == 2 and display_width(line[0]) == 2 or line[0] in "，。、；：）”（“"
            out[-1] = prev + ("" if glued else " ") + line
        else:
            out.append(line)
    return "\n".join(out)
