"""Game cases of a scenario file (:func:`game_case`): the ``deal`` (and ``redeal_deals``), ``leader``, the ``moves``
tried one by one (each with its own ``expect``), a match's ``next_deal`` and ``next_moves``, and the final ``expect:``,
one check per key (:data:`_GAME_CHECKS`: outcome, results, hands, counts shown, sees, match games, legal moves, the
rules that explain them). A new ``expect:`` key of a game: a function here, added to :data:`_GAME_CHECKS`, its name
in :data:`~gouji_dsl.tools.scenario_source.GAME_KEYS`, and what its value may be in
:func:`~gouji_dsl.tools.scenario_values.check_values`.
"""
from __future__ import annotations

import re
from typing import Any

from gouji_dsl.diagnostics import Code, did_you_mean
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import (
    MAX_REDEALS,
    GameState,
    Move,
    choice_words,
    hands_from_text,
    match_length,
    new_game,
    next_game,
    parse_move,
)
from gouji_dsl.i18n import _, ngettext
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.game.terms import SETUP_VERBS, Choice, Phase, Verb
from gouji_dsl.ruleset.graph import RuleGraph, Verdict
from gouji_dsl.tools.scenario_source import MOVE_ITEM_KEYS, CaseError, PackError, PosDict, as_yaml, item_at, key_at, unknown_key, value_at
from gouji_dsl.tools.scenario_values import case_seed, seat_key, seat_or_none

_TRANSFER = re.compile(r"^(\d{1,3})\s+gives\s+(\d{1,3})\s*:\s*(.+)$")


def game_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str,
              errors: list[tuple[str, str]]) -> None:
    if "next_moves" in case and "next_deal" not in case:
        raise CaseError(key_at(case, "next_moves"), _("'next_moves' needs a next_deal"), Code.SCENARIO_KEY)
    leader = case.get("leader")
    if leader is not None and seat_or_none(leader, graph.n_seats) is None or isinstance(leader, str):
        raise CaseError(value_at(case, "leader"), _("leader must be a seat 1..{n_seats}, got {yaml}").format(
            n_seats=graph.n_seats, yaml=as_yaml(leader)), Code.SCENARIO_VALUE)
    seed = case_seed(case)
    if "deal_valid" in exp:  # the case is about whether the deal fits the pack (and has no moves)
        _deal_valid_case(case, exp, graph, disp, errors)
        return
    again = _redeal_deals(case, graph, disp)
    state = new_game(graph, seed=seed, hands=_deal(case, "deal", graph, disp), leader=leader)
    _deal_again_if_void(state, again)
    _run_moves(state, case, "moves", graph, disp, errors, again)
    if "next_deal" not in case:
        _check_all_dealt(case, again, disp, errors)
    if errors:
        return
    if "next_deal" in case:
        state = _next_game_played(state, seed, case, exp, graph, disp, errors, again)
        if errors:
            return
    if "transfers" in exp:  # the cards handed over after the (last) game's deal (buying 3s ...)
        _check_transfers(state, exp, graph, disp, errors)
    _decline_if_skipped(state, exp)
    _check_game(state, exp, graph, disp, errors)


def _deal_valid_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str,
                     errors: list[tuple[str, str]]) -> None:
    """``expect: deal_valid``: whether the case's deal fits the pack (such a case has no moves, expects nothing else)."""
    stray = ([k for k in ("moves", "next_deal", "next_moves", "redeal_deals") if k in case]
             + [k for k in exp if k != "deal_valid"])
    if stray:
        raise CaseError(key_at(case, stray[0]) if stray[0] in case else key_at(exp, stray[0]),
                         _("{stray!r} does not go with deal_valid: a case expecting whether a deal fits the "
                         "pack has no moves and expects nothing else").format(stray=stray[0]), Code.SCENARIO_KEY)
    try:
        _deal(case, "deal", graph, disp)
        fits, why = True, _("the {name} pack holds every card of it").format(name=graph.name)
    except PackError as e:
        fits, why = False, e.msg
    if fits != exp["deal_valid"]:
        ln, col = value_at(exp, "deal_valid")
        errors.append((_("{disp}:{ln}:{col}: deal_valid: expected {yaml}, got {yaml2} "
                       "({why})").format(
                           disp=disp, ln=ln, col=col, yaml=as_yaml(exp['deal_valid']), yaml2=as_yaml(fits), why=why), str(Code.SCENARIO_FAILED)))


def _next_game_played(state: GameState, seed: int | str, case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph,
                      disp: str, errors: list[tuple[str, str]], again: list[dict[int, list[Any]]]) -> GameState:
    """The match's next game (``next_deal``) after the first is over, its ``next_moves`` played."""
    if not state.over:
        raise CaseError(key_at(case, "next_deal"), _("next_deal: the first game is not over after its moves"),
                         Code.SCENARIO_VALUE, _("seat {to_act} is still to act").format(to_act=state.to_act))
    state = next_game(state, seed, hands=_deal(case, "next_deal", graph, disp))
    _run_next_moves(state, case, graph, disp, errors, exp, again)
    _check_all_dealt(case, again, disp, errors)
    return state


def _check_transfers(state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                     errors: list[tuple[str, str]]) -> None:
    model = graph.model
    got = [f"{e['giver']} gives {e['receiver']}: {e['cards']}" for e in state.record if e["type"] == "transfer"]
    want = []
    items = exp["transfers"] or []
    for i, x in enumerate(items):
        m = _TRANSFER.match(str(x).strip())
        ln, col = item_at(items, i)
        if not m:
            raise CaseError((ln, col), _("a transfer is written '6 gives 1: R B', got {yaml}").format(yaml=as_yaml(x)), Code.SCENARIO_VALUE)
        cards = model.text(model.parse(m.group(3), path=disp, line=ln, col=col))
        want.append(f"{m.group(1)} gives {m.group(2)}: {cards}")
    if want != got:
        ln, col = value_at(exp, "transfers")
        errors.append((_("{disp}:{ln}:{col}: transfers: expected {want}, got {got}").format(
            disp=disp, ln=ln, col=col, want=want, got=got), str(Code.SCENARIO_FAILED)))


def _deal_seats(case: dict[str, Any], key: str, graph: RuleGraph) -> dict[int, Any]:
    """Seat -> its key in the deal ``case[key]``: every seat once, in digits."""
    deal = case[key]
    seats: dict[int, Any] = {}
    for k in deal:
        s = seat_or_none(k, graph.n_seats)
        if s is None:
            raise CaseError(key_at(deal, k), _("{key}: seat must be 1..{n_seats} in digits, got {yaml}").format(
                key=key, n_seats=graph.n_seats, yaml=as_yaml(k)),
                             Code.BAD_SEAT)
        if s in seats:
            raise CaseError(key_at(deal, k), _("{key}: seat {s} is given twice").format(key=key, s=s), Code.SCENARIO_VALUE)
        seats[s] = k
    missing = [s for s in range(1, graph.n_seats + 1) if s not in seats]
    if missing:
        raise CaseError(value_at(case, key), _("{key}: every seat is given its hand; missing seat(s) ").format(key=key)
                         + ", ".join(map(str, missing)), Code.SCENARIO_VALUE, _("write '\"\"' for an empty hand"))
    return seats


def _deal(case: dict[str, Any], key: str, graph: RuleGraph, disp: str) -> dict[int, list[Any]]:
    deal = case[key]
    if not isinstance(deal, dict):
        raise CaseError(value_at(case, key), _("{key} must map seats to cards").format(key=key), Code.SCENARIO_VALUE,
                         _("e.g. deal: {1: \"55 7\", 2: \"33 4\", ...}"))
    seats = _deal_seats(case, key, graph)
    hands = {}
    total = [0] * len(graph.model.kinds)
    for s, k in sorted(seats.items()):
        v = deal[k]
        ln, col = value_at(deal, k)
        if isinstance(v, bool) or not isinstance(v, (str, int, type(None))):
            raise CaseError((ln, col), _("{key}: seat {s}'s cards must be text such as \"55 7\", got {yaml}").format(key=key, s=s, yaml=as_yaml(v)),
                             Code.SCENARIO_VALUE)
        hands[s] = hands_from_text(graph, {s: "" if v is None else str(v)}, path=disp, line=ln, col=col)[s]
        for c in hands[s]:
            total[graph.model.kinds.index(c.symbol)] += 1
    for i, n in enumerate(total):
        if n > graph.model.deck_counts[i]:
            raise PackError(value_at(case, key), _("{key}: {n} cards {graph!r} dealt, but the "
                             "{name} pack has only {graph2}").format(
                                 key=key, n=n, graph=graph.model.kinds[i], name=graph.name, graph2=graph.model.deck_counts[i]), Code.SCENARIO_VALUE)
    return hands


def _redeal_deals(case: dict[str, Any], graph: RuleGraph, disp: str) -> list[dict[int, list[Any]]]:
    """``redeal_deals``: the deals that follow, in order, each time the fixed deal is voided (a
    redeal rule, a player's request, two revolutions); each is a full ``deal`` and fits the pack."""
    if "redeal_deals" not in case:
        return []
    items = case["redeal_deals"]
    if not isinstance(items, list) or not items:
        raise CaseError(value_at(case, "redeal_deals"), _("redeal_deals must be a list of deals (seat -> cards)"),
                         Code.SCENARIO_VALUE, _("e.g. redeal_deals: [{1: \"55 7\", 2: \"33 4\", ...}]"))
    if len(items) >= MAX_REDEALS:
        raise CaseError(value_at(case, "redeal_deals"), _("redeal_deals: at most {max_redeals} deals "
                         "(MAX_REDEALS: the redeals of one game)").format(max_redeals=MAX_REDEALS - 1), Code.SCENARIO_VALUE)
    out = []
    for i, item in enumerate(items):
        one = PosDict({"redeal_deals": item})
        one.pos = item_at(items, i)
        one.key_pos, one.val_pos = {"redeal_deals": item_at(items, i)}, {"redeal_deals": item_at(items, i)}
        out.append(_deal(one, "redeal_deals", graph, disp))
    return out


def _check_all_dealt(case: dict[str, Any], again: list[dict[int, list[Any]]], disp: str,
                     errors: list[tuple[str, str]]) -> None:
    """Every deal of ``redeal_deals`` was dealt (never silently unused: the case meant a redeal that
    did not happen); otherwise, when the moves went through, a failure at the key."""
    if errors or not again:
        return
    ln, col = value_at(case, "redeal_deals")
    given = len(case["redeal_deals"])
    errors.append((_("{disp}:{ln}:{col}: redeal_deals: {n} of the {given} deal(s) never dealt: the deal "
                   "was voided {given2} time(s) during the moves").format(
                       disp=disp, ln=ln, col=col, n=len(again), given=given, given2=given - len(again)), str(Code.SCENARIO_FAILED)))


def _deal_again_if_void(state: GameState, again: list[dict[int, list[Any]]]) -> None:
    """A voided fixed deal is dealt again with the next of the case's ``redeal_deals``."""
    while again and state.voided:
        state.deal_again(again.pop(0))


def _decline_if_skipped(state: GameState, exp: dict[str, Any]) -> None:
    """A case that goes straight to play declines the setup questions, unless its expectations
    speak of them (a ``legal`` / ``illegal`` line with a setup verb)."""
    listed = [str(x) for x in (exp.get("legal") or []) + (exp.get("illegal") or [])]
    if Phase(state.phase).before_play and not getattr(state, "_used_setup", False) and not any(
            len(x.split()) > 1 and x.split()[1] in SETUP_VERBS for x in listed):
        state.decline_setup()


def _move_items(case: dict[str, Any], key: str) -> list[tuple[str, tuple[int, int], str | None]]:
    """The lines of ``moves`` / ``next_moves``: (line, position, expected legality or None)."""
    moves = case.get(key)
    if moves is None:
        return []
    if not isinstance(moves, list):
        raise CaseError(value_at(case, key), _("{key} must be a list of move lines, got {yaml}").format(key=key, yaml=as_yaml(moves)),
                         Code.SCENARIO_VALUE, _("e.g. {key}: [1 play 55, 2 pass]").format(key=key))
    out = []
    for i, item in enumerate(moves):
        where = item_at(moves, i)
        want = None
        if isinstance(item, dict):
            bad = [k for k in item if k not in MOVE_ITEM_KEYS]
            if bad:
                raise unknown_key(key_at(item, bad[0]), _("move item"), bad[0], MOVE_ITEM_KEYS)
            if "move" not in item:
                raise CaseError(where, _("a move item is a line or {move: LINE, expect: legal | illegal}"),
                                 Code.SCENARIO_KEY)
            want = item.get("expect")
            if want not in (None, "legal", "illegal"):
                raise CaseError(value_at(item, "expect"), _("a move's expect is legal or illegal, got {yaml}").format(yaml=as_yaml(want)),
                                 Code.SCENARIO_VALUE)
            where = value_at(item, "move")
            item = item["move"]
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise CaseError(where, _("a move is a line such as '3 play RR TTT', got {yaml}").format(yaml=as_yaml(item)), Code.BAD_MOVE)
        out.append((str(item), where, want))
    return out


def _voided_by(state: GameState) -> str:
    """Which rule voided the deal, with its file:line and sentence ("" when the deal stands)."""
    if not state.voided:
        return ""
    reasons = [r for key, rs in state.decided.items() if key.startswith("redeal") for r in rs if r.rule is not None]
    if not reasons:
        return _("the deal was voided")
    r = reasons[-1]
    where = f" ({display_path(r.pos.path)}:{r.pos.line})" if r.pos is not None else ""
    says = getattr(r.rule, "says", None) or r.text
    return _("the deal was voided by rule {rule_id}{where}").format(rule_id=r.rule_id, where=where) + (f": {says}" if says else "")


def _forbade(trace: list[Any], state: GameState) -> str:
    """The reasons a move is illegal, one text; "the game is over" of a voided deal names the rule
    that voided it."""
    parts = []
    for r in trace:
        if r.verdict != Verdict.FORBADE:
            continue
        if r.rule_id == "engine.over" and state.voided:
            parts.append(f"{r.rule_id}: {_voided_by(state)}")
        else:
            parts.append(f"{r.rule_id}: {r.text}")
    return "".join(p if i == len(parts) - 1 else p + (" " if p.endswith("。") else "; ")
                   for i, p in enumerate(parts))  # a Chinese sentence ends with its own 。


def _try_move(state: GameState, text: str, where: tuple[int, int], want: str | None, graph: RuleGraph,
              disp: str, errors: list[tuple[str, str]]) -> bool:
    """Check one move line and, unless it is expected illegal, apply it. False: stop the case."""
    mv = parse_move(text, graph.model, graph.n_seats, path=disp, line=where[0], col=where[1],
                    words=choice_words(graph))
    trace: list[Any] = []
    legal = state.check(mv, trace)
    ln, col = where
    if want == "illegal":
        if legal:
            errors.append((_("{disp}:{ln}:{col}: {text!r} was expected to be illegal but is legal").format(disp=disp, ln=ln, col=col, text=text),
                           str(Code.SCENARIO_FAILED)))
        return True
    if not legal:
        why = _forbade(trace, state) or "illegal"
        errors.append((_("{disp}:{ln}:{col}: {text!r} is illegal: {why}").format(
            disp=disp, ln=ln, col=col, text=text, why=why), str(Code.SCENARIO_FAILED)))
        return False
    state.apply_in_place(mv)
    return True


def _run_moves(state: GameState, case: dict[str, Any], key: str, graph: RuleGraph, disp: str,
               errors: list[tuple[str, str]], again: list[dict[int, list[Any]]] | None = None) -> None:
    """The first game's moves, in the order written. A setup question the case skips by going
    straight to play is declined. A deal voided by a move is dealt again from ``again``
    (``redeal_deals``) and the moves go on in the new deal."""
    used_setup = False
    for text, where, want in _move_items(case, key):
        mv = parse_move(text, graph.model, graph.n_seats, path=disp, line=where[0], col=where[1],
                    words=choice_words(graph))
        if Phase(state.phase).before_play:
            if mv.verb in SETUP_VERBS or (mv.verb == Verb.PASS and (used_setup or mv.seat == state.to_act)):
                used_setup = True
                state._used_setup = True  # type: ignore[attr-defined]
            else:
                state.decline_setup()
        if not _try_move(state, text, where, want, graph, disp, errors):
            return
        _deal_again_if_void(state, again or [])


_BETWEEN_VERBS = frozenset({Verb.RETURN, Verb.REVOLT, Verb.DECLARE, Verb.CHOOSE, Verb.PASS})


def _answers(verb: Verb, phase: Phase) -> bool:
    """A line with this verb answers the question of this between-game phase: a return line the
    return tribute, the setup verbs (and pass) the ruleset's choices and the setup questions."""
    if phase == Phase.RETURN:
        return verb == Verb.RETURN
    return verb in _BETWEEN_VERBS and verb != Verb.RETURN


def _run_next_moves(state: GameState, case: dict[str, Any], graph: RuleGraph, disp: str,
                    errors: list[tuple[str, str]], exp: dict[str, Any],
                    again: list[dict[int, list[Any]]] | None = None) -> None:
    """The next game's moves. Its between-game and setup choices are matched by seat: each seat's
    lines are used in the order written for that seat, whatever the order between seats
    (NOTATION.md); a setup question of a seat whose next line is not a setup answer (a return
    line, say) is declined. Once play begins, the lines not used yet are played in the order
    written (a case may go on into the next game). A deal voided by a move is dealt again from
    ``again`` (what is left of ``redeal_deals``)."""
    items = _move_items(case, "next_moves")
    seat_of = [parse_move(t, graph.model, graph.n_seats, path=disp, line=w[0], col=w[1], words=choice_words(graph)) for t, w, _ in items]
    used = [False] * len(items)
    if not _answer_between_games(state, case, graph, disp, errors, items, seat_of, used, again or []):
        return
    for i, (text, where, want) in enumerate(items):
        if used[i]:
            continue
        if Phase(state.phase).before_play:
            state.decline_setup()
        if not _try_move(state, text, where, want, graph, disp, errors):
            return
        _deal_again_if_void(state, again or [])


def _answer_between_games(state: GameState, case: dict[str, Any], graph: RuleGraph, disp: str, errors: list[tuple[str, str]],
                          items: list[tuple[str, tuple[int, int], str | None]], seat_of: list[Move], used: list[bool],
                          again: list[dict[int, list[Any]]]) -> bool:
    """The next game's between-game and setup questions answered by each seat's lines in order (``used`` marks them),
    a question with no line for it declined; False when a move failed or a return tribute has no line (``errors``)."""
    pending: dict[int, list[int]] = {}
    for i, mv in enumerate(seat_of):
        pending.setdefault(mv.seat, []).append(i)
    while not state.over and state.phase != Phase.PLAY and state.to_act is not None:
        s = state.to_act
        queue = pending.get(s, [])
        if queue and _answers(seat_of[queue[0]].verb, Phase(state.phase)):
            i = queue.pop(0)
            used[i] = True
            state._used_setup = True  # type: ignore[attr-defined]
            text, where, want = items[i]
            if not _try_move(state, text, where, want, graph, disp, errors):
                return False
            _deal_again_if_void(state, again)
            continue
        waiting = any(seat_of[q[0]].verb in _BETWEEN_VERBS for q in pending.values() if q)
        if state.phase == Phase.RETURN:
            if not waiting:
                break  # the return tribute is left open: expect speaks of it
            errors.append(_return_first(state, case, s, disp))
            return False
        if not waiting and not any(not u for u in used):
            break  # the setup questions left are declined, or spoken of by expect
        state.apply_in_place(Move(s, Verb.PASS) if state.phase != Phase.CHOOSE else Move(s, Verb.CHOOSE, None, Choice.HEAD))
        _deal_again_if_void(state, again)
    return True


def _return_first(state: GameState, case: dict[str, Any], s: int, disp: str) -> tuple[str, str]:
    """The error of a return tribute seat ``s`` owes while the other seats' lines wait."""
    ln, col = value_at(case, "next_moves")
    return (_("{disp}:{ln}:{col}: next_moves: seat {s} must return "
              "{state} card(s) to seat {state2} (还贡) before "
              "the other seats' lines are used: give it a line such as '{s} return CARDS'").format(
                  disp=disp, ln=ln, col=col, s=s, state=state.return_queue[0][2], state2=state.return_queue[0][1]),
            str(Code.SCENARIO_VALUE))


# ------------------------------------------------------------------------ final expectations
class _GameCheck:
    """A game case's ``expect:`` and the state the case reached: what each key's check reads, and
    :meth:`fail`, which adds a failure at the key's position."""

    def __init__(self, state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                 errors: list[tuple[str, str]]):
        self.state, self.exp, self.graph, self.disp, self.errors = state, exp, graph, disp, errors
        self.model = graph.model
        self.n = graph.n_seats

    def fail(self, key: str, msg: str, where: tuple[int, int] | None = None) -> None:
        ln, col = where or value_at(self.exp, key)
        self.errors.append((f"{self.disp}:{ln}:{col}: {msg}", str(Code.SCENARIO_FAILED)))


def _check_game(state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                errors: list[tuple[str, str]]) -> None:
    """Each key of a game case's ``expect:`` checked against ``state``, in a fixed order (failures go to ``errors``)."""
    c = _GameCheck(state, exp, graph, disp, errors)
    for check in _GAME_CHECKS:
        check(c)


def _expect_outcome(c: _GameCheck) -> None:
    """expect: to_act, over, voided."""
    state, exp = c.state, c.exp
    if "to_act" in exp and state.to_act != exp["to_act"]:
        c.fail("to_act", _("to_act: expected {yaml}, got {yaml2}").format(yaml=as_yaml(exp['to_act']), yaml2=as_yaml(state.to_act))
             + (f" ({_voided_by(state)})" if state.voided else _(" (the game is over)") if state.over else f" ({state.capacity})"))
    if "over" in exp and state.over != bool(exp["over"]):
        c.fail("over", _("over: expected {yaml}, got {yaml2}").format(yaml=as_yaml(exp['over']), yaml2=as_yaml(state.over))
             + (f" ({_voided_by(state)})" if state.voided else ""))
    if "voided" in exp and state.voided != exp["voided"]:
        c.fail("voided", _("voided: expected {yaml}, got {yaml2}").format(yaml=as_yaml(exp['voided']), yaml2=as_yaml(state.voided))
             + (f" ({_voided_by(state)})" if state.voided else ""))

def _expect_results(c: _GameCheck) -> None:
    """expect: places, scores, sweep."""
    state, exp, n = c.state, c.exp, c.n
    if "places" in exp:
        want = {seat_key(k, n): int(v) for k, v in (exp["places"] or {}).items()}
        if want != state.places:
            c.fail("places", _("places: expected {dict}, got {dict2}").format(
                dict=dict(sorted(want.items())), dict2=dict(sorted(state.places.items()))))
    if "scores" in exp:
        want_s = {seat_key(k, n): v for k, v in (exp["scores"] or {}).items()}
        got_s = {k: state.scores.get(k) for k in want_s}
        if not state.over:
            c.fail("scores", _("scores: the game is not over"))
        elif any(got_s[k] is None or abs(float(got_s[k] or 0) - float(v)) > 0.01 for k, v in want_s.items()):
            c.fail("scores", _("scores: expected {want_s}, got {got_s}").format(want_s=want_s, got_s=got_s))
    if "sweep" in exp and (not state.over or state.sweep != bool(exp["sweep"])):
        c.fail("sweep", _("sweep: expected {yaml}, got {yaml2}").format(
            yaml=as_yaml(exp['sweep']), yaml2=as_yaml(state.sweep) if state.over else 'game not over'))

def _expect_hands(c: _GameCheck) -> None:
    """expect: hands, hand_sizes."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    if "hands" in exp:
        hv = exp["hands"] or {}
        for k, v in hv.items():
            where = value_at(hv, k)
            s = seat_key(k, n)
            text = "" if v is None else str(v)
            want_h = model.parse(text, path=disp, line=where[0], col=where[1]) if text.strip() else tuple([0] * len(model.kinds))
            got_h = tuple(state.hands[s])
            if want_h != got_h:
                c.fail("hands", _("hands[{s}]: expected {model}, got {model2}").format(
                    s=s, model=model.text(want_h) or '(none)', model2=model.text(got_h) or '(none)'),
                     where)
    if "hand_sizes" in exp:
        want_n = {seat_key(k, n): int(v) for k, v in (exp["hand_sizes"] or {}).items()}
        got_n = {k: state.hand_size(k) for k in want_n}
        if want_n != got_n:
            c.fail("hand_sizes", _("hand_sizes: expected {want_n}, got {got_n}").format(want_n=want_n, got_n=got_n))

def _expect_counts_shown(c: _GameCheck) -> None:
    """expect: counts_shown."""
    state, exp, n = c.state, c.exp, c.n
    if "counts_shown" in exp:
        cs = exp["counts_shown"] or {}
        for k, v in cs.items():
            s = seat_key(k, n)
            seen_by = [o for o in state.seat_list if o != s and "count" in state.view(o)["others"][str(s)]]
            shown = len(seen_by) == n - 1
            if shown != v:
                detail = _("seen by {join} only").format(join=', '.join(map(str, seen_by))) if seen_by and not shown else \
                    (_("seen by every other seat") if shown else _("seen by nobody"))
                c.fail("counts_shown", _("counts_shown[{s}]: expected {yaml}, got {yaml2} "
                     "(seat {s} holds {state} cards, {detail})").format(
                         s=s, yaml=as_yaml(v), yaml2=as_yaml(shown), state=state.hand_size(s), detail=detail), value_at(cs, k))

def _expect_sees(c: _GameCheck) -> None:
    """expect: sees, sees_count."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    for key in ("sees", "sees_count"):
        table = exp.get(key) or {}
        for viewer_key, inner in table.items():
            viewer = seat_key(viewer_key, n)
            others = state.view(viewer)["others"]
            for target_key, v in inner.items():
                t = seat_key(target_key, n)
                where = value_at(inner, target_key)
                info = others[str(t)]
                if key == "sees":
                    got_text = info.get("hand")
                    want_cards = None if v is None else (
                        model.parse(str(v), path=disp, line=where[0], col=where[1]) if str(v).strip() else tuple([0] * len(model.kinds)))
                    got_cards = None if got_text is None else tuple(state.hands[t])
                    if want_cards != got_cards:
                        expected = _("nothing (null)") if want_cards is None else model.text(want_cards) or _("(none)")
                        got = (_("nothing: seat {viewer} does not see seat {seat}'s hand").format(viewer=viewer, seat=t)
                               if got_cards is None else model.text(got_cards) or _("(none)"))
                        c.fail(key, _("sees[{viewer}][{seat}]: expected {expected}, got {got}").format(
                            viewer=viewer, seat=t, expected=expected, got=got), where)
                else:
                    got_n = info.get("count")
                    if got_n != v:
                        c.fail(key, _("sees_count[{viewer}][{t}]: expected {yaml}, got {yaml2}").format(
                            viewer=viewer, t=t, yaml=as_yaml(v), yaml2=as_yaml(got_n))
                             + (_(" (seat {t} holds {state} cards)").format(t=t, state=state.hand_size(t)) if got_n is None else ""), where)

def _expect_match_games(c: _GameCheck) -> None:
    """expect: match_games."""
    exp, graph = c.exp, c.graph
    if "match_games" in exp:
        got_m = match_length(graph)
        if got_m != exp["match_games"]:
            c.fail("match_games", ngettext("match_games: expected {exp}, the {name} match has {got_m} game",
                                         "match_games: expected {exp}, the {name} match has {got_m} games", got_m).format(
                exp=exp['match_games'], name=graph.name, got_m=got_m))

def _expect_legal(c: _GameCheck) -> None:
    """expect: legal, illegal."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    for key, should in (("legal", True), ("illegal", False)):
        items = exp.get(key) or []
        for i, line in enumerate(items):
            where = item_at(items, i)
            mv = parse_move(str(line), model, n, path=disp, line=where[0], col=where[1], words=choice_words(state.graph))
            trace: list[Any] = []
            ok = state.check(mv, trace)
            if ok != should:
                why = _forbade(trace, state)
                c.fail(key, _("{line!r} expected {expected}, but it is {got}").format(
                    line=line, expected=_("legal") if should else _("illegal"), got=_("legal") if ok else _("illegal"))
                     + (f" ({why})" if why else ""), where)

def _expect_explained_by(c: _GameCheck) -> None:
    """expect: explained_by."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    if "explained_by" in exp:
        eb = exp["explained_by"] or {}
        for line, ids in eb.items():
            where = key_at(eb, line)
            mv = parse_move(str(line), model, n, path=disp, line=where[0], col=where[1], words=choice_words(state.graph))
            ex = explain(state, mv)
            cited = ex.rule_ids
            missing = [r for r in ids if r not in cited]
            if missing:
                hint = "; ".join(filter(None, (did_you_mean(m, cited) for m in missing)))
                c.fail("explained_by", _("explained_by[{line!r}]: the explanation does not cite "
                     "{join}; it cites {join2}").format(line=line, join=', '.join(missing), join2=', '.join(cited)) + (f" ({hint})" if hint else ""),
                     value_at(eb, line))


_GAME_CHECKS = (_expect_outcome, _expect_results, _expect_hands, _expect_counts_shown, _expect_sees, _expect_match_games,
                _expect_legal, _expect_explained_by)
"""The checks of a game case's ``expect:``, in the order their failures are listed."""
