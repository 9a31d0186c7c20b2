"""Beta calibration of logit scores: ln σ(s) and ln(1 + e^s) as ``transform()`` computes them (session 38).

``transform`` reads a logit ``s`` through ``-logaddexp(0, -s)`` and ``logaddexp(0, s)``: ``max(·, 0) +
log1p(e^{-|s|})``. The SQL and the ONNX graph wrote ``ln(1 + e^{-|s|})``, whose ``1 + e^{-|s|}`` rounds to 1
for every |s| beyond ~36.7: ln σ(s) came out 0 where it is -e^{-s}, and the probability was off by about
a·e^{-s}/4 -- 4e-12 at a = 10^6 (beyond the 1e-12 every export is held to), wherever c + b·s keeps it off
0 and 1.
Both now write log1p in Kahan's form (no dialect but Spark has LOG1P), which needs nothing but LN, + and /;
on PostgreSQL, which raises on underflow, logits out to ±1e5 and ±max-float still run.
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

TOL = 1e-12
#: where 1 + e^{-s} rounds to 1 (s > 36.7) and c + b·s = s − 40 keeps the probability near 1/2; the
#: neighbourhood of 0 (where log1p(1) = ln 2); huge and extreme logits
SCORES = np.concatenate([np.linspace(30.0, 50.0, 4001), np.linspace(-3.0, 3.0, 601),
                         [0.0, -0.0, 36.7, 36.8, 700.0, -700.0, 745.0, -745.0, 1e5, -1e5, 1.7e308, -1.7e308]])


@pytest.fixture(scope="module")
def steep():
    rng = np.random.default_rng(38)
    z = rng.normal(0.0, 2.0, 2000)
    y = (rng.uniform(size=z.size) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = vc.BetaCalibration(score_type="logit").fit(z, y).to_dict()
    doc["state"].update(a_=1e6, b_=1.0, c_=-40.0)
    return vc.load(doc)


def _check(got, cal) -> None:
    want = cal.transform(SCORES)
    got = np.asarray(got, dtype=np.float64)
    assert np.isfinite(got).all()
    off = np.abs(got - want)
    assert off.max() <= TOL, f"max |Δ| {off.max():.3g} at s = {SCORES[off.argmax()]!r}"


def test_duckdb(steep):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i BIGINT, score DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(SCORES.tolist())))
    _check([r[0] for r in con.execute(f"SELECT {steep.to_sql('score')} FROM t ORDER BY i").fetchall()], steep)


def test_sqlite(steep):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (i INTEGER, score REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(SCORES.tolist())))
    sql = steep.to_sql("score", dialect="sqlite")
    _check([r[0] for r in con.execute(f"SELECT {sql} FROM t ORDER BY i").fetchall()], steep)


def test_postgres(steep, postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS beta_log1p")
        con.execute("CREATE TABLE beta_log1p (i BIGINT, score DOUBLE PRECISION)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO beta_log1p VALUES (%s, %s)", list(enumerate(SCORES.tolist())))
        sql = steep.to_sql("score", dialect="postgres")
        _check([r[0] for r in con.execute(f"SELECT {sql} FROM beta_log1p ORDER BY i").fetchall()], steep)


def test_onnx(steep):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(steep.to_onnx(), providers=["CPUExecutionProvider"])
    _check(sess.run(None, {"score": SCORES})[0], steep)
