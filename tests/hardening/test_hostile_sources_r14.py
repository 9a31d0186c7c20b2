"""Round 14: column names that differ only by case, and Parquet files whose columns differ, on every engine.

* DuckDB matches the columns of several Parquet files by name regardless of case: files holding ``p``
  and ``P`` in other orders were read with one file's ``P`` as ``p``, silently (ECE 0.317 for 0.100),
  and a later file with one more column made ``P`` "not found" (DuckDB named it ``P_1``);
* a name asked in the wrong case was refused without naming the close match, and Dask and Spark did
  not say in which file (DuckDB does);
* Dask took every Parquet file's columns from the first: a column one file lacks raised a raw
  ``KeyError``, a column only later files hold was "not found", a column dictionary-encoded in one file
  and plain in another raised ``AttributeError`` inside Dask, a struct column as ``by=`` raised
  "unhashable type: 'dict'"; Spark also took the first file's columns.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import main
from veracity.sources._api import open_frame, read_path

RNG = np.random.default_rng(14)
N = 40
H = N // 2
P = np.round(RNG.uniform(0.02, 0.98, N), 2)
Y = (RNG.uniform(size=N) < P).astype(np.int64)
HINT = "(did you mean 'y'? column names are matched exactly, case and spaces included)"


def _said(data, **options):
    try:
        got = vc.audit(data, **{"score": "p", "label": "y", "bins": 5, **options})
    except vc.VeracityError as exc:
        return str(exc)
    return got


def _brier(p, y):
    return float(np.mean((p - y) ** 2))


def _parts(folder, *tables):
    folder.mkdir()
    for i, table in enumerate(tables):
        pq.write_table(pa.table(table), folder / f"part{i}.parquet")
    return str(folder)


def _open(path, engine):
    return read_path(path) if engine == "memory" else path if engine == "duckdb" else open_frame(path, engine)


# ---------------------------------------------------------------------------------------------
# p and P in the files of one directory
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("glob", [False, True])
def test_files_holding_p_and_P_in_other_orders_read_the_column_asked_for(tmp_path, engine, glob):
    """Before, DuckDB: Brier 0.3638 for p (the second file's P read as p), 0.1503 the truth."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H], "P": 1 - P[:H]},
                  {"P": 1 - P[H:], "y": Y[H:], "p": P[H:]})
    path = path + "/*.parquet" if glob else path
    for score, p in (("p", P), ("P", 1 - P)):
        got = _said(_open(path, engine), score=score)
        assert not isinstance(got, str), got
        assert got.n == N
        assert got.brier == pytest.approx(_brier(p, Y), rel=1e-12)


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_a_later_file_with_one_more_column_keeps_p_and_P_apart(tmp_path, engine):
    """Before, DuckDB: "column 'P' not found ...; available columns: p, y, P_1, z"."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H], "P": 1 - P[:H]},
                  {"p": P[H:], "y": Y[H:], "P": 1 - P[H:], "z": P[H:]})
    got = _said(_open(path, engine), score="P")
    assert not isinstance(got, str), got
    assert got.brier == pytest.approx(_brier(1 - P, Y), rel=1e-12)


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_a_file_that_lacks_P_reads_it_as_missing_there(tmp_path, engine):
    """Before: every engine refused "a.parquet has a column 'p' where b.parquet has 'P'" although
    both spellings are columns of the first file; Dask then raised KeyError."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H], "P": 1 - P[:H]}, {"y": Y[H:], "P": 1 - P[H:]})
    assert _said(_open(path, engine)) == (
        f"column 'p' (scores) has {N - H} missing/NaN and 0 infinite values of {N} rows; drop or fill those rows first")
    got = _said(_open(path, engine), score="P")
    assert got.brier == pytest.approx(_brier(1 - P, Y), rel=1e-12)


def test_p_in_one_file_and_P_in_another_is_refused_on_dask_as_elsewhere(tmp_path):
    """Before: Dask raised KeyError: "['p'] not in index"."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H]}, {"P": P[H:], "y": Y[H:]})
    with pytest.raises(vc.VeracityError) as memory:
        read_path(path)
    assert "part0.parquet has a column 'p' where" in str(memory.value) and "has 'P'" in str(memory.value)
    assert _said(path) == str(memory.value)
    with pytest.raises(vc.VeracityError, match="^" + re.escape(str(memory.value)) + "$"):
        _said(open_frame(path, "dask"))


# ---------------------------------------------------------------------------------------------
# a name asked in the wrong case
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_name_in_the_wrong_case_names_the_close_match_alike_on_every_engine(tmp_path, capsys, kind):
    """Before: "column 'Y' not found; available columns: p, P, y" (Dask: without the file; no hint)."""
    path = tmp_path / f"c.{kind}"
    table = pa.table({"p": P, "P": 1 - P, "y": Y})
    if kind == "csv":
        import pyarrow.csv as pacsv

        pacsv.write_csv(table, path)
    else:
        pq.write_table(table, path)
    said = set()
    for engine in ("memory", "duckdb", "dask"):
        code = main(["audit", str(path), "--score", "p", "--label", "Y", "--engine", engine])
        said.add((code, capsys.readouterr().err.strip().splitlines()[-1]))
        refusal = _said(_open(str(path), engine), label="Y")  # (one audit, both checks)
        assert refusal.startswith("column 'Y' not found")
        assert HINT in refusal
    assert said == {(2, f"veracity audit: input error: column 'Y' not found in {path} {HINT}; "
                        "available columns: p, P, y")}


def test_a_frame_names_the_close_match_and_a_duckdb_rename():
    import duckdb
    import pandas as pd

    frame = pd.DataFrame({"p": P, "P": 1 - P, "y": Y})
    assert _said(frame, label=" Y ") == f"column ' Y ' not found {HINT}; available columns: p, P, y"
    assert _said(frame, label="q").endswith("column 'q' not found; available columns: p, P, y")
    # DuckDB's from_df names the second column P_1 (it matches names regardless of case)
    said = _said(duckdb.connect().from_df(frame), score="P")
    assert said == ("column 'P' not found (DuckDB renamed it 'P_1', since the relation also holds 'p': DuckDB "
                    "matches names regardless of case; rename one of the two columns first); "
                    "available columns: p, P_1, y")


# ---------------------------------------------------------------------------------------------
# Dask: Parquet files whose columns differ
# ---------------------------------------------------------------------------------------------
def test_dask_reads_a_column_one_file_lacks_as_missing_there(tmp_path):
    """Before: KeyError: "['g'] not in index" (a raw traceback)."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H], "g": ["a"] * H}, {"p": P[H:], "y": Y[H:]})
    memory, dask = _said(read_path(path), by="g"), _said(open_frame(path, "dask"), by="g")
    assert not isinstance(dask, str), dask
    assert dask.n == memory.n == N
    assert sorted(map(str, dask.groups)) == sorted(map(str, memory.groups)) == ["(missing)", "a"]
    assert dask.groups["a"].brier == pytest.approx(_brier(P[:H], Y[:H]), rel=1e-12)


def test_dask_finds_a_column_only_a_later_file_holds(tmp_path):
    """Before: "column 'q' not found; available columns: p, y" (memory: 20 missing values)."""
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H]}, {"p": P[H:], "y": Y[H:], "q": P[H:]})
    memory = _said(read_path(path), score="q")
    assert memory == f"column 'q' (scores) has {H} missing/NaN and 0 infinite values of {N} rows; drop or fill those rows first"
    assert _said(open_frame(path, "dask"), score="q") == memory


def test_dask_reads_a_key_dictionary_encoded_in_one_file_only(tmp_path):
    """Before: AttributeError: 'StringDtype' object has no attribute 'categories' (inside Dask)."""
    g = pa.array(["a"] * H).dictionary_encode()
    path = _parts(tmp_path / "d", {"p": P[:H], "y": Y[:H], "g": g}, {"p": P[H:], "y": Y[H:], "g": ["b"] * (N - H)})
    got = _said(open_frame(path, "dask"), by="g")
    assert not isinstance(got, str), got
    assert sorted(got.groups) == ["a", "b"]
    assert got.groups["b"].brier == pytest.approx(_brier(P[H:], Y[H:]), rel=1e-12)


def test_dask_refuses_a_struct_key_as_the_other_engines_do(tmp_path):
    """Before: TypeError: unhashable type: 'dict'."""
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, "s": pa.array([{"a": 1}] * N), "l": pa.array([[v] for v in P])}), path)
    for by, score in (("s", "p"), (None, "l")):
        options = {"by": by} if by else {}
        memory = _said(read_path(path), score=score, **options)
        assert "holds nested values" in memory
        assert _said(open_frame(str(path), "dask"), score=score, **options) == memory


# ---------------------------------------------------------------------------------------------
# Spark (one session, few small files)
# ---------------------------------------------------------------------------------------------
def test_spark_reads_p_and_P_and_a_later_files_column_as_memory_does(spark, tmp_path):
    """Before: "column 'P' not found; available columns: y, p" where memory reads 20 missing values."""
    path = _parts(tmp_path / "d", {"y": Y[:H], "p": P[:H]}, {"y": Y[H:], "P": 1 - P[H:], "p": P[H:]})
    frame = open_frame(path, "spark")
    assert _said(frame, score="P") == _said(read_path(path), score="P") == (
        f"column 'P' (scores) has {H} missing/NaN and 0 infinite values of {N} rows; drop or fill those rows first")
    got = _said(frame)
    assert got.brier == pytest.approx(_brier(P, Y), rel=1e-12)
    assert _said(frame, label="Y") == f"column 'Y' not found in {path} {HINT}; available columns: y, p, P"


def test_spark_refuses_csv_files_with_other_headers_as_memory_does(spark, tmp_path):
    """Before: Spark took every file's fields by the first file's header, by position: the second
    file's q read as p, silently (memory and DuckDB refuse the glob)."""
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "a.csv").write_text("p,q,y\n" + "".join(f"{a},{1 - a:.2f},{b}\n" for a, b in zip(P[:H], Y[:H])))
    (folder / "b.csv").write_text("q,p,y\n" + "".join(f"{1 - a:.2f},{a},{b}\n" for a, b in zip(P[H:], Y[H:])))
    path = str(folder / "*.csv")
    with pytest.raises(vc.VeracityError) as memory:
        read_path(path)
    assert "have different headers: p, q, y vs q, p, y" in str(memory.value)
    with pytest.raises(vc.VeracityError, match="^" + re.escape(str(memory.value)) + "$"):
        open_frame(path, "spark")


# ---------------------------------------------------------------------------------------------
# a CSV header naming a column twice
# ---------------------------------------------------------------------------------------------
def test_a_header_naming_a_column_twice_is_refused_alike_on_every_engine(tmp_path, capsys, monkeypatch):
    """Before: Dask said "could not read dup.csv as CSV: the engine ValueError; check that it is a valid
    csv file", DuckDB named the file by its absolute path where memory names it as given."""
    (tmp_path / "dup.csv").write_text("p,y,p\n0.1,0,0.9\n0.8,1,0.2\n0.3,0,0.6\n")
    monkeypatch.chdir(tmp_path)
    said = set()
    for engine in ("memory", "duckdb", "dask"):
        code = main(["audit", "dup.csv", "--score", "p", "--label", "y", "--engine", engine])
        said.add((code, capsys.readouterr().err.strip().splitlines()[-1]))
    assert said == {(2, "veracity audit: input error: column 'p' appears 2 times in dup.csv; "
                        "give every column a distinct name")}


def test_spark_reads_files_with_whole_and_fractional_scores_as_memory_does(spark, tmp_path):
    """Before: Py4JJavaError (PARQUET_COLUMN_DATA_TYPE_MISMATCH, a Java traceback): Spark read every
    file in the first one's types, int64 scores then double, boolean labels then bigint."""
    hard = (P[:H] > 0.5).astype(np.int64)
    path = _parts(tmp_path / "d", {"p": hard, "y": Y[:H].astype(bool)}, {"p": P[H:], "y": Y[H:]})
    p = np.concatenate([hard, P[H:]])
    for data in (read_path(path), open_frame(path, "spark")):
        got = _said(data)
        assert not isinstance(got, str), got
        assert got.n == N
        assert got.brier == pytest.approx(_brier(p, Y), rel=1e-12)


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_files_with_whole_scores_and_boolean_labels_then_fractions_and_numbers_read_alike(tmp_path, engine):
    """Before, memory: "could not read ... as PARQUET: Float value 0.460000 was truncated converting to
    int64" (pyarrow does not join a boolean and an int64 column, and then read every file in the first's
    types) where DuckDB reads true/false as 1/0."""
    hard = (P[:H] > 0.5).astype(np.int64)
    path = _parts(tmp_path / "d", {"p": hard, "y": Y[:H].astype(bool)}, {"p": P[H:], "y": Y[H:]})
    got = _said(_open(path, engine))
    assert not isinstance(got, str), got
    assert got.n == N
    assert got.brier == pytest.approx(_brier(np.concatenate([hard, P[H:]]), Y), rel=1e-12)


def test_a_read_failure_of_a_directory_or_a_file_without_extension_is_worded_plainly(tmp_path):
    """Before: "could not read d as FILE: Spark Py4JJavaError; check that it is a valid file file"."""
    from veracity.sources._duckdb import describe_error

    (tmp_path / "d").mkdir()
    assert describe_error(RuntimeError("x"), str(tmp_path / "d")) == (
        f"could not read {tmp_path / 'd'} as PARQUET: the engine RuntimeError; check that it is a valid parquet file")
    assert describe_error(RuntimeError("x"), "scores") == (
        "could not read scores as FILE: the engine RuntimeError; check that it is a valid CSV or Parquet file")


def test_a_category_score_column_of_a_duckdb_relation_is_named_without_its_categories():
    """Before: "must be numeric, got Enum(categories=['0.01', '0.02', ... every one of 300]) ..."."""
    import duckdb
    import pandas as pd

    p = np.round(np.linspace(0.01, 0.99, 300), 3)
    frame = pd.DataFrame({"p": pd.Categorical(p.astype(str)), "y": np.arange(300) % 2})
    assert _said(duckdb.connect().from_df(frame)) == (
        "column 'p' (scores) must be numeric, got Enum; convert the column to numbers")
