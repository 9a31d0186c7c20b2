"""What a frame is, and turning one into a narwhals frame with checked column names/types.

A *frame* is anything with named columns: a pandas, polars (eager or lazy) or
pyarrow table, a DuckDB relation, a Dask or Spark DataFrame, an Ibis table, or a
path / glob of CSV or Parquet files (read lazily through DuckDB). Detection looks
at the type's module only, so no optional library is imported to ask.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, replace
from typing import Any

from ..core._validation import MissingLabels, VeracityError
from ._open import NUMBER_BODY

_FRAME_TYPES = {
    ("pandas", "DataFrame"), ("polars", "DataFrame"), ("polars", "LazyFrame"), ("pyarrow", "Table"),
    ("duckdb", "DuckDBPyRelation"), ("dask", "DataFrame"), ("pyspark", "DataFrame"),
    ("ibis", "Table"), ("narwhals", "DataFrame"), ("narwhals", "LazyFrame"),
}


def is_frame(x: Any) -> bool:
    """True for a table with named columns (not a Series or an array)."""
    if isinstance(x, (str, os.PathLike)):
        return True
    for cls in type(x).__mro__:
        root = cls.__module__.split(".")[0].lstrip("_")
        if (root, cls.__name__) in _FRAME_TYPES:
            return True
    return False


@dataclass(frozen=True)
class Frame:
    """A narwhals frame plus where it came from. ``lazy`` frames are never collected whole."""

    nw: Any
    lazy: bool
    backend: str
    columns: tuple[str, ...]
    schema: dict[str, Any]
    source: str
    #: user column name -> the name in ``nw`` (Spark's frames are renamed by position,
    #: since Spark parses dots and backticks in a column reference)
    internal: dict[str, str] | None = None

    def ref(self, name: str) -> str:
        return name if self.internal is None else self.internal[name]


def as_frame(x: Any) -> Frame:
    """Wrap ``x`` (a frame or a path) in narwhals; paths become lazy DuckDB relations."""
    import narwhals as nw

    opened = _opened(x)
    source = opened[1] if opened else "frame"
    if isinstance(x, (str, os.PathLike)):
        from ._duckdb import read

        source = os.fspath(x)
        x = read(x)
    x = _dask_readable(x)
    with warnings.catch_warnings():
        # narwhals announces that its Dask support moves to a plugin; nothing for users to do
        warnings.simplefilter("ignore", FutureWarning)
        try:
            frame = x if isinstance(x, (nw.DataFrame, nw.LazyFrame)) else nw.from_native(x)
        except TypeError as exc:
            raise VeracityError(f"cannot read columns from {type(x).__name__}: {exc}") from None
        except nw.exceptions.DuplicateError:  # pandas/pyarrow frames with a repeated name
            _refuse_duplicates(_native_names(x), source)
            raise  # pragma: no cover - narwhals found a duplicate the names do not show
    lazy = isinstance(frame, nw.LazyFrame)
    _refuse_duplicates([str(c) for c in frame.columns], source)
    if (not lazy and str(frame.implementation).split(".")[-1].lower() == "polars"
            and any(_polars_pattern(str(c)) for c in frame.columns)):
        # an eager polars frame reads "*" and "^...$" as patterns wherever an expression names the
        # column (pos_label=, a bad row's message); its Arrow table (zero-copy) reads names literally
        frame = nw.from_native(frame.to_native().to_arrow())
    schema = dict(frame.collect_schema()) if lazy else dict(frame.schema)
    if opened and opened[2]:
        schema = _nested_types(schema, opened[2])
    backend = str(frame.implementation).split(".")[-1].lower()
    internal = None
    if backend == "pyspark":
        native = frame.to_native()
        internal = {name: f"_c{i}" for i, name in enumerate(schema)}
        frame = nw.from_native(native.toDF(*internal.values()))
    elif backend == "polars" and lazy and any(_polars_pattern(str(c)) for c in schema):
        # polars reads a column name written ^...$ as a regular expression (pl.col("^s.*$") selects
        # every column starting with s) and "*" as every column: rename by position so names are
        # matched literally
        internal = {name: f"_c{i}" for i, name in enumerate(schema)}
        frame = nw.from_native(frame.to_native().rename(internal))
    elif backend == "duckdb":
        frame, schema, internal = _duckdb_readable(frame, schema)
    return Frame(frame, lazy, backend, tuple(schema), schema, source, internal)


def _duckdb_readable(frame: Any, schema: dict[str, Any]) -> tuple[Any, dict[str, Any], dict[str, str] | None]:
    """A DuckDB relation every column of which narwhals can name and type.

    * DuckDB reads a column reference ``"*"`` as a star expression (a Binder error), and a
      reference ``"score"`` as the first column equal to it but for case (a relation may hold
      ``Score`` and ``score``; the binder takes ``Score``): with such columns every column is
      renamed by position (``#i``, never by name), so the name is matched literally;
    * narwhals types DuckDB's ``TIMESTAMPTZ_NS`` (a zone-aware nanosecond column, what pandas
      writes to Parquet) Unknown, and ``vc.monitor`` refused it as not a time: its type here is
      ``Datetime('ns', 'UTC')``, the instants it holds, and the column is read as it is. It was cast
      to ``TIMESTAMPTZ`` (microseconds), which merged ``by=`` keys 1 ns apart into one slice (300 rows
      under ``00:00:00+00:00`` where every other route has 90/95/115); its keys come back as pandas
      ``Timestamp`` objects with their nanoseconds and zone, named in UTC (``key_name``);
    * narwhals reads ``TIME_NS`` (an Arrow ``time64[ns]`` column of a Parquet file) as Unknown, and
      its keys came back as Python ``time`` objects, which hold microseconds: times 1 ns apart were
      one key and the rows of all but one were dropped (110 of 200 rows audited, silently). It is
      cast to ``TIME`` where that is exact; a time with nanoseconds stops the query in one line
      (:func:`_time_expr`), as reading the file into memory refuses it;
    * a ``UHUGEINT`` of 2**127 or more came back negative, and a ``BIGNUM`` (a CSV's integers past
      2**127) as an Arrow type nothing reads: :func:`_wide_int_expr`.
    """
    import narwhals as nw

    from ..core._sql_names import quote_identifier

    native = frame.to_native()
    names = list(native.columns)
    nanos = [str(t) == "TIMESTAMPTZ_NS" for t in native.types]
    times = [str(t) == "TIME_NS" for t in native.types]
    # UHUGEINT and BIGNUM (a CSV's integers past 2**127): see _wide_int_expr
    wide = [str(t) in ("UHUGEINT", "BIGNUM") for t in native.types]
    by_position = "*" in schema or len({str(n).lower() for n in names}) != len(names)
    zoned = {user: nw.Datetime("ns", "UTC") for user, nano in zip(schema, nanos) if nano}
    if not by_position and not any(times) and not any(wide):
        return frame, {**schema, **zoned}, None
    internal = {name: f"_c{i}" for i, name in enumerate(schema)} if by_position else None
    items = []
    for i, (user, name) in enumerate(zip(schema, names)):
        expr = f"#{i + 1}" if by_position else quote_identifier(name)
        if times[i]:
            expr = _time_expr(expr, str(user))
        if wide[i]:
            expr = _wide_int_expr(expr, str(user), str(native.types[i]))
        items.append(f"{expr} AS {quote_identifier(internal[user] if internal else name)}")
    frame = nw.from_native(native.project(", ".join(items)))
    return frame, {**dict(zip(schema, dict(frame.collect_schema()).values())), **zoned}, internal


#: the largest HUGEINT (2**127 - 1): DuckDB hands HUGEINT and UHUGEINT to Arrow as a 128-bit decimal
_MAX_HUGEINT = 2**127 - 1


def _wide_int_expr(x: str, name: str, kind: str) -> str:
    """SQL reading ``x``, a DuckDB ``UHUGEINT`` or ``BIGNUM`` column, as values that reach Python exactly.

    DuckDB hands a ``UHUGEINT`` to Arrow as a signed 128-bit decimal: an id of 2**127 or more came back
    negative (``by=`` slices named ``-456`` for ``2**128 - 456``, silently). It is read as ``HUGEINT``
    (the same decimal, exact) and a value beyond 2**127 - 1 stops the query in one line. A ``BIGNUM``
    (what DuckDB's CSV sniffer makes of integers past 2**127) has no Arrow form numpy reads (a raw
    ``ArrowNotImplementedError``): it is read as the text of its digits, exact, as the memory engine
    reads such a column of a CSV (``sources._api._exact_big_ints``)."""
    from ..core._sql_names import quote_identifier
    from ._duckdb import ERROR_MARK

    if kind == "BIGNUM":
        return f"CAST({x} AS VARCHAR)"
    shown, cast = name.replace("'", "''"), quote_identifier(name).replace("'", "''")
    stop = (f"error('{ERROR_MARK}column ''{shown}'' holds ' || CAST({x} AS VARCHAR) || ', beyond the "
            f"2**127 - 1 that DuckDB hands back as a number; read the column as text: CAST({cast} AS VARCHAR)')")
    return f"CASE WHEN {x} > {_MAX_HUGEINT} THEN {stop} ELSE CAST({x} AS HUGEINT) END"


def _time_expr(x: str, name: str) -> str:
    """SQL reading ``x``, a DuckDB ``TIME_NS``, as ``TIME`` (microseconds) when that is exact, and
    stopping the query in one line at a time of day with nanoseconds (``epoch_ns(x) % 1000 <> 0``)."""
    from ._duckdb import ERROR_MARK

    shown = name.replace("'", "''")
    head, tail = ns_times_message(name, "\0").replace("'", "''").split("\0")
    stop = f"error('{ERROR_MARK}{head}' || CAST({x} AS VARCHAR) || '{tail}')"
    return f"CASE WHEN {x} IS NULL THEN NULL WHEN epoch_ns({x}) % 1000 <> 0 THEN {stop} ELSE CAST({x} AS TIME) END"


def ns_times_message(name: str | None, shown: str) -> str:
    """The one line refusing a time of day with nanoseconds (``shown``) as a slice key, on every route
    (``name``: the column, when known)."""
    column = "the slice keys hold" if name is None else f"column {name!r} holds"
    return (f"{column} times of day with nanoseconds ({shown}), which no route names exactly; "
            "round them to microseconds first")


def refuse_ns_times(series: Any, name: str | None = None) -> None:
    """Refuse a narwhals ``Time`` series holding a time of day with nanoseconds (``ns % 1000 != 0``).

    A Python ``time``, which every route hands a time-of-day key back as, holds microseconds: such
    keys 1 ns apart were one slice (polars: 200 rows under ``00:00:00``) or, on a lazy frame, one key
    and the other keys' rows dropped (58 of 200 rows audited), and pyarrow raised a raw ArrowInvalid.
    DuckDB refuses them in its query (:func:`_time_expr`). One vectorised pass over the values."""
    import narwhals as nw
    import numpy as np
    import pyarrow as pa

    if series.dtype != nw.Time:
        return
    arrow = series.to_arrow()
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks()
    if not pa.types.is_time64(arrow.type) or arrow.type.unit != "ns":
        return
    from ._arrow_numpy import to_numpy

    ns = np.asarray(to_numpy(arrow.cast(pa.int64()).fill_null(0)), dtype=np.int64)
    odd = np.flatnonzero(ns % 1000)
    if odd.size:
        seconds, fraction = divmod(int(ns[odd[0]]), 10**9)
        shown = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{fraction:09d}"
        raise VeracityError(ns_times_message(name, shown))


def _dask_readable(x: Any) -> Any:
    """A Dask frame every column of which narwhals can read:

    * zone-aware columns in UTC (the same instants): narwhals reads
      ``datetime64[ns, America/New_York]`` (a zone name with an underscore) as Unknown;
    * an Arrow DECIMAL(p, s) column with no integer digit (p = s, e.g. DECIMAL(4, 4) scores from
      Parquet) as float64, the nearest double of each value (pandas' conversion is exact, as
      :func:`exact_floats`): Dask's sample of such a column holds the value 1, which does not fit, so
      any use of the frame raised ``ArrowInvalid: Decimal value does not fit in precision 4``."""
    if type(x).__module__.split(".")[0] != "dask":
        return x
    try:
        import pandas as pd
        import pyarrow as pa

        fixed = {str(c): x[c].dt.tz_convert("UTC") for c, t in x.dtypes.items()
                 if isinstance(t, pd.DatetimeTZDtype) and str(t.tz) != "UTC"}
        for c, t in x.dtypes.items():
            arrow = getattr(t, "pyarrow_dtype", None)
            if arrow is not None and pa.types.is_decimal(arrow) and arrow.precision == arrow.scale:
                fixed[str(c)] = x[c].astype("float64")
        return x.assign(**fixed) if fixed else x
    except Exception:  # noqa: BLE001 - not a frame with dtypes (or odd names): narwhals says what it is
        return x


def _polars_pattern(name: str) -> bool:
    """A name polars' ``col()`` reads as a pattern: a regular expression ``^...$`` or the wildcard ``*``."""
    return name == "*" or (name.startswith("^") and name.endswith("$"))


def _native_names(x: Any) -> list[str]:
    names = getattr(x, "column_names", None)  # pyarrow
    if names is None:
        names = list(getattr(x, "columns", []))
    return [str(c) for c in names]


def _refuse_duplicates(names: list[str], source: str) -> None:
    """One line naming a repeated column (a dict schema would keep one of them silently)."""
    if len(set(names)) != len(names):
        dup = next(c for c in names if names.count(c) > 1)
        raise VeracityError(f"column {dup!r} appears {names.count(dup)} times in "
                            f"{'the frame' if source == 'frame' else source}; give every column a distinct name")


def column_name(name: Any) -> str:
    """A column name for a one-line message: control characters escaped, the empty name as ``''``."""
    text = str(name)
    if not text:
        return "''"
    return repr(text) if any(ord(c) < 32 for c in text) else text


def require_columns(wanted: Any, available: Any, *, where: str | None = None, param: str | None = None) -> None:
    """The one column lookup: every name in ``wanted`` is one of ``available``, else one line
    naming the first missing column, where it was looked for, the columns it differs from only by
    case or surrounding spaces (names are matched exactly on every engine) and the first 20 available."""
    available = list(available)
    present = set(available)
    for name in wanted:
        if name not in present:
            place = f" in {where}" if where else ""
            shown = ", ".join(column_name(c) for c in available[:20])
            raise VeracityError(f"column {name!r} not found{place}{_close_match(name, available)}; "
                                f"available columns: {shown}", param=param)


def _close_match(name: Any, available: list[Any]) -> str:
    """``" (did you mean 'y'? ...)"`` naming the columns equal to ``name`` but for case and
    surrounding spaces, else the (at most three) names most like it as text (``difflib``'s ratio
    of at least 0.6: a misspelling such as ``scroe`` for ``score``), else nothing."""
    import difflib
    import re

    key = str(name).strip().casefold()
    close = [c for c in available if str(c).strip().casefold() == key]
    if not close:
        texts = {str(c): c for c in available}
        like = difflib.get_close_matches(str(name), list(texts), n=3, cutoff=0.6)
        return f" (did you mean {' or '.join(repr(t) for t in like)}?)" if like else ""
    renamed = [c for c in available if re.fullmatch(re.escape(str(name)) + r"_\d+", str(c))]
    if renamed:  # DuckDB's relations (con.from_df, read_csv) rename the second of p and P to P_1
        return (f" (DuckDB renamed it {str(renamed[0])!r}, since the relation also holds {str(close[0])!r}: "
                "DuckDB matches names regardless of case; rename one of the two columns first)")
    named = " or ".join(repr(str(c)) for c in close[:3])
    return f" (did you mean {named}? column names are matched exactly, case and spaces included)"


#: id(frame) -> (a weak reference to it, the path it was opened from, its nested columns' Arrow types):
#: a Dask or Spark DataFrame that :func:`._api.open_frame` opened is named by its path in messages, as
#: the DuckDB engine names it, and a Parquet list or struct column that Dask holds as Python objects
#: (``object``: a struct key raised "unhashable type: 'dict'") is refused as on the other engines
_OPENED: dict[int, tuple[Any, str, dict[str, Any]]] = {}


def opened_from(frame: Any, path: str, nested: dict[str, Any] | None = None) -> Any:
    """Remember that ``frame`` holds the rows of ``path`` and the Arrow types of its ``nested``
    columns; returns ``frame``."""
    import weakref

    key = id(frame)
    before = _opened(frame)
    try:
        _OPENED[key] = (weakref.ref(frame, lambda _: _OPENED.pop(key, None)), path,
                        {**(before[2] if before else {}), **(nested or {})})
    except TypeError:  # pragma: no cover - an object without weak references: messages say "the frame"
        pass
    return frame


def _opened(frame: Any) -> tuple[Any, str, dict[str, Any]] | None:
    entry = _OPENED.get(id(frame))
    return entry if entry is not None and entry[0]() is frame else None


def _nested_types(schema: dict[str, Any], nested: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the columns of ``nested`` (Arrow types) in narwhals' nested types."""
    import narwhals as nw
    import pyarrow as pa

    found = {n: t for n, t in nested.items() if n in schema}
    if not found:
        return schema
    typed = nw.from_native(pa.table({n: pa.array([], type=t) for n, t in found.items()})).schema
    return {n: typed.get(n, dtype) for n, dtype in schema.items()}


def check_columns(frame: Frame, names: dict[str, Any]) -> None:
    """Every named column exists; the message lists what is available."""
    for role, name in names.items():
        for col in ([name] if isinstance(name, str) else list(name or [])):
            if not isinstance(col, str):
                raise VeracityError(f"{role}= must name a column (a string), got {col!r}", param=role)
            require_columns([col], frame.columns, where=None if frame.source == "frame" else frame.source,
                            param=role if role.isidentifier() else None)
            dtype = frame.schema[col]
            if dtype.is_nested():  # a list, array or struct per row: no score, label or key veracity can read
                raise _nested(col, dtype, role)


def keys_as_written_frame(frame: Frame, keys: list[str]) -> Frame:
    """``frame`` with its key columns ``keys`` (slices, segment features) read again as the text written
    where :func:`._csv_text.keys_as_written` says numbers would lose it (``1.1`` and ``1.10`` two slices,
    ``02134`` named so), as the command line's memory engine reads them, when ``frame`` is a DuckDB or Dask
    frame opened from CSV files; else (or when no key column needs it) ``frame`` itself. Spark frames and
    remote files are read as they are."""
    if frame.source == "frame" or frame.backend not in ("duckdb", "dask"):
        return frame
    numbers = [k for k in dict.fromkeys(keys) if k in frame.schema and frame.schema[k].is_numeric()]
    if not numbers:
        return frame
    from ._csv_text import keys_as_written
    from ._open import csv_files

    text = tuple(keys_as_written(csv_files(frame.source), numbers))
    if not text:
        return frame
    if frame.backend == "duckdb":
        from ._duckdb import read

        native = read(frame.source, text_keys=text)
    else:
        from ._open import open_dask

        native = opened_from(open_dask(frame.source, False, text_keys=text), frame.source)
    again = as_frame(native)
    return replace(frame, nw=again.nw, lazy=again.lazy, backend=again.backend, columns=again.columns,
                   schema=again.schema, internal=again.internal)


def refuse_nested(name: str, arrow_type: Any) -> None:
    """A pyarrow column of lists, arrays, maps or structs: refused in one line (nothing reads them)."""
    import pyarrow as pa

    if pa.types.is_nested(arrow_type):
        raise _nested(name, arrow_type)


def _nested(name: str, dtype: Any, role: str | None = None) -> VeracityError:
    return VeracityError(
        f"column {name!r}{f' ({role})' if role else ''} holds nested values ({dtype}); name a column of plain "
        "numbers, text or booleans (unnest or extract the field first)",
        param=role if role and role.isidentifier() else None)


def _is_numeric(dtype: Any) -> bool:
    return bool(dtype.is_numeric()) and not _is_decimal(dtype)


def _is_decimal(dtype: Any) -> bool:
    import narwhals as nw

    return isinstance(dtype, nw.Decimal) or dtype == nw.Decimal


def _reads_as_numbers(frame: Frame, col: str, *, labels: bool = False) -> bool:
    """A column of numbers: a numeric type, a boolean (True/False read as 1/0 for scores, labels and
    weights alike, as the array form reads a boolean array: hard 0/1 predictions are scores), a DECIMAL
    (read as the nearest float64, as the array form and the SQL route read it), or a pandas object
    column holding only numbers (Python floats, ints or ``Decimal``; booleans too for ``labels``), as
    the array form reads a list of them."""
    import narwhals as nw

    dtype = frame.schema[col]
    if dtype.is_numeric() or dtype == nw.Boolean:
        return True
    if dtype == nw.Categorical or isinstance(dtype, nw.Enum):
        # a pandas category / Arrow dictionary of numbers (what Parquet keeps); an ordered pandas category is
        # narwhals' Enum (categories=[1, 0] was refused as text here, read as its values everywhere else)
        kind = categories_kind(frame, col)
        return kind is not None and kind in ("iufb" if labels else "iuf")  # (booleans: labels only)
    if dtype != nw.Object or frame.lazy or frame.backend != "pandas":
        return False
    import pandas as pd

    kind = pd.api.types.infer_dtype(frame.nw.get_column(col).to_native(), skipna=True)
    return kind in ("decimal", "floating", "integer", "mixed-integer-float", *(("boolean",) if labels else ()))


def categories_kind(frame: Frame, col: str) -> str | None:
    """The numpy kind (``"i"``, ``"f"``, ``"b"``, ``"O"`` ...) of a categorical column's categories on
    pandas, pyarrow and Dask (None where it cannot be told: polars and DuckDB categories are text)."""
    import numpy as np

    try:
        if frame.backend == "pyarrow":
            value_type = frame.nw.to_native().schema.field(col).type.value_type
            return str(np.dtype(value_type.to_pandas_dtype()).kind)
        if frame.backend in ("pandas", "dask"):
            native = frame.nw.to_native()[col]
            arrow = getattr(native.dtype, "pyarrow_dtype", None)
            if arrow is not None:  # pandas' ArrowDtype of a dictionary (no .categories): its values' type
                return str(np.dtype(arrow.value_type.to_pandas_dtype()).kind)
            categories = native.dtype.categories
            if frame.backend == "dask" and any(str(c) == "__UNKNOWN_CATEGORIES__" for c in categories):
                # categories not known yet (a Parquet dictionary column read by Dask): one pass over the column
                categories = native.cat.as_known().dtype.categories
            return str(categories.dtype.kind)
    except Exception:  # noqa: BLE001 - categories that cannot be read: refused as a non-numeric column
        return None
    return None


def check_dtypes(frame: Frame, score: list[str], label: str | None, weight: str | None) -> None:
    """The input contract's type part: numeric scores/weights; 0/1 or boolean labels.

    DECIMAL columns are numbers: each value is read as the nearest float64 (exactly rounded; see
    :func:`exact_floats`). ``label=None``: any label type (``pos_label=`` names the positive class).
    """
    checked = [*((c, "scores") for c in score), *(((label, "labels"),) if label is not None else ()),
               *(((weight, "sample_weight"),) if weight else ())]
    for col, role in checked:
        if not _reads_as_numbers(frame, col, labels=role == "labels"):
            _refuse_empty_column(frame, col, role)
    for col, role in [*((c, "scores") for c in score), *(((weight, "sample_weight"),) if weight else ())]:
        if not _reads_as_numbers(frame, col):
            raise VeracityError(
                f"column {col!r} ({role}) must be numeric, got {_type_name(frame.schema[col])}; "
                "convert the column to numbers"
                + text_numbers_hint(frame, col)
            )
    if label is None:
        return
    if not _reads_as_numbers(frame, label, labels=True):
        if len(score) > 1:  # multiclass: class indices, text refused in the array form's words
            from ._multiclass import class_label_type_error

            raise class_label_type_error(frame, label, len(score))
        _refuse_text_labels(frame, label)
        raise VeracityError(
            f"column {label!r} (labels) must hold 0/1 numbers or booleans, got {_type_name(frame.schema[label])}; "
            "pass {param} naming the positive class, or map the two classes to 0 and 1 first", param="pos_label"
        )


def _refuse_text_labels(frame: Frame, label: str) -> None:
    """A label column of text (or text categories) without ``pos_label=``, refused as every route refuses
    it: its missing labels first, in their own line (:func:`._aggregates.missing_labels_message`: they
    are refused with ``pos_label=`` too), else the labels' one line with their first few values and the
    fix (:func:`veracity.core._validation.text_labels_error`), read in one small aggregate. Any other
    type, or values that cannot be read: nothing (the caller names the type)."""
    import narwhals as nw

    from ..core._validation import text_labels_error
    from ._aggregates import missing_labels_message
    from ._labels import _shown, label_values

    dtype = frame.schema[label]
    if not (dtype in (nw.String, nw.Categorical, nw.Object) or isinstance(dtype, nw.Enum)):
        return
    try:
        n, missing, distinct, values = label_values(frame.nw, frame.ref(label))
    except Exception:  # noqa: BLE001 - a column whose values cannot be read: the caller names its type
        return
    if missing:
        raise MissingLabels(missing_labels_message(label, missing, n))
    if values and all(isinstance(v, str) for v in values):
        raise text_labels_error(values, distinct, name=label, shown=_shown)


def _type_name(dtype: Any) -> str:
    """A column type for a one-line message: an Enum's categories are left out (DuckDB's ENUM of a
    pandas category column listed every one of them, thousands)."""
    text = str(dtype)
    return "Enum" if text.startswith("Enum(") and len(text) > 60 else text


#: values of a text column read to tell how to fix it (as many as the array contract's check reads)
_HINT_VALUES = 1000


def text_numbers_hint(frame: Frame, col: str) -> str:
    """How to fix a text column that holds numbers (its first values, one small read), the same on
    every backend; the case it is most often: ``dd.from_pandas`` turns a pandas object column of
    Python ``Decimal`` values into text, which no backend reads as numbers. Text that is not numbers
    but looks like them written with a decimal comma (``0,75``) or a percent sign (``75%``) gets the
    fix :func:`~veracity.core._validation.check_numeric_column` gives in memory, in its words."""
    import narwhals as nw

    from ._aggregates import collect

    if frame.schema[col] not in (nw.String, nw.Object):
        return ""
    try:
        with warnings.catch_warnings():  # Dask's "Insufficient elements for head": a short partition is fine
            warnings.simplefilter("ignore")
            v = nw.col(frame.ref(col))
            first = collect(frame.nw.select(v.alias("_v")).filter(~nw.col("_v").is_null()).head(_HINT_VALUES))
            values = [str(x) for x in first.get_column("_v").to_list()]
    except Exception:  # noqa: BLE001 - text that cannot be read: no hint
        return ""
    if not values:
        return ""
    if not frame.lazy:  # rows in memory: the first values anywhere in the column that are not numbers
        values = _not_numbers(frame, col) or values
    try:
        for x in values:
            if "_" in x:  # Python reads 1_0 as 10; no CSV reader, pandas or Arrow cast does
                raise ValueError(x)
            float(x)
    except ValueError:  # the fix for a decimal comma or a percent sign, else the first value that is not a number
        return _written_number_hint(values, col) or f"; values such as {x[:40]!r} are not numbers"
    return (f" (it holds numbers written as text: cast it, e.g. df[{col!r}].astype(float); Dask's "
            "dd.from_pandas turns pandas Decimal values into text)")


#: a number written as text, as ``pandas.to_numeric`` reads one: the CSV reader's number
#: (:data:`._open.NUMBER_BODY`) or nan, in any case; any white space around it
_NUMBER_TEXT = rf"^\s*(?:{NUMBER_BODY}|[+-]?(?i:nan))\s*$"


def _not_numbers(frame: Frame, col: str) -> list[str]:
    """The first :data:`_HINT_VALUES` values of an in-memory text column that are not numbers (one
    vectorised match of :data:`_NUMBER_TEXT`, ``pyarrow.compute``; pandas is not imported for an Arrow
    table), or ``[]``: a column whose first rows are numbers and a later one is not must not be told
    to cast."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        series = frame.nw.get_column(frame.ref(col)).drop_nulls()
        if frame.backend == "pandas":  # an object column may hold other objects: their text
            text = pa.array(series.to_native().astype(str).to_numpy(dtype=object), type=pa.string())
        else:
            text = pc.cast(series.to_arrow(), pa.string())
        bad = pc.filter(text, pc.invert(pc.match_substring_regex(text, _NUMBER_TEXT)))
        return [str(x) for x in bad.slice(0, _HINT_VALUES).to_pylist()]
    except Exception:  # noqa: BLE001 - a column that cannot be read as text: the first values tell
        return []


def _written_number_hint(values: list[str], col: str) -> str:
    """``"; values such as '0,75' look like numbers written with a decimal comma: ..."`` (the core's
    check's fix for its first value that is not a number), or ``""`` when it names none."""
    import numpy as np

    from ..core._validation import check_numeric_column

    try:
        check_numeric_column(np.array(values, dtype=object), col)
    except VeracityError as exc:
        text = str(exc)
        if "; they look like " in text and "values such as " in text:
            return "; " + text[text.index("values such as "):].replace("; they look like ", " look like ", 1)
    return ""


def _refuse_empty_column(frame: Frame, col: str, role: str) -> None:
    """A column with no value at all (typed null, or text/object because nothing was there to type it:
    an empty CSV column, a pandas column of None) is refused as the contract refuses missing values on
    every backend — not by the type its reader guessed."""
    try:
        n, present = _row_counts(frame, col)
    except Exception:  # noqa: BLE001 - a column the engine cannot count: the type error says what it is
        return
    if n == 0 or present:
        return
    from ._aggregates import labels_message, missing_message

    if role == "labels":
        raise MissingLabels(labels_message(col, n, n, "missing"))
    raise VeracityError(missing_message(col, role, n, 0 if role == "scores" else None, n))


def _row_counts(frame: Frame, col: str) -> tuple[int, int]:
    """``(rows, values present)`` of a column: an Arrow table's from its own length and null count
    (narwhals' ``nw.len()`` there builds a ``pa.array``, which imports pandas), any other frame's in one
    aggregate."""
    if frame.backend == "pyarrow":
        column = frame.nw.to_native().column(frame.ref(col))
        return len(column), len(column) - column.null_count
    import narwhals as nw

    from ._aggregates import collect

    counts = frame.nw.select(nw.len().alias("_n"), nw.col(frame.ref(col)).count().alias("_c"))
    n, present = collect(counts).rows()[0]
    return int(n or 0), int(present or 0)


def intervals_as_durations(table: Any) -> Any:
    """A pyarrow ``table`` whose ``month_day_nano`` interval columns (DuckDB's INTERVAL, collected:
    a Parquet duration column read by DuckDB, :func:`._parquet_files.durations_as_intervals`) are
    ``duration[ns]`` of ``days * 86400 * 10**9 + nanoseconds``, as pyarrow and pandas read the file.
    narwhals types such a column Unknown and numpy holds it as pandas ``DateOffset`` objects, which do
    not compare (a slice of them named ``<DateOffset: ...>`` or matched no row). A column with months
    (no fixed length) or beyond int64 nanoseconds is left as it is."""
    import numpy as np
    import pyarrow as pa

    layout = np.dtype([("months", "<i4"), ("days", "<i4"), ("nanos", "<i8")])
    columns = list(table.columns)
    for i, column in enumerate(columns):
        if not pa.types.is_interval(column.type):
            continue
        arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        parts = np.frombuffer(arr.buffers()[1], dtype=layout)[arr.offset:arr.offset + len(arr)]
        valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        days = parts["days"].astype(np.int64)
        near = np.abs(days * 86_400e9 + parts["nanos"]) < 9.2e18  # within int64 nanoseconds (2**63 ~ 9.22e18)
        if (parts["months"][valid] != 0).any() or not near[valid].all():
            continue
        ns = np.where(valid, days * 86_400 * 10**9 + parts["nanos"], 0)
        columns[i] = pa.array(ns, type=pa.duration("ns"), mask=~valid)
    return pa.table(columns, names=table.column_names)


def exact_floats(column: Any) -> Any:
    """A DECIMAL column (a narwhals Series) as float64 numpy values, each the nearest double to the
    decimal (missing values NaN). pyarrow's own decimal-to-double cast is off by one unit in the last
    place for about a third of DECIMAL(5, 4) values (it multiplies by a rounded power of ten), which
    moves a score on a bin edge into the next bin; the decimal's text, parsed, is exact (as DuckDB's,
    polars' and Python's conversions are)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arrow = pa.chunked_array([column.to_arrow()]) if not isinstance(column, pa.ChunkedArray) else column
    from ._arrow_numpy import to_numpy

    return to_numpy(pc.cast(pc.cast(arrow, pa.string()), pa.float64()))
