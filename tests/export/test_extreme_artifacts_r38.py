"""Hand-edited multiclass artifacts at the ends of the double range: refused in one line, never a crash or
a silent number (session 38).

A vector/matrix map whose class biases b_ span ~1e308:

Logit inputs can make W z + b overflow, and the SQL then compares the rows' logits with a clamp of
2^t >= 2 (700 + max b - min b). With biases spread beyond ~9e307 that bound is no double: to_sql raised
a raw ``OverflowError: cannot convert float infinity to integer`` (a traceback from ``veracity export``). On
PostgreSQL, which raises on overflow, a spread between ~4.5e307 and ~9e307 wrote SQL that failed on the
server ("value out of range: overflow"). Both are refused in one line that points to ONNX, which computes
these maps as transform() does; spreads below the bound are written as before (session 38)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.export import DIALECTS

COLUMNS = ["a", "b", "c", "d"]
ROWS = np.array([[0.0, 1, 2, 3], [1e308, 0, 0, 0], [-1e308, 1e308, 0, 0], [1.7e308, -1.7e308, 1e300, 0]])


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(38)
    Z = rng.normal(0.0, 1.5, (400, 4))
    y = np.argmax(Z + rng.gumbel(size=Z.shape), axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        maps = {"vector": vc.VectorScaling(score_type="logit"), "matrix": vc.MatrixScaling(score_type="logit")}
        return {kind: cal.fit(Z, y).to_dict() for kind, cal in maps.items()}


def _with_biases(doc: dict, b: list[float]):
    doc = copy.deepcopy(doc)
    doc["state"]["b_"] = b
    return vc.load(doc)


@pytest.mark.parametrize("kind", ["vector", "matrix"])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_biases_beyond_the_double_range_are_refused_in_one_line(fitted, error_line, kind, dialect):
    cal = _with_biases(fitted[kind], [0.0, 1e308, 0.0, -1e308])
    text = error_line(lambda: cal.to_sql(COLUMNS, dialect=dialect))
    assert "class biases (state b_) differ by more than the largest double" in text and "to_onnx" in text
    ort = pytest.importorskip("onnxruntime")  # the route the message names gives transform()'s numbers
    sess = ort.InferenceSession(cal.to_onnx(), providers=["CPUExecutionProvider"])
    assert np.abs(sess.run(None, {"score": ROWS})[0] - cal.transform(ROWS)).max() <= 1e-12


def test_cli_export_refuses_in_one_line(tmp_path, fitted, cli, refused):
    path = tmp_path / "vec.json"
    _with_biases(fitted["vector"], [0.0, 1.5e308, 0.0, 0.0]).save(path)
    refused(cli(["export", path, "--sql", "duckdb"]), r"class biases \(state b_\) differ by 1.5e\+308")


@pytest.fixture(scope="module")
def pg(postgres):
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS t_r38b")
        con.execute("CREATE TABLE t_r38b (a float8, b float8, c float8, d float8)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO t_r38b VALUES (%s, %s, %s, %s)", ROWS.tolist())
        yield con


@pytest.mark.parametrize("kind", ["vector", "matrix"])
def test_postgres_refuses_what_would_overflow_there_and_runs_the_rest(fitted, pg, error_line, kind):
    over = _with_biases(fitted[kind], [0.0, 8.9e307, 0.0, 0.0])  # PostgreSQL: "value out of range: overflow"
    text = error_line(lambda: over.to_sql(COLUMNS, dialect="postgres"))
    assert "more than its postgres SQL can compare" in text
    duck = pytest.importorskip("duckdb").connect()  # DuckDB rounds to inf: its text stays, and is right
    values = ", ".join("(" + ", ".join(repr(float(v)) for v in row) + ")" for row in ROWS)
    duck.execute(f"CREATE TABLE t_r38b AS SELECT * FROM (VALUES {values}) v(a, b, c, d)")
    got = np.array(duck.execute(f"SELECT {over.to_sql(COLUMNS)} FROM t_r38b").fetchall(), dtype=float)
    assert np.abs(got - over.transform(ROWS)).max() <= 1e-12
    fine = _with_biases(fitted[kind], [0.0, 2e307, -2e307, 0.0])  # under the bound: runs on the server
    got = np.array(pg.execute(f"SELECT {fine.to_sql(COLUMNS, dialect='postgres')} FROM t_r38b").fetchall(),
                   dtype=float)
    assert np.abs(got - fine.transform(ROWS)).max() <= 1e-12


def test_smallest_temperature_is_refused_as_transform_refuses_it(error_line):
    """Multiclass temperature_ = 5e-324: T/2 rounds to 0, so z/T's overflow rescue divided by 0 —
    transform() refused every row as a faulty calibrator, while DuckDB's SQL returned 3.3e-305 in every
    column (not a distribution) and PostgreSQL's raised "division by zero" on the server."""
    rng = np.random.default_rng(38)
    P = rng.dirichlet(np.ones(3), 300)
    y = np.array([rng.choice(3, p=row) for row in P])
    doc = vc.TemperatureScaling().fit(P, y).to_dict()
    doc["state"]["temperature_"] = 5e-324
    cal = vc.load(doc)
    with pytest.raises(vc.VeracityError, match="faulty"):
        cal.transform(P[:3])
    for call in (lambda: cal.to_sql(["a", "b", "c"]), lambda: cal.to_sql(["a", "b", "c"], dialect="postgres"),
                 cal.to_onnx):
        assert "temperature_ 5e-324 is the smallest positive double" in error_line(call)
    doc["state"]["temperature_"] = 1e-323  # its half is a double: written as before
    assert vc.load(doc).to_sql(["a", "b", "c"]).count("probability_") == 3
