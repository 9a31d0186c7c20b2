"""CalibratedClassifier with sample_weight and a classifier whose fit takes no weights (cross-fitted).

``vc.CalibratedClassifier(KNeighborsClassifier(), cv=3).fit(X, y, sample_weight=w)`` raised the bare
``TypeError: KNeighborsClassifier.fit() got an unexpected keyword argument 'sample_weight'``.
scikit-learn's CalibratedClassifierCV warns and uses the weights for the calibration only; so does
veracity now, with the same probabilities.
"""

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

import veracity as vc


@pytest.mark.parametrize("n_classes", [2, 3])
def test_weights_reach_the_calibrator_only_as_in_scikit_learn(n_classes):
    X, y = make_classification(n_samples=400, n_informative=4, n_classes=n_classes, random_state=0)
    w = np.random.default_rng(0).integers(1, 4, y.size).astype(float)
    splits = list(StratifiedKFold(4, shuffle=True, random_state=1).split(X, y))
    with pytest.warns(UserWarning, match=r"KNeighborsClassifier\.fit takes no sample_weight"):
        ours = vc.CalibratedClassifier(KNeighborsClassifier(), calibrator="platt", cv=splits).fit(
            X, y, sample_weight=w)
    with pytest.warns(UserWarning, match="does not appear to accept"):
        ref = CalibratedClassifierCV(KNeighborsClassifier(), method="sigmoid", cv=splits, ensemble=False).fit(
            X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    # the weights did reach the calibrator: unweighted, the map differs
    plain = vc.CalibratedClassifier(KNeighborsClassifier(), calibrator="platt", cv=splits).fit(X, y)
    assert np.abs(plain.predict_proba(X) - ours.predict_proba(X)).max() > 1e-4


def test_a_classifier_that_takes_weights_still_gets_them():
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=300, random_state=0)
    w = np.random.default_rng(1).integers(1, 4, y.size).astype(float)
    splits = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    ours = vc.CalibratedClassifier(LogisticRegression(), calibrator="isotonic", cv=splits).fit(
        X, y, sample_weight=w)
    ref = CalibratedClassifierCV(LogisticRegression(), method="isotonic", cv=splits, ensemble=False).fit(
        X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
