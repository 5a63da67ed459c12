"""The words of the game (术语): the names of the places and of the events and markers, as a ruleset
calls them (``words:``), per language.

Rulesets, not the code, name them: base gives 头科 … 大落 and 烧牌, 革命, 让牌, 够死级, 开点 …; a
variant that calls them otherwise (``words: {places: {6: 落科}}``) shows its own words wherever
they are shown. ``words:`` has three groups: ``places`` (place number → word), ``terms``
(:class:`Term` → word) and ``cards`` (a card of the notation → its name: ``R`` → 大王, ``B`` → 小王,
the app's and the rulebook's names of the jokers); each word is a text, plain or per language (see
:mod:`gouji_dsl.ruleset.languages`), and a child's word replaces its parent's, entry by entry.

The one accessor: :func:`game_words` (``game_words(graph.resolved).place(6)`` → ``大落`` in Chinese,
``last (大落)`` in English; ``.term(Term.BURN)``).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from gouji_dsl.i18n import Language, _, current
from gouji_dsl.ruleset.spec import ResolvedRuleset, Wording

__all__ = ["Term", "GameWords", "game_words", "Renamed", "renamed_words", "word_forms"]


class Term(StrEnum):
    """The events and markers of the game a ruleset names (``words.terms``). The values are the
    engine's event types (``burn``, ``revolution``, ``place`` ...) and flag names (``dead_gouji``,
    ``opened`` ...) where there is one."""

    GOUJI = "gouji"                    #: a gouji play (够级牌)
    PASS = "pass"                      #: passing (过牌)
    YIELD = "yield"                    #: yielding to the next players (让牌)
    BURN = "burn"                      #: burning (烧牌)
    COUNTER_BURN = "counter_burn"      #: burning the burner (反烧)
    BURN_UNDONE = "burn_undone"        #: the burner's opposite beats him (解烧)
    BURN_SUCCESS = "burn_success"      #: a burn that went out (烧成)
    BURN_FAILED = "burn_failed"        #: a bluff burn that failed (诈烧); its place is the place word
    REVOLUTION = "revolution"          #: revolution (革命)
    PLACE = "place"                    #: going out (走科)
    DEAD_GOUJI = "dead_gouji"          #: a gouji nobody may answer (够死级)
    OPENED = "opened"                  #: opening the point (开点)
    DECLARED = "declared"              #: declaring the point (宣点)
    STUCK = "stuck"                    #: stuck with threes (憋三 / 闷)
    HEADLESS = "headless"              #: without an opposite (无头)
    KEEP_HEAD = "keep_head"            #: keeping a head after the opposite's revolution (要头)
    SCRAMBLE = "scramble"              #: the four-way scramble (四人乱缠)
    SWEEP = "sweep"                    #: one team takes the first places (串三户)
    NEXT_LEADS = "next_leads"          #: the next player leads after one goes out (接风)
    SHOW_COUNT = "show_count"          #: showing the count of one's cards (报牌)
    TRIBUTE = "tribute"                #: tribute between games (进贡)
    RETURN_TRIBUTE = "return_tribute"  #: return tribute (还贡)


#: the words the program's own sentences (the catalogs) use for a term, per language: where a ruleset
#: names the term otherwise, :meth:`GameWords.own` puts its word in their place (the English words are
#: given only where the catalog's English word is the term alone: ``pass``, ``yield`` are also moves)
CATALOG_WORDS: dict[Term, dict[Language, str]] = {
    Term.BURN: {Language.ZH: "烧牌", Language.EN: "burn"},
    Term.COUNTER_BURN: {Language.ZH: "反烧"},
    Term.BURN_UNDONE: {Language.ZH: "解烧"},
    Term.BURN_FAILED: {Language.ZH: "诈烧"},
    Term.REVOLUTION: {Language.ZH: "革命", Language.EN: "revolution"},
    Term.PLACE: {Language.ZH: "走科"},
    Term.YIELD: {Language.ZH: "让牌"},
    Term.PASS: {Language.ZH: "过牌"},
    Term.DEAD_GOUJI: {Language.ZH: "够死级"},
    Term.GOUJI: {Language.ZH: "够级牌"},
    Term.OPENED: {Language.ZH: "开点"},
    Term.DECLARED: {Language.ZH: "宣点"},
    Term.STUCK: {Language.ZH: "憋三"},
    Term.HEADLESS: {Language.ZH: "无头"},
    Term.KEEP_HEAD: {Language.ZH: "要头"},
    Term.SCRAMBLE: {Language.ZH: "四人乱缠"},
    Term.SWEEP: {Language.ZH: "串三户"},
    Term.NEXT_LEADS: {Language.ZH: "接风"},
    Term.SHOW_COUNT: {Language.ZH: "报牌"},
    Term.RETURN_TRIBUTE: {Language.ZH: "还贡"},
    Term.TRIBUTE: {Language.ZH: "进贡"},
}

#: the places the program's own sentences name by the catalog's word (头科确定之前 …): the first out
CATALOG_PLACES: dict[int, dict[Language, str]] = {1: {Language.ZH: "头科"}}

_QUOTED = re.compile(r"('[^']*'|`[^`]*`)")
"""A quoted move or name inside a sentence ('burn CARDS', `burn.priority`): the notation, never renamed."""


_TERM = re.compile(r"[(（]([\u3400-\u9fff][\u3400-\u9fff/ ·、]*)[)）]")
"""A Chinese term in brackets after its English words: "... opens the point (开点)" → 开点."""

_OWN_TERM = re.compile(r"（([\u3400-\u9fff]{1,4})）")
"""A Chinese sentence's own term: a short word in full-width brackets (须购买（买三）), not an aside."""


def term_of(sentence: str | None) -> str | None:
    """The first Chinese term a rule's sentence gives in brackets: "... opens the point (开点); ..." → 开点;
    where it gives none, the term its Chinese sentence names in brackets ("没有自然抓到“3”的玩家须购买（买三）。"
    → 买三)."""
    m = _TERM.search(sentence or "")
    if m:
        return m.group(1).strip()
    zh = sentence.texts.get(Language.ZH) if isinstance(sentence, Wording) else None
    m = _OWN_TERM.search(zh or "")
    return m.group(1) if m else None


_FLAG_READ = re.compile(r"flag\(\s*\w+\s*,\s*'(\w+)'\s*\)")


def rule_terms(resolved: ResolvedRuleset) -> dict[str, str]:
    """The term of the game for each rule that names one (a transfer's reason, said in the ruleset's
    words rather than by its id): the term its sentence gives (如无人可卖，则由同帮相赠（先买后送） →
    先买后送), else that of the rule marking the flag its guard reads (``flag(seat, 'buying_3')`` → 买三)."""
    marked = {r.effect_expr.text: term_of(r.says) for r in resolved.rules if r.effect == "mark"}
    out: dict[str, str] = {}
    for r in resolved.rules:
        term = term_of(r.says)
        if term is None and r.when is not None:
            term = next((t for f in _FLAG_READ.findall(r.when.text) if (t := marked.get(f))), None)
        if term:
            out[r.id] = term
    return out


@dataclass(frozen=True)
class GameWords:
    """The words of the game of one ruleset (:func:`game_words`)."""

    places: dict[str, Wording]
    terms: dict[str, Wording]
    cards: dict[str, Wording] = field(default_factory=dict)
    #: rule id → the term of the game it names (:func:`rule_terms`)
    rules: dict[str, str] = field(default_factory=dict)

    def rule(self, rule_id: str) -> str | None:
        """The term of the game rule ``rule_id`` names (先买后送, 买三), or None."""
        return self.rules.get(rule_id)

    def place(self, place: int, lang: Language | None = None) -> str:
        """The name of ``place`` (1 = the first out) in ``lang`` (default: the active language);
        ``place N`` for a place the ruleset does not name."""
        w = self.places.get(str(place))
        return w.in_lang(lang) if w is not None else _("place {n}").format(n=place)

    def term(self, term: Term | str, lang: Language | None = None) -> str | None:
        """The ruleset's word for ``term`` in ``lang`` (default: the active language), or None when
        it names none."""
        w = self.terms.get(str(term))
        return w.in_lang(lang) if w is not None else None


    def own(self, text: str, *terms: Term, lang: Language | None = None) -> str:
        """``text``, a sentence of the program's own (its catalog's) that names ``terms`` (default:
        every term of :data:`CATALOG_WORDS` and the places of :data:`CATALOG_PLACES`) by the catalog's
        words (烧牌, burn), with the ruleset's word for each it names otherwise (``words.terms: {burn:
        火牌}`` → ``火牌的顺序是 …``); a word that holds the catalog's (base's ``burn (烧牌)``) leaves
        the text as it is, and so does a quoted move or name (``'burn CARDS'``: the notation)."""
        swaps = self._swaps(terms, lang or current())
        if not swaps:
            return text
        parts = _QUOTED.split(text)
        for i in range(0, len(parts), 2):  # (the odd parts are the quoted ones)
            for pattern, word in swaps:
                parts[i] = pattern.sub(word, parts[i])
        return "".join(parts)

    def _swaps(self, terms: tuple[Term, ...], lang: Language) -> list[tuple[re.Pattern[str], str]]:
        """(the catalog's word as a pattern, the ruleset's word) for each word :meth:`own` replaces."""
        pairs = [(CATALOG_WORDS.get(t, {}).get(lang), self.term(t, lang), True) for t in terms or tuple(CATALOG_WORDS)]
        if not terms:
            pairs += [(w.get(lang), self.place(n, lang) if str(n) in self.places else None, False)
                      for n, w in CATALOG_PLACES.items()]
        return [(re.compile(rf"(?<![A-Za-z]){re.escape(mine)}(?![A-Za-z])" if latin else re.escape(mine)),
                 theirs.replace("\\", r"\\")) for mine, theirs, latin in pairs if mine and theirs and mine not in theirs]

    def unbroken(self, lang: Language | None = None) -> tuple[str, ...]:
        """Every word of the game in ``lang`` (default: the active language) that a line break must not
        cut: the ruleset's places, terms and cards, and the catalog's words for the terms (the seeds'
        sentences a variant inherits still say 四人乱缠 where it says 乱战)."""
        lang = lang or current()
        said = [self.place(int(p), lang) for p in self.places if p.isdigit()]
        said += [w.in_lang(lang) for w in (*self.terms.values(), *self.cards.values())]
        said += [w[lang] for w in CATALOG_WORDS.values() if lang in w]
        return tuple(dict.fromkeys(w for w in said if w))

    def card(self, kind: str, lang: Language | None = None) -> str | None:
        """The ruleset's name of the card ``kind`` of the notation (``R`` → 大王 in Chinese, ``big
        joker (大王)`` in English; ``words.cards``) in ``lang`` (default: the active language), or
        None when it names none (the notation's symbol is then the name)."""
        w = self.cards.get(str(kind))
        return w.in_lang(lang) if w is not None else None


def game_words(resolved: ResolvedRuleset) -> GameWords:
    """The words of the game a resolved ruleset gives (``words:``, inherited)."""
    return GameWords(dict(resolved.words.get("places", {})), dict(resolved.words.get("terms", {})),
                     dict(resolved.words.get("cards", {})), rule_terms(resolved))


@dataclass(frozen=True)
class Renamed:
    """A word of the game a ruleset's own file gives otherwise than its parent (:func:`renamed_words`):
    ``group`` (``places`` / ``terms``), ``key`` (``"6"``, ``"burn"``), the parent's and the new
    :class:`Wording`."""

    group: str
    key: str
    old: Wording
    new: Wording

    def stale_forms(self, lang: Language) -> frozenset[str]:
        """The parent's forms of the word in ``lang`` that the new word no longer has (``大落`` for
        大落 → 落科; in English ``last (大落)`` and ``大落``)."""
        return word_forms(self.old.in_lang(lang)) - word_forms(self.new.in_lang(lang))


_BRACKETED = re.compile(r"[(（]([^()（）]+)[)）]")


def word_forms(text: str) -> frozenset[str]:
    """How a sentence may write a word: the word itself and the term it gives in brackets
    (``last (大落)`` → ``last (大落)``, ``大落``)."""
    return frozenset([text.strip(), *(m.strip() for m in _BRACKETED.findall(text))]) - {""}


def renamed_words(resolved: ResolvedRuleset, parent: ResolvedRuleset) -> Iterator[Renamed]:
    """The words of the game the ruleset's own file renames (written in its file, other than the
    parent's), in the order written."""
    for group, entries in resolved.words.items():
        before = parent.words.get(group, {})
        for key, new in entries.items():
            old = before.get(key)
            if old is not None and new.origin is not None and new.origin.path == resolved.path \
                    and dict(old.texts) != dict(new.texts):
                yield Renamed(group, key, old, new)
