"""vc.compare_models(..., by=) names slices as vc.audit does (round 29): nullable integer keys with missing
values ('0.0', '1.0' where the frame form says '0', '1'), a pyarrow array with nulls (refused: "by has N
missing (null) values"), zone-aware Arrow times (zone dropped), float32 keys ('0.10000000149011612')."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

N = 300
RAW = [0, 1, None] * (N // 3)
UTC = dt.timezone.utc
KEYS = {
    "pandas Int64": (lambda: pd.Series(RAW, dtype="Int64"), ["0", "1", "(missing)"]),
    "polars Int64": (lambda: pl.Series(RAW, dtype=pl.Int64), ["0", "1", "(missing)"]),
    "arrow int64": (lambda: pa.array(RAW, pa.int64()), ["0", "1", "(missing)"]),
    "numpy float32": (lambda: np.array([0.1, 0.2, 0.3] * (N // 3), np.float32), ["0.1", "0.2", "0.3"]),
    "arrow zoned time": (lambda: pa.array([dt.datetime(2024, 1, 1, tzinfo=UTC), None] * (N // 2),
                                          pa.timestamp("us", tz="UTC")), ["2024-01-01 00:00:00+00:00", "(missing)"]),
}


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_compare_models_names_slices_as_the_audit(kind):
    rng = np.random.default_rng(29)
    p = rng.uniform(0.05, 0.95, N)
    q = np.clip(p + rng.normal(0, 0.05, N), 0.01, 0.99)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    make, expected = KEYS[kind]
    compared = vc.compare_models({"a": p, "b": q}, y, by=make(), n_resamples=20)
    assert list(compared.groups) == expected
    assert list(vc.audit(p, y, by=make()).groups) == expected
