"""What a run plays and what it adds up to, the words the run engine's modules share: :class:`RunSpec` (one ruleset,
or two on the same deals, or a sweep's base and points), :func:`fingerprint` (what a ruleset plays), the plan of
chunks (:func:`match_unit`, :func:`plan_chunks`, :func:`default_chunk_size`), the totals of a run's kind
(:func:`empty_totals`, :func:`totals_from_json`), and how a run ends early (:class:`SimulationError`,
:class:`SimulationCancelled`, :class:`RunStopped` and its kinds).

The run engine: this module; :mod:`~gouji_dsl.tools.runchunks` plays a chunk (in any process);
:mod:`~gouji_dsl.tools.runpools` runs chunks in worker processes (a process pool, Dask);
:mod:`~gouji_dsl.tools.runfolders` writes and reads run folders; :mod:`~gouji_dsl.tools.runs` drives a run.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.spec import ResolvedRuleset, Text
from gouji_dsl.tools.figures import PairTotals, SideTotals, SweepTotals
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_CHUNKS, RunKind, engine_of
from gouji_dsl.tools.simulate import teams

DEFAULT_CHUNK = 100
"""Deals per chunk unless asked otherwise (a few seconds of play: smooth progress, quick stop)."""


class SimulationError(RuntimeError):
    """A game could not be played to the end (e.g. a ruleset in which some seat has no legal move)."""


class SimulationCancelled(RuntimeError):
    """The run was stopped (``cancel`` set, or Ctrl+C); finished chunks are kept in the output folder."""

    def __init__(self, message: str, games_done: int = 0, chunks_written: int = 0):
        super().__init__(message)
        self.games_done = games_done
        self.chunks_written = chunks_written


class RunStopped(RuntimeError):
    """The run cannot go on for a reason outside it — the Dask scheduler is lost, workers keep dying
    on one chunk, the output folder cannot be written (a full disk, a read-only folder) — after
    ``games_done`` deals and ``chunks_written`` chunk files: every file written is whole (chunks are
    written atomically), so the same command with ``--resume`` continues; ``hint`` says when."""

    def __init__(self, message: str, games_done: int = 0, chunks_written: int = 0, hint: str = ""):
        super().__init__(message)
        self.games_done = games_done
        self.chunks_written = chunks_written
        self.hint = hint


class ClusterLost(RunStopped):
    """The connection to the Dask scheduler was lost (the scheduler ended, or its machine)."""


class OutputNotWritable(RunStopped):
    """A file of the output folder could not be written (no space left, read-only, no permission)."""


def fingerprint(r: ResolvedRuleset) -> str:
    """A hash of what a ruleset *plays*: its setting values (and declared types), definitions and rules
    in effective order — not its name, title, description, comments, ``says`` or sources, nor where it
    was written: equal for the same rules under another name, in another file or folder (what
    ``gouji diff`` reports no difference for)."""

    def text(t: Text | None) -> str | None:
        return None if t is None else t.text

    data = {
        "settings": {name: {"value": s.value, "types": [text(t) for t in s.type_decls]}
                     for name, s in sorted(r.settings.items())},
        "definitions": {name: {"params": list(d.params), "expr": text(d.expr)} for name, d in sorted(r.definitions.items())},
        "rules": [{"id": x.id, "on": text(x.on), "effect": x.effect, "expr": text(x.effect_expr), "when": text(x.when),
                   "target": text(x.target), "amount": text(x.amount), "giver": text(x.giver),
                   "before": list(x.before), "after": list(x.after)} for x in r.rules],
    }
    out = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(out.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class RunSpec:
    """What a run plays: ``rulesets`` (one, or A and B on the same deals), ``seed``, ``bots`` (one name
    for every seat or one per seat), ``matches`` (chain games into each ruleset's matches),
    ``engine`` (passed to :func:`~gouji_dsl.tools.simulate.play_game`) and ``top`` (how many of the
    most divergent deals a paired run keeps)."""

    rulesets: tuple[ResolvedRuleset, ...]
    seed: Any
    bots: str | tuple[str, ...] = "random"
    matches: bool = True
    engine: str = DEFAULT_ENGINE
    top: int = 5
    sweep: bool = False  # rulesets[0] is a base, each other one a point of a grid (gouji sweep)

    @property
    def kind(self) -> RunKind:
        if self.sweep:
            return RunKind.SWEEP
        return RunKind.PAIRED if len(self.rulesets) == 2 else RunKind.SINGLE

    def identity(self) -> dict[str, Any]:
        """What must be equal for two runs' chunks to be merged (the seed may differ)."""
        return {"kind": str(self.kind), "bots": self.bots if isinstance(self.bots, str) else list(self.bots),
                "matches": self.matches,
                "rulesets": [{"name": r.name, "fingerprint": fingerprint(r)} for r in self.rulesets]}

    def to_json(self) -> dict[str, Any]:
        out = self.identity()
        out["rulesets"] = [{"name": r.name, "path": r.path, "fingerprint": fingerprint(r)} for r in self.rulesets]
        out["seed"] = self.seed
        out["engine"] = engine_of(self.engine)
        out["top"] = self.top
        return out


def match_unit(graphs: Sequence[RuleGraph], matches: bool) -> int:
    """Deals per cluster: the least common multiple of the rulesets' match lengths (1 without
    matches); chunks start at multiples of it, so every chunk starts a match of every ruleset."""
    if not matches:
        return 1
    return math.lcm(*(match_length(g) for g in graphs))


def plan_chunks(games: int, unit: int, size: int, start: int = 0) -> list[tuple[int, int]]:
    """Ranges ``[a, b)`` covering ``start .. games``; sizes are multiples of ``unit``."""
    size = max(unit, size - size % unit)
    return [(i, min(i + size, games)) for i in range(start, games, size)]


def default_chunk_size(games: int) -> int:
    """:data:`DEFAULT_CHUNK`, smaller for short runs (at least 16 chunks), larger for runs that would
    otherwise have more than :data:`MAX_CHUNKS` chunks; never depends on workers."""
    return max(1, min(DEFAULT_CHUNK, math.ceil(games / 16)), math.ceil(games / MAX_CHUNKS))


Totals = SideTotals | PairTotals | SweepTotals


def empty_totals(graphs: Sequence[RuleGraph], top: int, kind: RunKind | None = None) -> Any:
    """The empty totals of a run of ``graphs`` (a sweep's: the base, then each point)."""
    sides = [SideTotals(g.n_seats, teams(g)) for g in graphs]
    if kind is RunKind.SWEEP:
        return SweepTotals([PairTotals(SideTotals(graphs[0].n_seats, teams(graphs[0])), s, top) for s in sides[1:]])
    return PairTotals(sides[0], sides[1], top) if len(sides) == 2 else sides[0]


def totals_from_json(kind: str, data: dict[str, Any]) -> Any:
    if kind == RunKind.SWEEP:
        return SweepTotals.from_json(data)
    return PairTotals.from_json(data) if kind == RunKind.PAIRED else SideTotals.from_json(data)
