"""Round 21: the intervals of ``vc.realised_cost`` (the realised cost per row, and the gap realised -
expected) cover at small n.

They were Student-t intervals of means of per-row values, which rare misses of cost c_FN make skewed: at
threshold 0.3 and a miss costing 5, 81-88 % coverage at 95 % on 5-30 rows, worse with lognormal weights
(60-88 %). Given the scores the decisions are fixed and the realised cost is a_F q_F + b_U r_U, two
independent binomial shares (negatives among the flagged, positives among the unflagged) on disjoint rows:
the interval is now MOVER (Zou & Donner 2008) of their Wilson intervals, weighted at each side's Kish size,
and the gap's is it less the expected cost (fixed given the scores).

The target is the expected cost of these rows' decisions at their *true* risks pi_i: sum_i w_i (f_i c_FP
(1 - pi_i) + (1 - f_i) c_FN pi_i) / sum_i w_i; for a calibrated model (pi = p) it is the expected cost, so
the gap's interval holds 0. The rows (scores, weights) are drawn once per data set and the labels from pi.
"""

import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc

LEVEL = 0.95
CELLS = [(t, cfp, cfn) for t in (0.1, 0.3, 0.5) for cfp, cfn in ((1.0, 5.0), (5.0, 1.0))]


def _rows(rng, n, weighted, calibrated):
    p = rng.uniform(size=n)
    risk = p if calibrated else p ** 1.5  # miscalibrated: the scores overstate the risk
    y = (rng.uniform(size=n) < risk).astype(int)
    w = rng.lognormal(0.0, 1.0, n) if weighted else None
    return p, risk, y, w


def _truth(p, risk, w, t, cfp, cfn):
    f = p >= t
    ww = np.ones(p.size) if w is None else w
    return float(ww @ np.where(f, cfp * (1 - risk), cfn * risk) / ww.sum())


def _coverage(n, weighted, reps, seed):
    """Per cell, the share of data sets whose cost interval holds the truth, and whose gap interval holds the
    truth less the expected cost (for a calibrated model: 0)."""
    rng = np.random.default_rng(seed)
    cost, gap = [], []
    for t, cfp, cfn in CELLS:
        hits = np.zeros(2)
        for k in range(2 * reps):
            p, risk, y, w = _rows(rng, n, weighted, calibrated=k % 2 == 0)
            # n_resamples=1: the gap's Monte Carlo p-value (weighted rows) plays no part in the intervals
            row = vc.realised_cost(p, y, threshold=t, cost_fp=cfp, cost_fn=cfn, sample_weight=w,
                                   n_resamples=1).rows[0]
            truth = _truth(p, risk, w, t, cfp, cfn)
            hits += (row.realised_low - 1e-12 <= truth <= row.realised_high + 1e-12,
                     row.ci_low - 1e-12 <= truth - row.expected <= row.ci_high + 1e-12)
        cost.append(hits[0] / (2 * reps))
        gap.append(hits[1] / (2 * reps))
    return np.array(cost), np.array(gap)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "lognormal-weights"])
@pytest.mark.parametrize("n", [5, 10, 30, 50, 200])
def test_the_cost_and_gap_intervals_cover_at_small_n(n, weighted):
    # measured (80 calibrated + 80 miscalibrated data sets a cell, thresholds 0.1/0.3/0.5, costs 1:5 and
    # 5:1): 0.925-1.00 a cell, 0.964-0.973 pooled; the t intervals 0.59-0.99 a cell
    reps = 80
    cell_se = math.sqrt(LEVEL * (1 - LEVEL) / (2 * reps))
    pooled_se = math.sqrt(LEVEL * (1 - LEVEL) / (2 * reps * len(CELLS)))
    for rates in _coverage(n, weighted, reps, seed=100 * n + weighted):
        assert rates.mean() >= LEVEL - 3 * pooled_se, rates
        assert rates.min() >= LEVEL - 3 * cell_se - 0.02, rates  # a cell: 3 SE and a little for 12 looks


def test_the_gap_interval_is_the_cost_interval_less_the_expected_cost():
    rng = np.random.default_rng(9)
    for weighted in (False, True):
        p, _, y, w = _rows(rng, 40, weighted, calibrated=True)
        r = vc.realised_cost({"a": p, "b": p ** 2}, y, threshold=0.3, cost_fn=5, sample_weight=w)
        for row in r.rows:
            assert row.gap == pytest.approx(row.realised - row.expected, abs=1e-12)
            assert (row.ci_low, row.ci_high) == pytest.approx(
                (row.realised_low - row.expected, row.realised_high - row.expected), abs=1e-12)


def _t_interval(c):
    """The Student-t interval of the mean of per-row values it replaces (unweighted)."""
    half = stats.t.ppf(0.5 + LEVEL / 2, c.size - 1) * c.std(ddof=1) / math.sqrt(c.size)
    return c.mean() - half, c.mean() + half


def test_the_gap_interval_and_the_p_value_agree_more_often():
    # "the gap's interval excludes 0" against "p < 5 %" (the p-value reads the law of the labels under
    # calibration): with the t interval of the per-row gaps they disagreed in 6.9 % of these draws, now 2.1 %
    rng = np.random.default_rng(7)
    new = old = k = 0
    for n in (10, 30, 200):
        for t, cfp, cfn in CELLS:
            for j in range(50):
                p, _, y, _ = _rows(rng, n, False, calibrated=j % 2 == 0)
                row = vc.realised_cost(p, y, threshold=t, cost_fp=cfp, cost_fn=cfn).rows[0]
                f = p >= t
                gaps = np.where(f, cfp * (1 - y), cfn * y) - np.where(f, cfp * (1 - p), cfn * p)
                lo, hi = _t_interval(gaps)
                test = row.p_value < 1 - LEVEL
                new += test != (row.ci_low > 0 or row.ci_high < 0)
                old += test != (lo > 0 or hi < 0)
                k += 1
    assert new / k <= 0.05 and new <= old / 2, (new / k, old / k)


@pytest.mark.parametrize("t, cfp, cfn", CELLS)
def test_large_samples_keep_about_the_t_intervals_width(t, cfp, cfn):
    # 20,000 rows: within a few % of the t interval of the per-row costs (measured 0.94-1.00). Narrower by
    # the spread between the flagged and the unflagged rows' mean cost, which the t interval counts and the
    # interval given the decisions does not
    rng = np.random.default_rng(int(10 * t + cfp))
    p = rng.uniform(size=20_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    row = vc.realised_cost(p, y, threshold=t, cost_fp=cfp, cost_fn=cfn).rows[0]
    f = p >= t
    lo, hi = _t_interval(np.where(f, cfp * (1 - y), cfn * y))
    ratio = (row.realised_high - row.realised_low) / (hi - lo)
    assert 0.92 <= ratio <= 1.02, ratio
    assert (row.ci_high - row.ci_low) == pytest.approx(row.realised_high - row.realised_low, rel=1e-9)


def test_the_interval_stays_in_the_costs_range_and_has_width_unless_no_row_can_cost():
    rng = np.random.default_rng(8)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < 0.5).astype(int)
        t, cfp, cfn = rng.choice([0.0, 0.3, 1.0]), rng.choice([0.0, 1.0, 3.0]), rng.choice([0.5, 5.0])
        row = vc.realised_cost(p, y, threshold=t, cost_fp=cfp, cost_fn=cfn).rows[0]
        f = p >= t
        top = cfp * f.mean() + cfn * (1 - f.mean())  # the most these rows' decisions can cost per row
        assert 0.0 <= row.realised_low <= row.realised <= row.realised_high <= top + 1e-12
        can_cost = (cfp > 0 and f.any()) or (cfn > 0 and (~f).any())
        assert (row.realised_high > row.realised_low) == can_cost
