"""Round 17: exported SQL on PostgreSQL, whose double arithmetic raises where IEEE rounds.

PostgreSQL refuses a product or quotient that rounds to 0 from nonzero operands ("value out of
range: underflow": 0.07 * 5e-324) or overflows to inf ("overflow": 10 * 1e308), where numpy
and every other engine round. A table holding one such score made the whole exported query
fail; the SQL now guards those operations and equals ``transform()`` (the oracle) to 1e-12 on
them, DuckDB running the same rows as a second witness.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql

TOL = 1e-12
MAX = float(np.finfo(np.float64).max)
#: logits a model can emit: subnormals (an underflowed product), the largest doubles, ordinary values
LOGITS = np.array([5e-324, -5e-324, 1e-320, -1e-315, 2.2250738585072014e-308, 1e-300, 1e300, -1e300, MAX, -MAX,
                   8.9e307, -8.9e307, 0.0, 1.0, -2.5, 36.7, 745.0, -745.0])
#: probabilities down to the smallest subnormal (exp(-745) in float64), and the bounds
PROBS = np.array([5e-324, 1e-320, 1e-310, 2.2250738585072014e-308, 1e-300, 0.0, 1.0, 1 - 2.0 ** -53, 0.5, 0.25,
                  0.3, 0.9])
Y = (np.arange(30) % 3 == 0).astype(np.int64)


def _edited(cal: Any, **state: Any) -> Any:
    """A fitted calibrator with some of its state replaced (loaded back, so the artifact is checked)."""
    doc = cal.to_dict()
    doc["state"].update(state)
    return vc.load(doc)


def _binary() -> dict[str, tuple[Any, np.ndarray]]:
    s, p = np.linspace(-3.0, 3.0, 30), np.linspace(0.01, 0.99, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        temp = vc.TemperatureScaling(score_type="logit").fit(s, Y)
        platt = vc.PlattScaling(score_type="logit").fit(s, Y)
        beta = vc.BetaCalibration(score_type="logit").fit(s, Y)
        iso = vc.IsotonicCalibration(interpolation="linear").fit(p, Y)
    return {
        # 5e-324 / 1e10 rounds to 0: "underflow"
        "temperature-hot": (_edited(temp, temperature_=1e10), LOGITS),
        # 1e308 / 0.5 is inf: "overflow"
        "temperature-cold": (_edited(temp, temperature_=0.5), LOGITS),
        # 0.07 * 5e-324 rounds to 0
        "platt-flat": (_edited(platt, a_=0.07, b_=0.3, reversed_=False), LOGITS),
        "platt-steep": (_edited(platt, a_=3.0, b_=-0.5, reversed_=False), LOGITS),
        # 5 * softplus(1e308) overflows
        "beta-steep": (_edited(beta, a_=5.0, b_=3.0, c_=0.1), LOGITS),
        # a knot at 0 and a slope of 0.3: 0.3 * (1e-320 - 0) ... 0.3 * 5e-324 rounds to 0
        "isotonic-linear-from-0": (_edited(iso, knots_x_=[0.0, 1.0], knots_y_=[0.0, 0.3], n_unique_=2, n_steps_=2),
                                   PROBS),
        # knots at +-max-float: the map runs on halved scores (5e-324 * 0.5 rounds to 0)
        "isotonic-linear-wide": (_edited(vc.IsotonicCalibration(score_type="logit", interpolation="linear")
                                         .fit(s, Y), knots_x_=[-1e308, 0.0, 1e308], knots_y_=[0.0, 0.5, 1.0],
                                         n_unique_=3, n_steps_=3), LOGITS),
    }


def _matrix_logits() -> tuple[Any, np.ndarray]:
    rng = np.random.default_rng(3)
    Z = rng.normal(0.0, 2.0, (60, 3))
    yk = np.arange(60) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.MatrixScaling(score_type="logit").fit(Z, yk)
    cal = _edited(cal, W_=[[1.5, -0.4, 0.2], [0.3, 0.9, -1.2], [-0.6, 0.1, 2.0]], b_=[0.1, -0.2, 0.05])
    rows = LOGITS[rng.integers(0, LOGITS.size, (200, 3))]
    # rows whose W·z overflows (a product, or a partial sum: transform gives them their limit softmax, and so
    # does the SQL since session 18; ties on W·z with different biases: tests/export/test_overflow_rows_r18.py)
    extra = np.array([[1e308, 1e308, 1e308], [-1e308, 1e308, -1e308], [MAX, -MAX, 0.0], [0.5, -1.0, 2.0]])
    return cal, np.concatenate([rows, extra])


def _run(engine: str, con: Any, sql: str, data: np.ndarray) -> np.ndarray:
    X = data.reshape(data.shape[0], -1)
    names = [f"s_{k}" for k in range(X.shape[1])] if data.ndim == 2 else ["s"]
    decl = ", ".join(f'"{n}" DOUBLE PRECISION' for n in names)
    con.execute("DROP TABLE IF EXISTS t_r17")
    con.execute(f"CREATE TABLE t_r17 (id BIGINT, {decl})")
    rows = [(i, *map(float, r)) for i, r in enumerate(X)]
    marks = ", ".join(["%s" if engine == "postgres" else "?"] * (1 + len(names)))
    if engine == "postgres":
        with con.cursor() as cur:
            cur.executemany(f"INSERT INTO t_r17 VALUES ({marks})", rows)
    else:
        con.executemany(f"INSERT INTO t_r17 VALUES ({marks})", rows)
    got = con.execute(f"SELECT {sql} FROM t_r17 ORDER BY id").fetchall()
    return np.array(got, dtype=np.float64)


def _sql(cal: Any, data: np.ndarray, dialect: str, prior: Any = None) -> str:
    column: Any = [f"s_{k}" for k in range(data.shape[1])] if data.ndim == 2 else "s"
    return to_sql(cal, column, dialect=dialect, prior_shift=prior)


def _assert_close(got: np.ndarray, want: np.ndarray, data: np.ndarray, what: str) -> None:
    want = want.reshape(got.shape)
    bad = np.flatnonzero((np.abs(got - want) > TOL).any(axis=1))
    assert bad.size == 0, f"{what}: row {bad[0]} input {data[bad[0]]!r}: sql {got[bad[0]]!r}, transform {want[bad[0]]!r}"


@pytest.fixture(scope="module")
def pg(postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        yield con


@pytest.fixture(scope="module")
def duck():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()


@pytest.mark.parametrize("name", ["beta-steep", "isotonic-linear-from-0", "isotonic-linear-wide", "platt-flat",
                                  "platt-steep", "temperature-cold", "temperature-hot"])
def test_postgres_subnormal_and_huge_scores(name, pg, duck):
    cal, data = _binary()[name]
    want = cal.transform(data)
    for engine, con in (("postgres", pg), ("duckdb", duck)):
        _assert_close(_run(engine, con, _sql(cal, data, engine), data), want, data, f"{engine} {name}")


def test_postgres_matrix_scaling_of_huge_logits(pg, duck):
    """Sums of W·z of logits near ±max-float overflowed on PostgreSQL ("value out of range: overflow")."""
    cal, data = _matrix_logits()
    with np.errstate(all="ignore"):
        assert (~np.isfinite(data @ np.asarray(cal.W_).T).all(axis=1)).sum() > 50  # rows transform rescales
    want = cal.transform(data)
    for engine, con in (("postgres", pg), ("duckdb", duck)):
        _assert_close(_run(engine, con, _sql(cal, data, engine), data), want, data, f"{engine} matrix")


def test_postgres_temperature_of_huge_logits(pg):
    """Softmax differences of logits of opposite signs near max-float overflowed on PostgreSQL."""
    rng = np.random.default_rng(4)
    Z = rng.normal(0.0, 2.0, (60, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = _edited(vc.TemperatureScaling(score_type="logit").fit(Z, np.arange(60) % 3), temperature_=1.5)
    data = np.array([[1e308, -1e308, 0.0], [MAX, 0.0, -MAX], [5e-324, -5e-324, 1.0], [-1e308, 2.0, 1e308]])
    _assert_close(_run("postgres", pg, _sql(cal, data, "postgres"), data), cal.transform(data), data, "temperature")


def test_postgres_prior_shift_of_subnormal_probabilities(pg):
    """A bare prior shift multiplies the probability: 5e-324 · 0.7 · 0.1 rounds to 0 ("underflow")."""
    data = PROBS
    want = vc.adjust_prior(data, 0.3, 0.1)
    got = _run("postgres", pg, _sql(None, data, "postgres", prior=(0.3, 0.1)), data)
    _assert_close(got, want, data, "prior shift")
    P = np.array([[5e-324, 0.5, 0.5], [1e-320, 1 - 1e-320, 0.0], [0.2, 0.3, 0.5]])
    old, new = [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]
    got = _run("postgres", pg, _sql(None, P, "postgres", prior=(old, new)), P)
    _assert_close(got, vc.adjust_prior(P, old, new), P, "multiclass prior shift")


def test_guards_only_where_an_operation_can_round_to_zero():
    """Probability inputs of an ordinary fit keep the plain text on PostgreSQL (no guard, no growth)."""
    p = np.linspace(0.01, 0.99, 30)
    y = (p > 0.4).astype(np.int64)
    y[[3, 20]] = 1 - y[[3, 20]]
    for cal in (vc.PlattScaling().fit(p, y), vc.TemperatureScaling().fit(p, y)):
        text = cal.to_sql("p", dialect="postgres")
        assert "Infinity" not in text and text.count("CASE") == 1, text


def test_bare_multiclass_prior_shift_takes_its_classes_from_the_priors():
    """K priors (or K columns) size a bare prior shift; before, K = 2 was assumed and the priors refused."""
    old, new = [0.2, 0.3, 0.5], [0.5, 0.3, 0.2]
    P = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.1, 0.1, 0.8]])
    text = to_sql(None, ["a", "b", "c"], dialect="duckdb", prior_shift=(old, new))
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, a DOUBLE, b DOUBLE, c DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(i, *map(float, r)) for i, r in enumerate(P)])
    got = np.array(con.execute(f"SELECT {text} FROM t ORDER BY id").fetchall(), dtype=np.float64)
    np.testing.assert_allclose(got, vc.adjust_prior(P, old, new), rtol=0, atol=TOL)
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(to_onnx(None, prior_shift=(old, new)), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, {"score": P})[0], vc.adjust_prior(P, old, new), rtol=0, atol=TOL)


def test_postgres_prior_shift_after_a_strict_isotonic(pg):
    """A fitted strict isotonic map gives tiny probabilities just above its first knot (value 0); the prior
    shift multiplied them by 0.7 · 0.01 and PostgreSQL raised "underflow" on a knot's neighbouring double."""
    rng = np.random.default_rng(12)
    p = np.round(rng.random(400), 2)
    y = (rng.random(400) < p).astype(np.int64)
    cal = vc.IsotonicCalibration(ties="strict").fit(p, y)
    knots = np.asarray(cal.knots_x_, dtype=np.float64)
    data = np.concatenate([knots, np.nextafter(knots, 2.0), np.nextafter(knots, -1.0), [0.0, 1.0, 5e-324]])
    data = data[(data >= 0.0) & (data <= 1.0)]
    assert cal.transform(data).min() < 1e-300  # the case: outputs that the shift's products round to 0
    got = _run("postgres", pg, _sql(cal, data, "postgres", prior=(0.3, 0.01)), data)
    _assert_close(got, vc.adjust_prior(cal.transform(data), 0.3, 0.01), data, "strict isotonic + prior shift")
