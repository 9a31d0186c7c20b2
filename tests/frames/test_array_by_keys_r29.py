"""The array form's ``by=`` names slices as the frame form does (round 29).

* integer keys with missing values (pandas ``Int64``/``UInt8``/``int64[pyarrow]``, polars integers with
  nulls, an Arrow integer or dictionary-of-integers array with nulls) went through ``to_numpy()``, which
  makes them floats: ``vc.audit(p, y, by=keys)`` named the slices ``'0.0'``, ``'1.0'`` where
  ``vc.audit(frame, ..., by='g')`` says ``'0'``, ``'1'``;
* a pyarrow array with nulls as ``by=`` was refused ("by has 20 missing (null) values") where pandas,
  polars and every frame route make the ``(missing)`` slice;
* zone-aware Arrow and polars times lost their zone (``2024-01-01 00:00:00``, where the frame routes say
  ``2024-01-01 00:00:00+00:00``);
* a pandas frame whose ``by`` column has a fixed-offset zone (``datetime64[ns, UTC+09:00]``) raised a raw
  ``UnknownTimeZoneError: 'UTC+09:00'``.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

N = 90
RAW = [0, 1, None] * (N // 3)
INTS = ["0", "1", "(missing)"]
UTC = dt.timezone.utc
TIMES = [dt.datetime(2024, 1, 1, 9, tzinfo=UTC), dt.datetime(2024, 1, 2, tzinfo=UTC), None] * (N // 3)
ZONED = ["2024-01-01 09:00:00+00:00", "2024-01-02 00:00:00+00:00", "(missing)"]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(29)
    p = rng.uniform(0.05, 0.95, N)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    return p, y


KEYS = {
    "pandas Int64": (lambda: pd.Series(RAW, dtype="Int64"), INTS),
    "pandas UInt8": (lambda: pd.Series(RAW, dtype="UInt8"), INTS),
    "pandas int64[pyarrow]": (lambda: pd.Series(RAW, dtype="int64[pyarrow]"), INTS),
    "polars Int64": (lambda: pl.Series(RAW, dtype=pl.Int64), INTS),
    "polars UInt8": (lambda: pl.Series(RAW, dtype=pl.UInt8), INTS),
    "arrow int64": (lambda: pa.array(RAW, pa.int64()), INTS),
    "arrow uint8": (lambda: pa.array(RAW, pa.uint8()), INTS),
    "arrow chunked int32": (lambda: pa.chunked_array([RAW[:30], RAW[30:]], pa.int32()), INTS),
    "arrow dictionary of ints": (lambda: pa.array([5, 7, None] * (N // 3)).dictionary_encode(),
                                 ["5", "7", "(missing)"]),
    "arrow text": (lambda: pa.array(["a", "b", None] * (N // 3)), ["a", "b", "(missing)"]),
    "arrow bool": (lambda: pa.array([True, False, None] * (N // 3)), ["False", "True", "(missing)"]),
    "arrow float32": (lambda: pa.array([0.1, 0.2, None] * (N // 3), pa.float32()),
                      ["0.1", "0.2", "(missing)"]),
    "arrow zoned time": (lambda: pa.array(TIMES, pa.timestamp("us", tz="UTC")), ZONED),
    "polars zoned time": (lambda: pl.Series(TIMES, dtype=pl.Datetime("us", "UTC")), ZONED),
}


def frame_of(p, y, keys):
    if isinstance(keys, pd.Series):
        return pd.DataFrame({"p": p, "y": y, "g": keys})
    if isinstance(keys, pl.Series):
        return pl.DataFrame({"p": p, "y": y, "g": keys})
    return pa.table({"p": p, "y": y, "g": keys})


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_array_and_frame_forms_name_the_slices_alike(rows, kind):
    p, y = rows
    make, expected = KEYS[kind]
    array = vc.audit(p, y, by=make())
    frame = vc.audit(frame_of(p, y, make()), score="p", label="y", by="g")
    assert list(array.groups) == expected
    assert list(frame.groups) == expected
    for name in expected:  # the same rows in each slice
        assert array.groups[name].n == frame.groups[name].n == N // 3
        assert array.groups[name].ece == frame.groups[name].ece


def test_integer_keys_without_missing_values_are_unchanged(rows):
    p, y = rows
    keys = pd.Series([0, 1, 2] * (N // 3), dtype="Int64")
    assert list(vc.audit(p, y, by=keys).groups) == ["0", "1", "2"]


def test_a_pandas_frame_with_a_fixed_offset_zone(rows):
    p, y = rows
    tokyo = dt.timezone(dt.timedelta(hours=9))
    stamps = pd.Series(pd.to_datetime([dt.datetime(2024, 1, 1, 9, tzinfo=tokyo), None,
                                       dt.datetime(2024, 1, 2, tzinfo=tokyo)] * (N // 3)))
    assert str(stamps.dtype) == "datetime64[ns, UTC+09:00]"
    frame = pd.DataFrame({"p": p, "y": y, "g": stamps})
    expected = ["2024-01-01 00:00:00+00:00", "2024-01-01 15:00:00+00:00", "(missing)"]
    assert list(vc.audit(frame, score="p", label="y", by="g").groups) == expected
    assert list(vc.audit(p, y, by=stamps).groups) == expected


@pytest.mark.parametrize("make", [lambda: pd.DataFrame({"g": [0, 1, 2] * (N // 3)}),
                                  lambda: pl.DataFrame({"g": [0, 1, None] * (N // 3)})], ids=["pandas", "polars"])
def test_a_frame_as_by_names_its_shape(rows, make):
    p, y = rows
    with pytest.raises(vc.VeracityError, match=rf"^by must hold one group key per row: got shape \({N}, 1\) "
                                               rf"\(pass one column\) for {N} rows$"):
        vc.audit(p, y, by=make())
