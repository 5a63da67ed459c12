"""gouji_dsl.tools.stats against scipy / statsmodels (oracles, test extra only), and the exactness of
mergeable totals (any split into chunks gives the same bits)."""
from __future__ import annotations

import importlib
import math
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gouji_dsl.tools.stats import (
    Z95,
    PairedBinary,
    Ratio,
    Sums,
    cohen_h,
    holm,
    mean_ci,
    mean_estimate,
    newcombe_diff,
    paired_estimate,
    paired_rate_estimate,
    rate_estimate,
    ratio_difference,
    wilson,
)


class _Lazily:
    """A module imported at its first use: numpy, scipy.stats and statsmodels take about 1.5 s of CPU to import,
    which collecting the suite would otherwise pay (issue 25)."""

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # pytest probes every module global (__test__, fixture markers): not an import
            raise AttributeError(name)
        return getattr(importlib.import_module(self._module), name)


np = _Lazily("numpy")
sps = _Lazily("scipy.stats")
_proportion = _Lazily("statsmodels.stats.proportion")


def OLS(*a, **k):
    return _Lazily("statsmodels.regression.linear_model").OLS(*a, **k)


def mcnemar(*a, **k):
    return _Lazily("statsmodels.stats.contingency_tables").mcnemar(*a, **k)


def multipletests(*a, **k):
    return _Lazily("statsmodels.stats.multitest").multipletests(*a, **k)


def confint_proportions_2indep(*a, **k):
    return _proportion.confint_proportions_2indep(*a, **k)


def proportion_confint(*a, **k):
    return _proportion.proportion_confint(*a, **k)


def proportion_effectsize(*a, **k):
    return _proportion.proportion_effectsize(*a, **k)


def proportions_ztest(*a, **k):
    return _proportion.proportions_ztest(*a, **k)


def clustered(values: list[list[int]]) -> Sums:
    s = Sums()
    for c in values:
        s.add_cluster(c)
    return s


def test_z95_is_the_normal_quantile():
    assert pytest.approx(sps.norm.ppf(0.975), abs=1e-12) == Z95


def test_mean_ci_is_the_normal_interval():
    xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    e = mean_ci(xs)
    h = sps.norm.ppf(0.975) * sps.sem(xs)
    assert e.value == pytest.approx(np.mean(xs)) and e.low == pytest.approx(np.mean(xs) - h)


def test_clustered_mean_matches_statsmodels_cluster_robust_ols():
    rng = random.Random(3)
    clusters = [[rng.randint(-5, 9) + k for _ in range(rng.randint(1, 5))] for k in range(40)]
    s = clustered(clusters)
    y = np.array([v for c in clusters for v in c], dtype=float)
    groups = np.array([g for g, c in enumerate(clusters) for _ in c])
    fit = OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=False)
    assert s.mean == pytest.approx(fit.params[0])
    assert math.sqrt(s.variance_of_mean()) == pytest.approx(fit.bse[0], rel=1e-9)
    e = paired_estimate(s)  # the same sums read as per-deal differences: z-test on the clustered SE
    assert e.p == pytest.approx(fit.pvalues[0], rel=1e-7)
    lo, hi = fit.conf_int(alpha=0.05)[0]
    m = mean_estimate(s)
    assert (m.low, m.high) == (pytest.approx(lo), pytest.approx(hi))
    assert s.deff() > 0


def test_one_game_per_cluster_is_the_classic_interval():
    xs = [2, 7, 1, 8, 2, 8, 1, 8]
    s = clustered([[x] for x in xs])
    assert math.sqrt(s.variance_of_mean()) == pytest.approx(sps.sem(xs)) and s.deff() == 1.0
    e = paired_estimate(s)
    assert e.p == pytest.approx(2 * sps.norm.sf(abs(np.mean(xs) / sps.sem(xs))))
    assert e.effect == pytest.approx(np.mean(xs) / np.std(xs, ddof=1)) and e.effect_kind == "d_z"


def test_wilson_matches_statsmodels():
    for x, n in [(0, 20), (1, 50), (5, 10), (37, 41), (3, 1000)]:
        lo, hi = proportion_confint(x, n, alpha=0.05, method="wilson")
        e = wilson(x, n)
        assert (e.low, e.high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    assert math.isnan(wilson(0, 0).value)


def test_design_effect_widens_a_rate_as_fewer_effective_games():
    plain, wide = rate_estimate(12, 400), rate_estimate(12, 400, deff=2.0)
    lo, hi = proportion_confint(6, 200, method="wilson")
    assert (wide.low, wide.high) == (pytest.approx(lo), pytest.approx(hi)) and wide.value == plain.value
    assert rate_estimate(12, 400, deff=0.5).half_width == plain.half_width  # never narrower


def test_newcombe_independent_matches_statsmodels():
    for sa, na, sb, nb in [(10, 100, 30, 100), (0, 40, 3, 35), (56, 70, 48, 80)]:
        lo, hi = confint_proportions_2indep(sb, nb, sa, na, method="newcomb", compare="diff")
        e = newcombe_diff(sa, na, sb, nb)
        assert e.value == pytest.approx(sb / nb - sa / na)
        assert (e.low, e.high) == (pytest.approx(lo, abs=1e-10), pytest.approx(hi, abs=1e-10))


def test_ratio_difference_test_and_effect_match_statsmodels():
    a, b = Ratio(), Ratio()
    a.add_cluster([(12, 40)])
    a.add_cluster([(3, 30)])
    b.add_cluster([(25, 50)])
    b.add_cluster([(20, 45)])
    # one game per cluster with these totals would be the same; deff is computed from two clusters
    e = ratio_difference(a, b)
    if max(a.deff(), b.deff()) <= 1:
        _, p = proportions_ztest([b.y, a.y], [b.x, a.x])
        assert e.p == pytest.approx(p)
    assert e.effect == pytest.approx(proportion_effectsize(b.y / b.x, a.y / a.x))
    assert cohen_h(0.2, 0.2) == 0


def paired_table(n11: int, n10: int, n01: int, n00: int) -> PairedBinary:
    t = PairedBinary()
    t.add_cluster([(True, True)] * n11 + [(True, False)] * n10 + [(False, True)] * n01 + [(False, False)] * n00)
    return t


def single_deals(n11: int, n10: int, n01: int, n00: int) -> PairedBinary:
    t = PairedBinary()
    for pair in [(True, True)] * n11 + [(True, False)] * n10 + [(False, True)] * n01 + [(False, False)] * n00:
        t.add_cluster([pair])
    return t


@pytest.mark.parametrize("cells", [(59, 6, 16, 80), (1, 1, 7, 12), (0, 3, 9, 88), (5, 0, 0, 95)])
def test_paired_rates_mcnemar_and_newcombe(cells):
    t = single_deals(*cells)
    e = paired_rate_estimate(t)
    n11, n10, n01, n00 = cells
    n = sum(cells)
    assert e.value == pytest.approx((n01 - n10) / n)
    if n10 + n01:
        res = mcnemar(np.array([[n11, n10], [n01, n00]]), exact=False, correction=False)
        assert e.p == pytest.approx(res.pvalue)
    assert e.low <= e.value <= e.high and e.low >= -1 and e.high <= 1
    assert e.effect == pytest.approx(proportion_effectsize((n11 + n01) / n, (n11 + n10) / n))


def test_paired_newcombe_without_correlation_is_the_independent_interval():
    # n11·n00 − n10·n01 between 0 and n/2: φ is taken as 0, and the square-and-add interval is
    # Newcombe's hybrid interval for two proportions of n each
    cells = (4, 6, 7, 11)
    n11, n10, n01, n00 = cells
    assert 0 <= n11 * n00 - n10 * n01 <= sum(cells) / 2
    e = paired_rate_estimate(single_deals(*cells))
    n = sum(cells)
    lo, hi = confint_proportions_2indep(n11 + n01, n, n11 + n10, n, method="newcomb", compare="diff")
    assert (e.low, e.high) == (pytest.approx(lo), pytest.approx(hi))


def test_positive_correlation_narrows_the_paired_interval():
    corr = paired_rate_estimate(single_deals(40, 5, 15, 40))
    ind = newcombe_diff(45, 100, 55, 100)
    assert corr.value == pytest.approx(ind.value) and corr.half_width < ind.half_width


def test_holm_matches_statsmodels():
    ps = [0.01, 0.04, 0.03, 0.2, 0.005, 0.5, 0.049]
    _, expected, _, _ = multipletests(ps, method="holm")
    assert holm(ps) == pytest.approx(list(expected))
    out = holm([0.01, math.nan, 0.02])
    assert math.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.02)


def test_a_difference_is_significant_only_after_adjustment():
    e = paired_estimate(clustered([[x] for x in [1, 2, 0, 3, 1, 2, 1, 0, 2, 1]]))
    assert e.p < 0.05 and e.significant
    assert not e.adjusted(0.2).significant and e.adjusted(0.2).to_dict()["significant"] is False


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-20, 20), min_size=1, max_size=4), min_size=2, max_size=30),
       st.integers(1, 29))
def test_sums_merge_exactly_whatever_the_split(clusters, cut):
    whole = clustered(clusters)
    cut = min(cut, len(clusters) - 1)
    left, right = clustered(clusters[:cut]), clustered(clusters[cut:])
    right.merge(left)  # the other order
    assert right == whole and Sums.from_json(whole.to_json()) == whole


def test_fractions_survive_json():
    s = Sums()
    s.add_cluster([Fraction(1, 3), Fraction(5, 3)])
    back = Sums.from_json(s.to_json())
    assert back == s and s.to_json()["s"] == 2 and isinstance(s.to_json()["ss"], str)
