"""Every calibrator's ONNX model, run by onnxruntime, equals ``transform()`` to 1e-12 (issue 27).

And the peer it replaces: skl2onnx converts scikit-learn's isotonic calibration by taking
the *nearest* threshold (``ArgMin |x - X|``, skl2onnx's ``_transform_isotonic``), while
scikit-learn interpolates linearly between thresholds; it has no converter at all for a
bare ``IsotonicRegression``. Both are shown below against veracity's model of the same map.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

from .conftest import expected_once

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

TOL = 1e-12


def _run(model: bytes, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return sess.run(["probability"], {"score": np.ascontiguousarray(x, dtype=np.float64)})[0]


def test_every_calibrator(calibrators, eval_data):
    extra = {}
    d = np.random.default_rng(3)
    P = eval_data["P"][:3000]
    y = d.integers(0, P.shape[1], P.shape[0])
    extra["ovr-venn-abers-P"] = (vc.VennAbers(multiclass="ovr").fit(P, y), "P", None)
    for name, (cal, col, prior) in {**calibrators, **extra}.items():
        got = _run(cal.to_onnx(prior_shift=prior), eval_data[col])
        want = expected_once(cal, col, prior, eval_data)
        got = got.reshape(want.shape)
        err = np.abs(got - want)
        bad = np.flatnonzero((err > TOL).any(axis=1) | np.isnan(got).any(axis=1))
        assert bad.size == 0, (name, bad.size, eval_data[col][bad[0]], got[bad[0]], want[bad[0]])


def test_model_signature_and_provenance(calibrators):
    cal = calibrators["isotonic-p"][0]
    model = onnx.load_from_string(cal.to_onnx())
    onnx.checker.check_model(model)
    (inp,), (out,) = model.graph.input, model.graph.output
    assert (inp.name, out.name) == ("score", "probability")
    double = onnx.TensorProto.DOUBLE
    assert inp.type.tensor_type.elem_type == double and out.type.tensor_type.elem_type == double
    assert all(t.data_type == double for t in model.graph.initializer if t.data_type in (1, 11))
    props = {p.key: p.value for p in model.metadata_props}
    assert props["kind"] == "isotonic" and props["n_rows"] == "3000" and props["fit_window"] == "2026-01..2026-03"
    assert "fit rows: 3000" in model.doc_string
    multi = onnx.load_from_string(calibrators["matrix-P"][0].to_onnx())
    dims = [d.dim_value or d.dim_param for d in multi.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["N", 4]


def test_isotonic_where_skl2onnx_is_wrong():
    """scikit-learn's isotonic calibration, converted by skl2onnx, vs veracity's model of the same map."""
    pytest.importorskip("skl2onnx")
    from skl2onnx import to_onnx as skl_to_onnx
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = (rng.random(2000) < 1 / (1 + np.exp(-(X @ [1.5, -1.0, 0.5])))).astype(int)
    clf = CalibratedClassifierCV(LogisticRegression(), method="isotonic", cv=2).fit(X, y)
    want = clf.predict_proba(X)[:, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skl_model = skl_to_onnx(clf, X[:1].astype(np.float64), options={id(clf): {"zipmap": False}})
    sess = ort.InferenceSession(skl_model.SerializeToString(), providers=["CPUExecutionProvider"])
    skl_got = sess.run(None, {sess.get_inputs()[0].name: X.astype(np.float64)})[1][:, 1]
    # nearest threshold instead of linear interpolation: far from what scikit-learn computes
    assert np.abs(skl_got - want).max() > 1e-3

    # the same isotonic map (one fold's: scores in, probabilities out), fit by both libraries
    iso = clf.calibrated_classifiers_[0].calibrators[0]
    scores = clf.calibrated_classifiers_[0].estimator.decision_function(X)
    kx, ky = iso.X_thresholds_.astype(np.float64), iso.y_thresholds_.astype(np.float64)
    ours = vc.load({"format": "veracity.calibrator", "version": 1, "kind": "isotonic",
                    "params": {"score_type": "logit", "ties": "allow", "interpolation": "linear"},
                    "state": {"knots_x_": kx.tolist(), "knots_y_": ky.tolist(), "n_unique_": kx.size,
                              "n_steps_": kx.size, "ties_created_": 0}})
    assert np.abs(ours.transform(scores) - iso.predict(scores)).max() <= TOL  # the same function
    got = _run(ours.to_onnx(), scores)
    assert np.abs(got - iso.predict(scores)).max() <= TOL

    # veracity fits it too (sklearn's tie rule and interpolation): same map, same ONNX output
    yfold = y  # any labels: both fit the same pooled-adjacent-violators problem
    sk = IsotonicRegression(out_of_bounds="clip").fit(scores, yfold)
    vv = vc.IsotonicCalibration(score_type="logit", interpolation="linear").fit(scores, yfold)
    assert np.abs(vv.transform(scores) - sk.predict(scores)).max() <= TOL
    assert np.abs(_run(vv.to_onnx(), scores) - sk.predict(scores)).max() <= TOL

    # and a bare IsotonicRegression has no skl2onnx converter at all
    with pytest.raises(Exception, match="(?i)converter|shape calculator|unable"):
        skl_to_onnx(sk, scores[:1, None].astype(np.float64))


def test_refusals(calibrators):
    with pytest.raises(VeracityError, match="call fit"):
        vc.PlattScaling().to_onnx()
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), 300)
    ovo = vc.VennAbers().fit(P, rng.integers(0, 3, 300))
    with pytest.raises(VeracityError, match="no SQL/ONNX form; exportable kinds: beta, histogram, isotonic"):
        ovo.to_onnx()
    with pytest.raises(VeracityError, match="no SQL/ONNX form"):
        ovo.to_sql()
    with pytest.raises(VeracityError, match="prior_shift old must be one number"):
        calibrators["platt-p"][0].to_onnx(prior_shift=(1.5, 0.1))
