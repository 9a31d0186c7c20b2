"""ONNX constants that *look* neutral survive onnxruntime's graph optimiser (round 28).

onnxruntime's ``NoopElimination`` (on by default) drops ``x * c``, ``x / c``, ``x + c`` and ``x - c``
when the double constant ``c`` reads as 1 (or 0) once cast to float: a temperature of 1 + 1e-8, a
Platt or beta slope of 1 - 1e-9, or a prior shift from a base rate of 1e-9 (the factor 1 - 1e-9) was
silently left out, and the exported model's output differed from ``transform`` by up to 2e-9.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


def _session_output(model: bytes, x: np.ndarray) -> np.ndarray:
    # the default session: every graph optimisation on, as a deployment runs it
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return session.run(["probability"], {"score": x})[0]


def _data(n: int = 400):
    rng = np.random.default_rng(28)
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < p).astype(int)
    return p, y


X = np.array([0.0, 1e-300, 1e-9, 0.05, 0.3, 0.5, 0.7, 0.95, 1 - 1e-9, 1.0])


@pytest.mark.parametrize(("cls", "field", "value"), [
    (vc.TemperatureScaling, "temperature_", 1.0 + 1e-8),
    (vc.PlattScaling, "a_", 1.0 - 1e-9),
    (vc.BetaCalibration, "a_", 1.0 + 3e-8),
    (vc.BetaCalibration, "b_", 1.0 - 2e-8),
])
def test_a_parameter_next_to_one_is_kept(cls, field, value):
    p, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's own notes are not under test
        doc = cls().fit(p, y).to_dict()
    doc["state"][field] = value
    cal = vc.load(doc)
    got = _session_output(cal.to_onnx(), X)
    np.testing.assert_allclose(got, cal.transform(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("prior", [(1e-9, 1 - 1e-9), (0.2, 1 - 1e-8), (1e-8, 0.4)])
def test_a_prior_shift_from_a_rate_next_to_zero_or_one_is_kept(prior):
    p, y = _data()
    cal = vc.PlattScaling(score_type="logit").fit(np.log(p) - np.log1p(-p), y)
    z = np.linspace(-60.0, 20.0, 161)  # every shifted probability from ~0 to ~1 among the outputs
    want = vc.adjust_prior(cal.transform(z), *prior)
    got = _session_output(cal.to_onnx(prior_shift=prior), z)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_a_multiclass_temperature_next_to_one_is_kept():
    rng = np.random.default_rng(5)
    z = rng.normal(0.0, 2.0, (300, 3))
    y = rng.integers(0, 3, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = vc.TemperatureScaling(score_type="logit").fit(z, y).to_dict()
    doc["state"]["temperature_"] = 1.0 + 1e-8
    cal = vc.load(doc)
    Z = rng.normal(0.0, 8.0, (50, 3))
    np.testing.assert_allclose(_session_output(cal.to_onnx(), Z), cal.transform(Z), rtol=0, atol=1e-12)


def test_the_model_carries_no_unused_constant():
    # a constant rewritten as its negation is not left behind (onnxruntime warns about each one)
    import onnx

    p, y = _data()
    doc = vc.PlattScaling().fit(p, y).to_dict()
    doc["state"]["a_"] = 1.0 + 1e-8
    model = onnx.load_from_string(vc.load(doc).to_onnx())
    used = {i for node in model.graph.node for i in node.input}
    assert [t.name for t in model.graph.initializer if t.name not in used] == []
