"""What the editor's picker (Ctrl+N) and command palette offer to insert.

Items come from the JSON Schema (top-level and rule keys, with their descriptions), the interpreter's
vocabulary (hooks, functions, variables, play attributes) and the ruleset being edited or its parent
(setting names with their current values, rule ids, definitions).
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from gouji_dsl.i18n import _ as library_  # (the library's texts: the hooks' questions)
from gouji_dsl.ruleset.game.vocabulary import CONTEXT_VARS, FUNCTIONS, GLOBAL_VARS, HOOKS, PLAY_ATTRS, Hook
from gouji_dsl.ruleset.load import checking
from gouji_dsl.ruleset.spec import ResolvedRuleset, said

from .i18n import N_, _, spaced
from .skeleton import COMMENT_WIDTH, flow, setting_lines


@dataclass(frozen=True)
class Item:
    """Something to insert: ``label`` is shown and matched, ``insert`` is the text put in.

    ``as_key`` is the text put in where a mapping key goes (nothing but indentation before the
    cursor): for a setting, ``name: value`` with its sentence as a comment above it."""

    label: str
    insert: str
    kind: str
    help: str = ""
    as_key: str | None = None

    def text_at(self, line_before: str) -> str:
        """What to insert after ``line_before`` (the line up to the name being replaced)."""
        if self.as_key is not None and not line_before.strip():
            return self.as_key
        return self.insert


KIND_ORDER = ("setting", "rule", "hook", "key", "rule key", "function", "variable", "attribute",
              "definition", "snippet")
KIND_WORDS = {"setting": N_("setting"), "rule": N_("rule"), "hook": N_("hook"), "key": N_("file key"),
              "rule key": N_("rule key"), "function": N_("function"), "variable": N_("variable"),
              "attribute": N_("attribute"), "definition": N_("definition"), "snippet": N_("snippet")}
"""The kinds of items as the picker shows them (translated where shown)."""


def kind_word(kind: str) -> str:
    """An item's kind in the active language (``setting`` → 设置)."""
    return _(KIND_WORDS[kind]) if kind in KIND_WORDS else kind

RULE_SNIPPET = """- id: my.rule-id
  on: follow
  when: "true"
  require: "true"
  says: "The sentence players see."
  source: "where this rule comes from\""""
"""A rule skeleton; lines after the first are indented to the insertion column (:func:`indent_for`)."""


def _schema_items() -> list[Item]:
    s = checking.schema()
    out = [Item(k, f"{k}: ", "key", (v.get("description") or "")) for k, v in s["properties"].items()]
    rule = s["definitions"]["rule"]["properties"]
    for k, v in rule.items():
        desc = v.get("description") or s["definitions"].get(v.get("$ref", "").split("/")[-1], {}).get("description", "")
        out.append(Item(k, f"{k}: ", "rule key", desc))
    return out


#: the kinds of questions (gouji_dsl.ruleset.game.vocabulary.HookKind) as the picker says them
HOOK_KINDS = {"permit": N_("permit question"), "value": N_("value question"), "trigger": N_("trigger question")}


def _vocabulary_items() -> list[Item]:
    def question(h: Hook) -> str:
        asked = _("{kind}: {doc}").format(kind=_(HOOK_KINDS[h.kind]), doc=library_(h.doc))
        return spaced(asked) + _("(context: {names})").format(names=", ".join(h.context)) if h.context else asked

    out = [Item(h.name, h.name, "hook", question(h)) for h in HOOKS.values()]
    out += [Item(f"{n}({', '.join(map(str, f.params))})", f"{n}(", "function", f"-> {f.returns}: {f.doc}")
            for n, f in FUNCTIONS.items()]
    out += [Item(n, n, "variable", f"{v.type}: {v.doc}") for n, v in {**CONTEXT_VARS, **GLOBAL_VARS}.items()]
    out += [Item(f".{n}", n, "attribute", f"play/top/beaten.{n} ({v.type}): {v.doc}") for n, v in PLAY_ATTRS.items()]
    return out


def setting_entry(name: str, value: object, says: str | None) -> str:
    """``name: value`` as YAML (block style when long), its sentence wrapped above it as comments."""
    lines = [f"# {ln}" for ln in textwrap.wrap(" ".join((says or "").split()), COMMENT_WIDTH - 2)]
    return "\n".join(lines + setting_lines(name, value))


def _ruleset_items(resolved: ResolvedRuleset, parent: ResolvedRuleset | None = None) -> list[Item]:
    out = []
    for name, s in resolved.settings.items():
        value = flow(s.value)
        if len(value) > 60:
            value = value[:57] + "..."
        base = parent.settings.get(name) if parent is not None else None
        base = base or s  # the parent's value (what a variant starts from), else this ruleset's
        out.append(Item(name, name, "setting", f"= {value}" + (f" — {said(s.says)}" if s.says else ""),
                        as_key=setting_entry(name, base.value, base.says or s.says)))
    for r in resolved.rules:
        out.append(Item(r.id, r.id, "rule", _("on {hook}").format(hook=r.on.text) + (f" — {said(r.says)}" if r.says else "")))
    for name, d in resolved.definitions.items():
        label = f"{name}({', '.join(d.params)})" if d.params else name
        out.append(Item(label, f"{name}(" if d.params else name, "definition",
                        said(d.says) if d.says else d.expr.text))
    return out


def items_for(resolved: ResolvedRuleset | None, parent: ResolvedRuleset | None = None) -> list[Item]:
    """Everything insertable, the ruleset's own names first. ``parent``: the resolved parent, whose
    values a setting inserted as a key starts from."""
    out = _ruleset_items(resolved, parent) if resolved is not None else []
    out += _vocabulary_items() + _schema_items()
    out.append(Item("new rule", RULE_SNIPPET, "snippet", _("a rule skeleton (id, on, when, effect, says, source)")))
    return out


_WORD = re.compile(r"[A-Za-z0-9_.\-]*$")


def word_before(line: str, column: int) -> str:
    """The name being typed just before ``column`` (letters, digits, ``_``, ``.`` and ``-``)."""
    m = _WORD.search(line[:column])
    return m.group(0) if m else ""


def replacement(prefix: str, insert: str) -> int:
    """How many characters before the cursor ``insert`` replaces, given the typed ``prefix``.

    The whole prefix when the item continues it (``gouji.mi`` → ``gouji.minimum``), only the part
    after the last dot when that is what it continues (``top.gou`` → ``gouji``), else nothing."""
    if prefix and insert.startswith(prefix):
        return len(prefix)
    tail = re.split(r"[.]", prefix)[-1]
    if tail and insert.startswith(tail):
        return len(tail)
    return 0


def indent_for(text: str, column: int) -> str:
    """``text`` with every line after the first indented by ``column`` spaces (to insert at ``column``)."""
    lines = text.split("\n")
    return "\n".join([lines[0]] + [(" " * column + ln) if ln else ln for ln in lines[1:]])
