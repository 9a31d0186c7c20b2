"""Round 29: a PPI estimate of a rate outside [0, 1] (labelled scores near 0.97 against a label rate of
0.28, one unlabelled score of 0, lambda = 1) printed the reversed interval [0.0000, -0.5594]: cutting the
normal interval at the range clipped each end at one bound only. Both ends are clipped into the range
now, and a note says the estimate lies outside it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

import veracity as vc
from veracity.delayed._ppi_sums import RATE_BOUNDS, cut_to_range


def badly_calibrated_window():
    rng = np.random.default_rng(7)
    f = rng.uniform(0.93, 1.0, 36)           # scores near 0.97
    y = (np.arange(36) < 10).astype(float)   # 10 of 36 positive: a rate of 0.28
    return y, f, np.array([0.0])


def test_an_estimate_below_zero_has_an_ordered_interval_and_a_note():
    y, f, g = badly_calibrated_window()
    result = vc.ppi_mean(y, f, g, power_tuning=False)
    assert result.estimate < 0
    assert 0.0 <= result.ci_low <= result.ci_high <= 1.0
    assert (result.ci_low, result.ci_high) == (0.0, 0.0)
    assert any(n.startswith(f"the PPI estimate {result.estimate:.4f} lies outside [0, 1]") for n in result.notes)
    tuned = vc.ppi_mean(y, f, g)              # power tuning leans on the labels: in range, no such note
    assert 0.0 <= tuned.estimate <= 1.0 and not any("lies outside" in n for n in tuned.notes)


finite = st.floats(-3.0, 3.0, allow_nan=False)


@given(finite, finite)
def test_cut_intervals_stay_ordered_and_in_range(a, b):
    low, high = min(a, b), max(a, b)
    out = {f"{p}_{end}": np.array([x]) for p in RATE_BOUNDS for end, x in (("low", low), ("high", high))}
    cut_to_range(out, RATE_BOUNDS)
    for prefix, (lo, hi) in RATE_BOUNDS.items():
        got_low, got_high = float(out[f"{prefix}_low"][0]), float(out[f"{prefix}_high"][0])
        assert lo <= got_low <= got_high <= hi
        if lo <= low and high <= hi:          # an interval inside the range is left as it is
            assert (got_low, got_high) == (low, high)
