"""Lazy frames (polars LazyFrame, DuckDB relation, Parquet path, Dask, Spark) are compared, not
refused: one projection of the named columns is read and the numbers are the array form's (1e-12;
issue 25). Missing values of the slice column are the slice "None" on every backend."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.comparison import _inputs


def _data(n=1_500, seed=11):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.int64)
    a = np.round(1 / (1 + np.exp(-(0.7 * z + rng.normal(size=n)))), 2)  # ties
    b = 1 / (1 + np.exp(-(1.3 * z + 0.5 * rng.normal(size=n))))
    w = np.round(rng.random(n) + 0.5, 3)
    seg = np.array(["x", "y", None], dtype=object)[np.arange(n) % 3]
    return pd.DataFrame({"old": a, "new": b, "label": y, "w": w, "seg": seg})


def _close(got, want, tol=1e-12, path="result"):
    """Every number of two nested ``to_dict()``s equal to ``tol`` (NaN equal to NaN), the rest exactly."""
    if isinstance(want, dict):
        assert got.keys() == want.keys(), path
        for k in want:
            _close(got[k], want[k], tol, f"{path}.{k}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, tol, f"{path}[{i}]")
    elif isinstance(want, float) and not isinstance(got, str):
        if math.isnan(want):
            assert math.isnan(got), path
        else:
            assert got == pytest.approx(want, rel=tol, abs=tol), path
    else:
        assert got == want, path


def _frame(kind, df, tmp_path):
    if kind == "polars-lazy":
        import polars as pl

        return pl.from_pandas(df).lazy()
    if kind == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", df)
        return con.sql("SELECT * FROM t")
    if kind == "dask":
        dd = pytest.importorskip("dask.dataframe")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # narwhals' notice about its Dask plugin
            return dd.from_pandas(df, npartitions=3)
    path = tmp_path / "scores.parquet"
    df.to_parquet(path, index=False)
    return str(path)


def _reference(df, **options):
    return vc.compare_models({"old": df["old"].to_numpy(), "new": df["new"].to_numpy()}, df["label"].to_numpy(),
                             **options)


@pytest.mark.parametrize("kind", ["polars-lazy", "duckdb", "parquet", "dask"])
def test_lazy_frames_give_the_arrays_numbers(kind, tmp_path):
    df = _data()
    frame = _frame(kind, df, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got = vc.compare_models(frame, scores=["old", "new"], label="label", sample_weight="w", by="seg",
                                n_resamples=20, random_state=3)
    want = _reference(df, sample_weight=df["w"].to_numpy(), by=df["seg"].to_numpy(), n_resamples=20,
                      random_state=3)
    _close(got.to_dict(), want.to_dict() | {"group_column": "seg"})
    assert set(got.groups) == {"x", "y", "(missing)"}
    assert got.row("auc").diff == pytest.approx(want.row("auc").diff, abs=1e-12)


def test_lazy_frames_murphy_decision_curve_cost_and_pos_label(tmp_path):
    df = _data(seed=12)
    df["outcome"] = np.where(df["label"] == 1, "churn", "stay")
    lf = _frame("duckdb", df, tmp_path)
    a, b, y = df["old"].to_numpy(), df["new"].to_numpy(), df["label"].to_numpy()
    got = vc.compare_models(lf, scores=["old", "new"], label="outcome", pos_label="churn", n_resamples=0)
    _close(got.to_dict(), vc.compare_models({"old": a, "new": b}, y, n_resamples=0).to_dict())
    m = vc.murphy_diagram(lf, scores=["old", "new"], label="outcome", pos_label="churn", theta=[0.2, 0.5])
    np.testing.assert_allclose(m.elementary["new"],
                               vc.murphy_diagram({"old": a, "new": b}, y, theta=[0.2, 0.5]).elementary["new"],
                               rtol=1e-12, atol=1e-15)
    dc = vc.decision_curve(lf, scores="new", label="outcome", pos_label="churn", thresholds=[0.3])
    assert dc.net_benefit["new"][0] == pytest.approx(
        vc.decision_curve(b, y, thresholds=[0.3]).net_benefit["model"][0], abs=1e-12)
    cost = vc.realised_cost(lf, scores=["old"], label="outcome", pos_label="churn", threshold=0.5)
    assert cost.rows[0].realised == pytest.approx(vc.realised_cost(a, y, threshold=0.5).rows[0].realised,
                                                  abs=1e-12)


def test_lazy_frames_refuse_like_the_arrays_in_one_line(tmp_path, monkeypatch):
    df = _data(seed=13)
    df.loc[5, "new"] = 1.7
    lf = _frame("polars-lazy", df, tmp_path)
    with pytest.raises(vc.VeracityError, match=r"^model 'new': scores must be probabilities") as info:
        vc.compare_models(lf, scores=["old", "new"], label="label")
    assert "\n" not in str(info.value)
    with pytest.raises(vc.VeracityError, match="column 'nope' not found"):
        vc.compare_models(lf, scores=["old", "nope"], label="label")
    # a read that would not fit in memory is refused before anything is read
    monkeypatch.setattr(_inputs, "_available_bytes", lambda: 10_000)
    with pytest.raises(vc.VeracityError, match=r"reads 3 columns of 1,500 rows into memory .* sample") as info:
        vc.compare_models(_frame("duckdb", _data(), tmp_path), scores=["old", "new"], label="label")
    assert "\n" not in str(info.value)


def test_spark_gives_the_arrays_numbers(spark):  # the suite's one session (tests/conftest.py)
    df = _data(n=800, seed=14)
    got = vc.compare_models(spark.createDataFrame(df), scores=["old", "new"], label="label", sample_weight="w",
                            by="seg", n_resamples=0)
    want = _reference(df, sample_weight=df["w"].to_numpy(), by=df["seg"].to_numpy(), n_resamples=0)
    _close(got.to_dict(), want.to_dict() | {"group_column": "seg"})
