"""The threshold-count kernel's two array routes (locate each row among the thresholds, or sort the
rows once and locate the thresholds among them) give the same integer counts; the choice between
them (``SORT_ABOVE``) is only about speed."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from veracity.sources import _thresholds as k


def _located(values, u):
    return np.bincount(np.searchsorted(u, values, side="right"), minlength=u.size + 1)


@given(values=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1), max_size=60),
       thresholds=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]) | st.floats(0, 1), min_size=1, max_size=12))
def test_both_routes_count_the_same(values, thresholds):
    v = np.asarray(values, dtype=np.float64)
    u = k.thresholds_grid(np.asarray(thresholds, dtype=np.float64))
    got = k.array_gap_sums(v, None, u)
    assert np.array_equal(got, _located(v, u))  # whichever route the kernel took
    assert got.sum() == v.size


def test_unweighted_counts_at_or_above_equal_the_definition_on_both_sides_of_the_switch():
    rng = np.random.default_rng(3)
    v = np.round(rng.random(5000), 2)  # ties on the thresholds
    for n_thr in (1, k.SORT_ABOVE, k.SORT_ABOVE + 1, 300):
        t = np.round(rng.random(n_thr), 2)
        u = k.thresholds_grid(t)
        got = k.at_or_above(k.array_gap_sums(v, None, u), t, u)
        assert np.array_equal(got, (v[None, :] >= t[:, None]).sum(axis=1).astype(float)), n_thr
