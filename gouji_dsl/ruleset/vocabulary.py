"""The interpreter's vocabulary: the questions (hooks) a ruleset answers, and the names and
functions its expressions may use. Everything here is generic to a six-seat partnership climbing
game (seats, teams, tricks, turns, places, flags); what Gouji is lives in ``rules/*.yaml``.

``gouji show --vocabulary`` prints this table.
"""
from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gouji_dsl.lang.expr import FnSig, VarSig

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.engine.interpreter import GameState


@dataclass(frozen=True)
class Hook:
    """A question the interpreter asks.

    ``kind``: ``permit`` (allow/deny/require rules; ``default`` says what holds when no rule
    grants), ``value`` (value/order rules; the last matching rule wins), ``trigger`` (mark/unmark/
    count rules, all matching ones run). ``context``: the variables bound when it is asked.
    ``phase``: where in the game it is asked (used to order the rule graph)."""

    name: str
    kind: str
    phase: str
    context: tuple[str, ...]
    doc: str
    type: str = "bool"
    default: Any = None


PHASES: tuple[str, ...] = ("cards", "deal", "tribute", "setup", "lead", "trick", "burn", "finish", "end", "view")
"""Phase order of the rule graph (edges ``phase order`` follow it)."""

_H = Hook
HOOKS: dict[str, Hook] = {h.name: h for h in [
    _H("gouji", "value", "cards", ("play",), "Is this play a gouji play (够级牌)?", "bool", False),
    _H("first_drawer", "value", "deal", (), "Who is dealt the first card (the deal then goes round in play order, one card at a time)? Default: seat 1.", "seat", None),
    _H("first_leader", "value", "deal", (), "Which seat leads the first trick (上班)?", "seat", None),
    _H("tribute_kinds", "value", "tribute", (), "Between games: the kinds of tribute, in the order they are paid.", "list", []),
    _H("tribute", "value", "tribute", ("seat", "target", "kind"), "Between games: how many cards seat gives target as tribute of this kind.", "int", 0),
    _H("tribute_card", "value", "tribute", ("seat", "card"), "How many cards of kind `card` seat may give as tribute (none: all it holds).", "int", None),
    _H("return_tribute", "value", "tribute", ("seat", "target", "kind", "amount"), "How many cards seat (who received tribute of this kind) must return to target (还贡).", "int", 0),
    _H("setup_rounds", "value", "tribute", (), "How many rounds of seat_setup rules run after the deal and tribute (round = 1..N). Default: 1.", "int", None),
    _H("seat_setup", "trigger", "tribute", ("seat", "round"), "Runs for each seat in turn, round after round, after the deal and tribute (e.g. buying 3s: give rules)."),
    _H("must_revolt", "value", "setup", ("seat",), "Is this seat's revolution automatic (e.g. no 3 and nothing to buy one with)?", "bool", False),
    _H("revolt", "permit", "setup", ("seat",), "May this seat declare revolution (革命)?", default=False),
    _H("declare", "permit", "setup", ("seat",), "May this seat declare the point (宣点)?", default=False),
    _H("redeal", "value", "setup", (), "After the setup answers, is the deal void and dealt again?", "bool", False),
    _H("choose", "permit", "setup", ("seat",), "Is this seat asked to choose head / head-less (after its opposite's revolution)?", default=False),
    _H("game_start", "trigger", "setup", (), "Runs once when play begins (after setup)."),
    _H("seat_start", "trigger", "setup", ("seat",), "Runs for each seat when play begins (after setup)."),
    _H("discard", "permit", "lead", ("seat", "play"), "May this seat throw away these cards instead of leading (e.g. void 4s)?", default=False),
    _H("play", "permit", "lead", ("seat", "play", "top", "leading"), "May this seat make this play now (lead or follow)?", default=True),
    _H("follow", "permit", "trick", ("seat", "top"), "May this seat answer the play on the table now?", default=True),
    _H("follow_order", "value", "trick", ("top",), "In which order are seats asked to answer the play on the table?", "seats", None),
    _H("yield", "permit", "trick", ("seat", "top"), "May this seat yield (让牌) to the next players?", default=False),
    _H("yield_to", "value", "trick", ("seat", "top"), "How many following players a yield hands the decision to.", "int", 0),
    _H("burn_order", "value", "burn", ("top",), "Which seats are offered a burn (烧牌) of the play on the table, in order?", "seats", []),
    _H("burn", "permit", "burn", ("seat", "top"), "May this seat burn the play on the table?", default=False),
    _H("burn_lead", "permit", "burn", ("seat", "play"), "While burning, may the burner lead this play? (no allowed lead = the burn fails)", default=True),
    _H("no_lead", "value", "lead", ("seat",), "Where a seat that must lead but has no allowed lead is placed: \"last\", \"next\" or \"after-finishers\" (default).", "str", None),
    _H("match_length", "value", "end", (), "How many games make a match (tribute runs between them).", "int", 1),
    _H("burn_failure", "value", "burn", ("seat",), "Where a failed burner is placed: \"last\" (大落 at once), \"next\" (the best free place) or \"after-finishers\" (after every player who goes out). Default: \"last\".", "str", None),
    _H("after_play", "trigger", "trick", ("seat", "play", "beaten"), "Runs after every play (seat = who played, play = the new top, beaten = the play it beat or none)."),
    _H("trick_won", "trigger", "trick", ("seat", "top"), "Runs when a play is left unanswered (seat = its player)."),
    _H("next_leader", "value", "trick", ("top",), "Who leads after the trick (接风 when the winner is out)?", "seat", None),
    _H("finish", "trigger", "finish", ("seat",), "Runs when a seat goes out (走科)."),
    _H("revolution_place", "value", "finish", ("seat",), "The place a revolutionary takes.", "int", None),
    _H("game_over", "value", "end", (), "Is the game over? (A game with nobody left to play is over anyway.)", "bool", False),
    _H("unfinished_order", "value", "end", (), "When the game ends with players still holding cards: all of them, best first, in the order they take the free places.", "seats", None),
    _H("sweep", "value", "end", (), "Was the game a sweep (串三户)?", "bool", False),
    _H("score", "value", "end", ("seat",), "Points this seat scores for the game (a number).", "int", 0),
    _H("see_count", "permit", "view", ("seat", "target"), "May seat see how many cards target holds?", default=False),
    _H("see_hand", "permit", "view", ("seat", "target"), "May seat see target's cards?", default=False),
]}

EFFECTS_BY_KIND: dict[str, tuple[str, ...]] = {
    "permit": ("allow", "deny", "require"),
    "value": ("value", "order"),
    "trigger": ("mark", "unmark", "count", "place", "give"),
}

# ---------------------------------------------------------------------------- context variables
CONTEXT_VARS: dict[str, VarSig] = {
    "seat": VarSig("seat", lambda c: c.seat, "the seat the question is about"),
    "play": VarSig("play", lambda c: c.play, "the play being made (its seat is the player)"),
    "top": VarSig("play", lambda c: c.top, "the play on the table (none when leading)"),
    "beaten": VarSig("play", lambda c: c.beaten, "the play the new play beat (none for a lead)"),
    "target": VarSig("seat", lambda c: c.target, "the seat being looked at"),
    "leading": VarSig("bool", lambda c: c.leading, "the play is a lead (no play on the table)"),
    "kind": VarSig("str", lambda c: c.kind, "the tribute kind being settled"),
    "card": VarSig("rank", lambda c: c.card, "the card kind considered for tribute"),
    "amount": VarSig("int", lambda c: c.amount, "how many cards were received as this tribute"),
    "round": VarSig("int", lambda c: c.round, "which round of seat_setup rules is running (1..setup_rounds)"),
}


def _g(c) -> GameState:
    return c.g


GLOBAL_VARS: dict[str, VarSig] = {
    "all_seats": VarSig("seats", lambda c: list(c.g.seat_list), "every seat, 1..N"),
    "active_seats": VarSig("seats", lambda c: c.g.active_list(), "seats still playing (not out, not revolted, not failed)"),
    "finished": VarSig("seats", lambda c: list(c.g.finish_order), "seats that went out, in order"),
    "finished_in_trick": VarSig("seats", lambda c: list(c.g.finished_in_trick), "seats that went out during this trick"),
    "revolted_seats": VarSig("seats", lambda c: sorted(c.g.revolted), "seats that declared revolution"),
    "passed_seats": VarSig("seats", lambda c: sorted(c.g.passed), "seats that passed in this trick"),
    "leader": VarSig("seat", lambda c: c.g.trick_leader, "the seat that led this trick"),
    "burner": VarSig("seat", lambda c: c.g.burner, "the seat burning now, or none"),
    "game_number": VarSig("int", lambda c: c.g.game_number, "1 for the first game of a match"),
    "places_taken": VarSig("int", lambda c: len(c.g.places), "how many places are fixed"),
    "trick_number": VarSig("int", lambda c: c.g.trick_no, "tricks started so far"),
    "prev_sweep": VarSig("bool", lambda c: bool(c.g.prev and c.g.prev.sweep), "the previous game of the match was a sweep"),
    "first_game": VarSig("bool", lambda c: c.g.prev is None, "no previous game in this match"),
}

# ---------------------------------------------------------------------------- play attributes
_A = operator.attrgetter

PLAY_ATTRS: dict[str, VarSig] = {
    "seat": VarSig("seat", _A("seat"), "who played it"),
    "rank": VarSig("rank", _A("rank"), "the rank it counts as (a joker kind for a pure joker play)"),
    "count": VarSig("int", _A("count"), "number of cards"),
    "carried": VarSig("int", _A("carried"), "rank cards, 2s used as filler included"),
    "filler": VarSig("int", _A("filler"), "2s used as filler (贴钱)"),
    "jokers": VarSig("int", _A("jokers"), "jokers attached (挂花)"),
    "pure_jokers": VarSig("bool", lambda p: p.play.pure_jokers, "only jokers"),
    "gouji": VarSig("bool", _A("gouji"), "a gouji play (够级牌)"),
    "cards": VarSig("str", lambda p: p.play.text, "the cards, canonical text"),
    "beaten": VarSig("seat", _A("beaten_seat"), "the seat whose play this beat, or none"),
    "over_yield": VarSig("bool", _A("over_yield"), "made while a yield was pending"),
    "yielder": VarSig("seat", _A("yielder"), "the seat that yielded before this play, or none"),
    "empties_hand": VarSig("bool", _A("empties_hand"), "the player has no cards left after it"),
    "burn": VarSig("bool", _A("is_burn"), "made as a burn (烧牌)"),
}


# ---------------------------------------------------------------------------- functions
def _opp(c, s):
    return c.g.opposite(s) if s else None


def _seats_after(c, s):
    return list(c.g.after(s)) if s else []


def _rand_seat(c):
    return c.g.rng.randint(1, c.g.n_seats)


def _sum_places(c, seats, table):
    total = 0
    for s in seats or []:
        p = c.g.places.get(s)
        if p is not None and table:
            total += int(table.get(str(p), 0) or 0)
    return total


def _sorted_places(c, seats):
    return sorted(c.g.places[s] for s in seats or [] if s in c.g.places)


FUNCTIONS: dict[str, FnSig] = {
    "opposite": FnSig(("seat",), "seat", _opp, "the seat across the table (对头): s + N/2"),
    "downstream": FnSig(("seat",), "seat", lambda c, s: c.g.next_seat(s) if s else None, "the next seat in play order (下家)"),
    "upstream": FnSig(("seat",), "seat", lambda c, s: c.g.prev_seat(s) if s else None, "the previous seat in play order (上家)"),
    "after": FnSig(("seat",), "seats", _seats_after, "every other seat, in play order starting after s"),
    "teammates": FnSig(("seat",), "seats", lambda c, s: [t for t in c.g.after(s) if c.g.team(t) == c.g.team(s)] if s else [], "s's teammates in play order after s"),
    "opponents": FnSig(("seat",), "seats", lambda c, s: [t for t in c.g.after(s) if c.g.team(t) != c.g.team(s)] if s else [], "s's opponents in play order after s"),
    "team_seats": FnSig(("seat",), "seats", lambda c, s: [t for t in c.g.seat_list if c.g.team(t) == c.g.team(s)] if s else [], "all seats of s's team, in seat order"),
    "team": FnSig(("seat",), "int", lambda c, s: c.g.team(s) if s else None, "team number (1: odd seats, 2: even seats)"),
    "next_active": FnSig(("seat",), "seat", lambda c, s: c.g.next_active(s) if s else None, "the first active seat after s in play order"),
    "active": FnSig(("seat",), "bool", lambda c, s: bool(s) and c.g.is_active(s), "still playing"),
    "out": FnSig(("seat",), "bool", lambda c, s: bool(s) and s in c.g.places and s not in c.g.revolted, "went out or was placed"),
    "revolted": FnSig(("seat",), "bool", lambda c, s: s in c.g.revolted, "declared revolution"),
    "passed": FnSig(("seat",), "bool", lambda c, s: s in c.g.passed, "passed in this trick"),
    "place": FnSig(("seat",), "int", lambda c, s: c.g.places.get(s), "the seat's place 1..N, or none"),
    "hand_size": FnSig(("seat",), "int", lambda c, s: c.g.hand_size(s) if s else 0, "cards the seat holds"),
    "holds": FnSig(("seat", "rank"), "int", lambda c, s, r: c.g.holds(s, r), "how many cards of a kind the seat holds"),
    "dealt": FnSig(("seat", "rank"), "int", lambda c, s, r: c.g.dealt_count(s, r), "how many cards of a kind the seat was dealt"),
    "dealt_of": FnSig(("seat", "list"), "int", lambda c, s, ks: sum(c.g.dealt_count(s, k) for k in ks or []), "how many cards of any of these kinds the seat was dealt"),
    "holds_of": FnSig(("seat", "list"), "int", lambda c, s, ks: sum(c.g.holds(s, k) for k in ks or []), "how many cards of any of these kinds the seat holds"),
    "flag": FnSig(("seat", "str"), "bool", lambda c, s, f: s in c.g.flags.get(f, ()), "a per-seat flag set by mark rules"),
    "counter": FnSig(("seat", "str"), "int", lambda c, s, k: c.g.counters.get(k, {}).get(s, 0), "a per-seat counter set by count rules"),
    "count": FnSig(("list",), "int", lambda c, xs: len(xs or []), "length of a list"),
    "first": FnSig(("list",), "any", lambda c, xs: xs[0] if xs else None, "first item of a list, or none"),
    "coalesce": FnSig(("any", "any"), "any", lambda c, a, b: a if a is not None else b, "a unless it is none, else b"),
    "shown_leader": FnSig(("rank", "int"), "seat", lambda c, r, k: c.g.shown_leader(r, k), "the seat that showed the most same-suit cards of a rank during the deal (at least k; ties: who showed first), or none"),
    "random_seat": FnSig((), "seat", _rand_seat, "a seat drawn from the game's seeded generator"),
    "sum_places": FnSig(("seats", "map"), "int", _sum_places, "sum of table[place] over seats (unplaced seats count 0)"),
    "sorted_places": FnSig(("seats",), "list", _sorted_places, "the places of these seats, sorted"),
    "prev_place": FnSig(("seat",), "int", lambda c, s: c.g.prev.places.get(s) if c.g.prev else None, "the seat's place in the previous game of the match, or none"),
    "prev_seat_at": FnSig(("int",), "seat", lambda c, p: next((s for s, q in c.g.prev.places.items() if q == p), None) if c.g.prev else None, "who took this place in the previous game, or none"),
    "prev_flag": FnSig(("seat", "str"), "bool", lambda c, s, f: bool(c.g.prev) and s in c.g.prev.flags.get(f, ()), "a flag the seat had at the end of the previous game"),
    "prev_counter": FnSig(("seat", "str"), "int", lambda c, s, k: c.g.prev.counters.get(k, {}).get(s, 0) if c.g.prev else 0, "a counter at the end of the previous game"),
    "prev_burns": FnSig(("seat", "seat"), "int", lambda c, s, t: sum(1 for b in (c.g.prev.burns if c.g.prev else []) if b["burner"] == s and b["burned"] == t and b.get("success")), "successful burns by s of t in the previous game"),
    "prev_counter_burns": FnSig(("seat", "seat"), "int", lambda c, s, t: sum(1 for b in (c.g.prev.burns if c.g.prev else []) if b["burner"] == s and b["burned"] == t and b.get("success") and b.get("counter")), "successful counter-burns (反烧) by s of t in the previous game"),
    "received": FnSig(("seat", "rank"), "int", lambda c, s, r: c.g.received_count(s, r), "cards of a kind the seat received in this game's between-game phase"),
    "rank_groups": FnSig(("seat",), "int", lambda c, s: c.g.rank_groups(s), "how many different ranks (not jokers) the seat holds"),
    "jokers_held": FnSig(("seat",), "int", lambda c, s: c.g.jokers_held(s), "how many jokers the seat holds"),
    "held_at_least": FnSig(("seat", "rank"), "int", lambda c, s, r: c.g.count_at_least(c.g.hands[s], r), "cards the seat holds of this kind or stronger"),
    "dealt_at_least": FnSig(("seat", "rank"), "int", lambda c, s, r: c.g.count_at_least(c.g.dealt[s], r), "cards the seat was dealt of this kind or stronger"),
    "with_at_least": FnSig(("seats", "rank", "int"), "seats", lambda c, ss, r, k: [s for s in ss or [] if s and c.g.holds(s, r) >= k], "the seats holding at least k cards of a kind, same order"),
    "flagged": FnSig(("seats", "str"), "seats", lambda c, ss, f: [s for s in ss or [] if s in c.g.flags.get(f, ())], "the seats with a flag, same order"),
    "active_of": FnSig(("seats",), "seats", lambda c, ss: [s for s in ss or [] if s and c.g.is_active(s)], "the seats still playing, same order"),
    "first_held": FnSig(("seat", "list"), "rank", lambda c, s, ks: next((k for k in ks or [] if c.g.holds(s, k) - c.g.received_count(s, k) > 0), None), "the first kind in the list the seat holds (not counting cards received), or none"),
    "max_dealt": FnSig(("seats", "rank"), "int", lambda c, ss, r: max((c.g.dealt_count(s, r) for s in ss or []), default=0), "the most cards of a kind any of these seats was dealt"),
    "min_dealt_at_least": FnSig(("rank",), "int", lambda c, r: min(c.g.count_at_least(c.g.dealt[s], r) for s in c.g.seat_list), "the fewest cards of this kind or stronger dealt to any seat"),
    "next_active_without": FnSig(("seat", "str"), "seat", lambda c, s, f: next((t for t in c.g.after(s) if c.g.is_active(t) and t not in c.g.flags.get(f, ())), None), "the first active seat after s without a flag"),
    "first_holding": FnSig(("seat", "list"), "rank", lambda c, s, ks: next((k for k in ks or [] if c.g.holds(s, k) > 0), None), "the first kind in the list the seat holds (cards received included), or none"),
    "fewest_cards_first": FnSig(("seats",), "seats", lambda c, ss: sorted((s for s in ss or [] if s), key=lambda s: c.g.hand_size(s)), "the seats ordered by cards held, fewest first (ties keep their order)"),
    "min": FnSig(("int", "int"), "int", lambda c, a, b: min(a, b), "the smaller number"),
    "max": FnSig(("int", "int"), "int", lambda c, a, b: max(a, b), "the larger number"),
}


def vocabulary_text() -> str:
    """A readable table of hooks, variables, play attributes and functions."""
    out = ["Hooks (on:)"]
    for h in HOOKS.values():
        ctx = ", ".join(h.context) or "-"
        out.append(f"  {h.name:<17} {h.kind:<8} [{ctx}]  {h.doc}")
    out.append("\nVariables")
    for n, v in {**CONTEXT_VARS, **GLOBAL_VARS}.items():
        out.append(f"  {n:<17} {v.type:<6} {v.doc}")
    out.append("\nAttributes of a play (play.X, top.X, beaten.X)")
    for n, v in PLAY_ATTRS.items():
        out.append(f"  {n:<17} {v.type:<6} {v.doc}")
    out.append("\nFunctions")
    for n, f in FUNCTIONS.items():
        out.append(f"  {n}({', '.join(f.params)}) -> {f.returns}: {f.doc}")
    out.append("\nSettings: settings.NAME reads a setting of the ruleset.")
    return "\n".join(out)


_ = random  # the generator itself lives in GameState.rng (seeded)
