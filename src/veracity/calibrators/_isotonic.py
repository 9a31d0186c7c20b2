r"""Isotonic calibration: the non-parametric monotone repair.

**Isotonic** (pool-adjacent-violators, via :func:`scipy.optimize.isotonic_regression`):
rows with equal scores are pooled first (weighted mean of their labels, summed
weights — scikit-learn's rule), then the non-decreasing step function closest in
weighted squared error is fit to the distinct scores. Inputs outside the fitted
range are clipped to it. Seed 004: isotonic overfits small sets and **creates
ties**, so the tie policy is explicit:

* ``ties="allow"`` — steps; ``ties_created_`` counts the distinct fit scores that
  share their output with the previous one. ``interpolation="step"`` returns the
  value of the last fitted score at or below the input; ``"linear"`` interpolates
  linearly between fitted points (scikit-learn's ``IsotonicRegression`` rule).
* ``ties="strict"`` — centred isotonic regression (Oron & Flournoy 2017): each
  pooled block is represented by one knot at its weighted mean score (the first
  and last blocks at the fit range's ends) and the output interpolates linearly
  between knots, so it is strictly increasing on the fit range and keeps the
  input order (needs at least two distinct block values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core._text import count_noun
from ..core._validation import VeracityError, VeracityWarning
from ._base import Calibrator, warn


def _buckets(v: np.ndarray, n: int) -> np.ndarray | None:
    """16-bit buckets of ``v``'s range (monotone in ``v``), or None when they crowd."""
    lo, hi = float(v.min()), float(v.max())
    if not hi > lo:
        return None
    bucket = ((v - lo) * (65535.0 / (hi - lo))).astype(np.uint16)
    if np.bincount(bucket, minlength=65536).max() > max(256, 64 * n // 65536):
        return None
    return bucket


def sort_order(x: np.ndarray) -> np.ndarray:
    """Indices that sort ``x`` (ties in any order), typically 2-3x faster than ``argsort``.

    Two stable passes: a radix sort (numpy's for 16-bit keys) on a 16-bit bucket of
    the value range, then a stable sort of the now nearly sorted values (timsort
    merges the short runs cheaply). Skewed values (e.g. one class's softmax
    probabilities, crowded near 0) are bucketed by their float bit pattern instead,
    which is monotone in the value and spreads it roughly on a log scale. Falls back
    to ``argsort`` for small inputs or when both bucketings crowd.
    """
    n = x.size
    if n < 50_000:
        return np.argsort(x, kind="stable")
    bucket = _buckets(x, n)
    if bucket is None and x.dtype == np.float64:
        bits = x.view(np.int64)
        key = bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)  # ordered like the floats (-0.0 < 0.0)
        bucket = _buckets(key.astype(np.float64), n)
    if bucket is None:
        return np.argsort(x, kind="stable")
    first = np.argsort(bucket, kind="stable")
    return first[np.argsort(x[first], kind="stable")]


def pooled(x: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct sorted scores, their weighted mean label and summed weight (sklearn's tie rule)."""
    order = sort_order(x)
    xs = x[order]
    ys = y[order]
    ws = None if w is None else w[order]
    start = np.empty(xs.size, dtype=bool)
    start[0] = True
    np.not_equal(xs[1:], xs[:-1], out=start[1:])
    if start.all():                           # all scores distinct (the common case)
        return xs, ys, (np.ones(xs.size) if ws is None else ws)
    first = np.flatnonzero(start)
    if ws is None:
        wsum = np.diff(np.append(first, xs.size)).astype(np.float64)
        ysum = np.add.reduceat(ys, first)
    else:
        wsum = np.add.reduceat(ws, first)
        ysum = np.add.reduceat(ws * ys, first)
    return xs[first], ysum / wsum, wsum


def pooled_auc_below_half(ybar: np.ndarray, wsum: np.ndarray) -> bool:
    r"""Whether the Mann–Whitney AUC of the pooled scores (sorted distinct scores, their mean 0/1 label
    ``ybar`` and weight ``wsum``) lies below 1/2: with :math:`P_g = w_g\bar y_g`, :math:`N_g = w_g - P_g`,
    :math:`\sum_g P_g (\sum_{h<g} N_h + N_g/2) < \tfrac12 \sum_g P_g \sum_g N_g` (ties count 1/2). O(k),
    on the sums the fit already holds: the cheap gate before :func:`reversed_association`'s DeLong."""
    pos = wsum * ybar
    neg = wsum - pos
    below = np.cumsum(neg) - 0.5 * neg
    return bool(float(np.dot(pos, below)) < 0.5 * float(pos.sum()) * float(neg.sum()))


def reversed_association(ybar: np.ndarray, wsum: np.ndarray, s: np.ndarray, y: np.ndarray,
                         w: np.ndarray | None) -> Any:
    """The rows' :class:`~veracity.calibrators._platt.Association` where their AUC lies below 1/2 beyond
    noise (verdict ``"reversed"``), else None. A non-decreasing map (isotonic, Venn–ABERS) cannot follow
    such a score: PAV pools it into one block or a few, and the fit collapsed to the base rate in silence
    where Platt, beta and temperature scaling warned (1,000 rows of AUC 0.17: every output 0.512)."""
    if not pooled_auc_below_half(ybar, wsum):
        return None
    from ._platt import association  # the one DeLong verdict of the fits that warn on reversed scores

    assoc = association(s, y, w)
    return assoc if assoc.verdict == "reversed" else None


def reversed_words(name: str, assoc: Any, score_type: str, shape: str) -> str:
    """One line: the score is reversed beyond noise, what the non-decreasing fit made of it (``shape``), and
    the sign advice."""
    flip = "pass 1 - p" if score_type == "probability" else "pass the negated score"
    return (f"{name}: the score is reversed (higher scores go with FEWER positives: {assoc.describe()}); a "
            f"non-decreasing map cannot follow it: {shape}. Check the score's sign convention ({flip}) "
            "before calibrating")


def wide_span(knots_x: np.ndarray) -> bool:
    r"""Whether the knots span more than the largest double (scores near :math:`\pm` max-float): then
    :math:`x_{j+1} - x_j` can overflow to inf and its slope read 0, so a linear map is evaluated on halved
    scores and knots, :math:`\mathrm{slope}_h (x/2 - x_j/2) + y_j` (exact: halving a normal double is),
    as the exports (:mod:`veracity.export`) compute it."""
    return bool(knots_x.size > 1 and not math.isfinite(float(knots_x[-1]) - float(knots_x[0])))


class _Lookup:
    """Piecewise-linear / step map on sorted knots, evaluated with a uniform cell table.

    Gives the same numbers as :func:`numpy.interp` (same formula
    ``slope·(x − x_j) + y_j``) but locates each input's knot interval with one
    table look-up plus a few vectorised corrections instead of a branchy binary
    search, which is several times faster on unsorted input.
    """

    def __init__(self, kx: np.ndarray, ky: np.ndarray):
        self.kx, self.ky = kx, ky
        k = kx.size
        self.lo, self.hi = float(kx[0]), float(kx[-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.diff(ky) / np.diff(kx)
        self.slope = np.append(slope, 0.0)
        steep = ~np.isfinite(self.slope)
        self.steep = steep if steep.any() else None
        if self.steep is not None:
            self.slope[steep] = 0.0
        self.cells = int(min(max(4 * k, 1024), 1 << 22))
        # the cell of x is floor((x − lo)·scale), on halved values where the span overflows (knots
        # near ±max-float): x − lo would be inf there; the corrections in index() make any cell exact
        self.half = not np.isfinite(self.hi - self.lo)
        f = 0.5 if self.half else 1.0
        span = self.hi * f - self.lo * f
        self.scale = self.cells / span if span > 0 else 0.0
        starts = self.lo * f + np.arange(self.cells) * (span / self.cells)
        self.table = np.clip(np.searchsorted(kx * f, starts, side="right") - 1, 0, k - 1)
        self.next_x = np.append(kx[1:], np.inf)

    def index(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xc = np.clip(x, self.lo, self.hi)
        g = ((xc * 0.5 - self.lo * 0.5 if self.half else xc - self.lo) * self.scale).astype(np.intp)
        np.clip(g, 0, self.cells - 1, out=g)
        i = self.table[g]
        todo = np.flatnonzero(self.next_x[i] <= xc)
        while todo.size:                      # more than one knot inside the cell
            i[todo] += 1
            todo = todo[self.next_x[i[todo]] <= xc[todo]]
        todo = np.flatnonzero(self.kx[i] > xc)
        while todo.size:                      # rounding put the cell one too far
            i[todo] -= 1
            todo = todo[self.kx[i[todo]] > xc[todo]]
        return i, xc

    def linear(self, x: np.ndarray) -> np.ndarray:
        i, xc = self.index(x)
        out = self.slope[i] * (xc - self.kx[i]) + self.ky[i]
        if self.steep is not None:
            # knots closer than 1/max-float (subnormal spacing): the slope overflows, so
            # interpolate by the fraction of the interval instead (never above 1).
            j = np.flatnonzero(self.steep[i])
            if j.size:
                ij = i[j]
                t = (xc[j] - self.kx[ij]) / (self.kx[ij + 1] - self.kx[ij])
                out[j] = self.ky[ij] + t * (self.ky[ij + 1] - self.ky[ij])
        return out

    def step(self, x: np.ndarray) -> np.ndarray:
        return self.ky[self.index(x)[0]]


class IsotonicCalibration(Calibrator):
    r"""Monotone non-decreasing calibration map fit by PAV.

    Parameters: ``score_type`` (``"probability"`` default; the map is fit on the
    scores as given), ``ties`` (``"allow"`` or ``"strict"``), ``interpolation``
    (``"step"`` or ``"linear"``; with ``ties="strict"`` it is always linear).

    Fitted: ``knots_x_`` / ``knots_y_`` (the map: step starts, the two ends of every
    flat run for linear interpolation, or the centred knots for ``ties="strict"``),
    ``n_unique_`` (distinct fit scores), ``n_steps_`` (distinct outputs), ``ties_created_``.
    """

    kind = "isotonic"
    multiclass = "binary"
    _params = ("score_type", "ties", "interpolation")
    _state = ("knots_x_", "knots_y_", "n_unique_", "n_steps_", "ties_created_")

    def __init__(self, *, score_type: str = "probability", ties: str = "allow",
                 interpolation: str = "step"):
        self.score_type = score_type
        self.ties = ties
        self.interpolation = interpolation

    def _check_params(self) -> None:
        super()._check_params()
        if self.ties not in ("allow", "strict"):
            raise VeracityError(f"ties must be 'allow' or 'strict', got {self.ties!r}", param="ties")
        if self.interpolation not in ("step", "linear"):
            raise VeracityError(
                f"interpolation must be 'step' or 'linear', got {self.interpolation!r}")

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None, *,
             reversed_of: Callable[[np.ndarray, np.ndarray], Any] | None = None) -> None:
        """PAV on the pooled rows. ``reversed_of(ybar, wsum)``: the reversed verdict where the rows are not
        at hand (a lazy frame's fit passes its pooled rows and reads the verdict where they live); default
        :func:`reversed_association` on ``s, y, w``."""
        ux, ybar, wsum = pooled(s, y, w)
        from scipy.optimize import isotonic_regression  # 0.15 s to import: load on use

        fitted = isotonic_regression(ybar, weights=wsum, increasing=True).x
        # blocks = maximal runs of equal fitted value
        start = np.empty(fitted.size, dtype=bool)
        start[0] = True
        np.not_equal(fitted[1:], fitted[:-1], out=start[1:])
        self.n_unique_ = int(ux.size)
        self.n_steps_ = int(start.sum())
        self.ties_created_ = int(ux.size - self.n_steps_)
        assoc = (reversed_association(ybar, wsum, s, y, w) if reversed_of is None else
                 reversed_of(ybar, wsum))
        if assoc is not None and (self.ties == "allow" or self.n_steps_ > 1):
            shape = (f"the fit is one constant block, every output the base rate {fitted[0]:.4g}"
                     if self.n_steps_ == 1 else
                     f"the fit flattens it to {self.n_steps_} steps from {fitted[0]:.4g} to {fitted[-1]:.4g}")
            warn(reversed_words("IsotonicCalibration", assoc, self.score_type, shape))
        if self.ties == "allow":
            if self.interpolation == "step":
                keep = start                      # the step function changes only there
            else:
                end = np.empty_like(start)
                end[:-1] = start[1:]
                end[-1] = True
                keep = start | end                # a run's two ends carry its flat segment
            self.knots_x_, self.knots_y_ = ux[keep], fitted[keep]
            return
        block = np.cumsum(start) - 1
        bw = np.bincount(block, weights=wsum)
        with np.errstate(over="ignore", invalid="ignore"):
            cx = np.bincount(block, weights=wsum * ux) / bw
        if not np.isfinite(cx).all():  # scores near ±max-float: their weighted sums overflow
            m = float(np.max(np.abs(ux)))
            cx = np.bincount(block, weights=wsum * (ux / m)) / bw * m
        # a weighted mean lies within its block's scores, and the blocks are disjoint and sorted; its
        # rounding does not (Σwu/Σw of one score u can be u + 1 ulp), which with scores 1 ulp apart put a
        # knot on the next block's score or past it (knots out of order, and the fit scores' own outputs
        # interpolated between the wrong knots): each knot is held within its block's scores
        last = np.append(np.flatnonzero(start)[1:] - 1, ux.size - 1)
        cx = np.clip(cx, ux[start], ux[last])
        cy = fitted[start]
        if cy.size < 2:
            said = ("the fit is one constant block, so no strictly increasing map exists; every output is "
                    f"the base rate {cy[0]:.4g}. " + (
                        "Use more calibration rows or another calibrator" if assoc is None else
                        f"The score is reversed (higher scores go with FEWER positives: {assoc.describe()}): "
                        "check its sign convention (pass "
                        f"{'1 - p' if self.score_type == 'probability' else 'the negated score'}) before "
                        "calibrating"))
            warn(VeracityWarning("IsotonicCalibration ({setting}): " + said, "ties", value="strict",
                                 fallback="IsotonicCalibration (strict ties): " + said))
            cx = np.array([ux[0], ux[-1]]) if ux.size > 1 else np.array([ux[0]])
            cy = np.full(cx.size, cy[0])
        else:
            cx[0], cx[-1] = ux[0], ux[-1]   # the end blocks reach the fit range's ends
        self.knots_x_, self.knots_y_ = cx, cy

    def _transform(self, s: np.ndarray) -> np.ndarray:
        linear = self.ties == "strict" or self.interpolation == "linear"
        half = linear and wide_span(self.knots_x_)
        # the lookup is cached with copies of the knots it was built from (and the halving), and rebuilt when
        # they differ: knots_y_ edited by hand after a transform (clipped away from 0 and 1) kept the old
        # outputs, while to_dict saved the new ones (an O(knots) comparison beside the O(rows) transform)
        kx, ky = np.asarray(self.knots_x_, dtype=np.float64), np.asarray(self.knots_y_, dtype=np.float64)
        cached = getattr(self, "_lookup", None)
        if (cached is None or cached[2] != half or not np.array_equal(cached[0], kx)
                or not np.array_equal(cached[1], ky)):
            kx, ky = kx.copy(), ky.copy()
            cached = self._lookup = (kx, ky, half, _Lookup(kx * 0.5 if half else kx, ky))
        lookup = cached[3]
        if linear:
            return lookup.linear(s * 0.5 if half else s)
        return lookup.step(s)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        if self.ties == "strict":  # centred isotonic: always linear, strictly increasing on the fit range
            shape = ("strictly increasing on the fit range" if np.size(self.knots_y_) > 1
                     and np.all(np.diff(self.knots_y_) > 0) else "one block: constant")
            return (f"isotonic calibration (strict ties, centred, linear): "
                    f"{_counted(self.n_unique_, 'distinct score')} -> "
                    f"{_counted(np.size(self.knots_x_), 'knot')} ({shape})")
        # counts in the number they take: a fit pooled into one block said "-> 1 steps (1 ties created)"
        return (f"isotonic calibration ({self.ties} ties, {self.interpolation}): "
                f"{_counted(self.n_unique_, 'distinct score')} -> {_counted(self.n_steps_, 'step')} "
                f"({_counted(self.ties_created_, 'tie')} created)")


def _counted(n: Any, noun: str) -> str:
    """``"1 step"``, ``"26 steps"``: a count of an artifact's state (an int or a JSON number) and its noun."""
    return count_noun(int(n), noun)
