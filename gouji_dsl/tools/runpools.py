"""Chunks played by worker processes: a ``spawn`` process pool (:class:`ProcessBackend`) or Dask distributed
(:class:`DaskBackend`, a local cluster or a scheduler's), behind one interface (:class:`Backend`: submit, done,
result, close, check_stalled) the driver (:mod:`gouji_dsl.tools.runs`) plays through; a worker lost is a
:class:`ChunkLost` (its chunk is played again), a bot from outside deciding in a worker that died a :class:`BotDied`.
And the signals of a run: the workers ignore Ctrl+C and end with their parent (:func:`ignore_sigint`,
:func:`die_with_parent`), SIGTERM stops a run as Ctrl+C does (:func:`sigterm_interrupts`).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gouji_dsl.bots import deciding
from gouji_dsl.i18n import _
from gouji_dsl.tools.runchunks import pack_spec, run_packed_chunk
from gouji_dsl.tools.runfiles import RunError
from gouji_dsl.tools.runspec import ClusterLost, RunSpec, RunStopped

_clock = time.monotonic  # (the no-worker grace's clock: a test replaces this name, never time.monotonic itself)
NO_WORKERS_GRACE = 120.0
"""Seconds a run on the LOCAL Dask cluster waits while the cluster has no worker at all (a nanny that
failed to start its worker again gives up): then the run stops, resumably, instead of waiting for ever."""


class ChunkLost(Exception):
    """The worker playing a chunk went away before it finished: the chunk is played again."""


class BotDied(Exception):
    """The worker playing a chunk died while a bot from outside was deciding there (``died``: see
    :func:`gouji_dsl.bots.deciding.died_deciding`): that bot's failure, not played again."""

    def __init__(self, died: list[tuple[str, int | None, int | None]]):
        super().__init__(died)
        self.died = died


def ignore_sigint(parent: int | None = None, notes: str | None = None) -> None:
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


class Backend:
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


class ProcessBackend(Backend):
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
                                   initializer=ignore_sigint, initargs=(os.getpid(), self.notes))

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
                raise BotDied(died) from None
            raise ChunkLost from None

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


class DaskBackend(Backend):
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
            raise ChunkLost from None
        except CancelledError:  # the client cancels every task when the scheduler goes away
            raise self._lost() from None
        except OSError as e:  # the result could not be fetched: from a worker gone (again) or the scheduler
            if self._connected():
                raise ChunkLost from None
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
