"""The frame form of vc.monitor reads ISO text times as the array form does; every engine refuses a CSV
time column that mixes times with and without a UTC offset in the memory route's line (round 25).

* ``vc.monitor(frame, score=, label=, periods="ts", as_of=, horizon=)`` with ``ts`` ISO 8601 text (pandas
  object, polars String, pyarrow string) was refused as "column 'ts' (periods) is String", where the
  array form ``vc.monitor(p, y, ts_texts, ...)`` and the CSV route read the text as times. The oracle is
  the array form on the same values.
* ``veracity monitor scan FILE --time ts``: the memory route refuses a column mixing naive and offset
  times (Arrow keeps it as text; the array form has no one reading of it); DuckDB and Spark read it as
  times, a naive one as UTC, and answered; Dask refused it as "text that is not a date or time, e.g. a
  value". Same file, one answer now: the memory route's line on every engine (Spark is checked by hand,
  its start costing half a minute; it reads the column as DuckDB does).
"""

import json

import numpy as np
import pytest

import veracity as vc


def same(got: dict, want: dict) -> bool:
    """Equal results, NaN equal to NaN (the JSON text of each)."""
    return json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)

TIMES = ["2026-01-05T10:00:00", "2026-01-20T23:59:59.5", "2026-02-06T10:00:00", "2026-02-27T08:00:00",
         "2026-03-01T00:00:00"]


def rows(n: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(25)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    ts = np.asarray(TIMES, dtype=object)[rng.integers(0, len(TIMES), n)]
    return p, y, ts


def frames(p: np.ndarray, y: np.ndarray, ts: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    pd = pytest.importorskip("pandas")
    out["pandas"] = pd.DataFrame({"ts": pd.Series(ts, dtype=object), "p": p, "y": y})
    pl = pytest.importorskip("polars")
    out["polars"] = pl.DataFrame({"ts": ts, "p": p, "y": y})
    import pyarrow as pa

    out["pyarrow"] = pa.table({"ts": pa.array(ts, pa.string()), "p": p, "y": y})
    return out


LATE = [{"as_of": "2026-02-28", "horizon": "30d"}, {"as_of": "2026-03-01T00:00:00+01:00", "horizon": 5},
        {"as_of": "2026-03-01", "horizon": "1h"}]


@pytest.mark.parametrize("late", LATE)
@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("offsets", [False, True])
def test_text_times_with_as_of_give_the_array_forms_numbers(kind: str, late: dict, offsets: bool) -> None:
    """Before: "column 'ts' (periods) is String; as_of/horizon need prediction times"."""
    p, y, ts = rows()
    if offsets:  # every time with an offset: converted to UTC, as the array form converts them
        ts = np.asarray([t + "-05:00" for t in ts], dtype=object)
    want = vc.monitor(p, y, ts, freq="M", min_count=10, **late).to_dict()
    got = vc.monitor(frames(p, y, list(ts))[kind], score="p", label="y", periods="ts", freq="M", min_count=10,
                     **late).to_dict()
    assert same(got, want)
    # (with offsets, 1 h: the rows not final are all dated after as_of, which leaves them out: round 34)
    assert any(r["pending"] for r in want["periods"]) or want.get("after_as_of")
    assert any(r["n"] for r in want["periods"])


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_text_times_with_as_of_and_pos_label(kind: str) -> None:
    """With ``pos_label`` the label column's check reads the final rows (an expression on the frame): the
    text times' final rows, as the array form's ``label_maturity`` finds them."""
    p, y, ts = rows()
    words = np.where(y == 1, "yes", "no").astype(object)
    want = vc.monitor(p, (words == "yes").astype(np.int64), ts, freq="M", min_count=10, as_of="2026-02-28",
                      horizon="30d").to_dict()
    frame = frames(p, words, list(ts))[kind]
    got = vc.monitor(frame, score="p", label="y", periods="ts", freq="M", min_count=10, as_of="2026-02-28",
                     horizon="30d", pos_label="yes").to_dict()
    assert same(got, want)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_a_mix_of_offsets_with_as_of_is_refused_in_the_array_forms_words(kind: str, error_line) -> None:
    p, y, ts = rows(6)
    ts = list(ts)
    ts[3] = "2026-02-06T10:00:00+02:00"
    array = error_line(lambda: vc.monitor(p, y, np.asarray(ts, dtype=object), freq="M", as_of="2026-02-28",
                                          horizon="30d"))
    table = frames(p, y, ts)[kind]
    frame = error_line(lambda: vc.monitor(table, score="p", label="y", periods="ts", freq="M", as_of="2026-02-28",
                                          horizon="30d"))
    assert "mixes times with a UTC offset (row 3:" in array
    assert frame == array.replace("periods must", "column 'ts' (periods) must", 1)


MIXED = [("2026-01-05T10:00:00", 0.2, 0), ("2026-01-05T10:00:00+01:00", 0.2, 0),
         ("2026-01-06T10:00:00+02:00", 0.7, 1), ("2026-02-06T10:00:00Z", 0.4, 1),
         ("2026-02-07T10:00:00-05:00", 0.1, 0)]


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("mixed")
    out = {}
    tables = {"naive_first": MIXED, "naive_last": [*MIXED[1:], MIXED[0]], "offsets": MIXED[1:]}
    for name, table in tables.items():
        (root / f"{name}.csv").write_text("ts,p,y\n" + "".join(f"{t},{s},{v}\n" for t, s, v in table))
        out[name] = str(root / f"{name}.csv")
    return out


@pytest.mark.parametrize("late", [[], ["--as-of", "2026-03-01", "--horizon", "30d"]])
@pytest.mark.parametrize("engine", ["duckdb", "dask"])
@pytest.mark.parametrize("name", ["naive_first", "naive_last"])
def test_every_engine_refuses_a_mix_of_offsets_as_memory_does(csv_files: dict[str, str], cli, refused, engine: str,
                                                              name: str, late: list[str]) -> None:
    """Before: DuckDB answered (naive times read as UTC), Dask said "holds text that is not a date"."""
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    argv = ["monitor", "scan", csv_files[name], "--time", "ts", "--score", "p", "--label", "y", *late]
    memory = cli([*argv, "--engine", "memory"])
    refused(memory, r"column 'ts' \(periods\) must be dates or datetimes in one ISO 8601 form, but it mixes")
    lazy = cli([*argv, "--engine", engine])
    refused(lazy)
    assert lazy.err == memory.err


@pytest.mark.parametrize("engine", ["duckdb", "dask"])
def test_one_form_of_offsets_is_still_read(csv_files: dict[str, str], cli, engine: str) -> None:
    """Times that all carry an offset: every engine reads them, to the same numbers (the check reads no
    more than it must refuse)."""
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    argv = ["monitor", "scan", csv_files["offsets"], "--time", "ts", "--score", "p", "--label", "y", "--json"]
    memory, lazy = cli([*argv, "--engine", "memory"]), cli([*argv, "--engine", engine])
    assert memory.code == lazy.code == 0, (memory.err, lazy.err)
    want, got = json.loads(memory.out)["periods"], json.loads(lazy.out)["periods"]
    assert [r["period"] for r in got] == [r["period"] for r in want]
    for a, b in zip(got, want):  # the engines' sums may differ in the last bit
        def text(r: dict) -> dict:
            return {k: v for k, v in r.items() if isinstance(v, str)}

        def numbers(r: dict) -> dict:
            return {k: v for k, v in r.items() if not isinstance(v, str)}

        assert text(a) == text(b)
        assert numbers(a) == pytest.approx(numbers(b), rel=1e-12, nan_ok=True)


def test_the_path_form_refuses_the_mix_too(csv_files: dict[str, str], error_line) -> None:
    """``vc.monitor(path, ...)`` reads the file with DuckDB: the same line as the table read into memory."""
    import pyarrow.csv

    path = csv_files["naive_first"]
    kwargs = {"score": "p", "label": "y", "periods": "ts", "freq": "M"}
    in_memory = error_line(lambda: vc.monitor(pyarrow.csv.read_csv(path), **kwargs))
    assert error_line(lambda: vc.monitor(path, **kwargs)).startswith(in_memory)


def test_a_missing_time_in_a_pandas_frame_is_named(error_line) -> None:
    """The in-memory checks now count in numpy: a pandas NaT among the times is one line naming the column
    (before: pandas' IntCastingNaNError escaped from the lazy forms' calendar arithmetic), as on polars."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    times = [pd.Timestamp("2026-01-05"), None, pd.Timestamp("2026-02-06")]
    data = {"ts": times, "p": [0.2, 0.5, 0.7], "y": [0, 1, 1]}
    lines = {error_line(lambda: vc.monitor(frame, score="p", label="y", periods="ts", freq="M"))
             for frame in (pd.DataFrame(data), pl.DataFrame(data))}
    first = times.index(None)  # named by its 0-based position, as a missing period key is (round 27)
    assert lines == {f"column 'ts' (periods) has 1 missing value (first at row {first}); drop or fill it"}
