r"""``vc.threshold_table`` of a frame: the confusion counts at every threshold as one aggregate.

Row *i* of the table flags the rows with ``score >= t_i``. With the finite
thresholds sorted and de-duplicated, :math:`u_1 < \dots < u_T`, each row falls in
one *gap*

.. math:: g(s) = \#\{j : u_j \le s\} \in \{0, \dots, T\}

(numpy's ``searchsorted(u, s, side="right")``), written as an expression — a
balanced tree of comparisons, so a row meets about :math:`\log_2 T` of them.
One ``group_by(gap)`` sums the positive and negative weights (integer counts
without weights, so the counts are exact for any N), and the suffix sums over
the :math:`T + 1` gaps give

.. math:: \mathrm{TP}(u_j) = \sum_{g \ge j} w_+(g),\qquad \mathrm{FP}(u_j) = \sum_{g \ge j} w_-(g).

Thresholds of ``-inf`` flag every row and ``+inf`` none (scores are finite).
In-memory frames take the array code on their columns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError, check_score_type

#: thresholds compared one by one at a leaf of the search tree
_LEAF = 4


def gap_expr(s: Any, u: np.ndarray, lo: int = 0, hi: int | None = None) -> Any:
    """``#{j : u[j] <= s}`` for sorted distinct ``u`` as a narwhals expression (a binary search).

    Inside the tree the rows are already known to satisfy ``u[lo-1] <= s < u[hi]``.
    """
    import narwhals as nw

    hi = u.size if hi is None else hi
    if hi - lo <= _LEAF:
        expr = nw.lit(lo, nw.Int64)
        for j in range(lo, hi):
            expr = expr + nw.when(s >= float(u[j])).then(nw.lit(1, nw.Int64)).otherwise(nw.lit(0, nw.Int64))
        return expr
    mid = (lo + hi) // 2
    return nw.when(s >= float(u[mid])).then(gap_expr(s, u, mid + 1, hi)).otherwise(gap_expr(s, u, lo, mid))


def gap_sums(working: Any, u: np.ndarray, *, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per gap ``0..T``: the positive and negative weights (integer counts unweighted)."""
    import narwhals as nw

    from ._aggregates import collect

    y, w = nw.col("_y"), nw.col("_w")
    if weighted:
        pos, neg = w * y, w * (1.0 - y)
    else:
        pos = y.cast(nw.Int64)
        neg = nw.lit(1, nw.Int64) - pos
    x = working.with_columns(_gap=gap_expr(nw.col("_s"), u) if u.size else nw.lit(0, nw.Int64),
                             _pos=pos, _neg=neg)
    t = collect(x.group_by("_gap").agg(nw.col("_pos").sum(), nw.col("_neg").sum()))
    gap = np.asarray(t.get_column("_gap").to_list(), dtype=np.int64)
    dtype = np.float64 if weighted else np.int64
    out_pos = np.zeros(u.size + 1, dtype=dtype)
    out_neg = np.zeros(u.size + 1, dtype=dtype)
    out_pos[gap] = np.asarray(t.get_column("_pos").to_list(), dtype=dtype)
    out_neg[gap] = np.asarray(t.get_column("_neg").to_list(), dtype=dtype)
    return out_pos, out_neg


def _at_or_above(per_gap: np.ndarray, t: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Weight at or above each threshold of ``t`` from the per-gap sums over ``u``."""
    suffix = np.cumsum(per_gap[::-1])[::-1]  # suffix[j] = weight in gaps >= j
    total = suffix[0]
    out = np.empty(t.shape[0], dtype=np.float64)
    finite = np.isfinite(t)
    out[finite] = suffix[np.searchsorted(u, t[finite], side="left") + 1]
    out[t == -np.inf] = total
    out[t == np.inf] = 0
    return out


def threshold_table_frame(fn: Any, data: Any, thresholds: Any, *, score: Any, label: Any,
                          sample_weight: Any = None, cost_fp: float = 1.0, cost_fn: float = 1.0,
                          score_type: str = "probability", pos_label: Any = None) -> Any:
    """``vc.threshold_table(frame, thresholds, score=..., label=...)`` (see the module doc)."""
    from ..decisions._inputs import check_cost
    from ..decisions._table import _thresholds_array, table_from_counts
    from ._api import _call_in_memory, _Prepared

    prep = _Prepared(data, score, label, sample_weight, pos_label=pos_label)
    score_type = check_score_type(score_type)
    if prep.multiclass:
        raise VeracityError(
            "vc.threshold_table flags one score per row; pass score= naming the column of the class to flag"
        )
    if not prep.frame.lazy:
        return _call_in_memory(prep, fn, score_type, thresholds, cost_fp=cost_fp, cost_fn=cost_fn)
    counts = prep.check_lazy(score_type)  # the array form's order: rows first, then options
    c_fp = check_cost(cost_fp, "cost_fp")
    c_fn = check_cost(cost_fn, "cost_fn")
    t = np.atleast_1d(_thresholds_array(thresholds))
    if t.ndim != 1:
        raise VeracityError(f"thresholds must be a number or a 1-D array, got shape {t.shape}")
    weighted = prep.weight is not None
    u = np.unique(t[np.isfinite(t)])
    per_pos, per_neg = gap_sums(prep.working(False), u, weighted=weighted)
    tp = _at_or_above(per_pos, t, u)
    fp = _at_or_above(per_neg, t, u)
    if weighted:
        n_pos, n_total = float(per_pos.sum()), float(per_pos.sum() + per_neg.sum())
    else:
        n_pos, n_total = float(per_pos.sum()), float(int(counts["n"]))
    return table_from_counts(t.copy(), tp, fp, n_total, n_pos, c_fp, c_fn, weighted=weighted)
