"""``veracity apply cal.json rows.csv -o out.csv`` keeps every input column as written (session 38): the
CSV's columns were read with inferred types and written back from them, so that zip codes / ids ``00501``
came out as ``501`` and the text ``NA`` (Namibia) or ``N/A`` as an empty cell, silently (in a Parquet output
too: 501 and null). Columns whose values survive the read (fractions, ids past int64) are as before."""

from __future__ import annotations

import csv

import numpy as np
import pytest

rng = np.random.default_rng(3840)
N = 120
P = rng.uniform(0.05, 0.95, N)
Y = (rng.uniform(size=N) < P).astype(int)
ZIP = [f"{i * 7 % 1000:05d}" for i in range(N)]  # leading zeros
COUNTRY = [["NA", "US", "N/A", "null", ""][i % 5] for i in range(N)]  # "" is the one missing cell
BIG = [str(2**63 + i) for i in range(N)]


@pytest.fixture
def rows(tmp_path, cli):
    fit = tmp_path / "fit.csv"
    fit.write_text("score,label\n" + "".join(f"{p:.6f},{y}\n" for p, y in zip(P, Y)))
    cal = tmp_path / "cal.json"
    assert cli(["fit", fit, "--method", "platt", "--out", cal, "-q"]).code == 0
    path = tmp_path / "rows.csv"
    path.write_text("zip,country,big,amount,score\n" + "".join(
        f"{z},{c},{b},{a:.2f},{p:.6f}\n" for z, c, b, a, p in zip(ZIP, COUNTRY, BIG, P * 100, P)))
    return cal, path


def test_csv_out_keeps_ids_and_text_as_written(rows, tmp_path, cli):
    cal, path = rows
    out = tmp_path / "out.csv"
    got = cli(["apply", cal, path, "-o", out, "-q"])
    assert got.code == 0, got.err
    with open(out, newline="") as fh:
        written = list(csv.DictReader(fh))
    assert [r["zip"] for r in written] == ZIP
    assert [r["country"] for r in written] == COUNTRY
    assert [r["big"] for r in written] == BIG
    assert np.allclose([float(r["amount"]) for r in written], np.round(P * 100, 2))
    assert all(0 < float(r["calibrated"]) < 1 for r in written)


def test_parquet_out_keeps_ids_and_text_as_written(rows, tmp_path, cli):
    pq = pytest.importorskip("pyarrow.parquet")
    cal, path = rows
    out = tmp_path / "out.parquet"
    assert cli(["apply", cal, path, "-o", out, "-q"]).code == 0
    table = pq.read_table(out)
    assert table.column("zip").to_pylist() == ZIP
    assert table.column("country").to_pylist() == [c or None for c in COUNTRY]
    assert str(table.schema.field("amount").type) == "double"
    assert [str(v) for v in table.column("big").to_pylist()] == BIG


def test_a_glob_or_folder_of_csv_files_is_named_as_such(rows, tmp_path, cli):
    """A glob of CSV files read "file not found: g/*.csv; check the path" of files that are there, and their
    folder "is a directory; pass a CSV or Parquet file", though the help offers folders and globs."""
    cal, path = rows
    folder = tmp_path / "g"
    folder.mkdir()
    for name in ("a.csv", "b.csv"):
        (folder / name).write_text(path.read_text())
    got = cli(["apply", cal, f"{folder}/*.csv", "-o", tmp_path / "o.csv"])
    assert got.code == 2 and "matches 2 CSV files" in got.err and "not found" not in got.err, got.err
    assert "a glob of Parquet files" in got.err and len(got.err.strip().splitlines()) == 1
    got = cli(["apply", cal, folder, "-o", tmp_path / "o.csv"])
    assert got.code == 2 and "is a folder without .parquet files" in got.err, got.err
    got = cli(["apply", cal, f"{folder}/*.tsv", "-o", tmp_path / "o.csv"])
    assert got.code == 2 and "no file matches" in got.err, got.err
