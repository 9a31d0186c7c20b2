"""Round 42: risk_coverage, selective_threshold, plot_risk_coverage and plot_thresholds refused a ranking score
(score_type="score") as "this function reads the scores as probabilities ...", naming no function; a
notebook cell calling several could not tell which one refused. The refusal now names the caller, on the
array and the frame form alike."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import veracity as vc

matplotlib.use("Agg")

S = np.linspace(-2.0, 2.0, 40)
Y = np.tile([0, 1], 20)

CALLS = {
    "vc.risk_coverage": lambda **kw: vc.risk_coverage(**kw),
    "vc.selective_threshold": lambda **kw: vc.selective_threshold(**kw, target_risk=0.2),
    "vc.plot_risk_coverage": lambda **kw: vc.plot_risk_coverage(**kw),
    "vc.plot_thresholds": lambda **kw: vc.plot_thresholds(**kw),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("form", ["array", "frame"])
def test_the_refusal_names_the_function(name, form):
    args = ({"scores": S, "labels": Y} if form == "array"
            else {"scores": pd.DataFrame({"s": S, "y": Y}), "score": "s", "label": "y"})
    with pytest.raises(vc.VeracityError, match=f"^{name} reads the scores as probabilities"):
        CALLS[name](**args, score_type="score")
