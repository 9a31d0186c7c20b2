"""A bad label among the rows whose label is final names its data row on every route (round 26).

``veracity monitor scan FILE --time ts --as-of T --horizon H`` (or ``--mature COL``) checks the labels of
the final rows only: a pending row's label may be missing or anything. When a final row's label is not
0/1 the refusal is one line, "column 'y' (labels) must be binary 0/1 (or bool); 1 of 23 are not ...".
With ``--engine duckdb`` the command line located the first offending row in FILE (", first at data row
k"); in memory, where the command line cannot tell which rows are final, the line named no row. The
in-memory frame form now names the first final row whose label is refused (never a pending one), so the
two routes give the same line; the DuckDB route's pass over FILE looks among the final rows only
(it named the first bad label of any row, a pending one too). The array form's error named a position
among the final rows ("first at flat index 2" of the picked rows): it now names the row of the caller's
arrays.

Oracles: the final rows from their definition, ``time + horizon <= as_of`` (numpy datetimes), and the
offending rows from the labels written to the file.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

AS_OF = "2026-03-01"
HORIZON_DAYS = 7
N = 60


def table(bad: str, *, pending_first: bool, seed: int = 26) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The CSV lines (header ``ts,p,y,m``), the final rows (``m``) and the rows whose label is refused.

    ``bad`` is what an offending label reads ("2", or "" for a missing one). One final row's label is
    bad; with ``pending_first`` a pending row before it has a bad label too (allowed: it is pending)."""
    rng = np.random.default_rng(seed)
    start = np.datetime64("2026-01-01T00:00:00", "s")
    times = start + rng.integers(0, 89 * 86400, N).astype("timedelta64[s]")
    final = times + np.timedelta64(HORIZON_DAYS, "D") <= np.datetime64(AS_OF, "s")
    pending = np.flatnonzero(~final)
    assert pending.size and final.sum() > 5
    # the offending final row: the first final row after the first pending one (so a pending row precedes it)
    target = int(np.flatnonzero(final & (np.arange(N) > pending[0]))[0])
    labels = rng.integers(0, 2, N).astype(str).astype(object)
    labels[target] = bad
    if pending_first:
        labels[pending[0]] = bad
    refused = np.array([v not in ("0", "1") for v in labels]) & final
    scores = rng.uniform(0.05, 0.95, N)
    lines = ["ts,p,y,m"] + [f"{t},{p:.4f},{y},{'true' if f else 'false'}"
                            for t, p, y, f in zip(times.astype(str), scores, labels, final)]
    return lines, final, refused


def write(tmp_path, lines: list[str]) -> str:
    path = tmp_path / "rows.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def scan(path: str, engine: str, flags: tuple[str, ...]) -> list[str]:
    return ["monitor", "scan", path, "--score", "p", "--label", "y", "--time", "ts", *flags,
            "--engine", engine]


FLAGS = {"as-of": ("--as-of", AS_OF, "--horizon", f"{HORIZON_DAYS}d"), "mature": ("--mature", "m")}

#: the refusal of a label 2, and of a missing label (the labels' own line on every route, round 27)
WORDS = {"2": r"column 'y' \(labels\) must be binary 0/1 .*",
         "": r"column 'y' \(labels\) has 1 missing value \(None/NaN\) of \d+ rows"}


@pytest.mark.parametrize("bad", ["2", ""], ids=["label-2", "missing-label"])
@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_memory_and_duckdb_name_the_same_data_row(tmp_path, cli, refused, bad: str, flag: str) -> None:
    """Before: the memory route's line lacked ", first at data row k" (the DuckDB route's had it)."""
    lines, final, refused_rows = table(bad, pending_first=False)
    path = write(tmp_path, lines)
    k = int(np.flatnonzero(refused_rows)[0]) + 1  # data rows counted from 1, the header not counted
    got = {engine: cli(scan(path, engine, FLAGS[flag])) for engine in ("memory", "duckdb")}
    for engine, result in got.items():
        refused(result, WORDS[bad])
        assert not bad or f"1 of {int(final.sum())} are not" in result.err, (engine, result.err)
        assert f", first at data row {k};" in result.err, (engine, result.err)
    assert got["memory"].err == got["duckdb"].err


@pytest.mark.parametrize("bad", ["2", ""], ids=["label-2", "missing-label"])
@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_memory_names_the_final_row_not_a_pending_one(tmp_path, cli, refused, bad: str, flag: str) -> None:
    """A pending row before it holds a bad label too (allowed): the line names the final row."""
    lines, final, refused_rows = table(bad, pending_first=True)
    k = int(np.flatnonzero(refused_rows)[0]) + 1
    assert k - 1 > int(np.flatnonzero(~final)[0])  # a pending row with a bad label comes first
    result = cli(scan(write(tmp_path, lines), "memory", FLAGS[flag]))
    refused(result, rf"{WORDS[bad]}, first at data row {k};")


@pytest.mark.parametrize("bad", ["2", ""], ids=["label-2", "missing-label"])
@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_duckdb_names_the_final_row_not_a_pending_one(tmp_path, cli, refused, bad: str, flag: str) -> None:
    """Before: cli/_bad_rows.py's locate found the first bad label in FILE over every row, a pending one
    included, so it named a pending row (whose label may be missing or anything)."""
    lines, final, refused_rows = table(bad, pending_first=True)
    k = int(np.flatnonzero(refused_rows)[0]) + 1
    path = write(tmp_path, lines)
    result = cli(scan(path, "duckdb", FLAGS[flag]))
    refused(result, rf"{WORDS[bad]}, first at data row {k};")
    assert result.err == cli(scan(path, "memory", FLAGS[flag])).err


def test_the_frame_form_carries_the_rows(tmp_path) -> None:
    """``vc.monitor(table, ...)`` on an in-memory frame: the error's ``rows`` are the frame's offending final
    rows (0-based), of ``n_rows`` = its rows."""
    import pyarrow.csv

    lines, _, refused_rows = table("2", pending_first=True)
    frame = pyarrow.csv.read_csv(write(tmp_path, lines))
    with pytest.raises(vc.VeracityError) as info:
        vc.monitor(frame, score="p", label="y", periods="ts", freq="M", as_of=AS_OF, horizon=HORIZON_DAYS)
    assert info.value.rows.tolist() == np.flatnonzero(refused_rows).tolist()
    assert info.value.n_rows == N


def test_the_array_form_names_the_callers_row() -> None:
    """Before: "first at flat index 2" and ``rows == [2]`` counted among the final rows only, where
    position 2 of the caller's arrays is a pending row."""
    times = np.array(["2026-01-01", "2026-01-02", "2026-03-20", "2026-01-03"], dtype="datetime64[D]")
    scores = np.array([0.1, 0.2, 0.3, 0.4])
    labels = np.array([0.0, 1.0, 0.0, np.nan])
    final = times + np.timedelta64(HORIZON_DAYS, "D") <= np.datetime64(AS_OF)
    bad = np.flatnonzero(final & np.isnan(labels))
    with pytest.raises(vc.VeracityError) as info:
        vc.monitor(scores, labels, times, freq="M", as_of=AS_OF, horizon=HORIZON_DAYS)
    assert info.value.rows.tolist() == bad.tolist() and info.value.n_rows == labels.size
    assert f"first at flat index {bad[0]})" in str(info.value)


@pytest.mark.parametrize("flag", ["as-of", "freq"])
def test_a_text_that_is_no_time_is_named_on_every_route(tmp_path, cli, refused, flag: str) -> None:
    """DuckDB keeps a --time column holding a text that is no time as text. Before, with --as-of its line
    was "column 'ts' (periods) is String; as_of/horizon need prediction times" (with --freq "is String;
    ... cast it first"), naming no row, where the memory route named the first such text and its row."""
    lines, _, _ = table("0", pending_first=False)
    row = 7  # 0-based, as the memory route counts the column's values
    fields = lines[row + 1].split(",")
    lines[row + 1] = ",".join(["yesterday", *fields[1:]])
    path = write(tmp_path, lines)
    flags = FLAGS["as-of"] if flag == "as-of" else ("--freq", "M")
    got = {engine: cli(scan(path, engine, flags)) for engine in ("memory", "duckdb")}
    for engine, result in got.items():
        refused(result, r"column 'ts' \(periods\) must be dates or datetimes in one ISO 8601 form")
        # the command line names it as a data row, counted from 1 (round 27)
        assert f"not ISO 8601 times (data row {row + 1}: 'yesterday')" in result.err, (engine, result.err)
    assert got["memory"].err == got["duckdb"].err
