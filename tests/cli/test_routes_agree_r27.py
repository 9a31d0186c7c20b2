"""The engines of the command line say the same thing about the same rows (round 27, after the review of
``monitor``'s data rows).

Before: "labels contain 1 missing values"; a missing text label with ``--pos-label`` was "column 'y' has 1
missing/NaN and 0 infinite values ..., first at data row 2" in memory and the labels' own line without a
row on DuckDB and Dask (``monitor scan --as-of``: without a row on every engine); a folder of CSV files was
"could not read DIR as PARQUET: the engine ValueError" on Dask; a Parquet float time column holding a null
and a NaN was "2 not finite" on Dask (a null alone: "1 not finite"), the other engines counting the NaN
only; a glob with dates in one CSV file and times in another was refused by DuckDB as "String; cast it
first" where memory and Dask read it; ``monitor log`` / ``outcomes`` named no row of a missing time.
Expected words are built here from the files' own rows, or taken from the memory engine's answer.
"""

import json

import numpy as np
import pytest

import veracity as vc

ENGINES = ["memory", "duckdb", "dask"]

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py


def _last_line(result) -> str:
    return result.err.rstrip("\n").splitlines()[-1]


# -- 1. one missing label, in the singular -------------------------------------------------------------------

@pytest.mark.parametrize("gone", [[2], [0, 3]], ids=["one", "two"])
@pytest.mark.parametrize("call", [lambda y: vc.ece(np.linspace(0.1, 0.9, y.size), y), lambda y: vc.split(y)],
                         ids=["core", "split"])
def test_missing_labels_are_counted_in_the_number_they_take(error_line, gone, call) -> None:
    labels = np.array([None if i in gone else ("a", "b")[i % 2] for i in range(5)], dtype=object)
    n = len(gone)
    words = ("1 missing value (None/NaN) of 5 rows; drop or fill that row first" if n == 1
             else f"{n} missing values (None/NaN) of 5 rows; drop or fill those rows first")
    assert error_line(lambda: call(labels)) == f"labels contain {words}"


@pytest.mark.parametrize("n", [1, 2])
def test_the_data_row_goes_after_the_count_of_missing_labels(n) -> None:
    from veracity.cli._bad_rows import _after_count

    noun = "value" if n == 1 else "values"
    message = f"labels contain {n} missing {noun} (None/NaN); drop or fill those rows first"
    assert _after_count(message, ", first at data row 7") == (
        f"labels contain {n} missing {noun} (None/NaN), first at data row 7; drop or fill those rows first")


# -- 2. a missing text label with --pos-label ----------------------------------------------------------------

def _labels_line(gone: list[int], read: int) -> str:
    """The refusal of missing labels at the 0-based rows ``gone`` of the ``read`` rows read (in order)."""
    n = len(gone)
    count, rows = ("1 missing value", "that row") if n == 1 else (f"{n} missing values", "those rows")
    return (f"input error: column 'y' (labels) has {count} (None/NaN) of {read} rows, first at data row "
            f"{min(gone) + 1}; drop or fill {rows} first")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("gone", [[1], [2, 3]], ids=["one", "two"])
def test_a_missing_text_label_with_pos_label_is_one_line_naming_its_row(cli, refused, tmp_path, engine,
                                                                        gone, write_csv) -> None:
    rows = [(f"{0.2 + 0.1 * i:.1f}", "" if i in gone else ("yes", "no")[i % 2]) for i in range(5)]
    path = write_csv(tmp_path / "f.csv", "p,y", rows)
    r = cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", "yes", "--engine", engine])
    refused(r)
    assert _last_line(r).endswith(_labels_line(gone, 5)), r.err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("final", ["as-of", "mature"])
def test_a_missing_final_label_of_monitor_scan_is_named_alike(cli, refused, tmp_path, engine, final,
                                                              write_csv) -> None:
    """A pending row's label may be missing; the first missing final one is named, on every engine."""
    days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-03-30", "2026-01-05"]
    labels = ["yes", "", "no", "", ""]
    mature = [True, False, True, True, True]  # with --mature: row 1 pending, rows 3 and 4 final and missing
    rows = [(t, 0.5, y, str(m).lower()) for t, y, m in zip(days, labels, mature)]
    path = write_csv(tmp_path / "m.csv", "ts,p,y,m", rows)
    flags = ["--as-of", "2026-03-31", "--horizon", "3d"] if final == "as-of" else ["--mature", "m"]
    r = cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--pos-label", "yes",
             "--engine", engine, *flags])
    refused(r)
    # as of 2026-03-31 with 3 days to mature, the row of 2026-03-30 is pending
    gone = [1, 4] if final == "as-of" else [3, 4]
    assert _last_line(r).endswith(_labels_line(gone, 4)), r.err  # of the 4 final rows


# -- 3. a folder of CSV files --------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_folder_of_csv_files_is_refused_alike(cli, refused, tmp_path, engine, write_csv) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    for i, name in enumerate(("a.csv", "b.csv")):
        write_csv(folder / name, "ts,p,y", [(f"2026-0{i + 1}-0{j + 1}", 0.3 + 0.1 * j, j % 2) for j in range(3)])
    for argv in (["monitor", "scan", str(folder), "--time", "ts"], ["audit", str(folder)]):
        r = cli([*argv, "--score", "p", "--label", "y", "--engine", engine])
        refused(r, rf"{folder} is a directory without \.parquet files; pass a file or a glob$")
        assert "ValueError" not in r.err


# -- 4. a Parquet float time column: a null is missing, a NaN is not finite ----------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("holes", [("null", "nan"), ("null",), ("nan", "nan", "null")],
                         ids=["both", "null", "many"])
def test_a_parquet_float_time_null_is_missing_and_nan_not_finite(cli, refused, tmp_path, engine,
                                                                 holes) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    times: list = [1767225600.0 + 86400.0 * i for i in range(6)]
    for i, hole in enumerate(holes):
        times[1 + i] = None if hole == "null" else float("nan")
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"ts": pa.array(times, pa.float64()), "p": [0.5] * 6, "y": [0, 1] * 3}), path)
    r = cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--engine", engine])
    refused(r)
    nans = holes.count("nan")
    if nans:
        assert f"({nans} not finite)" in r.err, r.err
    else:
        first = 1 + holes.index("null") + 1
        want = f"has 1 missing value (first at data row {first}); drop or fill it"
        assert _last_line(r).endswith(want), r.err


# -- 5. dates in one CSV file of a glob, times in another ----------------------------------------------------

@pytest.mark.parametrize("engine", ["duckdb", "dask"])
def test_dates_in_one_file_and_times_in_another_are_read_as_memory_reads_them(cli, tmp_path, engine,
                                                                              write_csv) -> None:
    (tmp_path / "g").mkdir()
    write_csv(tmp_path / "g" / "a.csv", "ts,p,y", [("2026-01-01", 0.2, 1), ("2026-01-02", 0.4, 0)])
    write_csv(tmp_path / "g" / "b.csv", "ts,p,y",
           [("2026-01-02T10:00:00", 0.3, 1), ("2026-02-02T23:30:00", 0.6, 0)])
    path = str(tmp_path / "g" / "*.csv")

    def scan(on: str) -> dict:
        r = cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--freq", "D",
                 "--json", "--engine", on])
        assert r.code == 0, r.err
        return json.loads(r.out)["periods"]

    memory, other = scan("memory"), scan(engine)
    assert [p["period"] for p in other] == ["2026-01-01", "2026-01-02", "2026-02-02"]
    assert [(p["period"], p["n"]) for p in other] == [(p["period"], p["n"]) for p in memory]
    for got, want in zip(other, memory):
        assert got["conf"] == pytest.approx(want["conf"], rel=1e-12)


def test_a_date_beside_a_time_with_an_offset_stays_refused_alike(cli, refused, tmp_path, write_csv) -> None:
    """Dates in one file, times with a UTC offset in another: a mix of times with and without an offset,
    refused as the memory engine refuses it (not read as times by DuckDB)."""
    pytest.importorskip("duckdb")
    (tmp_path / "g").mkdir()
    write_csv(tmp_path / "g" / "a.csv", "ts,p,y", [("2026-01-01", 0.2, 1), ("2026-01-02", 0.4, 0)])
    write_csv(tmp_path / "g" / "b.csv", "ts,p,y", [("2026-01-02T10:00:00Z", 0.3, 1)])
    path = str(tmp_path / "g" / "*.csv")
    got = [cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--engine", e])
           for e in ("memory", "duckdb")]
    refused(got[0], "mixes times with a UTC offset")
    assert _last_line(got[1]) == _last_line(got[0])


# -- 6. the store names the row of a missing time ------------------------------------------------------------

@pytest.mark.parametrize("gone", [[0], [2, 3]], ids=["first", "two"])
def test_the_store_names_the_data_row_of_a_missing_time(cli, refused, tmp_path, gone, write_csv) -> None:
    pytest.importorskip("duckdb")
    store = str(tmp_path / "m.duckdb")
    assert cli(["monitor", "init", store]).code == 0
    days = [f"2026-01-0{i + 1}" for i in range(4)]
    n = len(gone)
    count = "1 missing value" if n == 1 else f"{n} missing values"
    want = (rf"time column 'ts' has {count} \(first at data row {min(gone) + 1}\); every prediction needs "
            "a time$")
    rows = [(i + 1, "" if i in gone else t, 0.5) for i, t in enumerate(days)]
    r = cli(["monitor", "log", store, write_csv(tmp_path / "p.csv", "id,ts,p", rows), "--id", "id", "--time",
             "ts", "--score", "p"])
    refused(r, want)
    good = [(i + 1, t, 0.5) for i, t in enumerate(days)]
    assert cli(["monitor", "log", store, write_csv(tmp_path / "p.csv", "id,ts,p", good), "--id", "id", "--time",
                "ts", "--score", "p"]).code == 0
    outcomes = [(i + 1, "" if i in gone else t, i % 2) for i, t in enumerate(days)]
    r = cli(["monitor", "outcomes", store, write_csv(tmp_path / "o.csv", "id,ts,y", outcomes), "--id", "id",
             "--label", "y", "--time", "ts"])
    refused(r, want)
