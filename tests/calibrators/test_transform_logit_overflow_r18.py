"""Round 18: ``transform_logit`` of multiclass temperature (T < 1), vector and matrix scaling on logits
near ±1e308 gives logits whose softmax is the limit ``transform`` gives; the ledger reads them.

Before: ``transform_logit`` returned z/T or W z + b as it overflowed (inf, −inf and inf − inf = NaN,
with a RuntimeWarning), and ``vc.calibrators.compare`` of such rows stopped with "scores contains 2
infinite values" about scores the user never passed (the calibrated logits).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators import compare
from veracity.core._special import softmax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_overflow_r17 import ROWS, _fitted  # noqa: E402


def _temperature(T: float):
    ts = vc.TemperatureScaling(score_type="logit")
    ts.temperature_ = T
    ts.n_classes_ = 3
    return ts


def _calibrator(kind: str):
    if kind == "temperature":
        return _temperature(0.25)
    if kind == "matrix":
        W = np.array([[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]])
        return _fitted(vc.MatrixScaling, W, np.array([0.3, -0.2, 0.1]))
    return _fitted(vc.VectorScaling, np.diag([3.0, 3.0, 0.5]), np.array([0.0, 1.0, 0.0]))


@pytest.mark.parametrize("kind", ["temperature", "matrix", "vector"])
def test_transform_logit_of_huge_logits_has_the_softmax_of_transform(kind):
    cal = _calibrator(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow RuntimeWarning either
        L = cal.transform_logit(ROWS)
    assert not np.isnan(L).any() and not np.isposinf(L).any()
    with np.errstate(invalid="ignore"):
        got = softmax(L, axis=1)
    np.testing.assert_allclose(got, cal.transform(ROWS), rtol=0, atol=1e-15)
    # an ordinary row: the plain formula, untouched
    z = ROWS[-1:]
    plain = z / cal.temperature_ if cal.kind == "temperature" else z @ cal.W_.T + cal.b_
    np.testing.assert_array_equal(cal.transform_logit(z), plain)


def test_the_ledger_of_a_temperature_below_one_reads_huge_logits():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3)) * 3
    y = np.argmax(z + rng.normal(size=z.shape) * 0.5, axis=1)
    ts = vc.TemperatureScaling(score_type="logit").fit(z, y)
    assert ts.temperature_ < 1
    z[0], y[0] = [1e308, -1e308, 5e307], 0   # right, and sure of it (a wrong one's log-loss is infinite)
    ledger = compare(z, y, ts)
    p = ts.transform(z)
    assert ledger.row("ECE").after == pytest.approx(vc.ece(p, y, bins=15), rel=1e-12)
    assert ledger.row("Brier").after == pytest.approx(vc.brier(p, y), rel=1e-12)
