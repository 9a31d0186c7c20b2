"""With a handful of labels both classes can be rare: the note must not place the rate near 0 or 1.

Before: 1 positive and 1 negative label (a rate of 0.5) read "only 1 of the 2 labels is positive: near a
rate of 0 ..."."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.delayed._ppi_result import RARE_CLASS, rare_class_note


def test_one_of_each_class_names_both_counts():
    note = rare_class_note(2, 0.5)
    assert "near a rate of" not in note
    assert "1 positive and 1 negative of the 2 labels" in note


def test_the_note_names_the_counts_the_labels_hold():
    for pos, neg in [(1, 2), (2, 1), (2, 2), (1, 1)]:
        n = pos + neg
        note = rare_class_note(n, pos / n)
        assert min(pos, neg) < RARE_CLASS and max(pos, neg) < RARE_CLASS
        assert f"{pos} positive and {neg} negative of the {n} labels" in note, note


def test_one_rare_class_among_many_labels_keeps_the_edge_it_is_near():
    assert "only 0 of the 2 labels are positive: near a rate of 0" in rare_class_note(2, 0.0)  # one class only
    assert "near a rate of 0" in rare_class_note(100, 0.01)
    assert "near a rate of 1" in rare_class_note(100, 0.99)
    assert rare_class_note(100, 0.5) is None


def test_ppi_mean_on_two_labels_prints_both_counts():
    rng = np.random.default_rng(0)
    r = vc.ppi_mean(np.array([1, 0]), np.array([0.6, 0.4]), rng.uniform(size=200))
    assert "near a rate of 0" not in str(r)
    assert "1 positive and 1 negative" in str(r)
