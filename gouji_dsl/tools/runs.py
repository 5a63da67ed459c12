"""Streaming, chunked simulation runs: local, in a process pool or on a Dask cluster; resumable.

A run (:class:`RunSpec`: one ruleset, or two played on the same deals) is split into *chunks* of
consecutive deals ``[start, stop)``; every chunk starts a match of each ruleset (chunk sizes are
multiples of the match block, the least common multiple of the rulesets' match lengths), so a
chunk can be played anywhere. A chunk returns mergeable totals (:mod:`gouji_dsl.tools.figures`) as
plain JSON data — never per-game lists — so memory stays flat in the number of games.

Determinism: deal ``i`` of seed ``S`` is the same everywhere (see :mod:`gouji_dsl.tools.simulate`),
totals are exact and merged in deal order, so the same spec and number of deals give the same
totals whatever the executor, the number of workers or the chunk size. With ``until`` (stop when
an interval is narrow enough) the check is made at chunk boundaries in deal order: the same chunk
size gives the same stopping point.

Executors: ``"local"`` (this process), ``"process"`` (a ``spawn`` process pool, the default) and
``"dask"`` (Dask distributed: a local cluster, or an existing scheduler at ``scheduler``;
``pip install 'gouji-dsl[cluster]'``).

Output folder (``out``): ``run.json`` (what is compared: rulesets with a fingerprint of their
content, seed, bots, matches, chunk size) and one ``chunk-START-STOP.json`` per finished chunk,
written atomically as soon as it is done, so an interrupted run loses only the chunks in flight;
``resume=True`` plays only the missing chunks. :func:`load_runs` merges the chunk files of any
number of folders (runs of other seeds, other machines) into one set of totals.
"""
from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import pickle
import signal
import sys
import threading
import time
import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.atomic import atomic_write
from gouji_dsl.bots import deciding
from gouji_dsl.bots.outside import BotFailed, worker_died
from gouji_dsl.diagnostics import Diagnostic, GoujiError, quoted
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.ruleset.spec import ResolvedRuleset, Text
from gouji_dsl.tools.figures import GameSummary, PairTotals, SideTotals, SweepTotals, probed, summarize_game
from gouji_dsl.tools.played import of_chunks, with_played_by
from gouji_dsl.tools.runfiles import CHUNK_FORMAT, RUN_FORMAT, RunError, read_chunk, read_meta, run_fingerprint
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_CHUNKS, MAX_GAMES, Executor, RunKind
from gouji_dsl.tools.simulate import engine_summary, teams

DEFAULT_CHUNK = 100
"""Deals per chunk unless asked otherwise (a few seconds of play: smooth progress, quick stop)."""


class SimulationError(RuntimeError):
    """A game could not be played to the end (e.g. a ruleset in which some seat has no legal move)."""


class SimulationCancelled(RuntimeError):
    """The run was stopped (``cancel`` set, or Ctrl+C); finished chunks are kept in the output folder."""

    def __init__(self, message: str, games_done: int = 0, chunks_written: int = 0):
        super().__init__(message)
        self.games_done = games_done
        self.chunks_written = chunks_written


class RunStopped(RuntimeError):
    """The run cannot go on for a reason outside it — the Dask scheduler is lost, workers keep dying
    on one chunk, the output folder cannot be written (a full disk, a read-only folder) — after
    ``games_done`` deals and ``chunks_written`` chunk files: every file written is whole (chunks are
    written atomically), so the same command with ``--resume`` continues; ``hint`` says when."""

    def __init__(self, message: str, games_done: int = 0, chunks_written: int = 0, hint: str = ""):
        super().__init__(message)
        self.games_done = games_done
        self.chunks_written = chunks_written
        self.hint = hint


class ClusterLost(RunStopped):
    """The connection to the Dask scheduler was lost (the scheduler ended, or its machine)."""


class OutputNotWritable(RunStopped):
    """A file of the output folder could not be written (no space left, read-only, no permission)."""


class _ChunkLost(Exception):
    """The worker playing a chunk went away before it finished: the chunk is played again."""


class _BotDied(Exception):
    """The worker playing a chunk died while a bot from outside was deciding there (``died``: see
    :func:`gouji_dsl.bots.deciding.died_deciding`): that bot's failure, not played again."""

    def __init__(self, died: list[tuple[str, int | None, int | None]]):
        super().__init__(died)
        self.died = died


MAX_CHUNK_LOSSES = 3
_clock = time.monotonic  # (the no-worker grace's clock: a test replaces this name, never time.monotonic itself)
NO_WORKERS_GRACE = 120.0
"""Seconds a run on the LOCAL Dask cluster waits while the cluster has no worker at all (a nanny that
failed to start its worker again gives up): then the run stops, resumably, instead of waiting for ever."""
"""How many times a chunk is played again after losing its worker (Dask itself retries a chunk on
another worker twice before giving up on it; a process pool with a dead worker is started again)
before the run stops (a chunk that kills every worker that plays it: out of memory?)."""


# ==================================================================================================
# what is run


def fingerprint(r: ResolvedRuleset) -> str:
    """A hash of what a ruleset *plays*: its setting values (and declared types), definitions and rules
    in effective order — not its name, title, description, comments, ``says`` or sources, nor where it
    was written: equal for the same rules under another name, in another file or folder (what
    ``gouji diff`` reports no difference for)."""

    def text(t: Text | None) -> str | None:
        return None if t is None else t.text

    data = {
        "settings": {name: {"value": s.value, "types": [text(t) for t in s.type_decls]}
                     for name, s in sorted(r.settings.items())},
        "definitions": {name: {"params": list(d.params), "expr": text(d.expr)} for name, d in sorted(r.definitions.items())},
        "rules": [{"id": x.id, "on": text(x.on), "effect": x.effect, "expr": text(x.effect_expr), "when": text(x.when),
                   "target": text(x.target), "amount": text(x.amount), "giver": text(x.giver),
                   "before": list(x.before), "after": list(x.after)} for x in r.rules],
    }
    out = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(out.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class RunSpec:
    """What a run plays: ``rulesets`` (one, or A and B on the same deals), ``seed``, ``bots`` (one name
    for every seat or one per seat), ``matches`` (chain games into each ruleset's matches),
    ``engine`` (passed to :func:`~gouji_dsl.tools.simulate.play_game`) and ``top`` (how many of the
    most divergent deals a paired run keeps)."""

    rulesets: tuple[ResolvedRuleset, ...]
    seed: Any
    bots: str | tuple[str, ...] = "random"
    matches: bool = True
    engine: str = DEFAULT_ENGINE
    top: int = 5
    sweep: bool = False  # rulesets[0] is a base, each other one a point of a grid (gouji sweep)

    @property
    def kind(self) -> RunKind:
        if self.sweep:
            return RunKind.SWEEP
        return RunKind.PAIRED if len(self.rulesets) == 2 else RunKind.SINGLE

    def identity(self) -> dict[str, Any]:
        """What must be equal for two runs' chunks to be merged (the seed may differ)."""
        return {"kind": str(self.kind), "bots": self.bots if isinstance(self.bots, str) else list(self.bots),
                "matches": self.matches,
                "rulesets": [{"name": r.name, "fingerprint": fingerprint(r)} for r in self.rulesets]}

    def to_json(self) -> dict[str, Any]:
        out = self.identity()
        out["rulesets"] = [{"name": r.name, "path": r.path, "fingerprint": fingerprint(r)} for r in self.rulesets]
        out["seed"] = self.seed
        out["engine"] = self.engine
        out["top"] = self.top
        return out


def match_unit(graphs: Sequence[RuleGraph], matches: bool) -> int:
    """Deals per cluster: the least common multiple of the rulesets' match lengths (1 without
    matches); chunks start at multiples of it, so every chunk starts a match of every ruleset."""
    if not matches:
        return 1
    return math.lcm(*(match_length(g) for g in graphs))


def plan_chunks(games: int, unit: int, size: int, start: int = 0) -> list[tuple[int, int]]:
    """Ranges ``[a, b)`` covering ``start .. games``; sizes are multiples of ``unit``."""
    size = max(unit, size - size % unit)
    return [(i, min(i + size, games)) for i in range(start, games, size)]


def default_chunk_size(games: int) -> int:
    """:data:`DEFAULT_CHUNK`, smaller for short runs (at least 16 chunks), larger for runs that would
    otherwise have more than :data:`MAX_CHUNKS` chunks; never depends on workers."""
    return max(1, min(DEFAULT_CHUNK, math.ceil(games / 16)), math.ceil(games / MAX_CHUNKS))


# ==================================================================================================
# playing a chunk (in any process)


class _Runner:
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
        from gouji_dsl.tools.simulate import Engine, play_game
        prev = self.prev if index % self.length and self.prev is not None else None
        bots = self.spec.bots if isinstance(self.spec.bots, str) else list(self.spec.bots)
        if probe is None:
            probe = probed(index) or Engine(self.spec.engine) is Engine.INTERPRETER
        try:
            if probe:
                from gouji_dsl.tools.design import play_probed
                res, state = play_probed(self.g, self.spec.seed, index, bots, prev, self.spec.engine, self.record)
            else:
                res, state = play_game(self.g, self.spec.seed, index, bots, previous=prev, engine=self.spec.engine,
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
        from gouji_dsl.tools.simulate import native_games
        got = None
        if not self.record and start % self.length == 0:
            try:
                got = native_games(self.g, self.spec.seed, start, stop, self.spec.bots if isinstance(self.spec.bots, str)
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


Totals = SideTotals | PairTotals | SweepTotals


def empty_totals(graphs: Sequence[RuleGraph], top: int, kind: RunKind | None = None) -> Any:
    """The empty totals of a run of ``graphs`` (a sweep's: the base, then each point)."""
    sides = [SideTotals(g.n_seats, teams(g)) for g in graphs]
    if kind is RunKind.SWEEP:
        return SweepTotals([PairTotals(SideTotals(graphs[0].n_seats, teams(graphs[0])), s, top) for s in sides[1:]])
    return PairTotals(sides[0], sides[1], top) if len(sides) == 2 else sides[0]


def _add(totals: Totals, games: list[list[GameSummary]], spec: RunSpec, lengths: tuple[int, ...]) -> None:
    """Add one cluster of games (``games[k]``: ruleset ``k``'s games of the same deals)."""
    if isinstance(totals, SweepTotals):
        totals.add_block(games[0], games[1:], spec.seed, lengths)
    elif isinstance(totals, PairTotals):
        totals.add_block(list(zip(games[0], games[1])), spec.seed, (lengths[0], lengths[1]))
    else:
        totals.add_block(games[0])


def _play_singles(runners: list[_Runner], totals: Totals, spec: RunSpec, start: int, stop: int,
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


def _play_matches(runners: list[_Runner], totals: Totals, spec: RunSpec, start: int, stop: int, unit: int,
                  cancel: threading.Event | None, tick: Callable[[int], None] | None) -> None:
    """play_chunk's games chained into matches of ``unit`` games (every ruleset's match length):
    in batches of whole matches (one crossing into the native core each where it plays the
    matches whole, :meth:`_Runner.summaries`), each match its own cluster."""
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
    runners = [_Runner(g, spec) for g in graphs]
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
        e = engine_summary(g, spec.engine, bots, n)
        if e.get("whole_games") == "native" and len(set(lengths)) > 1:  # (play_chunk plays them one by one)
            e.update(whole_games="generated", games_fallback=_(
                "the two rulesets' matches differ in length ({a} and {b} games): the deals are played one by one "
                "on both sides, their play phase natively").format(a=lengths[0], b=lengths[1]) if len(lengths) == 2
                else _("the rulesets' matches differ in length ({lengths} games): the deals are played one by one, "
                       "their play phase natively").format(lengths=" / ".join(map(str, lengths))))
        out.append(with_played_by(e))
    return out


def totals_from_json(kind: str, data: dict[str, Any]) -> Any:
    if kind == RunKind.SWEEP:
        return SweepTotals.from_json(data)
    return PairTotals.from_json(data) if kind == RunKind.PAIRED else SideTotals.from_json(data)


def _raise_chunk_error(err: dict[str, Any]) -> None:
    if err.get("kind") == "bot":
        raise BotFailed(*err["bot"])
    if err.get("kind") == "gouji":
        raise GoujiError([Diagnostic("<worker>", 0, 0, "\n".join(err.get("diagnostics") or [_("ruleset error")]))])
    raise SimulationError(str(err.get("message")))


def _ignore_sigint(parent: int | None = None, notes: str | None = None) -> None:
    """Worker start-up: Ctrl+C is for the parent (which stops cleanly), not for the workers; and the
    worker ends when its parent (``parent``, by default the process that started it) does, even
    killed with ``kill -9`` (:func:`die_with_parent`). ``notes``: the pool's folder of notes of the bot
    deciding (:func:`gouji_dsl.bots.deciding.start_notes`: a worker that dies names it)."""
    deciding.start_notes(notes)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        pass
    try:
        signal.signal(signal.SIGTERM, _term_ends_exec_bots)
    except ValueError:  # pragma: no cover - not the main thread
        pass
    die_with_parent(os.getppid() if parent is None else parent)


def _term_ends_exec_bots(signum: int, frame: Any) -> None:
    """A worker's SIGTERM (the pool is stopped: an error, Ctrl+C, SIGTERM of the driver): the exec
    bots it started (each in its own session) are killed with their process groups, then the worker
    ends as SIGTERM ends it. Without this they would be left running, orphaned, holding the caller's
    pipes."""
    ext = sys.modules.get("gouji_dsl.bots.external")
    if ext is not None:
        ext.kill_all_now()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends: on Linux the kernel sends SIGKILL when the parent dies
    (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread checks the parent every second. A worker
    left behind by a killed driver would otherwise wait for work for ever (and keep multiprocessing's
    resource tracker alive with it)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before the request took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):  # pragma: no cover - no C library to ask: watch instead
            pass

    def watch() -> None:  # pragma: no cover - not Linux
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="gouji-parent-watch", daemon=True).start()  # pragma: no cover


def sigterm_interrupts() -> Callable[[], None]:
    """From now on SIGTERM (``kill PID``, a job scheduler's stop) stops the run as Ctrl+C does (the
    finished chunks are written, the workers are ended, one line says how to resume; a second
    SIGTERM meanwhile does what it did before); returns what restores the previous handler. Only in
    the main thread (elsewhere signals cannot be handled). Every long run (simulate, diff
    --simulate, duel) plays inside it."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def on_term(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, old)  # a second SIGTERM while the run stops is not held up
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # pragma: no cover - an embedded interpreter without signals
        return lambda: None

    def restore() -> None:
        signal.signal(signal.SIGTERM, old)

    return restore


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while child processes are started (they keep ignoring it); restored after."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to do
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


# ==================================================================================================
# executors


class _Backend:
    """Submits chunks and reports finished ones (``poll``)."""

    def submit(self, start: int, stop: int) -> Any:
        raise NotImplementedError

    def done(self, fut: Any) -> bool:
        return bool(fut.done())

    def result(self, fut: Any) -> dict[str, Any]:
        return fut.result()

    def close(self, abort: bool) -> None:
        raise NotImplementedError

    def check_stalled(self) -> None:
        """Raises :class:`RunStopped` when no chunk can finish any more (called while none is ready)."""


class _ProcessBackend(_Backend):
    """Chunks in a ``spawn`` process pool. A worker that dies (killed, out of memory) breaks the pool:
    a new pool is started and the chunks the old one held are played again."""

    def __init__(self, spec: RunSpec, workers: int):
        self.spec = spec
        self.n_workers = workers
        self.key, self.blob = pack_spec(spec)
        self._notes = deciding.notes_folder()
        self.notes = self._notes.__enter__()
        try:
            self.pool = self._new_pool()
        except BaseException:
            self._notes.__exit__(None, None, None)
            raise

    def _new_pool(self) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        return ProcessPoolExecutor(max_workers=self.n_workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_sigint, initargs=(os.getpid(), self.notes))

    def _mend(self) -> list[tuple[str, int | None, int | None]]:
        """A new pool in place of a broken one (its other workers are ended); the bots that were deciding
        in the workers that died (:func:`gouji_dsl.bots.deciding.died_deciding`)."""
        died: list[tuple[str, int | None, int | None]] = []
        if getattr(self.pool, "_broken", False):
            old, self.pool = self.pool, None
            workers = deciding.workers_of(old)
            try:
                close_pool(old, abort=True)
                died = deciding.died_deciding(workers, self.notes)
            finally:
                self.pool = self._new_pool()
        return died

    def submit(self, start: int, stop: int) -> Any:
        self._mend()
        return self.pool.submit(run_packed_chunk, self.key, self.blob, start, stop)

    def result(self, fut: Any) -> dict[str, Any]:
        from concurrent.futures.process import BrokenProcessPool
        try:
            return fut.result()
        except BrokenProcessPool:  # a worker died: every chunk of that pool is played again
            died = self._mend()
            if died:  # ... unless a bot from outside was deciding there: its failure (it would do it again)
                raise _BotDied(died) from None
            raise _ChunkLost from None

    def close(self, abort: bool) -> None:
        try:
            if self.pool is not None:
                close_pool(self.pool, abort)
        finally:
            self._notes.__exit__(None, None, None)


def close_pool(pool: Any, abort: bool) -> None:
    """Shut a process pool down; on ``abort`` (Ctrl+C, an error) its workers are terminated first, so
    the chunks being played and those queued are not waited for."""
    if abort:
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            p.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


_QUIET_LOGGERS = ("distributed", "distributed.client", "distributed.batched", "distributed.core",
                  "distributed.comm", "distributed.worker", "distributed.nanny", "distributed.scheduler",
                  "tornado", "tornado.application")
"""Dask's loggers: silenced while a run uses Dask (a lost scheduler or worker is told in one line by
the run, not by tracebacks from the client's background threads)."""


@contextmanager
def _dask_quiet() -> Iterator[None]:
    import logging
    loggers = [logging.getLogger(n) for n in _QUIET_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _import_failure(e: BaseException) -> str | None:
    """What could not be imported, when ``e`` (or what caused it) is an ImportError: the task of a
    chunk reached a scheduler or worker that cannot load gouji (Dask says "Error during
    deserialization of the task graph … different environments", caused by ``No module named
    'gouji_dsl'``); else None."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, ImportError):
            return str(cur) or type(cur).__name__
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


class _DaskBackend(_Backend):
    """Chunks on Dask. Every task carries the run's spec (:func:`pack_spec`), so a chunk can be played
    by any worker: a worker that dies costs only the chunks it was playing, which the scheduler gives
    to another worker (and the driver submits again if the scheduler gave up on them)."""

    def __init__(self, spec: RunSpec, workers: int, scheduler: str | None):
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            raise RunError(_("--executor dask needs Dask distributed: pip install 'gouji-dsl[cluster]'")) from None
        self.cluster = None
        self._no_workers_since: float | None = None
        self.where = _("the Dask scheduler at {scheduler}").format(scheduler=scheduler) if scheduler else _("the local Dask cluster")
        self._quiet = _dask_quiet()
        self._quiet.__enter__()
        try:
            if scheduler:
                try:
                    self.client = Client(scheduler, timeout="20s")
                except OSError as e:  # the run folder is written already: --resume (exit 3), not bad input
                    raise ClusterLost(_("cannot reach the Dask scheduler at {scheduler} ({e})").format(scheduler=scheduler, e=e),
                                      hint=_("once the scheduler is up at that address")) from None
            else:
                import dask
                # one single-threaded process per worker (games are pure Python: threads would share the
                # GIL); no statistical profiler sampling the playing thread every 10 ms
                with dask.config.set({"distributed.worker.profile.enabled": False}), _sigint_ignored(), \
                        warnings.catch_warnings():
                    # no dashboard; the scheduler's small HTTP server takes another port when 8787 is taken
                    # (another cluster): not worth a warning on the user's terminal
                    warnings.filterwarnings("ignore", message="Port .* is already in use")
                    # the worker processes inherit "ignore Ctrl+C": it is for this process, which stops
                    # the run cleanly and closes the cluster (no tracebacks from the workers)
                    self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                dashboard_address=None, silence_logs=logging.CRITICAL)
                self.client = Client(self.cluster)
            self.key, self.blob = pack_spec(spec)
            self.workers = len(self.client.scheduler_info().get("workers", {})) or workers
        except BaseException:
            self._quiet.__exit__(None, None, None)
            raise

    def check_stalled(self) -> None:
        # only the local cluster: a remote one may get its workers later (the user starts them)
        if self.cluster is None:
            return
        scheduler = getattr(self.cluster, "scheduler", None)
        if scheduler is None or getattr(scheduler, "workers", None):  # (read in this process: no call blocks)
            self._no_workers_since = None
            return
        now = _clock()
        since = getattr(self, "_no_workers_since", None)
        if since is None:
            self._no_workers_since = now
        elif now - since > NO_WORKERS_GRACE:
            raise RunStopped(_("the local Dask cluster has had no worker for {seconds:.0f} s (its nannies could not "
                               "start the killed workers again)").format(seconds=NO_WORKERS_GRACE),
                             hint=_("on a machine with memory and CPU to spare, or with --executor process"))

    def _lost(self) -> ClusterLost:
        return ClusterLost(_("lost the connection to {where}").format(where=self.where),
                           hint=_("once the scheduler is up again (or with another executor)"))

    def _connected(self) -> bool:
        return self.client.status == "running"

    def submit(self, start: int, stop: int) -> Any:
        if not self._connected():
            raise self._lost()
        return self.client.submit(run_packed_chunk, self.key, self.blob, start, stop, pure=False)

    def result(self, fut: Any) -> dict[str, Any]:
        from concurrent.futures import CancelledError

        from distributed import KilledWorker
        try:
            return fut.result()
        except KilledWorker:  # the scheduler gave up on the chunk after its workers died: again
            raise _ChunkLost from None
        except CancelledError:  # the client cancels every task when the scheduler goes away
            raise self._lost() from None
        except OSError as e:  # the result could not be fetched: from a worker gone (again) or the scheduler
            if self._connected():
                raise _ChunkLost from None
            raise self._lost() from e
        except Exception as e:
            missing = _import_failure(e)
            if missing is None:
                raise
            raise RunStopped(_("{where} cannot run gouji's chunks ({missing} there: its scheduler or a worker "
                             "runs in a Python environment without gouji-dsl)").format(where=self.where, missing=missing),
                             hint=_("once the scheduler and every worker run where gouji-dsl is installed (the same "
                                  "version as here)")) from None

    def close(self, abort: bool) -> None:
        try:
            self.client.close(timeout=5 if self._connected() else 1)
        except Exception:  # the cluster is gone already: nothing left to close
            pass
        finally:
            try:
                if self.cluster is not None:
                    self.cluster.close()
            finally:
                self._quiet.__exit__(None, None, None)


# ==================================================================================================
# the output folder


def chunk_name(start: int, stop: int) -> str:
    return f"chunk-{start:09d}-{stop:09d}.json"


def _write_meta(out: Path, meta: dict[str, Any]) -> None:
    atomic_write(out / "run.json", json.dumps(meta, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


@dataclass
class RunFolder:
    """A run's output folder: ``run.json`` (checked: :func:`~gouji_dsl.tools.runfiles.read_meta`) and
    its chunk files (each checked as it is read: :meth:`read_chunk`)."""

    path: Path
    meta: dict[str, Any]
    chunks: dict[tuple[int, int], Path] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> RunFolder:
        p = Path(path)
        meta_path = p / "run.json"
        if not meta_path.is_file():
            raise RunError(_("{p}: no run.json here (not a folder written by --out)").format(p=p))
        meta = read_meta(meta_path)
        chunks = {}
        for c in sorted(p.glob("chunk-*-*.json")):
            try:
                a, b = c.stem.split("-")[1:]
                if not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit()) or int(b) <= int(a):
                    raise ValueError
            except ValueError:
                raise RunError(_("{c}: not a chunk file name (chunk-START-STOP.json, START < STOP); "
                               "move it out of the run folder").format(c=c)) from None
            # the name gouji writes, and no other: chunk-1-2.json beside chunk-000000001-000000002.json
            # replaced it silently, and messages named a file that is not there
            if c.name != chunk_name(int(a), int(b)):
                raise RunError(_("{c}: not a chunk file name: gouji writes the chunk of deals {int}..{int2} "
                               "as {chunk_name}; move this file out of the run folder").format(
                                   c=c, int=int(a), int2=int(b) - 1, chunk_name=chunk_name(int(a), int(b))))
            chunks[(int(a), int(b))] = c
        return cls(p, meta, chunks)

    def read_chunk(self, key: tuple[int, int]) -> dict[str, Any]:
        """The chunk of deals ``key``, checked against this run (see :mod:`gouji_dsl.tools.runfiles`)."""
        return read_chunk(self.chunks[key], key, self.meta)

    def in_progress(self) -> bool:
        """Whether a driver holds this folder's lock now (a run still writing it)."""
        return _locked(self.path)


def _prepare_folder(out: Path, spec: RunSpec, games: int, chunk: int, resume: bool,
                    extra: dict[str, Any]) -> RunFolder:
    """Create or check ``out``; returns the folder with the chunk files already there (resume)."""
    meta: dict[str, Any] = {"format": RUN_FORMAT, "spec": {**spec.to_json(), **extra}, "games": games,
                            "chunk_size": chunk}
    meta["fingerprint"] = run_fingerprint(meta)
    if (out / "run.json").exists():
        folder = RunFolder.open(out)
        if not resume:
            raise RunError(_("{out} already holds a run ({n} chunk(s)): add --resume to continue it, "
                           "or choose another folder").format(out=out, n=len(folder.chunks)))
        old = folder.meta["spec"]
        mine = meta["spec"]
        for key in ("kind", "bots", "matches", "seed", "top", "match_length"):
            if old.get(key) != mine.get(key):
                raise RunError(_("{out}: cannot resume: {key} was {quoted}, now {quoted2}").format(
                    out=out, key=key, quoted=quoted(old.get(key)), quoted2=quoted(mine.get(key))))
        if old.get("engine") is not None and old.get("engine") != mine.get("engine"):  # (a run.json of before: not kept)
            raise RunError(_("{out}: cannot resume: its games were played with --engine {old}, not {now} (the engine "
                             "is part of a run folder, and its summary names it: resume with --engine {old}, or "
                             "start another folder)").format(out=out, old=old.get("engine"), now=mine.get("engine")))
        if [r["fingerprint"] for r in old["rulesets"]] != [r["fingerprint"] for r in mine["rulesets"]]:
            raise RunError(_("{out}: cannot resume: the rules played differ from the run's "
                           "({join})").format(out=out, join=', '.join(r['name'] for r in old['rulesets'])))
        if int(folder.meta["chunk_size"]) != chunk:
            raise RunError(_("{out}: cannot resume: chunk size was {folder}, now {chunk} "
                           "(chunk sizes are rounded down to whole matches; leave out --chunk-size to keep the "
                           "run's)").format(out=out, folder=folder.meta.get('chunk_size'), chunk=chunk))
        meta["games"] = max(games, int(folder.meta["games"]))
        _write_meta(out, meta)
        folder.meta = meta
        return folder
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("chunk-*.json")):
        raise RunError(_("{out} holds chunk files but no run.json: choose another folder").format(out=out))
    _write_meta(out, meta)
    return RunFolder(out, meta)


def _locked(out: Path) -> bool:
    """Whether another process holds ``out/.lock`` (a run writing the folder); nothing is created."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return False
    try:
        f = open(out / ".lock", "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        f.close()
    return False


_NO_SPACE = {getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, n)}
_READ_ONLY = {getattr(errno, n) for n in ("EROFS", "EACCES", "EPERM") if hasattr(errno, n)}


def _write_failed(e: OSError, path: Path, out: Path) -> Exception:
    """What a failed write of ``path`` in the output folder ``out`` is: :class:`OutputNotWritable`
    (a full disk, a read-only or forbidden folder: resumable once that is mended) or a
    :class:`RunError` (a path that cannot be a run folder at all)."""
    what = e.strerror or type(e).__name__
    if e.errno in _NO_SPACE:
        return OutputNotWritable(_("cannot write {path}: {what}").format(path=path, what=what), hint=_("once there is space again"))
    if e.errno in _READ_ONLY:
        return OutputNotWritable(_("cannot write {path}: {what}").format(path=path, what=what), hint=_("once {out} can be written").format(out=out))
    return RunError(_("cannot write {path}: {what}").format(path=path, what=what))


def _lock_folder(out: Path) -> Any:
    """Hold ``out/.lock`` while a run writes there: a second run into the same folder is refused
    (instead of both writing the same chunks)."""
    out.mkdir(parents=True, exist_ok=True)
    f = open(out / ".lock", "a+")  # noqa: SIM115 - held open for the whole run
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return f
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise RunError(_("{out}: another run is writing this folder").format(out=out)) from None
    return f


# ==================================================================================================
# the driver


MIN_CLUSTERS_TO_STOP = 30
"""``until`` is not checked before this many clusters (match blocks; deals without matches) are
merged: a 95% interval from a handful of clusters can be narrow by chance (a few equal differences
give a zero width) and would stop the run at once."""


@dataclass(frozen=True)
class Until:
    """Stop when the 95 % interval of ``figure`` is at most ``halfwidth`` wide on each side (checked at
    chunk boundaries, in deal order, from :data:`MIN_CLUSTERS_TO_STOP` clusters on), or at ``max_games``."""

    halfwidth: float
    max_games: int
    figure: str | None = None


def until_block(until: Until, half_width: float) -> dict[str, Any]:
    """What ``--until-halfwidth`` asked and got: the figure, the target, the interval's half-width at
    the end and whether the target was ``reached`` (False: --max-games came first). Kept in
    ``run.json`` (``until``), so ``gouji report`` says it too."""
    reached = not math.isnan(half_width) and half_width <= until.halfwidth
    return {"figure": until.figure or "score_spread", "target": until.halfwidth,
            "half_width": None if math.isnan(half_width) else round(half_width, 6), "reached": reached}


@dataclass
class RunResult:
    """What :func:`execute` returns: the merged ``totals`` of deals ``0 .. games-1``."""

    spec: RunSpec
    totals: Totals
    games: int
    elapsed_s: float
    executor: str
    workers: int
    chunk_size: int
    resumed_games: int = 0
    stopped_by: str = "games"
    #: who played each ruleset's games, from the chunks (read back ones included): :func:`_engines_of`
    engines: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[int, int], None]
"""``progress(deals_done, deals_total)``."""


def execute(spec: RunSpec, games: int, *, executor: str = Executor.PROCESS, workers: int = 2,
            chunk_size: int | None = None, out: str | os.PathLike[str] | None = None, resume: bool = False,
            scheduler: str | None = None, until: Until | None = None,
            halfwidth_of: Callable[[Totals], float] | None = None,
            progress: Progress | None = None, cancel: threading.Event | None = None,
            graphs: Sequence[RuleGraph] | None = None) -> RunResult:
    """Play ``games`` deals of ``spec`` in chunks and merge their totals (see the module doc).

    ``until`` with ``halfwidth_of(totals)`` stops early. ``cancel`` (or Ctrl+C) stops after the
    finished chunks are written: :class:`SimulationCancelled` (its ``games_done`` and
    ``chunks_written`` say how far it got). ``graphs``: the compiled rulesets, if the caller has them."""
    graphs_, games, unit, out_path, size = _plan_run(spec, games, until, chunk_size, resume, out, graphs)
    lock = None
    if out_path is not None:
        try:
            lock = _lock_folder(out_path)
        except OSError as e:
            raise _write_failed(e, out_path / ".lock", out_path) from None
    run = _Run(spec, games, graphs_, unit, size, out_path, until, halfwidth_of, progress)
    try:
        run.open_folder(resume)
        executor = Executor(executor)
        if executor is Executor.PROCESS and workers <= 1:
            executor = Executor.LOCAL
        t0 = time.perf_counter()
        run.totals = empty_totals(graphs_, spec.top, spec.kind)
        run.read_resumed()
    except BaseException:
        if lock is not None:
            lock.close()
        raise
    try:
        stop_now = run.play(executor, workers, scheduler, cancel)
    finally:
        if lock is not None:
            lock.close()
    played, stopped_by = run.finish(stop_now)
    if stopped_by == "games" and run.merged_to != games:  # pragma: no cover - every planned chunk was merged above
        raise SimulationError(_("internal error: merged {state} of {games} deals").format(state=run.merged_to, games=games))
    return RunResult(spec, run.totals, played, time.perf_counter() - t0, str(executor),
                     1 if executor is Executor.LOCAL else workers, size, run.resumed, stopped_by,
                     _engines_of(run.played, len(graphs_)))


def _plan_run(spec: RunSpec, games: int, until: Until | None, chunk_size: int | None, resume: bool,
              out: str | os.PathLike[str] | None, graphs: Sequence[RuleGraph] | None
              ) -> tuple[tuple[RuleGraph, ...], int, int, Path | None, int]:
    """``(graphs, games, unit, out folder, chunk size)`` of a run, or the :class:`RunError` that refuses it."""
    if games < 1:
        raise ValueError(_("games must be at least 1"))
    if until is not None:
        games = min(games, until.max_games)
    if games > MAX_GAMES:
        raise RunError(_("{games:,} deals: a run plays at most {max_games:,}").format(games=games, max_games=MAX_GAMES))
    compiled = tuple(graphs) if graphs is not None else tuple(compile_ruleset(r) for r in spec.rulesets)
    unit = match_unit(compiled, spec.matches)
    out_path = Path(out) if out is not None else None
    if chunk_size is None and resume and out_path is not None and (out_path / "run.json").is_file():
        # a resumed run keeps its chunks (the default size depends on the number of deals, which a
        # resumed run may raise)
        chunk_size = int(RunFolder.open(out_path).meta["chunk_size"])
    size = chunk_size or default_chunk_size(games)
    size = max(unit, size - size % unit)
    if math.ceil(games / size) > MAX_CHUNKS:  # the plan (and a chunk file each) would not fit in memory
        raise RunError(_("{games:,} deals in chunks of {size:,} would be {math:,} chunks; at most "
                       "{max_chunks:,}: give --chunk-size {math2:,} or more").format(
                           games=games, size=size, math=math.ceil(games / size), max_chunks=MAX_CHUNKS, math2=math.ceil(games / MAX_CHUNKS)))
    return compiled, games, unit, out_path, size


@dataclass
class _Run:
    """One :func:`execute`: its plan of chunks, its folder, and the totals merged in deal order."""

    spec: RunSpec
    games: int
    graphs: tuple[RuleGraph, ...]
    unit: int
    size: int
    out_path: Path | None
    until: Until | None
    halfwidth_of: Callable[[Totals], float] | None
    progress: Progress | None
    folder: RunFolder | None = None
    existing: dict[tuple[int, int], Path] = field(default_factory=dict)
    plan: list[tuple[int, int]] = field(default_factory=list)
    planned: set[tuple[int, int]] = field(default_factory=set)
    totals: Any = None
    finished: dict[int, tuple[int, Totals]] = field(default_factory=dict)  # start -> (stop, totals) not yet merged
    resumed: int = 0
    merged_to: int = 0
    written: int = 0
    stop_at: int = -1
    done_games: int = 0
    short_tails: dict[int, Path] = field(default_factory=dict)  # start -> a chunk cut short, played again whole
    played: list[tuple[int, Any]] = field(default_factory=list)  # (deals, the chunk's engines) of every chunk

    def open_folder(self, resume: bool) -> None:
        """The run folder prepared (or reopened to resume) and the plan of chunks, checked against it."""
        spec, out_path = self.spec, self.out_path
        if out_path is not None:
            decks = {(g.n_seats, tuple(str(c) for c in g.model.deck())) for g in self.graphs}
            extra = {"match_length": [match_length(g) if spec.matches else 1 for g in self.graphs],
                     "same_deck": len(decks) == 1, "seats": [g.n_seats for g in self.graphs],
                     "teams": [teams(g) for g in self.graphs]}
            try:
                self.folder = _prepare_folder(out_path, spec, self.games, self.size, resume, extra)
            except OSError as e:
                raise _write_failed(e, out_path / "run.json", out_path) from None
            self.existing = self.folder.chunks
        self.plan = plan_chunks(self.games, self.unit, self.size)
        self.planned = set(self.plan)
        self.set_aside_short_tails()
        stray = [k for k in self.existing if k not in self.planned and k[0] < self.games]
        if stray:
            raise RunError(_("{out_path}: chunk {chunk_name} does not fit this run's chunks of {size}").format(
                out_path=out_path, chunk_name=chunk_name(*stray[0]), size=self.size))

    def set_aside_short_tails(self) -> None:
        """A run resumed with more deals: its last chunk, cut short by the old number of deals
        (deals 195..199 of a run of 200 in chunks of 13), is played again whole (195..207), so the
        folder holds the chunks a fresh run of the new number would (the same figures, file for
        file); the short chunk is removed once the whole one is written. A chunk that reaches past
        this run's deals (a resumed run asked for fewer) is refused: a chunk holds totals, not games."""
        stop_of = dict(self.plan)
        for a, b in sorted(self.existing):
            planned = stop_of.get(a)
            if planned is None or planned == b or a >= self.games:
                continue
            if b > planned:
                raise RunError(_("{out_path}: cannot resume with {games} deals: chunk {chunk_name} holds deals "
                                 "{a}..{last} (a chunk keeps totals, not games, and cannot be cut): resume with at "
                                 "least {b} deals (the folder's run has {folder})").format(
                                     out_path=self.out_path, games=self.games, chunk_name=chunk_name(a, b), a=a,
                                     last=b - 1, b=b, folder=self.folder.meta["games"] if self.folder else b))
            path = self.existing.pop((a, b))
            if (a, planned) in self.existing:  # an earlier resume wrote the whole chunk and was stopped
                path.unlink(missing_ok=True)
            else:
                self.short_tails[a] = path

    def read_resumed(self) -> None:
        """The chunks already in the folder, read back (a chunk of another run, inconsistent or damaged: refused, named)."""
        for key in self.existing:
            if key in self.planned and self.folder is not None:
                data = self.folder.read_chunk(key)
                self.finished[key[0]] = (key[1], totals_from_json(self.spec.kind, data["totals"]))
                self.played.append((key[1] - key[0], data.get("engines")))
                self.resumed += key[1] - key[0]

    def advance(self) -> bool:
        """Merge finished chunks in deal order; True when ``until`` says stop."""
        until, halfwidth_of = self.until, self.halfwidth_of
        while self.merged_to in self.finished:
            start = self.merged_to
            stop, t = self.finished.pop(start)
            self.totals.merge(t)
            self.merged_to = stop
            if until is not None and halfwidth_of is not None and stop < self.games \
                    and stop // self.unit >= MIN_CLUSTERS_TO_STOP:
                h = halfwidth_of(self.totals)
                if not math.isnan(h) and h <= until.halfwidth:
                    self.stop_at = stop
                    return True
        return False

    def report(self, done_now: int) -> None:
        if self.progress is not None:
            self.progress(done_now, self.games)

    def accept(self, start: int, stop: int, data: dict[str, Any]) -> None:
        """A finished chunk: written to the folder (whole or not at all), kept to merge in deal order."""
        if "error" in data:
            _raise_chunk_error(data["error"])
        out_path, folder = self.out_path, self.folder
        if out_path is not None and folder is not None:
            data = {**data, "format": CHUNK_FORMAT, "run": folder.meta["fingerprint"]}
            target = out_path / chunk_name(start, stop)
            try:  # on disk (file and folder) before the rename is final: a power cut leaves the chunk or nothing
                atomic_write(target, json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                             + "\n", fsync=True)
            except OSError as e:  # the chunk file is not there (a chunk is written whole or not at all)
                raise _write_failed(e, target, out_path) from None
            self.written += 1
            short = self.short_tails.pop(start, None)
            if short is not None:  # the whole chunk replaces it (load_runs refuses overlapping chunks)
                short.unlink(missing_ok=True)
        self.finished[start] = (stop, totals_from_json(self.spec.kind, data["totals"]))
        self.played.append((stop - start, data.get("engines")))

    def play(self, executor: Executor, workers: int, scheduler: str | None, cancel: threading.Event | None) -> bool:
        """The chunks not yet played, by ``executor``; whether ``until`` stopped the run. Ctrl+C (or a
        cancel, a run stopped by its surroundings) says how far the run got; the workers are closed."""
        todo = [c for c in self.plan if c not in self.existing]
        self.written = len(self.existing)
        self.done_games = self.resumed
        stop_now = self.advance()
        self.report(self.done_games)
        backend: _Backend | None = None
        pending: dict[Any, tuple[int, int]] = {}
        aborted = True
        restore_sigterm = sigterm_interrupts()
        try:
            if executor is Executor.LOCAL:
                stop_now = self.play_local(todo, cancel, stop_now)
            else:
                backend = (_DaskBackend(self.spec, workers, scheduler) if executor is Executor.DASK
                           else _ProcessBackend(self.spec, workers))
                stop_now = self.play_pooled(backend, workers, todo, pending, cancel, stop_now)
            aborted = False
        except KeyboardInterrupt:
            raise SimulationCancelled("interrupted", self.done_games, self.written) from None
        except SimulationCancelled as e:
            raise SimulationCancelled(str(e), self.done_games, self.written) from None
        except RunStopped as e:
            raise type(e)(str(e), self.done_games, self.written, e.hint) from None
        finally:
            if backend is not None:
                try:
                    backend.close(abort=aborted or bool(pending))
                except KeyboardInterrupt:  # Ctrl+C again while the workers close: stop waiting for them
                    pass  # (the run's own outcome, finished or interrupted, goes on being reported)
            restore_sigterm()
        return stop_now

    def play_local(self, todo: list[tuple[int, int]], cancel: threading.Event | None, stop_now: bool) -> bool:
        """The chunks ``todo`` played in this process, in order; whether ``until`` stopped the run."""
        for start, stop in todo:
            if stop_now:
                break
            base = self.done_games

            def tick(i: int, base: int = base, start: int = start) -> None:
                self.report(base + i - start)

            t = play_chunk(self.graphs, self.spec, start, stop, cancel, tick if self.progress is not None else None)
            self.accept(start, stop, chunk_json(self.spec, start, stop, t, chunk_engines(self.graphs, self.spec)))
            self.done_games += stop - start
            stop_now = self.advance()
        return stop_now

    def play_pooled(self, backend: _Backend, workers: int, todo: list[tuple[int, int]], pending: dict[Any, tuple[int, int]],
                    cancel: threading.Event | None, stop_now: bool) -> bool:
        """The chunks ``todo`` played by ``backend``'s workers (``pending``: submitted, not yet back); a chunk
        whose worker died is played again, at most :data:`MAX_CHUNK_LOSSES` times; whether ``until`` stopped the run."""
        window = max(2, 2 * (getattr(backend, "workers", workers) or workers))
        queue = list(todo)
        losses: dict[int, int] = {}
        while (queue or pending) and not stop_now:
            while queue and len(pending) < window:
                c = queue.pop(0)
                pending[backend.submit(*c)] = c
            ready = [f for f in pending if backend.done(f)]
            if not ready:
                if cancel is not None and cancel.is_set():
                    raise SimulationCancelled(_("simulation cancelled"))
                backend.check_stalled()
                time.sleep(0.05)
                continue
            for f in ready:
                start, stop = pending.pop(f)
                try:
                    data = backend.result(f)
                except _BotDied as e:
                    raise worker_died(e.died, start, stop) from None
                except _ChunkLost:
                    losses[start] = losses.get(start, 0) + 1
                    if losses[start] > MAX_CHUNK_LOSSES:
                        raise RunStopped(_("deals {start}–{stop}: every worker that played them died "
                                         "({losses} times; out of memory?)").format(start=start, stop=stop - 1, losses=losses[start]),
                                         hint=_("once the workers have more memory")) from None
                    queue.insert(0, (start, stop))
                    continue
                self.accept(start, stop, data)
                self.done_games += stop - start
            self.report(self.done_games)
            stop_now = self.advance()
            if cancel is not None and cancel.is_set() and not stop_now:
                raise SimulationCancelled(_("simulation cancelled"))
        return stop_now

    def finish(self, stop_now: bool) -> tuple[int, str]:
        """``(deals played, how the run stopped)``; the chunks past an early stop removed, run.json told."""
        played, stopped_by = self.games, "games"
        out_path, folder, until = self.out_path, self.folder, self.until
        if stop_now and self.stop_at >= 0:
            played = self.stop_at
            stopped_by = "halfwidth"
            if out_path is not None:  # chunks past the stopping point are not part of this run
                for start, stop in self.plan:
                    if start >= played:
                        try:
                            (out_path / chunk_name(start, stop)).unlink()
                        except FileNotFoundError:
                            pass
        if out_path is not None and folder is not None and (until is not None or stopped_by != "games"):
            meta = dict(folder.meta)  # what gouji report says of the run: how it stopped, the interval it got
            meta["games"] = played
            meta["stopped_by"] = stopped_by
            if until is not None and self.halfwidth_of is not None:
                meta["until"] = until_block(until, self.halfwidth_of(self.totals))
            try:
                _write_meta(out_path, meta)
            except OSError as e:
                raise _write_failed(e, out_path / "run.json", out_path) from None
        return played, stopped_by


# ==================================================================================================
# merging folders


@dataclass
class MergedRuns:
    """The totals of every chunk of one or more run folders (see :func:`load_runs`)."""

    kind: str
    spec: dict[str, Any]
    seeds: list[Any]
    totals: Totals
    games: int
    folders: list[str]
    chunks: int
    missing: list[str]
    #: the folders a driver is still writing (their lock is held): their gaps are deals not played yet
    in_progress: list[str] = field(default_factory=list)
    #: how the run stopped (``run.json``'s ``stopped_by`` and ``until``), when one folder is read
    stopped_by: str = "games"
    until: dict[str, Any] | None = None
    #: who played each ruleset's games (run.json's order), from the chunks: :func:`~gouji_dsl.tools.played.of_chunks`
    engines: list[dict[str, Any]] = field(default_factory=list)


def _engines_of(chunks: list[tuple[int, Any]], n: int) -> list[dict[str, Any]]:
    """Who played each of the ``n`` rulesets' games, from ``(deals, the chunk's engines)``."""
    return [of_chunks([(deals, es[k] if isinstance(es, list) and k < len(es) else None) for deals, es in chunks])
            for k in range(n)]


def load_runs(paths: Sequence[str | os.PathLike[str]]) -> MergedRuns:
    """Merge the chunk files of the folders ``paths`` (runs of the same comparison: same rulesets by
    content, bots and matches; seeds may differ). A chunk present in two folders (a copied folder,
    the same seed run twice) counts once; overlapping chunks of different sizes are an error.
    ``missing`` lists the gaps in each seed's deals (an interrupted run, or one still in progress:
    ``in_progress``). Every chunk is checked against its folder's run (fingerprint, range, totals:
    :mod:`gouji_dsl.tools.runfiles`); RunError names the file that is not."""
    if not paths:
        raise RunError(_("no run folder given"))
    folders = [RunFolder.open(p) for p in paths]
    first = folders[0]
    ident = _identity(first.meta)
    for f in folders[1:]:
        if _identity(f.meta) != ident:
            raise RunError(_("{path} is not a run of the same comparison as {path2} "
                           "(rulesets, bots or matches differ)").format(path=f.path, path2=first.path))
    kind = ident["kind"]
    by_seed: dict[str, dict[tuple[int, int], tuple[RunFolder, tuple[int, int]]]] = {}
    seeds: list[Any] = []
    for f in folders:
        seed = f.meta["spec"].get("seed")
        if str(seed) not in by_seed:
            seeds.append(seed)
        chunks = by_seed.setdefault(str(seed), {})
        for key in f.chunks:
            chunks.setdefault(key, (f, key))
    totals: Totals | None = None
    games = n_chunks = 0
    missing: list[str] = []
    played: list[tuple[int, Any]] = []
    for seed in seeds:
        chunks = by_seed[str(seed)]
        keys = sorted(chunks)
        for x, y in zip(keys, keys[1:]):
            if y[0] < x[1]:
                raise RunError(_("seed {seed}: chunks {chunk_name} and {chunk_name2} overlap "
                               "(runs with different chunk sizes): merge only one of them").format(
                                   seed=seed, chunk_name=chunk_name(*x), chunk_name2=chunk_name(*y)))
        expect = 0
        for key in keys:
            if key[0] > expect:
                missing.append(_("seed {seed}: deals {expect}–{key}").format(seed=seed, expect=expect, key=key[0] - 1))
            expect = key[1]
            f, k = chunks[key]
            data = f.read_chunk(k)
            played.append((key[1] - key[0], data.get("engines")))
            t = totals_from_json(kind, data["totals"])
            if totals is None:
                totals = t
            else:
                totals.merge(t)  # type: ignore[arg-type]
            games += key[1] - key[0]
            n_chunks += 1
        planned = max(int(f.meta.get("games", 0)) for f in folders if str(f.meta["spec"].get("seed")) == str(seed))
        if expect < planned:
            missing.append(_("seed {seed}: deals {expect}–{planned}").format(seed=seed, expect=expect, planned=planned - 1))
    if totals is None:
        busy = [str(f.path) for f in folders if f.in_progress()]
        raise RunError(_("{join}: no finished chunk yet").format(join=', '.join(str(p) for p in paths))
                       + (_(" (a run is writing {join}: report again in a while)").format(join=', '.join(busy)) if busy else ""))
    one = first.meta if len(folders) == 1 else {}
    return MergedRuns(kind, first.meta["spec"], seeds, totals, games, [str(f.path) for f in folders], n_chunks, missing,
                      [str(f.path) for f in folders if f.in_progress()], str(one.get("stopped_by", "games")),
                      one.get("until"), _engines_of(played, len(first.meta["spec"]["rulesets"])))


def _identity(meta: dict[str, Any]) -> dict[str, Any]:
    spec = meta["spec"]
    return {"kind": spec["kind"], "bots": spec["bots"], "matches": spec["matches"], "match_length": spec["match_length"],
            "rulesets": [r["fingerprint"] for r in spec["rulesets"]]}
