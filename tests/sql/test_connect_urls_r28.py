"""Round 28: a ``sqlite:///`` / ``duckdb:///`` URL is read as a URL (as SQLAlchemy's make_url reads it).

Before, everything after ``:///`` was the file's name: ``sqlite:///s.db?mode=ro`` looked for a file named
``s.db?mode=ro`` ("unable to open database file"), ``duckdb:///d.duckdb?access_mode=read_only`` for
``d.duckdb?access_mode=read_only`` ("database does not exist"), and ``sqlite:///my%20scores.db`` for
``my%20scores.db``. Now the path runs to the first ``?`` and is percent-decoded; the options after it are
passed to the driver where veracity knows them (the database stays read-only) and any other is refused
in one line naming the supported ones; a file that is not there is said so (and never created).
"""

from __future__ import annotations

import os
import sqlite3
from urllib.parse import quote

import numpy as np
import pytest

import veracity as vc

N = 300


@pytest.fixture(scope="module")
def rows() -> list[tuple[float, int]]:
    rng = np.random.default_rng(28)
    p = np.round(rng.uniform(0.01, 0.99, N), 4)
    y = (rng.uniform(size=N) < p).astype(int)
    return list(zip(p.tolist(), y.tolist()))


def _sqlite(path, rows) -> str:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)
    con.commit()
    con.close()
    return str(path)


def _duckdb(path, rows) -> str:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (p DOUBLE, y INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)
    con.close()
    return str(path)


def _numbers(url: str) -> dict:
    res = vc.audit(url, table="t", score="p", label="y")
    return {"n": res.n, "ece": res.ece, "brier": res.brier}


def _memory(rows) -> dict:
    p, y = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    res = vc.audit(p, y)
    return {"n": res.n, "ece": res.ece, "brier": res.brier}


def _same(got: dict, want: dict) -> None:
    assert got["n"] == want["n"]
    assert got["ece"] == pytest.approx(want["ece"], rel=1e-12)
    assert got["brier"] == pytest.approx(want["brier"], rel=1e-12)


@pytest.mark.parametrize("query", ["mode=ro", "mode=ro&immutable=1", "nolock=1&timeout=2.5", "cache=private"])
def test_sqlite_options_are_the_drivers_not_the_file_name(tmp_path, rows, query) -> None:
    """Before: "cannot connect to sqlite:///...?mode=ro: unable to open database file"."""
    path = _sqlite(tmp_path / "s.db", rows)
    _same(_numbers(f"sqlite:///{path}?{query}"), _memory(rows))
    assert sorted(os.listdir(tmp_path)) == ["s.db"]  # no file named after the query


@pytest.mark.parametrize("query", ["access_mode=read_only", "read_only=true&threads=2",
                                   "memory_limit=512MB&max_memory=512MB"])
def test_duckdb_settings_are_the_drivers_not_the_file_name(tmp_path, rows, query) -> None:
    """Before: "cannot connect to duckdb:///...: Cannot open database ...?access_mode=read_only ... does not
    exist"."""
    path = _duckdb(tmp_path / "d.duckdb", rows)
    _same(_numbers(f"duckdb:///{path}?{query}"), _memory(rows))


def test_a_setting_reaches_duckdb(tmp_path, rows) -> None:
    """threads=3 is DuckDB's setting on the connection veracity opens (not dropped on the way)."""
    from veracity.sql._connect import open_database

    db = open_database(f"duckdb:///{_duckdb(tmp_path / 'd.duckdb', rows)}?threads=3")
    try:
        assert db.query("SELECT current_setting('threads')") == [(3,)]
    finally:
        db.close()


def test_a_percent_encoded_path_is_decoded(tmp_path, rows) -> None:
    """Before: sqlite:///.../my%20scores.db looked for a file named 'my%20scores.db'."""
    path = _sqlite(tmp_path / "my scores #1.db", rows)
    want = _memory(rows)
    _same(_numbers(f"sqlite:///{quote(path)}"), want)
    _same(_numbers(f"sqlite:///{path}"), want)  # a space and a '#' as written: part of the name too
    duck = _duckdb(tmp_path / "my duck.duckdb", rows)
    _same(_numbers(f"duckdb:///{quote(duck)}?threads=1"), want)


def test_relative_and_absolute_paths(tmp_path, rows, monkeypatch, error_line) -> None:
    """sqlite:///rel.db is relative to the working directory, sqlite:////abs.db absolute (SQLAlchemy's
    forms); sqlite://rel.db (two slashes: a host) is refused as SQLAlchemy refuses it (before: it opened
    rel.db, where SQLAlchemy reads an in-memory database)."""
    _sqlite(tmp_path / "rel.db", rows)
    monkeypatch.chdir(tmp_path)
    want = _memory(rows)
    _same(_numbers("sqlite:///rel.db?mode=ro"), want)
    _same(_numbers(f"sqlite:///{tmp_path / 'rel.db'}"), want)  # tmp_path is absolute: four slashes
    assert str(tmp_path).startswith("/")
    said = error_line(lambda: _numbers("sqlite://rel.db"))
    assert "three slashes" in said and "sqlite:///rel.db" in said


def test_sqlalchemys_uri_form(tmp_path, rows, monkeypatch) -> None:
    """SQLAlchemy's ``sqlite:///file:PATH?mode=ro&uri=true``: the path is a file: URI."""
    _sqlite(tmp_path / "s.db", rows)
    monkeypatch.chdir(tmp_path)
    want = _memory(rows)
    _same(_numbers("sqlite:///file:s.db?mode=ro&uri=true"), want)
    _same(_numbers(f"sqlite:///file://{tmp_path / 's.db'}?uri=true"), want)


@pytest.mark.parametrize("url_of, words", [
    (lambda d: f"sqlite:///{d}/s.db?foo=1", ["no option 'foo'", "supported: mode=ro, immutable=1"]),
    (lambda d: f"sqlite:///{d}/s.db?mode=rw", ["mode='rw'", "read-only"]),
    (lambda d: f"sqlite:///{d}/s.db?mode=ro&mode=ro", ["'mode' is given twice"]),
    (lambda d: f"sqlite:///{d}/s.db?timeout=soon", ["timeout='soon'"]),
    (lambda d: f"duckdb:///{d}/d.duckdb?access_mode=read_write", ["access_mode='read_write'", "read-only"]),
    (lambda d: f"duckdb:///{d}/d.duckdb?threads=0", ["threads='0'"]),
    (lambda d: f"duckdb:///{d}/d.duckdb?autoload=1",
     ["no option 'autoload'", "supported: access_mode=read_only"]),
])
def test_an_option_veracity_does_not_know_is_refused(tmp_path, rows, error_line, url_of, words) -> None:
    """Before: the option was part of the file name: "unable to open database file" / "does not exist"."""
    _sqlite(tmp_path / "s.db", rows)
    _duckdb(tmp_path / "d.duckdb", rows)
    said = error_line(lambda: _numbers(url_of(tmp_path)))
    assert all(w in said for w in words), said


@pytest.mark.parametrize("url_of", [
    lambda d: f"sqlite:///{d}/s.db?password=hunter22xyz",
    lambda d: f"duckdb:///{d}/d.duckdb?motherduck_token=hunter22xyz",
    lambda d: f"sqlite://user:hunter22xyz@/{d}/s.db",
])
def test_a_refused_url_never_shows_its_secret(tmp_path, rows, error_line, cli, refused, url_of) -> None:
    _sqlite(tmp_path / "s.db", rows)
    _duckdb(tmp_path / "d.duckdb", rows)
    url = url_of(tmp_path)
    said = error_line(lambda: _numbers(url))
    assert "hunter22" not in said and "***" in said
    assert "no option" in said or "three slashes" in said, said
    res = cli(["audit", "--sql-url", url, "--table", "t", "--score", "p", "--label", "y"])
    refused(res)
    assert "hunter22" not in res.err + res.out


@pytest.mark.parametrize("scheme, name", [("sqlite", "gone.db"), ("duckdb", "gone.duckdb")])
def test_a_file_that_is_not_there_is_said_so_and_never_created(tmp_path, error_line, monkeypatch, scheme,
                                                                name) -> None:
    """Before: "unable to open database file" (SQLite) / DuckDB's "database does not exist" (the path with
    its query); now the file is named, and nothing is created."""
    monkeypatch.chdir(tmp_path)
    query = "?mode=ro" if scheme == "sqlite" else "?access_mode=read_only"
    said = error_line(lambda: _numbers(f"{scheme}:///{name}{query}"))
    want = f"cannot connect to {scheme}:///{name}{query}: no file {name} (relative to {tmp_path})"
    assert want in said, said
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "duckdb:///:memory:?threads=1"])
def test_memory_urls_open_an_empty_database(url, error_line) -> None:
    """In memory: the table is not there (the options are read, not refused)."""
    said = error_line(lambda: _numbers(url))
    assert "failed in" in said and ("no such table" in said or "does not exist" in said), said


def test_the_cli_reads_the_options_and_refuses_an_unknown_one(tmp_path, rows, cli, refused) -> None:
    path = _sqlite(tmp_path / "s.db", rows)
    ok = cli(["audit", "--sql-url", f"sqlite:///{path}?mode=ro", "--table", "t", "--score", "p",
              "--label", "y"])
    assert ok.code == 0, ok.err
    assert f"{N} rows" in ok.out
    bad = cli(["audit", "--sql-url", f"sqlite:///{path}?check_same_thread=0", "--table", "t", "--score", "p",
               "--label", "y"])
    refused(bad, r"no option 'check_same_thread'; supported: mode=ro")


def test_a_motherduck_url_reaches_duckdb_as_written(monkeypatch, error_line) -> None:
    """``duckdb:///md:DB?motherduck_token=...``: MotherDuck's extension reads its own settings; the URL's
    rest goes to duckdb.connect as before (read-only), and a failure never shows the token."""
    duckdb = pytest.importorskip("duckdb")
    seen = []

    def connect(database, **kwargs):
        seen.append((database, kwargs))
        raise RuntimeError(f"cannot reach {database}")

    monkeypatch.setattr(duckdb, "connect", connect)
    said = error_line(lambda: _numbers("duckdb:///md:scores?motherduck_token=tok_hunter22xyz"))
    assert seen == [("md:scores?motherduck_token=tok_hunter22xyz", {"read_only": True})]
    assert "hunter22" not in said
    assert said.startswith("cannot connect to duckdb:///md:scores?motherduck_token=***")
