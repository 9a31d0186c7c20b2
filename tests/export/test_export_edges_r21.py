"""Round 21: exported maps at the edges of what ``transform()`` accepts.

A beta calibration of ranking scores (``score_type="score"``) reads ``ln s`` and ``ln(1 - s)``, so its
``transform`` refuses a score outside [0, 1] -- as it refuses a probability there. Its SQL and ONNX
forms took the ranking-score rule (any finite number) and gave such a score the number of the clipped
formula (1.5 -> 0.99999999999999, -0.5 -> 3e-20): a silent probability for a row ``transform`` refuses.
They now give NULL (SQL) and NaN (ONNX), as for a probability outside [0, 1]; the oracle is
``transform()`` itself, row by row.

SQLite keeps a score held as text (a TEXT or untyped column: what ``.import`` of a CSV creates) as
text and compares it as text, or as greater than any number: ``MIN(MAX('0.5', eps), 1 - eps)`` is the
number ``1 - eps``, so every Platt probability read 1.0, and a step table compared the knots as
strings. ``transform`` refuses text scores; the SQLite text now gives them NULL (a REAL or untyped
column's numbers are unchanged).
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

TOL = 1e-12
#: ranking scores in [0, 1] (a vote share), the bounds, and -0.0
INSIDE = np.array([0.0, -0.0, 1.0, 5e-324, 0.3, 0.5, 0.77, 1.0 - 2.0 ** -53])
#: ranking scores beta calibration refuses
OUTSIDE = np.array([1.5, -0.5, 1.0 + 2.0 ** -52, -5e-324, 7.0, -1e300, np.inf, -np.inf])


def _fit_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    s = rng.beta(2.0, 3.0, 600)
    y = (rng.random(600) < s).astype(np.int64)
    P = rng.dirichlet([1.0, 1.0, 1.0], 600)
    return s, y, P


def _binary_beta() -> vc.BetaCalibration:
    s, y, _ = _fit_data()
    return vc.BetaCalibration(score_type="score").fit(s, y)


def _ovr_beta() -> object:
    _, _, P = _fit_data()
    rng = np.random.default_rng(4)
    yk = np.array([rng.choice(3, p=row) for row in P])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vc.BetaCalibration(score_type="score").fit(P, yk)


def _refused(cal: object, x: np.ndarray) -> bool:
    try:
        cal.transform(x)  # type: ignore[attr-defined]
    except vc.VeracityError:
        return True
    return False


def test_transform_refuses_a_ranking_score_outside_unit_interval():
    """The definition the export must follow: each OUTSIDE score is refused, each INSIDE one mapped."""
    cal = _binary_beta()
    assert all(_refused(cal, np.array([v])) for v in OUTSIDE)
    assert not _refused(cal, INSIDE)


def _duckdb(text: str, columns: dict[str, np.ndarray]) -> np.ndarray:
    duckdb = pytest.importorskip("duckdb")
    import pandas as pd

    df = pd.DataFrame({"id": np.arange(len(next(iter(columns.values())))), **columns})
    con = duckdb.connect()
    con.register("df", df)
    rows = con.execute(f"SELECT {text} FROM df ORDER BY id").fetchall()
    return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)


def _sqlite(text: str, columns: dict[str, np.ndarray]) -> np.ndarray:
    con = sqlite3.connect(":memory:")
    names = list(columns)
    con.execute("CREATE TABLE t (id INTEGER, " + ", ".join(f'"{n}" REAL' for n in names) + ")")
    n = len(columns[names[0]])
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(names) + 1))})",
                    [(i, *(float(columns[c][i]) for c in names)) for i in range(n)])
    rows = con.execute(f"SELECT {text} FROM t ORDER BY id").fetchall()
    return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_beta_ranking_score_sql_gives_null_where_transform_refuses(engine):
    cal = _binary_beta()
    x = np.concatenate([INSIDE, OUTSIDE])
    if engine == "sqlite":  # SQLite stores no infinity as a score: the finite ones
        x = x[np.isfinite(x)]
    run = _duckdb if engine == "duckdb" else _sqlite
    got = run(cal.to_sql("s", dialect=engine), {"s": x})[:, 0]
    inside = ~np.array([_refused(cal, np.array([v])) for v in x])
    assert np.all(np.isnan(got[~inside])), got[~inside]
    np.testing.assert_allclose(got[inside], cal.transform(x[inside]), rtol=0, atol=TOL)


def test_beta_ranking_score_onnx_gives_nan_where_transform_refuses():
    ort = pytest.importorskip("onnxruntime")
    cal = _binary_beta()
    x = np.concatenate([INSIDE, OUTSIDE])
    got = ort.InferenceSession(cal.to_onnx()).run(["probability"], {"score": x})[0]
    inside = ~np.array([_refused(cal, np.array([v])) for v in x])
    assert np.all(np.isnan(got[~inside])), got[~inside]
    np.testing.assert_allclose(got[inside], cal.transform(x[inside]), rtol=0, atol=TOL)


def test_one_vs_rest_beta_ranking_scores_refused_row_is_null_and_nan():
    """One-vs-rest beta on K ranking-score columns: a row with a score outside [0, 1] is refused by
    transform, so it is NULL (SQL) and NaN (ONNX) in every column; the other rows equal transform."""
    cal = _ovr_beta()
    X = np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0], [1.5, 0.1, 0.1], [0.2, -0.5, 0.3], [0.9, 0.9, 0.9]])
    inside = ~np.array([_refused(cal, row[None, :]) for row in X])
    assert inside.tolist() == [True, True, False, False, True]  # scores need not sum to 1
    want = cal.transform(X[inside])
    got = _duckdb(cal.to_sql(["a", "b", "c"], dialect="duckdb"), {"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    assert np.all(np.isnan(got[~inside]))
    np.testing.assert_allclose(got[inside], want, rtol=0, atol=TOL)
    ort = pytest.importorskip("onnxruntime")
    out = ort.InferenceSession(cal.to_onnx()).run(["probability"], {"score": X})[0]
    assert np.all(np.isnan(out[~inside]))
    np.testing.assert_allclose(out[inside], want, rtol=0, atol=TOL)


def _text_table(declared: str, values: list) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE t (id INTEGER, s {declared})")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    return con


@pytest.mark.parametrize("kind", ["platt", "isotonic", "histogram"])
def test_sqlite_text_scores_are_null_not_a_probability(kind):
    rng = np.random.default_rng(5)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(np.int64)
    cal = {"platt": vc.PlattScaling(), "isotonic": vc.IsotonicCalibration(),
           "histogram": vc.HistogramBinning(bins=5)}[kind].fit(p, y)
    with pytest.raises(vc.VeracityError):
        cal.transform(np.array(["0.5"]))  # the definition: a text score gets no probability
    text = cal.to_sql("s", dialect="sqlite")
    scores = [0.5, 0.05, 0.9, 1e-5]
    # a TEXT column keeps what is inserted as text (a number too); an untyped column keeps each value's type
    con = _text_table("TEXT", [str(v) for v in scores] + [0.5])
    assert [r[0] for r in con.execute(f"SELECT {text} FROM t ORDER BY id")] == [None] * 5
    con = _text_table("", [str(v) for v in scores] + scores)
    got = [r[0] for r in con.execute(f"SELECT {text} FROM t ORDER BY id")]
    assert got[:4] == [None] * 4
    np.testing.assert_allclose(np.array(got[4:], dtype=np.float64), cal.transform(np.array(scores)), rtol=0,
                               atol=TOL)
    # REAL, INTEGER and NUMERIC columns hold numbers (SQLite converts numeric text on insert): the map
    for declared in ("REAL", "NUMERIC", "INTEGER"):
        values = [0, 1] if declared == "INTEGER" else scores
        con = _text_table(declared, [str(v) for v in values])
        got = [r[0] for r in con.execute(f"SELECT {text} FROM t ORDER BY id")]
        want = cal.transform(np.array(values, dtype=float))
        np.testing.assert_allclose(np.array(got, dtype=np.float64), want, rtol=0, atol=TOL)


def test_sqlite_multiclass_row_with_a_text_score_is_null():
    rng = np.random.default_rng(6)
    P = rng.dirichlet([1.0, 1.0, 1.0], 300)
    yk = np.array([rng.choice(3, p=row) for row in P])
    cal = vc.TemperatureScaling().fit(P, yk)
    text = cal.to_sql(["a", "b", "c"], dialect="sqlite")
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER, a, b, c)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(0, 0.2, 0.3, 0.5), (1, 0.2, "0.3", 0.5)])
    rows = con.execute(f"SELECT {text} FROM t ORDER BY id").fetchall()
    np.testing.assert_allclose(rows[0], cal.transform(np.array([[0.2, 0.3, 0.5]]))[0], rtol=0, atol=TOL)
    assert rows[1] == (None, None, None)
