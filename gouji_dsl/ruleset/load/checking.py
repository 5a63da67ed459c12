"""Checking one ruleset file as read: the schema (``schema/ruleset.schema.json``, all errors at once, each told in
our words at the offending value or key), the checks JSON Schema cannot phrase well (one effect per rule, where
``target``/``amount``/``giver`` apply, unique rule ids and definition names, misspelt keys of a setting's long form,
``words.terms``, the file's languages) and the syntax of every expression; and :func:`load_text` / :func:`load_file`,
which read one file (:mod:`~gouji_dsl.ruleset.load.reading`) and check it, raising every problem at once.

A broken item is not only reported: it is left out of the later stages (:class:`Skip`), so that one run reports
every problem of a file and of its chain (:mod:`~gouji_dsl.ruleset.load.resolving` merges what is left).
The keys a file may have (:data:`TOP_KEYS`, :data:`RULE_KEYS`, ...) must equal the schema's (tests/test_loader.py).
"""
from __future__ import annotations

import bisect
import difflib
import functools
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from gouji_dsl import resources
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, did_you_mean, quoted
from gouji_dsl.i18n import N_, _
from gouji_dsl.lang.parse import ExprError, parse
from gouji_dsl.ruleset import languages
from gouji_dsl.ruleset.load.locating import position_in
from gouji_dsl.ruleset.load.reading import Loc, RawRuleset, diag_at, join_hints, parse_text, read_text
from gouji_dsl.ruleset.spec import EFFECT_KEYS
from gouji_dsl.ruleset.words import Term

__all__ = [
    "TOP_KEYS", "RULE_KEYS", "SETTING_LONG_KEYS", "DEFINITION_LONG_KEYS", "NAME_EFFECTS", "TARGET_EFFECTS",
    "MAX_RULES_PER_FILE", "SCHEMA_HINTS", "schema", "meant_name", "is_setting_long_form", "load_text", "load_file",
    "Skip", "check_text", "syntax_diagnostics", "raise_errors", "unique_diagnostics", "sorted_diagnostics",
]

TOP_KEYS: tuple[str, ...] = (
    "ruleset", "extends", "title", "description", "source", "languages", "words", "settings", "definitions", "rules",
    "remove",
)
"""Keys allowed at the top of a ruleset file (must equal the schema's top-level properties)."""

RULE_KEYS: tuple[str, ...] = (
    "id", "on", "when", *EFFECT_KEYS, "target", "amount", "giver", "says", "source", "before", "after",
    "said_by",
)
"""Keys allowed in a rule (must equal the schema's rule properties)."""

SETTING_LONG_KEYS: tuple[str, ...] = ("value", "says", "source", "type")
"""Keys of the long form of a setting ``{value, says, source, type}``."""

DEFINITION_LONG_KEYS: tuple[str, ...] = ("expr", "says", "source")
"""Keys of the long form of a definition ``{expr, says, source}``."""

NAME_EFFECTS: tuple[str, ...] = ("mark", "unmark", "count")
TARGET_EFFECTS: tuple[str, ...] = ("mark", "unmark", "count", "place", "give")
"""Effects whose argument is a flag / counter name rather than an expression."""


# -- limits (the others: gouji_dsl.ruleset.load.reading and finding)
MAX_RULES_PER_FILE = 10_000
"""Most rules one file may hold."""


DEFINITION_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$")
"""A definition's key: ``name`` or ``name(a, b)`` (groups: the name, the parameters)."""

# --------------------------------------------------------------------------------------------------
# small helpers


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The ruleset JSON Schema (draft-07) as a dict, read once from :func:`resources.schema_path`."""
    with open(resources.schema_path(), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=1)
def _validator() -> Draft7Validator:
    return Draft7Validator(schema())


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return _("a boolean")
    if isinstance(value, (int, float)):
        return _("a number")
    if isinstance(value, str):
        return _("a string")
    if value is None:
        return _("nothing (null)")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping")
    return type(value).__name__


_TYPE_NAMES = {"string": N_("a string"), "number": N_("a number"), "integer": N_("an integer"), "boolean": N_("a boolean"),
               "object": N_("a mapping"), "array": N_("a list"), "null": "null"}


def _expected(types: Any) -> str:
    names = [_(_TYPE_NAMES[t]) if t in _TYPE_NAMES else t for t in ([types] if isinstance(types, str) else list(types))]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def is_setting_long_form(value: Any) -> bool:
    # Must match the `if` of #/definitions/setting in the schema.
    return isinstance(value, dict) and "value" in value and set(value) <= set(SETTING_LONG_KEYS)


# --------------------------------------------------------------------------------------------------
# schema errors -> diagnostics


def _rule_name(raw: RawRuleset, index: int) -> str:
    rid = raw.get(("rules", index, "id"))
    return _("rule {rid!r}").format(rid=rid) if isinstance(rid, str) else _("rule #{index}").format(index=index + 1)


def _label(raw: RawRuleset, loc: Loc) -> str:
    """A human name for the value at ``loc``: "'on' in rule 'x'", "setting 'y'", "'title'"."""
    if not loc:
        return _("the ruleset file")
    ctx, rest = "", loc
    if loc[0] == "rules" and len(loc) >= 2 and isinstance(loc[1], int):
        ctx, rest = _rule_name(raw, loc[1]), loc[2:]
    elif loc[0] in ("settings", "definitions") and len(loc) >= 2:
        ctx = (_("setting {name!r}") if loc[0] == "settings" else _("definition {name!r}")).format(name=loc[1])
        rest = loc[2:]
    if not rest:
        return ctx
    last = rest[-1]
    if isinstance(last, int):
        what = _("item {last} of {rest!r}").format(last=last + 1, rest=rest[-2]) if len(rest) >= 2 else _("item {last}").format(last=last + 1)
    else:
        what = repr(last)
    return _("{what} in {ctx}").format(what=what, ctx=ctx) if ctx else what


_REQUIRED_HINTS = {
    "ruleset": N_("start the file with `ruleset: NAME` (use the file stem)"),
    "id": N_("give the rule a stable id: lower-case words joined by '.' and '-'"),
    "on": N_("say which question (hook) the rule answers, e.g. `on: follow`"),
    "expr": N_("the long form of a definition is {expr: ..., says: ..., source: ...}"),
    "value": N_("the long form of a setting is {value: ..., says: ..., source: ...}"),
}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def meant_name(name: str) -> str | None:
    """The setting name ``name`` was meant to be when it is invalid only by invisible or look-alike
    characters (a zero-width space, a fullwidth letter: removed, or folded by NFKC), else None."""
    folded = "".join(c for c in unicodedata.normalize("NFKC", name)
                     if unicodedata.category(c) not in ("Cf", "Cc", "Zs", "Zl", "Zp", "Mn"))
    return folded if folded != name and _NAME.fullmatch(folded) else None


SCHEMA_HINTS: tuple[str, ...] = (
    N_("a ruleset name is lower-case letters, digits and '-', starting with a letter or digit (e.g. online-house)"),
    N_("a place is a whole number from 1 (the first out)"),
    N_("a card of the notation: 3-9, T, J, Q, K, A, 2, B, R or E"),
    N_("a setting name is a word of letters, digits and '_' (it is read as settings.NAME)"),
    N_("a definition is named `name` or `name(a, b)` (words of letters, digits and '_')"),
    N_("a rule id is lower-case words joined by '.' and '-' (e.g. respond.gouji-opposite-only)"),
    N_("a flag name is a word of letters, digits and '_', written without quotes (it is read as flag(seat, 'NAME'))"),
    N_("a counter name is a word of letters, digits and '_', written without quotes (it is read as counter(seat, 'NAME'))"),
)
"""The schema's ``patternErrorMessage`` texts (schema/ruleset.schema.json), marked for the catalog:
shown translated as the hints of ``InvalidName`` (tests/test_zh_cli.py keeps the two in step)."""


def _schema_hint(schema: Any) -> str | None:
    text = schema.get("patternErrorMessage") if isinstance(schema, dict) else None
    return _(text) if isinstance(text, str) and text else None


def _leaves_out(err: ValidationError, loc: Loc) -> bool:
    """A schema problem that leaves its item out of the later stages: not an unknown key (reported,
    the rest kept), not a missing top-level key, and not a rule id in the wrong form (the rule is still
    checked: its hook, expressions and said_by, so that validate lists their problems too)."""
    if err.validator == "additionalProperties" or (err.validator == "required" and not loc):
        return False
    return not (err.validator == "pattern" and len(loc) == 3 and loc[0] == "rules" and loc[2] == "id"
                and isinstance(err.instance, str))


def _bad_name(raw: RawRuleset, err: ValidationError, loc: Loc) -> Diagnostic:
    """A key that is not a valid name (``propertyNames``): a setting, a definition or another key."""
    name = err.instance
    kind = {("settings",): _("setting name"), ("definitions",): _("definition name")}.get(loc, _("key"))
    hint = _schema_hint(err.schema)
    meant = meant_name(name) if loc == ("settings",) and isinstance(name, str) else None
    if meant is not None:
        odd = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'a control character')}"
                                      for c in name if not (c.isascii() and (c.isalnum() or c == "_"))))
        hint = _("it holds {odd}, which shows as nothing or as another letter; its value is checked as {meant!r}").format(odd=odd, meant=meant)
    return raw.diag(loc + (name,), _("invalid {kind} {name!r}").format(kind=kind, name=name), hint, key=True, code=Code.INVALID_NAME)


def _unknown_keys(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    allowed = list(err.schema.get("properties", {}))
    where = _("at the top level") if not loc else _("in {label}").format(label=_label(raw, loc))
    out = []
    for name in err.instance:
        if name in allowed:
            continue
        hint = join_hints([did_you_mean(name, allowed), _("expected one of: ") + ", ".join(allowed)])
        out.append(raw.diag(loc + (name,), _("unknown key {name!r} {where}").format(
            name=name, where=where), hint, key=True, code=Code.UNKNOWN_KEY))
    return out


def _missing_key(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    missing = [k for k in err.validator_value if k not in err.instance]
    if not missing:
        return []
    name = missing[0]  # jsonschema reports each missing key separately: find which one this is
    m = re.match(r"^'(.*)' is a required property$", err.message)
    if m and m.group(1) in missing:
        name = m.group(1)
    return [raw.diag(loc, _("{label} is missing required key {name!r}").format(
        label=_label(raw, loc), name=name), _(_REQUIRED_HINTS[name]) if name in _REQUIRED_HINTS else None,
                     code=Code.MISSING_KEY)]


def _wrong_type(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    hint = None
    if err.instance is None:
        hint = _("the value is missing")
    elif loc == ("rules",):
        hint = _("write rules as a list: each rule starts with `- id: ...`")
    elif isinstance(err.instance, (list, dict)) and "string" in err.validator_value:
        hint = _("quote the value if it is meant as text")
    return [raw.diag(loc, _("{label}: expected {expected}, got {kind}").format(
        label=_label(raw, loc), expected=_expected(err.validator_value), kind=_kind(err.instance)), hint,
                     code=Code.WRONG_TYPE)]


def _not_a_name(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    return [raw.diag(loc, _("{label}: {instance!r} is not a valid name").format(
        label=_label(raw, loc), instance=err.instance), _schema_hint(err.schema),
                     code=Code.INVALID_NAME)]


def _listed_twice(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic] | None:
    if not isinstance(err.instance, list):
        return None
    seen: list[Any] = []
    for i, item in enumerate(err.instance):
        if item in seen:
            return [raw.diag(loc + (i,), _("{item!r} is listed twice in {label}").format(item=item, label=_label(raw, loc)),
                             _("remove the repeated entry"), code=Code.DUPLICATE_ENTRY)]
        seen.append(item)
    return None


def _empty(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    return [raw.diag(loc, _("{label} must not be empty").format(label=_label(raw, loc)), code=Code.EMPTY_VALUE)]


def _not_allowed(raw: RawRuleset, err: ValidationError, loc: Loc) -> list[Diagnostic]:
    return [raw.diag(loc, _("{label}: {instance!r} is not allowed").format(label=_label(raw, loc), instance=err.instance),
                     _("expected one of: ") + ", ".join(map(str, err.validator_value)), code=Code.VALUE_NOT_ALLOWED)]


_SCHEMA_WORDS: dict[str, Callable[[RawRuleset, ValidationError, Loc], list[Diagnostic] | None]] = {
    "additionalProperties": _unknown_keys,
    "required": _missing_key,
    "type": _wrong_type,
    "pattern": _not_a_name,
    "uniqueItems": _listed_twice,
    "minLength": _empty,
    "enum": _not_allowed,
}
"""How each kind of schema error (jsonschema's ``validator``) is told; None: in jsonschema's own words."""


def _schema_diags(raw: RawRuleset, err: ValidationError) -> list[Diagnostic]:
    loc: Loc = tuple(err.absolute_path)
    if err.validator == "oneOf" and len(loc) == 2 and loc[0] == "rules":
        return []  # one effect per rule: reported by _check_rules with a better message
    if "propertyNames" in err.schema_path:
        return [_bad_name(raw, err, loc)]
    words = _SCHEMA_WORDS.get(str(err.validator))
    found = words(raw, err, loc) if words is not None else None
    if found is not None:
        return found
    return [raw.diag(loc, _("{label}: {message}").format(label=_label(raw, loc), message=err.message), code=Code.SCHEMA_VIOLATION)]


def _check_rules(raw: RawRuleset) -> list[Diagnostic]:
    """Checks JSON Schema cannot phrase well: one effect per rule, target/amount use, unique ids."""
    out: list[Diagnostic] = []
    rules = raw.get(("rules",))
    if not isinstance(rules, list):
        return out
    first_id: dict[str, int] = {}
    effects_hint = _("a rule has exactly one of: ") + ", ".join(EFFECT_KEYS)
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        loc = ("rules", i)
        name = _rule_name(raw, i)
        effects = [k for k in rule if k in EFFECT_KEYS]
        if not effects:
            out.append(raw.diag(loc, _("{name} has no effect").format(name=name), effects_hint, code=Code.NO_EFFECT))
        elif len(effects) > 1:
            out.append(raw.diag(loc + (effects[1],),
                                _("{name} has {n} effects ({join})").format(name=name, n=len(effects), join=', '.join(effects)),
                                effects_hint + _("; split it into separate rules"), key=True, code=Code.MANY_EFFECTS))
        else:
            out.extend(_misplaced_keys(raw, rule, loc, name, effects[0]))
        rid = rule.get("id")
        if isinstance(rid, str):
            if rid in first_id:
                line = raw.origin(("rules", first_id[rid], "id")).line
                out.append(raw.diag(loc + ("id",), _("duplicate rule id {rid!r}").format(rid=rid),
                                    _("first used at line {line}; ids must be unique within a file").format(line=line),
                                    code=Code.DUPLICATE_RULE_ID))
            else:
                first_id[rid] = i
    return out


def _misplaced_keys(raw: RawRuleset, rule: dict[str, Any], loc: Loc, name: str, effect: str) -> list[Diagnostic]:
    """``target``, ``amount`` and ``giver`` in a rule whose effect does not take them."""
    out: list[Diagnostic] = []
    if "target" in rule and effect not in TARGET_EFFECTS:
        out.append(raw.diag(loc + ("target",), _("'target' in {name} only applies to ").format(name=name)
                            + ", ".join(TARGET_EFFECTS), _("remove 'target', or use one of those effects"),
                            key=True, code=Code.MISPLACED_KEY))
    if "amount" in rule and effect not in ("count", "give"):
        out.append(raw.diag(loc + ("amount",), _("'amount' in {name} only applies to count and give").format(name=name),
                            _("remove 'amount', or use count / give"), key=True, code=Code.MISPLACED_KEY))
    if "giver" in rule and effect != "give":
        out.append(raw.diag(loc + ("giver",), _("'giver' in {name} only applies to give").format(name=name),
                            _("remove 'giver', or make the effect give"), key=True, code=Code.MISPLACED_KEY))
    return out


def _check_setting_long_forms(raw: RawRuleset) -> list[tuple[str, Any, Diagnostic]]:
    """A setting written as ``{value: ..., says: ...}`` with a misspelt key (``sayz``, ``sourse``)
    is not the long form, so it would be read as a map value and fail its type with a puzzling
    message (or, for a new setting, quietly become a record). A mapping with ``value`` and a key
    that is not a long-form key is reported here when it also has another long-form key, or when
    the stray key is close to one. Returns (setting name, stray key, diagnostic); the caller drops
    the stray keys so that the rest is read (and checked) as the long form."""
    out: list[tuple[str, Any, Diagnostic]] = []
    settings = raw.get(("settings",))
    if not isinstance(settings, dict):
        return out
    extra_long = set(SETTING_LONG_KEYS) - {"value"}
    for name, written in settings.items():
        if not isinstance(written, dict) or "value" not in written or is_setting_long_form(written):
            continue
        stray = [k for k in written if k not in SETTING_LONG_KEYS]
        close = {k: difflib.get_close_matches(str(k), sorted(extra_long), n=1, cutoff=0.6) for k in stray}
        if not (extra_long & set(written)) and not any(close.values()):
            continue  # a map value that happens to have a key `value`
        for k in stray:
            hint = join_hints([_("did you mean {close!r}?").format(close=close[k][0]) if close[k] else None,
                          _("the long form of a setting has the keys: ") + ", ".join(SETTING_LONG_KEYS)])
            out.append((name, k, raw.diag(("settings", name, k), _("unknown key {str!r} in the long form of "
                                          "setting {name!r}").format(str=str(k), name=name), hint, key=True, code=Code.UNKNOWN_KEY)))
    return out


def _check_definitions(raw: RawRuleset) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    defs = raw.get(("definitions",))
    if not isinstance(defs, dict):
        return out
    seen: dict[str, str] = {}
    for key in defs:
        m = DEFINITION_KEY.match(key)
        if not m:
            continue  # reported by the schema (propertyNames)
        name = m.group(1)
        if name in seen:
            line = raw.origin(("definitions", seen[name]), key=True).line
            out.append(raw.diag(("definitions", key), _("definition {name!r} is defined twice").format(name=name),
                                _("first at line {line}").format(line=line), key=True, code=Code.DUPLICATE_DEFINITION))
        else:
            seen[name] = key
    return out


def _check_terms(raw: RawRuleset) -> list[Diagnostic]:
    """``words.terms`` keys that name no :class:`~gouji_dsl.ruleset.words.Term`."""
    terms = raw.get(("words", "terms"))
    known = [t.value for t in Term]
    return [raw.diag(("words", "terms", k), _("unknown term {term} in words.terms").format(term=quoted(k)),
                     join_hints([did_you_mean(str(k), known), _("the terms are: {terms}").format(terms=", ".join(known))]),
                     key=True, code=Code.UNKNOWN_KEY)
            for k in (terms if isinstance(terms, dict) else ()) if k not in known]


@dataclass
class Skip:
    """The parts of a file left out of the merge because they are broken (their problems are
    reported): ``whole`` (the file is not a mapping), top-level ``keys`` (e.g. a bad ``extends``),
    rule indexes, setting names, definition keys and ``remove`` indexes."""

    whole: bool = False
    keys: set[str] = field(default_factory=set)
    rules: set[int] = field(default_factory=set)
    settings: set[str] = field(default_factory=set)
    definitions: set[str] = field(default_factory=set)
    remove: set[int] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)  # an invalid setting name -> the name it was meant to be

    def add(self, loc: Loc) -> None:
        """Leave out the item that holds the broken value at ``loc``."""
        if not loc:
            self.whole = True
        elif len(loc) == 1:
            self.keys.add(loc[0])
        elif loc[0] == "rules" and isinstance(loc[1], int):
            self.rules.add(loc[1])
        elif loc[0] == "settings":
            self.settings.add(loc[1])
        elif loc[0] == "definitions":
            self.definitions.add(loc[1])
        elif loc[0] == "remove" and isinstance(loc[1], int):
            self.remove.add(loc[1])
        else:
            self.keys.add(loc[0])

    def leaves_out_rule(self, index: int) -> bool:
        """The rule at ``index`` is left out (the whole file, all its rules, or this one)."""
        return self.whole or "rules" in self.keys or index in self.rules

    def leaves_out_definition(self, key: str) -> bool:
        """The definition written ``key`` is left out (the whole file, all its definitions, or this one)."""
        return self.whole or "definitions" in self.keys or key in self.definitions


def _check(raw: RawRuleset, skip: Skip | None = None) -> list[Diagnostic]:
    """All structural problems of a parsed file (schema and the rule/definition checks); the items
    they make unusable are added to ``skip``."""
    skip = skip if skip is not None else Skip()
    out: list[Diagnostic] = []
    rules = raw.get(("rules",))
    if isinstance(rules, list) and len(rules) > MAX_RULES_PER_FILE:
        out.append(raw.diag(("rules",), _("too many rules ({n:,}; at most {max_rules_per_file:,} in one file)").format(
            n=len(rules), max_rules_per_file=MAX_RULES_PER_FILE),
                            _("split the rules over several files that extend each other"), key=True,
                            code=Code.TOO_MANY_RULES))
        raw.data["rules"] = []  # not checked further: the file is refused anyway
        skip.keys.add("rules")
    for err in _validator().iter_errors(raw.data):
        found = _schema_diags(raw, err)
        out.extend(found)
        loc: Loc = tuple(err.absolute_path)
        name_error = "propertyNames" in err.schema_path  # a bad name: only its own item is left out, not its map
        if found and name_error and loc == ("settings",) and isinstance(err.instance, str) \
                and (meant := meant_name(err.instance)) is not None:
            skip.renamed[err.instance] = meant  # its value is still checked, as the setting it was meant to be
        elif found and _leaves_out(err, loc):
            skip.add(loc if not name_error else loc + (err.instance,))
    if isinstance(raw.data, dict):
        for d in _check_rules(raw):
            out.append(d)
            if d.code in (Code.NO_EFFECT, Code.MANY_EFFECTS, Code.DUPLICATE_RULE_ID):
                skip.rules.add(_index_at(raw, d))
        for d in _check_definitions(raw):
            out.append(d)
        for name, key, d in _check_setting_long_forms(raw):
            out.append(d)
            raw.data["settings"][name].pop(key, None)  # read on as the long form it was meant to be
        out.extend(languages.check_file(raw))
        out.extend(_check_terms(raw))
    else:
        skip.whole = True
    return out


def _index_at(raw: RawRuleset, d: Diagnostic) -> int:
    """The index of the rule a diagnostic of :func:`_check_rules` points into."""
    rules = raw.get(("rules",)) or []
    starts = [raw.origin(("rules", i)).line for i in range(len(rules))]
    return max(bisect.bisect_right(starts, d.line) - 1, 0)


_EXPR_KEYS = ("when", "allow", "deny", "require", "value", "order", "target", "amount", "giver", "give", "place")


def syntax_diagnostics(raw: RawRuleset, skip: Skip | None = None) -> list[Diagnostic]:
    """Expression syntax errors, found even when the file's structure is broken, so that one run
    reports every problem a file has (names and types are checked later, once the file loads).
    With ``skip``: only in the rules and definitions it leaves out (the compiler checks the rest)."""
    found = (_syntax_error(raw, loc, what) for loc, what in _expressions(raw, skip))
    return [d for d in found if d is not None]


def _expressions(raw: RawRuleset, skip: Skip | None) -> Iterator[tuple[Loc, str]]:
    """Where each expression of the rules and definitions (those ``skip`` leaves out, with ``skip``) is written,
    and what to call it."""
    rules = raw.get(("rules",))
    for i, rule in enumerate(rules if isinstance(rules, list) else ()):
        if isinstance(rule, dict) and (skip is None or skip.leaves_out_rule(i)):
            for k in _EXPR_KEYS:
                if k in rule:
                    yield ("rules", i, k), f"{_rule_name(raw, i)} {k}"
    defs = raw.get(("definitions",))
    for name, d in (defs.items() if isinstance(defs, dict) else ()):
        if skip is None or skip.leaves_out_definition(name):
            loc = ("definitions", name, "expr") if isinstance(d, dict) else ("definitions", name)
            yield loc, _("in definition {name!r}").format(name=name.split('(')[0])


def _syntax_error(raw: RawRuleset, loc: Loc, what: str) -> Diagnostic | None:
    """The syntax error of the expression at ``loc`` (called ``what``), at its character; None when it parses."""
    value = raw.get(loc)
    if not isinstance(value, str) or loc not in raw.values:
        return None
    try:
        parse(value)
    except ExprError as e:
        line, col = position_in(raw.text_at(loc), e.offset, raw.text)
        return diag_at(raw.path, raw.text, (line, col), _("{what}: {message}").format(what=what, message=e.message), e.hint, code=e.code)
    return None


def check_text(text: str, path: str, skip: Skip | None = None) -> tuple[RawRuleset | None, list[Diagnostic]]:
    raw, diags = parse_text(text, path)
    if raw is not None:
        diags = diags + _check(raw, skip)
    return raw, diags


def raise_errors(diags: Sequence[Diagnostic], order: Sequence[str] = ()) -> None:
    errors = sorted_diagnostics(unique_diagnostics(diags), order)
    if any(d.severity == Severity.ERROR for d in errors):
        raise GoujiError([d for d in errors if d.severity == Severity.ERROR])


def unique_diagnostics(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diags:
        k = (d.path, d.line, d.col, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


def sorted_diagnostics(diags: Iterable[Diagnostic], order: Sequence[str] = ()) -> list[Diagnostic]:
    """By file (the files of ``order`` first, in that order: a chain from the ruleset asked for to
    its root), then line and column."""
    rank = {p: i for i, p in enumerate(order)}
    return sorted(diags, key=lambda d: (rank.get(d.path, len(rank)), d.path, d.line, d.col))


def load_text(text: str, path: str | os.PathLike[str]) -> RawRuleset:
    """Parse and check ``text`` as the ruleset file ``path`` (which need not exist).

    Returns a :class:`RawRuleset` that matches the schema. Raises :class:`GoujiError` with every
    problem found (YAML syntax, limits, duplicate keys, aliases, tags, schema violations, rules
    without exactly one effect, duplicate ids, expression syntax), sorted by position."""
    p = os.fspath(path)
    raw, diags = check_text(text, p)
    if raw is not None and diags:
        diags = diags + syntax_diagnostics(raw)
    raise_errors(diags)
    assert raw is not None
    return raw


def load_file(path: str | os.PathLike[str]) -> RawRuleset:
    """Read, parse and check one ruleset file (no ``extends`` resolution); see :func:`load_text`.

    Raises :class:`GoujiError` (also when the file cannot be read)."""
    p = os.fspath(path)
    return load_text(read_text(p), p)
