"""The door for bots from outside the project: the view-only protocol and the ``gouji.bots`` plug-ins.

A built-in bot (:data:`gouji_dsl.bots.BOTS`) is handed the engine's ``GameState``; a bot from
outside never is. It offers::

    choose(view: SeatView, moves: tuple[str, ...]) -> str

``view`` is what its seat sees (:class:`~gouji_dsl.bots.view.SeatView`: its own hand, the counts
and hands the ruleset shows, the table, the public history), ``moves`` the legal moves as move lines
in the project's notation (NOTATION.md "Moves", cards canonical: ``"3 play RR TTT"``), and the
answer is one move line (read by the project's move parser, so ``"3 play TTT RR"`` is the same move;
it must be one of ``moves``). :class:`ViewOnly` stands between the engine and such a bot: it builds
the view and the lines, asks the bot, and reads the answer; a bad answer, an exception or (for an
external process, :mod:`gouji_dsl.bots.external`) a time-out is a :class:`BotFailed` naming the
bot, the seat and the answer.

Plug-ins: an installed distribution declares entry points in the group ``gouji.bots``::

    [project.entry-points."gouji.bots"]
    mybot = "mypackage.bots:MyBot"

The name (``mybot``) is then a bot spec wherever ``--bots`` is taken. The object it names is called
with the seat's generator (a ``random.Random`` seeded per game and seat, as the built-in bots' are)
and returns the bot (a class taking ``rng`` is the usual form). A plug-in that cannot be loaded
(or is no callable, or makes no bot) is an error naming it, when a spec names it. The built-in bots'
names and ``exec`` come first: a plug-in of such a name is listed as shadowed, never played.
"""
from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol

from gouji_dsl.bots import ENTRY_POINT_GROUP, installed_plugins
from gouji_dsl.bots.deciding import ExitCalled, deciding
from gouji_dsl.bots.view import SeatView, seat_view
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.i18n import _

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.engine.interpreter import GameState, Move


#: legal moves quoted in a message about an illegal answer (the rest are counted)
SHOWN_MOVES = 6


class OutsideBot(Protocol):
    """What a bot from outside offers (see the module docstring)."""

    def choose(self, view: SeatView, moves: tuple[str, ...]) -> str: ...


class BotFailed(GoujiError, RuntimeError):
    """A bot from outside failed a decision: an illegal or unreadable answer, an exception, a
    time-out, an exit. One type for every command (simulate, diff, sweep, duel, league, play): a
    :class:`~gouji_dsl.diagnostics.GoujiError` (the user's bot is at fault, not gouji: printed as one
    line with a stable code and a hint, exit 1) whose :attr:`code` says which failure
    (``IllegalBotMove``, ``BotTimeout``, ``BotExited``, ``BotBadOutput``, ``BotError``). The message names
    the bot, the seat, the game (once known: :meth:`in_game`) and the answer. Picklable: it crosses
    process-pool and Dask workers as itself."""

    def __init__(self, bot: str, seat: int | None, what: str, code: str = Code.BOT_ERROR, game: str | None = None):
        self.bot, self.seat, self.what, self.code, self.game = bot, seat, what, str(code), game
        if seat is None:  # (never started: no seat was asked yet)
            where = _("bot {bot!r}, game {game}").format(bot=bot, game=game) if game else _("bot {bot!r}").format(bot=bot)
        else:
            where = (_("bot {bot!r} at seat {seat}, game {game}").format(bot=bot, seat=seat, game=game) if game
                     else _("bot {bot!r} at seat {seat}").format(bot=bot, seat=seat))
        super().__init__(Diagnostic(where, 0, 0, what, hint=_bot_hint(self.code, bot), code=self.code))
        self.args = (f"{where}: {what}",)

    def __str__(self) -> str:
        return str(self.args[0])

    def in_game(self, seed: object, index: int) -> BotFailed:
        """The same failure, naming the game ``seed:index`` (the first one named is kept)."""
        return self if self.game else BotFailed(self.bot, self.seat, self.what, self.code, f"{seed}:{index}")

    def __reduce__(self):  # type: ignore[override]  # picklable across worker processes, as itself
        return (BotFailed, (self.bot, self.seat, self.what, self.code, self.game))


def worker_died(died: Sequence[tuple[str, int | None, int | None]], start: int, stop: int) -> BotFailed:
    """The failure of the bot (the first of ``died``: :func:`gouji_dsl.bots.deciding.died_deciding`)
    that was deciding when its worker process died, playing deals ``start`` .. ``stop - 1``."""
    bot, seat, code = died[0]
    deals = (_("deal {start}").format(start=start) if stop - start <= 1
             else _("deals {start}–{last}").format(start=start, last=stop - 1))
    return BotFailed(bot, seat, _("its worker process died while it was deciding, playing {deals} (exit code {code}): "
                                  "a bot must not end the process that plays it").format(deals=deals, code=code),
                     Code.BOT_EXITED)


def _bot_hint(code: str, bot: str = "exec") -> str:
    if code == Code.ILLEGAL_BOT_MOVE:
        return _("the bot must answer one of the move lines it was sent in \"moves\" (README: Bots from outside)")
    if code == Code.BOT_TIMEOUT:
        return _("give it more time with exec@SECONDS:CMD, or make it answer sooner")
    if code == Code.BOT_EXITED and not bot.startswith("exec"):  # a plug-in: its process is the one that plays
        return _("a plug-in bot runs in the process that plays it: it returns its move, and never exits or ends "
                 "that process")
    if code == Code.BOT_EXITED:
        return _("run the bot's command by hand to see why it stops (its standard error is shown above)")
    if code == Code.BOT_BAD_OUTPUT:
        return _("answer each question with exactly one JSON line such as {\"move\": \"3 pass\"}")
    return _("the exception is the bot's own: fix the bot")


def legal_list(texts: Sequence[str]) -> str:
    """The first legal moves, quoted, and how many there are: for a message."""
    head = ", ".join(repr(t) for t in texts[:SHOWN_MOVES])
    more = _(", … ({n} in all)").format(n=len(texts)) if len(texts) > SHOWN_MOVES else ""
    return head + more


def read_answer(bot: str, state: GameState, answer: Any, moves: Sequence[Move], texts: Sequence[str]) -> Move:
    """The legal move ``answer`` (a move line) names; :class:`BotFailed` when it names none."""
    seat = state.to_act
    if not isinstance(answer, str):
        raise BotFailed(bot, seat, _("answered {answer!r}, not a move line (legal: {legal})").format(
            answer=answer, legal=legal_list(texts)), Code.ILLEGAL_BOT_MOVE)
    try:
        move = state.parse(answer)
    except GoujiError as e:
        raise BotFailed(bot, seat, _("answered {answer!r}, which is no move: {why} (legal: {legal})").format(
            answer=answer[:80], why=e.diagnostics[0].message, legal=legal_list(texts)), Code.ILLEGAL_BOT_MOVE) from None
    if move not in moves:
        raise BotFailed(bot, seat, _("answered {answer!r}, which is not a legal move now (legal: {legal})").format(
            answer=answer[:80], legal=legal_list(texts)),
                        Code.ILLEGAL_BOT_MOVE)
    return move


class ViewOnly:
    """A bot from outside, seated at the engine's table: :meth:`choose` takes the engine's state,
    gives the bot only the seat's view and the legal move lines, and checks its answer."""

    def __init__(self, name: str, bot: OutsideBot, rng: random.Random):
        self.name = name
        self.rng = rng
        self._bot = bot

    def choose(self, state: GameState, moves: Sequence[Move]) -> Move:
        seat = state.to_act
        view = seat_view(state, seat)
        texts = tuple(m.text(state.model) for m in moves)
        try:
            with deciding(self.name, seat):  # (os._exit here is the bot's failure; a worker's note names it)
                answer = self._bot.choose(view, texts)
        except (BotFailed, KeyboardInterrupt):
            raise
        except ExitCalled as e:  # os._exit(): it would end the command at once, games unfinished, often with 0
            raise BotFailed(self.name, seat, _("called os._exit({code}) while deciding: a bot must not end the process "
                                               "that plays it").format(code=e.code), Code.BOT_EXITED) from None
        except BaseException as e:  # SystemExit (sys.exit() in the bot) too: never a silent exit 0
            raise BotFailed(self.name, seat, _("failed: {type}: {e}").format(type=type(e).__name__, e=e)) from e
        return read_answer(self.name, state, answer, moves, texts)

    def close(self) -> None:
        """Close the bot (an external process is kept for the next game: see ``external.close_all``)."""
        close = getattr(self._bot, "close", None)
        if callable(close):
            close()


# ------------------------------------------------------------------------------ plug-ins
def installed() -> dict[str, metadata.EntryPoint]:
    """The installed bot plug-ins by (lower-case) name (:func:`gouji_dsl.bots.installed_plugins`)."""
    return installed_plugins()


def _where(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{ep.value}" + (f", from {dist.name} {dist.version}" if dist is not None else "")


@functools.cache
def plugin_factory(name: str) -> Callable[[random.Random], OutsideBot] | None:
    """The factory of plug-in ``name`` (None: no such plug-in). Raises ValueError naming the
    plug-in when it cannot be loaded or is no callable."""
    ep = installed().get(name)
    if ep is None:
        return None
    try:
        obj = ep.load()
    except Exception as e:
        raise ValueError(f"bot plug-in {ep.name!r} ({_where(ep)}) could not be loaded: {type(e).__name__}: {e}") from None
    if not callable(obj):
        raise ValueError(f"bot plug-in {ep.name!r} ({_where(ep)}) is {type(obj).__name__}, not a class or function "
                         "taking the seat's random.Random")
    return obj  # type: ignore[no-any-return]


def make_plugin(name: str, rng: random.Random) -> ViewOnly:
    """Plug-in ``name``'s bot for one seat, behind the view-only door. Raises ValueError when it
    cannot be built."""
    factory = plugin_factory(name)
    if factory is None:  # pragma: no cover - parse_bot_spec looked it up
        raise ValueError(f"no bot plug-in {name!r}")
    try:
        bot = factory(rng)
    except Exception as e:
        raise ValueError(f"bot plug-in {name!r} could not be made: {type(e).__name__}: {e}") from None
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(f"bot plug-in {name!r} made {type(bot).__name__}, which has no choose(view, moves)")
    return ViewOnly(name, bot, rng)


__all__ = ["ENTRY_POINT_GROUP", "BotFailed", "OutsideBot", "ViewOnly", "installed", "make_plugin", "plugin_factory",
           "read_answer", "worker_died"]
