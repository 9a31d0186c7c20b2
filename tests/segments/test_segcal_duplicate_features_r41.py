"""Round 41: ``SegmentCalibration(features=["g", "g"])`` is refused in one line, as ``vc.segments`` refuses
a feature named twice: it read the column once, silently, and fitted one feature's corrections where two
were asked for (a typo for another column)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n=400, seed=1):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    return p, (rng.uniform(size=n) < p).astype(int), rng.choice(list("ab"), n)


def test_array_fit_refuses_a_feature_named_twice():
    p, y, g = _data()
    with pytest.raises(vc.VeracityError, match="names 'g' twice"):
        vc.SegmentCalibration(features=["g", "g"]).fit(p, y, features={"g": g})


def test_frame_fit_refuses_a_feature_named_twice():
    p, y, g = _data()
    with pytest.raises(vc.VeracityError, match="names 'g' twice"):
        vc.SegmentCalibration(features=["g", "g"]).fit(pd.DataFrame({"p": p, "y": y, "g": g}), score="p", label="y")
