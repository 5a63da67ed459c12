"""The play phase in the native core (``flow.h``): random bots and the heuristic bot, move for
move the interpreter's game, crossing into C once per play phase.

The interpreter (:mod:`gouji_dsl.engine.interpreter`) deals and sets the game up; :func:`run`
packs its :class:`~gouji_dsl.engine.interpreter.GameState` into the core's flat state (the hook
context of ``vm.h`` — hands, places, seat sets, flags, counters — and the flow's words: seat
queue, the play on the table, yielders, burner), the core plays until a seat that is not one of
its bots must act or the game is over, and the result is unpacked into the same GameState: hands,
places, passed, the record in compact entries (:mod:`.record` renders them as the interpreter's
event dicts), burns, flags and counters, decisions, and every random bot's generator (the native
Mersenne Twister's state written back into its ``random.Random``). The game's end (places left,
sweep, scores) is the core's too (``fl_end``) where every answer is one it takes as it is; else the
interpreter's ``end_game`` ends the game. The states it leaves are the interpreter's: it can
explain, check or continue them.

Whole games (:func:`play_games`, ``batch.h``): for random bots at every seat and a game that
starts a match, the core plays the game from its seeds to its scores, many games per crossing,
the random bots' setup decisions (revolt, choose, declare) and voided deals included; a game it
leaves (a game over before the first lead, a failing rule) is played again in Python from its
seed (the summaries count them: ``games_replayed``), and a ruleset whose setup it does not run
says why (``games_fallback``).

The plan's per-ruleset tables come from the compiled graph (:mod:`.tables`), not from the
interpreter's code. Both comparison models are played: the cover model, and the positional one (card by card) as a
table of the same-count cover model's enumeration (:func:`_cover_table`). What a ruleset needs of
the flow that it does not do (an ``after_discard`` rule, a trigger that gives cards, a rule that
draws, a hook the programs do not express, more seats, joker kinds or joker combinations than the
core holds) makes :func:`flow_plan` raise
:class:`~gouji_dsl.engine.native.Unsupported` naming it; the interpreter then plays the ruleset
(:func:`fallback_reason` says why, and the simulation summaries show it).

A rule that fails while the core runs stops it where it failed; the state is unpacked and the
same question is asked of the interpreter's rule graph (``graph.permit`` / ``value`` /
``trigger``), which raises the interpreter's :class:`~gouji_dsl.ruleset.graph.RuleFailed` (rule
id, file and line).
"""
from __future__ import annotations

import itertools
import os
import random
import threading
from array import array
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.engine.native import Unsupported, _core_module, available, unavailable_reason
from gouji_dsl.engine.native import tables as T
from gouji_dsl.i18n import N_, _
from gouji_dsl.ruleset.game.terms import Placement, Verb
from gouji_dsl.ruleset.graph import RuleGraph

#: set to a non-empty value to play every game with the interpreter (the reference), not the native core
DISABLE_ENV = "GOUJI_NO_NATIVE_FLOW"

#: the hooks of flow.h, in its numbering (H_*)
HOOK_ORDER = ("follow", "burn", "yield", "yield_to", "follow_order", "burn_order", "next_leader", "game_over",
              "burn_failure", "no_lead", "burn_lead", "revolution_place", "gouji", "play", "discard",
              "unfinished_order", "sweep", "score",
              "first_drawer", "redeal_before_tribute", "must_revolt", "revolt", "redeal", "choose", "declare", "first_leader",
              "tribute_kinds", "tribute", "tribute_card", "return_tribute", "setup_rounds", "offer")
#: the hooks of the game's end (flow.h fl_end): where one of them has no program the core runs, the
#: game's end stays the interpreter's (GameState.end_game), the play phase natively all the same
END_HOOKS = ("unfinished_order", "sweep", "score")
#: the hooks of a whole game's setup (batch.h; they may draw from the game's generator): where one
#: of them has no program, whole games are not played natively (play_games refuses, by name)
SETUP_HOOKS = ("first_drawer", "redeal_before_tribute", "must_revolt", "revolt", "redeal", "choose", "declare",
               "first_leader", "tribute_kinds", "tribute", "tribute_card", "return_tribute", "setup_rounds", "offer")
#: the hooks between the games of a match (batch.h bt_between): where one of them has no program,
#: matches are not played natively (their games one by one, the play phase natively)
MATCH_HOOKS = ("tribute_kinds", "tribute", "tribute_card", "return_tribute")
#: hooks whose rules a whole native game does not run (it asks none of them)
NOT_IN_GAMES: tuple[str, ...] = ()
TRIGGER_ORDER = ("after_play", "trick_won", "finish", "after_pass", "after_yield", "seat_setup", "game_start",
                 "seat_start", "answered")
#: triggers a whole game runs before its play (batch.h: the buying rounds; game_start and seat_start when
#: play begins; answered after a choice of the ruleset's own), which the play phase never runs: where one of
#: their rules has no program, whole games are not played natively (the play phase is)
SETUP_TRIGGERS = ("seat_setup", "game_start", "seat_start", "answered")
#: the most choices of the ruleset's own (settings.choices) asked at one point of a whole game (flow.h FL_MAX_CHOICES)
MAX_CHOICES = 8
#: the triggers whose give rules the core runs (the buying rounds)
GIVE_TRIGGERS = ("seat_setup",)
#: hooks asked in the play phase that the flow does not ask (their rules make the ruleset Unsupported)
NOT_PLAYED = ("after_discard",)
_EFFECTS = {"mark": 0, "unmark": 1, "count": 2, "place": 3, "give": 4}
_PLACEMENT_WORDS = tuple(p.value for p in Placement)  # the core's placement codes 0, 1, 2 (flow.h text_place)
_RETIRE_RULES = ("engine.no-lead", "engine.burn-failure")
(EV_PLAY, EV_BURNMOVE, EV_PASS, EV_YIELD, EV_PLACE, EV_TRICK_WON, EV_RETIRE, EV_NO_LEAD, EV_BURN, EV_COUNTER_BURN,
 EV_BURN_UNDONE, EV_BURN_SUCCESS, EV_BURN_FAILED, EV_DISCARDMOVE, EV_DISCARD) = range(1, 16)
FL_STOP, FL_OVER, FL_LIMIT, FL_FULL, FL_RULE, FL_BROKEN = range(6)
MAGIC = 0x464C4F57
EV_CAP = 1 << 16  # event words per crossing (the core stops at a decision boundary before it fills)
_PLAYW = 20
_CAPS = ("lead", "follow", "burn")


@dataclass
class FlowPlan:
    """A ruleset's flow program, loaded in the core, and what packing and unpacking need."""

    graph: RuleGraph
    flow: Any  # the core's Flow
    names: Any  # hooks.Names of the graph (flags, counters, texts)
    nr: int
    k: int
    filler: int | None
    combos: tuple[tuple[int, ...], ...]
    combo_index: dict[tuple[int, ...], int]
    flags: tuple[tuple[str, int], ...]
    counters: tuple[tuple[str, int], ...]
    counts: dict[tuple[int, int, int, int], tuple[int, ...]]  # code → count vector (filled as met)
    template: Any = None  # the context words that do not change in a game (see _pack)
    shown: bool = False  # a program reads what was shown in the deal (then hooks.pack_context packs)
    tables: bytes = b""  # what flow_load was given (for the fuzz harness)
    programs: tuple[bytes, ...] = ()
    retire_rules: tuple[str, ...] = ()  # the rule a retirement event names, by its number
    end_fallback: str | None = None  # why the game's end is the interpreter's (None: the core's, fl_end)
    heuristic: dict[Any, Any] = field(default_factory=dict)  # the heuristic bot's tables (native/heuristic.py), by policy
    games_fallback: str | None = None  # why whole games are not played in the core (None: they are, play_games)
    matches_fallback: str | None = None  # why whole matches are not (None: they are, play_games(match_games=...))
    deck: tuple[bytes, bytes] = (b"", b"")  # the pack's kinds and suits, per card (play_games)
    cover_at: int = 0  # the first word of the cover table in ``tables`` (the fuzz harness mutates it)


_plans: dict[int, tuple[RuleGraph, FlowPlan | Unsupported]] = {}
_lock = threading.Lock()


def enabled() -> bool:
    """Whether the native flow may play (the core built and neither switch set)."""
    return available() and not os.environ.get(DISABLE_ENV)


def fallback_reason(graph: RuleGraph) -> str | None:
    """Why the native flow does not play ``graph`` (None: it does)."""
    if not available():
        return unavailable_reason()
    if os.environ.get(DISABLE_ENV):
        return _("the native game flow is switched off ({var} is set)").format(var=DISABLE_ENV)
    try:
        flow_plan(graph)
    except Unsupported as e:
        return str(e)
    return None


def flow_plan(graph: RuleGraph) -> FlowPlan:
    """The flow program of ``graph`` (kept per graph object), or Unsupported naming what the flow
    does not play. Its tables are built from the compiled graph (:mod:`.tables`)."""
    with _lock:
        got = _plans.get(id(graph))
    if got is not None and got[0] is graph:
        if isinstance(got[1], Unsupported):
            raise got[1]
        return got[1]
    try:
        plan = _build(graph)
    except Unsupported as e:
        with _lock:
            _plans[id(graph)] = (graph, e)  # (its text in the language active where it is shown)
            _trim()
        raise
    with _lock:
        _plans[id(graph)] = (graph, plan)
        _trim()
    return plan


def _trim() -> None:
    while len(_plans) > 64:
        _plans.pop(next(iter(_plans)))


def _check_path(graph: RuleGraph) -> None:
    """Unsupported unless ``graph`` is on the path the flow plays."""
    hooks = [h for h in NOT_PLAYED if graph.by_hook.get(h)]
    if hooks:
        raise Unsupported(N_("the native game flow does not ask the hook {hook!r} yet (rule {rule})"), hook=hooks[0],
                          rule=graph.by_hook[hooks[0]][0].node.id)
    if not 1 <= graph.n_seats <= 14:
        raise Unsupported(N_("{n} seats: the native game flow plays 1..14"), n=graph.n_seats)
    jk = len(graph.model.kinds) - int(graph.model.n_ranks)
    if jk > 8:
        raise Unsupported(N_("{n} joker kinds: the native game flow holds at most 8"), n=jk)


def _combos(graph: RuleGraph, core: Any) -> tuple[list[tuple[int, ...]], list[int]]:
    """The joker combinations of the pack (by total, then in itertools.product order) and their
    tables' words: counts, total, the kind a pure joker play of it ranks as; then the cover table
    (:func:`_cover_table`)."""
    model = graph.model
    nr = int(model.n_ranks)
    most = [int(model.deck_counts[nr + i]) for i in range(len(model.kinds) - nr)]
    combos = sorted(itertools.product(*[range(m + 1) for m in most]), key=sum)  # (stable: product order within a total)
    if len(combos) > core.FLOW_MAX_COMBOS:
        raise Unsupported(f"{len(combos)} joker combinations: the native game flow holds at most {core.FLOW_MAX_COMBOS}")
    plays = [model.classify((0,) * nr + c) if any(c) else None for c in combos]
    readings = [p.jokers if p is not None else () for p in plays]
    words: list[int] = []
    for c, p in zip(combos, plays):
        words += [*c, sum(c), p.rank if p is not None else 0]
    table = _cover_table(model, readings)
    if max(table) > 127:
        raise Unsupported("more than 127 jokers in a play: the native game flow holds at most 127")
    return combos, words + table


def _cover_table(model: Any, readings: list[tuple[int, ...]]) -> list[int]:
    """Lead combination x answer combination (``readings``: their jokers as the model reads them,
    strongest first): how many of the answer's jokers are spare, -1 where they do not answer.

    The cover model: the answer's jokers cover each lead joker (``CardModel._cover_one``). The
    positional model (card by card, strongest first, each strictly higher: ``_beats_positional``):
    a rank card is below every joker, so an answer has at least the lead's jokers and its strongest
    ones are each higher than the lead joker they meet; the rest (``len(answer) - len(lead)``) meet
    the lead's rank cards, as the answer's rank cards do, which must be of a higher rank. That is
    the same-count cover model's enumeration (flow.h ``fl_answers``: rank above the lead's, the spare
    jokers making up the count) over this table, in plays_from's order, so the answers are the
    interpreter's, in its order."""
    words: list[int] = []
    for tj in readings:
        for pj in readings:
            if model.model == "positional":
                ok = len(pj) >= len(tj) and all(y > x for x, y in zip(tj, pj))
                words.append(len(pj) - len(tj) if ok else -1)
                continue
            avail = list(pj)
            ok = all(model._cover_one(x, avail) for x in tj)
            words.append(len(avail) if ok else -1)
    return words


def _comparison_words(model: Any, tables: T.Tables) -> list[int]:
    """The flow program's words of the comparison: whether spare jokers may stand for rank cards,
    then whether the count is free (two / three kill one). The positional model compares plays of
    the same count (``_beats_positional``: card by card) whatever same_count says, and its spare
    jokers meet the lead's rank cards (:func:`_cover_table`)."""
    if model.model == "positional":
        return [1, 0]
    return [int(tables.spare_for_rank), int(not tables.same_count)]


def _hook_words(graph: RuleGraph, names: Any, prog: Any) -> tuple[list[int], str | None, str | None, set[int], str | None]:
    """The permit and value hooks of flow.h (H_*): header and rules, the programs numbered by
    ``prog``; why the game's end is not played natively, and why whole games are not (None: they
    are); the numbers of the setup hooks' programs (asked in whole games only); why whole matches
    are not (the tribute hooks)."""
    from gouji_dsl.engine.native import hooks as H
    from gouji_dsl.ruleset.game.vocabulary import HOOKS
    kidx = {kk: i for i, kk in enumerate(graph.model.kinds)}
    words: list[int] = []
    end_reason: str | None = None
    games_reason: str | None = None
    match_reason: str | None = None
    setup_programs: set[int] = set()
    for h in HOOK_ORDER:
        p, why = _optional_plan(graph, h)
        if p is None:
            if h in END_HOOKS:
                end_reason = end_reason or why
            if h in MATCH_HOOKS:
                match_reason = match_reason or why
            else:
                games_reason = games_reason or why
            words += [0, 1, H.T_NONE, 0, 1]  # (never asked: the end, or whole games, are off)
            continue
        if p.draws and h not in SETUP_HOOKS:
            raise Unsupported(f"the hook {h!r} draws from the game's generator (random_seat()): the native flow does not")
        spec = HOOKS[h]
        if p.kind == 0:
            dtag, dval = H.T_BOOL, int(bool(spec.default))
        elif spec.default == []:
            dtag, dval = H.T_LIST, 0  # (the empty list)
        else:
            dtag, dval = H._tagged(spec.default, kidx, names)
        words += [len(p.rules), p.kind, dtag, dval, int(spec.none_ok)]
        for when, eff, code in p.rules:
            a, c = prog(when), prog(code)
            words += [a, eff, c]
            if h in SETUP_HOOKS:  # (what these read is packed by the core for whole games, not per play phase)
                setup_programs.update(i for i in (a, c) if i >= 0)
    return words, end_reason, games_reason or end_reason, setup_programs, match_reason


def _optional_plan(graph: RuleGraph, h: str) -> tuple[Any, str | None]:
    """``hooks.plan(graph, h)``; for a hook of the end or of the setup, which the flow can do
    without, (None, why) where it has no program (or, at the end, draws) instead of Unsupported."""
    from gouji_dsl.engine.native import hooks as H
    if h not in END_HOOKS and h not in SETUP_HOOKS:
        return H.plan(graph, h), None
    try:
        p = H.plan(graph, h)
    except Unsupported as e:
        return None, f"{h}: {e}"
    if p.draws and (h in END_HOOKS or h in MATCH_HOOKS):
        return None, f"{h}: the hook draws from the game's generator"
    return p, None


def _trigger_rule(graph: RuleGraph, h: str, r: Any, names: Any, prog: Any, place_rules: list[str]) -> list[int]:
    """One mark / unmark / count / place rule of a trigger hook (give in the buying rounds): its
    programs, effect, slot, a place rule's placement program and number (its id appended to
    ``place_rules``) or a give rule's card kind program, and a give rule's giver program."""
    node = r.node
    if node.effect not in _EFFECTS or (node.effect == "give" and h not in GIVE_TRIGGERS) \
            or (node.effect == "place" and h in SETUP_TRIGGERS):
        raise Unsupported(f"rule {node.id} ({node.where}): a {node.effect!r} rule in the trigger {h!r}"
                          " (the native game flow runs mark, unmark and count; give in the buying rounds)")
    if node.effect in ("place", "give"):
        slot: int | None = 0
    else:
        slot = None if r.name is None else names.counter(r.name) if node.effect == "count" else names.flag(r.name)
    if slot is None:
        raise Unsupported(f"rule {node.id}: more flags or counters than the native core holds")
    parts = _rule_parts(graph, r)
    code, rule = -1, 0
    if node.effect in ("place", "give"):  # (the placement, or the card kind given)
        code = prog(_emit_part(graph, node, "effect").code)
    if node.effect == "place":
        rule = 2 + len(place_rules)
        place_rules.append(node.id)
    when, target, amount, giver = (prog(x.code if x is not None else None) for x in parts)
    return [when, target, amount, _EFFECTS[node.effect], slot, code, rule, giver]


def _emit_part(graph: RuleGraph, node: Any, key: str) -> Any:
    """The program of a rule's part ``key``; Unsupported naming the rule where it has none or draws."""
    from gouji_dsl.engine.native import hooks as H
    try:
        got = H.emit(graph, node.checked[key])
    except (Unsupported, KeyError) as e:
        raise Unsupported(f"rule {node.id} ({node.where}): {e}") from None
    if got.draws:
        raise Unsupported(f"rule {node.id} ({node.where}) draws from the game's generator")
    return got


def _rule_parts(graph: RuleGraph, r: Any) -> list[Any]:
    """The programs of a trigger rule's when, target, amount and giver (None: the rule has none)."""
    node = r.node
    parts = [_emit_part(graph, node, key) if key in node.checked else None for key in ("when", "target", "amount", "giver")]
    if (r.target is not None and parts[1] is None) or (r.amount is not None and parts[2] is None) \
            or (r.giver is not None and parts[3] is None):
        raise Unsupported(f"rule {node.id} ({node.where}): a target or amount without its expression")
    return parts


def _setup_trigger(graph: RuleGraph, h: str, rules: Any, names: Any, prog: Any, place_rules: list[str],
                   setup_programs: set[int]) -> tuple[list[int], str | None]:
    """The words of a trigger whole games run before the play (the buying rounds), its programs'
    numbers added to ``setup_programs``; no rules and why where one of them has no program."""
    first = len(place_rules)
    words: list[int] = [len(rules)]
    try:
        for r in rules:
            got = _trigger_rule(graph, h, r, names, prog, place_rules)
            words += got
            setup_programs.update(got[i] for i in (0, 1, 2, 5, 7) if got[i] >= 0)
    except Unsupported as e:
        del place_rules[first:]
        return [0], f"{h}: {e}"
    return words, None


def _play_words_of(tables: T.Tables) -> list[int]:
    """Whether the play hook has rules, the ranks whose plays its rules may forbid (a 64-bit mask:
    every rank when play_ranks is None) and whether pure joker plays are asked (:mod:`.tables`)."""
    ranks = tables.play_ranks
    if ranks is None:
        return [int(tables.has_play), -1, -1, 1]
    mask = sum(1 << r for r in ranks if 0 <= r < 64)
    lo, hi = mask & 0xFFFFFFFF, mask >> 32
    return [int(tables.has_play), lo - (1 << 32) if lo >= 2**31 else lo, hi - (1 << 32) if hi >= 2**31 else hi,
            int(tables.play_ranks_jokers)]


def _build(graph: RuleGraph) -> FlowPlan:
    from gouji_dsl.engine.interpreter import counters_reset
    from gouji_dsl.engine.native import hooks as H
    core = _core_module()
    _check_path(graph)
    tab = T.tables(graph)
    model = graph.model
    kinds = tuple(model.kinds)
    nr, k = int(model.n_ranks), len(kinds)
    combos, combo_words = _combos(graph, core)
    filler = tab.filler
    names = H.names(graph)
    slots = [names.counter(c) for c in counters_reset(graph, "trick")]
    trick = [t for t in slots if t is not None]
    if len(trick) != len(slots):
        raise Unsupported("more counters than the native core holds")
    discards = [len(tab.discard_ranks), *tab.discard_ranks] if tab.has_discard else [0]
    spare, free = _comparison_words(model, tab)
    words: list[int] = [MAGIC, graph.n_seats, k, nr, -1 if filler is None else int(filler), spare, k - nr,
             len(combos), *(names.text(w) for w in _PLACEMENT_WORDS), len(trick),
             int(tab.burn_lead_by_jokers), *_play_words_of(tab), free, 0, *discards,
             *trick, *combo_words]
    cover_at = len(words) - len(combos) ** 2
    programs: list[bytes] = []

    def prog(b: bytes | None) -> int:
        if b is None:
            return -1
        programs.append(b)
        return len(programs) - 1

    hook_words, end_reason, games_reason, setup_programs, match_reason = _hook_words(graph, names, prog)
    words += hook_words
    games_reason = games_reason or _games_refused(graph)
    place_rules: list[str] = []
    for h in TRIGGER_ORDER:
        rules = graph.by_hook.get(h, ())
        if h in SETUP_TRIGGERS:
            got, why = _setup_trigger(graph, h, rules, names, prog, place_rules, setup_programs)
            words += got
            games_reason = games_reason or why
            continue
        words.append(len(rules))
        for r in rules:
            words += _trigger_rule(graph, h, r, names, prog, place_rules)
    match_reason = games_reason or match_reason or _matches_refused(graph, counters_reset(graph, "match"))
    words.append(int(end_reason is None))  # the game's end in the core (fl_end)
    words.append(int(games_reason is None))  # whole games in the core (batch.h)
    words.append(int(match_reason is None))  # whole matches too (batch.h bt_between)
    words += [_setup_flag(names, f) for f in ("chose_head", "chose_headless", "declared")]  # (set by setup choices)
    got, why = _choice_words(graph, names)
    words += got
    games_reason = games_reason or why
    # a program reads a play's cards per kind (cards_of): the core fills vm_ctx.play_counts of every play it asks about
    words[core.FLOW_PLAY_COUNTS] = int(any(_ops(b, core.OP_ARGS) & H.PLAY_COUNTS for b in programs))
    flow = core.flow_load(array("i", words).tobytes(), programs)
    plan = FlowPlan(graph, flow, names, nr, k, filler, tuple(combos), {c: i for i, c in enumerate(combos)},
                    tuple(names.flags.items()), tuple(names.counters.items()), {})
    plan.tables, plan.programs, plan.cover_at = array("i", words).tobytes(), tuple(programs), cover_at
    plan.retire_rules = (*_RETIRE_RULES, *place_rules)
    plan.end_fallback = end_reason
    plan.games_fallback = games_reason
    plan.matches_fallback = match_reason
    # (a play phase packs what the deal showed only where one of its programs reads it; the setup's
    # first_leader reads it in whole games, where the core fills it from the deal itself)
    plan.shown = any(_ops(b, core.OP_ARGS) & H.PACKED_BY_CONTEXT for i, b in enumerate(programs) if i not in setup_programs)
    plan.template = _template(plan, core)
    return plan


def _setup_flag(names: Any, name: str) -> int:
    """The slot of a flag a setup choice sets (batch.h), -1 where no program reads it (none is numbered)."""
    slot = names.flags.get(name)
    return -1 if slot is None else int(slot)


def _choice_words(graph: RuleGraph, names: Any) -> tuple[list[int], str | None]:
    """The choices of the ruleset's own (settings.choices) asked at the deal and at the setup (their
    text ids, batch.h bt_asks), the text of a pass, and the counter slots a voided deal dealt again
    keeps (reset game or match: _redeal's kept_counters); why whole games cannot ask them (None: they can)."""
    from gouji_dsl.engine.interpreter import choices_at, counters_reset
    words: list[int] = []
    why: str | None = None
    for point in ("deal", "setup"):
        got = choices_at(graph, point)
        if len(got) > MAX_CHOICES:
            why, got = f"more than {MAX_CHOICES} choices asked at the {point}", []
        words += [len(got), *(names.text(c) for c in got)]
    words.append(names.text(Verb.PASS.value))
    kept = [names.counter(c) for r in ("game", "match") for c in counters_reset(graph, r)]
    if any(k is None for k in kept):
        why, kept = why or "more counters than the native core holds", []
    words += [len(kept), *(int(k) for k in kept if k is not None)]
    return words, why


def _games_refused(graph: RuleGraph) -> str | None:
    """Why whole games of ``graph`` cannot be played in the core (batch.h), or None."""
    for h in NOT_IN_GAMES:
        rules = graph.by_hook.get(h, ())
        if rules:
            return f"the hook {h!r} has rules (rule {rules[0].node.id}): whole native games do not run them yet"
    if len(graph.model.deck()) > 2048:
        return "a pack of more than 2048 cards"
    return None


def _matches_refused(graph: RuleGraph, kept: Any) -> str | None:
    """Why whole matches of ``graph`` cannot be played in the core (bt_between), or None.
    ``kept``: the counters the ruleset keeps through a match (``counters_reset(graph, "match")``)."""
    rules = graph.by_hook.get("after_return", ())
    if rules:
        return f"the hook 'after_return' has rules (rule {rules[0].node.id}): whole native matches do not run them yet"
    if kept:
        return f"the counter {sorted(kept)[0]!r} is kept through the match: whole native matches do not keep it yet"
    return None


def _ops(code: bytes, op_args: tuple[int, ...]) -> set[int]:
    words = array("i")
    words.frombytes(code)
    out, pc = set(), 0
    while pc < len(words):
        out.add(words[pc])
        pc += 1 + op_args[words[pc]]
    return out


def _template(plan: FlowPlan, core: Any) -> Any:
    """The context words of a state in no question, with what no game changes: the sizes, the
    question's empty bindings, the rank order, the set of all seats."""
    from gouji_dsl.engine.native import hooks as H
    g = plan.graph
    L = core.LAYOUT
    w = array("q", bytes(8 * core.CTX_LEN))
    w[0:4] = array("q", [g.n_seats, int(g.settings["teams"]), plan.k, plan.nr])
    at = L["vars"]
    for name, slot in H.SLOTS.items():
        tag, v = {"leading": (H.T_BOOL, 0), "amount": (H.T_INT, 0), "round": (H.T_INT, 0)}.get(name, (H.T_NONE, 0))
        w[at + 2 * slot], w[at + 2 * slot + 1] = tag, v
    strength = g._compiler.strength
    for i, kind in enumerate(g.model.kinds):
        w[L["strength"] + i] = strength[kind]
    all_i = H.SETS["all_seats"]
    w[L["set_bits"] + all_i] = sum(1 << s for s in range(1, g.n_seats + 1))
    w[L["set_count"] + all_i] = g.n_seats
    for j in range(g.n_seats):
        w[L["set_order"] + all_i * core.MAX_SEATS + j] = j + 1
    return w


def _pack(plan: FlowPlan, S: Any, core: Any) -> bytes:
    """``hooks.pack_context(graph, Ctx(S))`` for the flow's programs, made from the template (what
    the deal showed only where a program reads it)."""
    from gouji_dsl.engine.native import hooks as H
    from gouji_dsl.ruleset.game.context import Ctx
    if plan.shown:
        return H.pack_context(plan.graph, Ctx(S))
    L = core.LAYOUT
    w = plan.template[:]
    v = L["vars"]
    prev = S.prev
    for slot, val in ((8, S.trick_leader), (9, S.burner), (10, S.game_number), (11, len(S.places)), (12, S.trick_no)):
        if val is not None:
            w[v + 2 * slot], w[v + 2 * slot + 1] = H.T_INT, val
    w[v + 26], w[v + 27] = H.T_BOOL, int(bool(prev and prev.sweep))  # prev_sweep (slot 13)
    w[v + 28], w[v + 29] = H.T_BOOL, int(prev is None)  # first_game (slot 14)
    _pack_cards(plan, S, w, L, core.MAX_KINDS, core.MAX_SEATS)
    _pack_sets(S, w, L, core.MAX_SEATS)
    _pack_marks(plan, S, w, L, core)
    return w.tobytes()


def _pack_cards(plan: FlowPlan, S: Any, w: Any, L: dict[str, int], MK: int, MS: int) -> None:
    """Places, hands, what was dealt and received, the previous game's places."""
    pl = L["place"]
    for s, p in S.places.items():
        w[pl + s] = p
    hb, db = L["hands"], L["dealt"]
    k = plan.k
    for s in range(1, S.n_seats + 1):
        w[hb + s * MK:hb + s * MK + k] = array("q", S.hands[s])
        w[db + s * MK:db + s * MK + k] = array("q", S.dealt[s])
    kidx = {kk: i for i, kk in enumerate(plan.graph.model.kinds)}
    rb = L["received"]
    for s, got in S.received.items():
        for sym, c in got.items():
            if sym in kidx and 1 <= s <= MS:
                w[rb + s * MK + kidx[sym]] = c
    if S.prev is not None:
        pp = L["prev_place"]
        for s, p in S.prev.places.items():
            if p and 1 <= s <= MS:
                w[pp + s] = p


def _pack_sets(S: Any, w: Any, L: dict[str, int], MS: int) -> None:
    """The seat sets (active, finished, revolted, passed, finished in the trick): bits, sizes, lists."""
    sb, sc, so = L["set_bits"], L["set_count"], L["set_order"]
    gone = S.places.keys() | S.revolted | S.failed
    sets = ((1, [s for s in range(1, S.n_seats + 1) if s not in gone]), (2, S.finish_order), (3, sorted(S.revolted)),
            (4, sorted(S.passed)), (5, S.finished_in_trick))
    for i, seats in sets:
        w[sb + i] = sum(1 << s for s in seats)
        w[sc + i] = len(seats)
        for j, s in enumerate(seats[:MS]):
            w[so + i * MS + j] = s


def _bits(seats: Any, MS: int) -> int:
    return sum(1 << s for s in seats if isinstance(s, int) and 1 <= s <= MS)


def _pack_marks(plan: FlowPlan, S: Any, w: Any, L: dict[str, int], core: Any) -> None:
    """The flags (this game's and the previous game's) and the counters the programs name."""
    MS = core.MAX_SEATS
    fb = L["flags"]
    pf = S.prev.flags if S.prev is not None else {}
    for name, f in plan.flags:
        w[fb + f] = _bits(S.flags.get(name, ()), MS)
        w[fb + core.NFLAGS + f] = _bits(pf.get(name, ()), MS)
    cb = L["counters"]
    for name, c in plan.counters:
        for s, val in S.counters.get(name, {}).items():
            if not (isinstance(s, int) and 1 <= s <= MS):
                continue
            if not (isinstance(val, int) and not isinstance(val, bool) and -2**53 < val < 2**53):
                raise Unsupported(f"the counter {name!r} holds {val!r}")
            w[cb + c * (MS + 1) + s] = val


# ------------------------------------------------------------------------------ packing
def _code_of(plan: FlowPlan, counts: tuple[int, ...]) -> tuple[int, int, int, int]:
    nr, filler = plan.nr, plan.filler
    j = plan.combo_index.get(tuple(counts[nr:]))
    if j is None:
        raise Unsupported(f"a play on the table with jokers {counts[nr:]} no combination of the pack makes")
    ranks = [i for i in range(nr) if counts[i]]
    other = [r for r in ranks if r != filler]
    if other:
        r = other[0]
        return r, counts[r], counts[filler] if filler is not None else 0, j
    if ranks:
        return ranks[0], counts[ranks[0]], 0, j
    return -1, 0, 0, j


def _play_words(plan: FlowPlan, tp: Any) -> list[int]:
    if tp is None:
        return [0] * _PLAYW
    r, n, f, j = _code_of(plan, tuple(tp.play.counts))
    return [1, tp.seat, r, n, f, j, tp.play.rank, tp.count, tp.carried, tp.filler, tp.jokers, int(tp.play.pure_jokers),
            int(bool(tp.gouji)), tp.beaten_seat or 0, int(bool(tp.over_yield)), tp.yielder or 0, int(bool(tp.empties_hand)),
            int(bool(tp.is_burn)), 0, 0]


def _counts(plan: FlowPlan, r: int, n: int, f: int, j: int) -> tuple[int, ...]:
    key = (r, n, f, j)
    got = plan.counts.get(key)
    if got is None:
        v = [0] * plan.nr
        if r >= 0:
            v[r] = n
        if f and plan.filler is not None:
            v[plan.filler] = f
        got = plan.counts[key] = tuple(v) + plan.combos[j]
    return got


def _table_play(plan: FlowPlan, w: Any, at: int, model: Any, kinds: tuple[str, ...]) -> Any:
    from gouji_dsl.ruleset.game.context import TablePlay
    if not w[at]:
        return None
    p = model.classify(_counts(plan, w[at + 2], w[at + 3], w[at + 4], w[at + 5]))
    tp = TablePlay(p, w[at + 1], kinds)
    tp.beaten_seat = w[at + 13] or None
    tp.over_yield = bool(w[at + 14])
    tp.yielder = w[at + 15] or None
    tp.empties_hand = bool(w[at + 16])
    tp.is_burn = bool(w[at + 17])
    return tp


def run(plan: FlowPlan, S: Any, pickers: dict[int, Any], steps: int, max_decisions: int,
        native: dict[int, Any] | None = None) -> int:
    """The play phase of ``S`` (an interpreter's :class:`~gouji_dsl.engine.interpreter.GameState`)
    while random bots (``pickers``: seat → its generator's ``getrandbits``) and the seats of
    ``native`` (seat → its native policy: the heuristic bot, :mod:`gouji_dsl.engine.native.heuristic`;
    all of one policy) are to act, in the native core; ``steps``: the moves made so far (counted
    in). Returns the moves made then. Where the core cannot go on (a bot whose generator is neither
    a ``random.Random`` nor the core's, a queue longer than the core holds) the interpreter goes on
    from there with the same draws (:func:`interpreter_run`)."""
    from gouji_dsl.ruleset.game.terms import Capacity, Phase
    core = _core_module()
    graph = plan.graph
    n = graph.n_seats
    bridged = _bridge(pickers, n, core)
    if bridged is None:
        return interpreter_run(S, pickers, steps, max_decisions)
    heur, mask = _heuristic_seats(plan, native)
    rngs, py_states, natives = bridged
    base = S.decisions - steps
    model, kinds = graph.model, tuple(graph.model.kinds)
    L = core.LAYOUT
    MK = core.MAX_KINDS
    handoff = False
    try:
        while S.phase == "play":
            seat = S.to_act
            if seat is None or (natives[seat] is None and not mask >> seat & 1):
                break
            ctx = _pack(plan, S, core)
            sw = _state_words(plan, S, core)
            if sw is None:  # (a queue longer than the core holds: the interpreter goes on from here)
                handoff = True
                break
            status, steps, st, cx, ev, spec = plan.flow.run(ctx, sw, natives, steps, max_decisions, EV_CAP, heur, mask)
            w = array("i")
            w.frombytes(st)
            c = array("q")
            c.frombytes(cx)
            _unpack(plan, S, w, c, ev, spec, L, MK, model, kinds, core)
            S.decisions = base + steps
            if status == FL_FULL:
                continue
            if status == FL_OVER:
                if w[core.FLOW_END]:
                    _end(S, w, n, core)
                else:
                    S.end_game()  # (the game's end by the interpreter: a hook of the end the core does not run)
            if status in (FL_OVER, FL_STOP):
                break
            _stopped(plan, S, status, w, core, max_decisions)
    finally:
        _write_back(rngs, natives, py_states)
        S.decisions = base + steps
        S.phase, S.capacity = Phase(S.phase), Capacity(S.capacity)
    if handoff:
        return interpreter_run(S, pickers, steps, max_decisions)
    return steps


def interpreter_run(S: Any, pickers: dict[int, Any], steps: int, max_decisions: int) -> int:
    """The play phase of ``S`` while random bots are to act, on the interpreter: each draws an
    index into the interpreter's legal moves, in its order, as ``random.Random.randrange`` draws it
    (``getrandbits(n.bit_length())`` until below ``n``): the draws :func:`run` makes in the core."""
    while S.phase == "play":
        pick = pickers.get(S.to_act)
        if pick is None:
            break
        moves = S.legal_moves()
        n = len(moves)
        if not n:
            raise RuntimeError(f"seat {S.to_act} has no legal move (phase {S.phase})")
        k = n.bit_length()
        i = pick(k)
        while i >= n:
            i = pick(k)
        S.apply_in_place(moves[i], trusted=True)
        steps += 1
        if steps > max_decisions:
            raise RuntimeError(f"the game did not end after {max_decisions} decisions")
    return steps


def heuristic_scores(plan: FlowPlan, S: Any, pol: Any, max_decisions: int) -> dict[int, int] | None:
    """The final scores of a play-out of ``S`` with the heuristic bot (``pol``: its native policy)
    at every seat, played whole in the core from the state packed once, ``S`` left as it is: a
    search bot's rollout (:func:`gouji_dsl.bots.search.rollout`), which needs only the scores, so
    nothing is unpacked. The same game :func:`run` plays (the same core, the same packed state),
    so the same scores. None where the core does not take the state or does not end the game
    itself (not the play phase, a queue longer than it holds, the game's end the
    interpreter's, a failing rule, the decision bound): play it out as usual then."""
    if S.phase != "play" or S.to_act is None:
        return None
    core = _core_module()
    heur, mask = _heuristic_seats(plan, {s: pol for s in range(1, plan.graph.n_seats + 1)})
    if heur is None:
        return None
    sw = _state_words(plan, S, core)
    if sw is None:
        return None
    n = plan.graph.n_seats
    status, _steps, st, _cx, _ev, _spec = plan.flow.run(_pack(plan, S, core), sw, [None] * (n + 1), 0, max_decisions,
                                                        EV_CAP, heur, mask)
    if status != FL_OVER:
        return None
    w = array("i")
    w.frombytes(st)
    if not w[core.FLOW_END]:
        return None
    at = core.FLOW_END + 2
    return {s: w[at + s] for s in range(1, n + 1)}


def _end(S: Any, w: Any, n: int, core: Any) -> None:
    """The game's end as the core played it (fl_end: the places left are in the events already):
    what the interpreter's ``GameState.end_game`` sets after them."""
    from gouji_dsl.ruleset.game.terms import Phase
    S.phase = Phase.OVER
    S.to_act = None
    S.sweep = bool(w[core.FLOW_END + 1])
    at = core.FLOW_END + 2
    S.scores = {s: w[at + s] for s in range(1, n + 1)}
    S.record.append(("game_over", dict(S.places), dict(S.scores), S.sweep))
def _heuristic_seats(plan: FlowPlan, native: dict[int, Any] | None) -> tuple[Any, int]:
    """The core's heuristic tables and the bit mask of the seats it plays (None, 0: none)."""
    if not native:
        return None, 0
    from gouji_dsl.engine.native import heuristic
    pol = next(iter(native.values()))
    try:
        heur = heuristic.tables(plan, pol)
    except Unsupported:
        return None, 0
    return heur, sum(1 << s for s, p in native.items() if p == pol)


def _bridge(pickers: dict[int, Any], n: int, core: Any) -> tuple[list[Any], list[Any], list[Any]] | None:
    """Per seat: the random bot's ``random.Random``, its state, a native generator in that state
    (None where the seat is not a random bot; a bot's own native generator is used as it is, with no
    ``random.Random`` and no state); None when a picker is not a ``random.Random``'s or a native one's."""
    rngs: list[Any] = [None] * (n + 1)
    natives: list[Any] = [None] * (n + 1)
    for s, pick in pickers.items():
        owner = getattr(pick, "__self__", None)
        if getattr(pick, "__name__", "") != "getrandbits" or not 1 <= s <= n:
            return None
        if type(owner) is core.Random:  # (a bot that draws from a native generator: the core draws from it, no copy)
            natives[s] = owner
        elif type(owner) is random.Random:
            rngs[s] = owner
        else:
            return None
    py_states = [None if r is None else r.getstate() for r in rngs]
    for s, st0 in enumerate(py_states):
        if st0 is not None:
            natives[s] = core.Random()
            natives[s].setstate(st0)
    return rngs, py_states, natives


def _write_back(rngs: list[Any], natives: list[Any], py_states: list[Any]) -> None:
    """Each bot's generator where the core left it."""
    for r, nat, st0 in zip(rngs, natives, py_states):
        if r is not None and nat is not None and st0 is not None:
            r.setstate((st0[0], nat.getstate()[1], st0[2]))


def _stopped(plan: FlowPlan, S: Any, status: int, w: Any, core: Any, max_decisions: int) -> None:
    """Raise what stopped the core: the decision bound, a rule's failure (RuleFailed), a broken state."""
    from gouji_dsl.ruleset.game.context import Ctx
    if status == FL_LIMIT:
        raise RuntimeError(f"the game did not end after {max_decisions} decisions")
    if status == FL_RULE and w[core.FLOW_ERR] >= 0:
        _raise_rule(plan, S, w, core, plan.graph.model, tuple(plan.graph.model.kinds), Ctx)
    raise RuntimeError(f"the native game flow stopped on an inconsistent state (status {status}, hook {w[core.FLOW_ERR]})")


def _state_words(plan: FlowPlan, S: Any, core: Any) -> bytes | None:
    """The flow's state words of ``S`` (flow_py.h: FS_*), or None when they do not fit."""
    n = plan.graph.n_seats
    sw = array("i", bytes(4 * core.FLOW_STATE_LEN))
    q = S.queue
    if len(q) > core.FLOW_MAX_QUEUE or len(S.yielders) > n or len(S.late) > n or S.to_act is None:
        return None
    sw[0] = S.to_act
    sw[1] = _CAPS.index(str(S.capacity))
    sw[2] = S.burner or 0
    sw[3] = S.burned_seat or 0
    sw[4] = S.trick_leader or 0
    sw[5] = S.trick_no
    sw[6] = sum(1 << s for s in S.yielded_this_top)
    sw[7] = sum(1 << s for s in S.failed)
    sw[8], sw[9], sw[10] = len(q), len(S.yielders), len(S.late)
    qs, qc = 11, 11 + core.FLOW_MAX_QUEUE
    ys = 11 + 2 * core.FLOW_MAX_QUEUE
    ls = ys + core.MAX_SEATS + 1
    for i, (t, cap) in enumerate(q):
        sw[qs + i] = t or 0
        sw[qc + i] = 2 if cap == "burn" else 1
    for i, t in enumerate(S.yielders):
        sw[ys + i] = t
    for i, t in enumerate(S.late):
        sw[ls + i] = t
    sw[core.FLOW_TOP:core.FLOW_TOP + _PLAYW] = array("i", _play_words(plan, S.top))
    return sw.tobytes()


def _unpack(plan: FlowPlan, S: Any, w: Any, c: Any, ev: list[Any], spec: list[tuple[int, ...]], L: dict[str, int],
            MK: int, model: Any, kinds: tuple[str, ...], core: Any) -> None:
    """What the core played, into ``S``: hands, the record and what its events say (places,
    retirements, burns), the seat sets, the flow's state, flags and counters."""
    n = plan.graph.n_seats
    hb = L["hands"]
    for s in range(1, n + 1):
        S.hands[s][:] = c[hb + s * MK:hb + s * MK + plan.k]
    start = len(S.record)
    S.record.extend(ev)
    _apply_events(S, ev, spec, start, model, plan.retire_rules)
    so, sc, ms = L["set_order"], L["set_count"], core.MAX_SEATS
    fin = list(c[so + 2 * ms:so + 2 * ms + c[sc + 2]])
    if fin != S.finish_order:
        S.finish_order[:] = fin
    S.finished_in_trick = list(c[so + 5 * ms:so + 5 * ms + c[sc + 5]])
    pbits = c[L["set_bits"] + 4]
    S.passed = {s for s in range(1, n + 1) if pbits >> s & 1}
    _unpack_flow(plan, S, w, model, kinds, core)
    _unpack_marks(plan, S, w, c, L, core)


def _apply_events(S: Any, ev: list[Any], spec: list[tuple[int, ...]], start: int, model: Any,
                  rule_ids: tuple[str, ...]) -> None:
    """Places, retirements and burns from the events that are not moves; a trick won gets its play."""
    places, burns, record = S.places, S.burns, S.record
    for i, kind, a, b, x in spec:
        if kind == EV_PLACE:
            places[a] = b
        elif kind == EV_TRICK_WON:
            record[start + i] = ("trick_won", a, model.classify(ev[i][2]))
        elif kind == EV_RETIRE:
            S.failed.add(a)
            if x >= 2:
                record[start + i] = ("retire", a, _PLACEMENT_WORDS[b], rule_ids[x])
        elif kind == EV_BURN:
            burns.append({"burner": a, "burned": b or None, "success": False, "counter": bool(x)})
        elif kind == EV_COUNTER_BURN and burns:
            burns[-1]["countered"] = True
        elif kind == EV_BURN_SUCCESS:
            burns[-1]["success"] = True
        elif kind == EV_BURN_FAILED and burns:
            burns[-1]["failed"] = True
        elif kind == EV_DISCARD:
            S.discarded[b] += x


def _unpack_flow(plan: FlowPlan, S: Any, w: Any, model: Any, kinds: tuple[str, ...], core: Any) -> None:
    """The flow's state words (FS_*) into ``S``."""
    from gouji_dsl.ruleset.game.terms import Capacity
    n = plan.graph.n_seats
    S.to_act = w[0]
    S.capacity = (Capacity.LEAD, Capacity.FOLLOW, Capacity.BURN)[w[1]]
    S.burner = w[2] or None
    S.burned_seat = w[3] or None
    S.trick_leader = w[4] or None
    S.trick_no = w[5]
    S.yielded_this_top = {s for s in range(1, n + 1) if w[6] >> s & 1}
    qs, qc = 11, 11 + core.FLOW_MAX_QUEUE
    S.queue = [(w[qs + i] or None, Capacity.BURN if w[qc + i] == 2 else Capacity.FOLLOW) for i in range(w[8])]
    ys = 11 + 2 * core.FLOW_MAX_QUEUE
    ls = ys + core.MAX_SEATS + 1
    S.yielders = list(w[ys:ys + w[9]])
    late = list(w[ls:ls + w[10]])
    if late != S.late:
        S.late[:] = late
    S.top = _table_play(plan, w, core.FLOW_TOP, model, kinds)


def _unpack_marks(plan: FlowPlan, S: Any, w: Any, c: Any, L: dict[str, int], core: Any) -> None:
    """The flags and counters the rules changed (a mark makes the flag's set, as graph.trigger does)."""
    n = plan.graph.n_seats
    fb = L["flags"]
    marked = core.FLOW_ERR + 3 + 3 * _PLAYW + 1
    for name, i in plan.flags:
        bits = c[fb + i]
        now = {s for s in range(1, n + 1) if bits >> s & 1}
        have = S.flags.get(name)
        if have is None:
            if now or w[marked + i]:
                S.flags[name] = now
        elif now != have:
            have.clear()
            have.update(now)
    reset = w[marked - 1]
    counted = marked + core.NFLAGS
    cb, ms = L["counters"], core.MAX_SEATS
    for name, i in plan.counters:
        if reset >> i & 1:
            S.counters.pop(name, None)
        touched = w[counted + i]
        if touched:
            d = S.counters.setdefault(name, {})
            for s in range(1, n + 1):
                if touched >> s & 1:
                    d[s] = c[cb + i * (ms + 1) + s]


def _raise_rule(plan: FlowPlan, S: Any, w: Any, core: Any, model: Any, kinds: tuple[str, ...], Ctx: Any) -> None:
    """Ask the question a rule failed on of the interpreter's graph (which raises its RuleFailed)."""
    graph = plan.graph
    at = core.FLOW_ERR
    hook = w[at]
    if hook == core.HEURISTIC_SEE_COUNT:  # (the heuristic bot asked whether the seat sees the target's count)
        graph.permit("see_count", Ctx(S, seat=w[at + 1] or None, target=w[at + 2] or None))
        raise RuntimeError("the native heuristic bot stopped at the hook 'see_count', which the rule graph answers without failing")
    name = TRIGGER_ORDER[hook - 100] if hook >= 100 else HOOK_ORDER[hook]
    plays = [_table_play(plan, w, at + 3 + i * _PLAYW, model, kinds) for i in range(3)]
    ctx = Ctx(None if name == "gouji" else S, seat=w[at + 1] or None, play=plays[0], top=plays[1], beaten=plays[2],
              leading=bool(w[at + 2]))
    if hook >= 100:
        graph.trigger(name, ctx)
    elif name in ("follow", "burn", "yield", "burn_lead", "play", "discard"):
        graph.permit(name, ctx)
    else:
        v = graph.value(name, ctx)
        if name == "next_leader" and v is not None:
            S._seat_answer(v, "next_leader", "the next leader")
        if name in ("follow_order", "burn_order") and v is not None:
            S._seats_answer(v, name)
        if name in ("burn_failure", "no_lead", "revolution_place", "yield_to", "game_over"):
            raise S._rule_error("", f"{name} answered {v!r}, which the game cannot take")
    raise RuntimeError(f"the native game flow stopped at the hook {name!r}, which the rule graph answers without failing")


def heuristic_fallback_reason(graph: RuleGraph, pol: Any) -> str | None:
    """Why the native core does not play the heuristic bot (``pol``: its native policy) on
    ``graph`` (None: it does)."""
    reason = fallback_reason(graph)
    if reason is not None:
        return reason
    from gouji_dsl.engine.native import heuristic
    return heuristic.fallback_reason(flow_plan(graph), pol)


# ------------------------------------------------------------------------------ whole games
def games_fallback(graph: RuleGraph) -> str | None:
    """Why whole games of ``graph`` (random bots at every seat, no previous game) are not played
    in the core (:func:`play_games`); None: they are."""
    reason = fallback_reason(graph)
    if reason is not None:
        return reason
    return flow_plan(graph).games_fallback


def play_games(plan: FlowPlan, seed: Any, start: int, count: int, max_decisions: int, heuristic: Any = None,
               seats: int = 0, thresholds: tuple[float, float] = (1.2, 5.0), teams: int = 2,
               match_games: int = 1) -> list[Any]:
    """Games ``start .. start + count - 1`` of run ``seed`` with random bots at every seat and no
    previous game, whole in the core (batch.h), one crossing: per game its result words (an
    ``array``: status 0, decisions, tricks, first leader, burns, their successes and failures,
    sweep, revolutions, redeals, then places and scores of seats 1..n, then the design metrics' facts:
    :data:`DESIGN_WORDS`, the words of ``tools.design.design_of``'s Design, with ``teams`` teams), or None where the core
    left the game to Python (a game over before the first lead, a deal void MAX_REDEALS times, a
    rule that failed, ...: play it with tools.simulate.play_game, the same game). The random bots'
    setup decisions (revolt, choose, declare) and voided deals are the core's. ``heuristic``: the
    heuristic bot's tables (native/heuristic.py ``tables``) for the seats of the bit mask ``seats``
    (``thresholds``: its WEAK and STRONG hand powers); random bots at the other seats.
    ``match_games`` > 1: the games are chained into matches of that many (game ``i`` is game
    ``i % match_games`` of its match), tribute and returns between them in the core (bt_between);
    a later game of a match whose game before it is None (or before ``start``) is None too: Python
    plays such a match from its first game."""
    if plan.games_fallback is not None:
        raise Unsupported(plan.games_fallback)
    if match_games > 1 and plan.matches_fallback is not None:
        raise Unsupported(plan.matches_fallback)
    core = _core_module()
    if not plan.deck[0]:
        plan.deck = _deck(plan)
    text = f"{seed}".encode()
    n = plan.graph.n_seats
    width = core.BATCH_HEAD + 2 * n + core.BATCH_TAIL + 1 + 2 * n  # (batch.h BR_WORDS: the float scores' words last)
    if len(text) > 200 or b"\0" in text:
        return [None] * count
    raw = plan.flow.play_games(_fresh_context(plan, core), plan.deck[0], plan.deck[1], text, start, count, max_decisions,
                               heuristic, seats, float(thresholds[0]), float(thresholds[1]), int(teams),
                               int(match_games))
    words = array("i")
    words.frombytes(raw)
    return [None if words[g * width] else words[g * width:(g + 1) * width] for g in range(count)]


#: the design words after a game's scores (batch.h BD_*): the fields of ``tools.figures.Design`` in order
DESIGN_WORDS = ("choices", "decisions", "lead_changes", "settled", "tricks")


def _deck(plan: FlowPlan) -> tuple[bytes, bytes]:
    """The pack in deck() order: each card's kind, and its suit (0: none; 1.. in order of first
    appearance)."""
    model = plan.graph.model
    kidx = {k: i for i, k in enumerate(model.kinds)}
    suits: dict[str, int] = {}
    kinds, ids = bytearray(), bytearray()
    for c in model.deck():
        kinds.append(kidx[c.symbol])
        ids.append(suits.setdefault(c.suit, len(suits) + 1) if c.suit else 0)
    if len(suits) > 15:
        raise Unsupported("more than 15 suits")
    return bytes(kinds), bytes(ids)


def _fresh_context(plan: FlowPlan, core: Any) -> bytes:
    """The context of a game just dealt (game 1, no previous game), before its hands (the core
    fills hands, dealt and shown): the template with the fresh game's numbers."""
    from gouji_dsl.engine.native import hooks as H
    w = plan.template[:]
    v = core.LAYOUT["vars"]
    for slot, val in ((10, 1), (11, 0), (12, 0)):  # game_number, places_taken, trick_number
        w[v + 2 * slot], w[v + 2 * slot + 1] = H.T_INT, val
    w[v + 26], w[v + 27] = H.T_BOOL, 0  # prev_sweep
    w[v + 28], w[v + 29] = H.T_BOOL, 1  # first_game
    return w.tobytes()
