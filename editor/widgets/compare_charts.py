"""The figures of a paired simulation (:class:`~gouji_dsl.tools.paired.PairedReport`) for the compare
screen: a table (each figure for A and B with its 95% interval, the paired difference B − A marked
as the report marks it — ``*`` significant after Holm's adjustment, ``†`` its interval excludes 0 but
not after the adjustment — and its effect
size) and charts that draw themselves to the width they get: places by seat (stacked bars, A over
B) and the distribution of the team score spread (histograms of A and B on one scale). Everything
shown is read from the one report object; nothing is recomputed here.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from rich import box
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from gouji_dsl.i18n import Language, current, display_width
from gouji_dsl.ruleset.words import GameWords
from gouji_dsl.tools.figures import SIDE_FIGURES, figure_label
from gouji_dsl.tools.paired import PairedReport, effect_text, mark, methods_short
from gouji_dsl.tools.stats import Estimate
from gouji_dsl.tools.textlayout import wrap

from ..i18n import _

# place 1 .. 6 (more places reuse the last colour)
PLACE_COLORS = ["#2e9e4f", "#8cc04b", "#e0d04a", "#f0a030", "#e06030", "#a0204a"]
BARS = " ▁▂▃▄▅▆▇█"


# ------------------------------------------------------------------------------ figures
def fmt_estimate(e: Estimate | None, rate: bool, signed: bool = False) -> Text:
    """``12.3 ±0.4`` / ``9.0% [5, 16]``: the value in bold, the 95% interval dim; a ``signed``
    difference signs the value and both bounds (``+1.2% [-0.4, +2.9]``)."""
    if e is None or math.isnan(e.value):
        return Text("—", style="dim")
    scale, unit = (100.0, "%") if (rate or e.kind == "wilson") else (1.0, "")
    digits = 1 if unit else 2
    t = Text(f"{e.value * scale:{'+' if signed else ''}.{digits}f}{unit}")
    if math.isnan(e.low) or math.isnan(e.high):
        return t
    if abs((e.high - e.value) - (e.value - e.low)) < 1e-9:
        t.append(f" ±{e.half_width * scale:.{digits}f}", style="dim")
    else:
        # rates: one decimal for small percentages (0.0–0.8%), none for larger ones (7–12%)
        d = (1 if max(abs(e.low), abs(e.high)) * scale < 10 else 0) if unit else digits
        sign = "+" if signed else ""  # a difference signs both bounds, as Estimate.format does
        t.append(f" [{e.low * scale:{sign}.{d}f}, {e.high * scale:{sign}.{d}f}]", style="dim")
    return t


def fmt_difference(e: Estimate | None, rate: bool) -> Text:
    """The paired difference marked as the command line marks it (:func:`~gouji_dsl.tools.paired.mark`):
    bold and coloured with ``*`` when significant after Holm's adjustment, ``†`` (dim) when its own
    interval excludes 0 but it is not significant after the adjustment, no mark otherwise."""
    t = fmt_estimate(e, rate, signed=True)
    if e is None or e.p is None:
        return t
    if e.significant:
        t.stylize("bold " + ("green" if e.value > 0 else "red"), 0, len(t.plain.split(" ")[0]))
        t.append(mark(e), style="bold")
    else:
        t.append(mark(e), style="dim")
    return t


def fmt_effect(e: Estimate | None) -> Text:
    """The effect size next to a difference (``d=+0.12``, ``h=-0.03``)."""
    return Text(effect_text(e) if e is not None else "", style="dim")


def figure_rows(report: PairedReport, words: Sequence[GameWords] = ()) -> list[tuple[str, Text, Text, Text, Text]]:
    """(label, A, B, B − A, effect) for every figure of the report, in the CLI's order; the labels in
    the rulesets' ``words`` of the game (:func:`~gouji_dsl.tools.figures.figure_label`)."""
    r = report
    rows = []
    for key, _label, kind in SIDE_FIGURES:
        rate = kind == "rate"
        d = r.differences[key]
        rows.append((figure_label(key, *words), fmt_estimate(r.a.figure(key), rate), fmt_estimate(r.b.figure(key), rate),
                     fmt_difference(d, rate), fmt_effect(d)))
    for s, e in r.differences["seat_score"].items():
        rows.append((_("mean score, seat {s}").format(s=s), fmt_estimate(r.a.seat_score.get(s), False),
                     fmt_estimate(r.b.seat_score.get(s), False), fmt_difference(e, False), fmt_effect(e)))
    oc = r.differences["outcome_changed"]
    rows.append((figure_label("outcome_changed", *words), Text(""), Text(""), fmt_estimate(oc, True), Text("")))
    return rows


def stats_table(report: PairedReport, compact: bool = False, words: Sequence[GameWords] = ()) -> Table:
    """The figures as a Rich table: figure | A | B | B − A (``compact``: the columns headed "A" and
    "B" only, for narrow screens), labelled in the rulesets' ``words`` of the game. How they are
    computed (:func:`methods_note`) goes under it as a text of its own: a Rich caption breaks Chinese
    inside a word (Holm)."""
    la, lb = report.labels
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column(_("figure"), no_wrap=False, min_width=LABEL_WIDTH)
    table.add_column(Text("A" if compact else (la if la.startswith("A ") else f"A {la}"), style="bold cyan"),
                     no_wrap=True)
    table.add_column(Text("B" if compact else (lb if lb.startswith("B ") else f"B {lb}"), style="bold magenta"),
                     no_wrap=True)
    table.add_column("B − A", no_wrap=True)
    if not compact:  # (narrow: the effect sizes left out, the figures' columns keep their width)
        table.add_column(_("effect"), no_wrap=True)
    for label, a, b, d, eff in figure_rows(report, words):
        table.add_row(label_cell(label) if compact else label, a, b, d, *(() if compact else (eff,)))
    return table


LABEL_WIDTH = 14
"""The cells of the figure column of a narrow table."""


def label_cell(label: str, width: int = LABEL_WIDTH) -> Text:
    """A figure's label in lines of ``width`` cells as the one wrap breaks them (a Chinese label has
    no space for Rich to break at: it was cut with "…"); two rulesets' labels (烧牌成功率/火牌成功率)
    each on its own line."""
    if display_width(label) <= width:
        return Text(label)
    lines: list[str] = []
    parts = label.split("/")
    for i, part in enumerate(parts):
        lines += wrap(part, width)
        if i < len(parts) - 1:
            lines[-1] += "/"  # (the slash stays with the first label, a cell past the width if need be)
    return Text("\n".join(lines))


def methods_note() -> Text:
    """The note under the figures: their intervals, marks and effect sizes (the report's short methods)."""
    return Text(methods_short(), style="dim")


# ------------------------------------------------------------------------------ helpers
def team_spread(scores: Sequence[int], teams: int) -> float:
    """Highest minus lowest team mean score of one game (seat ``s`` is in team ``(s-1) % teams + 1``)."""
    teams = max(1, teams)
    by: dict[int, list[int]] = {}
    for s, v in enumerate(scores, start=1):
        by.setdefault((s - 1) % teams + 1, []).append(v)
    means = [sum(v) / len(v) for v in by.values()]
    return max(means) - min(means) if means else 0.0


def split_widths(parts: Sequence[float], width: int) -> list[int]:
    """Cells for each part of a bar ``width`` cells long (largest remainder, sums to ``width``)."""
    total = sum(parts)
    if total <= 0 or width <= 0:
        return [0] * len(parts)
    exact = [p / total * width for p in parts]
    cells = [int(x) for x in exact]
    rest = width - sum(cells)
    for i in sorted(range(len(parts)), key=lambda i: exact[i] - cells[i], reverse=True)[:rest]:
        cells[i] += 1
    return cells


class _Chart(Widget):
    """A widget that draws :meth:`draw` to its width (height: the lines it draws)."""

    DEFAULT_CSS = "_Chart { height: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.report: PairedReport | None = None
        self.teams: tuple[int, int] = (2, 2)
        self.words = GameWords({}, {})

    def show(self, report: PairedReport | None, teams: tuple[int, int] = (2, 2), words: GameWords | None = None) -> None:
        """Draw ``report`` (None: nothing); ``words``: ruleset A's words of the game (its place names)."""
        self.report = report
        self.teams = teams
        self.words = words if words is not None else GameWords({}, {})
        self.refresh(layout=True)

    def render(self) -> Text:
        if self.report is None:
            return Text("")
        return self.draw(self.report, max(20, self.content_region.width or self.size.width or 60))

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[override]
        if self.report is None:
            return 0
        text = self.draw(self.report, max(20, width))
        return len(text.wrap(self.app.console, max(1, width)))  # a line too long for the width wraps

    def draw(self, report: PairedReport, width: int) -> Text:  # pragma: no cover - abstract
        raise NotImplementedError


class PlacesChart(_Chart):
    """Places by seat: for every seat a bar for A and one for B, split by the share of games the
    seat finished 1st, 2nd, ... (colours from green to red), then the shares of 1st and last place."""

    MAX_BAR = 60
    SUFFIX = 19  # " 100% 1st  100% 6th"

    def draw(self, report: PairedReport, width: int) -> Text:
        la, lb = report.labels
        n = len(report.a.place_distribution)
        t = Text()
        t.append(_("Places by seat"), style="bold")
        t.append("  " + _("share of games finished") + " ", style="dim")
        for p in range(1, n + 1):
            t.append("█", style=PLACE_COLORS[min(p, len(PLACE_COLORS)) - 1])
            t.append(self._place(p, legend=True) + " ", style="dim")
        head_w = max(display_width(_("seat {seat}").format(seat=n)), 6) + 1  # ("seat 6 " / "6 号座位 ")
        label_w = head_w + 2
        suffix = max(self.SUFFIX, display_width(f" 100% {self._place(1)}  100% {self._place(n)}"))  # (头科 … 大落: 2 cells each)
        bar_w = max(10, min(self.MAX_BAR, width - label_w - suffix))
        for s in range(1, n + 1):
            for side, dist in (("A", report.a.place_distribution.get(s, {})),
                               ("B", report.b.place_distribution.get(s, {}))):
                t.append("\n")
                head = _("seat {seat}").format(seat=s) if side == "A" else ""
                t.append(head + " " * (head_w - display_width(head)), style="bold")
                t.append(f"{side} ", style="bold cyan" if side == "A" else "bold magenta")
                shares = [dist[p].value if p in dist and not math.isnan(dist[p].value) else 0.0
                          for p in range(1, n + 1)]
                for p, cells in enumerate(split_widths(shares, bar_w), start=1):
                    t.append("█" * cells, style=PLACE_COLORS[min(p, len(PLACE_COLORS)) - 1])
                if sum(shares):
                    t.append(f" {shares[0] * 100:3.0f}% {self._place(1)} {shares[-1] * 100:4.0f}% {self._place(n)}",
                             style="dim")
        return t

    def _place(self, p: int, legend: bool = False) -> str:
        """Place ``p`` as the chart names it: ``1st`` (the legend: ``1st 头科``); where the app speaks
        Chinese, the ruleset's word (头科 … 大落)."""
        if current() == Language.ZH:
            return self.words.place(p)
        word = self.words.place(p, Language.ZH) if legend and str(p) in self.words.places else ""
        return f"{p}{_ordinal(p)}" + (f" {word}" if word else "")


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def histogram(values: Sequence[float] | dict[float, int], lo: float, hi: float, bins: int) -> list[int]:
    """Counts in ``bins`` equal bins over [lo, hi): ``values`` a list, or a mapping value → games."""
    counts = [0] * bins
    span = (hi - lo) or 1.0
    items = values.items() if isinstance(values, dict) else ((v, 1) for v in values)
    for v, c in items:
        i = min(bins - 1, max(0, int((v - lo) / span * bins)))
        counts[i] += c
    return counts


def bar_rows(counts: Sequence[int], top: int, height: int) -> list[str]:
    """A vertical bar chart of ``counts`` (scaled so ``top`` fills ``height`` rows), top row first."""
    eighths = [round(c / top * height * 8) if top else 0 for c in counts]
    rows = []
    for r in reversed(range(height)):
        rows.append("".join(BARS[max(0, min(8, e - r * 8))] for e in eighths))
    return rows


class SpreadChart(_Chart):
    """The team score spread of every game (highest minus lowest team score), as two histograms
    of A and B on the same scale (one column per spread value, up to ``MAX_BINS``)."""

    HEIGHT = 4
    MAX_BINS = 24

    def draw(self, report: PairedReport, width: int) -> Text:
        ha = {float(k): v for k, v in report.a.spread_histogram.items()}
        hb = {float(k): v for k, v in report.b.spread_histogram.items()}
        t = Text()
        t.append(_("Team score spread"), style="bold")
        t.append("  " + _("games by |team 1 − team 2| score, one scale for both"), style="dim")
        if not ha and not hb:
            return t
        hi = max(list(ha) + list(hb) + [1.0])
        label_w = 9
        bins = max(2, min(int(math.ceil(hi)) + 1, self.MAX_BINS))
        cell = max(1, min(4, (width - label_w) // bins))
        ca = histogram(ha, 0.0, hi + 1e-9, bins)
        cb = histogram(hb, 0.0, hi + 1e-9, bins)
        top = max(ca + cb + [1])
        for side, counts, style in (("A", ca, "cyan"), ("B", cb, "magenta")):
            rows = bar_rows(counts, top, self.HEIGHT)
            for i, row in enumerate(rows):
                t.append("\n")
                label = f"{side} {max(counts)} max" if i == 0 else (side if i == len(rows) - 1 else "")
                t.append(f"{label:<{label_w}}", style=f"bold {style}" if i == len(rows) - 1 else "dim")
                bar = "".join(ch * max(1, cell - 1) + (" " if cell > 1 else "") for ch in row)
                t.append(bar.rstrip(), style=style)
        # the axis: the low end of the first, middle and last bin
        axis = [" "] * (bins * cell)
        for b in sorted({0, bins // 2, bins - 1}):
            label = _num(hi * b / bins)
            pos = min(b * cell, len(axis) - len(label))
            axis[pos:pos + len(label)] = list(label)
        t.append("\n")
        t.append(f"{'spread':<{label_w}}" + "".join(axis).rstrip(), style="dim")
        return t


def _num(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


__all__ = ["stats_table", "methods_note", "figure_rows", "fmt_estimate", "fmt_difference", "fmt_effect", "PlacesChart", "SpreadChart",
           "team_spread", "split_widths", "histogram", "bar_rows"]
