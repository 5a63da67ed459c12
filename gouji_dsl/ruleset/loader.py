"""Read ruleset YAML files with positions, check them against the schema, and resolve ``extends``.

Pipeline: :func:`load_file` / :func:`load_text` read one file within the loader's limits (see
below), build plain data from the YAML events keeping every value's position (a
:class:`~gouji_dsl.diagnostics.SourcePos`), reject duplicate keys, aliases and tags, validate the
data against ``schema/ruleset.schema.json`` (all errors at once, each at the offending node) plus a
few checks JSON Schema cannot express well (one effect per rule, unique ids). :func:`resolve` /
:func:`resolve_text` then follow ``extends`` and merge settings, definitions and rules into a
:class:`~gouji_dsl.ruleset.spec.ResolvedRuleset` (see docs/ruleset-format.md, "Inheritance").
:func:`load_chain` does the same but keeps going past broken files, for ``gouji validate``.

Every problem with user input is raised as one :class:`~gouji_dsl.diagnostics.GoujiError` carrying
all :class:`~gouji_dsl.diagnostics.Diagnostic` s found in every file of the chain, sorted by
position, each with a stable :class:`~gouji_dsl.diagnostics.Code`.

Limits (named constants below; exceeding one is a positioned error, never a hang or a crash):
:data:`MAX_FILE_CHARS`, :data:`MAX_NESTING`, :data:`MAX_NUMBER_CHARS` / :data:`MAX_INTEGER`,
:data:`MAX_RULES_PER_FILE`, :data:`MAX_REFERENCE_CHARS`; YAML aliases and tags are refused.

Where rulesets may come from (the path policy) is :mod:`gouji_dsl.ruleset.load.finding`'s.
"""
from __future__ import annotations

import bisect
import copy
import difflib
import functools
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from gouji_dsl import resources
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos, did_you_mean, quoted
from gouji_dsl.i18n import N_, Language, _
from gouji_dsl.lang.parse import ExprError, parse
from gouji_dsl.ruleset import languages
from gouji_dsl.ruleset.load.finding import Places, Refused, check_is_ruleset, find_referenced, real_path, ruleset_path
from gouji_dsl.ruleset.load.locating import position_in
from gouji_dsl.ruleset.load.reading import (
    Loc,
    RawRuleset,
    diag_at,
    file_diag,
    join_hints,
    parse_text,
    read_text,
)
from gouji_dsl.ruleset.spec import (
    EFFECT_KEYS,
    DefinitionSpec,
    ResolvedRuleset,
    RuleSpec,
    Sentence,
    SettingSpec,
    Text,
    Wording,
)
from gouji_dsl.ruleset.words import Term

__all__ = [
    "TOP_KEYS", "RULE_KEYS", "SETTING_LONG_KEYS", "DEFINITION_LONG_KEYS",
    "MAX_RULES_PER_FILE", "Chain", "ChainFile",
    "load_file", "load_text", "load_chain", "resolve", "resolve_text", "schema",
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


# -- limits (the others: gouji_dsl.ruleset.load.reading, finding)
MAX_RULES_PER_FILE = 10_000
"""Most rules one file may hold."""


_DEF_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$")

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


def _is_setting_long_form(value: Any) -> bool:
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


def _schema_diags(raw: RawRuleset, err: ValidationError) -> list[Diagnostic]:
    loc: Loc = tuple(err.absolute_path)
    v = err.validator
    if v == "oneOf" and len(loc) == 2 and loc[0] == "rules":
        return []  # one effect per rule: reported by _check_rules with a better message
    if "propertyNames" in err.schema_path:
        name = err.instance
        kind = {("settings",): _("setting name"), ("definitions",): _("definition name")}.get(loc, _("key"))
        hint = _schema_hint(err.schema)
        meant = meant_name(name) if loc == ("settings",) and isinstance(name, str) else None
        if meant is not None:
            odd = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'a control character')}"
                                          for c in name if not (c.isascii() and (c.isalnum() or c == "_"))))
            hint = _("it holds {odd}, which shows as nothing or as another letter; its value is checked as {meant!r}").format(odd=odd, meant=meant)
        return [raw.diag(loc + (name,), _("invalid {kind} {name!r}").format(kind=kind, name=name), hint, key=True, code=Code.INVALID_NAME)]
    if v == "additionalProperties":
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
    if v == "required":
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
    label = _label(raw, loc)
    if v == "type":
        hint = None
        if err.instance is None:
            hint = _("the value is missing")
        elif loc == ("rules",):
            hint = _("write rules as a list: each rule starts with `- id: ...`")
        elif isinstance(err.instance, (list, dict)) and "string" in err.validator_value:
            hint = _("quote the value if it is meant as text")
        return [raw.diag(loc, _("{label}: expected {expected}, got {kind}").format(
            label=label, expected=_expected(err.validator_value), kind=_kind(err.instance)), hint,
                         code=Code.WRONG_TYPE)]
    if v == "pattern":
        return [raw.diag(loc, _("{label}: {instance!r} is not a valid name").format(
            label=label, instance=err.instance), _schema_hint(err.schema),
                         code=Code.INVALID_NAME)]
    if v == "uniqueItems" and isinstance(err.instance, list):
        seen: list[Any] = []
        for i, item in enumerate(err.instance):
            if item in seen:
                return [raw.diag(loc + (i,), _("{item!r} is listed twice in {label}").format(item=item, label=label), _("remove the repeated entry"),
                                 code=Code.DUPLICATE_ENTRY)]
            seen.append(item)
    if v == "minLength":
        return [raw.diag(loc, _("{label} must not be empty").format(label=label), code=Code.EMPTY_VALUE)]
    if v == "enum":
        return [raw.diag(loc, _("{label}: {instance!r} is not allowed").format(label=label, instance=err.instance),
                         _("expected one of: ") + ", ".join(map(str, err.validator_value)), code=Code.VALUE_NOT_ALLOWED)]
    return [raw.diag(loc, _("{label}: {message}").format(label=label, message=err.message), code=Code.SCHEMA_VIOLATION)]


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
            effect = effects[0]
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
        if not isinstance(written, dict) or "value" not in written or _is_setting_long_form(written):
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
        m = _DEF_KEY.match(key)
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
class _Skip:
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


def _check(raw: RawRuleset, skip: _Skip | None = None) -> list[Diagnostic]:
    """All structural problems of a parsed file (schema and the rule/definition checks); the items
    they make unusable are added to ``skip``."""
    skip = skip if skip is not None else _Skip()
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


def _syntax_diags(raw: RawRuleset, skip: _Skip | None = None) -> list[Diagnostic]:
    """Expression syntax errors, found even when the file's structure is broken, so that one run
    reports every problem a file has (names and types are checked later, once the file loads).
    With ``skip``: only in the rules and definitions it leaves out (the compiler checks the rest)."""

    out: list[Diagnostic] = []

    def check(loc: Loc, what: str) -> None:
        value = raw.get(loc)
        if not isinstance(value, str) or loc not in raw.values:
            return
        try:
            parse(value)
        except ExprError as e:
            line, col = position_in(raw.text_at(loc), e.offset, raw.text)
            out.append(diag_at(raw.path, raw.text, (line, col), _("{what}: {message}").format(what=what, message=e.message), e.hint, code=e.code))

    rules = raw.get(("rules",))
    if isinstance(rules, list):
        for i, rule in enumerate(rules):
            if isinstance(rule, dict) and (skip is None or i in skip.rules or "rules" in skip.keys or skip.whole):
                for k in _EXPR_KEYS:
                    if k in rule:
                        check(("rules", i, k), f"{_rule_name(raw, i)} {k}")
    defs = raw.get(("definitions",))
    if isinstance(defs, dict):
        for name, d in defs.items():
            if skip is not None and not (name in skip.definitions or "definitions" in skip.keys or skip.whole):
                continue
            loc = ("definitions", name, "expr") if isinstance(d, dict) else ("definitions", name)
            check(loc, _("in definition {name!r}").format(name=name.split('(')[0]))
    return out


def _load(text: str, path: str, skip: _Skip | None = None) -> tuple[RawRuleset | None, list[Diagnostic]]:
    raw, diags = parse_text(text, path)
    if raw is not None:
        diags = diags + _check(raw, skip)
    return raw, diags


def _raise(diags: Sequence[Diagnostic], order: Sequence[str] = ()) -> None:
    errors = _sorted(_unique(diags), order)
    if any(d.severity == Severity.ERROR for d in errors):
        raise GoujiError([d for d in errors if d.severity == Severity.ERROR])


def _unique(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diags:
        k = (d.path, d.line, d.col, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


def _sorted(diags: Iterable[Diagnostic], order: Sequence[str] = ()) -> list[Diagnostic]:
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
    raw, diags = _load(text, p)
    if raw is not None and diags:
        diags = diags + _syntax_diags(raw)
    _raise(diags)
    assert raw is not None
    return raw


def load_file(path: str | os.PathLike[str]) -> RawRuleset:
    """Read, parse and check one ruleset file (no ``extends`` resolution); see :func:`load_text`.

    Raises :class:`GoujiError` (also when the file cannot be read)."""
    p = os.fspath(path)
    return load_text(read_text(p), p)


# --------------------------------------------------------------------------------------------------
# resolving extends


@dataclass
class ChainFile:
    """One file of an ``extends`` chain as loaded: its raw data (None when it could not be read or
    parsed), its own problems, and the parts of it left out of the merge because they are broken."""

    path: str
    raw: RawRuleset | None
    diagnostics: list[Diagnostic]
    skip: _Skip = field(default_factory=_Skip)


@dataclass
class Chain:
    """A ruleset and its ancestors (``files[0]`` is the one asked for), loaded past their problems.

    ``diagnostics`` holds every problem of every file (structure, limits, ``extends``, ``remove``)
    and the warnings of the merge (a likely misspelt override), sorted by position;
    ``resolved`` is the merge of what could be used (None when a file of the chain could not be
    read at all, or when the parent could not be found)."""

    files: list[ChainFile]
    diagnostics: list[Diagnostic]
    resolved: ResolvedRuleset | None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def remerge(self, drop_settings: dict[str, set[str]]) -> ResolvedRuleset | None:
        """The merge again, leaving out the settings ``drop_settings[path]`` of each file (settings
        found broken later, e.g. of the wrong type): the problems of the rest can then be found."""
        return _merge_chain(self.files, drop_settings)[0]


class _Resolver:
    def __init__(self, places: Places):
        self.places = places

    def load(self, path: str, text: str | None, *, gate: bool) -> tuple[list[ChainFile], Diagnostic | None]:
        """The chain from ``path`` up. ``gate``: refuse ``path`` if it is not a ruleset (a file the
        user did not name). Returns the files and, when ``path`` itself was refused, why."""
        files: list[ChainFile] = []
        seen: dict[Path, str] = {}
        at_ref: tuple[ChainFile, str] | None = None  # the file whose extends led here, and the ref
        while True:
            try:
                if text is None:
                    text = read_text(path)
                if gate:
                    check_is_ruleset(path, text)
            except (GoujiError, Refused) as e:
                d = e.diagnostics[0] if isinstance(e, GoujiError) else file_diag(path, e.message, e.hint, code=e.code)
                if at_ref is None:
                    return files, d
                child = at_ref[0]
                assert child.raw is not None
                child.diagnostics.append(child.raw.diag(("extends",), d.message, d.hint, code=d.code))
                child.skip.keys.add("extends")
                files.append(ChainFile(path, None, []))  # the parent is unusable: nothing to merge
                return files, None
            seen[real_path(Path(path))] = path
            skip = _Skip()
            raw, diags = _load(text, path, skip)
            if raw is not None:
                diags = diags + _syntax_diags(raw, skip)
            f = ChainFile(path, raw, list(diags), skip)
            files.append(f)
            ref = raw.get(("extends",)) if raw is not None and not skip.whole else None
            if not isinstance(ref, str) or not ref or "extends" in skip.keys:
                return files, None
            folder = Path(path).parent
            try:
                parent = find_referenced(self.places, folder, ref, me=real_path(Path(path)), what=_("parent ruleset"))
            except Refused as e:
                f.diagnostics.append(raw.diag(("extends",), e.message, e.hint,  # type: ignore[union-attr]
                                              code=Code.EXTENDS_NOT_FOUND if e.code == Code.RULESET_NOT_FOUND else e.code))
                f.skip.keys.add("extends")
                files.append(ChainFile("", None, []))
                return files, None
            real = real_path(parent)
            if real in seen:
                shown = [g.path for g in files[list(seen).index(real):]] + [seen[real]]
                f.diagnostics.append(raw.diag(("extends",), _("extends cycle: ") + " -> ".join(shown),  # type: ignore[union-attr]
                                              _("a ruleset cannot (indirectly) extend itself"), code=Code.EXTENDS_CYCLE))
                f.skip.keys.add("extends")
                files.append(ChainFile("", None, []))
                return files, None
            path, text, gate, at_ref = os.path.normpath(str(parent)), None, True, (f, ref)


def _merge_chain(files: Sequence[ChainFile], drop_settings: dict[str, set[str]] | None = None
                 ) -> tuple[ResolvedRuleset | None, list[Diagnostic]]:
    """Merge the chain from its root down; None when a file could not be read."""
    parent: ResolvedRuleset | None = None
    diags: list[Diagnostic] = []
    for f in reversed(files):
        if f.raw is None or f.skip.whole:
            return None, diags
        skip = f.skip
        if drop_settings and drop_settings.get(f.path):
            skip = replace(skip, settings=skip.settings | drop_settings[f.path])
        parent, found = _merge(f.raw, parent, skip)
        diags.extend(found)
    return parent, diags


def load_chain(name_or_path: str | os.PathLike[str], *, text: str | None = None,
               search: Sequence[str | os.PathLike[str]] = (), referrer: str | os.PathLike[str] | None = None,
               layers: Sequence[tuple[str, str]] = ()) -> Chain:
    """Load a ruleset and its ``extends`` chain past their problems (for ``gouji validate`` and the
    editor): every file's problems are collected, and what could be used is merged.

    ``text``: an unsaved buffer to use as the file ``name_or_path`` (which need not exist).
    ``referrer``: the file that named this ruleset (a scenario, a record); then the reference must
    obey :func:`find_ruleset`'s rules. Without it the user named the file: it is read wherever it is.
    ``layers``: (path, text) of files that are not on disk, each extending the one before it and the
    first extending ``name_or_path`` (the generated variants of ``--set KEY=VALUE``,
    :mod:`gouji_dsl.ruleset.overrides`): checked and merged exactly as files of the chain.
    Never raises for bad input: a file that cannot be found is a diagnostic of the chain."""
    s = os.fspath(name_or_path)
    try:
        if text is not None:
            path, home = s, Path(s).parent
        elif referrer is not None:
            home = Path(os.fspath(referrer)).parent
            path = str(find_referenced(Places(home, search), home, s))
        else:
            found = ruleset_path(name_or_path, search=search)
            path, home = os.fspath(found), found.parent
    except GoujiError as e:
        return Chain([], list(e.diagnostics), None)
    except Refused as e:
        return Chain([], [file_diag(os.fspath(referrer or s), e.message, e.hint, code=e.code)], None)
    resolver = _Resolver(Places(home, search))
    files, refused = resolver.load(path, text, gate=referrer is not None)
    if refused is not None:
        return Chain(files, [refused], None)
    for layer_path, layer_text in layers:
        skip = _Skip()
        raw, diags = _load(layer_text, layer_path, skip)
        if raw is not None:
            diags = diags + _syntax_diags(raw, skip)
        files.insert(0, ChainFile(layer_path, raw, list(diags), skip))
    resolved, merge_diags = _merge_chain(files)
    all_diags = [d for f in files for d in f.diagnostics] + merge_diags
    if resolved is not None:
        all_diags += list(resolved.warnings)
    order = [f.path for f in files]
    return Chain(files, _sorted(_unique(all_diags), order), resolved)


def _resolved_or_raise(chain: Chain) -> ResolvedRuleset:
    if chain.errors or chain.resolved is None:
        # the whole picture: add the expression syntax of rules the merge kept (the compiler would)
        extra = [d for f in chain.files if f.raw is not None for d in _syntax_diags(f.raw)]
        _raise(chain.errors + extra if chain.errors else extra, chain.paths)
        if chain.resolved is None:  # pragma: no cover - an unreadable file always has an error
            raise GoujiError(file_diag(chain.paths[0] if chain.paths else "?", _("cannot load the ruleset"),
                                        code=Code.UNSPECIFIED))
    return chain.resolved


def resolve(name_or_path: str | os.PathLike[str], *, search: Sequence[str | os.PathLike[str]] = (),
            referrer: str | os.PathLike[str] | None = None) -> ResolvedRuleset:
    """Load a ruleset by bundled name or path and resolve its ``extends`` chain.

    ``search``: extra folders where names (the argument and ``extends:`` names) are looked up, after
    the sibling ``NAME.yaml`` and before the bundled rulesets (with :func:`rules_path`). Parents
    are found as documented in docs/ruleset-format.md; a workspace ``NAME.yaml`` may extend the
    bundled ``NAME``. ``referrer``: see :func:`load_chain`.

    Returns a :class:`ResolvedRuleset` (``chain`` = file paths from this ruleset to the root;
    ``inherited`` flags are relative to this ruleset; ``warnings`` the merge's warnings). Raises
    :class:`GoujiError` with every problem of every file of the chain: unreadable file, YAML
    syntax, limits, schema violations, duplicate ids, missing, refused or cyclic ``extends`` (at the
    ``extends:`` value), unknown ``remove`` ids."""
    return _resolved_or_raise(load_chain(name_or_path, search=search, referrer=referrer))


def resolve_text(text: str, path: str | os.PathLike[str], *,
                 search: Sequence[str | os.PathLike[str]] = ()) -> ResolvedRuleset:
    """Resolve an unsaved buffer ``text`` as if it were the file ``path`` (which need not exist);
    parents are read from disk relative to ``path``. Same result and errors as :func:`resolve`."""
    return _resolved_or_raise(load_chain(path, text=text, search=search))


def _deep_merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(parent)
    for k, v in child.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _setting_positions(raw: RawRuleset) -> dict[str, tuple[dict[tuple[str | int, ...], SourcePos], dict[tuple[str | int, ...], SourcePos]]]:
    """For each setting of the file: where every value below its value was written, and every key,
    by path relative to the value (one pass over the file's nodes)."""
    out: dict[str, tuple[dict[tuple[str | int, ...], SourcePos], dict[tuple[str | int, ...], SourcePos]]] = {}
    settings = raw.get(("settings",))
    if not isinstance(settings, dict):
        return out
    long_form = {name for name, w in settings.items() if _is_setting_long_form(w)}
    for i, table in enumerate((raw.values, raw.keys)):
        for loc in table:
            if len(loc) < 3 or loc[0] != "settings":
                continue
            name = loc[1]
            skip = 3 if name in long_form else 2
            if name in long_form and loc[2] != "value" or len(loc) <= skip:
                continue
            out.setdefault(name, ({}, {}))[i][loc[skip:]] = raw.origin(loc, key=bool(i))
    return out


def _own_settings(raw: RawRuleset, parent: ResolvedRuleset | None, skip: _Skip,
                  langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> dict[str, SettingSpec]:
    out = {name: replace(s, inherited=True) for name, s in (parent.settings.items() if parent else ())}
    written_all = raw.get(("settings",)) if "settings" not in skip.keys else None
    all_positions = _setting_positions(raw)
    for name, written in (written_all if isinstance(written_all, dict) else {}).items():
        if name in skip.settings:
            continue
        loc: Loc = ("settings", name)
        raw_name = name
        if name in skip.renamed:  # its name is reported (invisible characters); its value is checked under the meant name
            if isinstance(written_all, dict) and skip.renamed[name] in written_all:
                continue
            name = skip.renamed[name]
        says = source = None
        value = written
        type_decl: tuple[Text, ...] = ()
        if _is_setting_long_form(written):
            value = written["value"]
            source = languages.wording(written.get("source"), langs, raw.origin(loc + ("source",)))
            says = languages.wording(written.get("says"), langs, raw.origin(loc + ("says",)))
            if isinstance(written.get("type"), str):
                type_decl = (raw.text_at(loc + ("type",)),)
            loc = loc + ("value",)
        origin = raw.origin(loc)
        name_origin = raw.origin(("settings", raw_name), key=True)
        own_keys = {str(k): raw.origin(loc + (k,)) for k, v in value.items() if v is not None} \
            if isinstance(value, dict) else {}
        positions, key_positions = all_positions.get(raw_name, ({}, {}))
        prev = out.get(name)
        ruleset = raw.get(("ruleset",)) if isinstance(raw.get(("ruleset",)), str) else Path(raw.path).stem
        if prev is not None and isinstance(prev.value, dict) and isinstance(value, dict):
            key_origins = {k: o for k, o in prev.key_origins.items() if value.get(k, ...) is not None}
            key_origins.update(own_keys)
            sentences = prev.sentences
            if says is not None:  # about the keys written here, unless they are all of the map's
                keys = () if set(map(str, value)) >= set(map(str, prev.value)) else tuple(map(str, value))
                sentences = (sentences if keys else ()) + (Sentence(says, source, ruleset, keys),)
            merged_positions = {p: o for p, o in prev.positions.items() if _still_there(value, p)}
            merged_positions.update(positions)
            merged_keys = {p: o for p, o in prev.key_positions.items() if _still_there(value, p)}
            merged_keys.update(key_positions)
            out[name] = SettingSpec(name, _deep_merge(prev.value, value), origin,
                                    says if says is not None else prev.says,
                                    # a sentence of this file is sourced by this file (or by nothing)
                                    source if source is not None or says is not None else prev.source,
                                    key_origins, inherited=False, sentences=sentences,
                                    type_decls=prev.type_decls + type_decl,
                                    first_value=prev.first_value, first_origin=prev.first_origin,
                                    positions=merged_positions, key_positions=merged_keys, name_origin=name_origin)
        else:
            first = prev is None
            out[name] = SettingSpec(name, copy.deepcopy(value), origin, says, source, own_keys, inherited=False,
                                    sentences=(Sentence(says, source, ruleset),) if says is not None else (),
                                    type_decls=(prev.type_decls if prev is not None else ()) + type_decl,
                                    first_value=copy.deepcopy(value) if first else prev.first_value,  # type: ignore[union-attr]
                                    first_origin=origin if first else prev.first_origin,  # type: ignore[union-attr]
                                    positions=positions, key_positions=key_positions, name_origin=name_origin)
    return out


def _still_there(child: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """A parent's position at ``path`` still describes the merged value (the child did not replace
    the value above it by something that is not a mapping)."""
    cur: Any = child
    for part in path:
        if not isinstance(cur, dict) or part not in cur:
            return True  # the child left it to the parent
        cur = cur[part]
        if not isinstance(cur, dict):
            return False  # the child replaced it
    return True


def _own_definitions(raw: RawRuleset, parent: ResolvedRuleset | None, skip: _Skip,
                     langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> dict[str, DefinitionSpec]:
    out = {name: replace(d, inherited=True) for name, d in (parent.definitions.items() if parent else ())}
    written_all = raw.get(("definitions",)) if "definitions" not in skip.keys else None
    for key, written in (written_all if isinstance(written_all, dict) else {}).items():
        m = _DEF_KEY.match(key)
        if key in skip.definitions or m is None:
            continue
        name = m.group(1)
        params = tuple(p.strip() for p in m.group(2).split(",") if p.strip()) if m.group(2) else ()
        loc: Loc = ("definitions", key)
        says = source = None
        if isinstance(written, dict):
            says = languages.wording(written.get("says"), langs, raw.origin(loc + ("says",)))
            source = languages.wording(written.get("source"), langs, raw.origin(loc + ("source",)))
            expr = raw.text_at(loc + ("expr",))
        else:
            expr = raw.text_at(loc)
        out[name] = DefinitionSpec(name, params, expr, raw.origin(loc, key=True), says, source, inherited=False)
    return out


def _rule_spec(raw: RawRuleset, index: int, langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> RuleSpec:
    loc: Loc = ("rules", index)
    rule: dict[str, Any] = raw.get(loc)
    effect = next(k for k in rule if k in EFFECT_KEYS)

    def opt(key: str) -> Text | None:
        return raw.text_at(loc + (key,)) if key in rule else None

    return RuleSpec(
        id=rule["id"], on=raw.text_at(loc + ("on",)), effect=effect, effect_expr=raw.text_at(loc + (effect,)),
        origin=raw.origin(loc + ("id",)), when=opt("when"), target=opt("target"), amount=opt("amount"),
        giver=opt("giver"),
        says=languages.wording(rule.get("says"), langs, raw.origin(loc + ("says",))),
        source=languages.wording(rule.get("source"), langs, raw.origin(loc + ("source",))),
        before=tuple(rule.get("before") or ()), after=tuple(rule.get("after") or ()), file=raw.path,
        said_by=_names(rule.get("said_by")), said_by_origin=raw.origin(loc + ("said_by",)) if "said_by" in rule else None,
        relation_origins=tuple((name, raw.origin(loc + (key, i))) for key in ("before", "after")
                               for i, name in enumerate(rule.get(key) or ()) if isinstance(name, str)),
    )


def _names(value: Any) -> tuple[str, ...]:
    """A name or a list of names (``said_by:``) as a tuple."""
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


OVERRIDE_SIMILARITY = 0.85
"""How close (difflib ratio) a new rule id must be to an inherited id of the same hook to be warned
about as a likely misspelt override."""


def _merge(raw: RawRuleset, parent: ResolvedRuleset | None, skip: _Skip) -> tuple[ResolvedRuleset, list[Diagnostic]]:
    """Merge one file onto its parent (leaving out ``skip``); returns the result and the problems
    of the merge (``remove:`` of unknown ids). Linear in the number of rules."""
    diags: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    rules: list[RuleSpec] = [replace(r, inherited=True) for r in (parent.rules if parent else ())]
    inherited_ids = [r.id for r in rules]
    removed = list(parent.removed if parent else ())
    removing = raw.get(("remove",)) if "remove" not in skip.keys else None
    drop: set[str] = set()
    for i, rid in enumerate(removing if isinstance(removing, list) else ()):
        if i in skip.remove or not isinstance(rid, str):
            continue
        if rid in inherited_ids:
            drop.add(rid)
            removed.append(rid)
        else:
            hint = did_you_mean(rid, inherited_ids) if parent else _("this ruleset has no `extends:`, so nothing to remove")
            diags.append(raw.diag(("remove", i), _("cannot remove {rid!r}: no inherited rule has this id").format(rid=rid), hint,
                                  code=Code.REMOVE_UNKNOWN))
    if drop:
        rules = [r for r in rules if r.id not in drop]
    at = {r.id: n for n, r in enumerate(rules)}
    own = raw.get(("rules",)) if "rules" not in skip.keys else None
    langs = _languages(raw, parent, skip)
    diags.extend(languages.check_declared(raw, langs))
    specs = [_rule_spec(raw, i, langs) for i in range(len(own) if isinstance(own, list) else 0) if i not in skip.rules]
    own_ids = {s.id for s in specs}
    by_hook: dict[str, list[str]] = {}
    for r in rules:
        if r.id not in own_ids:  # an inherited rule this file does not replace
            by_hook.setdefault(r.on.text, []).append(r.id)
    for i, spec in zip((i for i in range(len(own) if isinstance(own, list) else 0) if i not in skip.rules), specs):
        n = at.get(spec.id)
        if n is None:
            rules.append(spec)
            candidates = [c for c in by_hook.get(spec.on.text, ()) if abs(len(c) - len(spec.id)) <= 3]
            if candidates:
                close = difflib.get_close_matches(spec.id, candidates, n=1, cutoff=OVERRIDE_SIMILARITY)
                if close:
                    warnings.append(raw.diag(
                        ("rules", i, "id"), _("rule {id!r} is new: no inherited rule has this id").format(id=spec.id),
                        _("did you mean {close!r}? (a rule with an inherited id replaces it; "
                        "this one is added beside it)").format(close=close[0]), code=Code.LIKELY_MISSPELT_OVERRIDE, severity=Severity.WARNING))
        else:
            was = rules[n].on.text
            if was != spec.on.text:
                warnings.append(raw.diag(
                    ("rules", i, "on"), _("rule {id!r} replaces the inherited rule of this id, which answers "
                    "{was!r}, with one that answers {text!r}: {was!r} loses that rule").format(id=spec.id, was=was, text=spec.on.text),
                    _("to add a rule, give it a new id; to replace the parent's, keep `on: {was}`").format(was=was),
                    code=Code.OVERRIDE_CHANGES_HOOK, severity=Severity.WARNING))
            rules[n] = replace(spec, overrides=rules[n].origin)
    ids = {r.id for r in rules}
    data = raw.data
    name = data.get("ruleset") if "ruleset" not in skip.keys else None

    return ResolvedRuleset(
        name=name if isinstance(name, str) else Path(raw.path).stem, path=raw.path,
        chain=(raw.path,) + (parent.chain if parent else ()),
        title=_top_text(raw, "title", skip, langs), description=_top_text(raw, "description", skip, langs),
        source=_top_text(raw, "source", skip, langs),
        settings=_own_settings(raw, parent, skip, langs), definitions=_own_definitions(raw, parent, skip, langs),
        rules=tuple(rules), removed=tuple(dict.fromkeys(r for r in removed if r not in ids)), text=raw.text,
        warnings=tuple(warnings), languages=tuple(langs), words=_words(raw, parent, skip, langs),
    ), diags


def _top_text(raw: RawRuleset, key: str, skip: _Skip, langs: Sequence[Language]) -> Wording | None:
    """The file's own ``title``, ``description`` or ``source``."""
    return None if key in skip.keys else languages.wording(raw.get((key,)), langs, raw.origin((key,)))


def _languages(raw: RawRuleset, parent: ResolvedRuleset | None, skip: _Skip) -> tuple[Language, ...]:
    """The languages of the file's texts: its own ``languages:``, else its parent's, else English."""
    own = languages.declared(raw.data) if "languages" not in skip.keys else None
    return own or (parent.languages if parent else languages.DEFAULT_LANGUAGES)


def _words(raw: RawRuleset, parent: ResolvedRuleset | None, skip: _Skip,
           langs: Sequence[Language]) -> dict[str, dict[str, Wording]]:
    """The words of the game (``words:``): the parent's, each entry this file gives replacing its."""
    out = {group: dict(entries) for group, entries in (parent.words.items() if parent else ())}
    written = raw.get(("words",)) if "words" not in skip.keys else None
    for group in languages.WORD_GROUPS:
        entries = written.get(group) if isinstance(written, dict) else None
        for key, value in (entries.items() if isinstance(entries, dict) else ()):
            w = languages.wording(value, langs, raw.origin(("words", group, key)))
            if w is not None:
                out.setdefault(group, {})[str(key)] = w
    return out
