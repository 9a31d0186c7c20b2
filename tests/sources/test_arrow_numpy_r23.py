"""veracity.sources._arrow_numpy: Arrow columns to numpy from their buffers, without pandas.

The oracle is pyarrow's own conversion, ``to_numpy(zero_copy_only=False)``: the same dtype,
shape, writability and values (floats bit for bit, objects by type and value) over every
handled type, with nulls, chunking (none, empty chunks, several) and slices (offsets that
are not a multiple of 8, where a bitmap's first bit is inside a byte).
"""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from veracity.sources._arrow_numpy import from_numpy, is_missing, to_numpy

NUMBERS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
           pa.float16(), pa.float32(), pa.float64()]
TEXT = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
TIMES = [pa.timestamp("s"), pa.timestamp("ms", tz="UTC"), pa.timestamp("us", tz="Europe/Paris"), pa.timestamp("ns"),
         pa.date32(), pa.date64(), pa.duration("us"), pa.duration("s")]


def _values(kind: pa.DataType) -> st.SearchStrategy:
    if pa.types.is_boolean(kind):
        return st.booleans()
    if kind in TIMES:
        return st.integers(-10**6, 10**6)
    if pa.types.is_integer(kind):
        info = np.iinfo(kind.to_pandas_dtype())
        return st.integers(int(info.min), int(info.max))
    if pa.types.is_floating(kind):
        return st.floats(width=kind.bit_width)
    text = st.text(alphabet="abé ", max_size=3)
    return text if pa.types.is_string(kind) or pa.types.is_large_string(kind) else text.map(str.encode)


@st.composite
def arrow_columns(draw: st.DrawFn) -> pa.Array | pa.ChunkedArray:
    """An Array or ChunkedArray of a handled type, with nulls, chunks and a slice drawn."""
    kind = draw(st.sampled_from([*NUMBERS, pa.bool_(), *TEXT, *TIMES]))
    values = draw(st.lists(st.none() | _values(kind), max_size=40))
    if kind in TIMES:  # their integer counts (date64: whole days of milliseconds, as Arrow requires)
        scale = 86_400_000 if pa.types.is_date64(kind) else 1
        counts = pa.array([None if v is None else v * scale for v in values], type=pa.int64())
        array = counts.cast(pa.int32()).view(kind) if pa.types.is_date32(kind) else counts.view(kind)
    elif pa.types.is_floating(kind) or pa.types.is_integer(kind):  # from numpy: float16 has no Python form
        dtype = kind.to_pandas_dtype()
        data = np.array([0 if v is None else v for v in values], dtype=dtype)
        array = pa.array(data, type=kind, mask=np.array([v is None for v in values], dtype=bool))
    else:
        array = pa.array(values, type=kind)
    if draw(st.booleans()):
        cuts = sorted(draw(st.lists(st.integers(0, len(array)), max_size=4)))
        bounds = [0, *cuts, len(array)]
        column = pa.chunked_array([array.slice(a, b - a) for a, b in zip(bounds, bounds[1:])], type=kind)
        if draw(st.booleans()):
            column = pa.chunked_array([], type=kind) if not len(array) else column
    else:
        column = array
    if draw(st.booleans()):
        start = draw(st.integers(0, len(column)))
        column = column.slice(start, draw(st.integers(0, len(column) - start)))
    return column


def _oracle(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return column.to_numpy(zero_copy_only=False) if isinstance(column, pa.Array) else column.to_numpy()


def assert_same(mine: np.ndarray, ref: np.ndarray) -> None:
    assert (mine.dtype, mine.shape, mine.flags.writeable) == (ref.dtype, ref.shape, ref.flags.writeable)
    if ref.dtype == object:
        assert [(type(v), v) for v in mine] == [(type(v), v) for v in ref]
    elif ref.dtype.kind in "fmM":
        width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[ref.dtype.itemsize]
        assert np.array_equal(mine.view(width), ref.view(width))  # NaN (NaT) bits too
    else:
        assert np.array_equal(mine, ref)


@given(arrow_columns())
def test_equals_pyarrow(column: pa.Array | pa.ChunkedArray) -> None:
    assert_same(to_numpy(column), _oracle(column))
    assert np.array_equal(is_missing(column), _oracle(column.is_null()).astype(bool))


@pytest.mark.parametrize("column", [
    pa.chunked_array([], type=pa.float64()),
    pa.chunked_array([pa.array([], pa.int16())] * 2),
    pa.array([], pa.uint8()),
    pa.nulls(9, pa.int64()), pa.nulls(9, pa.bool_()), pa.nulls(9, pa.string()),
    pa.array([True, None, False] * 7).slice(5, 11),
    pa.chunked_array([pa.array([1.5, None, 3.0]).slice(1), pa.array([], pa.float64()), pa.array([4.0])]),
], ids=["no-chunks", "empty-chunks", "empty", "int-nulls", "bool-nulls", "text-nulls", "bool-offset",
        "chunks-offset"])
def test_edges(column: pa.Array | pa.ChunkedArray) -> None:
    assert_same(to_numpy(column), _oracle(column))


@pytest.mark.parametrize("column", [
    pa.array([0, None, 20000], type=pa.time32("s")), pa.array([1, None], type=pa.decimal128(5, 2)),
    pa.array(["a", None, "a"]).dictionary_encode(), pa.nulls(3)])
def test_other_types_are_pyarrows(column: pa.Array) -> None:
    """A type not read here goes to pyarrow's conversion, unchanged."""
    assert_same(to_numpy(column), _oracle(column))


def test_no_pandas() -> None:
    """Every handled type, with nulls, read from a CSV and converted: pandas is never imported."""
    code = (
        "import io, sys, pyarrow.csv as c\n"
        "from veracity.sources._arrow_numpy import is_missing, to_numpy\n"
        "t = c.read_csv(io.BytesIO(b'i,f,b,s\\n1,0.5,true,x\\n,,,\\n3,2.5,false,y\\n'),\n"
        "               convert_options=c.ConvertOptions(strings_can_be_null=True))\n"
        "assert [str(t.schema.field(n).type) for n in 'ifbs'] == ['int64', 'double', 'bool', 'string']\n"
        "got = [to_numpy(t.column(n)) for n in 'ifbs'] + [is_missing(t.column(n)) for n in 'ifbs']\n"
        "got += [to_numpy(t.column(n).slice(1)) for n in 'ifbs']\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
        "print(got[3].tolist())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['x', None, 'y']"


@given(st.sampled_from([*NUMBERS, pa.bool_()]).flatmap(
    lambda kind: st.tuples(st.just(kind), st.lists(_values(kind), max_size=40), st.integers(1, 3))))
def test_from_numpy_equals_pyarrow(case: tuple) -> None:
    """from_numpy(x) holds what pa.array(x) holds: its type, no nulls, the same bits (strided input too)."""
    kind, values, step = case
    x = np.array(values, dtype=kind.to_pandas_dtype())[::step]
    mine, ref = from_numpy(x), pa.array(x)
    assert (mine.type, len(mine), mine.null_count) == (ref.type, len(ref), ref.null_count)
    assert_same(to_numpy(mine), to_numpy(ref))
