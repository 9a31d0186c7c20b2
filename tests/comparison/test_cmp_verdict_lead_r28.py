"""The verdict never reads as though the model that already wins lost (session 28).

A model of higher resolution (ΔDSC clear of 0) that is worse calibrated (ΔMCB clear of 0) got "recalibrate
good, then it wins" even where its Brier score was already lower beyond noise (Brier -0.0012 [-0.0020,
-0.0004]): a risk modeller read that the new model loses today. And a line that gave one model the higher
resolution (or the better calibration) said nothing where the Brier row, beyond noise, favoured the other."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.comparison._compare import ComparisonRow, CORPDifference, _verdict


def test_a_model_that_already_wins_is_called_better_not_told_to_recalibrate_to_win():
    rng = np.random.default_rng(7)
    n = 5000
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(-5 + 1.5 * x)))
    y = rng.binomial(1, p)
    r = vc.compare_models({"flat": np.full(n, y.mean()), "good": p}, y)
    brier, d = r.row("brier"), r.corp_differences[0]
    # the set-up: good has the lower Brier score, the higher resolution and the worse calibration, each
    # beyond noise
    assert brier.ci_high < 0 and d.dsc_low > 0 and d.mcb_low > 0
    assert "then it wins" not in r.verdict, r.verdict
    assert r.verdict.startswith("good is better: it has the higher resolution (DSC +")
    assert ") and the lower Brier score (Brier -" in r.verdict
    assert "worse calibrated" in r.verdict and "recalibrating good would widen its lead" in r.verdict


def _rows(diff: float, low: float, high: float) -> ComparisonRow:
    return ComparisonRow("a", "b", "brier", 0.2, 0.2 + diff, diff, low, high, 0.01, 0.001, "paired t")


def test_a_brier_row_beyond_noise_for_the_other_model_is_said():
    # b resolves better beyond noise, its calibration is within noise (a wide interval), and the Brier
    # score — their sum — favours a beyond noise: the old line gave b the higher resolution and no more
    d = CORPDifference("a", "b", 0.004, 0.009, 0.005, 0.0, -0.001, 0.02, 0.001, 0.009, 0.2, 0.01)
    text = _verdict(d, _rows(0.004, 0.001, 0.007), identical=False)
    assert text.startswith("b has the higher resolution"), text
    assert "; yet a has the lower Brier score (Brier +0.0040 [+0.0010, +0.0070] for b - a)" in text
    # the same for a line that calls a model better calibrated
    d = CORPDifference("a", "b", -0.004, -0.009, -0.005, 0.0, -0.012, -0.006, -0.01, 0.002, 0.01, 0.2)
    text = _verdict(d, _rows(0.004, 0.001, 0.007), identical=False)
    assert text.startswith("b is better calibrated"), text
    assert "; yet a has the lower Brier score" in text
    # and nothing added where the Brier row agrees, or holds 0
    d = CORPDifference("a", "b", -0.004, 0.001, 0.005, 0.0, -0.004, 0.006, 0.001, 0.009, 0.2, 0.01)
    assert "yet" not in _verdict(d, _rows(-0.004, -0.007, -0.001), identical=False)
    assert "yet" not in _verdict(d, _rows(-0.004, -0.009, 0.001), identical=False)
