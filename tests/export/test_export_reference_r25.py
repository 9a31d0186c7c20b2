"""Session 25: ``transform`` and the SQL/ONNX exports of vector and matrix scaling whose rows of W sum alike
subtract the same per-row reference (the row's largest entry; its smallest where the sum is negative:
``veracity.core._row_sums.reference_side``), so the exports equal ``transform`` to 1e-12 on any row.

Until session 25 ``transform`` subtracted the row's lower median entry and the exports its largest; the
two round differently where the median lies far from the largest entry, and the probabilities differed
by up to 1 (a near tie at 1e17 broken in one and not the other). The oracle is ``transform`` on the whole
table; the engines are DuckDB, SQLite (stdlib), PostgreSQL and onnxruntime. Rows: ordinary logits, mixed
huge positive and negative logits, near ties at 1e15 to 1e300, ±1e300, rows whose largest entry lies far
from their median, and rows whose z − r overflows (±1e308, read as W z + b by both).
"""

from __future__ import annotations

import functools
import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql

TOL = 1e-12
MAPS = {  # rows of W with one exact sum (dyadic entries), 4 and 5 classes
    "vector-4": np.diag([1.75] * 4),
    "vector-negative-4": np.diag([-0.5] * 4),
    "matrix-4": np.array([[1.25, 0.5, -0.25, 0.0], [0.125, 1.375, 0.0, -0.5], [0.5, -0.75, 1.75, -0.5],
                          [0.0, 0.0, 0.25, 0.75]]),
    "matrix-5": np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.125, 0.0, 0.875, 0.0, 0.0],
                          [0.0, -0.25, 0.0, 1.25, 0.0], [0.0, 0.0, 0.0, 0.5, 0.5]]),
    "matrix-negative-5": -np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0],
                                    [0.125, 0.0, 0.875, 0.0, 0.0], [0.0, -0.25, 0.0, 1.25, 0.0],
                                    [0.0, 0.0, 0.0, 0.5, 0.5]]),
    # some rows share their sum, others do not (a partial tie): the logits carry r (s_k - c) as well
    "partial-top-4": np.array([[1.25, 0.5, -0.25, 0.0], [0.125, 1.0, 0.0, 0.0], [0.5, -0.75, 1.75, 0.0],
                               [0.0, 0.0, 0.25, 0.75]]),
    "partial-bottom-5": np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.25, 1.5, 0.0, 0.0, 0.0],
                                  [0.0, 0.25, 0.75, 0.0, 0.0], [0.0, 0.0, 0.5, 1.0, 0.25],
                                  [0.0, 0.0, 0.0, 0.5, 1.25]]),
    "partial-vector-5": np.diag([1.5, 0.75, 1.5, 0.75, 2.0]),
    "partial-negative-4": -np.array([[1.25, 0.5, -0.25, 0.0], [0.125, 1.0, 0.0, 0.0], [0.5, -0.75, 1.75, 0.0],
                                     [0.0, 0.0, 0.25, 0.75]]),
}
BIASES = [0.3, -0.45, 0.1, 0.7, -0.2]
ADVERSARIAL = [  # five entries; the first four for the 4-class maps
    [1e17, 1e17 + 16, -1e17, -1e17, -1e17],
    [1e17 + 16, 1e17, -1e17, -3e17, 5.0],
    [-1e17, -1e17 - 16, 1e17, 1e17, 1e17],
    [1e15, 1e15 + 1.5, -1e15, -3e15, 0.0],
    [-1e15, -1e15 - 1.5, 1e15, 3e15, 0.0],
    [2.0 ** 60, 2.0 ** 60 + 2.0 ** 9, -(2.0 ** 60), 0.0, 1.0],
    [1e300, float(np.nextafter(1e300, 0.0)), -1e300, -1e300, -1e300],
    [-1e300, float(np.nextafter(-1e300, 0.0)), 1e300, 1e300, 1e300],
    [1e300, 1e300, -1e300, -1e300, 0.0],
    [1e300, -1e300, 1e300, -1e300, 1e300],
    [1e100, 1e100, 0.0, -5.0, 3.0],
    [-1e100, -1e100, 0.0, 5.0, -3.0],
    [3e8 + 0.25, 3e8, -4e8, -4e8, -4e8],
    [1e12, -1e12, 1e12 + 0.5, -1e12 + 0.5, 0.25],
    [1e20, 1e20, 1e20, 1e20, 1e20],
    [1e6 + 0.5, 1e6, 1e6 - 0.5, 1e6 + 0.25, 1e6 - 0.25],
    [1e308, 1e308, -1e308, 0.0, 1.0],
    [-1e308, 1e308, -1e308, 1e308, 0.0],
    [1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308],
]


def _rows(k: int) -> np.ndarray:
    rng = np.random.default_rng(k)
    ordinary = rng.normal(0.0, 2.0, (40, k))
    scales = 10.0 ** rng.integers(0, 300, (60, 1))
    mixed = rng.normal(0.0, 1.0, (60, k)) * scales * rng.choice([1.0, 1e-3, 1e3], (60, k))
    ties = rng.normal(0.0, 1.0, (30, 1)) * 10.0 ** rng.integers(10, 300, (30, 1)) + rng.normal(0, 2, (30, k))
    offsets = [ordinary[:6] + c for c in (1e6, -1e6, 1e12, -1e12, 1e100, -1e100, 1e300, -1e300)]
    return np.concatenate([np.array(ADVERSARIAL)[:, :k], ordinary, mixed, ties, *offsets])


@functools.lru_cache(maxsize=None)
def _cal(name: str) -> Any:
    """The map ``name`` (fitted, then W and b set), built once a worker: three tests read each (none changes
    it)."""
    W = MAPS[name]
    k = W.shape[0]
    rng = np.random.default_rng(3)
    cls = vc.VectorScaling if name.startswith("vector") else vc.MatrixScaling
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = cls(score_type="logit").fit(rng.normal(0.0, 2.0, (30 * k, k)), np.arange(30 * k) % k)
    doc = cal.to_dict()
    doc["state"].update(W_=W.tolist(), b_=BIASES[:k])
    return vc.load(doc)


def _assert_close(got: np.ndarray, want: np.ndarray, rows: np.ndarray, what: str) -> None:
    bad = np.flatnonzero((np.abs(got - want) > TOL).any(axis=1) | np.isnan(got).any(axis=1))
    assert bad.size == 0, (f"{what}: {bad.size} rows differ; row {bad[0]} input {rows[bad[0]]!r}: got "
                           f"{got[bad[0]]!r}, transform {want[bad[0]]!r}")


def _names(k: int) -> list[str]:
    return [f"c{j}" for j in range(k)]


def _load(con: Any, rows: np.ndarray, marks: str) -> None:
    k = rows.shape[1]
    con.execute("DROP TABLE IF EXISTS t_r25")
    columns = ", ".join(f'"{n}" DOUBLE PRECISION' for n in _names(k))
    con.execute(f"CREATE TABLE t_r25 (id BIGINT, {columns})")
    data = [(i, *map(float, r)) for i, r in enumerate(rows)]
    insert = f"INSERT INTO t_r25 VALUES ({', '.join([marks] * (k + 1))})"
    if marks == "%s":
        with con.cursor() as cur:
            cur.executemany(insert, data)
    else:
        con.executemany(insert, data)


@functools.lru_cache(maxsize=None)
def _sql(name: str, dialect: str) -> str:
    """``to_sql(_cal(name), _names(k), dialect=dialect)``, written once a worker (the DuckDB texts of the
    partial maps are read by two tests)."""
    return to_sql(_cal(name), _names(MAPS[name].shape[0]), dialect=dialect)


@functools.lru_cache(maxsize=None)
def _onnx(name: str) -> bytes:
    """``to_onnx(_cal(name))``, written once a worker."""
    return to_onnx(_cal(name))


def _query(con: Any, name: str, dialect: str) -> np.ndarray:
    sql = _sql(name, dialect)
    return np.array(con.execute(f"SELECT {sql} FROM t_r25 ORDER BY id").fetchall(), dtype=np.float64)


@pytest.mark.parametrize("name", sorted(MAPS))
def test_duckdb_sqlite_and_onnx_equal_transform(name):
    duckdb = pytest.importorskip("duckdb")
    ort = pytest.importorskip("onnxruntime")
    cal = _cal(name)
    k = MAPS[name].shape[0]
    rows = _rows(k)
    want = cal.transform(rows)
    for dialect, con in (("duckdb", duckdb.connect()), ("sqlite", sqlite3.connect(":memory:"))):
        _load(con, rows, "?")
        _assert_close(_query(con, name, dialect), want, rows, f"{dialect} {name}")
    session = ort.InferenceSession(_onnx(name), providers=["CPUExecutionProvider"])
    _assert_close(session.run(None, {"score": rows})[0], want, rows, f"onnx {name}")


@pytest.mark.parametrize("name", ["matrix-5", "vector-4", "vector-negative-4", "partial-bottom-5",
                                  "partial-negative-4"])
def test_postgres_equals_transform(name, postgres):
    """PostgreSQL raises on a double that overflows: rows whose z − r overflows take the guarded path."""
    import psycopg

    cal = _cal(name)
    k = MAPS[name].shape[0]
    rows = _rows(k)
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        _load(con, rows, "%s")
        _assert_close(_query(con, name, "postgres"), cal.transform(rows), rows, f"postgres {name}")


def _exact_softmax(W: np.ndarray, b: list[float], rows: np.ndarray) -> np.ndarray:
    """softmax(W z + b) of the logits computed exactly (fractions), each difference to the row's largest
    rounded once."""
    import math
    from fractions import Fraction

    out = []
    for z in rows.tolist():
        L = [sum((Fraction(w) * Fraction(v) for w, v in zip(Wk, z)), Fraction(bk))
             for Wk, bk in zip(W.tolist(), b)]
        top = max(L)
        e = [0.0 if top - v > 1000 else math.exp(float(v - top)) for v in L]
        out.append(np.array(e) / sum(e))
    return np.array(out)


@pytest.mark.parametrize("name", [n for n in sorted(MAPS) if n.startswith("partial")])
def test_the_exports_keep_the_split_of_a_partial_tie(name):
    """At z + c the classes whose rows of W share the extreme sum split the probability by b and W d; the
    SQL and ONNX wrote W z + b, which rounded that split away at 1e12 and beyond. Against the exact
    softmax (so not only against transform)."""
    duckdb = pytest.importorskip("duckdb")
    ort = pytest.importorskip("onnxruntime")
    W = MAPS[name]
    k = W.shape[0]
    base = np.random.default_rng(7).normal(0.0, 2.0, (6, k))
    rows = np.concatenate([base + c for c in (1e6, 1e12, -1e12, 1e100, -1e100, 1e300, -1e300)])
    want = _exact_softmax(W, BIASES[:k], rows)
    con = duckdb.connect()
    _load(con, rows, "?")
    _assert_close(_query(con, name, "duckdb"), want, rows, f"duckdb {name}")
    session = ort.InferenceSession(_onnx(name), providers=["CPUExecutionProvider"])
    _assert_close(session.run(None, {"score": rows})[0], want, rows, f"onnx {name}")
