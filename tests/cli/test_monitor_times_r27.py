"""``veracity monitor scan --time COL`` with a missing time, a glob whose files type a column differently,
and counts of one in the words of the missing-value refusals (round 27).

Before: on ``--engine dask`` an empty cell of a CSV's time column failed as "could not read FILE as CSV:
pandas IntCastingNaNError" (the calendar key of a missing time cast to integers); memory and DuckDB said
"column 'ts' (periods) has 1 missing value; drop or fill it" without the row, and a text column of times
(or, on Dask, epoch seconds: "1 not finite") got other lines again. Now every route says the one line,
naming the first missing time's data row (counted over a glob's files in order). The memory engine
refused a glob whose files typed a column differently (dates in one, numbers in another; 0/1 in one,
true/false in another) in Arrow's words, "Unable to merge: Field ts has incompatible types"; it now reads
them as the DuckDB engine does. "has 1 missing values" reads "has 1 missing value". The expected words
are built here from the files' own rows, or taken from another engine.
"""

import json
from pathlib import Path

import pytest

ENGINES = ["memory", "duckdb", "dask"]

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

#: one form of time per case, the i-th row's time as written in the CSV
FORMS = {
    "dates": lambda i: f"2026-01-{1 + i % 28:02d}",
    "utc times": lambda i: f"2026-01-{1 + i % 28:02d}T10:00:00Z",
    "epoch seconds": lambda i: str(1767225600 + 86400 * i),
    "month text": lambda i: f"2026-{1 + i % 12:02d}",
}


def _scan(cli, path: str, engine: str, *flags: str):
    return cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--engine", engine, *flags])


def _missing_line(gone: list[int]) -> str:
    """The one refusal of missing times at the 0-based rows ``gone`` (of the rows in order)."""
    n = len(gone)
    count = "1 missing value" if n == 1 else f"{n} missing values"
    return (f"input error: column 'ts' (periods) has {count} (first at data row {min(gone) + 1}); drop or fill "
            f"{'it' if n == 1 else 'them'}")


def _last_line(result) -> str:
    return result.err.rstrip("\n").splitlines()[-1]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("gone", [[0], [5], [11], [3, 8]], ids=["first", "middle", "last", "two"])
@pytest.mark.parametrize("flags", [(), ("--as-of", "2026-02-01", "--horizon", "3d")], ids=["all-final", "as-of"])
def test_a_missing_time_is_refused_alike_naming_its_data_row(cli, refused, tmp_path, engine, gone, flags,
                                                             write_csv) -> None:
    rows = [("" if i in gone else FORMS["dates"](i), f"{0.1 + 0.05 * i:.2f}", i % 2) for i in range(12)]
    r = _scan(cli, write_csv(tmp_path / "t.csv", "ts,p,y", rows), engine, *flags)
    refused(r)
    assert _last_line(r).endswith(_missing_line(gone)), r.err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", list(FORMS))
def test_a_missing_time_of_any_form_is_the_same_line(cli, refused, tmp_path, engine, form, write_csv) -> None:
    """Times Arrow reads as dates, as zone-aware times, as numbers or keeps as text: the missing one is
    refused first, in the same words, wherever the engine reads the column as another type."""
    gone = [4, 7]
    rows = [("" if i in gone else FORMS[form](i), 0.5, i % 2) for i in range(10)]
    r = _scan(cli, write_csv(tmp_path / "t.csv", "ts,p,y", rows), engine, "--freq", "D")
    refused(r)
    assert _last_line(r).endswith(_missing_line(gone)), r.err


@pytest.mark.parametrize("engine", ENGINES)
def test_a_missing_time_beside_a_mix_of_offsets_is_refused_as_missing(cli, refused, tmp_path, engine,
                                                                      write_csv) -> None:
    """A column that also mixes times with and without a UTC offset: the missing time first, on every route
    (Dask named the empty cell as a text that is no time, memory said "1 missing values" without a row)."""
    ts = ["2026-01-01T10:00:00+01:00", "", "2026-01-03", "2026-01-04"]
    r = _scan(cli, write_csv(tmp_path / "t.csv", "ts,p,y", [(t, 0.5, i % 2) for i, t in enumerate(ts)]), engine)
    refused(r)
    assert _last_line(r).endswith(_missing_line([ts.index("")])), r.err


@pytest.mark.parametrize("engine", ENGINES)
def test_a_glob_counts_the_missing_times_row_over_its_files(cli, refused, tmp_path, engine,
                                                            write_csv) -> None:
    (tmp_path / "g").mkdir()
    first = [FORMS["dates"](i) for i in range(3)]
    second = [FORMS["dates"](5), "", FORMS["dates"](7)]
    write_csv(tmp_path / "g" / "a.csv", "ts,p,y", [(t, 0.3, 1) for t in first])
    write_csv(tmp_path / "g" / "b.csv", "ts,p,y", [(t, 0.6, 0) for t in second])
    r = _scan(cli, str(tmp_path / "g" / "*.csv"), engine)
    refused(r)
    assert _last_line(r).endswith(_missing_line([len(first) + second.index("")])), r.err


def _glob(write_csv, tmp_path: Path, header: str, a: list[tuple], b: list[tuple]) -> str:
    (tmp_path / "g").mkdir()
    write_csv(tmp_path / "g" / "a.csv", header, a)
    write_csv(tmp_path / "g" / "b.csv", header, b)
    return str(tmp_path / "g" / "*.csv")


def test_memory_reads_a_time_column_dates_in_one_file_and_numbers_in_another_as_duckdb(cli, refused,
                                                                                      tmp_path, write_csv) -> None:
    """Read as the text each file holds (DuckDB: VARCHAR): refused by the time check naming the number."""
    pytest.importorskip("duckdb")
    path = _glob(write_csv, tmp_path, "ts,p,y", [("2026-01-01", 0.2, 1), ("2026-01-02", 0.3, 0)],
                 [("1767225600", 0.4, 0)])
    memory, duckdb = (_scan(cli, path, engine) for engine in ("memory", "duckdb"))
    refused(memory, r"\(data row 3: '1767225600'\)")
    assert "merge" not in memory.err
    assert _last_line(memory) == _last_line(duckdb)


@pytest.mark.parametrize("a, b", [
    ([("2026-01-01", 0, 1, 1), ("2026-01-02", 1, 0, 2)], [("", 0.25, 1, 1), ("", 0.75, 0, 2)]),  # 0/1, floats
    ([("2026-01-01", 0.2, 1, 1), ("2026-01-02", 0.7, 0, 2)], [("2026-01-03", 0.4, "true", 1)]),
    ([("2026-01-01", 0.2, 1, 1), ("2026-01-02", 0.7, 0, 2)], [("2026-01-03", 0.4, 1, "x"), ("2026-01-04", 0.5, 0, 1)]),
], ids=["ints-floats-nulls", "ints-bools", "ints-text"])
def test_audit_of_a_glob_typed_differently_per_file_matches_duckdb(cli, tmp_path, a, b, write_csv) -> None:
    pytest.importorskip("duckdb")
    path = _glob(write_csv, tmp_path, "ts,p,y,g", a, b)
    got = {engine: cli(["audit", path, "--score", "p", "--label", "y", "--by", "g", "--engine", engine, "--json"])
           for engine in ("memory", "duckdb")}
    assert got["memory"].code == got["duckdb"].code == 0, got["memory"].err
    memory, duckdb = (json.loads(got[engine].out) for engine in ("memory", "duckdb"))
    assert memory["n"] == duckdb["n"] == len(a) + len(b)
    assert memory["metrics"].keys() == duckdb["metrics"].keys()
    for name, value in memory["metrics"].items():  # None where a metric has no value (one class: no AUC)
        assert value == (None if duckdb["metrics"][name] is None else pytest.approx(duckdb["metrics"][name],
                                                                                    rel=1e-12)), name
    assert memory["groups"].keys() == duckdb["groups"].keys()


def test_one_missing_time_in_the_store_is_counted_in_the_singular(cli, refused, tmp_path, write_csv) -> None:
    pytest.importorskip("duckdb")
    store = str(tmp_path / "m.duckdb")
    assert cli(["monitor", "init", store]).code == 0
    for gone in ([1], [0, 2]):
        rows = [(i + 1, "" if i in gone else FORMS["dates"](i), 0.5) for i in range(3)]
        r = cli(["monitor", "log", store, write_csv(tmp_path / "p.csv", "id,ts,p", rows), "--id", "id", "--time",
                 "ts", "--score", "p"])
        count = "1 missing value" if len(gone) == 1 else f"{len(gone)} missing values"
        refused(r, rf"time column 'ts' has {count} \(first at data row {gone[0] + 1}\); every prediction "
                   "needs a time")


@pytest.mark.parametrize("engine", ENGINES)
def test_one_missing_label_with_pos_label_is_counted_in_the_singular(cli, refused, tmp_path, engine,
                                                                     write_csv) -> None:
    for gone in ([1], [0, 2]):
        rows = [(0.5, "" if i in gone else ("yes", "no")[i % 2]) for i in range(4)]
        r = cli(["audit", write_csv(tmp_path / "y.csv", "p,y", rows), "--score", "p", "--label", "y", "--pos-label",
                 "yes", "--engine", engine])
        n = len(gone)
        row = f", first at data row {gone[0] + 1}"  # the first missing label's (round 27: on every engine)
        words = (f"1 missing value (None/NaN) of 4 rows{row}; drop or fill that row first" if n == 1
                 else f"{n} missing values (None/NaN) of 4 rows{row}; drop or fill those rows first")
        refused(r)
        assert _last_line(r).endswith(f"column 'y' (labels) has {words}"), r.err
