"""The frame form of the audit, the reliability table and the metrics.

``vc.audit(frame, score="p", label="y", by="segment", sample_weight="w")``:

* in-memory frames (pandas, polars, pyarrow) hand their columns to the array
  code as numpy arrays (zero-copy where the library allows), so every option of
  the array form works and the numbers are the array form's, bit for bit;
* lazy frames (DuckDB relations and files, polars LazyFrames, Dask, Spark, Ibis)
  are never collected: :mod:`._aggregates` computes the per-bin statistics,
  accuracy and exact AUC where the data lives and the same
  :func:`~veracity.core._audit.audit_from_stats` turns them into the result.

Bad rows give the same one-line message on every backend: when the array code
refuses an in-memory frame, the frame's contract counts name the column.

A path is read here too: :func:`read_path` reads the needed columns of a CSV/Parquet file, glob or
directory into memory with pyarrow (``--engine memory``; :func:`column` and :func:`score_matrix` turn
them into checked numpy arrays through the one column lookup), and :func:`open_frame` opens it where
the rows live (DuckDB, Spark, Dask) for the frame form.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from collections.abc import Callable
from typing import Any

import numpy as np

from .._files import _PARQUET
from ..core._binning import uniform_edges
from ..core._metrics import check_threshold
from ..core._validation import MissingLabels, VeracityError, check_numeric_column, check_score_type, refuse_score
from . import _aggregates as agg
from ..core._keys import key_name, key_order  # noqa: F401 - key_order: the slices' one order, imported from here
from ._source import (Frame, _is_decimal, as_frame, check_columns, check_dtypes, exact_floats,
                      keys_as_written_frame, refuse_nested)
from ._arrow_numpy import is_missing, series_to_numpy, to_numpy

#: options of the array form that need every row in memory (refused on lazy frames)
_IN_MEMORY_ONLY = ("bootstrap", "ci", "noise_floor", "estimators", "tests", "corp")


def _scores(score: Any) -> list[str]:
    if isinstance(score, str):
        return [score]
    if isinstance(score, (list, tuple)) and score and all(isinstance(s, str) for s in score):
        twice = next((s for i, s in enumerate(score) if s in score[:i]), None)
        if twice is not None:  # a class's scores read from another's column: silently wrong numbers
            raise VeracityError(f"score= names the column {twice!r} twice ({list(score)!r}); name each class's "
                                "score column once, in class order (e.g. score=['p0', 'p1', 'p2'])")
        return list(score)
    raise VeracityError(f"score= must name a column, or a list of columns for multiclass; got "
                        f"{shown_arg(score)}")


def shown_arg(value: Any, *, hint: str = "") -> str:
    """An argument that should have been a column name, as an error shows it: a scalar or a short list as
    written, anything longer (an array of labels passed where its column's name belongs) by its type and
    shape or length, never printed whole (a message is one line), then ``hint`` (what to pass instead of
    the values). The one wording of every route: the frame forms and the table form (:mod:`veracity.sql`)."""
    from ..core._validation import plain

    value = plain(value)  # a numpy scalar as the number it holds (0.5, not np.float64(0.5))
    if value is None or isinstance(value, (str, bool, int, float)):
        return repr(value)[:80]
    if isinstance(value, (list, tuple)) and len(value) <= 5 and all(
            v is None or isinstance(v, (str, bool, int, float)) for v in value):
        return repr(value)[:80]
    shape = getattr(value, "shape", None)
    try:
        size = tuple(shape) if isinstance(shape, tuple) else len(value)
    except TypeError:  # no length (a generator, a set's iterator)
        size = None
    kind = "array" if isinstance(value, np.ndarray) else type(value).__name__
    shown = f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
    if isinstance(size, tuple):
        shown += f" of shape {size}"
    elif size is not None:
        shown += f" of length {size}"
    return shown + hint


def _column_arg(value: Any, role: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise VeracityError(
            f"with a frame, {role}= names a column (a string), got {shown_arg(value)}; "
            "pass the column name, or pass arrays in place of the frame (the array form)"
        )
    return value


def _python_times(keys: np.ndarray, zone: str | None) -> np.ndarray:
    """``datetime64`` keys as ``datetime``/``date`` objects, in ``zone`` when the column has one (its UTC
    instants shown there, as a lazy frame hands them back); one conversion per distinct key.
    Nanosecond keys as pandas ``Timestamp`` objects (through Arrow), as DuckDB, Dask and lazy polars
    hand them back: ``datetime`` holds microseconds, so keys 1 ns apart were one slice."""
    unit = np.datetime_data(keys.dtype)[0]
    zone = _zone_name(zone)
    if unit in ("ns", "ps", "fs", "as"):
        import pyarrow as pa

        values, inverse = np.unique(keys.astype("datetime64[ns]"), return_inverse=True)
        # NaT: null (named None by the caller)
        stamps = pa.array(values, pa.timestamp("ns"), from_pandas=True)
        if zone is not None:
            stamps = stamps.cast(pa.timestamp("ns", tz="UTC")).cast(pa.timestamp("ns", tz=zone))
        objects = np.empty(len(values), dtype=object)
        objects[:] = stamps.to_pylist()
        return objects[inverse.reshape(-1)]
    values, inverse = np.unique(keys, return_inverse=True)
    objects = values.astype(object)
    if zone is not None:
        from datetime import datetime, timezone
        from zoneinfo import ZoneInfo

        place = _fixed_offset(zone) or ZoneInfo(zone)
        objects = np.array([v.replace(tzinfo=timezone.utc).astimezone(place) if isinstance(v, datetime)
                            else v for v in objects.tolist()], dtype=object)
    return objects[inverse.reshape(-1)]


def _zone_name(zone: str | None) -> str | None:
    """A column's time zone as an IANA name or a fixed offset (``+09:00``) that ``zoneinfo`` and Arrow
    read: pandas' fixed offsets come through narwhals as ``UTC+09:00``, which neither reads (a raw
    ``UnknownTimeZoneError``). The slice is named by its UTC instant (:func:`veracity.core._keys.key_name`),
    so the offset only places the key."""
    if zone is None:
        return None
    import re

    fixed = re.fullmatch(r"(?:UTC|GMT)?([+-]\d{2}):?(\d{2})", zone)
    return f"{fixed.group(1)}:{fixed.group(2)}" if fixed else zone


def _fixed_offset(zone: str) -> Any:
    """A fixed offset (``+09:00``, as :func:`_zone_name` writes one) as a ``datetime.timezone``; None
    for a zone name."""
    import re
    from datetime import timedelta, timezone

    fixed = re.fullmatch(r"([+-])(\d{2}):(\d{2})", zone)
    if not fixed:
        return None
    sign = -1 if fixed.group(1) == "-" else 1
    return timezone(sign * timedelta(hours=int(fixed.group(2)), minutes=int(fixed.group(3))))


def _no_labels() -> Any:
    """The working label of a frame read without labels: the literal 0 (a valid label on every row)."""
    import narwhals as nw

    return nw.lit(0.0, nw.Float64)


class _Prepared:
    """A checked frame and its column names."""

    def __init__(self, data: Any, score: Any, label: Any, sample_weight: Any = None, by: Any = None,
                 extra: dict[str, Any] | None = None, *, pos_label: Any = None,
                 label_rows: Any = None, final: Callable[[Frame], Any] | None = None,
                 labelled: bool = True, keys: tuple[str, ...] = ("by",)) -> None:
        """``labelled=False``: a function that takes no labels (``label`` is None); the scores (and the
        weights) are read and checked as for the others, the labels' checks left out. ``keys``: the roles
        (``by``, an ``extra`` name) whose columns are slice keys, read from a CSV path as the text written
        where numbers would lose it (:func:`._source.keys_as_written_frame`)."""
        if labelled and not isinstance(label, str):
            raise VeracityError(f"label= must name the label column (a string), got {shown_arg(label)}")
        if not labelled and label is not None:
            raise VeracityError(f"this function takes no labels; drop label= (got {shown_arg(label)})",
                                param="label")
        self.score = _scores(score)
        self.label: Any = label
        self.weight = _column_arg(sample_weight, "sample_weight")
        self.by: Any = ([_column_arg(b, "by") for b in by] if isinstance(by, (list, tuple)) and by
                        else _column_arg(by, "by"))
        self.frame: Frame = as_frame(data)
        #: :meth:`working`'s last frame per ``grouped``, with what it was built from
        self._working: dict[bool, tuple[Any, Any]] = {}
        extra = extra or {}
        roles = {"score": self.score, **({"label": label} if labelled else {}), "sample_weight": self.weight,
                 "by": self.by, **extra}
        check_columns(self.frame, roles)
        key_cols = [c for r in keys for c in ([roles.get(r)] if isinstance(roles.get(r), str)
                                              else list(roles.get(r) or [])) if isinstance(c, str)]
        if key_cols:  # "1.1" and "1.10", "02134": two keys, as the file writes them
            self.frame = keys_as_written_frame(self.frame, key_cols)
        if pos_label is not None and self.multiclass:
            raise VeracityError("pos_label= is for binary labels; multiclass labels are class indices 0..K-1")
        try:
            check_dtypes(self.frame, self.score, None if pos_label is not None else label, self.weight)
        except VeracityError:
            if self.frame.lazy:
                self._refuse_no_rows()
            raise
        #: rows whose label counts (``label_rows``: a boolean column, e.g. the monitor's ``mature``)
        self.rows: Any = None
        if label_rows is not None:
            import narwhals as nw

            dtype = self.frame.schema[label_rows]
            if dtype != nw.Boolean:
                raise VeracityError(
                    f"column {label_rows!r} (mature) must be boolean, True where the label is final; got {dtype}"
                )
            self.rows = nw.col(self.frame.ref(label_rows)).fill_null(False)
        if final is not None:  # a condition of its own on the frame (the monitor's as_of/horizon)
            cond = final(self.frame)
            self.rows = cond if self.rows is None else self.rows & cond
        #: the label column, or the 0/1 expression ``[label == pos_label]`` (without labels: 0, which the
        #: contract's checks of the scores and weights pass over)
        self.y: Any = self.frame.ref(label) if labelled else _no_labels()
        #: the label column's value that ``pos_label`` names (None without ``pos_label``)
        self.positive: Any = None
        if pos_label is not None:
            from ._labels import is_positive, positive_value

            try:
                self.positive = positive_value(self.frame.nw, self.frame.ref(label), pos_label, shown=label,
                                               rows=self.rows)
            except VeracityError:  # an empty frame has no label values: say so, not that pos_label names none
                self._refuse_no_rows()
                raise
            self.y = is_positive(self.frame.ref(label), self.positive)

    def _refuse_no_rows(self) -> None:
        """Raise the seam's one line when the frame has no rows (a lazy frame: one ``head(1)``, never
        collected); called only once a check has failed, so a frame with rows costs nothing more."""
        if agg.collect(self.frame.nw.head(1)).shape[0] == 0:
            raise VeracityError(no_rows_message(self.frame.source)) from None

    # -- in memory ------------------------------------------------------------------
    def column(self, name: str) -> np.ndarray:
        return series_to_numpy(self.frame.nw.get_column(name))

    def keys_column(self, name: str) -> Any:
        """A column of keys whose order counts (``batches=``): a pandas categorical or a polars ``Enum``
        column as the frame's own series, so that its categories' order reaches the function as it does in
        the array form (``batches=df.day``); any other column as :meth:`column`'s array."""
        import narwhals as nw

        col = self.frame.nw.get_column(name)
        native = col.to_native()
        if col.dtype == nw.Categorical or isinstance(col.dtype, nw.Enum):
            kind = type(native).__module__.split(".", 1)[0]
            if kind in ("pandas", "polars"):
                return native
        return series_to_numpy(col)

    def numbers(self, name: str) -> np.ndarray:
        """A score, label or weight column: :meth:`column`, a DECIMAL one as the nearest float64 of
        each value (see :func:`._source.exact_floats`)."""
        import narwhals as nw

        dtype = self.frame.schema[name]
        if _is_decimal(dtype):
            return np.asarray(exact_floats(self.frame.nw.get_column(name)), dtype=np.float64)
        if dtype == nw.Categorical or isinstance(dtype, nw.Enum):  # numbers kept as categories (an ordered
            # pandas category is narwhals' Enum): their values (an Arrow dictionary's to_numpy() hands back a
            # neighbour's value for a missing entry, so it is decoded first)
            arrow = self.frame.nw.get_column(name).to_arrow()
            return np.asarray(arrow.cast(arrow.type.value_type).to_numpy(zero_copy_only=False))
        return self.column(name)

    def slice_keys(self) -> np.ndarray:
        """The ``by`` column's slice keys (:func:`slice_keys`)."""
        return slice_keys(self.frame, self.by)

    def arrays(self) -> tuple[np.ndarray, Any, np.ndarray | None]:
        """``(scores, labels, weights)``; labels None without a label column."""
        cols = [self.numbers(c) for c in self.score]
        scores = cols[0] if len(cols) == 1 else np.column_stack(cols).astype(np.float64)
        labels = (None if self.label is None else self.numbers(self.label) if isinstance(self.y, str)
                  else self._positive_labels())
        return scores, labels, None if self.weight is None else self.numbers(self.weight)

    def _positive_labels(self) -> np.ndarray:
        """The 0/1 labels ``[label == pos_label]``: an Arrow table's in numpy (narwhals' comparison
        with a value imports pandas there, see :mod:`._labels`), any other frame's by the expression."""
        from ._labels import positive_array

        found = positive_array(self.frame.nw, self.frame.ref(self.label), self.positive)
        if found is not None:
            return found
        return series_to_numpy(self.frame.nw.select(self.y.alias("_y")).get_column("_y"))

    def explain(self, score_type: str, error: VeracityError) -> VeracityError:
        """The contract's message naming the column, when the rows break the contract."""
        if self.label is None and self.multiclass:  # the top-label checks read the labels
            return error
        try:
            self.check_lazy(score_type)
        except VeracityError as named:
            return named
        return error

    # -- lazy -----------------------------------------------------------------------
    weight_scale = 1.0
    pooled: tuple[list[Any], str] | None = None
    score_type = "probability"
    #: how approximate equal-mass edges were found (None: exact or equal-width)
    edge_note: Any = None

    @property
    def multiclass(self) -> bool:
        return len(self.score) > 1

    @property
    def bin_score_type(self) -> str:
        """The score type of ``_s``: the top-label confidence is a probability."""
        return "probability" if self.multiclass else self.score_type

    def working(self, grouped: bool) -> Any:
        """The working columns (:func:`._aggregates.base`); the same frame again while nothing it reads has
        changed (the AUC reads the frame the statistics read: on DuckDB each new projection is one more bind
        of the plan)."""
        key = (bool(grouped), self.weight_scale, self.score_type, self.pooled if grouped else None)
        cached = self._working.get(bool(grouped))
        if cached is not None:
            try:
                same = bool(cached[0] == key)
            except Exception:  # keys that do not compare as one truth value: built again
                same = False
            if same:
                return cached[1]
        frame = self._working_frame(grouped)
        self._working[bool(grouped)] = (key, frame)
        return frame

    def _working_frame(self, grouped: bool) -> Any:
        f = self.frame
        if self.multiclass:
            from ._multiclass import top_label_base

            return top_label_base(f.nw, [f.ref(c) for c in self.score], f.ref(self.label),
                                  self.weight and f.ref(self.weight), f.ref(self.by) if grouped and self.by else None,
                                  self.score_type, self.weight_scale, self.pooled if grouped else None)
        by = None
        if grouped and self.by:
            by = [f.ref(b) for b in self.by] if isinstance(self.by, list) else f.ref(self.by)
        return agg.base(f.nw, f.ref(self.score[0]), self.y, self.weight and f.ref(self.weight), by,
                        self.weight_scale, self.pooled if grouped else None)

    def cap_slices(self, cap: int | None, counts: dict[Any, int]) -> bool:
        """The array form's slice cap: the largest ``cap - 1`` keys, the rest pooled (True if pooled)."""
        from ..core._stats import other_key

        if cap is None or len(counts) <= cap:
            return False
        ordered = key_order(list(counts))
        by_size = sorted(range(len(ordered)), key=lambda i: -counts[ordered[i]])  # stable: ties in key order
        keep = [ordered[i] for i in by_size[: cap - 1]]
        self.pooled = (keep, other_key(len(ordered) - len(keep)))
        return True

    def check_lazy(self, score_type: str) -> dict[str, Any]:
        self.score_type = score_type
        arrow = not self.frame.lazy and self.frame.backend == "pyarrow"
        if self.multiclass:
            from ._multiclass import check_top_label

            f = self.frame
            # (an Arrow table's 64-bit integer columns as doubles, :func:`_arrow_doubles`)
            table = _arrow_doubles(f.nw, [*self.score, self.label, *([self.weight] if self.weight else [])]) \
                if arrow else f.nw
            try:
                check_top_label(table, [f.ref(c) for c in self.score], f.ref(self.label), score_type,
                                self.score)
            except VeracityError:  # a path without rows: said in the in-memory read's words
                if self.frame.source != "frame":
                    self._refuse_no_rows()
                raise
            if arrow:
                from ._multiclass import top_label_base

                counts = agg.contract_counts(
                    top_label_base(table, list(self.score), self.label, self.weight, None, score_type,
                                   self.weight_scale),
                    score_type=self.bin_score_type, weighted=self.weight is not None)
                return self.accept(counts)
        if arrow:
            # an Arrow table's counts in numpy (the same counts, :func:`._aggregates.contract_arrays`):
            # Arrow's cast to double of an int64/uint64 beyond 2**53 is refused, and labels of 0 and
            # 2**64 - 1 were a raw ArrowInvalid where every other frame says the labels are not 0/1
            scores, labels, weights = self.arrays()
            s = np.asarray(scores, dtype=np.float64)
            y = np.zeros(s.size) if labels is None else np.asarray(labels)  # integers read exactly there
            w = None if weights is None else np.asarray(weights, dtype=np.float64)
            return self.accept(agg.contract_arrays(s, y, w))
        counts = agg.contract_counts(self.working(False), score_type=self.bin_score_type,
                                     weighted=self.weight is not None)
        return self.accept(counts)

    def accept(self, counts: dict[str, Any]) -> dict[str, Any]:
        """Raise the contract's one-line error for ``counts``, else keep them (and the weight scale); a
        path without rows is refused in the in-memory read's words (:func:`no_rows_message`)."""
        if int(counts.get("n") or 0) == 0:
            raise VeracityError(no_rows_message(self.frame.source))
        agg.check_contract(counts, score=self.score[0], label=self.label, weight=self.weight,
                           score_type=self.bin_score_type)
        self.weight_scale = agg.weight_scale(counts) if self.weight else 1.0
        self.counts = counts
        return counts

    def require_lazy_support(self, *, what: str = "this", top_label: bool = False, **flags: Any) -> None:
        """Refuse in one line what a lazy frame cannot do; ``top_label``: the caller reads
        multiclass scores through :mod:`._multiclass` (staged columns, aligned on Dask too)."""
        if self.multiclass and self.frame.backend == "dask" and not top_label:
            raise VeracityError(
                "multiclass scores on a Dask frame are not supported here (its row-wise max across columns is "
                "not aligned); use vc.audit, which reads them on Dask, or DuckDB/polars/Spark"
            )
        on = [name for name, value in flags.items() if value]
        if on:
            raise VeracityError(
                f"{', '.join(on)} need every row in memory; drop them for a lazy {self.frame.backend} frame "
                "or collect the columns first"
            )


def slice_keys(frame: Any, by: str) -> np.ndarray:
    """The ``by`` column of ``frame`` (a checked frame, :func:`._source.as_frame`) as slice keys, its missing
    values as ``None``: nulls and, in a float column, NaN (the one missing key,
    :func:`veracity.core._keys.is_missing`, the slice every backend calls ``(missing)``; polars and Arrow
    keep a NaN apart from a null, pandas cannot)."""
    from ._source import refuse_ns_times

    col = frame.nw.get_column(by)
    refuse_ns_times(col, by)  # a time of day finer than a microsecond has no exact key
    missing = np.asarray(series_to_numpy(col.is_null()), dtype=bool)
    if frame.schema[by].is_float():
        missing |= np.isnan(np.asarray(series_to_numpy(col), dtype=np.float64))
    if missing.any() and frame.schema[by].is_integer():
        # integers with missing values come out of to_numpy() as floats: keep them integers (slice "1",
        # not "1.0", as every lazy backend names it)
        col = col.fill_null(0)
    keys = _interval_keys(col.to_native())
    keys = series_to_numpy(col) if keys is None else keys
    if keys.dtype.kind == "M":  # datetime and date keys as Python objects, named as a lazy frame names them
        keys = _python_times(keys, getattr(frame.schema[by], "time_zone", None))
    if missing.any() and keys.dtype.kind != "m":  # durations: NaT marks the missing keys (astype(object)
        # would turn nanosecond durations into integers); a float32 key stays a float32 (named '0.1' as the
        # column without a missing key and the SQL route name it: astype(object) made it the double
        # 0.10000000149011612, another name for the same slice)
        keys = np.array(list(keys), dtype=object) if keys.dtype.kind == "f" and keys.itemsize < 8 \
            else keys.astype(object)
        keys[missing] = None
    return keys


def _interval_keys(native: Any) -> np.ndarray | None:
    """An Arrow ``month_day_nano_interval`` column (DuckDB's INTERVAL read into Arrow: ``rel.arrow()``) as
    slice keys named as the DuckDB route names them (:func:`._aggregates.interval_key`: ``1 days 00:00:00``,
    ``1 months 0 days 00:00:00``), missing ones None; pyarrow's ``to_numpy`` made them pandas ``DateOffset``
    objects, named ``<DateOffset: days=1, months=0, nanoseconds=0>``. None for any other column."""
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(native, (pa.Array, pa.ChunkedArray)):
        return None
    if not pa.types.is_interval(native.type):
        return None
    codes = (native.combine_chunks() if isinstance(native, pa.ChunkedArray) else native).dictionary_encode()
    names = np.empty(len(codes.dictionary) + 1, dtype=object)  # the last: the missing key
    names[:-1] = [agg.interval_key(v) for v in codes.dictionary.to_pylist()]  # one per distinct interval
    index = to_numpy(codes.indices.fill_null(len(codes.dictionary)))
    return names[np.asarray(index, dtype=np.int64)]


def _arrow_doubles(table: Any, names: list[str]) -> Any:
    """A narwhals frame over an Arrow table with its int64/uint64 columns among ``names`` as doubles, each
    the nearest double of its integer (as numpy and every other engine read them): narwhals casts with
    Arrow's safe cast, which refuses an integer beyond 2**53 (a raw ``ArrowInvalid``)."""
    import narwhals as nw
    import pyarrow as pa

    native = table.to_native()
    for name in dict.fromkeys(names):
        i = native.schema.get_field_index(name)
        kind = native.schema.field(i).type
        if pa.types.is_int64(kind) or pa.types.is_uint64(kind):
            native = native.set_column(i, name, native.column(i).cast(pa.float64(), safe=False))
    return nw.from_native(native)


def _call_in_memory(prep: _Prepared, fn: Any, score_type: str, *args: Any, **kwargs: Any) -> Any:
    scores, labels, weights = prep.arrays()
    try:
        return fn(scores, labels, *args, sample_weight=weights, score_type=score_type, **kwargs)
    except VeracityError as exc:
        raise prep.explain(score_type, exc) from None


def n_eff(prep: _Prepared, counts: dict[str, Any]) -> float:
    """Kish effective size (Σw)²/Σw² of the (rescaled) weights; N unweighted."""
    import narwhals as nw

    if prep.weight is None:
        return float(counts["n"])
    row = agg.collect(prep.working(False).with_columns(_wsq=nw.col("_w") * nw.col("_w")).select(
        nw.col("_w").sum(), nw.col("_wsq").sum())).rows()[0]
    return float(row[0]) ** 2 / float(row[1])


def _resolve_bins(bins: Any, prep: _Prepared, counts: dict[str, Any]) -> tuple[int, Any]:
    from ..core._binning import AutoBins, auto_bins, check_bins

    if isinstance(bins, str):
        if bins != "auto":
            raise VeracityError(f"bins must be a positive integer or 'auto', got {bins!r}")
        size = n_eff(prep, counts)
        m = auto_bins(size)
        return m, AutoBins(m, size)
    return check_bins(bins), None


def stats_from_sums(sums: dict[str, np.ndarray], edges: np.ndarray, strategy: str = "uniform") -> Any:
    """:class:`BinStats` from per-bin sums named like its fields (what an aggregate returns).

    ``sum_w2y`` and ``sum_w2pq`` (Σw²y, Σw²p(1 − p)) are kept where the aggregate summed them and some row
    weighs other than 1 (an unweighted statement returns them as zeros, or not at all): None otherwise, as
    in memory without weights. Every weight 1 is read off the sums exactly: Σw = Σw² = the row count in
    every bin holds only then."""
    from ..core._stats import BinStats

    count = sums["count"]
    unweighted = np.array_equal(sums["weight"], count) and np.array_equal(sums["weight_sq"], count)
    squares = {name: (None if unweighted else sums.get(name)) for name in ("sum_w2y", "sum_w2pq")}
    return BinStats(edges, strategy, count=count.astype(np.int64), weight=sums["weight"],
                    weight_sq=sums["weight_sq"], sum_p=sums["sum_p"], sum_y=sums["sum_y"],
                    sum_p2=sums["sum_p2"], sum_py=sums["sum_py"], sum_nll=sums["sum_nll"],
                    sum_r=sums.get("sum_r"), sum_q1=sums.get("sum_q1"), sum_r2=sums.get("sum_r2"), **squares)




#: backends where the contract's counts and the bin sums are one pass (measured faster at 1e8 rows:
#: DuckDB 6.1 s against 3.0 + 4.1 s, Dask one read instead of two; on Spark local[2] the wide grouped
#: aggregate was slower than a global one plus a narrow grouped one: 13.6 s against 3.7 + 7.6 s)
FUSED_BACKENDS = {"duckdb", "dask", "polars"}


#: most distinct scores whose counts are brought back for exact equal-mass edges; beyond,
#: the edges are approximate and their measured rank error is stated (see :mod:`._quantiles`)
MAX_DISTINCT = 5_000_000


def lazy_stats(prep: _Prepared, *, bins: Any, score_type: str, threshold: float = 0.5,
               grouped: bool = False, strategy: str = "uniform") -> tuple[Any, dict[Any, Any], dict[Any, float], Any]:
    """``(whole stats, {key: stats}, {key: Σw·correct}, auto_bins)`` of a lazy frame."""
    from ..core._binning import check_strategy

    check_strategy(strategy)
    if (strategy == "uniform" and not isinstance(bins, str) and prep.weight is None and not prep.multiclass
            and prep.frame.backend in FUSED_BACKENDS):
        # the contract's counts ride along with the bin sums: one pass over the rows, not two
        from ..core._binning import check_bins

        m, auto = check_bins(bins), None
        prep.score_type = score_type
        sums, counts = agg.bin_sums_and_contract(prep.working(grouped), bins=m, score_type=score_type,
                                                 threshold=threshold, grouped=grouped)
        prep.accept(counts)
        return _stats_of(prep, sums, uniform_edges(m), strategy, grouped) + (auto,)
    counts = prep.check_lazy(score_type)
    m, auto = _resolve_bins(bins, prep, counts)
    if strategy == "uniform":
        edges = uniform_edges(m)
    else:  # exact from per-distinct-score counts up to MAX_DISTINCT scores, else approximate (stated)
        from ._quantiles import equal_mass_edges

        edges, prep.edge_note = equal_mass_edges(
            prep.working(False), bins=m, strategy=strategy, score_type=prep.bin_score_type,
            weighted=prep.weight is not None, backend=prep.frame.backend, limit=MAX_DISTINCT)
    sums = agg.bin_sums(prep.working(grouped), bins=edges.size - 1, score_type=prep.bin_score_type,
                        threshold=threshold, grouped=grouped, edges=edges, strategy=strategy,
                        top_label=prep.multiclass, weighted=prep.weight is not None)
    return _stats_of(prep, sums, edges, strategy, grouped) + (auto,)


def _stats_of(prep: _Prepared, sums: dict[Any, dict[str, np.ndarray]], edges: np.ndarray, strategy: str,
              grouped: bool) -> tuple[Any, dict[Any, Any], dict[Any, float]]:
    """``(whole stats, {key: stats}, {key: Σw·correct})`` from the per-slice bin sums."""
    if prep.pooled is not None and grouped:  # kept keys in key order, the pooled slice last
        rank = {key_name(k): i for i, k in enumerate(key_order(list(prep.pooled[0])))}
        order = sorted(sums, key=lambda k: rank.get(key_name(k), len(rank)))
    else:
        order = key_order(list(sums))
    stats = {k: stats_from_sums(sums[k], edges, strategy) for k in order}
    correct = {k: float(sums[k]["correct"].sum()) for k in stats}
    whole = None
    for s in stats.values():
        whole = s if whole is None else whole + s
    return whole, stats, correct


def lazy_auc(prep: _Prepared, *, score_type: str, n: int, grouped: bool = False,
             stats: Any = None, whole: bool = False) -> dict[Any, float | None]:
    """Exact AUC per slice; ``stats`` (the whole table's counts) sizes the score ranges without a pass.
    ``whole`` (with ``grouped``): the whole table's AUC too, under :data:`._aggregates.WHOLE`."""
    if prep.frame.backend == "duckdb":  # ranges counted two at a time within half the memory limit
        from ._duckdb import rows_per_range

        per_range = rows_per_range(prep.frame.nw.to_native())
    elif prep.frame.backend in ("pyspark", "dask"):  # one task per range: parallel, bounded
        per_range = agg.ROWS_PER_TASK
    else:  # in-process engines (polars): one sort
        per_range = n
    score_type = prep.bin_score_type
    cuts = None if stats is None else agg.cuts_from_counts(stats.edges, stats.count, per_range)
    if cuts is None:
        cuts = agg.range_cuts(prep.working(False), score_type=score_type, n=n, rows_per_range=per_range)
    aucs = agg.auc_parts(prep.working(grouped), score_type=score_type, weighted=prep.weight is not None,
                         grouped=grouped, backend=prep.frame.backend, cuts=cuts, whole=whole)
    if whole and grouped and agg.WHOLE not in aucs:  # backends without the one-pass form: a second pass
        aucs[agg.WHOLE] = agg.auc_parts(prep.working(False), score_type=score_type,
                                        weighted=prep.weight is not None, grouped=False,
                                        backend=prep.frame.backend, cuts=cuts)[None]
    return aucs


# ---------------------------------------------------------------------------------------
# audit
# ---------------------------------------------------------------------------------------
def audit_frame(data: Any, *, score: Any, label: Any, sample_weight: Any = None, by: Any = None,
                **options: Any) -> Any:
    """``vc.audit`` of a frame (see the module doc)."""
    from ..core._audit import audit, audit_from_stats

    if isinstance(by, (list, tuple)):  # the array form and the SQL form slice by one key too
        raise VeracityError(f"by= names one column of the frame (a string), got {by!r}; combine several columns "
                            "into one key column first", param="by")
    prep = _Prepared(data, score, label, sample_weight, by, pos_label=options.pop("pos_label", None))
    score_type = check_score_type(options.pop("score_type", "probability"))
    if not prep.frame.lazy:
        by_keys = None if prep.by is None else {prep.by: prep.slice_keys()}  # the slices named by the column
        return _call_in_memory(prep, audit, score_type, by=by_keys, **options)

    bins = options.pop("bins", 15)
    strategy = options.pop("strategy", "uniform")
    threshold = options.pop("threshold", 0.5)
    from ..core._stats import MAX_GROUPS

    max_groups = options.pop("max_groups", MAX_GROUPS)
    flags = {name: options.pop(name, False) for name in _IN_MEMORY_ONLY}
    for unused in ("n_resamples", "seed", "random_state"):
        options.pop(unused, None)
    lazy_reading_only("audit", prep.frame.backend, options.pop("multiclass", "top-label"))
    prep.require_lazy_support(what="vc.audit", top_label=True, **flags)
    threshold = check_threshold(threshold)  # as the array form checks it ("0.5", True: refused, never float())
    table_options = {
        "ci": options.pop("interval", "wilson"), "level": options.pop("level", 0.95),
        "sided": options.pop("sided", "two-sided"), "min_count": options.pop("min_count", 20),
    }
    if options:
        raise VeracityError(f"unknown option(s) for vc.audit: {', '.join(sorted(options))}")
    grouped = prep.by is not None
    from ..core._stats import check_max_groups, refuse_shared_names

    cap = check_max_groups(max_groups)
    whole, stats, correct, auto = lazy_stats(prep, bins=bins, score_type=score_type, threshold=threshold,
                                             grouped=grouped, strategy=strategy)
    if grouped and prep.cap_slices(cap, {k: s.n for k, s in stats.items()}):
        whole, stats, correct, auto = lazy_stats(prep, bins=bins, score_type=score_type, threshold=threshold,
                                                 grouped=grouped, strategy=strategy)
    n = whole.n
    aucs = lazy_auc(prep, score_type=score_type, n=n, grouped=grouped, stats=whole, whole=grouped)

    def result(s: Any, auc: float | None, right: float) -> Any:
        return audit_from_stats(s, auc=auc, accuracy=right / s.total_weight, score_type=score_type,
                                n_classes=len(prep.score) if prep.multiclass else 2, top_label=prep.multiclass,
                                threshold=threshold, weight_scale=prep.weight_scale,  # totals in the user's units
                                **table_options)

    if not grouped:
        out = result(whole, aucs[None], correct[None])
    else:
        out = result(whole, aucs.pop(agg.WHOLE), sum(correct.values()))
        # a slice whose rows all weigh 0 holds no evidence: left out and named, as the in-memory audit does
        refuse_shared_names(list(stats))
        groups = {key_name(k): result(stats[k], aucs.get(k), correct[k]) for k in stats
                  if stats[k].total_weight > 0}
        weightless = {key_name(k): stats[k].n for k in stats if not stats[k].total_weight > 0}
        out = replace(out, groups=groups, group_column=prep.by, zero_weight_groups=weightless)
    if auto is not None:
        # the rule's M, and the bins left where equal-mass cuts on tied scores merged (as in memory)
        out = replace(out, extras={"auto_bins": replace(auto, used=out.table.bins), **out.extras})
    if prep.edge_note is not None:
        out = replace(out, extras={**out.extras, "bin_edges": prep.edge_note})
    return out


def _warn_approximate(prep: _Prepared, what: str) -> None:
    if prep.edge_note is not None:
        import warnings

        warnings.warn(f"{what}: {prep.edge_note}; vc.audit states it in its result", stacklevel=4)


# ---------------------------------------------------------------------------------------
# reliability and the metrics
# ---------------------------------------------------------------------------------------
def reliability_frame(data: Any, *, score: Any, label: Any, sample_weight: Any = None, **options: Any) -> Any:
    from ..core._reliability import ReliabilityTable, reliability

    prep = _Prepared(data, score, label, sample_weight, pos_label=options.pop("pos_label", None))
    score_type = check_score_type(options.pop("score_type", "probability"))
    if not prep.frame.lazy:
        return _call_in_memory(prep, reliability, score_type, **options)
    strategy = options.pop("strategy", "uniform")
    prep.require_lazy_support(what="vc.reliability", top_label=True)
    whole, _, _, _ = lazy_stats(prep, bins=options.pop("bins", 15), score_type=score_type, strategy=strategy)
    _warn_approximate(prep, "vc.reliability")
    from ..core._audit import table_in_user_units  # each bin's weighted n in the caller's units

    if "interval" in options:  # vc.reliability's name for from_stats' ci (it reached from_stats: a TypeError)
        options["ci"] = options.pop("interval")
    return table_in_user_units(ReliabilityTable.from_stats(whole, **options), prep.weight_scale)


def lazy_reading_only(name: str, backend: str, multiclass: Any, estimator: Any = "plugin") -> None:
    """Refuse, in the array form's words, what a lazy frame does not compute: a ``multiclass=`` other than the
    top-label reading (which it computes, binary scores being their own), an ``estimator=`` other than the
    plug-in. It said "computes the binary plug-in value; drop multiclass=/estimator=" to ``vc.brier``, which
    has no estimator, of (N, K) scores it reads top-label, and to ``multiclass='bogus'``."""
    from ..core._metrics import AUC_MULTICLASS, ESTIMATORS

    readings = AUC_MULTICLASS if name == "auc" else ("top-label", "classwise")
    if multiclass not in readings:  # as the array form words it
        allowed = f"one of {readings}" if name == "auc" else "'top-label' or 'classwise'"
        raise VeracityError(f"multiclass must be {allowed}, got {multiclass!r}", param="multiclass")
    if name == "ece" and estimator not in ESTIMATORS:
        raise VeracityError(f"estimator must be 'plugin', 'debiased' or 'smooth', got {estimator!r}",
                            param="estimator")
    collect = "collect the columns into memory first (a pandas or polars DataFrame, or arrays)"
    if multiclass != "top-label":
        raise VeracityError(f"vc.{name} on a lazy {backend} frame reads (N, K) scores top-label only; for "
                            f"multiclass={multiclass!r} {collect}", param="multiclass")
    if estimator != "plugin":
        raise VeracityError(f"vc.{name} on a lazy {backend} frame computes the plug-in ECE only; for "
                            f"estimator={estimator!r} {collect}", param="estimator")


def metric_frame(name: str, fn: Any, data: Any, *, score: Any, label: Any, sample_weight: Any = None,
                 **options: Any) -> Any:
    """``vc.ece / mce / brier / brier_decomposition / nll / auc / accuracy`` of a frame."""
    from ..core import _formulas

    prep = _Prepared(data, score, label, sample_weight, pos_label=options.pop("pos_label", None))
    # a ranking score (score_type="score") has an AUC, and nothing else here: the array form refuses it
    score_type = check_score_type(options.pop("score_type", "probability"), allow_score=True)
    if not prep.frame.lazy:
        return _call_in_memory(prep, fn, score_type, **options)
    if name != "auc":
        refuse_score(score_type, f"vc.{name}")
    lazy_reading_only(name, prep.frame.backend, options.pop("multiclass", "top-label"),
                      options.pop("estimator", "plugin"))
    strategy = options.pop("strategy", "uniform")
    prep.require_lazy_support(what=f"vc.{name}", top_label=True)
    if name == "auc":
        if options:
            raise VeracityError(f"unknown option(s) for vc.auc: {', '.join(sorted(options))}")
        counts = prep.check_lazy(score_type)
        value = lazy_auc(prep, score_type=score_type, n=int(counts["n"]))[None]
        if value is None:
            n, y_sum = int(counts["n"]), float(counts["y_sum"])
            only = "1" if y_sum == n else "0"
            raise VeracityError(
                f"AUC needs both classes; all {n} labels are {only}. "
                "Audit a sample that contains positives and negatives"
            )
        return value
    threshold = check_threshold(options.pop("threshold", 0.5))
    if prep.multiclass:  # (N, K) scores read top-label: no threshold cuts the argmax (as the array form)
        from ..core._metrics import refuse_top_label_threshold

        refuse_top_label_threshold(threshold, len(prep.score))
    norm = options.pop("norm", "l1")
    bins = options.pop("bins", 15)
    min_count = options.pop("min_count", 20) if name == "mce" else 0
    if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 0:
        raise VeracityError(f"min_count must be a whole number >= 0, got {min_count!r}", param="min_count")
    if options:
        raise VeracityError(f"unknown option(s) for vc.{name}: {', '.join(sorted(options))}")
    whole, _, correct, _ = lazy_stats(prep, bins=bins, score_type=score_type, threshold=threshold,
                                      strategy=strategy)
    _warn_approximate(prep, f"vc.{name}")
    if name == "ece":
        return _formulas.ece_from_stats(whole, norm)
    if name == "mce":  # over the bins with at least min_count rows, as the array form (NaN when none has)
        from ..core._reliability import max_gaps

        return max_gaps(whole, float(min_count))[0]
    if name == "brier":
        return _formulas.brier_from_stats(whole)
    if name == "nll":
        return _formulas.nll_from_stats(whole)
    if name == "brier_decomposition":
        return _formulas.brier_decomposition_from_stats(whole)
    if name == "accuracy":
        return correct[None] / whole.total_weight
    raise VeracityError(f"vc.{name} has no frame form")  # pragma: no cover


def in_memory_frame(name: str, fn: Any, data: Any, *args: Any, score: Any, label: Any,
                    sample_weight: Any = None, columns: dict[str, Any] | None = None, labelled: bool = True,
                    column_sets: dict[str, list[str]] | None = None, **options: Any) -> Any:
    """Frame form of functions that need the rows (threshold table, monitor): in-memory frames only.

    ``columns`` maps keyword arguments that name further columns (``batches``) to those names; their
    arrays are passed in their place (a categorical column as the frame's series, its categories' order
    kept: :meth:`_Prepared.keys_column`). ``column_sets`` maps keyword
    arguments to lists of column names (``features=["region", "age"]``), passed as ``{name: column}``
    with each column the frame's own series (pandas, polars, pyarrow: its nulls and exact integers
    as the array form reads such a series). ``labelled=False``: ``fn``
    takes no labels (``fn(scores, *args, sample_weight=..., ...)``, see
    :func:`veracity.core._frameform.scores_call`); its ``sample_weight`` names a column or holds the
    rows' weights (a pandas Series then on the frame's index).
    """
    columns = {k: v for k, v in (columns or {}).items() if v is not None}
    given_weights = None if labelled or isinstance(sample_weight, str) else sample_weight
    if given_weights is not None:
        sample_weight = None
    # pos_label= is applied where the label column is read (labels arrive at ``fn`` as 0/1)
    column_sets = column_sets or {}
    prep = _Prepared(data, score, label, sample_weight, extra={**columns, **column_sets},
                     pos_label=options.pop("pos_label", None), labelled=labelled)
    if prep.frame.lazy:
        from ..core._frameform import called

        raise VeracityError(
            f"{called(name)} needs the rows in memory; pass an in-memory frame (pandas, polars, pyarrow) "
            "or collect the needed columns first"
        )
    # "score" passes here: the function takes it (threshold_table counts by rank) or refuses it in its words
    score_type = check_score_type(options.pop("score_type", "probability"), allow_score=True)
    extra: dict[str, Any] = {k: prep.keys_column(v) for k, v in columns.items()}
    for key, names in column_sets.items():
        extra[key] = {n: prep.frame.nw.get_column(n).to_native() for n in names}
    scores, labels, weights = prep.arrays()
    if not labelled:
        if given_weights is not None:
            from ..core._validation import check_same_index

            # a pandas Series of weights on another index than the frame's: never paired by position
            check_same_index(frame=prep.frame.nw.to_native(), sample_weight=given_weights)
            weights = given_weights
    else:
        args = (labels, *args)
    try:
        return fn(scores, *args, sample_weight=weights, score_type=score_type, **extra, **options)
    except VeracityError as exc:
        raise prep.explain(score_type, exc) from None


# ---------------------------------------------------------------------------------------
# a path read into memory (``--engine memory``), or opened where it lives (the other engines)
# ---------------------------------------------------------------------------------------
#: where a path's rows are computed: ``memory`` reads the needed columns with pyarrow (numpy arrays,
#: the array form's numbers bit for bit); the others open the path lazily where the rows live
ENGINES = ("auto", "memory", "duckdb", "spark", "dask")


def no_rows_message(source: str) -> str:
    """The one line for rows that are not there, on every engine in the words of the in-memory read
    (:func:`read_table`, :func:`read_files`): ``source`` a frame ("the frame has no rows"), a glob or a
    directory ("<pattern> has no rows; pass files with at least one data row") or one file ("<path> has a
    header but no rows; pass a file with at least one data row")."""
    if source == "frame":
        return "the frame has no rows; pass at least one row"
    if is_many(source):
        return f"{source} has no rows; pass files with at least one data row"
    return f"{_name(Path(source))} has a header but no rows; pass a file with at least one data row"


def is_many(path: str) -> bool:
    """A glob or a directory of files (read as one table), not one file."""
    import os

    return any(ch in path for ch in "*?[") or os.path.isdir(path)


def read_path(path: str | Path, columns: list[str] | None = None) -> Any:
    """The rows of a file, a glob or a directory in memory: one ``pyarrow.Table`` (the needed ``columns``
    when they all exist), read by :func:`read_files` for several files and :func:`read_table` for one."""
    if is_many(str(path)):
        return read_files(str(path), columns)
    return read_table(path, columns=columns)


def open_frame(path: str, engine: str, *, spark_master: str = "local[*]", memory_limit: str | None = None,
               app: str = "veracity") -> Any:
    """A path (file, glob or directory) opened lazily by ``engine``, as the frame form takes it.

    ``duckdb``: the path itself (the frame form reads it through DuckDB, within ``memory_limit``);
    ``spark``: a Spark DataFrame on a session at ``spark_master``; ``dask``: a Dask DataFrame.
    Parquet or CSV is told as the memory and DuckDB engines tell it (:func:`.._files.expand`: a file by its
    extension, else its first bytes; a directory holds ``.parquet`` files), so that a directory of CSV files,
    with a dot in its name or none, or a path that is not there, is refused in their words (Spark read a
    directory named ``scores`` as Parquet, a Java traceback, and ``scores.d`` as CSV where the others refuse
    it); a URL that Spark or Dask reads itself is told by its name (a name without an extension: Parquet).
    """
    if engine == "duckdb":
        if memory_limit:
            from ._duckdb import configure

            configure(memory_limit=memory_limit)
        return path
    if engine not in ("spark", "dask"):
        raise VeracityError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}", param="engine")
    from .._files import expand, is_remote

    if is_remote(path):
        parquet = path.lower().endswith(_PARQUET) or "." not in path.rsplit("/", 1)[-1]
    else:
        files, kind = expand(path)
        from ._duckdb import refuse_database

        refuse_database(files, path)
        parquet = kind == "parquet"
    from ._open import open_dask, open_spark  # read as memory reads a CSV file (see ._open)
    from ._source import opened_from

    if engine == "spark":
        return opened_from(open_spark(path, parquet, spark_master=spark_master, app=app), path)
    return opened_from(open_dask(path, parquet), path)


def read_table(path: str | Path, columns: list[str] | None = None, *,
               text_columns: list[str] | None = None) -> Any:
    """A ``pyarrow.Table`` from a CSV or Parquet file (chosen by extension, then content).

    ``columns``: read only these (when all exist; otherwise every column, so that the
    error about the missing one can list what is there). ``text_columns``: CSV columns
    kept as the text written (ids such as ``000123``), never inferred as numbers.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    p = Path(path)
    from .._files import path_state

    found, is_dir = path_state(p)
    if not found:
        raise VeracityError(f"file not found: {_name(p)}; check the path")
    if is_dir:
        raise VeracityError(f"{_name(p)} is a directory; pass a CSV or Parquet file")
    if p.stat().st_size == 0:
        raise VeracityError(f"{_name(p)} is empty; it has no header and no rows")
    from ._duckdb import refuse_database

    refuse_database([str(p)], _name(p))
    try:
        if p.name.lower().endswith(_PARQUET):
            schema_names = pq.read_schema(p).names
            _refuse_duplicates(schema_names, p)  # pyarrow's reader fails on them with an Arrow message
            wanted = _present(columns, schema_names)
            with pq.ParquetFile(p) as parquet:  # not pq.read_table: its pyarrow.dataset imports pandas
                table = parquet.read(columns=wanted)
        else:
            wanted = None
            parse = pacsv.ParseOptions(delimiter=_delimiter(p))
            if columns:
                with pacsv.open_csv(p, parse_options=parse) as reader:  # the header only
                    wanted = _present(columns, reader.schema.names)
            types = {c: pa.string() for c in (text_columns or [])}
            # an empty cell is a missing value in every column (as DuckDB reads it), never the text ""
            options = pacsv.ConvertOptions(include_columns=wanted or [], column_types=types,
                                           strings_can_be_null=True)
            table = _read_csv_columns(p, options, parse) if wanted else None
            if table is None:
                table = pacsv.read_csv(p, convert_options=options, parse_options=parse)
            table = _exact_big_ints(table, lambda name: _csv_text_column(p, name, parse))
        names = table.column_names  # decodes the header: may raise UnicodeDecodeError
    except UnicodeDecodeError as exc:
        _refuse_not_utf8(p)
        raise VeracityError(
            f"{_name(p)} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} cannot be decoded); "
            "re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8"
        ) from None
    except (pa.ArrowInvalid, OSError) as exc:
        _refuse_ragged(exc, [str(p)], _name(p))
        raise VeracityError(f"could not read {_name(p)} as CSV or Parquet: {_arrow_reason(exc)}") from None
    if not p.name.lower().endswith(_PARQUET):
        for name, field in zip(names, table.schema):
            if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
                # pyarrow keeps text that is not valid UTF-8 as bytes; nothing downstream can use it
                _refuse_not_utf8(p)
                raise VeracityError(
                    f"column {name!r} of {_name(p)} is not UTF-8 text; re-save the file as UTF-8, "
                    "e.g. iconv -f latin1 -t utf-8")
    _refuse_duplicates(names, p)
    if table.num_rows == 0:
        raise VeracityError(f"{_name(p)} has a header but no rows; pass a file with at least one data row")
    return table


#: |x| from which a whole number in a CSV is past int64, so that pyarrow reads its column as doubles
_PAST_INT64 = 2.0**63
#: the most digits of a whole number a 128-bit decimal (what DuckDB hands back for HUGEINT) holds
_DECIMAL_DIGITS = 38


def _exact_big_ints(table: Any, text: Callable[[str], Any]) -> Any:
    """``table`` (a CSV read by pyarrow) with each column of whole numbers past int64 read exactly.

    pyarrow reads a column holding an integer beyond int64 (a uint64 hash id, ``9223372036854775808``)
    as doubles, where ids 2**63 and 2**63 + 1 are one value: ``by=`` pooled them into one slice
    (``9.223372036854776e+18``, silently) where the DuckDB engine reads the column as HUGEINT and keeps
    them apart. A double column whose values are all whole, some at least 2**63 in size, is read again
    as the text of its cells (``text(name)``: a string column, the same rows); when every cell is an
    integer literal it becomes ``decimal128(38, 0)`` (DuckDB's HUGEINT in Arrow: exact, the same slice
    names), or stays that text beyond 38 digits (DuckDB's BIGNUM, read as text there too). Columns with
    a fraction, an exponent or a value below 2**63 are as pyarrow read them."""
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if not (pa.types.is_floating(field.type) and _past_int64(table.column(i))):
            continue  # (one cheap pass, where nearly every column stops)
        import pyarrow.compute as pc  # 0.04 s to import: only for a column that needs it

        values = to_numpy(table.column(i).drop_null())
        if not np.isfinite(values).all() or not (values == np.round(values)).all():
            continue
        cells = pc.utf8_trim_whitespace(text(field.name))
        digits = pc.utf8_length(pc.utf8_ltrim(cells, characters="+-")).drop_null()
        if not pc.all(pc.match_substring_regex(cells, r"^[+-]?[0-9]+$")).as_py():
            continue  # "1e19", "9223372036854775808.0": doubles, as DuckDB reads them
        exact = (cells.cast(pa.decimal128(_DECIMAL_DIGITS, 0))
                 if pc.max(digits).as_py() <= _DECIMAL_DIGITS else cells.cast(pa.string()))
        table = table.set_column(i, field.with_type(exact.type), exact)
    return table


def _past_int64(column: Any) -> bool:
    """Whether a float column (a ``pyarrow.ChunkedArray``) holds a value of size at least 2**63, nulls and
    NaN skipped: :math:`\\max |x| \\ge 2^{63}` chunk by chunk in numpy (what ``pyarrow.compute.min_max``
    told, without importing ``pyarrow.compute`` for a file that has no such column)."""
    with np.errstate(invalid="ignore"):
        return any(bool((np.abs(np.asarray(to_numpy(chunk), dtype=np.float64)) >= _PAST_INT64).any())
                   for chunk in column.chunks)


def _csv_text_column(p: Path, name: str, parse: Any) -> Any:
    """The column ``name`` of the CSV file ``p`` as the text of its cells (an empty cell missing)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    convert = pacsv.ConvertOptions(include_columns=[name], column_types={name: pa.string()},
                                   strings_can_be_null=True)
    return pacsv.read_csv(p, parse_options=parse, convert_options=convert).column(0)


def _refuse_duplicates(names: list[str], p: Path) -> None:
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise VeracityError(
            f"column {dup!r} appears {names.count(dup)} times in {_name(p)}; give every column a "
            "distinct name")


def _delimiter(p: Path) -> str:
    """The CSV file's delimiter, as DuckDB's sniffer finds it for the usual files: a tab for
    ``.tsv``; otherwise a comma, unless the header has none and has semicolons, tabs or bars."""
    import gzip

    name = p.name.lower()
    if name.endswith((".tsv", ".tsv.gz")):
        return "\t"
    try:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(p, "rb") as fh:
            header = fh.readline(1 << 16)
    except OSError:
        return ","  # the reader says what is wrong
    if b"," in header:
        return ","
    counts = {d: header.count(d.encode()) for d in (";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _read_csv_columns(p: Path, options: Any, parse: Any = None) -> Any:
    """Only the wanted columns of a CSV, block by block: memory ~ those columns, not the file.

    ``pyarrow.csv.read_csv`` holds the whole file's bytes while it parses (a 42-column file
    costs 3x its two used columns); the streaming reader holds one block. It infers types
    from the first block, so a column that changes type later (ints, then floats) raises;
    then ``None`` sends the caller to the whole-file reader, which infers over every row.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        with pacsv.open_csv(p, convert_options=options, parse_options=parse,
                            read_options=pacsv.ReadOptions(block_size=1 << 20)) as reader:
            return pa.Table.from_batches(list(reader), schema=reader.schema)
    except pa.ArrowInvalid:
        return None


def read_files(pattern: str, columns: list[str] | None = None) -> Any:
    """One ``pyarrow.Table`` from a glob or a directory of CSV/Parquet files (the needed columns), as
    ``pyarrow.dataset`` reads it (:func:`._scan.read_batches`: importing the dataset module imports pandas):
    Parquet in the unified schema of every file (else the first file's), CSV in the first file's types
    (when a later file does not fit them: each file typed alone and joined, :func:`_concat_csv`); no hive
    partition columns."""
    import os

    import pyarrow as pa

    from .._files import expand
    from ._scan import csv_schema, naming, read_batches, selected

    files, kind = expand(pattern)
    from ._duckdb import refuse_database

    refuse_database(files, pattern)
    if kind == "csv":  # the same headers, as the DuckDB engine requires (read by name here, by position there)
        from ._duckdb import check_same_headers

        check_same_headers(files, pattern)
    else:  # no column spelt p in one file and P in another (the DuckDB engine would read one as the other)
        from ._duckdb import parquet_names

        parquet_names(files, pattern)
    try:
        parse = convert = None
        if kind == "parquet":  # every file's columns in a type that holds them all (int64 and double: double),
            import pyarrow.parquet as pq  # as DuckDB reads them; else the first file's types (0.637 refused)

            schemas = []
            for f in files:
                with naming(f, "Parquet"):
                    schemas.append(pq.read_schema(f))
            try:
                schema = pa.unify_schemas(_booleans_as_int64(schemas), promote_options="permissive")
            except (pa.ArrowTypeError, pa.ArrowInvalid):  # text in one, numbers in another: the first's types
                schema = schemas[0]
        else:
            empty = next((f for f in files if os.path.getsize(f) == 0), None)
            if empty is not None:  # (pyarrow: "Empty CSV file or block: cannot infer number of columns")
                raise VeracityError(f"could not read {pattern} as CSV: {_name(Path(empty))} is empty; it has "
                                    "no header and no rows")
            parse, convert = _csv_options(files[0])
            schema = csv_schema(files[0], parse, convert)
        wanted = _present(columns, schema.names)
        batches = list(read_batches(files, kind, schema, wanted, parse=parse, convert=convert))
        table = pa.Table.from_batches(batches, schema=selected(schema, wanted))
        if kind == "csv":
            def text(name: str) -> Any:  # the column's cells in every file, as written
                as_text = schema.set(schema.get_field_index(name), pa.field(name, pa.string()))
                return pa.Table.from_batches(list(read_batches(files, kind, as_text, [name], parse=parse,
                                                               convert=convert))).column(0)

            table = _exact_big_ints(table, text)
    except (pa.ArrowInvalid, OSError) as exc:
        if kind == "csv":
            _refuse_ragged(exc, files, pattern)
            if "conversion error" in str(exc):  # ints in one file, decimals in another: typed per file
                return _concat_csv(files, columns, pattern)
        raise VeracityError(f"could not read {pattern} as {kind.upper()}: {_arrow_reason(exc)}") from None
    if table.num_rows == 0:
        raise VeracityError(f"{pattern} has no rows; pass files with at least one data row")
    return table


def _booleans_as_int64(schemas: list[Any]) -> list[Any]:
    """``schemas`` with a column that is boolean in some files and numbers in others as int64 where it
    is boolean (true/false read as 1/0, as DuckDB joins them; pyarrow does not unify the two, and the
    files were then read in the first file's types: 0.46 in a later int64 column stopped the read)."""
    import pyarrow as pa

    from ._csv_text import arrow_number

    flags = {f.name for s in schemas for f in s if pa.types.is_boolean(f.type)}
    flags &= {f.name for s in schemas for f in s if arrow_number(f.type)}
    if not flags:
        return schemas
    return [pa.schema([f.with_type(pa.int64()) if f.name in flags and pa.types.is_boolean(f.type) else f
                       for f in s]) for s in schemas]


def _csv_options(first: str) -> tuple[Any, Any]:
    """The parse and convert options of a glob's CSV files, read as one file is (:func:`read_table`): the
    delimiter of the first (``;`` too), an empty cell missing in every column."""
    import pyarrow.csv as pacsv

    return (pacsv.ParseOptions(delimiter=_delimiter(Path(first))),
            pacsv.ConvertOptions(strings_can_be_null=True))


def _concat_csv(files: list[str], columns: list[str] | None, pattern: str) -> Any:
    """A glob's CSV files typed one by one and joined in types that hold them all (int64 and double:
    double; a column empty in one file: the others' type; true/false beside numbers: 1/0), as DuckDB's
    engine reads them; pyarrow's dataset types every file as the first. A column no one type holds (dates
    in one file, numbers in another) is read as the text its cells hold, in every file, as DuckDB reads it
    (VARCHAR): the checks of the column then name the first value of the wrong kind, as in one file."""
    import pyarrow as pa

    tables = _bools_as_numbers([_csv_table(f, columns) for f in files])
    text = _clashing(tables)
    if text:
        tables = _bools_as_numbers([_csv_table(f, columns, text) for f in files])
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise VeracityError(f"could not read {pattern} as CSV: {_arrow_reason(exc)}") from None


def _csv_table(path: str, columns: list[str] | None, text: list[str] | tuple[str, ...] = ()) -> Any:
    """One CSV file of a glob, typed on its own (the ``text`` columns read as strings, as written), an
    empty cell missing; only the needed ``columns`` when it has them all."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    parse = pacsv.ParseOptions(delimiter=_delimiter(Path(path)))
    convert = pacsv.ConvertOptions(strings_can_be_null=True, column_types={c: pa.string() for c in text})
    table = pacsv.read_csv(path, parse_options=parse, convert_options=convert)
    wanted = _present(columns, table.column_names)
    table = table.select(wanted) if wanted else table
    return _exact_big_ints(table, lambda name: _csv_text_column(Path(path), name, parse))


def _bools_as_numbers(tables: list[Any]) -> list[Any]:
    """``tables`` with a column that is boolean in some and numbers in others as int64 where it is boolean
    (true/false read as 1/0, as DuckDB joins them: :func:`_booleans_as_int64`, as for Parquet files)."""
    schemas = _booleans_as_int64([t.schema for t in tables])
    return [t if t.schema.equals(s) else t.cast(s) for t, s in zip(tables, schemas)]


def _clashing(tables: list[Any]) -> list[str]:
    """The columns of ``tables`` (the same names in each) that no one type holds in every table, as
    ``concat_tables(promote_options="permissive")`` joins them (int64 and double do, null and any do;
    a date and a number do not)."""
    import pyarrow as pa

    clash = []
    for name in tables[0].column_names:
        fields = [pa.schema([t.schema.field(name)]) for t in tables if name in t.column_names]
        try:
            pa.unify_schemas(fields, promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            clash.append(name)
    return clash


def _refuse_not_utf8(path: Path) -> None:
    """A CSV file that is not UTF-8 refused with the line of its first undecodable byte (as on DuckDB)."""
    from ._csv_text import first_non_utf8_line, not_utf8_message

    bad = first_non_utf8_line(str(path))
    if bad is not None:
        raise VeracityError(not_utf8_message(_name(path), *bad)) from None


def _refuse_ragged(exc: BaseException, files: list[str], source: str) -> None:
    """pyarrow's "Expected 2 columns, got 3" as the line of the first such row (as DuckDB's engine says it)."""
    import re

    from ._csv_text import first_non_utf8_line, first_ragged_line, not_utf8_message, ragged_message

    if not re.search(r"Expected \d+ columns?, got \d+", str(exc)):
        return
    for f in files:  # a file that is not UTF-8 first: its rows split into fields only by chance
        bad = first_non_utf8_line(f)
        if bad is not None:
            raise VeracityError(not_utf8_message(source, *bad, file=f if len(files) > 1 else None)) from None
    for f in files:
        ragged = first_ragged_line(f, _delimiter(Path(f)))
        if ragged is not None:
            raise VeracityError(ragged_message(source, *ragged, file=f if len(files) > 1 else None)) from None


def _present(columns: list[str] | None, names: list[str]) -> list[str] | None:
    """The columns to read: ``columns`` plus every column equal to one of them but for spaces
    (a caller may have stripped ``" p"`` to ``p``; :func:`score_matrix` picks the one written)."""
    if not columns or len(set(names)) != len(names):
        return None
    wanted = list(dict.fromkeys(columns))
    if not all(c in names for c in wanted):
        return None
    stripped = {c.strip() for c in wanted}
    return list(dict.fromkeys([*wanted, *(n for n in names if n.strip() in stripped)]))


def _name(p: Path) -> str:
    """A path for a one-line message (control characters escaped)."""
    text = str(p)
    return repr(text) if any(ord(c) < 32 for c in text) else text


def _arrow_reason(exc: BaseException) -> str:
    """First line of an Arrow error, without the row text it may quote (no file content echoed)."""
    import re

    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    first = re.sub(r"(got \d+)(?: columns?)?\s*:.*$", r"\1", first)
    first = re.sub(r"(invalid value) .*$", r"\1", first)
    return first[:200]


def column(table: Any, name: str, *, path: str | Path | None = None, role: str | None = None) -> np.ndarray:
    """One column as a numpy array; a clear error naming the available columns.

    Missing (empty, null, NaN) and infinite values are refused in the lazy contract's words
    (:func:`._aggregates.missing_message`; ``role``: ``"scores"``, ``"labels"`` or ``"sample_weight"``,
    named as the contract names them), with the data row of the first."""
    import pyarrow as pa

    from ._source import require_columns

    require_columns([name], table.column_names, where=None if path is None else str(path))
    col = table.column(name)
    refuse_nested(name, col.type)
    # a DECIMAL column as the nearest float64 of each value, as every other engine reads it (exact_floats)
    # (numbers, flags and text from Arrow's buffers: pyarrow's own to_numpy imports pandas, half a second)
    values: np.ndarray = np.asarray(exact_floats(col)) if pa.types.is_decimal(col.type) else to_numpy(col)
    missing = is_missing(col) if col.null_count else np.zeros(len(values), bool)
    infinite = np.zeros(len(values), bool)
    if values.dtype.kind == "f":
        missing = missing | np.isnan(values)
        infinite = np.isinf(values)
    bad = missing | infinite
    if bad.any():
        first, n = int(np.flatnonzero(bad)[0]) + 1, len(values)
        if role == "labels":
            from ._aggregates import labels_message

            if missing.any():
                raise MissingLabels(labels_message(name, int(bad.sum()), n, "missing" if not infinite.any()
                                                   else "missing or infinite", first_row=first))
            return values  # infinite labels: the array contract names their min and max
        from ._aggregates import missing_message

        raise VeracityError(missing_message(name, role, int(missing.sum()),
                                            None if role == "sample_weight" else int(infinite.sum()), n,
                                            first_row=first))
    return values


def score_names(spec: str, columns: Any) -> list[str]:
    """The score columns ``spec`` names among ``columns``: ``spec`` itself when a column is
    named so (``" p"``, ``"a,b"``), else its comma-separated parts, each stripped of spaces
    only when the part as written is not a column (``"p0, p1"``)."""
    present = set(columns)
    if spec in present:
        return [spec]
    return [s if s in present else s.strip() for s in spec.split(",") if s.strip()]


def score_matrix(table: Any, spec: str, *, path: str | Path | None = None) -> np.ndarray:
    """Scores from ``spec``: one column name, or comma-separated names for an (N, K) matrix.

    Names are matched as written first: a column literally named ``" p"`` or ``"a,b"`` is that
    column; otherwise the spec is split on commas, and a part is stripped of spaces only
    when the part as written is not a column (``"p0, p1"``).
    """
    names = score_names(spec, table.column_names)
    if not names:
        raise VeracityError("--score needs a column name (or comma-separated names for multiclass)")
    for n in names:
        numbers_or_refuse(table, n)
    cols = [check_numeric_column(column(table, n, path=path, role="scores"), n) for n in names]
    if len(cols) == 1:
        return cols[0]
    return np.column_stack(cols).astype(np.float64)


def numbers_or_refuse(table: Any, name: str) -> None:
    """A score column that is not numbers refused in the frame route's words (every engine's: "column 'p'
    (scores) must be numeric, got String; convert the column to numbers", with the same fix), not in the
    array contract's ("must be numeric scores, found object values such as ...")."""
    import pyarrow as pa

    if name not in table.column_names:
        return  # column() names the columns there are
    kind = table.schema.field(name).type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind) or pa.types.is_decimal(kind):
        return
    from ._source import as_frame, check_dtypes

    check_dtypes(as_frame(table.select([name])), [name], None, None)
