"""A monitoring store passed as FILE (``veracity report monitor.duckdb``, --store forgotten) said "could not
read monitor.duckdb as CSV or Parquet: CSV parse error: Empty CSV file or block: cannot infer number of
columns" (session 38); it is named as the DuckDB file it is, with the flag that reads it."""

from __future__ import annotations

import pytest


def test_a_store_as_file_names_store(tmp_path, cli):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "monitor.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT 0.5 AS p, 1 AS y")
    con.close()
    got = cli(["report", path, "--out", tmp_path / "r.html"])
    assert got.code == 2, got.err
    assert "is a DuckDB database (a monitoring store?)" in got.err and f"pass it as --store {path}" in got.err
    assert "CSV parse error" not in got.err and len(got.err.strip().splitlines()) == 1
    got = cli(["report", path, "--store", path, "--out", tmp_path / "r.html"])
    assert got.code == 2 and "drop FILE to audit the store's labelled rows" in got.err, got.err
