"""Round 28: a calib set too small for alpha (the "+1" correction), as a 10-class user meets it.

* the refusal said "need at least 9 (k = ceil((n+1)(1-alpha)) <= n)" and not why: with fewer rows the
  conformal quantile is +inf (the test row's own score may be the largest of the n + 1), every class in
  every set;
* the weighted rule asked for "9 equally weighted calib rows", yet it needs 9 rows of positive weight
  whatever their weights (round 30: and, for uneven weights, an effective number of 9);
* a Mondrian fit with several classes short of rows named the first one only, so the user fixed class 0
  and met class 3, then class 7.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc
from veracity.decisions import conformal_quantile


def test_the_refusal_says_why_fewer_rows_cannot_give_a_finite_qhat(error_line):
    text = error_line(lambda: conformal_quantile(np.linspace(0, 1, 5), 0.1))
    assert "need at least 9" in text and "got n = 5" in text
    assert "+1 counts the test row" in text and "q̂ is +inf, every class in every set" in text
    law = error_line(lambda: vc.conformal_coverage_law(5, 0.1))
    assert "q̂ is +inf" in law and "coverage 1" in law


def test_the_weighted_rule_needs_rows_of_positive_weight_not_equal_weights(error_line):
    s = np.linspace(0.1, 0.9, 9)
    lopsided = np.array([1000.0] + [1.0] * 8)
    # round 30: the rule counts the test row at the size-biased mean weight sum w^2 / sum w, and 9 rows this
    # uneven (Kish's effective number 1.02) cannot meet it (the old mean-weight rule answered 0.9 here)
    assert "effective number (Kish, (sum w)^2 / sum w^2) of at least 9 calib rows, got 1.02 of n = 9" in \
        error_line(lambda: conformal_quantile(s, 0.1, lopsided))
    mild = np.r_[3.0, np.ones(29)]  # 30 rows, effective number 32² / 38 = 26.9
    s30 = np.linspace(0.1, 0.9, 30)
    q = conformal_quantile(s30, 0.1, mild)
    # the rule: the smallest score whose cumulative weight reaches (1 - alpha)(W + sum w^2 / sum w)
    order = np.argsort(s30)
    cum = np.cumsum(mild[order])
    need = 0.9 * (cum[-1] + (mild ** 2).sum() / cum[-1])
    assert q == s30[order][np.argmax(cum >= need - 1e-9 * cum[-1])]
    text = error_line(lambda: conformal_quantile(s[:8], 0.1, lopsided[:8]))
    assert "equally weighted" not in text
    assert "needs at least 9 calib rows of positive weight, whatever their weights" in text
    assert "q̂ is +inf" in text


def test_mondrian_names_every_class_short_of_rows(error_line):
    rng = np.random.default_rng(0)
    counts = [6, 30, 30, 3, 30, 30, 30, 2, 30, 30]  # classes 0, 3 and 7 have fewer than 9
    y = np.repeat(np.arange(10), counts)
    z = rng.normal(size=(y.size, 10))
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    text = error_line(lambda: vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y))
    assert "class 0 has 6 calib rows, each class needs at least 9" in text
    assert ". 2 more classes have too few: 3 (3 rows), 7 (2 rows). The +1 counts the test row" in text
    assert not re.search(r"\b1 \(30 rows\)", text)  # classes with enough rows are not named
    with pytest.raises(vc.VeracityError, match="at least 9"):
        vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y)
