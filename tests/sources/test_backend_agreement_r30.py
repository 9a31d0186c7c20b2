"""One question, one answer on every backend: hostile but legal rows that made the lazy routes disagree
(session 30).

* a float slice key holding both ``0.0`` and ``-0.0`` (one slice, ``0.0``, on every route): polars (lazy)
  and Dask counted the exact AUC's ranges per key *bits*, and the two halves of the slice were then added
  as if they were consecutive score ranges (AUC 0.689 where the slice's is 0.846);
* Dask with an int64 slice key beyond 2**53 (and a missing key, or any slices: the whole table's rows ride
  with a null key): the per-range counts came back through pandas' float64, so 2**53 + 1 became 2**53 and
  that slice had two slices' ranges (a wrong AUC) and the other none;
* ``vc.threshold_table`` on a lazy frame with extreme weights (1e-200 beside 1): the counts were in the
  rescaled units, 2**185 times the weight at or above each threshold;
* a pyarrow table whose uint64 labels are 0 and 2**64 - 1: a raw ``ArrowInvalid`` (Arrow refuses to cast
  such an integer to double) where every other frame says the labels are not 0/1;
* Dask with weights near the largest double: numpy's "overflow encountered in reduce" warning from the
  contract's weight total (an error under ``-W error``), where the other routes say nothing;
* Dask with a float32 slice key: the slice float32(0.1) was named '0.10000000149011612' (pandas' groupby
  hands the key back as a double), where every other route (round 29) names it '0.1'.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
dd = pytest.importorskip("dask.dataframe")


def pairwise_auc(s: np.ndarray, y: np.ndarray) -> float:
    """The Mann–Whitney AUC by its definition: P(s+ > s-) + P(s+ = s-)/2 over every pair."""
    pos, neg = s[y == 1], s[y == 0]
    d = pos[:, None] - neg[None, :]
    return float(((d > 0).sum() + 0.5 * (d == 0).sum()) / d.size)


def lazy(backend: str, df: pd.DataFrame):
    if backend == "polars-lazy":
        return pl.from_pandas(df).lazy()
    if backend == "duckdb":
        return duckdb.connect().from_df(df)
    return dd.from_pandas(df, npartitions=3, sort=False)


def scored(n: int = 300, seed: int = 5) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), 2)
    return p, (rng.random(n) < p).astype(np.int64), rng


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_a_zero_key_and_a_negative_zero_key_are_one_slice_with_its_own_auc(backend: str) -> None:
    p, y, rng = scored()
    g = rng.choice([0.0, -0.0, 1.5, np.nan], p.size)
    df = pd.DataFrame({"p": p, "y": y, "g": g})
    groups = vc.audit(lazy(backend, df), score="p", label="y", by="g", bins=5).groups
    zero = g == 0.0
    assert set(groups) == {"0.0", "1.5", "(missing)"}
    assert groups["0.0"].n == int(zero.sum())
    assert groups["0.0"].metrics["auc"] == pytest.approx(pairwise_auc(p[zero], y[zero]), rel=1e-12)


@pytest.mark.parametrize("backend", ["polars-lazy", "dask"])
def test_multiclass_slices_by_a_signed_zero_key_agree_with_pandas(backend: str) -> None:
    p, y, rng = scored(seed=6)
    df = pd.DataFrame({"c0": 1.0 - p, "c1": p, "y": y, "g": rng.choice([0.0, -0.0, 2.0], p.size)})
    want = vc.audit(df, score=["c0", "c1"], label="y", by="g", bins=5).groups
    got = vc.audit(lazy(backend, df), score=["c0", "c1"], label="y", by="g", bins=5).groups
    assert list(got) == list(want)
    for key in want:
        assert got[key].metrics["auc"] == pytest.approx(want[key].metrics["auc"], rel=1e-12), key


@pytest.mark.parametrize("dtype, missing, top", [("Int64", False, 2**63 - 1), ("Int64", True, 2**63 - 1),
                                                 ("uint64", False, 2**64 - 1)])
def test_dask_integer_slice_keys_beyond_2_53_keep_their_own_auc(dtype: str, missing: bool, top: int) -> None:
    p, y, rng = scored()
    keys = np.array([2**53, 2**53 + 1, top], dtype=np.uint64)[rng.integers(0, 3, p.size)]
    g = pd.array(keys, dtype=dtype)
    if missing:
        g[::9] = pd.NA
    df = pd.DataFrame({"p": p, "y": y, "g": g})
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    groups = vc.audit(ddf, score="p", label="y", by="g", bins=5).groups
    for key in (2**53, 2**53 + 1, top):
        rows = np.asarray((df["g"] == key).fillna(False), dtype=bool)
        assert groups[str(key)].n == int(rows.sum())
        want = pairwise_auc(p[rows], y[rows])
        assert groups[str(key)].metrics["auc"] == pytest.approx(want, rel=1e-12), key


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
@pytest.mark.parametrize("tiny", [1e-200, 1e-300])
def test_lazy_threshold_counts_with_extreme_weights_in_the_callers_units(backend: str, tiny: float) -> None:
    p, y, rng = scored(seed=3)
    w = rng.choice([tiny, 1.0, 2.5], p.size)
    df = pd.DataFrame({"p": p, "y": y, "w": w})
    t = np.array([0.3, 0.5, -np.inf, np.inf])
    got = vc.threshold_table(lazy(backend, df), t, score="p", label="y", sample_weight="w")
    pos = y == 1
    for row, th in zip(got.rows, t):
        flagged = p >= th
        assert row.tp == pytest.approx(w[flagged & pos].sum(), rel=1e-12)
        assert row.fp == pytest.approx(w[flagged & ~pos].sum(), rel=1e-12)
        assert row.fn == pytest.approx(w[~flagged & pos].sum(), rel=1e-12, abs=1e-300)
    assert got.n == pytest.approx(w.sum(), rel=1e-12)
    assert got.positives == pytest.approx(w[pos].sum(), rel=1e-12)


@pytest.mark.parametrize("columns", [["p"], ["q", "p"]], ids=["binary", "multiclass"])
def test_pyarrow_uint64_labels_beyond_2_53_are_refused_as_on_pandas(columns: list[str]) -> None:
    p, y, _ = scored()
    df = pd.DataFrame({"p": p, "q": 1.0 - p, "y": np.where(y == 1, np.uint64(2**64 - 1), np.uint64(0))})
    score = columns if len(columns) > 1 else columns[0]
    with pytest.raises(vc.VeracityError) as want:
        vc.audit(df, score=score, label="y")
    with pytest.raises(vc.VeracityError) as got:
        vc.audit(pa.Table.from_pandas(df, preserve_index=False), score=score, label="y")
    assert str(got.value) == str(want.value)
    assert str(got.value).startswith("column 'y' (labels) must ")


def test_pyarrow_uint64_multiclass_scores_beyond_2_53_are_refused_as_on_pandas() -> None:
    p, y, _ = scored()
    big = np.where(p > 0.9, np.uint64(2**64 - 1), np.uint64(0))
    df = pd.DataFrame({"a": big, "b": np.uint64(1) - np.minimum(big, np.uint64(1)), "y": y})
    with pytest.raises(vc.VeracityError) as want:
        vc.audit(df, score=["a", "b"], label="y")
    with pytest.raises(vc.VeracityError) as got:
        vc.audit(pa.Table.from_pandas(df, preserve_index=False), score=["a", "b"], label="y")
    assert str(got.value) == str(want.value)
    assert "must hold probabilities in [0, 1]" in str(got.value)


@pytest.mark.parametrize("cap", [None, 2])
def test_dask_float32_slice_keys_are_named_as_on_every_other_route(cap: int | None) -> None:
    p, y, rng = scored()
    key = rng.choice(np.array([0.1, 0.2, 1 / 3], dtype=np.float32), p.size, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({"p": p, "y": y, "g": key})
    want = ["0.1", "0.2", "0.33333334"] if cap is None else ["0.1", "(other 2 values)"]
    assert list(vc.audit(df, score="p", label="y", by="g", bins=5, max_groups=cap or 100).groups) == want
    groups = vc.audit(dd.from_pandas(df, npartitions=3, sort=False), score="p", label="y", by="g", bins=5,
                      max_groups=cap or 100).groups
    assert list(groups) == want
    rows = key == np.float32(0.1)
    assert groups["0.1"].n == int(rows.sum())
    assert groups["0.1"].metrics["auc"] == pytest.approx(pairwise_auc(p[rows], y[rows]), rel=1e-12)


def test_dask_weights_near_the_largest_double_warn_nothing() -> None:
    p, y, rng = scored(seed=3)
    df = pd.DataFrame({"p": p, "y": y, "w": rng.choice([0.0, 1e300, 1.7e308], p.size)})
    want = vc.audit(df, score="p", label="y", sample_weight="w", bins=5)
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    got = vc.audit(ddf, score="p", label="y", sample_weight="w", bins=5)
    assert got.metrics["ece"] == pytest.approx(want.metrics["ece"], rel=1e-12)
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)


def test_spark_zero_and_negative_zero_keys_are_one_slice_with_its_own_auc(spark, tmp_path) -> None:
    p, y, rng = scored()
    g = rng.choice([0.0, -0.0, 1.5], p.size)
    path = tmp_path / "signed_zero.parquet"
    pd.DataFrame({"p": p, "y": y, "g": g}).to_parquet(path, index=False)
    groups = vc.audit(spark.read.parquet(str(path)), score="p", label="y", by="g", bins=5).groups
    zero = g == 0.0
    assert groups["0.0"].n == int(zero.sum())
    assert groups["0.0"].metrics["auc"] == pytest.approx(pairwise_auc(p[zero], y[zero]), rel=1e-12)
