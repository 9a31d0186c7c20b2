"""Round 35: ``modified_wilson(..., exact_end=True)`` — Wilson's end toward the nearer bound moved out to
the exact binomial (Clopper-Pearson) end past 10 counts, where Garwood's Poisson bound (below 10) no longer
reaches.

Exact binomial sums, no simulation: with Garwood's bound below 10 alone, a share of 5-18 expected events on
100-10,000 trials lay below the lower end with probability up to 0.050 (about 6 expected: 11-14 events seen
read Wilson's end, too far in for a skewed count), 0.030-0.034 on average (0.025 nominal)."""

import numpy as np
import pytest
from scipy.stats import beta, binom, chi2

from veracity.core._intervals import modified_wilson

Z = 1.959963984540054


def _tails(n, p, **kw):
    """P(truth below the interval), P(truth above it), the mean width: X ~ Binomial(n, p), summed exactly."""
    x = np.arange(n + 1)
    pm = binom.pmf(x, n, p)
    low, high = modified_wilson(x / n, np.full(n + 1, float(n)), 0.95, **kw)
    return pm[p < low].sum(), pm[p > high].sum(), (pm * (high - low)).sum()


@pytest.mark.parametrize("n", [100, 1000, 4000])
def test_the_lower_end_of_a_rare_share_holds_its_tail(n):
    means = np.linspace(5.0, 18.0, 60)
    old = np.array([_tails(n, m / n) for m in means])
    new = np.array([_tails(n, m / n, exact_end=True) for m in means])
    assert old[:, 0].max() > 0.045  # the miss: Wilson's lower end for 10-17 events
    assert old[:, 0].mean() > 0.029
    assert new[:, 0].max() <= 0.025 + 1e-9
    assert 0.015 <= new[:, 0].mean() <= 0.02
    assert np.array_equal(new[:, 1], old[:, 1])  # the other end is as before
    assert np.all(new[:, 2] <= old[:, 2] * 1.045)  # at most 4.5 % wider on average


def test_near_one_the_upper_end_mirrors_it():
    for m in (6.0, 12.0):
        low_tail = _tails(1000, m / 1000, exact_end=True)[0]
        assert _tails(1000, 1 - m / 1000, exact_end=True)[1] == pytest.approx(low_tail, abs=1e-12)


def test_the_ends_written_out():
    n = np.full(5, 200.0)
    x = np.array([4.0, 15.0, 60.0, 120.0, 190.0])
    low, high = modified_wilson(x / n, n, 0.9, exact_end=True)
    z = 1.6448536269514722

    def wilson(k, m):
        c = (k + z * z / 2) / (m + z * z)
        h = z / (m + z * z) * np.sqrt(k * (m - k) / m + z * z / 4)
        return c - h, c + h

    # 4 events: Garwood's Poisson bound below 10, Wilson's upper end
    assert low[0] == pytest.approx(chi2.ppf(0.05, 8) / 2 / 200, rel=1e-9)
    assert high[0] == pytest.approx(wilson(4, 200)[1], rel=1e-12)
    # 15 and 60 events (the rarer outcome): Clopper-Pearson's lower end, which is further out than Wilson's
    for i in (1, 2):
        cp = beta.ppf(0.05, x[i], 200 - x[i] + 1)
        assert cp < wilson(x[i], 200)[0]
        assert low[i] == pytest.approx(cp, rel=1e-9)
        assert high[i] == pytest.approx(wilson(x[i], 200)[1], rel=1e-12)
    # 120 of 200: 80 non-events are the rarer outcome, so the upper end is the exact one
    assert low[3] == pytest.approx(wilson(120, 200)[0], rel=1e-12)
    assert high[3] == pytest.approx(beta.ppf(0.95, 121, 80), rel=1e-9)
    # 190 of 200: 10 non-events, the exact upper end; the lower end Wilson's
    assert high[4] == pytest.approx(beta.ppf(0.95, 191, 10), rel=1e-9)
    assert low[4] == pytest.approx(wilson(190, 200)[0], rel=1e-12)


def test_without_exact_end_it_is_as_before():
    """The default (PPI's shares) keeps Wilson's end from 10 counts on."""
    low, high = modified_wilson(np.array([0.1]), np.array([200.0]), 0.95)
    c = (20 + Z * Z / 2) / (200 + Z * Z)
    h = Z / (200 + Z * Z) * np.sqrt(20 * 180 / 200 + Z * Z / 4)
    assert (low[0], high[0]) == pytest.approx((c - h, c + h), rel=1e-12)


def test_effective_counts_and_edges():
    """Real (effective) counts work, and 0 / all events / no trials keep their ends."""
    low, high = modified_wilson(np.array([12.5 / 80.3, 0.0, 1.0, 0.3]), np.array([80.3, 50.0, 50.0, 0.0]),
                                0.95, exact_end=True)
    assert low[0] == pytest.approx(beta.ppf(0.025, 12.5, 80.3 - 12.5 + 1), rel=1e-9)
    assert (low[1], high[2]) == (0.0, 1.0)
    assert np.isnan(low[3]) and np.isnan(high[3])
