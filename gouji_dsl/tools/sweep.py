"""``gouji sweep RULESET --grid KEY=V1,V2,... --simulate N``: every point of a grid of settings against
the base ruleset on the same seeded deals (扫参).

A point is the base with one override per ``--grid`` (:mod:`gouji_dsl.ruleset.overrides`: checked as
a variant file's settings, problems at the option ``--grid[N]``); the grid is the product of the
``--grid`` options' values. The run is one chunked run of the run engine (:mod:`gouji_dsl.tools.runs`,
kind ``sweep``: the base and every point play deal ``i``; resumable with ``--out``, on the process
pool or Dask); each point is compared with the base as ``gouji diff --simulate`` compares two rulesets
(:func:`gouji_dsl.tools.paired.differences`), and Holm's adjustment is made across the whole family:
every figure of every point.
"""
from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.overrides import Override, load_point, parse_overrides, twice
from gouji_dsl.tools.figures import SIDE_FIGURES, SweepTotals
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_SWEEP_POINTS
from gouji_dsl.tools.stats import ALPHA, Estimate, holm

OPTION = "--grid"


@dataclass(frozen=True)
class Grid:
    """One ``--grid KEY=V1,V2,...``: its place ``index`` (from 1), the option text and one
    :class:`Override` per value (each positioned in the option text)."""

    index: int
    text: str
    key: str
    values: tuple[Override, ...]


def _split_values(text: str) -> list[tuple[str, int]]:
    """The comma-separated values of ``text`` with their offsets; a comma inside brackets, braces or
    quotes belongs to its value (``[2, B],[2]`` is two values)."""
    out, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth <= 0:
            out.append((text[start:i], start))
            start = i + 1
    out.append((text[start:], start))
    return out


def parse_grids(texts: Sequence[str]) -> list[Grid]:
    """Each ``--grid`` option; :class:`GoujiError` (code ``BadOverride``, at the option ``--grid[N]``)
    for one that is not ``KEY=V1,V2,...``, has a value twice, or makes the grid larger than
    :data:`~gouji_dsl.tools.runkinds.MAX_SWEEP_POINTS` points."""
    grids, errors = [], []
    for i, text in enumerate(texts, start=1):
        try:
            [whole] = parse_overrides([text])
        except GoujiError as e:
            errors += [_at_grid(d, i) for d in e.diagnostics]
            continue
        values = []
        for value, at in _split_values(whole.value):
            values.append(Override(i, text, whole.parts, value, whole.value_at + at, OPTION))
        seen: set[str] = set()
        for v in values:
            if v.value.strip() in seen:
                errors.append(Diagnostic(f"{OPTION}[{i}]", 1, v.value_at, _("the value {value} is given twice").format(
                    value=json.dumps(v.value)), None, text, Severity.ERROR, Code.BAD_OVERRIDE))
            seen.add(v.value.strip())
        grids.append(Grid(i, text, text.partition("=")[0], tuple(values)))
    errors += twice([v for g in grids for v in g.values])  # (each at its --grid[N])
    points = math.prod(len(g.values) for g in grids) if grids else 0
    if grids and points > MAX_SWEEP_POINTS:
        errors.append(Diagnostic(f"{OPTION}[1]", 1, 1, _("the grid has {n} points; a sweep plays at most {most}").format(
            n=points, most=MAX_SWEEP_POINTS), _("fewer values, or several sweeps"), texts[0], Severity.ERROR, Code.BAD_OVERRIDE))
    if errors:
        raise GoujiError(errors)
    return grids


def _at_grid(d: Diagnostic, index: int) -> Diagnostic:
    from dataclasses import replace
    return replace(d, path=f"{OPTION}[{index}]")


def points(grids: Sequence[Grid]) -> list[tuple[Override, ...]]:
    """Every point of the grid (the product of the options' values, the last option varying fastest)."""
    return list(itertools.product(*(g.values for g in grids)))


def point_label(point: Sequence[Override]) -> str:
    """``gouji_minimum.2=1 yield_to=2``: a point's settings as the options would set them."""
    return " ".join(f"{ov.key}={ov.value}" for ov in point)


def load_points(ruleset: str, grids: Sequence[Grid]) -> list[RuleGraph]:
    """Each point's compiled ruleset; :class:`GoujiError` with every problem of every point, once each."""
    graphs, problems = [], []
    for point in points(grids):
        try:
            graphs.append(load_point(ruleset, list(point), " ".join(f"--set {ov.key}={ov.value}" for ov in point)))
        except GoujiError as e:
            problems += list(e.diagnostics)
    if problems:
        unique = {(d.path, d.line, d.col, d.message): d for d in problems}
        raise GoujiError(sorted(unique.values(), key=lambda d: (d.path, d.col)))
    return graphs


# ==================================================================================================
# the report


@dataclass
class SweepReport:
    """A sweep's figures: per point, each difference point − base (with ``p_adjusted``: Holm across
    every figure of every point), and the base's and each point's own values."""

    base: str
    grids: list[str]
    labels: list[str]
    games: int
    seed: Any
    bots: str | list[str]
    base_stats: Any
    point_stats: list[Any]
    differences: list[dict[str, Any]]
    workers: int = 1
    elapsed_s: float = 0.0
    executor: str = "local"
    resumed_games: int = 0
    missing: list[str] = field(default_factory=list)
    engines: dict[str, Any] = field(default_factory=dict)
    skills: list[Any] | None = None  # the skill traces (tools/skill.py) of the base and each point (--skill N)

    def skill_rows(self) -> list[str]:
        """The skill trace of the base and, for each point, its difference from the base's (paired by deal;
        not in the Holm family)."""
        from gouji_dsl.tools.skill import not_measured, skill_difference, skill_line
        if not self.skills:
            return [not_measured()]
        base, *rest = self.skills
        out = [skill_line(self.base, base)]
        for k, s in enumerate(rest, start=1):
            out.append(_("P{k} − {base}: {value}").format(k=k, base=self.base,
                                                         value=skill_difference(base, s).format(2, signed=True)))
        return out

    def family(self) -> list[tuple[int, str, Estimate]]:
        """(point, figure, difference) of the whole family Holm's adjustment is made across (the differences
        with a test: not a design metric from too few probed deals)."""
        out = []
        for k, d in enumerate(self.differences):
            out += [(k, key, d[key]) for key, _l, _k in SIDE_FIGURES]
            out += [(k, f"seat_score.{s}", e) for s, e in d["seat_score"].items()]
        return [x for x in out if x[2].p is not None]

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "base": self.base, "grid": list(self.grids), "games": self.games, "seed": self.seed, "bots": self.bots,
            "base_stats": self.base_stats.to_dict(),
            "points": [{"label": label, "stats": st.to_dict(),
                        "differences": {**{k: v.to_dict() for k, v in d.items() if k != "seat_score"},
                                        "seat_score": {str(s): e.to_dict() for s, e in d["seat_score"].items()}}}
                       for label, st, d in zip(self.labels, self.point_stats, self.differences)],
            "statistics": {"alpha": ALPHA, "adjustment": "holm", "family_size": len(self.family()),
                           "family": "every figure of the table (each seat's mean score included) at every point"},
        }
        if self.missing:
            out["missing"] = list(self.missing)
        if self.skills:
            from gouji_dsl.tools.skill import skill_difference
            out["skill"] = {"base": self.skills[0].to_dict(),
                            "points": [{"skill": s.to_dict(), "difference": skill_difference(self.skills[0], s).to_dict()}
                                       for s in self.skills[1:]]}
        if timing:
            out.update(workers=self.workers, elapsed_s=round(self.elapsed_s, 3), executor=self.executor,
                       resumed_games=self.resumed_games)
            if self.engines:
                out["engine"] = dict(self.engines)
        return out


def build_report(totals: SweepTotals, *, base: str, grids: Sequence[str], labels: Sequence[str], seed: Any,
                 bots: Any, **timing: Any) -> SweepReport:
    """The :class:`SweepReport` of merged sweep ``totals``: Holm across every point's figures."""
    from gouji_dsl.tools.paired import differences, side_stats
    diffs = [differences(t, adjust=False) for t in totals.points]
    report = SweepReport(base, list(grids), list(labels), totals.games, seed, bots if isinstance(bots, str) else list(bots),
                         side_stats(base, totals.points[0].a), [side_stats(lb, t.b) for lb, t in zip(labels, totals.points)],
                         diffs, **timing)
    family = report.family()
    adjusted = holm([e.p if e.p is not None else math.nan for _k, _f, e in family])
    for (k, key, e), a in zip(family, adjusted):
        if math.isnan(a):
            continue
        if key.startswith("seat_score."):
            diffs[k]["seat_score"][int(key.split(".")[1])] = e.adjusted(a)
        else:
            diffs[k][key] = e.adjusted(a)
    return report


def run_sweep(base: RuleGraph, graphs: Sequence[RuleGraph], labels: Sequence[str], grids: Sequence[str], games: int,
              seed: Any, bots: str | list[str] = "random", *, workers: int = 2, executor: str | None = None,
              scheduler: str | None = None, chunk_size: int | None = None, out: str | os.PathLike[str] | None = None,
              resume: bool = False, matches: bool = True, engine: str = DEFAULT_ENGINE,
              progress: Callable[[int, int], None] | None = None) -> SweepReport:
    """Play ``games`` deals under ``base`` and every point ``graphs`` (one run of the run engine, kind
    ``sweep``) and build the report. The result depends only on the rulesets, ``games``, ``seed``,
    ``bots`` and ``matches``."""
    from gouji_dsl.tools.paired import _bots_tuple, _engines, check_bots
    from gouji_dsl.tools.runs import Executor, RunSpec, execute
    check_bots(bots, base.n_seats)
    workers = max(1, int(workers))
    if executor is None:
        executor = Executor.PROCESS if workers > 1 and games > 1 else Executor.LOCAL
    spec = RunSpec((base.resolved, *(g.resolved for g in graphs)), seed, _bots_tuple(bots), matches, engine, 0,
                   sweep=True)
    res = execute(spec, games, executor=executor, workers=min(workers, games), chunk_size=chunk_size, out=out,
                  resume=resume, scheduler=scheduler, progress=progress, graphs=(base, *graphs))
    assert isinstance(res.totals, SweepTotals)
    engines = {"base": _engines((base, base), engine, bots)["a"]} if graphs else {}
    return build_report(res.totals, base=base.name, grids=grids, labels=labels, seed=seed, bots=bots,
                        workers=res.workers, elapsed_s=res.elapsed_s, executor=res.executor,
                        resumed_games=res.resumed_games, engines=engines)


# ==================================================================================================
# rendering


def _cell(e: Estimate, kind: str, signed: bool, compact: bool, bare: bool) -> str:
    """A figure as the table shows it; ``bare``: its value only (a table too wide for its intervals)."""
    from gouji_dsl.tools.paired import _fig
    if not bare:
        return _fig(e, kind, signed, compact)
    rate = kind == "rate" or e.kind == "wilson"
    return "n/a" if math.isnan(e.value) else (f"{e.value * 100:{'+' if signed else ''}.1f}%" if rate
                                               else f"{e.value:{'+' if signed else ''}.2f}")


def _rows(r: SweepReport, compact: bool, bare: bool = False) -> list[list[str]]:
    """(figure, base, then point − base with its mark for each point) for every figure."""
    from gouji_dsl.tools.paired import mark
    rows = []
    for key, label, kind in SIDE_FIGURES:
        rows.append([_(label), _cell(r.base_stats.figure(key), kind, False, compact, bare)]
                    + [_cell(d[key], kind, True, compact, bare) + mark(d[key]) for d in r.differences])
    for s in r.base_stats.seat_score:
        rows.append([_("mean score, seat {s}").format(s=s), _cell(r.base_stats.seat_score[s], "mean", False, compact, bare)]
                    + [_cell(d["seat_score"][s], "mean", True, compact, bare) + mark(d["seat_score"][s])
                       for d in r.differences])
    return rows


def _legend(r: SweepReport) -> list[str]:
    return [f"P{k}: {label}" for k, label in enumerate(r.labels, start=1)]


def _footer(r: SweepReport) -> str:
    return _("Each column P is the point − {base} on the same deals (paired, as gouji diff --simulate); Holm's "
             "adjustment across all {n} differences of the table: * adjusted p < {alpha}; † the interval excludes 0 "
             "but not significant after it.").format(base=r.base, n=len(r.family()), alpha=ALPHA)


def _title(r: SweepReport) -> str:
    timing = _(" — {workers} worker(s), {elapsed_s:.1f} s").format(workers=r.workers, elapsed_s=r.elapsed_s) if r.elapsed_s else ""
    bots = r.bots if isinstance(r.bots, str) else ",".join(r.bots)
    return _("Sweep of {base}: {points} points × {games} deals, seed {seed}, {bots} bots{timing}").format(
        base=r.base, points=len(r.labels), games=r.games, seed=r.seed, bots=bots, timing=timing)


def report_text(r: SweepReport, width: int = 100) -> str:
    """The sweep as plain text: the legend of the points, one table (a row per figure, a column per
    point) and the statistics footer."""
    from gouji_dsl.tools.compare import _pad, disp_width, wrap
    from gouji_dsl.tools.paired import design_note
    out = wrap(_title(r), width) + wrap(design_note(r.base_stats.design["real_choice_share"].n, r.games), width)
    out += [""] + _legend(r) + [""]
    head = ["", r.base] + [f"P{k}" for k in range(1, len(r.labels) + 1)]
    for compact, bare in ((False, False), (True, False), (True, True)):
        rows = _rows(r, compact, bare)
        widths = [max(disp_width(row[i]) for row in rows + [head]) for i in range(len(head))]
        if sum(widths) + 2 * len(widths) <= width:
            break
    if bare:
        out += wrap(_("(the values only: the intervals do not fit {width} columns; --format markdown or json has them)").format(
            width=width), width) + [""]
    out.append("  ".join(_pad(h, w) for h, w in zip(head, widths)).rstrip())
    out.append("─" * (sum(widths) + 2 * (len(widths) - 1)))
    for row in rows:
        out.append("  ".join(_pad(v, w) for v, w in zip(row, widths)).rstrip())
    if r.missing:
        out += [""] + wrap(_("note: chunks missing (an interrupted run: --resume plays them)") + ": " + "; ".join(r.missing), width)
    out += [""] + [line for row in r.skill_rows() for line in wrap(row, width)]
    out += [""] + wrap(_footer(r), width)
    return "\n".join(out) + "\n"


def report_markdown(r: SweepReport) -> str:
    """The sweep as a GitHub markdown table."""
    from gouji_dsl.tools.compare import _md
    from gouji_dsl.tools.paired import design_note
    out = [f"## {_md(_title(r))}", "", "> " + _md(design_note(r.base_stats.design["real_choice_share"].n, r.games)), ""]
    out += [f"- {_md(x)}" for x in _legend(r)] + [""]
    out.append("| " + " | ".join([_("Figure"), _md(r.base)] + [f"P{k}" for k in range(1, len(r.labels) + 1)]) + " |")
    out.append("|" + " --- |" * (2 + len(r.labels)))
    for row in _rows(r, False):
        cells = [f"**{_md(c[:-2])}** \\*" if c.endswith(" *") else _md(c) for c in row]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out + [""] + [f"- {_md(x)}" for x in r.skill_rows()] + ["", _md(_footer(r))]) + "\n"


def report_json(r: SweepReport, timing: bool = True) -> str:
    return json.dumps(r.to_dict(timing), ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n"


__all__ = ["Grid", "SweepReport", "parse_grids", "points", "point_label", "load_points", "run_sweep", "build_report",
           "report_text", "report_markdown", "report_json"]
