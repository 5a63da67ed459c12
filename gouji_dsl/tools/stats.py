"""Small, dependency-free statistics for simulation reports: means and rates with 95% intervals.

- :func:`mean_ci`: mean ± z·sd/√n (normal approximation; ``sd`` is the sample standard deviation).
- :func:`wilson`: the Wilson score interval of a proportion (good at rates near 0 or 1 and small n).
- :func:`paired_mean_diff`: the mean of per-deal differences ``b - a`` with :func:`mean_ci`.
- :func:`newcombe_diff`: difference of two independent proportions ``b - a`` (Newcombe's hybrid
  score interval, built from the two Wilson intervals).

Every function returns an :class:`Estimate`. An interval that cannot be computed (no data, or a
single value for a mean) has ``low``/``high`` equal to ``nan``; :meth:`Estimate.to_dict` turns
``nan`` into ``None`` so the result is valid JSON.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile (the "1.96")."""


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a confidence interval.

    ``kind`` says how it was computed: ``"mean"`` (normal approximation), ``"wilson"`` (a
    proportion, ``count`` successes out of ``n``), ``"paired"`` (mean of paired differences) or
    ``"newcombe"`` (difference of two independent proportions)."""

    value: float
    low: float
    high: float
    n: int
    kind: str = "mean"
    count: int | None = None

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """True when the interval lies entirely above or below 0 (a 'clear' difference)."""
        return not (math.isnan(self.low) or math.isnan(self.high)) and (self.low > 0 or self.high < 0)

    def format(self, digits: int = 2, *, percent: bool = False, signed: bool = False) -> str:
        """``12.30 [11.90, 12.70]``; with ``percent`` the figures are shown ×100 with a ``%``."""
        scale, unit = (100.0, "%") if percent else (1.0, "")
        sign = "+" if signed else ""

        def f(x: float, sgn: str = "") -> str:
            return "n/a" if math.isnan(x) else f"{x * scale:{sgn}.{digits}f}{unit}"

        if math.isnan(self.low) or math.isnan(self.high):
            return f(self.value, sign)
        return f"{f(self.value, sign)} [{f(self.low)}, {f(self.high)}]"

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``value, low, high, n, kind`` (+ ``count`` for proportions); nan → None."""
        out: dict[str, Any] = {"value": _num(self.value), "low": _num(self.low), "high": _num(self.high),
                               "n": self.n, "kind": self.kind}
        if self.count is not None:
            out["count"] = self.count
        return out


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


def mean_ci(values: Iterable[float], z: float = Z95) -> Estimate:
    """Mean of ``values`` with the interval mean ± z·sd/√n (sd: sample standard deviation)."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    m = math.fsum(xs) / n
    if n < 2:
        return Estimate(m, math.nan, math.nan, n)
    h = z * statistics.stdev(xs, m) / math.sqrt(n)
    return Estimate(m, m - h, m + h, n)


def wilson(successes: int, n: int, z: float = Z95) -> Estimate:
    """The proportion ``successes / n`` with its Wilson score interval."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "wilson", 0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    h = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return Estimate(p, max(0.0, centre - h), min(1.0, centre + h), n, "wilson", successes)


def paired_mean_diff(a: Sequence[float], b: Sequence[float], z: float = Z95) -> Estimate:
    """Mean of ``b[i] - a[i]`` with mean ± z·sd/√n over the differences (the pairs share a deal)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    e = mean_ci((y - x for x, y in zip(a, b)), z)
    return Estimate(e.value, e.low, e.high, e.n, "paired")


def newcombe_diff(sa: int, na: int, sb: int, nb: int, z: float = Z95) -> Estimate:
    """``sb/nb - sa/na`` for two independent proportions, with Newcombe's hybrid score interval
    (method 10): it combines the two Wilson intervals and, like them, behaves well near 0 and 1."""
    if na <= 0 or nb <= 0:
        return Estimate(math.nan, math.nan, math.nan, min(na, nb), "newcombe")
    wa, wb = wilson(sa, na, z), wilson(sb, nb, z)
    pa, pb = wa.value, wb.value
    d = pb - pa
    low = d - math.sqrt((pb - wb.low) ** 2 + (wa.high - pa) ** 2)
    high = d + math.sqrt((wb.high - pb) ** 2 + (pa - wa.low) ** 2)
    return Estimate(d, max(-1.0, low), min(1.0, high), min(na, nb), "newcombe")
