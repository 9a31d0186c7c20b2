"""vc.monitor's alert for unweighted periods: Blaker's exact test, which keeps the level and gains power.

The period alerts when its mean confidence c lies outside the interval of its rate. Clopper-Pearson's
interval (round 33) is the equal-tailed exact binomial test: where a few positives are expected the lower
tail cannot reject (at 3 expected, P(X = 0) is about 0.05 > 2.5 %), so the test spent about 1 % and its
power against rates twice the scores' was 0.25 at 3 expected positives, 0.42 at 5 (Blaker's: 0.39, 0.55).
(At 2 expected, 0.21 is the most any exact test reaches: P(X >= 5) = 0.052 > 5 %; Wilson's 0.39 came with
false alarms in up to 8 % of calibrated periods.)
Blaker's interval inverts the exact two-sided test that adds to the smaller tail the largest opposite
tail no heavier: every false-alarm rate below is at most 5 % (exact: the Poisson-binomial mass, by
convolution, of the counts that alert), and the power is at least Clopper-Pearson's in every case.
"""

import numpy as np
import pytest
from scipy.stats import binom

import veracity as vc
from veracity.core._intervals import binomial_interval


def _blaker_rejects(k, n, c, alpha=0.05):
    """Blaker's test by hand on the whole binomial pmf: the smaller tail plus the heaviest opposite tail
    no heavier (ties within 1e-7, as scipy's binomtest), rejected at most alpha."""
    f = binom.pmf(np.arange(n + 1), n, c)
    up, lo = f[k:].sum(), f[: k + 1].sum()
    if up <= lo:
        cdf = np.cumsum(f)[:k]
        other = cdf[cdf <= up * (1 + 1e-7)]
    else:
        sf = np.cumsum(f[::-1])[::-1][k + 1:]
        other = sf[sf <= lo * (1 + 1e-7)]
    return min(up, lo) + (other.max() if other.size else 0.0) <= alpha


def _blaker_rejects_at(k, n, cs, alpha=0.05):
    """:func:`_blaker_rejects` at each rate of ``cs`` (one pmf row per rate, the same sums per row)."""
    f = binom.pmf(np.arange(n + 1)[None, :], n, np.asarray(cs, dtype=float)[:, None])
    up, lo = f[:, k:].sum(1), f[:, : k + 1].sum(1)
    cdf = np.cumsum(f, axis=1)[:, :k]
    sf = np.cumsum(f[:, ::-1], axis=1)[:, ::-1][:, k + 1:]
    # the heaviest opposite tail no heavier (0 where there is none: every tail is at least 0)
    below = np.where(cdf <= up[:, None] * (1 + 1e-7), cdf, 0.0).max(1, initial=0.0)
    above = np.where(sf <= lo[:, None] * (1 + 1e-7), sf, 0.0).max(1, initial=0.0)
    return np.minimum(up, lo) + np.where(up <= lo, below, above) <= alpha


def _cases():
    rng = np.random.default_rng(34)
    out = []
    for e, n in [(1, 100), (2, 200), (2, 1000), (3, 100), (3, 300), (5, 300), (8, 200), (12, 1000), (20, 300),
                 (30, 100), (50, 1000)]:
        c = e / n
        for a in (0.5, 5.0):  # scores spread wide (Beta(0.5, .)) and narrow (Beta(5, .)) around c
            out.append(np.clip(rng.beta(a, a * (1 - c) / c, n), 1e-6, 0.999))
    out.append(np.full(200, 0.01))
    return out


@pytest.mark.parametrize("p", _cases(), ids=lambda p: f"n{p.size}-E{p.sum():.1f}")
def test_level_kept_power_gained(p, exact_alerts):
    null, shifted = exact_alerts.pmf(p), exact_alerts.pmf(np.clip(2 * p, 0, 1))
    kmax = int(np.flatnonzero(np.maximum(null, shifted) > 1e-12)[-1])
    alert = exact_alerts.alerting_counts(p, kmax)
    assert float(null[: kmax + 1][alert].sum()) <= 0.05, p.sum()
    # the alert is Blaker's test at the mean confidence, count by count
    n, c = p.size, float(p.mean())
    assert alert.tolist() == [bool(_blaker_rejects(int(k), n, c)) for k in range(kmax + 1)]
    # and it alerts wherever Clopper-Pearson's interval did
    k = np.arange(kmax + 1, dtype=float)
    lo, hi = binomial_interval(k, np.full(k.size, float(n)), method="clopper-pearson", level=0.95)
    clopper = (c < lo) | (c > hi)
    assert not (clopper & ~alert).any()
    assert shifted[: kmax + 1][alert].sum() >= shifted[: kmax + 1][clopper].sum()


def test_power_at_three_and_five_expected_positives(exact_alerts):
    # 100 rows at 3 %: Clopper-Pearson alerted from 8 positives on (power 0.25 at 6 %), Blaker's from 7
    alert = exact_alerts.alerting_counts(np.full(100, 0.03), 15)
    assert np.flatnonzero(alert).tolist() == list(range(7, 16))
    assert float(binom.sf(6, 100, 0.03)) == pytest.approx(0.0312, abs=1e-4)  # the false-alarm rate
    assert float(binom.sf(6, 100, 0.06)) == pytest.approx(0.394, abs=1e-3)  # the power; 0.252 from 8 on
    # 100 rows at 5 %: from 10 positives (and at 0), Clopper-Pearson's from 11: power 0.42 -> 0.55 at 10 %
    alert = exact_alerts.alerting_counts(np.full(100, 0.05), 20)
    assert np.flatnonzero(alert).tolist() == [0, *range(10, 21)]
    # 200 rows at 1 %: from 6 positives, as before: P(X >= 5) = 0.052 > 5 %, so no exact test alerts at 5
    alert = exact_alerts.alerting_counts(np.full(200, 0.01), 12)
    assert np.flatnonzero(alert).tolist() == list(range(6, 13)) and float(binom.sf(4, 200, 0.01)) > 0.05


def test_interval_matches_a_scan_of_the_test():
    # the printed interval: the hull of the rates the test accepts, by a fine scan of the whole pmf's test
    for k, n in [(0, 100), (1, 100), (3, 100), (5, 200), (50, 100), (100, 100), (7, 30)]:
        periods = np.repeat(["a"], n)
        row = vc.monitor(np.full(n, 0.5), (np.arange(n) < k).astype(int), periods, min_count=1).rows[0]
        grid = np.linspace(max(row.ci_low - 0.02, 0), min(row.ci_high + 0.02, 1), 4001)
        rejects = _blaker_rejects_at(k, n, grid)
        assert rejects[::200].tolist() == [_blaker_rejects(k, n, g) for g in grid[::200]]  # the scalar test's
        kept = grid[~rejects]
        step = grid[1] - grid[0]
        assert row.ci_low == pytest.approx(kept.min(), abs=step)
        assert row.ci_high == pytest.approx(kept.max(), abs=step)
