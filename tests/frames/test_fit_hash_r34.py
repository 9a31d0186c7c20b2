"""The data hash of a fit on a lazy frame, from the rows as arrays (round 34).

``veracity compare FILE --calibrator CAL.json`` warns that the 'after' column is optimistic when the
calibrator was fit on these very rows, by comparing the ``data_hash`` the fit recorded with the hash of
the rows it reads. A fit in memory records a hash of the rows' bytes; a fit on a lazy frame (``veracity
fit --engine duckdb``, a DuckDB relation, a Parquet path, polars LazyFrame, Dask) records a hash of its
aggregates (``frames._fit._summary``), which the bytes' hash never equals: the same file fit with
``--engine duckdb`` and compared on its own rows gave no warning, where ``--engine memory`` did.
:func:`veracity.frames._fit.aggregate_hash` computes the lazy fit's hash from arrays, so that the check
can ask both. The oracle is the hash each lazy fit recorded.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import veracity as vc

from .conftest import make, threaded_dask

LAZY = ["duckdb", "polars-lazy", "parquet", "dask"]


def _rows(seed: int, *, logit: bool, weights: str | None) -> tuple[pd.DataFrame, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    n = 600
    z = rng.normal(0.2, 1.5, n)
    s = z if logit else np.clip(expit(z), 0.001, 0.999)
    y = (rng.random(n) < expit(z / 1.3)).astype(np.int64)
    w = None
    if weights is not None:
        w = rng.uniform(0.0, 2.0, n)
        w[:40] = 0.0  # rows of weight 0: dropped by every fit, left out of its hash
        if weights == "huge":  # rescaled by a power of two before the sums (core._weights)
            w *= 1e300
    df = pd.DataFrame({"s": s, "y": y})
    if w is not None:
        df["w"] = w
    return df, w


@pytest.mark.parametrize("backend", LAZY)
@pytest.mark.parametrize("kind, logit, weights", [
    ("PlattScaling", False, None),
    ("IsotonicCalibration", False, "plain"),
    ("TemperatureScaling", True, "huge"),
])
def test_aggregate_hash_is_the_lazy_fits_hash(backend, kind, logit, weights, tmp_path):
    from veracity.frames._fit import aggregate_hash

    df, w = _rows(3, logit=logit, weights=weights)
    cal = getattr(vc, kind)(score_type="logit" if logit else "probability")
    with threaded_dask():
        cal.fit(make(backend, df, tmp_path), score="s", label="y", sample_weight=None if w is None else "w")
    recorded = cal.metadata["data_hash"]
    assert aggregate_hash(df["s"].to_numpy(), df["y"].to_numpy(), w) == recorded
    # other rows: another hash (one row's label flipped)
    flipped = df["y"].to_numpy().copy()
    flipped[-1] = 1 - flipped[-1]
    assert aggregate_hash(df["s"].to_numpy(), flipped, w) != recorded
