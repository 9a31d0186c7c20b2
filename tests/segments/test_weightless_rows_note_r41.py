"""Round 41: vc.segments with rows of weight 0 counted the rows of positive weight (2,701) where vc.audit
of the same rows says 4,000, with nothing said. A note now says how many rows of weight 0 were left out,
on arrays, in-memory frames and lazy frames alike; none without weights or without such rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(41)
    n = 4000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = rng.choice(["a", "b", "c"], n)
    w = np.where(rng.uniform(size=n) < 0.34, 0.0, 1.0)
    return pd.DataFrame({"p": p, "y": y, "g": g, "w": w})


def test_rows_of_weight_zero_are_said_on_every_route():
    df = _data()
    zero = int((df.w == 0).sum())
    want = (f"({zero:,} rows of weight 0 left out: the counts here are of the {len(df) - zero:,} rows of "
            "positive weight)")
    arrays = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"g": df.g.to_numpy()},
                         sample_weight=df.w.to_numpy())
    assert arrays.n == len(df) - zero and want in arrays.notes and want in str(arrays)
    frames = [df]
    pl = pytest.importorskip("polars")
    frames.append(pl.from_pandas(df).lazy())
    duckdb = pytest.importorskip("duckdb")
    frames.append(duckdb.connect().from_df(df))
    for frame in frames:
        got = vc.segments(frame, score="p", label="y", features=["g"], sample_weight="w")
        assert got.n == arrays.n and want in got.notes, type(frame)
    plain = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"g": df.g.to_numpy()})
    assert not any("weight 0" in t for t in plain.notes)
    ones = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"g": df.g.to_numpy()},
                       sample_weight=np.ones(len(df)))
    assert not any("weight 0" in t for t in ones.notes)
