"""One name and the same rows for every slice on every route (memory, polars eager and lazy, a DuckDB
relation, a Parquet file read by DuckDB), or one refusal everywhere.

Before:

* zone-aware nanosecond times 1 ns apart (what pandas writes to Parquet) were one slice on a Parquet
  file and a DuckDB relation: ``{'2024-01-01 00:00:00+00:00': 400}`` where memory has three slices
  (DuckDB's ``TIMESTAMPTZ_NS`` was cast to microseconds);
* a polars ``Time`` (nanoseconds) with times 1 ns apart: a lazy frame audited one key and dropped the
  other keys' rows (a fraction of the rows, silently);
* a veracity check written into a DuckDB relation's query (a time of day with nanoseconds) came out as
  a raw ``duckdb.InvalidInputException`` with a ``veracity:`` prefix;
* ``vc.audit_duckdb(path, connection=con)`` read Parquet durations as BIGINT counts (slices ``0``,
  ``1000000``);
* durations beyond 292 years wrapped in memory (10**10 s named ``-97763 days ...``);
* an object column holding both ``1`` and ``'1'`` (or ``True`` and ``'True'``) was one slice ``'1'`` in
  memory (both keys' rows merged), where SQL refuses the two keys of one name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._stats import group_rows, slice_keys

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

N = 400
RNG = np.random.default_rng(1616)
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)
K = RNG.integers(0, 3, N)  # the slice of each row: 0, 1 or 2 ns (or units) past a start


def _slices(result):
    return {name: (g.n, g.ece) for name, g in result.groups.items()}


def _want(names):
    """The slices written by hand: the rows of K == i are the slice names[i]."""
    return {name: (int((K == i).sum()), vc.audit(P[K == i], Y[K == i]).ece) for i, name in enumerate(names)}


def _same(got, want):
    assert list(got) == list(want)
    for name, (n, ece) in want.items():
        assert got[name][0] == n
        assert got[name][1] == pytest.approx(ece, rel=1e-9, abs=1e-12)


# -- U5: zoned nanosecond times on DuckDB ----------------------------------------------------------
ZONED = ["2024-01-01 00:00:00+00:00", "2024-01-01 00:00:00.000000001+00:00",
         "2024-01-01 00:00:00.000000002+00:00"]


def _zoned_file(tmp_path, zone="UTC"):
    start = pd.Timestamp("2024-01-01", tz="UTC").tz_convert(zone)
    frame = pd.DataFrame({"p": P, "y": Y, "t": start + pd.to_timedelta(K, unit="ns")})
    path = str(tmp_path / "t.parquet")
    frame.to_parquet(path)
    return path, frame


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
@pytest.mark.parametrize("route", ["memory", "file", "relation", "polars-lazy"])
def test_zoned_nanosecond_keys_stay_apart_on_every_route(tmp_path, zone, route):
    path, frame = _zoned_file(tmp_path, zone)
    if route == "polars-lazy":
        pl = pytest.importorskip("polars")
        data = pl.from_pandas(frame).lazy()
    else:
        data = {"memory": frame, "file": path, "relation": duckdb.read_parquet(path)}[route]
    got = vc.audit(data, score="p", label="y", by="t", min_count=1)  # file/relation: one slice of 400 rows
    _same(_slices(got), _want(ZONED))


def test_zoned_nanosecond_times_still_monitor_on_duckdb(tmp_path):
    # the period column of vc.monitor: a zone-aware nanosecond column is a time (narwhals typed it Unknown)
    path, frame = _zoned_file(tmp_path)
    frame["t"] = frame["t"] + pd.to_timedelta(K, unit="D")
    frame.to_parquet(path)
    memory = vc.monitor(frame, score="p", label="y", periods="t", freq="D")
    for data in (path, duckdb.read_parquet(path)):
        got = vc.monitor(data, score="p", label="y", periods="t", freq="D")
        assert [r.period for r in got.rows] == [r.period for r in memory.rows]
        assert [r.n for r in got.rows] == [r.n for r in memory.rows]
        assert [r.n for r in got.rows] == [int((K == i).sum()) for i in range(3)]


# -- U6: times of day with nanoseconds -------------------------------------------------------------
def _ns_times(tmp_path):
    table = pa.table({"p": P, "y": Y, "t": pa.array(K, pa.int64()).cast(pa.time64("ns"))})
    path = str(tmp_path / "time.parquet")
    pq.write_table(table, path)
    return table, path


@pytest.mark.parametrize("route", ["polars-lazy", "file", "relation"])
def test_a_time_of_day_with_nanoseconds_is_refused_in_one_line(tmp_path, route):
    table, path = _ns_times(tmp_path)
    if route == "polars-lazy":
        pl = pytest.importorskip("polars")
        data = pl.from_arrow(table).lazy()  # was: one key 00:00:00, the other keys' rows dropped
    else:
        data = {"file": path, "relation": duckdb.read_parquet(path)}[route]  # relation: a raw duckdb error
    with pytest.raises(vc.VeracityError, match=r"^(column 't'|the slice keys) holds? times of day with "
                                               r"nanoseconds \(00:00:00\.00000000[12]\), which no route"):
        vc.audit(data, score="p", label="y", by="t", min_count=1)


def test_times_of_day_in_whole_microseconds_are_kept(tmp_path):
    pl = pytest.importorskip("polars")
    table = pa.table({"p": P, "y": Y, "t": pa.array(K * 1000, pa.int64()).cast(pa.time64("ns"))})
    names = ["00:00:00", "00:00:00.000001", "00:00:00.000002"]
    for data in (pl.from_arrow(table).lazy(), pl.from_arrow(table)):
        _same(_slices(vc.audit(data, score="p", label="y", by="t", min_count=1)), _want(names))


# -- U7: a veracity check in a relation's query ------------------------------------------------------
def test_a_check_in_a_relations_query_is_a_veracity_error(tmp_path):
    _, path = _ns_times(tmp_path)
    with pytest.raises(vc.VeracityError, match=r"\(in the relation\)$") as caught:
        vc.audit(duckdb.read_parquet(path), score="p", label="y", by="t")  # was duckdb.InvalidInputException
    assert "veracity:" not in str(caught.value)


# -- U8: vc.audit_duckdb on a user's connection ------------------------------------------------------
def test_audit_duckdb_on_a_connection_reads_durations_as_durations(tmp_path):
    path = str(tmp_path / "d.parquet")
    pq.write_table(pa.table({"p": P, "y": Y, "d": pa.array(K, pa.int64()).cast(pa.duration("ms"))}), path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        got = vc.audit_duckdb(path, score="p", label="y", by="d", connection=duckdb.connect(), min_count=1)
    # was {'0', '1', '2'}: the BIGINT counts of milliseconds
    _same(_slices(got), _want(["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000"]))


# -- U3: durations beyond 292 years in memory ----------------------------------------------------------
def test_durations_beyond_int64_nanoseconds_are_named_exactly_in_memory(tmp_path):
    seconds = np.array([-5, 1, 10**10], dtype=np.int64)
    d = seconds[K].astype("timedelta64[s]")
    names = ["-0 days 00:00:05", "0 days 00:00:01", "115740 days 17:46:40"]  # 10**10 s = 115740 d + 64000 s
    _same(_slices(vc.audit(P, Y, by=d, min_count=1)), _want(names))  # was '-97763 days ...'
    path = str(tmp_path / "far.parquet")
    pq.write_table(pa.table({"p": P, "y": Y, "d": pa.array(d)}), path)
    _same(_slices(vc.audit(pd.read_parquet(path), score="p", label="y", by="d", min_count=1)), _want(names))


# -- U4: durations in value order (the core; see the report for the frame form) ----------------------
def test_group_rows_orders_durations_by_value():
    days = np.array([-1, 2, 10], dtype="timedelta64[D]")[K]
    texts, last = slice_keys(days)
    order = [name for name, _ in group_rows(texts, last=last, values=days)]
    assert order == ["-1 days 00:00:00", "2 days 00:00:00", "10 days 00:00:00"]  # was -1, 10, 2 (as text)
    hours = np.array([-50, -25, np.timedelta64("NaT")], dtype="timedelta64[h]")[K]
    texts, last = slice_keys(hours)
    order = [name for name, _ in group_rows(texts, last=last, values=hours)]
    assert order == ["-2 days 02:00:00", "-1 days 01:00:00", "(missing)"]  # -50 h, -25 h (was -25 h first), NaT


# -- two keys of one name ------------------------------------------------------------------------------
@pytest.mark.parametrize(("one", "other"), [(1, "1"), (True, "True"), (None, "(missing)"), (b"1", "b'1'")])
def test_two_keys_of_one_name_are_refused_in_memory_as_in_sql(one, other):
    keys = np.empty(N, dtype=object)
    keys[:] = [one if k else other for k in K % 2]
    frame = pd.DataFrame({"p": P, "y": Y, "k": keys})
    runs = [lambda: vc.audit(P, Y, by=keys),  # was one slice '1' of all 400 rows
            lambda: vc.audit(frame, score="p", label="y", by="k")]
    if one is not None:  # segments name missing values a level of their own, not 'None'
        runs.append(lambda: vc.segments(P, Y, features={"k": keys}))  # was "one value ('1') in every row"
    for run in runs:
        with pytest.raises(vc.VeracityError, match="two slice keys, .* are both named"):
            run()


def test_equal_keys_of_different_types_are_one_slice():
    keys = np.empty(N, dtype=object)
    keys[:] = [[1.0, np.float64(1.0), 2][k] for k in K]  # 1.0 and numpy's 1.0: one key, named 1.0
    got = _slices(vc.audit(P, Y, by=keys, min_count=1))
    assert {name: n for name, (n, _) in got.items()} == {"1.0": int((K < 2).sum()), "2": int((K == 2).sum())}
    nans = np.empty(N, dtype=object)
    nans[:] = [[float("nan"), np.float64("nan"), 3][k] for k in K]  # two NaNs: the missing key
    got = _slices(vc.audit(P, Y, by=nans, min_count=1))
    assert {name: n for name, (n, _) in got.items()} == {"3": int((K == 2).sum()), "(missing)": int((K < 2).sum())}


# -- the slice cap on times: the kept slice holds its own rows, named as uncapped ------------------------
@pytest.mark.parametrize(("zone", "unit"), [(None, "ns"), ("UTC", "ns"), ("Asia/Tokyo", "ns"), ("UTC", "s")])
@pytest.mark.parametrize("route", ["memory", "file", "relation", "polars-lazy"])
def test_the_slice_cap_keeps_a_times_own_rows(tmp_path, zone, unit, route):
    start = pd.Timestamp("2024-01-01", tz=zone)
    frame = pd.DataFrame({"p": P, "y": Y, "t": start + pd.to_timedelta(K, unit=unit)})
    path = str(tmp_path / "cap.parquet")
    frame.to_parquet(path)
    if route == "polars-lazy":
        pl = pytest.importorskip("polars")
        data = pl.from_pandas(frame).lazy()
    else:
        data = {"memory": frame, "file": path, "relation": duckdb.read_parquet(path)}[route]
    largest = int(np.argmax(np.bincount(K)))
    uncapped = vc.audit(frame, score="p", label="y", by="t", min_count=1)
    name = list(uncapped.groups)[largest]
    got = vc.audit(data, score="p", label="y", by="t", min_count=1, max_groups=2)
    # was: the kept slice held the rows of the key 0 ns (90 rows, not 115), named '... 00:00:00+00' or
    # '... 00:00:00.000000000' (the engine's text)
    assert list(got.groups) == [name, "(other 2 values)"]
    _same({name: _slices(got)[name]}, {name: _want(list(uncapped.groups))[name]})


@pytest.mark.parametrize("route", ["file", "relation", "polars-lazy"])
def test_zoned_nanosecond_segment_levels_stay_apart_as_in_memory(tmp_path, route):
    path, frame = _zoned_file(tmp_path, "Asia/Tokyo")
    if route == "polars-lazy":
        pl = pytest.importorskip("polars")
        data = pl.from_pandas(frame).lazy()
    else:
        data = {"file": path, "relation": duckdb.read_parquet(path)}[route]

    def levels(source):
        got = vc.segments(source, score="p", label="y", features=["t"], min_count=1)
        return {r.segment: r.n for r in got.rows if r.segment != "(all)"}

    want = {f"t={name}": int((K == i).sum()) for i, name in enumerate(ZONED)}
    assert levels(frame) == want
    assert levels(data) == want  # file/relation: one level 't=2024-01-01 00:00:00+00:00' of 400 rows


@pytest.mark.parametrize("lazy", [False, True])
def test_a_time_of_day_with_nanoseconds_is_refused_as_a_segment_feature(tmp_path, lazy):
    pl = pytest.importorskip("polars")
    table, _ = _ns_times(tmp_path)
    data = pl.from_arrow(table).lazy() if lazy else pl.from_arrow(table)
    # was: eager "feature 't' has one value ('00:00:00')"; lazy one level of a fraction of the rows
    with pytest.raises(vc.VeracityError, match=r"^column 't' holds times of day with nanoseconds"):
        vc.segments(data, score="p", label="y", features=["t"], min_count=1)


# DuckDB refuses durations with nanoseconds (tests/sources/test_parquet_durations_r16.py): no file for ns
CAPPED = [(unit, route) for unit in ("ns", "us", "ms") for route in ("memory", "file", "polars-lazy")
          if (unit, route) != ("ns", "file")]


@pytest.mark.parametrize(("unit", "route"), CAPPED)
def test_the_slice_cap_keeps_a_durations_own_rows(tmp_path, unit, route):
    step = 1
    path = str(tmp_path / "d.parquet")
    durations = pa.array(K * step, pa.int64()).cast(pa.duration(unit))
    pq.write_table(pa.table({"p": P, "y": Y, "d": durations}), path)
    frame = pd.read_parquet(path)
    if route == "polars-lazy":
        pl = pytest.importorskip("polars")
        data = pl.scan_parquet(path)
    else:
        data = {"memory": frame, "file": path}[route]
    largest = int(np.argmax(np.bincount(K)))
    names = list(vc.audit(frame, score="p", label="y", by="d", min_count=1).groups)
    got = vc.audit(data, score="p", label="y", by="d", min_count=1, max_groups=2)
    # was: polars {'(other 2 values)': 400} (the kept slice matched no row); the file: DuckDB NotImplemented
    assert list(got.groups) == [names[largest], "(other 2 values)"]
    _same({names[largest]: _slices(got)[names[largest]]}, {names[largest]: _want(names)[names[largest]]})
