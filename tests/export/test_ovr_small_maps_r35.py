"""A one-vs-rest row whose maps all lie below e^-700 gets ``transform()``'s shares in SQL (session 35).

The SQL sigmoid clamped its exp to e^700, so every map of a linear predictor below -700 was
1/(1 + e^700) ~ 1e-304, where ``transform`` (scipy's ``expit``, 1/(1 + e^-z)) gives e^z down to
e^-709.78 and 0 below. A binary output moves by less than 1e-304 so, but a one-vs-rest head divides each
map by the row's sum: a row of logits (-705, -706, -707, -708) under Platt maps sigmoid(z) came out
uniform (0.25 each) on every engine where ``transform`` gives the softmax of the logits (0.644, ...), and
(-690, -720, -1e4, -1e4) gave 4.5e-5 to the classes ``transform`` gives 0. ONNX was right.
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql

TOL = 1e-12
NAMES = ["z_0", "z_1", "z_2", "z_3"]
PRIOR = ([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1])
ROWS = np.array([
    [-705.0, -706.0, -707.0, -708.0],      # every map below e^-700: the softmax of the logits
    [-690.0, -720.0, -1e4, -1e4],          # one map above the clamp, the others below it
    [-709.7, -709.8, -710.0, -1e4],        # expit is 0 from -709.78 on: class 0 alone
    [-1e4, -1e4, -1e4, -1e4],              # every map 0: uniform
    [1.0, -2.0, 0.5, -800.0],              # an ordinary row
])


def _one_vs_rest(kind: str) -> vc.Calibrator:
    """A one-vs-rest map of logits whose class maps are sigmoid(a_k z + b_k) (Platt) or a beta map on logits,
    with weights set so that the linear predictors of ROWS fall around -700."""
    rng = np.random.default_rng(35)
    Z = rng.normal(0.0, 1.5, (600, 4))
    y = np.argmax(Z + rng.gumbel(size=(600, 4)), axis=1)
    cls = vc.PlattScaling if kind == "platt" else vc.BetaCalibration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = cls(score_type="logit").fit(Z, y).to_dict()
    for m in doc["state"]["maps_"]:
        if kind == "platt":
            m["state"]["a_"], m["state"]["b_"] = 1.0, 0.0
        else:  # a ln sigma(z) - b ln(1 - sigma(z)) + c = z for a = 1, b = 1, c = 0
            m["state"]["a_"], m["state"]["b_"], m["state"]["c_"] = 1.0, 1.0, 0.0
    return vc.load(doc)


def _want(cal: vc.Calibrator, prior: object) -> np.ndarray:
    out = cal.transform(ROWS)
    return out if prior is None else vc.adjust_prior(out, *prior)


CASES = [("platt", None), ("platt", PRIOR), ("beta", None)]


def _check(got: np.ndarray, cal: vc.Calibrator, prior: object) -> None:
    want = _want(cal, prior)
    assert np.abs(got - want).max() <= TOL, (got, want)


def test_the_reference_is_the_softmax_of_the_logits():
    """Independent of the export: maps e^z renormalised are the softmax of the row's logits."""
    z = ROWS[0]
    soft = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert np.abs(_one_vs_rest("platt").transform(ROWS)[0] - soft).max() <= TOL
    assert soft[0] > 0.64  # far from the uniform row the clamped SQL gave


def _run_on(con, dialect, kind, prior, real):
    """The one-vs-rest head's SQL on ``ROWS`` in a fresh table of ``con`` (DB-API), checked against
    transform()."""
    cal = _one_vs_rest(kind)
    con.execute(f"CREATE TABLE t (i INTEGER, z_0 {real}, z_1 {real}, z_2 {real}, z_3 {real})")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [(i, *map(float, r)) for i, r in enumerate(ROWS)])
    got = np.array(con.execute(f"SELECT {to_sql(cal, NAMES, dialect=dialect, prior_shift=prior)} FROM t "
                               "ORDER BY i").fetchall(), dtype=np.float64)
    _check(got, cal, prior)


@pytest.mark.parametrize("kind,prior", CASES)
def test_duckdb(kind, prior):
    duckdb = pytest.importorskip("duckdb")
    _run_on(duckdb.connect(), "duckdb", kind, prior, "DOUBLE")


@pytest.mark.parametrize("kind,prior", CASES)
def test_sqlite(kind, prior):
    con = sqlite3.connect(":memory:")
    if con.execute("SELECT sqlite_version()").fetchone()[0] < "3.35":
        pytest.skip("SQLite < 3.35 has no math functions (exp, ln)")
    _run_on(con, "sqlite", kind, prior, "REAL")


@pytest.mark.parametrize("kind,prior", CASES)
def test_postgres(kind, prior, postgres):
    import psycopg

    cal = _one_vs_rest(kind)
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS t_r35")
        con.execute("CREATE TABLE t_r35 (i bigint, z_0 float8, z_1 float8, z_2 float8, z_3 float8)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO t_r35 VALUES (%s, %s, %s, %s, %s)",
                            [(i, *map(float, r)) for i, r in enumerate(ROWS)])
        got = np.array(con.execute(f"SELECT {to_sql(cal, NAMES, dialect='postgres', prior_shift=prior)} "
                                   "FROM t_r35 ORDER BY i").fetchall(), dtype=np.float64)
    _check(got, cal, prior)


@pytest.mark.parametrize("kind,prior", CASES)
def test_onnx(kind, prior):
    ort = pytest.importorskip("onnxruntime")
    cal = _one_vs_rest(kind)
    got = ort.InferenceSession(to_onnx(cal, prior_shift=prior)).run(None, {"score": ROWS})[0]
    _check(got, cal, prior)


def test_binary_maps_keep_their_text():
    """Only a one-vs-rest head's maps are written exactly: a binary map's text keeps its one clamp."""
    rng = np.random.default_rng(1)
    s = rng.normal(0.0, 2.0, 500)
    y = (rng.random(500) < 1.0 / (1.0 + np.exp(-s))).astype(int)
    text = vc.PlattScaling(score_type="logit").fit(s, y).to_sql("s", dialect="duckdb")
    assert "CASE WHEN" not in text.split("THEN NULL ELSE", 1)[1]
