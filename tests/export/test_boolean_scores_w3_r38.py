"""A BOOLEAN score column: what the exported SQL does with it, and what to_sql's docs say (session 38).

``transform()`` reads a boolean score as 1/0. The SQL reads its column as ``CAST(column AS DOUBLE)`` without
knowing the column's type (a cast through an integer would truncate every real score), so a BOOLEAN column
is read as 1/0 where the engine casts a boolean to a double (DuckDB, SQLite's stored 1/0, Spark, Trino,
Snowflake) and is an engine error on PostgreSQL and BigQuery. The docs said nothing of it; they now name the
dialects and the one-line way around (the column cast to an integer in a subquery), which gives
``transform()``'s numbers on PostgreSQL.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_sql

FLAGS = np.array([True, False, True, True, False])
TOL = 1e-12


@pytest.fixture(scope="module")
def platt():
    rng = np.random.default_rng(38)
    s = rng.uniform(size=500)
    return vc.PlattScaling().fit(s, (rng.uniform(size=s.size) < s).astype(np.int64))


def test_to_sql_docs_name_the_boolean_column_rule():
    doc = " ".join((to_sql.__doc__ or "").split())
    assert "BOOLEAN score column" in doc and "PostgreSQL and BigQuery refuse that cast" in doc
    assert "CAST(flag AS INTEGER)" in doc


def test_duckdb_and_sqlite_read_a_boolean_column_as_transform_does(platt):
    duckdb = pytest.importorskip("duckdb")
    want = platt.transform(FLAGS)
    rows = [(i, bool(f)) for i, f in enumerate(FLAGS)]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, score BOOLEAN)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)
    got = [r[0] for r in con.execute(f"SELECT {platt.to_sql('score')} FROM t ORDER BY i").fetchall()]
    assert np.abs(np.array(got) - want).max() <= TOL
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (i INTEGER, score BOOLEAN)")
    lite.executemany("INSERT INTO t VALUES (?, ?)", rows)
    sql = platt.to_sql("score", dialect="sqlite")
    got = [r[0] for r in lite.execute(f"SELECT {sql} FROM t ORDER BY i").fetchall()]
    assert np.abs(np.array(got) - want).max() <= TOL


def test_postgres_refuses_the_cast_and_the_documented_subquery_reads_it(platt, postgres):
    import psycopg

    sql = platt.to_sql("score", dialect="postgres")
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS flags_w3")
        con.execute("CREATE TABLE flags_w3 (i INTEGER, flag BOOLEAN)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO flags_w3 VALUES (%s, %s)",
                            [(i, bool(f)) for i, f in enumerate(FLAGS)])
        with pytest.raises(psycopg.Error, match="cannot cast type boolean to double precision"):
            con.execute(f'SELECT {sql} FROM (SELECT i, flag AS score FROM flags_w3) s')
        cast = "SELECT i, CAST(flag AS INTEGER) AS score FROM flags_w3"
        got = [r[0] for r in con.execute(f"SELECT {sql} FROM ({cast}) s ORDER BY i").fetchall()]
    assert np.abs(np.array(got) - platt.transform(FLAGS)).max() <= TOL
