"""The closed vocabularies of simulation runs (a light module: the CLI builds its options from it
without importing the engine)."""
from __future__ import annotations

from enum import StrEnum

from gouji_dsl.i18n import N_, _


class Engine(StrEnum):
    """How a simulated game is played: the native core (on the interpreter's states) or the
    reference interpreter. ``generated`` (the name of the fast engine before the native core
    replaced the generated play-out modules) is read as ``native``: run files and scripts that
    name it still load and mean the same thing (the fast engine, the same games)."""

    NATIVE = "native"
    INTERPRETER = "interpreter"

    @classmethod
    def _missing_(cls, value: object) -> Engine | None:
        return cls.NATIVE if value == "generated" else None


def engine_of(value: object) -> object:
    """An engine's value as a run file keeps it (``generated``, its name before the native core, is
    ``native``); a value that names no engine as it is (the check that reads it reports it)."""
    if not isinstance(value, str):
        return value
    try:
        return Engine(value).value
    except ValueError:
        return value


#: the most deals a run (``gouji simulate --games``, ``gouji diff --simulate``, ``--max-games``) may
#: ask for: a billion deals is weeks of a large cluster; a longer number is a typo, refused before it
#: is planned (a plan of 10^20 deals took all the memory of the machine)
MAX_GAMES = 1_000_000_000

#: the most chunks a run is split into: its plan and the chunk files stay small (the default chunk
#: size grows beyond :data:`runspec.DEFAULT_CHUNK` deals for runs of more than 10 million deals; a
#: ``--chunk-size`` giving more chunks is refused)
MAX_CHUNKS = 100_000

#: the most deals of one ``gouji duel``: every game of a duel is kept for its report (about 2 kB a
#: game), so 100,000 deals (200,000 games) is a few hundred MB; search bots play a deal in seconds
MAX_DUEL_DEALS = 100_000

DEFAULT_ENGINE = Engine.NATIVE
"""Simulations play with the native core unless asked otherwise; a ruleset the core does not play
(or no core: built without a C compiler) is played by the interpreter, and the run's summary says so."""


class Executor(StrEnum):
    """Where the chunks of a run are played: this process, a local process pool, or Dask."""

    LOCAL = "local"
    PROCESS = "process"
    DASK = "dask"


class RunKind(StrEnum):
    """One ruleset (``gouji simulate``), two on the same deals (``gouji diff --simulate``), or a base
    and the points of a grid (``gouji sweep``)."""

    SINGLE = "single"
    PAIRED = "paired"
    SWEEP = "sweep"  # a base ruleset and each point of a grid on the same deals (``gouji sweep``)


#: the most points a sweep's grid may have (each is a ruleset played on every deal)
MAX_SWEEP_POINTS = 64


_SAID: dict[str, str] = {
    Engine.NATIVE: N_("native"), Engine.INTERPRETER: N_("interpreter"),
    "generated": N_("generated"),  # (who played the games of a run made before the native core: its generated module)
    "mixed": N_("mixed"),  # (a folder's chunks played by different engines, tools/played.py)
    Executor.LOCAL: N_("local"), Executor.PROCESS: N_("process"), Executor.DASK: N_("dask"),
}


def said_kind(value: object) -> str:
    """An engine's or an executor's name as a run's timing line says it, in the active language
    (the value itself, as in ``--engine`` / ``--executor`` and the JSON, where it is none of them)."""
    text = _SAID.get(str(value))
    return _(text) if text is not None else str(value)
