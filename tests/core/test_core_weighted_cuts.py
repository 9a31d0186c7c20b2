"""Weighted equal-mass cuts are scale-free: constant weights (any constant, 0.1 included) cut
exactly where no weights cut, on arrays and on a lazy frame. The cumulative weights of 0.1's
miss 5 × 0.1 by an ulp, which moved a cut in about one draw in seven before the rule
compared them up to their rounding (``cumulative_slack``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.core._binning import make_edges, quantile_picks


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 300), bins=st.integers(2, 20), seed=st.integers(0, 2**31 - 1),
       c=st.sampled_from([0.1, 0.3, 1 / 3, 7.0, 1e-3, 2.5e-7, 1e6]))
def test_constant_weights_cut_where_no_weights_cut(n: int, bins: int, seed: int, c: float) -> None:
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 2)  # ties, as scores rounded for display have
    plain = make_edges(p, bins, "quantile", None)
    weighted = make_edges(p, bins, "quantile", np.full(n, c))
    np.testing.assert_array_equal(weighted, plain)


def test_integer_weights_are_repeated_rows() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 60))
        v = np.sort(np.round(rng.uniform(size=n), 1))
        w = rng.integers(1, 4, size=n)
        np.testing.assert_array_equal(quantile_picks(v, 7, weights=w.astype(float)),
                                      quantile_picks(np.repeat(v, w), 7))


def test_constant_weights_audit_equals_unweighted_on_a_lazy_frame() -> None:
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(11)
    n = 72
    p = np.round(rng.uniform(size=n), 2)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    plain = vc.audit(p, y, strategy="quantile", bins=10)
    arrays = vc.audit(p, y, strategy="quantile", bins=10, sample_weight=np.full(n, 0.1))
    con = duckdb.connect()
    rel = con.sql("SELECT * FROM (SELECT unnest($p) AS p, unnest($y) AS y, 0.1::DOUBLE AS w)",
                  params={"p": p.tolist(), "y": y.tolist()})
    lazy = vc.audit(rel, score="p", label="y", sample_weight="w", strategy="quantile", bins=10)
    for r in (arrays, lazy):
        assert [row.count for row in r.table.rows] == [row.count for row in plain.table.rows]
        assert r.ece == pytest.approx(plain.ece, abs=1e-12)
