"""Round 29 follow-ups of the K = 2 tie rule and the rounded-rows refusal in the calibrators:
- a fitted calibrator's transform of probability rows rounded to 3 decimals said "this TemperatureScaling was
  fit on probabilities ... (for logits, fit a calibrator with score_type='logit')", advice that does not fix
  rounded rows; it now gives the audit's words (renormalise);
- vc.adjust_prior's refusal of rounded rows now says they look rounded;
- the ledger's "argmax identical" certificate read a K = 2 tie as class 0 where the audit reads class 1."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture
def rounded_rows():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(10), 200)
    y = rng.integers(0, 10, 200)
    return P, np.round(P, 3), y


def test_transform_of_rounded_rows_says_renormalise(rounded_rows, error_line):
    P, rounded, y = rounded_rows
    cal = vc.TemperatureScaling().fit(P, y)
    line = error_line(lambda: cal.transform(rounded))
    assert "The rows look rounded to 3 decimals" in line and "p / p.sum(axis=1, keepdims=True)" in line
    assert "score_type='logit'" not in line
    other = error_line(lambda: cal.transform(P * 1.1))  # not rounded: the fitted map's own advice stays
    assert "was fit on probabilities and reads only those" in other


def test_adjust_prior_of_rounded_rows_says_they_look_rounded(rounded_rows, error_line):
    _, rounded, _ = rounded_rows
    line = error_line(lambda: vc.adjust_prior(rounded, np.full(10, 0.1), np.full(10, 0.1)))
    assert line.startswith("p: multiclass probability rows must sum to 1;")
    assert "The rows look rounded to 3 decimals" in line


def test_the_ledger_reads_a_two_class_tie_as_the_audit_does():
    """Vector scaling fit where class 1 is under-predicted moves a tie [0.5, 0.5] to about [0.4, 0.6]:
    class 1 before (the audit's rule) and after, so the decisions held; the old certificate read the tie
    as class 0 and said "argmax BROKEN"."""
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, 2000)
    y = (rng.uniform(size=2000) < np.clip(p + 0.1, 0, 1)).astype(int)
    cal = vc.VectorScaling().fit(np.c_[1 - p, p], y)
    m = rng.uniform(size=400)
    q = np.where(m < 0.3, 0.03, np.where(m < 0.6, 0.97, 0.5))  # sure rows, and ties
    Q = np.c_[1 - q, q]
    moved = cal.transform(Q[q == 0.5][:1])[0]
    assert moved[1] > moved[0]  # the tie now plainly class 1
    certificates = vc.compare(Q, (rng.uniform(size=400) < q).astype(int), cal).certificates
    assert certificates["argmax_identical"] is True and certificates["order"] == "argmax held"
