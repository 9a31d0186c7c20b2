"""Round 17: every lazy engine's binned Brier score of sharp forecasts is the definition.

Before: the engines returned Σwp², Σwpy and Σwy per bin and the Brier score was expanded from them:
scores within 1e-9..1e-6 of their label (Brier ≈ 6e-14) came out 0.2 % (polars) to 2.3 % (DuckDB,
SQLite) off, 1.8 % on Spark with weights. Now each engine sums Σw(p − y)², Σw(p − y) and
Σ_{y=1} w(1 − p) where the rows live (veracity.core._stats).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_brier_sharp_r17 import exact_brier, exact_within, sharp  # noqa: E402

pd = pytest.importorskip("pandas")


def _frame(backend, df, tmp_path, request):
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy()
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_df(df)
    if backend == "parquet":
        path = tmp_path / "sharp.parquet"
        df.to_parquet(path)
        return str(path)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(df, npartitions=3)
    spark = request.getfixturevalue("spark")
    return spark.createDataFrame(df)


@pytest.fixture
def threads():
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "threads"}):
        yield


@pytest.mark.parametrize("kind", ["correct", "weights"])
@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "parquet", "dask", "spark"])
def test_lazy_brier_of_sharp_forecasts_is_the_definition(backend, kind, tmp_path, request, threads):
    p, y, w = sharp(kind, n=400)
    df = pd.DataFrame({"p": p, "y": y, "w": np.ones(p.size) if w is None else w})
    frame = _frame(backend, df, tmp_path, request)
    weight = None if w is None else "w"
    want = exact_brier(p, y, w)
    got = vc.audit(frame, score="p", label="y", sample_weight=weight)
    assert got.brier == pytest.approx(want, rel=1e-9, abs=0)
    d = vc.brier_decomposition(frame, score="p", label="y", sample_weight=weight, bins=10)
    assert d.brier == pytest.approx(want, rel=1e-9, abs=0)
    rel, var, cov = exact_within(p, y, w, np.linspace(0, 1, 11))
    assert d.reliability == pytest.approx(rel, abs=1e-9 * want)
    assert d.within_variance == pytest.approx(var, abs=1e-9 * want)
    assert d.within_covariance == pytest.approx(cov, abs=1e-9 * want)
    memory = vc.audit(p, y, sample_weight=w)
    assert got.ece == pytest.approx(memory.ece, rel=1e-9, abs=0)
