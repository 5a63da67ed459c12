"""``gouji show RULESET --explain MOVE``: the explanation chain of one move (the same
:func:`gouji_dsl.engine.explain.explain` the play screen shows), in a position given by a deal
(``--deal SEAT=CARDS`` for every seat, else the deal of ``--seed``), a first leader and the moves
played before it (``--after MOVE``, in NOTATION.md's move notation)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, SourcePos
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import choice_words, hands_from_text, new_game, parse_move, read_seat
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.game.terms import Phase, Verb
from gouji_dsl.ruleset.graph import RuleGraph, Verdict


def _error(where: str, text: str, message: str, hint: str | None, code: Code, line: int = 1) -> GoujiError:
    """An error in the ``line``-th use of option ``where`` (its text shown with a caret)."""
    return GoujiError([Diagnostic.at(SourcePos(where, line, 1), message, hint=hint, code=code, source_line=text)])


def _hands(graph: RuleGraph, deal: Sequence[str]) -> dict[int, list[Any]] | None:
    if not deal:
        return None
    given: dict[Any, str] = {}
    for n, item in enumerate(deal, 1):
        seat_text, sep, cards = item.partition("=")
        seat = read_seat(seat_text)  # the reader of a move's seat (--explain, --after): digits 0-9 only
        if not sep or seat is None or not 1 <= seat <= graph.n_seats:
            raise _error("--deal", item, _("a hand is SEAT=CARDS with a seat 1..{n_seats} written in digits 0-9").format(n_seats=graph.n_seats),
                         _('e.g. --deal "1=KK 33" --deal "2=AA" ... (one per seat)'), Code.BAD_SEAT, n)
        if seat in given:
            raise _error("--deal", item, _("seat {seat} is given twice").format(seat=seat), _("give each seat's hand once"), Code.SCENARIO_VALUE, n)
        given[seat] = cards
    missing = [s for s in range(1, graph.n_seats + 1) if s not in given]
    if missing:
        raise _error("--deal", " ".join(deal), _("every seat is given its hand; missing seat(s) ") + ", ".join(map(str, missing)),
                     _('write "SEAT=" for an empty hand'), Code.SCENARIO_VALUE)
    hands: dict[int, list[Any]] = {}
    total = [0] * len(graph.model.kinds)
    for s, text in given.items():
        hands[s] = hands_from_text(graph, {s: text}, path=f"--deal {s}", line=1, col=1)[s]
        for c in hands[s]:
            total[graph.model.kinds.index(c.symbol)] += 1
    for i, count in enumerate(total):
        if count > graph.model.deck_counts[i]:
            raise _error("--deal", " ".join(deal), _("{count} cards {kind!r} dealt, but the "
                         "{name} pack has only {has}").format(count=count, kind=graph.model.kinds[i], name=graph.name,
                                                             has=graph.model.deck_counts[i]),
                         _("deal each card at most as often as the pack has it"),
                         Code.SCENARIO_VALUE)
    return hands


def explain_text(graph: RuleGraph, move: str, *, deal: Sequence[str] = (), after: Sequence[str] = (),
                 leader: int | None = None, seed: int | str = 0) -> str:
    """The explanation of ``move`` after the moves ``after``, in words (``Explanation.format()``).
    Raises :class:`GoujiError` (positioned in the option's text) for a bad deal, seat, move, or a
    move of ``after`` that is illegal. The setup questions (revolution, the point) are declined
    unless a move of ``after`` or ``move`` itself answers one, as in a scenario file."""
    if leader is not None and not 1 <= leader <= graph.n_seats:
        raise _error("--leader", str(leader), _("the leader is a seat 1..{n_seats}").format(
            n_seats=graph.n_seats), _("give a seat number such as --leader 1"),
                     Code.BAD_SEAT)
    state = new_game(graph, seed, hands=_hands(graph, deal), leader=leader)
    moves = [parse_move(text, graph.model, graph.n_seats, path="--after", words=choice_words(graph)) for text in after]
    target = parse_move(move, graph.model, graph.n_seats, path="--explain", words=choice_words(graph))
    setup_verbs = {Verb.REVOLT, Verb.DECLARE, Verb.CHOOSE}
    if Phase(state.phase).before_play and not any(m.verb in setup_verbs for m in [*moves, target]):
        state.decline_setup()
    for n, (text, mv) in enumerate(zip(after, moves), 1):
        trace: list[Any] = []
        if not state.check(mv, trace):
            why = "; ".join(f"{r.rule_id}: {r.text}" for r in trace if r.verdict == Verdict.FORBADE) or _("illegal")
            raise _error("--after", text, _("{text!r} is illegal here: {why}").format(text=text, why=why),
                         _("the moves before the explained one must be legal, in turn order"), Code.SCENARIO_FAILED, n)
        state.apply_in_place(mv)
    return explain(state, target).format()
