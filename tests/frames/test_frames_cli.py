"""`veracity audit FILE --engine auto|memory|duckdb|spark|dask`: the same numbers on every engine."""

from __future__ import annotations

import json

import pytest

from veracity import io
from veracity.cli import main

from .conftest import dataset


def _run(capsys, *argv):
    code = main(["audit", *argv])
    out = capsys.readouterr()
    return code, out


def _doc(capsys, *argv):
    code, out = _run(capsys, *argv, "--json", "-")
    assert code == 0, out.err
    return json.loads(out.out), out.err


@pytest.fixture
def files(tmp_path):
    df = dataset()
    df.to_parquet(tmp_path / "s.parquet", index=False)
    df.to_csv(tmp_path / "s.csv", index=False)
    for i in range(3):
        df.iloc[i::3].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    return tmp_path


@pytest.mark.parametrize("engine, name", [("duckdb", "s.parquet"), ("duckdb", "s.csv"), ("dask", "s.parquet"),
                                          ("dask", "s.csv"), ("auto", "part-*.parquet")])
def test_engines_agree_with_memory(files, capsys, engine, name):
    common = ["--score", "p", "--label", "y", "--weight", "w", "--by", "segment", "--bins", "12"]
    want, _ = _doc(capsys, str(files / "s.parquet"), *common, "--engine", "memory")
    got, err = _doc(capsys, str(files / name), *common, "--engine", engine)
    assert got["engine"] == ("duckdb" if engine == "auto" else engine)
    if engine == "auto":
        assert "lazily with DuckDB" in err
    assert got["n"] == want["n"]
    for key, value in want["metrics"].items():
        assert got["metrics"][key] == pytest.approx(value, rel=1e-9), key
    assert [r["n"] for r in got["table"]] == pytest.approx([r["n"] for r in want["table"]], rel=1e-12)
    assert got["groups"].keys() == want["groups"].keys()


def test_spark_engine(files, capsys, spark):
    common = ["--score", "p", "--label", "y", "--bins", "10"]
    want, _ = _doc(capsys, str(files / "s.parquet"), *common, "--engine", "memory")
    got, _ = _doc(capsys, str(files / "s.parquet"), *common, "--engine", "spark", "--spark-master", "local[2]")
    assert got["engine"] == "spark"
    for key, value in want["metrics"].items():
        assert got["metrics"][key] == pytest.approx(value, rel=1e-9), key


def test_auto_stays_in_memory_for_small_files_and_honest_options(files, capsys):
    doc, err = _doc(capsys, str(files / "s.parquet"), "--score", "p", "--label", "y")
    assert "engine" not in doc and "lazily" not in err
    want, _ = _doc(capsys, str(files / "s.parquet"), "--score", "p", "--label", "y", "--strategy", "quantile")
    doc, _ = _doc(capsys, str(files / "part-*.parquet"), "--score", "p", "--label", "y", "--strategy", "quantile")
    assert doc["engine"] == "duckdb" and doc["strategy"] == "quantile"
    assert doc["metrics"] == pytest.approx(want["metrics"], rel=1e-9)
    doc, _ = _doc(capsys, str(files / "part-*.parquet"), "--score", "p", "--label", "y", "--noise-floor",
                  "--resamples", "20")
    assert "engine" not in doc and "noise_floor" in doc  # needs the rows: auto loads them


@pytest.mark.parametrize("argv, match", [
    (["--engine", "duckdb", "--score", "nope", "--label", "y"], "column 'nope' not found"),
    (["--engine", "duckdb", "--score", "p", "--label", "y", "--noise-floor"], "computes the core audit only"),
    (["--engine", "dask", "--score", "p", "--label", "y", "--bins", "0"], "bins must be a positive integer"),
    (["--engine", "duckdb", "--score", "segment", "--label", "y"], r"column 'segment' \(scores\) must be numeric"),
])
def test_bad_input_exits_2_with_one_line(files, capsys, argv, match):
    code, out = _run(capsys, str(files / "s.parquet"), *argv)
    assert code == 2
    assert out.err.count("\n") == 1 and pytest.importorskip("re").search(match, out.err)


def test_remote_path_refused_by_the_cli(capsys):
    code, out = _run(capsys, "https://example.com/x.parquet", "--engine", "duckdb", "--score", "p", "--label", "y")
    assert code == 2 and "remote paths" in out.err


def test_memory_engine_reads_only_the_needed_columns(files):
    for name in ("s.parquet", "s.csv"):
        table = io.read_table(files / name, columns=["p", "y", "p"])
        assert table.column_names == ["p", "y"]
        # a missing column: everything is read so the error can list what is there
        assert io.read_table(files / name, columns=["p", "nope"]).num_columns == 5
