"""A K = 2 top-label tie predicts class 1, as a 1-D score p = 0.5 does (round 29).

DESIGN §3: "accuracy at 0.5 counts p >= 0.5 as predicting 1". An (N, 2) row [0.5, 0.5] was read by
numpy's ``argmax`` (the first maximum): class 0. The same data as a 1-D ``p = 0.5`` predicts class 1, so
``vc.accuracy`` gave 0.0 for the two columns and 1.0 for the one column on rows whose labels are all 1.
For K = 2 a tie now goes to class 1 (:math:`\\hat c = [p_1 \\ge p_0]`); for K >= 3 the first maximum stays.

The oracle is the 1-D reading of the same rows (``p >= 0.5`` predicts 1), and hand-counted shares.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import top_label_rows

TIE = [0.5, 0.5]


@pytest.mark.parametrize("label, want", [(1, 1.0), (0, 0.0)])
def test_a_tied_pair_predicts_class_1_as_the_1d_score_does(label, want):
    P = np.array([TIE] * 30)
    y = np.full(30, label)
    assert vc.accuracy(P[:, 1], y) == want  # the 1-D reading: p = 0.5 >= 0.5 predicts 1
    assert vc.accuracy(P, y) == want
    assert vc.audit(P, y, min_count=1).metrics["accuracy"] == want


def test_two_columns_and_one_column_agree_on_mixed_rows():
    rng = np.random.default_rng(29)
    p1 = rng.choice([0.5, 0.25, 0.75, 0.5, 0.125, 0.875], 300)  # half of the rows tied
    P = np.column_stack([1.0 - p1, p1])
    y = rng.integers(0, 2, 300)
    want = float(np.mean((p1 >= 0.5) == (y == 1)))  # counted here: p >= 0.5 predicts 1
    assert vc.accuracy(P, y) == pytest.approx(want, abs=1e-15)
    assert vc.accuracy(p1, y) == pytest.approx(want, abs=1e-15)


def test_tied_logits_predict_class_1():
    z = np.full((40, 2), 1.7)  # logits [z, z]: softmax [0.5, 0.5]; the 1-D logit z1 - z0 = 0 predicts 1
    y = np.r_[np.ones(30, dtype=int), np.zeros(10, dtype=int)]
    assert vc.accuracy(z, y, score_type="logit") == 0.75
    assert vc.accuracy(z[:, 1] - z[:, 0], y, score_type="logit") == 0.75


def test_top_label_reliability_reads_a_tie_as_class_1():
    P = np.array([TIE] * 40 + [[0.1, 0.9]] * 20)
    y = np.r_[np.ones(30, dtype=int), np.zeros(10, dtype=int), np.ones(20, dtype=int)]
    table = vc.reliability(P, y, bins=10, min_count=1)
    tied = [r for r in table.rows if r.lo <= 0.5 < r.hi]
    assert len(tied) == 1 and tied[0].n == 40
    assert tied[0].conf == 0.5 and tied[0].acc == pytest.approx(0.75)  # 30 of 40 labelled 1 (was 0.25)
    audit = vc.audit(P, y, bins=10, min_count=1)
    assert audit.metrics["accuracy"] == pytest.approx(50 / 60)  # 30 tied + 20 sure rows right (was 30/60)


def test_top_label_rows_pin_the_rule():
    P = np.array([TIE, [0.6, 0.4], [0.4, 0.6]])
    conf, correct, _ = top_label_rows(P, np.array([1, 0, 1]))
    np.testing.assert_array_equal(conf, [0.5, 0.6, 0.6])
    np.testing.assert_array_equal(correct, [1.0, 1.0, 1.0])


@pytest.mark.parametrize("row, first", [([0.4, 0.4, 0.2], 0), ([0.2, 0.4, 0.4], 1), ([0.3, 0.3, 0.4], 2),
                                        ([0.25, 0.25, 0.25, 0.25], 0)])
def test_three_or_more_classes_keep_the_first_maximum(row, first):
    k = len(row)
    P = np.array([row] * 10)
    for label in range(k):
        want = 1.0 if label == first else 0.0
        assert vc.accuracy(P, np.full(10, label)) == want, label
