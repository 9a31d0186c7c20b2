"""Equal-mass bins at scale: exact edges up to the distinct-score limit, approximate beyond — stated.

The limit is lowered through ``veracity.sources._api.MAX_DISTINCT``. The oracle
is the definition of the rank error, computed here on the rows with numpy: for
the cut :math:`c_k` of level :math:`q_k = k/M`, the distance from :math:`q_k` to
:math:`[F(c_k^-), F(c_k)]` (weight shares below / at-or-below the cut).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.sources import _api

from .conftest import make

BINS = 10


def continuous(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    return pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(np.int64), "w": rng.uniform(0.2, 3.0, n)})


def empirical_rank_error(p, w, cuts, levels):
    w = np.ones_like(p) if w is None else w
    total = w.sum()
    lo = np.array([w[p < c].sum() for c in cuts]) / total
    hi = np.array([w[p <= c].sum() for c in cuts]) / total
    return float(np.max(np.maximum(0.0, np.maximum(lo - levels, levels - hi))))


def check_approximate(result, df, weighted, method):
    note = result.to_dict()["bin_edges"]
    assert note["exact"] is False and method in note["method"]
    assert note["distinct_scores"] == df["p"].nunique() and note["limit"] == 50
    edges = result.table.stats.edges
    assert edges.size == BINS + 1  # continuous scores: one distinct cut per level
    levels = np.arange(1, BINS) / BINS
    w = df["w"].to_numpy() if weighted else None
    empirical = empirical_rank_error(df["p"].to_numpy(), w, edges[1:-1], levels)
    assert empirical <= note["rank_error"] + 1e-12  # the stated error is the true one ...
    assert note["rank_error"] == pytest.approx(empirical, abs=1e-12)
    if note["rank_error_bound"] is not None:  # ... within the method's guarantee
        assert note["rank_error"] <= note["rank_error_bound"]
    assert note["rank_error"] < 0.01  # and small: these are useful equal-mass bins
    # the rows are binned with those edges as the array rule bins them (a cut belongs to the bin above)
    idx = np.searchsorted(edges[1:-1], df["p"].to_numpy(), side="right")
    np.testing.assert_array_equal(result.table.stats.count, np.bincount(idx, minlength=BINS))
    assert "equal-mass edges are approximate (20,000 distinct scores, over the exact limit of 50)" in str(result)
    assert "measured rank error of the edges" in str(result)
    json.dumps(result.to_dict())


@pytest.mark.parametrize(
    "backend, weighted, method",
    [
        ("duckdb", False, "DuckDB approx_quantile"),
        ("parquet", False, "DuckDB approx_quantile"),
        ("duckdb", True, "histogram of 65536 equal-width bins"),
        ("polars-lazy", False, "histogram of 65536 equal-width bins"),
        ("dask", True, "histogram of 65536 equal-width bins"),
        ("spark", False, "Spark percentile_approx (accuracy 10000)"),
    ],
)
def test_approximate_edges_state_their_rank_error(backend, weighted, method, tmp_path, request, monkeypatch):
    monkeypatch.setattr(_api, "MAX_DISTINCT", 50)
    df = continuous()
    result = vc.audit(make(backend, df, tmp_path, request), score="p", label="y", strategy="quantile", bins=BINS,
                      sample_weight="w" if weighted else None)
    check_approximate(result, df, weighted, method)
    if backend == "spark":
        assert result.to_dict()["bin_edges"]["rank_error_bound"] == 1e-4


@pytest.mark.parametrize("strategy", ["quantile", "equal-count"])
def test_under_the_limit_the_edges_are_exact_and_unannounced(strategy, tmp_path, monkeypatch):
    monkeypatch.setattr(_api, "MAX_DISTINCT", 20_000)
    df = continuous()
    got = vc.audit(make("duckdb", df, tmp_path), score="p", label="y", strategy=strategy, bins=BINS)
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), strategy=strategy, bins=BINS)
    np.testing.assert_array_equal(got.table.stats.edges, want.table.stats.edges)
    assert "bin_edges" not in got.to_dict() and "approximate" not in str(got)


def test_equal_count_and_logits_beyond_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(_api, "MAX_DISTINCT", 50)
    df = continuous(seed=3)
    df["z"] = np.log(df["p"] / (1 - df["p"]))
    result = vc.audit(make("duckdb", df, tmp_path), score="z", label="y", score_type="logit",
                      strategy="equal-count", bins=BINS)
    note = result.to_dict()["bin_edges"]
    edges = result.table.stats.edges
    levels = np.arange(1, BINS) / BINS
    p = 1 / (1 + np.exp(-df["z"].to_numpy()))
    assert note["rank_error"] == pytest.approx(empirical_rank_error(p, None, edges[1:-1], levels), abs=1e-9)
    assert note["rank_error"] < 0.01
    # equal-count: a score equal to a cut stays below it
    idx = np.searchsorted(edges[1:-1], p, side="left")
    assert result.table.stats.count.sum() == len(df)
    assert np.abs(result.table.stats.count - np.bincount(idx, minlength=BINS)).max() <= 1  # sigmoid's last bit


@pytest.mark.parametrize("name", ["ece", "reliability"])
def test_scalars_and_the_table_warn_in_one_line(name, tmp_path, monkeypatch):
    monkeypatch.setattr(_api, "MAX_DISTINCT", 50)
    df = continuous(2000)
    frame = make("duckdb", df, tmp_path)
    with pytest.warns(UserWarning, match=r"^vc\.%s: equal-mass edges are approximate .*measured rank error" % name) as rec:
        getattr(vc, name)(frame, score="p", label="y", strategy="quantile", bins=BINS)
    assert len(rec) == 1 and "\n" not in str(rec[0].message)
