"""Session 24: three statistical weak spots of the honest estimators.

1. Weighted Hosmer–Lemeshow: the groups were cut by row count even with sample weights, so with the top
   tenth of the scores weighted 10x the top group held half the weight, and where every group's weights
   were constant the weights changed nothing at all (the rows' own test, not the weighted population's).
   Uneven weights now cut groups of equal weight, the weighted quantile edges of the reliability table.
2. BCa's bias correction counted ties between resamples and the estimate with exact ``==``: a metric
   whose resamples equal the estimate up to rounding read as "99 % of resamples below the estimate".
3. The ECE noise floor ignored contradicted certainty (a probability of exactly 0 or 1 against the
   opposite label): one such row among 1,000 calibrated rows read p = 0.05-0.99, "within the noise floor",
   while Spiegelhalter's and Hosmer–Lemeshow's tests said p = 0.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc


# -- 1. weighted Hosmer–Lemeshow: groups of equal weight --------------------------------------------------
def _equal_weight_groups(p, w, g):
    """Group of every row by the definition of weighted deciles of risk, written out: rows sorted by score;
    the row whose weight interval [before, before + w) covers j/g of the total weight (j = 1..g-1) opens a
    new group (a cut at the first row, or twice at one row, opens none). Distinct scores assumed."""
    order = np.argsort(p)
    targets = np.arange(1, g) * w.sum() / g
    opener = np.unique(np.searchsorted(np.cumsum(w[order]), targets, side="right"))  # first row past each
    opener = opener[opener > 0]
    group = np.zeros(p.size, int)
    group[order] = np.searchsorted(opener, np.arange(p.size), side="right")
    return group


def test_weighted_groups_hold_equal_weight():
    rng = np.random.default_rng(24)
    p = rng.beta(2, 5, 3000)
    y = (rng.random(p.size) < p).astype(float)
    w = np.where(p > np.quantile(p, 0.9), 10.0, 1.0) * rng.uniform(0.8, 1.2, p.size)  # top tenth 10x
    t = vc.hosmer_lemeshow(p, y, sample_weight=w)
    group = _equal_weight_groups(p, w, 10)
    want_n = np.bincount(group, weights=w)
    np.testing.assert_allclose(t.n, want_n, rtol=1e-12)
    assert t.bins == 10 and t.strategy == "equal-weight"
    np.testing.assert_allclose(t.observed, np.bincount(group, weights=w * y), rtol=1e-12)
    np.testing.assert_allclose(t.expected, np.bincount(group, weights=w * p), rtol=1e-12)
    # each group holds a tenth of the weight, up to one row's weight (before: the top group held half)
    assert np.abs(t.n - w.sum() / 10).max() <= w.max()
    assert "10 equal-weight bins" in str(t) and t.to_dict()["strategy"] == "equal-weight"


def test_weights_constant_within_count_groups_are_no_longer_ignored():
    # the top tenth weighted 10x: each row-count decile had constant weights, and the weighted statistic was
    # the unweighted one to the last digit
    rng = np.random.default_rng(3)
    p = rng.beta(2, 5, 2000)
    y = (rng.random(p.size) < p).astype(float)
    w = np.where(p > np.quantile(p, 0.9), 10.0, 1.0)
    plain = vc.hosmer_lemeshow(p, y)
    weighted = vc.hosmer_lemeshow(p, y, sample_weight=w)
    assert weighted.statistic != pytest.approx(plain.statistic, rel=1e-6)
    assert weighted.n.max() <= 1.05 * w.sum() / 10


def test_equal_weights_keep_the_unweighted_equal_count_groups():
    rng = np.random.default_rng(4)
    p = rng.beta(2, 5, 999)
    y = (rng.random(p.size) < p).astype(float)
    plain = vc.hosmer_lemeshow(p, y)
    same = vc.hosmer_lemeshow(p, y, sample_weight=np.full(p.size, 2.5))
    assert plain.strategy == same.strategy == "equal-count"
    assert same.statistic == pytest.approx(plain.statistic, rel=1e-12)
    np.testing.assert_allclose(same.n / 2.5, plain.n, rtol=1e-12)


@pytest.mark.parametrize("design", ["top-tenth-10x", "continuous"])
def test_weighted_groups_keep_the_level_under_calibration(design):
    # seeded: calibrated scores, 1,500 rows, 300 samples; rejections at the 5 % level (sd about 0.013).
    # Measured with 1,000 samples of 2,000 rows (top tenth 10x; top fifth 20x): 0.043, 0.048 (before: 0.039,
    # the rows' own unweighted test)
    rng = np.random.default_rng(7 if design == "continuous" else 8)
    rejected, reps = 0, 300
    for _ in range(reps):
        p = rng.beta(2, 5, 1500)
        y = (rng.random(p.size) < p).astype(float)
        w = (np.where(p > np.quantile(p, 0.9), 10.0, 1.0) if design == "top-tenth-10x"
             else np.exp(3 * p) * rng.lognormal(0, 0.5, p.size))
        rejected += vc.hosmer_lemeshow(p, y, sample_weight=w, n_resamples=200).p_value <= 0.05
    assert rejected / reps <= 0.05 + 0.03


# -- 2. BCa: ties up to rounding ------------------------------------------------------------------------
def test_share_below_counts_ties_up_to_rounding():
    from veracity.honest._bootstrap import share_below

    rng = np.random.default_rng(0)
    x = rng.random(1000)
    est = x.sum() / x.size
    # 300 "resamples" that are permutations of the rows: the same mean in exact arithmetic, summed in
    # another order (one after another, as a running sum); 700 that differ by far more than rounding
    ties = np.cumsum(x[np.argsort(rng.random((300, x.size)), axis=1)], axis=1)[:, -1] / x.size
    assert (ties != est).sum() > 50  # rounding did split them
    others = est + rng.normal(0, 1e-3, 700)
    boot = np.r_[ties, others]
    want = ((others < est).sum() + 0.5 * ties.size) / boot.size  # Efron's proportion, ties exactly known
    assert share_below(est, boot, x.size) == pytest.approx(want, abs=1e-15)
    # values a genuine step apart are not ties
    assert share_below(0.5, np.array([0.5 - 1e-9, 0.5, 0.5 + 1e-9]), 1000) == pytest.approx(0.5)
    assert share_below(0.5, np.array([0.5 - 1e-9, 0.5 - 1e-9, 0.5]), 1000) == pytest.approx(5 / 6)


def test_a_metric_equal_to_its_estimate_up_to_rounding_is_not_read_as_biased():
    # every squared error is 0.09 up to rounding ((1 - 0.7)^2 and 0.3^2 differ in the last bit): every
    # resample's Brier score is the estimate up to rounding. Exact == had read 99 % of resamples "below the
    # estimate: biased metric", and BCa's z0 at -2.4
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.5).astype(int)
    p = np.where(y == 1, 0.7, 0.3)
    b = vc.bootstrap_intervals(p, y, metrics=("brier",), n_resamples=500, random_state=1)
    r = b.intervals[0]
    assert "resamples sit" not in r.note and r.method == "bca"
    assert r.low == pytest.approx(0.09, abs=1e-15) and r.high == pytest.approx(0.09, abs=1e-15)


# -- 3. the noise floor and contradicted certainty ----------------------------------------------------------
def _calibrated_plus_one_contradiction(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, 1000)
    y = (rng.random(1000) < p).astype(float)
    return np.r_[p, 0.0], np.r_[y, 1.0]


@pytest.mark.parametrize("seed", [0, 3])
def test_a_contradicted_certainty_gives_the_noise_floor_p_zero_as_the_tests(seed):
    p, y = _calibrated_plus_one_contradiction(seed)
    nf = vc.ece_noise_floor(p, y, n_resamples=200)
    assert nf.contradicted == 1 and nf.p_value == 0.0
    assert nf.verdict().startswith("above the noise floor") and "contradicts" in str(nf)
    d = json.loads(json.dumps(nf.to_dict()))
    assert d["contradicted"] == 1 and d["p_value"] == 0.0
    # the ECE and its floor are still the redraws' (the statistic is unchanged; only the law's verdict)
    clean = vc.ece_noise_floor(p[:-1], y[:-1], n_resamples=200)
    assert nf.ece > 0 and clean.contradicted == 0 and clean.p_value > 0
    # consistent with the calibration tests on the same rows
    assert vc.spiegelhalter(p, y).p_value == 0.0 and vc.hosmer_lemeshow(p, y).p_value == 0.0
    a = vc.audit(p, y, noise_floor=True, random_state=0)
    assert a.extras["noise_floor"].p_value == 0.0 and a.extras["noise_floor"].contradicted == 1


def test_zero_weight_rows_and_logits_are_not_contradictions_for_the_noise_floor():
    p, y = _calibrated_plus_one_contradiction(1)
    w = np.r_[np.ones(1000), 0.0]
    nf = vc.ece_noise_floor(p, y, sample_weight=w, n_resamples=100)
    ref = vc.ece_noise_floor(p[:-1], y[:-1], n_resamples=100)
    assert nf.contradicted == 0 and nf.p_value == ref.p_value
    logits = np.log(p[:-1] / (1 - p[:-1]))
    assert vc.ece_noise_floor(logits, y[:-1], score_type="logit", n_resamples=50).contradicted == 0
