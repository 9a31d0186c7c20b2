"""Round 33: ``recall_threshold`` promises that equal weights give the unweighted rule bit for bit, but ran
them through the weighted rule, whose tolerance is relative to the total weight (1e-9 of it: a thousandth of a
rank at a million positives). At n = 1,000,000 and target 0.9500000005 the plain rule takes k =
ceil(950,000.0005) = 950,001; weights of 2 took k = 950,000, a threshold whose calib recall, 0.95, is below
the target (and ``veracity threshold`` printed k = 950,001 beside it). Equal positive weights now take the
plain rule; so do ``conformal_quantile``'s equal weights beside rows of weight 0 (they took the weighted rule)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("correction", [False, True])
def test_equal_weights_give_the_plain_rank_at_a_million_positives(correction):
    n = 1_000_000
    s = np.arange(n) / n
    y = np.ones(n)
    target = 0.9500000005
    plain = vc.recall_threshold(s, y, target=target, correction=correction)
    k = vc.decisions.recall_rank(n, target, correction)
    assert plain == s[n - k]
    weighted = vc.recall_threshold(s, y, target=target, correction=correction, sample_weight=np.full(n, 2.0))
    assert weighted == plain
    assert np.mean(s >= weighted) >= target  # on the rows it was fit on, the threshold reaches the target


def test_negatives_weights_do_not_matter_and_uneven_positive_weights_keep_the_weighted_rule():
    rng = np.random.default_rng(0)
    s = rng.random(400)
    y = (rng.random(400) < 0.5).astype(int)
    w = np.where(y == 1, 3.0, rng.uniform(0.5, 2.0, 400))  # equal on the positives only
    assert vc.recall_threshold(s, y, target=0.9, sample_weight=w) == vc.recall_threshold(s, y, target=0.9)
    w[np.flatnonzero(y == 1)[0]] = 30.0
    desc, k = vc.decisions._thresholds.weighted_recall_rank(s[y == 1], w[y == 1], 0.9)
    assert vc.recall_threshold(s, y, target=0.9, sample_weight=w) == desc[k - 1]


def test_conformal_quantile_equal_weights_beside_dropped_rows_give_the_plain_rank():
    # a row of weight 0 is a dropped row; the others equal: the plain rank k = ceil((n+1)(1-alpha)) of the
    # n = 1,000,000 kept rows, 950,002 here (the weighted rule's tolerance took 950,001)
    from veracity.decisions import conformal_quantile

    n = 1_000_000
    s = np.arange(n + 1) / n
    w = np.r_[np.full(n, 2.0), 0.0]
    alpha = 1.0 - 950_001.0005 / (n + 1)
    k = vc.decisions._conformal.conformal_rank(n, alpha)
    assert k == 950_002
    assert conformal_quantile(s[:n], alpha) == s[k - 1]
    assert conformal_quantile(s, alpha, w) == s[k - 1]


def test_too_few_rows_of_positive_weight_says_so(error_line):
    from veracity.decisions import conformal_quantile

    text = error_line(lambda: conformal_quantile(np.arange(20.0), 0.1, np.r_[np.zeros(12), np.ones(8)]))
    assert "need at least 9 calib rows of positive weight" in text and "got n = 8" in text


def test_equal_weights_beside_positives_of_weight_zero_give_the_plain_rank():
    n = 1_000_000
    s = np.arange(n + 1) / n
    y = np.ones(n + 1)
    w = np.r_[np.full(n, 2.0), 0.0]  # the last positive is a dropped row
    target = 0.9500000005
    k = vc.decisions.recall_rank(n, target, False)
    assert vc.recall_threshold(s, y, target=target, correction=False, sample_weight=w) == s[n - k]
    assert vc.decisions._thresholds.weighted_recall_rank(s, w, target, False)[1] == k
