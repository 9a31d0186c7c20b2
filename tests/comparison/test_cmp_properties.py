"""Identities of the comparison (hypothesis): the fast argsort sorts, swapping the models
negates every difference, reordering the rows changes nothing, CORP's identity holds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import veracity as vc
from veracity.comparison._delong import argsort

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(1, 300), elements=finite), st.integers(0, 2**32 - 1))
def test_packed_argsort_sorts_any_float64_values(values, seed):
    y = (np.random.default_rng(seed).random(values.size) < 0.5).astype(float)
    order, ss, ys = argsort(values, y)
    assert np.array_equal(np.sort(order), np.arange(values.size))
    assert np.array_equal(ss, np.sort(values)) and np.array_equal(values[order], ss)
    assert np.array_equal(ys, y[order])


def test_packed_argsort_on_values_that_share_their_high_bits():
    rng = np.random.default_rng(0)
    s = np.r_[0.5 + rng.random(50_000) * 1e-9, rng.random(50_000), np.round(rng.random(50_000), 2),
              np.full(20_000, 0.5), 0.5 + rng.random(2_000) * 1e-14, -0.5 - rng.random(2_000) * 1e-14,
              np.full(2_000, -0.5)]
    rng.shuffle(s)
    order, ss = argsort(s)
    assert np.array_equal(ss, np.sort(s)) and np.array_equal(s[order], ss)


def _problem(seed, n):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    a = np.round(1 / (1 + np.exp(-(0.8 * z + rng.normal(size=n)))), int(rng.integers(1, 4)))
    b = 1 / (1 + np.exp(-(1.2 * z + 0.5 * rng.normal(size=n))))
    w = rng.random(n) + 0.1 if seed % 2 else None
    return a, b, y, w


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 300))
def test_swapping_the_models_negates_every_difference(seed, n):
    a, b, y, w = _problem(seed, n)
    if y.min() == y.max():
        return
    ab = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, random_state=seed, n_resamples=40)
    ba = vc.compare_models({"b": b, "a": a}, y, sample_weight=w, random_state=seed, n_resamples=40)
    for r1, r2 in zip(ab.rows, ba.rows):
        assert r1.metric == r2.metric
        assert r1.diff == pytest.approx(-r2.diff, abs=1e-12)
        # n/a on both sides alike where a class has too few rows for the interval (round 21)
        assert (r1.ci_low, r1.ci_high) == pytest.approx((-r2.ci_high, -r2.ci_low), abs=1e-9, nan_ok=True)
        assert r1.p_value == pytest.approx(r2.p_value, abs=1e-9, nan_ok=True)
    d1, d2 = ab.corp_differences[0], ba.corp_differences[0]
    assert (d1.mcb, d1.dsc) == pytest.approx((-d2.mcb, -d2.dsc), abs=1e-12)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 300))
def test_reordering_the_rows_changes_no_closed_form_number(seed, n):
    a, b, y, w = _problem(seed, n)
    if y.min() == y.max():
        return
    perm = np.random.default_rng(seed + 1).permutation(n)
    r1 = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0)
    r2 = vc.compare_models({"a": a[perm], "b": b[perm]}, y[perm], sample_weight=None if w is None else w[perm],
                           n_resamples=0)
    for x1, x2 in zip(r1.rows, r2.rows):
        assert (x1.value_a, x1.value_b, x1.diff, x1.se) == pytest.approx((x2.value_a, x2.value_b, x2.diff, x2.se),
                                                                        rel=1e-9, abs=1e-13, nan_ok=True)
    for name in ("a", "b"):
        c = r1.corp[name].brier
        assert c.mcb - c.dsc + c.unc == pytest.approx(c.score, abs=1e-13)
        assert c.mcb >= -1e-13 and c.dsc >= -1e-13


@settings(max_examples=300, deadline=None)
@given(st.integers(39, 1200), st.floats(-4.0, 4.0), st.sampled_from([0.8, 0.9, 0.95]), st.integers(0, 2**32 - 1))
def test_bootstrap_interval_excludes_zero_exactly_when_its_p_value_is_at_most_alpha(b, shift, level, seed):
    # the interval took interpolated quantiles and the p-value the (B+1) convention: at 200 resamples
    # a 95% interval could exclude 0 with p = 0.06 (helper 37's reproducer); both now read (B+1)
    from veracity.comparison._resample import percentile

    if (b + 1) * (1 - level) < 2:  # fewer resamples than the level needs: no agreement is promised
        return
    d = np.random.default_rng(seed).normal(shift / np.sqrt(b), 1.0, b).round(2)  # rounded: ties and zeros
    low, high, p = percentile(0.1, d, level)
    assert (low > 0 or high < 0) == (p <= 1 - level + 1e-12)
    assert low <= high


def test_bootstrap_interval_and_p_value_agree_at_the_border():
    from veracity.comparison._resample import percentile

    d = np.r_[np.full(5, -0.001), np.linspace(1.0, 2.0, 195)]  # 200 resamples, 5 of them below 0
    low, high, p = percentile(1.5, d, 0.95)
    assert p == pytest.approx(2 * 6 / 201)  # 0.0597 > 0.05 ...
    assert low == -0.001 and high > 0  # ... so the interval holds 0 (it was [0.975, 1.97])
