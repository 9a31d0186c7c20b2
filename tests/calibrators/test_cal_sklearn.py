"""scikit-learn interoperability: CalibratedClassifier is a real estimator."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import veracity as vc


@pytest.mark.filterwarnings("ignore:TemperatureScaling:UserWarning")  # tiny check data clamp tau
@parametrize_with_checks([vc.CalibratedClassifier(cv=2)])
def test_sklearn_estimator_checks(estimator, check):
    # scikit-learn's own contract tests (fit/predict shapes, cloning, pickling by sklearn,
    # NaN rejection, sample weights, one-class errors, ...)
    check(estimator)


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 1, n) > 0).astype(int)
    return X, y


def test_prefit_calibrates_held_out_rows_only():
    X, y = _data()
    roles = vc.split(y, roles={"train": 0.5, "calib": 0.25, "test": 0.25}, random_state=0)
    base = LogisticRegression(C=1e-3).fit(X[roles == "train"], y[roles == "train"])  # under-confident
    m = vc.CalibratedClassifier(base, calibrator="temperature", cv="prefit").fit(X[roles == "calib"], y[roles == "calib"])
    assert m.estimator_ is base and m.calibrator_.temperature_ < 1.0
    te = roles == "test"
    s = base.decision_function(X[te])
    assert np.allclose(m.predict_proba(X[te])[:, 1], m.calibrator_.transform(s))
    assert np.array_equal(m.predict(X[te]), base.predict(X[te]))  # temperature keeps decisions
    assert vc.nll(m.predict_proba(X[te])[:, 1], y[te]) < vc.nll(base.predict_proba(X[te])[:, 1], y[te])


def test_cross_fit_pipeline_multiclass_and_string_labels():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(900, 4))
    y = np.array(["a", "b", "c"])[(X[:, :3] + rng.gumbel(size=(900, 3))).argmax(1)]
    for cal in ("temperature", "vector", "matrix"):
        pipe = make_pipeline(StandardScaler(), vc.CalibratedClassifier(LogisticRegression(), calibrator=cal, cv=3))
        pipe.fit(X, y)
        P = pipe.predict_proba(X)
        assert P.shape == (900, 3) and np.allclose(P.sum(1), 1.0)
        assert set(pipe.predict(X)) <= {"a", "b", "c"}
    for cal in ("platt", "isotonic", "beta", "histogram", "venn-abers"):  # one-vs-rest; VA pairwise
        m = vc.CalibratedClassifier(LogisticRegression(), calibrator=cal, cv=3).fit(X, y)
        P = m.predict_proba(X)
        assert P.shape == (900, 3) and np.allclose(P.sum(1), 1.0)
        kind = "venn-abers-ovo" if cal == "venn-abers" else "one-vs-rest"
        assert m.calibrator_.to_dict()["kind"] == kind


def test_calibrator_instance_and_bad_names():
    X, y = _data(600)
    m = vc.CalibratedClassifier(calibrator=vc.BetaCalibration(), cv=4).fit(X, y)
    assert m.calibrator_.kind == "beta" and m.calibrator_ is not m.calibrator
    with pytest.raises(vc.VeracityError, match="calibrator must be one of"):
        vc.CalibratedClassifier(calibrator="magic").fit(X, y)
    with pytest.raises(vc.VeracityError, match="cv must be"):
        vc.CalibratedClassifier(cv="sometimes").fit(X, y)
