"""Round 23: DeLong's paired AUC test holds its level on few rows of a class, weighted or not, and keeps
its power; its covariance is symmetric to the bit, so the calibrator ledger's AUC change mirrors too.

DeLong's normal test rejected two exchangeable models (the null true) in 7.3 % of seeded draws at 5 %
with 10 positives, and, under exponential weights, in 13 % with 10 positives and 8 % with 30: each
class's weighted term was scaled by Bessel's n/(n - 1), which is the unbiasing factor only for equal
weights (the variance read ~20 % low with 10 positives), and the normal law ignores that a class of
10-30 rows estimates its term on few degrees of freedom. Now each class's term is scaled by the paired
mean's kappa and the test reads Student's t on the Welch–Satterthwaite degrees of freedom of the two
class terms, each on its class's Kish effective size less one (``veracity.core._delong``).

Oracles: the level (5 % plus three Monte Carlo standard errors); the power of the classic normal-law
test on the same standard error (unweighted it is DeLong's own, to the bit); the swapped call.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from veracity.core._delong import delong_covariance, delong_difference, delong_test, rank_model

from .conftest import delong_draws, level_allowance, two_model_problem


@pytest.mark.parametrize("n1,n0,draws,seed,weighted", [
    (10, 300, 1000, 5, True),  # was 12.9 % (2000 draws)
    (30, 600, 1500, 6, True),  # was 8.4 %
    (12, 300, 3000, 4, False),  # was 7.3 %
])
def test_delong_holds_its_level_on_few_rows_of_a_class(n1, n0, draws, seed, weighted):
    p = delong_draws(n1, n0, draws, seed, weighted)[:, 2]
    assert np.mean(p < 0.05) <= level_allowance(draws)


def test_delong_keeps_its_power_against_the_normal_law():
    # noise sd 0.445 on model b: true AUCs 0.691 and 0.741, a true difference of 0.05
    d, se, p = delong_draws(100, 300, 400, 22, False, noise_b=0.445).T
    classic = 2 * stats.norm.sf(np.abs(d) / se)  # DeLong's normal test on the same (classic) variance
    assert np.all(p >= classic)  # t is never more confident than the normal law ...
    assert np.mean(p < 0.05) >= np.mean(classic < 0.05) - 0.02  # ... and loses at most 2 points of power
    assert np.mean(p < 0.05) >= 0.4  # the difference is found in a fair share of draws (49 % here)


def test_delong_p_value_approaches_the_normal_law_on_many_rows():
    rng = np.random.default_rng(9)
    n = 20_000
    y = (rng.random(n) < 0.4).astype(float)
    z = rng.normal(size=n) + y
    ranked = [rank_model(z + rng.normal(size=n), y, None), rank_model(z + 0.9 * rng.normal(size=n), y, None)]
    e = delong_test(ranked, delong_covariance(ranked, y, None), 0, 1, 0.95)
    assert e.p_value == pytest.approx(2 * stats.norm.sf(abs(e.value) / e.se), rel=2e-3)


@pytest.mark.parametrize("seed", range(12))
def test_weighted_delong_covariance_is_symmetric_to_the_bit(seed):
    a, b, y, w = two_model_problem(seed)
    c = np.clip(a + 0.1 * (b - 0.5), 0.0, 1.0)
    cov = np.asarray(delong_covariance([rank_model(s, y, w) for s in (a, b, c)], y, w))
    assert np.array_equal(cov, cov.T)


def test_ledger_auc_change_mirrors_to_the_bit():
    # the calibrator ledger's AUC change (vc.compare) reads delong_difference: before and after swapped,
    # the difference flips sign and the interval's ends swap and negate exactly, the p-value is equal
    mirrored = 0
    for seed in range(30):
        a, b, y, w = two_model_problem(seed)
        e, f = delong_difference(a, b, y, w, 0.95), delong_difference(b, a, y, w, 0.95)
        mirrored += (e.value, e.low, e.high, e.p_value) == (-f.value, -f.high, -f.low, f.p_value)
    assert mirrored == 30
