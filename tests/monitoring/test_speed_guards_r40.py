"""Session 40 (speed only): vc.monitor reads a weighted period's design p-value (Rao & Scott) only where the
plain chi-square test rejects at SHIFT_ALPHA. The shift label reads only whether the p-value is below
SHIFT_ALPHA, and the design's p-value is never below the plain test's, so the labels are those of reading the
design in every period; pinned here against that path (``_monitor.SHIFT_ALPHA`` raised past 1: the design
read everywhere) and on the property the shortcut rests on."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.monitoring import _monitor
from veracity.monitoring._shift import chi2_homogeneity


def _stream(seed: int, shift: float):
    """test_claims_r31's weighted stream (rare outcomes, log-normal weights correlated 0.8 with the score)
    on 200 periods of 300 rows; ``shift``: the later half's scores Beta(0.5, 20 - shift) (a score shift)."""
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.beta(0.5, 20, 100 * 300), rng.beta(0.5, 20 - shift, 100 * 300)])
    y = (rng.random(p.size) < p).astype(int)
    logit = np.log(p / (1 - p))
    s = (logit - logit.mean()) / logit.std()
    w = np.exp(1.5 * (0.8 * s + 0.6 * rng.normal(size=p.size)))
    return p, y, np.repeat(np.arange(200), 300).astype(str), w


@pytest.mark.parametrize("shift", [0.0, 8.0, 12.0])
def test_weighted_shift_labels_are_those_of_the_design_read_everywhere(shift, monkeypatch):
    p, y, keys, w = _stream(40, shift)
    fast = vc.monitor(p, y, keys, sample_weight=w, min_count=30)
    monkeypatch.setattr(_monitor, "SHIFT_ALPHA", 2.0)  # every p-value is below 2: the design read everywhere
    plain = vc.monitor(p, y, keys, sample_weight=w, min_count=30)
    labels = [r.shift for r in fast.rows]
    assert labels == [r.shift for r in plain.rows]
    assert [r.psi for r in fast.rows] == [r.psi for r in plain.rows]
    assert {"within noise", "stable"} <= set(labels)  # a material PSI within noise and a stable one
    if shift > 10:
        assert "MAJOR" in labels  # and shifts called (the plain test and the design's both reject)


def test_the_design_p_value_is_never_below_the_plain_one():
    rng = np.random.default_rng(40)
    for _ in range(300):
        bins = int(rng.integers(2, 12))
        wa, wb = rng.lognormal(0, 1.5, 400), rng.lognormal(0, 1.5, 400)
        ia, ib = rng.integers(0, bins, 400), rng.integers(0, bins, 400)
        a, b = np.bincount(ia, wa, bins), np.bincount(ib, wb, bins)
        qa, qb = np.bincount(ia, wa * wa, bins), np.bincount(ib, wb * wb, bins)
        ka, kb = a.sum() ** 2 / qa.sum(), b.sum() ** 2 / qb.sum()
        here, there = a * (ka / a.sum()), b * (kb / b.sum())
        plain, design = chi2_homogeneity(here, there), chi2_homogeneity(here, there, (a, qa, b, qb))
        assert design >= plain or (plain != plain and design != design)
