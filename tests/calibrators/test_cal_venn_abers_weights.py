"""Venn-ABERS with sample weights (session 11).

* Only the ratios of the weights matter: the test row weighs the mean calibration weight. It used
  to weigh 1 in the caller's units, so constant weights of 7 moved the output by up to 0.10 from the
  unweighted fit, and weights times 1e-3 by up to 0.38.
* p0 and p1 are weighted means of 0/1 labels: the rounding of the weighted sums put p1 at
  1 + 1e-15, and the saved artifact of most weighted fits could not be loaded.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc


def _data(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(float)
    w = rng.uniform(0.1, 5.0, n)
    return p, y, w


GRID = np.r_[0.0, 1e-12, np.linspace(0.01, 0.99, 99), 1.0 - 1e-12, 1.0]


@pytest.mark.parametrize("scale", [1e-200, 1e-3, 7.0, 1e6, 1e200])
def test_weights_times_a_constant_change_nothing(scale):
    p, y, w = _data(0)
    base = vc.VennAbers().fit(p, y, sample_weight=w)
    scaled = vc.VennAbers().fit(p, y, sample_weight=w * scale)
    np.testing.assert_allclose(scaled.transform(GRID), base.transform(GRID), rtol=0, atol=1e-12)
    for a, b in zip(scaled.predict_interval(GRID), base.predict_interval(GRID)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_equal_weights_are_the_unweighted_fit():
    p, y, _ = _data(1)
    plain = vc.VennAbers().fit(p, y).transform(GRID)
    for c in (1.0, 7.0, 0.01):
        np.testing.assert_allclose(vc.VennAbers().fit(p, y, sample_weight=np.full(p.size, c)).transform(GRID),
                                   plain, rtol=0, atol=1e-12)


def test_weighted_bounds_by_definition():
    # p0/p1 at a gap: isotonic regression (scikit-learn) on the calibration rows plus the test row with
    # label 0 / 1, the test row weighing the mean calibration weight
    from sklearn.isotonic import IsotonicRegression

    p, y, w = _data(2, 60)
    cal = vc.VennAbers().fit(p, y, sample_weight=w * 3.0)
    for s in (0.05, 0.333, 0.5, 0.9):
        vals = []
        for label in (0.0, 1.0):
            iso = IsotonicRegression(out_of_bounds="clip").fit(
                np.r_[p, s], np.r_[y, label], sample_weight=np.r_[w, w.mean()])
            vals.append(float(iso.predict([s])[0]))
        p0, p1 = cal.predict_interval([s])
        assert p0[0] == pytest.approx(vals[0], abs=1e-12)
        assert p1[0] == pytest.approx(vals[1], abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_weighted_artifacts_load_and_transform_bit_for_bit(seed):
    p, y, w = _data(seed)
    cal = vc.VennAbers().fit(p, y, sample_weight=w)
    assert 0.0 <= cal.p0_.min() and cal.p1_.max() <= 1.0
    back = vc.calibrators.load(json.loads(json.dumps(cal.to_dict())))
    assert np.array_equal(back.transform(GRID), cal.transform(GRID))


def test_weighted_pairwise_artifact_loads():
    rng = np.random.default_rng(3)
    L = rng.normal(size=(300, 4)) * 2
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) < rng.random((300, 1))).sum(axis=1)
    w = rng.uniform(0.1, 5.0, 300)
    cal = vc.VennAbers().fit(P, y, sample_weight=w)
    back = vc.calibrators.load(json.loads(json.dumps(cal.to_dict())))
    assert np.array_equal(back.transform(P), cal.transform(P))
    np.testing.assert_allclose(vc.VennAbers().fit(P, y, sample_weight=w * 1e-3).transform(P), cal.transform(P),
                               rtol=0, atol=1e-12)
