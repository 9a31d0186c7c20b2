"""``--json PATH`` naming the database that ``--sql-url`` reads is refused before any work; it wrote the JSON
over the database.

``veracity audit --sql-url sqlite:///scores.db --table t --json scores.db`` audited the table, then replaced
scores.db by the audit's JSON, exit 0 (the file checks knew FILE, --calibrator, --history and the store as
inputs, not the database of --sql-url); DuckDB's file went the same way.
"""

import sqlite3

import pytest

ROWS = [(round(0.05 + 0.9 * (i % 10) / 9, 3), i % 2) for i in range(60)]


@pytest.fixture
def sqlite_db(tmp_path):
    path = tmp_path / "scores.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (p REAL, y INTEGER)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", ROWS)
    conn.close()
    return path


@pytest.mark.parametrize("url", ["sqlite:///{db}", "sqlite+pysqlite:///{db}", "sqlite:///file:{db}?uri=true",
                                 "sqlite:///{db}?timeout=2"])
def test_sqlite_database_kept(sqlite_db, cli, refused, url):
    before = sqlite_db.read_bytes()
    result = cli(["audit", "--sql-url", url.format(db=sqlite_db), "--table", "t", "--score", "p",
                  "--label", "y", "--json", sqlite_db.parent / "." / sqlite_db.name])
    refused(result, r"--json .*scores\.db is also the --sql-url database; writing it would overwrite an "
                    r"input")
    assert sqlite_db.read_bytes() == before


def test_duckdb_database_kept(tmp_path, cli, refused):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "scores.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE t AS SELECT * FROM (VALUES (0.2, 0), (0.8, 1), (0.3, 0), (0.7, 1)) "
                     "v(p, y)")
    before = path.read_bytes()
    result = cli(["audit", "--sql-url", f"duckdb:///{path}?threads=1", "--table", "t", "--score", "p",
                  "--label", "y", "--json", path])
    refused(result, r"--json .*scores\.duckdb is also the --sql-url database")
    assert path.read_bytes() == before


def test_another_json_path_written(sqlite_db, tmp_path, cli):
    out = tmp_path / "audit.json"
    result = cli(["audit", "--sql-url", f"sqlite:///{sqlite_db}", "--table", "t", "--score", "p",
                  "--label", "y", "--json", out, "-q"])
    assert result.code == 0, result.err
    assert out.read_text().startswith("{")
