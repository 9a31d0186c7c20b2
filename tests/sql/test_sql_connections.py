"""Real SQLAlchemy engines and connections, and real ADBC connections, against SQLite and the
pgserver PostgreSQL: the same audit as the rows in memory (1e-12, the AUC bit for bit), only
aggregates fetched, the caller's connections left open (issue 27).

SQLAlchemy and the ADBC drivers are optional (the dev extra installs them); each test skips,
with the reason, where its package is missing.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql
from veracity.sql._connect import open_database

from .conftest import load
from .test_sql_audit import assert_same

N = 3_000


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(27)
    p = np.round(rng.beta(2.0, 3.0, N), 3)  # ties: the exact AUC's hard case
    y = (rng.random(N) < p ** 0.8).astype(np.int64)
    seg = np.array(["web", "mobile", "partner"])[rng.integers(0, 3, N)]
    return {"p": p, "y": y, "seg": seg}


DATA = _data()


def _want(by: str | None = None) -> vc.AuditResult:
    import pandas as pd

    return vc.audit(pd.DataFrame(DATA), score="p", label="y", by=by, bins=10)


def _check(got: vc.AuditResult, by: str | None = None) -> None:
    want = _want(by)
    assert got.auc == want.auc  # unweighted: whole-number sums, the array form's AUC bit for bit
    assert_same(got.to_dict(), want.to_dict())


@pytest.fixture(scope="module")
def sqlite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sa") / "scores.db"
    conn = sqlite3.connect(path)
    load("sqlite", conn, "scores", DATA)
    conn.close()
    return path


@pytest.fixture(scope="module")
def pg_table(pg_uri, pg_conn):
    load("postgres", pg_conn, "conn_scores", DATA)
    return pg_uri


# -- SQLAlchemy ---------------------------------------------------------------------------------------
def _sqlalchemy():
    return pytest.importorskip("sqlalchemy", reason="SQLAlchemy is optional (pip install sqlalchemy)")


def test_sqlalchemy_engine_on_sqlite(sqlite_file, caplog):
    sa = _sqlalchemy()
    engine = sa.create_engine(f"sqlite:///{sqlite_file}")
    _check(audit_sql(engine, table="scores", score="p", label="y", bins=10))
    _check(audit_sql(engine, table="scores", score="p", label="y", by="seg", bins=10), by="seg")
    assert engine.pool.checkedout() == 0  # the connection it opened from the engine went back
    # ... through SQLAlchemy: its DB-API connection was not closed under the pool (which logs an
    # error when it resets a closed connection), and the engine still serves queries
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
    with engine.connect() as conn:
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM "scores"').scalar() == N
    assert open_database(engine).dialect == "sqlite"
    engine.dispose()


def test_sqlalchemy_connection_on_sqlite_stays_open(sqlite_file):
    sa = _sqlalchemy()
    engine = sa.create_engine(f"sqlite:///{sqlite_file}")
    with engine.connect() as conn:
        _check(audit_sql(conn, table="scores", score="p", label="y", bins=10))
        assert not conn.closed  # the caller's connection is left open and usable
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM "scores"').scalar() == N
    engine.dispose()


def test_sqlalchemy_engine_and_connection_on_postgres(pg_table):
    sa = _sqlalchemy()
    pytest.importorskip("psycopg")
    engine = sa.create_engine(pg_table.replace("postgresql://", "postgresql+psycopg://", 1))
    assert open_database(engine).dialect == "postgres"
    _check(audit_sql(engine, table="conn_scores", score="p", label="y", bins=10))
    with engine.connect() as conn:
        _check(audit_sql(conn, table="conn_scores", score="p", label="y", by="seg", bins=10), by="seg")
        assert not conn.closed
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM "conn_scores"').scalar() == N
    assert engine.pool.checkedout() == 0
    engine.dispose()


def test_sqlalchemy_error_names_the_table_without_the_password(sqlite_file):
    sa = _sqlalchemy()
    engine = sa.create_engine(f"sqlite:///{sqlite_file}")
    with pytest.raises(vc.VeracityError, match="no such table") as info:
        audit_sql(engine, table="missing", score="p", label="y")
    assert "\n" not in str(info.value)
    engine.dispose()


# -- ADBC ---------------------------------------------------------------------------------------------
def test_adbc_sqlite(sqlite_file):
    dbapi = pytest.importorskip("adbc_driver_sqlite.dbapi", reason="ADBC is optional (pip install adbc-driver-sqlite)")
    with dbapi.connect(str(sqlite_file)) as conn:
        assert open_database(conn).dialect == "sqlite"
        _check(audit_sql(conn, table="scores", score="p", label="y", bins=10))
        _check(audit_sql(conn, table="scores", score="p", label="y", by="seg", bins=10), by="seg")
        with conn.cursor() as cur:  # left open
            cur.execute('SELECT COUNT(*) FROM "scores"')
            assert cur.fetchone()[0] == N


def test_adbc_postgres(pg_table):
    dbapi = pytest.importorskip("adbc_driver_postgresql.dbapi",
                                reason="ADBC is optional (pip install adbc-driver-postgresql)")
    with dbapi.connect(pg_table) as conn:
        assert open_database(conn).dialect == "postgres"
        _check(audit_sql(conn, table="conn_scores", score="p", label="y", bins=10))
        _check(audit_sql(conn, table="conn_scores", score="p", label="y", by="seg", bins=10), by="seg")
        # a failed statement does not poison the connection: the next audit still runs
        with pytest.raises(vc.VeracityError, match="no_such_table"):
            audit_sql(conn, table="no_such_table", score="p", label="y")
        _check(audit_sql(conn, table="conn_scores", score="p", label="y", bins=10))


def test_only_aggregates_travel_through_a_real_adbc_connection(sqlite_file):
    dbapi = pytest.importorskip("adbc_driver_sqlite.dbapi", reason="ADBC is optional (pip install adbc-driver-sqlite)")
    from .conftest import CountingConnection

    with dbapi.connect(str(sqlite_file)) as conn:
        counted = CountingConnection(conn)
        got = audit_sql(counted, table="scores", score="p", label="y", by="seg", bins=10, dialect="sqlite")
        _check(got, by="seg")
        assert counted.largest <= 10 * 3 and counted.rows <= 10 * 3 + 10 * 1 + 4


# -- the command line with a SQLAlchemy URL: the password is never printed ------------------------------
def test_cli_sqlalchemy_url_never_prints_the_password(cli):
    _sqlalchemy()
    secret = "S3cr-et;pw"
    url = f"mssql+pymssql://sa:{secret}@127.0.0.1:1/db"  # a SQLAlchemy-only scheme (no such server)
    res = cli(["audit", "--sql-url", url, "--table", "t", "--score", "p", "--label", "y"])
    assert res.code == 2
    assert secret not in res.out + res.err
    assert "sa:***@" in res.err and "Traceback" not in res.err


class _Recorded:
    """A psycopg connection whose statements are recorded; ``autocommit`` is the connection's own."""

    def __init__(self, conn):
        self._conn, self.statements = conn, []

    @property
    def autocommit(self):
        return self._conn.autocommit

    def cursor(self):
        outer, cur = self, self._conn.cursor()

        class Cursor:
            description = property(lambda _: cur.description)

            def execute(self, sql):
                outer.statements.append(sql)
                cur.execute(sql)

            def fetchall(self):
                return cur.fetchall()

            def close(self):
                cur.close()

        return Cursor()

    def rollback(self):
        self._conn.rollback()


def _pg_scores(pg_conn):
    from .conftest import load

    rng = np.random.default_rng(8)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(np.int64)
    load("postgres", pg_conn, "wm", {"p": p, "y": y})
    return p, y


def test_postgres_sorts_with_more_work_mem_for_that_statement_alone(pg_uri, pg_conn):
    """The statements that sort every row run with work_mem raised (SET LOCAL); an autocommit
    connection gets a transaction of its own around each, and its session keeps its setting."""
    from veracity.sql._connect import SORT_WORK_MEM

    _pg_scores(pg_conn)
    recorded = _Recorded(pg_conn)
    got = audit_sql(recorded, table="wm", score="p", label="y", dialect="postgres")
    assert got.n == 500
    raise_it = f"SELECT set_config('work_mem', '{SORT_WORK_MEM // 1024}kB', true)"
    at = [i for i, s in enumerate(recorded.statements) if s == raise_it]
    assert at and all(recorded.statements[i - 2] == "BEGIN" and recorded.statements[i + 2] == "COMMIT" for i in at)
    assert "_nle" in recorded.statements[at[0] + 1]  # the AUC's sort
    assert pg_conn.execute("SHOW work_mem").fetchone()[0] == "4MB"
    assert pg_conn.info.transaction_status.name == "IDLE"


def test_postgres_work_mem_inside_the_callers_transaction(pg_uri, pg_conn):
    """Inside an open transaction the caller's own SET LOCAL is set back after each sorting
    statement, and the transaction stays open; a setting already larger is left alone."""
    import psycopg

    p, y = _pg_scores(pg_conn)
    with psycopg.connect(pg_uri) as conn:  # autocommit off: the driver opens a transaction
        conn.execute("SET LOCAL work_mem = '5MB'")
        got = audit_sql(conn, table="wm", score="p", label="y")
        assert conn.execute("SHOW work_mem").fetchone()[0] == "5MB"
        assert conn.info.transaction_status.name == "INTRANS"
        conn.rollback()
        conn.execute("SET work_mem = '1GB'")
        recorded = _Recorded(conn)
        audit_sql(recorded, table="wm", score="p", label="y", dialect="postgres")
        assert not any("set_config" in s for s in recorded.statements)
        assert conn.execute("SHOW work_mem").fetchone()[0] == "1GB"
    assert got.auc == vc.auc(p, y)


def test_postgres_a_failed_sorting_statement_ends_its_own_transaction(pg_conn, monkeypatch):
    """A statement that fails inside the transaction begun for it is rolled back: the connection
    is usable at once (autocommit, no transaction left open)."""
    from veracity.sql import _query

    _pg_scores(pg_conn)
    monkeypatch.setattr(_query, "stats_sql", lambda *a, **k: "SELECT 1 / 0 AS _b")
    with pytest.raises(vc.VeracityError, match="division by zero"):
        audit_sql(pg_conn, table="wm", score="p", label="y", bins=10, strategy="quantile")
    assert pg_conn.info.transaction_status.name == "IDLE"
    assert pg_conn.execute("SHOW work_mem").fetchone()[0] == "4MB"
