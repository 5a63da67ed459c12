"""The ``why`` answer from the asking seat's view (issue 27): which rules allow or forbid a move,
computed on the server without telling the seat what it may not see.

The explanation (:func:`gouji_dsl.engine.explain.explain`) runs on a copy of the game whose hands
*watch* every read: a read of the cards of a seat whose hand the asker may not see (the ruleset's
``see_hand`` rules: :meth:`GameState.view`), of the hand it was dealt, or of a card count the
asker may not see (``see_count``) is noted. A rule of the vocabulary reads a hand only through the
state's hands (``holds``, ``hand_size``, ``jokers_held``, ``dealt`` …: each reads ``hands[s]`` or
``dealt[s]``), so nothing the explanation learned from a hidden hand goes unnoticed; copies made on
the way (the burn look-ahead) watch too.

- No hidden read: the explanation depended only on what the seat sees (its hand, the counts and
  hands it is shown, the public table) — it *is* the explanation computed from its view, sent whole.
- The rules that decided the move read hidden cards: the move is legal or not as the server judges
  it (the only judge; sending the move would tell as much), but the reasons, the chain of facts and
  the warnings are **not** sent (which rule applied would tell what the hidden hand holds); the
  answer says so (``hidden``, code ``hidden``).
- Only the burn look-ahead read hidden cards (a ruleset whose ``burn_lead`` rules read other
  hands): the reasons and the chain are sent, the burn's outlook is not, and the answer says so.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from gouji_dsl.engine.interpreter import GameState

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.engine.explain import Explanation
    from gouji_dsl.engine.interpreter import Move


class _Watch:
    """What one ``why`` may not read, and what it read: ``cards`` (seats whose hand the asker may
    not see), ``counts`` (seats whose card count it may not see)."""

    def __init__(self, cards: frozenset[int], counts: frozenset[int], *, rules_only: bool = False) -> None:
        self.cards, self.counts = cards, counts
        self.reads: set[tuple[str, int]] = set()
        self.quiet = 0  # > 0: reads are not noted (a copy or a position key: not a rule reading)
        self.rules_only = rules_only  # note only the reads a rule makes (the look-ahead: see explain_for)

    def note(self, what: str, seat: Any) -> None:
        hidden = self.counts if what == "count" else self.cards
        if not self.quiet and isinstance(seat, int) and seat in hidden and (not self.rules_only or _in_a_rule()):
            self.reads.add((what, seat))


def _in_a_rule() -> bool:
    """A rule of the ruleset is being asked (a permit, value or trigger question is on the stack)."""
    from gouji_dsl.ruleset.graph import RuleGraph
    asking = {RuleGraph.permit.__code__, RuleGraph.value.__code__, RuleGraph.trigger.__code__}
    f = sys._getframe(2)
    while f is not None:
        if f.f_code in asking:
            return True
        f = f.f_back  # type: ignore[assignment]
    return False


class _Rows(list):  # type: ignore[type-arg]
    """A state's ``hands`` (or ``dealt``): per seat, noting the reads of hidden seats."""

    def __init__(self, rows: Any, watch: _Watch, what: str) -> None:
        super().__init__(rows)
        self.watch, self.what = watch, what

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, int):
            self.watch.note(self.what, i)
        else:
            for s in range(len(self))[i]:
                self.watch.note(self.what, s)
        return super().__getitem__(i)

    def __iter__(self) -> Iterator[Any]:
        for s in range(len(self)):
            self.watch.note(self.what, s)
        return super().__iter__()

    def raw(self, i: int) -> Any:
        return list.__getitem__(self, i)


class _Watched(GameState):
    """A game whose hands note the reads of what the asker may not see (see the module's docstring)."""

    _watch: _Watch

    @classmethod
    def of(cls, state: GameState, watch: _Watch) -> _Watched:
        watch.quiet += 1
        try:
            g = GameState.copy(state)
            g.hands = _Rows([list(h) for h in list.__iter__(state.hands)], watch, "cards")  # type: ignore[arg-type]
            g.dealt = _Rows(list(list.__iter__(state.dealt)), watch, "dealt")  # type: ignore[arg-type]
        finally:
            watch.quiet -= 1
        g.__class__ = cls
        g._watch = watch  # type: ignore[attr-defined]
        return g  # type: ignore[return-value]

    def copy(self) -> GameState:
        return _Watched.of(self, self._watch)

    def hand_size(self, s: int) -> int:
        self._watch.note("count", s)
        return sum(self.hands.raw(s))  # type: ignore[attr-defined]

    def position_key(self) -> tuple[Any, ...]:
        self._watch.quiet += 1  # (the look-ahead's transposition key: every hand, read by no rule)
        try:
            return super().position_key()
        finally:
            self._watch.quiet -= 1


def hidden_from(state: GameState, seat: int, *, rules_only: bool = False) -> _Watch:
    """What ``seat`` may not see of ``state`` now: the other seats whose hand (and whose count) its
    view does not show."""
    others = state.view(seat)["others"]
    cards = frozenset(t for t in state.seat_list if t != seat and "hand" not in others.get(str(t), {}))
    counts = frozenset(t for t in cards if "count" not in others.get(str(t), {}))
    return _Watch(cards, counts, rules_only=rules_only)


def explain_for(state: GameState, move: Move, seat: int) -> tuple[Explanation, list[str]]:
    """The explanation of ``move`` as ``seat`` may be told it, and what was left out of it because
    computing it read what the seat may not see (empty: it depended only on the seat's view):
    ``reasons`` (the check of the move read hidden cards: only the verdict is kept), ``chain`` (a
    fact of the situation did) or ``outlook`` (a rule asked in the burn look-ahead did: no burn
    warning). :func:`gouji_dsl.engine.explain.explain`'s three parts, each on its own watched copy.
    The look-ahead plays on past the burn's fate (the next leader's plays are listed when a burn
    fails): those reads are the engine's, not a rule's, and decide nothing it reports."""
    from gouji_dsl.engine.explain import Because, Explanation, burn_outlook, flag_facts, situation, with_settings
    from gouji_dsl.ruleset.graph import Reason
    left: list[str] = []
    w = hidden_from(state, seat)
    trace: list[Reason] = []
    legal = _Watched.of(state, w).check(move, trace)
    if w.reads:  # the verdict came from hidden cards: say it (the move itself would tell it), not why
        trace, left = [], ["reasons"]
    deciding = [r for r in trace if r.verdict == ("allowed" if legal else "forbade")]
    trace += with_settings(state.graph, deciding)[len(deciding):]
    w = hidden_from(state, seat)
    g = _Watched.of(state, w)
    chain = situation(g) + flag_facts(g, trace, [move.seat] + ([state.top.seat] if state.top is not None else []))
    if w.reads:
        chain, left = [], left + ["chain"]
    warnings: list[Because] = []
    undecided = ""
    if legal:
        w = hidden_from(state, seat, rules_only=True)
        warnings, undecided = burn_outlook(_Watched.of(state, w), move)
        if w.reads:
            warnings, undecided, left = [], "", left + ["outlook"]
    return Explanation(move.text(state.model), legal, trace, chain, warnings, undecided), left


__all__ = ["explain_for", "hidden_from"]
