"""Live engines for the SQL pushdown tests: SQLite (stdlib), DuckDB and a real PostgreSQL.

PostgreSQL comes from the ``pgserver`` wheel: one server per test session in a
temporary directory, stopped and deleted at the end; its tests are skipped (with the
reason) only where it cannot start.
"""

from __future__ import annotations

import sqlite3
import tempfile
import warnings
from typing import Any

import numpy as np
import pytest


@pytest.fixture(scope="session")
def pg_uri() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver
            import psycopg  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"PostgreSQL tests need pgserver and psycopg: {exc}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a fresh directory outside pytest's own (0700 as root, which the server's user could not enter)
            server = pgserver.get_server(tempfile.mkdtemp(prefix="veracity-pg-"), cleanup_mode="delete")
            uri = server.get_uri()
    except Exception as exc:  # noqa: BLE001 - any failure to start is a skip with its reason
        pytest.skip(f"the pgserver PostgreSQL could not start here: {type(exc).__name__}: {exc}")
    yield uri
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server.cleanup()


@pytest.fixture(scope="session")
def pg_conn(pg_uri: str) -> Any:
    import psycopg

    conn = psycopg.connect(pg_uri, autocommit=True)
    yield conn
    conn.close()


def _sql_type(values: np.ndarray) -> str:
    if values.dtype.kind == "f":
        return "DOUBLE PRECISION"
    if values.dtype.kind in "iu":
        return "BIGINT"
    if values.dtype.kind == "b":
        return "BOOLEAN"
    return "TEXT"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _py(v: Any) -> Any:
    if v is None:
        return None
    return v.item() if hasattr(v, "item") else v


def insert_rows(con: Any, insert: str, row: str, rows: list) -> None:
    """``con.executemany(insert + row, rows)`` on SQLite; on DuckDB the same rows, bound the same way, in one
    multi-row INSERT (DuckDB runs an executemany one statement per row: ~1 ms of CPU each)."""
    if isinstance(con, sqlite3.Connection):
        con.executemany(f"{insert} {row}", rows)
    else:
        con.execute(f"{insert} {', '.join([row] * len(rows))}", [v for r in rows for v in r])


_LOADED: dict[tuple[int, str], int] = {}


def load_once(engine: str, conn: Any, table: str, columns: dict[str, np.ndarray]) -> None:
    """:func:`load`, skipped when this connection already holds these very columns."""
    key = (id(conn), table)
    if _LOADED.get(key) != id(columns):
        load(engine, conn, table, columns)
        _LOADED[key] = id(columns)


def load(engine: str, conn: Any, table: str, columns: dict[str, np.ndarray]) -> None:
    """Create ``table`` in ``conn`` holding ``columns`` (replacing an older one)."""
    _LOADED.pop((id(conn), table), None)
    names = list(columns)
    n = len(next(iter(columns.values())))
    rows = [tuple(_py(columns[c][i]) for c in names) for i in range(n)]
    decl = ", ".join(f"{_quoted(c)} {_sql_type(np.asarray(columns[c]))}" for c in names)
    if engine == "sqlite":
        decl = decl.replace("DOUBLE PRECISION", "REAL").replace("BOOLEAN", "INTEGER")
    conn.execute(f"DROP TABLE IF EXISTS {_quoted(table)}")
    conn.execute(f"CREATE TABLE {_quoted(table)} ({decl})")
    marks = ", ".join(["%s" if engine == "postgres" else "?"] * len(names))
    insert = f"INSERT INTO {_quoted(table)} VALUES ({marks})"
    if engine == "postgres":
        with conn.cursor() as cur:
            cur.executemany(insert, rows)
    elif engine == "duckdb":
        import pandas as pd

        frame = pd.DataFrame({c: columns[c] for c in names})
        conn.register("_frame", frame)
        conn.execute(f"INSERT INTO {_quoted(table)} SELECT * FROM _frame")
        conn.unregister("_frame")
    else:
        conn.executemany(insert, rows)
        conn.commit()


@pytest.fixture(scope="module", params=["sqlite", "duckdb", "postgres"])
def engine(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """``(name, connection)`` of each live engine."""
    if request.param == "sqlite":
        conn = sqlite3.connect(":memory:")
        yield "sqlite", conn
        conn.close()
    elif request.param == "duckdb":
        import duckdb

        conn = duckdb.connect(":memory:")
        yield "duckdb", conn
        conn.close()
    else:
        yield "postgres", request.getfixturevalue("pg_conn")


class CountingCursor:
    """A DB-API cursor that counts the rows handed back to Python."""

    def __init__(self, cur: Any, owner: "CountingConnection") -> None:
        self._cur, self._owner = cur, owner

    def execute(self, sql: str, *args: Any) -> "CountingCursor":
        self._owner.statements.append(sql)
        self._cur.execute(sql, *args)
        return self

    @property
    def description(self) -> Any:
        return self._cur.description

    def fetchall(self) -> list:
        rows = self._cur.fetchall()
        self._owner.rows += len(rows)
        self._owner.largest = max(self._owner.largest, len(rows))
        return rows

    def fetchone(self) -> Any:
        row = self._cur.fetchone()
        self._owner.rows += row is not None
        return row

    def fetchmany(self, size: int = 1) -> list:
        rows = self._cur.fetchmany(size)
        self._owner.rows += len(rows)
        return rows

    def __iter__(self) -> Any:
        for row in self._cur:
            self._owner.rows += 1
            yield row

    def close(self) -> None:
        self._cur.close()


class CountingConnection:
    """Wraps a DB-API connection: every row that reaches Python through a cursor is counted."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.rows = 0
        self.largest = 0
        self.statements: list[str] = []

    def cursor(self) -> CountingCursor:
        return CountingCursor(self._conn.cursor(), self)

    def rollback(self) -> None:
        self._conn.rollback()
