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
``resume=True`` plays only the missing chunks. :func:`~gouji_dsl.tools.runfolders.load_runs` merges the chunk files
of any number of folders (runs of other seeds, other machines) into one set of totals.

This module is the driver (:func:`execute`: the plan of a run, its folder, its chunks merged in deal order, ``until``);
the rest of the run engine, one module a part: :mod:`~gouji_dsl.tools.runspec` (what is run, its totals, how a run
ends early), :mod:`~gouji_dsl.tools.runchunks` (playing a chunk, in any process), :mod:`~gouji_dsl.tools.runpools`
(the process pool, Dask, the signals), :mod:`~gouji_dsl.tools.runfolders` (the output folder; merging folders).
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.bots.outside import worker_died
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.tools.runchunks import chunk_engines, chunk_json, play_chunk, raise_chunk_error
from gouji_dsl.tools.runfiles import CHUNK_FORMAT, RunError
from gouji_dsl.tools.runfolders import (
    RunFolder,
    chunk_name,
    engines_of,
    lock_folder,
    prepare_folder,
    write_chunk,
    write_failed,
    write_meta,
)
from gouji_dsl.tools.runkinds import MAX_CHUNKS, MAX_GAMES, Executor
from gouji_dsl.tools.runpools import Backend, BotDied, ChunkLost, DaskBackend, ProcessBackend, sigterm_interrupts
from gouji_dsl.tools.runspec import (
    RunSpec,
    RunStopped,
    SimulationCancelled,
    SimulationError,
    Totals,
    default_chunk_size,
    empty_totals,
    match_unit,
    plan_chunks,
    totals_from_json,
)
from gouji_dsl.tools.simulate import teams

MAX_CHUNK_LOSSES = 3
"""How many times a chunk is played again after losing its worker (Dask itself retries a chunk on
another worker twice before giving up on it; a process pool with a dead worker is started again)
before the run stops (a chunk that kills every worker that plays it: out of memory?)."""


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
    #: who played each ruleset's games, from the chunks (read back ones included): :func:`~gouji_dsl.tools.runfolders.engines_of`
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
            lock = lock_folder(out_path)
        except OSError as e:
            raise write_failed(e, out_path / ".lock", out_path) from None
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
                     engines_of(run.played, len(graphs_)))


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
                self.folder = prepare_folder(out_path, spec, self.games, self.size, resume, extra)
            except OSError as e:
                raise write_failed(e, out_path / "run.json", out_path) from None
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
            raise_chunk_error(data["error"])
        out_path, folder = self.out_path, self.folder
        if out_path is not None and folder is not None:
            data = {**data, "format": CHUNK_FORMAT, "run": folder.meta["fingerprint"]}
            write_chunk(out_path, start, stop, data)
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
        backend: Backend | None = None
        pending: dict[Any, tuple[int, int]] = {}
        aborted = True
        restore_sigterm = sigterm_interrupts()
        try:
            if executor is Executor.LOCAL:
                stop_now = self.play_local(todo, cancel, stop_now)
            else:
                backend = (DaskBackend(self.spec, workers, scheduler) if executor is Executor.DASK
                           else ProcessBackend(self.spec, workers))
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

    def play_pooled(self, backend: Backend, workers: int, todo: list[tuple[int, int]], pending: dict[Any, tuple[int, int]],
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
                except BotDied as e:
                    raise worker_died(e.died, start, stop) from None
                except ChunkLost:
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
                write_meta(out_path, meta)
            except OSError as e:
                raise write_failed(e, out_path / "run.json", out_path) from None
        return played, stopped_by
