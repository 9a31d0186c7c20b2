"""Identities and invariances of the audit core (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import veracity as vc

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def binary_problem(draw, min_size=2, max_size=200):
    n = draw(st.integers(min_size, max_size))
    # a small grid of values makes ties and bin-edge values (0, .3, .7, 1) common
    grid = draw(st.booleans())
    if grid:
        p = draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0])))
    else:
        p = draw(arrays(np.float64, n, elements=st.floats(0, 1, allow_nan=False)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    return p, y


@SETTINGS
@given(binary_problem(), st.integers(1, 30), st.sampled_from(["uniform", "quantile"]))
def test_ece_in_unit_interval(problem, bins, strategy):
    p, y = problem
    for norm in ("l1", "l2", "max"):
        value = vc.ece(p, y, bins=bins, strategy=strategy, norm=norm)
        assert 0.0 <= value <= 1.0


@SETTINGS
@given(binary_problem(min_size=4), st.integers(1, 20), st.data())
def test_merged_halves_equal_whole(problem, bins, data):
    p, y = problem
    cut = data.draw(st.integers(1, p.size - 1))
    w = data.draw(arrays(np.float64, p.size, elements=st.floats(0.01, 5)))
    edges = np.linspace(0, 1, bins + 1)
    whole = vc.BinStats.from_arrays(p, y, edges=edges, sample_weight=w)
    a = vc.BinStats.from_arrays(p[:cut], y[:cut], edges=edges, sample_weight=w[:cut])
    b = vc.BinStats.from_arrays(p[cut:], y[cut:], edges=edges, sample_weight=w[cut:])
    merged = a + b
    np.testing.assert_array_equal(merged.count, whole.count)
    for name in ("weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll"):
        np.testing.assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(binary_problem(), st.integers(1, 25), st.sampled_from(["uniform", "quantile"]), st.booleans())
def test_brier_identity_exact(problem, bins, strategy, weighted):
    p, y = problem
    w = np.linspace(0.5, 2.0, p.size) if weighted else None
    d = vc.brier_decomposition(p, y, bins=bins, strategy=strategy, sample_weight=w)
    within = d.within_variance - 2 * d.within_covariance
    assert abs(d.brier - (d.reliability + d.refinement + within)) < 1e-12
    assert abs(d.brier - (d.reliability - d.resolution + d.uncertainty + within)) < 1e-12
    assert abs(d.brier - vc.brier(p, y, sample_weight=w)) < 1e-12


@SETTINGS
@given(
    arrays(np.int64, st.integers(2, 150), elements=st.integers(-50, 50)),
    st.data(),
)
def test_auc_invariant_under_increasing_transform(scores, data):
    y = data.draw(arrays(np.int64, scores.size, elements=st.integers(0, 1)))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    s = scores.astype(np.float64)
    base = vc.auc(s, y, score_type="logit")
    for transformed in (s**3 + 2 * s + 7, np.exp(s / 10), 4.0 * s - 3):
        assert vc.auc(transformed, y, score_type="logit") == base
    # and the probability reading of the same logits ranks identically
    assert vc.auc(1 / (1 + np.exp(-s / 20)), y) == base


@SETTINGS
@given(binary_problem(min_size=2, max_size=300), st.integers(2, 20))
def test_equal_mass_bins_never_split_equal_scores(problem, bins):
    p, y = problem
    table = vc.reliability(p, y, bins=bins, strategy="quantile")
    edges = table.stats.edges
    idx = np.searchsorted(edges[1:-1], p, side="right")
    for value in np.unique(p):
        assert np.unique(idx[p == value]).size == 1
    assert sum(r.count for r in table.rows) == p.size


@SETTINGS
@given(binary_problem(min_size=2, max_size=80), st.data())
def test_integer_weights_equal_repeated_rows(problem, data):
    p, y = problem
    w = data.draw(arrays(np.int64, p.size, elements=st.integers(1, 4)))
    rp, ry = np.repeat(p, w), np.repeat(y, w)
    for strategy in ("uniform", "quantile"):
        a = vc.reliability(p, y, bins=7, strategy=strategy, sample_weight=w)
        b = vc.reliability(rp, ry, bins=7, strategy=strategy)
        np.testing.assert_array_equal(a.stats.edges, b.stats.edges)
        np.testing.assert_allclose(a.stats.weight, b.stats.weight)
        np.testing.assert_allclose(a.stats.sum_p, b.stats.sum_p, atol=1e-12)
        assert abs(a.ece - b.ece) < 1e-12
    assert abs(vc.brier(p, y, sample_weight=w) - vc.brier(rp, ry)) < 1e-12
    assert abs(vc.nll(p, y, sample_weight=w) - vc.nll(rp, ry)) < 1e-12
    assert abs(vc.accuracy(p, y, sample_weight=w) - vc.accuracy(rp, ry)) < 1e-12
    if 0 < y.sum() < y.size:
        assert abs(vc.auc(p, y, sample_weight=w) - vc.auc(rp, ry)) < 1e-12


@SETTINGS
@given(binary_problem(min_size=2, max_size=100))
def test_statistics_round_trip_through_dict(problem):
    p, y = problem
    stats = vc.BinStats.from_arrays(p, y, edges=np.linspace(0, 1, 11))
    again = vc.BinStats.from_dict(stats.to_dict())
    for name in ("edges", "count", "weight", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll"):
        np.testing.assert_array_equal(getattr(again, name), getattr(stats, name))
