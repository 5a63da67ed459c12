"""A screen's long run in the background: one job at a time in a thread worker, its progress, its
cancelling and its outcome handed back on the app's thread.

The compare screen's simulation and the sweep screen's sweep (and its run-folder reads) are each a
:class:`BackgroundRun`: ``start(job)`` runs ``job(progress, cancel)`` in a thread (``progress(done,
total)`` reports, ``cancel`` is the :class:`threading.Event` Escape sets); when it ends the owner's
``finished(state, payload)`` is called on the app's thread with one of

- ``done`` and what the job returned;
- ``cancelled`` (the job raised :class:`~gouji_dsl.tools.runs.SimulationCancelled`) and None;
- ``problems`` (or ``failed``, as the owner chooses) and the text of a :class:`GoujiError`
  (positioned problems, shown as the command prints them; :attr:`BackgroundRun.error` keeps the
  error itself, its diagnostics and their places);
- ``failed`` and one line for anything else (a simulation's error, or the exception's type and text:
  never a traceback on screen).

A job started later makes an earlier one's progress and outcome stale: they are dropped.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.widget import Widget

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.tools.runs import SimulationCancelled, SimulationError

from ..i18n import _, spaced

Progress = Callable[[int, int], None]
Job = Callable[[Progress, threading.Event], Any]
Outcome = tuple[str, Any]


def outcome_of(error: Exception, gouji_error: str = "problems") -> Outcome:
    """The outcome of a job that raised ``error`` (see the module docstring)."""
    if isinstance(error, SimulationCancelled):
        return "cancelled", None
    if isinstance(error, GoujiError):
        return gouji_error, error.format()
    if isinstance(error, (SimulationError, ValueError)):  # (a run folder's RunError is a ValueError)
        return "failed", str(error)
    return "failed", f"{type(error).__name__}: {error}"


class BackgroundRun:
    """One run at a time of ``owner``'s long job (see the module docstring). ``finished(state, payload)``
    and ``progress(done, total)`` are called on the app's thread, only for the current run and
    while ``owner`` is mounted; ``group`` names the thread worker (a new run replaces the old)."""

    def __init__(self, owner: Widget, group: str, finished: Callable[[str, Any], None],
                 progress: Progress | None = None, *, gouji_error: str = "problems") -> None:
        self.owner = owner
        self.group = group
        self.on_finished = finished
        self.on_progress = progress
        self.gouji_error = gouji_error
        self.running = False
        self.done = 0                          # the progress reported so far (deals played)
        self.error: Exception | None = None    # what the last run raised (None: it did not)
        self._generation = 0
        self._cancel: threading.Event | None = None

    def start(self, job: Job, outcome: Callable[[Exception], Outcome] | None = None) -> None:
        """Run ``job`` in a thread; ``outcome`` maps what it raises (default: :func:`outcome_of`)."""
        self._generation += 1
        self.running = True
        self.done = 0
        self.error = None
        self._cancel = cancel = threading.Event()
        classify = outcome or (lambda e: outcome_of(e, self.gouji_error))
        generation, app = self._generation, self.owner.app

        def work() -> None:
            def progress(done: int, total: int) -> None:
                try:
                    app.call_from_thread(self._progress, generation, done, total)
                except RuntimeError:  # the app has closed
                    cancel.set()

            error: Exception | None = None
            try:
                result: Outcome = ("done", job(progress, cancel))
            except Exception as e:  # every failure is an outcome on screen, never a traceback
                error, result = e, classify(e)
            try:
                app.call_from_thread(self._finished, generation, result, error)
            except RuntimeError:
                pass

        self.owner.run_worker(work, thread=True, exclusive=True, group=self.group, exit_on_error=False)

    def cancel(self) -> bool:
        """Ask the running job to stop (its outcome is then ``cancelled``); False when none runs."""
        if not self.running or self._cancel is None:
            return False
        self._cancel.set()
        return True

    def stop(self) -> None:
        """(the owner is unmounted) stop whatever still runs; nobody waits for its outcome."""
        if self._cancel is not None:
            self._cancel.set()

    def _progress(self, generation: int, done: int, total: int) -> None:
        if generation != self._generation or not self.running:
            return
        self.done = done
        if self.on_progress is not None:
            self.on_progress(done, total)

    def _finished(self, generation: int, result: Outcome, error: Exception | None) -> None:
        if not self.owner.is_mounted or generation != self._generation:
            return
        self.running = False
        self._cancel = None
        self.error = error
        self.on_finished(*result)


ENDED = ("cancelling", "cancelled", "failed")
"""The states :func:`ended_status` words."""


def ended_status(t: Text, state: str, done: int, error: str | None, failed: str) -> None:
    """Append to the status line ``t`` how a run ended (``state`` one of :data:`ENDED`): being
    cancelled, cancelled after ``done`` deals, or failed (``error``'s first line, else ``failed``)."""
    if state == "cancelling":
        t.append(_("cancelling…"), style="bold yellow")
    elif state == "cancelled":
        t.append(spaced(_("Cancelled after {n} deals: nothing to show.").format(n=done)), style="bold yellow")
        t.append(_("F5 starts again."), style="dim")
    else:
        t.append("✗ ", style="bold red")
        t.append(str(error or failed).splitlines()[0], style="red")


class RunsInBackground:
    """A screen whose long job is the :class:`BackgroundRun` in ``self.background``: whether it runs
    and how far it got (what the screen's keys, status line and tests look at)."""

    background: BackgroundRun

    @property
    def running(self) -> bool:
        return self.background.running

    @property
    def progress_done(self) -> int:
        return self.background.done


__all__ = ["ENDED", "BackgroundRun", "RunsInBackground", "ended_status", "outcome_of"]
