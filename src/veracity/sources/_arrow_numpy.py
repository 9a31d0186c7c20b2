"""Arrow columns as numpy arrays without importing pandas.

pyarrow's own conversions (``Array.to_numpy``, ``ChunkedArray.to_numpy``, ``np.asarray(array)``,
``pa.array(numpy_array)``) import pandas on first use (pyarrow looks for pandas objects), about half a
second of every command line run that never needs pandas. The common column types are read here from
their Arrow buffers (the public ``Array.buffers()``): a fixed-width number is a view of its data buffer
(``np.frombuffer``; an instant is the int64 count of its unit), a boolean or a validity bitmap is
unpacked least significant bit first (``np.unpackbits(..., bitorder="little")``), both from the array's
``offset``. Text is dictionary encoded (``pyarrow.compute``) and its distinct strings indexed. The
result equals ``to_numpy(zero_copy_only=False)`` value for value, dtype for dtype, writability included:

* numbers without nulls: the same dtype (a read-only view for one chunk, as pyarrow's);
* integers with nulls: float64 with NaN at the nulls; floats with nulls: the same dtype, NaN there;
* booleans: ``bool``; with nulls an ``object`` array of ``True``, ``False`` and ``None``;
* text (string, large_string, binary, large_binary): an ``object`` array of ``str`` (``bytes``),
  ``None`` at the nulls;
* timestamps (their UTC instants, the zone dropped), dates and durations: ``datetime64`` /
  ``timedelta64`` of their unit (days for date32, milliseconds for date64), NaT at the nulls.

Every other type (times of day, decimals, dictionaries, nested, null) goes to pyarrow's conversion.
The way back, :func:`from_numpy`, wraps a numpy array of numbers or flags in an Arrow array from its
memory (``pa.Array.from_buffers``), as ``pa.array`` does, which imports pandas too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["from_numpy", "is_missing", "series_floats", "series_to_numpy", "to_numpy"]

#: the NaN pyarrow writes at a float16 null (0x7fff; numpy's own float16 NaN is 0x7e00)
_HALF_NAN = np.array([0x7FFF], dtype=np.uint16).view(np.float16)[0]


def to_numpy(values: Any) -> np.ndarray:
    """A ``pyarrow.Array`` or ``pyarrow.ChunkedArray`` as numpy, as ``values.to_numpy(zero_copy_only=False)``
    gives it (see the module's docstring), without importing pandas for the types read here."""
    import pyarrow as pa

    if not _handled(values.type):
        return values.to_numpy(zero_copy_only=False)
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:  # a view for numbers and instants without nulls, as pyarrow's (read-only)
            return to_numpy(values.chunk(0))
        chunks = [c for c in values.chunks if len(c)]
        if not chunks:
            return _empty(values.type)
        if len(chunks) == 1:
            return _writable(_array(chunks[0]))
        return np.concatenate([_array(c) for c in chunks])
    if not len(values):
        empty = _empty(values.type)
        fixed = _storage(values.type)
        empty.flags.writeable = fixed is None or not fixed[2]  # pyarrow's empty view (numbers, instants)
        return empty
    return _array(values)


def is_missing(values: Any) -> np.ndarray:
    """``True`` where ``values`` (an Array or ChunkedArray) is null: ``values.is_null()`` as a numpy
    bool array (NaN is not null here, as in Arrow)."""
    return np.asarray(to_numpy(values.is_null()), dtype=bool)


def series_to_numpy(series: Any) -> np.ndarray:
    """A narwhals Series as numpy: an Arrow-backed one by :func:`to_numpy`, any other by its own
    ``to_numpy()`` (what narwhals' Arrow series gives: ``ChunkedArray.to_numpy()``)."""
    import sys

    pa = sys.modules.get("pyarrow")
    native = series.to_native()
    if pa is not None and isinstance(native, (pa.ChunkedArray, pa.Array)):
        return to_numpy(native)
    return np.asarray(series.to_numpy())


def series_floats(series: Any) -> np.ndarray:
    """A narwhals Series as float64 numpy: a DECIMAL one (DuckDB's sums of integers) as the nearest
    double of each value (:func:`._source.exact_floats`, what ``float()`` makes of the ``Decimal``
    objects pyarrow's ``to_numpy`` hands back), NaN where missing; any other by :func:`series_to_numpy`."""
    from ._source import _is_decimal, exact_floats

    if _is_decimal(series.dtype):
        return np.asarray(exact_floats(series), dtype=np.float64)
    return np.asarray(series_to_numpy(series), dtype=np.float64)


def from_numpy(values: np.ndarray) -> Any:
    """A 1-D numpy array as a ``pyarrow.Array``, as ``pa.array(values)`` makes it (no nulls; a NaN is a
    value): numbers of a fixed width share ``values``' memory (a copy when it is strided or not in
    native byte order), flags are packed to a bitmap (least significant bit first). Any other dtype
    or shape goes to ``pa.array``."""
    import pyarrow as pa

    if values.ndim != 1 or values.dtype.kind not in "biuf":
        return pa.array(values)
    kind = pa.from_numpy_dtype(values.dtype)
    if values.dtype.kind == "b":
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
    else:
        data = pa.py_buffer(np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("=")))
    return pa.Array.from_buffers(kind, len(values), [None, data])


def _handled(kind: Any) -> bool:
    import pyarrow as pa

    return bool(_storage(kind) is not None or pa.types.is_boolean(kind) or _text(kind))


def _storage(kind: Any) -> tuple[np.dtype, np.dtype, bool] | None:
    """A fixed-width type's ``(buffer dtype, result dtype, whether pyarrow hands back a view)``, or None.

    Numbers are their own; a timestamp (any zone: its UTC instants) and a duration are int64 of their
    unit; a date32 counts days (int32, widened), a date64 milliseconds (copied, as pyarrow copies)."""
    import pyarrow as pa

    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        dtype = np.dtype(kind.to_pandas_dtype())
        return dtype, dtype, True
    if pa.types.is_timestamp(kind):
        return np.dtype(np.int64), np.dtype(f"datetime64[{kind.unit}]"), True
    if pa.types.is_duration(kind):
        return np.dtype(np.int64), np.dtype(f"timedelta64[{kind.unit}]"), True
    if pa.types.is_date32(kind):
        return np.dtype(np.int32), np.dtype("datetime64[D]"), False
    if pa.types.is_date64(kind):
        return np.dtype(np.int64), np.dtype("datetime64[ms]"), False
    return None


def _text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
                or pa.types.is_large_binary(kind))


def _empty(kind: Any) -> np.ndarray:
    import pyarrow as pa

    if pa.types.is_boolean(kind):
        return np.empty(0, dtype=bool)
    fixed = _storage(kind)
    return np.empty(0, dtype=object if fixed is None else fixed[1])


def _writable(a: np.ndarray) -> np.ndarray:
    return a if a.flags.writeable else a.copy()


def _bits(buffer: Any, offset: int, n: int) -> np.ndarray:
    """Bits ``offset .. offset + n`` of an Arrow bitmap (least significant bit first) as bools."""
    first, last = offset // 8, (offset + n + 7) // 8
    raw = np.frombuffer(buffer, dtype=np.uint8, count=last - first, offset=first)
    return np.unpackbits(raw, bitorder="little")[offset % 8: offset % 8 + n].view(bool)


def _valid(array: Any) -> np.ndarray | None:
    """Where ``array`` holds a value (its validity bitmap), or ``None`` when it has no nulls."""
    if array.null_count == 0:
        return None
    return _bits(array.buffers()[0], array.offset, len(array))


def _array(array: Any) -> np.ndarray:
    """One non-empty chunk as numpy (a view of its data buffer for numbers and instants without nulls)."""
    import pyarrow as pa

    kind, n = array.type, len(array)
    if _text(kind):
        return _strings(array)
    valid = _valid(array)
    if pa.types.is_boolean(kind):
        flags = _bits(array.buffers()[1], array.offset, n)
        if valid is None:
            return flags
        out = flags.astype(object)
        out[~valid] = None
        return out
    fixed = _storage(kind)
    if fixed is None:  # not reached: to_numpy() sends the other types to pyarrow
        return array.to_numpy(zero_copy_only=False)
    stored, dtype, view = fixed
    data = np.frombuffer(array.buffers()[1], dtype=stored, count=n, offset=array.offset * stored.itemsize)
    if valid is None and view:
        data = data.view(dtype)
        data.flags.writeable = False  # Arrow's memory: read-only, as pyarrow's view (even if writable)
        return data
    if dtype.kind in "mM":  # instants and durations: NaT at the nulls
        out = data.astype(np.int64).view(dtype)
        if valid is not None:
            out[~valid] = np.datetime64("NaT") if dtype.kind == "M" else np.timedelta64("NaT")
        return out
    out = data.astype(dtype if dtype.kind == "f" else np.float64)  # with nulls (else a view)
    if valid is not None:
        out[~valid] = _HALF_NAN if dtype == np.float16 else np.nan
    return out


def _strings(array: Any) -> np.ndarray:
    """A text chunk as an object array: its distinct values (``to_pylist``) taken at its dictionary
    indices, ``None`` at the nulls."""
    encoded = array.dictionary_encode()
    words = np.empty(len(encoded.dictionary), dtype=object)
    words[:] = encoded.dictionary.to_pylist()
    indices = encoded.indices
    valid = _valid(indices)
    if not len(words):
        return np.full(len(array), None, dtype=object)
    codes = np.frombuffer(indices.buffers()[1], dtype=np.int32, count=len(indices), offset=indices.offset * 4)
    out = words[np.where(valid, codes, 0) if valid is not None else codes]
    if valid is not None:
        out[~valid] = None
    return out
