"""Scores that ``transform()`` refuses (NaN, ±inf, a probability outside [0, 1]) in an exported map:
no probability (SQL NULL, ONNX NaN), and no engine fails the batch.

Before: a NaN score got a confident probability (PostgreSQL sorts NaN above every number, so
its clipped logit was the largest: Platt 0.99999…, isotonic 1.0; DuckDB alike), ONNX step
tables read NaN as the first step, and ONNX step tables failed the whole batch on one +inf
score ("Gather … indices element out of data bounds"). Until round 13 an infinite score got the
map's limit (a number where ``transform`` refuses); now it gets no probability, as NaN does.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

STEP_KINDS = ("isotonic-p", "isotonic-s", "histogram-p", "histogram-s", "venn-abers-p", "venn-abers-s",
              "isotonic-1000-step", "isotonic-1000-linear", "histogram-quantile")


def _binary(calibrators):
    return {name: entry for name, entry in calibrators.items() if entry[1] in ("p", "s")}


def _limit(cal, col, sign):
    """transform() at the largest finite score of the map's domain: the limit at ±inf."""
    top = 1.0 if col == "p" else np.finfo(np.float64).max
    bottom = 0.0 if col == "p" else -np.finfo(np.float64).max
    return float(cal.transform(np.array([top if sign > 0 else bottom]))[0])


def test_onnx_nan_and_infinities_give_nan(calibrators):
    ort = pytest.importorskip("onnxruntime")
    scores = np.array([np.nan, np.inf, -np.inf, 0.5])
    for name, (cal, col, prior) in _binary(calibrators).items():
        x = scores.copy()
        if col == "s":
            x[3] = 0.25
        got = ort.InferenceSession(cal.to_onnx(prior_shift=prior)).run(None, {"score": x})[0]
        assert np.isnan(got[:3]).all(), (name, got)
        if prior is None:
            assert got[3] == pytest.approx(float(cal.transform(x[3:])[0]), abs=1e-12), name
        # the largest finite scores of the domain still get the map's limit, as transform gives it
        top, bottom = (1.0, 0.0) if col == "p" else (np.finfo(np.float64).max, -np.finfo(np.float64).max)
        session = ort.InferenceSession(cal.to_onnx(prior_shift=prior))
        ends = session.run(None, {"score": np.array([top, bottom])})[0]
        if prior is None:
            assert ends[0] == pytest.approx(_limit(cal, col, +1), abs=1e-12), name
            assert ends[1] == pytest.approx(_limit(cal, col, -1), abs=1e-12), name


def test_onnx_a_multiclass_row_with_a_nan_score_is_nan(calibrators):
    ort = pytest.importorskip("onnxruntime")
    for name, (cal, col, prior) in calibrators.items():
        if col not in ("P", "Z"):
            continue
        k = cal.n_classes_
        rows = np.full((3, k), 1.0 / k)
        rows[0, 1] = np.nan
        got = ort.InferenceSession(cal.to_onnx(prior_shift=prior)).run(None, {"score": rows})[0]
        assert np.isnan(got[0]).all(), (name, got[0])
        assert np.isfinite(got[1:]).all() and np.allclose(got[1:].sum(axis=1), 1.0), (name, got[1:])


def _sql_rows(engine, conn, text, values, k=1):
    """The exported expression over one column (or K) holding ``values``."""
    if engine == "duckdb":
        cols = ", ".join(f'CAST(? AS DOUBLE) AS "{c}"' for c in (["x"] if k == 1 else [f"x_{j}" for j in range(k)]))
        return [conn.execute(f"SELECT {text} FROM (SELECT {cols})", list(v)).fetchall()[0] for v in values]
    cols = ", ".join(f"CAST(%s AS DOUBLE PRECISION) AS \"{c}\""
                     for c in (["x"] if k == 1 else [f"x_{j}" for j in range(k)]))
    return [conn.execute(f"SELECT {text} FROM (SELECT {cols}) AS t", list(v)).fetchall()[0] for v in values]


@pytest.fixture(params=["duckdb", "postgres"])
def sql_engine(request):
    if request.param == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        conn = duckdb.connect()
        yield "duckdb", conn
        conn.close()
    else:
        import psycopg

        server = request.getfixturevalue("postgres")
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            yield "postgres", conn


def test_sql_nan_and_infinite_scores_give_null(calibrators, sql_engine):
    engine, conn = sql_engine
    for name, (cal, col, prior) in _binary(calibrators).items():
        text = cal.to_sql("x", dialect=engine, prior_shift=prior)
        nan, pos, neg = (r[0] for r in _sql_rows(engine, conn, text, [(float("nan"),), (float("inf"),),
                                                                      (float("-inf"),)]))
        assert (nan, pos, neg) == (None, None, None), (engine, name, nan, pos, neg)
        top, bottom = (1.0, 0.0) if col == "p" else (np.finfo(np.float64).max, -np.finfo(np.float64).max)
        hi, lo = (r[0] for r in _sql_rows(engine, conn, text, [(top,), (bottom,)]))
        if prior is None and name in STEP_KINDS:  # the steps at either end, exactly
            assert (hi, lo) == (_limit(cal, col, +1), _limit(cal, col, -1)), (engine, name, hi, lo)


def test_sql_multiclass_row_with_a_nan_score_is_null(calibrators, sql_engine):
    engine, conn = sql_engine
    for name, (cal, col, prior) in calibrators.items():
        if col not in ("P", "Z"):
            continue
        k = cal.n_classes_
        text = cal.to_sql([f"x_{j}" for j in range(k)], dialect=engine, prior_shift=prior)
        row = [1.0 / k] * k
        row[1] = float("nan")
        (got,) = _sql_rows(engine, conn, text, [tuple(row)], k)
        assert all(v is None for v in got), (engine, name, got)


def test_sqlite_text_has_no_nan_test():
    """SQLite stores NaN as NULL: the text tests NULL only (no IS_NAN, which SQLite lacks)."""
    import sqlite3

    rng = np.random.default_rng(0)
    p = rng.random(300)
    cal = vc.IsotonicCalibration().fit(p, (rng.random(300) < p).astype(int))
    text = cal.to_sql("x", dialect="sqlite")
    con = sqlite3.connect(":memory:")
    assert con.execute(f"SELECT {text} FROM (SELECT ? AS x)", (float("nan"),)).fetchall() == [(None,)]
    assert "IS_NAN" not in text.upper() and "ISNAN" not in text.upper()
