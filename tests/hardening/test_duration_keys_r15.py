"""Duration (timedelta) slice keys: every row kept and one name per duration on every route.

Before: a lazy polars frame whose by= column held durations 1 ns apart lost rows (polars' to_list
truncates to microseconds, so two keys collided and one slice's rows were dropped: n 177 of 400), and
the routes named the same duration '1 nanoseconds' (numpy), '0:00:00' (Python) or '(0, 0, 1000)'
(DuckDB's INTERVAL as an Arrow MonthDayNano tuple)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._keys import duration_name, key_name

N = 400


def _frame(values_ns: list[int]) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    p = rng.random(N)
    return pd.DataFrame({"p": p, "y": (rng.random(N) < p).astype(int),
                         "k": pd.to_timedelta(rng.choice(values_ns, N), unit="ns")})


def _routes(df: pd.DataFrame, *, microseconds: bool) -> dict[str, vc.AuditResult]:
    pl = pytest.importorskip("polars")
    kw = {"score": "p", "label": "y", "by": "k", "min_count": 1}
    out = {"pandas": vc.audit(df, **kw), "numpy": vc.audit(df["p"].to_numpy(), df["y"].to_numpy(),
                                                             by=df["k"].to_numpy(), min_count=1),
           "polars": vc.audit(pl.from_pandas(df), **kw), "polars lazy": vc.audit(pl.from_pandas(df).lazy(), **kw)}
    dd = pytest.importorskip("dask.dataframe")
    out["dask"] = vc.audit(dd.from_pandas(df, npartitions=2), **kw)
    if microseconds:  # DuckDB's INTERVAL holds microseconds
        import duckdb

        out["duckdb relation"] = vc.audit(duckdb.from_df(df), **kw)
        con = duckdb.connect()
        con.register("frame", df)
        con.execute("CREATE TABLE t AS SELECT * FROM frame")
        out["duckdb sql"] = vc.audit_sql(con, table="t", **kw)
    return out


@pytest.mark.parametrize("values_ns, microseconds", [([0, 1], False), ([0, 1000, 90_000_000_000_000], True)])
def test_duration_slices_keep_every_row_with_one_name_on_every_route(values_ns, microseconds):
    df = _frame(values_ns)
    expected = {duration_name(v): int((df["k"] == pd.Timedelta(v, "ns")).sum()) for v in sorted(values_ns)}
    for route, result in _routes(df, microseconds=microseconds).items():
        assert result.n == N, route
        assert {k: g.n for k, g in result.groups.items()} == expected, route


def test_duration_names_are_one_spelling_for_every_object_that_carries_them():
    import datetime as dt

    assert key_name(np.timedelta64(1, "ns")) == key_name(pd.Timedelta(1, "ns")) == "0 days 00:00:00.000000001"
    assert (key_name(np.timedelta64(1, "us")) == key_name(dt.timedelta(microseconds=1))
            == key_name(np.timedelta64(1000, "ns")) == "0 days 00:00:00.000001")
    assert key_name(dt.timedelta(days=1, hours=1)) == str(pd.Timedelta(days=1, hours=1)) == "1 days 01:00:00"
    assert key_name(np.timedelta64("NaT")) == "(missing)"
