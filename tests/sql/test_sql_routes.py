"""The routes to a database: ADBC and SQLAlchemy objects are recognised without importing either
(their packages are optional; stand-ins with the same shape are used here), dialects are guessed
from the driver (issue 27)."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import duckdb
import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql
from veracity.sql._connect import open_database

from .conftest import load

P = np.array([0.1, 0.4, 0.35, 0.8, 0.65, 0.2, 0.9, 0.55])
Y = np.array([0, 0, 1, 1, 1, 0, 1, 0])


class FakeAdbc:
    """The shape of an ADBC DB-API connection (``adbc_get_info`` names the vendor)."""

    def __init__(self, conn):
        self._conn = conn

    def adbc_get_info(self):
        return {"vendor_name": "DuckDB", "driver_name": "ADBC DuckDB Driver"}

    def cursor(self):
        return self._conn.cursor()


def test_an_adbc_connection_is_read_through_its_cursor_with_the_vendors_dialect():
    conn = duckdb.connect(":memory:")
    load("duckdb", conn, "t", {"p": P, "y": Y})
    fake = FakeAdbc(conn)
    assert open_database(fake).dialect == "duckdb"
    got = audit_sql(fake, table="t", score="p", label="y", min_count=1)
    assert got.auc == vc.auc(P, Y) and abs(got.ece - vc.ece(P, Y)) < 1e-12


def _sqlalchemy_engine(path):
    """A stand-in for ``sqlalchemy.create_engine("sqlite:///path")``: engine -> connection -> DB-API."""
    closed = []

    class Connection:
        __module__ = "sqlalchemy.engine.base"
        dialect = SimpleNamespace(name="sqlite")

        def __init__(self):
            self.connection = SimpleNamespace(dbapi_connection=sqlite3.connect(path))

        def exec_driver_sql(self, sql):  # pragma: no cover - never called: the DB-API cursor is used
            raise AssertionError

        def close(self):
            closed.append(True)
            self.connection.dbapi_connection.close()

    class Engine:
        __module__ = "sqlalchemy.engine.base"
        dialect = SimpleNamespace(name="sqlite")

        def raw_connection(self):  # pragma: no cover
            raise AssertionError

        def connect(self):
            return Connection()

    return Engine(), Connection, closed


def test_a_sqlalchemy_engine_and_connection(tmp_path):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    load("sqlite", conn, "t", {"p": P, "y": Y})
    conn.close()
    engine, connection_type, closed = _sqlalchemy_engine(path)
    got = audit_sql(engine, table="t", score="p", label="y", min_count=1)
    assert got.auc == vc.auc(P, Y)
    assert closed == [True]  # the connection opened from the engine is closed again
    sa_conn = connection_type()
    got = audit_sql(sa_conn, table="t", score="p", label="y", min_count=1)
    assert got.n == P.size and closed == [True]  # a connection passed in stays open
    sa_conn.close()


@pytest.mark.parametrize("conn, dialect", [
    (sqlite3.connect(":memory:"), "sqlite"),
    (duckdb.connect(":memory:"), "duckdb"),
])
def test_the_dialect_is_guessed_from_the_driver(conn, dialect):
    assert open_database(conn).dialect == dialect


def test_an_unknown_driver_asks_for_dialect():
    class Mystery:
        def cursor(self):  # pragma: no cover
            raise AssertionError

    with pytest.raises(vc.VeracityError, match=r"cannot tell which SQL dialect .* pass dialect="):
        audit_sql(Mystery(), table="t", score="p", label="y")
