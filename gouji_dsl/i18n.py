"""The language a person reads (语言): English or Chinese, for the whole program.

Chosen, first that is set: ``--lang`` (the command line, or a ``gouji serve`` client), the
``GOUJI_LANG`` environment variable, the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``:
``zh_CN.UTF-8`` → Chinese); English otherwise. A value outside :class:`Language` given by
``--lang`` or ``GOUJI_LANG`` is an error (:class:`UnknownLanguage`), never a quiet default; a locale
that names another language just means English.

Messages are translated with standard gettext catalogs (issue 26). This module is the one place
that knows which language is active; everything that shows text asks it.
"""
from __future__ import annotations

import gettext as _gettext
import os
import re
import unicodedata
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path


class Language(StrEnum):
    """A language the program speaks. Its value is the code used by ``--lang``, ``GOUJI_LANG``,
    per-language texts in rulesets (``says: {zh: ..., en: ...}``) and the catalogs' folder names."""

    EN = "en"
    ZH = "zh"


DEFAULT = Language.EN
ENV_VAR = "GOUJI_LANG"
_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")


class UnknownLanguage(ValueError):
    """A language code that is not one of :class:`Language` (from ``--lang`` or ``GOUJI_LANG``)."""

    def __init__(self, value: str, source: str):
        self.value, self.source = value, source
        known = ", ".join(lang.value for lang in Language)
        super().__init__(f"{source}: unknown language {value!r} (one of: {known})")


def parse(value: str, source: str = "--lang") -> Language:
    """The :class:`Language` of a code such as ``zh`` or ``en`` (case and a region suffix such as
    ``zh_CN`` or ``zh-Hans`` allowed)."""
    code = value.strip().lower().replace("-", "_").split("_")[0].split(".")[0]
    for lang in Language:
        if lang.value == code:
            return lang
    raise UnknownLanguage(value, source)


def from_locale(environ: Mapping[str, str]) -> Language | None:
    """The language the POSIX locale names, or None (unset, ``C``/``POSIX``, or another language)."""
    for var in _LOCALE_VARS:
        value = environ.get(var, "")
        if value:
            code = value.lower().split(".")[0].split("_")[0]
            return Language.ZH if code == "zh" else None
    return None


def resolve(cli: str | None = None, environ: Mapping[str, str] | None = None) -> Language:
    """The language to speak: ``--lang`` (``cli``), else ``GOUJI_LANG``, else the locale, else
    English. Raises :class:`UnknownLanguage` for a bad ``--lang`` or ``GOUJI_LANG``."""
    env = os.environ if environ is None else environ
    if cli is not None:  # (an empty --lang is no language: an error, not the default)
        return parse(cli, "--lang")
    if env.get(ENV_VAR):
        return parse(env[ENV_VAR], ENV_VAR)
    return from_locale(env) or DEFAULT


def fallback(environ: Mapping[str, str] | None = None) -> Language:
    """The language to say that a language setting is wrong in: ``GOUJI_LANG`` where it names one,
    else the locale's, else English (so that ``GOUJI_LANG=xx`` under ``LANG=zh_CN.UTF-8`` is
    reported in Chinese, as ``--lang xx`` is)."""
    try:
        return resolve(None, environ)
    except UnknownLanguage:
        return from_locale(os.environ if environ is None else environ) or DEFAULT


_TRADITIONAL = frozenset({"tw", "hk", "mo", "hant"})


def traditional(cli: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The setting (``--lang``, ``GOUJI_LANG`` or the locale variable) and value that chose Chinese
    while asking for Traditional Chinese (``zh_TW``, ``zh_HK``, ``zh_MO``, ``zh-Hant``), as
    ``"LANG=zh_TW.UTF-8"``; None otherwise. gouji speaks Simplified Chinese only: it says so."""
    env = os.environ if environ is None else environ
    if cli is not None:
        source, value = "--lang", cli
    elif env.get(ENV_VAR):
        source, value = ENV_VAR, env[ENV_VAR]
    else:
        var = next((v for v in _LOCALE_VARS if env.get(v)), None)
        if var is None:
            return None
        source, value = var, env[var]
    parts = value.lower().replace("-", "_").split(".")[0].split("@")[0].split("_")
    if parts[0] != "zh" or not _TRADITIONAL & set(parts[1:]):
        return None
    return f"{source} {value}" if source == "--lang" else f"{source}={value}"


_current: Language | None = None

#: the folder of the compiled catalogs: ``locale/<code>/LC_MESSAGES/<domain>.mo``
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: the catalog of the library and the command line; the app (``gouji_app``) has its own
DOMAIN = "gouji"
APP_DOMAIN = "gouji_app"
_catalogs: dict[tuple[str, Language], _gettext.NullTranslations] = {}


def catalog(domain: str = DOMAIN, lang: Language | None = None) -> _gettext.NullTranslations:
    """The gettext catalog of ``domain`` in ``lang`` (default: the active language); English is the
    source language (the messages as written), so it has no catalog."""
    lang = current() if lang is None else lang
    key = (domain, lang)
    if key not in _catalogs:
        if lang is DEFAULT:
            _catalogs[key] = _gettext.NullTranslations()
        else:
            _catalogs[key] = _gettext.translation(domain, LOCALE_DIR, languages=[lang.value], fallback=True)
    return _catalogs[key]


def has_catalog(lang: Language, domain: str = DOMAIN) -> bool:
    """Whether the compiled catalog of ``domain`` in ``lang`` is installed (English always is: it is
    the source language). A checkout whose catalogs were not compiled (``python setup.py build_ext
    --inplace`` compiles them) speaks English: the command line says so rather than quietly."""
    return lang is DEFAULT or (LOCALE_DIR / lang.value / "LC_MESSAGES" / f"{domain}.mo").is_file()


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined (a module constant, a table) without
    translating it there: the language is chosen at run time, so it is shown with ``_(message)``."""
    return message


#: texts made by :func:`formatted_later` (the English) → their message and fields
_later: dict[str, tuple[str, dict[str, str]]] = {}


def formatted_later(message: str, **fields: str) -> str:
    """``message`` (marked with N_() by the caller) formatted with ``fields`` in English, where the
    text must exist before the language is chosen (an option's help, written at import time); the
    text is remembered, and :func:`translate_later` shows it in the active language later. A field
    that is itself a marked message (N_()) is translated with it."""
    text = message.format(**fields)
    _later[text] = (message, dict(fields))
    return text


def translate_later(text: str) -> str | None:
    """A text made by :func:`formatted_later`, in the active language (None: it was not made so)."""
    got = _later.get(text)
    if got is None:
        return None
    message, fields = got
    said = _(message)
    if said == message:  # (an app command's help: the app's catalog)
        said = catalog(APP_DOMAIN).gettext(message)
    return said.format(**{k: _(v) for k, v in fields.items()})


def _(message: str) -> str:
    """``message`` (an English source text of the library or the command line) in the active language."""
    return catalog().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of a message for ``n``, in the active language."""
    return catalog().ngettext(singular, plural, n)


#: the languages by name (the codes stay in ``--lang`` and in a ruleset's ``says: {zh: …}``)
LANGUAGE_NAMES: dict[Language, str] = {Language.EN: N_("English"), Language.ZH: N_("Chinese")}


def language_name(lang: Language) -> str:
    """``lang`` named in the active language, with its code: ``English (en)``, in Chinese ``英文（en）``."""
    return _(LANGUAGE_NAMES[lang]) + bracketed(lang.value, after=True)


def use(lang: Language) -> None:
    """Make ``lang`` the active language of this process."""
    global _current
    _current = lang


def current() -> Language:
    """The active language (resolved from the environment on first use if :func:`use` was not called)."""
    global _current
    if _current is None:
        try:
            _current = resolve()
        except UnknownLanguage:
            _current = DEFAULT  # reported by the command line's own check of GOUJI_LANG
    return _current


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes: a double-width (Chinese) character two, a combining
    mark none, any other one — for aligning text in any language."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


_DIGITS = "零一二三四五六七八九"


def chinese_numeral(n: int) -> str:
    """``n`` (0..99) in Chinese numerals, as an ordinal is written in a sentence (第五名: no digit to
    space against the characters beside it, none to be cut from them at a line break); other
    numbers in digits."""
    if not 0 <= n < 100:
        return str(n)
    tens, ones = divmod(n, 10)
    if not tens:
        return _DIGITS[ones]
    return ("" if tens == 1 else _DIGITS[tens]) + "十" + (_DIGITS[ones] if ones else "")


def bracketed(text: str, lang: Language | None = None, *, after: bool = False) -> str:
    """``text`` in brackets as the language writes them: full-width ``（…）`` in Chinese (no space
    around them), ``(…)`` in English (with ``after``, following a word: `` (…)``) — the one helper
    for a bracket of the program's own."""
    if (lang or current()) is Language.ZH:
        return f"（{text}）"
    return f" ({text})" if after else f"({text})"


_QUOTED_SPAN = re.compile(r"('[^'\n]*'|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”)")
_CJK_CHAR = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULL_WIDTH_MARK = "，。、；：！？（）“”「」《》【】"
_CJK_THEN_LATIN = re.compile(rf"([{_CJK_CHAR}])([A-Za-z0-9'`\"])")
_LATIN_THEN_CJK = re.compile(rf"([A-Za-z0-9'`\"%])([{_CJK_CHAR}])")
_SPACE_AT_MARK = re.compile(rf" +(?=[{_FULL_WIDTH_MARK}])|(?<=[{_FULL_WIDTH_MARK}]) +")


def cjk_spaced(text: str, lang: Language | None = None) -> str:
    """A sentence of the program's own as Chinese is spaced (Chinese only; other languages as given):
    one space between a Chinese character and a Latin word, a number or a quoted name (``规则
    '烧牌-测试' 没有效果``, ``由 ranks 规定``), none beside full-width punctuation (``）规定``); the
    quoted names themselves (a file's text) are left as written."""
    if (lang or current()) is not Language.ZH or not text:
        return text
    parts = _QUOTED_SPAN.split(text)
    for i in range(0, len(parts), 2):  # (the odd parts are quoted)
        parts[i] = _SPACE_AT_MARK.sub("", _LATIN_THEN_CJK.sub(r"\1 \2", _CJK_THEN_LATIN.sub(r"\1 \2", parts[i])))
    for i in range(1, len(parts), 2):  # a quoted name between Chinese characters: a space each side (not “…”)
        if parts[i].startswith("“"):
            continue
        if parts[i - 1] and re.search(rf"[{_CJK_CHAR}]$", parts[i - 1]):
            parts[i - 1] += " "
        if i + 1 < len(parts) and re.match(rf"[{_CJK_CHAR}]", parts[i + 1]):
            parts[i + 1] = " " + parts[i + 1]
    return "".join(parts)
