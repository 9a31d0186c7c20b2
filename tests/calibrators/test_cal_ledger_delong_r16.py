"""The ledger's AUC and ECE change intervals read the model comparison's one implementation
(``veracity.core._delong``, ``veracity.core._ece_difference``).

Oracle for DeLong: the O(n1·n0) Mann–Whitney kernel (DeLong, DeLong & Clarke-Pearson 1988) with each
class's weighted covariance scaled by the paired mean's kappa (n/(n - 1), n its rows of positive weight,
for equal weights) and Student's t on the Welch–Satterthwaite degrees of freedom of the two class terms
(each class's Kish effective size less one; round 23) — the rule of ``vc.compare_models``
(``tests/comparison/test_cmp_oracles.py`` writes the same kernel for the comparison). The ledger used Kish's effective size there instead, so the same rows read
two different AUC intervals in ``vc.compare`` and ``vc.compare_models``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.calibrators._noise import delong_difference_interval
from veracity.core._ece_bias import BIAS_SHARE, plugin_ece_bias_bound
from veracity.core._ece_difference import plugin_bias_shifts


def _kernel_interval(a, b, y, w, level):
    """``(AUC_b - AUC_a, low, high)`` from the full kernel; rows of weight 0 dropped first."""
    keep = w > 0
    a, b, y, w = a[keep], b[keep], y[keep], w[keep]
    pos, neg = y == 1, y == 0
    wp, wn = w[pos], w[neg]
    parts = []
    for s in (a, b):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        parts.append((psi @ wn / wn.sum(), wp @ psi / wp.sum()))
    terms, nus = [], []
    for k, weights in ((0, wp), (1, wn)):
        d = parts[1][k] - parts[0][k]
        mean = np.dot(weights, d) / weights.sum()
        h = weights / weights.sum()
        kappa = np.sum(h**2) / np.sum(h**2 * (1 - 2 * h + np.sum(h**2)))  # n/(n - 1) for equal weights
        terms.append(np.sum(weights**2 * (d - mean) ** 2) / weights.sum() ** 2 * kappa)
        nus.append(weights.sum() ** 2 / np.sum(weights**2) - 1)  # Kish's effective size less one
    var = sum(terms)
    diff = np.dot(wp, parts[1][0] - parts[0][0]) / wp.sum()
    if var == 0:
        return diff, diff, diff
    df = var**2 / sum(t**2 / nu for t, nu in zip(terms, nus))  # Welch–Satterthwaite
    half = stats.t.ppf(0.5 + level / 2, df) * np.sqrt(var)
    return diff, diff - half, diff + half


def _data(seed, n=500):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    a = np.round(z + rng.normal(size=n), 1)  # ties
    b = np.round(1.4 * z + 0.6 * rng.normal(size=n), 2)
    return rng, a, b, y


@pytest.mark.parametrize("case", ["weighted", "zero weights", "constant before", "constant after"])
def test_ledger_delong_interval_is_the_weighted_kernel_form(case):
    rng, a, b, y = _data(11)
    w = rng.integers(1, 4, y.size).astype(float)
    if case == "zero weights":
        w[:80] = 0.0
    if case == "constant before":
        a = np.full(y.size, 0.3)
    if case == "constant after":
        b = np.full(y.size, 0.3)
    got = delong_difference_interval(a, b, y, w, 0.9)
    want = _kernel_interval(a, b, y, w, 0.9)
    assert got == pytest.approx(want, abs=1e-10)
    # vc.compare_models reads the same interval for the same rows
    row = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, score_type="score", level=0.9).row("auc")
    assert (row.diff, row.ci_low, row.ci_high) == pytest.approx(got, abs=1e-12)


def test_a_calibrator_that_keeps_the_ranking_reads_an_auc_change_of_exactly_zero():
    rng, a, _, y = _data(12)
    w = rng.uniform(0.2, 3.0, y.size)
    assert delong_difference_interval(a, np.exp(a) * 3.0, y, w, 0.95) == (0.0, 0.0, 0.0)


def test_plugin_bias_shifts_split_the_bias_share_over_every_bin_of_both_sides():
    # equal bins on both sides: each side's bound at half the share, as the ledger bounded them before
    rng = np.random.default_rng(13)
    n = 3000
    p0 = rng.uniform(size=n)
    y = (rng.random(n) < p0**1.4).astype(float)
    p1 = p0**1.4
    edges = np.linspace(0, 1, 16)
    sums = []
    for p in (p0, p1):
        i = np.minimum((p * 15).astype(int), 14)
        sums.append(np.stack([np.bincount(i, weights=v, minlength=15) for v in (np.ones(n), np.ones(n), p, y)]))
    assert all((s[0] > 0).all() for s in sums) and edges.size == 16
    gamma = BIAS_SHARE * 0.05
    low, high = plugin_bias_shifts(sums[0], sums[1], gamma)
    b0 = plugin_ece_bias_bound(sums[0][0], sums[0][1], sums[0][3], sums[0][2], gamma / 2)
    b1 = plugin_ece_bias_bound(sums[1][0], sums[1][1], sums[1][3], sums[1][2], gamma / 2)
    assert (low, high) == pytest.approx((-b0, b1), rel=1e-12)
    assert b1 > b0 > 0  # the calibrated side may carry more plug-in bias than the miscalibrated one
