"""One-vs-rest multiclass form of every binary calibrator (issue 10)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import softmax

import veracity as vc

OVR = ["platt", "isotonic", "beta", "histogram", "venn-abers"]


def _problem(n=900, k=4, seed=0):
    rng = np.random.default_rng(seed)
    Z = 2.5 * rng.normal(size=(n, k))
    y = (Z / 2.5 + rng.gumbel(size=(n, k))).argmax(1)
    return softmax(Z, axis=1), y


@pytest.mark.parametrize("method", OVR)
def test_every_binary_calibrator_fits_k_columns_and_round_trips(method, tmp_path):
    P, y = _problem()
    params = {"multiclass": "ovr"} if method == "venn-abers" else {}   # its default is pairwise
    c = vc.calibrators.METHODS[method](**params).fit(P[:600], y[:600])
    Q = c.transform(P[600:])
    assert Q.shape == (300, 4) and np.allclose(Q.sum(1), 1.0) and np.all(Q >= 0)
    path = c.save(tmp_path / "c.json")
    back = vc.load(path)
    assert back.kind == "one-vs-rest" and back.method == method
    np.testing.assert_array_equal(back.transform(P[600:]), Q)
    assert vc.nll(Q, y[600:]) < vc.nll(P[600:], y[600:])   # the raw scores are over-confident


def test_isotonic_one_vs_rest_matches_calibrated_classifier_cv():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.datasets import make_classification
    from sklearn.frozen import FrozenEstimator
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(1200, n_features=8, n_informative=5, n_classes=3, random_state=0)
    base = GaussianNB().fit(X[:600], y[:600])               # predict_proba only
    ref = CalibratedClassifierCV(FrozenEstimator(base), method="isotonic").fit(X[600:], y[600:])
    ours = vc.OneVsRest(method="isotonic", method_params={"interpolation": "linear"}).fit(
        base.predict_proba(X[600:]), y[600:])
    np.testing.assert_allclose(ours.transform(base.predict_proba(X)), ref.predict_proba(X),
                               atol=1e-12)


def test_a_class_missing_from_the_calibration_rows_is_named():
    P, y = _problem()
    y = np.where(y == 3, 0, y)
    with pytest.raises(vc.VeracityError, match="class 3 has none"):
        vc.IsotonicCalibration().fit(P, y)


def test_a_calibrator_object_as_method_says_how_to_pass_it():
    P, y = _problem(n=60)
    with pytest.raises(vc.VeracityError, match=r"pass method='isotonic' with method_params=\{\.\.\.\}"):
        vc.OneVsRest(method=vc.IsotonicCalibration(ties="break")).fit(P, y)
    with pytest.raises(vc.VeracityError, match="method must be one of platt, isotonic"):
        vc.OneVsRest(method=vc.TemperatureScaling()).fit(P, y)  # no one-vs-rest form


def test_cli_fit_multiclass_isotonic(tmp_path):
    from veracity.cli import main

    P, y = _problem(300, 3)
    f = tmp_path / "m.csv"
    f.write_text("p0,p1,p2,label\n" + "\n".join(
        f"{float(a)!r},{float(b)!r},{float(1.0 - a - b)!r},{c}" for (a, b, _), c in zip(P, y)) + "\n")
    out = tmp_path / "c.json"
    assert main(["fit", str(f), "--score", "p0,p1,p2", "--method", "isotonic", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["kind"] == "one-vs-rest"


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**31 - 1), st.floats(0.1, 5.0), st.floats(-3.0, 3.0))
def test_rows_sum_to_one_and_argmax_is_kept_under_increasing_maps(k, seed, a, b):
    rng = np.random.default_rng(seed)
    P = softmax(3.0 * rng.normal(size=(50, k)), axis=1)
    c = vc.OneVsRest(method="platt", method_params={"on_reversed": "allow"})
    y = np.arange(50) % k
    c.fit(P, y)
    for m in c.maps_:                    # the same increasing map for every class
        m.a_, m.b_ = a, b
    Q = c.transform(P)
    assert np.allclose(Q.sum(1), 1.0)
    assert np.array_equal(Q.argmax(1), P.argmax(1))
    # and any fitted maps keep rows summing to 1
    fitted = vc.OneVsRest(method="isotonic").fit(P, y).transform(P)
    assert np.allclose(fitted.sum(1), 1.0)


@pytest.mark.parametrize("kind", ["softmax", "logit", "mixed", "ties", "zeros"])
def test_sort_order_sorts_skewed_and_signed_scores(kind):
    """The bucketed sort (large inputs) equals a plain sort on every shape of data, including
    one class's softmax column (crowded near 0: bucketed by bit pattern), signed logits,
    ±0.0 and heavy ties."""
    from veracity.calibrators._isotonic import sort_order

    rng = np.random.default_rng(11)
    n = 80_000
    x = {
        "softmax": softmax(2 * rng.normal(size=(n, 10)), axis=1)[:, 3],
        "logit": np.log(softmax(3 * rng.normal(size=(n, 10)), axis=1)[:, 0]),
        "mixed": rng.standard_cauchy(n),
        "ties": np.round(rng.random(n) ** 8, 3),
        "zeros": np.where(rng.random(n) < 0.5, 0.0, -0.0) * rng.integers(0, 2, n) + rng.random(n) ** 30,
    }[kind]
    order = sort_order(x)
    np.testing.assert_array_equal(np.sort(order), np.arange(n))   # a permutation
    np.testing.assert_array_equal(x[order], np.sort(x))


def test_isotonic_one_vs_rest_matches_sklearn_on_large_skewed_columns():
    """Oracle at a size where the fast sort runs (each class column crowded near 0)."""
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(5)
    n, k = 60_000, 5
    U = rng.normal(size=(n, k))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    P = softmax(2.5 * U, axis=1)
    ours = vc.OneVsRest(method="isotonic", method_params={"interpolation": "linear"}).fit(P, y).transform(P)
    Q = np.column_stack([IsotonicRegression(out_of_bounds="clip").fit(P[:, j], y == j).predict(P[:, j])
                         for j in range(k)])
    np.testing.assert_array_equal(ours, Q / Q.sum(axis=1, keepdims=True))   # scikit-learn's row sum
