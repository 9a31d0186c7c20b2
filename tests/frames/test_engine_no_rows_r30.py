"""A path without rows is refused in one wording on every engine: the in-memory read's (round 30).

``--engine memory`` said "<path> has a header but no rows; pass a file with at least one data row" (a glob
or a folder: "<pattern> has no rows; pass files with at least one data row"); DuckDB, Dask and Spark said
"the frame has no rows; pass at least one row" for an empty Parquet file (the path not even named) and
"<path> has no rows; pass a file ..." for a header-only CSV. The oracle is the memory engine's line, whose
words the monitoring store relies on (``monitoring/_store.py``).
"""

from __future__ import annotations

import pandas as pd
import pytest

import veracity as vc

FILE = "{} has a header but no rows; pass a file with at least one data row"
MANY = "{} has no rows; pass files with at least one data row"


@pytest.fixture
def empty(tmp_path):
    df = pd.DataFrame({"p": pd.Series([], dtype="float64"), "y": pd.Series([], dtype="int64")})
    df.to_parquet(tmp_path / "empty.parquet", index=False)
    df.to_csv(tmp_path / "header.csv", index=False)
    for i in range(2):
        (tmp_path / "parts").mkdir(exist_ok=True)
        df.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
        (tmp_path / "csvs").mkdir(exist_ok=True)
        df.to_csv(tmp_path / "csvs" / f"part-{i}.csv", index=False)
    return {"parquet file": (str(tmp_path / "empty.parquet"), FILE),
            "header-only CSV": (str(tmp_path / "header.csv"), FILE),
            "glob of Parquet": (str(tmp_path / "parts" / "*.parquet"), MANY),
            "folder of Parquet": (str(tmp_path / "parts"), MANY),
            "glob of CSV": (str(tmp_path / "csvs" / "*.csv"), MANY)}


SOURCES = ["parquet file", "header-only CSV", "glob of Parquet", "folder of Parquet", "glob of CSV"]


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("command", ["audit", "fit"])
def test_every_engine_says_the_memory_engines_line(empty, source, engine, command, cli, refused, tmp_path):
    path, words = empty[source]
    extra = ["--method", "platt", "--out", str(tmp_path / "c.json")] if command == "fit" else []
    r = cli([command, path, "--score", "p", "--label", "y", "--engine", engine, *extra])
    # old (duckdb, dask): "the frame has no rows; pass at least one row" for Parquet, "<path> has no rows;
    # pass a file with at least one data row" for a CSV
    refused(r)
    assert r.err == f"veracity {command}: input error: {words.format(path)}\n"


@pytest.mark.parametrize("source", SOURCES)
def test_the_python_frame_form_of_a_path_says_it_too(empty, source):
    path, words = empty[source]
    for call in (lambda: vc.audit(path, score="p", label="y"), lambda: vc.ece(path, score="p", label="y"),
                 lambda: vc.PlattScaling().fit(path, score="p", label="y")):
        with pytest.raises(vc.VeracityError) as info:
            call()
        assert str(info.value) == words.format(path)


def test_multiclass_scores_of_an_empty_file(tmp_path):
    path = tmp_path / "mc.parquet"
    pd.DataFrame({c: pd.Series([], dtype="float64") for c in ("p0", "p1", "p2")}).assign(
        y=pd.Series([], dtype="int64")).to_parquet(path, index=False)
    with pytest.raises(vc.VeracityError) as info:  # old: "the frame has no rows; pass at least one row"
        vc.audit(str(path), score=["p0", "p1", "p2"], label="y")
    assert str(info.value) == FILE.format(path)


def test_a_frame_without_rows_keeps_its_words():
    import duckdb
    import polars as pl

    frames = [pd.DataFrame({"p": [0.5], "y": [1]}).iloc[:0],
              pl.DataFrame({"p": [0.5], "y": [1]}).lazy().head(0),
              duckdb.connect().sql("SELECT 0.5::DOUBLE AS p, 1 AS y LIMIT 0")]
    for frame in frames:
        with pytest.raises(vc.VeracityError, match=r"^the frame has no rows; pass at least one row$"):
            vc.audit(frame, score="p", label="y")


@pytest.mark.parametrize("source", ["parquet file", "glob of Parquet"])
def test_spark_says_it_too(empty, source, cli, refused, spark):
    path, words = empty[source]
    r = cli(["audit", path, "--score", "p", "--label", "y", "--engine", "spark",
             "--spark-master", "local[2]"])
    refused(r)  # old: "the frame has no rows; pass at least one row"
    assert r.err == f"veracity audit: input error: {words.format(path)}\n"
