"""``vc.compare_models(..., by=)`` names duration and time slices as ``vc.audit`` does, on arrays, frames and
Parquet files (``tolist()`` handed nanosecond keys back as integers: slices '0' and '1000000'; a DuckDB
INTERVAL key matched no row, so every slice was empty)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(size=n)
    q = np.clip(p + rng.normal(0, 0.1, n), 0, 1)
    y = (rng.uniform(size=n) < p).astype(int)
    d = pd.to_timedelta(rng.integers(0, 2, n) * 1000, unit="us")
    return pd.DataFrame({"a": p, "b": q, "y": y, "d": d, "t": pd.Timestamp("2024-01-01") + d})


@pytest.mark.parametrize("by", ["d", "t"])
@pytest.mark.parametrize("form", ["arrays", "pandas", "polars", "parquet"])
def test_time_and_duration_slices_are_named_as_the_audit_names_them(frame, tmp_path, form: str, by: str) -> None:
    expected = vc.audit(frame, score="a", label="y", by=by)
    want = {k: g.n for k, g in expected.groups.items()}
    assert len(want) == 2
    if form == "arrays":
        got = vc.compare_models({"a": frame.a.to_numpy(), "b": frame.b.to_numpy()}, frame.y.to_numpy(),
                                by=frame[by].to_numpy())
    else:
        data: object = frame if form == "pandas" else pl.from_pandas(frame)
        if form == "parquet":
            data = tmp_path / "f.parquet"
            frame.to_parquet(data)
        got = vc.compare_models(data, scores=["a", "b"], label="y", by=by)
    assert {k: g.n for k, g in got.groups.items()} == want
