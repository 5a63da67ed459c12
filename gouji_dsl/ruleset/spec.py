"""Typed, position-carrying views of ruleset files, before and after ``extends`` is resolved.

These are produced by :mod:`gouji_dsl.ruleset.loader` and consumed by :mod:`gouji_dsl.ruleset.graph`, the CLI
(``gouji show``, ``gouji diff``) and the editor. All are immutable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.diagnostics import Diagnostic, SourcePos

EFFECT_KEYS: tuple[str, ...] = ("allow", "deny", "require", "value", "order", "mark", "unmark", "count", "place", "give")
"""The effect keys a rule may carry; exactly one per rule (see docs/ruleset-format.md)."""


@dataclass(frozen=True)
class Text:
    """A string from a ruleset file and where it was written.

    ``origin`` is the position of the value's first character (for a quoted scalar: the character
    after the quote) and, where known, its end; ``style`` is the YAML scalar style (``""`` plain,
    ``"'"``, ``'"'``, ``"|"``, ``">"``) so that positions inside the string can be mapped back to the
    file (see :func:`gouji_dsl.ruleset.loader.position_in`)."""

    text: str
    origin: SourcePos
    style: str = ""


@dataclass(frozen=True)
class Sentence:
    """A setting's sentence (``says``) as one file of the chain wrote it: ``ruleset`` is that file's
    ruleset name; ``keys`` the keys of a map the file changed (empty: about the whole value)."""

    says: str
    source: str | None = None
    ruleset: str = ""
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class SettingSpec:
    """One resolved top-level setting.

    ``value`` is plain Python data (after deep merge with parents). ``origin`` is where the
    top-level value was last set; ``key_origins`` maps each key of a mapping value to the file that
    set that key (useful after a merge). ``says``/``source`` come from the long form
    ``{value:, says:, source:, type:}``. ``inherited`` is true when the value (all of it) comes from a
    parent file rather than the ruleset asked for. ``sentences`` are the sentences that still hold,
    in chain order: the last one about the whole value, then those of files that changed only some
    keys of a map (``says`` is the last of them).

    For the settings types (:mod:`gouji_dsl.ruleset.settings`): ``type_decls`` are the ``type:``
    texts written for it along the chain, root first; ``first_value`` / ``first_origin`` the value
    as the root-most file that introduced the setting wrote it; ``positions`` maps every path below
    the value (``("joker_cover", "equal_many")``, ``("ranks", 3)``) to where its value was last
    written, ``key_positions`` each such path of a map entry to where its key was written;
    ``name_origin`` where the setting's name was last written."""

    name: str
    value: Any
    origin: SourcePos
    says: str | None = None
    source: str | None = None
    key_origins: dict[str, SourcePos] = field(default_factory=dict)
    inherited: bool = False
    sentences: tuple[Sentence, ...] = ()
    type_decls: tuple[Text, ...] = ()
    first_value: Any = None
    first_origin: SourcePos | None = None
    positions: dict[tuple[str | int, ...], SourcePos] = field(default_factory=dict)
    key_positions: dict[tuple[str | int, ...], SourcePos] = field(default_factory=dict)
    #: where the setting's name was last written (``origin`` is its value)
    name_origin: SourcePos | None = None


@dataclass(frozen=True)
class DefinitionSpec:
    """A named expression ``name(params): expr``."""

    name: str
    params: tuple[str, ...]
    expr: Text
    origin: SourcePos  # of the key
    says: str | None = None
    source: str | None = None
    inherited: bool = False


@dataclass(frozen=True)
class RuleSpec:
    """One rule as written (after inheritance).

    ``effect`` is one of :data:`EFFECT_KEYS`; ``effect_expr`` its expression (for ``mark``/``unmark``/
    ``count``: the flag or counter name as Text). ``target``/``amount`` are optional expressions for
    mark/count. ``overrides`` is the origin of the parent rule this one replaced, if any."""

    id: str
    on: Text
    effect: str
    effect_expr: Text
    origin: SourcePos  # of the `id` value
    when: Text | None = None
    target: Text | None = None
    amount: Text | None = None
    giver: Text | None = None
    says: str | None = None
    source: str | None = None
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    overrides: SourcePos | None = None
    inherited: bool = False
    file: str = ""  # the file that defined this (final) rule
    said_by: tuple[str, ...] = ()  # settings whose sentences state this rule in the rulebook (gouji doc)
    said_by_origin: SourcePos | None = None


@dataclass(frozen=True)
class ResolvedRuleset:
    """A ruleset with ``extends`` resolved.

    ``chain`` lists the files from the ruleset itself up to the root ancestor. ``rules`` are in
    effective order (parents' rules first, overrides in place, then the child's new rules)."""

    name: str
    path: str
    chain: tuple[str, ...]
    title: str | None
    description: str | None
    source: str | None
    settings: dict[str, SettingSpec]
    definitions: dict[str, DefinitionSpec]
    rules: tuple[RuleSpec, ...]
    removed: tuple[str, ...] = ()
    text: str = ""  # the ruleset file's own text
    warnings: tuple[Diagnostic, ...] = ()  # problems of the merge that do not stop it (a likely misspelt override)

    def rule(self, rule_id: str) -> RuleSpec | None:
        for r in self.rules:
            if r.id == rule_id:
                return r
        return None
