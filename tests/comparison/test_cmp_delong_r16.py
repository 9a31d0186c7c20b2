"""DeLong's paired AUC test, one implementation (``veracity.core._delong``) for ``vc.compare_models`` and
the calibrator ledger: exact differences, a class that one row's weight carries, rows of weight 0.

Oracle: the O(n1·n0) Mann–Whitney kernel with exact fractions (DeLong, DeLong & Clarke-Pearson 1988),
written here independently of the one-sort placements.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

import veracity as vc
from veracity.comparison._delong import delong_covariance, delong_test, rank_model, rank_models


def _exact_auc(s: np.ndarray, y: np.ndarray) -> float:
    """The unweighted AUC as the exact fraction 2U / (2 n1 n0), rounded once."""
    pos, neg = s[y == 1], s[y == 0]
    u2 = int(2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum())
    return float(Fraction(u2, 2 * pos.size * neg.size))


def test_equal_aucs_of_a_tied_and_an_untied_model_differ_by_exactly_zero():
    # found by search: the same AUC, 7/12, one model untied and one tied. The tied one's AUC was the float
    # mean of its placements, 1 ulp off the untied one's exact U/(n1 n0): "b - a -0.0000"
    y = np.array([0, 0, 1, 1, 0, 0, 1, 0, 1, 0], dtype=float)
    a = np.array([4, 6, 0, 5, 2, 9, 8, 1, 7, 3], dtype=float)
    b = np.array([0, 0, 0, 0, 1, 2, 2, 0, 1, 0], dtype=float)
    assert _exact_auc(a, y) == _exact_auc(b, y) == 7 / 12
    r = vc.compare_models({"a": a, "b": b}, y, score_type="score")
    row = r.row("auc")
    assert row.value_a == row.value_b == 7 / 12
    # 4 positives: too few for DeLong's interval, which is n/a since round 21 (never a significant 0)
    assert row.diff == 0.0 and row.ci_low != row.ci_low and row.p_value != row.p_value
    assert "-0.0000" not in str(r)


@pytest.mark.parametrize("seed", range(40))
def test_unweighted_tied_auc_is_the_exact_fraction(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    y = (rng.random(n) < 0.3).astype(float)
    y[:2] = (0.0, 1.0)
    s = rng.integers(0, 7, n).astype(float)  # many ties: the tied path
    assert rank_model(s, y, None).auc == _exact_auc(s, y)


def test_identical_rankings_read_exactly_zero_even_when_the_placements_differ_in_the_last_bit():
    # weighted sums taken in another order may differ in their last bits; the rankings are still the same
    rng = np.random.default_rng(3)
    n = 400
    y = (rng.random(n) < 0.4).astype(float)
    a = np.round(rng.normal(size=n) + y, 1)  # ties
    w = rng.uniform(0.1, 5.0, n)
    ra, rb = rank_models([a, np.exp(a)], y, w)  # the same ranking, ties included
    rb = replace(rb, v=np.nextafter(rb.v, 2.0), auc=float(np.nextafter(rb.auc, 2.0)))
    cov = delong_covariance([ra, rb], y, w)
    e = delong_test([ra, rb], cov, 0, 1, 0.95)
    assert (e.value, e.se, e.low, e.high, e.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
    # a different ranking of (almost) the same AUC is not taken for the same one
    swapped = a.copy()
    i, j = np.flatnonzero(y == 1)[0], np.flatnonzero(y == 0)[0]
    swapped[[i, j]] = swapped[[j, i]]
    rc = rank_model(swapped, y, w)
    assert delong_test([ra, rc], delong_covariance([ra, rc], y, w), 0, 1, 0.95).se > 0.0


def test_a_class_that_one_row_carries_has_no_delong_interval():
    # one positive of weight 1e12 among 499 of weight 1: the positives' placements sit at their weighted
    # mean on that row, so the sum of squares held only the others (about 1e-24 each) and DeLong claimed
    # "AUC -0.18 [-0.24, -0.11], p < 0.0001" from what is in effect one positive row
    rng = np.random.default_rng(0)
    n = 500
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    a = 1 / (1 + np.exp(-(z + rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(1.3 * z + 0.5 * rng.normal(size=n))))
    w = np.ones(n)
    w[0] = 1e12
    row = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0).row("auc")
    assert row.value_a == pytest.approx(vc.auc(a, y, sample_weight=w), abs=1e-12)
    assert np.isnan(row.se) and np.isnan(row.ci_low) and np.isnan(row.ci_high) and np.isnan(row.p_value)
    # equal weights are no weights: the rule reads Kish's size, which is then the row count
    plain = vc.compare_models({"a": a, "b": b}, y, n_resamples=0).row("auc")
    same = vc.compare_models({"a": a, "b": b}, y, sample_weight=np.full(n, 7.0), n_resamples=0).row("auc")
    assert same.se == pytest.approx(plain.se, rel=1e-12) and same.p_value == pytest.approx(plain.p_value, rel=1e-9)


def test_rows_of_weight_zero_are_no_rows_in_the_covariance():
    rng = np.random.default_rng(5)
    n = 300
    y = (rng.random(n) < 0.4).astype(float)
    a, b = y + rng.normal(size=n), np.round(y + rng.normal(size=n), 1)
    w = rng.uniform(0.5, 2.0, n)
    w[:60] = 0.0
    keep = w > 0
    full = rank_models([a, b], y, w)
    kept = rank_models([a[keep], b[keep]], y[keep], w[keep])
    assert [r.auc for r in full] == pytest.approx([r.auc for r in kept], abs=1e-12)
    assert delong_covariance(full, y, w) == pytest.approx(delong_covariance(kept, y[keep], w[keep]), rel=1e-9)


@pytest.mark.parametrize("n", [4, 200])
def test_two_perfect_separations_of_opposite_sign_have_no_delong_test(n):
    # AUC 1 against AUC 0: every placement difference is -1 on the positives and +1 on the negatives, so
    # DeLong's variance estimate is 0 — it read "AUC -1.0000 [-1.0000, -1.0000], p = 0" even on 4 rows
    y = np.r_[np.zeros(n // 2), np.ones(n // 2)]
    a = np.linspace(0.05, 0.95, n)
    r = vc.compare_models({"a": a, "b": a[::-1]}, y, n_resamples=0, score_type="score")
    row = r.row("auc")
    assert (row.value_a, row.value_b, row.diff) == (1.0, 0.0, -1.0)
    assert np.isnan(row.se) and np.isnan(row.ci_low) and np.isnan(row.ci_high) and np.isnan(row.p_value)
    assert "by the point estimate" in r.verdict and "no test" in r.verdict
    from veracity.calibrators._noise import delong_difference_interval

    diff, low, high = delong_difference_interval(a, a[::-1], y, None, 0.95)  # the ledger reads the same
    assert diff == -1.0 and np.isnan(low) and np.isnan(high)
