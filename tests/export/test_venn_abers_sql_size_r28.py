"""The SQL of a binary Venn-ABERS map is one compact step table, exact on every engine (session 28).

The quotient ``p1 / ((1 - p0) + p1)`` was written with its p1 table twice and its p0 table once, each a
lookup over every distinct fit score; DuckDB's cell chain then padded each of its arrays with a repeated
largest double: 4.7 MB of text for 5,000 fit rows (DuckDB, 1.3 s on 10^5 rows), and a fit on 50,000 rows
was refused. Now the quotient is one table (a value on every open gap between knots, one at every knot,
equal neighbours merged), computed with transform's own operations, and the chain's unreachable entries
are one character.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.export import _sql
from veracity.export._sql import DIALECTS

N_EVAL = 100_000


def _fit(n: int, seed: int = 28) -> vc.VennAbers:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.001, 0.999, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return vc.VennAbers().fit(p, y)


def _scores(va: vc.VennAbers, n: int = N_EVAL, seed: int = 5) -> np.ndarray:
    """n scores: uniform, rounded (ties), knots (every one, or n/6 of them evenly spread) and their two
    neighbouring doubles, 0, 1, bounds."""
    rng = np.random.default_rng(seed)
    c = va.c_[::-(-va.c_.size // (n // 6))]
    special = np.concatenate([c, np.nextafter(c, -np.inf), np.nextafter(c, np.inf),
                              [0.0, 1.0, 5e-324, 2.220446049250313e-16, np.nextafter(1.0, 0.0), 0.5]])
    special = special[(special >= 0.0) & (special <= 1.0)]
    rest = n - special.size
    s = np.concatenate([special, np.round(rng.random(rest // 2), 3), rng.random(rest - rest // 2)])
    rng.shuffle(s)
    return s


@pytest.fixture(scope="module")
def va5000() -> vc.VennAbers:
    return _fit(5000)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_text_of_5000_fit_rows_is_compact(va5000, dialect):
    # the three tables of 5,000 knots wrote 1.2 MB (SQLite) to 4.7 MB (DuckDB); one merged table ~0.05-0.25 MB
    text = va5000.to_sql(column="score", dialect=dialect)
    assert len(text) < 400_000, (dialect, len(text))


def test_the_text_is_no_longer_than_one_table_of_the_knots(va5000):
    # the p1 table was written twice: the text held each knot (as a CASE bound) three times or more
    text = va5000.to_sql(column="score", dialect="sqlite")
    # each knot as the SQLite text writes it (session 29: the fewest digits SQLite reads back exactly; a
    # knot where the merged table has no edge is not written at all)
    counts = [text.count(f"< {_sql.float_literal(float(c), 'sqlite')} ") for c in va5000.c_]
    assert max(counts) <= 1 and sum(counts) > 100, (max(counts), sum(counts))


def test_duckdb_equals_transform_on_ties_knots_and_bounds(va5000):
    duckdb = pytest.importorskip("duckdb")
    s = _scores(va5000)
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT unnest($1::DOUBLE[]) AS score", [s.tolist()])
    con.execute("INSERT INTO t VALUES (NULL), ('NaN'), (-0.5), (1.5)")
    rows = con.execute(f"SELECT score, {va5000.to_sql(column='score', dialect='duckdb')} FROM t").fetchall()
    got = {}
    for score, out in rows:
        got.setdefault(score, out)
    ok = np.array([got[v] for v in s], dtype=np.float64)
    np.testing.assert_allclose(ok, va5000.transform(s), rtol=0, atol=1e-12)
    assert all(out is None for score, out in rows if score is None or not 0.0 <= score <= 1.0)


def test_sqlite_equals_transform_on_ties_knots_and_bounds(va5000):
    s = _scores(va5000)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (i INTEGER, score REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i, float(v)) for i, v in enumerate(s)])
    con.execute("INSERT INTO t VALUES (-1, NULL), (-2, -0.5), (-3, 1.5)")
    q = va5000.to_sql(column="score", dialect="sqlite")
    rows = dict(con.execute(f"SELECT i, {q} FROM t").fetchall())
    got = np.array([rows[i] for i in range(s.size)], dtype=np.float64)
    np.testing.assert_allclose(got, va5000.transform(s), rtol=0, atol=1e-12)
    assert rows[-1] is None and rows[-2] is None and rows[-3] is None


def test_a_fit_on_50000_rows_exports():
    # it was refused: 450,003 step-table entries (three tables of 50,000 knots); merged: a few thousand steps
    va = _fit(50_000)
    text = va.to_sql(column="score", dialect="sqlite")
    s = _scores(va, 20_000)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (i INTEGER, score REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i, float(v)) for i, v in enumerate(s)])
    rows = dict(con.execute(f"SELECT i, {text} FROM t").fetchall())
    np.testing.assert_allclose([rows[i] for i in range(s.size)], va.transform(s), rtol=0, atol=1e-12)
    assert len(text) < 400_000


def _hand_made(k: int) -> vc.VennAbers:
    """A Venn-ABERS table whose bounds change at every one of its k knots: 2k steps, no compact SQL."""
    doc = _fit(50).to_dict()
    doc["state"]["c_"] = np.linspace(0.001, 0.999, k).tolist()
    doc["state"]["p0_"] = np.linspace(0.0, 0.49, k + 1).tolist()
    doc["state"]["p1_"] = np.linspace(0.51, 1.0, k + 1).tolist()
    return vc.load(doc)


def test_a_table_too_long_for_any_dialect_is_refused_in_one_line(error_line):
    va = _hand_made(40_000)
    message = error_line(lambda: va.to_sql("score", dialect="duckdb"))
    assert "240,001 step-table entries" in message and "at most 200,000" in message
    assert "80,000 steps" in message and "to_onnx" in message and "rounded scores" in message
