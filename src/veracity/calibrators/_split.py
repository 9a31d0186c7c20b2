r"""Split discipline: deterministic stratified roles and out-of-fold fitting.

Seed 003 names four roles — *train* sets weights, *val* picks the model, *calib*
sets post-training values (temperature, threshold, conformal q̂), *test* decides
nothing and only measures. :func:`split` assigns them deterministically and
stratified, so every role keeps the class ratio (seed 000: 126 audit rows with
18 positives split 63/63 keep 1:6 in both halves).
"""

from __future__ import annotations

import copy
import functools
import inspect
import reprlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from ..core._validation import (VeracityError, _refuse_missing_labels, as_float_array, check_random_state,
                                check_same_index, check_weights, labels_with_pos_label, offending_rows,
                                to_numpy)
from ..core._compat import positional_options, renamed
from ._base import Calibrator, frame_fit_metadata, refuse_role_column, role_rows
from ..core._display import Display
from ..core._frameform import rows_form

T = TypeVar("T")


def _check_roles(roles: Any) -> tuple[list[str], np.ndarray]:
    if not isinstance(roles, dict) or not roles:
        if hasattr(roles, "__len__") and not isinstance(roles, (str, bytes, dict)):
            got = f"{type(roles).__name__} of {len(roles)} values"  # split(scores, labels): labels only
            hint = "; split takes the labels alone: vc.split(labels, roles={'calib': 0.5, 'test': 0.5})"
        else:
            got, hint = reprlib.repr(roles), ""
        raise VeracityError(
            f"roles must be a non-empty dict of role name -> fraction, e.g. "
            f"{{'calib': 0.5, 'test': 0.5}}; got {got}{hint}", param="roles"
        )
    names = [str(k) for k in roles]
    try:
        frac = np.array([float(v) for v in roles.values()])
    except (TypeError, ValueError):
        raise VeracityError(f"role fractions must be numbers, got {roles!r}") from None
    if not np.all(np.isfinite(frac)) or (frac <= 0).any():
        raise VeracityError(f"role fractions must be positive, got {roles!r}")
    if abs(frac.sum() - 1.0) > 1e-9:
        raise VeracityError(
            f"role fractions must sum to 1, got {frac.sum():.6g} for {roles!r}; rescale them"
        )
    return names, frac


def _allocate(sizes: np.ndarray, frac: np.ndarray) -> np.ndarray:
    r"""Integer counts per class and role (rows sum to each class's size ``n_c``), each within one
    row of :math:`n_c f_r`, and each role's total within about one row of :math:`N f_r`.

    Every class gives each role :math:`\lfloor n_c f_r \rfloor` rows; its remaining rows go, one
    each, to the roles furthest behind their share so far — the cumulative deficit
    :math:`\sum_{c' \le c} n_{c'} f_r - \text{assigned}` (largest remainder carried across the
    classes; ties to the first role). Without the carry every class broke its ties towards the
    first roles: 10 classes of 3 rows in 5 folds filled folds 0-2 with 10 rows each and left two
    folds empty. For one class this is plain largest-remainder rounding."""
    out = np.zeros((sizes.size, frac.size), dtype=np.int64)
    deficit = np.zeros(frac.size)
    roles = np.arange(frac.size)
    for c, n in enumerate(sizes):  # one step per class, not per row
        exact = n * frac
        counts = np.floor(exact).astype(np.int64)
        behind = deficit + (exact - counts)
        rest = int(n) - int(counts.sum())
        if rest:
            order = np.lexsort((roles, -np.round(behind, 9)))
            counts[order[:rest]] += 1
        out[c] = counts
        deficit = deficit + exact - counts
    return out


@renamed(seed="random_state")
@positional_options("roles", "random_state")
def split(labels: Any, *, roles: dict[str, float] | None = None, random_state: Any = None) -> np.ndarray:
    """Stratified assignment of every row to a role, reproducible with ``random_state``.

    Within each class the rows are shuffled by ``numpy.random.default_rng(random_state)``
    and cut into consecutive pieces of ``round(n_class · fraction)`` rows
    (largest remainder, carried across the classes), so every role holds the same class
    ratio up to one row per class, and its share of all rows up to about one row. Returns an
    array of role names (``str``), one per row. ``random_state`` is an integer, a
    ``numpy.random.Generator`` or None (fresh entropy: a different split every call).

    >>> y = [1] * 18 + [0] * 108          # seed 000's audit set: 18 true, 108 corrupted
    >>> r = split(y, roles={"calib": 0.5, "test": 0.5}, random_state=0)
    >>> [(role, int((r == role).sum()), sum(int(l) for l, q in zip(y, r) if q == role)) for role in ("calib", "test")]
    [('calib', 63, 9), ('test', 63, 9)]
    """
    names, frac = _check_roles(roles if roles is not None else {"calib": 0.5, "test": 0.5})
    raw = to_numpy(labels, "labels")
    if raw.ndim != 1:
        raise VeracityError(f"labels must be 1-D, got shape {raw.shape}", param="labels")
    if raw.size == 0:
        raise VeracityError("labels are empty; pass at least one row")
    _refuse_missing_labels(raw)  # None, NaN, pandas' NA: the one wording of every route
    if raw.dtype.kind == "f" and not np.isfinite(raw).all():
        raise VeracityError("labels contain infinite values; drop those rows first", param="labels",
                            **offending_rows(~np.isfinite(raw)))
    seed = check_random_state(random_state)
    try:
        classes, inverse = np.unique(raw, return_inverse=True)
    except TypeError:  # values that do not compare (e.g. strings and numbers mixed)
        raise VeracityError("labels mix values that cannot be ordered (e.g. strings and numbers); pass labels of "
                            "one type", param="labels") from None
    rng = np.random.default_rng(seed)
    out = np.empty(raw.size, dtype=object)
    name_arr = np.array(names, dtype=object)
    alloc = _allocate(np.bincount(inverse, minlength=classes.size), frac)
    for c in range(classes.size):
        idx = np.flatnonzero(inverse == c)
        idx = idx[rng.permutation(idx.size)]
        out[idx] = np.repeat(name_arr, alloc[c])
    return out.astype(str)


def fold_index(labels: Any, *, n_folds: int = 5, random_state: Any = None) -> np.ndarray:
    """Stratified fold index (0..n_folds-1) of every row."""
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise VeracityError(f"folds must be an integer >= 2, got {n_folds!r}", param="folds")
    roles = split(labels, roles={str(k): 1.0 / n_folds for k in range(n_folds)}, random_state=random_state)
    return roles.astype(np.int64)


@dataclass(frozen=True, eq=False, repr=False)
class CrossFit(Display):
    """Result of :func:`cross_fit`.

    ``oof``: out-of-fold calibrated probabilities (row i calibrated by a calibrator
    that never saw row i — honest numbers for a small data set); ``fold``: fold
    of each row; ``calibrators``: one fitted per fold; ``final``: fitted on all rows.
    """

    oof: np.ndarray
    fold: np.ndarray
    calibrators: tuple[Calibrator, ...]
    final: Calibrator
    extras: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "folds": len(self.calibrators),
            "fold_counts": np.bincount(self.fold).tolist(),
            "final": self.final.to_dict(),
        }

    def __str__(self) -> str:
        counts = ", ".join(str(c) for c in np.bincount(self.fold))
        return (f"cross-fit {self.final.name}: {len(self.calibrators)} folds "
                f"(rows per fold {counts}); out-of-fold probabilities in .oof")


def _fold_lacks_a_class(exc: VeracityError, k: int, folds: int, lab: np.ndarray, out: np.ndarray,
                        w: np.ndarray | None) -> VeracityError:
    """``exc`` (a fold's fit refused), said in cross-fitting's terms when the rows outside fold ``k`` miss a
    class the data hold: a class of one row (of positive weight) lies in one fold only, and the fit on the
    other folds was refused as "all 16 labels are 0. Fit on a calibration split that holds positives and
    negatives" -- of 20 rows the user passed, one of them positive."""
    held = lab if w is None else lab[w > 0]
    inside = lab[~out] if w is None else lab[~out & (w > 0)]
    try:
        classes, counts = np.unique(held, return_counts=True)
        missing = [(c, int(n)) for c, n in zip(classes, counts) if not np.any(inside == c)]
    except TypeError:  # labels that do not compare: the fit's own message stands
        return exc
    if not missing:
        return exc
    c, n = missing[0]
    return VeracityError(
        f"cross_fit cannot fit fold {k} of {folds}: class {c.item() if hasattr(c, 'item') else c!r} has {n} "
        f"row{'' if n == 1 else 's'}, all in fold {k}, so the rows outside it hold none ({exc.message}). "
        "Every class needs at least 2 rows to be cross-fitted: add rows of that class, or fit the calibrator "
        "on held-out calibration rows instead", exc.param, value=exc.value)


def _fit_options(calibrator: Calibrator, fit_kwargs: dict[str, Any]) -> None:
    """Refuse, in one line, a keyword that ``calibrator.fit`` does not take (each fold's fit raised a bare
    ``TypeError`` on it), and a ``score_type=`` other than the calibrator's own: the calibrator reads the
    scores as its constructor declared (``vc.TemperatureScaling(score_type='logit')``)."""
    own = getattr(calibrator, "score_type", None)
    given = fit_kwargs.pop("score_type", own)
    if given != own:
        raise VeracityError(f"cross_fit reads the scores as the calibrator declares them ({calibrator.name} "
                            f"has score_type={own!r}); set it on the calibrator: vc.{calibrator.name}("
                            f"score_type={given!r})", param="score_type")
    taken = {**inspect.signature(Calibrator.fit).parameters,
             **inspect.signature(type(calibrator).fit).parameters}
    unknown = [key for key in fit_kwargs
               if key not in taken or taken[key].kind is inspect.Parameter.VAR_KEYWORD]
    if unknown:
        options = [k for k, p in taken.items() if p.kind is inspect.Parameter.KEYWORD_ONLY
                   and k not in ("score", "label")]
        raise VeracityError(f"cross_fit passes {unknown[0]}= to {calibrator.name}.fit, which takes no such "
                            f"option; its options are {', '.join(options)}", param=unknown[0])


def _frame_form(fn: Callable[..., T]) -> Callable[..., T]:
    """The frame form of :func:`cross_fit` as ``Calibrator.fit``'s frame form reads it.

    ``cross_fit(frame, calibrator, score="p", label="y")``: the second positional argument is the
    calibrator (as ``vc.compare(frame, calibrator, score=, label=)`` reads it), not a labels array (refused
    as "takes no labels array"). Each fit records the score and label columns and ``pos_label`` (the
    caller's ``metadata=`` wins), as ``cal.fit(frame, ...)`` does: the frame's labels reach the fits as 0/1,
    and a final fit with ``pos_label=0`` that recorded none was measured by ``vc.compare`` against label 1
    (AUC 0.21 for 0.79)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> T:
        score, label = kwargs.get("score"), kwargs.get("label")
        if score is None and label is None:
            return fn(*args, **kwargs)
        if len(args) == 2 and isinstance(args[1], Calibrator) and "calibrator" not in kwargs:
            kwargs["calibrator"] = args[1]
            args = args[:1]
        given = kwargs.get("calibrator")
        sets = given._frame_column_sets() if isinstance(given, Calibrator) else {}
        for key in sets:  # SegmentCalibration's features: the frame's columns it was built to name
            if kwargs.get(key) is not None:
                raise VeracityError(f"with a frame (score=...), cross_fit reads the {key} columns from the "
                                    f"frame by the names given to {kwargs['calibrator'].name}({key}=[...]); "
                                    f"drop {key}=, or pass arrays in place of the frame", param=key)
        if sets:
            kwargs["column_sets"] = sets
        # a role per row given beside the frame: a Series on another index is never paired by position
        check_same_index(frame=args[0] if args else kwargs.get("scores"), role=kwargs.get("role"))
        refuse_role_column(args[0] if args else kwargs.get("scores"), kwargs.get("role"))
        kwargs["metadata"] = frame_fit_metadata(score, label, kwargs.get("pos_label"), kwargs.get("metadata"))
        return fn(*args, **kwargs)

    return call


@renamed(seed="random_state")
@_frame_form
@rows_form
def cross_fit(scores: Any, labels: Any = None, calibrator: Calibrator | None = None, *, score: Any = None,
              label: Any = None, folds: int = 5,
              random_state: Any = None, sample_weight: Any = None, pos_label: Any = None,
              **fit_kwargs: Any) -> CrossFit:
    """Fit ``calibrator`` K times on out-of-fold rows (seed 004, for small data).

    Each row's calibrated probability comes from the copy fit on the other
    folds, so ``oof`` can be audited without a separate test split; ``final`` is
    the calibrator fit on every row (for deployment). Folds are stratified and
    reproducible with ``random_state`` (with ``pos_label``, stratified on the positive class);
    ``sample_weight``, ``pos_label`` and any other keyword of the calibrator's ``fit`` go to each
    ``fit`` (another keyword, or a ``score_type=`` other than the calibrator's own, is refused).

    Frame form: ``cross_fit(frame, calibrator, score="p", label="y", sample_weight="w")`` on an
    in-memory frame, the same folds and numbers as the array form; each fit records the columns and
    ``pos_label`` as ``calibrator.fit(frame, ...)`` does.
    """
    if pos_label is not None:
        fit_kwargs["pos_label"] = pos_label
    if not isinstance(calibrator, Calibrator):
        raise VeracityError(
            f"calibrator must be a veracity calibrator such as vc.TemperatureScaling(), "
            f"got {type(calibrator).__name__}"
        )
    _fit_options(calibrator, fit_kwargs)
    # never paired by position (a role per row too)
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight, role=fit_kwargs.get("role"))
    s = as_float_array(scores, "scores")
    lab = to_numpy(labels, "labels")
    if lab.shape[0] != s.shape[0]:
        raise VeracityError(
            f"scores have {s.shape[0]} rows but labels have {lab.shape[0]}; pass one label per score"
        )
    # the caller's units, not rescaled: each fit rescales its own weights and remembers by how much (Platt's
    # smoothed targets read the weights as row counts); weights pre-scaled here by 2^k fit another model
    # than fit() on the same weights (1e-200 weights: a slope of 0.97 where fit() gives 0)
    w = check_weights(sample_weight, s.shape[0], rescale=False)
    # a role per row: each fold's fit reads the roles of its own rows (fit refuses roles of other rows)
    role = role_rows(fit_kwargs.pop("role", None), s.shape[0])
    per_row = isinstance(role, np.ndarray) and role.ndim == 1
    # stratified on the positive class where pos_label names it: the frame form's labels arrive as 0/1, and
    # folds drawn on the raw labels (pos_label=0: class 0 drawn first) were other folds than the frame's
    strata = lab if pos_label is None else labels_with_pos_label(lab, pos_label)
    fold = fold_index(strata, n_folds=folds, random_state=random_state)
    # the fit on every row first: a refusal of the rows ("52 of 160 scores are not probabilities") counts the
    # caller's rows, not those of the first fold's fit
    final = copy.deepcopy(calibrator).fit(s, lab, sample_weight=w, role=role, **fit_kwargs)
    # options of one value per row (SegmentCalibration's features=): each fold's fit and transform its rows
    take = calibrator._rows_options(fit_kwargs, s.shape[0])
    fitted = []
    oof = None
    for k in range(folds):
        out = fold == k
        if not out.any():
            raise VeracityError(f"fold {k} is empty; use fewer folds for {s.shape[0]} rows")
        c = copy.deepcopy(calibrator)
        try:
            c.fit(s[~out], lab[~out], sample_weight=None if w is None else w[~out],
                  role=role[~out] if per_row else role, **{**fit_kwargs, **(take(~out) if take else {})})
        except VeracityError as exc:
            raise _fold_lacks_a_class(exc, k, folds, lab, out, w) from None
        pred = c.transform(s[out], **(take(out) if take else {}))
        if oof is None:
            oof = np.empty((s.shape[0],) + pred.shape[1:])
        oof[out] = pred
        fitted.append(c)
    if oof is None:  # pragma: no cover - fold_index checked folds >= 2, each fold is non-empty
        raise VeracityError(f"no folds to fit; got folds={folds!r}", param="folds")
    return CrossFit(oof=oof, fold=fold, calibrators=tuple(fitted), final=final)
