"""Round 40: the printouts of one row, one curve point, one candidate said "1 rows", "1 curve points",
"1 candidates", "1 calib rows" (the threshold table was fixed in round 38; its siblings kept the plural)."""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc


def test_risk_coverage_of_one_row_says_1_row_and_1_curve_point():
    rc = vc.risk_coverage([0.7], [1])
    assert "(1 row, 1 curve point)   AURC 0.0000" in str(rc)
    assert rc._title() == "Risk–coverage curve: 1 row, 1 curve point, AURC 0.0000"
    assert "(2 rows, 2 curve points)" in str(vc.risk_coverage([0.7, 0.8], [1, 0]))


def test_selective_threshold_counts_take_their_number():
    one = vc.selective_threshold([0.9] * 5, [1] * 5, target_risk=0.5, candidates=[0.9], reading="confidence")
    assert "(bonferroni over 1 candidate, 1 certified)" in str(one)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        none = vc.selective_threshold([0.9], [1], target_risk=0.01)
    assert "(1 calib row, 141 candidates); abstain on everything" in str(none)
    assert "with 1 calib row; abstaining" in str(caught[0].message)


def test_coverage_report_of_one_row_says_1_row():
    P = np.array([[0.7, 0.2, 0.1]] * 10)
    y = np.zeros(10, dtype=int)
    report = vc.ConformalClassifier(alpha=0.1).fit(P, y).coverage(P[:1], y[:1])
    assert "(target >= 0.9, 1 row)" in str(report)
    assert report._title() == "Conformal prediction sets: coverage 1.0000 on 1 row (target >= 0.9)"
    two = vc.ConformalClassifier(alpha=0.1).fit(P, y).coverage(P[:2], y[:2])
    assert "(target >= 0.9, 2 rows)" in str(two)
