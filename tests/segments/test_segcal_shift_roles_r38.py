"""SegmentCalibration's shift of a badly miscalibrated segment is the maximum-likelihood one (session 38;
hunt beside "roles").

Each segment's raw correction is its ML logit shift given the base calibrator (module doc); it was taken
after exactly 4 Newton steps from 0, which stop short of a large shift: a segment 6 logits off got
-4.485 where the ML shift shrunk by empirical Bayes is -4.700, and tau^2 read 5.35 for 5.85 (9 % low).
The steps now run until the shift stops moving. Checked against the formula written out: the ML shift
by root finding, v = 1 / sum p(1 - p), tau^2 = the root of sum d^2 / (v + tau^2) = K (0 where none is
positive; round 41: Paule and Mandel's moments, was max(0, mean(d^2 - v))), delta = d tau^2 / (tau^2 + v).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit, logit

import veracity as vc

LEVELS = ["a", "b", "c", "d"]


@pytest.mark.parametrize("shift", [1.0, 5.0, -6.0])
def test_shrunk_shifts_match_the_formula(shift):
    rng = np.random.default_rng(3805)
    n = 20_000
    g = rng.choice(LEVELS, n)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < expit(logit(p) + np.where(g == "a", shift, 0.0))).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.SegmentCalibration(features=["g"], depth=1).fit(p, y, features={"g": g})
    eta = logit(cal.base_.transform(p))
    raw, v = np.empty(4), np.empty(4)
    for i, level in enumerate(LEVELS):
        rows = g == level
        raw[i] = brentq(lambda d: np.sum(y[rows] - expit(eta[rows] + d)), -20, 20, xtol=1e-13)
        q = expit(eta[rows] + raw[i])
        v[i] = 1.0 / np.sum(q * (1 - q))
    excess = lambda t: float(np.sum(raw ** 2 / (v + t))) - raw.size  # noqa: E731
    tau2 = brentq(excess, 0.0, float(np.sum(raw ** 2)), xtol=1e-14) if excess(0.0) > 0 else 0.0
    want = raw * tau2 / (tau2 + v)
    got = np.zeros(4)
    corr = cal.corrections_[0]
    labels = list(cal.specs_[0].labels)
    for key, delta in zip(corr["keys"], corr["delta"]):
        got[LEVELS.index(labels[key])] = delta
    np.testing.assert_allclose(cal.tau2_[0], tau2, rtol=1e-7)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
