"""Round 21: the weighted paired mean's Student-t interval under unequal weights.

The weighted paired mean d̄ = Σw·d/Σw had the variance n/(n−1)·Σw²(d − d̄)²/(Σw)² and Student's t on
Kish's effective size less one, (Σw)²/Σw² − 1. Bessel's n/(n−1) makes the variance unbiased for equal
weights only: row i's residual d_i − d̄ has variance σ²(1 − 2h_i + Σh²) (h = w/Σw), below σ² by what the
row pulls the mean toward itself, so under lognormal(0, 1.5) weights on 60 rows the variance read about
20 % low and the 5 % test of a zero difference rejected 7.3 % of the time (6.5-7.7 % for lognormal
σ = 1 to 2 on 30-60 rows, 7.9 % for two-point weights on 30). The factor that makes it unbiased when the
rows share one variance, κ = Σh² / Σh²(1 − 2h + Σh²) (n/(n−1) for equal weights), fixes most of it.

Levels at 5 % (20,000 draws of normal differences, mean 0; old → new), by weight law and rows:

* equal weights: unchanged to the bit (5.1 % on 10, 4.8 % on 30, 5.1 % on 60).
* lognormal σ = 0.5: 5.8 → 5.0 (10 rows), 5.8 → 5.5 (30), 5.5 → 5.2 (60), 4.9 → 4.9 (500).
* lognormal σ = 1: 6.2 → 4.0, 7.2 → 5.4, 6.5 → 5.3, 5.4 → 5.2.
* lognormal σ = 1.5: 5.3 → 3.0, 7.7 → 4.3, 7.3 → 4.6, 6.2 → 5.2.
* lognormal σ = 2: 4.3 → 2.2, 7.0 → 3.5, 7.4 → 3.9, 7.0 → 4.7.
* two-point (weight 10 for 20 % of rows, else 1): 6.9 → 3.8, 7.9 → 6.4, 6.4 → 5.8, 5.0 → 4.9.
* one row of weight n/4: 5.7 → 4.9, 5.7 → 3.3, 5.9 → 2.6, 3.2 → 0.9 (a sandwich dominated by one
  row: that row's residual moves with the mean, so |t| is all but bounded; conservative by any df).

Satterthwaite's degrees of freedom for this variance under one shared variance (Bell–McCaffrey;
Imbens & Kolesár 2016), (tr A)²/tr A² with A = M'diag(h²)M, M = I − 1h' (n − 1 for equal weights), were
checked and rejected: they assume the variance estimate independent of d̄, which fails under unequal
weights, and held 0.0-2.3 % at 5 % for lognormal σ ≥ 1.5 and a heavy row on 60 rows (with Bessel's
factor or κ alike; with the per-row HC2 variance, 0.0-1.3 %).
"""

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.comparison._paired import from_moments, paired_mean

LEVEL = 0.95


def _kappa(w):
    """The definition, row by row: Σh² / Σh²(1 − 2h + Σh²), h = w/Σw."""
    h = np.asarray(w, dtype=float) / np.sum(w)
    q = h @ h
    return q / np.sum(h * h * (1.0 - 2.0 * h + q))


def _level(rng, reps, n, draw):
    hits = 0
    for _ in range(reps):
        e = paired_mean(rng.normal(size=n), draw(), LEVEL)
        hits += e.low > 0 or e.high < 0
    return hits / reps


@pytest.mark.parametrize("sigma", [1.0, 1.5, 2.0])
def test_the_weighted_paired_t_holds_its_level_under_lognormal_weights(sigma):
    """60 rows, σ = 1, 1.5, 2: old 6.5 %, 7.3 %, 7.4 % of 20,000 draws, new 5.3 %, 4.6 %, 3.9 % (these seeds'
    3,000 draws: old 6.0 %, 7.2 %, 7.9 %; new 5.2 %, 4.3 %, 4.1 %)."""
    rng = np.random.default_rng(2100 + int(10 * sigma))
    reps = 3000
    level = _level(rng, reps, 60, lambda: rng.lognormal(0.0, sigma, 60))
    slack = 3 * np.sqrt(0.05 * 0.95 / reps)
    assert 0.03 <= level <= 0.05 + slack


def test_the_weighted_paired_t_under_two_point_weights_on_60_rows():
    """Weight 10 for 20 % of the rows: old 6.4 %, new 5.8 % of 20,000 draws (this seed's 3,000: 6.7 %, 5.7 %).
    Kish's size counts the light rows the variance hardly reads (on 30 rows new 6.4 %, on 200 5.2 %)."""
    rng = np.random.default_rng(2121)
    reps = 3000
    level = _level(rng, reps, 60, lambda: np.where(rng.uniform(size=60) < 0.2, 10.0, 1.0))
    assert 0.035 <= level <= 0.065


def test_the_weighted_variance_is_unbiased_when_the_rows_share_one_variance():
    """Fixed unequal weights, normal differences of variance 1: the mean of se² over draws is the true
    Var(d̄) = Σh² (Bessel's factor read it 14 % low here)."""
    rng = np.random.default_rng(7)
    w = rng.lognormal(0.0, 1.5, 40)
    truth = np.sum((w / w.sum()) ** 2)
    se2 = [paired_mean(rng.normal(size=40), w, LEVEL).se ** 2 for _ in range(4000)]
    assert np.mean(se2) == pytest.approx(truth, rel=0.05)


def test_the_factor_is_the_definition_and_bessels_for_equal_weights():
    from veracity.comparison._paired import variance_factor

    rng = np.random.default_rng(3)
    d, w = rng.normal(0.1, 1, 300), rng.lognormal(0, 1, 300)
    e = paired_mean(d, w, 0.9)
    mean = np.dot(w, d) / w.sum()
    var = _kappa(w) * np.sum(w**2 * (d - mean) ** 2) / w.sum() ** 2
    assert e.value == pytest.approx(mean, abs=1e-14) and e.se == pytest.approx(np.sqrt(var), rel=1e-10)
    df = w.sum() ** 2 / np.sum(w**2) - 1  # Kish's effective size less one (unchanged)
    assert e.high - e.low == pytest.approx(2 * stats.t.ppf(0.95, df) * np.sqrt(var), rel=1e-10)
    assert e.p_value == pytest.approx(2 * stats.t.sf(abs(mean) / np.sqrt(var), df), rel=1e-9)
    huge = paired_mean(d, w * 1e120, 0.9)  # scale-free: Σ(w/Σw)³ never forms w³ (1e360 would overflow)
    assert (huge.se, huge.low, huge.p_value) == pytest.approx((e.se, e.low, e.p_value), rel=1e-9)
    # equal weights: Bessel's n/(n-1), bit for bit as unweighted (scipy's one-sample t)
    assert variance_factor(300, 300.0, 300.0, None) == 300 / 299
    assert variance_factor(300, 900.0, 2700.0, 1 / 90000) == 300 / 299
    plain, even = paired_mean(d, None, 0.9), paired_mean(d, np.full(300, 3.0), 0.9)
    oracle = stats.ttest_1samp(d, 0.0)
    assert plain.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert (plain.low, plain.high) == pytest.approx(oracle.confidence_interval(0.9), rel=1e-12)
    assert even.se == pytest.approx(plain.se, rel=1e-13)
    assert even.p_value == pytest.approx(plain.p_value, rel=1e-12)


def test_rows_of_weight_zero_are_no_rows():
    """k equal positive weights among zeros: the unweighted t-test of the k rows (factor k/(k-1), not
    n/(n-1) with the zero rows counted, which read the variance low)."""
    rng = np.random.default_rng(5)
    d = rng.normal(0.3, 1, 12)
    w = np.r_[np.full(8, 2.0), np.zeros(4)]
    e = paired_mean(d, w, LEVEL)
    oracle = stats.ttest_1samp(d[:8], 0.0)
    assert e.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert (e.low, e.high) == pytest.approx(oracle.confidence_interval(LEVEL), rel=1e-9)


def test_the_moments_route_matches_the_per_row_route():
    rng = np.random.default_rng(11)
    d, w = rng.normal(0.2, 1, 50), rng.lognormal(0, 1.2, 50)
    e = paired_mean(d, w, LEVEL)
    got = from_moments(np.array([w @ d]), np.array([(w * w) @ d]), np.array([(w * w) @ (d * d)]), w.sum(),
                       w @ w, 50, LEVEL, cube_share=float(np.sum((w / w.sum()) ** 3)))
    assert [float(x[0]) for x in got] == pytest.approx([e.value, e.se, e.low, e.high, e.p_value], rel=1e-9)


def test_compare_models_weighted_brier_difference_uses_the_factor():
    rng = np.random.default_rng(13)
    n = 80
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    a, b = np.clip(p + rng.normal(0, 0.1, n), 0.01, 0.99), np.clip(p + rng.normal(0, 0.2, n), 0.01, 0.99)
    w = rng.lognormal(0, 1.5, n)
    row = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0).row("brier")
    d = (b - y) ** 2 - (a - y) ** 2
    mean = np.dot(w, d) / w.sum()
    se = np.sqrt(_kappa(w) * np.sum(w**2 * (d - mean) ** 2) / w.sum() ** 2)
    df = w.sum() ** 2 / np.sum(w**2) - 1
    assert row.diff == pytest.approx(mean, abs=1e-14) and row.se == pytest.approx(se, rel=1e-10)
    assert row.ci_high == pytest.approx(mean + stats.t.ppf(0.975, df) * se, abs=1e-12)
