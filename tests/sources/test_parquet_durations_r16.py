"""A Parquet column of Arrow durations read by DuckDB: the file's slices are the durations every other
route names (``0 days 00:00:00.001000``), with the same rows and numbers.

Before: DuckDB reads an Arrow ``duration[unit]`` column as BIGINT counts of its unit, so
``vc.audit(path, by='d')`` named the slices ``0`` and ``1000000`` where ``vc.audit(pd.read_parquet(path),
by='d')`` names them ``0 days 00:00:00`` and ``0 days 00:00:00.001000``; files holding the column in
milliseconds and in nanoseconds made one BIGINT column of both counts (the same duration in two slices);
``vc.segments`` and ``vc.monitor`` took the counts for numbers where memory refuses a duration."""

from __future__ import annotations

import os

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

N = 400
RNG = np.random.default_rng(16)
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)
K = RNG.integers(0, 3, N)  # the slice of each row: 0, 1 or 2 counts of a unit


def _write(path, unit, step, rows=slice(None), nulls=False):
    counts = (K * step)[rows].astype(np.int64)
    arr = pa.array(counts, pa.duration(unit), mask=(K[rows] == 2) if nulls else None)
    pq.write_table(pa.table({"p": P[rows], "y": Y[rows], "d": arr}), path)
    return str(path)


def _slices(result):
    return {name: (g.n, g.ece) for name, g in result.groups.items()}


def _want(names):
    """The slices written by hand: the rows of K == i are the slice names[i] (None: missing keys)."""
    return {name: (int((K == i).sum()), vc.audit(P[K == i], Y[K == i]).ece) for i, name in enumerate(names)}


@pytest.mark.parametrize(("unit", "step", "names"), [
    ("ms", 1, ["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000"]),
    ("s", 1, ["0 days 00:00:00", "0 days 00:00:01", "0 days 00:00:02"]),
    ("us", 1, ["0 days 00:00:00", "0 days 00:00:00.000001", "0 days 00:00:00.000002"]),
    ("ns", 1000, ["0 days 00:00:00", "0 days 00:00:00.000001", "0 days 00:00:00.000002"]),
    ("s", -90_000, ["0 days 00:00:00", "-1 days 01:00:00", "-2 days 02:00:00"]),  # -25 h, -50 h
])
def test_a_parquet_duration_slice_is_named_as_in_memory(tmp_path, unit, step, names):
    path = _write(tmp_path / "d.parquet", unit, step)
    got = vc.audit(path, score="p", label="y", by="d", min_count=1)  # was {'0', '1000000', '2000000'}
    memory = vc.audit(pd.read_parquet(path), score="p", label="y", by="d", min_count=1)
    want = _want(names)
    assert _slices(got).keys() == _slices(memory).keys() == want.keys()
    for name, (n, ece) in want.items():
        assert got.groups[name].n == memory.groups[name].n == n
        assert got.groups[name].ece == pytest.approx(ece, rel=1e-12, abs=1e-15)
        assert memory.groups[name].ece == pytest.approx(ece, rel=1e-12, abs=1e-15)


def test_missing_durations_are_the_none_slice(tmp_path):
    path = _write(tmp_path / "d.parquet", "ms", 5, nulls=True)
    got = vc.audit(path, score="p", label="y", by="d", min_count=1)
    want = _want(["0 days 00:00:00", "0 days 00:00:00.005000", "(missing)"])
    assert {k: g.n for k, g in got.groups.items()} == {k: n for k, (n, _) in want.items()}


@pytest.mark.parametrize("form", ["directory", "glob"])
def test_files_in_other_units_are_one_duration_each(tmp_path, form):
    """One file in milliseconds, the other in nanoseconds: each read in its own unit. Before: the counts
    1 (ms) and 1000000 (ns) of the same duration were two slices."""
    folder = tmp_path / "parts"
    folder.mkdir()
    _write(folder / "a.parquet", "ms", 1, slice(0, N // 2))
    _write(folder / "b.parquet", "ns", 10**6, slice(N // 2, None))
    path = str(folder) if form == "directory" else os.path.join(str(folder), "*.parquet")
    got = vc.audit(path, score="p", label="y", by="d", min_count=1)
    want = _want(["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000"])
    assert {k: g.n for k, g in got.groups.items()} == {k: n for k, (n, _) in want.items()}
    for name, (_, ece) in want.items():
        assert got.groups[name].ece == pytest.approx(ece, rel=1e-12, abs=1e-15)


def test_files_in_one_unit_and_case_twins_keep_durations(tmp_path):
    """A file holding ``d`` (durations) and ``D`` (numbers): DuckDB renames one, the file is read by
    position; ``d`` is still the durations and ``D`` the numbers."""
    path = tmp_path / "twins.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, "d": pa.array(K, pa.duration("ms")), "D": K}), path)
    by_duration = vc.audit(str(path), score="p", label="y", by="d", min_count=1)
    by_number = vc.audit(str(path), score="p", label="y", by="D", min_count=1)
    assert sorted(by_duration.groups) == ["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000"]
    assert sorted(by_number.groups) == ["0", "1", "2"]


def test_nanoseconds_duckdb_cannot_hold_are_refused_in_one_line(tmp_path, capsys):
    """DuckDB's INTERVAL holds microseconds: durations 1 ns apart are refused, not rounded into one slice;
    the memory engine keeps them."""
    from veracity.cli import main

    path = _write(tmp_path / "ns.parquet", "ns", 1)
    with pytest.raises(vc.VeracityError, match=r"^column 'd' holds durations with nanoseconds \(\d ns\), which "
                                               r"DuckDB's INTERVAL cannot hold; read the file into memory"):
        vc.audit(path, score="p", label="y", by="d")
    args = ["audit", path, "--score", "p", "--label", "y", "--by", "d"]
    assert main([*args, "--engine", "duckdb"]) == 2
    assert "holds durations with nanoseconds" in capsys.readouterr().err
    assert main([*args, "--engine", "memory"]) == 0
    assert "0 days 00:00:00.000000002" in capsys.readouterr().out
    # the same file audited without the column reads it not at all
    assert vc.audit(path, score="p", label="y").n == N


def test_durations_beyond_292_years_are_refused_not_wrapped(tmp_path):
    """DuckDB hands an INTERVAL to Arrow as int64 nanoseconds: 10**10 s (317 years) came back wrapped."""
    path = _write(tmp_path / "far.parquet", "s", 10**10)
    with pytest.raises(vc.VeracityError, match=r"holds a duration of [12]0000000000 s, beyond the 292 years"):
        vc.audit(path, score="p", label="y", by="d")


def test_a_duration_in_one_file_and_a_number_in_another_is_refused(tmp_path):
    """Before: DuckDB read both as BIGINT (1 ms and the number 1 one slice); memory took the numbers for
    nanoseconds. Refused on every engine, naming both files."""
    from veracity.sources._api import read_path

    folder = tmp_path / "parts"
    folder.mkdir()
    _write(folder / "a.parquet", "ms", 1, slice(0, N // 2))
    pq.write_table(pa.table({"p": P[N // 2:], "y": Y[N // 2:], "d": K[N // 2:]}), folder / "b.parquet")
    said = set()
    for read in (lambda: vc.audit(str(folder), score="p", label="y", by="d"), lambda: read_path(str(folder))):
        with pytest.raises(vc.VeracityError) as err:
            read()
        said.add(str(err.value))
    (message,) = said
    assert message.startswith("column 'd' holds duration[ms] values in ") and "a.parquet" in message
    assert "and int64 values in " in message and "b.parquet" in message


@pytest.mark.parametrize("call", ["segments", "monitor"])
def test_other_consumers_read_the_file_as_memory_does(tmp_path, call):
    """vc.segments refuses a duration feature and vc.monitor a duration period column in memory; the file
    route took the BIGINT counts for numbers (segments of d, periods 0 and 1000000)."""
    path = _write(tmp_path / "d.parquet", "ms", 1)
    said = []
    for data in (path, pd.read_parquet(path)):
        with pytest.raises(vc.VeracityError) as err:
            if call == "segments":
                vc.segments(data, score="p", label="y", features=["d"])
            else:
                vc.monitor(data, score="p", label="y", periods="d", min_count=1)
        said.append(str(err.value))
    assert said[0] == said[1]


def test_a_duration_column_is_not_a_score_on_the_file_route(tmp_path):
    """As in memory: a duration column is refused as scores (the BIGINT counts were read as numbers)."""
    path = _write(tmp_path / "d.parquet", "ms", 1)
    said = []
    for data in (path, pd.read_parquet(path)):
        with pytest.raises(vc.VeracityError, match=r"column 'd' \(scores\) must be numeric, got Duration"):
            vc.audit(data, score="d", label="y")
        said.append(True)
    assert len(said) == 2


def test_the_cli_names_duration_slices_alike_on_every_engine(tmp_path, capsys):
    from veracity.cli import main

    path = _write(tmp_path / "d.parquet", "ms", 1)
    lines = {}
    for engine in ("duckdb", "memory", "dask"):
        assert main(["audit", path, "--score", "p", "--label", "y", "--by", "d", "--engine", engine,
                     "--min-count", "1"]) == 0
        out = capsys.readouterr().out
        lines[engine] = [line for line in out.splitlines() if line.startswith("0 days")]
    assert lines["duckdb"] == lines["memory"] == lines["dask"]
    assert [line.split()[2] for line in lines["duckdb"]] == ["00:00:00", "00:00:00.001000", "00:00:00.002000"]


def test_as_source_in_memory_reads_durations_as_durations(tmp_path):
    """``as_source(path, engine='memory')`` collects DuckDB's INTERVAL: as durations (pandas DateOffset
    objects, which do not compare, made numpy refuse the keys)."""
    from veracity.sources import as_source

    path = _write(tmp_path / "d.parquet", "ms", 1)
    keys = as_source(path, score="p", label="y", by="d", engine="memory").by
    assert keys.dtype == np.dtype("timedelta64[ns]")
    assert np.array_equal(keys.astype(np.int64), K * 10**6)


def test_duration_keys_beyond_int64_nanoseconds_are_named_exactly():
    """numpy's cast to nanoseconds wrapped 10**10 s to -97763 days, silently; pandas raised."""
    from veracity.core._keys import duration_ns, key_name

    seconds = np.timedelta64(10**10, "s")
    assert duration_ns(seconds) == 10**19
    assert key_name(seconds) == key_name(pd.Timedelta(seconds)) == "115740 days 17:46:40"  # 10**10 = 115740 d + 64000 s
    assert key_name(np.timedelta64(2, "W")) == "14 days 00:00:00"


@pytest.mark.parametrize("form", ["file", "directory of two units"])
def test_spark_reads_parquet_durations_as_durations(spark, tmp_path, form):
    """Before: Spark read the column as BIGINT counts too (slices 0 and 1000000)."""
    from veracity.sources._api import open_frame

    if form == "file":
        path = _write(tmp_path / "d.parquet", "ms", 1, nulls=True)
        names = ["0 days 00:00:00", "0 days 00:00:00.001000", "(missing)"]
    else:
        (tmp_path / "parts").mkdir()
        _write(tmp_path / "parts" / "a.parquet", "ms", 1, slice(0, N // 2))
        _write(tmp_path / "parts" / "b.parquet", "ns", 10**6, slice(N // 2, None))
        path, names = str(tmp_path / "parts"), ["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000"]
    got = vc.audit(open_frame(path, "spark"), score="p", label="y", by="d", min_count=1)
    want = _want(names)
    assert {k: g.n for k, g in got.groups.items()} == {k: n for k, (n, _) in want.items()}
    for name, (_, ece) in want.items():
        assert got.groups[name].ece == pytest.approx(ece, rel=1e-12, abs=1e-15)


def test_spark_refuses_nanoseconds_in_one_line(spark, tmp_path):
    from veracity.sources._api import open_frame

    path = _write(tmp_path / "ns.parquet", "ns", 1)
    with pytest.raises(Exception) as err:  # the job stops: the CLI names it in one line (describe_error)
        vc.audit(open_frame(path, "spark"), score="p", label="y", by="d")
    from veracity.sources._duckdb import describe_error

    said = describe_error(err.value, path)
    assert said.startswith("column 'd' holds durations with nanoseconds (") and said.endswith(
        f" ns), which Spark's intervals cannot hold; read the file with --engine memory (in {path})")


def test_dask_reads_whole_numbers_with_a_missing_value_as_integers(tmp_path):
    """Before: ``--engine dask`` read a Parquet int64 column with a missing value as float64: slices ``0.0``
    and ``1.0`` where every other engine says ``0`` and ``1``, and ids beyond 2**53 merged."""
    pytest.importorskip("dask.dataframe")
    from veracity.sources._api import open_frame

    big = 2**53
    keys = pa.array([int(big + k) if k < 2 else None for k in K], pa.int64())  # 2**53 and 2**53 + 1: one float
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, "g": keys}), path)
    got = vc.audit(open_frame(str(path), "dask"), score="p", label="y", by="g", min_count=1)
    want = {str(big): int((K == 0).sum()), str(big + 1): int((K == 1).sum()), "(missing)": int((K == 2).sum())}
    assert {k: g.n for k, g in got.groups.items()} == want
    assert {k: g.n for k, g in vc.audit(str(path), score="p", label="y", by="g", min_count=1).groups.items()} == want


def test_a_time_of_day_with_nanoseconds_is_refused_not_merged(tmp_path):
    """DuckDB reads an Arrow time64[ns] column as TIME_NS; its keys came back as Python ``time`` objects
    (microseconds): 00:00:01 and 00:00:01.000000001 were one key and the other key's rows were dropped
    (n 110 of 200, silently). Times without nanoseconds are read as times."""
    tick = np.where(K == 1, 1, 0)
    exact = tmp_path / "exact.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, "t": pa.array(10**9 + K * 1000, pa.time64("ns"))}), exact)
    got = vc.audit(str(exact), score="p", label="y", by="t", min_count=1)
    assert {k: g.n for k, g in got.groups.items()} == {
        "00:00:01": int((K == 0).sum()), "00:00:01.000001": int((K == 1).sum()), "00:00:01.000002": int((K == 2).sum())}
    odd = tmp_path / "odd.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, "t": pa.array(10**9 + tick, pa.time64("ns"))}), odd)
    with pytest.raises(vc.VeracityError, match=r"^column 't' holds times of day with nanoseconds "
                                               r"\(00:00:01\.000000001\), which no route names exactly"):
        vc.audit(str(odd), score="p", label="y", by="t")
