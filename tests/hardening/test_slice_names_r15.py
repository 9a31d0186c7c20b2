"""One name per ``by=`` slice on every route (round 15): the same table through arrays in memory,
pandas/polars/pyarrow frames, Parquet and CSV files (DuckDB), a DuckDB relation, Dask, Spark and the SQL
pushdown (DuckDB, SQLite, PostgreSQL), and the monitoring store. The rule is
:func:`veracity.core._keys.key_name`; the names below are written by hand.

Before:

* a zone-aware time key was named in the column's zone in memory (``2024-01-01 09:00:00+09:00``,
  pandas/polars/arrays) and in UTC on DuckDB, Dask and Spark (``2024-01-01 00:00:00+00:00``); the
  SQL pushdown on DuckDB named it in the connection's own ``TimeZone``. Now every route names the
  instant in UTC, with ``+00:00`` written;
* ``-0.0`` named its slice ``-0.0`` (arrays, pandas, polars, Dask, the SQL pushdown: whichever zero
  came first) or ``0.0`` (polars lazy, files, Spark). Now ``0.0`` everywhere (one slice with 0.0);
* bytes keys failed in memory (``StopIteration`` on invalid UTF-8, or named ``ab`` by their text where
  files and SQL said ``b'ab'``); the monitoring store named them by their UTF-8 text (invalid UTF-8:
  ``ArrowInvalid``). Now ``b'ab'`` everywhere.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from ..sql.conftest import pg_conn  # noqa: F401 - the shared PostgreSQL fixtures

N = 60
ROWS = np.arange(N)


def _scores() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(15)
    p = rng.uniform(0.05, 0.95, N)
    return p, (rng.uniform(size=N) < p).astype(np.int64)


# each case: the by= column, the expected slice names (in slice order) and each slice's rows
_TOKYO = pd.to_datetime(np.where(ROWS % 2 == 0, "2024-01-01 09:00", "2024-01-02 09:00")).tz_localize("Asia/Tokyo")
_ZERO = np.where(ROWS % 3 == 0, -0.0, np.where(ROWS % 3 == 1, 0.0, 1.5))
_ZERO[0] = -0.0  # the first row, and the first zero in sorted order, is the negative one
_BYTES = np.array([b"\x00\x01", b"ab", b"\xff"], dtype=object)[ROWS % 3]
CASES = {
    "zoned": (_TOKYO.astype("datetime64[us, Asia/Tokyo]"),
              {"2024-01-01 00:00:00+00:00": ROWS % 2 == 0, "2024-01-02 00:00:00+00:00": ROWS % 2 == 1}),
    "negative zero": (_ZERO, {"0.0": ROWS % 3 != 2, "1.5": ROWS % 3 == 2}),
    "bytes": (_BYTES, {"b'\\x00\\x01'": ROWS % 3 == 0, "b'ab'": ROWS % 3 == 1, "b'\\xff'": ROWS % 3 == 2}),
}


def _frame(case: str) -> pd.DataFrame:
    p, y = _scores()
    return pd.DataFrame({"p": p, "y": y, "g": CASES[case][0]})


def _same_slices(got, case: str) -> None:
    """The slices are named (and ordered) as written in CASES, each holding its rows."""
    want = CASES[case][1]
    assert list(got.groups) == list(want)
    p, y = _scores()
    for name, rows in want.items():
        part = got.groups[name]
        assert part.n == rows.sum(), name
        assert part.brier == pytest.approx(np.mean((p[rows] - y[rows]) ** 2), abs=1e-12), name


def _audit(data, **kw):
    return vc.audit(data, score="p", label="y", by="g", bins=3, min_count=1, **kw)


# -- in memory -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("route", ["array", "series", "list", "pandas", "polars", "polars-lazy", "pyarrow"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_in_memory_routes_name_the_slices_by_the_one_rule(case, route):
    df = _frame(case)
    if route in ("array", "series", "list"):
        keys = {"array": df["g"].to_numpy(), "series": df["g"], "list": df["g"].tolist()}[route]
        got = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), by={"g": keys}, bins=3, min_count=1)
    elif route == "pandas":
        got = _audit(df)
    elif route == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        got = _audit(pa.Table.from_pandas(df, preserve_index=False))
    else:
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df)
        got = _audit(frame.lazy() if route == "polars-lazy" else frame)
    _same_slices(got, case)


def test_one_instant_in_two_zones_is_one_slice_in_memory():
    p, y = _scores()
    tokyo = dt.datetime(2024, 1, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    keys = [tokyo if i % 2 else tokyo.astimezone(dt.timezone.utc) for i in range(N)]
    got = vc.audit(p, y, by=keys, bins=3, min_count=1)
    assert list(got.groups) == ["2024-01-01 00:00:00+00:00"] and got.groups["2024-01-01 00:00:00+00:00"].n == N


def test_key_name_rule():
    from veracity.core._keys import key_name

    berlin = pd.Timestamp("2024-07-01 12:00:00.000000001", tz="Europe/Berlin")
    assert key_name(berlin) == "2024-07-01 10:00:00.000000001+00:00"
    assert key_name(dt.datetime(2024, 1, 1, 9)) == "2024-01-01 09:00:00"  # no zone: as it is
    assert key_name(np.float32(-0.0)) == key_name(-0.0) == "0.0"
    assert key_name(memoryview(b"\xff")) == key_name(bytearray(b"\xff")) == key_name(np.bytes_(b"\xff")) == "b'\\xff'"
    import decimal

    assert key_name(decimal.Decimal("-0.00")) == "0.00"


# -- files (DuckDB), a DuckDB relation, Dask ------------------------------------------------------------
@pytest.mark.parametrize("route", ["parquet", "csv", "relation", "dask"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_file_duckdb_and_dask_routes_name_the_slices_by_the_one_rule(tmp_path, case, route):
    duckdb = pytest.importorskip("duckdb")
    df = _frame(case)
    if route == "csv" and case == "bytes":
        pytest.skip("CSV has no binary type: bytes written to a CSV file are text")
    if route == "parquet":
        df.to_parquet(tmp_path / "t.parquet", index=False)
        got = _audit(str(tmp_path / "t.parquet"))
    elif route == "csv":
        df.to_csv(tmp_path / "t.csv", index=False)
        got = _audit(str(tmp_path / "t.csv"))
    elif route == "relation":
        con = duckdb.connect()
        con.execute("SET TimeZone = 'Asia/Tokyo'")  # the user's session zone: not the slice's name
        con.register("t", df)
        got = _audit(con.sql("SELECT * FROM t"))
    else:
        dd = pytest.importorskip("dask.dataframe")
        if case == "bytes":  # from_pandas turns a bytes column into text by default; a Parquet file keeps it
            df.to_parquet(tmp_path / "t.parquet", index=False)
            frame = dd.read_parquet(str(tmp_path / "t.parquet"))
        else:
            frame = dd.from_pandas(df, npartitions=2)
        got = _audit(frame)
    _same_slices(got, case)


# -- the SQL pushdown ------------------------------------------------------------------------------------
_SQL_TYPES = {"zoned": {"duckdb": "TIMESTAMPTZ", "postgres": "TIMESTAMPTZ"},
              "negative zero": {"duckdb": "DOUBLE", "sqlite": "REAL", "postgres": "DOUBLE PRECISION"},
              "bytes": {"duckdb": "BLOB", "sqlite": "BLOB", "postgres": "BYTEA"}}


def _sql_table(con, engine: str, case: str) -> None:
    df = _frame(case)
    keys = df["g"].tolist()
    if case == "zoned":
        keys = [t.to_pydatetime() for t in keys]
    con.execute("DROP TABLE IF EXISTS r15_keys")
    con.execute(f"CREATE TABLE r15_keys (p DOUBLE PRECISION, y INTEGER, g {_SQL_TYPES[case][engine]})")
    rows = [(float(a), int(b), k) for a, b, k in zip(df["p"], df["y"], keys)]
    if engine == "postgres":
        with con.cursor() as cur:
            cur.executemany("INSERT INTO r15_keys VALUES (%s, %s, %s)", rows)
    else:
        con.executemany("INSERT INTO r15_keys VALUES (?, ?, ?)", rows)


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("capped", [False, True])
def test_sql_pushdown_names_the_slices_by_the_one_rule(request, engine, case, capped):
    if engine not in _SQL_TYPES[case]:
        pytest.skip(f"{engine} has no type for {case} keys")
    if engine == "postgres":
        con = request.getfixturevalue("pg_conn")
        con.execute("SET TIME ZONE 'Asia/Tokyo'")  # the session's zone: not the slice's name
        request.addfinalizer(lambda: con.execute("RESET TIME ZONE"))
    elif engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.execute("SET TimeZone = 'Asia/Tokyo'")
    else:
        con = sqlite3.connect(":memory:")
    _sql_table(con, engine, case)
    if not capped:
        _same_slices(vc.audit(con, table="r15_keys", score="p", label="y", by="g", bins=3, min_count=1), case)
        return
    # capped at 2: the bytes' largest slice kept (its key written into the query), the others pooled
    got = vc.audit(con, table="r15_keys", score="p", label="y", by="g", bins=3, min_count=1, max_groups=2)
    df = _frame(case)
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), by=df["g"], bins=3, min_count=1, max_groups=2)
    assert list(got.groups) == list(want.groups)
    assert list(got.groups)[0] in CASES[case][1]
    assert [g.n for g in got.groups.values()] == [g.n for g in want.groups.values()]


# -- Spark (one test: the JVM's start dominates) -----------------------------------------------------------
def test_spark_names_the_slices_by_the_one_rule(spark, tmp_path):
    spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")  # the session's zone: not the slice's name
    try:
        for case in sorted(CASES):
            path = tmp_path / f"{case}.parquet"
            _frame(case).to_parquet(path, index=False, coerce_timestamps="us")  # Spark reads no nanoseconds
            _same_slices(_audit(spark.read.parquet(str(path))), case)
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


# -- the monitoring store ----------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["zoned", "bytes"])
def test_the_store_names_the_slices_as_the_audit_does(tmp_path, case):
    pytest.importorskip("duckdb")
    df = _frame(case)
    df["id"] = ROWS.astype(str)
    df["ts"] = pd.Timestamp("2026-03-02") + pd.to_timedelta(ROWS, unit="h")
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(df, id="id", time="ts", score="p", by="g")
    store.outcomes(df.assign(obs=df["ts"] + pd.Timedelta("1h")), id="id", label="y", time="obs")
    status = store.status(freq="M", by="g", as_of="2026-04-01", min_count=1)
    got = {r.slice: r.rows for r in status.rows if r.slice != "(all)"}
    assert got == {name: int(rows.sum()) for name, rows in CASES[case][1].items()}


def test_the_store_names_negative_zero_as_zero(tmp_path):
    pytest.importorskip("duckdb")
    df = _frame("negative zero")
    df["id"] = ROWS.astype(str)
    df["ts"] = pd.Timestamp("2026-03-02")
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(df, id="id", time="ts", score="p", by="g")
    store.outcomes(df.assign(obs=df["ts"] + pd.Timedelta("1h")), id="id", label="y", time="obs")
    status = store.status(freq="M", by="g", as_of="2026-04-01", min_count=1)
    # the store names a whole float as the integer (monitoring._slice_names): 0, for 0.0 and -0.0
    assert {r.slice: r.rows for r in status.rows if r.slice != "(all)"} == {"0": 40, "1.5": 20}


# -- the streaming scan (vc.scan_file's group=) --------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_streaming_scan_names_its_groups_by_the_one_rule(tmp_path, case):
    # was: numpy's text ('2024-01-01T00:00:00.000000000'), '-0.0' and '0.0' as two groups, bytes refused as
    # "not UTF-8 text"
    pytest.importorskip("pyarrow")
    _frame(case).to_parquet(tmp_path / "t.parquet", index=False)
    got = vc.scan_file(tmp_path / "t.parquet", score="p", label="y", group="g", edges=np.linspace(0, 1, 4))
    assert {k: int(s.count.sum()) for k, s in got.groups.items()} == {
        name: int(rows.sum()) for name, rows in CASES[case][1].items()}
