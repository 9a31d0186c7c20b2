r"""Every audit number of a frame as aggregates computed where the data lives.

Written once as narwhals expressions, so the same code runs on DuckDB, polars
(lazy), Spark, Dask, Ibis, pandas and pyarrow; only small aggregate tables come
back to Python:

* :func:`contract_counts` — one aggregate with the input contract's counts
  (missing/NaN/infinite scores, probabilities outside [0, 1], labels other than
  0/1, bad weights) turned into the same one-line errors on every backend;
* :func:`bin_sums` — per (slice, bin): count, Σw, Σw², Σwp, Σwy, Σwp², Σwpy,
  Σw·ℓ and Σw·[correct], i.e. :class:`~veracity.BinStats` plus accuracy
  (:func:`bin_sums_and_contract`: both aggregates in one pass over the rows);
* :func:`auc_parts` — the exact Mann–Whitney AUC. The score axis is cut into
  ranges (:func:`range_cuts`, :func:`cuts_from_counts`; equal scores share a range)
  and every backend counts each range with the one 2U kernel,
  :func:`veracity.core._rank.class_numerators` — DuckDB on the ranges it spills
  (:mod:`._duckdb_auc`), Spark's workers and Dask's tasks after one shuffle by range
  (:mod:`._range_auc`), the other backends (polars, Ibis) on the working columns
  collected one range at a time; :func:`combine_ranges` adds the ranges:

  .. math:: 2U = \sum_r \Big(2U_r + 2\,W_+^{(r)} \sum_{r' < r} W_-^{(r')}\Big)

  and AUC = 2U / (2 W+ W-): integers when unweighted (exact for any N).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

import numpy as np

from ..core._binning import bin_index, uniform_edges
from ..core._keys import same_key
from ..core._validation import (LOGIT_CHECK_MIN_ROWS, PROB_EPS, MissingLabels, VeracityError, _float_label,
                               _label_number, not_probabilities, plain)

#: rows per score range (one sort task) on Spark and Dask
ROWS_PER_TASK = 2_000_000
_INF = float("inf")


def collect(x: Any) -> Any:
    """A narwhals DataFrame (small: only aggregates are collected)."""
    import narwhals as nw

    return x.collect() if isinstance(x, nw.LazyFrame) else x


def base(frame: Any, score: str, label: Any, weight: str | None, by: str | list[str] | None,
         weight_scale: float = 1.0, pooled: tuple[list[Any], str] | None = None) -> Any:
    """The working columns ``_s, _y, _w`` (and ``_g``), whatever the user's names.

    ``weight_scale`` is an exact power of two (see :func:`weight_scale`); ``label``
    is a column name or a 0/1 expression (``pos_label=``, see :mod:`._labels`).
    """
    import narwhals as nw

    schema = frame.collect_schema()
    w = as_float(weight, schema) if weight else nw.lit(1.0, nw.Float64)
    if weight and weight_scale != 1.0:
        w = w * weight_scale
    y = as_float(label, schema) if isinstance(label, str) else label
    cols = [as_float(score, schema).alias("_s"), y.alias("_y"), w.alias("_w")]
    if isinstance(label, str) and _wide_integer(schema[label]):  # read only to word a refusal (exact_labels)
        cols.append(nw.col(label).alias("_yr"))
    if isinstance(by, (list, tuple)):  # several key columns: _g0, _g1, ... (see :func:`key_columns`)
        cols.extend(one_missing_key(nw.col(b), schema[b]).alias(f"_g{i}") for i, b in enumerate(by))
    elif by is not None:
        key = one_missing_key(nw.col(by), schema[by])
        if pooled is not None:  # the slice cap: keep these keys, pool the others under one name
            key = pooled_key(key, schema[by], pooled)
        cols.append(key.alias("_g"))
    return frame.select(cols)


def _wide_integer(dtype: Any) -> bool:
    """An integer type of 64 bits or more: its values beyond 2**53 have no float64 of their own."""
    import narwhals as nw

    wide = (nw.Int64, nw.UInt64, getattr(nw, "Int128", None), getattr(nw, "UInt128", None))
    return any(dtype == t for t in wide if t is not None)


def one_missing_key(key: Any, dtype: Any) -> Any:
    """The slice key column with a float column's NaN made null: the one missing key of every route
    (:func:`veracity.core._keys.is_missing`, the slice ``(missing)``). polars, DuckDB, Arrow and Spark
    keep NaN apart from null, so a float key column with both had two slices ('nan' and 'None'), where
    pandas, Dask and a numpy array (which cannot tell them apart) had one.

    A float key's ``-0.0`` is made ``0.0`` here too (:func:`veracity.core._keys.same_key`: one value, one
    slice): the exact AUC's per-range count (:func:`._range_auc.range_numerators`, on polars, Dask and
    Spark) tells the keys apart by their bits, and the two halves of slice ``0.0``, merged by name after,
    were added as if they were consecutive score ranges: a wrong AUC (0.689 where the slice's is 0.846)."""
    import narwhals as nw

    if not dtype.is_float():
        return key
    return nw.when(~key.is_nan()).then(nw.when(key == 0).then(key.abs()).otherwise(key))


def as_float(name: str, schema: Any) -> Any:
    """Column ``name`` as float64; a boolean column as 1.0/0.0 (True/False), as the array form reads a
    boolean array (hard 0/1 predictions are scores; booleans are labels and weights too), missing
    staying missing. Booleans are read without a cast of the column: DuckDB (2.0) pushes
    ``CAST(c AS DOUBLE)`` into a CSV scan, which then fails on the text 'False' (issue 23's fuzz)."""
    import narwhals as nw

    c = nw.col(name)
    if schema[name] == nw.Boolean:
        one_zero = nw.when(c).then(nw.lit(1.0, nw.Float64)).otherwise(nw.lit(0.0, nw.Float64))
        return nw.when(~c.is_null()).then(one_zero)
    return c.cast(nw.Float64)


def pooled_key(key: Any, dtype: Any, pooled: tuple[list[Any], str]) -> Any:
    """The slice key of the slice cap: the kept keys as text (named as Python names them, as the
    slices of an uncapped audit are), every other key pooled under one name.

    A kept missing key stays missing (the slice ``(missing)``): ``is_in`` never matches a missing value.
    A kept time (:func:`_time_match`) or duration (:func:`_duration_match`) is matched exactly,
    nanoseconds included, and named by :func:`veracity.core._keys.key_name`, as the uncapped slice
    is: the engines' text of a time differs (DuckDB ``+00`` for ``+00:00``, polars six or nine
    decimals), and of a duration too (polars ``2ns``, DuckDB ``00:00:00.002``).
    """
    import narwhals as nw

    from ..core._keys import duration_ns, key_name

    keep, other = pooled
    values = [k for k in keep if k is not None]
    # durations compared as integers (DuckDB's INTERVAL with months, which have no length, as before)
    durations = isinstance(dtype, nw.Duration) and all(duration_ns(k) is not None for k in values)
    times = [k for k in values if isinstance(k, _dt.datetime) or durations]
    if times:
        text = nw.lit(None, nw.String)
        for k in reversed(times):  # one CASE arm per kept time (at most the cap's keys)
            match = _duration_match(key, k, dtype) if durations else _time_match(key, k)
            text = nw.when(match).then(nw.lit(key_name(k), nw.String)).otherwise(text)
    else:
        text = key.cast(nw.String)
    # (a float key's NaN is null here already, the missing key: :func:`one_missing_key`)
    if dtype == nw.Boolean:  # "True" / "False", not the engines' "true" / "false"
        text = nw.when(key).then(nw.lit("True", nw.String)).otherwise(nw.lit("False", nw.String))
    text = nw.when(~key.is_null()).then(text)  # missing stays missing (pandas and Dask: NaN is missing)
    plain = [k for k in values if not _finer(k) and not durations]
    if dtype.is_integer() and any(abs(int(k)) > 2 ** 53 for k in plain):
        # an integer beyond 2**53 matched by equality: Dask's is_in compares a uint64 column as doubles, so
        # 2**63 + 6 matched the kept 2**63 + 5 (the capped audit showed a slice the cap had pooled, and its
        # "(other 2 values)" held one value); == compares the integers exactly on every engine
        kept = nw.lit(False)
        for k in plain:
            kept = kept | (key == k).fill_null(False)
    else:
        kept = key.is_in(plain).fill_null(False) if plain else nw.lit(False)
    for k in values:
        if durations:
            kept = kept | _duration_match(key, k, dtype)
        elif _finer(k):
            kept = kept | _time_match(key, k)
    if len(values) < len(keep):
        kept = kept | key.is_null()
    return nw.when(kept).then(text).otherwise(nw.lit(other, nw.String))


def _finer(key: Any) -> bool:
    """A time with nanoseconds (a pandas ``Timestamp``): a literal of it holds microseconds."""
    return isinstance(key, _dt.datetime) and bool(getattr(key, "nanosecond", 0))


def _duration_match(key: Any, k: Any, dtype: Any) -> Any:
    """Rows whose duration ``key`` (a column of narwhals ``dtype``, a ``Duration``) is the kept key ``k``
    exactly, compared as integers: its total nanoseconds (a ``Duration('ns')``), else microseconds
    (DuckDB's INTERVAL, and finer units, hold whole microseconds). A duration literal in ``is_in``
    matched nothing on polars (the kept slice was empty, its rows pooled) and failed on DuckDB."""
    import narwhals as nw

    from ..core._keys import duration_ns

    ns = int(duration_ns(k) or 0)  # a duration (pooled_key checks)
    if dtype.time_unit == "ns":
        return (key.dt.total_nanoseconds() == nw.lit(ns, nw.Int64)).fill_null(False)
    return (key.dt.total_microseconds() == nw.lit(ns // 1000, nw.Int64)).fill_null(False)


def _time_match(key: Any, k: _dt.datetime) -> Any:
    """Rows whose time ``key`` is ``k`` exactly. A literal holds microseconds (``is_in`` of
    ``00:00:00.000000002`` matched ``00:00:00``: the cap's kept slice held another key's rows, 90
    where it has 115), so a time with nanoseconds is matched as ``lo <= key < lo + 1 µs``
    (``lo``: ``k`` to the microsecond) with ``nanosecond(key) mod 1000`` its nanoseconds."""
    import narwhals as nw

    if not _finer(k):
        return (key == nw.lit(k)).fill_null(False)
    lo = _dt.datetime(k.year, k.month, k.day, k.hour, k.minute, k.second, k.microsecond, k.tzinfo)  # no ns
    inside = (key >= nw.lit(lo)) & (key < nw.lit(lo + _dt.timedelta(microseconds=1)))
    finer = int(k.nanosecond)  # type: ignore[attr-defined]
    return (inside & (key.dt.nanosecond() % 1000 == finer)).fill_null(False)


def key_columns(grouped: Any) -> list[str]:
    """The working frame's slice key columns: ``["_g"]`` (``grouped=True``), the given names
    (a tuple such as ``("_g0", "_g1")``: slices keyed by tuples), or none."""
    if isinstance(grouped, tuple):
        return list(grouped)
    return ["_g"] if grouped else []


def values(series: Any) -> list[Any]:
    """A collected column as Python values; nanosecond datetimes as pandas ``Timestamp`` objects
    (through Arrow, as DuckDB and Dask hand them back): polars' ``to_list`` truncates them to
    microseconds, so slice keys 1 ns apart collided and one slice's rows were dropped. A time of day
    with nanoseconds (polars' ``Time``) is refused (:func:`._source.refuse_ns_times`)."""
    import narwhals as nw

    dtype = series.dtype
    if dtype == nw.Time:  # polars' times hold nanoseconds, a Python time microseconds: refused, not merged
        from ._source import refuse_ns_times

        refuse_ns_times(series)
    if isinstance(dtype, nw.Datetime) and dtype.time_unit == "ns":
        return list(series.to_arrow().to_pylist())
    if isinstance(dtype, nw.Duration) and dtype.time_unit == "ns":
        # durations 1 ns apart: to_list truncates them to microseconds too (one key, the other slice's rows
        # dropped); their nanoseconds as numpy timedelta64, named by core._keys.duration_name
        import pyarrow as pa

        ns = series.to_arrow().cast(pa.int64()).to_pylist()
        return [None if v is None else np.timedelta64(v, "ns") for v in ns]
    if dtype == nw.Float32:  # single precision: the float32 each value is (a slice named '0.1', as the
        # array form, an in-memory frame and the SQL route name it), not the double to_list makes of it
        # (0.10000000149011612: another name for the same slice)
        return [None if v is None else np.float32(v) for v in series.to_list()]
    return list(series.to_list())


def backend_of(lf: Any) -> str:
    """``"duckdb"``, ``"pyspark"``, ``"dask"``, ``"polars"`` … of a narwhals frame."""
    return str(lf.implementation).split(".")[-1].lower()


def _flag(expr: Any) -> Any:
    import narwhals as nw

    return nw.when(expr.fill_null(False)).then(nw.lit(1, nw.Int64)).otherwise(nw.lit(0, nw.Int64))


def contract_columns(lf: Any, weighted: bool = True, extra: dict[str, Any] | None = None) -> Any:
    """``lf`` with one column per contract check (flags, and the values whose min/max are shown), and the
    columns ``extra`` (expressions over ``lf``'s columns) in the same projection."""
    import narwhals as nw

    s, y, w = nw.col("_s"), nw.col("_y"), nw.col("_w")
    s_ok = ~(s.is_null() | s.is_nan() | (s.abs() == _INF)).fill_null(True)
    y_ok = ((y == 0.0) | (y == 1.0)).fill_null(False)
    w_ok = ~(w.is_null() | w.is_nan() | (w.abs() == _INF)).fill_null(True)
    weights = {"_w_bad": _flag(~w_ok), "_w_neg": _flag(w_ok & (w < 0)), "_wf": nw.when(w_ok).then(w),
               "_wp": nw.when(w_ok & (w > 0)).then(w)}  # the positive weights: their smallest, w_pos_min
    sf = nw.when(s_ok).then(s)
    # one projection (each one more is a bind of the whole plan on DuckDB, ~2 ms): ``_p_bad`` from the
    # expression of ``_sf``, not from its column; ``extra``: the caller's columns, read from ``lf``'s too
    return lf.with_columns(
        _one=nw.lit(1, nw.Int64),
        _s_miss=_flag(s.is_null() | s.is_nan()), _s_inf=_flag(s.abs() == _INF),
        _sf=sf, _y_bad=_flag(~y_ok), _yf=nw.when(~y_ok & ~(y.is_null() | y.is_nan()).fill_null(True)).then(y),
        _p_bad=_flag((sf < 0) | (sf > 1)),
        **(weights if weighted else {}), **(extra or {}),
    )


#: the contract's aggregates: (name, column, how several partial results combine)
_CONTRACT_AGGS = (
    ("n", "_one", "sum"), ("s_miss", "_s_miss", "sum"), ("s_inf", "_s_inf", "sum"),
    ("s_min", "_sf", "min"), ("s_max", "_sf", "max"), ("p_bad", "_p_bad", "sum"), ("y_bad", "_y_bad", "sum"),
    ("y_min", "_yf", "min"), ("y_max", "_yf", "max"), ("w_bad", "_w_bad", "sum"), ("w_neg", "_w_neg", "sum"),
    ("w_min", "_wf", "min"), ("w_pos_min", "_wp", "min"), ("w_max", "_wf", "max"), ("w_sum", "_wf", "sum"),
    ("y_sum", "_y", "sum"),
)
_COUNTS = {"n", "s_miss", "s_inf", "p_bad", "y_bad", "w_bad", "w_neg"}


def _contract_aggs(weighted: bool) -> tuple[tuple[str, str, str], ...]:
    """Unweighted, ``_w`` is the literal 1: its checks are known without reading a row."""
    return tuple(a for a in _CONTRACT_AGGS if weighted or not a[0].startswith("w_"))


def contract_exprs(weighted: bool) -> list[Any]:
    import narwhals as nw

    return [getattr(nw.col(col), how)().alias(f"_c_{name}") for name, col, how in _contract_aggs(weighted)]


def combine_contract(table: dict[str, list[Any]], weighted: bool) -> dict[str, Any]:
    """The contract's counts from its aggregates over several groups (sums add; min/max of those present)."""
    from ..core._validation import _is_missing

    out: dict[str, Any] = {}
    for name, _, how in _contract_aggs(weighted):
        # pandas' nullable columns give pd.NA (not None) for the min/max of no value
        values = [v for v in table[f"_c_{name}"] if not _is_missing(v)]
        if how == "sum":
            out[name] = sum(values) if values else (0 if name in _COUNTS else None)
        else:
            out[name] = (min if how == "min" else max)(values) if values else None
    if not weighted:  # every weight is 1
        n = int(out["n"] or 0)
        out.update(w_bad=0, w_neg=0, w_min=1.0 if n else None, w_pos_min=1.0 if n else None,
                   w_max=1.0 if n else None,
                   w_sum=float(n) if n else None)
    return out


def contract_counts(lf: Any, *, score_type: str, weighted: bool) -> dict[str, Any]:
    """Counts of every way the rows can break the input contract (one aggregate)."""
    if backend_of(lf) == "dask":  # one numpy pass per partition
        from . import _dask

        return exact_labels(lf, _dask.contract_counts(lf.to_native()))
    row = collect(contract_columns(lf, weighted).select(*contract_exprs(weighted)))
    return exact_labels(lf, combine_contract({name: row.get_column(name).to_list() for name in row.columns},
                                              weighted))


def exact_labels(lf: Any, c: dict[str, Any]) -> dict[str, Any]:
    """The contract's counts ``c`` with labels that are not 0/1 read as the column holds them, asked only
    when there are such labels (not missing): ``y_min`` and ``y_max`` of those labels as stored (a 64-bit
    integer column's ``_yr``, see :func:`base`; float64 made ``2**64 - 1`` and ``2**64 - 2`` one value,
    shown as ``1.8446744073709552e+19`` twice), and ``y_pair``, the two label values ``(lo, hi)`` when the
    column holds exactly two and none is missing (the refusal then says which to map to 1, or to pass as
    ``pos_label``, as the array form's :func:`~veracity.core._validation.check_binary_labels` does).

    Up to three small aggregates over the filtered working columns (the labels' range, the refused labels'
    range, the labels that are neither end), on the refusal's path only. Filters, not ``when``: pandas
    makes a uint64 column float64 where a ``when`` leaves a row empty."""
    import narwhals as nw

    if not int(c.get("y_bad") or 0) or c.get("y_min") is None or math.isnan(float(c["y_min"])):
        return c
    schema = lf.collect_schema()
    name = "_yr" if "_yr" in schema.names() else "_y"
    v, y = nw.col(name), nw.col("_y")
    present = ~((y.is_null() | y.is_nan()).fill_null(True))
    bad = present & ~(((y == 0.0) | (y == 1.0)).fill_null(False))

    def row(rows: Any, **exprs: Any) -> dict[str, Any]:
        found: dict[str, Any] = collect(rows.select(**exprs)).rows(named=True)[0]
        return found

    ends = row(lf.filter(present), lo=v.min(), hi=v.max(), kept=nw.len())
    refused = row(lf.filter(bad), lo=v.min(), hi=v.max())
    out = dict(c)
    if refused["lo"] is None:
        return out
    out["y_min"], out["y_max"] = _number(refused["lo"]), _number(refused["hi"])
    lo, hi = _number(ends["lo"]), _number(ends["hi"])
    if int(ends["kept"] or 0) < int(c["n"] or 0) or lo == hi or not math.isfinite(float(lo) - float(hi)):
        return out  # a missing label, one value, or an infinite one: no pair to name
    other = lf.filter(present & (v != nw.lit(lo, schema[name])) & (v != nw.lit(hi, schema[name])))
    if not int(row(other, n=nw.len())["n"] or 0):
        out["y_pair"] = (lo, hi)
    return out


def contract_row(s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, float]:
    """The contract's aggregates of float64 rows ``_s, _y, _w`` (NaN where missing) in numpy, as
    :func:`contract_columns` counts them: counts and sums as floats, a min/max of no value NaN (an
    in-memory frame's rows, see :func:`contract_arrays`, and each Dask partition's, see
    :func:`._dask.contract_counts`)."""
    s_ok = np.isfinite(s)
    y_ok = (y == 0.0) | (y == 1.0)
    w_ok = np.isfinite(w)
    sf, wf = s[s_ok], w[w_ok]

    def lo_hi(values: np.ndarray) -> tuple[float, float]:
        return (float(values.min()), float(values.max())) if values.size else (np.nan, np.nan)

    s_min, s_max = lo_hi(sf)
    y_min, y_max = lo_hi(y[~y_ok & ~np.isnan(y)])
    w_min, w_max = lo_hi(wf)
    with np.errstate(over="ignore"):  # weights near 1.8e308 sum to inf (the engines' SUM too), no warning
        w_sum = float(wf.sum())
    return {
        "n": float(s.size), "s_miss": float(np.isnan(s).sum()), "s_inf": float(np.isinf(s).sum()),
        "p_bad": float(((sf < 0.0) | (sf > 1.0)).sum()), "y_bad": float((~y_ok).sum()),
        "w_bad": float((~w_ok).sum()), "w_neg": float((wf < 0.0).sum()), "w_sum": w_sum,
        "y_sum": float(np.nansum(y)), "s_min": s_min, "y_min": y_min, "w_min": w_min,
        # the smallest positive weight (the rescaling reads it)
        "w_pos_min": lo_hi(wf[wf > 0.0])[0], "s_max": s_max, "y_max": y_max, "w_max": w_max,
    }


def contract_arrays(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> dict[str, Any]:
    """:func:`contract_counts` of rows held as numpy arrays (float64, NaN where missing; ``w`` None:
    unweighted): the same dict, counts as ints, a min/max of no value None. Nothing of narwhals: on an
    Arrow table its literals and aggregates build ``pa.array``, which imports pandas (no dependency).
    Integer labels ``y`` are read as stored where refused (:func:`exact_labels`' ``y_min``, ``y_max`` and
    ``y_pair``); float64 labels as they are."""
    weighted = w is not None
    raw = np.asarray(y)
    y = raw if raw.dtype == np.float64 else raw.astype(np.float64)
    row = contract_row(s, y, w if w is not None else np.ones(s.size))
    out: dict[str, Any] = {}
    for name, _, how in _contract_aggs(weighted):
        v = row[name]
        out[name] = int(v) if name in _COUNTS else (None if how != "sum" and math.isnan(v) else v)
    counts = combine_contract({f"_c_{k}": [v] for k, v in out.items()}, weighted)
    if not int(counts.get("y_bad") or 0) or counts.get("y_min") is None:
        return counts
    exact = raw if raw.dtype.kind in "iu" else y
    miss = np.isnan(y)
    bad = ~((y == 0.0) | (y == 1.0)) & ~miss
    counts["y_min"], counts["y_max"] = plain(exact[bad].min()), plain(exact[bad].max())
    distinct = np.unique(exact[~miss])
    # (a whole float beyond 2**53 may be an integer label made float64 on the way: naming it as pos_label
    # would name no label, so such floats get no hint)
    inexact = exact.dtype.kind == "f" and bool(np.any((np.abs(distinct) >= 2.0 ** 53) & (distinct % 1 == 0)))
    finite = bool(np.isfinite(distinct.astype(np.float64)).all())
    if not miss.any() and distinct.size == 2 and finite and not inexact:
        counts["y_pair"] = (plain(distinct[0]), plain(distinct[1]))
    return counts


def missing_message(name: str, role: str | None, missing: int, infinite: int | None, n: int,
                    first_row: int | None = None) -> str:
    """The one wording of a column's missing (null/NaN) and infinite values on every route: the lazy
    contract (:func:`check_contract`) and a file read into memory (``--engine memory``,
    :func:`._api.column`, which also says where the first one is). ``infinite=None``: ``missing``
    counts both (the weights' count)."""
    shown = f"column {name!r}" + (f" ({role})" if role else "")
    what = (f"{missing} missing, NaN or infinite values" if infinite is None
            else f"{missing} missing/NaN and {infinite} infinite values")
    where = "" if first_row is None else f", first at data row {first_row}"
    return f"{shown} has {what} of {n} rows{where}; drop or fill those rows first"


def missing_labels_message(name: str, missing: int, n: int) -> str:
    """The one wording of missing labels on every route (a frame, a file, a database table; 0/1 labels
    or those ``pos_label=`` reads): the count in the number it takes, of the ``n`` rows read, as the
    scores' line counts them (:func:`missing_message`)."""
    from ..core._text import count_noun

    rows = "that row" if missing == 1 else "those rows"
    count = count_noun(missing, "missing value")
    return f"column {name!r} (labels) has {count} (None/NaN) of {n} rows; drop or fill {rows} first"


def _number(value: Any) -> Any:
    """An aggregate's number as a Python int or float: a numpy scalar's value, and an integer DuckDB hands
    back as a ``Decimal`` (the min of a HUGEINT column, as a CSV's ``2**64 - 1`` is read) as the int it is."""
    import decimal

    v = plain(value)
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v


def labels_message(name: str, bad: int, n: int, shown: str, first_row: int | None = None,
                   pair: bool = False) -> str:
    """The one wording of labels that are not 0/1 (``shown``: their min and max, or ``missing or infinite``).
    ``shown`` ``missing`` (every refused label is missing): the missing labels' own line, as where
    ``pos_label=`` reads them (:func:`missing_labels_message`): a missing label is not a label outside 0/1,
    and its remedy is to drop that row, not to map classes. ``pair``: the column holds two values and no
    missing one; the remedy is the hint naming them (:func:`check_contract`), not this general advice."""
    where = "" if first_row is None else f", first at data row {first_row}"
    if shown == "missing":
        message = missing_labels_message(name, bad, n)
        count = message.index(f" of {n} rows") + len(f" of {n} rows")
        return f"{message[:count]}{where}{message[count:]}"
    message = f"column {name!r} (labels) must be binary 0/1 (or bool); {bad} of {n} are not ({shown}){where}"
    return message if pair else f"{message}; map the two classes to 0 and 1 and drop unlabelled rows"


def check_contract(c: dict[str, Any], *, score: str, label: str, weight: str | None, score_type: str,
                   first_label_row: int | None = None) -> int:
    """Raise the contract's one-line error for the counts ``c``; return the row count. ``first_label_row``:
    the data row (from 1) of the first row whose label is refused, named in that refusal where known."""
    n = int(c["n"] or 0)
    if n == 0:
        raise VeracityError("the frame has no rows; pass at least one row")
    if int(c["s_miss"]) + int(c["s_inf"]):
        raise VeracityError(missing_message(score, "scores", int(c["s_miss"]), int(c["s_inf"]), n))
    if score_type == "probability" and int(c["p_bad"]):
        # the array form's one error (core._validation.not_probabilities), its subject the column
        raise not_probabilities(f"column {score!r} (scores)", int(c["p_bad"]), n, float(c["s_min"]),
                                float(c["s_max"]))
    if score_type == "logit" and n >= LOGIT_CHECK_MIN_ROWS:  # declared logits all in [0, 1]: as on arrays
        from ..core._validation import check_logit_range

        check_logit_range(float(c["s_min"]), float(c["s_max"]), n)  # the array form's words
    if int(c["y_bad"]):
        missing = c["y_min"] is None or math.isnan(float(c["y_min"]))
        if missing:
            raise MissingLabels(labels_message(label, int(c["y_bad"]), n, "missing",
                                               first_row=first_label_row))
        # integers as stored (every digit of 2**64 - 1: exact_labels), floats in their short form
        shown = f"min={_label_number(c['y_min'])}, max={_label_number(c['y_max'])}"
        pair = c.get("y_pair")
        message = labels_message(label, int(c["y_bad"]), n, shown, first_row=first_label_row, pair=bool(pair))
        if not pair:
            raise VeracityError(message)
        lo, hi = (plain(v) for v in pair)  # the array form's hint (core._validation.check_binary_labels)
        hint = f"Map {_label_number(lo)} to 0 and {_label_number(hi)} to 1, or pass {{setting}}."
        raise VeracityError(message, param="pos_label", value=hi if isinstance(hi, int) else _float_label(hi),
                            hint=hint)
    if weight is not None:
        if int(c["w_bad"]):
            raise VeracityError(missing_message(weight, "sample_weight", int(c["w_bad"]), None, n))
        if int(c["w_neg"]):
            raise VeracityError(
                f"column {weight!r} (sample_weight) must be non-negative; {int(c['w_neg'])} of {n} are "
                f"negative (min={float(c['w_min']):.3g})"
            )
        if not float(c["w_max"] or 0.0) > 0:
            raise VeracityError(
                f"column {weight!r} (sample_weight) sums to 0; at least one row needs a positive weight"
            )
    return n


def weight_scale(c: dict[str, Any]) -> float:
    """The array contract's rescaling of extreme weights: an exact power of two, or 1.

    The one rule, :func:`veracity.core._weights.weight_exponent`, of the largest weight
    (``c["w_max"]``) and the smallest positive one: ``c["w_pos_min"]`` where the counts hold it,
    else ``c["w_min"]`` when it is positive; with neither (a weight of 0, or only ``w_max``
    given) the rule reads the largest weight alone."""
    from ..core._weights import weight_exponent

    hi = float(c.get("w_max") or 0.0)
    if not hi > 0:
        return 1.0
    lo = c.get("w_pos_min")
    if lo is None and c.get("w_min") is not None and float(c["w_min"]) > 0:
        lo = c["w_min"]
    # at most 2**1023 (2**1024 overflows: subnormal weights); every ratio is unchanged either way
    return math.ldexp(1.0, weight_exponent(hi, None if lo is None else float(lo)))


def probability(score_type: str) -> Any:
    """The probability expression: the logistic of a logit as the array form computes it
    (``scipy.special.expit``: 1 / (1 + exp(-s)) for every s; exp(-s) overflows to infinity, so 0,
    below -709.78). Another formula of the same number (exp(s) / (1 + exp(s)) for s < 0) differs in the
    last bit, which moves a score lying on a bin edge into the neighbouring bin."""
    import narwhals as nw

    s = nw.col("_s")
    if score_type == "probability":
        return s
    return 1.0 / (1.0 + (-s).exp())


def complement(score_type: str, p: Any = None) -> Any:
    """``1 − p``: a logit's as the logistic of ``−s`` (``expit(−s)``, as :func:`veracity.core._stats.residuals`
    takes it: ``1 − p`` of the rounded logistic is 0 beyond s ≈ 37, where the true value is e^{−s}).
    ``p``: the probability's expression (default: the column ``_p``)."""
    import narwhals as nw

    if score_type == "probability":
        return 1.0 - (nw.col("_p") if p is None else p)
    return 1.0 / (1.0 + nw.col("_s").exp())


def _nll(score_type: str, p: Any = None) -> Any:
    """The log-loss of a row; ``p``: the probability's expression (default: the column ``_p``)."""
    import narwhals as nw

    s, y = nw.col("_s"), nw.col("_y")
    p = nw.col("_p") if p is None else p
    if score_type == "logit":  # softplus(x), x = -(2y-1)s, as numpy's logaddexp(0, x)
        x = nw.when(y == 1.0).then(-s).otherwise(s)
        return x.clip(lower_bound=0.0) + (1.0 + (-(x.abs())).exp()).log()
    q = nw.when(y == 1.0).then(p).otherwise(1.0 - p)
    return -(q.clip(lower_bound=PROB_EPS).log())


def _decision(score_type: str, threshold: float, p: Any = None) -> Any:
    """Predicted positive; ``p``: the probability's expression (default: the column ``_p``)."""
    import narwhals as nw

    if score_type == "logit" and 0.0 < threshold < 1.0:  # decide on the logit scale, like vc.accuracy
        return nw.col("_s") >= math.log(threshold / (1.0 - threshold))
    return (nw.col("_p") if p is None else p) >= threshold


#: ``sum_r``, ``sum_q1``, ``sum_r2``: Σw(p − y), Σ_{y=1} w(1 − p), Σw(p − y)², summed where the rows
#: live (expanded from the others, a sharp forecast's Brier score cancels: see veracity.core._stats)
_SUM_NAMES = ("weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "correct",
              "sum_r", "sum_q1", "sum_r2")
#: Σw²y and Σw²p(1 − p), summed only when weighted (the reliability table's interval size,
#: :func:`veracity.core._weights.honest_size`; unweighted they cost nothing)
SQUARE_NAMES = ("sum_w2y", "sum_w2pq")


def distinct_scores(lf: Any, *, score_type: str, limit: int,
                    n_distinct: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(value, count, Σw)`` per distinct probability, sorted (refused beyond ``limit`` values);
    ``n_distinct``: their number where the caller counted it already (else one more aggregate)."""
    x = lf.with_columns(_p=probability(score_type))
    if n_distinct is None:
        n_distinct = count_distinct(x)
    if n_distinct > limit:
        raise VeracityError(
            f"equal-mass bins on a lazy frame need the {n_distinct:,} distinct scores' counts, over the "
            f"limit of {limit:,}; round the scores (e.g. to 1e-5) or use strategy='uniform'"
        )
    return per_value(x)


def count_distinct(x: Any) -> int:
    """The number of distinct probabilities ``_p`` (one aggregate)."""
    import narwhals as nw

    return int(collect(x.select(nw.col("_p").n_unique())).rows()[0][0])


def per_value(x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(value, count, Σw)`` per distinct probability ``_p``, sorted."""
    import narwhals as nw

    t = collect(x.with_columns(_one=nw.lit(1, nw.Int64)).group_by("_p").agg(nw.col("_one").sum(),
                                                                             nw.col("_w").sum()))
    v = np.asarray(t.get_column("_p").to_list(), dtype=np.float64)
    order = np.argsort(v)
    return (v[order], np.asarray(t.get_column("_one").to_list(), dtype=np.int64)[order],
            np.asarray(t.get_column("_w").to_list(), dtype=np.float64)[order])


def bin_sums(lf: Any, *, bins: int, score_type: str, threshold: float, grouped: bool,
             edges: np.ndarray | None = None, strategy: str = "uniform",
             top_label: bool = False, weighted: bool = True) -> dict[Any, dict[str, np.ndarray]]:
    """Per slice (key ``None`` without ``by``): per-bin count and the weighted sums.

    ``top_label``: ``_y`` is already "the top class is right" and ``_l`` the
    categorical log-loss (see :mod:`._multiclass`); accuracy is then mean ``_y``.
    ``weighted``: also Σw²y and Σw²p(1 − p) (:data:`SQUARE_NAMES`); pass False where ``_w`` is the
    constant 1 (no weight column), which then costs nothing more.
    """
    if backend_of(lf) == "dask":  # each partition through the array code's BinStats
        from . import _dask

        if isinstance(grouped, tuple):
            raise VeracityError("slices by several columns are not supported on Dask; combine them into "
                                "one key column first", param="by")

        e = uniform_edges(bins) if edges is None or strategy == "uniform" else np.asarray(edges, np.float64)
        return _dask.bin_sums(lf.to_native(), edges=e, strategy=strategy, score_type=score_type,
                              threshold=threshold, grouped=grouped, top_label=top_label, weighted=weighted)
    native = _bin_table(lf, bins=bins, score_type=score_type, threshold=threshold, grouped=grouped,
                        edges=edges, strategy=strategy, top_label=top_label, weighted=weighted)
    return _per_slice(native, bins, grouped)


def bin_sums_and_contract(lf: Any, *, bins: int, score_type: str, threshold: float,
                          grouped: bool) -> tuple[dict[Any, dict[str, np.ndarray]], dict[str, Any]]:
    """:func:`bin_sums` (equal-width bins, unweighted) and :func:`contract_counts` in one pass.

    Rows that break the contract are binned under ``-1`` with neutral values (no
    engine error on a NaN or an infinite score); check the counts before the sums.
    """
    if backend_of(lf) == "dask":  # both partition passes in one compute: the data is read once
        from . import _dask

        sums, counts = _dask.bin_sums_and_contract(lf.to_native(), edges=uniform_edges(bins),
                                                   score_type=score_type, threshold=threshold, grouped=grouped)
        return sums, exact_labels(lf, counts)
    import narwhals as nw

    s, y = nw.col("_s"), nw.col("_y")
    ok = ~(s.is_null() | s.is_nan() | (s.abs() == _INF)) & ((y == 0.0) | (y == 1.0))
    if score_type == "probability":
        ok = ok & (s >= 0.0) & (s <= 1.0)
    ok = ok.fill_null(False)
    # one projection: the contract's columns read the rows' own _s/_y, replaced in the same projection
    x = contract_columns(lf, weighted=False, extra={
        "_ok": ok,
        "_s": nw.when(ok).then(s).otherwise(nw.lit(0.0, nw.Float64)),
        "_y": nw.when(ok).then(y).otherwise(nw.lit(0.0, nw.Float64)),
    })
    native = _bin_table(x, bins=bins, score_type=score_type, threshold=threshold, grouped=grouped,
                        edges=None, strategy="uniform", top_label=False, contract=True)
    keep = [i for i, b in enumerate(native["_b"]) if b is not None and int(b) >= 0]
    counts = exact_labels(lf, combine_contract(native, weighted=False))
    return _per_slice({k: [v[i] for i in keep] for k, v in native.items()}, bins, grouped), counts


def _bin_table(lf: Any, *, bins: int, score_type: str, threshold: float, grouped: bool,
               edges: np.ndarray | None, strategy: str, top_label: bool, contract: bool = False,
               weighted: bool = False) -> dict[str, list[Any]]:
    """The per (slice, bin) aggregate as columns of Python values (``contract``: plus the
    contract's aggregates, rows with ``_ok`` false in bin ``-1``; ``weighted``: plus
    :data:`SQUARE_NAMES`, :math:`1 - p` taken as :func:`complement` takes it, as in memory)."""
    import narwhals as nw

    w, p, y = nw.col("_w"), nw.col("_p"), nw.col("_y")
    # two projections, not four (each is a bind of the whole plan on DuckDB): the first reads the
    # probability as its expression (``pe``, the same number as the column ``_p`` it also writes), the
    # second the columns of the first
    pe = probability(score_type)
    if edges is None or strategy == "uniform":
        edges, strategy = uniform_edges(bins), "uniform"
    b = bin_index(pe, np.asarray(edges, dtype=np.float64), strategy)
    if contract:
        b = nw.when(nw.col("_ok")).then(b).otherwise(nw.lit(-1, nw.Int64))
    decided = nw.when(_decision(score_type, threshold, pe)).then(1.0).otherwise(0.0)
    x = lf.with_columns(
        _p=pe,
        _b=b,
        _l=nw.col("_l") if top_label else _nll(score_type, pe),
        _c=y if top_label else 1.0 - (decided - y).abs(),
        _r=nw.when(y == 1.0).then(-complement(score_type, pe)).otherwise(pe),  # p − y
    )
    names: tuple[str, ...] = _SUM_NAMES
    squares: dict[str, Any] = {}
    if weighted:
        squares = {"sum_w2y": (w * w) * y, "sum_w2pq": (w * w) * (p * complement(score_type))}
        names = (*_SUM_NAMES, *SQUARE_NAMES)
    x = x.with_columns(
        _one=nw.lit(1, nw.Int64), weight=w, weight_sq=w * w, sum_p=w * p, sum_y=w * y,
        sum_p2=w * p * p, sum_py=w * p * y, sum_nll=w * nw.col("_l"), correct=w * nw.col("_c"),
        sum_r=w * nw.col("_r"), sum_q1=-(w * y * nw.col("_r")), sum_r2=w * (nw.col("_r") * nw.col("_r")),
        **squares,
    )
    keys = [*key_columns(grouped), "_b"]
    rows = collect(x.group_by(keys).agg(nw.col("_one").sum().alias("count"),
                                        *(nw.col(k).sum() for k in names),
                                        *(contract_exprs(weighted=False) if contract else [])))
    return {name: values(rows.get_column(name)) for name in rows.columns}




def slice_key(key: Any) -> Any:
    """A slice key as it came back from an engine, as one Python value (in a tuple of keys too;
    :func:`veracity.core._keys.same_key`): any NaN made None (the missing key; the engines' queries make
    a float key's NaN null first, :func:`one_missing_key`), ``-0.0`` made ``0.0``, a ``bytearray`` bytes, an
    interval (DuckDB's INTERVAL comes back as Arrow's ``MonthDayNano``, a tuple) one duration key."""
    if type(key).__name__ == "MonthDayNano":  # (months, days, nanoseconds): not a tuple of slice keys
        return interval_key(key)
    if isinstance(key, tuple):
        return tuple(slice_key(k) for k in key)
    return same_key(key)


def interval_key(key: Any) -> Any:
    """An Arrow ``MonthDayNano`` interval as a slice key: a ``numpy.timedelta64`` of its nanoseconds
    (named as every route names a duration, :func:`veracity.core._keys.duration_name`); with months,
    which have no fixed length, its text ``N months`` before the duration's name."""
    from ..core._keys import duration_name

    months, days, nanos = (int(v) for v in key)
    ns = days * 86_400 * 10**9 + nanos
    return np.timedelta64(ns, "ns") if not months else f"{months} months {duration_name(ns)}"


def _per_slice(native: dict[str, list[Any]], bins: int, grouped: bool) -> dict[Any, dict[str, np.ndarray]]:
    out: dict[Any, dict[str, np.ndarray]] = {}
    if isinstance(grouped, tuple):
        group_keys: list[Any] = list(zip(*(native[k] for k in grouped)))
    else:
        group_keys = native["_g"] if grouped else [None] * len(native["_b"])
    names = [k for k in ("count", *_SUM_NAMES, *SQUARE_NAMES) if k in native]
    for i, key in enumerate(group_keys):
        acc = out.setdefault(slice_key(key), {k: np.zeros(bins) for k in names})
        b = int(native["_b"][i])
        for name in names:
            acc[name][b] = float(native[name][i])
    return out


def range_cuts(lf: Any, *, score_type: str, n: int, rows_per_range: int, fine: int = 4096) -> list[float]:
    """Cut points on the probability axis so that each range holds about ``rows_per_range`` rows.

    From one count per fine equal-width bin; equal scores always share a range.
    """
    import narwhals as nw

    ranges = -(-n // max(1, rows_per_range))
    if ranges <= 1:
        return []
    x = lf.with_columns(_p=probability(score_type)).with_columns(
        _f=bin_index(nw.col("_p"), uniform_edges(fine), "uniform"),
        _one=nw.lit(1, nw.Int64),
    )
    hist = collect(x.group_by("_f").agg(nw.col("_one").sum()))
    counts = np.zeros(fine)
    counts[np.asarray(hist.get_column("_f").to_list(), dtype=np.int64)] = hist.get_column("_one").to_list()
    cum = np.cumsum(counts)
    targets = np.arange(1, ranges) * (cum[-1] / ranges)
    cut_bins = np.unique(np.searchsorted(cum, targets, side="left") + 1)
    cut_bins = cut_bins[(cut_bins > 0) & (cut_bins < fine)]
    return [float(b) / fine for b in cut_bins]


def cuts_from_counts(edges: np.ndarray, counts: np.ndarray, rows_per_range: int,
                     max_split: int = 8) -> list[float] | None:
    """Range cut points from per-bin counts already computed (no extra pass over the rows).

    Adjacent bins are packed into one range while it holds at most ``rows_per_range``
    rows; a bin larger than that is split into equal-width pieces. ``None`` when a
    bin would need more than ``max_split`` pieces (its scores may be bunched: ask
    :func:`range_cuts` for a fine histogram instead).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.sum() <= rows_per_range:
        return []
    cuts: list[float] = []
    held = 0.0
    for b, c in enumerate(counts):
        lo, hi = float(edges[b]), float(edges[b + 1])
        if c > rows_per_range:
            pieces = int(math.ceil(c / rows_per_range))
            if pieces > max_split:
                return None
            if held > 0:
                cuts.append(lo)
            cuts.extend(lo + (hi - lo) * j / pieces for j in range(1, pieces))
            held = c / pieces
        elif held + c > rows_per_range:
            cuts.append(lo)
            held = c
        else:
            held += c
    return sorted({c for c in cuts if 0.0 < c < 1.0})


def score_bounds(cuts: list[float], score_type: str) -> list[float]:
    """Cut points on the probability axis as cut points on the score's own axis (logits: the logit)."""
    if score_type == "probability":
        return list(cuts)
    return [math.log(c / (1.0 - c)) for c in cuts if 0.0 < c < 1.0]


#: the key of the whole table's AUC in :func:`auc_parts` ``(whole=True)``'s answer
WHOLE = ("(every row)",)


def auc_parts(lf: Any, *, score_type: str, weighted: bool, grouped: bool, backend: str,
              ranges: int | None = None, cuts: list[float] | None = None,
              whole: bool = False) -> dict[Any, float | None]:
    r"""Exact Mann–Whitney AUC per slice (``None`` when a slice has one class).

    The rows are counted per score range (``cuts``, from :func:`range_cuts`, on the
    probability axis; ``ranges``: that many equal-width ranges) by the one 2U kernel
    (:func:`veracity.core._rank.class_numerators`): ranges bound the memory a count
    needs, and Spark and Dask count them in parallel after one shuffle by range.
    ``whole`` (with slices): also the whole table's AUC, under :data:`WHOLE`, from the
    same pass.
    """
    if backend == "duckdb":  # one scan spills the rows by range; numpy per range (see ._duckdb_auc)
        from ._duckdb import temp_directory
        from ._duckdb_auc import auc_table

        table = auc_table(lf.to_native(), weighted=weighted, grouped=grouped,
                          bounds=score_bounds(cuts or [], score_type), directory=temp_directory(), whole=whole)
        return combine_ranges(table, grouped=grouped, weighted=weighted)
    if backend == "pyspark":  # one shuffle by range; numpy in the Python workers (see ._spark)
        from ._spark import auc_table as spark_auc_table

        table = spark_auc_table(lf.to_native(), weighted=weighted, grouped=grouped,
                                bounds=score_bounds(cuts or [], score_type), whole=whole,
                                non_negative=score_type == "probability")
        return combine_ranges(table, grouped=grouped, weighted=weighted)
    if backend == "dask":  # one shuffle by range; a numpy sort per task
        from ._dask import auc_table as dask_auc_table

        table = dask_auc_table(lf.to_native(), weighted=weighted, grouped=grouped,
                               bounds=score_bounds(cuts or [], score_type), whole=whole)
        return combine_ranges(table, grouped=grouped, weighted=weighted)
    # every other backend (polars, Ibis, ...): the working columns come back, one score range at a
    # time, to the numpy kernel Spark's workers and Dask's tasks run (one 2U kernel, core._rank)
    if cuts is None:
        cuts = [float(c) for c in uniform_edges(ranges)[1:-1]] if ranges and ranges > 1 else []
    bounds = score_bounds(cuts, score_type)
    return combine_ranges(_collected_numerators(lf, bounds=bounds, weighted=weighted, grouped=grouped,
                                                whole=whole), grouped=grouped, weighted=weighted)


def _collected_numerators(lf: Any, *, bounds: list[float], weighted: bool, grouped: bool,
                          whole: bool) -> dict[str, list[Any]]:
    """Per (slice, range): ``_num``, ``_pos``, ``_neg`` from the working columns collected range by
    range (one collect without cut points) and counted by :func:`._range_auc.range_numerators`."""
    import narwhals as nw
    import pyarrow as pa

    from ._range_auc import range_numerators

    cols = [*(["_g"] if grouped else []), "_s", "_y", *(["_w"] if weighted else [])]
    x = lf.select(cols)
    s = nw.col("_s")
    lows, highs = [None, *bounds], [*bounds, None]
    parts: list[Any] = []
    for lo, hi in zip(lows, highs):  # a loop over score ranges, never rows
        rows = x
        if lo is not None:
            rows = rows.filter(s >= lo)
        if hi is not None:
            rows = rows.filter(s < hi)
        table = collect(rows).to_arrow()
        parts.extend(range_numerators(iter(table.to_batches()), bounds, grouped, weighted, whole))
    if not parts:
        return {name: [] for name in ([*(["_g"] if grouped else []), "_r", "_num", "_pos", "_neg"])}
    out: dict[str, list[Any]] = pa.Table.from_batches(parts).to_pydict()
    return out


def combine_ranges(table: dict[str, list[Any]], *, grouped: bool, weighted: bool) -> dict[Any, float | None]:
    """Merge per-range numerators (a loop over ranges, never rows)."""
    cast = float if weighted else (lambda v: int(v))
    per_key: dict[Any, list[tuple[int, Any, Any, Any]]] = {}
    keys = list(table["_g"]) if grouped else [None] * len(table["_r"])
    for i in [i for i, every in enumerate(table.get("_all", ())) if every]:
        keys[i] = WHOLE
    for i, key in enumerate(keys):
        per_key.setdefault(slice_key(key), []).append(
            (int(table["_r"][i]), cast(table["_num"][i]), cast(table["_pos"][i]), cast(table["_neg"][i]))
        )
    out: dict[Any, float | None] = {}
    for key, parts in per_key.items():
        parts.sort(key=lambda t: t[0])
        total, neg_below = 0, 0
        for _, num, pos, neg in parts:
            total += num + 2 * pos * neg_below
            neg_below += neg
        w_pos, w_neg = sum(t[2] for t in parts), neg_below
        if not (w_pos > 0 and w_neg > 0):
            out[key] = None
            continue
        if weighted and w_pos * w_neg < LIGHTEST_AUC_PRODUCT:
            raise VeracityError(
                f"the AUC of {'the rows' if key in (None, WHOLE) else f'slice {key!r}'} cannot be computed "
                f"where they are: its weights are so far below the heaviest rows' (positives x negatives "
                f"{w_pos * w_neg:.1e} of the common scale) that their products underflow in the engine; "
                "audit that slice alone (filter its rows) or in memory, where each slice has its own scale")
        out[key] = float(total / (2.0 * w_pos * w_neg))  # the array path's expression (unweighted: bit-identical)
    return out


#: a slice's weight of positives times negatives (in the frame's common weight scale, whose heaviest rows weigh
#: about 1) below this holds pairs of rows whose weight products are subnormal in the engine's sums (digits lost
#: from about 1e-235 apart, a negative variance or a division by 0 from 1e-240): refused, not read
LIGHTEST_AUC_PRODUCT = 1e-295
