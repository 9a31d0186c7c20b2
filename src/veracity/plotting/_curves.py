r"""Aggregates for threshold plots and the report's threshold explorer.

A threshold t flags a row when its score s ≥ t (DESIGN §3). With the scores
sorted once, the confusion counts at any set of thresholds come from cumulative
sums and a binary search:

.. math::

    \mathrm{TP}(t) = \sum_{i:\, s_i \ge t} w_i y_i, \qquad
    \mathrm{FP}(t) = \sum_{i:\, s_i \ge t} w_i (1 - y_i)

so the page carries a few thousand ``(t, TP, FP)`` triples, never the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: Below this many distinct scores every distinct score is a cut point.
MAX_EXACT_CUTS = 4000


@dataclass(frozen=True, eq=False)
class ThresholdCurve:
    """Confusion counts at ascending thresholds (row j flags scores ≥ ``thresholds[j]``)."""

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    positives: float
    negatives: float
    weighted: bool

    @property
    def fn(self) -> np.ndarray:
        return self.positives - self.tp

    @property
    def tn(self) -> np.ndarray:
        return self.negatives - self.fp

    @property
    def total(self) -> float:
        return self.positives + self.negatives

    def recall(self) -> np.ndarray:
        return self.tp / self.positives if self.positives > 0 else np.full(self.tp.shape, np.nan)

    def false_alarm_rate(self) -> np.ndarray:
        return self.fp / self.negatives if self.negatives > 0 else np.full(self.fp.shape, np.nan)

    def precision(self) -> np.ndarray:
        alerts = self.tp + self.fp
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(alerts > 0, self.tp / np.where(alerts > 0, alerts, 1.0), np.nan)

    def cost_per_1000(self, cost_fp: float, cost_fn: float) -> np.ndarray:
        return 1000.0 * (cost_fp * self.fp + cost_fn * self.fn) / self.total

    def to_dict(self) -> dict[str, Any]:
        def nums(a: np.ndarray) -> list[Any]:
            if not self.weighted:
                return [int(v) for v in a]
            return [float(v) for v in a]

        return {
            "thresholds": [float(t) for t in self.thresholds],
            "tp": nums(self.tp),
            "fp": nums(self.fp),
            "positives": int(self.positives) if not self.weighted else float(self.positives),
            "negatives": int(self.negatives) if not self.weighted else float(self.negatives),
            "weighted": self.weighted,
        }


def threshold_grid(p: np.ndarray, *, extra: tuple[float, ...] = (), max_cuts: int = MAX_EXACT_CUTS) -> np.ndarray:
    """Ascending cut points: every distinct score when there are few, else a fixed grid.

    The fixed grid is the union of 0, 0.001, …, 1 and ``max_cuts // 2`` score
    quantiles (actual score values), so dense regions of the score distribution
    get fine steps. ``extra`` thresholds (t*, target-recall t) are always included.
    """
    s = np.sort(p)
    distinct = np.unique(s)
    if distinct.size <= max_cuts:
        grid = distinct
    else:
        k = max_cuts // 2
        pos = (np.arange(k) * (s.size - 1)) // max(k - 1, 1)
        grid = np.concatenate((np.arange(1001) / 1000.0, s[pos]))  # k/1000 == float('0.k')
    extra_arr = np.asarray([t for t in extra if t is not None and np.isfinite(t)], dtype=np.float64)
    grid = np.concatenate((grid, extra_arr, [0.0, 1.0]))
    return np.unique(np.clip(grid, 0.0, 1.0))


def threshold_curve(
    p: np.ndarray, y: np.ndarray, w: np.ndarray | None, thresholds: np.ndarray
) -> ThresholdCurve:
    """Weighted TP and FP at each threshold with one sort and one search."""
    order = np.argsort(p, kind="stable")
    s = p[order]
    wy = y[order] if w is None else (w * y)[order]
    wn = (1.0 - y)[order] if w is None else (w * (1.0 - y))[order]
    # cum[j] = total over the j smallest rows; rows at positions >= idx are flagged.
    cum_pos = np.concatenate(([0.0], np.cumsum(wy)))
    cum_neg = np.concatenate(([0.0], np.cumsum(wn)))
    idx = np.searchsorted(s, thresholds, side="left")
    positives, negatives = float(cum_pos[-1]), float(cum_neg[-1])
    tp = positives - cum_pos[idx]
    fp = negatives - cum_neg[idx]
    weighted = w is not None
    if not weighted:
        tp, fp = np.rint(tp), np.rint(fp)
    return ThresholdCurve(
        thresholds=np.asarray(thresholds, dtype=np.float64),
        tp=tp,
        fp=fp,
        positives=positives,
        negatives=negatives,
        weighted=weighted,
    )
