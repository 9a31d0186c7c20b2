"""Round 41: SegmentCalibration's spread of true corrections, tau^2, was the plain moments
max(0, mean(delta^2 - v)): one small level of few expected events (v huge) drove it to 0 and switched the
feature's whole repair off. Seeded: 20,000 rows at a 0.5-4 % event rate, level 'a' at twice its predicted
rate, one 60-row level with 0 events: tau^2 was 0 in 10 of 10 seeds and 'a' went uncorrected. Paule and
Mandel's estimate (sum delta^2 / (v + tau^2) = K) weighs that level by 1/(v + tau^2): the feature is
corrected, 'a' by about its planted log-odds, the 60-row level barely. Equal variances: the same root as
the plain moments would give only where tau^2 dominates, and 0 where the sum is at most K (checked
directly)."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _rows(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 20_000
    p = rng.uniform(0.005, 0.04, n)
    g = rng.choice(list("abcd"), n).astype(object)
    g[:60] = "e"  # the small level
    y = (rng.uniform(size=n) < np.where(g == "a", 2 * p, p)).astype(int)
    y[:60] = 0
    return p, y, g


def test_one_rare_level_no_longer_switches_the_repair_off():
    corrected = []
    for seed in range(10):
        p, y, g = _rows(seed)
        seg = vc.SegmentCalibration(features=["g"], depth=1).fit(p, y, features={"g": g})
        assert seg.tau2_[0] > 0.02, (seed, seg.tau2_)
        q = seg.transform(p, features={"g": g})
        a = g == "a"
        corrected.append(abs(np.mean(q[a] - y[a])) < abs(np.mean(p[a] - y[a])) / 3)
        small = seg.transform(p[:60], features={"g": g[:60]})
        assert np.all(np.abs(np.log(small / (1 - small)) - np.log(p[:60] / (1 - p[:60]))) < 0.5)
    assert all(corrected)


def test_the_estimate_solves_its_equation():
    from veracity.segments._repair import _tau2

    rng = np.random.default_rng(1)
    v = rng.uniform(0.01, 0.2, 12)
    delta = rng.normal(0, np.sqrt(v + 0.3))
    t2 = _tau2(delta, v)
    assert t2 > 0 and abs(np.sum(delta**2 / (v + t2)) - delta.size) < 1e-9
    assert _tau2(np.sqrt(v) * 0.5, v) == 0.0  # sum of delta^2 / v at most K: no spread
    assert _tau2(np.array([]), np.array([])) == 0.0
    # equal variances: sum d^2 / (v + t) = K is the plain moments' mean(d^2) - v
    eq = np.full(8, 0.05)
    d = rng.normal(0, 1, 8)
    assert abs(_tau2(d, eq) - max(0.0, float(np.mean(d**2)) - 0.05)) < 1e-10
