"""Fast play-out: play games with the generated module of a ruleset (see :mod:`.codegen`).

The interpreter (:mod:`.interpreter`) is the reference semantics; the generated module plays the
same games (same seed → same moves, places, scores and events: ``tests/test_differential.py``)
several times faster. Use it to simulate many games, or to play a game out from any state with any
bot policy (rollouts for search bots)::

    from gouji_dsl.bots.heuristic import random_policies
    from gouji_dsl.engine import fast
    eng = fast.engine(graph)                       # None when the generator does not handle the ruleset
    state = eng.new_game("seed-1")                 # a GameState (the interpreter's own class)
    out = eng.play_out(state, random_policies("seed-1"))   # plays it to the end, in place
    out.places, out.scores, out.decisions

    # from any state (e.g. a determinized deal): copy it, then play out with any policy
    out = eng.play_out(state.copy(), {1: my_bot, 2: lambda st, moves: moves[0], ...})

    # a batch of rollouts from one state, summaries only
    outs = eng.rollouts(state, 100, lambda i: random_policies(f"r{i}"))

A *policy* is a bot (an object with ``choose(state, moves) -> Move``, as in :mod:`gouji_dsl.bots`) or a
callable ``(state, moves) -> Move``. A bot whose ``index_rng()`` gives a generator (a
:class:`~gouji_dsl.bots.heuristic.RandomBot`) is played without building moves (it draws the same indices from its generator as it would
otherwise). Every other policy is given the :class:`GameState` and the interpreter's legal moves,
in the interpreter's order. States the play-out leaves are ordinary GameStates: the interpreter
can explain, check or continue them. Their ``record`` holds compact entries until
:meth:`Engine.render_record` turns them into the interpreter's event dicts.
"""
from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import GameState, Move, PrevGame, check_seats, game_seed
from gouji_dsl.engine.native import flow
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph

Policy = Any  # a bot (choose(state, moves)) or a callable (state, moves) -> Move

ENGINES = ("generated", "interpreter")
"""The engines ``gouji simulate --engine`` offers; ``generated`` falls back to the interpreter
(visibly) for a ruleset the generator does not handle."""


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
    """The generated play-out engine of one ruleset. Build with :func:`engine`."""

    def __init__(self, graph: RuleGraph, generated: Any):
        self.graph = graph
        self.generated = generated
        self.module = generated.module
        self.hash: str = generated.hash
        self.native_fallback: str | None = _install_native(generated.module, graph)
        """Why the random bots' play phase is not played by the native core (None: it is)."""
        self._plan: Any = None  # (the native flow plan, for heuristic_scores)

    @property
    def source(self) -> str:
        """The generated module's source (``gouji show RULESET --generated``)."""
        return str(self.generated.source)

    # ---------------------------------------------------------------- games
    def new_game(self, seed: Any = None, *, hands: dict[int, list[Any]] | None = None, leader: int | None = None,
                 game_number: int = 1) -> GameState:
        """As :func:`~gouji_dsl.engine.interpreter.new_game`: the same deal and setup (a seat that
        does not exist, in ``hands`` or as ``leader``, is refused the same way: ``BadSeat``)."""
        check_seats(self.graph.n_seats, hands, leader)
        return self.module.new_state(seed, hands=hands, leader=leader, game_number=game_number)  # type: ignore[no-any-return]

    def next_game(self, state: GameState, seed: Any = None, *, hands: dict[int, list[Any]] | None = None) -> GameState:
        """As :func:`~gouji_dsl.engine.interpreter.next_game`: the next game of a match."""
        check_seats(self.graph.n_seats, hands, None)
        prev: PrevGame = state.summary()
        return self.module.new_state(seed, hands=hands, game_number=state.game_number + 1, prev=prev)  # type: ignore[no-any-return]

    def legal_moves(self, state: GameState) -> Sequence[Move]:
        """The legal moves of the seat to act (the interpreter's moves, in its order)."""
        return self.module.legal_moves(state)  # type: ignore[no-any-return]

    def apply(self, state: GameState, move: Move, *, trusted: bool = False) -> None:
        """Apply ``move`` to ``state`` in place. As the interpreter's ``apply_in_place``: an illegal
        move raises :class:`~gouji_dsl.engine.interpreter.IllegalMove` (the state unchanged), checked
        by the interpreter; ``trusted=True`` skips the check, only for a move just taken from
        :meth:`legal_moves` of this very state (search bots' tree walks)."""
        if not trusted:
            state.require_legal(move)
        self.module.apply_move(state, move)

    def play_out(self, state: GameState, policies: Policy | Mapping[int, Policy] | Sequence[Policy], *,
                 max_decisions: int = 100_000) -> PlayoutResult:
        """Play ``state`` to the end, in place (copy it first to keep it: ``state.copy()``).
        ``policies``: one policy for every seat, a seat → policy mapping, or a sequence (seat 1
        first). Raises RuntimeError past ``max_decisions`` moves, IllegalMove if a policy answers
        an illegal move."""
        pickers, choosers = _split(policies, self.graph.n_seats)
        steps = self.module.play_out(state, pickers, choosers, max_decisions)
        return PlayoutResult(dict(state.places), dict(state.scores), bool(state.sweep), state.decisions,
                             state.trick_no, steps)

    def heuristic_scores(self, state: GameState, bot: Any, *, max_decisions: int = 100_000) -> Mapping[int, int | float]:
        """The final scores of a play-out of ``state`` with ``bot`` (a heuristic bot the native
        core plays: its ``native_policy``) at every seat: what ``play_out(state, bot).scores``
        gives, without unpacking the game into ``state`` where the core plays it whole (a search
        bot's rollout needs only the scores). ``state`` is used up: it is left as it was or played
        to its end."""
        pol = getattr(bot, "native_policy", None)
        if pol is not None and self.native_fallback is None:
            plan = self._plan
            if plan is None:
                plan = self._plan = flow.flow_plan(self.graph)
            got = flow.heuristic_scores(plan, state, pol, max_decisions)
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
        return self.module.render_record(state)  # type: ignore[no-any-return]

    def play_game(self, seed: Any, index: int, bots: Sequence[Any], *, previous: GameState | None = None,
                  game_number: int = 1, max_decisions: int = 100_000) -> GameState:
        """Deal game ``index`` of run ``seed`` (as ``tools.simulate.play_game`` does: the deal from
        :func:`~gouji_dsl.engine.interpreter.game_seed`) and let ``bots`` (one per seat) play it out."""
        if previous is not None:
            state = self.next_game(previous, game_seed(seed, index))
        else:
            state = self.new_game(game_seed(seed, index), game_number=game_number)
        pickers, choosers = _split(list(bots), self.graph.n_seats)
        self.module.play_out(state, pickers, choosers, max_decisions)
        return state


def _install_native(module: Any, graph: RuleGraph) -> str | None:
    """Let the native core play the play phase of random bots for ``module`` (the generated
    module of ``graph``) where it plays the ruleset (:mod:`gouji_dsl.engine.native.flow`); why not."""
    try:
        return flow.install(module, graph)
    except Exception as e:  # (a core that cannot load a program: the generated module plays, visibly)
        return _("the native game flow could not be loaded ({type}: {e})").format(type=type(e).__name__, e=e)


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
_reasons: dict[int, tuple[RuleGraph, str]] = {}
_lock = threading.Lock()


def engine(graph: RuleGraph) -> Engine | None:
    """The generated engine of ``graph``, or None when the generator does not handle it
    (:func:`fallback_reason` says why)."""
    from gouji_dsl.engine import codegen
    try:
        return Engine(graph, codegen.load(graph))
    except codegen.Unsupported as e:
        with _lock:
            _reasons[id(graph)] = (graph, str(e))
        return None


def fallback_reason(graph: RuleGraph) -> str | None:
    """Why ``graph`` is played by the interpreter (None: the generated engine plays it)."""
    if engine(graph) is not None:
        return None
    got = _reasons.get(id(graph))
    return got[1] if got and got[0] is graph else _("not handled by the generator")


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
