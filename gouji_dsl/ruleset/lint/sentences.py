"""Lint findings about the sentences the rulebook prints: a setting changed without its own
``says`` (keeping a parent's sentence or losing it) and an inherited rule stating a number a setting
no longer has (``StaleSentence``), a text missing a language the file declares
(``MissingLanguage``), a renamed word that inherited sentences still use (``StaleWord``).

Also which sentences of a setting are in effect, for ``gouji doc`` and ``gouji show``
(:func:`setting_sentences`, :func:`stale_says`, :func:`no_effect`, :func:`chain_files`).

To add a finding about a sentence or a word, write a class here: ``@a_finding``, a subclass of
:class:`~gouji_dsl.ruleset.lint.registry.Finding` with a docstring, ``code = Code.X`` and a ``run``
yielding ``(position, message, hint)`` (see :mod:`gouji_dsl.ruleset.lint`).
"""
from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gouji_dsl.diagnostics import Code, SourcePos, quoted
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.lang import ast as A
from gouji_dsl.ruleset.analysis import short, walk_with_defs
from gouji_dsl.ruleset.game.model import CONSTRAINTS
from gouji_dsl.ruleset.languages import declared, missing_languages
from gouji_dsl.ruleset.lint.registry import Context, Finding, Found, a_finding, own_raw, parent_ruleset
from gouji_dsl.ruleset.load.checking import is_setting_long_form, load_file
from gouji_dsl.ruleset.settings import normalize_setting
from gouji_dsl.ruleset.spec import ResolvedRuleset, SettingSpec, Wording, said
from gouji_dsl.ruleset.words import Renamed, renamed_words

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleGraph, RuleNode


_LONG_FORM = N_("write the long form {value: ..., says: \"...\", source: \"...\"}")


@a_finding
class InheritedSentenceKept(Finding):
    """A setting this file changes without its own ``says``, keeping the parent's sentence, which
    may no longer be true (:func:`stale_says`)."""

    code = Code.STALE_SENTENCE

    def run(self, c: Context) -> Found:
        for name in sorted(stale_says(c.graph)):
            s = c.resolved.settings[name]
            yield (s.origin, _("setting {name!r} is changed here but keeps an inherited sentence, which may no longer "
                   "be true: {short!r}").format(name=name, short=short(s.says or '', 90)), _(_LONG_FORM))


@a_finding
class SentenceLost(Finding):
    """A setting this file changes without a sentence where the parent's value had one: the
    rulebook (``gouji doc``) loses the parent's sentence and says nothing instead."""

    code = Code.STALE_SENTENCE

    def run(self, c: Context) -> Found:
        for name, s in c.resolved.settings.items():
            before = c.parent.settings.get(name) if c.parent is not None else None
            if s.inherited or s.says or before is None or not before.says \
                    or normalize_setting(before.value) == normalize_setting(s.value):
                continue
            yield (s.origin, _("setting {name!r} is changed here without a sentence (says): the rulebook (gouji doc) "
                   "loses the parent's {short!r} and says nothing instead").format(name=name, short=short(before.says, 70)), _(_LONG_FORM))


_NUMBER_WORDS = {"a card": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "double": 2, "doubles": 2}


_NUMBER = re.compile(r"\d+|\b(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _numbers_said(text: str) -> set[int]:
    """The numbers a sentence states, in digits or words ("two cards", "a card", "doubles")."""
    return {int(m) if m.isdigit() else _NUMBER_WORDS[m.casefold()] for m in _NUMBER.findall(text)}


def _numbers_in(value: Any) -> set[int]:
    """The numbers among a setting value's leaves (not a map's keys)."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(value)} if value.isdigit() else set()
    if isinstance(value, dict):
        return set().union(*map(_numbers_in, value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*map(_numbers_in, value)) if value else set()
    return set()


def _settings_read(c: Context, n: RuleNode) -> list[tuple[str, str | None]]:
    """The settings rule ``n`` reads (through its definitions too), each with the key it looks up, in order."""
    paths: set[tuple[str, str | None]] = set()
    for tree in c.an.trees(n.id):
        for x in walk_with_defs(tree, c.an.defs):
            if isinstance(x, A.Setting):
                paths.add((x.name, str(x.path[0]) if x.path else None))
    return sorted(paths, key=lambda p: (p[0], p[1] or ""))


def _said_by_setting(n: RuleNode, name: str, key: str | None) -> bool:
    """Rule ``n`` is ``said_by`` setting ``name`` (or its key ``key``)."""
    return any(e == name or e == f"{name}.{key}" or (key is None and e.startswith(name + ".")) for e in n.said_by)


def _numbers_gone(c: Context, n: RuleNode, said: set[int], stale: Collection[str], name: str,
                  key: str | None) -> list[int]:
    """The numbers rule ``n``'s sentence states that setting ``name`` (its key ``key``) had in the parent and no
    longer has here; none where the setting has no sentence of its own or the rule is said_by it."""
    s = c.resolved.settings.get(name)
    before = c.parent.settings.get(name) if c.parent is not None else None
    if s is None or s.inherited or before is None or not s.says or name in stale:
        return []  # a setting changed here without its own sentence: the two findings above
    if _said_by_setting(n, name, key):
        return []
    now, then = s.value, before.value
    if key is not None and isinstance(now, dict) and isinstance(then, dict):
        now, then = now.get(key, now.get(int(key)) if key.isdigit() else None), then.get(key)
    if normalize_setting(now) == normalize_setting(then):
        return []
    return sorted(said & _numbers_in(then) - _numbers_in(now))


@a_finding
class InheritedRuleSentenceKept(Finding):
    """A rule inherited with a sentence that states a number ("two cards") which a setting it reads
    (or the key of a map setting) had in the parent and no longer has here: the rulebook prints the
    parent's number. Not where the rule is ``said_by`` that setting and the setting has a sentence
    (that is printed in the rule's place; a stale setting sentence is the finding above)."""

    code = Code.STALE_SENTENCE

    def run(self, c: Context) -> Found:
        if c.parent is None:
            return
        stale = stale_says(c.graph)
        for n in c.nodes:
            said = _numbers_said(n.says or "")
            if not n.inherited or not said or n.id in c.an.dead or n.id in c.an.inert:
                continue
            for name, key in _settings_read(c, n):
                gone = _numbers_gone(c, n, said, stale, name, key)
                if not gone:
                    continue
                s = c.resolved.settings[name]
                what = name if key is None else f"{name}.{key}"
                at = (s.key_origins.get(key) if key is not None else None) or s.origin
                yield (at, _("setting {what!r} no longer has {join} here, but rule {id!r}, which "
                       "reads it, keeps its inherited sentence, which says so: {short!r}").format(
                           what=what, join=', '.join(map(str, gone)), id=n.id, short=short(n.says or '', 70)),
                       _("override rule {id!r} with its own says, or give it said_by: [{what}] and the setting a "
                       "sentence with its values").format(id=n.id, what=what))
                break


@a_finding
class TextMissingALanguage(Finding):
    """A text of this file (a ``says``, the title, the description, a word of ``words:``) given in
    one language the file declares (its own ``languages:``) and not in another. A file that declares
    none writes in the language it inherits and is not asked for the others."""

    code = Code.MISSING_LANGUAGE

    def run(self, c: Context) -> Found:
        raw = own_raw(c.resolved.path, c.resolved.text or "")
        if raw is not None and declared(raw.data) is not None:
            yield from missing_languages(c.resolved)


@a_finding
class InheritedSentenceNamesOldWord(Finding):
    """A word of the game this file renames (``words: {places: {6: 落科}}``) while sentences it
    inherits, printed in the rulebook, still use the parent's word (``大落``): the rulebook would
    call one place or event by two names. Reported at the new word, naming each such sentence (a
    rule that can fire, or a setting's), in every language the ruleset declares."""

    code = Code.STALE_WORD

    def run(self, c: Context) -> Found:
        if c.parent is None:
            return
        sentences = _inherited_sentences(c)
        for r in renamed_words(c.resolved, c.parent):
            stale: dict[str, None] = {}
            olds: dict[str, None] = {}
            for lang in c.resolved.languages:
                forms = r.stale_forms(lang)
                for label, w in sentences:
                    found = [f for f in forms if f in w.in_lang(lang)]
                    if found:
                        stale.setdefault(label)
                        olds.update(dict.fromkeys(sorted(found)))
            if stale and r.new.origin is not None:  # (renamed_words gives only words written in a file)
                yield (r.new.origin, _stale_word_message(r, list(olds), list(stale)),
                       _("give each of them its own says with the new word: a rule of the same id with `says:`, or "
                         "the setting's long form"))


def _inherited_sentences(c: Context) -> list[tuple[str, Wording]]:
    """(label, sentence) of each sentence the rulebook prints that another file wrote: the rules
    that can fire, and the settings' sentences that still hold."""
    out: list[tuple[str, Wording]] = []
    for n in c.nodes:
        w = n.says
        if isinstance(w, Wording) and n.id not in c.an.dead and w.origin is not None and w.origin.path != c.own_path:
            out.append((_("rule {id} ({where})").format(id=quoted(n.id), where=_short_pos(w.origin)), w))
    for name, s in c.resolved.settings.items():
        for x in s.sentences_in_effect():
            w = x.says
            if isinstance(w, Wording) and w.origin is not None and w.origin.path != c.own_path:
                out.append((_("setting {name} ({where})").format(name=quoted(name), where=_short_pos(w.origin)), w))
    return out


def _short_pos(o: SourcePos) -> str:
    return f"{Path(o.path).name}:{o.line}"


def _stale_word_message(r: Renamed, olds: list[str], labels: list[str]) -> str:
    what = _("place {n}").format(n=r.key) if r.group == "places" else _("the term {term}").format(term=quoted(r.key))
    shown = _(", ").join(labels[:6]) + (_(" and {n} more").format(n=len(labels) - 6) if len(labels) > 6 else "")
    return ngettext("{what} is called {new} here, but {n} inherited sentence printed in the rulebook still says "
                    "{old}: {sentences}",
                    "{what} is called {new} here, but {n} inherited sentences printed in the rulebook still say "
                    "{old}: {sentences}", len(labels)).format(
        what=what, new=quoted(said(r.new)), n=len(labels), old=_(", ").join(map(quoted, olds)), sentences=shown)


def stale_says(graph: RuleGraph | ResolvedRuleset) -> set[str]:
    """Settings this ruleset's own file (or ``--set`` option) changes without a ``says``, keeping an
    inherited sentence that may no longer be true (a map merged into the parent's keeps the parent's
    sentence). ``graph``: the rule graph or the resolved ruleset."""
    resolved = graph if isinstance(graph, ResolvedRuleset) else graph.resolved
    raw = own_raw(resolved.path, resolved.text or "")
    if raw is None:
        return set()
    written_all = raw.get(("settings",)) or {}
    out: set[str] = set()
    parent = None
    for name, s in resolved.settings.items():
        if s.inherited or not s.says or name not in written_all:
            continue
        written = written_all[name]
        if is_setting_long_form(written) and written.get("says"):
            continue
        if parent is None:
            parent = parent_ruleset(resolved)
        before = parent.settings.get(name) if parent is not None else None
        if before is not None and normalize_setting(before.value) == normalize_setting(s.value):
            continue  # written again, unchanged: the sentence still holds
        out.add(name)
    return out


def no_effect(values: Any) -> dict[tuple[str, ...], str]:
    """The settings (name, then keys) another setting disables (the setting-type layer's
    constraints, which validate reports as ``SettingHasNoEffect``), each with why. ``values``: the
    settings' values by name (a graph's ``settings``)."""
    values = dict(values)
    return {c.path: c.message.split(":")[0] for c in CONSTRAINTS if c.holds(values)}


def chain_files(resolved: ResolvedRuleset) -> dict[str, str]:
    """Each ruleset name of the chain to its file (a name two files share: the root-most one's)."""
    out: dict[str, str] = {}
    for i, path in enumerate(resolved.chain):
        name = resolved.name if i == 0 else Path(path).stem
        if i:
            try:
                name = str(load_file(path).data.get("ruleset") or name)
            except Exception:
                pass
        out[name] = path
    return out


def setting_sentences(s: SettingSpec, stale: Collection[str] = (), off: dict[tuple[str, ...], str] | None = None,
                      files: dict[str, str] | None = None) -> list[tuple[tuple[str, ...], str, str | None]]:
    """The sentences in effect of setting ``s``, each with the keys of the map it is about (empty:
    the whole value), its text and source: what ``gouji doc`` prints of the setting and ``gouji show``
    beside it (the one place that decides). None when ``s`` is in ``stale`` (:func:`stale_says`: the
    value was changed without a sentence, so the inherited one no longer describes it). A file's
    sentence replaces every earlier one about a key it changed — a sentence about the whole value (a
    parent's "216 cards, 36 each") describes every key, so any later sentence replaces it — and a
    sentence about other keys of the map stays (a child's `says:` on one key does not replace what
    another file says of the others).

    ``off`` maps the paths another setting disables (:func:`no_effect`, the lint's
    ``SettingHasNoEffect`` finding) to why; ``files`` each ruleset name of the chain to its file
    (:func:`chain_files`). A sentence whose file wrote only such values is left out; one whose file
    also wrote values that apply is marked with what does not."""
    if s.name in stale or not s.says:
        return []
    sentences = list(getattr(s, "sentences", ()) or ())
    if not sentences:
        return [((), said(s.says) or "", s.source)]
    kept: list[tuple[Any, str]] = []
    for x in sentences:
        text = said(x.says) or ""
        path = (files or {}).get(x.ruleset)
        dead = {p[1:]: why for p, why in (off or {}).items()
                if p[0] == s.name and len(p) > 1 and (not x.keys or str(p[1]) in x.keys)
                and path is not None and getattr(s.positions.get(p[1:]), "path", None) == path}
        if dead:
            written = [q for q, at in s.positions.items() if at.path == path and q and (not x.keys or str(q[0]) in x.keys)]
            leaves = [q for q in written if not any(len(r) > len(q) and r[:len(q)] == q for r in written)]
            if not [q for q in leaves if not any(q[:len(d)] == d for d in dead)]:
                continue  # it speaks only of values that take no effect (and replaces nothing)
            text += _(" (Not in effect here: {what}.)").format(what="; ".join(
                f"{s.name}.{'.'.join(map(str, d))} {why}" for d, why in dead.items()))
        kept.append((x, text))
    return [(tuple(x.keys), text, x.source) for i, (x, text) in enumerate(kept)
            if not any(not x.keys or not y.keys or set(x.keys) & set(y.keys) for y, _t in kept[i + 1:])]
