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
                 count: str = "n", exact: float | None = None) -> dict[str, np.ndarray]:
    r"""Per distinct combination of ``keys`` (name -> narwhals expression over ``frame``'s columns):
    the row count (``count``, float64) and the sum of each expression in ``sums`` (name -> expression),
    over the rows where the boolean expression ``where`` holds (every row without it).

    One aggregate where ``frame`` lives (a lazy frame is never collected whole); the groups come
    back as numpy arrays, one per name, sorted by their keys (the first key first), so that the same
    rows give the same arrays in the same order however the engine scheduled its threads.

    ``exact``: a bound :math:`B` on every summed value's magnitude (:math:`|x| \le B`; a value above it
    is refused by the engine's integer cast). On a DuckDB relation each sum is then order-independent:
    :func:`_limb_sums` splits every value into three integers and sums them exactly
    (:math:`|x| \ge 2^{-125}B` exactly, below that within :math:`2^{-178}B` each), so two runs, or two
    thread counts, give the same bits; a parallel float sum adds in whatever order the threads
    finish. Other frames sum plainly.
    """
    import narwhals as nw

    from ._aggregates import collect

    lf = frame if isinstance(frame, (nw.LazyFrame, nw.DataFrame)) else _readable(frame)
    if where is not None:
        lf = lf.filter(where)
    x = lf.with_columns(**keys, **{f"_sum_{name}": e for name, e in sums.items()})
    duck = isinstance(x, nw.LazyFrame) and str(x.implementation).split(".")[-1].lower() == "duckdb"
    if duck and exact is not None and sums:
        out = _limb_sums(x.to_native(), list(keys), list(sums), count, float(exact))
    else:
        aggs = [nw.len().alias(count), *(nw.col(f"_sum_{name}").sum().alias(name) for name in sums)]
        grouped = x.group_by(*keys).agg(*aggs)
        if duck:
            columns = grouped.to_native().fetchnumpy()  # straight into numpy (no Arrow table in between)
            out = {name: np.asarray(columns[name]) for name in (*keys, count, *sums)}
        else:
            table = collect(grouped)
            out = {name: series_to_numpy(table.get_column(name)) for name in (*keys, count, *sums)}
    out[count] = np.asarray(out[count]).astype(np.float64)
    order = np.lexsort(tuple(_sort_key(out[k]) for k in reversed(list(keys)))) if keys else np.arange(out[count].size)
    return {name: v[order] for name, v in out.items()}


_LIMB = 61  # bits per integer limb after the first: |limb| <= 2**60, and a group's BIGINT sum (HUGEINT) never overflows


def _limb_sums(rel: Any, keys: list[str], sums: list[str], count: str, bound: float) -> dict[str, np.ndarray]:
    r"""Exact, order-independent grouped sums on a DuckDB relation whose ``_sum_<name>`` columns hold values
    with :math:`|x| \le` ``bound``.

    With :math:`2^m \ge` ``bound`` and :math:`a = 60 - m`, each value is split into three integers:
    :math:`u_0 = x 2^a`, :math:`L_1 = [u_0]`, :math:`u_1 = (u_0 - L_1) 2^{61}`, :math:`L_2 = [u_1]`,
    :math:`u_2 = (u_1 - L_2) 2^{61}`, :math:`L_3 = [u_2]` (``[.]`` the engine's integer cast; every step is
    exact in binary floating point, and :math:`|L_i| \le 2^{60}`), so
    :math:`x = (L_1 + (L_2 + L_3 2^{-61}) 2^{-61}) 2^{-a}` up to :math:`2^{-a-123}`: exact for
    :math:`|x| \ge 2^{m-125}`. Integer sums (``sum(BIGINT)`` is a HUGEINT) are exact whatever the order;
    the sum is then :math:`(S_1 + (S_2 + S_3 2^{-61}) 2^{-61}) 2^{-a}` in numpy, a few roundings of the
    total instead of one per row (a plain sum errs by up to :math:`(n-1) 2^{-53} \sum |x|`).
    """
    from ..core._sql_names import quote_identifier as q

    m = min(max(int(np.ceil(np.log2(bound))) if bound > 0 else 0, -60), 1000)
    a = 60 - m
    scale = f"CAST({2 ** a} AS DOUBLE)" if a >= 0 else f"(1 / CAST({2 ** -a} AS DOUBLE))"  # exact powers of two
    step = 2 ** _LIMB
    cols = [q(f"_sum_{s}") for s in sums]
    first = [f"{c} * {scale} AS {q(f'_u0_{s}')}" for c, s in zip(cols, sums)]
    r = rel.project(", ".join([*(q(k) for k in keys), *first]))
    for i in (0, 1):
        nxt = [f"{q(f'_u{j}_{s}')}" for s in sums for j in range(i)]
        cur = [(q(f"_u{i}_{s}"), s) for s in sums]
        exprs = [*(q(k) for k in keys), *nxt,
                 *(f"{u}, ({u} - CAST({u} AS BIGINT)) * {step} AS {q(f'_u{i + 1}_{s}')}" for u, s in cur)]
        r = r.project(", ".join(exprs))
    aggs = [f"count(*) AS {q(count)}"] + [f"sum(CAST({q(f'_u{i}_{s}')} AS BIGINT)) AS {q(f'_s{i}_{s}')}"
                                           for s in sums for i in range(3)]
    group = ", ".join(q(k) for k in keys)
    got = r.aggregate(", ".join([*(q(k) for k in keys), *aggs]), group).fetchnumpy()
    out = {name: np.asarray(got[name]) for name in (*keys, count)}
    for s in sums:
        s0, s1, s2 = (np.asarray(got[f"_s{i}_{s}"], dtype=np.float64) for i in range(3))
        out[s] = (s0 + (s1 + s2 / step) / step) * 2.0 ** -a
    return out


def _sort_key(values: Any) -> np.ndarray:
    """A key's column as something :func:`numpy.lexsort` orders totally: nulls first, then the values
    (text by its characters)."""
    mask = np.ma.getmaskarray(values) if isinstance(values, np.ma.MaskedArray) else None
    v = np.ma.getdata(values)
    if v.dtype == object:
        nulls = np.array([e is None for e in v.tolist()], dtype=bool) if mask is None else mask
        v = np.where(nulls, "", v).astype(str)
        mask = nulls
    if mask is None or not mask.any():
        return np.asarray(v)
    _, rank = np.unique(np.where(mask, v.flat[0], v), return_inverse=True)
    return np.where(mask, -1, rank.ravel())


def _readable(frame: Any) -> Any:
    """A native frame (or path) as a narwhals frame, through the seam's reader."""
    from ._source import as_frame

    return as_frame(frame).nw
