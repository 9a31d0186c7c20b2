"""Round 17: multiclass calibrators on logits near ±1e308 give the limit softmax, not NaN.

W z (matrix/vector scaling, weights above 1) or z/T (temperature, T < 1) overflowed to ±inf, and
inf − inf gave NaN, which check_output then blamed on the calibrator ("faulty, not the data").
The reference is the softmax of the exact logits, computed with Python fractions (no rounding, no
overflow): differences beyond 1,000 give probability 0, the rest exp() of the exact difference.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators import _schema

BIG = 1.7e308  # within the largest double (1.797e308)


def _exact_softmax(logits: list[Fraction]) -> np.ndarray:
    top = max(logits)
    e = [0.0 if top - v > 1000 else math.exp(float(v - top)) for v in logits]
    return np.array(e) / sum(e)


def _reference_affine(W: np.ndarray, b: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = []
    for z in rows:
        logits = [sum(Fraction(float(W[k, j])) * Fraction(float(z[j])) for j in range(z.size)) + Fraction(float(b[k]))
                  for k in range(W.shape[0])]
        out.append(_exact_softmax(logits))
    return np.array(out)


ROWS = np.array([
    [1e308, 1e308, 0.0],        # W z ties for classes 0 and 1: the biases split them
    [1e308, -1e308, 5.0],
    [-1e308, -1e308, -1e308],
    [BIG, -BIG, BIG],
    [-BIG, BIG, -BIG],
    [0.5, -1.0, 2.0],           # an ordinary row: the plain formula
])


def _fitted(cls, W: np.ndarray, b: np.ndarray):
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3))
    y = np.arange(300) % 3
    cal = cls(score_type="logit").fit(z, y)
    cal.W_, cal.b_ = W, b
    return cal


def test_matrix_scaling_gives_the_limit_softmax_on_huge_logits():
    W = np.array([[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]])
    b = np.array([0.3, -0.2, 0.1])
    cal = _fitted(vc.MatrixScaling, W, b)
    p = cal.transform(ROWS)
    np.testing.assert_allclose(p, _reference_affine(W, b, ROWS), rtol=0, atol=1e-12)
    # the tie: softmax of the biases 0.3 and -0.2 alone
    assert p[0, 0] == pytest.approx(1 / (1 + math.exp(-0.5)), abs=1e-12)


def test_matrix_scaling_with_mixed_signs_in_one_row_of_w():
    # 2·1e308 − 2·1e308 overflowed inside the product itself (inf − inf), before the softmax
    W = np.array([[2.0, -2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    b = np.array([0.0, 0.0, 0.7])
    cal = _fitted(vc.MatrixScaling, W, b)
    rows = np.array([[1e308, 1e308, 0.0], [1e308, 1e308, 1e308], [-1e308, 1e308, 0.0]])
    np.testing.assert_allclose(cal.transform(rows), _reference_affine(W, b, rows), rtol=0, atol=1e-12)


def test_vector_scaling_gives_the_limit_softmax_on_huge_logits():
    W = np.diag([3.0, 3.0, 0.5])
    b = np.array([0.0, 1.0, 0.0])
    cal = _fitted(vc.VectorScaling, W, b)
    p = cal.transform(ROWS)
    np.testing.assert_allclose(p, _reference_affine(W, b, ROWS), rtol=0, atol=1e-12)
    assert p[0, :2] == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)], abs=1e-12)


def test_fitted_vector_and_matrix_scaling_with_weights_above_one_stay_finite():
    # logits 10 times too small: the fitted weights are near 10, so 1e308 overflows W z
    rng = np.random.default_rng(1)
    z = rng.normal(size=(2000, 3))
    y = (np.exp(z).cumsum(axis=1) / np.exp(z).sum(axis=1, keepdims=True) < rng.random((2000, 1))).sum(axis=1)
    for cls in (vc.VectorScaling, vc.MatrixScaling):
        cal = cls(score_type="logit").fit(z * 0.1, y)
        assert np.abs(cal.W_).max() > 2
        p = cal.transform(ROWS)
        np.testing.assert_allclose(p, _reference_affine(cal.W_, cal.b_, ROWS), rtol=0, atol=1e-9)


@pytest.mark.parametrize("T", [0.25, 0.5, 1e-3])
def test_temperature_below_one_gives_the_limit_softmax_on_huge_logits(T):
    ts = vc.TemperatureScaling(score_type="logit")
    ts.temperature_ = T
    ts.n_classes_ = 3
    rows = np.array([[1e308, 1e308, -1e308], [5e307, 5e307, 5e307], [-1.5e308, 1.5e308, 0.0],
                     [BIG, -BIG, 0.0], [1e308, 1e308, 1e308 - 2.0**980], [3.0, 1.0, 0.0]])
    p = ts.transform(rows)
    ref = np.array([_exact_softmax([Fraction(float(v)) / Fraction(T) for v in z]) for z in rows])
    np.testing.assert_allclose(p, ref, rtol=0, atol=1e-12)
    # log_proba agrees (log 0 = -inf where a class is out of reach), never NaN
    lp = ts.log_proba(rows)
    assert not np.isnan(lp).any()
    np.testing.assert_allclose(np.exp(lp), ref, rtol=0, atol=1e-12)


def test_ordinary_rows_are_unchanged():
    ts = vc.TemperatureScaling(score_type="logit")
    ts.temperature_ = 2.0
    ts.n_classes_ = 3
    # seed 003: logits (3, 1, 0) at T = 2 give 63/23/14 %
    np.testing.assert_allclose(ts.transform(np.array([[3.0, 1.0, 0.0]])), [[0.6285, 0.2312, 0.1402]], atol=1e-4)


def test_one_vs_rest_row_mapped_to_zero_everywhere_is_uniform():
    # every class's map gives 0 on that row: 0/0 would be NaN; the documented answer is uniform
    rng = np.random.default_rng(2)
    z = rng.normal(size=(600, 3))
    y = np.argmax(2 * z + rng.gumbel(size=(600, 3)), axis=1)
    cal = vc.OneVsRest(method="isotonic", score_type="logit").fit(z, y)
    p = cal.transform(np.array([[-BIG, -BIG, -BIG], [BIG, -BIG, -BIG]]))
    assert all(m._transform(np.array([-BIG]))[0] == 0.0 for m in cal.maps_)
    np.testing.assert_allclose(p[0], [1 / 3] * 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_output_check_names_the_scores_magnitude_not_a_faulty_calibrator():
    p = np.array([[np.nan, np.nan, 0.0]])
    with pytest.raises(vc.VeracityError, match=r"reach \|score\| = 1e\+308.*overflowed.*Clip or rescale") as err:
        _schema.check_output("SomeCalibrator", p, np.array([[1e308, 1e308, 0.0]]))
    assert "faulty" not in str(err.value)
    # ordinary scores: still the calibrator's fault
    with pytest.raises(vc.VeracityError, match="the calibrator is faulty, not the data"):
        _schema.check_output("SomeCalibrator", p, np.array([[1.0, 2.0, 0.0]]))
