"""``vc.decision_curve``'s TP and FP are sums of the caller's weights. Extreme weights are scaled by an exact
power of two on the way in (``check_weights``), and the rows reported the scaled sums: weights of 1e300 on 99
flagged positives gave ``tp`` 73.9, not 9.9e301 (1e-300: 66.3). The net benefit, a ratio, did not move."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e160, 3.0])
def test_tp_and_fp_are_sums_of_the_callers_weights(scale):
    rng = np.random.default_rng(38)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    w = scale * rng.uniform(0.5, 2.0, 300)
    t = np.array([0.0, 0.2, 0.5])
    frame = pd.DataFrame({"m": p, "y": y, "w": w})
    for curve in (vc.decision_curve({"m": p}, y, sample_weight=w, thresholds=t),
                  vc.decision_curve(frame, scores=["m"], label="y", sample_weight="w", thresholds=t)):
        rows = {(r.model, r.threshold): r for r in curve.rows}
        for k, th in enumerate(t):
            flagged = p >= th
            tp, fp = w[flagged & (y == 1)].sum(), w[flagged & (y == 0)].sum()
            assert rows["m", th].tp == pytest.approx(tp, rel=1e-12)
            assert rows["m", th].fp == pytest.approx(fp, rel=1e-12)
            assert rows["all", th].tp == pytest.approx(w[y == 1].sum(), rel=1e-12)
            assert rows["all", th].fp == pytest.approx(w[y == 0].sum(), rel=1e-12)
            assert rows["m", th].net_benefit == pytest.approx((tp - fp * th / (1 - th)) / w.sum(), rel=1e-12)
