"""Bots: one registry of bot kinds by name (random, heuristic, pimc, ismcts).

A bot is an object with a ``name`` and ``choose(state, moves) -> Move`` that picks one of the legal
``moves`` of the seat to act. :func:`make_bot` builds one from a *bot spec*:

- ``NAME`` — a kind from :data:`BOTS` (``random``, ``heuristic``, ``pimc``, ``ismcts``);
- ``NAME:N`` — a search bot with a budget of ``N`` iterations (rollouts) per decision;
- ``exec:CMD`` / ``exec@SECONDS:CMD`` — an external program speaking JSON lines
  (:mod:`gouji_dsl.bots.external`), SECONDS its time limit per decision;
- the name of an installed plug-in (entry-point group ``gouji.bots``: :mod:`gouji_dsl.bots.outside`).

Bots from outside (exec, plug-ins) see only their seat's view and the legal move lines
(:class:`gouji_dsl.bots.outside.ViewOnly`); the built-in bots are handed the engine's state.

A search bot's budget is iterations (deterministic: the same seed gives the same moves on any
machine) unless a think time is given (``think_ms``, ``--think-ms``): then it searches for that long
per decision (and at most ``N`` iterations when the spec names ``N``), which depends on the speed of
the machine. Decisions with one legal move are never searched.

Search bots see the game only through :mod:`gouji_dsl.bots.determinize` (the seat's own view);
see :mod:`gouji_dsl.bots.pimc` and :mod:`gouji_dsl.bots.ismcts`.
"""
from __future__ import annotations

import difflib
import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gouji_dsl.bots.budget import Budget
from gouji_dsl.i18n import N_, _

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.bots.heuristic import HeuristicBot, RandomBot, card_values, hand_power
    from gouji_dsl.engine.interpreter import GameState, Move

__all__ = ["BOTS", "Bot", "BotKind", "Budget", "HeuristicBot", "RandomBot", "bot_names", "card_values", "hand_power",
           "canonical_spec", "installed_plugins", "is_outside", "make_bot", "parse_bot_spec", "runner_bots", "seat_bots"]

_LAZY = {"HeuristicBot", "RandomBot", "card_values", "hand_power"}


def __getattr__(name: str) -> Any:
    """The bot classes load on first use (``gouji --help`` does not import the engine)."""
    if name in _LAZY:
        from gouji_dsl.bots import heuristic
        return getattr(heuristic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Bot(Protocol):
    """What every bot offers."""

    name: str

    def choose(self, state: GameState, moves: Sequence[Move]) -> Move: ...


@dataclass(frozen=True)
class BotKind:
    """A kind of bot: ``name``, one line for players (``summary``), whether it ``searches`` (takes a
    budget), its default budget in iterations, and its factory ``make(rng, budget)``."""

    name: str
    summary: str
    make: Callable[[random.Random, Budget | None], Bot]
    searches: bool = False
    default_iterations: int = 0


def _pimc(rng: random.Random, budget: Budget | None) -> Bot:
    from gouji_dsl.bots.pimc import PimcBot
    return PimcBot(rng, budget or Budget(BOTS["pimc"].default_iterations))


def _ismcts(rng: random.Random, budget: Budget | None) -> Bot:
    from gouji_dsl.bots.ismcts import IsmctsBot
    return IsmctsBot(rng, budget or Budget(BOTS["ismcts"].default_iterations))


def _random(rng: random.Random, _budget: Budget | None) -> Bot:
    from gouji_dsl.bots.heuristic import RandomBot
    return RandomBot(rng)


def _heuristic(rng: random.Random, _budget: Budget | None) -> Bot:
    from gouji_dsl.bots.heuristic import HeuristicBot
    return HeuristicBot(rng)


#: The search bots' default budgets (issue 24): what the CPU time of the old default (96 iterations, about
#: 200 ms per decision with a choice on a quiet core before the play-outs ran in the native core) buys
#: now that they do — about 2 × the iterations of 100 ms (ISMCTS ~240, PIMC ~400: 0.42 and 0.26 ms of CPU per
#: play-out at load ~6, README, ``benchmarks/bench_bot_speed.py``). At these defaults a decision with a choice
#: costs ~210–290 ms of CPU on ``online`` (290 at load ~20), so the app's search opponents answer within a
#: second on a free core.
PIMC_ITERATIONS = 1000
ISMCTS_ITERATIONS = 500

BOTS: dict[str, BotKind] = {k.name: k for k in [
    BotKind("random", N_("picks uniformly among the legal moves"), _random),
    BotKind("heuristic", N_("fixed habits: low leads, cheapest answers, jokers and 2s kept for late"), _heuristic),
    BotKind("pimc", N_("determinized search: each candidate move played out with the heuristic on sampled deals"),
            _pimc, searches=True, default_iterations=PIMC_ITERATIONS),
    BotKind("ismcts", N_("information-set Monte Carlo tree search (single observer) over sampled deals"),
            _ismcts, searches=True, default_iterations=ISMCTS_ITERATIONS),
]}


def bot_names() -> list[str]:
    """Every bot kind's name, in registry order."""
    return list(BOTS)


#: the largest iteration budget a spec may give: at about 2 ms per iteration a decision would take
#: minutes (a mistyped budget would otherwise look like a hung program)
MAX_ITERATIONS = 100_000



def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


EXEC = "exec"
"""The prefix of an external process bot's spec (``exec:CMD``, ``exec@SECONDS:CMD``)."""

EXEC_SECONDS = 10.0
"""An exec bot's time limit per decision unless its spec gives one (``exec@2:CMD``)."""

ENTRY_POINT_GROUP = "gouji.bots"
"""The entry-point group of bot plug-ins (:mod:`gouji_dsl.bots.outside`)."""


@functools.cache
def installed_plugins() -> dict[str, Any]:
    """The installed bot plug-ins by (lower-case) name: ``importlib.metadata`` entry points."""
    from importlib import metadata
    return {ep.name.strip().lower(): ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _exec_kind(head: str, command: str) -> BotKind:
    """The kind of ``exec[@SECONDS]:COMMAND``."""
    from gouji_dsl.bots import external
    _exec, at, limit_text = head.partition("@")
    limit = external.parse_limit(limit_text) if at else EXEC_SECONDS
    command = command.strip()
    if not command:
        raise ValueError(_("exec: a command is missing (e.g. exec:./mybot.py)"))
    shlex_ok = external.ExecProcess(command)  # (a command shlex cannot split is refused here)
    name = f"{EXEC}:{command}" if not at else f"{EXEC}@{limit:g}:{command}"

    def make(rng: random.Random, _budget: Budget | None) -> Bot:
        from gouji_dsl.bots.outside import ViewOnly
        return ViewOnly(name, external.ExecBot(name, shlex_ok.command, limit, rng), rng)
    return BotKind(name, f"external program {command!r}, {limit:g} s per decision", make)


def _plugin_kind(key: str) -> BotKind | None:
    """The kind of installed plug-in ``key`` (None: none is installed by that name)."""
    from gouji_dsl.bots import outside
    factory = outside.plugin_factory(key)
    if factory is None:
        return None
    doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
    return BotKind(key, doc[0] if doc else f"plug-in {installed_plugins()[key].value}",
                   lambda rng, _budget: outside.make_plugin(key, rng))


def is_outside(spec: str) -> bool:
    """True for a bot from outside the project (exec or plug-in): it sees only its seat's view, and
    the native core cannot play it."""
    key = spec.strip().partition(":")[0].strip().lower()
    return key not in BOTS


def _known() -> str:
    """The bots a spec may name, for a message: the built-in ones, the plug-ins, exec:CMD."""
    return ", ".join([*BOTS, *(k for k in installed_plugins() if k not in BOTS and k != EXEC), "exec:CMD"])


def _kind_named(key: str, name: str, sep: str) -> tuple[BotKind, bool]:
    """The kind of bot ``key`` names (a built-in one, else a plug-in) and whether it is a plug-in. Raises ValueError
    when there is none (a plug-in given an iteration budget: ``sep``)."""
    kind = BOTS.get(key)
    if kind is not None:
        return kind, False
    plugin = _plugin_kind(key) if key else None
    if plugin is not None:
        if sep:
            raise ValueError(_("bot {name!r} does not search: it takes no iteration budget (write just {name!r})").format(name=plugin.name))
        return plugin, True
    if not key:
        raise ValueError(_("a bot name is missing (bots: {join})").format(join=_known()))
    near = difflib.get_close_matches(key, list(BOTS) + list(installed_plugins()), n=1)
    hint = _("; did you mean {near!r}?").format(near=near[0]) if near else ""
    raise ValueError(_("unknown bot {shown} (bots: {join}){hint}").format(shown=_shown(name.strip()), join=_known(), hint=hint))


def _iterations(spec: str, kind: BotKind, n: str) -> int:
    """The iteration budget ``n`` written after ``:`` (digits 0-9, 1 to :data:`MAX_ITERATIONS`). Raises ValueError."""
    if not (n.isascii() and n.isdigit()):  # int() would also take " 2", "+2", "1_0" and other scripts' digits
        raise ValueError(_("bot {shown}: the iteration budget after ':' must be a whole number (digits 0-9)").format(shown=_shown(spec.strip())))
    if len(n.lstrip("0")) > len(str(MAX_ITERATIONS)) or int(n) > MAX_ITERATIONS:
        raise ValueError(_("bot {shown}: at most {max_iterations:,} iterations per decision "
                         "(the default is {default_iterations})").format(
                             shown=_shown(spec.strip()), max_iterations=MAX_ITERATIONS, default_iterations=kind.default_iterations))
    iters = int(n)
    if iters < 1:
        raise ValueError(_("bot {shown}: the iteration budget must be at least 1").format(shown=_shown(spec.strip())))
    return iters


@functools.lru_cache(maxsize=256)
def parse_bot_spec(spec: str) -> tuple[BotKind, int | None]:
    """``NAME``, ``NAME:N``, ``exec[@S]:CMD`` or a plug-in's name → (kind, iterations or None).
    Raises ValueError naming the problem and the known bots."""
    name, sep, n = spec.strip().partition(":")
    key = name.strip().lower()
    if key == EXEC or key.startswith(EXEC + "@"):
        if not sep:
            raise ValueError(_("bot 'exec' needs a command: exec:CMD (e.g. exec:./mybot.py)"))
        return _exec_kind(key, n), None
    kind, plugin = _kind_named(key, name, sep)
    if plugin or not sep:
        return kind, None
    if not kind.searches:
        raise ValueError(_("bot {name!r} does not search: it takes no iteration budget (write just {name!r})").format(name=kind.name))
    return kind, _iterations(spec, kind, n)


def canonical_spec(spec: str) -> str:
    """The spec as the registry writes it (``ISMCTS:0200`` → ``ismcts:200``), for labels and
    reports. Raises ValueError like :func:`parse_bot_spec`."""
    kind, iters = parse_bot_spec(spec)
    return kind.name if iters is None else f"{kind.name}:{iters}"


def make_bot(spec: str, rng: random.Random, *, think_ms: float | None = None) -> Bot:
    """A bot from a spec (``heuristic``, ``ismcts``, ``ismcts:400``, ...) drawing from ``rng``.
    ``think_ms`` gives search bots a time budget per decision. Raises ValueError for a bad spec."""
    kind, iters = parse_bot_spec(spec)
    if not kind.searches:
        return kind.make(rng, None)
    if think_ms is not None:
        return kind.make(rng, Budget(iters, think_ms))
    return kind.make(rng, Budget(iters or kind.default_iterations))


def seat_bots(spec: str | Sequence[str], n_seats: int) -> list[str]:
    """Per-seat bot specs from ``A`` (every seat), ``A,B`` (odd seats A, even seats B), one spec per
    seat (``A,B,C,D,E,F``) or a list. Raises ValueError naming a bad spec."""
    parts = spec.split(",") if isinstance(spec, str) else [str(p) for p in spec]
    names = [canonical_spec(p) for p in parts]
    if len(names) == 1:
        return names * n_seats
    if len(names) == 2:
        return [names[0] if s % 2 else names[1] for s in range(1, n_seats + 1)]
    if len(names) == n_seats:
        return names
    raise ValueError(_("give one bot (every seat), two (odd seats, even seats) or {n_seats} (one per seat), not {n}").format(
        n_seats=n_seats, n=len(names)))


def runner_bots(spec: str, n_seats: int) -> str | list[str]:
    """The ``bots`` argument of the runners (simulate, paired runs) for a ``--bots`` text: the spec
    itself when it names one bot for every seat, else one spec per seat (:func:`seat_bots`)."""
    per_seat = seat_bots(spec, n_seats)
    return per_seat if len(set(per_seat)) > 1 else per_seat[0]  # (the same bot at every seat: said once)
