"""Session 27: the label budget of a rare outcome, and the labels-only interval beside PPI's.

* ``vc.labels_needed`` planned from the normal interval's width, but a window whose labels hold fewer than 10
  of one class reports the modified Wilson interval, which is wider: calibrated scores at a rate of 0.01 with
  about 3.5 expected labelled events gave intervals 1.14 times the asked width in the median window (28 % of
  windows within it), and scores all 0 asked for 2 labels, whose interval is 0.88 wide for an asked 0.1.
* ``vc.ppi_mean``'s classical row (the labels alone) kept the cut normal interval where PPI's rate takes the
  modified Wilson one: 50 labels all 0 read ``[0.0000, 0.0000]`` under PPI's ``[0.0000, 0.0713]``, and
  PPI with lambda 0 — the labels alone — read wider than "the labels alone".
* the rectifier's interval excluding 0 beside no "not calibrated" note (the exact judgement of rare labels)
  is now explained; lambda printed as -0.000.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2, norm

import veracity as vc
from veracity.delayed import PpiSums, ppi_records


def _realised_widths(f: np.ndarray, n: int, sims: int, seed: int) -> np.ndarray:
    """PPI interval widths (the store's records: vc.ppi_mean's intervals) of ``sims`` windows of the
    calibrated scores ``f``, each with ``n`` labels drawn at random."""
    rng = np.random.default_rng(seed)
    N = f.size
    y = (rng.random((sims, N)) < f).astype(float)
    lab = np.zeros((sims, N), dtype=bool)
    pick = np.argsort(rng.random((sims, N)), axis=1)[:, :n]
    np.put_along_axis(lab, pick, True, axis=1)
    F = np.broadcast_to(f, (sims, N))
    yl, fl, fu = np.where(lab, y, 0.0), np.where(lab, F, 0.0), np.where(lab, 0.0, F)
    sums = PpiSums.from_counts(n=np.full(sims, n), sum_y=yl.sum(1), sum_f=fl.sum(1), sum_ff=(fl * fl).sum(1),
                               sum_yf=(yl * fl).sum(1), m=np.full(sims, N - n), sum_fu=fu.sum(1),
                               sum_ffu=(fu * fu).sum(1))
    recs = ppi_records(sums)
    return np.array([r["estimate_ppi"]["ci_high"] - r["estimate_ppi"]["ci_low"] for r in recs])


@pytest.mark.parametrize("a, b, N, width", [(0.2, 20, 8000, 0.02), (0.2, 40, 8000, 0.01)])
def test_the_planned_width_of_a_rare_outcome_is_the_median_width(a, b, N, width):
    f = np.random.default_rng(0).beta(a, b, N)
    n = vc.labels_needed(f, width=width)
    assert n * f.mean() < 10  # a rare outcome: the labels expect fewer than 10 positives
    ratio = np.median(_realised_widths(f, n, 300, seed=1)) / width
    print(f"\nrate {f.mean():.4f}, {n} labels: median width / asked {ratio:.3f}")
    assert 0.85 <= ratio <= 1.03  # the normal-width plan gave 1.12-1.18


def test_the_plan_of_a_common_outcome_is_the_documented_formula_still():
    f = np.random.default_rng(5).beta(2, 5, 4000)
    z = norm.ppf(0.975)
    want = int(np.ceil(np.mean(f * (1 - f)) / ((0.05 / 2 / z) ** 2 - f.var() / f.size)))
    assert vc.labels_needed(f, width=0.05) == want


def test_scores_all_zero_need_the_labels_whose_interval_has_the_width():
    # calibrated scores all 0: every label is 0, and the interval is Wilson's for 0 of n, [0, z^2 / (n + z^2)]
    f = np.zeros(1000)
    n = vc.labels_needed(f, width=0.1)
    z2 = norm.ppf(0.975) ** 2
    assert n == int(np.ceil(z2 * (1 - 0.1) / 0.1))  # z^2 / (n + z^2) <= 0.1
    r = vc.ppi_mean(np.zeros(n, int), f[:n], f[n:])
    assert r.ci_high - r.ci_low <= 0.1
    r_ = vc.ppi_mean(np.zeros(n - 1, int), f[:n - 1], f[n - 1:])
    assert r_.ci_high - r_.ci_low > 0.1  # the smallest such count
    plan = vc.label_plan(f, width=0.1)
    assert plan.rows[0]["labels_ppi"] == n == plan.rows[0]["labels_classical"]


def test_the_labels_alone_of_one_class_read_wilsons_interval_not_zero_width():
    g = np.full(1000, 0.02)
    r = vc.ppi_mean(np.zeros(50, int), np.full(50, 0.02), g)
    z2 = norm.ppf(0.975) ** 2
    assert (r.classical_low, r.classical_high) == pytest.approx((0.0, z2 / (50 + z2)), abs=1e-12)
    assert (r.classical_low, r.classical_high) == pytest.approx((r.ci_low, r.ci_high), abs=1e-12)  # lambda 0
    assert "lambda 0.000" in str(r) and "-0.000" not in str(r)


def test_one_positive_of_100_labels_alone_reads_the_modified_wilson_interval():
    y = np.zeros(100, int)
    y[7] = 1
    g = np.random.default_rng(0).beta(1, 19, 3000)
    r = vc.ppi_mean(y, np.full(100, 0.05), g, sample_check="off")
    assert r.lam == pytest.approx(0.0, abs=1e-12)  # PPI is the labels alone: both rows print one interval
    assert (r.classical_low, r.classical_high) == pytest.approx((r.ci_low, r.ci_high), rel=1e-9)
    assert r.classical_low == pytest.approx(chi2.ppf(0.025, 2) / 2 / 100, rel=1e-9)  # Garwood for one event
    # the rectifier's normal interval excludes 0 but the exact judgement finds no evidence: said so
    assert r.rectifier_high < 0 and r.calibrated
    assert any("rectifier's interval excludes 0" in note for note in r.notes)


def test_common_labels_keep_the_normal_classical_interval():
    rng = np.random.default_rng(3)
    f = rng.beta(2, 5, 3000)
    y = (rng.random(f.size) < f).astype(int)
    r = vc.ppi_mean(y[:300], f[:300], f[300:])
    m, s = y[:300].mean(), y[:300].std() / np.sqrt(300)
    z = norm.ppf(0.975)
    assert (r.classical_low, r.classical_high) == pytest.approx((m - z * s, m + z * s), rel=1e-9)
    assert not any("rectifier's interval" in note for note in r.notes)


def test_a_designed_samples_labels_alone_read_the_same_interval_as_ppi_at_lambda_0():
    # scores all 0: PPI's estimate is the labels' Horvitz-Thompson mean, the classical row's; with 4 positives
    # among the labels drawn at random both take the rare interval (the classical row kept the normal one)
    rng = np.random.default_rng(4)
    y = (rng.random(3000) < 0.004).astype(int)
    pi = np.where(np.arange(y.size) < 100, 1.0, 0.2)
    lab = (pi == 1.0) | (rng.random(y.size) < pi)
    f = np.zeros(y.size)
    r = vc.ppi_mean(y[lab], f[lab], f[~lab], propensity=pi[lab])
    assert 0 < y[lab & (pi < 1)].sum() < 10
    assert r.classical == pytest.approx(r.estimate, rel=1e-12)
    assert (r.classical_low, r.classical_high) == pytest.approx((r.ci_low, r.ci_high), rel=1e-9)
