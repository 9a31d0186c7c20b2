r"""Dask's exact AUC: one shuffle of the rows by score range, then a numpy sort per task.

narwhals has no ordered window on Dask, and grouping by every distinct score
first (the generic form) is a shuffle of a table as large as the data. Here the
working rows are tagged with their score range (a ``searchsorted`` on the cut
points), shuffled once by range, and each task sorts its rows and computes, per
(slice, range) segment, every positive's share of :math:`2U`

.. math:: 2U_r = \sum_{i:\,y_i=1} w_i\,\big(W_-^{(r)}(<s_i) + W_-^{(r)}(\le s_i)\big)

from one cumulative sum of the negative weights (ties: the sums at the first and
last row of each run of equal scores). Unweighted sums are int64 — exact for any
N. Only one row per (slice, range) comes back.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _segment_numerators(df: Any, grouped: bool, weighted: bool) -> Any:
    """One row per (slice, range) of ``df``: ``_num`` (= 2U), ``_pos``, ``_neg``."""
    import pandas as pd

    keys = ["_g", "_r"] if grouped else ["_r"]
    if len(df) == 0:
        return pd.DataFrame({**{k: df[k].iloc[:0] for k in keys},
                             "_num": np.zeros(0, np.float64 if weighted else np.int64),
                             "_pos": np.zeros(0, np.float64 if weighted else np.int64),
                             "_neg": np.zeros(0, np.float64 if weighted else np.int64)})
    s = df["_s"].to_numpy(dtype=np.float64)
    r = df["_r"].to_numpy()
    if grouped:
        g_codes, g_values = pd.factorize(df["_g"], sort=False)
        order = np.lexsort((s, r, g_codes))
        g_codes = g_codes[order]
    else:
        order = np.lexsort((s, r))
    s, r = s[order], r[order]
    is_pos = df["_y"].to_numpy(dtype=np.float64)[order] == 1.0
    if weighted:
        w = df["_w"].to_numpy(dtype=np.float64)[order]
        pos, neg = np.where(is_pos, w, 0.0), np.where(is_pos, 0.0, w)
    else:
        pos, neg = is_pos.astype(np.int64), (~is_pos).astype(np.int64)
    n = s.size
    new_seg = np.empty(n, dtype=bool)
    new_seg[0] = True
    new_seg[1:] = r[1:] != r[:-1]
    if grouped:
        new_seg[1:] |= g_codes[1:] != g_codes[:-1]
    new_val = new_seg.copy()
    new_val[1:] |= s[1:] != s[:-1]
    seg_start = np.flatnonzero(new_seg)
    val_start = np.flatnonzero(new_val)
    val_end = np.append(val_start[1:], n) - 1
    cneg = np.cumsum(neg)
    before = cneg - neg  # negatives strictly before each row (whole partition)
    seg_base = np.repeat(before[seg_start], np.diff(np.append(seg_start, n)))
    run = np.diff(np.append(val_start, n))
    lt = np.repeat(before[val_start], run) - seg_base  # W-(<s) inside the segment
    le = np.repeat(cneg[val_end], run) - seg_base  # W-(<=s)
    num = pos * (lt + le)
    out = {k: (g_values[g_codes[seg_start]] if k == "_g" else r[seg_start]) for k in keys}
    out.update(_num=np.add.reduceat(num, seg_start), _pos=np.add.reduceat(pos, seg_start),
               _neg=np.add.reduceat(neg, seg_start))
    return pd.DataFrame(out)


def _tag_ranges(df: Any, bounds: np.ndarray) -> Any:
    r = np.searchsorted(bounds, df["_s"].to_numpy(dtype=np.float64), side="right").astype(np.int32)
    return df.assign(_r=r)


def auc_table(ddf: Any, *, weighted: bool, grouped: bool, bounds: list[float]) -> dict[str, list]:
    """Per (slice, score range): ``_num`` (= 2U of the range), ``_pos``, ``_neg``."""
    import pandas as pd

    cols = [*(["_g"] if grouped else []), "_s", "_y", *(["_w"] if weighted else [])]
    x = ddf[cols]
    edges = np.asarray(bounds, dtype=np.float64)
    meta = x._meta.assign(_r=np.zeros(0, np.int32))
    x = x.map_partitions(_tag_ranges, edges, meta=meta)
    ranges = edges.size + 1
    # every range in one task: shuffle by range (one range, or a single partition: gather it)
    if ranges > 1:
        x = x.shuffle(on="_r", npartitions=ranges)
    elif x.npartitions > 1:
        x = x.repartition(npartitions=1)
    keys = ["_g", "_r"] if grouped else ["_r"]
    kind = np.float64 if weighted else np.int64
    out_meta = pd.DataFrame({**{k: x._meta[k] for k in keys}, "_num": np.zeros(0, kind),
                             "_pos": np.zeros(0, kind), "_neg": np.zeros(0, kind)})
    table = x.map_partitions(_segment_numerators, grouped, weighted, meta=out_meta).compute()
    return {name: table[name].tolist() for name in table.columns}
