"""CalibratedClassifier behaves like scikit-learn's CalibratedClassifierCV (issue 10).

Situations from scikit-learn's test_calibration.py, written as our tests, plus the
oracle: CalibratedClassifierCV(ensemble=False) on the same folds.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_iris, make_classification
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC

import veracity as vc

BINARY = ["temperature", "platt", "isotonic", "beta", "histogram", "venn-abers"]


def _binary(n=600, seed=0):
    X, y = make_classification(n_samples=n, n_features=6, n_informative=4, random_state=seed)
    return X, y


# -- oracles: the same folds as CalibratedClassifierCV(ensemble=False) ---------------------
def test_isotonic_matches_calibrated_classifier_cv_on_the_same_folds():
    X, y = _binary()
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    ref = CalibratedClassifierCV(LinearSVC(), method="isotonic", cv=folds, ensemble=False).fit(X, y)
    ours = vc.CalibratedClassifier(
        LinearSVC(), calibrator=vc.IsotonicCalibration(interpolation="linear", score_type="logit"),
        cv=folds).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)


def test_sigmoid_matches_calibrated_classifier_cv_on_the_same_folds():
    X, y = _binary()
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    ref = CalibratedClassifierCV(LinearSVC(), method="sigmoid", cv=folds, ensemble=False).fit(X, y)
    ours = vc.CalibratedClassifier(
        LinearSVC(), calibrator=vc.PlattScaling(smoothing=True, score_type="logit"), cv=folds).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-5)


# -- X untouched ---------------------------------------------------------------------------
def _frame(n=400, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x1[rng.random(n) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue"], n)
    y = ((np.nan_to_num(x1) + (colour == "red") + rng.normal(0, 1, n)) > 0.5).astype(int)
    return pd.DataFrame({"x1": x1, "colour": colour}), y


def _pipe(clf=None):
    pre = ColumnTransformer([
        ("num", make_pipeline(SimpleImputer(), StandardScaler()), ["x1"]),
        ("cat", OneHotEncoder(), ["colour"]),
    ])
    return Pipeline([("pre", pre), ("clf", clf or LogisticRegression())])


@pytest.mark.parametrize("cal", BINARY)
def test_dataframe_with_strings_and_nan_reaches_the_pipeline_untouched(cal):
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no "X does not have valid feature names"
        m = vc.CalibratedClassifier(_pipe(), calibrator=cal, cv=3).fit(X, y)
        P = m.predict_proba(X)
        base = _pipe().fit(X[:300], y[:300])
        pre = vc.CalibratedClassifier(base, calibrator=cal, cv="prefit").fit(X[300:], y[300:])
        pre.predict_proba(X)
    assert P.shape == (400, 2) and np.allclose(P.sum(1), 1.0)
    assert list(m.feature_names_in_) == ["x1", "colour"] and m.n_features_in_ == 2
    assert list(pre.feature_names_in_) == ["x1", "colour"]


def test_sparse_x():
    sp = pytest.importorskip("scipy.sparse")
    X, y = _binary()
    Xs = sp.csr_matrix(X)
    a = vc.CalibratedClassifier(LogisticRegression(), calibrator="platt", cv=3).fit(Xs, y).predict_proba(Xs)
    b = vc.CalibratedClassifier(LogisticRegression(), calibrator="platt", cv=3).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_grid_search_cross_val_score_and_clone():
    X, y = _frame()
    m = vc.CalibratedClassifier(_pipe(), calibrator="isotonic", cv=3)
    assert clone(m).get_params()["calibrator"] == "isotonic"
    scores = cross_val_score(m, X, y, cv=3, scoring="neg_log_loss")
    assert scores.shape == (3,) and np.all(np.isfinite(scores))
    gs = GridSearchCV(m, {"calibrator": ["platt", "isotonic", "beta"]}, cv=3,
                      scoring="neg_brier_score").fit(X, y)
    assert gs.best_params_["calibrator"] in ("platt", "isotonic", "beta")


# -- classifiers without predict_proba, every calibrator -----------------------------------
@pytest.mark.parametrize("cal", BINARY)
@pytest.mark.parametrize("clf", [LinearSVC, lambda: SGDClassifier(random_state=0)])
def test_decision_function_only_classifiers_for_every_calibrator(clf, cal):
    X, y = _binary()
    m = vc.CalibratedClassifier(clf(), calibrator=cal, cv=3).fit(X, y)
    P = m.predict_proba(X)
    assert P.shape == (600, 2) and np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(1), 1)
    assert m.calibrator_.score_type == "logit"
    assert vc.auc(P[:, 1], y) > 0.7


# -- prefit / FrozenEstimator / classes ----------------------------------------------------
def test_prefit_on_a_class_subset_keeps_the_model_classes():
    # the case: a 3-class iris model calibrated on rows of classes 0 and 1 only
    X, y = load_iris(return_X_y=True)
    base = LogisticRegression(max_iter=1000).fit(X, y)
    m = vc.CalibratedClassifier(base, calibrator="temperature", cv="prefit").fit(X[y != 2], y[y != 2])
    assert list(m.classes_) == [0, 1, 2]
    P = m.predict_proba(X)
    assert P.shape == (150, 3)
    assert (m.predict(X[y == 2]) == 2).mean() > 0.9      # class 2 is not re-labelled


def test_prefit_rows_of_an_unknown_class_are_refused():
    X, y = load_iris(return_X_y=True)
    base = LogisticRegression(max_iter=1000).fit(X[y != 2], y[y != 2])
    with pytest.raises(vc.VeracityError, match=r"classes \[2\] that the fitted base model does not know"):
        vc.CalibratedClassifier(base, calibrator="temperature", cv="prefit").fit(X, y)


def test_frozen_estimator_is_prefit():
    frozen = pytest.importorskip("sklearn.frozen")
    X, y = _binary()
    base = LogisticRegression().fit(X[:300], y[:300])
    m = vc.CalibratedClassifier(frozen.FrozenEstimator(base), calibrator="platt", cv=5).fit(X[300:], y[300:])
    ref = vc.CalibratedClassifier(base, calibrator="platt", cv="prefit").fit(X[300:], y[300:])
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X))


def test_folds_lacking_a_class():
    # scikit-learn's test_calibration_less_classes: every training fold misses a class
    X = np.random.default_rng(0).normal(size=(10, 5))
    y = np.arange(10)
    folds = [(np.setdiff1d(np.arange(10), [i]), np.array([i])) for i in range(10)]
    m = vc.CalibratedClassifier(LogisticRegression(), calibrator="temperature", cv=folds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X, y)
    P = m.predict_proba(X)
    assert P.shape == (10, 10) and np.allclose(P.sum(1), 1.0)


def test_string_class_labels_binary():
    X, y = _binary()
    ys = np.where(y == 1, "spam", "ham")
    m = vc.CalibratedClassifier(LogisticRegression(), calibrator="isotonic", cv=3).fit(X, ys)
    assert list(m.classes_) == ["ham", "spam"]
    assert set(m.predict(X)) <= {"ham", "spam"}
    ref = vc.CalibratedClassifier(LogisticRegression(), calibrator="isotonic", cv=3).fit(X, y)
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X))
