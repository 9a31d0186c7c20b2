"""vc.binomial_interval against scipy as the oracle: scipy.stats.binomtest(k, n).proportion_ci for whole
counts (k = 0, k = n, n = 1 included), the Beta quantiles and the Wilson formula for the effective
(non-integer) counts of weighted rows, and the one-sided bounds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import veracity as vc

CASES = [(0, 1), (1, 1), (0, 10), (10, 10), (3, 10), (7, 7), (0, 100), (57, 1000), (999, 1000)]


@pytest.mark.parametrize(("k", "n"), CASES)
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
@pytest.mark.parametrize(("method", "scipy_method"), [("wilson", "wilson"), ("clopper-pearson", "exact")])
def test_whole_counts_equal_scipys_proportion_ci(k: int, n: int, level: float, method: str,
                                                 scipy_method: str) -> None:
    low, high = vc.binomial_interval(k, n, method=method, level=level)
    want = stats.binomtest(k, n).proportion_ci(level, method=scipy_method)
    assert float(low) == pytest.approx(want.low, abs=1e-12)
    assert float(high) == pytest.approx(want.high, abs=1e-12)


def test_effective_counts_and_one_sided_bounds_equal_the_formulas() -> None:
    rng = np.random.default_rng(30)
    for _ in range(500):
        n = float(rng.choice([rng.uniform(0.2, 5.0), rng.uniform(5.0, 1000.0)]))
        k = float(rng.uniform(0.0, n)) if rng.uniform() < 0.7 else float(rng.choice([0.0, n]))
        level = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        sided = str(rng.choice(["two-sided", "lower", "upper"]))
        tail = (1 - level) / 2 if sided == "two-sided" else 1 - level
        cp = (stats.beta.ppf(tail, k, n - k + 1) if k > 0 else 0.0,
              stats.beta.ppf(1 - tail, k + 1, n - k) if k < n else 1.0)
        z = stats.norm.ppf(1 - tail)
        centre, half = (k + z * z / 2) / (n + z * z), z / (n + z * z) * np.sqrt(k * (n - k) / n + z * z / 4)
        wilson = (max(centre - half, 0.0), min(centre + half, 1.0))
        for method, (lo, hi), tol in (("clopper-pearson", cp, 1e-9), ("wilson", wilson, 1e-12)):
            lo, hi = (0.0 if sided == "upper" else lo), (1.0 if sided == "lower" else hi)
            got = vc.binomial_interval(k, n, method=method, level=level, sided=sided)
            assert float(got[0]) == pytest.approx(lo, abs=tol) and float(got[1]) == pytest.approx(hi, abs=tol), \
                (k, n, level, sided, method)


def test_the_seeds_one_sided_bound() -> None:
    # seed 000: 7 of 7 right certifies only p >= 0.05 ** (1/7) at one-sided 95 % (Clopper-Pearson)
    low, high = vc.binomial_interval(7, 7, method="clopper-pearson", sided="lower")
    assert float(low) == pytest.approx(0.05 ** (1 / 7), rel=1e-12) and float(high) == 1.0
