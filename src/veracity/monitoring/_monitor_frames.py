"""The frame form of :func:`._monitor.monitor`: calibration per period of a frame or a file's rows.

``vc.monitor(frame, score="p", label="y", periods="ts", freq="M")`` on pandas, polars (eager and
lazy), pyarrow, DuckDB relations, Dask and Spark DataFrames and paths/globs of CSV/Parquet. An
in-memory frame takes the array form (:func:`._monitor.monitor`) on its columns; a lazy frame is
grouped where it lives into two aggregates per period key -- the final rows' per-bin sums, and every
row's score histogram with the pending count in the same pass -- which
:func:`._monitor.summarize_periods` turns into the same rows as the array form. The period key is
computed in the engine: a column's calendar
``yyyymmdd`` / ``yyyymm``, or for epoch seconds the proleptic Gregorian calendar by arithmetic
(:func:`_civil_steps`). The input contract (scores, labels of the final rows, weights, period
column) is checked there too, in the one line naming the column that every route gives.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from ..core._binning import bin_index, check_bins, uniform_edges
from ..core._text import count_noun
from ..core._validation import VeracityError, check_score_type, to_numpy
from ._columns import refuse_shared_columns
from ._monitor import (
    FREQS,
    UTC_NAMES,
    MonitorResult,
    _as_times,
    _cutoff,
    _kish,
    _missing_labels_may_pend,
    _period_keys,
    _refuse_missing_keys,
    monitor,
    period_keys,
    summarize_periods,
)

def _period_key(prep: Any, periods: str, freq: str | None) -> Any:
    """The grouping key expression (and the checks of the period column)."""
    import narwhals as nw

    dtype = prep.frame.schema[periods]
    col = nw.col(prep.frame.ref(periods))
    if freq is None:
        if dtype.is_temporal():
            raise VeracityError(
                f"column {periods!r} (periods) holds dates/times; pass freq='D', 'W', 'M', 'Q' or 'Y' "
                "to group them into periods"
            )
        return col
    _check_time_dtype(dtype, periods, freq)
    if dtype.is_numeric():  # epoch seconds, as in the array form (period_keys): the UTC calendar by arithmetic
        return _staged_key(prep, periods, freq, integer=dtype.is_integer())
    if isinstance(dtype, nw.Datetime) and dtype.time_zone is not None:
        # periods are UTC on every backend: a zone-aware column is converted once, here, before the
        # calendar fields are read (its own zone, or the session's, would move rows across months)
        if prep.frame.backend == "duckdb":
            _require_utc_session(prep.frame.nw.to_native(), periods)
        elif prep.frame.backend == "pyspark":
            _require_utc_spark_session(prep.frame.nw.to_native(), periods)
        elif dtype.time_zone.upper() not in UTC_NAMES:
            col = col.dt.convert_time_zone("UTC")
    month = col.dt.year().cast(nw.Int64) * 100 + col.dt.month().cast(nw.Int64)
    if freq in ("D", "W"):
        return month * 100 + col.dt.day().cast(nw.Int64)
    return month


def _zone_read_as_utc(data: Any, periods: str) -> Any:
    """A pandas or Dask frame whose ``periods`` column holds times in a zone other than UTC, with that
    column converted to UTC (``.dt.tz_convert("UTC")``: the same instants). Periods and label maturity
    are read in UTC on every route, so no number changes; but narwhals reads a zone named with ``_``
    (``datetime64[ns, America/New_York]``) as ``Unknown``, and such a column was refused with ``as_of=``
    ("is Unknown; as_of/horizon need prediction times"), and any other error of the call was reported
    as a refusal of the column. Other inputs pass unchanged."""
    if type(data).__module__.split(".", 1)[0] not in ("pandas", "dask") or not hasattr(data, "assign"):
        return data
    if periods not in getattr(data, "columns", ()):
        return data
    tz = getattr(getattr(data[periods], "dtype", None), "tz", None)
    if tz is None or str(tz).upper() in UTC_NAMES:
        return data
    return data.assign(**{periods: data[periods].dt.tz_convert("UTC")})


def _check_time_dtype(dtype: Any, periods: str, freq: str) -> None:
    """``freq`` one of :data:`FREQS`, and a period column of dates, datetimes or epoch seconds."""
    import narwhals as nw

    if freq not in FREQS:
        raise VeracityError(f"freq must be one of {', '.join(FREQS)}; got {freq!r}")
    if not dtype.is_numeric() and (not dtype.is_temporal() or dtype == nw.Duration):
        raise VeracityError(
            f"column {periods!r} (periods) is {dtype}; with freq= it must hold dates, datetimes or "
            "epoch seconds (cast it first, e.g. CAST(ts AS TIMESTAMP))"
        )


def _micros(seconds: Any) -> Any:
    """Fractional epoch seconds as whole microseconds, ``round(s·10⁶)``: the array form's reading
    (:func:`._time.to_utc_timestamps`), so a time a hair before midnight falls on the same day."""
    import narwhals as nw

    return (seconds.cast(nw.Float64) * 1e6).round(0)


def _civil_steps(seconds: Any, freq: str, per_day: float, *, floor: Any, where: Any, stage: Any) -> Any:
    """The period key (``yyyymm``, or ``yyyymmdd`` for ``D``/``W``) of epoch seconds, UTC, as a double:
    days since 1970-01-01 ``= floor(s / per_day)`` mapped to the proleptic Gregorian calendar by
    H. Hinnant's ``civil_from_days`` (400-year eras of 146,097 days, years from March), floors of
    exact quotients in double precision (every term is below 2^53). ``per_day`` is the units in a
    day (86400e6 for :func:`_micros`).

    One formula for every engine: ``floor(x)``, ``where(cond, a, b)`` and ``stage(name, x)`` (which
    returns what later steps read for ``x``) are numpy's and the identity on arrays
    (:func:`_civil_numbers`); on a narwhals frame ``stage`` makes ``x`` a column, so each shared
    step is computed once (:func:`_civil_stages`) -- written as one expression, the seconds would be
    rebuilt ~200 times (~2,000 nodes, seconds to build and bind)."""
    z = stage("z", floor(seconds / per_day) + 719468.0)
    era = stage("era", floor(z / 146097.0))
    doe = stage("doe", z - era * 146097.0)
    yoe = stage("yoe", floor((doe - floor(doe / 1460.0) + floor(doe / 36524.0) - floor(doe / 146096.0)) / 365.0))
    doy = stage("doy", doe - (365.0 * yoe + floor(yoe / 4.0) - floor(yoe / 100.0)))
    mp = stage("mp", floor((5.0 * doy + 2.0) / 153.0))
    day = stage("day", doy - floor((153.0 * mp + 2.0) / 5.0) + 1.0)
    month = stage("month", where(mp < 10.0, mp + 3.0, mp - 9.0))
    year = yoe + era * 400.0 + where(month <= 2.0, 1.0, 0.0)
    key = year * 100.0 + month
    return key * 100.0 + day if freq in ("D", "W") else key


def _staged_key(prep: Any, periods: str, freq: str, *, integer: bool) -> Any:
    """The :func:`_civil_steps` key of epoch seconds (whole, or fractional read as ``round(s·10⁶)`` µs),
    with intermediates as columns of ``prep.frame`` (which is replaced by the frame with them): the
    same operations on the same doubles, so the same keys. As one expression each shared
    sub-expression is rebuilt at every use (the seconds ~200 times, ``doe`` 5, ``mp`` 4: ~2,000
    nodes, seconds to build and bind). Fractional seconds: ``round(s·10⁶)`` of the finite ones (0
    elsewhere) and their finiteness are a first stage, the key is null where not finite. On
    Polars/DuckDB/Spark every step of the calendar is a stage; on Dask (where each operation
    between two columns walks the whole graph, and the optimiser is slow on long chains of
    assignments) the calendar is one NumPy function per partition, :func:`_civil_numbers`."""
    import narwhals as nw

    frame = prep.frame
    taken = set(frame.nw.collect_schema().names())

    def fresh(stem: str) -> str:
        name = f"_vc_{stem}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        return name

    col = nw.col(frame.ref(periods))
    staged = frame.nw
    finite: Any = None
    source = frame.ref(periods)
    if integer:
        seconds, per_day = col, 86400.0
    else:
        micros, ok = fresh("micros"), fresh("finite")
        is_finite = col.cast(nw.Float64).is_finite()  # NaN/inf: no key (refused by _check_times), never a failed cast
        safe = nw.when(is_finite).then(col.cast(nw.Float64)).otherwise(nw.lit(0.0))
        staged = staged.with_columns(**{micros: _micros(safe), ok: is_finite})
        seconds, per_day, finite, source = nw.col(micros), 86400e6, nw.col(ok), micros
    if frame.backend == "dask":
        staged, key = _civil_partitions(staged, source, freq, per_day, fresh("key"))
    else:
        staged, key = _civil_stages(staged, seconds, freq, per_day, fresh)
    prep.frame = replace(frame, nw=staged)
    return key if finite is None else nw.when(finite).then(key)


def _civil_numbers(seconds: np.ndarray, freq: str, per_day: float) -> np.ndarray:
    """:func:`_civil_steps` on a float64 array (NaN stays NaN)."""
    key: np.ndarray = _civil_steps(seconds, freq, per_day, floor=np.floor, where=np.where,
                                   stage=lambda _name, x: x)
    return key


def _civil_partitions(staged: Any, column: str, freq: str, per_day: float, name: str) -> tuple[Any, Any]:
    """A Dask frame with the key of the epoch time ``column`` (seconds, or µs with ``per_day=86400e6``)
    as a nullable Int64 column ``name``, computed per partition by :func:`_civil_numbers` (null
    where the time is): the frame and the key's column."""
    import narwhals as nw
    import pandas as pd

    def keys(series: Any) -> Any:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        missing = np.isnan(values)
        numbers = _civil_numbers(np.where(missing, 0.0, values), freq, per_day)
        return pd.Series(pd.arrays.IntegerArray(numbers.astype(np.int64), missing), index=series.index, name=name)

    native = staged.to_native()
    key = native[column].map_partitions(keys, meta=pd.Series(pd.array([], dtype="Int64"), name=name))
    with warnings.catch_warnings():  # narwhals announces that its Dask support moves to a plugin (as as_frame)
        warnings.simplefilter("ignore", FutureWarning)
        return nw.from_native(native.assign(**{name: key})), nw.col(name)


def _civil_stages(staged: Any, seconds: Any, freq: str, per_day: float, fresh: Any) -> tuple[Any, Any]:
    """:func:`_civil_steps` with each step a column added to the frame ``staged`` (names from
    ``fresh``): the frame and the key's column."""
    import narwhals as nw

    frames = [staged]

    def stage(stem: str, x: Any) -> Any:
        name = fresh(stem)
        frames.append(frames[-1].with_columns(**{name: x}))
        return nw.col(name)

    def where(cond: Any, a: Any, b: Any) -> Any:
        return nw.when(cond).then(a).otherwise(b)

    key = _civil_steps(seconds.cast(nw.Float64), freq, per_day, floor=lambda x: x.floor(), where=where, stage=stage)
    column = stage("key", key.cast(nw.Int64))
    return frames[-1], column


def _final_by_time(frame: Any, periods: str, cutoff: np.datetime64) -> Any:
    """Rows whose label is final at the cutoff (``as_of − horizon``, ``datetime64[us]``), as an
    expression: a time cut to the microsecond is at most the cutoff, i.e. before cutoff + 1 µs;
    whole epoch seconds ``s`` are final while ``s ≤ ⌊cutoff_µs / 10⁶⌋``, fractional ones while
    ``round(s·10⁶) ≤ cutoff_µs`` (times as :func:`label_maturity` and the store read them)."""
    from datetime import timezone

    import narwhals as nw

    dtype = frame.schema[periods]
    col = nw.col(frame.ref(periods))
    cutoff_us = int(cutoff.astype("datetime64[us]").astype(np.int64))
    if _is_text(frame, periods):  # ISO text in memory, read as the array form reads it (a mix refused so)
        from ..sources._arrow_numpy import series_to_numpy

        texts = np.asarray(series_to_numpy(frame.nw.get_column(periods)))
        return col.is_in(np.unique(texts[_final_rows(frame, periods, cutoff)].astype(str)).tolist())
    if dtype.is_integer():
        return col.cast(nw.Float64) <= float(cutoff_us // 1_000_000)
    if dtype.is_numeric():  # fractional seconds, to the microsecond: final while round(t·1e6) <= cutoff in µs
        return _micros(col) <= float(cutoff_us)
    if not dtype.is_temporal() or dtype == nw.Duration:
        _refuse_csv_text_times(frame, periods)  # a CSV's text that is no time: the memory route's words
        raise VeracityError(
            f"column {periods!r} (periods) is {dtype}; as_of/horizon need prediction times (dates, datetimes "
            "or epoch seconds)", param="periods")
    limit = (cutoff.astype("datetime64[us]") + np.timedelta64(1, "us")).item()
    if isinstance(dtype, nw.Datetime) and dtype.time_zone is not None:
        limit = limit.replace(tzinfo=timezone.utc)
        if frame.backend not in ("duckdb", "pyspark") and dtype.time_zone.upper() not in UTC_NAMES:
            col = col.dt.convert_time_zone("UTC")  # polars compares instants only within one zone
    return col < nw.lit(limit)


def _is_text(frame: Any, periods: str) -> bool:
    """Whether the in-memory ``frame``'s period column holds text (times the array form parses)."""
    import narwhals as nw

    return not frame.lazy and frame.schema[periods] == nw.String


def _refuse_text_times(frame: Any, periods: str, freq: str) -> None:
    """An in-memory text period column read as the array form reads it (:func:`._time.parse_time_strings`,
    on the column's own Arrow strings): a mix of times with and without a UTC offset, or a text that is no
    time, is refused in the array form's words, naming the column. Through numpy and Arrow's casts only:
    a narwhals literal on an Arrow table (the lazy forms' checks) builds ``pa.array``, which imports
    pandas, and pandas is no dependency of veracity. Nothing is done for other columns."""
    if _is_text(frame, periods):
        from ..sources._arrow_numpy import series_to_numpy

        present = _present(frame, periods)  # a missing time first, as every route refuses it (its first row)
        _refuse_times(periods, 0, 0.0, int((~present).sum()), first=int(np.argmin(present)))
        values = np.asarray(series_to_numpy(frame.nw.get_column(periods)))
        _period_keys(values, freq, f"column {periods!r} (periods)")


def _present(frame: Any, column: str) -> np.ndarray:
    """Where the in-memory ``frame``'s ``column`` holds a value (not null; a NaN is a value)."""
    from ..sources._arrow_numpy import series_to_numpy

    return ~np.asarray(series_to_numpy(frame.nw.get_column(column).is_null()), dtype=bool)


def _final_rows(frame: Any, periods: str, cutoff: np.datetime64) -> np.ndarray:
    """:func:`_final_by_time`'s rows of an in-memory frame, in numpy (a missing time: not final): whole
    epoch seconds ``s <= floor(cutoff_µs / 10⁶)``, fractional ones ``round(s·10⁶) <= cutoff_µs``, times
    and ISO text (read as the array form reads them, :func:`_as_times`) before cutoff + 1 µs."""
    from ..sources._arrow_numpy import series_to_numpy

    dtype = frame.schema[periods]
    values = np.asarray(series_to_numpy(frame.nw.get_column(periods)))
    present = _present(frame, periods)
    cutoff_us = int(cutoff.astype("datetime64[us]").astype(np.int64))
    final = np.zeros(values.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        if dtype.is_integer():
            final[present] = values[present].astype(np.float64) <= float(cutoff_us // 1_000_000)
        elif dtype.is_numeric():
            final[present] = np.round(values[present].astype(np.float64) * 1e6) <= float(cutoff_us)
        else:
            if _is_text(frame, periods):  # a missing time first (text's refusals count all rows)
                _refuse_times(periods, 0, 0.0, int((~present).sum()), first=int(np.argmin(present)))
            times = _as_times(values[present], f"column {periods!r} (periods)")
            final[present] = times < cutoff.astype("datetime64[us]") + np.timedelta64(1, "us")
    return final


def _check_rows_in_memory(prep: Any, final: np.ndarray, score_type: str, label: str) -> None:
    """:func:`_check_rows` of an in-memory frame on its columns in numpy (``final``: the rows whose label
    counts), the same counts (:func:`..sources._aggregates.contract_arrays`) and the same one line."""
    from ..core._validation import _is_missing
    from ..sources import _aggregates as agg

    def floats(values: Any) -> np.ndarray:  # as _aggregates.as_float: booleans 1.0/0.0, NaN where missing
        a = np.asarray(values)
        if a.dtype != object:
            return a.astype(np.float64)
        missing = np.frompyfunc(_is_missing, 1, 1)(a).astype(bool) if a.size else np.zeros(0, dtype=bool)
        out = np.full(a.shape, np.nan)
        out[~missing] = a[~missing].astype(np.float64)
        return out

    scores, labels, weights = prep.arrays()
    s, y = floats(scores), floats(labels)
    w = None if weights is None else floats(weights)
    names = {"score": prep.score[0], "label": label, "weight": prep.weight, "score_type": score_type}
    agg.check_contract(agg.contract_arrays(s, np.zeros(s.size), w), **names)
    counts = agg.contract_arrays(s[final], y[final], None if w is None else w[final])
    if int(counts["n"] or 0):
        bad = final & ~((y == 0.0) | (y == 1.0))
        first = int(np.argmax(bad)) + 1 if bad.any() else None  # a pending row's label is never named
        with np.errstate(invalid="ignore"), _carrying_label_rows(bad, label):
            agg.check_contract(counts, **names, first_label_row=first)


@contextmanager
def _carrying_label_rows(bad: np.ndarray, label: str) -> Iterator[None]:
    """The refusal of the final rows' labels (``bad``: the final rows whose label is not 0/1, a missing
    one included -- the rows ``contract_arrays`` counts in ``y_bad``; its line names the first of them,
    "first at data row k", k counted from 1 over the frame's rows as the lazy routes' line counts FILE's)
    carries their positions (``rows``, of ``n_rows`` = the frame's rows). Other refusals pass unchanged."""
    try:
        yield
    except VeracityError as exc:
        if not bad.any() or not exc.message.startswith(f"column {label!r} (labels)"):
            raise
        raise type(exc)(exc.message, exc.param, exc.hint, value=exc.value, rows=np.flatnonzero(bad),
                        n_rows=bad.size) from None


def _check_times_in_memory(prep: Any, periods: str, freq: str) -> None:
    """:func:`_check_times` of an in-memory frame's (non-text) period column, in numpy: a column of
    another type, numbers that are not epoch seconds, then missing values, in the same words."""
    import narwhals as nw

    from ..sources._arrow_numpy import series_to_numpy

    dtype = prep.frame.schema[periods]
    _check_time_dtype(dtype, periods, freq)
    present = _present(prep.frame, periods)
    if dtype.is_numeric():
        col = prep.frame.nw.get_column(periods).cast(nw.Float64)
        # not finite as the backend says it (a pandas NaN is null and not finite), a null never
        odd = int((np.asarray(series_to_numpy(col.is_finite()), dtype=object) == False).sum())  # noqa: E712
        t = np.asarray(series_to_numpy(col), dtype=np.float64)[present]
        _refuse_times(periods, odd, float(np.abs(t).max()) if t.size else 0.0)
    _refuse_times(periods, 0, 0.0, int((~present).sum()), first=int(np.argmin(present)))


def _refuse_csv_text_times(frame: Any, periods: str) -> None:
    """A lazy frame over CSV files whose period column its engine read as zone-aware times, checked as
    the memory route reads the same file: Arrow's reader keeps a column that mixes times with and without
    a UTC offset as text, which the array form refuses (:func:`._time.parse_time_strings`); DuckDB and
    Spark read such a mix as times (one without an offset as UTC: the same file, another answer) and Dask
    refused it as "text that is not a date". The column's text is read a block at a time (Arrow, no
    pandas) and cast as the array form casts it; when no one ISO 8601 form reads every block (times with
    and without an offset) it is refused in the memory route's line (its rows counted over the files in
    order, as the memory route reads them). A text that is no time is left to the engine (only Dask reads
    one as a time column; it names the text). A column its engine kept as text (DuckDB and Spark read
    ``01/02/2024`` or ``yesterday`` so) is read the same way: the memory route's line, naming the first
    text that is no ISO 8601 time, replaces "is String; ... cast it first"."""
    import narwhals as nw
    import pyarrow as pa

    from .._files import expand
    from ..sources._csv_text import text_blocks
    from ._time import _STRING_TARGETS, _strings_problem

    dtype = frame.schema[periods]
    text = dtype == nw.String
    if not frame.lazy or frame.source == "frame" or not (isinstance(dtype, nw.Datetime) or text):
        return
    if not text and dtype.time_zone is None:  # naive times: no text among them carried an offset
        return
    try:
        files, kind = expand(frame.source)
    except VeracityError:
        return
    if kind != "csv":
        return

    def reads(block: Any, unit: str, tz: str | None) -> bool:
        try:
            block.cast(pa.timestamp(unit, tz=tz))
        except pa.ArrowInvalid:
            return False
        return True

    targets, head, rows, seen, missing, first = list(_STRING_TARGETS), [], 0, 0, 0, None
    try:
        for block in map(cells_as_read, text_blocks(files, periods)):
            if block.null_count:  # a missing time: refused first, as on every route
                first = seen + _first_null(block) if first is None else first
                missing += block.null_count
            seen += len(block)
            targets = [t for t in targets if reads(block, *t)]
            if rows < 100_000:  # what _strings_problem reads: the first 100,000 rows
                head.append(block)
                rows += len(block)
    except (pa.ArrowInvalid, OSError):  # a file Arrow cannot read so: the engine's own words follow
        return
    _refuse_times(periods, 0, 0.0, missing, first=first)
    if targets or not rows:
        return
    problem = _strings_problem(pa.concat_arrays(head))
    if problem.startswith("has strings that are not ISO 8601 times") and not text:  # Dask's text that is no
        return  # time: its own line when its rows are parsed (pinned by tests/monitoring/test_monitor.py)
    raise VeracityError(f"column {periods!r} (periods) must be dates or datetimes in one ISO 8601 form, "
                        f"but it {problem}", param="periods")


def cells_as_read(block: Any) -> Any:
    """A CSV column's text (an Arrow string array, every cell as written) with the cells Arrow's reader
    takes as missing (:data:`..sources._csv_text.NULL_TEXTS`: an empty cell, ``NA``, ``null`` ...) made
    null: the column as the memory route reads it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..sources._csv_text import NULL_TEXTS
    from ._monitor import _string_array

    gone = pc.is_in(block, value_set=_string_array(np.asarray(NULL_TEXTS)))  # never null (Arrow's scalars:
    n = pc.sum(gone).as_py() or 0  # pandas imported, which veracity does not need)
    return pc.replace_with_mask(block, gone, pa.nulls(n, block.type)) if n else block


def _first_null(block: Any) -> int:
    """The position of the first null of an Arrow array that holds one (in numpy: no pandas imported)."""
    from ..sources._arrow_numpy import is_missing

    return int(np.argmax(is_missing(block)))


def _check_times(prep: Any, key: Any, periods: str) -> None:
    """One pass over the period keys: none missing, and numbers that can be epoch seconds
    (finite, at most 1e11 in size, as :func:`._time.to_utc_timestamps` refuses milli- and
    nanoseconds in memory) — read as seconds, milliseconds would be months in the year 55,000."""
    import narwhals as nw

    from ..sources import _aggregates as agg

    numeric = prep.frame.schema[periods].is_numeric()
    # a missing time is counted on the column itself, not on its key: Dask casts a missing time's calendar
    # fields (NaN) to integers while it builds the key, and fails in pandas' words before any count
    gone = key.is_null() if numeric else nw.col(prep.frame.ref(periods)).is_null()
    checks = [agg._flag(gone).sum().alias("missing")]
    if numeric:
        t = nw.col(prep.frame.ref(periods)).cast(nw.Float64)
        odd = ~t.is_finite()
        if _csv_on_dask(prep.frame):  # pandas' NaN is an empty cell there: missing, as other routes read it
            odd = odd & ~nw.col(prep.frame.ref(periods)).is_null()
        checks += [t.abs().max().alias("largest"), agg._flag(odd).sum().alias("odd")]
    missing, *numbers = agg.collect(prep.frame.nw.select(*checks)).rows()[0]
    if numeric:
        not_finite = int(numbers[1] or 0)
        if not_finite:  # Dask's Parquet floats: a null is a NaN there too; the files' own count of nulls off
            not_finite -= _parquet_nulls_on_dask(prep.frame, periods)
        _refuse_times(periods, not_finite, float(numbers[0] or 0.0))
    _refuse_times(periods, 0, 0.0, int(missing or 0))


def _parquet_nulls_on_dask(frame: Any, column: str) -> int:
    """The nulls of ``column`` in the Parquet files that ``frame``, Dask's reading of them, holds (0 for
    any other frame): pandas reads a null float as NaN, which the memory route, DuckDB and Spark read as a
    missing time, not a number that is not finite. Counted from the files' statistics (no pass over the
    rows; a row group written without them is read, that column only), a file without the column: its
    rows (read as missing)."""
    import pyarrow.parquet as pq

    from .._files import expand

    if frame.backend != "dask" or frame.source == "frame":
        return 0
    try:
        files, kind = expand(frame.source)
    except VeracityError:
        return 0
    if kind != "parquet":
        return 0
    name, nulls = frame.ref(column), 0
    for path in files:
        with pq.ParquetFile(path) as pf:
            meta = pf.metadata
            leaf = [j for j in range(meta.num_columns) if meta.schema.column(j).path == name]
            if not leaf:
                nulls += meta.num_rows
                continue
            for i in range(meta.num_row_groups):
                stats = meta.row_group(i).column(leaf[0]).statistics
                if stats is not None and stats.has_null_count:
                    nulls += stats.null_count
                else:
                    nulls += pf.read_row_group(i, columns=[name]).column(name).null_count
    return nulls


def _csv_on_dask(frame: Any) -> bool:
    """Whether ``frame`` is Dask's reading of CSV files, whose missing cells pandas reads as NaN (the memory
    route, DuckDB and Spark read them as null: a missing time, not a number that is not finite)."""
    from .._files import expand

    if frame.backend != "dask" or frame.source == "frame":
        return False
    try:
        return expand(frame.source)[1] == "csv"
    except VeracityError:
        return False


def _refuse_times(periods: str, odd: int, largest: float, missing: int = 0, first: int | None = None) -> None:
    """The period column's refusals: ``odd`` numbers not finite or the ``largest`` |value| over 1e11 (no
    epoch seconds), then ``missing`` values (the first at 0-based row ``first`` where known: an in-memory
    frame's, named as :func:`._monitor._refuse_missing_keys` names a missing key)."""
    if odd or largest > 1e11:
        what = f"{odd} not finite" if odd else f"max |value| {largest:.3g}"
        raise VeracityError(
            f"column {periods!r} (periods) holds numbers that are not epoch seconds ({what}); "
            "numbers are read as seconds since 1970-01-01 UTC: convert milli/nanoseconds to seconds or pass "
            "dates", param="periods")
    if missing:
        where = "" if first is None else f" (first at row {first})"
        count = count_noun(missing, "missing value")
        raise VeracityError(f"column {periods!r} (periods) has {count}{where}; drop or fill "
                            f"{'it' if missing == 1 else 'them'}", param="periods")


def _check_keys(prep: Any, key: Any, periods: str) -> None:
    """Period keys (without ``freq``) are all there: a null (or NaN) key once became a period named 'None'."""
    from ..sources import _aggregates as agg

    gone = key.is_null() | key.is_nan() if prep.frame.schema[periods].is_float() else key.is_null()
    missing = agg.collect(prep.frame.nw.select(agg._flag(gone).sum().alias("missing"))).rows()[0][0]
    n = int(missing or 0)
    if n:
        raise VeracityError(f"column {periods!r} (periods) has {count_noun(n, 'missing value')}; drop or "
                            f"fill {'it' if n == 1 else 'them'}", param="periods")


def _require_utc_session(relation: Any, column: str) -> None:
    """DuckDB reads a zone-aware column's calendar fields in the connection's TimeZone setting, which a
    relation cannot change: go on only when that is UTC (veracity's own file reader sets it)."""
    try:
        zone = relation.query("_vc_tz", "SELECT current_setting('TimeZone')").fetchall()[0][0]
    except Exception:  # pragma: no cover - builds without ICU: no zones at all
        return
    if str(zone).upper() not in UTC_NAMES:
        raise VeracityError(
            f"column {column!r} (periods) is zone-aware and this DuckDB connection's TimeZone is {zone!r}, so "
            "months and days would follow that zone; run SET TimeZone = 'UTC' on the connection (periods are "
            "UTC in veracity), or pass the file's path instead of a relation")


def _require_utc_spark_session(frame: Any, column: str) -> None:
    """Spark reads a timestamp's calendar fields in the session's time zone, read live here (narwhals
    keeps the first value it saw): go on only when that is UTC."""
    try:
        zone = str(frame.sparkSession.conf.get("spark.sql.session.timeZone"))
    except Exception:  # pragma: no cover - a Spark-like frame without a session conf
        return
    if zone.upper() not in UTC_NAMES:
        raise VeracityError(
            f"column {column!r} (periods) is read in the Spark session's time zone {zone!r}, so months and "
            "days would follow that zone; set spark.sql.session.timeZone to UTC (periods are UTC in veracity)")


def _group_keys(series: Any) -> list[Any]:
    """A collected key column as the period keys the statistics read (``bin_sums``: ``agg.values`` then
    ``agg.slice_key``): a FLOAT key as the float32 it is (``0.1``, not the double ``0.10000000149011612``),
    ``-0.0`` as ``0.0``. Read with ``to_list``, a DuckDB FLOAT key named the histogram and the pending rows
    of a period otherwise than its labelled rows: each period listed twice, once without PSI."""
    from ..sources import _aggregates as agg

    return [agg.slice_key(k) for k in agg.values(series)]


def _names(keys: list[Any], freq: str | None) -> list[str]:
    """The array form's period names of the keys that came back."""
    if freq is None:
        return [str(k) for k in np.asarray(keys, dtype=object).astype(str)]
    k = np.asarray(keys, dtype=np.int64)
    if freq in ("D", "W"):
        text = [f"{v // 10000:04d}-{v // 100 % 100:02d}-{v % 100:02d}" for v in k]
        days = np.asarray(text, dtype="datetime64[D]")
        return [str(v) for v in period_keys(days, freq=freq)]
    months = np.asarray([f"{v // 100:04d}-{v % 100:02d}" for v in k], dtype="datetime64[M]")
    return [str(v) for v in period_keys(months, freq=freq)]


def _add(target: dict[str, Any], key: str, value: Any) -> None:
    target[key] = target[key] + value if key in target else value


def _working(prep: Any, key: Any = None, existed: Any = None) -> Any:
    """The columns the monitor reads: ``_s`` score, ``_y`` 0/1 label, ``_w`` weight, ``_m`` final
    (label counts), with ``key`` ``_g`` the period key and with ``existed`` (an expression) ``_e``,
    True where the row is dated at or before ``as_of``."""
    import narwhals as nw

    from ..sources._aggregates import as_float

    f = prep.frame
    # booleans as 1.0/0.0 without a cast, as the audit reads them (a DuckDB relation over a CSV file
    # otherwise fails on the text 'False')
    schema = f.nw.collect_schema()
    w = as_float(f.ref(prep.weight), schema) if prep.weight else nw.lit(1.0, nw.Float64)
    y = as_float(prep.y, schema) if isinstance(prep.y, str) else prep.y
    cols = [as_float(f.ref(prep.score[0]), schema).alias("_s"), y.alias("_y"), w.alias("_w"),
            (prep.rows if prep.rows is not None else nw.lit(True)).alias("_m")]
    return f.nw.select(*cols, *([] if key is None else [key.alias("_g")]),
                       *([] if existed is None else [existed.alias("_e")]))



def _flags(prep: Any, mature: str) -> np.ndarray:
    """The boolean ``mature`` column of an in-memory frame, a missing flag read as False (not final: the row
    is pending), as the lazy route reads it (``fill_null(False)``); refused before on this route only."""
    from ..sources._arrow_numpy import series_to_numpy

    flags = np.asarray(series_to_numpy(prep.frame.nw.get_column(mature)))
    # a null read by numpy, not by fill_null (a narwhals literal on an Arrow table imports pandas)
    return np.where(_present(prep.frame, mature), flags, False).astype(bool)


def _check_rows(prep: Any, working: Any, score_type: str, label: str) -> tuple[Any, Any, dict[str, Any]]:
    """The input contract in one line naming the column: every row's score and weight, and the
    labels of the final rows only (a pending row's label may be missing). Returns the counts
    over every row, the final rows and their counts."""
    import narwhals as nw

    from ..sources import _aggregates as agg

    weighted = prep.weight is not None
    every = agg.contract_counts(working.with_columns(_y=nw.lit(0.0)), score_type=score_type, weighted=weighted)
    agg.check_contract(every, score=prep.score[0], label=label, weight=prep.weight, score_type=score_type)
    final = working.filter(nw.col("_m"))
    counts = agg.contract_counts(final, score_type=score_type, weighted=weighted)
    if int(counts["n"] or 0):
        agg.check_contract(counts, score=prep.score[0], label=label, weight=prep.weight, score_type=score_type)
    return every, final, counts


def _monitor_frame(data: Any, labels: Any, periods: Any, *, score: Any, label: Any, freq: str | None,
                   mature: Any, bins: int, score_type: str, sample_weight: Any, level: float, min_count: int,
                   reference: str | None, pos_label: Any, as_of: Any = None,
                   horizon: Any = None) -> MonitorResult:
    """``monitor(frame, score=..., label=..., periods="ts", ...)`` (see :func:`monitor`).

    In-memory frames take the array code on their columns. On a lazy frame two
    aggregates come back, one row per (period key, bin): the per-bin
    statistics of the rows whose label is final (``mature``; every row without it), and all
    rows' score histograms (the PSI reads these: labels arrive late, scores do not) with, in
    the same pass, the count of pending rows (not ``mature``, or with ``as_of``/``horizon`` a prediction
    time after ``as_of − horizon``, to the microsecond as :func:`label_maturity`). With ``freq`` the key is the calendar day (``D``, ``W``)
    or month (``M``, ``Q``, ``Y``) as an integer ``yyyymmdd`` / ``yyyymm``; the few keys
    that come back are named like the array form's periods and merged in Python, so a
    week or a quarter is the sum of its days or months.
    """
    import narwhals as nw

    from ..sources import _aggregates as agg
    from ..sources._api import _column_arg, _Prepared
    from ..sources._api import stats_from_sums as _stats

    if labels is not None:
        raise VeracityError("vc.monitor(frame, score=..., label=..., periods='column') takes no other "
                            "positional arguments", param="labels")
    periods = _column_arg(periods, "periods")
    if periods is None:
        raise VeracityError("the frame form of vc.monitor needs periods= naming the period or time column")
    if freq is not None or as_of is not None:
        data = _zone_read_as_utc(data, periods)
    mature = _column_arg(mature, "mature")
    refuse_shared_columns([("score=", "score", score), ("label=", "label", label),
                           ("periods=", "period key or time", periods),
                           ("mature=", "final-label flag", mature),
                           ("sample_weight=", "weight", _column_arg(sample_weight, "sample_weight"))])
    cutoff = None if as_of is None else _cutoff(as_of, horizon)
    at_as_of = None if as_of is None else _cutoff(as_of, 0)  # rows dated after it did not exist then
    prep = _Prepared(data, score, label, sample_weight, extra={"periods": periods, "mature": mature},
                     pos_label=pos_label, label_rows=mature,
                     final=None if cutoff is None else (lambda frame: _final_by_time(frame, periods, cutoff)))
    if prep.multiclass:
        raise VeracityError(f"vc.monitor watches binary scores (one probability per row), got {len(prep.score)} "
                            "score columns; name one score column: the positive class's probability")
    score_type = check_score_type(score_type, what="vc.monitor")
    pending_unmarked = mature is None and as_of is None
    f = prep.frame
    if freq is None:  # dates/times as keys: refused in the words naming the column, on every route
        _period_key(prep, periods, None)
    if not f.lazy:
        try:
            scores, labels, weights = prep.arrays()
            return monitor(scores, labels, prep.column(periods), freq=freq,
                           mature=None if mature is None else _flags(prep, mature), bins=bins,
                           score_type=score_type, sample_weight=weights, level=level, min_count=min_count,
                           reference=reference, as_of=as_of, horizon=horizon)
        except VeracityError:  # the lazy forms' one-line error naming the column, when the rows break the contract
            # in numpy, as the lazy forms count them (their narwhals literals on an Arrow table import pandas)
            if freq is not None:  # times first, as the array form reads them: text times in its words
                _refuse_text_times(f, periods, freq)
            else:  # keys first, as the lazy forms check them; the first missing one named, as the array form
                keys = to_numpy(prep.column(periods), "periods")
                _refuse_missing_keys(keys, f"column {periods!r} (periods)", "missing value")
            final = np.ones(len(f.nw), dtype=bool) if mature is None else _flags(prep, mature)
            if cutoff is not None:
                final &= _final_rows(f, periods, cutoff)
            with _missing_labels_may_pend(pending_unmarked, "mature='column'"):
                _check_rows_in_memory(prep, final, score_type, label)
            if freq is not None and not _is_text(f, periods):  # text times: read above, not refused as text
                _check_times_in_memory(prep, periods, freq)
            raise

    m = check_bins(bins, auto=False)
    edges = uniform_edges(m)
    if freq is not None:  # a CSV's text times as the memory route reads them (a mix of offsets refused)
        _refuse_csv_text_times(f, periods)
    key = _period_key(prep, periods, freq)
    # ``_e``: the row existed at as_of (a row dated after it is checked as every row is, then left out)
    working = _working(prep, key, None if at_as_of is None else _final_by_time(f, periods, at_as_of))
    if freq is not None:
        _check_times(prep, key, periods)
    else:
        _check_keys(prep, key, periods)
    with _missing_labels_may_pend(pending_unmarked, "mature='column'"):
        every, final, counts = _check_rows(prep, working, score_type, label)
    labelled = int(counts["n"] or 0)

    def scaled(lf: Any, c: dict[str, Any]) -> Any:
        scale = agg.weight_scale(c) if prep.weight else 1.0
        return lf if scale == 1.0 else lf.with_columns(_w=nw.col("_w") * scale)

    stats: dict[str, Any] = {}
    if labelled:
        sums = agg.bin_sums(scaled(final, counts), bins=m, score_type=score_type, threshold=0.5, grouped=True,
                            weighted=bool(prep.weight))
        for name, k in zip(_names(list(sums), freq), sums):
            _add(stats, name, _stats(sums[k], edges))
    existed = at_as_of is not None
    # the pending rows (not final) counted in the same pass: ``_pend`` per (key, bin[, existed]) group
    counted = prep.rows is not None
    hist_rows = agg.collect(
        scaled(working, every).with_columns(_p=agg.probability(score_type))
        .with_columns(_b=bin_index(nw.col("_p"), edges, "uniform"), _w2=nw.col("_w") * nw.col("_w"),
                      _one=nw.lit(1, nw.Int64), **({"_pend": agg._flag(~nw.col("_m"))} if counted else {}))
        .group_by("_g", "_b", *(["_e"] if existed else []))
        .agg(nw.col("_w").sum(), nw.col("_w2").sum(), nw.col("_one").sum(),
             *([nw.col("_pend").sum()] if counted else []))
    )
    histograms: dict[str, np.ndarray] = {}
    squares: dict[str, np.ndarray] = {}
    later = 0  # the rows dated after as_of: left out of every count
    here = [bool(e) for e in hist_rows.get_column("_e").to_list()] if existed else [True] * hist_rows.shape[0]
    groups = _group_keys(hist_rows.get_column("_g"))
    hist_keys = [k for k, e in zip(groups, here) if e]
    names = dict(zip(hist_keys, _names(hist_keys, freq))) if hist_keys else {}
    columns = [groups, *(hist_rows.get_column(c).to_list() for c in ("_b", "_w", "_w2", "_one"))]
    for k, b, total, sq, ones, e in zip(*columns, here):
        if not e:
            later += int(ones)
            continue
        h, h2 = np.zeros(m), np.zeros(m)
        h[int(b)], h2[int(b)] = float(total), float(sq)
        _add(histograms, names[k], h)
        _add(squares, names[k], h2)
    sizes = None
    if prep.weight:  # the effective rows of each period, (Σw)² / Σw², as the array form
        sizes = {k: (_kish(float(h.sum()), float(squares[k].sum())) if h.sum() > 0 else 0.0)
                 for k, h in histograms.items()}
    pending: dict[str, int] = {}
    if counted:  # the rows existing at as_of whose label is not final, per period (those with any)
        for k, c, e in zip(groups, hist_rows.get_column("_pend").to_list(), here):
            if e and c:
                pending[names[k]] = pending.get(names[k], 0) + int(c)
    result = summarize_periods(dict(sorted(stats.items())), pending=pending, histograms=histograms,
                               reference=reference, level=level, min_count=min_count, histogram_sizes=sizes,
                               weight_scale=agg.weight_scale(counts) if prep.weight and labelled else 1.0,
                               histogram_squares=squares if prep.weight else None)
    return replace(result, rows_read=int(every["n"] or 0), after_as_of=later)
