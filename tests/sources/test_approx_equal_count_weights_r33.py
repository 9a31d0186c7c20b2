"""Beyond the distinct-score limit, approximate ``"equal-count"`` edges split by rows, as the exact rule
does ("sample weights do not move the cuts"), and their stated rank error is measured in row shares.

Weighted, they were the weighted quantiles (the ``"quantile"`` rule) and the rank error stated was measured
in weight shares: on the frame below the first bin held 13,398 of 20,000 rows (edges 0.1552, 0.195, ... where
the arrays' are 0.0027, 0.0116, ...) under "measured rank error of the edges 0.000149"; the rows' error was 0.57.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc
from veracity.sources import _api

BINS = 10


def _frame(n: int = 20_000) -> pd.DataFrame:
    rng = np.random.default_rng(17)
    p = rng.beta(0.5, 3, n)
    # heavy weights on the high scores: weight shares and row shares of the cuts far apart
    w = np.where(p > np.quantile(p, 0.7), 20.0, 1.0)
    return pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(np.int64), "w": w})


def _row_rank_error(p: np.ndarray, cuts: np.ndarray, levels: np.ndarray) -> float:
    lo = np.array([np.mean(p < c) for c in cuts])
    hi = np.array([np.mean(p <= c) for c in cuts])
    return float(np.max(np.maximum(0.0, np.maximum(lo - levels, levels - hi))))


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_weights_do_not_move_approximate_equal_count_cuts(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_api, "MAX_DISTINCT", 50)
    df = _frame()

    def frame() -> object:
        return pl.from_pandas(df).lazy() if backend == "polars-lazy" else duckdb.from_df(df)

    plain = vc.audit(frame(), score="p", label="y", strategy="equal-count", bins=BINS)
    weighted = vc.audit(frame(), score="p", label="y", strategy="equal-count", bins=BINS, sample_weight="w")
    note = weighted.to_dict()["bin_edges"]
    assert note["exact"] is False
    edges = weighted.table.stats.edges
    levels = np.arange(1, BINS) / BINS
    measured = _row_rank_error(df["p"].to_numpy(), edges[1:-1], levels)
    assert note["rank_error"] == pytest.approx(measured, abs=1e-12)  # the error stated is the rows' error
    assert measured < 0.01  # row-count bins, as the exact rule makes them
    rows = np.bincount(np.searchsorted(edges[1:-1], df["p"].to_numpy(), side="left"), minlength=BINS)
    assert np.all(np.abs(rows / len(df) - 1 / BINS) < 0.02)
    if backend == "polars-lazy":  # deterministic histogram: the very cuts of the unweighted audit
        np.testing.assert_array_equal(edges, plain.table.stats.edges)


def test_weighted_quantile_cuts_still_follow_the_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_api, "MAX_DISTINCT", 50)
    df = _frame()
    result = vc.audit(pl.from_pandas(df).lazy(), score="p", label="y", strategy="quantile", bins=BINS,
                      sample_weight="w")
    w = df["w"].to_numpy()
    share = np.bincount(np.searchsorted(result.table.stats.edges[1:-1], df["p"].to_numpy(), side="right"),
                        weights=w, minlength=BINS) / w.sum()
    assert np.all(np.abs(share - 1 / BINS) < 0.02)
