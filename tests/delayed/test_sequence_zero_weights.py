"""A row of weight 0 is a dropped row in the confidence sequences too (session 11): each row's bet was
scaled by its weight over the mean weight *including* the zeros, so a quarter of rows at weight 0 moved
the first day's bounds from [-0.533, +0.385] to [-0.517, +0.373], and those rows were counted as
labelled (3,000 instead of 2,250)."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _stream():
    rng = np.random.default_rng(0)
    n = 3000
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(int)
    day = np.arange(n) // 100
    w = rng.uniform(0.5, 2.0, n)
    w0 = w.copy()
    w0[::4] = 0.0
    return p, y, day, w, w0, w0 > 0


def test_zero_weight_rows_change_no_bound_and_are_not_counted():
    p, y, day, w, w0, keep = _stream()
    a = vc.confidence_sequence(p, y, batches=day, sample_weight=w0)
    b = vc.confidence_sequence(p[keep], y[keep], batches=day[keep], sample_weight=w[keep])
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, b.high)
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=1e-12)
    np.testing.assert_array_equal(a.n, b.n)
    assert int(a.n[-1]) == int(keep.sum())


def test_binned_sequences_drop_zero_weight_rows_too():
    p, y, day, w, w0, keep = _stream()
    a = vc.binned_sequences(p, y, batches=day, sample_weight=w0, bins=3)
    b = vc.binned_sequences(p[keep], y[keep], batches=day[keep], sample_weight=w[keep], bins=3)
    for s, t in zip(a.sequences, b.sequences):
        np.testing.assert_array_equal(s.low, t.low)
        np.testing.assert_array_equal(s.high, t.high)
        np.testing.assert_array_equal(s.n, t.n)
