"""The one order and the one name of slice keys on every route (memory, frames, files, Dask, Spark,
SQL, model comparison, the monitoring store).

Engine-free, so the core orders ``by=`` slices exactly as the engines do: keys sorted by value
(``9`` before ``10``), as text only when they do not compare (``1`` beside ``'a'``), and the missing
key last. Each slice is named :func:`key_name` of its key, whichever route handed the key back.

A missing key is one key on every route (:func:`is_missing`): SQL's NULL, a frame's null, None, NaN
(pandas, Dask and a numpy float array cannot tell NaN from a missing value, so no route may), NaT and
pandas' ``NA``. Its slice is named :data:`MISSING_NAME`, ``(missing)``, as ``veracity monitor status``
names the rows logged without a slice value; a real key spelt ``(missing)`` beside a missing one is
refused (:func:`refuse_shared_names`), so the text ``'None'`` or ``'nan'`` is just a key.
"""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any

import numpy as np

#: the name of the missing key's slice on every route (None, NaN, NaT, NA, SQL's NULL): the name
#: ``veracity monitor status`` gives the rows logged without a slice value
MISSING_NAME = "(missing)"


def is_missing(key: Any) -> bool:
    """Whether ``key`` is the missing key: None, a NaN (Python, numpy, ``decimal.Decimal`` -- what a
    NUMERIC column read from a database holds), NaT (numpy, pandas) or pandas' ``NA``. One slice,
    :data:`MISSING_NAME`, on every route.

    >>> [is_missing(k) for k in (None, float("nan"), np.datetime64("NaT"), decimal.Decimal("NaN"), 0.0, "None", "nan")]
    [True, True, True, True, False, False, False]
    """
    if key is None:
        return True
    if isinstance(key, (float, np.floating)):
        return bool(key != key)
    if isinstance(key, decimal.Decimal):
        return key.is_nan()  # quiet and signalling NaN; comparing one raises or is False
    if isinstance(key, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(key))
    return type(key).__name__ in ("NaTType", "NAType")  # pandas' NaT and NA, without importing pandas


def key_rank(keys: list[Any]) -> list[int]:
    """Positions of ``keys`` in slice order (see :func:`key_order`); ties keep their given order."""
    gaps = [is_missing(k) for k in keys]
    present = [i for i, gap in enumerate(gaps) if not gap]
    try:
        present.sort(key=lambda i: keys[i])
    except TypeError:  # values that do not compare (1 beside 'a'): as text
        present.sort(key=lambda i: str(keys[i]))
    return present + [i for i, gap in enumerate(gaps) if gap]


def key_order(keys: list[Any]) -> list[Any]:
    """Slice keys sorted (by value, or as text when they do not compare), the missing key
    (:func:`is_missing`: None, NaN, NaT) last: the one order of slices on every backend (frames,
    SQL, model comparison, arrays in memory).

    >>> key_order([10, None, 9, 2])
    [2, 9, 10, None]
    >>> key_order(["b", 1, "a"])
    [1, 'a', 'b']
    """
    return [keys[i] for i in key_rank(keys)]


#: the Python values a binary (BLOB, BYTEA, Arrow binary) key comes back as: drivers differ
_BYTES = (bytes, bytearray, memoryview, np.bytes_)


def same_key(key: Any) -> Any:
    """A slice key as one Python value whichever engine handed it back: ``-0.0`` as ``0.0`` (one
    value: SQL's GROUP BY and ``np.unique`` put both in one slice), a ``bytearray``/``memoryview``
    (Spark, psycopg2) as ``bytes``, any NaN as None (the missing key, :func:`is_missing`). Other keys
    are returned as given.

    >>> same_key(-0.0), same_key(bytearray(b"ab")), same_key(float("nan"))
    (0.0, b'ab', None)
    """
    if isinstance(key, (float, np.floating)):
        return None if key != key else key + 0.0  # -0.0 + 0.0 == +0.0; every other value unchanged
    if isinstance(key, (bytearray, memoryview)):
        return bytes(key)
    return key


def duration_name(ns: int) -> str:
    """A duration of ``ns`` nanoseconds as a slice name, whatever object carried it (``numpy.timedelta64``
    in any unit, ``datetime.timedelta``, a pandas ``Timedelta``): ``D days HH:MM:SS`` with six decimals
    when it has microseconds, nine when it has nanoseconds (pandas' spelling of a non-negative
    ``Timedelta``); a negative one is its magnitude after a ``-``.

    >>> duration_name(1), duration_name(90_000_000_000_000), duration_name(-1_000)
    ('0 days 00:00:00.000000001', '1 days 01:00:00', '-0 days 00:00:00.000001')
    """
    sign = "-" if ns < 0 else ""
    days, rest = divmod(abs(int(ns)), 86_400 * 10**9)
    seconds, fraction = divmod(rest, 10**9)
    hours, rest_s = divmod(seconds, 3600)
    minutes, secs = divmod(rest_s, 60)
    text = f"{sign}{days} days {hours:02d}:{minutes:02d}:{secs:02d}"
    if fraction:
        text += f".{fraction:09d}" if fraction % 1000 else f".{fraction // 1000:06d}"
    return text


#: nanoseconds in one count of each fixed-length numpy ``timedelta64`` unit
_NS_PER = {"W": 604_800 * 10**9, "D": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9,
           "ms": 10**6, "us": 1000, "ns": 1}


def duration_ns(key: Any) -> int | None:
    """The nanoseconds of a duration key (None: not a duration, or NaT), exact as a Python int: a
    ``timedelta64[s]`` of 10**10 seconds (317 years, beyond int64 nanoseconds) is
    ``10**10 * 10**9``, where numpy's cast to nanoseconds wrapped it to -97763 days, silently, and a
    pandas ``Timedelta`` in seconds raised OverflowError.

    >>> duration_ns(np.timedelta64(10**10, "s")) == 10**19, duration_ns(np.timedelta64(3, "ms"))
    (True, 3000000)
    """
    if isinstance(key, np.timedelta64):
        if np.isnat(key):
            return None
        unit, count = np.datetime_data(key.dtype)
        if unit in _NS_PER:  # the count of units times the unit's nanoseconds, in Python's unbounded ints
            return int(key.astype(np.int64)) * int(count) * _NS_PER[unit]
        return int(key.astype("timedelta64[ns]").astype(np.int64))  # pragma: no cover - months, years, ps
    if isinstance(key, _dt.timedelta):
        exact = getattr(key, "asm8", None)  # a pandas Timedelta: its numpy value, in its own unit
        if isinstance(exact, np.timedelta64):
            return duration_ns(exact)
        return ((key.days * 86_400 + key.seconds) * 10**6 + key.microseconds) * 1000
    return None


def key_name(key: Any) -> str:
    r"""The name of the slice of ``key``: one spelling on every route. ``str(key)``, except where
    routes hand the same value back as different Python objects:

    * a zone-aware time is named by its instant in UTC, with the offset written: ``2024-01-01
      00:00:00+00:00`` for ``2024-01-01 09:00:00+09:00`` (``Asia/Tokyo``). DuckDB's TIMESTAMPTZ,
      Spark's TIMESTAMP and a Parquet file read by DuckDB keep the instant, not the column's zone
      (and DuckDB would show it in its session's zone, Spark in its own): only UTC is the same
      everywhere. The offset stays, so the name reads as the instant it is, not a local time;
      a time without a zone is named as it is (``2024-01-01 09:00:00``);
    * ``-0.0`` is ``0.0`` (and a DECIMAL ``-0`` is ``0``): one value, one slice (:func:`same_key`);
    * bytes (a BLOB / BYTEA / binary column; also as ``bytearray`` or ``memoryview``) are named by
      Python's literal, ``b'\x00\x01'``: total (invalid UTF-8 too), and never the name of the text
      ``'1'`` for the bytes ``b'1'``;
    * a duration (``numpy.timedelta64`` in any unit, ``datetime.timedelta``, pandas ``Timedelta``) is
      named by :func:`duration_name`: ``0 days 00:00:00.000000001`` on every route (numpy printed
      ``1 nanoseconds``, Python's timedelta ``0:00:00``);
    * the missing key (:func:`is_missing`: None, NaN, NaT, NA; SQL's NULL) is :data:`MISSING_NAME`,
      ``(missing)``: one slice, named alike on every route (``str`` gave ``None``, ``nan``, ``NaT``,
      ``<NA>``: a float column's NaN and null were two slices on polars, Arrow and DuckDB).

    >>> import datetime as dt
    >>> key_name(dt.datetime(2024, 1, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=9))))
    '2024-01-01 00:00:00+00:00'
    >>> key_name(-0.0), key_name(bytearray(b"\x00ab")), key_name(None), key_name(float("nan")), key_name(9)
    ('0.0', "b'\\x00ab'", '(missing)', '(missing)', '9')
    """
    kind = type(key)
    if kind is str or kind is int:  # the common keys first
        return str(key)
    if is_missing(key):
        return MISSING_NAME
    if isinstance(key, _dt.datetime) and key.tzinfo is not None and key.utcoffset() is not None:
        return str(key.astimezone(_dt.timezone.utc))  # a pandas Timestamp keeps its nanoseconds
    if isinstance(key, _BYTES):
        return str(bytes(key))
    if isinstance(key, (_dt.timedelta, np.timedelta64)):
        ns = duration_ns(key)
        return MISSING_NAME if ns is None else duration_name(ns)
    if isinstance(key, decimal.Decimal) and key.is_zero():
        return str(abs(key))
    return str(same_key(key))


def _row_name(key: Any) -> str:
    if isinstance(key, (list, tuple, np.ndarray, dict, set)):
        from ._validation import VeracityError

        raise VeracityError(f"slice keys must be plain values (text, numbers, booleans), one per row; found "
                            f"{type(key).__name__} values such as {str(key)[:40]}; pass one key per row",
                            param="by")
    return key_name(key)


_NAME = np.frompyfunc(_row_name, 1, 1)


def key_names(keys: np.ndarray) -> np.ndarray:
    """:func:`key_name` of each of an object array's keys, as a text array: one name per distinct
    ``(type, key)`` (``1`` and ``True`` stay two keys), then one lookup per row. A list or an array as
    a row's key is refused in one line."""
    if not keys.size:
        return np.zeros(0, dtype=str)
    rows = keys.tolist()
    typed = list(zip(map(type, rows), rows))
    try:
        index = {k: i for i, k in enumerate(dict.fromkeys(typed))}
        codes = np.fromiter(map(index.__getitem__, typed), dtype=np.intp, count=len(typed))
    except TypeError:  # an unhashable key (a list per row): named row by row, which refuses it
        with np.errstate(invalid="ignore"):
            return np.asarray(_NAME(keys), dtype=object).astype(str)
    distinct = [key for _, key in index]
    names = np.array([_row_name(key) for key in distinct], dtype=str)
    if np.unique(names).size < names.size:  # two keys of one name (1 and '1'): one slice in memory, refused
        refuse_shared_names(distinct, names.tolist())
    return names[codes]


def same_named(a: Any, b: Any) -> bool:
    """Whether two keys that share a name are one key: equal values (``1`` and ``numpy.int64(1)``,
    ``1.0`` and ``numpy.float64(1.0)``, ``-0.0`` and ``0.0``) or two missing keys (None, NaN, NaT:
    :func:`is_missing`); ``1`` and ``'1'``, or None and ``'(missing)'``, are two keys."""
    if is_missing(a) or is_missing(b):
        return is_missing(a) and is_missing(b)
    try:
        return bool(a is b or a == b)
    except (TypeError, ValueError):  # pragma: no cover - a key whose == does not give one truth value
        return False


def refuse_shared_names(keys: list[Any], names: list[str] | None = None) -> None:
    """Refuse two different keys with one name (:func:`key_name`; ``names``: theirs, when known): the
    key ``1`` and the text ``'1'``, a missing key and the text ``'(missing)'``. Every route names a slice by
    its key's text, so they would be one slice in memory (their rows merged, silently) and one would
    overwrite the other elsewhere; SQL refuses them. Equal keys of different types
    (:func:`same_named`) are one key. One pass over the distinct keys, not the rows."""
    from ._validation import VeracityError

    seen: dict[str, Any] = {}
    for key, name in zip(keys, names if names is not None else map(key_name, keys)):
        if name in seen and not same_named(seen[name], key):
            raise VeracityError(
                f"two slice keys, {seen[name]!r} and {key!r}, are both named {name!r}; make them distinct "
                "first (fill the missing keys, e.g. with 'missing', or cast the column to one type)",
                param="by")
        seen.setdefault(name, key)


def array_keys(by: Any, name: str = "by") -> np.ndarray:
    """Array-form slice keys (a numpy array, a list, a pandas or polars Series, a pyarrow array) as a
    numpy array named as the frame form names the same column (``sources._api``'s ``slice_keys``):

    * integer keys with missing values stay integers: a Python int per present row, None per missing
      one (``to_numpy()`` makes a nullable integer column floats, whose slices were ``0.0``, ``1.0``
      where every frame route says ``0``, ``1``);
    * a pyarrow array's nulls are the missing key, the slice :data:`MISSING_NAME`, as a frame's nulls
      are (they were refused: "by has N missing (null) values");
    * zone-aware times (a pyarrow timestamp or a polars Datetime with a time zone) are named by their
      instant in UTC with the offset written, as :func:`key_name` names them on the frame routes
      (``to_numpy()`` dropped the zone: ``2024-01-01 00:00:00`` where a frame says ``... +00:00``).

    Anything else is :func:`veracity.core._validation.to_numpy` of ``by``.
    """
    from ._validation import to_numpy

    module = type(by).__module__ or ""
    if module.startswith(("pyarrow", "polars")) and not hasattr(by, "column_names") and _zoned(by):
        arrow = by.to_arrow() if module.startswith("polars") else by
        return _utc_times(np.asarray(arrow.to_numpy(zero_copy_only=False)))  # UTC instants, NaT at nulls
    if module.startswith("pyarrow") and not hasattr(by, "column_names") and getattr(by, "null_count", None):
        return _arrow_keys(by)
    kind = getattr(by, "dtype", None)  # a Series' (a frame has dtypes)
    if module.startswith("pandas") and hasattr(by, "isna") and getattr(kind, "kind", None) in ("i", "u"):
        missing = np.asarray(by.isna(), dtype=bool)
        if missing.any():
            return _with_missing(np.asarray(by.fillna(0).to_numpy()), missing)
    if module.startswith("polars") and hasattr(by, "is_null") and kind is not None and kind.is_integer() \
            and by.null_count():
        missing = np.asarray(by.is_null().to_numpy(), dtype=bool)
        return _with_missing(np.asarray(by.fill_null(0).to_numpy()), missing)
    return to_numpy(by, name)


def _with_missing(values: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """``values`` as Python objects with None where ``missing``: integers stay integers."""
    keys = values.astype(object)
    keys[missing] = None
    return keys


def _arrow_keys(by: Any) -> np.ndarray:
    """A pyarrow array (or chunked array) with nulls as keys: integers as :func:`_with_missing` keeps them,
    floats and times with NaN / NaT at the nulls (the missing key, as :func:`is_missing` reads them), any
    other type as objects with None at the nulls."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(by.type):  # categories of integers: the integers, as a frame reads them
        by = by.cast(by.type.value_type)
    missing = np.asarray(by.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if pa.types.is_integer(by.type):
        return _with_missing(np.asarray(pc.fill_null(by, 0).to_numpy(zero_copy_only=False)), missing)
    values = np.asarray(by.to_numpy(zero_copy_only=False))
    return values if values.dtype.kind in "fmM" else _with_missing(values, missing)


def _zoned(by: Any) -> bool:
    """Whether a pyarrow array (its type's ``tz``) or a polars Series (its dtype's ``time_zone``) holds
    zone-aware times."""
    if hasattr(by, "type"):
        return bool(getattr(by.type, "tz", None))
    return bool(getattr(getattr(by, "dtype", None), "time_zone", None))


def _utc_times(values: np.ndarray) -> np.ndarray:
    """``datetime64`` UTC instants (a zoned column's ``to_numpy()``) as zone-aware keys in UTC, one
    conversion per distinct key: ``datetime`` objects, pandas ``Timestamp`` objects where a key has
    nanoseconds (through Arrow, as the frame routes convert them); NaT as None (the missing key)."""
    import pyarrow as pa

    unit = np.datetime_data(values.dtype)[0]
    unit = unit if unit in ("s", "ms", "us", "ns") else "ns"
    distinct, inverse = np.unique(values.astype(f"datetime64[{unit}]"), return_inverse=True)
    stamps = pa.array(distinct, pa.timestamp(unit), from_pandas=True).cast(pa.timestamp(unit, tz="UTC"))
    keys = np.empty(len(distinct), dtype=object)
    keys[:] = stamps.to_pylist()
    return keys[inverse.reshape(-1)]
