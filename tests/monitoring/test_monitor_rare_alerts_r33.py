"""vc.monitor's calibration alert holds its level where few positives are expected.

A period alerts when its mean confidence lies outside the interval of its rate. With Wilson's interval
(the normal score test inverted) calibrated periods alerted far above the nominal 5 % at n·c = 0.5 to 4:
100 rows at c = 0.01 alert from 3 positives on, P(X >= 3) = 0.079; 200 rows at 0.005, 0.080; spread-out
rare scores (Beta(2, 100), 200 rows) 0.067. Unweighted (and equal-weight) periods now read the rate's
Clopper-Pearson interval, the exact binomial test inverted (round 34: Blaker's exact interval,
test_monitor_blaker_r34.py). Exact checks: every count k of positives is one
period of the same scores (the alert depends on the scores only through their mean), and the false-alarm
rate is the Poisson-binomial mass (by convolution) of the counts that alert; the power against outcomes
at twice the scores is kept where ten or more positives are expected."""

import numpy as np
import pytest

from veracity.core._intervals import binomial_interval


def _cases():
    rng = np.random.default_rng(33)
    return [np.full(100, 0.01), np.full(100, 0.005), np.full(200, 0.005), np.full(500, 0.002),
            np.full(200, 0.02), np.full(100, 0.1), rng.beta(2, 100, 200), rng.beta(0.5, 50, 100),
            rng.beta(0.5, 50, 400), rng.beta(1, 30, 300), rng.beta(0.5, 50, 1000)]


@pytest.mark.parametrize("p", _cases(), ids=lambda p: f"n{p.size}-E{p.sum():.1f}")
def test_false_alarm_rate_at_most_five_percent_and_power_kept(p, exact_alerts):
    null, shifted = exact_alerts.pmf(p), exact_alerts.pmf(np.clip(2 * p, 0, 1))
    kmax = int(np.flatnonzero(np.maximum(null, shifted) > 1e-12)[-1])
    alert = exact_alerts.alerting_counts(p, kmax)
    level = float(null[: kmax + 1][alert].sum())
    assert level <= 0.05, (p.size, p.sum(), level)
    e = p.sum()
    if e >= 10:  # the exact test costs little power where the normal one held its level
        n, k = p.size, np.arange(kmax + 1)
        lo, hi = binomial_interval(k.astype(float), np.full(k.size, float(n)), method="wilson", level=0.95)
        wilson = (p.mean() < lo) | (p.mean() > hi)
        assert shifted[: kmax + 1][alert].sum() >= 0.9 * shifted[: kmax + 1][wilson].sum()

