r"""Dask: the exact AUC in one shuffle by score range, and the per-partition numpy passes.

narwhals has no ordered window on Dask, and grouping by every distinct score
first (the generic form) is a shuffle of a table as large as the data. Here the
working rows are tagged with their score range (a ``searchsorted`` on the cut
points), shuffled once by range, and each task computes its ranges' Mann–Whitney
numerators with :func:`._range_auc.slice_numerators` (the same numpy code as
Spark's workers; unweighted sums are int64, exact for any N). Only one row per
(slice, range) comes back.

The input contract's counts and the per-bin sums are one numpy pass per
partition, in chunks of :data:`CHUNK_ROWS` rows so that a large partition's
temporaries stay small; so are multiclass scores' top-label columns and their contract's counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _segment_numerators(df: Any, grouped: bool, weighted: bool, bounds: np.ndarray, whole: bool = False) -> Any:
    """One row per (slice, range) of ``df``: ``_num`` (= 2U), ``_pos``, ``_neg`` — Spark's worker
    code (:func:`._range_auc.range_numerators`) on the partition as Arrow."""
    import pyarrow as pa

    from ._range_auc import range_numerators

    keys = ["_g", "_r"] if grouped else ["_r"]
    cols = [*(["_g"] if grouped else []), "_s", "_y", *(["_w"] if weighted else [])]
    batches = pa.Table.from_pandas(df[cols], preserve_index=False).to_batches()
    kind = np.float64 if weighted else np.int64
    empty = df[keys].iloc[:0].assign(**{k: np.zeros(0, kind) for k in ("_num", "_pos", "_neg")})
    if whole and grouped:
        empty = empty.assign(_all=np.zeros(0, bool))
    batch = next(range_numerators(iter(batches), list(bounds), grouped, weighted, whole), None)  # one, or none
    if batch is None:
        return empty
    # an integer key column with a missing key (or the whole table's rows, ``_g`` null) as Python ints and
    # None: pandas' float64 made 2**53 + 1 the key 2**53, whose slice then got two slices' ranges (a wrong
    # AUC) and the other none
    out = batch.to_pandas(integer_object_nulls=True)
    return out.astype({k: empty[k].dtype for k in empty.columns if k != "_g"})


def _tag_ranges(df: Any, bounds: np.ndarray) -> Any:
    """Each row's score range, and its label as a boolean (less to shuffle)."""
    r = np.searchsorted(bounds, df["_s"].to_numpy(dtype=np.float64), side="right").astype(np.int32)
    return df.assign(_y=df["_y"].to_numpy(dtype=np.float64) == 1.0, _r=r)


def _shuffle_method() -> str | None:
    """The user's configured shuffle method, else Dask's own on a distributed cluster (p2p), else
    in-memory ``"tasks"``: on the local schedulers Dask's default ("disk", through partd) was both
    slower and larger here (1e8 rows: 30 s / 6.8 GB against 20 s / 4.5 GB)."""
    import dask

    if dask.config.get("dataframe.shuffle.method", None):
        return None
    try:
        from distributed import default_client

        default_client()  # type: ignore[no-untyped-call]
        return None
    except (ImportError, ValueError):
        return "tasks"


def auc_table(ddf: Any, *, weighted: bool, grouped: bool, bounds: list[float],
              whole: bool = False) -> dict[str, list[Any]]:
    """Per (slice, score range): ``_num`` (= 2U of the range), ``_pos``, ``_neg`` (``whole``: plus the
    ranges of all rows together, ``_all`` true)."""
    import pandas as pd

    cols = [*(["_g"] if grouped else []), "_s", "_y", *(["_w"] if weighted else [])]
    x = ddf[cols]
    edges = np.asarray(bounds, dtype=np.float64)
    meta = x._meta.assign(_y=np.zeros(0, bool), _r=np.zeros(0, np.int32))
    x = x.map_partitions(_tag_ranges, edges, meta=meta)
    ranges = edges.size + 1
    # every range in one task: shuffle by range (one range, or a single partition: gather it)
    if ranges > 1:
        x = x.shuffle(on="_r", npartitions=ranges, shuffle_method=_shuffle_method())
    elif x.npartitions > 1:
        x = x.repartition(npartitions=1)
    keys = ["_g", "_r"] if grouped else ["_r"]
    kind = np.float64 if weighted else np.int64
    out_meta = pd.DataFrame({**{k: x._meta[k] for k in keys}, "_num": np.zeros(0, kind),
                             "_pos": np.zeros(0, kind), "_neg": np.zeros(0, kind),
                             **({"_all": np.zeros(0, bool)} if whole and grouped else {})})
    table = x.map_partitions(_segment_numerators, grouped, weighted, edges, whole, meta=out_meta).compute()
    out = {name: table[name].tolist() for name in table.columns}
    if grouped:
        out["_g"] = [_key(k) for k in out["_g"]]
    return out


def _key(value: Any) -> Any:
    """A slice key as the other backends give it: a missing key is ``None``."""
    import pandas as pd

    return None if pd.api.types.is_scalar(value) and pd.isna(value) else value


# ---------------------------------------------------------------------------------------
# the input contract's counts and the per-bin sums: one numpy pass per partition
# ---------------------------------------------------------------------------------------
_CONTRACT_SUMS = ("n", "s_miss", "s_inf", "p_bad", "y_bad", "w_bad", "w_neg", "w_sum", "y_sum")
_CONTRACT_MIN = ("s_min", "y_min", "w_min", "w_pos_min")
_CONTRACT_MAX = ("s_max", "y_max", "w_max")


#: rows per numpy pass inside a partition (a partition of 1e7+ rows would otherwise make
#: a dozen full-size temporaries at once)
CHUNK_ROWS = 1 << 20


def _in_chunks(df: Any, part_fn: Any, *args: Any) -> Any:
    """``part_fn`` over ``CHUNK_ROWS``-row slices of ``df``, its rows concatenated (they are summed later)."""
    import pandas as pd

    if len(df) <= CHUNK_ROWS:
        return part_fn(df, *args)
    return pd.concat([part_fn(df.iloc[i:i + CHUNK_ROWS], *args) for i in range(0, len(df), CHUNK_ROWS)],
                     ignore_index=True)


def _column(df: Any, name: str) -> np.ndarray:
    return np.asarray(df[name].to_numpy(dtype=np.float64, na_value=np.nan))


def _lo_hi(values: np.ndarray) -> tuple[float, float]:
    return (float(values.min()), float(values.max())) if values.size else (np.nan, np.nan)


def _contract_part(df: Any) -> Any:
    """One partition's contract aggregates (:func:`._aggregates.contract_row`, the numpy pass an
    in-memory frame's rows make too) as a one-row pandas frame."""
    import pandas as pd

    from ._aggregates import contract_row

    row = contract_row(_column(df, "_s"), _column(df, "_y"), _column(df, "_w"))
    return pd.DataFrame({k: [v] for k, v in row.items()})


def _contract_graph(ddf: Any) -> Any:
    return ddf[["_s", "_y", "_w"]].map_partitions(_in_chunks, _contract_part, meta=_contract_part(ddf._meta))


def contract_counts(ddf: Any) -> dict[str, Any]:
    """The same counts as :func:`._aggregates.contract_counts`, from one row per partition."""
    return _contract_from_parts(_contract_graph(ddf).compute())


def _contract_from_parts(parts: Any) -> dict[str, Any]:
    out: dict[str, Any] = {k: int(parts[k].sum()) for k in _CONTRACT_SUMS if k not in ("w_sum", "y_sum")}
    out["w_sum"], out["y_sum"] = float(parts["w_sum"].sum()), float(parts["y_sum"].sum())
    for k in _CONTRACT_MIN:
        v = parts[k].min()
        out[k] = None if np.isnan(v) else float(v)
    for k in _CONTRACT_MAX:
        v = parts[k].max()
        out[k] = None if np.isnan(v) else float(v)
    return out


_BIN_SUMS = ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "correct",
             "sum_r", "sum_q1", "sum_r2")
#: Σw²y, Σw²p(1 − p): only where a weight column is given (the array code's BinStats computes them)
_SQUARE_SUMS = ("sum_w2y", "sum_w2pq")


def _bins_part(df: Any, edges: np.ndarray, strategy: str, score_type: str, threshold: float,
               grouped: bool, top_label: bool, weighted: bool = False) -> Any:
    import pandas as pd

    from ..core._binning import bin_index
    from ..core._special import expit
    from ..core._stats import BinStats
    from ..core._validation import Binary

    m = edges.size - 1
    s, y = _column(df, "_s"), _column(df, "_y")
    w = _column(df, "_w")
    logit = score_type == "logit"
    p = expit(s) if logit else s
    nll = _column(df, "_l") if top_label else None
    if top_label:
        right = y
    else:
        if logit and 0.0 < threshold < 1.0:  # decide on the logit scale, like vc.accuracy
            hit = s >= np.log(threshold / (1.0 - threshold))
        else:
            hit = p >= threshold
        right = (hit == (y == 1.0)).astype(np.float64)
    if grouped:
        codes, keys = pd.factorize(df["_g"], sort=False, use_na_sentinel=False)  # missing: a slice
    else:
        codes, keys = np.zeros(s.size, np.intp), [None]
    frames = []
    for k, key in enumerate(keys):  # a loop over slices, never rows
        rows = codes == k
        data = Binary(p=p[rows], y=y[rows], w=w[rows], logit=s[rows] if logit else None,
                      nll_terms=None if nll is None else nll[rows])
        st = BinStats.from_binary(data, edges, strategy, squares=weighted)
        idx = np.bincount(bin_index(p[rows], edges, strategy), weights=w[rows] * right[rows], minlength=m)
        frame: dict[str, Any] = {"_b": np.arange(m), "count": st.count.astype(np.float64), "weight": st.weight,
                 "weight_sq": st.weight_sq, "sum_p": st.sum_p, "sum_y": st.sum_y, "sum_p2": st.sum_p2,
                 "sum_py": st.sum_py, "sum_nll": st.sum_nll, "correct": idx, "sum_r": st.sum_r,
                 "sum_q1": st.sum_q1, "sum_r2": st.sum_r2}
        if weighted:
            frame.update(sum_w2y=st.sum_w2y, sum_w2pq=st.sum_w2pq)
        if grouped:  # in the column's own dtype (a list of one Int64 key and NA would come back as floats)
            frame = {"_g": keys[np.full(m, k)], **frame}
        frames.append(pd.DataFrame(frame))
    if not frames:
        empty = {"_b": np.zeros(0, np.int64), **{name: np.zeros(0) for name in _sum_names(weighted)}}
        return pd.DataFrame({"_g": df["_g"].iloc[:0], **empty} if grouped else empty)
    return pd.concat(frames, ignore_index=True)




def _sum_names(weighted: bool) -> tuple[str, ...]:
    """The per-bin sums a partition returns (:data:`_BIN_SUMS`; :data:`_SQUARE_SUMS` too when
    ``weighted``)."""
    return (*_BIN_SUMS, *_SQUARE_SUMS) if weighted else _BIN_SUMS


def _valid_bins_part(df: Any, edges: np.ndarray, strategy: str, score_type: str, threshold: float,
                     grouped: bool, top_label: bool, weighted: bool = False) -> Any:
    """:func:`_bins_part` of the rows that keep the input contract (the others are counted apart)."""
    s, y = _column(df, "_s"), _column(df, "_y")
    ok = np.isfinite(s) & ((y == 0.0) | (y == 1.0))
    if score_type == "probability":
        ok &= (s >= 0.0) & (s <= 1.0)
    return _bins_part(df if ok.all() else df[ok], edges, strategy, score_type, threshold, grouped, top_label,
                      weighted)


def _bins_graph(ddf: Any, part_fn: Any, edges: np.ndarray, strategy: str, score_type: str, threshold: float,
                grouped: bool, top_label: bool, weighted: bool = False) -> Any:
    cols = [*(["_g"] if grouped else []), "_s", "_y", "_w", *(["_l"] if top_label else [])]
    x = ddf[cols]
    args = (edges, strategy, score_type, threshold, grouped, top_label, weighted)
    return x.map_partitions(_in_chunks, part_fn, *args, meta=_bins_part(x._meta, *args))


def bin_sums(ddf: Any, *, edges: np.ndarray, strategy: str, score_type: str, threshold: float,
             grouped: bool, top_label: bool, weighted: bool = True) -> dict[Any, dict[str, np.ndarray]]:
    """Per slice: per-bin count and sums, each partition through the array code's ``BinStats``
    (``weighted``: Σw²y and Σw²p(1 − p) too)."""
    table = _bins_graph(ddf, _bins_part, edges, strategy, score_type, threshold, grouped, top_label,
                        weighted).compute()
    return _bins_from_table(table, edges, grouped, weighted)


def bin_sums_and_contract(ddf: Any, *, edges: np.ndarray, score_type: str, threshold: float,
                          grouped: bool) -> tuple[dict[Any, dict[str, np.ndarray]], dict[str, Any]]:
    """:func:`bin_sums` of the valid rows and :func:`contract_counts` in one compute (one read)."""
    import dask

    bins = _bins_graph(ddf, _valid_bins_part, edges, "uniform", score_type, threshold, grouped, False)
    parts, table = dask.compute(_contract_graph(ddf), bins)  # type: ignore[no-untyped-call]
    return _bins_from_table(table, edges, grouped), _contract_from_parts(parts)


def _bins_from_table(table: Any, edges: np.ndarray, grouped: bool,
                     weighted: bool = False) -> dict[Any, dict[str, np.ndarray]]:
    m = edges.size - 1
    out: dict[Any, dict[str, np.ndarray]] = {}
    # a float32 key column's keys as the float32 each is (the slice '0.1', as every other route names it),
    # not the double pandas' groupby hands back (0.10000000149011612: another name for the same slice)
    single = grouped and str(table["_g"].dtype).lower() == "float32"
    # observed=True: a categorical key's absent categories are no slices (and pandas warns without it)
    parts = table.groupby("_g", sort=False, dropna=False, observed=True) if grouped else [(None, table)]
    for key, part in parts:
        key = _key(key)
        if single and key is not None:
            key = np.float32(key)
        acc: dict[str, np.ndarray] = {name: np.zeros(m) for name in _sum_names(weighted)}
        b = part["_b"].to_numpy(dtype=np.intp)
        for name in _sum_names(weighted):
            acc[name] = np.bincount(b, weights=part[name].to_numpy(dtype=np.float64), minlength=m)
        if acc["count"].sum() > 0:
            out[key] = acc
    return out


def _gap_part(df: Any, u: np.ndarray, weighted: bool) -> Any:
    """Per gap ``0..T`` of the sorted distinct thresholds ``u``: the positive and negative weights of
    the partition's rows (integer counts unweighted), one row per gap in gap order -- the arrays'
    :func:`._thresholds.array_gap_sums` of its positive and of its negative rows."""
    import pandas as pd

    from ._thresholds import array_gap_sums

    s, y = _column(df, "_s"), _column(df, "_y")
    if weighted:
        w = _column(df, "_w")
        return pd.DataFrame({"_pos": array_gap_sums(s, w * y, u), "_neg": array_gap_sums(s, w * (1.0 - y), u)})
    pos = array_gap_sums(s[y == 1.0], None, u).astype(np.int64)
    return pd.DataFrame({"_pos": pos, "_neg": array_gap_sums(s, None, u).astype(np.int64) - pos})


def gap_sums(ddf: Any, u: np.ndarray, *, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`veracity.sources._thresholds.gap_sums` on Dask: one numpy pass per partition (a
    ``searchsorted`` and two ``bincount``), the per-partition tables summed here. The generic form's
    expression tree of comparisons (two per threshold) took Dask ~2.5 s per 100 thresholds to build and
    plan, for any number of rows."""
    x = ddf[["_s", "_y", "_w"]]
    meta = _gap_part(x._meta, u, weighted).iloc[:0]
    table = x.map_partitions(_in_chunks, _gap_part, u, weighted, meta=meta).compute()
    m = u.size + 1
    dtype = np.float64 if weighted else np.int64
    pos = table["_pos"].to_numpy(dtype=dtype).reshape(-1, m).sum(axis=0)
    neg = table["_neg"].to_numpy(dtype=dtype).reshape(-1, m).sum(axis=0)
    return pos, neg


# ---------------------------------------------------------------------------------------
# multiclass scores: the top-label reading, one numpy pass per partition
# ---------------------------------------------------------------------------------------
def _class_scores(df: Any, k: int) -> np.ndarray:
    """The partition's class scores ``__vc_s0..`` as one (rows, K) float64 array in C order, as the
    array form holds them (:func:`veracity.core._validation.row_sums_off_one` reads rows in that order)."""
    return np.column_stack([_column(df, f"__vc_s{i}") for i in range(k)])


def _top_label_part(df: Any, k: int, logit: bool, grouped: bool) -> Any:
    r""":func:`._multiclass.top_label_base`'s working columns on one partition of its selected columns
    ``__vc_s0..``, ``__vc_y``, ``_w`` (``_g``), by the array form's own row math
    (:func:`~veracity.core._validation.class_probabilities`, then
    :func:`~veracity.core._validation.top_label_rows`): ``_s`` the confidence :math:`\max_k p_k`,
    ``_y`` correct :math:`[\arg\max_k p_k = y]`, ``_l`` the log-loss :math:`-\log p_y`. The rows
    keep the contract here (:func:`top_label_counts` checked them first)."""
    import pandas as pd

    from ..core._validation import class_probabilities, top_label_rows

    P, logP = class_probabilities(_class_scores(df, k), logit=logit)
    y = _column(df, "__vc_y").astype(np.intp)
    conf, correct, loss = top_label_rows(P, y, logP)
    out = pd.DataFrame({"_s": conf, "_y": correct}, index=df.index)
    out["_w"] = df["_w"]
    out["_l"] = loss
    if grouped:
        out["_g"] = df["_g"]
    return out


def top_label_frame(ddf: Any, k: int, score_type: str, grouped: bool) -> Any:
    """The working columns ``_s, _y, _w, _l`` (``_g``) of multiclass scores: one ``map_partitions``.
    The same steps as narwhals expressions (a column per step) made a tree that Dask's optimiser took
    ~4 s to simplify per compute, for any number of rows (three computes per audit)."""
    args = (k, score_type == "logit", grouped)
    return ddf.map_partitions(_top_label_part, *args, meta=_top_label_part(ddf._meta, *args))


def _top_label_counts_part(df: Any, k: int) -> Any:
    import pandas as pd

    from ..core._validation import row_sums_off_one

    raw = _class_scores(df, k)
    y = _column(df, "__vc_y")
    ok = np.isfinite(raw).all(axis=1)
    y_bad = ~((y == np.round(y, 0)) & (y >= 0) & (y <= float(k - 1)))
    finite = raw if ok.all() else raw[ok]
    lo, hi = _lo_hi(finite)
    sum_bad = row_sums_off_one(finite)[1]  # the array form's row sums and tolerance
    y_min, y_max = _lo_hi(y[y_bad & ~np.isnan(y)])
    row = {"n": float(y.size), "bad": float((~ok).sum()), "y_bad": float(y_bad.sum()), "lo": lo, "hi": hi,
           "sum_bad": float(sum_bad.sum()), "y_min": y_min, "y_max": y_max,
           # rows with a score outside [0, 1], and each column's min and max (the refusal names the first)
           "out_rows": float(((finite < 0.0) | (finite > 1.0)).any(axis=1).sum())}
    for j in range(k):
        row[f"lo{j}"], row[f"hi{j}"] = _lo_hi(finite[:, j])
    return pd.DataFrame({name: [value] for name, value in row.items()})


def _top_label_rounding_part(df: Any, k: int) -> Any:
    import pandas as pd

    from ..core._validation import ROUNDING_DECIMALS, multiple_of_decimals, row_sums_off_one

    raw = _class_scores(df, k)
    finite = raw[np.isfinite(raw).all(axis=1)]
    sums, bad = row_sums_off_one(finite)
    off = finite[bad]
    row = {"off": float(np.max(np.abs(sums[bad] - 1.0))) if off.size else 0.0}
    for d in ROUNDING_DECIMALS:
        row[f"d{d}"] = float(np.count_nonzero(~multiple_of_decimals(off, d).all(axis=1)))
    return pd.DataFrame({name: [value] for name, value in row.items()})


def top_label_rounding(ddf: Any, k: int) -> int | None:
    """:func:`~veracity.core._validation.rounded_decimals` of the class scores ``__vc_s0..`` whose rows are
    off 1 (:func:`~veracity.core._validation.row_sums_off_one`), from one row per partition: read only to
    word the refusal of such rows."""
    from ..core._validation import ROUNDING_DECIMALS, rounded_decimals

    meta = _top_label_rounding_part(ddf._meta, k)
    parts = ddf.map_partitions(_in_chunks, _top_label_rounding_part, k, meta=meta).compute()
    counts = [int(parts[f"d{d}"].sum()) for d in ROUNDING_DECIMALS]
    return rounded_decimals(counts, float(parts["off"].max()), k)


def top_label_counts(ddf: Any, k: int) -> dict[str, Any]:
    """:func:`._multiclass.check_top_label`'s counts (``n, bad, y_bad, lo, hi, sum_bad, y_min, y_max``,
    ``out_rows`` and each column's ``lo{j}``, ``hi{j}``) from one row per partition; a minimum or maximum of
    no rows is None."""
    meta = _top_label_counts_part(ddf._meta, k)
    parts = ddf.map_partitions(_in_chunks, _top_label_counts_part, k, meta=meta).compute()
    sums = ("n", "bad", "y_bad", "sum_bad", "out_rows")
    out: dict[str, Any] = {name: int(parts[name].sum()) for name in sums}
    ranges = [(f"{end}{j}", pick) for j in range(k) for end, pick in (("lo", "min"), ("hi", "max"))]
    for name, pick in (("lo", "min"), ("hi", "max"), ("y_min", "min"), ("y_max", "max"), *ranges):
        value = getattr(parts[name], pick)()
        out[name] = None if np.isnan(value) else float(value)
    return out
