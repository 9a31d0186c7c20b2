"""Binning rules: bin edges and the bin index of every score.

Two strategies:

* ``"uniform"`` — M equal-width bins on [0, 1]; the index of probability p is
  ``min(floor(p·M), M−1)`` so the last bin is closed and holds p = 1.0 (seed 000).
* ``"quantile"`` — equal-mass bins: cut points at the (weighted) j/M quantiles of
  the scores. A score equal to a cut point goes to the bin above it, so equal
  scores are never split across bins; heavy ties therefore give fewer, larger
  bins than requested (duplicate cuts are dropped).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ._validation import VeracityError

Strategy = Literal["uniform", "quantile"]
STRATEGIES = ("uniform", "quantile")


def check_bins(bins: int) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise VeracityError(f"bins must be a positive integer, got {bins!r}")
    return int(bins)


def check_strategy(strategy: str) -> str:
    if strategy not in STRATEGIES:
        raise VeracityError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    return strategy


def uniform_edges(bins: int) -> np.ndarray:
    """``[0, 1/M, 2/M, …, 1]``."""
    return np.arange(bins + 1, dtype=np.float64) / bins


def quantile_edges(p: np.ndarray, bins: int, w: np.ndarray | None = None) -> np.ndarray:
    """Edges ``[0, c_1, …, c_k, 1]`` with cut points at the (weighted) j/M quantiles.

    With the scores sorted, ``c_j`` is the score at position ``floor(j·N/M)``
    (weighted: the score whose cumulative-weight interval covers ``j·W/M``).
    Cuts equal to the minimum score or to each other are dropped, so ties never
    straddle a cut.
    """
    if w is None:
        s = np.sort(p)
        pos = (np.arange(1, bins) * s.size) // bins
    else:
        # The row whose mass interval [before, before + w) covers j/M of the total:
        # with integer weights this is exactly the unweighted rule on repeated rows.
        order = np.argsort(p, kind="stable")
        s = p[order]
        cum = np.cumsum(w[order])
        pos = np.searchsorted(cum, np.arange(1, bins) * cum[-1] / bins, side="right")
        pos = np.minimum(pos, s.size - 1)
    cuts = np.unique(s[pos])
    cuts = cuts[(cuts > s[0]) & (cuts > 0.0) & (cuts < 1.0)]
    return np.concatenate(([0.0], cuts, [1.0]))


def bin_index(p: np.ndarray, edges: np.ndarray, strategy: str) -> np.ndarray:
    """Bin of every probability for the given edges (``intp`` array)."""
    m = edges.size - 1
    if strategy == "uniform":
        idx = (p * m).astype(np.intp)
        np.minimum(idx, m - 1, out=idx)
        return idx
    return np.searchsorted(edges[1:-1], p, side="right")


def make_edges(p: np.ndarray, bins: int, strategy: str, w: np.ndarray | None = None) -> np.ndarray:
    check_strategy(strategy)
    bins = check_bins(bins)
    if strategy == "uniform":
        return uniform_edges(bins)
    return quantile_edges(p, bins, w)
