"""core._stats.score_histograms binned every row by floor(p·M), whatever the edges (session 34): edges
[0, 0.2, 0.5, 1] counted the rows of thirds under their labels (safe only while its callers passed
equal-width edges). It now bins by the edges it is given, and refuses edges that do not cut [0, 1]."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._stats import score_histograms


def test_unequal_edges_count_the_rows_between_them():
    p = np.array([0.1, 0.3, 0.45, 0.6, 0.9, 0.2, 0.5, 1.0, 0.0])
    edges = np.array([0.0, 0.2, 0.5, 1.0])
    # e_i <= p < e_{i+1}, the last bin closed: [0.1, 0.0] | [0.3, 0.45, 0.2] | [0.6, 0.9, 0.5, 1.0]
    assert score_histograms(p, None, edges)["(all)"].tolist() == [2.0, 3.0, 4.0]
    w = np.arange(1.0, 10.0)
    want = [w[[0, 8]].sum(), w[[1, 2, 5]].sum(), w[[3, 4, 6, 7]].sum()]
    assert score_histograms(p, None, edges, sample_weight=w)["(all)"].tolist() == want
    keys = np.array(["a", "b"] * 4 + ["a"])
    got = score_histograms(p, keys, edges)
    assert got["a"].tolist() == [2.0, 1.0, 2.0] and got["b"].tolist() == [0.0, 2.0, 2.0]


def test_equal_width_edges_keep_the_audits_rule():
    rng = np.random.default_rng(1)
    p = np.r_[rng.uniform(size=300), np.arange(11) / 10]  # the edges themselves included
    for m in (1, 3, 10, 15):
        edges = np.arange(m + 1) / m
        want = np.bincount(np.minimum((p * m).astype(int), m - 1), minlength=m)
        assert score_histograms(p, None, edges)["(all)"].tolist() == want.tolist()


@pytest.mark.parametrize("edges", [[0.2, 0.5, 1.0], [0.0, 0.5, 0.9], [0.0, 0.5, 0.5, 1.0], [0.0, 0.7, 0.3, 1.0],
                                   [1.0], [[0.0, 1.0]]])
def test_edges_that_do_not_cut_0_1_into_bins_are_refused(edges):
    with pytest.raises(vc.VeracityError, match=r"^histogram edges must rise strictly from 0 to 1, got "):
        score_histograms(np.array([0.1, 0.95]), None, np.asarray(edges))
