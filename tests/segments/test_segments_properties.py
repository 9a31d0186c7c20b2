"""Identities of vc.segments (hypothesis): row order, constant weights, margins, q-value order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.segments._tests import bh_qvalues


def _data(seed, n):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.02, 0.98, n), 3)
    y = (rng.uniform(size=n) < p).astype(int)
    feats = {"a": rng.choice(["x", "y", "z"], n), "b": rng.integers(0, 40, n).astype(float)}
    return p, y, feats


def _rows(res):
    return {r.segment: r for r in res.rows}


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(300, 1_500), st.floats(0.25, 8.0))
def test_row_order_and_constant_weights_change_nothing(seed, n, c):
    p, y, feats = _data(seed, n)
    base = vc.segments(p, y, features=feats, min_count=20)
    perm = np.random.default_rng(seed + 1).permutation(n)
    shuffled = vc.segments(p[perm], y[perm], features={k: v[perm] for k, v in feats.items()}, min_count=20)
    weighted = vc.segments(p, y, features=feats, min_count=20, sample_weight=np.full(n, c))
    a = _rows(base)
    for other in (shuffled, weighted):
        b = _rows(other)
        assert a.keys() == b.keys()
        for k, r in a.items():
            s = b[k]
            assert abs(r.gap - s.gap) < 1e-12 and abs(r.ecce - s.ecce) < 1e-12
            assert r.test == s.test  # equal weights keep the exact small-segment test: S = c·Σy
            if r.p_value is not None:
                assert abs(r.p_value - s.p_value) < 1e-9
    assert abs(base.mce - shuffled.mce) < 1e-12 and abs(base.mce - weighted.mce) < 1e-12


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000))
def test_single_feature_segments_partition_the_rows(seed):
    p, y, feats = _data(seed, 2_000)
    res = vc.segments(p, y, features=feats, min_count=20)
    for f in feats:
        parts = [r for r in res.rows if r.depth == 1 and f in r.features]
        assert sum(r.n for r in parts) == res.n
        assert abs(sum(r.weight * r.rate for r in parts) - y.sum()) < 1e-9
        assert abs(sum(r.weight * r.conf for r in parts) - p.sum()) < 1e-9


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=60))
def test_bh_qvalues_are_monotone_and_bounded(ps):
    p = np.array(ps)
    q = bh_qvalues(p)
    order = np.argsort(p, kind="stable")
    assert (np.diff(q[order]) >= -1e-15).all()
    assert (q >= p - 1e-15).all() and (q <= 1).all()
    assert (bh_qvalues(p, by=True) >= q - 1e-15).all()
