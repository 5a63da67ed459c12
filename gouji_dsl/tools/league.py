"""A league: every pair of bots dueled on the same deals (``gouji league RULESET BOT...``, issue 28).

Each pair (A, B) of the bots given plays a duel (:func:`gouji_dsl.tools.duel.duel`): every deal
twice, A's team at the odd seats and then at the even seats, deal ``i`` dealt from ``SEED:i`` for
every pair. The report is the table of mean team-score differences A − B per game with their 95 %
intervals (over deals, or matches where the ruleset plays matches), one per pair, and each bot's
mean difference against the field (the plain mean of its row: a summary, no model).

No rating is computed: the rating libraries (TrueSkill, OpenSkill, Bradley–Terry fits) turn results
into one number per bot under a model of strength (transitive, one dimension) that a handful of
bots does not check; the paired differences with their intervals are what the deals measured.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gouji_dsl.bots import canonical_spec
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.duel import MIN_UNITS_FOR_VERDICT, DuelReport, duel
from gouji_dsl.tools.stats import CLIPPED, Estimate, clipped_note

MAX_LEAGUE_BOTS = 12
"""The most bots of one league (66 duels)."""


@dataclass
class LeagueReport:
    """The duels of a league, one per pair of ``bots`` (in the order given: A before B)."""

    ruleset: str
    bots: list[str]
    deals: int
    seed: Any
    duels: list[DuelReport] = field(repr=False)
    elapsed_s: float = 0.0

    def pair(self, a: str, b: str) -> tuple[float, float, float] | None:
        """Mean A − B per game and its interval (low, high), from whichever side the pair was played."""
        m = self.estimate(a, b)
        return None if m is None else (m.value, m.low, m.high)

    def estimate(self, a: str, b: str) -> Estimate | None:
        """Mean A − B per game with its interval (marked where cut to the possible range), from
        whichever side the pair was played."""
        for d in self.duels:
            m = d.mean_diff
            if (d.a, d.b) == (a, b):
                return m
            if (d.a, d.b) == (b, a):
                return replace(m, value=-m.value, low=-m.high, high=-m.low)
        return None

    def field_means(self) -> dict[str, float]:
        """Each bot's mean difference against the others (the mean of its row)."""
        out = {}
        for a in self.bots:
            vals = [p[0] for b in self.bots if b != a for p in [self.pair(a, b)] if p is not None]
            out[a] = math.fsum(vals) / len(vals) if vals else 0.0
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``ruleset, bots, deals, seed, elapsed_s``, ``pairs`` (a, b, mean_diff with
        low/high, a_win_rate, games) and ``field`` (bot → its mean difference against the others)."""
        return {
            "ruleset": self.ruleset, "bots": self.bots, "deals": self.deals, "seed": self.seed,
            "elapsed_s": round(self.elapsed_s, 2), "rating": None,
            "pairs": [{"a": d.a, "b": d.b, "games": len(d.games), "mean_diff": d.mean_diff.to_dict(),
                       "a_win_rate": d.win_rate.to_dict()} for d in self.duels],
            "field": {b: round(v, 4) for b, v in self.field_means().items()},
        }

    def text(self) -> str:
        """The pairs, the table (row − column, per game) and the field means, for a terminal."""
        lines = [_("{ruleset}: league of {n} bots, every pair on the same {deals} deals × 2 seatings, seed {seed}").format(
                     ruleset=self.ruleset, n=len(self.bots), deals=self.deals, seed=self.seed), "",
                 _("pairs (mean team score A − B per game, {level} interval):").format(level="95%")]
        few = any(len(d.unit_means()) < MIN_UNITS_FOR_VERDICT for d in self.duels)
        for d in self.duels:
            m = d.mean_diff
            mark = " *" if (m.low > 0 or m.high < 0) and not few else ""
            lines.append(f"  {d.a} − {d.b}{_(': ')}{m.format(2, signed=True)}{mark}")
        width = max(12, *(len(b) for b in self.bots)) + 1
        lines += ["", _("table (row − column):"), " " * width + "".join(f"{b[:22]:>24}" for b in self.bots)]
        for a in self.bots:
            cells = []
            for b in self.bots:
                p = self.estimate(a, b) if a != b else None
                cells.append(f"{'—':>24}" if p is None else
                             f"{f'{p.value:+.2f} [{p.low:+.2f},{p.high:+.2f}]' + (CLIPPED if p.clipped is not None else ''):>24}")
            lines.append(f"{a:<{width}}" + "".join(cells))
        lines += ["", _("against the field (mean of the row):")]
        for b, v in sorted(self.field_means().items(), key=lambda kv: -kv[1]):
            lines.append(f"  {b:<{width}}{v:+.2f}")
        note = (_("too few deals for a verdict (the intervals need at least {n})").format(n=MIN_UNITS_FOR_VERDICT) if few
                else _("* the interval excludes 0"))
        clipped = clipped_note(d.mean_diff for d in self.duels)
        lines += [""] + ([clipped] if clipped else []) + [
            note + _(". No rating: see README, section “gouji league RULESET BOT... [--deals N]”."),
            _("{s:.1f} s").format(s=self.elapsed_s)]
        return "\n".join(lines)


def league(graph: RuleGraph, bots: Sequence[str], deals: int, seed: Any = 1, *, workers: int = 1,
           progress: Callable[[str, str, int, int], None] | None = None) -> LeagueReport:
    """Duel every pair of ``bots`` (specs, at least two, distinct) on the same deals. ``progress(a,
    b, done, total)`` after each duel. Raises ValueError for bad bots."""
    names = [canonical_spec(b) for b in bots]
    if len(names) < 2:
        raise ValueError(_("a league needs at least two bots"))
    if len(set(names)) != len(names):
        dup = next(b for b in names if names.count(b) > 1)
        raise ValueError(_("bot {dup!r} is given twice: each bot once").format(dup=dup))
    if len(names) > MAX_LEAGUE_BOTS:
        raise ValueError(_("{n} bots: a league takes at most {most}").format(n=len(names), most=MAX_LEAGUE_BOTS))
    t0 = time.perf_counter()
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    out = []
    for k, (a, b) in enumerate(pairs):
        out.append(duel(graph, a, b, deals, seed, workers=workers))
        if progress is not None:
            progress(a, b, k + 1, len(pairs))
    return LeagueReport(graph.name, names, deals, seed, out, time.perf_counter() - t0)


__all__ = ["MAX_LEAGUE_BOTS", "LeagueReport", "league"]
