"""vc.budget_threshold has a frame form, as its sibling thresholds do: ``budget_threshold(frame,
score="p", top_k=10)`` was a raw TypeError (an unexpected keyword). It needs no labels."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc

rng = np.random.default_rng(20)
FRAME = pd.DataFrame({"p": np.round(rng.uniform(size=500), 2), "w": rng.uniform(0.5, 3.0, 500)})


@pytest.mark.parametrize("make", [lambda f: f, pl.from_pandas, lambda f: pa.Table.from_pandas(f)],
                         ids=["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("budget", [{"top_k": 37}, {"fraction": 0.1}])
def test_the_frame_form_equals_the_array_form(make, budget):
    frame = make(FRAME)
    assert vc.budget_threshold(frame, score="p", **budget) == vc.budget_threshold(FRAME["p"].to_numpy(), **budget)
    weighted = vc.budget_threshold(frame, score="p", sample_weight="w", **budget)
    assert weighted == vc.budget_threshold(FRAME["p"].to_numpy(), sample_weight=FRAME["w"].to_numpy(), **budget)
    # the definition: the smallest observed score whose weight at or above it fits the budget
    s, w = FRAME["p"].to_numpy(), FRAME["w"].to_numpy()
    limit = budget.get("top_k", budget.get("fraction", 0) * w.sum())
    fits = [t for t in np.unique(s) if w[s >= t].sum() <= limit * (1 + 1e-12)]
    assert weighted == min(fits)


@pytest.mark.parametrize("call, match", [
    (lambda: vc.budget_threshold(FRAME, score="q", top_k=5), "column 'q' not found"),
    (lambda: vc.budget_threshold(FRAME, score="p", sample_weight="v", top_k=5), "column 'v' not found"),
    (lambda: vc.budget_threshold(pl.from_pandas(FRAME).lazy(), score="p", top_k=5), "in-memory frame"),
    (lambda: vc.budget_threshold(FRAME, score=["p"], top_k=5), "score= names the score column"),
    (lambda: vc.budget_threshold(FRAME, top_k=5), "name its score column with score="),
])
def test_frame_mistakes_are_one_line(call, match):
    with pytest.raises(vc.VeracityError, match=match) as info:
        call()
    assert "\n" not in str(info.value)
