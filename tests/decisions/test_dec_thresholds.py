"""Thresholds: seed 003's worked numbers, definitions, weights, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity import VeracityError
from veracity.decisions import min_positives, recall_rank


# -- seed 003 -------------------------------------------------------------------------
def test_cost_threshold_seed_003():
    # seed 003: "equal costs give 0.5; a miss 9x costlier gives 0.1"
    assert vc.cost_threshold(1, 9) == pytest.approx(0.1)
    assert vc.cost_threshold(1, 1) == 0.5
    assert vc.cost_threshold(3, 3) == 0.5
    assert vc.cost_threshold(0, 5) == 0.0


def test_recall_rank_seed_003():
    # seed 003: n = 100, k = ceil(101 * 0.95) = 96 with the +1 correction; k = 95 gives 95/101 ≈ 0.941
    assert recall_rank(100, 0.95) == 96
    assert recall_rank(100, 0.95, correction=False) == 95
    assert 95 / 101 == pytest.approx(0.941, abs=5e-4)
    assert recall_rank(100, 0.95) / 101 >= 0.95 > recall_rank(100, 0.95, correction=False) / 101


def test_recall_threshold_picks_kth_highest_positive():
    rng = np.random.default_rng(0)
    pos = rng.permutation(np.arange(1, 101) / 100.0)  # 100 distinct positive scores 0.01..1.00
    neg = rng.random(300) * 0.5
    s = np.concatenate([pos, neg])
    y = np.r_[np.ones(100), np.zeros(300)]
    desc = np.sort(pos)[::-1]
    assert vc.recall_threshold(s, y, target=0.95) == desc[96 - 1]
    assert vc.recall_threshold(s, y, target=0.95, correction=False) == desc[95 - 1]
    # on the data it was fit on, it flags at least the target share of positives
    for corr in (True, False):
        t = vc.recall_threshold(s, y, target=0.9, correction=corr)
        assert np.mean(pos >= t) >= 0.9


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    target=st.floats(0.05, 0.99),
    correction=st.booleans(),
)
def test_recall_rank_is_the_definition(n, target, correction):
    k = recall_rank(n, target, correction) if (not correction or n >= min_positives(target)) else None
    m = n + 1 if correction else n
    if k is not None:
        assert k == max(1, math.ceil(round(m * target, 9)))
    # min_positives is the smallest n whose rank fits
    need = min_positives(target, correction)
    assert recall_rank(need, target, correction) <= need
    if need > 1:
        assert recall_rank(need - 1, target, correction) > need - 1


def test_min_positives_values():
    assert min_positives(0.95) == 19       # (n+1)·0.95 <= n  <=>  n >= 19
    assert min_positives(0.9) == 9
    assert min_positives(0.5) == 1
    assert min_positives(0.99, correction=False) == 1


def test_recall_threshold_too_few_positives_says_minimum():
    s = np.linspace(0.1, 0.9, 18)
    with pytest.raises(VeracityError, match=r"at least 19 positives.*got n = 18"):
        vc.recall_threshold(s, np.ones(18), target=0.95)
    # 19 positives is enough: the threshold is then the lowest positive
    assert vc.recall_threshold(np.linspace(0.1, 0.9, 19), np.ones(19), target=0.95) == pytest.approx(0.1)
    # without the correction one positive suffices
    assert vc.recall_threshold(s, np.ones(18), target=0.95, correction=False) == pytest.approx(s[0])


def test_recall_threshold_unit_weights_and_integer_weights_equal_repetition():
    rng = np.random.default_rng(1)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(int)
    for corr in (True, False):
        assert vc.recall_threshold(s, y, target=0.9, correction=corr, sample_weight=np.ones(200)) == vc.recall_threshold(s, y, target=0.9, correction=corr)
    w = rng.integers(1, 4, 200)
    rep_s, rep_y = np.repeat(s, w), np.repeat(y, w)
    # without correction weighting by integer counts equals repeating rows
    assert vc.recall_threshold(s, y, target=0.9, correction=False, sample_weight=w) == vc.recall_threshold(rep_s, rep_y, target=0.9, correction=False)


def test_precision_threshold_definition():
    rng = np.random.default_rng(2)
    s = np.round(rng.random(500), 3)
    y = (rng.random(500) < s).astype(int)
    t = vc.precision_threshold(s, y, target=0.8)
    # brute force: smallest observed score whose precision reaches 0.8
    cands = np.unique(s)
    prec = np.array([y[s >= c].mean() for c in cands])
    assert t == cands[np.flatnonzero(prec >= 0.8)[0]]
    with pytest.raises(VeracityError, match="no threshold reaches precision"):
        vc.precision_threshold([0.2, 0.9], [1, 0], target=0.99)


def test_budget_threshold_never_exceeds_budget_and_is_lowest():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(1000), 2)  # many ties
    for k in (7, 50, 200, 999, 1000, 5000):  # (ties at the top exceed k = 1: see the next test)
        t = vc.budget_threshold(s, top_k=k)
        assert np.sum(s >= t) <= k
        lower = np.unique(s)[np.unique(s) < t]
        if lower.size:
            assert np.sum(s >= lower[-1]) > k  # any lower observed threshold would exceed it
    assert vc.budget_threshold(s, fraction=1.0) == s.min()
    t = vc.budget_threshold(s, fraction=0.05)
    assert np.sum(s >= t) <= 50


def test_budget_threshold_ties_at_top_warn():
    with pytest.warns(UserWarning, match="flags nothing"):
        t = vc.budget_threshold([0.9, 0.9, 0.9, 0.1], top_k=2)
    assert t > 0.9


BAD = [
    (lambda: vc.cost_threshold(-1, 9), "cost_fp must be a finite non-negative"),
    (lambda: vc.cost_threshold(1, float("nan")), "cost_fn must be a finite non-negative"),
    (lambda: vc.cost_threshold(0, 0), "both 0"),
    (lambda: vc.recall_threshold([.2, .8], [1, 1], target=1.0), r"target must be in \(0, 1\)"),
    (lambda: vc.recall_threshold([.2, .8], [1, 1], target=0.0), r"target must be in \(0, 1\)"),
    (lambda: vc.recall_threshold([.2, .8], [1, 1], target=-0.5), r"target must be in \(0, 1\)"),
    (lambda: vc.recall_threshold([.2, .8], [0, 0], target=0.5), "needs positive rows"),
    (lambda: vc.recall_threshold([.2, 1.8], [1, 1], target=0.5), r"probabilities in \[0, 1\]"),
    (lambda: vc.recall_threshold([[.2, .8]], [1], target=0.5), "must be 1-D"),
    (lambda: vc.precision_threshold([.2, .8], [1, 0], target=1.2), r"target must be in \(0, 1\)"),
    (lambda: vc.budget_threshold([.2, .8]), "exactly one of top_k"),
    (lambda: vc.budget_threshold([.2, .8], top_k=0), "top_k must be a positive"),
    (lambda: vc.budget_threshold([.2, .8], fraction=1.5), r"fraction must be in \(0, 1\]"),
]


@pytest.mark.parametrize("call, message", BAD)
def test_threshold_bad_input(call, message):
    with pytest.raises(VeracityError, match=message):
        call()


def test_logit_scores_are_accepted_on_their_own_scale():
    s = np.array([-3.0, -1.0, 0.5, 2.0, 4.0])
    y = np.array([0, 1, 1, 1, 1])
    assert vc.recall_threshold(s, y, target=0.5, correction=False, score_type="logit") == 2.0
