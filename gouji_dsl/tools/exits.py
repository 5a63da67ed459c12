"""What every ``gouji`` command shares at its edge: exit statuses, the stderr line, the seed option's value,
and a quiet stop when standard output is closed (``gouji simulate ... | head -1``)."""
from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Any

import click

import gouji_dsl
from gouji_dsl.diagnostics import GoujiError, printable, shortened
from gouji_dsl.i18n import N_, _

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 130
"""Exit statuses of every command: 0 ok, 1 bad input (diagnostics printed), 2 internal error (a bug:
a one-line message and the path of a saved crash report) — or a command-line usage error (click's
usage message: an unknown option, a bad option value); 130 interrupted (Ctrl+C, or SIGTERM during a run);
:data:`EXIT_RUN_STOPPED` (3) a run stopped by its surroundings, resumable."""

EXIT_RUN_STOPPED = 3
"""A run stopped by its surroundings, resumable: the Dask scheduler was lost, workers kept dying, or
the ``--out`` folder (or ``gouji duel``'s ``--save`` file) could not be written (a full disk, a
read-only folder). Every file the run
wrote is whole; the same command with ``--resume`` continues (one line says so)."""

EXIT_PIPE_CLOSED = 141
"""Standard output was closed by its reader (``| head``): stop quietly with the status a shell gives a
program that SIGPIPE ended (128 + 13), not 1 (which means bad input here)."""


def shown(text: Any, *, lines: bool = False) -> str:
    """``text`` (a name from a file, a message quoting one) safe for a terminal: every control
    character written as its Python escape (``\\x1b``, ``\\x9b``, ``\\u202e``), so a file can neither
    colour the output, set the window title, write the clipboard (OSC 52) nor ring the bell. Tabs
    and newlines are escaped too unless ``lines`` (a multi-line message or report). Not Rich markup
    escaping: see :func:`shown_markup` for text that a Rich console interprets. (The one
    implementation: :func:`gouji_dsl.diagnostics.printable`, which diagnostics use for their source line.)"""
    return printable(text, lines=lines)


def shown_markup(text: Any) -> str:
    """:func:`shown`, then Rich markup escaped (``[red]`` shows as itself): for a name interpolated into
    text printed by a Rich console."""
    from rich.markup import escape
    return escape(shown(text))


_JSON_CONTROL = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``, which writes C0 controls as ``\\u001b`` but
    DEL, C1 and the bidirectional controls as they are) with those written as ``\\uXXXX`` too: the same
    JSON value, safe to print on a terminal."""
    return _JSON_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def echo(text: str = "", *, nl: bool = True, err: bool = False) -> None:
    """A command's output (a report, a listing: lines of text) with the control characters of names
    from files escaped (:func:`shown`)."""
    click.echo(shown(text, lines=True), nl=nl, err=err)


def echo_json(text: str) -> None:
    """JSON output (see :func:`shown_json`)."""
    click.echo(shown_json(text))


def err(text: str) -> None:
    """One line on standard error (control characters of names from files escaped: :func:`shown`)."""
    click.echo(shown(text, lines=True), err=True)


def seed_value(seed: str) -> Any:
    """``--seed 5`` is the integer 5 (as ``gouji simulate`` has always taken it), any other text a string
    (``--5``, ``²`` or ``٣`` too: ``str.isdigit`` takes superscripts, which ``int`` refuses)."""
    body = seed[1:] if seed.startswith("-") else seed
    return int(seed) if body.isascii() and body.isdigit() else seed


MAX_SEED_CHARS = 200
"""Longest seed, in characters (every ``--seed`` option, the play screen's new-game dialog and a
scenario case's ``seed``): a 5,000-digit seed was an internal error (Python converts at most 4,300
digits to a number)."""


def seed_problem(seed: str) -> str | None:
    """Why ``seed`` (as typed) is not a seed, or None: it is a number or a word of at most
    :data:`MAX_SEED_CHARS` characters, not empty."""
    if not seed.strip():
        return _("give a number or a word, not an empty text")
    if len(seed) > MAX_SEED_CHARS:
        return _("a seed of {n:,} characters; at most {max_seed_chars} (MAX_SEED_CHARS)").format(n=len(seed), max_seed_chars=MAX_SEED_CHARS)
    return None


class SeedType(click.ParamType):
    """Every ``--seed`` option: a number or a word, never empty (an empty seed would deal from ``:i``
    and show as ``seed `` in the report; the play screen's new-game dialog refuses it too), at most
    :data:`MAX_SEED_CHARS` characters. The value stays text; :func:`seed_value` turns it into the seed."""

    name = "seed"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and (problem := seed_problem(value)):
            self.fail(problem, param, ctx)
        return value


SEED = SeedType()
"""The type of every command's ``--seed`` option."""


def set_option(f: Any) -> Any:
    """Every command's ``--set KEY=VALUE`` option (repeatable; a one-line override of a setting,
    :mod:`gouji_dsl.ruleset.overrides`): the values, in order, as ``overrides`` (a tuple of text)."""
    return click.option(
        "--set", "overrides", multiple=True, metavar="KEY=VALUE",
        help=N_("Override a setting for this command, checked as a variant file's settings are: e.g. --set "
                "filler_rank=null, --set gouji_minimum.2=2 (dots go into a map; the value is YAML). Repeatable."))(f)


def load_graph(ruleset: str, overrides: Any = ()) -> Any:
    """RULESET resolved and compiled, with the ``--set`` ``overrides`` (:func:`set_option`); raises
    :class:`~gouji_dsl.diagnostics.GoujiError` with every problem (an override's at the option)."""
    if overrides:
        from gouji_dsl.ruleset import overrides as layers  # lazy: start-up
        return layers.load_graph(ruleset, list(overrides))
    return gouji_dsl.compile(gouji_dsl.load(ruleset))


def report(e: GoujiError) -> None:
    """Every diagnostic of ``e`` in its long form (caret and hint), on stderr."""
    for d in e.diagnostics:
        err(d.format())


def load_graph_or_exit(ruleset: str, overrides: Any = ()) -> Any:
    """:func:`load_graph`, or exit 1 (:data:`EXIT_BAD_INPUT`) with its diagnostics."""
    try:
        return load_graph(ruleset, overrides)
    except GoujiError as e:
        report(e)
        sys.exit(EXIT_BAD_INPUT)


def text_width() -> int:
    """The width a text report is wrapped to: the terminal's (at least 40), else 100."""
    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((100, 24)).columns)
    return 100


def path_problem(path: str, *, folder: bool | None) -> str | None:
    """Why ``path`` cannot be used as a file (``folder`` False), a folder (True) or either (None) to
    read or write, or None:
    too long for the system, a symbolic link that loops or points nowhere, something that is not
    a folder on the way, the wrong kind of thing. A path that does not exist yet is no problem (it is
    created, or its command says it is missing)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return _os_problem(e)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return _("a symbolic link to {shown!r}, which does not exist").format(shown=shown(target))
    except OSError as e:
        return _os_problem(e)
    import stat
    if folder is True and not stat.S_ISDIR(st.st_mode):
        return _("not a folder")
    if folder is False and stat.S_ISDIR(st.st_mode):
        return _("a folder, not a file")
    return None


def os_failure(path: Any, doing: str, e: OSError) -> str:
    """``PATH: cannot DOING: why`` for an OS error on a path the user gave (``--save``, ``--out``, a
    record ...): the path escaped (:func:`shown`), what failed, and why in words. A read's or write's
    own error names no file (``[Errno 5] Input/output error`` said neither which file nor what)."""
    return _("{shown}: cannot {doing}: {os_problem}").format(shown=shown(os.fspath(path)), doing=doing, os_problem=_os_problem(e))


def _os_problem(e: OSError) -> str:
    import errno
    if e.errno == errno.ENAMETOOLONG:
        return _("the path is too long for the system (a name of at most 255 bytes, a path of at most 4,096)")
    if e.errno == errno.ELOOP:
        return _("symbolic links loop on this path")
    if e.errno == errno.ENOTDIR:
        return _("a part of the path is a file, not a folder")
    return e.strerror or str(e)


class SafePath(click.Path):
    """:class:`click.Path` whose value is checked first with :func:`path_problem`: a path the system
    would refuse later (too long, a looping or dangling symbolic link, a file where a folder is
    expected) is a usage error at once, not an internal error after the work (every path option)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        kind = None if self.file_okay and self.dir_okay else not self.file_okay
        if isinstance(value, str | os.PathLike) and (problem := path_problem(str(os.fspath(value)), folder=kind)):
            text = shown(os.fspath(value))
            self.fail(f"'{shortened(text)}': {problem}", param, ctx)
        return super().convert(value, param, ctx)


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
