"""``veracity monitor`` names a bad row as every other command does: "data row k" (round 27).

Before, the monitor's command line printed the library's 0-based positions: a text that is no ISO 8601
time in data row 3 of FILE was "(row 2: '2026-01-0x')" on every engine of ``monitor scan``, the store's
``log``/``outcomes`` said "(first at row 2: 1.7)" of data row 3, and a missing period key was "periods has
1 missing keys (first at row 1)" in memory and "column 'g' (periods) has 1 missing values" (no row) on
DuckDB and Dask. Now the command line says "data row k" (counted from 1, the header not counted) on every
route, and counts read "1 missing value", "1 label is not 0 or 1". The Python API keeps 0-based positions.
The expected words are built here from the files' own rows.
"""


import numpy as np
import pytest

ENGINES = ["memory", "duckdb", "dask"]

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py


def _scan(cli, path: str, engine: str, *flags: str):
    return cli(["monitor", "scan", path, "--score", "p", "--label", "y", "--engine", engine, *flags])


def _times(n: int, bad: dict[int, str]) -> list[str]:
    """n ISO dates, the 0-based positions in ``bad`` replaced by their text."""
    return [bad.get(i, f"2026-01-{1 + i % 28:02d}") for i in range(n)]


def _csv_text(value: str) -> str:
    """``value`` as one CSV field (quoted)."""
    return '"' + value.replace('"', '""') + '"'


@pytest.mark.parametrize("engine", ENGINES)
def test_scan_names_a_text_that_is_no_time_by_its_data_row(cli, refused, tmp_path, engine, write_csv) -> None:
    """A value with a quote and a position-like text of its own: shown as Python shows it (in double
    quotes), its own text never renumbered."""
    bad_at, value = 6, "it's (row 9: x"  # 0-based position 6: data row 7
    ts = _times(12, {bad_at: value})
    p = np.linspace(0.1, 0.9, 12)
    rows = [(_csv_text(t), f"{q:.2f}", i % 2) for i, (t, q) in enumerate(zip(ts, p))]
    path = write_csv(tmp_path / "t.csv", "ts,p,y", rows)
    r = _scan(cli, path, engine, "--time", "ts")
    refused(r)
    assert f"has strings that are not ISO 8601 times (data row {bad_at + 1}: {value!r})" in r.err, r.err
    assert r.err.count("(row ") == 1  # the value's own text only


@pytest.mark.parametrize("engine", ENGINES)
def test_scan_names_both_rows_of_a_mix_of_offsets(cli, refused, tmp_path, engine, write_csv) -> None:
    aware, naive = 0, 3  # 0-based: the first time with an offset, the first without
    ts = [f"2026-01-{1 + i:02d}T10:00:00+01:00" if i < naive else f"2026-01-{1 + i:02d}" for i in range(8)]
    path = write_csv(tmp_path / "t.csv", "ts,p,y", [(t, 0.5, i % 2) for i, t in enumerate(ts)])
    r = _scan(cli, path, engine, "--time", "ts")
    refused(r, r"mixes times with a UTC offset")
    assert (f"(data row {aware + 1}: {ts[aware]!r}) and without (data row {naive + 1}: {ts[naive]!r})"
            in r.err), r.err


@pytest.mark.parametrize("engine", ENGINES)
def test_scan_of_a_glob_counts_the_rows_over_its_files_in_order(cli, refused, tmp_path, engine,
                                                                write_csv) -> None:
    """The first file's text mixes offsets (so every route reads both files' column as text); the first text
    that is no time is the second row of the second file."""
    first = ["2026-01-01", "2026-01-02T00:00:00+01:00", "2026-01-03"]
    second = ["2026-01-05", "2026-01-0x"]
    (tmp_path / "g").mkdir()
    write_csv(tmp_path / "g" / "a.csv", "ts,p,y", [(t, 0.3, 1) for t in first])
    write_csv(tmp_path / "g" / "b.csv", "ts,p,y", [(t, 0.6, 0) for t in second])
    r = _scan(cli, str(tmp_path / "g" / "*.csv"), engine, "--time", "ts")
    refused(r)
    assert f"(data row {len(first) + 2}: {second[1]!r})" in r.err, r.err


def test_scan_on_dask_drops_a_position_it_cannot_place_in_the_file(cli, refused, tmp_path,
                                                                    monkeypatch, write_csv) -> None:
    """When the file cannot be read again to count over its rows, Dask's error names the value without a
    position: the one it carries is counted in one partition, no data row of FILE."""
    pytest.importorskip("dask.dataframe")
    from veracity.cli import _monitor

    monkeypatch.setattr(_monitor, "_not_iso_times", lambda *args: None)
    ts = _times(6, {2: "2026-01-0x"})
    path = write_csv(tmp_path / "t.csv", "ts,p,y", [(t, 0.5, i % 2) for i, t in enumerate(ts)])
    r = _scan(cli, path, "dask", "--time", "ts")
    refused(r, r"has strings that are not ISO 8601 times \('2026-01-0x'\)")
    assert "row" not in r.err.split("ISO 8601 times", 1)[1].split(";")[0]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("gone", [[4], [4, 9]])
def test_scan_names_the_first_missing_period_key_alike_on_every_route(cli, refused, tmp_path, engine,
                                                                      gone, write_csv) -> None:
    keys = ["" if i in gone else "ab"[i % 2] for i in range(12)]
    path = write_csv(tmp_path / "k.csv", "g,p,y", [(k, 0.4, i % 2) for i, k in enumerate(keys)])
    r = _scan(cli, path, engine, "--period", "g")
    n = len(gone)
    count = "1 missing value" if n == 1 else f"{n} missing values"
    refused(r)
    assert r.err.rstrip("\n").endswith(f"input error: column 'g' (periods) has {count} (first at data row "
                                       f"{gone[0] + 1}); drop or fill {'it' if n == 1 else 'them'}"), r.err


def test_the_store_names_data_rows(cli, refused, tmp_path, write_csv) -> None:
    pytest.importorskip("duckdb")
    store = str(tmp_path / "m.duckdb")
    assert cli(["monitor", "init", store]).code == 0
    p = [0.2, 0.4, 1.7, 0.9, 1.2]
    rows = [(i + 1, f"2026-01-{i + 1:02d}", s) for i, s in enumerate(p)]
    path = write_csv(tmp_path / "p.csv", "id,ts,p", rows)
    r = cli(["monitor", "log", store, path, "--id", "id", "--time", "ts", "--score", "p"])
    refused(r, rf"2 of 5 values are not probabilities in \[0, 1\] \(first at data row 3: 1\.7\);")
    ts = _times(4, {3: "2026-01-0x"})
    path = write_csv(tmp_path / "t.csv", "id,ts,p", [(i + 1, t, 0.5) for i, t in enumerate(ts)])
    r = cli(["monitor", "log", store, path, "--id", "id", "--time", "ts", "--score", "p"])
    refused(r, r"time column 'ts' has strings that are not ISO 8601 times \(data row 4: '2026-01-0x'\);")
    y = [1, 0, 2, 0]
    path = write_csv(tmp_path / "y.csv", "id,y", list(enumerate(y, start=1)))
    r = cli(["monitor", "outcomes", store, path, "--id", "id", "--label", "y"])
    refused(r, r": 1 label is not 0 or 1 \(first at data row 3: 2\.0\);")
    path = write_csv(tmp_path / "o.csv", "id,y", [(1, 3), (2, 7)])
    r = cli(["monitor", "outcomes", store, path, "--id", "id", "--label", "y"])
    refused(r, r": 2 labels are not 0 or 1 \(first at data row 1: 3\.0\);")


def test_the_python_api_keeps_positions(error_line, tmp_path) -> None:
    """The library names an array's rows from 0; the frame form in memory names the column, as the lazy
    forms do, and its first missing key."""
    pa = pytest.importorskip("pyarrow")
    import veracity as vc

    table = pa.table({"g": ["a", None, "b", None], "p": [0.2, 0.4, 0.6, 0.8], "y": [0, 1, 0, 1]})
    line = error_line(lambda: vc.monitor(table, score="p", label="y", periods="g"))
    assert line == "column 'g' (periods) has 2 missing values (first at row 1); drop or fill them"
    line = error_line(lambda: vc.monitor([0.2, 0.4], [0, 1], ["a", None]))
    assert line == "periods has 1 missing key (first at row 1); drop or fill it"
    pytest.importorskip("duckdb")
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.init()
    line = error_line(lambda: store.outcomes(pa.table({"id": [1, 2], "y": [1, 2]}), id="id", label="y"))
    assert "1 label is not 0 or 1 (first at row 1: 2.0)" in line
