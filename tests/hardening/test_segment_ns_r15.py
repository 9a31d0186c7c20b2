"""Round 15: vc.segments keeps a nanosecond time's levels apart on lazy frames.

A polars LazyFrame (and a DuckDB TIMESTAMP_NS relation) read a feature's distinct values with
``to_list()`` (Python ``datetime``: microseconds) and matched rows against ``datetime`` literals
(microseconds): two instants 1 ns apart became one level holding every row, with no error (DuckDB
counted some rows twice), while pandas, eager polars, pyarrow and vc.audit(by=) gave two. Every route
now finds the same levels, named as vc.audit names the slices (core/_keys.key_name: nine decimals
below a microsecond), with the same rows in each.

DuckDB's own TIMESTAMPTZ holds microseconds: a zoned nanosecond column that reaches DuckDB (a pandas
frame handed to DuckDB, a Parquet file read by path) is at microsecond resolution there, for
vc.audit as for vc.segments; that route is checked to agree with the audit, not to invent digits.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

N = 600
BASE = int(pd.Timestamp("2024-01-01").value)
#: offsets in ns of the time's distinct values: 0 and 1 ns apart (one microsecond on the old lazy
#: route), one whole microsecond later, and a missing value (-1)
OFFSETS = np.array([0, 1, 1_000, -1])


def _frame(zone: str | None = None, seed: int = 3,
           share: list[float] | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    which = rng.choice(OFFSETS.size, N, p=share)
    stamps = (BASE + OFFSETS[which]).astype(np.int64).view("datetime64[ns]").copy()
    stamps[OFFSETS[which] < 0] = np.datetime64("NaT")
    p = rng.uniform(0.05, 0.95, N)
    y = (rng.random(N) < p).astype(int)
    t = pd.Series(stamps)
    if zone is not None:
        t = t.dt.tz_localize("UTC").dt.tz_convert(zone)
    return pd.DataFrame({"p": p, "y": y, "t": t, "g": rng.choice(["a", "b"], N)}), which


def _routes(frame: pd.DataFrame, *, duckdb: bool = True) -> dict[str, object]:
    import polars as pl
    import pyarrow as pa

    out: dict[str, object] = {"pandas": frame, "polars": pl.from_pandas(frame), "lazy": pl.from_pandas(frame).lazy(),
                              "arrow": pa.Table.from_pandas(frame, preserve_index=False)}
    if duckdb:
        import duckdb as db

        out["duckdb"] = db.connect().from_df(frame)  # a TIMESTAMP_NS column
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # dask's own deprecations on import
            import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask is an optional extra
        return out
    out["dask"] = dd.from_pandas(frame, npartitions=3)
    return out


def _rows(data: object, **kw: object) -> dict[str, tuple[int, float]]:
    got = vc.segments(data, score="p", label="y", min_count=1, **kw)
    return {r.segment: (r.n, round(r.rate, 12)) for r in got.rows}


def _want(frame: pd.DataFrame, which: np.ndarray, names: list[str]) -> dict[str, int]:
    """Rows per level of ``t``, counted from the offsets the data was built from (not by veracity)."""
    want = {f"t={name}": int((which == i).sum()) for i, name in enumerate(names)}
    want["t=missing"] = int((which == OFFSETS.size - 1).sum())
    assert sum(want.values()) == len(frame) and min(want.values()) > 0
    return want


def test_nanosecond_levels_are_the_same_on_every_route():
    frame, which = _frame()
    # the names written out: as pandas prints a Timestamp (nine decimals below a microsecond)
    want = _want(frame, which, ["2024-01-01 00:00:00", "2024-01-01 00:00:00.000000001",
                                "2024-01-01 00:00:00.000001"])
    audit = vc.audit(frame, score="p", label="y", by="t").to_dict()["groups"]
    assert {f"t={k}": g["n"] for k, g in audit.items() if k != "(missing)"} == {
        k: v for k, v in want.items() if k != "t=missing"}
    assert audit["(missing)"]["n"] == want["t=missing"]  # the audit names the NaT slice '(missing)'
    first = None
    for route, data in _routes(frame).items():
        got = _rows(data, features=["t"], depth=1)
        assert {k: n for k, (n, _) in got.items()} == want, route
        # and the whole family (pairs with g too): the same segments, rows and rates on every route
        family = _rows(data, features=["t", "g"], depth=2)
        assert sum(n for k, (n, _) in family.items() if k.startswith("t=") and "&" not in k) == N, route
        if first is None:
            first = family
        assert family == first, route


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/New_York"])
def test_zoned_nanosecond_levels_are_their_utc_instants_on_every_route(zone):
    frame, which = _frame(zone, seed=4)
    want = _want(frame, which, ["2024-01-01 00:00:00+00:00", "2024-01-01 00:00:00.000000001+00:00",
                                "2024-01-01 00:00:00.000001+00:00"])
    audit = vc.audit(frame, score="p", label="y", by="t").to_dict()["groups"]
    assert sorted(f"t={k}" for k in audit if k != "(missing)") == sorted(k for k in want if k != "t=missing")
    for route, data in _routes(frame, duckdb=False).items():
        got = _rows(data, features=["t"], depth=1)
        assert {k: n for k, (n, _) in got.items()} == want, route


def test_a_nanosecond_parquet_file_keeps_its_levels(tmp_path):
    frame, which = _frame(seed=5)
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    want = _want(frame, which, ["2024-01-01 00:00:00", "2024-01-01 00:00:00.000000001",
                                "2024-01-01 00:00:00.000001"])
    got = _rows(str(path), features=["t"], depth=1)
    assert {k: n for k, (n, _) in got.items()} == want
    assert got == _rows(frame, features=["t"], depth=1)


def test_pooled_nanosecond_levels_pool_the_same_rows_on_every_route():
    # min_count above the 1 ns level's rows: it joins "other", on the lazy route as in memory
    frame, which = _frame(seed=6, share=[0.3, 0.1, 0.3, 0.3])
    small = int((which == 1).sum())
    assert small < min(int((which == i).sum()) for i in (0, 2, 3))
    want = None
    for route, data in _routes(frame).items():
        got = vc.segments(data, score="p", label="y", features=["t"], depth=1, min_count=small + 1)
        rows = {r.segment: r.n for r in got.rows}
        assert rows["t=other"] == small, route
        want = rows if want is None else want
        assert rows == want, route


def test_duckdb_zoned_time_is_at_its_own_microseconds_as_for_the_audit():
    # DuckDB's TIMESTAMPTZ holds microseconds: the 1 ns apart instants are one value in DuckDB
    # itself; vc.segments reports what DuckDB holds, exactly as vc.audit does on the same relation
    duckdb = pytest.importorskip("duckdb")
    frame, which = _frame("Asia/Tokyo", seed=7)
    rel = duckdb.connect().from_df(frame)
    audit = vc.audit(rel, score="p", label="y", by="t").to_dict()["groups"]
    got = _rows(rel, features=["t"], depth=1)
    assert {k: n for k, (n, _) in got.items() if k != "t=missing"} == {f"t={k}": g["n"] for k, g in audit.items()
                                                                        if k != "(missing)"}
    assert got["t=2024-01-01 00:00:00+00:00"][0] == int(((which == 0) | (which == 1)).sum())


def test_nanosecond_durations_are_refused_on_every_route():
    frame, _ = _frame(seed=8)
    frame["t"] = frame["t"] - pd.Timestamp("2024-01-01")
    for route, data in _routes(frame).items():
        with pytest.raises(VeracityError, match="durations"):
            vc.segments(data, score="p", label="y", features=["t"], depth=1, min_count=1)
        assert route
