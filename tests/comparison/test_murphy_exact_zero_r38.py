"""A Murphy difference of two equal mean elementary scores is exactly 0, and a difference of exactly 0 has
two equal scores: the pair's difference (theta * dW0 + (1 - theta) * dW1) and each model's score are two
roundings of one number, and they disagreed on whether it is 0 (theta = 0.4 is not 2/5: three false alarms
at 0.4 against two misses at 0.6 gave a to_dict diff of 2.8e-17 beside two scores of 0.375; weighted counts
of the same rows summed in two orders read 1e-16 apart). A weighted model that misses no positive and flags
no negative scores exactly 0 (it read 1e-16: the positives' total less their weight at or above theta)."""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_three_false_alarms_at_0_4_against_two_misses_differ_by_exactly_0():
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    a = np.array([0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3])
    b = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3])
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.4])
    assert m.elementary["a"][0] == m.elementary["b"][0] == 0.375
    doc = m.to_dict()["differences"][0]
    assert doc["diff"] == [0.0] and doc["p_value"] == [1.0]  # was 2.7755575615628914e-17


def test_equal_scores_and_a_zero_difference_go_together():
    rng = np.random.default_rng(38)
    grid = np.linspace(0.1, 0.9, 9)
    mismatched = 0
    for it in range(400):
        n = int(rng.integers(3, 40))
        y = rng.integers(0, 2, n)
        w = None if it % 2 == 0 else rng.choice([0.1, 0.3, 1.7, 2.0], n)
        m = vc.murphy_diagram({"a": rng.choice(grid, n), "b": rng.choice(grid, n)}, y, sample_weight=w)
        same = m.elementary["a"] == m.elementary["b"]
        mismatched += int(np.any(same != (m.difference.diff == 0.0)))
    assert mismatched == 0  # the old code: 131 of the 400 data sets


def test_a_weighted_perfect_separation_scores_exactly_0():
    rng = np.random.default_rng(5)
    nonzero = 0
    for _ in range(100):
        n = int(rng.integers(4, 30))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        p = np.where(y == 1, rng.choice([0.3, 0.6, 0.9], n), 0.1)
        m = vc.murphy_diagram(p, y, sample_weight=rng.choice([0.1, 0.3, 1.7, 2.0], n), theta=[0.2, 0.25])
        nonzero += int(np.any(next(iter(m.elementary.values())) != 0.0))
    assert nonzero == 0  # the old code: 20 of the 100 read 1e-16
