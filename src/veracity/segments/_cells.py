r"""Per (segment, score cell) sums — the one aggregate every segment number is read from.

For every grouping set of the family (every row; each feature; each pair …) and
every segment of it, the rows are split by **score cell** and summed:

.. math:: n,\ \sum w,\ \sum w^2,\ \sum wp,\ \sum wy,\ \sum w^2p,\ \sum w^2p^2,

and, weighted, the third cumulant of :math:`S = \sum wy` under calibration,
:math:`\sum w^3 p(1-p)(1-2p)` (``w3k``; on the logit route :math:`p(1-p)` is :math:`\sigma(s)\sigma(-s)`
as below), :math:`\sum w^4 p(1-p)` (``w4v``) and the cell's largest weight :math:`\max w` (``wmax``, a
maximum, not a sum: margins and partitions take the largest), which the skew-aware test of weighted
rare events reads (:mod:`._tests`), and :math:`\sum w^2y` (``w2y``), from which the interval of the gap
reads the observed spread :math:`\sum w^2(y - r)^2 = (1 - 2r)\sum w^2y + r^2\sum w^2` (labels 0/1);
and the number of **contradicted** rows: a score of exactly 0 with label 1, or exactly 1
with label 0 — impossible under calibration, whatever the other rows say.

With ``score_type="logit"`` no row is contradicted: a finite logit s is never certain, though
:math:`\sigma(s)` rounds to exactly 1.0 from s ≈ 37 on (to 0.0 below s ≈ -745). The table then
also carries :math:`\sum w^2 \sigma(s)\sigma(-s)`, each row's variance :math:`p(1-p)` from its
logit (``w2v``), which the difference :math:`\sum w^2p - \sum w^2p^2` of rounded probabilities
would give as 0 (a segment of large logits whose labels disagree would read infinitely many
sigmas off). Beyond :math:`|s| \approx 708` that variance is below the smallest normal double and
is taken as that (2.2e-308): still finite, so no logit reads as certain.

The cells are the distinct probabilities when there are at most ``max_cells`` of
them (then a segment's cumulative calibration path is exact, row order within a
tie aside), otherwise ``max_cells`` equal-width cells of [0, 1] (rounded down to a
multiple of ``ece_bins``, so each cell lies inside one ECE bin). The rule depends
on the data only, so arrays, DuckDB, polars and Spark produce the same table.

Arrays are summed with ``numpy.bincount``; a lazy frame with one ``group_by`` per
grouping set, written once in narwhals and concatenated into a single query
(only the small table comes back); a Dask frame with the arrays' ``bincount`` code
on every partition, the per-partition tables added (:func:`cells_dask`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..sources._arrow_numpy import series_floats
from ..core._binning import bin_index, uniform_edges
from ._family import decode, strides
from ._spec import FeatureSpec

#: ``bad`` (contradicted rows) is carried only when some row is: a table without it has none;
#: ``w2v`` (Σ w²·σ(s)σ(-s)) only on the logit route; ``w3k`` (Σ w³·p(1-p)(1-2p)), ``w4v`` (Σ w⁴·p(1-p))
#: ``wmax`` (max w) and ``w2y`` (Σ w²·y) only when weighted
SUMS = ("n", "w", "w2", "wp", "wy", "w2p", "w2p2", "bad", "w2v", "w3k", "w4v", "wmax", "w2y")
#: the entries of SUMS that are maxima over the rows, not sums
MAXES = ("wmax",)
_BINCOUNT_LIMIT = 1 << 24
#: the smallest variance a row's logit gives: sigma(s) sigma(-s) underflows below it beyond |s| ~ 708
TINY = float(np.finfo(np.float64).tiny)


@dataclass(frozen=True, eq=False)
class CellTable:
    """Flat table: one entry per non-empty (grouping set, segment key, score cell)."""

    set_id: np.ndarray
    key: np.ndarray
    cell: np.ndarray
    sums: dict[str, np.ndarray]
    mode: str  # "distinct" or "grid"
    n_cells: int
    cell_values: np.ndarray | None  # the distinct probabilities (mode "distinct")
    weighted: bool


def grid_size(max_cells: int, ece_bins: int) -> int:
    return max(ece_bins, (max_cells // ece_bins) * ece_bins)


def cell_bins(table: CellTable, ece_bins: int) -> np.ndarray:
    """The ECE bin (equal-width, like ``vc.reliability``) of every cell index."""
    if table.mode == "distinct":
        return bin_index(table.cell_values, uniform_edges(ece_bins), "uniform")
    k = table.n_cells // ece_bins
    return np.arange(table.n_cells) // k


# ---------------------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------------------
def cells_numpy(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, codes: list[np.ndarray],
                specs: list[FeatureSpec], sets: list[tuple[int, ...]], *, max_cells: int,
                ece_bins: int, logit: np.ndarray | None = None) -> CellTable:
    r"""``logit``: the rows' logits on the logit route (``p`` is their logistic): no row is then
    contradicted, and each row's variance is :math:`\sigma(s)\sigma(-s)` (``w2v``)."""
    distinct = np.unique(p)
    if distinct.size <= max_cells:
        mode, values, C = "distinct", distinct, distinct.size
        ci = np.searchsorted(distinct, p)
    else:
        mode, values, C = "grid", None, grid_size(max_cells, ece_bins)
        ci = bin_index(p, uniform_edges(C), "uniform")
    per_row = row_terms(p, y, w, logit)
    if logit is None:
        bad = ((p == 0.0) & (y > 0)) | ((p == 1.0) & (y < 1))  # rows of weight 0 are gone
        if bad.any():  # the table carries the count only when some row is contradicted
            per_row["bad"] = bad.astype(np.float64)
    set_id, key, cell, sums = top_sums(ci, C, per_row, codes, specs, sets)
    if w is None:
        sums["w"] = sums["w2"] = sums["n"]
        sums["w2p"] = sums["wp"]
    names = [k for k in SUMS if k in sums]
    return complete(CellTable(set_id, key, cell, {k: sums[k] for k in names}, mode, C, values, w is not None),
                    specs, sets)


def row_terms(p: np.ndarray, y: np.ndarray, w: np.ndarray | None,
              logit: np.ndarray | None) -> dict[str, np.ndarray]:
    r"""Each row's terms of the sums (unweighted: :math:`w = 1`, so ``w``, ``w2``, ``w2p`` are
    read off ``n`` and ``wp``); ``logit``: plus :math:`w^2\max(\sigma(s)\sigma(-s), \text{tiny})`;
    weighted: plus :math:`w^3 v (1 - 2p)`, :math:`w^4 v`, :math:`v = p(1-p)` (``logit``: that variance),
    :math:`w^2 y`, and ``wmax``: :math:`w` itself (the cells take its maximum)."""
    if w is None:
        per_row = {"wp": p, "wy": y, "w2p2": p * p}
    else:
        w2 = w * w
        per_row = {"w": w, "w2": w2, "wp": w * p, "wy": w * y, "w2p": w2 * p, "w2p2": w2 * p * p}
    v: np.ndarray | None = None
    if logit is not None:  # a finite logit is never certain: its variance is sigma(s) sigma(-s) > 0
        from ..core._special import expit

        v = np.maximum(p * expit(-logit), TINY)
        per_row["w2v"] = v if w is None else w * w * v
    if w is not None:
        v = p * (1.0 - p) if v is None else v
        per_row["w3k"] = w * w * w * (v * (1.0 - 2.0 * p))
        per_row["w4v"] = w * w * w * w * v
        per_row["wmax"] = w
        per_row["w2y"] = w * w * y
    return per_row


def top_sums(ci: np.ndarray, C: int, per_row: dict[str, np.ndarray], codes: list[np.ndarray],
             specs: list[FeatureSpec], sets: list[tuple[int, ...]]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    r"""``(set_id, key, cell, sums)`` of the largest grouping sets (the others are their margins,
    :func:`complete`): one ``bincount`` per sum and set; ``sums["n"]`` the row counts (float64,
    exact), the others :math:`\sum` of ``per_row``'s terms (:data:`MAXES`: their maximum). ``ci``: every
    row's cell in ``0..C-1``."""
    out: dict[str, list[np.ndarray]] = {k: [] for k in ("n", *per_row)}
    set_ids, keys, cells = [], [], []
    top = max(len(s) for s in sets)
    for sid, s in enumerate(sets):
        if len(s) != top:  # a lower set is a margin of a top one (see complete())
            continue
        size = 1
        key = np.zeros(ci.size, dtype=np.int64)
        for i, st in zip(s, strides(specs, s)):
            key += codes[i] * st
            size *= specs[i].n_levels
        idx = key * C + ci
        if size * C <= _BINCOUNT_LIMIT:
            n = np.bincount(idx, minlength=size * C)
            nz = np.flatnonzero(n)
            inv, m = idx, size * C
            flat = nz
        else:
            flat, inv = np.unique(idx, return_inverse=True)
            inv = inv.reshape(-1)
            m = flat.size
            n = np.bincount(inv, minlength=m)
            nz = np.arange(m)
        out["n"].append(n[nz].astype(np.float64))
        for name, vals in per_row.items():
            if name in MAXES:
                top_of = np.zeros(m)
                np.maximum.at(top_of, inv, vals)
                out[name].append(top_of[nz])
            else:
                out[name].append(np.bincount(inv, weights=vals, minlength=m)[nz])
        keys.append(flat // C)
        cells.append(flat % C)
        set_ids.append(np.full(flat.size, sid, dtype=np.int64))
    return (np.concatenate(set_ids), np.concatenate(keys), np.concatenate(cells),
            {k: np.concatenate(v) for k, v in out.items()})


# ---------------------------------------------------------------------------------------
# lazy frames (narwhals: DuckDB, polars, Spark, Dask, Ibis …)
# ---------------------------------------------------------------------------------------
def cells_lazy(x: Any, specs: list[FeatureSpec], sets: list[tuple[int, ...]], *, weighted: bool,
               max_cells: int, ece_bins: int, n_distinct: int | None = None, certain: bool = True,
               logit: bool = False) -> CellTable:
    """``x``: a narwhals frame with ``_p`` (probability), ``_y``, ``_w`` and ``_f0 …`` (level codes);
    ``n_distinct``: the number of distinct ``_p`` when already known; ``certain=False``: no score is
    exactly 0 or 1 (then no row is contradicted, and that count is not aggregated); ``logit``: ``_s``
    holds logits (no row is contradicted; each row's variance is σ(s)σ(-s), ``w2v``)."""
    import narwhals as nw

    from ..sources._aggregates import collect, count_distinct

    if n_distinct is None:
        n_distinct = count_distinct(x)
    if x.implementation is nw.Implementation.DASK:
        return cells_dask(x.to_native(), specs, sets, weighted=weighted, max_cells=max_cells,
                          ece_bins=ece_bins, n_distinct=n_distinct, certain=certain, logit=logit)
    if n_distinct <= max_cells:
        mode, C = "distinct", n_distinct
        cell = nw.col("_p")
    else:
        mode, C = "grid", grid_size(max_cells, ece_bins)
        cell = bin_index(nw.col("_p"), uniform_edges(C), "uniform").cast(nw.Float64)
    w, p, y = nw.col("_w"), nw.col("_p"), nw.col("_y")
    if weighted:
        x = x.with_columns(_c=cell, _one=nw.lit(1, nw.Int64), _sw=w, _sw2=w * w, _swp=w * p, _swy=w * y,
                           _sw2p=w * w * p, _sw2p2=w * w * p * p)
        aggs = ["_one", "_sw", "_sw2", "_swp", "_swy", "_sw2p", "_sw2p2"]
    else:
        x = x.with_columns(_c=cell, _one=nw.lit(1, nw.Int64), _swp=p, _swy=y, _sw2p2=p * p)
        aggs = ["_one", "_swp", "_swy", "_sw2p2"]
    v = p * (1.0 - p)
    if logit:  # sigma(-s) as the probability's own formula: 1 / (1 + exp(s)), 0 beyond s = 709.78
        v = (p * (1.0 / (1.0 + nw.col("_s").exp()))).clip(lower_bound=TINY)
        x = x.with_columns(_sw2v=w * w * v if weighted else v)
        aggs.append("_sw2v")
    if weighted:  # the third cumulant of S, sum w^4 v, max w and sum w^2 y, as row_terms
        x = x.with_columns(_sw3k=w * w * w * (v * (1.0 - 2.0 * p)), _sw4v=w * w * w * w * v, _swmax=w,
                           _sw2y=w * w * y)
        aggs.extend(["_sw3k", "_sw4v", "_swmax", "_sw2y"])
    if certain and not logit:
        one, zero = nw.lit(1, nw.Int64), nw.lit(0, nw.Int64)
        x = x.with_columns(_bad=nw.when(((p == 0.0) & (y > 0.0)) | ((p == 1.0) & (y < 1.0))).then(one)
                           .otherwise(zero))
        aggs.append("_bad")
    parts = []
    top = max(len(s) for s in sets)
    for sid, s in enumerate(sets):
        if len(s) != top:  # a lower set is a margin of a top one (see complete())
            continue
        key_expr = nw.lit(0, nw.Int64)
        for i, st in zip(s, strides(specs, s)):
            key_expr = key_expr + nw.col(f"_f{i}") * nw.lit(st, nw.Int64)
        parts.append(x.with_columns(_k=key_expr).group_by(["_k", "_c"])
                     .agg(*(nw.col(a).max() if a == "_swmax" else nw.col(a).sum() for a in aggs))
                     .with_columns(_set=nw.lit(sid, nw.Int64)).select("_set", "_k", "_c", *aggs))
    t = collect(nw.concat(parts, how="vertical"))
    cols = {name: series_floats(t.get_column(name)) for name in t.columns}  # DuckDB's DECIMAL sums too
    set_id = cols["_set"].astype(np.int64)
    key = cols["_k"].astype(np.int64)
    values: np.ndarray | None = None
    if mode == "distinct":
        values = np.unique(cols["_c"])
        cellidx = np.searchsorted(values, cols["_c"])
        n_cells = values.size
    else:
        cellidx = cols["_c"].astype(np.int64)
        n_cells = C
    sums = {"n": cols["_one"], "wp": cols["_swp"], "wy": cols["_swy"], "w2p2": cols["_sw2p2"]}
    if certain and not logit:
        sums["bad"] = cols["_bad"]
    if logit:
        sums["w2v"] = cols["_sw2v"]
    if weighted:
        sums.update(w=cols["_sw"], w2=cols["_sw2"], w2p=cols["_sw2p"], w3k=cols["_sw3k"], w4v=cols["_sw4v"],
                    wmax=cols["_swmax"], w2y=cols["_sw2y"])
    else:
        sums.update(w=cols["_one"], w2=cols["_one"], w2p=cols["_swp"])
    table = CellTable(set_id, key, cellidx, sums, mode, n_cells, values, weighted)
    return complete(table, specs, sets)


# ---------------------------------------------------------------------------------------
# Dask: one numpy pass per partition
# ---------------------------------------------------------------------------------------
def _cells_part(df: Any, specs: list[FeatureSpec], sets: list[tuple[int, ...]], grid: int | None,
                weighted: bool, certain: bool, logit: bool) -> Any:
    """One partition's :func:`top_sums` as a pandas frame ``_set, _k, _c, n, <sums>``: ``_c`` the cell's
    probability (``grid=None``: the distinct probabilities are the cells, known only once every
    partition is read) or its index among ``grid`` equal-width cells."""
    import pandas as pd

    from ..sources._dask import _column

    p, y = _column(df, "_p"), _column(df, "_y")
    w = _column(df, "_w") if weighted else None
    codes = [np.asarray(df[f"_f{i}"].to_numpy(dtype=np.int64)) for i in range(len(specs))]
    if grid is None:
        values = np.unique(p)
        C, ci = values.size, np.searchsorted(values, p)
    else:
        C, ci = grid, bin_index(p, uniform_edges(grid), "uniform")
    per_row = row_terms(p, y, w, _column(df, "_s") if logit else None)
    if certain and not logit:  # counted in every partition: the frames must have the same columns
        per_row["bad"] = (((p == 0.0) & (y > 0)) | ((p == 1.0) & (y < 1))).astype(np.float64)
    set_id, key, cell, sums = top_sums(ci, C, per_row, codes, specs, sets)
    c = values[cell] if grid is None else cell.astype(np.float64)
    return pd.DataFrame({"_set": set_id, "_k": key, "_c": c, **sums})


def cells_dask(ddf: Any, specs: list[FeatureSpec], sets: list[tuple[int, ...]], *, weighted: bool,
               max_cells: int, ece_bins: int, n_distinct: int, certain: bool, logit: bool) -> CellTable:
    """:func:`cells_lazy` on a Dask frame: :func:`top_sums` (the arrays' own ``bincount`` code) on every
    partition, in chunks of :data:`veracity.sources._dask.CHUNK_ROWS` rows, and the small per-partition
    tables added here (a row per (set, segment, cell) of each). Dask's group-by expressions, one per
    grouping set, took seconds to plan for any number of rows (3,000 rows, 4 features: 3 s)."""
    from ..sources._dask import _in_chunks

    grid = None if n_distinct <= max_cells else grid_size(max_cells, ece_bins)
    cols = ["_p", "_y", *(["_w"] if weighted else []), *(["_s"] if logit else []),
            *(f"_f{i}" for i in range(len(specs)))]
    x = ddf[cols]
    args = (specs, sets, grid, weighted, certain, logit)
    meta = _cells_part(x._meta, *args).iloc[:0]
    t = x.map_partitions(_in_chunks, _cells_part, *args, meta=meta).compute()
    set_id = t["_set"].to_numpy(dtype=np.int64)
    key = t["_k"].to_numpy(dtype=np.int64)
    c = t["_c"].to_numpy(dtype=np.float64)
    values: np.ndarray | None = None
    if grid is None:
        values = np.unique(c)
        cell, n_cells = np.searchsorted(values, c), values.size
    else:
        cell, n_cells = c.astype(np.int64), grid
    raw = {k: t[k].to_numpy(dtype=np.float64) for k in SUMS if k in t.columns}
    # the same (set, segment, cell) from several partitions: one row, their sums added
    order = np.lexsort((cell, key, set_id))
    set_id, key, cell = set_id[order], key[order], cell[order]
    new = np.ones(set_id.size, dtype=bool)
    new[1:] = (set_id[1:] != set_id[:-1]) | (key[1:] != key[:-1]) | (cell[1:] != cell[:-1])
    start = np.flatnonzero(new)
    sums = {k: (np.maximum if k in MAXES else np.add).reduceat(v[order], start) if start.size else v[:0]
            for k, v in raw.items()}
    if not weighted:
        sums["w"] = sums["w2"] = sums["n"]
        sums["w2p"] = sums["wp"]
    table = CellTable(set_id[start], key[start], cell[start], {k: sums[k] for k in SUMS if k in sums},
                      "distinct" if grid is None else "grid", n_cells, values, weighted)
    return complete(table, specs, sets)


def canonical(table: CellTable) -> CellTable:
    order = np.lexsort((table.cell, table.key, table.set_id))
    return CellTable(table.set_id[order], table.key[order], table.cell[order],
                     {k: v[order] for k, v in table.sums.items()}, table.mode, table.n_cells, table.cell_values,
                     table.weighted)


def complete(table: CellTable, specs: list[FeatureSpec], sets: list[tuple[int, ...]]) -> CellTable:
    """Add every grouping set the table lacks as a margin of a larger one it holds, in canonical order.

    Only the largest sets (every pair, at depth 2) are aggregated over the rows; each single
    feature, and every row together, is a sum over one of them — one pass fewer per set.
    """
    have = set(np.unique(table.set_id).tolist())
    C = table.n_cells
    parts = [(table.set_id, table.key, table.cell, table.sums)]
    for sid, s in enumerate(sets):
        if sid in have:
            continue
        tid = next(t for t in sorted(have) if set(s) <= set(sets[t]))
        m = table.set_id == tid
        codes = decode(specs, sets[tid], table.key[m])
        key = np.zeros(int(m.sum()), dtype=np.int64)
        for i, st in zip(s, strides(specs, s)):
            key += codes[:, sets[tid].index(i)] * st
        flat, inv = np.unique(key * C + table.cell[m], return_inverse=True)
        inv = inv.reshape(-1)
        sums = {k: _margin(inv, v[m], flat.size, k in MAXES) for k, v in table.sums.items()}
        parts.append((np.full(flat.size, sid, dtype=np.int64), flat // C, flat % C, sums))
    set_id = np.concatenate([p[0] for p in parts])
    key = np.concatenate([p[1] for p in parts])
    cell = np.concatenate([p[2] for p in parts])
    sums = {k: np.concatenate([p[3][k] for p in parts]) for k in table.sums}
    order = np.lexsort((cell, key, set_id))
    return CellTable(set_id[order], key[order], cell[order], {k: v[order] for k, v in sums.items()}, table.mode,
                     C, table.cell_values, table.weighted)


def _margin(inv: np.ndarray, values: np.ndarray, size: int, largest: bool) -> np.ndarray:
    """The sum (``largest``: the maximum) of ``values`` within each of ``size`` groups ``inv``."""
    if not largest:
        return np.bincount(inv, weights=values, minlength=size)
    out = np.zeros(size)
    np.maximum.at(out, inv, values)
    return out
