"""The languages of a ruleset's texts (语言, issue 26), for the loader: ``languages:``, texts given
per language (``says: {zh: "…", en: "…"}``) and their checks.

A ruleset declares the languages of its texts with ``languages: [en, zh]``; the first is the language
of its plain strings. A file that declares none inherits its parent's declaration (``extends:``);
English when no file of the chain declares any. Every text a person reads — a rule's, a setting's
or a definition's ``says``, ``title``, ``description``, each word of ``words:``, and the notes of where a rule comes
from (``source:``, of the file, a rule, a setting or a definition) — may be a plain string or a
mapping from language code to text (``validate --strict`` does not ask a source note in every
language: most are references such as ``RULES.md §4 [S1]``). Problems (each positioned, with its code):
``UnknownLanguage`` (a code that is not one of :class:`~gouji_dsl.i18n.Language`, in ``languages:``
or as a text's key), ``LanguageNotDeclared`` (a text in a language the file does not declare),
``EmptyText`` (an empty string, or a mapping of no texts). ``validate --strict`` warns
(``MissingLanguage``, :func:`missing_languages`) where a file's text is not given in every language
it declares.

The loader (:mod:`gouji_dsl.ruleset.load.checking` and :mod:`~gouji_dsl.ruleset.load.resolving`) calls these; the values become
:class:`~gouji_dsl.ruleset.spec.Wording` s.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from gouji_dsl.diagnostics import Code, Diagnostic, Severity, SourcePos, did_you_mean, quoted
from gouji_dsl.i18n import Language, _, language_name
from gouji_dsl.ruleset.spec import ResolvedRuleset, Wording


class RawFile(Protocol):
    """What these checks read of one ruleset file as read (:class:`gouji_dsl.ruleset.load.reading.RawRuleset`,
    whose loader calls them: this module does not import it)."""

    data: Any

    def get(self, loc: Loc, default: Any = None) -> Any: ...

    def diag(self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False,
             code: str = Code.UNSPECIFIED, severity: str = Severity.ERROR) -> Diagnostic: ...

__all__ = ["DEFAULT_LANGUAGES", "WORD_GROUPS", "text_locs", "declared", "check_file", "check_declared", "wording", "file_text",
           "missing_languages"]

Loc = tuple[Any, ...]

DEFAULT_LANGUAGES: tuple[Language, ...] = (Language.EN,)
"""The languages of a chain where no file declares any: its plain strings are English."""

WORD_GROUPS: tuple[str, ...] = ("places", "terms", "cards")
"""The groups of ``words:`` (see :mod:`gouji_dsl.ruleset.words`)."""

_CODES = [lang.value for lang in Language]


def text_locs(data: Any) -> Iterator[Loc]:
    """Where the file ``data`` holds a text a person reads (that is written): ``("title",)``,
    ``("rules", 3, "says")``, ``("settings", "seats", "says")``, ``("words", "places", "1")`` ..."""
    if not isinstance(data, dict):
        return
    yield from ((key,) for key in ("title", "description", "source") if key in data)
    for part in ("says", "source"):
        yield from (("settings", name, part) for name, s in _items(data.get("settings"))
                    if isinstance(s, dict) and "value" in s and part in s)
        yield from (("definitions", key, part) for key, d in _items(data.get("definitions"))
                    if isinstance(d, dict) and part in d)
        rules = data.get("rules")
        yield from (("rules", i, part) for i, rule in enumerate(rules if isinstance(rules, list) else ())
                    if isinstance(rule, dict) and part in rule)
    words = data.get("words")
    for group in WORD_GROUPS:
        yield from (("words", group, key) for key, _w in _items(words.get(group) if isinstance(words, dict) else None))


def _items(value: Any) -> list[tuple[Any, Any]]:
    return list(value.items()) if isinstance(value, dict) else []


def _language(code: Any) -> Language | None:
    return next((lang for lang in Language if lang.value == code), None)


def declared(data: Any) -> tuple[Language, ...] | None:
    """The languages the file declares (``languages:``; unknown codes left out), or None."""
    value = data.get("languages") if isinstance(data, dict) else None
    if not isinstance(value, list):
        return None
    out = tuple(dict.fromkeys(lang for lang in map(_language, value) if lang is not None))
    return out or None


def _unknown(raw: RawFile, loc: Loc, code: Any, *, key: bool) -> Diagnostic:
    hint = did_you_mean(str(code), _CODES) or ""
    hint = (hint + " " if hint else "") + _("the languages are: {codes}").format(codes=", ".join(_CODES))
    return raw.diag(loc, _("unknown language {code}").format(code=quoted(str(code))), hint, key=key,
                    code=Code.UNKNOWN_LANGUAGE)


def check_file(raw: RawFile) -> list[Diagnostic]:
    """The problems of one file's texts that need no parent: unknown language codes (in
    ``languages:`` and as a text's keys) and empty texts."""
    out: list[Diagnostic] = []
    langs = raw.get(("languages",))
    for i, code in enumerate(langs if isinstance(langs, list) else ()):
        if isinstance(code, str) and _language(code) is None:
            out.append(_unknown(raw, ("languages", i), code, key=False))
    for loc in text_locs(raw.data):
        value = raw.get(loc)
        if isinstance(value, str) and not value.strip():
            out.append(raw.diag(loc, _("{what} is empty").format(what=_what(loc)),
                                _("write the sentence, or leave the key out"), code=Code.EMPTY_TEXT))
        elif isinstance(value, dict):
            if not value:
                out.append(raw.diag(loc, _("{what} gives no text").format(what=_what(loc)),
                                    _("write it as `{{en: \"...\", zh: \"...\"}}`, or as one string in the ruleset's "
                                      "first language").format(), code=Code.EMPTY_TEXT))
            for code, text in value.items():
                if _language(code) is None:
                    out.append(_unknown(raw, loc + (code,), code, key=True))
                elif isinstance(text, str) and not text.strip():
                    out.append(raw.diag(loc + (code,), _("{what} in {code} is empty").format(
                        what=_what(loc), code=quoted(code)), _("write the sentence, or leave this language out"),
                        code=Code.EMPTY_TEXT))
    return out


def check_declared(raw: RawFile, langs: Sequence[Language]) -> list[Diagnostic]:
    """Texts of the file in a (known) language it does not declare (``langs``: its own declaration
    or the one it inherits)."""
    out: list[Diagnostic] = []
    names = ", ".join(lang.value for lang in langs)
    own = raw.get(("languages",)) is not None
    for loc in text_locs(raw.data):
        value = raw.get(loc)
        for code in value if isinstance(value, dict) else ():
            lang = _language(code)
            if lang is not None and lang not in langs:
                hint = (_("add it to `languages:` (now [{names}])").format(names=names) if own else
                        _("this file declares no `languages:` and inherits [{names}]; declare `languages: "
                          "[{names}, {code}]`").format(names=names, code=code))
                out.append(raw.diag(loc + (code,), _("{what} is given in {code}, a language the ruleset does not "
                                                     "declare").format(what=_what(loc), code=quoted(code)),
                                    hint, key=True, code=Code.LANGUAGE_NOT_DECLARED))
    return out


def _what(loc: Loc) -> str:
    if loc[-1] == "source":
        return _source_what(loc)
    if loc[0] == "rules":
        return _("the sentence of rule #{n}").format(n=loc[1] + 1)
    if loc[0] == "settings":
        return _("the sentence of setting {name}").format(name=quoted(loc[1]))
    if loc[0] == "definitions":
        return _("the sentence of definition {name}").format(name=quoted(loc[1]))
    if loc[0] == "words":
        return _("the word {group}.{key}").format(group=loc[1], key=quoted(loc[2]))
    return _("the title") if loc[0] == "title" else _("the description")


def _source_what(loc: Loc) -> str:
    if loc[0] == "rules":
        return _("the source note of rule #{n}").format(n=loc[1] + 1)
    if loc[0] == "settings":
        return _("the source note of setting {name}").format(name=quoted(loc[1]))
    if loc[0] == "definitions":
        return _("the source note of definition {name}").format(name=quoted(loc[1]))
    return _("the source note")


def wording(value: Any, langs: Sequence[Language], origin: SourcePos | None = None) -> Wording | None:
    """The :class:`Wording` of a text as written (a string: in ``langs[0]``; a mapping: by language,
    unknown codes and empty texts left out), or None when it gives no text."""
    if isinstance(value, Wording):
        return value
    if isinstance(value, str):
        return Wording({langs[0]: value}, langs[0], origin) if value.strip() else None
    if isinstance(value, dict):
        texts = {lang: t for code, t in value.items()
                 if (lang := _language(code)) is not None and isinstance(t, str) and t.strip()}
        return Wording(texts, langs[0], origin) if texts else None
    return None


def file_text(value: Any, data: Any) -> Wording | None:
    """A text as one file's plain data holds it (``data``: the whole file, for its ``languages:``),
    for readers of a single file (a parent's title): a plain string is in the file's first declared
    language, English when it declares none (its parents are not read)."""
    return wording(value, declared(data) or DEFAULT_LANGUAGES)


def _texts(r: ResolvedRuleset) -> Iterator[Wording]:
    said = [r.title, r.description, *(x.says for s in r.settings.values() for x in s.sentences),
            *(d.says for d in r.definitions.values()), *(rule.says for rule in r.rules)]
    yield from (t for t in said if isinstance(t, Wording))
    for group in r.words.values():
        yield from group.values()


def missing_languages(r: ResolvedRuleset) -> Iterator[tuple[SourcePos, str, str]]:
    """Where a text of the ruleset's own file is not given in every language the ruleset declares
    (``validate --strict``'s ``MissingLanguage`` warnings): position, message, hint."""
    seen: set[SourcePos] = set()
    for w in _texts(r):
        if w.origin is None or w.origin.path != r.path or w.origin in seen:
            continue
        seen.add(w.origin)
        lacking = [language_name(lang) for lang in r.languages if lang not in w.texts]
        if lacking:
            given = _(", ").join(language_name(lang) for lang in w.languages)
            yield (w.origin, _("this text is given in {given} and not in {missing}, which the ruleset declares").format(
                given=given, missing=_(", ").join(lacking)), _("give it per language: `{{{texts}}}`").format(
                texts=", ".join(f"{lang.value}: \"...\"" for lang in r.languages)))
