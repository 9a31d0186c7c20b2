"""Round 32: the realised cost's MOVER interval under class-balancing weights (veracity.comparison._cost).

Each side's share (negatives among the flagged rows, positives among the unflagged) had its Wilson interval
at the Kish size of the side's rows; a share whose rows weigh other than the side's average (positives
weighing 1/π) has another variance, and the interval covered the expected cost 0.37 and 0.77 of draws at a
5 % rate on 300 rows (t = 0.02 with a miss costing 10, t = 0.1 with 5). Each share now has the size that
matches its variance (veracity.comparison._decision_curve.share_size). Scores fixed, labels redrawn; the
truth is the ratio of the expectations given the scores, written out.
"""

from __future__ import annotations

import numpy as np
import pytest

from veracity.comparison._cost import _cost_interval

RATE, BASE = 0.05, -3.3715  # sigmoid(BASE + x), x ~ N(0, 1): a 5 % event rate


def _sig(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize(("threshold", "cost_fn"), [(0.02, 10.0), (0.1, 5.0)])
def test_cost_interval_covers_under_class_weights(threshold, cost_fn):
    # 400 draws (SE 0.011 at 0.95). This seed: 0.92 and 0.95 (round 31: 0.41 and 0.78)
    rng = np.random.default_rng(7)
    n = 300
    x = rng.normal(size=n)
    q, p = _sig(BASE + x), _sig(BASE + 0.4 + 1.3 * x)
    f = p >= threshold
    # E[w (1 - y)] = 1 - q, E[w y] = q / π per row
    truth = (((1.0 - q)[f]).sum() + cost_fn * (q[~f] / RATE).sum()) / (q / RATE + 1.0 - q).sum()
    hit = 0
    k = 400
    for _ in range(k):
        y = (rng.random(n) < q).astype(float)
        w = np.where(y == 1.0, 1.0 / RATE, 1.0)
        real = float(np.dot(w, np.where(f, 1.0 - y, cost_fn * y)) / w.sum())
        below, above = _cost_interval(f, y, w, 1.0, cost_fn, 0.95)
        hit += max(real - below, 0.0) <= truth <= min(real + above, cost_fn)
    assert hit / k >= 0.90, hit / k


def test_equal_weights_give_the_unweighted_interval():
    rng = np.random.default_rng(1)
    y = (rng.random(200) < 0.2).astype(float)
    f = rng.random(200) < 0.4
    plain = _cost_interval(f, y, None, 1.0, 4.0, 0.9)
    assert _cost_interval(f, y, np.full(200, 3.0), 1.0, 4.0, 0.9) == pytest.approx(plain, rel=1e-12)
