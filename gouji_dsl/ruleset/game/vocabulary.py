"""The interpreter's vocabulary: the questions (hooks) a ruleset answers, and the names and
functions its expressions may use, each with its type (:mod:`gouji_dsl.lang.types`). Everything
here is generic to a six-seat partnership climbing game (seats, teams, tricks, turns, places,
flags); what Gouji is lives in ``rules/*.yaml``.

Every function is total over its parameter types: an argument that is ``none`` (nobody burns,
no play on the table) gives the function's documented ``none`` result instead of an error
(``holds(burner, '3')`` is 0 when nobody burns, ``min(burner, 3)`` is none). ``gouji show
--vocabulary`` prints this table.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gouji_dsl.i18n import N_, _
from gouji_dsl.lang.check import FnSig, VarSig
from gouji_dsl.lang.fold import Abs, Facts, K, U
from gouji_dsl.lang.ops import EvalError
from gouji_dsl.lang.types import (
    ANY,
    BOOL,
    INT,
    PLAY,
    RANK,
    RANKS,
    SEAT,
    SEATS,
    TEXT,
    ListOf,
    MapOf,
    Type,
    join,
    parse_type,
    strip,
)


class HookKind(StrEnum):
    """What kind of question a hook is."""

    PERMIT = "permit"  # allow / deny / require rules; ``default`` holds when no rule grants
    VALUE = "value"  # value / order rules; the last matching rule wins
    TRIGGER = "trigger"  # mark / unmark / count / place / give rules; every matching one runs


#: the kinds of questions in words (the hooks table, the editor's picker)
HOOK_KIND_WORDS: dict[str, str] = {HookKind.PERMIT: N_("permit"), HookKind.VALUE: N_("value"), HookKind.TRIGGER: N_("trigger")}


COMBINING = N_(
    "How rules combine. A rule applies when its `when:` guard holds (no guard: always). "
    "A permit question (allow / deny / require rules) is answered yes when (a) the question's default is yes "
    "or an applying `allow` rule's expression holds, and (b) no applying `deny` rule's expression holds and "
    "every applying `require` rule's expression holds: a deny or a failed require always wins over any allow, "
    "and file order does not matter. So on a question whose default is yes (`play`, `follow`, `burn_lead`) "
    "an allow rule changes nothing; on one whose default is no (`revolt`, `yield`, `burn`, `see_hand`...) "
    "only an allow rule can open it. A value question (value / order rules) is answered by the last applying "
    "rule in the rule graph's order (file order, a child's new rules after the inherited ones, `before:` / "
    "`after:` edges); a trigger (mark / unmark / count / place / give rules) runs every applying rule, in that "
    "order. When no rule applies, the question takes its default: `gouji show --vocabulary` and the hooks "
    "table give it for each question (none for a value question means the engine's own answer, "
    "named in the question's description).")
"""How allow / deny / require, value and trigger rules combine, and what a question answers when no
rule matches (docs/ruleset-format.md "How rules combine" and F1 say the same)."""


def default_text(h: Hook) -> str:
    """What ``h`` answers when no rule applies, in words (``yes``/``no``, a value, or none)."""
    if h.kind == HookKind.TRIGGER:
        return _("nothing happens")
    if h.kind == HookKind.PERMIT:
        return _("yes") if h.default else _("no")
    if h.default is None:
        return _("none (the engine's default)")
    if isinstance(h.default, bool):
        return _("yes") if h.default else _("no")
    return repr(h.default) if not isinstance(h.default, str) else h.default


PLACE_WORDS = "'last' | 'next' | 'after-finishers'"
"""Where a seat that stops playing is placed: the worst free place, the best free place, or after
every seat that finishes normally (type of ``place:`` effects, ``no_lead`` and ``burn_failure``)."""


@dataclass(frozen=True)
class Hook:
    """A question the interpreter asks.

    ``kind``: :class:`HookKind`. ``context``: the variables bound when it is asked (``maybe_none``:
    those of them that may be none here). ``phase``: where in the game it is asked (orders the rule
    graph). ``type``: the type of a value answer; ``default``: the answer when no rule answers.
    ``game``: a game is going on (false for ``gouji``, asked about a play without a game, and for
    ``match_length``, asked once before a match: game variables and functions are not known there). ``none_ok``: a value rule may answer none
    (the engine then does what the default says); otherwise a none answer is a rule failure."""

    name: str
    kind: HookKind
    phase: str
    context: tuple[str, ...]
    doc: str
    type: Type = BOOL
    default: Any = None
    game: bool = True
    none_ok: bool = True
    maybe_none: tuple[str, ...] = ()


PHASES: tuple[str, ...] = ("cards", "deal", "tribute", "setup", "lead", "trick", "burn", "finish", "end", "view")
"""Phase order of the rule graph (edges ``phase order`` follow it)."""


def _H(name: str, kind: str, phase: str, context: tuple[str, ...], doc: str, type: str = "bool", default: Any = None,
       **kw: Any) -> Hook:
    return Hook(name, HookKind(kind), phase, context, doc, parse_type(type), default, **kw)


class HookName(StrEnum):
    """The name of each question (hook) the interpreter asks, in :data:`HOOKS` order: code asks
    ``graph.permit(HookName.PLAY, ...)``, never a bare string. A str-Enum, so a ruleset's ``on: play``
    and every serialised form stay the word itself. **To add a hook**, add its name here and its
    :class:`Hook` to :data:`HOOKS` (a test checks that the two agree)."""

    GOUJI = "gouji"
    FIRST_DRAWER = "first_drawer"
    FIRST_LEADER = "first_leader"
    OFFER = "offer"
    ANSWERED = "answered"
    REDEAL_BEFORE_TRIBUTE = "redeal_before_tribute"
    TRIBUTE_KINDS = "tribute_kinds"
    TRIBUTE = "tribute"
    TRIBUTE_CARD = "tribute_card"
    RETURN_TRIBUTE = "return_tribute"
    SETUP_ROUNDS = "setup_rounds"
    AFTER_RETURN = "after_return"
    SEAT_SETUP = "seat_setup"
    MUST_REVOLT = "must_revolt"
    REVOLT = "revolt"
    DECLARE = "declare"
    REDEAL = "redeal"
    CHOOSE = "choose"
    GAME_START = "game_start"
    SEAT_START = "seat_start"
    DISCARD = "discard"
    PLAY = "play"
    FOLLOW = "follow"
    FOLLOW_ORDER = "follow_order"
    YIELD = "yield"
    YIELD_TO = "yield_to"
    BURN_ORDER = "burn_order"
    BURN = "burn"
    BURN_LEAD = "burn_lead"
    NO_LEAD = "no_lead"
    MATCH_LENGTH = "match_length"
    BURN_FAILURE = "burn_failure"
    AFTER_PLAY = "after_play"
    AFTER_PASS = "after_pass"
    AFTER_YIELD = "after_yield"
    AFTER_DISCARD = "after_discard"
    TRICK_WON = "trick_won"
    NEXT_LEADER = "next_leader"
    FINISH = "finish"
    REVOLUTION_PLACE = "revolution_place"
    GAME_OVER = "game_over"
    UNFINISHED_ORDER = "unfinished_order"
    SWEEP = "sweep"
    SCORE = "score"
    SEE_COUNT = "see_count"
    SEE_HAND = "see_hand"


HOOKS: dict[str, Hook] = {h.name: h for h in [
    _H("gouji", "value", "cards", ("play",), N_("Is this play a gouji play (够级牌)?"), "bool", False, game=False, none_ok=False),
    _H("first_drawer", "value", "deal", (), N_("Who is dealt the first card (the deal then goes round in play order, one card at a time)? Default: seat 1."), "seat", None),
    _H("first_leader", "value", "deal", (), N_("Which seat leads the first trick (上班)? (none: seat 1, or the next seat still in)"), "seat", None),
    _H("offer", "permit", "deal", ("seat", "choice"), N_("Is this seat asked the ruleset's choice `choice` now (its `choices` setting: asked right after the deal or after the revolt questions)? It answers `choose CHOICE` or declines with `pass`."), default=False),
    _H("answered", "trigger", "deal", ("seat", "choice", "answer"), N_("Runs when a seat answers a question before play: a ruleset's choice (answer = its word, or 'pass'), 'revolt' ('revolt' / 'pass'), 'declare' ('declare' / 'pass') or 'choose' ('head' / 'headless').")),
    _H("redeal_before_tribute", "value", "deal", (), N_("Right after the deal and its choices, before tribute and buying: is the deal void and dealt again (weak hands checked first)?"), "bool", False, none_ok=False),
    _H("tribute_kinds", "value", "tribute", (), N_("Between games: the kinds of tribute, in the order they are paid."), "[text]", []),
    _H("tribute", "value", "tribute", ("seat", "target", "kind"), N_("Between games: how many cards seat gives target as tribute of this kind."), "int", 0),
    _H("tribute_card", "value", "tribute", ("seat", "card"), N_("How many cards of kind `card` seat may give as tribute (none: all it holds)."), "int", None),
    _H("return_tribute", "value", "tribute", ("seat", "target", "kind", "amount"), N_("How many cards seat (who received tribute of this kind) must return to target (还贡)."), "int", 0),
    _H("setup_rounds", "value", "tribute", (), N_("How many rounds of seat_setup rules run after the deal and tribute (round = 1..N). Default: 1."), "int", None),
    _H("after_return", "trigger", "tribute", ("seat", "target", "amount"), N_("Runs after a seat returns tribute (还贡): seat gave `amount` cards back to target.")),
    _H("seat_setup", "trigger", "tribute", ("seat", "round"), N_("Runs for each seat in turn, round after round, after the deal and tribute (e.g. buying 3s: give rules).")),
    _H("must_revolt", "value", "setup", ("seat",), N_("Is this seat's revolution automatic (e.g. no 3 and nothing to buy one with)?"), "bool", False, none_ok=False),
    _H("revolt", "permit", "setup", ("seat",), N_("May this seat declare revolution (革命)?"), default=False),
    _H("declare", "permit", "setup", ("seat",), N_("May this seat declare the point (宣点)?"), default=False),
    _H("redeal", "value", "setup", (), N_("After the setup answers, is the deal void and dealt again?"), "bool", False, none_ok=False),
    _H("choose", "permit", "setup", ("seat",), N_("Is this seat asked to choose head / head-less (after its opposite's revolution)?"), default=False),
    _H("game_start", "trigger", "setup", (), N_("Runs once when play begins (after setup).")),
    _H("seat_start", "trigger", "setup", ("seat",), N_("Runs for each seat when play begins (after setup).")),
    _H("discard", "permit", "lead", ("seat", "play"), N_("May this seat throw away these cards instead of leading (e.g. void 4s)?"), default=False),
    _H("play", "permit", "lead", ("seat", "play", "top", "leading"), N_("May this seat make this play now (lead or follow)?"), default=True, maybe_none=("top",)),
    _H("follow", "permit", "trick", ("seat", "top"), N_("May this seat answer the play on the table now?"), default=True),
    _H("follow_order", "value", "trick", ("top",), N_("In which order are seats asked to answer the play on the table?"), "[seat]", None),
    _H("yield", "permit", "trick", ("seat", "top"), N_("May this seat yield (让牌) to the next players? (The engine never asks a seat that already yielded this play: engine.yield-once.)"), default=False),
    _H("yield_to", "value", "trick", ("seat", "top"), N_("How many following players a yield hands the decision to."), "int", 0),
    _H("burn_order", "value", "burn", ("top",), N_("Which seats are offered a burn (烧牌) of the play on the table, in order?"), "[seat]", []),
    _H("burn", "permit", "burn", ("seat", "top"), N_("May this seat burn the play on the table?"), default=False),
    _H("burn_lead", "permit", "burn", ("seat", "play"), N_("While burning, may the burner lead this play? (no allowed lead = the burn fails)"), default=True),
    _H("no_lead", "value", "lead", ("seat",), N_("Where a seat that must lead but has no allowed lead is placed: \"last\", \"next\" or \"after-finishers\" (default)."), PLACE_WORDS, None),
    _H("match_length", "value", "end", (), N_("How many games make a match (tribute runs between them)? Asked once, before the match's first game."), "int", 1,
       game=False, none_ok=False),
    _H("burn_failure", "value", "burn", ("seat",), N_("Where a failed burner is placed: \"last\" (大落 at once), \"next\" (the best free place) or \"after-finishers\" (after every player who goes out). Default: \"last\"."), PLACE_WORDS, None),
    _H("after_play", "trigger", "trick", ("seat", "play", "beaten"), N_("Runs after every play (seat = who played, play = the new top, beaten = the play it beat or none)."), maybe_none=("beaten",)),
    _H("after_pass", "trigger", "trick", ("seat", "top"), N_("Runs after a seat passes (过牌) the play on the table, or declines a burn of it (then passed(seat) is false).")),
    _H("after_yield", "trigger", "trick", ("seat", "top"), N_("Runs after a seat yields (让牌) the play on the table.")),
    _H("after_discard", "trigger", "lead", ("seat", "play"), N_("Runs after a seat throws cards away instead of leading (play = the cards).")),
    _H("trick_won", "trigger", "trick", ("seat", "top"), N_("Runs when a play is left unanswered (seat = its player).")),
    _H("next_leader", "value", "trick", ("top",), N_("Who leads after the trick (接风 when the winner is out)?"), "seat", None),
    _H("finish", "trigger", "finish", ("seat",), N_("Runs when a seat goes out (走科).")),
    _H("revolution_place", "value", "finish", ("seat",), N_("The place a revolutionary takes."), "int", None),
    _H("game_over", "value", "end", (), N_("Is the game over? (A game with nobody left to play is over anyway.)"), "bool", False, none_ok=False),
    _H("unfinished_order", "value", "end", (), N_("When the game ends with players still holding cards: all of them, best first, in the order they take the free places."), "[seat]", None),
    _H("sweep", "value", "end", (), N_("Was the game a sweep (串三户)?"), "bool", False, none_ok=False),
    _H("score", "value", "end", ("seat",), N_("Points this seat scores for the game (a number)."), "int", 0, none_ok=False),
    _H("see_count", "permit", "view", ("seat", "target"), N_("May seat see how many cards target holds?"), default=False),
    _H("see_hand", "permit", "view", ("seat", "target"), N_("May seat see target's cards?"), default=False),
]}

EFFECTS_BY_KIND: dict[str, tuple[str, ...]] = {
    HookKind.PERMIT: ("allow", "deny", "require"),
    HookKind.VALUE: ("value", "order"),
    HookKind.TRIGGER: ("mark", "unmark", "count", "place", "give"),
}

# ---------------------------------------------------------------------------- context variables
CONTEXT_VARS: dict[str, VarSig] = {
    "seat": VarSig(SEAT, lambda c: c.seat, "the seat the question is about"),
    "play": VarSig(PLAY, lambda c: c.play, "the play being made (its seat is the player)"),
    "top": VarSig(PLAY, lambda c: c.top, "the play on the table (none when leading)"),
    "beaten": VarSig(PLAY, lambda c: c.beaten, "the play the new play beat (none for a lead)"),
    "target": VarSig(SEAT, lambda c: c.target, "the seat being looked at"),
    "leading": VarSig(BOOL, lambda c: c.leading, "the play is a lead (no play on the table)"),
    "kind": VarSig(TEXT, lambda c: c.kind, "the tribute kind being settled"),
    "card": VarSig(RANK, lambda c: c.card, "the card kind considered for tribute"),
    "amount": VarSig(INT, lambda c: c.amount, "how many cards were received as this tribute"),
    "round": VarSig(INT, lambda c: c.round, "which round of seat_setup rules is running (1..setup_rounds)"),
    "choice": VarSig(TEXT, lambda c: c.choice, "the question asked: a word of settings.choices, or 'revolt', 'declare', 'choose'"),
    "answer": VarSig(TEXT, lambda c: c.answer, "the answer given: the choice's word, 'pass', 'revolt', 'declare', 'head' or 'headless'"),
}


GLOBAL_VARS: dict[str, VarSig] = {
    "all_seats": VarSig(SEATS, lambda c: list(c.g.seat_list), "every seat, 1..N", game=True),
    "active_seats": VarSig(SEATS, lambda c: c.g.active_list(), "seats still playing (not out, not revolted, not failed)", game=True),
    "finished": VarSig(SEATS, lambda c: list(c.g.finish_order), "seats that went out, in order", game=True),
    "finished_in_trick": VarSig(SEATS, lambda c: list(c.g.finished_in_trick), "seats that went out during this trick", game=True),
    "revolted_seats": VarSig(SEATS, lambda c: sorted(c.g.revolted), "seats that declared revolution", game=True),
    "passed_seats": VarSig(SEATS, lambda c: sorted(c.g.passed), "seats that passed in this trick", game=True),
    "leader": VarSig(SEAT, lambda c: c.g.trick_leader, "the seat that led this trick (none before the first)", game=True),
    "burner": VarSig(SEAT, lambda c: c.g.burner, "the seat burning now, or none", game=True),
    "game_number": VarSig(INT, lambda c: c.g.game_number, "1 for the first game of a match", game=True),
    "places_taken": VarSig(INT, lambda c: len(c.g.places), "how many places are fixed", game=True),
    "trick_number": VarSig(INT, lambda c: c.g.trick_no, "tricks started so far", game=True),
    "prev_sweep": VarSig(BOOL, lambda c: bool(c.g.prev and c.g.prev.sweep), "the previous game of the match was a sweep", game=True),
    "first_game": VarSig(BOOL, lambda c: c.g.prev is None, "no previous game in this match", game=True),
}

MAYBE_NONE_GLOBALS: frozenset[str] = frozenset({"leader", "burner"})
"""Game variables that may be none (every other name is never none where it is known)."""

# ---------------------------------------------------------------------------- play attributes
_A = operator.attrgetter

PLAY_ATTRS: dict[str, VarSig] = {
    "seat": VarSig(SEAT, _A("seat"), "who played it"),
    "rank": VarSig(RANK, _A("rank"), "the rank it counts as (a joker kind for a pure joker play)"),
    "count": VarSig(INT, _A("count"), "number of cards"),
    "carried": VarSig(INT, _A("carried"), "rank cards, 2s used as filler included"),
    "filler": VarSig(INT, _A("filler"), "2s used as filler (贴钱)"),
    "jokers": VarSig(INT, _A("jokers"), "jokers attached (挂花)"),
    "pure_jokers": VarSig(BOOL, lambda p: p.play.pure_jokers, "only jokers"),
    "gouji": VarSig(BOOL, _A("gouji"), "a gouji play (够级牌)"),
    "cards": VarSig(TEXT, lambda p: p.play.text, "the cards, canonical text"),
    "beaten": VarSig(SEAT, _A("beaten_seat"), "the seat whose play this beat, or none"),
    "over_yield": VarSig(BOOL, _A("over_yield"), "made while a yield was pending"),
    "yielder": VarSig(SEAT, _A("yielder"), "the seat that yielded before this play, or none"),
    "empties_hand": VarSig(BOOL, _A("empties_hand"), "the player has no cards left after it"),
    "burn": VarSig(BOOL, _A("is_burn"), "made as a burn (烧牌)"),
}

MAYBE_NONE_ATTRS: frozenset[str] = frozenset({"beaten", "yielder"})
"""Play attributes that may be none."""


# ---------------------------------------------------------------------------- functions
_MISSING = object()


def no_place_text(place: Any, table: Any) -> str:
    """A place the place table (名次表) has no entry for (the interpreter's and the native core's text)."""
    return _("the place table has no place {place} (keys: {keys})").format(
        place=place, keys=", ".join(map(str, table)) or "none")


def _sum_places(c: Any, seats: list[int], table: dict[Any, Any]) -> int:
    total = 0
    for s in seats:
        p = c.g.places.get(s)
        if p is None:
            continue
        v = table.get(p, table.get(str(p), _MISSING))  # typed settings have number keys; plain ones text keys
        if v is _MISSING:
            raise EvalError(no_place_text(p, table))
        total += v or 0
    return total


def _prev_burns(c: Any, s: int, t: int, counter: bool) -> int:
    prev = c.g.prev
    if prev is None:
        return 0
    return sum(1 for b in prev.burns if b["burner"] == s and b["burned"] == t and b.get("success")
               and (not counter or b.get("counter")))


def _cards_of(p: Any, r: str) -> int:
    """Cards of kind ``r`` in the play viewed by ``p`` (a TablePlay); 0 for a kind not in the ruleset."""
    try:
        return int(p.play.counts[p.g_kinds.index(str(r))])
    except ValueError:
        return 0


def _first_held(c: Any, s: int, ks: list[str]) -> str | None:
    g = c.g
    return next((k for k in ks if g.holds(s, k) - g.received_count(s, k) > 0), None)


# static knowledge for the folder (see gouji_dsl.lang.fold): f(args, facts) -> Abs | None
def _empty_list_gives(value: Any, at: int = 0) -> Any:
    def fold(args: list[Abs], facts: Facts) -> Abs | None:
        a = args[at]
        if isinstance(a, K) and not a.v:
            return K(value)
        return None
    return fold


def _flag_fold(value: Any) -> Any:
    def fold(args: list[Abs], facts: Facts) -> Abs | None:
        name = args[1]
        if facts.flags is not None and isinstance(name, K) and str(name.v) not in facts.flags:
            return K(value)
        return None
    return fold


def _counter_fold(args: list[Abs], facts: Facts) -> Abs | None:
    name = args[1]
    if facts.counters is not None and isinstance(name, K) and str(name.v) not in facts.counters:
        return K(0)
    return None


def _flagged_fold(args: list[Abs], facts: Facts) -> Abs | None:
    return _empty_list_gives([])(args, facts) or _flag_fold([])([args[0], args[1]], facts)


def _coalesce_fold(args: list[Abs], facts: Facts) -> Abs | None:
    a, b = args
    if isinstance(a, K):
        return a if a.v is not None else b
    if isinstance(a, U) and a.nonnull:
        return a
    return None


def _elem_type(types: list[Type]) -> Type:
    t = strip(types[0]) if types else ANY
    return t.elem if isinstance(t, ListOf) else ANY


def _join_types(types: list[Type]) -> Type:
    return join(types[0], types[1]) or ANY


_SEAT = (SEAT,)
_F = FnSig
FUNCTIONS: dict[str, FnSig] = {
    "opposite": _F(_SEAT, SEAT, lambda c, s: c.g.opposite(s), "the seat across the table (对头): s + N/2; none for none"),
    "downstream": _F(_SEAT, SEAT, lambda c, s: c.g.next_seat(s), "the next seat in play order (下家); none for none"),
    "upstream": _F(_SEAT, SEAT, lambda c, s: c.g.prev_seat(s), "the previous seat in play order (上家); none for none"),
    "after": _F(_SEAT, SEATS, lambda c, s: list(c.g.after(s)), "every other seat, in play order starting after s", []),
    "teammates": _F(_SEAT, SEATS, lambda c, s: [t for t in c.g.after(s) if c.g.team(t) == c.g.team(s)], "s's teammates in play order after s", []),
    "opponents": _F(_SEAT, SEATS, lambda c, s: [t for t in c.g.after(s) if c.g.team(t) != c.g.team(s)], "s's opponents in play order after s", []),
    "team_seats": _F(_SEAT, SEATS, lambda c, s: [t for t in c.g.seat_list if c.g.team(t) == c.g.team(s)], "all seats of s's team, in seat order", []),
    "team": _F(_SEAT, INT, lambda c, s: c.g.team(s), "team number (1: odd seats, 2: even seats); none for none"),
    "next_active": _F(_SEAT, SEAT, lambda c, s: c.g.next_active(s), "the first active seat after s in play order, or none"),
    "active": _F(_SEAT, BOOL, lambda c, s: c.g.is_active(s), "still playing (false for none)", False),
    "out": _F(_SEAT, BOOL, lambda c, s: s in c.g.places and s not in c.g.revolted, "went out or was placed (false for none)", False),
    "revolted": _F(_SEAT, BOOL, lambda c, s: s in c.g.revolted, "declared revolution (false for none)", False),
    "passed": _F(_SEAT, BOOL, lambda c, s: s in c.g.passed, "passed in this trick (false for none)", False),
    "place": _F(_SEAT, INT, lambda c, s: c.g.places.get(s), "the seat's place 1..N, or none"),
    "hand_size": _F(_SEAT, INT, lambda c, s: c.g.hand_size(s), "cards the seat holds (0 for none)", 0),
    "holds": _F((SEAT, RANK), INT, lambda c, s, r: c.g.holds(s, r), "how many cards of a kind the seat holds (0 for none)", 0),
    "dealt": _F((SEAT, RANK), INT, lambda c, s, r: c.g.dealt_count(s, r), "how many cards of a kind the seat was dealt (0 for none)", 0),
    "dealt_of": _F((SEAT, RANKS), INT, lambda c, s, ks: sum(c.g.dealt_count(s, k) for k in ks), "how many cards of any of these kinds the seat was dealt", 0,
                   fold=_empty_list_gives(0, 1)),
    "holds_of": _F((SEAT, RANKS), INT, lambda c, s, ks: sum(c.g.holds(s, k) for k in ks), "how many cards of any of these kinds the seat holds", 0,
                   fold=_empty_list_gives(0, 1)),
    "flag": _F((SEAT, TEXT), BOOL, lambda c, s, f: s in c.g.flags.get(f, ()), "a per-seat flag set by mark rules", False,
               fold=_flag_fold(False), flag_arg=1),
    "counter": _F((SEAT, TEXT), INT, lambda c, s, k: c.g.counters.get(k, {}).get(s, 0), "a per-seat counter set by count rules", 0,
                  fold=_counter_fold, counter_arg=1),
    "count": _F((ListOf(ANY),), INT, lambda c, xs: len(xs), "length of a list (0 for none)", 0, game=False, pure=True),
    "first": _F((ListOf(ANY),), ANY, lambda c, xs: xs[0] if xs else None, "first item of a list, or none", game=False, pure=True,
                typer=_elem_type),
    "coalesce": _F((ANY, ANY), ANY, lambda c, a, b: a if a is not None else b, "a unless it is none, else b", takes_none=(True, True),
                   game=False, pure=True, fold=_coalesce_fold, typer=_join_types),
    "shown_leader": _F((RANK, INT), SEAT, lambda c, r, k: c.g.shown_leader(r, k), "the seat that showed the most same-suit cards of a rank during the deal (at least k; ties: who showed first), or none"),
    "random_seat": _F((), SEAT, lambda c: c.g.rng.randint(1, c.g.n_seats), "a seat drawn from the game's seeded generator"),
    "sum_places": _F((SEATS, MapOf(INT, INT)), INT, _sum_places, "sum of table[place] over seats (unplaced seats count 0; a place missing from the table is an error)", 0),
    "sorted_places": _F((SEATS,), ListOf(INT), lambda c, ss: sorted(c.g.places[s] for s in ss if s in c.g.places), "the places of these seats, sorted", []),
    "prev_place": _F(_SEAT, INT, lambda c, s: c.g.prev.places.get(s) if c.g.prev else None, "the seat's place in the previous game of the match, or none"),
    "prev_seat_at": _F((INT,), SEAT, lambda c, p: next((s for s, q in c.g.prev.places.items() if q == p), None) if c.g.prev else None, "who took this place in the previous game, or none"),
    "prev_flag": _F((SEAT, TEXT), BOOL, lambda c, s, f: bool(c.g.prev) and s in c.g.prev.flags.get(f, ()), "a flag the seat had at the end of the previous game", False,
                    fold=_flag_fold(False), flag_arg=1),
    "prev_counter": _F((SEAT, TEXT), INT, lambda c, s, k: c.g.prev.counters.get(k, {}).get(s, 0) if c.g.prev else 0, "a counter at the end of the previous game", 0,
                       fold=_counter_fold, counter_arg=1),
    "prev_burns": _F((SEAT, SEAT), INT, lambda c, s, t: _prev_burns(c, s, t, False), "successful burns by s of t in the previous game", 0),
    "prev_counter_burns": _F((SEAT, SEAT), INT, lambda c, s, t: _prev_burns(c, s, t, True), "successful counter-burns (反烧) by s of t in the previous game", 0),
    "received": _F((SEAT, RANK), INT, lambda c, s, r: c.g.received_count(s, r), "cards of a kind the seat received in this game's between-game phase", 0),
    "rank_groups": _F(_SEAT, INT, lambda c, s: c.g.rank_groups(s), "how many different ranks (not jokers) the seat holds", 0),
    "jokers_held": _F(_SEAT, INT, lambda c, s: c.g.jokers_held(s), "how many jokers the seat holds", 0),
    "held_at_least": _F((SEAT, RANK), INT, lambda c, s, r: c.g.count_at_least(c.g.hands[s], r), "cards the seat holds of this kind or stronger", 0),
    "dealt_at_least": _F((SEAT, RANK), INT, lambda c, s, r: c.g.count_at_least(c.g.dealt[s], r), "cards the seat was dealt of this kind or stronger", 0),
    "with_at_least": _F((SEATS, RANK, INT), SEATS, lambda c, ss, r, k: [s for s in ss if s and c.g.holds(s, r) >= k], "the seats holding at least k cards of a kind, same order", [],
                        fold=_empty_list_gives([])),
    "flagged": _F((SEATS, TEXT), SEATS, lambda c, ss, f: [s for s in ss if s in c.g.flags.get(f, ())], "the seats with a flag, same order", [],
                  fold=_flagged_fold, flag_arg=1),
    "active_of": _F((SEATS,), SEATS, lambda c, ss: [s for s in ss if s and c.g.is_active(s)], "the seats still playing, same order", [],
                    fold=_empty_list_gives([])),
    "first_held": _F((SEAT, RANKS), RANK, _first_held, "the first kind in the list the seat holds (not counting cards received), or none",
                     fold=_empty_list_gives(None, 1)),
    "with_held": _F((SEATS, RANKS), SEATS, lambda c, ss, ks: [s for s in ss if s and _first_held(c, s, ks) is not None],
                    "the seats holding a card of any of these kinds (not counting cards received), same order", [],
                    fold=_empty_list_gives([])),
    "max_dealt": _F((SEATS, RANK), INT, lambda c, ss, r: max((c.g.dealt_count(s, r) for s in ss), default=0), "the most cards of a kind any of these seats was dealt", 0,
                    fold=_empty_list_gives(0)),
    "min_dealt_at_least": _F((RANK,), INT, lambda c, r: min(c.g.count_at_least(c.g.dealt[s], r) for s in c.g.seat_list), "the fewest cards of this kind or stronger dealt to any seat", 0),
    "next_active_without": _F((SEAT, TEXT), SEAT, lambda c, s, f: next((t for t in c.g.after(s) if c.g.is_active(t) and t not in c.g.flags.get(f, ())), None), "the first active seat after s without a flag", flag_arg=1),
    "first_holding": _F((SEAT, RANKS), RANK, lambda c, s, ks: next((k for k in ks if c.g.holds(s, k) > 0), None), "the first kind in the list the seat holds (cards received included), or none",
                        fold=_empty_list_gives(None, 1)),
    "fewest_cards_first": _F((SEATS,), SEATS, lambda c, ss: sorted((s for s in ss if s), key=lambda s: c.g.hand_size(s)), "the seats ordered by cards held, fewest first (ties keep their order)", [],
                             fold=_empty_list_gives([])),
    "cards_of": _F((PLAY, RANK), INT, lambda c, p, r: _cards_of(p, r),
                   "how many cards of a kind the play has, jokers of each kind included (cards_of(play, 'R'): its "
                   "big jokers under base.yaml's jokers; 2s used as filler count as 2s); 0 for none", 0, game=False),
    "min": _F((INT, INT), INT, lambda c, a, b: min(a, b), "the smaller number; none if either is none", game=False, pure=True),
    "max": _F((INT, INT), INT, lambda c, a, b: max(a, b), "the larger number; none if either is none", game=False, pure=True),
}

MAYBE_NONE_FUNCTIONS: frozenset[str] = frozenset({
    "opposite", "downstream", "upstream", "team", "next_active", "place", "first", "coalesce", "shown_leader",
    "prev_place", "prev_seat_at", "first_held", "first_holding", "next_active_without", "min", "max"})
"""Functions that may answer none (the others never do, whatever their arguments)."""


NO_GAME_FUNCTIONS: tuple[str, ...] = tuple(n for n, f in FUNCTIONS.items() if not f.game)
"""The functions a question asked without a game going on (``Hook.game`` false) may call."""

KNOWN_EVERYWHERE = N_("Every question also knows settings.NAME and the ruleset's definitions (a definition only where "
                      "the names it reads are known).")


def known_names(h: Hook) -> str:
    """The names a rule on ``h`` may read, in words, from the hook's definition: its own variables
    (those that may be none marked) and the game's variables and functions, or, for a question asked
    without a game going on (``gouji``, ``match_length``), only the functions that need no game."""
    own = ", ".join(_("{name} (may be none)").format(name=n) if n in h.maybe_none else n for n in h.context)
    if h.game:
        rest = _("the game's variables and functions")
    else:
        rest = _("no game is going on: no game variable or function, only {names}").format(
            names=", ".join(NO_GAME_FUNCTIONS))
    return f"{own}; {rest}" if own else rest


def hooks_binding(name: str) -> list[str]:
    """The hooks whose rules know the context variable ``name``."""
    return [h.name for h in HOOKS.values() if name in h.context]


def _known_in(name: str, game: bool) -> str:
    if name in CONTEXT_VARS:
        return ", ".join(hooks_binding(name)) or _("no question")
    no_game = [h.name for h in HOOKS.values() if not h.game]
    return _("every question but {hooks}").format(hooks=", ".join(no_game)) if game else _("every question")


def vocabulary_text() -> str:
    """A readable table of hooks (with the names each knows), variables, play attributes and functions."""
    out = [_("Hooks (on:)")]
    for h in HOOKS.values():
        out.append(f"  {h.name:<21} {h.kind:<8} {_(h.doc)} " + _("(no rule: {default})").format(default=default_text(h)))
        out.append(f"  {'':<21} {'':<8} " + _("knows: {names}").format(names=known_names(h)))
    out.append("  " + _(KNOWN_EVERYWHERE))
    out.append("\n" + _("Variables (known in: the questions whose rules may read them)"))
    for n, v in {**CONTEXT_VARS, **GLOBAL_VARS}.items():
        out.append(f"  {n:<17} {v.type!s:<7} {v.doc} " + _("(known in: {hooks})").format(hooks=_known_in(n, n in GLOBAL_VARS)))
    out.append("\n" + _("Attributes of a play (play.X, top.X, beaten.X)"))
    for n, v in PLAY_ATTRS.items():
        out.append(f"  {n:<17} {v.type!s:<7} {v.doc}")
    out.append("\n" + _("Functions (an argument that is none gives the result named in the description, or none; "
                        "a question asked without a game knows only {names})").format(names=", ".join(NO_GAME_FUNCTIONS)))
    for n, f in FUNCTIONS.items():
        out.append(f"  {f.signature(n)}: {f.doc}")
    out.append("\n" + _("Settings: settings.NAME reads a setting of the ruleset (gouji show --settings lists them with "
                        "their types)."))
    out.append(_("Place words (place:, no_lead, burn_failure): {words}").format(words=PLACE_WORDS))
    out.append("\n" + _(COMBINING))
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def hooks_markdown() -> str:
    """The hooks as a markdown table: kind, the names a rule on it knows, the question, the answer
    when no rule applies (F1 and docs/vocabulary.md)."""
    rows = [f"| `{h.name}` | {_(HOOK_KIND_WORDS[h.kind])} | {_cell(known_names(h))} | {_cell(_(h.doc))} | {_cell(default_text(h))} |"
            for h in HOOKS.values()]
    return (_("| hook | kind | names it knows | question | no rule applies |") + "\n| --- | --- | --- | --- | --- |\n"
            + "\n".join(rows) + "\n")


def vocabulary_markdown() -> str:
    """docs/vocabulary.md: the hooks with the names each knows, the variables with the questions
    that know them, play attributes and functions, from the definitions in this module."""
    out = ["# Vocabulary", "",
           "The questions (hooks) a rule answers and the names its expressions may read, from the definitions in",
           "`gouji_dsl/ruleset/game/vocabulary.py`. `gouji show --vocabulary` prints the same as text.", "",
           "Generated: `gouji show --vocabulary --format markdown > docs/vocabulary.md` (a test keeps it in sync).", "",
           "## Hooks (`on:`)", "", hooks_markdown(), KNOWN_EVERYWHERE, "",
           "## Variables", "", "| name | type | meaning | known in |", "| --- | --- | --- | --- |"]
    for n, v in {**CONTEXT_VARS, **GLOBAL_VARS}.items():
        out.append(f"| `{n}` | `{v.type}` | {_cell(v.doc)} | {_cell(_known_in(n, n in GLOBAL_VARS))} |")
    out += ["", "## Attributes of a play (`play.X`, `top.X`, `beaten.X`)", "", "| name | type | meaning |", "| --- | --- | --- |"]
    out += [f"| `{n}` | `{v.type}` | {_cell(v.doc)} |" for n, v in PLAY_ATTRS.items()]
    out += ["", "## Functions", "",
            "An argument that is none gives the result named in the description, or none. A question asked without",
            f"a game going on knows only {', '.join(f'`{n}`' for n in NO_GAME_FUNCTIONS)}.", "",
            "| function | meaning |", "| --- | --- |"]
    out += [f"| `{_cell(f.signature(n))}` | {_cell(f.doc)} |" for n, f in FUNCTIONS.items()]
    out += ["", "Place words (`place:`, `no_lead`, `burn_failure`): " + PLACE_WORDS.replace("'", "`"), "",
            "## How rules combine", "", COMBINING, ""]
    return "\n".join(out)
