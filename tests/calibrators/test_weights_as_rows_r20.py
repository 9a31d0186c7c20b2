"""Integer sample weights are repeated rows, for every calibrator but Venn-ABERS (session 20).

A row of weight k is k copies of that row (weight 0: the row is dropped): every calibrator fit on
weights maps every score as the fit on the repeated rows does. Venn-ABERS is left out on purpose:
its test row weighs the mean calibration weight (only the weights' ratios matter, see
test_cal_venn_abers_weights.py), which repetition cannot express. Scores are rounded so that ties occur.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import veracity as vc

GRID = np.r_[0.0, 1e-300, np.linspace(0.01, 0.99, 50), 1.0 - 1e-16, 1.0]

BINARY = {
    "temperature": lambda: vc.TemperatureScaling(),
    "platt": lambda: vc.PlattScaling(),
    "platt-smoothed": lambda: vc.PlattScaling(smoothing=True),
    "isotonic-step": lambda: vc.IsotonicCalibration(),
    "isotonic-linear": lambda: vc.IsotonicCalibration(interpolation="linear"),
    "isotonic-strict": lambda: vc.IsotonicCalibration(ties="strict"),
    "histogram": lambda: vc.HistogramBinning(bins=5),
    "histogram-quantile": lambda: vc.HistogramBinning(bins=4, strategy="quantile"),
    "beta": lambda: vc.BetaCalibration(),
}
MULTI = {
    "temperature": lambda: vc.TemperatureScaling(),
    "vector": lambda: vc.VectorScaling(),
    "matrix": lambda: vc.MatrixScaling(),
    "ovr-isotonic": lambda: vc.OneVsRest(method="isotonic"),
    "ovr-platt": lambda: vc.OneVsRest(method="platt"),
}
#: L-BFGS (vector/matrix scaling) stops at its own tolerance: on 8 rows of 3 classes matrix scaling's 12
#: parameters lie in a flat valley (objectives equal to 5e-14, probabilities 1e-5 apart), so a looser bound
ATOL = {"vector": 1e-6, "matrix": 1e-4}


def _separated(x, y, w):
    """Every positive (of positive weight) scores at or above every negative, or the reverse: no finite
    logistic fit exists, and each fit stops where its optimiser gives up."""
    keep = w > 0
    x, y = x[keep], y[keep]
    pos, neg = x[y == 1], x[y == 0]
    if x.min() == x.max():
        return False
    return bool(neg.max() <= pos.min() or pos.max() <= neg.min())


def _fit(make, s, y, w=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = make().fit(s, y, sample_weight=w)
    # a separable draw has no finite maximum-likelihood fit: each fit stops where its optimiser gives up
    assume(not any("converge" in str(c.message) or "separat" in str(c.message) for c in caught))
    return cal


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 30), which=st.sampled_from(sorted(BINARY)))
def test_binary_integer_weights_are_repeated_rows(seed, n, which):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.01, 0.99, n), 1)
    y = (rng.random(n) < p).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(0, 4, n)
    w[:2] = [1, 2]                       # both classes keep a row
    assume(not _separated(p, y, w))
    a = _fit(BINARY[which], p, y, w).transform(GRID)
    b = _fit(BINARY[which], np.repeat(p, w), np.repeat(y, w)).transform(GRID)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 30), which=st.sampled_from(sorted(MULTI)))
def test_multiclass_integer_weights_are_repeated_rows(seed, n, which):
    rng = np.random.default_rng(seed)
    L = np.round(rng.normal(size=(n, 3)) * 2, 1)
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    y = rng.integers(0, 3, n)
    y[:3] = [0, 1, 2]
    w = rng.integers(0, 4, n)
    w[:3] = [1, 2, 3]                    # every class keeps a row
    assume(not any(_separated(P[:, k], (y == k).astype(int), w) for k in range(3)))
    T = np.exp(rng.normal(size=(20, 3)) * 3)
    T = np.vstack([T / T.sum(axis=1, keepdims=True), [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]])
    a = _fit(MULTI[which], P, y, w).transform(T)
    b = _fit(MULTI[which], np.repeat(P, w, axis=0), np.repeat(y, w)).transform(T)
    np.testing.assert_allclose(a, b, rtol=0, atol=ATOL.get(which, 1e-9))
