"""Seeded simulations of the claims the audit table and the calibration tests print (a few
seconds in all): each per-bin interval covers its bin's true frequency at its level — weighted
rows through the effective size included — and each test's p-value is uniform enough on
calibrated scores that it rejects at its level, while it finds a miscalibrated model.

Scores are fixed and labels redrawn, so the estimand of a bin is fixed: the (weighted) mean of
the true probabilities of the rows in it. Tolerances are three binomial standard errors of the
simulation; the seeds are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

N_ROWS, N_DRAWS, BINS = 1500, 300, 10


def _three_se(rate: float, k: int) -> float:
    return 3 * np.sqrt(rate * (1 - rate) / k)


def _bin_truth(s: np.ndarray, q: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The weighted mean true probability of each uniform bin (the estimand of acc_b)."""
    b = np.minimum((s * BINS).astype(int), BINS - 1)
    weight = np.ones_like(s) if w is None else w
    total = np.bincount(b, weights=weight, minlength=BINS)
    return np.bincount(b, weights=weight * q, minlength=BINS) / np.where(total > 0, total, 1.0)


def _coverage(s, q, w, *, interval, sided="two-sided", level=0.95, seed=0):
    """Share of (draw, non-empty bin) pairs whose interval holds the bin's truth, and the
    number of such pairs."""
    rng = np.random.default_rng(seed)
    truth = _bin_truth(s, q, w)
    hits = total = 0
    for _ in range(N_DRAWS):
        y = (rng.random(s.size) < q).astype(int)
        table = vc.reliability(s, y, bins=BINS, interval=interval, sided=sided, level=level,
                               sample_weight=w, min_count=0)
        for row in table.rows:
            hits += row.ci_low <= truth[row.index] <= row.ci_high
            total += 1
    return hits / total, total


@pytest.fixture(scope="module")
def calibrated():
    rng = np.random.default_rng(11)
    s = rng.beta(2, 3, N_ROWS)
    return s, s.copy(), rng.lognormal(0.0, 1.0, N_ROWS)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "lognormal weights"])
def test_wilson_bin_intervals_cover_the_bins_true_frequency_at_their_level(calibrated, weighted):
    s, q, w = calibrated
    rate, k = _coverage(s, q, w if weighted else None, interval="wilson", seed=1)
    assert abs(rate - 0.95) <= _three_se(0.95, k), rate


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "lognormal weights"])
def test_clopper_pearson_bin_intervals_cover_at_least_their_level(calibrated, weighted):
    s, q, w = calibrated
    rate, k = _coverage(s, q, w if weighted else None, interval="clopper-pearson", seed=2)
    assert rate >= 0.95 - _three_se(0.95, k), rate


def test_one_sided_lower_bounds_hold_at_their_level(calibrated):
    """Seed 000's reading ("7 of 7 certifies only p >= 0.652"): a lower bound at 95 % is below
    the truth in 95 % of draws."""
    s, q, _ = calibrated
    rate, k = _coverage(s, q, None, interval="clopper-pearson", sided="lower", seed=3)
    assert rate >= 0.95 - _three_se(0.95, k), rate


def test_bin_intervals_flag_a_miscalibrated_model():
    """Power: scores that are too extreme (true logit halved) put the confidence outside most
    sufficient bins' intervals."""
    rng = np.random.default_rng(4)
    logit = rng.normal(0.0, 2.5, N_ROWS)
    s = 1 / (1 + np.exp(-logit))
    q = 1 / (1 + np.exp(-logit / 2))
    flagged = []
    for _ in range(50):
        y = (rng.random(N_ROWS) < q).astype(int)
        rows = [r for r in vc.reliability(s, y, bins=BINS).rows if r.sufficient and abs(r.conf - 0.5) > 0.2]
        flagged += [not (r.ci_low <= r.conf <= r.ci_high) for r in rows]
    assert np.mean(flagged) > 0.8


def _p_values(test, *, calibrated: bool, k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(k)
    for i in range(k):
        p = rng.beta(1.5, 2.5, n)
        q = p if calibrated else np.clip(0.5 + 1.6 * (p - 0.5), 0.01, 0.99)  # under-confident scores
        y = (rng.random(n) < q).astype(float)
        out[i] = test(p, y)
    return out


@pytest.mark.parametrize("name, test", [
    ("hosmer-lemeshow (df = G, held-out scores)", lambda p, y: vc.hosmer_lemeshow(p, y).p_value),
    ("calibration slope = 1 (Wald)", lambda p, y: vc.calibration_slope(p, y).slope_p_value),
    ("calibration-in-the-large = 0 (Wald)", lambda p, y: vc.calibration_slope(p, y).citl_p_value),
])
def test_calibration_tests_reject_calibrated_scores_at_their_level(name, test):
    k = 800
    p_values = _p_values(test, calibrated=True, k=k, n=400, seed=5)
    for alpha in (0.05, 0.2):
        assert abs(np.mean(p_values <= alpha) - alpha) <= _three_se(alpha, k), (name, alpha)


@pytest.mark.parametrize("name, test", [
    ("hosmer-lemeshow", lambda p, y: vc.hosmer_lemeshow(p, y).p_value),
    ("calibration slope", lambda p, y: vc.calibration_slope(p, y).slope_p_value),
])
def test_calibration_tests_find_under_confident_scores(name, test):
    p_values = _p_values(test, calibrated=False, k=100, n=1000, seed=6)
    assert np.mean(p_values <= 0.05) > 0.8, name
