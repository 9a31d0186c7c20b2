"""Live engines for the SQL pushdown tests: SQLite (stdlib), DuckDB and a real PostgreSQL.

PostgreSQL comes from the ``pgserver`` wheel: one server per test session in a
temporary directory, stopped and deleted at the end; its tests are skipped (with the
reason) only where it cannot start. A run killed before its end (a timeout's SIGKILL) leaves its server
running: the next run stops it first (:func:`stop_orphaned_servers`).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import sqlite3
import tempfile
from typing import Any

import numpy as np
import pytest


def _gone(pid: int, written: float) -> bool:
    """Whether the process ``pid`` that wrote a file at time ``written`` has ended: no process has that
    pid, or the one that has it started after the file was written (the pid reused)."""
    import psutil

    try:
        return psutil.Process(pid).create_time() > written + 1.0
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:  # cannot tell: alive
        return False


def _serving(folder: str) -> bool:
    """Whether a server answers on a PostgreSQL socket (``.s.PGSQL.<port>``) in ``folder``."""
    import socket

    for path in glob.glob(os.path.join(folder, ".s.PGSQL.*[0-9]")):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            try:
                sock.connect(path)
                return True
            except OSError:
                pass
    return False


def stop_orphaned_servers() -> list[str]:
    """Stop and delete the test PostgreSQL servers of earlier runs that ended without stopping them.

    A folder ``<tmp>/veracity-pg-*`` of this user (as root: of pgserver's ``pgserver`` user) is an orphan
    where pgserver's list of the processes holding its server (``.handle_pids.json``, the pytest
    processes; a killed one never removes itself) names at least one pid and every one of them has ended
    (:func:`_gone`). A live run's folder (its pytest process alive; a folder still being set up, whose list
    is not written yet) is never touched, so parallel runs and xdist workers keep their servers. The
    orphan's postmaster (``postmaster.pid``, checked to be a ``postgres`` process on that folder) gets
    SIGQUIT (immediate shutdown), then SIGKILL after 5 s, and the folder is deleted unless a server still
    answers on its socket (one this process cannot see). Returns the folders deleted.
    """
    import json

    import psutil

    owners = {os.geteuid()}
    if os.geteuid() == 0:
        try:
            import pwd

            owners.add(pwd.getpwnam("pgserver").pw_uid)
        except KeyError:
            pass
    stopped = []
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), "veracity-pg-*")):
        handles = os.path.join(folder, ".handle_pids.json")
        try:
            if os.lstat(folder).st_uid not in owners or os.path.islink(folder):
                continue
            written = os.stat(handles).st_mtime
            with open(handles) as fh:
                pids = json.load(fh)
        except (OSError, ValueError):
            continue  # no list yet (being set up, or not pgserver's): not ours to judge
        if not isinstance(pids, list) or not pids or not all(isinstance(p, int) and _gone(p, written)
                                                               for p in pids):
            continue
        try:
            with open(os.path.join(folder, "postmaster.pid")) as fh:
                master = psutil.Process(int(fh.readline()))
            if master.name() == "postgres" and folder in " ".join(master.cmdline()):
                master.send_signal(signal.SIGQUIT)
                try:
                    master.wait(5)
                except psutil.TimeoutExpired:
                    master.kill()
        except (OSError, ValueError, psutil.Error):
            pass  # no server left running (or already stopped by a parallel run)
        if _serving(folder):
            continue  # a server this process cannot see (another PID namespace) still answers there
        shutil.rmtree(folder, ignore_errors=True)
        stopped.append(folder)
    return stopped


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
