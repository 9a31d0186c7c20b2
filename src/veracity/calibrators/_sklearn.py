r"""scikit-learn interoperability: calibrate a classifier and keep the estimator contract.

:class:`CalibratedClassifier` wraps a classifier and one veracity calibrator:

* ``cv="prefit"`` — the classifier is already fitted; ``fit(X, y)`` fits only the
  calibrator, on the held-out calibration rows ``X, y`` you pass;
* ``cv=k`` (an integer, a scikit-learn splitter or a list of splits) — the classifier is cross-fitted: k clones are trained on
  k − 1 folds each, the calibrator is fit on their out-of-fold scores (seed 004:
  "with little data, fit the calibrator on out-of-fold scores"), and the
  classifier is then refit on every row;
* ``cv="auto"`` (default) — ``"prefit"`` when the classifier is already fitted,
  otherwise 5-fold cross-fitting.

Scores come from ``decision_function`` (declared as logits) when the calibrator
works on logits and the classifier has one, otherwise from ``predict_proba``.
It works in a :class:`~sklearn.pipeline.Pipeline` like any classifier.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ._base import Calibrator, _REGISTRY

_SCORE_TYPE = {"temperature": "logit", "platt": "logit", "vector": "logit", "matrix": "logit"}


def _sklearn() -> Any:
    try:
        import sklearn  # noqa: F401
    except ImportError as exc:  # pragma: no cover
        raise VeracityError(
            "CalibratedClassifier needs scikit-learn; install it with `pip install scikit-learn`"
        ) from exc
    import sklearn.base

    return sklearn


try:  # this module is imported on first use of vc.CalibratedClassifier only
    from sklearn.base import BaseEstimator, ClassifierMixin
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    raise VeracityError(
        "CalibratedClassifier needs scikit-learn; install it with `pip install scikit-learn`"
    ) from None


class CalibratedClassifier(ClassifierMixin, BaseEstimator):
    """A classifier whose ``predict_proba`` is repaired by a veracity calibrator.

    Parameters: ``estimator`` (default ``LogisticRegression()``), ``calibrator``
    (a kind name such as ``"temperature"``, ``"platt"``, ``"isotonic"``, ``"beta"``,
    ``"histogram"``, ``"venn-abers"``, ``"vector"``, ``"matrix"``, or a
    :class:`~veracity.calibrators.Calibrator` instance), ``cv`` (``"auto"``,
    ``"prefit"`` or the number of folds).

    Fitted: ``estimator_``, ``calibrator_``, ``classes_``, ``n_features_in_``.
    """

    def __init__(self, estimator: Any = None, calibrator: Any = "temperature", cv: Any = "auto"):
        self.estimator = estimator
        self.calibrator = calibrator
        self.cv = cv

    # -- helpers -----------------------------------------------------------------------
    def _make_calibrator(self) -> Calibrator:
        if isinstance(self.calibrator, Calibrator):
            return copy.deepcopy(self.calibrator)
        if isinstance(self.calibrator, str) and self.calibrator in _REGISTRY:
            cls = _REGISTRY[self.calibrator]
            return cls(score_type=_SCORE_TYPE.get(self.calibrator, "probability"))
        raise VeracityError(
            f"calibrator must be one of {sorted(_REGISTRY)} or a veracity calibrator, "
            f"got {self.calibrator!r}"
        )

    def _scores(self, est: Any, X: Any, score_type: str, n_classes: int) -> np.ndarray:
        if score_type == "logit" and hasattr(est, "decision_function"):
            s = np.asarray(est.decision_function(X), dtype=np.float64)
            if n_classes == 2 and s.ndim == 2:
                s = s[:, -1] - s[:, 0] if s.shape[1] == 2 else s[:, 0]
            return s
        P = np.asarray(est.predict_proba(X), dtype=np.float64)
        if score_type == "logit":
            logP = np.log(np.clip(P, np.finfo(np.float64).eps, 1.0))
            return logP[:, 1] - logP[:, 0] if n_classes == 2 else logP
        return P[:, 1] if n_classes == 2 else P

    # -- estimator API -------------------------------------------------------------------
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> CalibratedClassifier:
        _sklearn()
        from sklearn.base import clone
        from sklearn.exceptions import NotFittedError
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold
        from sklearn.utils.multiclass import check_classification_targets, type_of_target
        from sklearn.utils.validation import check_is_fitted, validate_data

        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        if type_of_target(y) not in ("binary", "multiclass"):
            raise ValueError(f"CalibratedClassifier supports binary and multiclass targets, "
                             f"got {type_of_target(y)}")
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(
                "CalibratedClassifier needs at least 2 classes in y; got 1 class "
                f"({self.classes_[0]!r})")
        k = self.classes_.size
        base = LogisticRegression() if self.estimator is None else self.estimator
        cal = self._make_calibrator()
        cv = self.cv
        if cv == "auto":
            try:
                check_is_fitted(base)
                cv = "prefit"
            except NotFittedError:
                cv = 5
        if isinstance(cv, str) and cv != "prefit":
            raise VeracityError(
                f"cv must be 'auto', 'prefit', an integer >= 2, a CV splitter or a list of "
                f"(train, test) splits; got {cv!r}")
        fit_kw = {} if sample_weight is None else {"sample_weight": sample_weight}
        if cv == "prefit":
            self.estimator_ = base
            scores = self._scores(base, X, cal.score_type, k)
        else:
            if hasattr(cv, "split"):
                splits = list(cv.split(X, y_enc))
            elif isinstance(cv, (int, np.integer)) and not isinstance(cv, bool) and cv >= 2:
                n_min = int(np.bincount(y_enc).min())
                folds = min(int(cv), n_min)
                if folds < 2:
                    raise ValueError(
                        f"cross-fitting needs at least 2 rows of every class; the smallest class "
                        f"has {n_min}. Pass a fitted estimator with cv='prefit'")
                splits = list(StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y_enc))
            elif isinstance(cv, (list, tuple)) and cv:
                splits = list(cv)  # an explicit list of (train, held-out) index arrays
            else:
                raise VeracityError(
                    f"cv must be 'auto', 'prefit', an integer >= 2, a CV splitter or a list of "
                    f"(train, test) splits; got {cv!r}")
            scores = None
            for train, held in splits:
                est = clone(base).fit(X[train], y[train], **(
                    {} if sample_weight is None else {"sample_weight": np.asarray(sample_weight)[train]}))
                part = self._scores(est, X[held], cal.score_type, k)
                if scores is None:
                    scores = np.empty((X.shape[0],) + part.shape[1:])
                    covered = np.zeros(X.shape[0], dtype=bool)
                scores[held] = part
                covered[held] = True
            self.estimator_ = clone(base).fit(X, y, **fit_kw)
            if not covered.all():  # explicit splits that leave rows out of every held-out fold
                scores, y_enc = scores[covered], y_enc[covered]
                if sample_weight is not None:
                    sample_weight = np.asarray(sample_weight)[covered]
        labels = y_enc.astype(np.float64) if k == 2 else y_enc
        self.calibrator_ = cal.fit(scores, labels, sample_weight=sample_weight)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted, validate_data

        check_is_fitted(self, "calibrator_")
        X = validate_data(self, X, reset=False)
        k = self.classes_.size
        p = self.calibrator_.transform(self._scores(self.estimator_, X, self.calibrator_.score_type, k))
        if k == 2:
            return np.column_stack([1.0 - p, p])
        return p

    def predict(self, X: Any) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
