r"""Grouped sums over any keys, computed where the rows live — for callers with their own grouping.

:func:`grouped_sums` is one aggregate over a frame (a DuckDB relation, a polars lazy frame, any
table :func:`._source.as_frame` reads): per distinct combination of the *key* expressions, the
row count and the sum of each *value* expression; only the groups come back, as numpy columns.
The monitoring store groups its predictions by (period, slice, label state, score bin, logit
cell, threshold flag) this way; every key is built from the one kernel of its rule:

* :func:`score_bin` — the equal-width score bin, :func:`veracity.core._binning.bin_index`;
* :func:`logit_cell` — the equal-width cell of a logit :math:`\eta` on :math:`[-a, a]` (the same
  bin index on :math:`(\eta + a) / 2a`, clipped into [0, 1]);
* :func:`at_threshold` — 1 when the score is at or above the threshold, else 0: the threshold
  gap of :mod:`._thresholds` (``score >= t``), so per-key counts at a threshold are sums over
  the flag.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrow_numpy import series_to_numpy
from ..core._binning import bin_index, uniform_edges


def score_bin(p: Any, bins: int) -> Any:
    """The equal-width bin of a probability expression: :func:`~veracity.core._binning.bin_index`."""
    return bin_index(p, uniform_edges(bins), "uniform")


def logit_cell(eta: Any, cells: int, span: float) -> Any:
    r"""The cell of a logit :math:`\eta` (an expression) among ``cells`` equal-width cells on
    :math:`[-a, a]` (``span`` = :math:`a`; below and above it the first and the last cell):
    :func:`~veracity.core._binning.bin_index` of :math:`\min(\max((\eta + a) / 2a, 0), 1)`."""
    u = ((eta + float(span)) / (2.0 * float(span))).clip(0.0, 1.0)
    return bin_index(u, uniform_edges(cells), "uniform")


def at_threshold(p: Any, threshold: float) -> Any:
    """1 where ``p >= threshold``, else 0 (an ``Int64`` expression): the row's gap among the one
    threshold (:func:`._thresholds.gap_expr`), so sums over the flag are counts at the threshold."""
    from ._thresholds import gap_expr, thresholds_grid

    return gap_expr(p, thresholds_grid(np.array([float(threshold)])))


def grouped_sums(frame: Any, keys: dict[str, Any], sums: dict[str, Any], *, where: Any = None,
                 count: str = "n") -> dict[str, np.ndarray]:
    """Per distinct combination of ``keys`` (name -> narwhals expression over ``frame``'s columns):
    the row count (``count``, float64) and the sum of each expression in ``sums`` (name -> expression),
    over the rows where the boolean expression ``where`` holds (every row without it).

    One aggregate where ``frame`` lives (a lazy frame is never collected whole); the groups come
    back as numpy arrays, one per name, in no particular order.
    """
    import narwhals as nw

    from ._aggregates import collect

    lf = frame if isinstance(frame, (nw.LazyFrame, nw.DataFrame)) else _readable(frame)
    if where is not None:
        lf = lf.filter(where)
    x = lf.with_columns(**keys, **{f"_sum_{name}": e for name, e in sums.items()})
    aggs = [nw.len().alias(count), *(nw.col(f"_sum_{name}").sum().alias(name) for name in sums)]
    grouped = x.group_by(*keys).agg(*aggs)
    if isinstance(grouped, nw.LazyFrame) and str(grouped.implementation).split(".")[-1].lower() == "duckdb":
        columns = grouped.to_native().fetchnumpy()  # straight into numpy (no Arrow table in between)
        out = {name: np.asarray(columns[name]) for name in (*keys, count, *sums)}
    else:
        table = collect(grouped)
        out = {name: series_to_numpy(table.get_column(name)) for name in (*keys, count, *sums)}
    out[count] = out[count].astype(np.float64)
    return out


def _readable(frame: Any) -> Any:
    """A native frame (or path) as a narwhals frame, through the seam's reader."""
    from ._source import as_frame

    return as_frame(frame).nw
