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

Like scikit-learn's ``CalibratedClassifierCV``: X reaches the base estimator
untouched (DataFrames, strings, NaN, sparse -- whatever its pipeline accepts);
``classes_``, ``n_features_in_`` and ``feature_names_in_`` are the base model's.
Scores come from ``decision_function`` (declared as logits) for the logit-scale
calibrators, from ``predict_proba`` for the others, and from whichever of the two
the classifier has when it lacks one (``LinearSVC``, ``SGDClassifier``), for every
calibrator. ``"platt"`` and ``"isotonic"`` are scikit-learn's ``method="sigmoid"`` and
``method="isotonic"`` exactly: Platt's smoothed targets, linear interpolation between
isotonic knots, and scikit-learn's feature -- ``decision_function`` when the classifier has
one, else the positive-class column of ``predict_proba`` (all K columns for multiclass)
taken as it is, as a ranking score (``score_type="score"``): an uncalibrated
``predict_proba`` (a forest's vote share) has no probability reading yet. A calibrator
instance declared ``score_type="score"`` takes its feature by the same rule.
With ``cv="prefit"`` (or a ``FrozenEstimator``) the classes are the
base model's, and calibration rows of a class it does not know are refused; a
cross-fitting fold that lacks a class scores that class as least likely.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..core._compat import positional_options
from ..core._validation import VeracityError
from ._base import Calibrator, _REGISTRY, warn

#: calibrators that work on the logit scale: fed ``decision_function`` when there is one.
_LOGIT_FIRST = {"temperature", "platt", "vector", "matrix"}
#: scikit-learn's two methods under their veracity names: its options and its feature (the raw
#: ``decision_function``, else the raw ``predict_proba`` declared a ranking score).
_SKLEARN_METHODS: dict[str, dict[str, Any]] = {"platt": {"smoothing": True},
                                               "isotonic": {"interpolation": "linear"}}


def _positions(classes: np.ndarray, values: Any) -> np.ndarray:
    """The index of each of ``values`` in ``classes``, whatever their order: a prefit classifier's
    ``classes_`` need not be sorted (a wrapper may keep its own order), and ``np.searchsorted`` on unsorted
    classes gave wrong indices -- two classes ["b", "a"] encoded "a" as 2 ("labels must be binary ... values
    such as 2"), three could be mapped onto one another silently. Each value is in ``classes`` (checked)."""
    order = np.argsort(classes, kind="stable")
    return np.asarray(order[np.searchsorted(classes, values, sorter=order)])


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

    @positional_options("calibrator", "cv")
    def __init__(self, estimator: Any = None, *, calibrator: Any = "temperature", cv: Any = "auto"):
        self.estimator = estimator
        self.calibrator = calibrator
        self.cv = cv

    # -- helpers -----------------------------------------------------------------------
    def _make_calibrator(self) -> Calibrator:
        if isinstance(self.calibrator, Calibrator):
            return copy.deepcopy(self.calibrator)
        if isinstance(self.calibrator, str) and self.calibrator in _REGISTRY:
            return _REGISTRY[self.calibrator](**_SKLEARN_METHODS.get(self.calibrator, {}))
        raise VeracityError(
            f"calibrator must be one of {sorted(_REGISTRY)} or a veracity calibrator, "
            f"got {self.calibrator!r}"
        )

    def _response(self, est: Any, cal: Calibrator) -> str:
        """``"decision_function"`` (logits) or ``"predict_proba"`` for this pair.

        Whatever the estimator lacks is never asked for; otherwise a calibrator
        instance's own ``score_type`` decides, and a named logit-scale method
        (temperature, Platt, vector, matrix) takes ``decision_function``.
        """
        has_df = hasattr(est, "decision_function")
        has_pp = hasattr(est, "predict_proba")
        if not has_df and not has_pp:
            raise VeracityError(
                f"{type(est).__name__} has neither predict_proba nor decision_function; "
                "CalibratedClassifier needs a classifier that scores its rows")
        if not has_pp:
            return "decision_function"
        if not has_df:
            return "predict_proba"
        if self._raw_feature(cal):  # scikit-learn's rule: decision_function when there is one
            return "decision_function"
        if isinstance(self.calibrator, Calibrator):
            return "decision_function" if cal.score_type == "logit" else "predict_proba"
        return "decision_function" if cal.kind in _LOGIT_FIRST else "predict_proba"

    def _raw_feature(self, cal: Calibrator) -> bool:
        """Whether ``cal`` takes scikit-learn's raw feature (a ranking score, ``score_type="score"``)."""
        if isinstance(self.calibrator, Calibrator):
            return cal.score_type == "score"
        return self.calibrator in _SKLEARN_METHODS

    def _scores(self, est: Any, X: Any, response: str) -> np.ndarray:
        """Scores of ``est`` on X in the columns of ``self.classes_`` ((N,) for binary)."""
        k = self.classes_.size
        own = np.asarray(getattr(est, "classes_", self.classes_))
        raw = np.asarray(getattr(est, response)(X), dtype=np.float64)
        if response == "predict_proba":
            P = np.zeros((raw.shape[0], k))
            P[:, _positions(self.classes_, own)] = raw
            return P[:, 1] if k == 2 else P
        if k == 2:
            s = raw if raw.ndim == 1 else raw[:, -1] - raw[:, 0]
            if own.size == 1:  # pragma: no cover - a one-class fold cannot fit a classifier
                s = np.zeros(raw.shape[0])
            return s
        if raw.ndim == 1:  # a fold that saw only two of the classes
            raw = np.column_stack([-raw, raw])
        Z = np.full((raw.shape[0], k), float(raw.min()) - 10.0)  # unseen classes: least likely
        Z[:, _positions(self.classes_, own)] = raw
        return Z

    # -- estimator API -------------------------------------------------------------------
    def fit(self, X: Any, y: Any, sample_weight: Any = None, **fit_params: Any) -> CalibratedClassifier:
        """Fit; X is passed to the base estimator untouched (DataFrames, strings, NaN, sparse)."""
        _sklearn()
        from sklearn.base import clone
        from sklearn.exceptions import NotFittedError
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold
        from sklearn.utils import _safe_indexing, indexable
        from sklearn.utils.multiclass import check_classification_targets, type_of_target
        from sklearn.utils.validation import _num_samples, check_consistent_length, check_is_fitted

        from sklearn.utils.validation import _check_y

        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X, y = indexable(X, y)
        y = _check_y(y, estimator=self)
        if _num_samples(X) == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, ...)) while a minimum of "
                             "1 is required by CalibratedClassifier")
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        check_classification_targets(y)
        if type_of_target(y) not in ("binary", "multiclass"):
            raise ValueError(f"CalibratedClassifier supports binary and multiclass targets, "
                             f"got {type_of_target(y)}")
        n = _num_samples(X)
        check_consistent_length(X, y)
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            check_consistent_length(y, sample_weight)
        base = LogisticRegression() if self.estimator is None else self.estimator
        cal = self._make_calibrator()
        cv = self.cv
        if type(base).__name__ == "FrozenEstimator":
            cv = "prefit"
        if isinstance(cv, str) and cv == "auto":
            try:
                check_is_fitted(base)
                cv = "prefit"
            except NotFittedError:
                cv = 5
        if isinstance(cv, str) and cv != "prefit":
            raise VeracityError(
                f"cv must be 'auto', 'prefit', an integer >= 2, a CV splitter or a list of "
                f"(train, test) splits; got {cv!r}")
        if isinstance(cv, str):  # prefit: the classes are the base model's
            check_is_fitted(base)
            self.classes_ = np.asarray(base.classes_)
            unknown = np.setdiff1d(np.unique(y), self.classes_)
            if unknown.size:
                raise VeracityError(
                    f"the calibration rows hold classes {unknown.tolist()[:5]} that the fitted "
                    f"base model does not know (its classes_: {self.classes_.tolist()[:10]}); "
                    "calibrate on rows of the model's own classes, or refit the model")
        else:
            self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(
                "CalibratedClassifier needs at least 2 classes in y; got 1 class "
                f"({self.classes_[0]!r})")
        y_enc = _positions(self.classes_, y)
        k = self.classes_.size
        response = self._response(base, cal)
        if self._raw_feature(cal):  # the raw feature: predict_proba as it is (a declared "score" stays one)
            cal.score_type = "score" if cal.score_type == "score" or response == "predict_proba" else "logit"
        else:
            cal.score_type = "logit" if response == "decision_function" else "probability"
        fit_kw = dict(fit_params)
        if isinstance(cv, str):
            self.estimator_ = base
            scores = self._scores(base, X, response)
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
                splits = list(StratifiedKFold(folds, shuffle=True, random_state=0).split(
                    np.zeros(n), y_enc))
            elif isinstance(cv, (list, tuple)) and cv:
                splits = list(cv)  # an explicit list of (train, held-out) index arrays
            else:
                raise VeracityError(
                    f"cv must be 'auto', 'prefit', an integer >= 2, a CV splitter or a list of "
                    f"(train, test) splits; got {cv!r}")
            scores = None
            covered = np.zeros(n, dtype=bool)
            from inspect import signature

            # scikit-learn's rule: weights reach the base estimator's fit only where it takes them (a
            # KNeighborsClassifier does not: fit(..., sample_weight=) raised its bare TypeError here)
            base_weighted = sample_weight is not None and "sample_weight" in signature(base.fit).parameters
            if sample_weight is not None and not base_weighted:
                warn(f"CalibratedClassifier: {type(base).__name__}.fit takes no sample_weight, so the "
                     "weights are used by the calibrator only; the cross-fitted classifiers are trained "
                     "unweighted (as scikit-learn's CalibratedClassifierCV does). Pass a classifier that "
                     "takes sample_weight to weight its training too")
            for train, held in splits:
                kw = dict(fit_kw)
                if base_weighted:
                    kw["sample_weight"] = sample_weight[train]
                est = clone(base).fit(_safe_indexing(X, train), y[train], **kw)
                part = self._scores(est, _safe_indexing(X, held), response)
                if scores is None:
                    scores = np.empty((n,) + part.shape[1:])
                scores[held] = part
                covered[held] = True
            if scores is None:
                raise VeracityError(f"cv gave no (train, held-out) splits; got {cv!r}")
            kw = dict(fit_kw)
            if base_weighted:
                kw["sample_weight"] = sample_weight
            self.estimator_ = clone(base).fit(X, y, **kw)
            if not covered.all():  # explicit splits that leave rows out of every held-out fold
                scores, y_enc = scores[covered], y_enc[covered]
                if sample_weight is not None:
                    sample_weight = sample_weight[covered]
        self._response_ = response
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, attr):
                setattr(self, attr, getattr(self.estimator_, attr))
        labels = y_enc.astype(np.float64) if k == 2 else y_enc
        self.calibrator_ = cal.fit(scores, labels, sample_weight=sample_weight)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Calibrated class probabilities, columns in the order of ``classes_``."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "calibrator_")
        p = self.calibrator_.transform(self._scores(self.estimator_, X, self._response_))
        if self.classes_.size == 2:
            return np.column_stack([1.0 - p, p])
        return p

    def predict(self, X: Any) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        try:  # X goes to the base estimator untouched: its input tags are ours
            from sklearn.linear_model import LogisticRegression
            from sklearn.utils import get_tags

            inner = get_tags(LogisticRegression() if self.estimator is None else self.estimator)
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
            tags.input_tags.string = inner.input_tags.string
            tags.input_tags.categorical = inner.input_tags.categorical
        except Exception:  # pragma: no cover - an estimator without tags
            pass
        return tags
