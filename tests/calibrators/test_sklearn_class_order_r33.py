"""CalibratedClassifier(cv="prefit") on a classifier whose ``classes_`` are not sorted (a wrapper that keeps
its own class order). The labels were encoded with ``np.searchsorted`` on those classes, which needs them
sorted: two classes ["b", "a"] were refused ("labels must be binary 0/1 ... values such as 2"), and three
classes in the order ["c", "a", "b"] had their labels matched to the wrong score columns -- a silently wrong
calibration. The result must be the sorted model's, its columns in the classifier's order."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import veracity as vc


class Reordered(ClassifierMixin, BaseEstimator):
    """A fitted LogisticRegression whose classes_ (and score columns) come in the order ``perm``."""

    def __init__(self, model=None, perm=None):
        self.model = model
        self.perm = perm

    def fit(self, X, y):  # pragma: no cover - used prefit
        return self

    def predict_proba(self, X):
        return self.model.predict_proba(X)[:, self.perm]

    def decision_function(self, X):
        d = self.model.decision_function(X)
        return -d if d.ndim == 1 and list(self.perm) == [1, 0] else (d if d.ndim == 1 else d[:, self.perm])


@pytest.mark.parametrize("n_classes, perm", [(2, [1, 0]), (3, [2, 0, 1]), (3, [1, 2, 0])])
@pytest.mark.parametrize("calibrator", ["temperature", "platt", "isotonic", "venn-abers"])
def test_unsorted_classes_calibrate_as_the_sorted_model(n_classes, perm, calibrator):
    X, y = make_classification(n_samples=900, n_informative=4, n_classes=n_classes, random_state=0)
    y = np.array(["a", "b", "c"])[y]
    base = LogisticRegression().fit(X[:300], y[:300])
    sorted_fit = vc.CalibratedClassifier(base, calibrator=calibrator, cv="prefit").fit(X[300:600], y[300:600])
    other = Reordered(base, np.array(perm))
    other.classes_ = base.classes_[perm]  # fitted: scikit-learn's check reads trailing-underscore names
    fit = vc.CalibratedClassifier(other, calibrator=calibrator, cv="prefit").fit(X[300:600], y[300:600])
    assert list(fit.classes_) == list(base.classes_[perm])
    np.testing.assert_allclose(fit.predict_proba(X[600:]), sorted_fit.predict_proba(X[600:])[:, perm],
                               atol=1e-12)
    top = np.sort(fit.predict_proba(X[600:]), axis=1)
    clear = top[:, -1] > top[:, -2]  # isotonic steps tie classes; argmax then takes the first column
    assert np.array_equal(fit.predict(X[600:])[clear], sorted_fit.predict(X[600:])[clear])
