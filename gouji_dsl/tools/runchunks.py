"""Playing one chunk of a run, in any process (this one, a pool's worker, a Dask worker): deals ``[start, stop)`` of a
:class:`~gouji_dsl.tools.runspec.RunSpec` played, each ruleset's games chained into its matches (:class:`Runner`), whole
games or matches in the native core where it plays them, and added up into the run's totals (:func:`play_chunk`);
the worker's entry points (:func:`run_chunk`, :func:`run_packed_chunk` of a spec :func:`pack_spec` made) return the
chunk as JSON data (:func:`chunk_json`, with the engines that played it: :func:`chunk_engines`) or its error, which
:func:`raise_chunk_error` raises again in the driver.
"""
from __future__ import annotations

import hashlib
import pickle
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from gouji_dsl.bots.outside import BotFailed
from gouji_dsl.diagnostics import Diagnostic, GoujiError
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.tools import simulate
from gouji_dsl.tools.design import play_probed
from gouji_dsl.tools.figures import GameSummary, PairTotals, SideTotals, SweepTotals, probed, summarize_game
from gouji_dsl.tools.played import with_played_by
from gouji_dsl.tools.runfiles import CHUNK_FORMAT
from gouji_dsl.tools.runkinds import Engine
from gouji_dsl.tools.runspec import RunSpec, SimulationCancelled, SimulationError, Totals, empty_totals, fingerprint, match_unit


class Runner:
    """Plays consecutive games of one ruleset, chaining the games of a match (``previous``)."""

    def __init__(self, g: RuleGraph, spec: RunSpec):
        self.g, self.spec = g, spec
        self.length = match_length(g) if spec.matches else 1
        self.prev: Any = None
        self.record = False  # events are kept only when a game is replayed for its record
        self.replayed = 0  # games of native batches the core left to Python (played one by one)

    def play(self, index: int, probe: bool | None = None) -> Any:
        """Game ``index`` played one by one; ``probe``: with its design metrics' facts (played move by
        move, looked at: tools/design.py), by default every game the interpreter plays (where the
        probe costs little beside the game; the deals the native core gives them for) and otherwise
        the probed deals (:func:`probed`)."""
        prev = self.prev if index % self.length and self.prev is not None else None
        bots = self.spec.bots if isinstance(self.spec.bots, str) else list(self.spec.bots)
        if probe is None:
            probe = probed(index) or Engine(self.spec.engine) is Engine.INTERPRETER
        try:
            if probe:
                res, state = play_probed(self.g, self.spec.seed, index, bots, prev, self.spec.engine, self.record)
            else:
                res, state = simulate.play_game(self.g, self.spec.seed, index, bots, previous=prev, engine=self.spec.engine,
                                       record=self.record)
        except GoujiError:
            raise
        except Exception as e:
            if _program_problem(e):  # an exec bot's program missing here (a remote worker): the bot's failure
                raise _not_started(e).in_game(self.spec.seed, index) from None
            raise SimulationError(_("game {seed}:{index} under {name!r}: {type}: {e}").format(
                seed=self.spec.seed, index=index, name=self.g.name, type=type(e).__name__, e=e)) from None
        self.prev = state
        return res

    def summaries(self, start: int, stop: int) -> list[GameSummary]:
        """The figures of games ``start .. stop - 1`` (consecutive games of this runner): without
        matches, whole games in the native core, one crossing for them all, where it plays them
        (``simulate.native_games``; the games it leaves, and every other case, one by one). The
        design metrics' facts: of every game where the core plays the batch (the core counts them;
        the games it leaves are probed in Python, so that every deal has them), else as :meth:`play`
        gives them."""
        got = None
        if not self.record and start % self.length == 0:
            try:
                got = simulate.native_games(self.g, self.spec.seed, start, stop, self.spec.bots if isinstance(self.spec.bots, str)
                                   else list(self.spec.bots), self.spec.engine, match_games=self.length)
            except GoujiError:
                raise
            except Exception as e:
                raise SimulationError(f"games {self.spec.seed}:{start}..{stop - 1} under {self.g.name!r}: "
                                      f"{type(e).__name__}: {e}") from None
        left = [] if got is None else [g is None for g in got]  # (the games the core left to Python)
        if got is not None and self.length > 1:
            got = _whole_matches(got, start, self.length)
        out = []
        for i in range(start, stop):
            s = got[i - start] if got is not None else None
            if got is not None and left[i - start]:
                self.replayed += 1
            out.append(s if s is not None else summarize_game(i, self.play(i, probe=True if got is not None else None), self.g.n_seats))
        return out

    def replay(self, index: int) -> Any:
        """Game ``index`` again with its record (the games of its match before it are replayed too)."""
        self.prev = None
        res = None
        self.record = True
        try:
            for i in range(index - index % self.length, index + 1):
                res = self.play(i)
        finally:
            self.record = False
        return res


def _whole_matches(got: list[Any], start: int, length: int) -> list[Any]:
    """Native summaries of games chained into matches (``start`` begins one), with every game of a
    match set to None where the core left one of them: Python plays such a match from its first
    game, each game following the one before it."""
    out = list(got)
    for a in range(0, len(out), length):
        block = range(a, min(a + length, len(out)))
        if any(out[j] is None for j in block):
            for j in block:
                out[j] = None
    return out


def _add(totals: Totals, games: list[list[GameSummary]], spec: RunSpec, lengths: tuple[int, ...]) -> None:
    """Add one cluster of games (``games[k]``: ruleset ``k``'s games of the same deals)."""
    if isinstance(totals, SweepTotals):
        totals.add_block(games[0], games[1:], spec.seed, lengths)
    elif isinstance(totals, PairTotals):
        totals.add_block(list(zip(games[0], games[1])), spec.seed, (lengths[0], lengths[1]))
    else:
        totals.add_block(games[0])


def _play_singles(runners: list[Runner], totals: Totals, spec: RunSpec, start: int, stop: int,
                  cancel: threading.Event | None, tick: Callable[[int], None] | None) -> None:
    """play_chunk's games when each starts a match: in batches of :data:`BATCH` (one crossing
    into the native core each where it plays the games whole), each game its own cluster."""
    for lo in range(start, stop, BATCH):
        if cancel is not None and cancel.is_set():
            raise SimulationCancelled("simulation cancelled")
        hi = min(lo + BATCH, stop)
        sides = [r.summaries(lo, hi) for r in runners]
        if not isinstance(totals, SideTotals):
            for j in range(hi - lo):
                _add(totals, [[side[j]] for side in sides], spec, tuple(r.length for r in runners))
        else:
            totals.add_singles(sides[0])  # (each game its own cluster, as add_block([game]) adds it)
            totals.replayed += runners[0].replayed
        for r in runners:
            r.replayed = 0
        if tick is not None:
            for i in range(lo, hi):
                tick(i + 1)


#: games per native batch (one crossing each; the cancel flag and progress are looked at between batches)
BATCH = 50


def _play_matches(runners: list[Runner], totals: Totals, spec: RunSpec, start: int, stop: int, unit: int,
                  cancel: threading.Event | None, tick: Callable[[int], None] | None) -> None:
    """play_chunk's games chained into matches of ``unit`` games (every ruleset's match length):
    in batches of whole matches (one crossing into the native core each where it plays the
    matches whole, :meth:`Runner.summaries`), each match its own cluster."""
    size = max(unit, BATCH - BATCH % unit)
    for lo in range(start, stop, size):
        if cancel is not None and cancel.is_set():
            raise SimulationCancelled(_("simulation cancelled"))
        hi = min(lo + size, stop)
        sides = [r.summaries(lo, hi) for r in runners]
        for a in range(0, hi - lo, unit):
            _add(totals, [side[a:a + unit] for side in sides], spec, tuple(r.length for r in runners))
        if isinstance(totals, SideTotals):
            totals.replayed += runners[0].replayed
        for r in runners:
            r.replayed = 0
        if tick is not None:
            for i in range(lo, hi):
                tick(i + 1)


def play_chunk(graphs: Sequence[RuleGraph], spec: RunSpec, start: int, stop: int,
               cancel: threading.Event | None = None, tick: Callable[[int], None] | None = None
               ) -> Totals:
    """Play deals ``start .. stop-1`` (``start`` begins a match block) and return their totals."""
    unit = match_unit(graphs, spec.matches)
    runners = [Runner(g, spec) for g in graphs]
    totals = empty_totals(graphs, spec.top, spec.kind)
    if unit == 1:  # (games that each start a match: played in batches, whole games natively where the core plays them)
        _play_singles(runners, totals, spec, start, stop, cancel, tick)
        return totals
    if all(r.length == unit for r in runners):  # (one match length: whole matches natively where the core plays them)
        _play_matches(runners, totals, spec, start, stop, unit, cancel, tick)
        return totals
    for block in range(start, stop, unit):
        games: list[list[GameSummary]] = [[] for _ in graphs]
        for i in range(block, min(block + unit, stop)):
            if cancel is not None and cancel.is_set():
                raise SimulationCancelled(_("simulation cancelled"))
            for k, (g, r) in enumerate(zip(graphs, runners)):
                games[k].append(summarize_game(i, r.play(i), g.n_seats))
            if tick is not None:
                tick(i + 1)
        _add(totals, games, spec, tuple(r.length for r in runners))
    return totals


_GRAPHS: dict[tuple[str, ...], Any] = {}


def _graphs_for(spec: RunSpec) -> tuple[RuleGraph, ...]:
    key = tuple(fingerprint(r) + r.path for r in spec.rulesets)
    if key not in _GRAPHS:
        _GRAPHS.clear()
        _GRAPHS[key] = tuple(compile_ruleset(r) for r in spec.rulesets)
    return _GRAPHS[key]


def pack_spec(spec: RunSpec) -> tuple[str, bytes]:
    """``spec`` as a small self-contained value for a worker task: a key (a hash of the bytes) and
    the compressed pickle (a few tens of kB). Every task carries it, so a task can run on any worker,
    also on one started after the run began or restarted by its nanny (see :func:`run_packed_chunk`)."""
    blob = zlib.compress(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL))
    return hashlib.sha256(blob).hexdigest()[:24], blob


_SPECS: dict[str, RunSpec] = {}


def run_packed_chunk(key: str, blob: bytes, start: int, stop: int) -> dict[str, Any]:
    """Worker entry point (process pool, Dask): :func:`run_chunk` of the spec :func:`pack_spec`
    made; the spec is unpacked once per worker process and kept (the last one) under its key."""
    spec = _SPECS.get(key)
    if spec is None:
        spec = pickle.loads(zlib.decompress(blob))  # the run's own driver packed it
        _SPECS.clear()
        _SPECS[key] = spec
    return run_chunk(spec, start, stop)


def _program_problem(e: BaseException) -> bool:
    """``e`` is an exec bot's program that cannot be started here (:class:`~gouji_dsl.bots.external.ProgramProblem`)."""
    from gouji_dsl.bots.external import ProgramProblem
    return isinstance(e, ProgramProblem)


def _not_started(e: Any) -> BotFailed:
    """An exec bot's program missing in this worker process (a remote Dask worker's machine), though the
    driver's machine has it (the options were read there): the bot's failure, as every bot's is."""
    import socket
    return e.failed(_("on the worker {host} (the program must be there too, at the same path)").format(  # type: ignore[no-any-return]
        host=socket.gethostname()))


def run_chunk(spec: RunSpec, start: int, stop: int) -> dict[str, Any]:
    """Worker entry point (process pool, Dask): the chunk's JSON data, or ``{"error": ...}``
    (exceptions carrying diagnostics do not cross processes well, so nothing is raised)."""
    try:
        graphs = _graphs_for(spec)
        totals = play_chunk(graphs, spec, start, stop)
    except BotFailed as e:  # the user's bot: crosses back as itself (the same error as in one process)
        return {"error": {"kind": "bot", "bot": [e.bot, e.seat, e.what, e.code, e.game]}}
    except ValueError as e:
        if not _program_problem(e):  # pragma: no cover - a bug: say what it was
            return {"error": {"kind": "other", "message": f"{type(e).__name__}: {e}"}}
        f = _not_started(e)
        return {"error": {"kind": "bot", "bot": [f.bot, f.seat, f.what, f.code, f.game]}}
    except GoujiError as e:
        return {"error": {"kind": "gouji", "diagnostics": [d.format() for d in e.diagnostics]}}
    except SimulationError as e:
        return {"error": {"kind": "other", "message": str(e)}}
    except Exception as e:  # pragma: no cover - a bug: say what it was
        return {"error": {"kind": "other", "message": f"{type(e).__name__}: {e}"}}
    return chunk_json(spec, start, stop, totals, chunk_engines(graphs, spec))


def chunk_json(spec: RunSpec, start: int, stop: int, totals: Totals,
               engines: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out = {"format": CHUNK_FORMAT, "seed": spec.seed, "start": start, "stop": stop, "totals": totals.to_json()}
    if engines is not None:
        out["engines"] = engines
    return out


def chunk_engines(graphs: Sequence[RuleGraph], spec: RunSpec) -> list[dict[str, Any]]:
    """Which engine played a chunk's games of each ruleset (in ``spec``'s order), as the process that
    played them saw it: :func:`~gouji_dsl.tools.simulate.engine_summary` with its ``played_by`` keys
    (:mod:`gouji_dsl.tools.played`). Kept in the chunk file (``engines``), so ``gouji report`` says who
    played a folder's games, and that its chunks were played by different engines where they were
    (a worker without the native core, a resume on another machine)."""
    bots = spec.bots if isinstance(spec.bots, str) else list(spec.bots)
    lengths = [match_length(g) if spec.matches else 1 for g in graphs]
    out = []
    for g, n in zip(graphs, lengths):
        e = simulate.engine_summary(g, spec.engine, bots, n)
        if e.get("whole_games") == "native" and len(set(lengths)) > 1:  # (play_chunk plays them one by one)
            e.update(whole_games="per_game", games_fallback=_(
                "the two rulesets' matches differ in length ({a} and {b} games): the deals are played one by one "
                "on both sides, their play phase natively").format(a=lengths[0], b=lengths[1]) if len(lengths) == 2
                else _("the rulesets' matches differ in length ({lengths} games): the deals are played one by one, "
                       "their play phase natively").format(lengths=" / ".join(map(str, lengths))))
        out.append(with_played_by(e))
    return out


def raise_chunk_error(err: dict[str, Any]) -> None:
    """Raise in the driver what :func:`run_chunk` returned as ``{"error": ...}`` from a worker."""
    if err.get("kind") == "bot":
        raise BotFailed(*err["bot"])
    if err.get("kind") == "gouji":
        raise GoujiError([Diagnostic("<worker>", 0, 0, "\n".join(err.get("diagnostics") or [_("ruleset error")]))])
    raise SimulationError(str(err.get("message")))
