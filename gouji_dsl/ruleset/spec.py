"""Typed, position-carrying views of ruleset files, before and after ``extends`` is resolved.

These are produced by the loader (:mod:`gouji_dsl.ruleset.load`) and consumed by :mod:`gouji_dsl.ruleset.graph`, the CLI
(``gouji show``, ``gouji diff``) and the editor. All are immutable.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from gouji_dsl.diagnostics import Diagnostic, SourcePos
from gouji_dsl.i18n import Language, current

EFFECT_KEYS: tuple[str, ...] = ("allow", "deny", "require", "value", "order", "mark", "unmark", "count", "place", "give")
"""The effect keys a rule may carry; exactly one per rule (see docs/ruleset-format.md)."""


class Wording(str):
    """A text a ruleset gives to people (a rule's ``says``, a setting's or definition's, the
    ruleset's ``title`` and ``description``, a word of the game) in one or more languages (说法).

    It *is* the text in the language of its file's plain strings (the first of ``languages:``), or
    in the first language given when that one is missing, so code that shows a plain string keeps
    working; :meth:`in_lang` gives it in another language. ``texts`` maps each
    :class:`~gouji_dsl.i18n.Language` given to its text; ``lang`` is the language of the string
    itself; ``origin`` where the text was written (None: not from a file)."""

    texts: Mapping[Language, str]
    lang: Language
    origin: SourcePos | None

    def __new__(cls, texts: Mapping[Language, str], lang: Language, origin: SourcePos | None = None) -> Wording:
        if not texts:
            raise ValueError("a Wording needs a text in at least one language")
        own = lang if lang in texts else next(iter(texts))
        obj = super().__new__(cls, texts[own])
        obj.texts, obj.lang, obj.origin = dict(texts), own, origin
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Wording, (dict(self.texts), self.lang, self.origin))

    def __deepcopy__(self, memo: dict[int, Any]) -> Wording:
        return self  # immutable

    def in_lang(self, lang: Language | None = None) -> str:
        """The text in ``lang`` (default: the active language, :func:`gouji_dsl.i18n.current`); in
        the file's own language where it is not given in ``lang``."""
        return self.texts.get(current() if lang is None else lang, str(self))

    @property
    def languages(self) -> tuple[Language, ...]:
        """The languages the text is given in."""
        return tuple(self.texts)


@overload
def said(text: str, lang: Language | None = None) -> str: ...
@overload
def said(text: None, lang: Language | None = None) -> None: ...
@overload
def said(text: str | None, lang: Language | None = None) -> str | None: ...
def said(text: str | None, lang: Language | None = None) -> str | None:
    """A ruleset's text (a :class:`Wording`, a plain string or None) in ``lang`` (default: the
    active language): the one accessor for showing ``says``, ``title`` and ``description``."""
    return text.in_lang(lang) if isinstance(text, Wording) else text


@dataclass(frozen=True)
class Text:
    """A string from a ruleset file and where it was written.

    ``origin`` is the position of the value's first character (for a quoted scalar: the character
    after the quote) and, where known, its end; ``style`` is the YAML scalar style (``""`` plain,
    ``"'"``, ``'"'``, ``"|"``, ``">"``) so that positions inside the string can be mapped back to the
    file (see :func:`gouji_dsl.ruleset.load.locating.position_in`)."""

    text: str
    origin: SourcePos
    style: str = ""


@dataclass(frozen=True)
class Sentence:
    """A setting's sentence (``says``) as one file of the chain wrote it: ``ruleset`` is that file's
    ruleset name; ``keys`` the keys of a map the file changed (empty: about the whole value)."""

    says: str  # a Wording when read from a file
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

    def sentences_in_effect(self) -> tuple[Sentence, ...]:
        """The sentences that still describe the value: a later file's sentence replaces every
        earlier one about a key it changed, and a sentence about the whole value is replaced by any
        later one (what ``gouji doc`` prints of the setting, before its in-effect checks)."""
        xs = self.sentences
        return tuple(x for i, x in enumerate(xs)
                     if not any(not x.keys or not y.keys or set(x.keys) & set(y.keys) for y in xs[i + 1:]))


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
    #: where each name of ``before:`` / ``after:`` was written (name, position), in order
    relation_origins: tuple[tuple[str, SourcePos], ...] = ()


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
    #: the languages its texts are given in, the first that of its plain strings (``languages:``,
    #: inherited through ``extends:``; English when no file of the chain declares any)
    languages: tuple[Language, ...] = (Language.EN,)
    #: the words of the game (``words:``): ``{"places": {"1": ...}, "terms": {"burn": ...}}``, merged
    #: entry by entry along the chain (read them with :func:`gouji_dsl.ruleset.words.game_words`)
    words: dict[str, dict[str, Wording]] = field(default_factory=dict)
    warnings: tuple[Diagnostic, ...] = ()  # problems of the merge that do not stop it (a likely misspelt override)

    def rule(self, rule_id: str) -> RuleSpec | None:
        for r in self.rules:
            if r.id == rule_id:
                return r
        return None
