"""Statistics for simulation reports: mergeable running totals and the intervals, tests and effect
sizes computed from them. Dependency-free; scipy and statsmodels check it in the tests.

Running totals (exact: integers and fractions, so merging chunks in any order gives the same bits)
    :class:`Sums` — count, sum and sum of squares of a per-game value, plus the per-cluster sums a
    cluster-robust variance needs (a *cluster* is a block of games that are linked, e.g. the games
    of one match, linked by tribute); :class:`PairedBinary` — the 2×2 table of a yes/no outcome of
    the two games of a pair; :class:`Ratio` — a ratio of two per-game counts (burn successes per
    attempt).

Estimates (each an :class:`Estimate`; 95 % two-sided, normal quantile :data:`Z95`)
    - :func:`mean_estimate`: mean ± z·SE with the cluster-robust SE
      ``√(G/(G−1) · Σ_g (S_g − n_g·m)²) / N`` (CR1, clusters ``g`` with sums ``S_g`` and sizes
      ``n_g``); with one game per cluster it is the usual sd/√n.
    - :func:`paired_estimate`: the same for per-deal differences ``b − a``, with a two-sided z-test
      p-value and the effect size ``d_z`` (mean difference / sd of the differences).
    - :func:`rate_estimate`: a proportion with its Wilson score interval on *effective* counts
      (counts divided by the design effect ``deff`` = clustered / independent variance, never
      below 1: the Rao–Scott adjustment).
    - :func:`paired_rate_estimate`: the difference of two paired proportions with Newcombe's
      square-and-add interval for paired data (1998, method 10: the two Wilson intervals and the
      estimated correlation φ), McNemar's test (no continuity correction; chi-square divided by
      ``deff``) and Cohen's ``h``.
    - :func:`ratio_estimate` / :func:`ratio_difference`: a ratio rate (Wilson on effective counts;
      its ``deff`` from the linearised cluster variance) and the difference of two of them
      (Newcombe's hybrid score interval for independent proportions, a two-proportion z-test,
      Cohen's ``h``).
    - :func:`holm`: Holm's step-down adjustment of a family of p-values.

The list-based helpers :func:`mean_ci`, :func:`wilson`, :func:`paired_mean_diff` and
:func:`newcombe_diff` are thin wrappers over the same code. An interval that cannot be computed
has ``low``/``high`` equal to ``nan``; :meth:`Estimate.to_dict` turns ``nan`` into ``None``.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from gouji_dsl.i18n import _

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile (the "1.96")."""

ALPHA = 0.05
"""The level at which a difference is called significant (after :func:`holm`)."""

Number = int | Fraction


# ==================================================================================================
# estimates

CLIPPED = "‡"
"""The mark of an interval cut to the possible range (:meth:`Estimate.within`; :func:`clipped_note`)."""


def clipped_note(estimates: Iterable[Estimate]) -> str:
    """The footnote of the :data:`CLIPPED` marks among ``estimates`` ("" when none is clipped)."""
    bounds = sorted({e.clipped for e in estimates if e.clipped is not None})
    if not bounds:
        return ""
    return _("{mark} interval cut to the possible range ±{bound}: the largest team-score difference the ruleset's "
             "scores allow").format(mark=CLIPPED, bound=" / ±".join(f"{b:g}" for b in bounds))


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a confidence interval.

    ``kind`` says how it was computed: ``"mean"``, ``"wilson"`` (a proportion, ``count`` out of
    ``n``), ``"paired"`` (mean of paired differences), ``"paired_rate"`` (Newcombe, paired) or
    ``"newcombe"`` (difference of two independent proportions). A difference carries ``p`` (its
    test), ``p_adjusted`` (Holm, when it belongs to the report's family), ``effect`` and
    ``effect_kind`` (``"d_z"`` or ``"h"``). ``deff`` is the design effect of match clustering."""

    value: float
    low: float
    high: float
    n: int
    kind: str = "mean"
    count: int | None = None
    p: float | None = None
    p_adjusted: float | None = None
    effect: float | None = None
    effect_kind: str | None = None
    deff: float | None = None
    #: the bound of the possible range (``-bound .. +bound``) the interval was cut to (:meth:`within`)
    clipped: float | None = None

    def within(self, bound: float | None) -> Estimate:
        """This estimate with its interval cut to the possible range ``-bound .. +bound`` (a game's
        largest team-score difference), marked :data:`CLIPPED` where it reached past it."""
        if bound is None or math.isnan(self.low) or math.isnan(self.high) or (self.low >= -bound and self.high <= bound):
            return self
        return replace(self, low=max(self.low, -bound), high=min(self.high, bound), clipped=bound)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """True when the interval lies entirely above or below 0 (before any adjustment)."""
        return not (math.isnan(self.low) or math.isnan(self.high)) and (self.low > 0 or self.high < 0)

    @property
    def significant(self) -> bool:
        """Significant at :data:`ALPHA`: by the Holm-adjusted p-value when there is one, else by
        the raw p-value, else by the interval."""
        if self.p_adjusted is not None:
            return self.p_adjusted < ALPHA
        if self.p is not None:
            return self.p < ALPHA
        return self.excludes_zero

    def adjusted(self, p_adjusted: float) -> Estimate:
        return replace(self, p_adjusted=p_adjusted)

    def format(self, digits: int = 2, *, percent: bool = False, signed: bool = False) -> str:
        """``12.30 [11.90, 12.70]``; with ``percent`` the figures are shown ×100 with a ``%``; with
        ``signed`` (a difference) the value and both bounds carry their sign: ``+0.75 [-4.54, +6.04]``."""
        scale, unit = (100.0, "%") if percent else (1.0, "")
        sign = "+" if signed else ""

        def f(x: float, sgn: str = "") -> str:
            return "n/a" if math.isnan(x) else f"{x * scale:{sgn}.{digits}f}{unit}"

        if math.isnan(self.low) or math.isnan(self.high):
            return f(self.value, sign)
        return f"{f(self.value, sign)} [{f(self.low, sign)}, {f(self.high, sign)}]" + (CLIPPED if self.clipped is not None else "")

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``value, low, high, n, kind`` (+ ``count`` for proportions; + ``p``,
        ``p_adjusted``, ``significant``, ``effect``, ``effect_kind`` for differences; + ``deff``
        where clustering widened the interval); nan → None."""
        out: dict[str, Any] = {"value": _num(self.value), "low": _num(self.low), "high": _num(self.high),
                               "n": self.n, "kind": self.kind}
        if self.count is not None:
            out["count"] = self.count
        if self.p is not None:
            out["p"] = _num(self.p, 8)
            out["p_adjusted"] = _num(self.p_adjusted, 8) if self.p_adjusted is not None else None
            out["significant"] = self.significant
        if self.effect_kind is not None:
            out["effect"] = _num(self.effect) if self.effect is not None else None
            out["effect_kind"] = self.effect_kind
        if self.deff is not None and self.deff > 1:
            out["deff"] = _num(self.deff, 4)
        if self.clipped is not None:
            out["clipped_to"] = [-self.clipped, self.clipped]
        return out


def _num(x: float | None, digits: int = 6) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), digits)


NAN = math.nan


def _empty(kind: str, n: int = 0) -> Estimate:
    return Estimate(NAN, NAN, NAN, n, kind)


def normal_sf2(z: float) -> float:
    """Two-sided p-value of a standard normal statistic ``z``."""
    return math.erfc(abs(z) / math.sqrt(2))


# ==================================================================================================
# running totals


def _fmt_number(x: Number) -> int | str:
    if isinstance(x, int):
        return x
    return x.numerator if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _parse_number(x: Any) -> Number:
    if isinstance(x, bool):
        raise ValueError(f"not a number: {x!r}")
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        f = Fraction(x)
        return f.numerator if f.denominator == 1 else f
    raise ValueError(f"not an exact number: {x!r}")


@dataclass
class Sums:
    """Mergeable totals of one per-game value: ``n`` games in ``clusters`` clusters, ``s`` = Σx,
    ``ss`` = Σx², and over clusters ``cs2`` = Σ S_g², ``cns`` = Σ n_g·S_g, ``cn2`` = Σ n_g²."""

    n: int = 0
    clusters: int = 0
    s: Number = 0
    ss: Number = 0
    cs2: Number = 0
    cns: Number = 0
    cn2: int = 0

    FIELDS = ("n", "clusters", "s", "ss", "cs2", "cns", "cn2")

    def add_cluster(self, values: Iterable[Number]) -> None:
        """Add the values of one cluster (e.g. the games of one match block)."""
        k = 0
        t: Number = 0
        for x in values:
            k += 1
            t += x
            self.ss += x * x
        if k == 0:
            return
        self.n += k
        self.clusters += 1
        self.s += t
        self.cs2 += t * t
        self.cns += k * t
        self.cn2 += k * k

    def add_singles(self, values: Iterable[Number | None]) -> None:
        """``add_cluster([x])`` for each value ``x`` that is not None (every value its own
        cluster: games that each start a match), in one pass."""
        n = 0
        s: Number = 0
        ss: Number = 0
        for x in values:
            if x is None:
                continue
            n += 1
            s += x
            ss += x * x
        if n:
            self.n += n
            self.clusters += n
            self.s += s
            self.ss += ss
            self.cs2 += ss
            self.cns += s
            self.cn2 += n

    def merge(self, other: Sums) -> None:
        for f in self.FIELDS:
            setattr(self, f, getattr(self, f) + getattr(other, f))

    def to_json(self) -> dict[str, Any]:
        return {f: _fmt_number(getattr(self, f)) for f in self.FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Sums:
        return cls(n=int(data["n"]), clusters=int(data["clusters"]), s=_parse_number(data["s"]),
                   ss=_parse_number(data["ss"]), cs2=_parse_number(data["cs2"]), cns=_parse_number(data["cns"]),
                   cn2=int(data["cn2"]))

    # ---- moments (floats from exact totals)
    @property
    def mean(self) -> float:
        return float(Fraction(self.s) / self.n) if self.n else NAN

    def _centred(self) -> Fraction:
        """Σ (x − m)² exactly."""
        return Fraction(self.ss) - Fraction(self.s) ** 2 / self.n

    @property
    def sd(self) -> float:
        """Sample standard deviation of the values (n − 1)."""
        return math.sqrt(float(self._centred() / (self.n - 1))) if self.n > 1 else NAN

    def variance_of_mean(self) -> float:
        """The cluster-robust (CR1) variance of the mean; the usual s²/n with one game per cluster."""
        if self.n < 2 or self.clusters < 2:
            return NAN
        m = Fraction(self.s) / self.n
        resid = Fraction(self.cs2) - 2 * m * self.cns + m * m * self.cn2
        g = self.clusters
        return float(Fraction(g, g - 1) * resid / (self.n * self.n))

    def deff(self) -> float:
        """Design effect: clustered variance of the mean over the independent one (≥ 0)."""
        if self.n < 2 or self.clusters < 2:
            return 1.0
        if self.clusters == self.n:
            return 1.0
        naive = float(self._centred() / (self.n - 1)) / self.n
        v = self.variance_of_mean()
        return v / naive if naive > 0 else 1.0


@dataclass
class PairedBinary:
    """The 2×2 table of a yes/no outcome of the games of a pair (``n11``: yes under both, ``n10``:
    A only, ``n01``: B only, ``n00``: neither) and the clustered sums of ``b − a`` (for ``deff``)."""

    n11: int = 0
    n10: int = 0
    n01: int = 0
    n00: int = 0
    diff: Sums | None = None

    def __post_init__(self) -> None:
        if self.diff is None:
            self.diff = Sums()

    def add_cluster(self, pairs: Sequence[tuple[bool, bool]]) -> None:
        for a, b in pairs:
            if a and b:
                self.n11 += 1
            elif a:
                self.n10 += 1
            elif b:
                self.n01 += 1
            else:
                self.n00 += 1
        assert self.diff is not None
        self.diff.add_cluster(int(b) - int(a) for a, b in pairs)

    def merge(self, other: PairedBinary) -> None:
        self.n11 += other.n11
        self.n10 += other.n10
        self.n01 += other.n01
        self.n00 += other.n00
        assert self.diff is not None and other.diff is not None
        self.diff.merge(other.diff)

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00

    def to_json(self) -> dict[str, Any]:
        assert self.diff is not None
        return {"n11": self.n11, "n10": self.n10, "n01": self.n01, "n00": self.n00, "diff": self.diff.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairedBinary:
        return cls(int(data["n11"]), int(data["n10"]), int(data["n01"]), int(data["n00"]),
                   Sums.from_json(data["diff"]))


@dataclass
class Ratio:
    """Totals of a ratio of two per-game counts ``y / x`` (successes per attempt): the sums of
    ``y`` and ``x`` and, over clusters, Σ Y_g², Σ X_g², Σ X_g·Y_g (for the linearised variance)."""

    y: int = 0
    x: int = 0
    yy: int = 0
    xx: int = 0
    xy: int = 0
    clusters: int = 0

    FIELDS = ("y", "x", "yy", "xx", "xy", "clusters")

    def add_cluster(self, pairs: Iterable[tuple[int, int]]) -> None:
        """``pairs``: (y, x) of each game of one cluster."""
        ty = tx = 0
        for y, x in pairs:
            ty += y
            tx += x
        self.y += ty
        self.x += tx
        self.yy += ty * ty
        self.xx += tx * tx
        self.xy += tx * ty
        self.clusters += 1

    def merge(self, other: Ratio) -> None:
        for f in self.FIELDS:
            setattr(self, f, getattr(self, f) + getattr(other, f))

    def to_json(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ratio:
        return cls(**{f: int(data[f]) for f in cls.FIELDS})

    def deff(self) -> float:
        """Linearised cluster variance of ``y/x`` over the binomial ``r(1−r)/x`` (1 when undefined)."""
        if self.x == 0 or self.clusters < 2 or self.y in (0, self.x):
            return 1.0
        r = Fraction(self.y, self.x)
        resid = self.yy - 2 * r * self.xy + r * r * self.xx
        g = self.clusters
        v = Fraction(g, g - 1) * resid / (self.x * self.x)
        binom = r * (1 - r) / self.x
        return float(v / binom) if binom > 0 else 1.0


# ==================================================================================================
# estimates from totals


def mean_estimate(s: Sums, z: float = Z95) -> Estimate:
    """Mean ± z·SE (cluster-robust SE; the plain sd/√n when every game is its own cluster)."""
    if s.n == 0:
        return _empty("mean")
    m = s.mean
    v = s.variance_of_mean()
    if math.isnan(v):
        return Estimate(m, NAN, NAN, s.n)
    h = z * math.sqrt(max(0.0, v))
    return Estimate(m, m - h, m + h, s.n, deff=s.deff())


def paired_estimate(d: Sums, z: float = Z95) -> Estimate:
    """The mean of per-deal differences ``b − a`` (totals ``d``) with its cluster-robust interval,
    the two-sided z-test p-value of "no difference" and Cohen's ``d_z`` (mean / sd)."""
    e = mean_estimate(d, z)
    if e.n == 0:
        return replace(e, kind="paired")
    sd = d.sd
    effect = (e.value / sd if sd > 0 else (0.0 if e.value == 0 else NAN)) if not math.isnan(sd) else NAN
    se = math.sqrt(max(0.0, d.variance_of_mean())) if d.n > 1 and d.clusters > 1 else NAN
    if math.isnan(se):
        p = NAN
    elif se == 0:
        p = 1.0 if e.value == 0 else 0.0
    else:
        p = normal_sf2(e.value / se)
    return replace(e, kind="paired", p=p, effect=effect, effect_kind="d_z")


def _wilson_bounds(x: float, n: float, z: float) -> tuple[float, float]:
    p = x / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    h = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / denom
    return max(0.0, centre - h), min(1.0, centre + h)


def rate_estimate(count: int, n: int, deff: float = 1.0, z: float = Z95) -> Estimate:
    """``count / n`` with the Wilson interval on effective counts ``count/deff`` of ``n/deff``
    (``deff`` below 1 is taken as 1)."""
    if n <= 0:
        return Estimate(NAN, NAN, NAN, 0, "wilson", 0)
    d = max(1.0, deff)
    lo, hi = _wilson_bounds(count / d, n / d, z)
    return Estimate(count / n, lo, hi, n, "wilson", count, deff=d)


def cohen_h(pa: float, pb: float) -> float:
    """Cohen's effect size of two proportions: 2·asin√pb − 2·asin√pa."""
    return 2 * math.asin(math.sqrt(pb)) - 2 * math.asin(math.sqrt(pa))


def paired_rate_estimate(t: PairedBinary, z: float = Z95) -> Estimate:
    """``p_b − p_a`` of a paired yes/no outcome: Newcombe's square-and-add interval for paired
    proportions (method 10, with the correlation φ estimated as in Newcombe 1998), McNemar's
    test and Cohen's ``h``. Clustered pairs: every cell is divided by ``deff`` of the differences."""
    n = t.n
    if n == 0:
        return _empty("paired_rate")
    assert t.diff is not None
    d = max(1.0, t.diff.deff())
    n11, n10, n01, n00, ne = t.n11 / d, t.n10 / d, t.n01 / d, t.n00 / d, n / d
    pa, pb = (t.n11 + t.n10) / n, (t.n11 + t.n01) / n
    la, ua = _wilson_bounds(n11 + n10, ne, z)
    lb, ub = _wilson_bounds(n11 + n01, ne, z)
    ra, rb = n11 + n10, n11 + n01  # margins (effective)
    ca, cb = n01 + n00, n10 + n00
    phi = 0.0
    if ra > 0 and ca > 0 and rb > 0 and cb > 0:
        a = n11 * n00 - n10 * n01
        prod = ra * ca * rb * cb
        if a > ne / 2:
            phi = (a - ne / 2) / math.sqrt(prod)
        elif a < 0:
            phi = a / math.sqrt(prod)
    diff = pb - pa
    low = diff - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    high = diff + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    disc = t.n10 + t.n01
    p = 1.0 if disc == 0 else math.erfc(math.sqrt((t.n01 - t.n10) ** 2 / disc / d) / math.sqrt(2))
    return Estimate(diff, max(-1.0, low), min(1.0, high), n, "paired_rate", p=p, effect=cohen_h(pa, pb),
                    effect_kind="h", deff=d)


def ratio_estimate(r: Ratio, z: float = Z95) -> Estimate:
    """``y / x`` with the Wilson interval on effective counts (``deff`` from the cluster variance)."""
    return rate_estimate(r.y, r.x, r.deff(), z)


def ratio_difference(a: Ratio, b: Ratio, z: float = Z95) -> Estimate:
    """``b.y/b.x − a.y/a.x``, the two rates treated as independent: Newcombe's hybrid score interval
    (on effective counts), the pooled two-proportion z-test and Cohen's ``h``."""
    if a.x <= 0 or b.x <= 0:
        return Estimate(NAN, NAN, NAN, min(a.x, b.x), "newcombe")
    e = newcombe_diff(a.y, a.x, b.y, b.x, z, deff_a=a.deff(), deff_b=b.deff())
    da, db = max(1.0, a.deff()), max(1.0, b.deff())
    xa, na, xb, nb = a.y / da, a.x / da, b.y / db, b.x / db
    pooled = (xa + xb) / (na + nb)
    se = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    p = (1.0 if e.value == 0 else 0.0) if se == 0 else normal_sf2(e.value / se)
    return replace(e, p=p, effect=cohen_h(a.y / a.x, b.y / b.x), effect_kind="h")


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as ``ps``; ``nan`` entries stay ``nan`` and do
    not count in the family)."""
    idx = sorted((i for i, p in enumerate(ps) if not math.isnan(p)), key=lambda i: ps[i])
    m = len(idx)
    out = [NAN] * len(ps)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


# ==================================================================================================
# list helpers (small samples, tests)


def _sums(values: Iterable[float | int | Fraction]) -> Sums:
    s = Sums()
    for v in values:
        s.add_cluster([Fraction(v) if isinstance(v, float) else v])
    return s


def mean_ci(values: Iterable[float], z: float = Z95) -> Estimate:
    """Mean of ``values`` with the interval mean ± z·sd/√n (sd: sample standard deviation)."""
    e = mean_estimate(_sums(values), z)
    return replace(e, deff=None)


def wilson(successes: int, n: int, z: float = Z95) -> Estimate:
    """The proportion ``successes / n`` with its Wilson score interval."""
    return replace(rate_estimate(successes, n, 1.0, z), deff=None)


def paired_mean_diff(a: Sequence[float], b: Sequence[float], z: float = Z95) -> Estimate:
    """Mean of ``b[i] - a[i]`` with mean ± z·sd/√n over the differences (the pairs share a deal)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    return replace(paired_estimate(_sums(Fraction(y) - Fraction(x) for x, y in zip(a, b)), z), deff=None)


def newcombe_diff(sa: int, na: int, sb: int, nb: int, z: float = Z95, *, deff_a: float = 1.0,
                  deff_b: float = 1.0) -> Estimate:
    """``sb/nb - sa/na`` for two independent proportions, with Newcombe's hybrid score interval
    (1998, method 10): it combines the two Wilson intervals and, like them, behaves well near 0
    and 1. ``deff_a``/``deff_b`` shrink each side's counts to effective counts (Rao–Scott)."""
    if na <= 0 or nb <= 0:
        return Estimate(NAN, NAN, NAN, min(na, nb), "newcombe")
    da, db = max(1.0, deff_a), max(1.0, deff_b)
    pa, pb = sa / na, sb / nb
    la, ua = _wilson_bounds(sa / da, na / da, z)
    lb, ub = _wilson_bounds(sb / db, nb / db, z)
    d = pb - pa
    low = d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    high = d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return Estimate(d, max(-1.0, low), min(1.0, high), min(na, nb), "newcombe")
