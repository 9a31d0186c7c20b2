"""Round 23: a negative debiased ECE is explained, and statistical claims the suite did not yet check.

* Kumar et al.'s L1 bias correction goes below 0 when the bins' gaps are within their noise; the
  estimators' table printed such a number (-0.0631) with no word on how to read it.
* Claims under weights that vary with the score (the suite's weighted simulations drew the weights
  independently of the score, where a wrong weighted variance cannot show): Spiegelhalter's test,
  Hosmer–Lemeshow and the noise floor reject calibrated scores at about their level, and the weighted
  bootstrap intervals of Brier, NLL and accuracy cover the population's weighted values at about 95 %.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

import veracity as vc


def test_a_negative_debiased_ece_says_how_to_read_it():
    rng = np.random.default_rng(1)
    y = (rng.random(40) < 0.5).astype(float)
    est = vc.ece_estimates(np.full(40, 0.5), y)
    assert est.debiased_l1 < 0  # every gap is within noise: Kumar's correction overshoots
    text = str(est)
    assert "debiased L1 below 0" in text and "no ECE is below 0" in text
    assert "debiased L1 below 0" in est._repr_html_()
    # a clearly miscalibrated model keeps its table as it was: no note
    p = rng.uniform(0, 1, 2000)
    miscal = vc.ece_estimates(p, (rng.random(2000) < p**2).astype(float))
    assert miscal.debiased_l1 > 0 and "below 0" not in str(miscal)


def _weights(p: np.ndarray) -> np.ndarray:
    """Weights that grow with the score's distance from 1/2 (as importance weights often do)."""
    return np.exp(1.5 * np.abs(np.log(p / (1 - p))))


def test_tests_reject_calibrated_scores_at_their_level_under_score_dependent_weights():
    rng = np.random.default_rng(11)
    runs, n = 300, 300
    hits = {"spiegelhalter": 0, "hosmer_lemeshow": 0, "noise_floor": 0}
    for r in range(runs):
        p = rng.beta(1.5, 2.5, n)
        w = _weights(p)
        y = (rng.random(n) < p).astype(float)
        hits["spiegelhalter"] += vc.spiegelhalter(p, y, sample_weight=w).p_value <= 0.05
        hits["hosmer_lemeshow"] += vc.hosmer_lemeshow(p, y, sample_weight=w, n_resamples=199,
                                                      random_state=r).p_value <= 0.05
        hits["noise_floor"] += vc.ece_noise_floor(p, y, sample_weight=w, bins=10, n_resamples=99,
                                                  random_state=r).p_value <= 0.05
    allowance = 3 * math.sqrt(0.05 * 0.95 / runs)
    for name, h in hits.items():
        assert h / runs <= 0.05 + allowance, (name, h / runs)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_weighted_intervals_cover_the_populations_weighted_brier_nll_and_accuracy(method):
    # p ~ U(0, 1), y ~ Bernoulli(p), weight w(p) = 1 + 4p²: the population's weighted mean of each
    # row's loss is E[w(p) L(p)] / E[w(p)], L the loss's expectation over y given p
    def wf(p: np.ndarray) -> np.ndarray:
        return 1 + 4 * p**2

    mean_w = integrate.quad(wf, 0, 1)[0]
    truth = {
        "brier": integrate.quad(lambda q: wf(q) * q * (1 - q), 0, 1)[0] / mean_w,
        "nll": integrate.quad(lambda q: -wf(q) * (q * math.log(q) + (1 - q) * math.log1p(-q)), 0, 1)[0]
        / mean_w,
        "accuracy": integrate.quad(lambda q: wf(q) * max(q, 1 - q), 0, 1, points=[0.5])[0] / mean_w,
    }
    rng = np.random.default_rng(8 if method == "bca" else 9)
    k, n = 200, 300
    hits = dict.fromkeys(truth, 0)
    for _ in range(k):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(float)
        r = vc.bootstrap_intervals(p, y, sample_weight=wf(p), metrics=list(truth), method=method,
                                   n_resamples=400, random_state=int(rng.integers(2**31)))
        for m in truth:
            hits[m] += r[m].low <= truth[m] <= r[m].high
    for m, h in hits.items():
        assert abs(h / k - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / k), (m, h / k)
