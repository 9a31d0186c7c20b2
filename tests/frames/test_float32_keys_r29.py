"""A single-precision ``by=`` column names its slices alike on every route of ``vc.audit`` (round 29).

The key float32(0.1) is the slice ``'0.1'`` in the array form, on an in-memory frame and on the SQL route
(which reads a FLOAT key back as the float32 it is). A lazy frame (DuckDB, polars lazy, a Parquet file)
handed the key back as the double ``0.10000000149011612`` and named the slice so, and so did an in-memory
frame whose key column had a missing value (its keys were made Python floats): one column, two names
for each slice, depending on the route and on whether a key was missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

N = 400


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(2929)
    p = np.round(rng.uniform(0.02, 0.98, N), 3)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    key = (rng.choice(3, N, p=[0.2, 0.5, 0.3]) * 0.1).astype(np.float32)  # 0.1 the largest slice
    missing = rng.uniform(size=N) < 0.1
    return p, y, key, missing


def _frames(df: pd.DataFrame) -> dict[str, object]:
    table = pa.Table.from_pandas(df, preserve_index=False)
    return {"pandas": df, "pyarrow": table, "polars": pl.from_arrow(table),
            "polars-lazy": pl.from_arrow(table).lazy(), "duckdb": duckdb.connect().from_arrow(table)}


@pytest.mark.parametrize("with_missing", [False, True], ids=["complete", "a-missing-key"])
def test_float32_keys_one_name_on_every_route(rows, with_missing, tmp_path):
    p, y, key, missing = rows
    column = pd.Series(key, dtype="Float32")
    if with_missing:
        column[missing] = pd.NA
    want = ["0.0", "0.1", "0.2"] + (["(missing)"] if with_missing else [])
    array = vc.audit(p, y, by=column)
    assert list(array.groups) == want
    df = pd.DataFrame({"p": p, "y": y, "g": column})
    path = tmp_path / "rows.parquet"
    df.to_parquet(path)
    for route, frame in {**_frames(df), "parquet": str(path)}.items():
        got = vc.audit(frame, score="p", label="y", by="g")
        assert list(got.groups) == want, route
        for name, group in array.groups.items():
            assert got.groups[name].n == group.n, (route, name)
            assert got.groups[name].ece == pytest.approx(group.ece, rel=1e-12), (route, name)


def test_float32_keys_capped_slices_on_a_lazy_frame(rows):
    """The slice cap keeps the float32 key named as the array form names it, in the array form's order (the
    pooled slice last): the lazy routes ranked the kept key by its double's name, found no such slice and
    listed the pooled slice first."""
    p, y, key, _ = rows
    df = pd.DataFrame({"p": p, "y": y, "g": key})
    want = [(name, g.n) for name, g in vc.audit(p, y, by=key, max_groups=2).groups.items()]
    assert [name for name, _ in want] == ["0.1", "(other 2 values)"]
    for route, frame in _frames(df).items():
        got = vc.audit(frame, score="p", label="y", by="g", max_groups=2)
        assert [(name, g.n) for name, g in got.groups.items()] == want, route
