"""Round 41: a HistogramBinning artifact whose params.bins disagreed with its state.edges_ loaded silently:
transform() used the edges (10 bins) while the params said 5, so a re-fit with the saved params gave another
map. Loading now refuses it in one line: a uniform fit has exactly `bins` bins, a quantile fit at most `bins`
(tied cuts merge; such artifacts still load)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError


def _fitted(strategy: str, scores: np.ndarray | None = None) -> dict:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=500) if scores is None else scores
    y = (rng.uniform(size=p.size) < np.clip(p, 0, 1)).astype(int)
    return json.loads(json.dumps(vc.HistogramBinning(bins=10, strategy=strategy).fit(p, y).to_dict()))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_params_bins_fewer_than_the_edges_are_refused(strategy):
    d = _fitted(strategy)
    d["params"]["bins"] = 5
    with pytest.raises(VeracityError, match=r"state.edges_ hold 10 bins but params.bins is 5") as err:
        vc.load(d)
    assert "\n" not in str(err.value) and "re-fit" in str(err.value)


def test_uniform_params_bins_more_than_the_edges_are_refused():
    d = _fitted("uniform")
    d["params"]["bins"] = 20
    with pytest.raises(VeracityError, match=r"hold 10 bins but params.bins is 20 \(strategy='uniform' fits 20\)"):
        vc.load(d)


def test_a_quantile_fit_whose_tied_cuts_merged_still_loads():
    p = np.r_[np.zeros(400), np.random.default_rng(1).uniform(size=100)]
    d = _fitted("quantile", p)
    assert len(d["state"]["edges_"]) - 1 < d["params"]["bins"] == 10
    cal = vc.load(d)
    assert np.array_equal(cal.transform(p), vc.HistogramBinning(bins=10, strategy="quantile").fit(
        p, (np.random.default_rng(0).uniform(size=p.size) < p).astype(int)).transform(p))
