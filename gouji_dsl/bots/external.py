"""External process bots: ``--bots exec:CMD`` (README "Bots from outside", "Exec bots").

The command is split as a shell would split it (:func:`shlex.split`, no shell is run) and started
once per command in each process that plays (the seats and games it plays share it). It talks JSON
lines: one JSON object per line, UTF-8, on its standard input and output; its standard error is
the caller's (for the bot's own diagnostics).

For every decision the bot reads one ``choose`` message and writes one answer::

    {"type": "choose", "protocol": 1, "seat": 3, "time_limit": 10.0, "seed": 8149..., "view": {...},
     "moves": ["3 play 55", "3 pass"]}
    {"move": "3 play 55"}

``view`` is :meth:`SeatView.to_json <gouji_dsl.bots.view.SeatView.to_json>` (only what the seat
sees), ``moves`` the legal moves in the notation, ``seed`` a number from the seat's generator (a bot
that draws from it plays the same moves for the same ``--seed``), ``time_limit`` the seconds it has.
The answer's ``move`` is a move line read by the project's parser; it must be legal. When the input
ends (the caller is done, or exits) the bot should exit; a bot still running :data:`CLOSE_SECONDS`
after that is killed. Either way the process is waited for (reaped).

A time limit per decision: ``exec@SECONDS:CMD`` (default :data:`DEFAULT_SECONDS`). An illegal or
unreadable answer, no answer in time, or an exit is a :class:`~gouji_dsl.bots.outside.BotFailed`
naming the bot, the seat and the answer; a bot that timed out is killed (its next question starts it
again).
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import random
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing import util as mp_util
from typing import Any

from gouji_dsl.bots import EXEC_SECONDS
from gouji_dsl.bots.outside import BotFailed
from gouji_dsl.bots.view import PROTOCOL_VERSION, SeatView
from gouji_dsl.diagnostics import Code
from gouji_dsl.i18n import _

DEFAULT_SECONDS = EXEC_SECONDS
"""An exec bot's time limit per decision unless its spec gives one (``exec@2:CMD``)."""
MAX_SECONDS = 600.0
"""The longest time limit a spec may give."""
CLOSE_SECONDS = 2.0
"""How long a bot may take to exit once its input is closed before it is killed."""
MAX_LINE_BYTES = 1 << 20
"""The longest answer line read (a bot writing without a newline is cut off there)."""


def parse_limit(text: str) -> float:
    """The seconds of ``exec@SECONDS``: a plain decimal number, 0 < s <= :data:`MAX_SECONDS`."""
    t = text.strip()
    ok = t.replace(".", "", 1).isascii() and t.replace(".", "", 1).isdigit()
    if not ok or not 0 < float(t) <= MAX_SECONDS:
        raise ValueError(f"exec@{t}: the time limit is seconds per decision, a number above 0 and at most {MAX_SECONDS:g}")
    return float(t)


class ProgramProblem(ValueError):
    """An exec bot's program that cannot be started (:func:`program_problem`): a usage error where the
    options are read; in a run's worker (a remote Dask worker, where the file may be missing or not
    executable although the driver's machine has it) the run turns it into a
    :class:`~gouji_dsl.bots.outside.BotFailed` (:meth:`failed`), the error every bot failure is."""

    def __init__(self, command: str, message: str):
        super().__init__(message)
        self.command = command

    def failed(self, where: str) -> BotFailed:
        """This problem as the bot's failure, found ``where`` (a worker's name)."""
        return BotFailed(f"exec:{self.command}", None, _("cannot be started {where}: {why}").format(where=where, why=self),
                         Code.BOT_EXITED)


def program_problem(command: str, program: str) -> None:
    """Refuse, when the options are read (not at the first decision), a program that cannot be
    started: no such file / not on PATH, or a file that is not executable. :class:`ProgramProblem`
    (a ValueError: a usage error)."""
    try:
        _program_problem(command, program)
    except ValueError as e:
        raise ProgramProblem(command, str(e)) from None


def _program_problem(command: str, program: str) -> None:
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.exists(program):
            more = (_(" (a path with spaces must be quoted: exec:'{q}')").format(q=command) if " " in command else "")
            raise ValueError(_("exec:{command}: there is no file {program!r}{more}").format(
                command=command, program=program, more=more))
        if os.path.isdir(program) or not os.access(program, os.X_OK):
            raise ValueError(_("exec:{command}: {program!r} is not an executable file (chmod +x it, or write "
                               "exec:'python3 {program}')").format(command=command, program=program))
    elif shutil.which(program) is None:
        raise ValueError(_("exec:{command}: there is no program {program!r} on the PATH (a file here is "
                           "written ./{program})").format(command=command, program=program))


class ExecProcess:
    """One running external bot (one per command and calling process, see :func:`process_for`)."""

    def __init__(self, command: str):
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"exec:{command}: the command cannot be split as a shell would ({e})") from None
        if not self.argv:
            raise ValueError("exec: a command is missing (exec:./mybot.py)")
        program_problem(command, self.argv[0])
        self._proc: subprocess.Popen[bytes] | None = None
        self._buf = b""
        self.asked = 0  # questions written to the running process (its lines answer them in order)
        self.lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def _started(self, bot: str, seat: int | None) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._reap()
        try:
            # its own session (process group): at close the whole group is ended, the bot's own children too
            self._proc = spawn(self.argv)
        except OSError as e:
            why = _("could not be started ({program!r}: {e})").format(program=self.argv[0], e=e.strerror or e)
            raise BotFailed(bot, seat, why, Code.BOT_EXITED) from None
        self._buf = b""
        self.asked = 0
        return self._proc

    def ask(self, bot: str, seat: int | None, message: dict[str, Any], limit: float) -> Any:
        """Send ``message`` and read one JSON answer within ``limit`` seconds.

        The bot's standard output is read in order, whenever its lines arrive: its ``n``-th line since it
        started is the answer to its ``n``-th question. So a line that answers nothing (a banner at
        start-up, a log line, a second answer) is read as the answer to the next question and refused
        the same way whether it arrived before or after that question was written (``BotBadOutput``
        when it is no JSON object with a ``"move"``)."""
        proc = self._started(bot, seat)
        assert proc.stdin is not None and proc.stdout is not None
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except OSError:
            raise BotFailed(bot, seat, self._exited(_("exited before it was asked")), Code.BOT_EXITED) from None
        self.asked += 1
        line = self._read_line(bot, seat, proc, limit)
        try:
            return json.loads(line, object_pairs_hook=_no_twice)
        except _KeyTwice as e:
            self.kill()
            raise BotFailed(bot, seat, _("answered {line!r}, which has the key {key!r} twice").format(
                line=line[:80].decode(errors="replace"), key=e.key), Code.BOT_BAD_OUTPUT) from None
        except ValueError:
            self.kill()
            raise BotFailed(bot, seat, _("answered {line!r}, which is not JSON (one line such as {example}){order}").format(
                line=line[:80].decode(errors="replace"), example='{"move": "3 pass"}', order=self.in_order()),
                            Code.BOT_BAD_OUTPUT) from None

    def in_order(self) -> str:
        """Said of a line that answers nothing: where it was read (the answer to which question)."""
        return _("; it was line {n} of its standard output, read as the answer to its question {n}: every line it "
                 "writes there answers the next question, in order (a banner or a log goes to standard error)").format(
            n=self.asked)

    def _read_line(self, bot: str, seat: int | None, proc: subprocess.Popen[bytes], limit: float) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + limit
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE_BYTES:
                self.kill()
                raise BotFailed(bot, seat, _("wrote more than {n:,} bytes without a newline").format(n=MAX_LINE_BYTES), Code.BOT_BAD_OUTPUT)
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                why = _("gave no answer within {limit:g} s (the time limit: exec@SECONDS:CMD); it was ended").format(limit=limit)
                raise BotFailed(bot, seat, why, Code.BOT_TIMEOUT)
            ready, _w, _x = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise BotFailed(bot, seat, self._exited(_("exited without answering")), Code.BOT_EXITED)
            self._buf += chunk
        line, _nl, self._buf = self._buf.partition(b"\n")
        return line

    def _exited(self, when: str) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(CLOSE_SECONDS)
            except subprocess.TimeoutExpired:
                self.kill()
        self._proc = None
        return when + (_(" (exit code {code})").format(code=code) if code is not None else "")

    def kill(self) -> None:
        """End the process and its group (its children) now and reap it."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _signal_group(proc, signal.SIGKILL)
            _wait(proc)

    def close(self) -> None:
        """Close the bot's input (it should exit), kill it after :data:`CLOSE_SECONDS`, reap it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        _end_group(proc)
        _wait(proc)

    def _reap(self) -> None:
        if self._proc is not None:
            _wait(self._proc)
            self._proc = None


# ------------------------------------------------------------------------------ dying with the caller
PR_SET_PDEATHSIG = 1
"""prctl(2)'s request: the signal the kernel sends the calling process when its parent thread ends."""


def _death_signal() -> Callable[[], None] | None:
    """What the bot's process runs between fork and exec on Linux: ask for SIGKILL when its parent
    ends (``prctl(PR_SET_PDEATHSIG)``), and end at once if the parent already has. None elsewhere (or
    without a C library to ask): there a bot that ignores the end of its input outlives a caller killed
    with ``kill -9`` (README: Exec bots)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - no C library to ask
        return None
    parent = os.getpid()
    kill = int(signal.SIGKILL)

    def in_child() -> None:  # (between fork and exec: no allocation worth the name, no locks)
        prctl(PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:  # the caller died before the request took effect
            os._exit(1)

    return in_child


class _Spawner:
    """The one thread of this process that starts exec bots. The kernel's "parent" of a death signal
    is the thread that forked the child, so a bot started by a thread that then ends (a game played
    in a worker thread of the app) would be killed with it: every bot is started from this thread,
    which lives as long as the process (a daemon, waiting for requests)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.requests: queue.SimpleQueue[tuple[list[str], list[Any], threading.Event]] = queue.SimpleQueue()
        self.in_child = _death_signal()
        if self.in_child is not None:  # (nothing to ask the kernel: the callers' threads start the bots)
            threading.Thread(target=self._serve, name="gouji-exec-bots", daemon=True).start()

    def _serve(self) -> None:
        while True:
            argv, box, done = self.requests.get()
            try:
                box.append(self._popen(argv))
            except BaseException as e:  # (handed to the caller, raised there)
                box.append(e)
            done.set()

    def _popen(self, argv: list[str]) -> subprocess.Popen[bytes]:
        # its own session (process group): at close the whole group is ended, the bot's own children too
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True,
                                preexec_fn=self.in_child)

    def popen(self, argv: list[str]) -> subprocess.Popen[bytes]:
        box: list[Any] = []
        done = threading.Event()
        self.requests.put((argv, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]  # type: ignore[no-any-return]


_SPAWNER: _Spawner | None = None
_SPAWNER_LOCK = threading.Lock()


def spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    """Start an exec bot's process: its own session (process group), pipes to its standard input and
    output, and on Linux killed by the kernel when this process ends, even by ``kill -9`` (a bot that
    ignores the end of its input is not left running: :class:`_Spawner`)."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None or _SPAWNER.pid != os.getpid():  # (a forked worker starts its own thread)
            _SPAWNER = _Spawner()
        spawner = _SPAWNER
    if spawner.in_child is None:  # nothing to ask the kernel: no thread needed
        return spawner._popen(argv)
    return spawner.popen(argv)


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the bot's process group (its own session: the bot and every child it started)."""
    try:
        os.killpg(proc.pid, sig)
    except OSError:  # the group is gone (or was never its own)
        if proc.poll() is None:
            proc.send_signal(sig)


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """End what is left of the bot's group: SIGTERM, then SIGKILL after at most :data:`CLOSE_SECONDS`."""
    if not _group_alive(proc.pid):
        return
    _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + CLOSE_SECONDS
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        if proc.poll() is None:
            try:
                proc.wait(0.05)
            except subprocess.TimeoutExpired:
                pass
        else:
            time.sleep(0.02)  # children of the bot (reaped by init): bounded by the deadline
    if _group_alive(proc.pid):
        _signal_group(proc, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except OSError:
        return False
    return True


def _wait(proc: subprocess.Popen[bytes]) -> None:
    for f in (proc.stdin, proc.stdout):
        try:
            if f is not None:
                f.close()
        except OSError:
            pass
    try:
        proc.wait(CLOSE_SECONDS)
    except subprocess.TimeoutExpired:  # pragma: no cover - a killed process that does not end
        pass


class _KeyTwice(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _KeyTwice(k)
        out[k] = v
    return out


_PROCESSES: dict[str, ExecProcess] = {}
_LOCK = threading.Lock()


def process_for(command: str) -> ExecProcess:
    """The process of ``command`` in this process (started at its first question)."""
    with _LOCK:
        p = _PROCESSES.get(command)
        if p is None:
            p = _PROCESSES[command] = ExecProcess(command)
        return p


def close_all() -> None:
    """Close every exec bot of this process (at exit, also in a worker process of a run)."""
    with _LOCK:
        procs = list(_PROCESSES.values())
        _PROCESSES.clear()
    for p in procs:
        p.close()


def kill_all_now() -> None:
    """Kill every exec bot of this process with its process group, now, taking no lock (from a
    signal handler: a worker process being terminated)."""
    for p in list(_PROCESSES.values()):
        proc = p._proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass


def _forget_in_child() -> None:
    """A forked child (a run's worker) does not share its parent's bots: it drops its copies of
    their pipes (the parent still talks to them) and starts its own."""
    global _LOCK, _SPAWNER_LOCK
    _LOCK = threading.Lock()
    _SPAWNER_LOCK = threading.Lock()  # (the spawner thread is the parent's: spawn() starts this process's own)
    for p in list(_PROCESSES.values()):
        proc, p._proc = p._proc, None
        for f in (proc.stdin, proc.stdout) if proc is not None else ():
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
    _PROCESSES.clear()


atexit.register(close_all)
os.register_at_fork(after_in_child=_forget_in_child)
mp_util.Finalize(None, close_all, exitpriority=10)  # a run's worker processes skip atexit: multiprocessing's exit runs this


class ExecBot:
    """The outside bot of one seat, asking ``command``'s process (see the module docstring)."""

    def __init__(self, spec: str, command: str, limit: float, rng: random.Random):
        self.spec, self.command, self.limit, self.rng = spec, command, limit, rng
        self.process = process_for(command)

    def choose(self, view: SeatView, moves: tuple[str, ...]) -> str:
        message = {"type": "choose", "protocol": PROTOCOL_VERSION, "seat": view.seat, "time_limit": self.limit,
                   "seed": self.rng.getrandbits(63), "view": view.to_json(), "moves": list(moves)}
        with self.process.lock:
            answer = self.process.ask(self.spec, view.seat, message, self.limit)
        if not isinstance(answer, dict) or "move" not in answer:
            order = self.process.in_order()
            self.process.kill()
            raise BotFailed(self.spec, view.seat, _("answered {json}, not an object with a \"move\"{order}").format(
                json=json.dumps(answer)[:80], order=order), Code.BOT_BAD_OUTPUT)
        return answer["move"]  # type: ignore[no-any-return]


__all__ = ["CLOSE_SECONDS", "DEFAULT_SECONDS", "ExecBot", "ExecProcess", "ProgramProblem", "close_all", "parse_limit", "process_for"]
