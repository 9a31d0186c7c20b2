"""TemperatureScaling(method="golden") searches seed 000's bracket (0.05, 20) when bounds=None (session 20).

A golden fit that landed on an end of that bracket warned as if tau had run to the end of the
unbounded range: at 20, "the scores carry almost no signal about the labels", at 0.05, "the score
separates the calibration labels perfectly" -- both false for scores whose optimum (found here by
scipy) is simply tau* = 51 or tau* = 0.02, on rows that are neither flat nor separable. The warning
now says the optimum lies beyond the bracket's end and how to reach it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import log_expit

import veracity as vc


def _tau_star(z, y):
    m = (2 * y - 1) * z
    res = minimize_scalar(lambda lt: -log_expit(m / math.exp(lt)).sum(), bounds=(-8, 8), method="bounded",
                          options={"xatol": 1e-10})
    return math.exp(res.x)


@pytest.mark.parametrize("scale, end", [(50.0, "upper"), (0.02, "lower")])
def test_golden_at_its_default_bracket_says_the_optimum_lies_beyond(scale, end):
    rng = np.random.default_rng(0)
    z = rng.normal(size=3000) * 3 * scale
    y = (rng.random(z.size) < 1 / (1 + np.exp(-z / scale))).astype(int)
    tau = _tau_star(z, y)
    assert (tau > 20) if end == "upper" else (tau < 0.05)       # the optimum is finite, outside the bracket
    assert 0 < y.sum() < y.size and vc.auc(z, y, score_type="logit") < 0.99   # neither flat nor separated
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ts = vc.TemperatureScaling(score_type="logit", method="golden").fit(z, y)
    assert ts.clamped_ == end and ts.temperature_ == (20.0 if end == "upper" else 0.05)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "no signal" not in text and "separates" not in text.replace("separates perfectly)", "")
    assert "20" in text if end == "upper" else "0.05" in text
    assert "bounds=" in text and "newton" in text
    # the advice works: the unbounded Newton fit finds scipy's optimum
    assert vc.TemperatureScaling(score_type="logit").fit(z, y).temperature_ == pytest.approx(tau, rel=1e-6)
