"""Round 44: the calibrator ledger's accuracy change with few flipped decisions.

The accuracy change of ``vc.compare`` is the mean of per-row differences in {-1, 0, 1}; a Student-t interval
of that mean called 4 of 4 decisions flipped the same way among 1,000 rows "better"/"REGRESSION" (the exact
McNemar p is 2 * 0.5^4 = 0.125), so under "no accuracy change" with m flipped decisions (each a gain or a
loss with probability 1/2) it was called in 12.5 % of draws at m = 4 and above 5 % at most m up to 12
(5 % nominal).
Unweighted the interval is now the hull of Newcombe's hybrid score interval and the exact conditional one
(``core._intervals.paired_difference_interval``): called only where the exact McNemar test rejects.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import binom, binomtest

import veracity as vc
from veracity.calibrators._ledger import _change_intervals
from veracity.core._validation import prepare_binary

N = 1000


def _pair(c0, c1, y):
    """Before/after rows whose decisions at 0.5 are correct exactly where ``c0`` / ``c1`` is 1."""
    def side(c):
        return prepare_binary(0.5 + 0.2 * (2 * y - 1) * (2 * c - 1), y)

    return side(c0), side(c1)


def _accuracy_interval(gains, losses, n=N, y=None, level=0.95):
    """The ledger's accuracy interval for ``gains`` decisions made right and ``losses`` made wrong among n."""
    y = np.ones(n) if y is None else y
    c0, c1 = np.ones(n), np.ones(n)
    c0[:gains] = 0.0
    c1[gains:gains + losses] = 0.0
    before, after = _pair(c0, c1, y)
    edges = (np.linspace(0, 1, 16), np.linspace(0, 1, 16))
    return _change_intervals(before, after, 0.5, False, edges, "uniform", level=level, n_resamples=0,
                             random_state=0)["accuracy@0.5"]


def test_four_flips_the_same_way_are_not_called():
    low, high = _accuracy_interval(4, 0)
    assert binomtest(4, 4).pvalue == 0.125
    assert low < 0 < high  # within noise: the exact McNemar p is 0.125 (the t interval excluded 0)
    low, high = _accuracy_interval(6, 0)  # exact p = 2 * 0.5^6 = 0.031: called
    assert 0 < low < 0.006 < high


def _ledger_with_flips(flips):
    """vc.compare of a Platt map whose 0.5 cut moves above raw 0.5 on rows where exactly ``flips`` evaluation
    rows lie between the two cuts, each a negative (so the map makes each of those decisions right)."""
    rng = np.random.default_rng(0)
    s = rng.uniform(0.02, 0.98, 4000)
    y = (rng.uniform(size=4000) < np.clip(s - 0.08, 0, 1)).astype(int)  # the truth lies below the raw scores
    cal = vc.PlattScaling().fit(s, y)
    grid = np.linspace(0.5, 0.98, 4801)
    cut = grid[np.argmax(cal.transform(grid) >= 0.5)]  # the map's 0.5 cut in raw scores
    assert 0.52 < cut < 0.9
    ye = rng.integers(0, 2, N)
    se = np.where(ye == 1, 0.95, 0.05)  # every other row far from both cuts, its decision right before and
    # after
    se[:flips] = (0.5 + cut) / 2.0
    ye[:flips] = 0
    return vc.compare(se, ye, cal, n_resamples=0)


def test_four_flips_in_the_ledger_read_within_noise():
    row = _ledger_with_flips(4).row("accuracy@0.5")
    assert abs(row.change - 4 / N) < 1e-12
    assert row.ci_low < 0 < row.ci_high and row.verdict == "within noise"
    row = _ledger_with_flips(6).row("accuracy@0.5")
    assert row.ci_low > 0 and row.verdict == "better"


def _exact_level(m, n=N, level=0.95):
    """P(the accuracy interval excludes 0) under "no change" with m flipped decisions: each a gain or a loss
    with probability 1/2, summed exactly over the binomial count of gains."""
    called = np.array([not (lambda lh: lh[0] <= 0 <= lh[1])(_accuracy_interval(k, m - k, n, level=level))
                       for k in range(m + 1)])
    return float(binom.pmf(np.arange(m + 1), m, 0.5)[called].sum())


def test_level_at_few_flips_is_held_exactly():
    levels = {m: _exact_level(m) for m in range(2, 31)}
    assert max(levels.values()) <= 0.05, levels  # was 0.125 at m = 4, above 0.05 up to m = 12
    assert levels[6] > 0.03  # not absurdly conservative: the exact test's 2 * 0.5^6 = 0.031
    assert _exact_level(5, level=0.8) <= 0.2 and _exact_level(9, level=0.99) <= 0.01


def test_coverage_and_power_with_few_flips():
    """A real gain: 1 % of rows flip, 85 % of them to right (the true change +0.007, about 10 flips per
    draw of 1,000 rows). The interval covers the true change at least at its level, and its verdict keeps
    nearly the exact McNemar test's power."""
    rng = np.random.default_rng(44)
    psi, theta = 0.01, 0.85
    truth = psi * (2 * theta - 1)
    reps = 600
    cover = called = mcnemar = 0
    for _ in range(reps):
        m = rng.binomial(N, psi)
        g = rng.binomial(m, theta)
        low, high = _accuracy_interval(g, m - g)
        cover += low <= truth <= high
        called += low > 0
        mcnemar += m > 0 and binomtest(g, m).pvalue < 0.05
    assert cover / reps >= 0.94, cover / reps
    assert called >= 0.9 * mcnemar and called / reps > 0.4, (called / reps, mcnemar / reps)
