"""``pos_label`` on float32 / float16 label columns names the label the array form names (round 38, w3).

``vc.audit(p, y_float32, pos_label=0.1)`` compares as numpy does (0.1 rounded to float32: base rate 0.505),
while every frame route (pandas, polars eager and lazy, pyarrow, a DuckDB relation) refused it: "pos_label=0.1
is not among the values of column 'y' (labels) (0.10000000149011612, 0.20000000298023224)". A numpy scalar
was the other way round: ``np.float32(0.1)`` named the float64 label 0.1 on a frame (numpy's ``==`` rounded
the label), where the array form compares it exactly and names 0.10000000149011612 (labels 0.1 and
0.10000000149011612: the other class, silently). A pyarrow float16 label column raised pyarrow's
"Function 'array_sort_indices' has no kernel matching input types (halffloat)".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError

ROUTES = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb"]


def _rows(first: float, second: float, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=200)
    return p, np.where(rng.uniform(size=200) < p, first, second).astype(dtype)


def _frame(route: str, p: np.ndarray, y: np.ndarray) -> object:
    df = pd.DataFrame({"p": p, "y": y})
    if route == "pandas":
        return df
    if route in ("polars", "polars-lazy"):
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame({"p": p, "y": y})
        return frame.lazy() if route == "polars-lazy" else frame
    if route == "pyarrow":
        import pyarrow as pa

        return pa.table({"p": p, "y": y})
    duckdb = pytest.importorskip("duckdb")
    return duckdb.connect().from_df(df)


def _base_rate(data: object, pos_label: object) -> float | str:
    try:
        if isinstance(data, tuple):
            return vc.audit(*data, pos_label=pos_label).base_rate
        return vc.audit(data, score="p", label="y", pos_label=pos_label).base_rate
    except VeracityError as exc:
        return str(exc).split(" is not among")[0]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("pos_label", [0.1, np.float32(0.1), 0.2, np.float64(0.1), "0.1"])
def test_float32_labels_named_as_the_array_form_names_them(route, pos_label):
    p, y = _rows(0.1, 0.2, np.float32)
    want = _base_rate((p, y), pos_label)
    assert _base_rate(_frame(route, p, y), pos_label) == want
    if pos_label in (0.1, 0.2) and type(pos_label) is float:
        assert want == pytest.approx(0.505 if pos_label == 0.1 else 0.495)  # named (np.float64(0.1) is not)


@pytest.mark.parametrize("route", ROUTES)
def test_a_float32_scalar_is_compared_exactly_on_float64_labels(route):
    p, y = _rows(0.1, float(np.float32(0.1)), np.float64)  # 0.1 and 0.10000000149011612
    want = _base_rate((p, y), np.float32(0.1))
    assert want == pytest.approx(0.495)  # the label 0.10000000149011612
    assert _base_rate(_frame(route, p, y), np.float32(0.1)) == want
    p, y = _rows(0.1, 0.3, np.float64)
    assert _base_rate(_frame(route, p, y), np.float32(0.1)) == _base_rate((p, y), np.float32(0.1)) == (
        "pos_label=np.float32(0.1)")


@pytest.mark.parametrize("route", ["pandas", "polars", "pyarrow"])
def test_float16_labels(route):
    p, y = _rows(0.1, 0.5, np.float16)
    for pos_label in (np.float16(0.1), 0.1, 0.5):
        assert _base_rate(_frame(route, p, y), pos_label) == _base_rate((p, y), pos_label) == pytest.approx(
            0.495 if pos_label == 0.5 else 0.505)


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_decimal_labels_on_every_engine(engine, tmp_path):
    """A Parquet file of DECIMAL labels with ``--pos-label 0.1``: Dask read base rate 0 (every row a negative,
    silently: its literal ``Decimal('0.10')`` became the text '0.10'); every engine reads 0.505 now."""
    import decimal
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..conftest import run_cli

    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    p, y = _rows(0.1, 0.25, np.float64)
    labels = pa.array([decimal.Decimal(f"{v:.2f}") for v in y], pa.decimal128(5, 2))
    pq.write_table(pa.table({"p": p, "y": labels}), tmp_path / "dec.parquet")
    want = vc.audit(p, [decimal.Decimal(f"{v:.2f}") for v in y], pos_label="0.1").base_rate
    assert want == pytest.approx(0.505)
    for pos_label in ("0.1", "0.10"):
        got = run_cli(["audit", tmp_path / "dec.parquet", "--score", "p", "--label", "y",
                       "--pos-label", pos_label, "--engine", engine, "--json", "-"])
        assert got.code == 0, got.err
        assert json.loads(got.out)["base_rate"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_minus_zero_is_zero_on_an_arrow_table(dtype, tmp_path):
    """Labels 0.0, -0.0 and 1.0 are two values on every route (numpy, polars, DuckDB: -0.0 == 0.0); an Arrow
    table (and so the command line's memory engine) counted three and refused pos_label=0: "the labels take 3
    values (-0.0, 0.0, 1.0)"."""
    from ..conftest import run_cli

    p, y = _rows(1.0, 0.0, dtype)
    y[::7] = -0.0
    want = _base_rate((p, y), 0.0)
    assert want == pytest.approx(float(np.mean(y == 0)))
    for route in ROUTES:
        assert _base_rate(_frame(route, p, y), 0.0) == _base_rate(_frame(route, p, y), -0.0) == want, route
    rows = tmp_path / "rows.csv"
    rows.write_text("p,y\n0.2,-0.0\n0.3,0.0\n0.8,1.0\n0.6,1.0\n")
    got = run_cli(["audit", rows, "--score", "p", "--label", "y", "--pos-label", "0", "--json", "-"])
    assert got.code == 0, got.err


def test_hugeint_labels_on_a_duckdb_relation():
    """A DuckDB HUGEINT label column holding 2**127 - 1 and 2**127 - 2: its values came back as Decimals, and
    the 39-digit Decimal literal was a DOUBLE in DuckDB, equal to both: base rate 1.0 (every row a positive,
    silently) where the array form reads 0.505."""
    duckdb = pytest.importorskip("duckdb")
    p, y = _rows(1.0, 0.0, np.float64)
    top = 2**127 - 1
    df = pd.DataFrame({"p": p, "h": y == 1.0})
    relation = duckdb.connect().from_df(df).project(
        f"p, CASE WHEN h THEN {top}::HUGEINT ELSE {top - 1}::HUGEINT END AS y")
    labels = np.array([top if v == 1.0 else top - 1 for v in y], dtype=object)
    for pos_label, share in ((top, 0.505), (str(top), 0.505), (top - 1, 0.495)):
        assert _base_rate((p, labels), pos_label) == pytest.approx(share)
        assert _base_rate(relation, pos_label) == pytest.approx(share)


def test_dask_refuses_whole_numbers_past_uint64(tmp_path):
    """Labels 2**100 and 2**100 + 1 in a CSV: Dask typed the column as text from its sample and its pyarrow
    reader wrote both as '1.2676506002282294e+30' (one value), so ``--pos-label 1.2676506002282294e+30``
    audited every row a positive (base rate 1.0, silently); DuckDB reads them exactly (0.505). Refused now,
    as Dask's other whole numbers past int64 are."""
    pytest.importorskip("dask.dataframe")
    from ..conftest import assert_refused, run_cli

    p, y = _rows(1.0, 0.0, np.float64)
    rows = tmp_path / "big.csv"
    rows.write_text("p,y\n" + "".join(f"{float(a)!r},{2**100 + int(b)}\n" for a, b in zip(p, y)))
    args = ["audit", rows, "--score", "p", "--label", "y", "--pos-label"]
    exact = run_cli([*args, str(2**100 + 1), "--engine", "duckdb", "--json", "-"])
    assert exact.code == 0 and '"base_rate": 0.505' in exact.out
    assert_refused(run_cli([*args, "1.2676506002282294e+30", "--engine", "dask"]),
                   r"column 'y' holds whole numbers beyond the uint64 range, which Dask's reader reads as")
    ids = tmp_path / "ids.csv"  # ids within int64 (leading zeros too) are read as before
    ids.write_text("p,y,id\n0.2,0,00123\n0.7,1,00456\n0.4,1,7\n")
    assert run_cli(["audit", ids, "--score", "p", "--label", "y", "--by", "id", "--engine", "dask"]).code == 0
