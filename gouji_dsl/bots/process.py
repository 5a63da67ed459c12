"""A search bot that thinks in its own process (the play screen's opponents: issue 22.27).

A search is pure Python: in a thread of the app it holds the interpreter lock, and the app's event
loop (keys, drawing) runs between its slices only. :class:`SearchProcess` runs ``bot.choose`` in one
child process instead (``python -m gouji_dsl.bots.process``, talking pickles over two pipes: the
caller's main module is not run again, as multiprocessing's spawn would): the process compiles the ruleset once (from the resolved ruleset, pickled:
an editor's unsaved buffer too), rebuilds each position from its record (:func:`replay`, the one
replay path) and answers with the move. The calling thread only waits on a pipe.

Determinism: the bot in the process is made from the same spec and starts from the generator state
of the caller's bot; the caller's bot takes the generator state (and the analysis, ``last``) back, so
the same seed plays the same moves as ``bot.choose`` in the caller's own process.

Lifetime: one process per :class:`SearchProcess`, started at the first question; :meth:`cancel`
and :meth:`close` kill it (a question being thought about raises :class:`SearchCancelled`). The
process returns when its pipe closes (the caller exited or was killed) and ends a search after the
current round when the caller is gone: no orphan thinks on.
"""
from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from gouji_dsl.engine.interpreter import GameState, Move
from gouji_dsl.ruleset.graph import RuleGraph

JOIN_SECONDS = 5.0
"""How long :meth:`SearchProcess.close` waits for the ended process to be reaped."""


class SearchCancelled(Exception):
    """The question was given up (:meth:`SearchProcess.close` while it was thought about)."""


class SearchFailed(Exception):
    """The bot failed in the search process: the message is the failure in words (a rule's
    ``file:line: message`` for a :class:`~gouji_dsl.diagnostics.GoujiError`)."""


def _serve(questions: Any, answers: Any, parent: int) -> None:  # pragma: no cover - runs in the child process
    """The search process: read the pickled resolved ruleset and compile it, then answer
    ``(spec, rng_state, record, moves)`` questions with ``("ok", move, rng_state, analysis)`` or
    ``("error", message, None, None)``; return when the caller closes its end."""
    from gouji_dsl.bots import make_bot
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.interpreter import replay
    from gouji_dsl.ruleset.graph import compile_ruleset
    try:
        graph = compile_ruleset(pickle.loads(questions.recv_bytes()))
    except (EOFError, OSError):
        return
    conn = questions

    def orphaned() -> bool:
        return os.getppid() != parent

    while True:
        try:
            spec, rng_state, record, moves = conn.recv()
        except (EOFError, OSError):
            return
        try:
            state = replay(graph, record)
            rng = random.Random()
            rng.setstate(rng_state)
            bot: Any = make_bot(spec, rng)
            bot.stop = orphaned
            move = bot.choose(state, moves)
            answer: tuple[Any, ...] = ("ok", move, bot.rng.getstate(), getattr(bot, "last", None))
        except GoujiError as e:
            answer = ("error", e.format(), None, None)
        except Exception as e:  # the caller shows it as the bot's failure
            answer = ("error", f"{type(e).__name__}: {e}", None, None)
        try:
            answers.send(answer)
        except (EOFError, OSError):
            return


class SearchProcess:
    """Runs search bots' ``choose`` for positions of one ruleset in one spawned process."""

    def __init__(self, graph: RuleGraph):
        self._blob = pickle.dumps(graph.resolved)
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None
        self._closed = False
        self._busy = 0  # questions being thought about

    @property
    def pid(self) -> int | None:
        """The search process's id (None before the first question and once closed)."""
        p = self._proc
        return p.pid if p is not None else None

    def _connection(self) -> Any:
        with self._lock:
            if self._closed:
                raise SearchCancelled("the search process is closed")
            if self._proc is None or self._proc.poll() is not None:
                q_read, q_write = os.pipe()
                a_read, a_write = os.pipe()
                try:
                    proc = subprocess.Popen([sys.executable, "-m", "gouji_dsl.bots.process", str(q_read), str(a_write),
                                             str(os.getpid())], pass_fds=(q_read, a_write), stdin=subprocess.DEVNULL,
                                            close_fds=True)
                finally:
                    os.close(q_read)
                    os.close(a_write)
                self._proc = proc
                self._conn = (Connection(q_write, readable=False), Connection(a_read, writable=False))
                self._conn[0].send_bytes(self._blob)
            return self._conn

    def choose(self, spec: str, bot: Any, state: GameState, moves: Sequence[Move]) -> Move:
        """``bot.choose(state, moves)`` for the bot made from ``spec``, thought in the search
        process (blocking: call it from a worker thread). ``bot`` takes the generator state and the
        analysis back. Raises :class:`SearchCancelled` when closed meanwhile, :class:`SearchFailed`
        when the bot failed."""
        questions, answers = self._connection()
        self._busy += 1
        try:
            questions.send((spec, bot.rng.getstate(), list(state.record), list(moves)))
            kind, value, rng_state, last = answers.recv()
        except (EOFError, OSError):
            raise SearchCancelled("the search process ended") from None
        finally:
            self._busy -= 1
        if kind != "ok":
            raise SearchFailed(str(value))
        bot.rng.setstate(rng_state)
        bot.last = last
        return value  # type: ignore[no-any-return]

    def cancel(self) -> None:
        """End the question being thought about (it raises :class:`SearchCancelled`); the next
        question starts a new process. Nothing to do when no question is being thought about."""
        if self._busy:
            self._end(closed=False)

    def close(self) -> None:
        """End the process for good (a question being thought about raises :class:`SearchCancelled`)."""
        self._end(closed=True)

    def _end(self, closed: bool) -> None:
        with self._lock:
            self._closed = self._closed or closed
            proc, conn = self._proc, self._conn
            self._proc = self._conn = None
        if proc is not None:
            proc.kill()  # (a search holds no resource of the caller's: nothing to wind down)
            try:
                proc.wait(JOIN_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        if conn is not None:
            for c in conn:
                c.close()


__all__ = ["SearchCancelled", "SearchFailed", "SearchProcess"]

if __name__ == "__main__":  # pragma: no cover - the child: python -m gouji_dsl.bots.process Q_FD A_FD PARENT_PID
    _serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False), int(sys.argv[3]))
