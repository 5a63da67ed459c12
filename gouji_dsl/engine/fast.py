"""The fast path: games played by the native core (:mod:`gouji_dsl.engine.native`) on the
interpreter's states.

The interpreter (:mod:`.interpreter`) is the reference semantics and the fallback; an
:class:`Engine` plays the same games (same seed → same moves, places, scores and events:
``tests/test_differential.py``) with the play phase of its random and heuristic bots in the native
core (:func:`gouji_dsl.engine.native.flow.run`, one crossing per play phase). The deal, the setup
and the moves of every other bot are the interpreter's. Use it to simulate many games, or to play
a game out from any state with any bot policy (rollouts for search bots)::

    from gouji_dsl.bots.heuristic import random_policies
    from gouji_dsl.engine import fast
    eng = fast.engine(graph)                       # None when the native core does not play the ruleset
    state = eng.new_game("seed-1")                 # a GameState (the interpreter's own class)
    out = eng.play_out(state, random_policies("seed-1"))   # plays it to the end, in place
    out.places, out.scores, out.decisions

    # from any state (e.g. a determinized deal): copy it, then play out with any policy
    out = eng.play_out(state.copy(), {1: my_bot, 2: lambda st, moves: moves[0], ...})

    # a batch of rollouts from one state, summaries only
    outs = eng.rollouts(state, 100, lambda i: random_policies(f"r{i}"))

A *policy* is a bot (an object with ``choose(state, moves) -> Move``, as in :mod:`gouji_dsl.bots`) or a
callable ``(state, moves) -> Move``. A bot whose ``index_rng()`` gives a generator (a
:class:`~gouji_dsl.bots.heuristic.RandomBot`) is played without building moves (it draws the same
indices from its generator as it would otherwise), the heuristic bot by the core's copy of it
(its ``native_policy``). Every other policy is given the :class:`GameState` and the interpreter's
legal moves, in the interpreter's order. States the play-out leaves are ordinary GameStates: the
interpreter can explain, check or continue them. Their ``record`` holds compact entries until
:meth:`Engine.render_record` turns them into the interpreter's event dicts.
"""
from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import GameState, Move, game_seed, new_game, next_game
from gouji_dsl.engine.native import flow, heuristic
from gouji_dsl.engine.native.record import render_record
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph

Policy = Any  # a bot (choose(state, moves)) or a callable (state, moves) -> Move

ENGINES = ("native", "interpreter")
"""The engines ``gouji simulate --engine`` offers; ``native`` falls back to the interpreter
(visibly) for a ruleset the native core does not play (``generated``, its name before, is read as
``native``)."""


@dataclass(frozen=True)
class PlayoutResult:
    """What a play-out ended with: places and scores per seat, sweep, play-phase decisions,
    tricks, and the moves made by this play-out (``steps``)."""

    places: dict[int, int]
    scores: dict[int, int | float]
    sweep: bool
    decisions: int
    tricks: int
    steps: int

    @property
    def team_scores(self) -> dict[int, int | float]:
        """Score per seat is the team's score in every bundled ruleset; here per seat as given."""
        return dict(self.scores)


class Engine:
    """The native engine of one ruleset. Build with :func:`engine`; ``Engine(graph, None)`` plays
    every move on the interpreter (the reference, with this API: the differential tests)."""

    def __init__(self, graph: RuleGraph, plan: Any):
        self.graph = graph
        self.plan = plan
        self.native_fallback: str | None = None
        """Why the random bots' play phase is not played by the native core (None: it is)."""

    # ---------------------------------------------------------------- games
    def new_game(self, seed: Any = None, *, hands: dict[int, list[Any]] | None = None, leader: int | None = None,
                 game_number: int = 1) -> GameState:
        """:func:`~gouji_dsl.engine.interpreter.new_game` (a seat that does not exist, in ``hands``
        or as ``leader``, is refused: ``BadSeat``)."""
        return new_game(self.graph, seed, hands=hands, leader=leader, game_number=game_number)

    def next_game(self, state: GameState, seed: Any = None, *, hands: dict[int, list[Any]] | None = None) -> GameState:
        """:func:`~gouji_dsl.engine.interpreter.next_game`: the next game of a match."""
        return next_game(state, seed, hands=hands)

    def legal_moves(self, state: GameState) -> Sequence[Move]:
        """The legal moves of the seat to act (the interpreter's moves, in its order)."""
        return state.legal_moves()

    def apply(self, state: GameState, move: Move, *, trusted: bool = False) -> None:
        """Apply ``move`` to ``state`` in place, as the interpreter's ``apply_in_place``: an illegal
        move raises :class:`~gouji_dsl.engine.interpreter.IllegalMove` (the state unchanged);
        ``trusted=True`` skips the check, only for a move just taken from :meth:`legal_moves` of
        this very state (search bots' tree walks)."""
        state.apply_in_place(move, trusted=trusted)

    def play_out(self, state: GameState, policies: Policy | Mapping[int, Policy] | Sequence[Policy], *,
                 max_decisions: int = 100_000) -> PlayoutResult:
        """Play ``state`` to the end, in place (copy it first to keep it: ``state.copy()``).
        ``policies``: one policy for every seat, a seat → policy mapping, or a sequence (seat 1
        first). Raises RuntimeError past ``max_decisions`` moves, IllegalMove if a policy answers
        an illegal move."""
        pickers, choosers = _split(policies, self.graph.n_seats)
        steps = self._play(state, pickers, choosers, max_decisions)
        return PlayoutResult(dict(state.places), dict(state.scores), bool(state.sweep), state.decisions,
                             state.trick_no, steps)

    def _play(self, S: GameState, pickers: dict[int, Callable[[int], int]], choosers: dict[int, Callable[..., Move]],
              max_decisions: int) -> int:
        """Play ``S`` to its end: the play phase of the random bots (``pickers``) and of the bots the
        core plays in the core, every other move on the interpreter (a random bot's drawn as
        ``random.Random.randrange`` draws it, the others asked ``choose(state, moves)``)."""
        plan = self.plan
        native = self._native_seats(choosers) if choosers and plan is not None else {}
        steps = 0
        while S.phase != "over":
            seat = S.to_act
            if seat is None:
                raise RuntimeError(f"nobody is to act (phase {S.phase})")
            pick = pickers.get(seat)
            if S.phase == "play" and plan is not None and (pick is not None or seat in native):
                before = steps
                steps = flow.run(plan, S, pickers, steps, max_decisions, native)
                if steps > max_decisions:
                    raise RuntimeError(f"the game did not end after {max_decisions} decisions")
                if steps != before or pick is not None:
                    continue
                # (the native core did not move this seat: its bot chooses here)
            _step(S, seat, pick, choosers)
            steps += 1
            if steps > max_decisions:
                raise RuntimeError(f"the game did not end after {max_decisions} decisions")
        return steps

    def _native_seats(self, choosers: dict[int, Any]) -> dict[int, Any]:
        """The seats whose bot the core plays (the heuristic bot's native policy; all of one policy)."""
        found = heuristic.seats(choosers, self.graph.n_seats)
        if not found:
            return found
        pol = next(iter(found.values()))
        if heuristic.fallback_reason(self.plan, pol) is not None:
            return {}
        return {s: p for s, p in found.items() if p == pol}

    def heuristic_scores(self, state: GameState, bot: Any, *, max_decisions: int = 100_000) -> Mapping[int, int | float]:
        """The final scores of a play-out of ``state`` with ``bot`` (a heuristic bot the native
        core plays: its ``native_policy``) at every seat: what ``play_out(state, bot).scores``
        gives, without unpacking the game into ``state`` where the core plays it whole (a search
        bot's rollout needs only the scores). ``state`` is used up: it is left as it was or played
        to its end."""
        pol = getattr(bot, "native_policy", None)
        if pol is not None and self.plan is not None:
            got = flow.heuristic_scores(self.plan, state, pol, max_decisions)
            if got is not None:
                return got
        return self.play_out(state, bot, max_decisions=max_decisions).scores

    def rollouts(self, state: GameState, n: int, policies: Callable[[int], Policy | Mapping[int, Policy]], *,
                 max_decisions: int = 100_000) -> list[PlayoutResult]:
        """``n`` play-outs of copies of ``state`` (``state`` is untouched); ``policies(i)`` gives
        the policies of play-out ``i``. Only the summaries are kept."""
        out = []
        for i in range(n):
            s = state.copy()
            out.append(self.play_out(s, policies(i), max_decisions=max_decisions))
        return out

    def render_record(self, state: GameState) -> list[dict[str, Any]]:
        """The state's record as the interpreter's event dicts (compact entries rendered, in place)."""
        return render_record(state)

    def play_game(self, seed: Any, index: int, bots: Sequence[Any], *, previous: GameState | None = None,
                  game_number: int = 1, max_decisions: int = 100_000) -> GameState:
        """Deal game ``index`` of run ``seed`` (as ``tools.simulate.play_game`` does: the deal from
        :func:`~gouji_dsl.engine.interpreter.game_seed`) and let ``bots`` (one per seat) play it out."""
        if previous is not None:
            state = self.next_game(previous, game_seed(seed, index))
        else:
            state = self.new_game(game_seed(seed, index), game_number=game_number)
        pickers, choosers = _split(list(bots), self.graph.n_seats)
        self._play(state, pickers, choosers, max_decisions)
        return state


def _step(S: GameState, seat: int, pick: Callable[[int], int] | None, choosers: dict[int, Callable[..., Move]]) -> None:
    """One move on the interpreter: a random bot's drawn as ``random.Random.randrange`` draws it,
    another bot's asked ``choose(state, moves)`` (a move not among them is checked: IllegalMove)."""
    moves = S.legal_moves()
    if not moves:
        raise RuntimeError(f"seat {seat} has no legal move (phase {S.phase})")
    if pick is not None:
        n = len(moves)
        k = n.bit_length()
        i = pick(k)
        while i >= n:
            i = pick(k)
        S.apply_in_place(moves[i], trusted=True)
        return
    chooser = choosers.get(seat)
    if chooser is None:
        raise RuntimeError(f"no bot for seat {seat}")
    choice = chooser(S, moves)  # (bots read the state; one that changed it would be wrong anyway)
    S.apply_in_place(choice, trusted=choice in moves)


def _native_random_type() -> Any:
    """The native core's generator type (None where the core is not built): a random bot may draw
    from one (:func:`gouji_dsl.tools.simulate.bot_rng`), and the native flow then draws from it with no copy."""
    return native._core.Random if native._core is not None else None


def _split(policies: Any, n: int) -> tuple[dict[int, Callable[[int], int]], dict[int, Callable[..., Move]]]:
    """Random bots (played by index) and the other policies (asked with moves), by seat."""
    if isinstance(policies, Mapping):
        by_seat = dict(policies)
    elif isinstance(policies, Sequence) and not isinstance(policies, str):
        by_seat = {i + 1: p for i, p in enumerate(policies)}
    else:
        by_seat = {s: policies for s in range(1, n + 1)}
    pickers: dict[int, Callable[[int], int]] = {}
    choosers: dict[int, Callable[..., Move]] = {}
    for seat, p in by_seat.items():
        rng = p.index_rng() if hasattr(p, "index_rng") else None  # a bot that only draws move indices (RandomBot)
        if rng is not None and (type(rng) is random.Random or type(rng) is _native_random_type()):
            pickers[seat] = rng.getrandbits  # indices drawn as randrange draws them
        elif hasattr(p, "choose"):
            choosers[seat] = p.choose
        elif callable(p):
            choosers[seat] = p
        else:
            raise TypeError(_("seat {seat}: a policy is a bot (choose(state, moves)) or a callable, not {p!r}").format(seat=seat, p=p))
    return pickers, choosers


# ------------------------------------------------------------------------------ engine lookup
_engines: dict[int, tuple[RuleGraph, Engine]] = {}
_lock = threading.Lock()


def engine(graph: RuleGraph) -> Engine | None:
    """The native engine of ``graph`` (kept per graph object), or None when the native core does
    not play it (:func:`fallback_reason` says why: the interpreter plays it then)."""
    with _lock:
        got = _engines.get(id(graph))
    if got is not None and got[0] is graph:
        return got[1]
    if flow.fallback_reason(graph) is not None:
        return None
    eng = Engine(graph, flow.flow_plan(graph))
    with _lock:
        _engines[id(graph)] = (graph, eng)
        while len(_engines) > 64:
            _engines.pop(next(iter(_engines)))
    return eng


def fallback_reason(graph: RuleGraph) -> str | None:
    """Why ``graph`` is played by the interpreter (None: the native engine plays it)."""
    return flow.fallback_reason(graph)


def walker(graph: RuleGraph) -> Any:
    """What search bots' tree walks list and make moves with: the generated play-out module of
    ``graph`` (its ``legal_moves(state)`` and ``apply_move(state, move)``: the interpreter's moves
    in its order, applied as ``apply_in_place(move, trusted=True)`` applies them), or None where the
    generator does not handle the ruleset (the interpreter then). The last use of the generated
    play-out: the native core has no entry point that lists a state's moves yet, and the
    interpreter's legal moves make an ISMCTS decision ~1.7× as costly (README, issue 24)."""
    from gouji_dsl.engine import codegen
    try:
        return codegen.load(graph).module
    except codegen.Unsupported:
        return None


def record_facts(record: Iterable[Any]) -> tuple[int | None, int, int]:
    """``(first leader, revolutions, redeals)`` from a record of event dicts or compact entries.

    Revolutions and redeals happen in the setup, before the play starts with the first leader's
    event (``_start_play``), so the scan stops there: a game's play (most of its record) is not read."""
    first = None
    revolutions = redeals = 0
    for e in record:
        kind = e["type"] if isinstance(e, dict) else e[0]
        if kind == "first_leader":
            first = e["seat"] if isinstance(e, dict) else e[1]
            break
        if kind == "revolution":
            revolutions += 1
        elif kind == "redeal":
            redeals += 1
    return first, revolutions, redeals
