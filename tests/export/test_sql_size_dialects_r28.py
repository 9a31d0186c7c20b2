"""Step tables write each array once on every array dialect; a prior shift folds into the table (session 28).

PostgreSQL, Spark, BigQuery, Snowflake and Trino looked a score's piece up with a cell index whose
edge array was written once per comparison, and the cell array again inside each of those and inside
the final index: a 1,000-knot isotonic was 165-206 KB there (SQLite's tree: 80 KB), a Venn-ABERS fit
on 5,000 rows 152-189 KB (SQLite: 39 KB). Now each array is written once (per-cell edge arrays and a
CASE that stops at the cell's last edge). A prior shift wrote the step table three times or more (the
shift's formula reads the probability three times; a Venn-ABERS table 8x larger on SQLite, 1.2 MB on
PostgreSQL): now each step's value is shifted in Python by adjust_prior itself, bit for bit.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.export import _sql

ARRAY_DIALECTS = ("bigquery", "postgres", "snowflake", "spark", "trino")
PRIOR = (0.3, 0.1)


def _isotonic(knots: int = 1000, seed: int = 0) -> vc.IsotonicCalibration:
    """A step isotonic map with exactly ``knots`` knots on [0, 1] (benchmarks/bench_export.py's)."""
    rng = np.random.default_rng(seed)
    x = np.unique(rng.random(knots + 8))[:knots]
    y = np.sort(rng.random(knots))
    doc = {"format": "veracity.calibrator", "version": 1, "kind": "isotonic",
           "params": {"score_type": "probability", "ties": "allow", "interpolation": "step"},
           "state": {"knots_x_": x.tolist(), "knots_y_": y.tolist(), "n_unique_": knots, "n_steps_": knots,
                     "ties_created_": 0, "n_classes_": 2},
           "metadata": {"n_rows": 10 * knots, "score_type": "probability"}}
    return vc.load(doc)


def _venn_abers(n: int = 5000, seed: int = 28) -> vc.VennAbers:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.001, 0.999, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return vc.VennAbers().fit(p, y)


@pytest.fixture(scope="module")
def iso() -> vc.IsotonicCalibration:
    return _isotonic()


@pytest.fixture(scope="module")
def va() -> vc.VennAbers:
    return _venn_abers()


def _scores(knots: np.ndarray, n: int = 30_000, seed: int = 3) -> np.ndarray:
    """Every knot and its two neighbouring doubles, 0, 1, ties (rounded) and uniform scores."""
    rng = np.random.default_rng(seed)
    special = np.concatenate([knots, np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf),
                              [0.0, 1.0, 5e-324, np.nextafter(1.0, 0.0), 0.5]])
    special = special[(special >= 0.0) & (special <= 1.0)]
    rest = max(n - special.size, 0)
    return np.concatenate([special, np.round(rng.random(rest // 2), 3), rng.random(rest - rest // 2)])


# -- size -----------------------------------------------------------------------------------------------
# (the dialects are looped over, not parameters: a "spark" parameter starts a Spark session for the test)
def test_a_1000_knot_isotonic_is_no_longer_than_sqlite_tree_on_every_array_dialect(iso):
    # before: 165,505 (postgres), 165,112 (spark), ~206,000 (bigquery, snowflake, trino); SQLite's tree 80,263
    for dialect in ARRAY_DIALECTS:
        text = iso.to_sql(column="score", dialect=dialect)
        limit = 80_000 if dialect in ("postgres", "spark") else 120_000
        assert len(text) < limit, (dialect, len(text))


def test_a_venn_abers_fit_on_5000_rows_is_compact_on_every_array_dialect(va):
    # before: 152,884 (postgres), 152,281 (spark), ~189,000 (bigquery, snowflake, trino); SQLite 39,218
    for dialect in ARRAY_DIALECTS:
        text = va.to_sql(column="score", dialect=dialect)
        limit = 60_000 if dialect in ("postgres", "spark") else 100_000
        assert len(text) < limit, (dialect, len(text))


def test_each_knot_is_written_once(iso):
    # the edge array was written once per comparison of the cell index (and the knot once per copy)
    for dialect in ("postgres", "spark"):
        text = iso.to_sql(column="score", dialect=dialect)
        for knot in iso.knots_x_[100:900:97]:
            assert text.count(repr(float(knot))) == 1, (dialect, knot)


@pytest.mark.parametrize("dialect", ("sqlite", "postgres", "duckdb", "bigquery"))
@pytest.mark.parametrize("which", ("iso", "va"))
def test_a_prior_shift_does_not_repeat_the_step_table(iso, va, which, dialect):
    cal = iso if which == "iso" else va
    plain = len(cal.to_sql(column="score", dialect=dialect))
    shifted = len(cal.to_sql(column="score", dialect=dialect, prior_shift=PRIOR))
    # before: 3x to 8x the plain text (Venn-ABERS on PostgreSQL: 1.2 MB)
    assert shifted < 1.1 * plain, (which, dialect, plain, shifted)


# -- exactness ------------------------------------------------------------------------------------------
def _sqlite(text: str, s: np.ndarray) -> np.ndarray:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (i INTEGER, score REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i, float(v)) for i, v in enumerate(s)])
    rows = dict(con.execute(f"SELECT i, {text} FROM t").fetchall())
    return np.array([rows[i] for i in range(s.size)], dtype=np.float64)


def _duckdb(text: str, s: np.ndarray) -> np.ndarray:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i - 1 AS i, s[i] AS score FROM "
                "(SELECT $1::DOUBLE[] AS s), range(1, len(s) + 1) r(i)", [s.tolist()])
    rows = dict(con.execute(f"SELECT i, {text} FROM t").fetchall())
    return np.array([rows[i] for i in range(s.size)], dtype=np.float64)


@pytest.mark.parametrize("engine", ("sqlite", "duckdb"))
@pytest.mark.parametrize("which", ("iso", "va"))
def test_a_shifted_step_table_is_adjust_prior_of_transform_bit_for_bit(iso, va, which, engine):
    cal = iso if which == "iso" else va
    knots = iso.knots_x_ if which == "iso" else va.c_
    s = _scores(np.asarray(knots))
    text = cal.to_sql(column="score", dialect=engine, prior_shift=PRIOR)
    got = (_sqlite if engine == "sqlite" else _duckdb)(text, s)
    np.testing.assert_array_equal(got, vc.adjust_prior(cal.transform(s), *PRIOR))


def test_a_shift_of_a_rare_prior_stays_exact_near_0_and_1(va):
    # adjust_prior's underflow-safe form (old = new = 1e-16): the folded values are its own
    s = _scores(va.c_, n=5000)
    s = np.concatenate([s, [1e-310, 1e-300, 1e-17]])
    prior = (1e-16, 1e-16)
    got = _sqlite(va.to_sql(column="score", dialect="sqlite", prior_shift=prior), s)
    np.testing.assert_array_equal(got, vc.adjust_prior(va.transform(s), *prior))


def _negative_logits() -> vc.VennAbers:
    """Venn-ABERS on logit scores that are all negative: the lookup's stop past a cell's last edge is
    a negative number (ceil of the last edge)."""
    rng = np.random.default_rng(4)
    z = rng.uniform(-30.0, -2.5, 3000)
    y = (rng.random(3000) < 1.0 / (1.0 + np.exp(-z / 4.0))).astype(int)
    return vc.VennAbers(score_type="logit").fit(z, y)


@pytest.mark.parametrize("which", ("iso", "va", "negative"))
def test_the_cell_index_lookup_is_exact_on_duckdb(iso, va, which, monkeypatch):
    # DuckDB normally takes the CASE chain; without it, the cell-index lookup every other array dialect
    # uses, run here on a real engine (1-based arrays, as PostgreSQL's and Trino's)
    monkeypatch.setattr(_sql, "_CHAIN", set())
    cal = {"iso": iso, "va": va}.get(which) or _negative_logits()
    knots = np.asarray(cal.knots_x_ if which == "iso" else cal.c_)
    s = _scores(knots)
    if which == "negative":
        s = np.concatenate([knots, np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf),
                            np.random.default_rng(5).uniform(-40.0, 5.0, 20_000), [-2.0, -3.0, 0.0]])
    text = cal.to_sql(column="score", dialect="duckdb")
    assert "FLOOR(" in text and "TRY_CAST" not in text  # the cell index, not the chain
    np.testing.assert_array_equal(_duckdb(text, s), cal.transform(s))


def test_the_cell_index_lookup_is_exact_on_postgres(iso, va, postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        for cal, knots in ((iso, iso.knots_x_), (va, va.c_)):
            s = _scores(np.asarray(knots), n=8000)
            con.execute("DROP TABLE IF EXISTS r28")
            con.execute("CREATE TABLE r28 (i bigint, score double precision)")
            with con.cursor().copy("COPY r28 (i, score) FROM STDIN") as copy:
                for i, v in enumerate(s):
                    copy.write_row((i, float(v)))
            for prior in (None, PRIOR):
                text = cal.to_sql(column="score", dialect="postgres", prior_shift=prior)
                rows = dict(con.execute(f"SELECT i, {text} FROM r28").fetchall())
                got = np.array([rows[i] for i in range(s.size)], dtype=np.float64)
                want = cal.transform(s) if prior is None else vc.adjust_prior(cal.transform(s), *prior)
                np.testing.assert_array_equal(got, want)
