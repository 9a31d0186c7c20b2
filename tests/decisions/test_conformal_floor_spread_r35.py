"""The calib floor of weighted calib rows read Kish's effective size alone, which assumes weights unrelated to
the scores. Class weights on a rare, hard class (weight 5, 5 % of rows, its true-class probability low) put
the heavy rows above q̂: the coverage a calib set of 200 rows delivers spread with sd 0.044 where the Beta
law of Kish's 133 rows says 0.026, and exchangeable measured rows (weighted alike) were called "below the
0.9 target beyond sampling noise" in about 10 % of draws, not the 2.5 % the report promises. The floor now
reads the smaller of Kish's size and the sandwich size of the weighted share at or below q̂."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

import veracity as vc

from .conftest import hard_class_draw

CLASS_W = np.array([1.0, 1.0, 5.0])


def test_class_weighted_exchangeable_rows_are_rarely_called_short():
    rng = np.random.default_rng(8)
    draws = flagged = 0
    for _ in range(300):
        p, y = hard_class_draw(rng, 2200)
        cp = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200], sample_weight=CLASS_W[y[:200]])
        if not math.isfinite(cp.qhat_):
            continue
        draws += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            flagged += cp.coverage(p[200:], y[200:], sample_weight=CLASS_W[y[200:]]).below_target
    assert draws >= 290
    # about 2.5 % at most on exchangeable rows (4 of these draws); Kish's size alone flagged 17
    assert flagged <= 10, flagged


def test_the_floor_reads_the_smaller_effective_size_by_definition():
    rng = np.random.default_rng(3)
    p, y = hard_class_draw(rng, 600)
    w = CLASS_W[y[:300]]
    cp = vc.ConformalClassifier(alpha=0.1).fit(p[:300], y[:300], sample_weight=w)
    s = 1.0 - p[np.arange(300), y[:300]]  # LAC scores of the true classes
    h = s <= cp.qhat_
    total = w.sum()
    f = w[h].sum() / total
    kish = total ** 2 / (w * w).sum()
    sandwich = f * (1 - f) * total ** 2 / (w * w * (h - f) ** 2).sum()
    assert sandwich < kish
    k = math.ceil((sandwich + 1) * 0.9)
    floor = cp.coverage(p[300:], y[300:], sample_weight=CLASS_W[y[300:]]).calib_floor
    assert floor is not None
    assert abs(floor - stats.beta.ppf(0.025, k, sandwich + 1 - k)) < 1e-9
