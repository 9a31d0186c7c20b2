"""Hostile inputs to the SQL audit and the exported maps (round 13).

* ``Calibrator.to_sql`` had no ``alias=``, which ``veracity.export.to_sql`` takes: the multiclass
  output names could not be chosen from the calibrator.
* ``vc.audit(connection, score=, label=)`` without ``table=`` said "cannot read columns from
  DuckDBPyConnection: Unsupported dataframe type" (a URL: "remote paths (duckdb://) are not read").
* A calibrator fit on a lazy frame did not record ``n_columns``: a binary score column named "p,1"
  was exported as two columns ("p,1_0", "p,1_1"; ONNX wanted (N, 2) scores).
* PostgreSQL: a NUMERIC 1e400 score printed its 401 digits in the error message.
* A password of one to three characters was replaced everywhere in a message: password ":" ate
  every colon of the message, password "p" turned "postgresql" into "***ostgresql".
* An exported map gave a number to a score ``transform`` refuses (a probability of -0.1, 1.5 or
  ±inf; a logit of ±inf; a multiclass row not summing to 1): SQL and ONNX now give no probability
  (NULL, NaN), as they did for NaN.
"""

from __future__ import annotations

import functools
import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from ..sql.conftest import pg_conn  # noqa: F401 - the live PostgreSQL's fixtures

duckdb = pytest.importorskip("duckdb")

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: each list of cases (fits, ONNX models) is made once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)


def _binary_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    return p, (rng.uniform(size=n) < p ** 1.5).astype(int)


def _multi_data(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), n)
    y = (P.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1)
    return P, y


# -- Calibrator.to_sql(alias=) ----------------------------------------------------------------------
def test_calibrator_to_sql_takes_alias_as_export_does():
    import veracity.export as vx

    P, y = _multi_data()
    cal = vc.TemperatureScaling().fit(P, y)
    text = cal.to_sql("p", alias="cal")
    assert text == vx.to_sql(cal, "p", alias="cal")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p_0 DOUBLE, p_1 DOUBLE, p_2 DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", P[:5].tolist())
    got = con.execute(f"SELECT {text} FROM t")
    assert [d[0] for d in got.description] == ["cal_0", "cal_1", "cal_2"]
    np.testing.assert_allclose(np.array(got.fetchall()), cal.transform(P[:5]), rtol=0, atol=1e-12)


# -- a connection without table= ----------------------------------------------------------------------
@pytest.mark.parametrize("which", ["duckdb", "sqlite", "url"])
def test_a_connection_without_table_says_to_pass_table(which):
    con = {"duckdb": lambda: duckdb.connect(), "sqlite": lambda: sqlite3.connect(":memory:"),
           "url": lambda: "duckdb:///:memory:"}[which]()
    with pytest.raises(vc.VeracityError, match=r"needs table=.*table='t'") as info:
        vc.audit(con, score="p", label="y")
    assert info.value.param == "table"
    with pytest.raises(vc.VeracityError, match=r"vc\.ece reads a frame, not a database connection.*table="):
        vc.ece(con, score="p", label="y")
    with pytest.raises(vc.VeracityError, match=r"fit reads a frame, not a database connection"):
        vc.PlattScaling().fit(con, score="p", label="y")


def test_a_duckdb_relation_is_still_a_frame():
    p, y = _binary_data()
    con = duckdb.connect()
    con.register("df", pd.DataFrame({"p": p, "y": y}))
    assert vc.audit(con.table("df"), score="p", label="y").brier == pytest.approx(np.mean((p - y) ** 2))


# -- a lazy fit on a column named "p,1" -------------------------------------------------------------
@pytest.mark.parametrize("kind", ["TemperatureScaling", "PlattScaling"])
def test_a_lazy_fit_on_a_column_named_p_comma_1_round_trips(kind):
    ort = pytest.importorskip("onnxruntime")
    p, y = _binary_data()
    df = pd.DataFrame({"p,1": p, "y": y})
    con = duckdb.connect()
    con.register("df", df)
    con.execute("CREATE TABLE t AS SELECT * FROM df")
    memory = getattr(vc, kind)().fit(df, score="p,1", label="y")
    lazy = getattr(vc, kind)().fit(con.table("t"), score="p,1", label="y")
    assert lazy.metadata["n_columns"] == 1
    want = memory.transform(p)
    sql = np.array([r[0] for r in con.execute(f"SELECT {lazy.to_sql('p,1')} FROM t").fetchall()])
    np.testing.assert_allclose(sql, want, rtol=0, atol=1e-9)
    onnx = ort.InferenceSession(lazy.to_onnx()).run(None, {"score": p})[0]
    np.testing.assert_allclose(onnx, want, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lazy.transform(p), want, rtol=0, atol=1e-9)


def test_a_lazy_fit_on_two_columns_records_two():
    P, y = _multi_data(k=2)
    df = pd.DataFrame({"a": P[:, 0], "b": P[:, 1], "y": y})
    con = duckdb.connect()
    con.register("df", df)
    lazy = vc.TemperatureScaling().fit(con.table("df"), score=["a", "b"], label="y")
    memory = vc.TemperatureScaling().fit(df, score=["a", "b"], label="y")
    assert lazy.metadata["n_columns"] == memory.metadata["n_columns"] == 2


# -- PostgreSQL NUMERIC beyond a double ---------------------------------------------------------------
@pytest.mark.parametrize("value, shown", [("1e400", "1.00000e+400"), ("-1e400", "-1.00000e+400"),
                                          ("1.23e-400", "1.23000e-400")])
@pytest.mark.parametrize("column", ["p", "w"])
def test_a_numeric_beyond_a_double_is_named_in_a_short_message(pg_conn, value, shown, column):
    pg_conn.execute("DROP TABLE IF EXISTS big")
    pg_conn.execute("CREATE TABLE big (p NUMERIC, y INTEGER, w NUMERIC)")
    row = {"p": "0.6", "w": "1", column: value}
    pg_conn.execute(f"INSERT INTO big VALUES (0.3, 1, 1), ({row['p']}, 0, {row['w']}), (0.5, 1, 2)")
    with pytest.raises(vc.VeracityError, match="out of range") as info:
        vc.audit(pg_conn, table="big", score="p", label="y", sample_weight="w")
    message = str(info.value)
    assert shown in message and len(message) < 200, message  # before: 400 digits, ~500 characters


def test_long_numbers_in_messages_are_cut_and_short_ones_kept():
    from veracity.sql._connect import _short_numbers

    assert _short_numbers('"1' + "0" * 400 + '.5" is out') == '"1.00000e+400" is out'
    assert _short_numbers("port 5432, 123456789012345678901234 rows") == \
        "port 5432, 123456789012345678901234 rows"  # 24 digits: kept (the cut starts at 25)
    assert _short_numbers("x 98765432109876543210987654321") == "x 9.87654e+28"


# -- password redaction ------------------------------------------------------------------------------
def test_a_short_password_is_hidden_without_eating_the_message():
    from veracity.sql._connect import _secrets, redact

    for password, written in ((":", "%3A"), ("p", "p"), ("1", "1")):
        url = f"postgresql://u:{written}@localhost:9/db"
        message = (f'cannot connect to {url}: connection to server at "127.0.0.1", port 9 failed: '
                   f"refused; password {password} rejected")
        got = redact(message, _secrets(url))
        assert got == ('cannot connect to postgresql://u:***@localhost:9/db: connection to server at '
                       '"127.0.0.1", port 9 failed: refused; password *** rejected'), got


def test_a_short_password_is_hidden_in_a_failed_connection():
    with pytest.raises(vc.VeracityError) as info:
        vc.audit("postgresql://ann:%3A@127.0.0.1:1/db", table="t", score="p", label="y")
    message = str(info.value)
    assert "postgresql://ann:***@127.0.0.1:1/db: " in message, message  # before: "postgresql***//ann***..."
    assert "%3A" not in message


# -- exported maps on scores transform() refuses ---------------------------------------------------
def _sql_values(engine, conn, text, rows):
    """``text`` over one row per entry of ``rows`` (columns s, or s_0..s_{K-1})."""
    k = len(rows[0])
    names = ["s"] if k == 1 else [f"s_{j}" for j in range(k)]
    ddl = ", ".join(f'"{n}" {"REAL" if engine == "sqlite" else "DOUBLE PRECISION"}' for n in names)
    if engine == "postgres":
        conn.execute("DROP TABLE IF EXISTS refused")
        conn.execute(f"CREATE TABLE refused (i INTEGER, {ddl})")
        for i, r in enumerate(rows):
            conn.execute(f"INSERT INTO refused VALUES ({', '.join(['%s'] * (k + 1))})", [i, *map(float, r)])
    else:
        conn.execute("DROP TABLE IF EXISTS refused")
        conn.execute(f"CREATE TABLE refused (i INTEGER, {ddl})")
        conn.executemany(f"INSERT INTO refused VALUES ({', '.join(['?'] * (k + 1))})",
                         [(i, *map(float, r)) for i, r in enumerate(rows)])
    return conn.execute(f"SELECT {text} FROM refused ORDER BY i").fetchall()


@pytest.fixture(params=["duckdb", "sqlite", "postgres"])
def engine(request):
    if request.param == "postgres":
        return "postgres", request.getfixturevalue("pg_conn")
    return request.param, duckdb.connect() if request.param == "duckdb" else sqlite3.connect(":memory:")


BINARY = ("TemperatureScaling", "PlattScaling", "IsotonicCalibration", "HistogramBinning", "BetaCalibration",
          "VennAbers")


def _each_refused(cal, x):
    """Whether transform() refuses the one score (or row) ``x``."""
    try:
        cal.transform(np.asarray([x]))
    except vc.VeracityError:
        return True
    return False


@functools.cache
def _binary_cases() -> list:
    """(calibrator, scores, which transform() refuses, the ONNX model's outputs) of each binary case: fitted,
    and run through ONNX Runtime, once for the three engines below (none of it depends on the engine)."""
    ort = pytest.importorskip("onnxruntime")
    p, y = _binary_data()
    z = np.log(p / (1 - p))
    xs = [0.0, 1.0, 0.3, -0.1, 1.5, np.inf, -np.inf, -1e-300]
    cases = [(getattr(vc, k)().fit(p, y), xs) for k in BINARY]
    cases += [(vc.PlattScaling(score_type="logit").fit(z, y), [-0.1, 1.5, 40.0, np.inf, -np.inf]),
              (vc.TemperatureScaling(score_type="logit").fit(z, y), [-3.0, 2.0, np.inf, -np.inf])]
    return [(cal, xs, np.array([_each_refused(cal, x) for x in xs]),
             ort.InferenceSession(cal.to_onnx()).run(None, {"score": np.array(xs, dtype=float)})[0])
            for cal, xs in cases]


def test_binary_exports_give_no_probability_where_transform_refuses(engine):
    pytest.importorskip("onnxruntime")
    name_, conn = engine
    for cal, xs, refused, onnx in _binary_cases():
        assert refused.any() and not refused.all()
        sql = [r[0] for r in _sql_values(name_, conn, cal.to_sql("s", dialect=name_), [(x,) for x in xs])]
        for x, bad, s, o in zip(xs, refused, sql, onnx):
            if bad:  # before: a number (-0.1 -> Platt 3.8e-17; 1.5 -> 1.0; +inf -> the last step)
                assert s is None and np.isnan(o), (cal.name, name_, x, s, o)
            else:
                want = float(cal.transform(np.array([x]))[0])
                assert s == pytest.approx(want, abs=1e-12), (cal.name, name_, x)
                assert o == pytest.approx(want, abs=1e-12), (cal.name, x)


_MULTI_ROWS = [[0.2, 0.3, 0.5], [0.5, 0.5, 0.5], [1.2, -0.1, -0.1], [np.inf, 0.0, 0.0],
               [0.2, 0.3, 0.5 + 5e-6], [0.2, 0.3, 0.5 + 2e-6], [1.0, 0.0, 0.0]]


@functools.cache
def _multiclass_cases() -> list:
    """(calibrator, which rows transform() refuses, the ONNX model's outputs) of each multiclass case, made
    once for the three engines below (as :func:`_binary_cases`)."""
    ort = pytest.importorskip("onnxruntime")
    P, y = _multi_data()
    rows = _MULTI_ROWS
    cals = [vc.TemperatureScaling().fit(P, y), vc.VectorScaling().fit(P, y), vc.MatrixScaling().fit(P, y),
            vc.PlattScaling().fit(P, y), vc.TemperatureScaling(score_type="logit").fit(2 * np.log(P), y)]
    return [(cal, np.array([_each_refused(cal, r) for r in rows]),
             ort.InferenceSession(cal.to_onnx()).run(None, {"score": np.array(rows)})[0]) for cal in cals]


def test_multiclass_exports_give_no_probability_where_transform_refuses(engine):
    pytest.importorskip("onnxruntime")
    name_, conn = engine
    rows = _MULTI_ROWS
    for cal, refused, onnx in _multiclass_cases():
        assert refused.any() and not refused.all()
        sql = _sql_values(name_, conn, cal.to_sql("s", dialect=name_), rows)
        for r, bad, s, o in zip(rows, refused, sql, onnx):
            if bad:  # before: [0.5, 0.5, 0.5] got a probability row from every route
                assert all(v is None for v in s) and np.isnan(o).all(), (cal.name, name_, r, s, o)
            else:
                want = cal.transform(np.array([r]))[0]
                np.testing.assert_allclose(np.array(s, dtype=float), want, rtol=0, atol=1e-12)
                np.testing.assert_allclose(o, want, rtol=0, atol=1e-12)
