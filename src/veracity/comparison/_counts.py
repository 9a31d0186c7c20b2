"""Weighted counts at or above many thresholds, by class: what the Murphy diagram, the decision
curve and their intervals read (one sort per score column and class, no loop over thresholds)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decisions._table import _counts_at_or_above


@dataclass(frozen=True)
class ClassCounts:
    """Per threshold: Σw and Σw² of the rows with ``score >= t`` among negatives (0) and positives (1)."""

    w0: np.ndarray
    w0sq: np.ndarray
    w1: np.ndarray
    w1sq: np.ndarray


def class_counts(values: np.ndarray, y: np.ndarray, w: np.ndarray | None, thresholds: np.ndarray) -> ClassCounts:
    pos = y == 1.0
    out = []
    for mask in (~pos, pos):
        v = values[mask]
        if w is None:
            c = _counts_at_or_above(v, None, thresholds)
            out += [c, c]
        else:
            wm = w[mask]
            out += [_counts_at_or_above(v, wm, thresholds), _counts_at_or_above(v, wm * wm, thresholds)]
    return ClassCounts(*out)


@dataclass(frozen=True)
class Totals:
    """Σw, Σw² overall and by class, and the row count."""

    n: int
    w: float
    wsq: float
    w0: float
    w0sq: float
    w1: float
    w1sq: float


def totals(y: np.ndarray, w: np.ndarray | None) -> Totals:
    pos = y == 1.0
    if w is None:
        n1 = float(np.count_nonzero(pos))
        n = y.shape[0]
        return Totals(n, float(n), float(n), n - n1, n - n1, n1, n1)
    w1, w1sq = float(w[pos].sum()), float(np.dot(w[pos], w[pos]))
    total, total_sq = float(w.sum()), float(np.dot(w, w))
    return Totals(y.shape[0], total, total_sq, total - w1, total_sq - w1sq, w1, w1sq)


#: more thresholds than this is refused before any work: each costs a few numbers per model and a
#: result row per model and strategy (10**8 of them ran out of memory); a curve needs a few hundred
MAX_THRESHOLDS = 100_000


def check_thresholds(values: object, name: str, default: np.ndarray, *, upper_open: bool = False) -> np.ndarray:
    """Probability thresholds as a sorted-as-given 1-D float array in [0, 1] (or [0, 1)), at most
    :data:`MAX_THRESHOLDS` of them; -0.0 is 0.0 (a threshold printed "-0.000"); float32 (or float16)
    thresholds are the float64 numbers they print as (``np.float32(0.1)`` is 0.1)."""
    from ..core._validation import VeracityError, as_float_array, to_numpy

    if values is None:
        return default
    raw = to_numpy(values, name)
    if raw.size > MAX_THRESHOLDS:  # refused before any per-threshold work (a numpy grid is not copied)
        raise VeracityError(f"{name} has {raw.size:,} thresholds: at most {MAX_THRESHOLDS:,} (a curve needs a few "
                            f"hundred); pass a coarser grid, e.g. np.linspace(0.01, 0.99, 99)", param=name)
    span = "[0, 1)" if upper_open else "[0, 1]"
    if raw.dtype.kind in "iuf":  # numbers: said in a threshold's words, not a data column's ("rows")
        if raw.size == 0:
            raise VeracityError(f"{name} is empty; pass at least one probability in {span}, e.g. [0.1, 0.5]",
                                param=name)
        if np.isnan(raw).any():
            raise VeracityError(f"{name} holds NaN; pass probabilities in {span}", param=name)
        if raw.dtype.kind == "f" and raw.dtype.itemsize < 8 and np.isfinite(raw).all():
            # float32 thresholds as the numbers they print (0.1, as the slice keys read them): widened bit
            # for bit, 0.1 was 0.10000000149, above a score of 0.1, which "flag p >= 0.100" then left out
            raw = raw.astype(str).astype(np.float64)
    t = np.atleast_1d(as_float_array(raw, name)) + 0.0  # -0.0 + 0.0 is 0.0
    if t.ndim != 1:
        raise VeracityError(f"{name} must be a number or a 1-D array of probabilities, got shape {t.shape}")
    hi_ok = t < 1.0 if upper_open else t <= 1.0
    if not (np.all(t >= 0.0) and np.all(hi_ok)):
        bad = t[~((t >= 0.0) & hi_ok)][0]
        raise VeracityError(f"{name} must be probabilities in {span}; found {bad:g}")
    return t
