"""The recalibration's two Wald tests under uneven weights: their far tail (round 43).

With uneven weights a few heavy rows carry the variance of the in-the-large and slope fits' scores, and
the normal law of the Wald statistics (sandwich SEs) read p <= 0.001 in 0.4-0.9 % of calibrated samples
of rare-event scores (2,000-3,000 rows of Beta(0.5, 30), log-normal weights of sd 1.2-1.5; on 200 rows of
Beta(0.5, 20) with sd 2: p <= 0.001 in 2.1 % in the large). Now, with uneven weights, both p-values are by
Monte Carlo (the labels redrawn, each redraw refitted) where the weighted count of events is as skewed as
a count of fewer than 20 expected events; unweighted rows and equal weights keep the normal law, bit for
bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc
from veracity.honest import _tests


def _sample(rng, n, truth_slope=1.0, truth_shift=0.0, sd=2.0, b=20.0):
    p = rng.beta(0.5, b, n)
    eta = np.log(p) - np.log1p(-p)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(truth_shift + truth_slope * eta)))).astype(int)
    return p, y, np.exp(sd * rng.normal(size=n))


def _p_values(rng, reps, n, **truth):
    out = []
    for _ in range(reps):
        p, y, w = _sample(rng, n, **truth)
        if y.sum() < 2:
            continue
        t = vc.calibration_slope(p, y, sample_weight=w)
        out.append((t.citl_p_value, t.slope_p_value))
    return np.array(out)


def test_heavy_weights_keep_the_far_tail(monkeypatch):
    # 999 redraws (valid for any count; p <= 0.001 is no redraw reaching |z|) keep this quick. Before
    # (seed 44, the 284 samples of 200 rows with both classes): in the large p <= 0.01 in 3.2 % and
    # p <= 0.001 in 2.1 % (bounds 2.8 % and 0.66 %), the slope 1.1 % and 0.35 %; now 1.1 % and 0 in the
    # large, 1.8 % and 0 for the slope
    monkeypatch.setattr(_tests, "_WALD_REDRAWS", 999, raising=False)
    pv = _p_values(np.random.default_rng(44), 300, 200)
    for level in (0.01, 0.001):
        bound = level + 3.0 * math.sqrt(level * (1.0 - level) / len(pv))
        rates = np.mean(pv <= level, axis=0)
        assert np.all(rates <= bound), (level, rates, bound)


def test_heavy_weights_still_find_a_miscalibration(monkeypatch):
    # 2,000 rows of Beta(0.5, 10) scores, weights of sd 1 (the Monte-Carlo law on 93 % of them): at 5 %
    # the normal law had found events e^0.5 times the scores' odds in 0.97 and a slope of 0.7 in 0.73 of
    # 30 samples each (seed 7); the Monte-Carlo law the same, 0.97 and 0.73
    monkeypatch.setattr(_tests, "_WALD_REDRAWS", 199, raising=False)
    rng = np.random.default_rng(7)
    shifted = _p_values(rng, 30, 2000, truth_shift=0.5, sd=1.0, b=10.0)
    flat = _p_values(rng, 30, 2000, truth_slope=0.7, sd=1.0, b=10.0)
    assert np.mean(shifted[:, 0] <= 0.05) >= 0.7, np.mean(shifted[:, 0] <= 0.05)
    assert np.mean(flat[:, 1] <= 0.05) >= 0.55, np.mean(flat[:, 1] <= 0.05)


def test_the_printout_says_which_law_and_unweighted_rows_keep_the_normal_law(monkeypatch):
    monkeypatch.setattr(_tests, "_WALD_REDRAWS", 199, raising=False)
    p, y, w = _sample(np.random.default_rng(1), 300)
    t = vc.calibration_slope(p, y, sample_weight=w)
    assert t.method == "monte-carlo" and t.n_resamples == 199 and t.skew_events < 20
    assert "Monte-Carlo law: 199 label redraws, each refitted, seed 0" in str(t)
    assert "< 20 expected events" in str(t)
    d = t.to_dict()
    assert d["method"] == "monte-carlo" and d["skew_events"] == pytest.approx(t.skew_events)
    # the p-values are Monte-Carlo ones: (1 + hits) / (R + 1)
    for value in (t.citl_p_value, t.slope_p_value):
        assert (value * 200.0) == pytest.approx(round(value * 200.0), abs=1e-9)
    plain = vc.calibration_slope(p, y)
    assert plain.method == "normal" and plain.n_resamples is None and plain.skew_events == math.inf
    assert plain.to_dict()["skew_events"] is None and "Monte-Carlo" not in str(plain)
    # the normal law's numbers, to the last digit
    assert plain.citl_p_value == _tests._two_sided(plain.citl / plain.citl_se)
    assert plain.slope_p_value == _tests._two_sided((plain.slope - 1.0) / plain.slope_se)
    even = vc.calibration_slope(p, y, sample_weight=np.full(p.size, 3.0))
    assert even.method == "normal" and even.citl_p_value == pytest.approx(plain.citl_p_value, rel=1e-9)
    in_tests = vc.calibration_tests(p, y, sample_weight=w).slope
    assert in_tests is not None and in_tests.method == "monte-carlo"
    assert "Monte-Carlo law" in str(vc.calibration_tests(p, y, sample_weight=w))
