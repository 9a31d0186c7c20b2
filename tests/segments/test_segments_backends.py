"""The same numbers (1e-9) on numpy arrays, pandas, polars, pyarrow, DuckDB, Parquet files and Spark (issue 24).

Lazy frames are never collected: the levels and the per (segment, score cell) sums are aggregates
computed where the data lives, the rest is the arrays' own numpy code.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

FIELDS = ("n", "weight", "conf", "rate", "gap", "ci_low", "ci_high", "z", "p_value", "q_value", "ece", "ece_floor",
          "min_detectable_gap", "ecce", "ecce_sigma")
FEATURES = ["region", "age", "device", "vip"]


def _data(n=6_000, seed=0, grid=False):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.03, 0.97, n) if grid else np.round(rng.uniform(0.03, 0.97, n), 3)
    region = rng.choice(["EU", "US", "APAC", "LATAM"], n)
    age = rng.integers(18, 80, n).astype(float)
    age[::53] = np.nan  # missing values are a level
    device = rng.choice(["ios", "android", "web", "tv"], n, p=[0.45, 0.45, 0.095, 0.005])  # "tv" pooled
    vip = rng.uniform(size=n) < 0.2
    q = np.where((region == "EU") & (device == "ios"), p + 0.15, p).clip(0, 1)
    y = (rng.uniform(size=n) < q).astype(np.int64)
    w = np.round(rng.uniform(0.2, 3.0, n), 3)
    return pd.DataFrame({"p": p, "y": y, "w": w, "region": region, "age": age, "device": device, "vip": vip})


def _as(backend, df, tmp_path):
    if backend == "pandas":
        return df
    import polars as pl

    if backend == "polars":
        return pl.from_pandas(df)
    if backend == "polars-lazy":
        return pl.from_pandas(df).lazy()
    if backend == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(df, preserve_index=False)
    import duckdb

    if backend == "duckdb":
        con = duckdb.connect()
        con.register("t", df)
        return con.sql("SELECT * FROM t")
    path = tmp_path / "scores.parquet"
    df.to_parquet(path, index=False)
    return str(path)


def _same(a, b, tol=1e-9):
    ra = {r.segment: r for r in a.rows}
    rb = {r.segment: r for r in b.rows}
    assert ra.keys() == rb.keys()
    for key, r in ra.items():
        s = rb[key]
        assert (r.sufficient, r.discovery, r.test, r.features) == (s.sufficient, s.discovery, s.test, s.features)
        for f in FIELDS:
            x, y = getattr(r, f), getattr(s, f)
            if x is None:
                assert y is None, (key, f)
            else:
                assert y == pytest.approx(x, rel=tol, abs=tol), (key, f)
    for f in ("mce", "mce_sigma", "mce_pvalue", "mde", "global_ecce"):
        assert getattr(b, f) == pytest.approx(getattr(a, f), rel=tol, abs=tol), f
    assert a.levels == b.levels and a.cells == b.cells


def _arrays(df, weighted):
    return vc.segments(df["p"].to_numpy(), df["y"].to_numpy(),
                       features={f: df[f].to_numpy() for f in FEATURES},
                       sample_weight=df["w"].to_numpy() if weighted else None)


@functools.lru_cache(maxsize=None)
def _arrays_of_data(weighted, grid=False):
    """The arrays' result on :func:`_data` (seeded, the same rows every call): one computation for all the
    backends compared with it (a result is a frozen dataclass, read only)."""
    return _arrays(_data(grid=grid), weighted)


@pytest.mark.parametrize("backend", ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "parquet"])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_backend_gives_the_arrays_numbers(backend, weighted, tmp_path):
    df = _data()
    want = _arrays_of_data(weighted)
    got = vc.segments(_as(backend, df, tmp_path), score="p", label="y", features=FEATURES,
                      sample_weight="w" if weighted else None)
    _same(want, got)
    assert "region=EU & device=ios" in [r.segment for r in want.discoveries]


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_many_distinct_scores_use_the_same_grid(backend, tmp_path):
    df = _data(grid=True)  # 6,000 distinct scores > max_cells: equal-width cells everywhere
    want = _arrays_of_data(False, grid=True)
    assert want.cells == "grid"
    _same(want, vc.segments(_as(backend, df, tmp_path), score="p", label="y", features=FEATURES))


def test_logit_scores_and_pos_label_on_duckdb(tmp_path):
    # each engine computes the probability of a logit itself (to the last bit or so), so a row may sit on the
    # other side of an equal-width cell's edge: the identity holds exactly when scores are the cells
    df = _data()
    df["p"] = np.round(df["p"], 2)
    df["logit"] = np.log(df["p"] / (1 - df["p"]))
    df["outcome"] = np.where(df["y"] == 1, "churn", "stay")
    want = vc.segments(df["logit"].to_numpy(), df["outcome"].to_numpy(), features={f: df[f].to_numpy() for f in FEATURES},
                       score_type="logit", pos_label="churn")
    got = vc.segments(_as("duckdb", df, tmp_path), score="logit", label="outcome", features=FEATURES,
                      score_type="logit", pos_label="churn")
    _same(want, got)


def test_spark_gives_the_arrays_numbers(spark):  # the session-wide fixture of tests/conftest.py
    df = _data(n=2_000)
    feats = ["region", "age", "vip"]  # one Spark job per grouping set: kept small for the test's time
    want = vc.segments(df["p"].to_numpy(), df["y"].to_numpy(), features={f: df[f].to_numpy() for f in feats},
                       sample_weight=df["w"].to_numpy())
    got = vc.segments(spark.createDataFrame(df), score="p", label="y", features=feats, sample_weight="w")
    _same(want, got)


def test_lazy_memory_is_bounded_by_the_segments_not_the_rows():
    # 1,000,000 rows stay in DuckDB; Python holds only the per (segment, score cell) table (~1.6 MB
    # here, whatever the rows: at 400,000 rows that was at the bound below, on the old code too)
    import tracemalloc

    import duckdb

    con = duckdb.connect()
    con.execute("SELECT setseed(0.5)")
    con.execute("""CREATE TABLE t AS SELECT p, (random() < p)::INT AS y, r, a FROM (
                   SELECT 0.02 + 0.96 * random() AS p, (['x', 'y', 'z'])[1 + floor(random() * 3)::INT] AS r,
                          floor(random() * 60)::DOUBLE AS a FROM range(1000000))""")
    rel = con.table("t")
    vc.segments(rel, score="p", label="y", features=["r", "a"])  # warm-up: imports, caches
    tracemalloc.start()
    res = vc.segments(rel, score="p", label="y", features=["r", "a"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.n == 1_000_000
    assert peak < 1_000_000 * 8 / 2  # under half of one float column of the rows


@pytest.mark.dask_cluster
def test_dask_gives_the_arrays_numbers():
    dd = pytest.importorskip("dask.dataframe")
    df = _data(n=3_000)
    want = _arrays(df, True)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' notice that Dask support moves to a plugin
        frame = dd.from_pandas(df, npartitions=3)
    got = vc.segments(frame, score="p", label="y", features=FEATURES, sample_weight="w")
    _same(want, got)


def test_explicit_cut_points_are_the_same_on_duckdb(tmp_path):
    df = _data()
    a = vc.segments(df, score="p", label="y", features=["age", "region"], bins={"age": [30, 45, 60]})
    b = vc.segments(_as("duckdb", df, tmp_path), score="p", label="y", features=["age", "region"],
                    bins={"age": [30, 45, 60]})
    _same(a, b)
    assert a.levels["age"] == ["[18, 30)", "[30, 45)", "[45, 60)", "[60, 79]", "missing"]


# -- Dask: the per-partition numpy pass (the arrays' own bincount code on each partition, in chunks of
# rows; the small per-partition tables added on the driver) on every route: equal-width or distinct
# score cells, weighted or not, logits, contradicted rows
def _dask(df, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' notice that Dask support moves to a plugin
        return dd.from_pandas(df, npartitions=npartitions)


def _arrays_of(df, score="p", label="y", **kw):
    feats = {f: df[f].to_numpy() for f in FEATURES}
    return vc.segments(df[score].to_numpy(), df[label].to_numpy(), features=feats, **kw)


def test_dask_grid_cells_unweighted_across_partitions_and_chunks(monkeypatch):
    from veracity.sources import _dask as dask_source

    monkeypatch.setattr(dask_source, "CHUNK_ROWS", 700)  # partitions of 1,000 rows: two chunks each, summed
    df = _data(n=3_000, grid=True)  # 3,000 distinct scores > max_cells: equal-width cells
    want = _arrays_of(df)
    assert want.cells == "grid"
    got = vc.segments(_dask(df, 3), score="p", label="y", features=FEATURES)
    _same(want, got)
    assert [r.n for r in got.rows] == [r.n for r in want.rows]  # integer counts: exact


def test_logit_scores_pos_label_and_an_empty_partition_on_dask():
    df = _data(n=3_000)
    df["p"] = np.round(df["p"], 2)  # the scores are the cells (see test_logit_scores_and_pos_label_on_duckdb)
    df["logit"] = np.log(df["p"] / (1 - df["p"]))
    df["outcome"] = np.where(df["y"] == 1, "churn", "stay")
    df.loc[1_500:, "w"] = 0.0  # the second partition holds no row of positive weight: an empty table
    want = _arrays_of(df, score="logit", label="outcome", score_type="logit", pos_label="churn",
                      sample_weight=df["w"].to_numpy())
    got = vc.segments(_dask(df, 2), score="logit", label="outcome", features=FEATURES, score_type="logit",
                      pos_label="churn", sample_weight="w")
    _same(want, got)


def test_contradicted_rows_are_counted_on_dask():
    df = _data(n=3_000)
    df.loc[:40, "p"] = 0.0  # scores of exactly 0 or 1 against their label: certain miscalibration
    df.loc[:20, "y"] = 1
    df.loc[2_960:, "p"] = 1.0
    df.loc[2_980:, "y"] = 0
    want = _arrays_of(df)
    got = vc.segments(_dask(df, 3), score="p", label="y", features=FEATURES)
    _same(want, got)
    assert [r.n for r in got.rows] == [r.n for r in want.rows]
    assert str(got) == str(want)  # the contradicted rows are named alike
