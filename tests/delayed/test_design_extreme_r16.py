"""Session 16: a designed sample (propensity=) with a propensity so small that its square underflows."""

import math
from fractions import Fraction

import numpy as np
import pytest

import veracity as vc


def _by_hand(y, f, g, pi, lam):
    """The Horvitz-Thompson PPI of veracity.delayed._design in exact rationals (lam given), and its standard
    error sqrt(sum (1 - pi) / pi^2 (y - lam f)^2) / M with math.hypot (no overflow)."""
    M = len(y) + len(g)
    est = (lam * math.fsum(list(f) + list(g)) + math.fsum((yi - lam * fi) / p for yi, fi, p in zip(y, f, pi))) / M
    se = math.hypot(*(math.sqrt(1 - p) * ((yi - lam * fi) / p) for yi, fi, p in zip(y, f, pi))) / M
    return est, se


def _lambda_by_hand(y, f, pi):
    c = [(1 - Fraction(float(p))) / Fraction(float(p)) ** 2 for p in pi]
    num = sum(ci * int(yi) * Fraction(float(fi)) for ci, yi, fi in zip(c, y, f))
    den = sum(ci * Fraction(float(fi)) ** 2 for ci, fi in zip(c, f))
    return float(min(max(num / den, 0), 1))


@pytest.mark.parametrize("tiny", [1e-150, 1e-200, 1e-300])
def test_a_propensity_whose_square_underflows_gives_the_formulas_numbers(tiny):
    # pi^2 underflowed to 0 below about 1e-154: c = (1 - pi) / pi^2 was inf, every estimate NaN (printed n/a)
    # with the note that the 50 labels "show no spread"
    rng = np.random.default_rng(16)
    f = rng.random(50)
    y = (rng.random(50) < f).astype(int)
    g = rng.random(500)
    pi = np.r_[tiny, np.full(49, 0.1)]
    for tuning in (False, True):
        r = vc.ppi_mean(y, f, g, propensity=pi, power_tuning=tuning, sample_check="off")
        lam = 1.0 if not tuning else _lambda_by_hand(y, f, pi)
        assert r.lam == pytest.approx(lam, abs=1e-12)
        est, se = _by_hand(y, f, g, pi, r.lam)
        assert np.isfinite(r.se) and r.se == pytest.approx(se, rel=1e-9)
        assert r.estimate == pytest.approx(est, rel=1e-9)
        assert "show no spread" not in (r.note or "")
        z = 1.959963984540054
        assert r.ci_low == pytest.approx(max(est - z * se, 0.0), rel=1e-9, abs=1e-12)
        assert r.ci_high == pytest.approx(min(est + z * se, 1.0), rel=1e-9, abs=1e-12)


def test_ordinary_propensities_are_unchanged_by_the_scaled_form():
    rng = np.random.default_rng(7)
    f = rng.random(300)
    y = (rng.random(300) < f).astype(int)
    g = rng.random(3000)
    pi = np.where(f > 0.7, 1.0, rng.uniform(0.02, 0.2, 300))
    r = vc.ppi_mean(y, f, g, propensity=pi)
    lam = _lambda_by_hand(y, f, pi)
    est, se = _by_hand(y, f, g, pi, lam)
    assert (r.lam, r.estimate, r.se) == (pytest.approx(lam), pytest.approx(est), pytest.approx(se))
