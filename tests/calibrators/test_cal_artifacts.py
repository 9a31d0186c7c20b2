"""JSON artifacts: load(to_dict()) reproduces transform bit for bit; provenance; role checks."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import expit

import veracity as vc


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.normal(0, 1.5, n)
    y = (rng.random(n) < expit(u)).astype(float)
    return 2.0 * u + rng.normal(0, 0.5, n), y


def _multi(n=600, k=3, seed=0):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n, k))
    return 2.5 * U, (U + rng.gumbel(size=U.shape)).argmax(1)


BINARY = [
    lambda: vc.TemperatureScaling(score_type="logit"),
    lambda: vc.TemperatureScaling(score_type="logit", method="golden", iterations=40),
    lambda: vc.PlattScaling(score_type="logit", smoothing=True),
    lambda: vc.IsotonicCalibration(score_type="logit"),
    lambda: vc.IsotonicCalibration(score_type="logit", ties="strict"),
    lambda: vc.IsotonicCalibration(score_type="logit", interpolation="linear"),
    lambda: vc.HistogramBinning(score_type="logit", bins=8, strategy="quantile"),
    lambda: vc.BetaCalibration(score_type="logit"),
    lambda: vc.VennAbers(score_type="logit"),
]
MULTI = [lambda: vc.TemperatureScaling(score_type="logit"), lambda: vc.VectorScaling(score_type="logit"), lambda: vc.MatrixScaling(score_type="logit")]


@pytest.mark.parametrize("make", BINARY + MULTI)
def test_round_trip_through_json_file_is_bit_identical(make, tmp_path):
    c = make()
    multi = c.multiclass == "multiclass" or (c.kind == "temperature" and make in MULTI)
    s, y = _multi() if multi else _binary()
    c.fit(s[:300], y[:300], role="calib", metadata={"model_revision": "r7", "cohort": "web"})
    path = c.save(tmp_path / "cal.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == "veracity.calibrator" and doc["version"] == 1 and doc["kind"] == c.kind
    again = vc.load(path)
    assert type(again) is type(c)
    assert np.array_equal(again.transform(s), c.transform(s))
    assert vc.load(c.to_dict()).to_dict() == c.to_dict()
    meta = again.metadata
    for key in ("model_revision", "score_type", "fit_window", "cohort", "n_rows", "n_classes",
                "data_hash", "role", "library_version", "method", "params"):
        assert key in meta
    assert meta["model_revision"] == "r7" and meta["role"] == "calib" and meta["n_rows"] == 300
    assert meta["n_classes"] == (s.shape[1] if multi else 2)
    assert meta["library_version"] == vc.__version__


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(20, 200), st.sampled_from(range(len(BINARY))))
def test_round_trip_property_binary(seed, n, which):
    s, y = _binary(n, seed)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    c = BINARY[which]()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separable draws clamp/warn; irrelevant here
        c.fit(s, y)
    probe = np.concatenate([s, s * 1.7 + 0.3])
    assert np.array_equal(vc.load(json.loads(json.dumps(c.to_dict()))).transform(probe),
                          c.transform(probe))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(30, 150), st.integers(2, 4), st.sampled_from(range(len(MULTI))))
def test_round_trip_property_multiclass(seed, n, k, which):
    Z, y = _multi(n, k, seed)
    y[:k] = np.arange(k)  # every class present
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = MULTI[which]().fit(Z, y)
    probe = np.concatenate([Z, -0.5 * Z])
    again = vc.load(json.loads(json.dumps(c.to_dict())))
    assert np.array_equal(again.transform(probe), c.transform(probe))


def test_data_hash_changes_with_the_data_and_not_with_refits():
    s, y = _binary()
    a = vc.PlattScaling(score_type="logit").fit(s, y).metadata["data_hash"]
    b = vc.PlattScaling(score_type="logit").fit(s, y).metadata["data_hash"]
    y2 = y.copy()
    y2[0] = 1 - y2[0]
    c = vc.PlattScaling(score_type="logit").fit(s, y2).metadata["data_hash"]
    assert a == b != c and len(a) == 32


@pytest.mark.parametrize("role", ["test", "train"])
def test_fitting_on_test_or_train_rows_is_refused(role):
    s, y = _binary()
    with pytest.raises(vc.VeracityError, match=f"refusing to fit TemperatureScaling on rows whose role is '{role}'.*allow_role='{role}'"):
        vc.TemperatureScaling(score_type="logit").fit(s, y, role=role)
    roles = np.array(["calib"] * (s.size - 1) + [role])
    with pytest.raises(vc.VeracityError, match="held-out calibration rows"):
        vc.IsotonicCalibration(score_type="logit").fit(s, y, role=roles)
    c = vc.TemperatureScaling(score_type="logit").fit(s, y, role=role, allow_role=role)
    assert c.metadata["role"] == role and c.metadata["allow_role"] == role
    assert vc.load(c.to_dict()).metadata["allow_role"] == role


def test_unfitted_and_mismatched_use():
    with pytest.raises(vc.VeracityError, match=r"call fit\(scores, labels\) first"):
        vc.PlattScaling(score_type="logit").transform([0.1])
    with pytest.raises(vc.VeracityError, match="not fitted"):
        vc.PlattScaling(score_type="logit").to_dict()
    Z, y = _multi()
    c = vc.TemperatureScaling(score_type="logit").fit(Z, y)
    with pytest.raises(vc.VeracityError, match="fit on 3-class scores"):
        c.transform(Z[:, 0])


@pytest.mark.parametrize("doc, match", [
    ({"format": "something"}, "not a veracity calibrator"),
    ({"format": "veracity.calibrator", "version": 99}, "artifact version 99"),
    ({"format": "veracity.calibrator", "version": 1, "kind": "magic"}, "unknown calibrator kind 'magic'"),
    ({"format": "veracity.calibrator", "version": 1, "kind": "platt", "params": {"zap": 1}},
     "unknown parameters"),
    ({"format": "veracity.calibrator", "version": 1, "kind": "platt", "params": {}, "state": {}},
     "lacks fitted field 'a_'"),
])
def test_bad_artifacts(doc, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.load(doc)


def test_bad_artifact_files(tmp_path):
    with pytest.raises(vc.VeracityError, match="calibrator file not found"):
        vc.load(tmp_path / "missing.json")
    text = json.dumps(vc.PlattScaling().fit([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1]).to_dict())
    with pytest.raises(vc.VeracityError, match=r"this is JSON text; pass json.loads\(text\)"):
        vc.load(text)  # was a raw OSError (file name too long) or "calibrator file not found: {...}"
    with pytest.raises(vc.VeracityError, match="cannot read calibrator file x+: .*check the path"):
        vc.load("x" * 5000)  # was a raw OSError
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(vc.VeracityError, match="is not a JSON calibrator artifact"):
        vc.load(bad)
