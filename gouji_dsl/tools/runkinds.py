"""The closed vocabularies of simulation runs (a light module: the CLI builds its options from it
without importing the engine)."""
from __future__ import annotations

from enum import StrEnum


class Engine(StrEnum):
    """How a simulated game is played: the generated play-out or the reference interpreter."""

    GENERATED = "generated"
    INTERPRETER = "interpreter"


DEFAULT_ENGINE = Engine.GENERATED
"""Simulations play with the generated play-out unless asked otherwise; a ruleset the generator does
not handle is played by the interpreter, and the run's summary says so."""


class Executor(StrEnum):
    """Where the chunks of a run are played: this process, a local process pool, or Dask."""

    LOCAL = "local"
    PROCESS = "process"
    DASK = "dask"


class RunKind(StrEnum):
    """One ruleset (``gouji simulate``) or two on the same deals (``gouji diff --simulate``)."""

    SINGLE = "single"
    PAIRED = "paired"
