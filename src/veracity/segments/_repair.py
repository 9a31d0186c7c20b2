r"""``vc.SegmentCalibration``: a global calibrator plus per-segment corrections, partially pooled.

The model, on the logit scale:

.. math:: \operatorname{logit} \hat p_i = \operatorname{logit} g(s_i) + \sum_{S} \delta_{S,\,k_S(i)}

with g the global calibrator (``base``, any veracity calibrator name) and one
correction :math:`\delta_{S,k}` per segment k of every grouping set S of the
family (each feature, each pair … up to ``depth``; levels as :func:`vc.segments`
finds them). Fitting is backfitting over the grouping sets; for each set, the
segment's raw correction is its maximum-likelihood logit shift :math:`\hat\delta_k`
(Newton steps given everything else) with sampling variance
:math:`v_k = \sum w^2 p(1-p) / (\sum w\,p(1-p))^2`, and **empirical Bayes** shrinks it
toward zero:

.. math:: \delta_k = \hat\delta_k\,\frac{\tau_S^2}{\tau_S^2 + v_k},\qquad
          \sum_k \frac{\hat\delta_k^2}{v_k + \tau_S^2} = K \ \text{(or } \tau_S^2 = 0\text{)}

(Paule and Mandel's moments across the set's K segments, :func:`_tau2`): a 40-row segment (large
:math:`v_k`) barely moves, a 40,000-row one moves fully, and a set whose segments
are all calibrated (:math:`\tau^2 = 0`) moves nothing. Rows that share every
feature's level get the same shift, so their order is preserved.

Weights. The segments are the ones :func:`vc.segments` finds on the same rows and
weights (:func:`~._api.specs_from_arrays`): numeric features cut where each bin holds
an equal share of the weight (integer weights cut as the rows repeated), levels pooled
below ``min_count`` *rows*. The shrinkage reads weights as importance (survey, inverse
propensity) weights, as the audit's test does (its variance :math:`\sum w^2 p(1-p)`, its
effective sizes :math:`(\sum w)^2/\sum w^2`): :math:`v_k` is unchanged when every weight is
multiplied by c, so k rows of weight 10 are k observations, not 10k. Integer weights are
therefore **not** read as repeated rows here: repeating every row 10 times gives
:math:`v_k` ten times smaller, hence less shrinkage, than weights of 10 (whose corrections
are those of no weights). Pass the repeated rows themselves when weights are frequency counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..calibrators import _schema
from ..calibrators._base import (_REGISTRY, Calibrator, frame_fit_metadata, load, probability_to_logit,
                                 refuse_role_column, role_rows, warn)
from ..core._special import expit
from ..core._text import count_noun
from ..core._validation import VeracityError, VeracityWarning, check_same_index, check_weights, to_numpy
from ._family import MAX_SEGMENTS, check_family_size, feature_sets, refuse_label_feature, strides
from ._spec import FeatureSpec

_ROUNDS = 6
#: the most Newton steps of a segment's shift; they stop when no step moves one by _TOL (4 steps, as before,
#: stopped 0.2 short of a 4.7-logit shift: tau^2 9 % low, the segment under-corrected)
_NEWTON = 60
_TOL = 1e-10
_CLAMP = 8.0


class SegmentCalibration(Calibrator):
    r"""Global calibrator (``base``) plus per-segment logit corrections shrunk by empirical Bayes.

    ``fit(scores, labels, features={"region": ..., "age": ...})`` (or the frame form
    ``fit(frame, score="p", label="y")`` with ``features=[...]`` given here) and
    ``transform(scores, features={...})``. Parameters: ``base`` (a calibrator kind:
    ``"platt"``, ``"isotonic"``, ``"temperature"``, ``"beta"``, ``"histogram"`` …),
    ``features`` (names), ``depth`` (1: per level; 2: also pairs), ``bins`` (equal-mass
    bins of each numeric feature; None, the default: 5, as :func:`vc.segments`; given where no feature is
    numeric it changes nothing, and ``fit`` warns so, as ``vc.segments`` notes it), ``min_count`` and
    ``max_levels`` (rare levels pooled).

    ``sample_weight``: the segments are those :func:`vc.segments` reports on the same weighted rows
    (equal-weight bins of numeric features; ``min_count`` counts rows). The shrinkage reads weights as
    importance weights, :math:`v_k = \sum w^2 p(1-p) / (\sum w\,p(1-p))^2`, unchanged when every
    weight is multiplied by c: integer weights are not read as repeated rows (weights of 10 give the
    corrections no weights give; the rows repeated 10 times would shrink less; ``base`` reads the weights
    as it does when fit alone). Pass the repeated rows when weights are frequency counts.

    Fitted: ``base_`` (the global calibrator), ``specs_`` (levels of each feature),
    ``corrections_`` (per grouping set: segment keys and shifts), ``tau2_``.
    """

    kind = "segment"
    multiclass = "binary"
    _params = ("score_type", "base", "features", "depth", "bins", "min_count", "max_levels")
    _state = ("base_", "specs_", "corrections_", "tau2_")

    def __init__(self, *, base: str = "platt", features: Any = None, depth: int = 2, bins: int | None = None,
                 min_count: int = 50, max_levels: int = 20, score_type: str = "probability"):
        self.base = base
        self.features = features
        self.depth = depth
        self.bins = bins
        self.min_count = min_count
        self.max_levels = max_levels
        self.score_type = score_type

    def _check_params(self) -> None:
        super()._check_params()
        if self.base not in _REGISTRY or self.base == self.kind or _REGISTRY[self.base].multiclass == "multiclass":
            known = sorted(k for k, c in _REGISTRY.items() if c.multiclass != "multiclass" and k != self.kind)
            raise VeracityError(f"base must name a binary calibrator ({', '.join(known)}), got {self.base!r}")
        if self.features is not None and (isinstance(self.features, str) or not all(
                isinstance(f, str) for f in self.features)):
            raise VeracityError(f"features must be a list of names, got {self.features!r}")
        if self.features is not None:
            dup = sorted({f for f in self.features if list(self.features).count(f) > 1})
            if dup:  # read once, silently: one feature's corrections where two were asked for
                raise VeracityError(f"features names {dup[0]!r} twice; name each feature once", param="features")
        for name in ("depth", "bins", "min_count", "max_levels"):
            v = getattr(self, name)
            if name == "bins" and v is None:  # not given: 5, as vc.segments
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise VeracityError(f"{name} must be a positive integer, got {v!r}")
        # one bin splits nothing: every numeric feature would be one level, no correction
        if self.bins is not None and self.bins < 2:
            raise VeracityError(f"bins must be an integer >= 2 (equal-mass bins of each numeric feature), got "
                                f"{self.bins!r}", param="bins")

    # -- fit ----------------------------------------------------------------------------
    def fit(self, scores: Any, labels: Any = None, *, features: Any = None, sample_weight: Any = None,
            role: Any = None, allow_role: Any = None, metadata: dict[str, Any] | None = None,
            pos_label: Any = None, score: Any = None, label: str | None = None) -> SegmentCalibration:
        """Fit on calibration rows; ``features`` maps each name in ``self.features`` to its column.

        Frame form: ``fit(frame, score="p", label="y", sample_weight="w", pos_label=...)`` reads the score,
        label, weight and feature columns (``self.features``) of an in-memory frame (pandas, polars, pyarrow)
        as every frame form reads them (a missing, text or NaN column named in one line), then fits on their
        values as the array form does."""
        if score is not None or label is not None:
            return self._fit_frame(scores, labels, features, score=score, label=label,
                                   sample_weight=sample_weight, pos_label=pos_label, role=role,
                                   allow_role=allow_role, metadata=metadata)
        self._check_params()
        names = list(self.features or ())
        self._same_rows(scores, features, labels=labels)
        feats = self._feature_arrays(features, names, fitting=True)
        n = np.shape(scores)[0] if np.ndim(scores) else 0
        w = check_weights(sample_weight, n, rescale=False) if sample_weight is not None else None
        if w is not None and not w.all():  # rows of weight 0 are dropped rows (as every calibrator does)
            keep = w > 0
            check_same_index(scores=scores, role=None if isinstance(role, str) else role)
            role = role_rows(role, n)  # the roles of the kept rows: one per row of all the rows given
            role = role[keep] if isinstance(role, np.ndarray) and role.ndim == 1 else role
            scores = to_numpy(scores, "scores")[keep]
            labels = to_numpy(labels, "labels")[keep]
            sample_weight = to_numpy(sample_weight, "sample_weight")[keep]
            feats = {k: v[keep] for k, v in feats.items()}
        self._pending = feats
        try:
            return super().fit(scores, labels, sample_weight=sample_weight, role=role, allow_role=allow_role,
                               metadata=metadata, pos_label=pos_label)
        finally:
            self.__dict__.pop("_pending", None)

    def fit_transform(self, scores: Any, labels: Any = None, *, features: Any = None, score: Any = None,
                      label: Any = None, sample_weight: Any = None, pos_label: Any = None,
                      **kwargs: Any) -> np.ndarray:
        """:meth:`fit` then :meth:`transform` on the same rows, the features of both those given to fit (they
        fitted, then the transform refused: "pass features={name: column}"); with a frame, its columns."""
        if score is not None or label is not None:
            return super().fit_transform(scores, labels, score=score, label=label, sample_weight=sample_weight,
                                         pos_label=pos_label, features=features, **kwargs)
        self.fit(scores, labels, features=features, sample_weight=sample_weight, pos_label=pos_label, **kwargs)
        return self.transform(scores, features)

    def _fit_frame(self, data: Any, labels: Any, features: Any, *, score: Any, label: Any, sample_weight: Any,
                   pos_label: Any, **fit_options: Any) -> SegmentCalibration:
        from ..core._frameform import rows_call

        _no_features_with_a_frame(features)
        self._check_params()  # the feature names must be names before they name columns
        refuse_label_feature(list(self.features or ()), label)  # it would correct by the outcome itself
        # a role per row given beside the frame: a Series on another index is never paired by position
        role = fit_options.get("role")
        check_same_index(frame=data, role=None if isinstance(role, str) else role)
        refuse_role_column(data, role)
        # the columns and the positive class, recorded as every calibrator's frame fit records them (the
        # caller's metadata= wins): the labels reach the fit as 0/1; a fit with pos_label=0 recorded no class
        fit_options["metadata"] = frame_fit_metadata(score, label, pos_label, fit_options.get("metadata"))

        def fit_rows(s: np.ndarray, y: np.ndarray, *, sample_weight: Any, score_type: str,
                     features: dict[str, Any]) -> SegmentCalibration:
            # the labels arrive as 0/1 = [label == pos_label]
            return self.fit(s, y, features=_frame_values(features), sample_weight=sample_weight,
                            **fit_options)

        with self._own_settings_spelled():  # "pass SegmentCalibration(score_type='logit')", as the array form
            fitted: SegmentCalibration = rows_call(
                f"{type(self).__name__}.fit", fit_rows, data, labels, score=score, label=label,
                sample_weight=sample_weight, pos_label=pos_label, score_type=self.score_type,
                column_sets={"features": list(self.features or ())})
        return fitted

    @staticmethod
    def _same_rows(scores: Any, features: Any, **others: Any) -> None:
        """Refuse feature Series on another pandas index than the scores (matched by position, each
        row would get another row's level), and (N, K) scores: a calibrator of binary scores only (the base
        calibrator's refusal spoke of one-vs-rest methods)."""
        shape = np.shape(scores)
        if len(shape) == 2 and shape[1] > 1:
            raise VeracityError(f"SegmentCalibration calibrates binary scores (one probability per row), got shape "
                                f"{shape}; pass the positive class's column, e.g. P[:, 1] of predict_proba's two "
                                "columns", param="scores")
        if isinstance(features, dict):
            check_same_index(scores=scores, **others, **{f"features[{k!r}]": v for k, v in features.items()})

    def _rows_options(self, options: dict[str, Any], n: int) -> Callable[[np.ndarray], dict[str, Any]] | None:
        """``features=`` holds one value per row: :func:`vc.cross_fit` fits and transforms each fold on its
        own rows of every feature (the whole columns beside a fold's scores were refused as "feature 'g' has
        shape (400,) but there are 320 scores"). The columns are read once, as :meth:`fit` reads them."""
        features = options.get("features")
        if not self.features or not isinstance(features, dict):
            return None  # fit refuses it (the fit on every row ran first)
        feats = self._feature_arrays(features, list(self.features), fitting=True)
        for name, col in feats.items():
            if col.shape[0] != n:
                raise VeracityError(f"feature {name!r} has {count_noun(col.shape[0], 'row')} but there are "
                                    f"{count_noun(n, 'score')}; pass one value per row", param="features")
        return lambda mask: {"features": {name: col[mask] for name, col in feats.items()}}

    def _frame_column_sets(self) -> dict[str, list[str]]:
        """``cross_fit(frame, SegmentCalibration(features=[...]), score=, label=)`` reads the feature columns
        of the frame, as :meth:`fit`'s frame form does."""
        return {"features": list(self.features)} if self.features else {}

    def _feature_arrays(self, features: Any, names: list[str], *, fitting: bool) -> dict[str, np.ndarray]:
        if not names:
            if fitting and features:  # columns to correct by, but no names: it would fit the base alone
                raise VeracityError(
                    f"fit(features=...) names {list(features)!r} but this SegmentCalibration was built without "
                    f"features; build it with SegmentCalibration(features={list(features)!r})", param="features")
            return {}
        if not isinstance(features, dict):
            raise VeracityError(
                f"this SegmentCalibration corrects by {names}; pass features={{name: column}} for each "
                f"(got {type(features).__name__})")
        missing = [n for n in names if n not in features]
        if missing:
            raise VeracityError(f"features= lacks {missing[0]!r}; pass a column for each of {names}")
        from ._api import feature_values

        out = {}
        for n in names:
            col = np.asarray(feature_values(features[n], n))
            if col.ndim != 1:
                raise VeracityError(f"feature {n!r} must hold one value per row (1-D), got shape {col.shape}")
            out[n] = col
        return out

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        from ._api import specs_from_arrays

        feats = getattr(self, "_pending", {})
        self.__dict__.pop("_stored_types", None)  # of a loaded artifact's levels, not of these
        base = _REGISTRY[self.base](score_type=self.score_type)
        base.fit(s, y, sample_weight=w)
        eta0 = probability_to_logit(base.transform(s))
        self.base_ = base
        if not feats:
            self.specs_, self.corrections_, self.tau2_ = [], [], []
            return
        # the levels vc.segments finds on these rows and weights (weighted equal-mass cuts; min_count in rows)
        specs, codes, _ = specs_from_arrays(feats, s.shape[0], None, bins=self.bins, min_count=self.min_count,
                                            max_levels=self.max_levels, weights=w)
        _warn_unused_bins(self.bins, specs)
        depth = min(int(self.depth), len(specs))
        check_family_size(specs, depth, MAX_SEGMENTS)
        sets = feature_sets(len(specs), depth)[1:]
        keys = [_keys(specs, codes, st) for st in sets]
        sizes = [int(np.prod([specs[i].n_levels for i in st])) for st in sets]
        deltas = [np.zeros(m) for m in sizes]
        tau2 = [0.0] * len(sets)
        eta = eta0.copy()
        wt = np.ones_like(y) if w is None else w
        for _ in range(_ROUNDS):
            moved = 0.0
            for j, (k, m) in enumerate(zip(keys, sizes)):
                eta -= deltas[j][k]
                raw, v = _raw_shift(eta, y, wt, k, m)
                ok = np.isfinite(v)
                t2 = _tau2(raw[ok], v[ok])
                new = np.where(ok, raw * t2 / (t2 + np.where(ok, v, 1.0)), 0.0)
                moved = max(moved, float(np.max(np.abs(new - deltas[j]))) if m else 0.0)
                deltas[j], tau2[j] = new, t2
                eta += new[k]
            if moved < 1e-8:
                break
        self.specs_ = specs
        self.corrections_ = [{"set": list(st), "keys": np.flatnonzero(d != 0).tolist(),
                              "delta": d[d != 0].tolist()} for st, d in zip(sets, deltas)]
        self.tau2_ = [float(t) for t in tau2]

    # -- transform ------------------------------------------------------------------------
    def transform(self, scores: Any, features: Any = None, *, score: Any = None) -> np.ndarray:
        """Calibrated probabilities; ``features`` maps each feature name to its column.

        Frame form: ``transform(frame, score="p")`` reads the score and feature columns of an in-memory frame
        (pandas, polars, pyarrow; no labels) as every frame form reads them, then transforms their values as
        the array form does."""
        self._require_fitted()
        if score is not None:
            from ..core._frameform import scores_call

            _no_features_with_a_frame(features)

            def transform_rows(s: np.ndarray, *, sample_weight: Any, score_type: str,
                               features: dict[str, Any]) -> np.ndarray:
                return self.transform(s, _frame_values(features))

            # score_type="score": the seam names the column of missing or infinite scores and leaves the range
            # to the fitted map, whose words say it reads only the kind of scores it was fit on
            framed: np.ndarray = scores_call(f"{type(self).__name__}.transform", transform_rows, scores,
                                             score=score, score_type="score",
                                             column_sets={"features": [sp.name for sp in self.specs_]})
            return framed
        self._same_rows(scores, features)
        s = self._scores(scores, fitting=False)
        feats = self._feature_arrays(features, [sp.name for sp in self.specs_], fitting=False)
        for name, col in feats.items():
            if col.shape[0] != s.shape[0]:
                raise VeracityError(f"feature {name!r} has {count_noun(col.shape[0], 'row')} but there are "
                                  f"{count_noun(s.shape[0], 'score')}")
        with np.errstate(all="ignore"):
            eta = probability_to_logit(self.base_.transform(s))
            if self.specs_:
                codes = [sp.codes(feats[sp.name]) for sp in self.specs_]
                for corr in self.corrections_:
                    st = tuple(corr["set"])
                    key = _keys(self.specs_, codes, st)
                    size = int(np.prod([self.specs_[i].n_levels for i in st]))
                    table = np.zeros(size + 1)
                    table[np.asarray(corr["keys"], dtype=np.int64)] = np.asarray(corr["delta"], dtype=np.float64)
                    eta = eta + table[np.where(key < 0, size, key)]
            p = expit(eta)
        return _schema.check_output(self.name, p, s)

    def _transform(self, s: np.ndarray) -> np.ndarray:  # pragma: no cover - transform is overridden
        return self.transform(s)

    # -- export ---------------------------------------------------------------------------
    def to_sql(self, column: Any = "score", *, dialect: str = "duckdb", prior_shift: Any = None,
               alias: str = "probability", features: dict[str, str] | None = None) -> str:
        """One SQL expression equal to :meth:`transform`: the base map's SQL, its logit (clipped as
        ``transform`` clips it), plus each grouping set's shift for the row's segment (a ``CASE`` over the
        feature's levels: the pooled ``other`` level, the missing one for NULL and NaN, no shift for a value
        unseen at fit, a numeric feature's bins with a value on a cut in the bin above), then the sigmoid.

        ``features``: the column of a feature, ``{"region": "region_col"}`` (default: the feature's own
        name). Levels of text, integers, floats and booleans only (dates, times, bytes: refused in one line).
        No ONNX form: the corrections read feature columns beside the score."""
        from ..export import to_sql

        self._require_fitted()
        return to_sql(self, column, dialect=dialect, prior_shift=prior_shift, alias=alias, features=features)

    # -- artifacts ------------------------------------------------------------------------
    def _state_dict(self) -> dict[str, Any]:
        return {"base_": self.base_.to_dict(), "specs_": [self._spec_dict(sp) for sp in self.specs_],
                "corrections_": [dict(c) for c in self.corrections_], "tau2_": list(self.tau2_)}

    def _spec_dict(self, sp: FeatureSpec) -> dict[str, Any]:
        """A feature's levels as the artifact holds them, plus ``value_types`` where its level values are of
        kinds JSON holds as their text (dates, times, bytes, ...: :func:`_value_types`), so an export of the
        saved artifact refuses them as the fitted one's does (the text alone would compare as text)."""
        d = sp.to_dict()
        types = _value_types(sp) or getattr(self, "_stored_types", {}).get(sp.name)
        if types:
            d["value_types"] = list(types)
        return d

    def _load_state(self, state: dict[str, Any]) -> None:
        for k in self._state:
            if k not in state:
                raise VeracityError(f"calibrator artifact lacks fitted field {k!r}; re-save it")
        self.base_ = load(state["base_"])
        try:
            self.specs_ = [FeatureSpec.from_dict(d) for d in state["specs_"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise VeracityError(f"calibrator artifact: a feature's levels are malformed ({exc}); re-fit and save "
                                "it") from None
        for sp in self.specs_:
            _check_spec(sp)
        self._stored_types = {d["name"]: [str(t) for t in d["value_types"]] for d in state["specs_"]
                              if isinstance(d, dict) and isinstance(d.get("value_types"), list)
                              and d["value_types"]}
        self.corrections_ = [dict(c) for c in state["corrections_"]]
        self.tau2_ = [float(t) for t in state["tau2_"]]
        for c in self.corrections_:
            _check_correction(c, self.specs_)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        moved = sum(len(c["keys"]) for c in self.corrections_)
        sets = ", ".join(" x ".join(self.specs_[i].name for i in c["set"]) + f" (tau^2 {t:.3g})"
                         for c, t in zip(self.corrections_, self.tau2_))
        corrections = count_noun(moved, "shrunk segment correction")
        return (f"Segment calibration: {self.base_.name} plus {corrections}"
                + (f" over {sets}" if sets else ""))


def _warn_unused_bins(bins: int | None, specs: list[FeatureSpec]) -> None:
    """``bins`` cuts numeric features into equal-mass bins; given where every feature is categorical (its
    levels are its values) it changed nothing: :func:`vc.segments` notes it and ``veracity segments --bins``
    refuses it, and this fit warns it (the fitted corrections are those of ``bins=None``). ``bins=None``
    (not given: 5) warns nothing; nor does a numeric feature among the features."""
    from ._api import UNUSED_BINS, unused_bins_note

    if unused_bins_note(bins, specs):
        names = ", ".join(repr(sp.name) for sp in specs)
        warn(VeracityWarning(f"SegmentCalibration(bins={bins!r}) {UNUSED_BINS} (the levels of {names} are "
                             "their values), so it changed nothing; drop {param}", "bins"))


def _value_types(sp: FeatureSpec) -> list[str]:
    """The kinds of a feature's level values that are no text, number or boolean (``date``, ``datetime``,
    ``bytes``, ``Decimal`` ...), by type name: the artifact holds those as their text."""
    found = {type(v).__name__ for v in sp.values
             if not isinstance(v.item() if isinstance(v, np.generic) else v, (str, int, float, bool))}
    return sorted(found)


def _frame_values(columns: dict[str, Any]) -> dict[str, np.ndarray]:
    """A frame's feature columns (its own pandas, polars or pyarrow series) as numpy, read as
    :func:`vc.segments` reads a frame's features (:func:`~._api.series_values`: nulls as None, integers
    exact, a time with a zone as a datetime in its zone, read from its UTC instant), so one fit's levels
    apply to every backend's frame."""
    import narwhals as nw

    from ._api import series_values

    return {n: series_values(nw.from_native(col, series_only=True)) for n, col in columns.items()}


def _no_features_with_a_frame(features: Any) -> None:
    """With a frame (``score=``), the feature columns are the frame's columns named in ``features=[...]`` of
    the constructor: a ``features=`` mapping beside it would be left unread, silently."""
    if features is not None:
        raise VeracityError("with a frame (score=...), the feature columns are read from the frame by "
                            "the names given to SegmentCalibration(features=[...]); drop features=, or pass "
                            "arrays in place of the frame", param="features")


def _bad_artifact(what: str) -> VeracityError:
    return VeracityError(f"calibrator artifact: {what}; it was not written by SegmentCalibration.save, or was "
                         "edited: re-fit and save it")


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_spec(sp: FeatureSpec) -> None:
    """A saved feature's levels must be what :func:`~._levels.feature_spec` writes: a known kind,
    one label per level code, ordered cut points (an edited artifact would otherwise send rows to
    another level's correction, silently, or raise an IndexError on transform)."""
    n = sp.n_levels
    where = f"feature {sp.name!r}"
    if sp.kind not in ("category", "values", "bins"):
        raise _bad_artifact(f"{where} has kind {sp.kind!r} (one of 'category', 'values', 'bins')")
    if n == 0 or not all(isinstance(t, str) for t in sp.labels):
        raise _bad_artifact(f"{where} has no level labels")
    for name, code in (("other", sp.other), ("missing", sp.missing)):
        if code is not None and not (_is_int(code) and 0 <= code < n):
            raise _bad_artifact(f"{where} names level {code!r} as its {name!r} level, of {n} levels")
    extra = int(sp.missing is not None and sp.missing != sp.other)
    if sp.kind == "bins":
        cuts = np.asarray([float(c) for c in sp.cuts if isinstance(c, (int, float)) and not isinstance(c, bool)])
        if cuts.size != len(sp.cuts) or not np.isfinite(cuts).all() or np.any(np.diff(cuts) <= 0) \
                or n != len(sp.cuts) + 1 + extra:
            raise _bad_artifact(f"{where} needs increasing finite cut points, one fewer than its {n - extra} bins")
    elif n != len(sp.values) + int(sp.other is not None) + extra:
        raise _bad_artifact(f"{where} has {len(sp.values)} values for {n} level labels")


def _check_correction(c: dict[str, Any], specs: list[FeatureSpec]) -> None:
    st, keys = c.get("set"), c.get("keys")
    if not isinstance(st, list) or not st or not all(_is_int(i) and 0 <= i < len(specs) for i in st) \
            or len(set(st)) != len(st):
        raise _bad_artifact(f"a correction's set {st!r} does not name distinct features among the {len(specs)} "
                            "described")
    size = int(np.prod([specs[i].n_levels for i in st]))
    if not isinstance(keys, list) or not all(_is_int(k) and 0 <= k < size for k in keys):
        raise _bad_artifact(f"a correction over {[specs[i].name for i in st]} names segments beyond its {size}")


def _keys(specs: list[FeatureSpec], codes: list[np.ndarray], st: tuple[int, ...]) -> np.ndarray:
    key = np.zeros(codes[0].shape[0], dtype=np.int64)
    bad = np.zeros(codes[0].shape[0], dtype=bool)
    for i, stride in zip(st, strides(specs, st)):
        key += codes[i] * stride
        bad |= codes[i] < 0
    key[bad] = -1
    return key


def _tau2(delta: np.ndarray, v: np.ndarray) -> float:
    r"""The spread of a set's true corrections, Paule and Mandel's estimate: the :math:`\tau^2 \ge 0` with

    .. math:: \sum_k \frac{\hat\delta_k^2}{v_k + \tau^2} = K

    (0 where the sum is at most K at :math:`\tau^2 = 0`; the left side falls in :math:`\tau^2`, so one root,
    below :math:`\sum_k \hat\delta_k^2 / K`, found by ``scipy.optimize.brentq``). Each segment weighs
    :math:`1/(v_k + \tau^2)`: nearly equally where the spread dominates the noise, as the plain moments
    :math:`\tfrac1K \sum_k (\hat\delta_k^2 - v_k)`, while a segment of few expected events (a huge
    :math:`v_k`) weighs nearly nothing. The plain moments let one such segment switch a feature off: one
    60-row level with 0 or 1 event among 20,000 rows at a 0.5-4 % rate gave :math:`\tau^2 = 0` in 10 of
    10 seeds, and the level at twice its predicted rate beside it went uncorrected
    (tests/segments/test_segcal_rare_level_r41.py)."""
    if not delta.size:
        return 0.0
    dd = delta * delta

    def excess(t2: float) -> float:
        return float(np.sum(dd / (v + t2))) - delta.size

    if not excess(0.0) > 0.0:
        return 0.0
    from scipy.optimize import brentq

    high = float(np.sum(dd)) / delta.size  # excess(high) <= sum(dd) / high - K = 0
    return float(brentq(excess, 0.0, high, xtol=1e-14, rtol=1e-12)) if excess(high) < 0.0 else high


def _raw_shift(eta: np.ndarray, y: np.ndarray, w: np.ndarray, key: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per segment: the ML logit shift given ``eta`` (Newton), and its sampling variance."""
    ok = key >= 0
    k = key[ok]
    e, yy, ww = eta[ok], y[ok], w[ok]
    delta = np.zeros(m)
    for _ in range(_NEWTON):
        p = expit(e + delta[k])
        g = np.bincount(k, weights=ww * (yy - p), minlength=m)
        h = np.bincount(k, weights=ww * p * (1 - p), minlength=m)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(h > 0, g / h, 0.0)
        new = np.clip(delta + step, -_CLAMP, _CLAMP)
        moved = float(np.max(np.abs(new - delta))) if m else 0.0
        delta = new
        if moved < _TOL:
            break
    p = expit(e + delta[k])
    h = np.bincount(k, weights=ww * p * (1 - p), minlength=m)
    h2 = np.bincount(k, weights=ww * ww * p * (1 - p), minlength=m)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(h > 0, h2 / (h * h), np.inf)
    return np.where(h > 0, delta, 0.0), v


# -- the artifact's schema (checked by vc.load) ---------------------------------------------
class _SegmentParams(_schema.BaseParams, kw_only=True):
    base: str | _schema.UnsetType = _schema.UNSET
    features: list[str] | None | _schema.UnsetType = _schema.UNSET
    depth: int | _schema.UnsetType = _schema.UNSET
    bins: int | None | _schema.UnsetType = _schema.UNSET
    min_count: int | _schema.UnsetType = _schema.UNSET
    max_levels: int | _schema.UnsetType = _schema.UNSET


class _SegmentState(_schema.BaseState, kw_only=True):
    base_: dict
    specs_: list[dict]
    corrections_: list[dict]
    tau2_: list[_schema.NonNeg]

    def __post_init__(self) -> None:
        if len(self.corrections_) != len(self.tau2_):
            raise ValueError("state.tau2_ must hold one value per item of state.corrections_")
        for c in self.corrections_:
            if len(c.get("keys", ())) != len(c.get("delta", ())):
                raise ValueError("state.corrections_: each correction needs as many delta values as keys")
            if not all(isinstance(d, (int, float)) and np.isfinite(d) for d in c.get("delta", ())):
                raise ValueError("state.corrections_: delta values must be finite numbers")


_schema.register("segment", _SegmentParams, _SegmentState)
