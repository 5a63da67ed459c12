"""The skill trace (技巧度) of a ruleset: how much a stronger bot gains over a weaker one on the same deals
(``gouji duel``'s figure: the mean team-score difference strong − weak per game, each deal played twice
with the teams' seats swapped, the interval over deals). A ruleset where it is large rewards skill; one
where it is near 0 is a game of luck. ``--skill N`` on simulate, diff and sweep measures it on N deals
(README: Design metrics).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.stats import Estimate, clipped_note, mean_ci

STRONG, WEAK = "heuristic", "random"
"""The bots of the skill trace unless ``--skill-bots STRONG,WEAK`` says otherwise (search vs heuristic:
``--skill-bots ismcts,heuristic``, far slower)."""


@dataclass(frozen=True)
class Skill:
    """One ruleset's skill trace: ``strong`` − ``weak`` per game (``estimate``) and the per-unit means
    (a deal and its swapped replay; a match and its replay) it comes from, to pair two rulesets'."""

    strong: str
    weak: str
    deals: int
    estimate: Estimate
    units: tuple[float, ...]
    unit: int = 1  # deals per unit: 1, or the ruleset's match length (a match and its replay)
    bound: float | None = None  # the largest team-score difference of a game (None: unknown)

    def to_dict(self) -> dict[str, Any]:
        return {"strong": self.strong, "weak": self.weak, "deals": self.deals, "gain": self.estimate.to_dict()}


def parse_bots(text: str | None) -> tuple[str, str]:
    """``STRONG,WEAK`` (default heuristic,random); ValueError for another shape."""
    if not text:
        return STRONG, WEAK
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(_("--skill-bots is STRONG,WEAK (e.g. heuristic,random)"))
    from gouji_dsl.bots import parse_bot_spec
    for p in parts:
        parse_bot_spec(p)
    return parts[0], parts[1]


def skill_trace(graph: RuleGraph, deals: int, seed: Any, bots: tuple[str, str] = (STRONG, WEAK), workers: int = 1) -> Skill:
    """The skill trace of ``graph`` on ``deals`` deals of ``seed`` (a duel of ``bots``)."""
    from gouji_dsl.tools.duel import duel
    report = duel(graph, bots[0], bots[1], deals, seed, workers=workers)
    return Skill(bots[0], bots[1], deals, report.mean_diff, tuple(report.unit_means()), report.unit_size, report.bound)


def _regrouped(s: Skill, size: int) -> list[float]:
    """``s``'s unit means over units of ``size`` deals (a multiple of ``s.unit``): deals 0..size-1, ..."""
    k = max(1, size // max(1, s.unit))
    return [math.fsum(s.units[i:i + k]) / len(s.units[i:i + k]) for i in range(0, len(s.units), k)]


def skill_difference(a: Skill, b: Skill) -> Estimate:
    """B's skill trace − A's, paired by unit (the same deals), with its interval. Where the two units
    differ (one ruleset plays single games, the other matches of 5; or matches of 3 and 5) both are
    regrouped into units of the least common multiple of deals, so each pair covers the same deals."""
    size = math.lcm(max(1, a.unit), max(1, b.unit))
    diffs = [y - x for x, y in zip(_regrouped(a, size), _regrouped(b, size))]
    e = mean_ci(diffs)
    bound = None if a.bound is None or b.bound is None else a.bound + b.bound
    return Estimate(e.value, e.low, e.high, len(diffs), "paired").within(bound)


def not_measured() -> str:
    return _("skill trace: not measured (--skill N plays {strong} against {weak} on N deals)").format(strong=STRONG, weak=WEAK)


def skill_line(name: str, s: Skill) -> str:
    e = s.estimate
    return _("skill trace of {name}: {strong} − {weak} {value} per game on {deals} deals (each twice, seats swapped)").format(
        name=name, strong=s.strong, weak=s.weak, value=e.format(2, signed=True), deals=s.deals)


def skill_lines(names: Sequence[str], skills: Sequence[Skill | None], same_deal: bool = True) -> list[str]:
    """The report's lines: each ruleset's skill trace, and B − A when there are two (paired by deal;
    ``same_deal`` false, where the two packs differ: paired by seed, game i seeded alike but not dealt
    alike)."""
    if not skills or any(s is None for s in skills):
        return [not_measured()]
    got = [s for s in skills if s is not None]
    out = [skill_line(n, s) for n, s in zip(names, got)]
    shown = [s.estimate for s in got]
    if len(got) == 2:
        diff = skill_difference(got[0], got[1])
        shown.append(diff)
        out.append((_("skill trace, B − A: {value} (paired by deal)") if same_deal else
                    _("skill trace, B − A: {value} (paired by seed: the two rulesets use different packs, so deal i is "
                      "seeded alike but not dealt alike)")).format(value=diff.format(2, signed=True)))
    if note := clipped_note(shown):
        out.append(note)
    return out
