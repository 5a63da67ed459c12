"""Read ruleset YAML files with positions, check them against the schema, and resolve ``extends``.

Pipeline: :func:`load_file` / :func:`load_text` parse one file with ``yaml.compose`` (safe loader,
every node keeps its line and column), reject duplicate keys, validate the data against
``schema/ruleset.schema.json`` (all errors at once, each at the offending node) plus a few checks
JSON Schema cannot express well (one effect per rule, unique ids). :func:`resolve` /
:func:`resolve_text` then follow ``extends`` and merge settings, definitions and rules into a
:class:`~gouji_dsl.ruleset.spec.ResolvedRuleset` (see docs/ruleset-format.md, "Inheritance").

Every problem with user input is raised as one :class:`~gouji_dsl.diagnostics.GoujiError` carrying
all :class:`~gouji_dsl.diagnostics.Diagnostic` s found in the file, sorted by position.
"""
from __future__ import annotations

import bisect
import copy
import functools
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from gouji_dsl import resources
from gouji_dsl.diagnostics import Code, Diagnostic, DiagnosticBag, GoujiError, Severity, SourcePos, did_you_mean
from gouji_dsl.ruleset.spec import EFFECT_KEYS, DefinitionSpec, ResolvedRuleset, RuleSpec, SettingSpec, Text

__all__ = [
    "TOP_KEYS", "RULE_KEYS", "SETTING_LONG_KEYS", "DEFINITION_LONG_KEYS",
    "RawRuleset", "load_file", "load_text", "resolve", "resolve_text", "position_in",
    "ruleset_path", "list_bundled", "schema",
]

TOP_KEYS: tuple[str, ...] = (
    "ruleset", "extends", "title", "description", "source", "settings", "definitions", "rules", "remove",
)
"""Keys allowed at the top of a ruleset file (must equal the schema's top-level properties)."""

RULE_KEYS: tuple[str, ...] = (
    "id", "on", "when", *EFFECT_KEYS, "target", "amount", "giver", "says", "source", "before", "after",
)
"""Keys allowed in a rule (must equal the schema's rule properties)."""

SETTING_LONG_KEYS: tuple[str, ...] = ("value", "says", "source")
"""Keys of the long form of a setting ``{value, says, source}``."""

DEFINITION_LONG_KEYS: tuple[str, ...] = ("expr", "says", "source")
"""Keys of the long form of a definition ``{expr, says, source}``."""

NAME_EFFECTS: tuple[str, ...] = ("mark", "unmark", "count")
TARGET_EFFECTS: tuple[str, ...] = ("mark", "unmark", "count", "place", "give")
"""Effects whose argument is a flag / counter name rather than an expression."""

RULESET_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")

Loc = tuple[Any, ...]  # a path into the data: str keys and int indexes

_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
_DEF_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$")

# --------------------------------------------------------------------------------------------------
# small helpers


@functools.lru_cache(maxsize=16)
def _lines(text: str) -> list[str]:
    """The lines of ``text`` split at YAML line breaks (cached: do not mutate)."""
    return _LINE_BREAK.split(text)


def _source_line(text: str, line: int) -> str | None:
    lines = _lines(text)
    return lines[line - 1] if 1 <= line <= len(lines) else None


def _diag(path: str, text: str, pos: SourcePos | tuple[int, int], message: str, hint: str | None = None, *,
          code: str = Code.UNSPECIFIED, severity: str = Severity.ERROR) -> Diagnostic:
    """A diagnostic in ``text`` (the file ``path``) at ``pos`` (a SourcePos or ``(line, col)``)."""
    if not isinstance(pos, SourcePos):
        pos = SourcePos(path, pos[0], pos[1])
    return Diagnostic.at(pos, message, hint=hint, source_line=_source_line(text, pos.line) if pos.line > 0 else None,
                         code=code, severity=severity)


def _join(hints: Iterable[str | None]) -> str | None:
    out = ""
    for h in hints:
        if h:
            out += (" " if out.endswith("?") else "; " if out else "") + h
    return out or None


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The ruleset JSON Schema (draft-07) as a dict, read once from :func:`resources.schema_path`."""
    with open(resources.schema_path(), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=1)
def _validator() -> Draft7Validator:
    return Draft7Validator(schema())


def _bundled_dir() -> Path | None:
    try:
        return resources.rules_dir()
    except FileNotFoundError:
        return None


def list_bundled() -> list[str]:
    """Names of the bundled rulesets (stems of ``rules/*.yaml``), sorted; ``[]`` when there are none."""
    try:
        return resources.bundled_names()
    except FileNotFoundError:
        return []


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "nothing (null)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_TYPE_NAMES = {"string": "a string", "number": "a number", "integer": "an integer", "boolean": "a boolean",
               "object": "a mapping", "array": "a list", "null": "null"}


def _expected(types: Any) -> str:
    names = [_TYPE_NAMES.get(t, t) for t in ([types] if isinstance(types, str) else list(types))]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _expr_source(value: Any) -> str:
    """Expression text of a scalar: strings as is, YAML booleans as ``true``/``false``, numbers as digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return value if isinstance(value, str) else str(value)


def _is_setting_long_form(value: Any) -> bool:
    # Must match the `if` of #/definitions/setting in the schema.
    return isinstance(value, dict) and "value" in value and set(value) <= set(SETTING_LONG_KEYS)


# --------------------------------------------------------------------------------------------------
# one file, with positions


@dataclass
class RawRuleset:
    """One ruleset file as parsed: plain data plus the YAML node of every value and key.

    ``data`` is plain Python data (mapping keys are always strings: the key as written, so ``on:``
    stays ``"on"``). ``values[loc]`` / ``keys[loc]`` are the YAML nodes of the value / key at
    ``loc``, a tuple path like ``("rules", 0, "id")`` (the same shape as jsonschema's
    ``absolute_path``)."""

    path: str
    text: str
    data: Any
    values: dict[Loc, yaml.Node] = field(default_factory=dict)
    keys: dict[Loc, yaml.Node] = field(default_factory=dict)

    def get(self, loc: Loc, default: Any = None) -> Any:
        """The plain value at ``loc`` or ``default``."""
        cur = self.data
        for part in loc:
            try:
                cur = cur[part]
            except (KeyError, IndexError, TypeError):
                return default
        return cur

    def origin(self, loc: Loc, *, key: bool = False) -> SourcePos:
        """Where the value (or, with ``key=True``, the key) at ``loc`` was written; falls back to the
        nearest enclosing node when ``loc`` has no node of its own."""
        return self._where(loc, key=key)[0]

    def _where(self, loc: Loc, *, key: bool = False) -> tuple[SourcePos, str]:
        table = self.keys if key else self.values
        node = table.get(loc)
        while node is None and loc:
            loc = loc[:-1]
            node = self.values.get(loc)
        if node is None:
            return SourcePos(self.path, 1, 1), ""
        return _node_origin(self.path, self.text, node)

    def text_at(self, loc: Loc) -> Text:
        """The value at ``loc`` as expression :class:`Text` (booleans/numbers turned into their text)."""
        pos, style = self._where(loc)
        return Text(_expr_source(self.get(loc)), pos, style)

    def diag(self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False,
             code: str = Code.UNSPECIFIED, severity: str = Severity.ERROR) -> Diagnostic:
        """A :class:`Diagnostic` at the value (or key) at ``loc``."""
        o = self.origin(loc, key=key)
        return _diag(self.path, self.text, o, message, hint, code=code, severity=severity)


def _node_origin(path: str, text: str, node: yaml.Node) -> tuple[SourcePos, str]:
    """The position of ``node``'s value (its first character, and the end just after it) and its
    scalar style (``""`` for a plain scalar or a collection)."""
    mark, end = node.start_mark, node.end_mark
    line, col = mark.line + 1, mark.column + 1
    end_line, end_col = end.line + 1, end.column + 1
    if not isinstance(node, yaml.ScalarNode):
        return SourcePos(path, line, col, end_line, end_col), ""
    style = node.style or ""
    if style in ("'", '"'):
        col += 1
        end_col -= 1
    elif style in ("|", ">"):
        # The value starts on the line after the indicator, at the block's indentation.
        lines = _lines(text)
        for n in range(mark.line + 1, min(end.line + 1, len(lines))):
            stripped = lines[n].lstrip(" ")
            if stripped:
                return SourcePos(path, mark.line + 2, len(lines[n]) - len(stripped) + 1, end_line, end_col), style
    return SourcePos(path, line, col, end_line, end_col), style


class _Builder:
    """Turns a composed YAML node tree into plain data, recording nodes and structural problems."""

    def __init__(self, path: str, text: str, bag: DiagnosticBag):
        self.path, self.text, self.bag = path, text, bag
        self.values: dict[Loc, yaml.Node] = {}
        self.keys: dict[Loc, yaml.Node] = {}
        self.ctor = yaml.SafeLoader("")
        self.active: set[int] = set()

    def error(self, node: yaml.Node, message: str, hint: str | None = None, *, code: str = Code.UNSPECIFIED) -> None:
        o, _ = _node_origin(self.path, self.text, node)
        self.bag.add(_diag(self.path, self.text, o, message, hint, code=code))

    def build(self, node: yaml.Node, loc: Loc) -> Any:
        self.values[loc] = node
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if id(node) in self.active:
            self.error(node, "recursive YAML alias", "a ruleset cannot contain itself")
            return None
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                if node.tag != _SEQ_TAG:
                    self.error(node, f"unsupported YAML tag {node.tag!r}", "remove the tag")
                return [self.build(item, loc + (i,)) for i, item in enumerate(node.value)]
            if node.tag != _MAP_TAG:
                self.error(node, f"unsupported YAML tag {node.tag!r}", "remove the tag")
            out: dict[str, Any] = {}
            first: dict[str, yaml.Node] = {}
            for key, value in node.value:
                if key.tag == _MERGE_TAG:
                    self.error(key, "YAML merge keys (<<) are not supported in rulesets",
                               "write the keys out, or use `extends:` to share rules")
                    continue
                if not isinstance(key, yaml.ScalarNode):
                    self.error(key, "a key must be a plain word, not a list or mapping")
                    continue
                name = key.value
                if name in first:
                    self.error(key, f"duplicate key {name!r}",
                               f"first written at line {first[name].start_mark.line + 1}; remove one of them")
                    continue
                first[name] = key
                self.keys[loc + (name,)] = key
                out[name] = self.build(value, loc + (name,))
            return out
        finally:
            self.active.discard(id(node))

    def scalar(self, node: yaml.ScalarNode) -> Any:
        try:
            value = self.ctor.construct_object(node, deep=True)
        except yaml.YAMLError as e:
            self.error(node, f"cannot read this value: {getattr(e, 'problem', None) or e}")
            return node.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return node.value  # timestamps, binary, ...: keep the text as written


def _yaml_error(path: str, text: str, e: yaml.YAMLError) -> Diagnostic:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    if isinstance(e, yaml.reader.ReaderError):
        before = text[: e.position]
        line = len(_lines(before))
        col = len(_lines(before)[-1]) + 1
        return _diag(path, text, (line, col), f"invalid character in YAML: {e.reason}", code=Code.NOT_TEXT,
                     hint="remove the character or save the file as UTF-8")
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    hint = None
    if "\\t" in problem or "'\\t'" in problem or "\t" in problem:
        hint = "use spaces, not tabs, for indentation"
    elif "mapping values are not allowed" in problem:
        hint = "quote the value if it contains ': ' (e.g. says: \"...\"), or check the indentation"
    elif "expected <block end>" in problem or "expected <block end>" in (context or ""):
        hint = "check the indentation of this line"
    elif context:
        hint = context
    if mark is None:
        return Diagnostic(path, 0, 0, f"YAML syntax error: {problem}", hint=hint)
    return _diag(path, text, (mark.line + 1, mark.column + 1), f"YAML syntax error: {problem}", hint, code=Code.YAML_SYNTAX)


def _parse(text: str, path: str) -> tuple[RawRuleset | None, list[Diagnostic]]:
    """Parse ``text`` with positions; returns the raw file (None on a YAML syntax error) and problems."""
    bag = DiagnosticBag()
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        return None, [_yaml_error(path, text, e)]
    if root is None:
        return None, [_diag(path, text, (1, 1), "the ruleset file is empty", code=Code.EMPTY_FILE,
                            hint="a ruleset starts with `ruleset: NAME` (use the file stem)")]
    builder = _Builder(path, text, bag)
    data = builder.build(root, ())
    raw = RawRuleset(path, text, data, builder.values, builder.keys)
    return raw, bag.items


# --------------------------------------------------------------------------------------------------
# schema errors -> diagnostics


def _rule_name(raw: RawRuleset, index: int) -> str:
    rid = raw.get(("rules", index, "id"))
    return f"rule {rid!r}" if isinstance(rid, str) else f"rule #{index + 1}"


def _label(raw: RawRuleset, loc: Loc) -> str:
    """A human name for the value at ``loc``: "'on' in rule 'x'", "setting 'y'", "'title'"."""
    if not loc:
        return "the ruleset file"
    ctx, rest = "", loc
    if loc[0] == "rules" and len(loc) >= 2 and isinstance(loc[1], int):
        ctx, rest = _rule_name(raw, loc[1]), loc[2:]
    elif loc[0] in ("settings", "definitions") and len(loc) >= 2:
        ctx, rest = f"{'setting' if loc[0] == 'settings' else 'definition'} {loc[1]!r}", loc[2:]
    if not rest:
        return ctx
    last = rest[-1]
    if isinstance(last, int):
        what = f"item {last + 1} of {rest[-2]!r}" if len(rest) >= 2 else f"item {last + 1}"
    else:
        what = repr(last)
    return f"{what} in {ctx}" if ctx else what


_REQUIRED_HINTS = {
    "ruleset": "start the file with `ruleset: NAME` (use the file stem)",
    "id": "give the rule a stable id: lower-case words joined by '.' and '-'",
    "on": "say which question (hook) the rule answers, e.g. `on: follow`",
    "expr": "the long form of a definition is {expr: ..., says: ..., source: ...}",
    "value": "the long form of a setting is {value: ..., says: ..., source: ...}",
}


def _schema_diags(raw: RawRuleset, err: ValidationError) -> list[Diagnostic]:
    loc: Loc = tuple(err.absolute_path)
    v = err.validator
    if v == "oneOf" and len(loc) == 2 and loc[0] == "rules":
        return []  # one effect per rule: reported by _check_rules with a better message
    if "propertyNames" in err.schema_path:
        name = err.instance
        kind = {("settings",): "setting name", ("definitions",): "definition name"}.get(loc, "key")
        return [raw.diag(loc + (name,), f"invalid {kind} {name!r}",
                         err.schema.get("patternErrorMessage"), key=True)]
    if v == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        where = "at the top level" if not loc else f"in {_label(raw, loc)}"
        out = []
        for name in err.instance:
            if name in allowed:
                continue
            hint = _join([did_you_mean(name, allowed), "expected one of: " + ", ".join(allowed)])
            out.append(raw.diag(loc + (name,), f"unknown key {name!r} {where}", hint, key=True))
        return out
    if v == "required":
        missing = [k for k in err.validator_value if k not in err.instance]
        if not missing:
            return []
        name = missing[0]  # jsonschema reports each missing key separately: find which one this is
        m = re.match(r"^'(.*)' is a required property$", err.message)
        if m and m.group(1) in missing:
            name = m.group(1)
        return [raw.diag(loc, f"{_label(raw, loc)} is missing required key {name!r}", _REQUIRED_HINTS.get(name))]
    label = _label(raw, loc)
    if v == "type":
        hint = None
        if err.instance is None:
            hint = "the value is missing"
        elif loc == ("rules",):
            hint = "write rules as a list: each rule starts with `- id: ...`"
        elif isinstance(err.instance, (list, dict)) and "string" in err.validator_value:
            hint = "quote the value if it is meant as text"
        return [raw.diag(loc, f"{label}: expected {_expected(err.validator_value)}, got {_kind(err.instance)}", hint)]
    if v == "pattern":
        return [raw.diag(loc, f"{label}: {err.instance!r} is not a valid name", err.schema.get("patternErrorMessage"))]
    if v == "uniqueItems" and isinstance(err.instance, list):
        seen: list[Any] = []
        for i, item in enumerate(err.instance):
            if item in seen:
                return [raw.diag(loc + (i,), f"{item!r} is listed twice in {label}", "remove the repeated entry")]
            seen.append(item)
    if v == "minLength":
        return [raw.diag(loc, f"{label} must not be empty")]
    if v == "enum":
        return [raw.diag(loc, f"{label}: {err.instance!r} is not allowed",
                         "expected one of: " + ", ".join(map(str, err.validator_value)))]
    return [raw.diag(loc, f"{label}: {err.message}")]


def _check_rules(raw: RawRuleset) -> list[Diagnostic]:
    """Checks JSON Schema cannot phrase well: one effect per rule, target/amount use, unique ids."""
    out: list[Diagnostic] = []
    rules = raw.get(("rules",))
    if not isinstance(rules, list):
        return out
    first_id: dict[str, int] = {}
    effects_hint = "a rule has exactly one of: " + ", ".join(EFFECT_KEYS)
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        loc = ("rules", i)
        name = _rule_name(raw, i)
        effects = [k for k in rule if k in EFFECT_KEYS]
        if not effects:
            out.append(raw.diag(loc, f"{name} has no effect", effects_hint))
        elif len(effects) > 1:
            out.append(raw.diag(loc + (effects[1],),
                                f"{name} has {len(effects)} effects ({', '.join(effects)})",
                                effects_hint + "; split it into separate rules", key=True))
        else:
            effect = effects[0]
            if "target" in rule and effect not in TARGET_EFFECTS:
                out.append(raw.diag(loc + ("target",), f"'target' in {name} only applies to "
                                    + ", ".join(TARGET_EFFECTS), "remove 'target', or use one of those effects",
                                    key=True))
            if "amount" in rule and effect not in ("count", "give"):
                out.append(raw.diag(loc + ("amount",), f"'amount' in {name} only applies to count and give",
                                    "remove 'amount', or use count / give", key=True))
            if "giver" in rule and effect != "give":
                out.append(raw.diag(loc + ("giver",), f"'giver' in {name} only applies to give",
                                    "remove 'giver', or make the effect give", key=True))
        rid = rule.get("id")
        if isinstance(rid, str):
            if rid in first_id:
                line = raw.origin(("rules", first_id[rid], "id")).line
                out.append(raw.diag(loc + ("id",), f"duplicate rule id {rid!r}",
                                    f"first used at line {line}; ids must be unique within a file"))
            else:
                first_id[rid] = i
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
            out.append(raw.diag(("definitions", key), f"definition {name!r} is defined twice",
                                f"first at line {line}", key=True))
        else:
            seen[name] = key
    return out


def _check(raw: RawRuleset) -> list[Diagnostic]:
    """All structural problems of a parsed file (schema and the rule/definition checks)."""
    out: list[Diagnostic] = []
    for err in _validator().iter_errors(raw.data):
        out.extend(_schema_diags(raw, err))
    if isinstance(raw.data, dict):
        out.extend(_check_rules(raw))
        out.extend(_check_definitions(raw))
    return out


_EXPR_KEYS = ("when", "allow", "deny", "require", "value", "order", "target", "amount", "giver", "give", "place")


def _syntax_diags(raw: RawRuleset) -> list[Diagnostic]:
    """Expression syntax errors, found even when the file's structure is broken, so that one run
    reports every problem a file has (names and types are checked later, once the file loads)."""
    from gouji_dsl.lang.expr import ExprError, parse

    out: list[Diagnostic] = []

    def check(loc: Loc, what: str) -> None:
        value = raw.get(loc)
        if not isinstance(value, str) or loc not in raw.values:
            return
        try:
            parse(value)
        except ExprError as e:
            line, col = position_in(raw.text_at(loc), e.offset, raw.text)
            out.append(_diag(raw.path, raw.text, (line, col), f"{what}: {e.message}", e.hint, code=Code.EXPRESSION_SYNTAX))

    rules = raw.get(("rules",))
    if isinstance(rules, list):
        for i, rule in enumerate(rules):
            if isinstance(rule, dict):
                for k in _EXPR_KEYS:
                    if k in rule:
                        check(("rules", i, k), f"{_rule_name(raw, i)} {k}")
    defs = raw.get(("definitions",))
    if isinstance(defs, dict):
        for name, d in defs.items():
            loc = ("definitions", name, "expr") if isinstance(d, dict) else ("definitions", name)
            check(loc, f"in definition {name.split('(')[0]!r}")
    return out


def _load(text: str, path: str) -> tuple[RawRuleset | None, list[Diagnostic]]:
    raw, diags = _parse(text, path)
    if raw is not None:
        diags = diags + _check(raw)
        if diags:
            diags = diags + _syntax_diags(raw)
    return raw, diags


def _raise(diags: Sequence[Diagnostic]) -> None:
    bag = DiagnosticBag()
    seen: set[tuple[Any, ...]] = set()
    for d in diags:
        k = (d.path, d.line, d.col, d.message)
        if k not in seen:
            seen.add(k)
            bag.add(d)
    bag.raise_if_errors()


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise GoujiError(Diagnostic(path, 0, 0, f"cannot read ruleset: not UTF-8 text ({e.reason})")) from None
    except OSError as e:
        raise GoujiError(Diagnostic(path, 0, 0, f"cannot read ruleset: {e.strerror or e}")) from None


def load_text(text: str, path: str | os.PathLike[str]) -> RawRuleset:
    """Parse and check ``text`` as the ruleset file ``path`` (which need not exist).

    Returns a :class:`RawRuleset` that matches the schema. Raises :class:`GoujiError` with every
    problem found (YAML syntax, duplicate keys, schema violations, rules without exactly one
    effect, duplicate rule ids), sorted by position."""
    raw, diags = _load(text, os.fspath(path))
    _raise(diags)
    assert raw is not None
    return raw


def load_file(path: str | os.PathLike[str]) -> RawRuleset:
    """Read, parse and check one ruleset file (no ``extends`` resolution); see :func:`load_text`.

    Raises :class:`GoujiError` (also when the file cannot be read)."""
    p = os.fspath(path)
    return load_text(_read(p), p)


# --------------------------------------------------------------------------------------------------
# finding files


def _looks_like_path(s: str) -> bool:
    return s.endswith(RULESET_SUFFIXES) or "/" in s or os.sep in s


def _known_names(folders: Iterable[Path]) -> list[str]:
    names: set[str] = set(list_bundled())
    for d in folders:
        try:
            names.update(p.stem for p in d.glob("*.yaml"))
        except OSError:
            pass
    return sorted(names)


def _names_hint(name: str, names: Sequence[str]) -> str:
    listing = "bundled rulesets: " + (", ".join(list_bundled()) or "(none)")
    return _join([did_you_mean(name, names), listing]) or listing


def ruleset_path(name_or_path: str | os.PathLike[str], *, search: Sequence[str | os.PathLike[str]] = ()) -> Path:
    """The file of a ruleset given by bundled name (``"online"``) or path (``"my/rules.yaml"``).

    A value ending in ``.yaml``/``.yml`` or containing a path separator (or a ``PathLike``) is a path;
    otherwise ``NAME.yaml`` is looked up in each ``search`` folder, then among the bundled rulesets.
    Raises :class:`GoujiError` when nothing is found (hint: the bundled names, did-you-mean)."""
    s = os.fspath(name_or_path)
    if not isinstance(name_or_path, str) or _looks_like_path(s):
        p = Path(s)
        if p.is_file():
            return p
        raise GoujiError(Diagnostic(s, 0, 0, f"no such ruleset file: {s}", hint=_names_hint(Path(s).stem, list_bundled())))
    folders = [Path(d) for d in search]
    bundled = _bundled_dir()
    for d in folders + ([bundled] if bundled else []):
        cand = d / f"{s}.yaml"
        if cand.is_file():
            return cand
    raise GoujiError(Diagnostic(s, 0, 0, f"unknown ruleset {s!r}", hint=_names_hint(s, _known_names(folders))))


# --------------------------------------------------------------------------------------------------
# resolving extends


def _deep_merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(parent)
    for k, v in child.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


class _Resolver:
    def __init__(self, search: Sequence[str | os.PathLike[str]]):
        self.search = [Path(d) for d in search]

    def candidates(self, child: Path, ref: str) -> list[Path]:
        if _looks_like_path(ref):
            return [child.parent / ref]
        out = [child.parent / f"{ref}.yaml"] + [d / f"{ref}.yaml" for d in self.search]
        bundled = _bundled_dir()
        if bundled is not None:
            out.append(bundled / f"{ref}.yaml")
        return out

    def find_parent(self, raw: RawRuleset, stack: list[tuple[Path, str]]) -> tuple[str | None, list[Diagnostic]]:
        """The parent file of ``raw`` (display path) or the diagnostics explaining why there is none."""
        ref = raw.get(("extends",))
        loc = ("extends",)
        me = stack[-1][0]
        found_self = False
        for cand in self.candidates(Path(raw.path), ref):
            if not cand.is_file():
                continue
            real = cand.resolve()
            if real == me:
                found_self = True  # a workspace NAME.yaml may extend the bundled NAME: keep looking
                continue
            for i, (seen, _) in enumerate(stack):
                if seen == real:
                    cycle = [shown for _, shown in stack[i:]] + [stack[i][1]]
                    return None, [raw.diag(loc, "extends cycle: " + " -> ".join(cycle),
                                           "a ruleset cannot (indirectly) extend itself")]
            return os.path.normpath(str(cand)), []
        if found_self:
            return None, [raw.diag(loc, f"extends cycle: {raw.path} extends itself",
                                   "a ruleset cannot extend itself")]
        looked = [os.path.normpath(str(c)) for c in self.candidates(Path(raw.path), ref)]
        names = _known_names([Path(raw.path).parent, *self.search])
        hint = _join([did_you_mean(Path(ref).stem if _looks_like_path(ref) else ref, names),
                      "looked for " + ", ".join(looked),
                      "bundled rulesets: " + (", ".join(list_bundled()) or "(none)")])
        return None, [raw.diag(loc, f"cannot find parent ruleset {ref!r}", hint)]

    def resolve(self, path: str, text: str | None, stack: list[tuple[Path, str]]) -> ResolvedRuleset:
        if text is None:
            text = _read(path)
        stack = stack + [(Path(path).resolve(), path)]
        raw, diags = _load(text, path)
        parent_path: str | None = None
        if raw is not None and isinstance(raw.get(("extends",)), str) and raw.get(("extends",)):
            parent_path, problems = self.find_parent(raw, stack)
            diags = diags + problems
        _raise(diags)  # everything wrong with this file, at once
        assert raw is not None
        parent = self.resolve(parent_path, None, stack) if parent_path is not None else None
        return _merge(raw, parent)


def _own_settings(raw: RawRuleset, parent: ResolvedRuleset | None) -> dict[str, SettingSpec]:
    out = {name: replace(s, inherited=True) for name, s in (parent.settings.items() if parent else ())}
    for name, written in (raw.get(("settings",)) or {}).items():
        loc: Loc = ("settings", name)
        says = source = None
        value = written
        if _is_setting_long_form(written):
            value, says, source = written["value"], written.get("says"), written.get("source")
            loc = loc + ("value",)
        origin = raw.origin(loc)
        own_keys = {k: raw.origin(loc + (k,)) for k, v in value.items() if v is not None} \
            if isinstance(value, dict) else {}
        prev = out.get(name)
        if prev is not None and isinstance(prev.value, dict) and isinstance(value, dict):
            key_origins = {k: o for k, o in prev.key_origins.items() if value.get(k, ...) is not None}
            key_origins.update(own_keys)
            out[name] = SettingSpec(name, _deep_merge(prev.value, value), origin,
                                    says if says is not None else prev.says,
                                    source if source is not None else prev.source,
                                    key_origins, inherited=False)
        else:
            out[name] = SettingSpec(name, copy.deepcopy(value), origin, says, source, own_keys, inherited=False)
    return out


def _own_definitions(raw: RawRuleset, parent: ResolvedRuleset | None) -> dict[str, DefinitionSpec]:
    out = {name: replace(d, inherited=True) for name, d in (parent.definitions.items() if parent else ())}
    for key, written in (raw.get(("definitions",)) or {}).items():
        m = _DEF_KEY.match(key)
        assert m is not None  # checked by the schema
        name = m.group(1)
        params = tuple(p.strip() for p in m.group(2).split(",") if p.strip()) if m.group(2) else ()
        loc: Loc = ("definitions", key)
        says = source = None
        if isinstance(written, dict):
            says, source = written.get("says"), written.get("source")
            expr = raw.text_at(loc + ("expr",))
        else:
            expr = raw.text_at(loc)
        out[name] = DefinitionSpec(name, params, expr, raw.origin(loc, key=True), says, source, inherited=False)
    return out


def _rule_spec(raw: RawRuleset, index: int) -> RuleSpec:
    loc: Loc = ("rules", index)
    rule: dict[str, Any] = raw.get(loc)
    effect = next(k for k in rule if k in EFFECT_KEYS)

    def opt(key: str) -> Text | None:
        return raw.text_at(loc + (key,)) if key in rule else None

    return RuleSpec(
        id=rule["id"], on=raw.text_at(loc + ("on",)), effect=effect, effect_expr=raw.text_at(loc + (effect,)),
        origin=raw.origin(loc + ("id",)), when=opt("when"), target=opt("target"), amount=opt("amount"),
        giver=opt("giver"),
        says=rule.get("says"), source=rule.get("source"),
        before=tuple(rule.get("before") or ()), after=tuple(rule.get("after") or ()), file=raw.path,
    )


def _merge(raw: RawRuleset, parent: ResolvedRuleset | None) -> ResolvedRuleset:
    diags: list[Diagnostic] = []
    rules = [replace(r, inherited=True) for r in (parent.rules if parent else ())]
    inherited_ids = [r.id for r in rules]
    removed = list(parent.removed if parent else ())
    for i, rid in enumerate(raw.get(("remove",)) or ()):
        if rid in inherited_ids:
            rules = [r for r in rules if r.id != rid]
            removed.append(rid)
        else:
            hint = did_you_mean(rid, inherited_ids) if parent else "this ruleset has no `extends:`, so nothing to remove"
            diags.append(raw.diag(("remove", i), f"cannot remove {rid!r}: no inherited rule has this id", hint))
    for i in range(len(raw.get(("rules",)) or ())):
        spec = _rule_spec(raw, i)
        at = next((n for n, r in enumerate(rules) if r.id == spec.id and r.inherited), None)
        if at is None:
            rules.append(spec)
        else:
            rules[at] = replace(spec, overrides=rules[at].origin)
    _raise(diags)
    ids = {r.id for r in rules}
    data = raw.data
    return ResolvedRuleset(
        name=data["ruleset"], path=raw.path,
        chain=(raw.path,) + (parent.chain if parent else ()),
        title=data.get("title"), description=data.get("description"), source=data.get("source"),
        settings=_own_settings(raw, parent), definitions=_own_definitions(raw, parent),
        rules=tuple(rules), removed=tuple(dict.fromkeys(r for r in removed if r not in ids)), text=raw.text,
    )


def resolve(name_or_path: str | os.PathLike[str], *, search: Sequence[str | os.PathLike[str]] = ()) -> ResolvedRuleset:
    """Load a ruleset by bundled name or path and resolve its ``extends`` chain.

    ``search``: extra folders where names (the argument and ``extends:`` names) are looked up, after
    the sibling ``NAME.yaml`` and before the bundled rulesets. Parents are found as documented in
    docs/ruleset-format.md; a workspace ``NAME.yaml`` may extend the bundled ``NAME``.

    Returns a :class:`ResolvedRuleset` (``chain`` = file paths from this ruleset to the root;
    ``inherited`` flags are relative to this ruleset). Raises :class:`GoujiError` with every
    problem of the first faulty file: unreadable file, YAML syntax, schema violations, duplicate
    ids, missing or cyclic ``extends`` (at the ``extends:`` value), unknown ``remove`` ids."""
    path = ruleset_path(name_or_path, search=search)
    return _Resolver(search).resolve(str(path), None, [])


def resolve_text(text: str, path: str | os.PathLike[str], *,
                 search: Sequence[str | os.PathLike[str]] = ()) -> ResolvedRuleset:
    """Resolve an unsaved buffer ``text`` as if it were the file ``path`` (which need not exist);
    parents are read from disk relative to ``path``. Same result and errors as :func:`resolve`."""
    return _Resolver(search).resolve(os.fspath(path), text, [])


# --------------------------------------------------------------------------------------------------
# positions inside strings


@functools.lru_cache(maxsize=16)
def _line_starts(source: str) -> list[int]:
    starts = [0]
    for m in _LINE_BREAK.finditer(source):
        starts.append(m.end())
    return starts


def _align(value: str, source: str, origin: SourcePos, style: str) -> list[int] | None:
    """Source index of each character of ``value`` (plus one past the end), scanning the scalar as
    written from ``origin``; None when the source does not match the value."""
    starts = _line_starts(source)
    if not 1 <= origin.line <= len(starts):
        return None
    j = starts[origin.line - 1] + origin.col - 1
    if j > len(source):
        return None
    dq, sq = style == '"', style == "'"
    out: list[int] = []
    i = 0
    while i < len(value):
        if j >= len(source):
            return None
        c, sc = value[i], source[j]
        if dq and sc == "\\":
            nxt = source[j + 1: j + 2]
            if nxt in ("\n", "\r"):  # escaped line break produces nothing
                j += 2
                while j < len(source) and source[j] in " \t\r\n":
                    j += 1
                continue
            out.append(j)
            i += 1
            j += {"x": 4, "u": 6, "U": 10}.get(nxt, 2)
            continue
        if sq and sc == "'" and source[j + 1: j + 2] == "'":
            out.append(j)
            i, j = i + 1, j + 2
            continue
        if sc == c:
            out.append(j)
            i, j = i + 1, j + 1
            continue
        if sc in " \t\r\n\x85\u2028\u2029":
            if c in " \n":  # a folded line break (or kept newline) in the value
                out.append(j)
                i += 1
            else:
                j += 1  # indentation / folded whitespace in the source
            continue
        return None
    out.append(out[-1] + 1 if out else j)
    return out


def position_in(text: Text, offset: int, source: str | None = None) -> tuple[int, int]:
    """The 1-based ``(line, col)`` in the file of the character at 0-based ``offset`` in ``text.text``
    (``offset == len(text.text)`` gives the position just after the last character).

    Exact without ``source`` for single-line plain scalars, quoted scalars without escapes and
    literal (``|``) block scalars; folded (``>``), multi-line flow and escaped scalars are best
    effort. Pass ``source`` (the file's text, e.g. ``ResolvedRuleset.text``) to make those exact
    too: the scalar is then re-scanned as written."""
    o = text.origin
    s = text.text
    offset = max(0, min(offset, len(s)))
    if source is not None:
        where = _align(s, source, o, text.style)
        if where is not None:
            index = where[offset]
            starts = _line_starts(source)
            n = bisect.bisect_right(starts, index) - 1
            return n + 1, index - starts[n] + 1
    before = s[:offset]
    row = before.count("\n")
    if row and text.style in ("|", ">"):
        return o.line + row, o.col + offset - (before.rfind("\n") + 1)
    return o.line, o.col + offset
