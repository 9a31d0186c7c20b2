"""Round 18: exported SQL and ONNX give the limit softmax on rows whose logits overflow, as ``transform``.

Multiclass vector and matrix scaling (``W z + b``) and temperature scaling with T < 1 (``z / T``) on
logits near ±1e308 overflow. Since round 17 ``transform`` gives such a row the softmax of its logits
shifted by the row's largest, computed by exact power-of-two rescaling (an entry beyond the doubles is
probability 0; classes tied on ``W z`` keep the split their biases give). The exported SQL and ONNX
computed the plain logits and gave NaN, or 0 and 1 from clamped infinities (PostgreSQL: an overflow
error, or a wrong number). The oracle is ``transform`` on the whole table (then ``vc.adjust_prior``
where a prior shift is exported), on DuckDB, SQLite, PostgreSQL, Spark and onnxruntime, to 1e-12.

Rows are built from the largest doubles, ±1e308, subnormals and ordinary logits, with overflowing
products and partial sums, mixed signs, and ties on ``W z`` between classes with different biases.
Kept in: rows where numpy's ``Z @ W.T`` has no one answer (OpenBLAS fuses multiply-adds in some
kernels, chosen by the number of rows): a product that overflows on its own (``2 · -1e308``) inside a
sum that a fused multiply-add keeps finite (``0.5e308 + 2 · -1e308``, :func:`_fma_ambiguous`).
``transform`` sums such rows left to right, each product rounded, as the SQL and ONNX do
(tests/calibrators/test_batch_independent_r18.py).
"""

from __future__ import annotations

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
MAX = float(np.finfo(np.float64).max)
#: logits that overflow W z (near ±max-float), subnormals, zeros, ordinary values
ATOMS = np.array([MAX, -MAX, 1e308, -1e308, 1.5e308, -1.5e308, 8.98846567431158e307, 6e307, -6e307, 1e300,
                  5e-324, -5e-324, 0.0, 1.0, -2.5, 36.7, 745.0])


def _edited(cal: Any, **state: Any) -> Any:
    doc = cal.to_dict()
    doc["state"].update(state)
    return vc.load(doc)


def _fit(cls: Any, k: int, **kw: Any) -> Any:
    rng = np.random.default_rng(5)
    Z = rng.normal(0.0, 2.0, (90, k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(score_type="logit", **kw).fit(Z, np.arange(90) % k)


def _round(v: Fraction | float) -> float:
    """The double nearest an exact value (±inf beyond the doubles); NaN stays NaN."""
    if isinstance(v, float):
        return v
    try:
        return float(v)
    except OverflowError:
        return np.inf if v > 0 else -np.inf


def _add(a: float, b: float) -> float:
    with np.errstate(all="ignore"):
        return float(np.float64(a) + np.float64(b))


def _sums(W: np.ndarray, b: np.ndarray, z: np.ndarray, fused: bool) -> np.ndarray:
    """``W z + b`` of one row summed left to right, each product rounded (or fused into the sum)."""
    out = []
    for r in range(W.shape[0]):
        acc = 0.0
        for j in range(z.size):
            if fused and np.isfinite(acc):
                acc = _round(Fraction(float(W[r, j])) * Fraction(float(z[j])) + Fraction(acc))
            else:
                with np.errstate(all="ignore"):
                    acc = _add(acc, float(np.float64(W[r, j]) * np.float64(z[j])))
        out.append(_add(acc, float(b[r])))
    return np.array(out)


def _fma_ambiguous(cal: Any, z: np.ndarray) -> bool:
    """Whether ``W z + b`` overflows with rounded products but not with fused ones, or the other way."""
    W, b = np.asarray(cal.W_, dtype=np.float64), np.asarray(cal.b_, dtype=np.float64)
    return bool(np.isfinite(_sums(W, b, z, False)).all() != np.isfinite(_sums(W, b, z, True)).all())


def _overflowing(cal: Any, Z: np.ndarray) -> np.ndarray:
    """The rows whose plain logits overflow (the rows transform rescales)."""
    with np.errstate(all="ignore"):
        if cal.kind == "temperature":
            return ~np.isfinite(Z / cal.temperature_).all(axis=1)
        return ~np.isfinite(np.array([_sums(np.asarray(cal.W_), np.asarray(cal.b_), z, False) for z in Z])).all(axis=1)


def _rows(cal: Any, k: int, seed: int, extra: list[list[float]]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Z = np.concatenate([np.array(extra, dtype=np.float64).reshape(-1, k), ATOMS[rng.integers(0, ATOMS.size, (300, k))],
                        rng.normal(0.0, 3.0, (40, k))])
    return Z


def cases() -> dict[str, tuple[Any, np.ndarray, Any]]:
    """name -> (calibrator, rows, prior_shift or None)."""
    out: dict[str, tuple[Any, np.ndarray, Any]] = {}
    # classes 0 and 1 share their weights (tied on W z in every row) and differ in their biases
    W3 = [[1.5, 0.4, 0.2], [1.5, 0.4, 0.2], [-0.6, 0.1, 2.0]]
    m3 = _edited(_fit(vc.MatrixScaling, 3), W_=W3, b_=[0.6, -0.2, 0.05])
    tie_rows = [[1e308, 1e308, 0.0], [MAX, 2.0, -1.0], [-1e308, -1e308, 5.0], [1e308, -1e308, 1e308],
                [-MAX, MAX, -MAX], [0.5, -1.0, 2.0], [1e308, 1e308, 1e308], [5e-324, 1e308, -1e308]]
    out["matrix-tied"] = (m3, _rows(m3, 3, 1, tie_rows), None)
    out["matrix-tied-prior"] = (m3, _rows(m3, 3, 2, tie_rows), ([0.2, 0.3, 0.5], [0.5, 0.3, 0.2]))
    # mixed signs in a row of W: 2·1e308 − 2·1e308 overflows inside the sum
    m4 = _edited(_fit(vc.MatrixScaling, 4),
                 W_=[[2.0, -2.0, 0.0, 0.5], [0.3, 0.9, -1.2, 0.0], [-0.6, 0.1, 2.0, 1.1], [0.0, 0.0, 0.0, 0.0]],
                 b_=[0.1, -0.2, 0.05, 0.3])
    out["matrix-mixed-4"] = (m4, _rows(m4, 4, 3, [[1e308, 1e308, 0.0, 1.0], [1e308, 1e308, 1e308, -1e308],
                                                  [-1e308, 1e308, 0.0, 0.0], [MAX, MAX, MAX, MAX]]), None)
    # vector scaling: v_0 = v_1 ties classes 0 and 1 wherever z_0 = z_1
    v3 = _edited(_fit(vc.VectorScaling, 3), W_=np.diag([3.0, 3.0, 0.5]).tolist(), b_=[0.0, 1.0, 0.0])
    out["vector-tied"] = (v3, _rows(v3, 3, 4, [[1e308, 1e308, 0.0], [-1e308, -1e308, -1e308], [MAX, MAX, -MAX],
                                               [1e308, 1e308, 1e308], [1.0, 2.0, 3.0]]), None)
    t3 = _edited(_fit(vc.TemperatureScaling, 3), temperature_=0.5)
    t_rows = [[1e308, 1e308, 0.0], [1e308, -1e308, 5.0], [-1e308, -1e308, -1e308], [MAX, -MAX, MAX],
              [1e308, 1e308 * (1 - 2.0 ** -52), 0.0], [9e307, 8.98e307, 1.0], [0.5, -1.0, 2.0]]
    out["temperature-cold"] = (t3, _rows(t3, 3, 5, t_rows), None)
    out["temperature-cold-prior"] = (t3, _rows(t3, 3, 6, t_rows), ([0.2, 0.3, 0.5], [0.5, 0.3, 0.2]))
    return out


CASES = cases()


def _want(cal: Any, Z: np.ndarray, prior: Any) -> np.ndarray:
    out = cal.transform(Z)
    return out if prior is None else vc.adjust_prior(out, *prior)


def _assert_close(got: np.ndarray, want: np.ndarray, Z: np.ndarray, what: str) -> None:
    err = np.abs(got - want)
    bad = np.flatnonzero((err > TOL).any(axis=1) | np.isnan(got).any(axis=1))
    assert bad.size == 0, f"{what}: {bad.size} rows differ; row {bad[0]} input {Z[bad[0]]!r}: got {got[bad[0]]!r}, " \
                          f"transform {want[bad[0]]!r}"


def _names(k: int) -> list[str]:
    return [f"s_{j}" for j in range(k)]


def _select(dialect: str, cal: Any, Z: np.ndarray, prior: Any) -> str:
    return to_sql(cal, _names(Z.shape[1]), dialect=dialect, prior_shift=prior)


def _load(con: Any, Z: np.ndarray, marks: str) -> None:
    decl = ", ".join(f'"{n}" DOUBLE PRECISION' for n in _names(Z.shape[1]))
    con.execute("DROP TABLE IF EXISTS t_r18")
    con.execute(f"CREATE TABLE t_r18 (id BIGINT, {decl})")
    rows = [(i, *map(float, r)) for i, r in enumerate(Z)]
    placeholders = ", ".join([marks] * (1 + Z.shape[1]))
    if hasattr(con, "cursor") and marks == "%s":
        with con.cursor() as cur:
            cur.executemany(f"INSERT INTO t_r18 VALUES ({placeholders})", rows)
    else:
        con.executemany(f"INSERT INTO t_r18 VALUES ({placeholders})", rows)


@pytest.fixture(scope="module")
def pg(postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        yield con


def test_the_cases_hold_what_they_are_for():
    """Each case has rows whose logits overflow (transform's rescaled rows) and ordinary rows; the tied
    cases have overflowing rows where two classes share the probability unevenly (their biases)."""
    for name, (cal, Z, _) in CASES.items():
        over = _overflowing(cal, Z)
        assert over.sum() >= 20 and (~over).sum() >= 40, name
        if cal.kind == "matrix":
            assert sum(_fma_ambiguous(cal, z) for z in Z) >= 3, name
        if "tied" in name:
            p = cal.transform(Z[over])
            split = (p[:, 0] > 0.05) & (p[:, 1] > 0.05) & (np.abs(p[:, 0] - p[:, 1]) > 0.05)
            assert split.sum() >= 3, name


def _engines_agree(cal: Any, Z: np.ndarray, prior: Any, label: str, pg: Any = None) -> None:
    """The exported SQL on DuckDB, SQLite (and PostgreSQL, given ``pg``) and the ONNX model give
    ``_want`` on ``Z``."""
    duckdb = pytest.importorskip("duckdb")
    ort = pytest.importorskip("onnxruntime")
    want = _want(cal, Z, prior)
    engines: list[tuple[str, Any, str]] = [("duckdb", duckdb.connect(), "?"), ("sqlite", sqlite3.connect(":memory:"), "?")]
    if pg is not None:
        engines.append(("postgres", pg, "%s"))
    for dialect, con, mark in engines:
        _load(con, Z, mark)
        got = np.array(con.execute(f"SELECT {_select(dialect, cal, Z, prior)} FROM t_r18 ORDER BY id").fetchall(),
                       dtype=np.float64)
        _assert_close(got, want, Z, f"{dialect} {label}")
    session = ort.InferenceSession(to_onnx(cal, prior_shift=prior), providers=["CPUExecutionProvider"])
    _assert_close(session.run(None, {"score": Z})[0], want, Z, f"onnx {label}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_duckdb_sqlite_and_onnx(name):
    cal, Z, prior = CASES[name]
    _engines_agree(cal, Z, prior, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_postgres(name, pg):
    """PostgreSQL raises on a double that overflows: nothing overflows in the exported text."""
    cal, Z, prior = CASES[name]
    _load(pg, Z, "%s")
    got = np.array(pg.execute(f"SELECT {_select('postgres', cal, Z, prior)} FROM t_r18 ORDER BY id").fetchall(),
                   dtype=np.float64)
    _assert_close(got, _want(cal, Z, prior), Z, f"postgres {name}")


def test_spark(spark):
    """Spark: the tied matrix with a prior shift and the cold temperature (two queries: Spark is slow)."""
    import pandas as pd

    for name in ("matrix-tied-prior", "temperature-cold"):
        cal, Z, prior = CASES[name]
        frame = pd.DataFrame({"id": np.arange(Z.shape[0], dtype=np.int64), **{n: Z[:, j] for j, n in
                                                                                 enumerate(_names(Z.shape[1]))}})
        spark.createDataFrame(frame).createOrReplaceTempView("t_r18")
        got = spark.sql(f"SELECT `id`, {_select('spark', cal, Z, prior)} FROM t_r18").toPandas()
        got = got.to_numpy(dtype=np.float64)
        got = got[np.argsort(got[:, 0], kind="stable"), 1:]
        _assert_close(got, _want(cal, Z, prior), Z, f"spark {name}")


def test_text_unchanged_where_nothing_can_overflow():
    """Probability inputs (logits ln p >= ln eps), a temperature of 1 or more and weights too small to reach
    the largest double keep the plain softmax: one CASE per output (its NULL guard), no rescue."""
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), 120)
    y = np.arange(120) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = [vc.MatrixScaling().fit(P, y), vc.VectorScaling().fit(P, y), vc.TemperatureScaling().fit(P, y)]
    small = _edited(_fit(vc.VectorScaling, 3), W_=np.diag([0.3, 0.45, 0.2]).tolist(), b_=[0.1, 0.0, -0.1])
    warm = _edited(_fit(vc.TemperatureScaling, 3), temperature_=1.0)
    for cal in fitted:
        for dialect in ("duckdb", "postgres", "sqlite", "spark"):
            text = to_sql(cal, ["a", "b", "c"], dialect=dialect)
            assert text.count("CASE") == 3, (cal.kind, dialect, text[:400])
    for cal in (small, warm):  # logits (PostgreSQL guards the products of subnormal ones): no rescue
        assert to_sql(cal, ["a", "b", "c"], dialect="duckdb").count("CASE") == 3, cal.kind
        assert all(len(head) == 4 for head in plan(cal).outputs), cal.kind
    # and where it can: a rescue (more than the NULL guard) in every output
    for cal in (CASES["matrix-tied"][0], CASES["temperature-cold"][0]):
        assert to_sql(cal, ["a", "b", "c"], dialect="duckdb").count("CASE") > 3


def test_prior_shift_on_large_tied_logits(pg):
    """A prior shift on logits of 1e17 and more: added to them (softmax(l + ln r)) it was lost to rounding,
    tied classes stayed 0.5 / 0.5 where ``adjust_prior`` splits them by the ratio of the new and old priors."""
    warm = _edited(_fit(vc.TemperatureScaling, 3), temperature_=1.0)
    matrix = _edited(_fit(vc.MatrixScaling, 3), W_=[[1.0, 0.5, 0.0], [1.0, 0.5, 0.0], [0.0, 0.0, 1.0]],
                     b_=[0.0, 0.0, 0.0])
    prior = ([0.2, 0.3, 0.5], [0.5, 0.3, 0.2])
    Z = np.array([[1e17, 1e17, 0.0], [3e20, 3e20, 3e20], [1e300, 1e300, -1e300], [1.0, 1.0, 0.5], [0.2, -0.4, 3.0]])
    for cal in (warm, matrix):
        assert abs(_want(cal, Z, prior)[0, 0] - 2.5 / 3.5) < 1e-12  # the tie, split by r = new/old = (2.5, 1, 0.4)
        _engines_agree(cal, Z, prior, cal.kind, pg)
