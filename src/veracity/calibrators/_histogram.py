r"""Histogram binning (Zadrozny & Elkan 2001).

The probability axis is cut into ``bins`` equal-width or equal-mass bins (the
audit core's binning rules); each bin outputs the (weighted) rate of positives
of its calibration rows. Empty bins output their midpoint. Unlike isotonic
regression the bin rates need not increase, so the map may reorder scores;
:func:`veracity.compare` reports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..core._special import expit

from ..core._binning import (bin_index, check_bins, check_strategy, make_edges, quantile_picks,
                              is_uniform_edges, resolve_bins)
from ..core._validation import VeracityError
from ._base import Calibrator


def score_edges(s: np.ndarray, bins: int | str, w: np.ndarray | None) -> np.ndarray:
    """Equal-mass edges on a ranking score's own values: ``[min, c_1, …, c_k, max]`` with the
    cuts of :func:`veracity.core._binning.quantile_edges` (only the score's order matters)."""
    m = resolve_bins(bins, s, w)
    if w is None:
        srt = np.sort(s)
        cuts = quantile_picks(srt, m)
    else:
        order = np.argsort(s, kind="stable")
        srt = s[order]
        cuts = quantile_picks(srt, m, weights=w[order])
    cuts = cuts[cuts > srt[0]]
    return np.concatenate(([srt[0]], cuts, [max(srt[-1], cuts[-1]) if cuts.size else srt[-1]]))


def _short(edges: np.ndarray) -> str:
    shown = ", ".join(f"{float(e):.6g}" for e in np.asarray(edges)[:6])
    return f"[{shown}, ...]" if np.size(edges) > 6 else f"[{shown}]"


class HistogramBinning(Calibrator):
    r"""Histogram binning: each bin of the probability axis outputs its positive rate.

    Parameters: ``score_type`` (``"probability"`` default; logits pass through
    the sigmoid first), ``bins`` (default 10), ``strategy`` (``"uniform"`` or
    ``"quantile"``). Fitted: ``edges_``, ``values_``, ``counts_`` (weight per bin).
    """

    kind = "histogram"
    multiclass = "binary"
    _params = ("score_type", "bins", "strategy")
    _state = ("edges_", "values_", "counts_")

    def __init__(self, *, score_type: str = "probability", bins: int = 10,
                 strategy: str = "uniform"):
        self.score_type = score_type
        self.bins = bins
        self.strategy = strategy

    def _check_params(self) -> None:
        super()._check_params()
        b = self.bins
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer)) or b < 1:
            # check_bins' own message offers bins='auto', which a saved calibrator does not take
            raise VeracityError(f"bins must be a positive whole number of bins, e.g. 10; got {b!r}", param="bins")
        check_bins(b, auto=False)
        check_strategy(self.strategy)
        if self.score_type == "score" and self.strategy != "quantile":
            raise VeracityError(
                f"HistogramBinning(score_type='score') bins a ranking score on its order, but strategy="
                f"{self.strategy!r} cuts the probability axis: pass {{setting}}", param="strategy", value="quantile")

    def _p(self, s: np.ndarray) -> np.ndarray:
        return expit(s) if self.score_type == "logit" else s

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        p = self._p(s)
        edges = score_edges(p, self.bins, w) if self.score_type == "score" else make_edges(
            p, self.bins, self.strategy, w)
        idx = bin_index(p, edges, self.strategy)
        m = edges.size - 1
        wt = np.ones_like(p) if w is None else w
        counts = np.bincount(idx, weights=wt, minlength=m)
        pos = np.bincount(idx, weights=wt * y, minlength=m)
        mid = 0.5 * (edges[:-1] + edges[1:])
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(counts > 0, pos / np.where(counts > 0, counts, 1.0), mid)
        self.edges_, self.values_, self.counts_ = edges, values, user_counts(counts, self._weight_unit)

    def _load_state(self, state: dict[str, Any]) -> None:
        r"""An artifact's edges must be the ones its ``strategy`` and ``bins`` fit (a re-fit would
        otherwise differ from the saved map): ``"uniform"`` bins are
        :math:`\min(\lfloor pM \rfloor, M-1)` whatever ``edges_`` say, so edited edges would be ignored
        silently (and a ranking score's edges would index the bins from the end)."""
        super()._load_state(state)
        m = int(np.size(self.edges_)) - 1
        if self.score_type == "score" and self.strategy != "quantile":
            raise VeracityError(
                "calibrator artifact: a HistogramBinning of a ranking score (score_type='score') bins on "
                f"its order, but params.strategy is {self.strategy!r}; re-fit it with strategy='quantile'")
        if m > self.bins or (self.strategy == "uniform" and m != self.bins):
            # a quantile fit keeps at most `bins` bins (tied cuts merge); a uniform one exactly `bins`
            most = "" if self.strategy == "uniform" else "at most "
            raise VeracityError(
                f"calibrator artifact: state.edges_ hold {m} bins but params.bins is {self.bins} (strategy="
                f"{self.strategy!r} fits {most}{self.bins}); re-fit and save it rather than editing it")
        equal_width = is_uniform_edges(np.asarray(self.edges_, dtype=np.float64))
        if self.strategy == "uniform" and not equal_width:
            raise VeracityError(
                f"calibrator artifact: state.edges_ must be the {m} equal-width bins [0, 1/{m}, ..., 1] of "
                f"strategy='uniform', got {_short(self.edges_)}; re-fit and save it rather than editing it")

    def _transform(self, s: np.ndarray) -> np.ndarray:
        return self.values_[bin_index(self._p(s), self.edges_, self.strategy)]

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        return (f"histogram binning: {self.values_.size} {self.strategy} bins, "
                f"{int((self.counts_ == 0).sum())} empty")


def user_counts(counts: np.ndarray, unit: float) -> np.ndarray:
    r"""``counts_`` in the caller's units: the bins' weight totals of weights multiplied by ``unit``
    (:math:`2^k`, exact) divided by it again (extreme weights had left :math:`2^k \sum w` there: 16.8 for
    bins of 1e-200 weights). A total beyond the largest double, of weights near it, is kept at the largest
    double (it has no float64 value, and an artifact holds finite numbers)."""
    if unit == 1.0:
        return counts
    with np.errstate(over="ignore"):
        out = np.ldexp(counts, -(int(np.frexp(unit)[1]) - 1))
    return np.minimum(out, np.finfo(np.float64).max)
