"""Round 24: the SQL and ONNX of vector and matrix scaling whose rows of W sum alike subtract a per-row
reference, as ``transform`` does since round 24, so a common offset of the logits keeps the biases.

``transform`` evaluates W(z − r·1) + b where every row of W has one exact sum s (vector scaling with one
scale for every class; a matrix whose rows sum alike): one shift of every logit by r·s, the same
softmax, and b is no longer rounded away at z + 1e100 (nor moved by 1e-8 at z + 1e8). The exports
evaluated W z + b, which now disagreed with it wherever the offset outweighs b. The oracle is
``transform`` on the whole table, on DuckDB, SQLite, PostgreSQL, Spark and onnxruntime, to 1e-12; the
offset rows are checked against the exact softmax as well (fractions), so the reference itself is sound.
Rows: ordinary logits, the same logits plus 1e6, 2^40 + 0.5, 1e12, ±1e100, ±1e300, rows with one or two
entries far from the others (any reference loses the small entries there: ``transform``'s own output is
the one matched) and rows whose z − r overflows (±1e308: ``transform`` leaves them unshifted).
Maps whose rows sum differently keep their text (no reference is written).
"""

from __future__ import annotations

import math
import sqlite3
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql
from veracity.export._plan import plan

TOL = 1e-12
OFFSETS = [0.0, 1e6, 2.0 ** 40 + 0.5, 1e12, 1e100, -1e100, 1e300, -1e300]
B = [0.3, -0.45, 0.1]
EQUAL_SUMS = {  # rows of W with one exact sum (dyadic entries)
    "vector": np.diag([1.75, 1.75, 1.75]),
    "vector-negative": np.diag([-0.5, -0.5, -0.5]),
    "matrix": np.array([[1.25, 0.5, -0.25], [0.125, 1.375, 0.0], [0.5, -0.75, 1.75]]),
}
UNEQUAL_SUMS = {
    "vector": np.diag([1.75, 1.5, 1.25]),
    "matrix": np.array([[1.25, 0.5, -0.25], [0.125, 1.0, 0.0], [0.5, -0.75, 1.5]]),
}
FAR = [[1e100, 0.0, 0.0], [1e100, 1e100, 0.0], [-1e100, 0.0, 0.0], [-1e100, -1e100, 0.0], [0.0, 0.0, 1e100],
       [1e100, -1e100, 0.0], [1e300, 1e300, -1e300], [1e17, 1e17 + 16, -1e17], [5e-324, 1e300, 1e300]]
OVER = [[1e308, 1e308, -1e308], [1e308, -1e308, 0.0], [-1e308, -1e308, 1e308], [1.7e308, 1.7e308, 1.7e308],
        [-1.7e308, -1.7e308, -1.7e308], [1e308, 1e308, 0.0]]


def _edited(kind: str, W: np.ndarray) -> Any:
    rng = np.random.default_rng(3)
    cls = vc.VectorScaling if kind.startswith("vector") else vc.MatrixScaling
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = cls(score_type="logit").fit(rng.normal(0.0, 2.0, (90, 3)), np.arange(90) % 3)
    doc = cal.to_dict()
    doc["state"].update(W_=W.tolist(), b_=B)
    return vc.load(doc)


def _ordinary(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 2.0, (n, 3))


def _offset_rows() -> np.ndarray:
    base = _ordinary(1, 12)
    return np.concatenate([base + c for c in OFFSETS])


ROWS = np.concatenate([_ordinary(0, 120), _offset_rows(), np.array(FAR), np.array(OVER)])
CALS = {name: _edited(name, W) for name, W in EQUAL_SUMS.items()}


def _exact_softmax(W: np.ndarray, b: list[float], rows: np.ndarray) -> np.ndarray:
    """softmax(W z + b) of the logits computed exactly (fractions), each difference to the row's largest
    rounded once."""
    out = []
    for z in rows.tolist():
        L = [sum((Fraction(w) * Fraction(v) for w, v in zip(Wk, z)), Fraction(bk))
             for Wk, bk in zip(W.tolist(), b)]
        top = max(L)
        e = [0.0 if top - v > 1000 else math.exp(float(v - top)) for v in L]
        out.append(np.array(e) / sum(e))
    return np.array(out)


def _assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    bad = np.flatnonzero((np.abs(got - want) > TOL).any(axis=1) | np.isnan(got).any(axis=1))
    assert bad.size == 0, (f"{what}: {bad.size} rows differ; row {bad[0]} input {ROWS[bad[0]]!r}: got "
                           f"{got[bad[0]]!r}, transform {want[bad[0]]!r}")


def _load(con: Any, marks: str) -> None:
    con.execute("DROP TABLE IF EXISTS t_r24")
    columns = ", ".join(f'"{n}" DOUBLE PRECISION' for n in "abc")
    con.execute(f"CREATE TABLE t_r24 (id BIGINT, {columns})")
    rows = [(i, *map(float, r)) for i, r in enumerate(ROWS)]
    if marks == "%s":
        with con.cursor() as cur:
            cur.executemany("INSERT INTO t_r24 VALUES (%s, %s, %s, %s)", rows)
    else:
        con.executemany("INSERT INTO t_r24 VALUES (?, ?, ?, ?)", rows)


def _query(con: Any, cal: Any, dialect: str) -> np.ndarray:
    sql = to_sql(cal, ["a", "b", "c"], dialect=dialect)
    return np.array(con.execute(f"SELECT {sql} FROM t_r24 ORDER BY id").fetchall(), dtype=np.float64)


def test_the_reference_is_exact_on_offset_rows():
    """transform of the offset rows is the exact softmax (so matching it is matching the map), and b shows:
    the rows at 1e100 are not uniform."""
    rows = _offset_rows()
    for name, cal in CALS.items():
        np.testing.assert_allclose(cal.transform(rows), _exact_softmax(cal.W_, B, rows), rtol=0, atol=1e-13,
                                   err_msg=name)
        assert np.ptp(cal.transform(rows[-48:])) > 0.1, name


@pytest.mark.parametrize("name", sorted(EQUAL_SUMS))
def test_duckdb_sqlite_and_onnx(name):
    duckdb = pytest.importorskip("duckdb")
    ort = pytest.importorskip("onnxruntime")
    cal = CALS[name]
    want = cal.transform(ROWS)
    for dialect, con in (("duckdb", duckdb.connect()), ("sqlite", sqlite3.connect(":memory:"))):
        _load(con, "?")
        _assert_close(_query(con, cal, dialect), want, f"{dialect} {name}")
    session = ort.InferenceSession(to_onnx(cal), providers=["CPUExecutionProvider"])
    _assert_close(session.run(None, {"score": ROWS})[0], want, f"onnx {name}")


@pytest.fixture(scope="module")
def pg(postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        _load(con, "%s")
        yield con


@pytest.mark.parametrize("name", sorted(EQUAL_SUMS))
def test_postgres(name, pg):
    """PostgreSQL raises on a double that overflows: the reference's differences are taken in halves."""
    cal = CALS[name]
    _assert_close(_query(pg, cal, "postgres"), cal.transform(ROWS), f"postgres {name}")


def test_spark(spark):
    import pandas as pd

    cal = CALS["matrix"]
    frame = pd.DataFrame({"id": np.arange(ROWS.shape[0], dtype=np.int64),
                          **{n: ROWS[:, j] for j, n in enumerate("abc")}})
    spark.createDataFrame(frame).createOrReplaceTempView("t_r24")
    got = spark.sql(f"SELECT `id`, {to_sql(cal, ['a', 'b', 'c'], dialect='spark')} FROM t_r24").toPandas()
    got = got.to_numpy(dtype=np.float64)
    _assert_close(got[np.argsort(got[:, 0], kind="stable"), 1:], cal.transform(ROWS), "spark matrix")


def _ops(node: Any) -> set[str]:
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
        return set()
    found = {node[0]}
    for a in node[1:]:
        if isinstance(a, (tuple, list)):
            for x in (a if isinstance(a, list) else [a]):
                found |= _ops(x)
    return found


#: the shifted form's text (the inputs are read as doubles first: session 34)
_SHIFTED = (("duckdb", 'GREATEST(CAST("a" AS DOUBLE), CAST("b" AS DOUBLE)'),
            ("sqlite", 'MAX(CAST("a" AS REAL), CAST("b" AS REAL)'))


@pytest.mark.parametrize("name", sorted(UNEQUAL_SUMS))
def test_maps_whose_rows_sum_differently_keep_their_text(name):
    """No reference where the rows of W sum differently (no per-row shift is exact there), nor where the
    features cannot reach the products transform shifts (probabilities and weights of order 1)."""
    unequal = _edited(name, UNEQUAL_SUMS[name])
    rng = np.random.default_rng(0)
    P, y = rng.dirichlet(np.ones(3), 120), np.arange(120) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls = vc.VectorScaling if name == "vector" else vc.MatrixScaling
        on_probabilities = _edited(name, EQUAL_SUMS[name])
        doc = on_probabilities.to_dict()
        doc["params"]["score_type"] = "probability"
        on_probabilities = vc.load(doc)
        fitted = cls().fit(P, y)
    for cal in (unequal, on_probabilities, fitted):
        assert not {"max", "min"} & set().union(*(_ops(o) for o in plan(cal).outputs)), name
        for dialect, shifted in _SHIFTED:
            assert shifted not in to_sql(cal, ["a", "b", "c"], dialect=dialect), (name, dialect)
    for dialect, shifted in _SHIFTED:
        assert shifted in to_sql(CALS[name], ["a", "b", "c"], dialect=dialect), (name, dialect)
    least = 'LEAST(CAST("a" AS DOUBLE), CAST("b" AS DOUBLE)'
    assert least in to_sql(CALS["vector-negative"], ["a", "b", "c"], dialect="duckdb")
