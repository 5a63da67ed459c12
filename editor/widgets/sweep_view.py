"""The figures of a sweep (:class:`~gouji_dsl.tools.sweep.SweepReport`, 扫参) for the sweep screen: one
table (a row per figure, the base's value, then each point − base marked as ``gouji sweep`` marks it:
``*`` significant after Holm's adjustment across the whole family, ``†`` its interval excludes 0 but
not after the adjustment, ``≡`` a row that mirrors another (its test), ``= base`` / ``= Pj`` a point
that plays as the base or an earlier point, not played) and a chart of one figure per point (each
difference with its 95% interval on one scale, 0 marked). Everything shown is read from the one
report object, and the legend, footer and mirror notes are the command's own lines
(:mod:`gouji_dsl.tools.sweep`); nothing is recomputed.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

from rich import box
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from gouji_dsl.i18n import _ as _cli  # the figures' names are the CLI's words (domain gouji)
from gouji_dsl.tools.figures import SIDE_FIGURES
from gouji_dsl.tools.paired import mark
from gouji_dsl.tools.stats import Estimate
from gouji_dsl.tools.sweep import SweepReport, footer_text, legend_lines, mirror_lines

from ..i18n import _
from .compare_charts import fmt_estimate

BARE_FROM = 5
"""From this many points on, the table shows the values only (the chart has the intervals)."""


def figures(report: SweepReport) -> Iterator[tuple[str, str, bool]]:
    """(key, label in the active language, is a rate) of every figure of the table, in report order
    (``seat_score.N`` for each seat's mean score)."""
    for key, label, kind in SIDE_FIGURES:
        yield key, _cli(label), kind == "rate"
    for s in report.base_stats.seat_score:
        yield f"seat_score.{s}", _cli("mean score, seat {s}").format(s=s), False


def difference(report: SweepReport, point: int, key: str) -> Estimate | None:
    """Point ``point`` (from 0) − the base, for figure ``key``; None for a point that plays as the base or
    an earlier point (not played: ``= base`` / ``= Pj``)."""
    d = report.differences[point]
    if d is None or report.same(point) is not None:
        return None
    if key.startswith("seat_score."):
        return d["seat_score"][int(key.split(".")[1])]
    return d[key]


def base_value(report: SweepReport, key: str) -> Estimate | None:
    if key.startswith("seat_score."):
        return report.base_stats.seat_score.get(int(key.split(".")[1]))
    return report.base_stats.figure(key)


def mirrored(report: SweepReport, point: int, key: str) -> bool:
    """Row ``key`` of point ``point`` mirrors an earlier row (``≡``: that row's test and mark)."""
    return key in (report.mirrors[point] if point < len(report.mirrors) else {})


def fmt_cell(report: SweepReport, point: int, key: str, rate: bool, bare: bool = False) -> Text:
    """Point ``point``'s cell of row ``key``: ``= base`` / ``= Pj``, or its difference (:func:`fmt_point`)
    with ``≡`` when the row mirrors another."""
    same = report.same(point)
    e = difference(report, point, key)
    if same is not None or e is None:
        return Text(_cli("= base") if (same or "base") == "base" else f"= {same}", style="dim")
    t = fmt_point(e, rate, bare)
    if mirrored(report, point, key):
        t.append(" ≡", style="dim")
    return t


def fmt_point(e: Estimate, rate: bool, bare: bool = False) -> Text:
    """A point's difference: its value (signed; ``bare``: without the interval) and the sweep's mark,
    bold and coloured when significant after Holm's adjustment."""
    if bare:
        value = Text("—", style="dim") if math.isnan(e.value) else Text(
            f"{e.value * 100:+.1f}%" if rate or e.kind == "wilson" else f"{e.value:+.2f}")
    else:
        value = fmt_estimate(e, rate, signed=True)
    m = mark(e)
    if m == " *":
        value.stylize("bold " + ("green" if e.value > 0 else "red"), 0, len(value.plain.split(" ")[0]))
        value.append(m, style="bold")
    elif m:
        value.append(m, style="yellow")
    return value


def sweep_table(report: SweepReport, bare: bool | None = None) -> Table:
    """The sweep as a Rich table: figure | base | P1 … Pk (``bare``: values only; by default from
    :data:`BARE_FROM` points on)."""
    if bare is None:
        bare = len(report.labels) >= BARE_FROM
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False, show_edge=False, header_style="bold",
                  caption=footer(report), caption_justify="left", caption_style="dim")
    table.add_column(_("figure"), no_wrap=False, min_width=12)
    table.add_column(Text(report.base, style="bold cyan"), no_wrap=True)
    for k in range(1, len(report.labels) + 1):
        table.add_column(Text(f"P{k}", style="bold magenta"), no_wrap=True)
    for key, label, rate in figures(report):
        table.add_row(label, fmt_estimate(base_value(report, key), rate),
                      *(fmt_cell(report, k, key, rate, bare) for k in range(len(report.labels))))
    return table


def legend(report: SweepReport) -> Text:
    """``P1  gouji_minimum.2=1 burn_failure=last`` … one line per point (the command's legend: a point
    that plays as the base or an earlier point says so), then the mirror rows (``≡``), if any."""
    t = Text()
    for k, line in enumerate(legend_lines(report)):
        name, _sep, rest = line.partition(": ")
        t.append("\n" if k else "")
        t.append(name, style="bold magenta")
        t.append(f"  {rest}")
    for line in mirror_lines(report):
        t.append("\n" + line, style="dim")
    return t


def footer(report: SweepReport) -> str:
    """The command's statistics footer (Holm's family, the marks), in the active language."""
    return footer_text(report)


def significant_count(report: SweepReport) -> tuple[int, int]:
    """(differences significant after Holm's adjustment, the family's size)."""
    family = report.family()
    return sum(1 for _k, _f, e in family if e.significant), len(family)


class SweepChart(Widget):
    """One figure of a sweep per point: each point's difference from the base as a dot (●) on its 95%
    interval (─), all points on one scale with 0 marked (│), then the value and its mark."""

    DEFAULT_CSS = "SweepChart { height: auto; }"
    LABEL = 5  # "P12  "

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.report: SweepReport | None = None
        self.key = "score_spread"

    def show(self, report: SweepReport | None, key: str | None = None) -> None:
        self.report = report
        if key is not None:
            self.key = key
        self.refresh(layout=True)

    def render(self) -> Text:
        if self.report is None:
            return Text("")
        return self.draw(self.report, self.key, max(30, self.content_region.width or self.size.width or 60))

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[override]
        if self.report is None:
            return 0
        return len(self.draw(self.report, self.key, max(30, width)).wrap(self.app.console, max(1, width)))

    def draw(self, report: SweepReport, key: str, width: int) -> Text:
        found = next(((label, rate) for k, label, rate in figures(report) if k == key), None)
        if found is None:
            return Text("")
        label, rate = found
        diffs = [difference(report, k, key) for k in range(len(report.labels))]
        shown = [e for e in diffs if e is not None]
        t = Text()
        t.append(label, style="bold")
        t.append("  " + _("each point − {base} (interval: 95%); 0 is │").format(base=report.base), style="dim")
        values = [x for e in shown for x in (e.low, e.value, e.high) if not math.isnan(x)]
        if not values:
            return t
        lo, hi = min(values + [0.0]), max(values + [0.0])
        span = (hi - lo) or 1.0
        texts = [fmt_cell(report, k, key, rate) for k in range(len(report.labels))]
        bar_w = max(10, min(60, width - self.LABEL - max(len(x.plain) for x in texts) - 2))

        def col(x: float) -> int:
            return min(bar_w - 1, max(0, round((x - lo) / span * (bar_w - 1))))

        zero = col(0.0)
        for k, (e, text) in enumerate(zip(diffs, texts), start=1):
            cells = [" "] * bar_w
            cells[zero] = "│"
            style = "dim"
            if e is not None and not math.isnan(e.value):
                a, b = (col(e.low), col(e.high)) if not (math.isnan(e.low) or math.isnan(e.high)) else (col(e.value),) * 2
                for i in range(a, b + 1):
                    cells[i] = "─" if i != zero else "┼"
                cells[col(e.value)] = "●"
                m = mark(e)
                style = ("green" if e.value > 0 else "red") if m == " *" else ("yellow" if m else "")
            t.append("\n")
            t.append(f"{'P' + str(k):<{self.LABEL}}", style="bold magenta")
            t.append("".join(cells), style=style)
            t.append("  ")
            t.append_text(text)
        scale = Text("\n" + " " * self.LABEL, style="dim")
        left, right = _num(lo, rate), _num(hi, rate)
        scale.append(left + " " * max(1, bar_w - len(left) - len(right)) + right)
        t.append_text(scale)
        return t


def _num(x: float, rate: bool) -> str:
    return f"{x * 100:+.1f}%" if rate else f"{x:+.2f}"


__all__ = ["SweepChart", "sweep_table", "fmt_point", "figures", "difference", "legend", "footer", "significant_count",
           "BARE_FROM"]
