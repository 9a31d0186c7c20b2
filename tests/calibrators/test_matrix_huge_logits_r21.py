"""Vector and matrix scaling on logits of extreme size (1e200, 1e-200, 1e300): the map W z + b is affine
in z, so a fit on z / s (s a power of two) with W = W' / s is the same family, and it is what the fit
does where the typical |z - max_k z| and |z| lie outside [1e-3, 1e3] (the rule temperature scaling
reads). Before, L-BFGS
stayed at the identity map on logits of 1e200 (training NLL 171 against log 3 = 1.10 for the uniform
predictor) and barely moved from it on logits of 1e-200 (NLL 1.095 against 0.60 for temperature)."""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

from .conftest import informative_logits

KINDS = [vc.MatrixScaling, vc.VectorScaling]
SCALES = [1e200, 1e300, 1e-200, 1e-300]


_data = informative_logits


def _nll(p: np.ndarray, y: np.ndarray) -> float:
    return float(-np.mean(np.log(p[np.arange(y.size), y])))


def _power_of_two_scale(z: np.ndarray) -> float:
    """The documented rule (temperature scaling's): the median nonzero |z - max_k z|, rounded up to a power
    of two."""
    a = np.abs(z - z.max(axis=1, keepdims=True)).ravel()
    return float(2.0 ** np.frexp(np.median(a[a > 0]))[1])


@pytest.mark.parametrize("cls", KINDS)
@pytest.mark.parametrize("scale", SCALES)
def test_no_worse_than_uniform_or_temperature(cls, scale):
    z, y = _data()
    Z = z * scale
    cal = cls(score_type="logit").fit(Z, y)
    got = _nll(cal.transform(Z), y)
    temperature = _nll(vc.TemperatureScaling(score_type="logit").fit(Z, y).transform(Z), y)
    assert cal.converged_
    assert got < np.log(3)
    assert got <= temperature + 1e-9
    # and as good as the same calibrator on logits of ordinary size (the same model)
    assert got == pytest.approx(_nll(cls(score_type="logit").fit(z, y).transform(z), y), abs=2e-3)


@pytest.mark.parametrize("cls", KINDS)
@pytest.mark.parametrize("scale", SCALES)
def test_is_the_fit_on_z_over_s(cls, scale):
    z, y = _data()
    Z = z * scale
    s = _power_of_two_scale(Z)
    cal = cls(score_type="logit").fit(Z, y)
    ref = cls(score_type="logit").fit(Z / s, y)  # ordinary size: fit as it is
    np.testing.assert_array_equal(cal.W_ * s, ref.W_)
    np.testing.assert_array_equal(cal.b_, ref.b_)
    np.testing.assert_allclose(cal.transform(Z), ref.transform(Z / s), rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", KINDS)
def test_artifact_and_frame_fit(cls):
    pd = pytest.importorskip("pandas")
    z, y = _data()
    Z = z * 1e200
    cal = cls(score_type="logit").fit(Z, y)
    again = vc.load(cal.to_dict())
    np.testing.assert_array_equal(again.transform(Z), cal.transform(Z))
    frame = pd.DataFrame({"z0": Z[:, 0], "z1": Z[:, 1], "z2": Z[:, 2], "y": y})
    on_frame = cls(score_type="logit").fit(frame, score=["z0", "z1", "z2"], label="y")
    np.testing.assert_array_equal(on_frame.W_, cal.W_)
    np.testing.assert_array_equal(on_frame.b_, cal.b_)


@pytest.mark.parametrize("cls", KINDS)
def test_export_equals_transform(cls):
    from veracity.export import to_onnx, to_sql

    z, y = _data()
    Z = z * 1e200
    cal = cls(score_type="logit").fit(Z, y)
    want = cal.transform(Z)
    names = ["s_0", "s_1", "s_2"]
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER, s_0 REAL, s_1 REAL, s_2 REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(i, *map(float, r)) for i, r in enumerate(Z)])
    select = f"SELECT {to_sql(cal, names, dialect='sqlite')} FROM t ORDER BY id"
    got = np.array(con.execute(select).fetchall(), dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(to_onnx(cal), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, {"score": Z})[0], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", KINDS)
def test_mostly_huge_rows_among_ordinary_ones(cls):
    """60% of the rows at 1e200, the rest of ordinary size: the typical logit is huge, the fit runs on z/s
    (the ordinary rows then read as near-uniform, the best one affine map can do for both)."""
    z, y = _data()
    Z = z.copy()
    Z[np.random.default_rng(1).random(y.size) < 0.6] *= 1e200
    cal = cls(score_type="logit").fit(Z, y)
    got = _nll(cal.transform(Z), y)
    assert got < np.log(3)
    assert got <= _nll(vc.TemperatureScaling(score_type="logit").fit(Z, y).transform(Z), y) + 1e-9


def test_a_minority_of_huge_rows():
    """A tenth of the rows at 1e100 leaves the typical logit ordinary (no rescale by the rule above): the
    objective is minimised again on those rows' scale (see test_matrix_minority_r22.py for the optimum)."""
    z, y = _data()
    Z = z.copy()
    Z[np.random.default_rng(1).random(y.size) < 0.1] *= 1e100
    cal = vc.MatrixScaling(score_type="logit").fit(Z, y)
    assert _nll(cal.transform(Z), y) < np.log(3)


@pytest.mark.parametrize("cls", KINDS)
# (1 + 1e-6 x, fitted as it is before session 23, is now rescaled after the common offset is taken out: see
# test_matrix_far_offset_r23.py, where an offset leaves the fit unchanged)
@pytest.mark.parametrize("offset, spread", [(1e8, 1.0)])
def test_a_common_offset_is_not_rescaled(cls, offset, spread):
    """W z + b does not ignore a shift of z: logits with a common offset far from their differences' size
    (log-likelihoods 1e8 + x; 1 + 1e-6 x) are fitted as they are, as a fit on them with the rule off."""
    z, y = _data()
    Z = offset + spread * z
    with pytest.MonkeyPatch.context() as mp:
        from veracity.calibrators import _matrix

        mp.setattr(_matrix, "_input_scale", lambda Z: 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # L-BFGS may stop early on these: the point is the same answer
            ref = cls(score_type="logit").fit(Z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = cls(score_type="logit").fit(Z, y)
    np.testing.assert_array_equal(cal.W_, ref.W_)
    np.testing.assert_array_equal(cal.b_, ref.b_)


@pytest.mark.parametrize("cls", KINDS)
def test_mostly_tiny_rows_among_ordinary_ones(cls):
    """60% of the rows at 1e-200: dividing by their scale would make the ordinary rows 1e200 (L-BFGS then
    failed: NLL inf); fitted as they are, the tiny rows read as near-uniform and the others are calibrated."""
    z, y = _data()
    Z = z.copy()
    tiny = np.random.default_rng(1).random(y.size) < 0.6
    Z[tiny] *= 1e-200
    cal = cls(score_type="logit").fit(Z, y)
    p = cal.transform(Z)
    assert _nll(p, y) < np.log(3)
    assert _nll(p[~tiny], y[~tiny]) < 0.7  # the ordinary rows: 0.60 when fitted alone
    np.testing.assert_allclose(p[tiny], 1 / 3, atol=0.05)
