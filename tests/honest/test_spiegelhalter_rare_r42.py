"""Spiegelhalter's test where the rows expect about one event (round 42): its normal law rejected calibrated
scores at 8.8-9.2 % at the 5 % level (20 rows with p in [0.015, 0.035]: 0.5 expected events; 10 rows; 50 rows
at p near 0.01). Below 5 expected events (or non-events) its p-value is now by Monte Carlo under the null
(labels redrawn as Bernoulli(p)), which keeps the level."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _rejections(rng, n, low, high, reps=600, truth=1.0):
    hits = 0
    for _ in range(reps):
        p = rng.uniform(low, high, n)
        y = (rng.random(n) < np.minimum(p * truth, 1.0)).astype(int)
        hits += vc.spiegelhalter(p, y).p_value <= 0.05
    return hits / reps


@pytest.mark.parametrize(("n", "low", "high"), [(20, 0.015, 0.035), (10, 0.03, 0.07), (50, 0.005, 0.015)])
def test_calibrated_rare_rows_keep_the_level(n, low, high):
    rate = _rejections(np.random.default_rng(n), n, low, high)
    assert rate <= 0.065, rate  # 600 draws: a 5 % rate reads above 0.065 with probability about 0.04


def test_the_monte_carlo_law_is_said_and_the_normal_kept_elsewhere():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.015, 0.035, 20)
    t = vc.spiegelhalter(p, (rng.random(20) < p).astype(int))
    assert t.method == "monte-carlo" and "Monte-Carlo law: 4,000 label redraws" in str(t)
    assert t.to_dict()["min_expected"] == pytest.approx(p.sum())
    q = rng.uniform(0.2, 0.8, 200)
    plain = vc.spiegelhalter(q, (rng.random(200) < q).astype(int))
    assert plain.method == "normal" and "(normal law; 200 rows)" in str(plain)


def test_it_still_finds_rare_scores_that_are_three_times_too_low():
    # power: 200 rows at p near 0.01 (2 expected events) whose true rate is three times that
    rate = _rejections(np.random.default_rng(5), 200, 0.005, 0.015, reps=300, truth=3.0)
    assert rate >= 0.5, rate
