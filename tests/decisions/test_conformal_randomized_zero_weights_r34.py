"""Randomized APS/RAPS: a calib row of weight 0 draws no U (session 34).

A row of weight 0 is a dropped row everywhere; ``ConformalClassifier.fit`` dropped it after drawing its
U ~ U(0, 1) (``randomized=True``), so appending weightless rows shifted every other row's draw and moved
q̂ (and the sets) for the same seed, while the same rows without them gave another q̂.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax

from veracity.decisions import ConformalClassifier


def _rows(n: int = 300, k: int = 3):
    rng = np.random.default_rng(16)
    z = rng.normal(0, 2, (n, k))
    y = (softmax(z / 2, axis=1).cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1)
    return softmax(z, axis=1), y, rng.integers(0, 4, n).astype(float)


@pytest.mark.parametrize("score", ["aps", "raps"])
@pytest.mark.parametrize("mondrian", [False, True])
def test_weightless_rows_draw_nothing(score, mondrian):
    P, y, w = _rows()
    keep = w > 0
    assert not keep.all()
    options = dict(alpha=0.2, score=score, randomized=True, random_state=1, mondrian=mondrian)
    full = ConformalClassifier(**options).fit(P, y, sample_weight=w)
    kept = ConformalClassifier(**options).fit(P[keep], y[keep], sample_weight=w[keep])
    assert full.qhat_ == kept.qhat_
    np.testing.assert_array_equal(full.class_qhat_, kept.class_qhat_)
    np.testing.assert_array_equal(full.calib_scores_, kept.calib_scores_)
    # the next draws (the sets' U) follow from the same generator state
    np.testing.assert_array_equal(full.predict_sets(P[:50]), kept.predict_sets(P[:50]))
