"""The slice cap (``max_groups=``) on integer keys beyond 2**53 (round 34).

The cap keeps the ``max_groups - 1`` largest slices and pools the others under ``(other k values)``; on a
lazy frame the kept keys are matched where the rows live (``sources._aggregates.pooled_key``). Dask's
``isin`` compares a uint64 column with the kept keys as doubles, so the key 2**63 + 6 matched the kept
2**63 + 5: a Dask audit with ``max_groups=3`` showed four slices — ``'9223372036854775814'`` (113 rows,
which the cap had pooled) beside ``'(other 2 values)'`` holding one value's 66 rows — where every other
backend pools both (179 rows). The oracle is numpy's count of each key's rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

KEYS = np.array([1, 2**63 + 5, 2**63 + 6, 2**64 - 1], dtype=np.uint64)


def _rows() -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(37)
    n = 600
    p = np.round(rng.uniform(0, 1, n), 2)
    y = (rng.random(n) < p).astype(np.int64)
    idx = rng.choice(4, n, p=[0.4, 0.3, 0.2, 0.1])
    return pd.DataFrame({"p": p, "y": y, "k": KEYS[idx]}), idx


def _frame(backend: str, df: pd.DataFrame) -> object:
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(df, npartitions=2)
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy()
    import duckdb

    con = duckdb.connect()
    con.register("t", df)
    return con.sql("SELECT * FROM t")


@pytest.mark.parametrize("backend", ["dask", "duckdb", "polars-lazy"])
def test_cap_pools_uint64_keys_apart_by_one(backend):
    df, idx = _rows()
    counts = np.bincount(idx, minlength=4)
    assert list(counts) == [256, 165, 113, 66]  # keys 1 and 2**63 + 5 kept; 2**63 + 6 and 2**64 - 1 pooled
    got = vc.audit(_frame(backend, df), score="p", label="y", by="k", max_groups=3)
    assert {k: g.n for k, g in got.groups.items()} == {
        "1": 256, str(2**63 + 5): 165, "(other 2 values)": int(counts[2] + counts[3])}
    pooled = (idx == 2) | (idx == 3)
    want = vc.audit(df["p"].to_numpy()[pooled], df["y"].to_numpy()[pooled])
    assert got.groups["(other 2 values)"].metrics["ece"] == pytest.approx(want.metrics["ece"], rel=1e-12)
