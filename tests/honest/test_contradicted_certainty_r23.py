"""Round 23: a probability score of exactly 0 that came true (or exactly 1 that did not) is impossible
under calibration, so Spiegelhalter's and Hosmer–Lemeshow's exact p-value is 0. The statistics cannot
see it — Spiegelhalter's variance gives such a row no weight, and a Hosmer–Lemeshow group of other
scores absorbs its term — so one such row among 1,000 calibrated ones read p = 0.95 (Spiegelhalter)
and 0.57 (Hosmer–Lemeshow), and all-certain scores with one contradicted were refused as "undefined"."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc


def _calibrated_plus_one_contradiction(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, 1000)
    y = (rng.random(1000) < p).astype(float)
    return np.r_[p, 0.0], np.r_[y, 1.0]


def test_a_contradicted_zero_gives_both_tests_p_value_zero_and_keeps_their_statistics():
    p, y = _calibrated_plus_one_contradiction()
    a = 1 - 2 * p
    z = np.sum((y - p) * a) / np.sqrt(np.sum(a * a * p * (1 - p)))  # Spiegelhalter (1986), by definition
    s = vc.spiegelhalter(p, y)
    assert s.statistic == pytest.approx(z, rel=1e-12)
    assert 2 * stats.norm.sf(abs(z)) > 0.05  # the normal law alone sees nothing
    assert s.p_value == 0.0 and s.contradicted == 1
    assert "contradicts" in str(s) and s.to_dict()["contradicted"] == 1
    h = vc.hosmer_lemeshow(p, y)
    assert h.method == "chi-square" and stats.chi2.sf(h.statistic, h.df) > 0.05
    assert h.p_value == 0.0 and h.contradicted == 1
    assert "contradicts" in str(h) and h.to_dict()["contradicted"] == 1
    t = vc.calibration_tests(p, y)
    assert t.spiegelhalter.p_value == 0.0 and t.hosmer_lemeshow.p_value == 0.0


def test_a_contradicted_one_on_a_small_sample_and_the_monte_carlo_law():
    p = np.array([0.2, 0.3, 0.4, 0.55, 0.6, 0.7, 0.8, 1.0])
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    h = vc.hosmer_lemeshow(p, y, bins=4)
    assert h.method == "monte-carlo" and h.p_value == 0.0 and h.contradicted == 1
    assert vc.spiegelhalter(p, y).p_value == 0.0


def test_only_certain_scores_with_a_contradiction_read_z_infinite_not_undefined():
    s = vc.spiegelhalter([0.0, 1.0, 1.0, 0.5], [1, 1, 1, 0])
    assert s.statistic == math.inf and s.p_value == 0.0 and s.contradicted == 1
    with pytest.raises(vc.VeracityError, match="undefined"):  # nothing contradicted: nothing to test
        vc.spiegelhalter([0.0, 1.0, 1.0, 0.5], [0, 1, 1, 0])


def test_zero_weight_rows_logits_and_top_labels_are_not_contradictions():
    p, y = _calibrated_plus_one_contradiction()
    w = np.r_[np.ones(1000), 0.0]
    plain = vc.spiegelhalter(p[:-1], y[:-1])
    dropped = vc.spiegelhalter(p, y, sample_weight=w)
    assert dropped.contradicted == 0 and dropped.p_value == plain.p_value
    assert vc.hosmer_lemeshow(p, y, sample_weight=w).contradicted == 0
    # a logit of 40 rounds to probability 1.0, but its probability is not 1: no contradiction
    logit = np.r_[np.log(p[:-1] / (1 - p[:-1])), 40.0]
    lab = np.r_[y[:-1], 0.0]
    assert vc.spiegelhalter(logit, lab, score_type="logit").contradicted == 0
    # a softmax rounded to confidence 1.0 (logits 50, 0, 0) whose top label is wrong: not a certainty either
    rng = np.random.default_rng(2)
    probs = rng.dirichlet([2, 2, 2], 300)
    top = vc.spiegelhalter(np.r_[np.log(probs), [[50.0, 0.0, 0.0]]], np.r_[probs.argmax(1), 1],
                           score_type="logit")
    assert top.contradicted == 0 and top.p_value > 0
