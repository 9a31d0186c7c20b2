"""Seeded simulations of vc.monitor's flags on stationary, calibrated streams (false-alarm rates)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("weighted, per", [(False, 150), (True, 500)])
def test_stationary_scores_are_rarely_called_a_shift(weighted, per):
    """The shift label needs PSI >= 0.1 and a chi-square test at 0.01: with the scores' law unchanged,
    at most about 1 % of periods read "moderate" or "MAJOR" (a fixed PSI cut alone calls most of these
    small windows a shift), with weights too (histograms read in effective rows)."""
    rng = np.random.default_rng(5)
    k = 300
    p = rng.beta(2, 3, k * per)
    y = (rng.random(p.size) < p).astype(int)
    keys = np.repeat([f"{i:04d}" for i in range(k)], per)
    w = rng.lognormal(0.0, 0.7, p.size) if weighted else None
    res = vc.monitor(p, y, keys, min_count=100, sample_weight=w)
    labels = [r.shift for r in res.rows if r.period != res.reference]
    assert len(labels) == k - 1
    psi_material = np.mean([r.psi >= 0.1 for r in res.rows if r.period != res.reference])
    called = np.mean([s in ("moderate", "MAJOR") for s in labels])
    assert psi_material > 0.2  # the noise a PSI cut alone would call a shift
    assert called <= 0.01 + 3 * np.sqrt(0.01 * 0.99 / (k - 1))
