"""What every ``gouji`` command shares at its edge: exit statuses, the stderr line, the seed option's value,
and a quiet stop when standard output is closed (``gouji simulate ... | head -1``)."""
from __future__ import annotations

import os
import sys
from typing import Any

import click

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 130
"""Exit statuses of every command: 0 ok, 1 bad input (diagnostics printed), 2 internal error (a bug:
a one-line message and the path of a saved crash report) — or a command-line usage error (click's
usage message: an unknown option, a bad option value); 130 interrupted (Ctrl+C)."""

EXIT_PIPE_CLOSED = 141
"""Standard output was closed by its reader (``| head``): stop quietly with the status a shell gives a
program that SIGPIPE ended (128 + 13), not 1 (which means bad input here)."""


def err(text: str) -> None:
    """One line on standard error."""
    click.echo(text, err=True)


def seed_value(seed: str) -> Any:
    """``--seed 5`` is the integer 5 (as ``gouji simulate`` has always taken it), any other text a string
    (``--5``, ``²`` or ``٣`` too: ``str.isdigit`` takes superscripts, which ``int`` refuses)."""
    body = seed[1:] if seed.startswith("-") else seed
    return int(seed) if body.isascii() and body.isdigit() else seed


class SeedType(click.ParamType):
    """Every ``--seed`` option: a number or a word, never empty (an empty seed would deal from ``:i``
    and show as ``seed `` in the report; the play screen's new-game dialog refuses it too). The value
    stays text; :func:`seed_value` turns it into the seed."""

    name = "seed"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("give a number or a word, not an empty text", param, ctx)
        return value


SEED = SeedType()
"""The type of every command's ``--seed`` option."""


def stdout_closed() -> int:
    """Standard output's reader went away: point the descriptor at the null device so that the flush at
    exit cannot fail again (Python would print "Exception ignored ... BrokenPipeError"), and give the
    status to exit with."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real descriptor (captured output): nothing to redirect
        pass
    return EXIT_PIPE_CLOSED


def stdout_console(**options: Any) -> Any:
    """A rich console on standard output whose closed pipe ends the command like any other (rich's own
    handling exits 1, which means bad input here): the command group stops quietly with
    :data:`EXIT_PIPE_CLOSED`."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return _Console(**options)
