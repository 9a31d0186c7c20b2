"""An isotonic or equal-mass histogram fit on a lazy frame counts its distinct scores in the summary's query.

Both fits collect one row per distinct score, so each first counts the distinct values (refused beyond
``frames._fit.MAX_DISTINCT``). That count was a query of its own, between the summary's (rows, positives,
weighted sums) and the per-score one: on Spark and Dask every query is a job (~0.1-0.5 s however few the
rows), and an isotonic fit took four where three do (the contract's counts, the summary with the count,
the per-score sums). The count now rides in the summary's aggregate; the refusals still name it.
"""

from __future__ import annotations

import pytest

import veracity as vc
from veracity.frames import _fit

from .conftest import counted_queries, dataset, make

LAZY = ["polars-lazy", "duckdb"]
FITS = {
    # the contract's counts, the summary (with the distinct count), the per-score sums
    "isotonic": (lambda: vc.IsotonicCalibration(), 3),
    # ... and the per-bin sums
    "histogram-quantile": (lambda: vc.HistogramBinning(bins=7, strategy="quantile"), 4),
    "histogram-logit-quantile": (lambda: vc.HistogramBinning(bins=7, strategy="quantile",
                                                             score_type="logit"), 4),
}


#: each fit on both engines, unweighted on one and weighted on the other
CASES = [("polars-lazy", "isotonic", False), ("duckdb", "isotonic", True),
         ("duckdb", "histogram-quantile", False), ("polars-lazy", "histogram-quantile", True),
         ("polars-lazy", "histogram-logit-quantile", False), ("duckdb", "histogram-logit-quantile", True)]


@pytest.mark.parametrize("backend, kind, weighted", CASES)
def test_one_query_fewer_and_the_array_fit(backend, kind, weighted, tmp_path, monkeypatch):
    df = dataset(600)
    score = "logit" if "logit" in kind else "p"
    frame = make(backend, df, tmp_path)
    make_cal, queries = FITS[kind]
    seen = counted_queries(monkeypatch)
    got = make_cal().fit(frame, score=score, label="y", sample_weight="w" if weighted else None)
    # old: one more (the distinct count on its own); unweighted, the contract's counts ride in the
    # summary's query too (session 40, frames._fit._contract_and_summary): one fewer again
    assert len(seen) == queries - (not weighted)
    want = make_cal().fit(df[score].to_numpy(), df["y"].to_numpy(),
                          sample_weight=df["w"].to_numpy() if weighted else None)
    assert got.metadata["n_rows"] == want.metadata["n_rows"] == len(df)
    p = df[score].to_numpy()
    assert got.transform(p) == pytest.approx(want.transform(p), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("backend", LAZY)
def test_the_refusals_still_name_the_distinct_count(backend, tmp_path, monkeypatch):
    df = dataset(600)
    frame = make(backend, df, tmp_path)
    monkeypatch.setattr(_fit, "MAX_DISTINCT", 10)
    with pytest.raises(vc.VeracityError) as info:
        vc.IsotonicCalibration().fit(frame, score="p", label="y")
    assert str(info.value) == (
        f"IsotonicCalibration on a lazy {backend.split('-')[0]} frame needs per-score sums of its "
        f"{df['p'].nunique()} distinct scores, over the limit of 10; round the scores (e.g. to 1e-6) or use "
        "PlattScaling")
    with pytest.raises(vc.VeracityError) as info:
        vc.HistogramBinning(bins=7, strategy="quantile").fit(frame, score="p", label="y")
    assert str(info.value) == (
        f"equal-mass bins on a lazy frame need the {df['p'].nunique()} distinct scores' counts, over the "
        "limit of 10; round the scores (e.g. to 1e-5) or use strategy='uniform'")
