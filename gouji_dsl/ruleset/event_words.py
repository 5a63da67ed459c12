"""The engine's events in words, in the active language and with the ruleset's words (``words.terms``,
``words.places``): the one text of an event, for the play screen's log (the app) and ``gouji replay``
(the command line). ``5 号座位对 3 号座位烧牌``, ``seat 5 burns seat 3 (烧牌)``."""
from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Any

from gouji_dsl.i18n import N_, Language, _, bracketed, chinese_numeral, current, ngettext
from gouji_dsl.ruleset.words import GameWords, Term

__all__ = ["NO_WORDS", "TRIBUTE_KINDS", "chinese", "event_label", "event_text", "place_text", "scores_said", "seat_word",
           "spaced", "term_word", "termed", "transfer_cards", "transfer_reason"]


def chinese() -> bool:
    """Whether the program speaks Chinese now."""
    return current() is Language.ZH


def spaced(label: str) -> str:
    """``label`` (a translated text ending in a colon) followed by the space before what it labels:
    none after a full-width colon or other full-width punctuation (Chinese ``本局结束：``), which
    holds its own space."""
    return label if label.endswith(("：", "，", "。", "、", "）", "？", "！")) else label + " "


def seat_word(seat: int | str, me: int | None = None) -> str:
    """``you`` for your seat, else ``seat 3`` (3 号座位), in the active language."""
    return _("you") if me is not None and int(seat) == me else _("seat {seat}").format(seat=seat)


NO_WORDS = GameWords({}, {})
"""The words of a ruleset that names nothing (every place ``place N``, no terms)."""


def termed(words: GameWords, with_terms: str, without: str, terms: dict[str, Term], *, english_terms: bool = True,
           **fields: Any) -> str:
    """A sentence that names terms of the game: ``with_terms`` when the ruleset names every one of
    ``terms`` (placeholder → :class:`Term`) — in Chinese its word, in English its Chinese word, the
    way English sentences give terms in brackets — else ``without`` (the app's own words). Both
    are given translated (``_``, ``ngettext``), filled in here. ``english_terms=False``: in English
    the sentence without the terms (the narrow log)."""
    if not english_terms and not chinese():
        return without.format(**fields)
    lang = None if chinese() else Language.ZH
    named = {k: words.term(t, lang) for k, t in terms.items()}
    if all(named.values()):
        return with_terms.format(**named, **fields)
    return without.format(**fields)


def place_text(place: int, words: GameWords = NO_WORDS) -> str:
    """The name of ``place`` as the ruleset gives it (``words.places``): ``second last (二落)``, in
    Chinese ``二落（第五名）``."""
    if chinese():
        return _("{name} (no. {place})").format(name=words.place(place), place=chinese_numeral(place))
    return words.place(place)


def term_word(words: GameWords, term: Term, fallback: str) -> str:
    """The ruleset's word for ``term`` in the active language (``burn (烧牌)``, ``烧牌``), else
    ``fallback`` (translated)."""
    return words.term(term) or _(fallback)


#: the events whose sentence has a subject: (said of you, said of another seat), with the event's fields
_SUBJECT_EVENTS: dict[str, tuple[str, str]] = {
    "trick_won": (N_("you win the trick with {play}"), N_("seat {seat} wins the trick with {play}")),
    "discard": (N_("you throw away {cards}"), N_("seat {seat} throws away {cards}")),
    "no_lead": (N_("you have no allowed lead"), N_("seat {seat} has no allowed lead")),
    "retire": (N_("you stop playing ({how})"), N_("seat {seat} stops playing ({how})")),
}

#: how a retired seat is placed (the engine's Placement), in words
RETIRE_HOW: dict[str, str] = {"last": N_("to the last free place"), "next": N_("to the next free place"),
                              "after-finishers": N_("placed after those who went out")}

#: the events the ruleset names (``words.terms``, the event type is the term): (said of you, of
#: another seat) with the ruleset's word as ``{term}``, then the same without (the app's own words)
_TERMED_EVENTS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "burn": ((N_("you burn seat {burned} ({term})"), N_("seat {seat} burns seat {burned} ({term})")),
             (N_("you burn seat {burned}"), N_("seat {seat} burns seat {burned}"))),
    "counter_burn": ((N_("you counter-burn seat {burned} ({term})"), N_("seat {seat} counter-burns seat {burned} ({term})")),
                     (N_("you counter-burn seat {burned}"), N_("seat {seat} counter-burns seat {burned}"))),
    "burn_undone": ((N_("you beat the burner (seat {burner}): {term}"), N_("seat {seat} beats the burner (seat {burner}): {term}")),
                    (N_("you beat the burner (seat {burner}): the burn is off"),
                     N_("seat {seat} beats the burner (seat {burner}): the burn is off"))),
    "burn_success": ((N_("burn by {who} succeeds ({term})"),) * 2, (N_("burn by {who} succeeds"),) * 2),
    "burn_failed": ((N_("burn by {who} fails ({term})"),) * 2, (N_("burn by {who} fails"),) * 2),
    "revolution": ((N_("revolution ({term}): {who}"),) * 2, (N_("revolution: {who}"),) * 2),
    "place": ((N_("out ({term}): {who}, {place}"),) * 2, (N_("out: {who}, {place}"),) * 2),
}


#: the kinds of tribute between games (the engine's ``tribute:KIND``), named as the seeds name them
TRIBUTE_KINDS: dict[str, str] = {"stuck": N_("stuck tribute"), "burn": N_("burn tribute"),
                                 "point": N_("point tribute"), "fall": N_("fall tribute")}


def transfer_reason(rule: str, words: GameWords = NO_WORDS) -> str:
    """Why cards were handed over, in words: ``tribute:stuck`` → 闷贡, ``return`` → the ruleset's word
    for the return tribute (还贡); another rule by the term of the game it names (先买后送, 买三), else its id."""
    if rule.startswith("tribute:"):
        kind = rule.partition(":")[2]
        return _(TRIBUTE_KINDS[kind]) if kind in TRIBUTE_KINDS else term_word(words, Term.TRIBUTE, "tribute") + f" {kind}"
    if rule == "return":
        return term_word(words, Term.RETURN_TRIBUTE, "return tribute")
    return words.rule(rule) or rule


def transfer_cards(e: dict[str, Any]) -> str:
    """A transfer's cards; one this seat may not see (a return tribute between two other seats at a
    club table: the table sends only how many) as hidden cards, never their absence."""
    if e.get("cards") is not None:
        return str(e["cards"])
    n = e.get("count")
    return ngettext("{n} card (hidden)", "{n} cards (hidden)", n).format(n=n) if isinstance(n, int) else _("(hidden)")


def _plain_event_text(t: str, e: dict[str, Any], who: Callable[[Any], str], words: GameWords = NO_WORDS) -> str:
    """An event no ruleset term names (a deal, a transfer, the first lead, a void deal, a game's end)."""
    if t == "deal":
        return (_("game {n} dealt again (redeal)") if e.get("redeal") else _("game {n} dealt")).format(n=e.get("game_number", 1)) + \
            (" " + _("(seed {seed})").format(seed=e["seed"]) if e.get("seed") is not None else "")
    if t == "transfer":
        rule = transfer_reason(e.get("rule", ""), words)
        colon, gap = ("：", "") if chinese() else (": ", "  ")
        return f"{who(e['giver'])} → {who(e['receiver'])}{colon}{transfer_cards(e)}" + (f"{gap}{bracketed(rule)}" if rule else "")
    if t == "first_leader":
        return _("first lead: {who}").format(who=who(e["seat"]))
    if t == "redeal":
        return _("the deal is void: dealt again")
    return t.replace("_", " ")


def event_text(e: dict[str, Any], me: int | None = None, words: GameWords = NO_WORDS, english_terms: bool = False,
               team_of: Callable[[int], int] | None = None) -> str:
    """One engine event in words (places named as the ruleset's ``words`` name them; in Chinese the
    events the ruleset names said with its word, in English with its Chinese word in brackets when
    ``english_terms``: :func:`termed`); ``team_of`` (a seat's team): a game's end says the teams' scores
    as the end-of-game panel does, where each team's seats scored alike."""
    def who(s: Any) -> str:
        return seat_word(s, me)

    t = e["type"]
    yours_first = me is not None and e.get("seat") == me
    fields = {k: v for k, v in e.items() if isinstance(k, str) and k != "type"}
    if t in _SUBJECT_EVENTS:
        yours, theirs = _SUBJECT_EVENTS[t]
        fields["how"] = _(RETIRE_HOW[fields["how"]]) if fields.get("how") in RETIRE_HOW else fields.get("how", "")
        return _(yours if yours_first else theirs).format(**fields)
    if t in _TERMED_EVENTS:
        (named_yours, named_theirs), (own_yours, own_theirs) = _TERMED_EVENTS[t]
        if "seat" in fields:
            fields["who"] = who(fields["seat"])
        if t == "place":
            fields["place"] = place_text(e["place"], words)
        text = termed(words, _(named_yours if yours_first else named_theirs), _(own_yours if yours_first else own_theirs),
                      {"term": Term(t)}, english_terms=english_terms, **fields)
        return text + (" " + _("(automatic)") if e.get("automatic") else "")
    if t == "game_over":
        return spaced(_("game over:")) + _listed(scores_said(e.get("scores", {}), who, me, team_of))
    return _plain_event_text(t, e, who, words)


def _listed(items: list[str]) -> str:
    """``items`` as a list in the active language (``a, b``; in Chinese ``a、b``)."""
    return reduce(lambda a, b: _("{a}, {b}").format(a=a, b=b), items) if items else ""


def scores_said(scores: dict[Any, Any], who: Callable[[Any], str], me: int | None,
                team_of: Callable[[int], int] | None) -> list[str]:
    """A game's scores in words: by team as the end-of-game panel says them (联邦 1（你） +2) where
    ``team_of`` is known and each team's seats scored alike, else each after its seat's words
    (1 号座位 +12, 你 -12) — never a bare seat number."""
    by_team: dict[int, set[Any]] = {}
    for s, v in scores.items():
        if team_of is not None:
            by_team.setdefault(team_of(int(s)), set()).add(v)
    if by_team and all(len(vs) == 1 for vs in by_team.values()):
        mine = team_of(me) if team_of is not None and me is not None else None
        return [_("team {team}").format(team=team) + (_(" (you)") if team == mine else "") + f" {next(iter(vs)):+}"
                for team, vs in sorted(by_team.items())]
    return [f"{who(s)} {v:+}" for s, v in scores.items()]


def event_label(e: dict[str, Any], me: int | None = None, words: GameWords = NO_WORDS) -> str:
    """An engine event in words with the ruleset's term for it: ``seat 5 burns seat 3 (烧牌)`` (in
    Chinese the words are the terms: ``5 号座位对 3 号座位烧牌``)."""
    return event_text(e, me, words, english_terms=True)
