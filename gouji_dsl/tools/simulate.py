"""Play whole games with bots: one game (:func:`play_game`) or many (:func:`simulate`).

Determinism: game ``i`` of a run with seed ``S`` deals from ``random.Random(f"{S}:{i}")``
(string seeds hash the same on every machine) and each seat's bot draws from its own generator
seeded ``f"{S}:{i}:bot{seat}"``; the same ruleset, seed and bots give the same record, byte for byte.
"""
from __future__ import annotations

import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from gouji_dsl.bots import is_outside, make_bot
from gouji_dsl.bots.outside import BotFailed
from gouji_dsl.engine import fast
from gouji_dsl.engine.interpreter import GameState, _num, game_seed, match_length, new_game, next_game
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleFailed, RuleGraph
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, Engine


@dataclass
class GameResult:
    """Outcome of one game: places and scores per seat, counts, and the full record."""

    seed: str
    places: dict[int, int]
    scores: dict[int, int | float]
    sweep: bool
    decisions: int
    tricks: int
    first_leader: int | None
    burns: list[dict[str, Any]]
    revolutions: int
    redeals: int
    record: list[dict[str, Any]] = field(repr=False, default_factory=list)


def bot_rng(seed: Any, index: int, seat: int, *, native: bool = False) -> random.Random:
    """The generator of seat ``seat``'s bot in game ``index`` of run ``seed``. With ``native`` (a
    random bot's), the native core's generator in the same state where the core is built: the same
    draws (getrandbits, randrange), and the native game flow draws from it without copying it."""
    key = f"{seed}:{index}:bot{seat}"
    if native:
        from gouji_dsl.engine import native as core
        if core.available():
            return cast(random.Random, core.new_random(key))
    return random.Random(key)


def _players(names: list[str], seed: Any, index: int, think_ms: float | None) -> dict[int, Any]:
    """The bots of game ``index``, one per seat: :func:`bot_rng`'s generators (a random bot's the
    native core's where it is built), the core looked up once per game, not once per seat."""
    from gouji_dsl.engine import native as core
    native = core._core.Random if core._core is not None and core.available() else None
    out: dict[int, Any] = {}
    for s, name in enumerate(names, start=1):
        key = f"{seed}:{index}:bot{s}"
        rng = native(text=key.encode()) if native is not None and name == "random" else random.Random(key)
        out[s] = make_bot(name, rng, think_ms=think_ms)
    return out


def play_game(graph: RuleGraph, seed: Any, index: int = 0, bots: str | list[str] = "random",
              max_decisions: int = 100_000, game_number: int = 1,
              previous: GameState | None = None, engine: str = DEFAULT_ENGINE,
              record: bool = True, *, think_ms: float | None = None,
              players: dict[int, Any] | None = None) -> tuple[GameResult, GameState]:
    """Deal game ``index`` of run ``seed`` and let bots play it to the end.

    Every simulated game (``gouji simulate``, ``gouji diff --simulate``, ``gouji duel``, the compare
    screen, run chunks on any executor) is played here. ``bots`` is one bot spec for every seat or
    one per seat (:func:`gouji_dsl.bots.make_bot`); ``think_ms`` gives search bots a time budget per
    decision; ``players`` (seat → bot) uses bots already built instead. With ``previous`` (the last
    game of the same match) the new game starts with the between-game phase (tribute, returns).
    ``engine``: :class:`Engine` — the native core (:mod:`gouji_dsl.engine.fast`; the same games,
    faster; the interpreter plays a ruleset it does not play) or the reference interpreter.
    ``record``: keep the game's events in the result (without, the native core's entries are left
    unrendered and the result's ``record`` empty).
    Raises RuntimeError if the game does not end within ``max_decisions`` (a ruleset with no way out),
    and :class:`RuleFailed` naming the game and decision (``in game SEED:INDEX, decision D: ...``)
    when a rule fails while the game runs — the same on both engines: a failure in the native
    core is played again by the interpreter alone, which counts the decisions."""
    n = graph.n_seats
    own_players = players is None
    names = [bots] * n if isinstance(bots, str) else list(bots)
    if players is None:
        players = _players(names, seed, index, think_ms)
    if Engine(engine) is Engine.NATIVE:
        eng = fast.engine(graph)
        if eng is not None:
            try:
                fs = eng.play_game(seed, index, [players[s] for s in range(1, n + 1)], previous=previous,
                                   game_number=game_number, max_decisions=max_decisions)
            except RuleFailed as failed:
                if not own_players:
                    raise
                # the same game again on the interpreter, with fresh bots: it fails at the same rule
                # and knows the decision (were it not to fail, the native engine's error stands)
                play_game(graph, seed, index, bots, max_decisions, game_number, previous,
                          Engine.INTERPRETER.value, record, think_ms=think_ms)
                raise failed from None
            except BotFailed as e:  # the user's bot: one error type on every command, naming the game
                raise e.in_game(seed, index) from None
            except RuntimeError as e:
                raise RuntimeError(_("game {seed}:{index}: {e}").format(seed=seed, index=index, e=e)) from None
            first, revolutions, redeals = fast.record_facts(fs.record)
            return GameResult(seed=f"{seed}:{index}", places=dict(fs.places), scores=dict(fs.scores),
                              sweep=fs.sweep, decisions=fs.decisions, tricks=fs.trick_no, first_leader=first,
                              burns=[dict(b) for b in fs.burns], revolutions=revolutions, redeals=redeals,
                              record=eng.render_record(fs) if record else []), fs
    steps = 0
    try:
        if previous is not None:
            state = next_game(previous, game_seed(seed, index))
        else:
            state = new_game(graph, game_seed(seed, index), game_number=game_number)
        while not state.over:
            moves = state.legal_moves()
            seat = state.to_act
            if not moves or seat is None:
                raise RuntimeError(_("seat {seat} has no legal move (phase {phase})").format(seat=seat, phase=state.phase))
            choice = players[seat].choose(state, moves)
            state.apply_in_place(choice, trusted=choice in moves)
            steps += 1
            if steps > max_decisions:
                raise RuntimeError(_("game {seed}:{index} did not end after {max_decisions} decisions").format(
                    seed=seed, index=index, max_decisions=max_decisions))
    except BotFailed as e:
        raise e.in_game(seed, index) from None
    except RuleFailed as e:
        # decision N: the failure came while the game reached or made its N-th decision
        raise RuleFailed(e.rule_id, e.pos, _("in game {seed}:{index}, decision {steps}: {reason}").format(
            seed=seed, index=index, steps=steps + 1, reason=e.reason), e.where,
                         e.diagnostics[0].source_line, e.hint) from None
    first = next((e["seat"] for e in state.record if e["type"] == "first_leader"), None)
    res = GameResult(seed=f"{seed}:{index}", places=dict(state.places), scores=dict(state.scores),
                     sweep=state.sweep, decisions=state.decisions, tricks=state.trick_no, first_leader=first,
                     burns=[dict(b) for b in state.burns],
                     revolutions=sum(1 for e in state.record if e["type"] == "revolution"),
                     redeals=sum(1 for e in state.record if e["type"] == "redeal"),
                     record=state.record)
    return res, state


def native_games(graph: RuleGraph, seed: Any, start: int, stop: int, bots: str | list[str] = "random",
                 engine: str = DEFAULT_ENGINE, max_decisions: int = 100_000, match_games: int = 1) -> list[Any] | None:
    """Games ``start .. stop - 1`` of run ``seed`` played whole in the native core (random and
    heuristic bots, :data:`BATCH_BOTS`), one crossing for them all (issue 24:
    ``native.flow.play_games``), as :class:`~gouji_dsl.tools.figures.GameSummary` — the same
    figures :func:`play_game` gives, and each game's design metrics' facts (``design``: what
    :func:`~gouji_dsl.tools.design.play_probed` sees). ``match_games`` > 1: the games are chained into matches of
    that many (game ``i`` follows game ``i - 1`` unless ``i % match_games == 0``: tribute and
    returns between them, as :func:`play_game` with ``previous`` plays them); else each starts a
    match. None in a game's place where the core left it to Python (a later game of a match is
    None when the game before it is: play the match from its first game with :func:`play_game`);
    None instead of the list where the core does not play these games (other bots, the
    interpreter, a ruleset it refuses: :func:`engine_summary` says why)."""
    from gouji_dsl.tools.figures import Design, GameSummary
    names = [bots] * graph.n_seats if isinstance(bots, str) else list(bots)
    if Engine(engine) is not Engine.NATIVE or any(b not in BATCH_BOTS for b in names):
        return None
    from gouji_dsl.engine.native import Unsupported, flow
    if fast.engine(graph) is None:
        return None
    try:
        plan = flow.flow_plan(graph)
        if plan.games_fallback is not None or (match_games > 1 and _match_fallback(plan, names) is not None):
            return None
        heur, seats, thresholds = _batch_heuristic(plan, names)
        got = flow.play_games(plan, seed, start, stop - start, max_decisions, heur, seats, thresholds, teams(graph),
                              match_games)
    except Unsupported:
        return None
    n = graph.n_seats
    p = 10  # (batch.h BR_PLACES)
    d = p + 2 * n  # (BR_DESIGN: flow.DESIGN_WORDS)
    return [None if w is None else GameSummary(
        index=start + i, places=tuple(w[p:p + n]), scores=_scores(w, n), sweep=bool(w[7]), decisions=w[1],
        tricks=w[2], first_leader=w[3] or None, burn_attempts=w[4], burn_successes=w[5], burn_failures=w[6],
        revolutions=w[8], redeals=w[9], design=Design(*w[d:d + 5])) for i, w in enumerate(got)]


def _scores(w: Any, n: int) -> tuple[int, ...]:
    """The scores of seats 1..n in a game's result words (native.flow.play_games): whole numbers, or
    where a rule divides the double the core computed (a quotient of two whole numbers: finite; its
    bits after the design words, batch.h BR_FLOATS), rounded as the interpreter rounds a score
    (``_num``), then taken as a whole number as ``tools.figures.summarize_game`` takes every score."""
    at = 10 + 2 * n + 5  # (batch.h BR_FLOATS: BR_PLACES, the places and scores, BD_WORDS)
    mask = w[at] & 0xFFFFFFFF
    out: list[int] = []
    for s in range(1, n + 1):
        if not (mask >> s) & 1:
            out.append(w[10 + n + s - 1])
            continue
        lo, hi = w[at + 2 * s - 1] & 0xFFFFFFFF, w[at + 2 * s] & 0xFFFFFFFF
        out.append(int(_num(struct.unpack("<d", struct.pack("<Q", lo | hi << 32))[0])))
    return tuple(out)


#: the bots whole native games are played with (batch.h): random bots and the heuristic bot (heuristic.h)
BATCH_BOTS = ("random", "heuristic")


def _match_fallback(plan: Any, names: Sequence[str]) -> str | None:
    """Why whole matches of ``plan``'s ruleset with the bots ``names`` are not played in the core
    (None: they are, tribute and returns between the games in it)."""
    if plan.matches_fallback is not None:
        return str(plan.matches_fallback)
    if any(b.split(":")[0].strip().lower() not in BATCH_BOTS for b in names):
        return "whole native matches are played with random and heuristic bots only"
    return None


def _batch_heuristic(plan: Any, names: list[str]) -> tuple[Any, int, tuple[float, float]]:
    """The heuristic bot's tables for a batch, the bit mask of its seats and its setup thresholds
    (None, 0 where no seat is the heuristic's). Raises Unsupported where the core cannot play it."""
    seats = sum(1 << s for s, b in enumerate(names, start=1) if b == "heuristic")
    if not seats:
        return None, 0, (0.0, 0.0)
    from gouji_dsl.bots.heuristic import HeuristicBot
    from gouji_dsl.engine.native import Unsupported, heuristic
    pol = HeuristicBot().native_policy
    if pol is None:
        raise Unsupported("the heuristic bot has no native policy")
    return heuristic.tables(plan, pol), seats, (HeuristicBot.WEAK, HeuristicBot.STRONG)


def simulate(graph: RuleGraph, games: int, seed: Any, bots: str | list[str] = "random",
             progress: Callable[[int], None] | None = None, engine: str = DEFAULT_ENGINE) -> list[GameResult]:
    """Play ``games`` games in this process and return them all (records dropped; for benchmarks and
    small checks — runs of any size go through :func:`gouji_dsl.tools.single.run_simulation`, which keeps only totals).
    ``progress(i)`` is called after each one."""
    out = []
    length = match_length(graph)
    prev: GameState | None = None
    for i in range(games):
        res, state = play_game(graph, seed, i, bots, previous=prev if i % length else None, engine=engine,
                               record=False)
        prev = state
        res.record = []  # keep memory flat; replay from seed when needed
        out.append(res)
        if progress:
            progress(i + 1)
    return out


def teams(g: RuleGraph) -> int:
    """The number of teams of a ruleset (the ``teams`` setting; 2 when it has none)."""
    return max(1, int(g.settings.get("teams", 2) or 2))


def engine_summary(graph: RuleGraph, engine: str, bots: str | Sequence[str] = "random", match_games: int = 1
                   ) -> dict[str, Any]:
    """Which engine played the games of ``graph`` when ``engine`` was asked for: ``engine``
    (``native`` or ``interpreter``) and, when the native core could not be used, ``engine_fallback``
    (why: no core, switched off, or a ruleset it does not play). With the native engine,
    ``play_phase`` says who plays the bots' play phase: ``native`` (the core: random bots, and
    heuristic bots where ``bots`` has them) or ``interpreter`` (``native_fallback`` saying why);
    ``whole_games`` whether games are played whole in the core, in batches (``native``), or one by
    one (``per_game``, ``games_fallback``: why; ``match_games``: games per cluster of the run —
    games chained into matches are played whole in the core, match after match, where it plays
    their between-game phase, else one by one). Run files written before the native core say
    ``generated`` (the generated play-out module) where these say ``native`` / ``per_game``."""
    if Engine(engine) is Engine.INTERPRETER:
        return {"engine": Engine.INTERPRETER.value}
    reason = fast.fallback_reason(graph)
    if reason is not None:
        return {"engine": Engine.INTERPRETER.value, "engine_fallback": reason}
    names = [bots] if isinstance(bots, str) else list(bots)
    native = None
    if any(b.split(":")[0].strip().lower() == "heuristic" for b in names):
        native = _heuristic_fallback(graph)
    out = {"engine": Engine.NATIVE.value, "play_phase": "native" if native is None else "interpreter",
           **({"native_fallback": native} if native is not None else {})}
    if native is None:
        why = _whole_games_fallback(graph, names, match_games)
        # whole games (random bots, a game that starts a match) in one crossing per batch, or why not
        out.update({"whole_games": "native"} if why is None else {"whole_games": "per_game", "games_fallback": why})
    return out


def _whole_games_fallback(graph: RuleGraph, names: list[str], match_games: int) -> str | None:
    """Why the games of ``graph`` with the bots ``names`` are not played whole in the core (None: they are)."""
    from gouji_dsl.engine.native import flow
    why = flow.flow_plan(graph).games_fallback
    outside = [b for b in dict.fromkeys(names) if is_outside(b)]
    if why is None and outside:
        why = _("bots from outside the project ({bots}) choose in Python, through their seat's view: "
                "the core cannot call them").format(bots=", ".join(outside))
    if why is None and any(b.split(":")[0].strip().lower() not in BATCH_BOTS for b in names):
        why = "whole games are played in the core with random and heuristic bots only (native_games)"
    if why is None and match_games > 1:
        m = _match_fallback(flow.flow_plan(graph), names)
        if m is not None:
            why = (f"games chained into matches of {match_games} ({m}): "
                   "played one by one, their play phase natively")
    return why


def _heuristic_fallback(graph: RuleGraph) -> str | None:
    """Why the native core does not play the heuristic bot's play phase on ``graph`` (None: it does)."""
    from gouji_dsl.bots.heuristic import HeuristicBot
    from gouji_dsl.engine.native import flow
    reason = flow.heuristic_fallback_reason(graph, HeuristicBot().native_policy)
    return None if reason is None else _("the heuristic bot: {reason}").format(reason=reason)


def differences(graph: RuleGraph, seed: Any, games: int, bots: str = "random") -> list[str]:
    """The differential check: play ``games`` games of ``graph`` (matches chained as ``gouji
    simulate`` chains them) with the interpreter and with the native engine, and return the
    differences found, in words (empty: game for game the same moves, events, places, scores,
    decisions and tricks). Used by ``tests/test_differential.py`` and the engine benchmark."""
    eng = fast.engine(graph)
    if eng is None:
        return [f"not native: {fast.fallback_reason(graph)}"]
    length = match_length(graph)
    prev_i: GameState | None = None
    prev_f: GameState | None = None
    out: list[str] = []
    for i in range(games):
        res, st = play_game(graph, seed, i, bots, previous=prev_i if i % length else None, engine="interpreter")
        prev_i = st
        players = [make_bot(bots, random.Random(f"{seed}:{i}:bot{s}")) for s in range(1, graph.n_seats + 1)]
        fs = eng.play_game(seed, i, players, previous=prev_f if i % length else None)
        prev_f = fs
        compact: list[Any] = list(fs.record)  # the native core logs compact tuples
        if "move" not in (e[0] for e in compact if isinstance(e, tuple)):
            out.append(f"game {i}: the native core logged no move: did it play?")
        record = eng.render_record(fs)
        got = (fs.places, fs.scores, fs.sweep, fs.decisions, fs.trick_no, fs.burns)
        want = (res.places, res.scores, res.sweep, res.decisions, res.tricks, res.burns)
        if got != want:
            out.append(f"game {i}: native {got} != interpreter {want}")
        if record != st.record:
            j = next((k for k, (a, b) in enumerate(zip(st.record, record)) if a != b), min(len(st.record), len(record)))
            mine = record[j] if j < len(record) else "(end)"
            ref = st.record[j] if j < len(st.record) else "(end)"
            out.append(f"game {i}, event {j}: native {mine} != interpreter {ref}")
    return out
