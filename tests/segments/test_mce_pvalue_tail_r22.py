"""The MCE's p-value past 8 sigma, the count it is taken over, and the notebook summary (round 22).

Before: ``pvalue_from_sigma`` was ``1 - F(x)`` with F the CDF of the range of a Brownian motion on
[0, 1] (MCGrad's ``_ecce_cdf``), which cancels to 0 (or 1.1e-16, not monotone) between ~8 and 20
sigma, and was machine epsilon by convention from 20 on: the demo data printed ``p = <1e-300`` at
10.84 sigma, where the tail is ~1e-25. The oracle here is the same law's CDF series (the docstring's
formula), summed with :mod:`decimal` at 300 digits so that ``1 - F`` keeps its digits, and a
seeded simulation of the range at a moderate sigma.
"""

from __future__ import annotations

import decimal
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.segments._mce import brownian_range_cdf, family_pvalue, pvalue_from_sigma

def _pi(digits: int) -> decimal.Decimal:
    """pi by Machin's formula, 16 arctan(1/5) - 4 arctan(1/239), at the context's precision."""
    def arctan_inv(m: int) -> decimal.Decimal:
        total, power, n, sign = decimal.Decimal(0), decimal.Decimal(1) / m, 1, 1
        while power > decimal.Decimal(10) ** (-digits - 5):
            total += sign * power / n
            power /= m * m
            n, sign = n + 2, -sign
        return total
    return 16 * arctan_inv(5) - 4 * arctan_inv(239)


def _tail_decimal(x: float, digits: int = 300) -> float:
    """1 - F(x), F(x) = sum_{k>=0} (8/x^2 + 2/((k+1/2)^2 pi^2)) exp(-2 (k+1/2)^2 pi^2 / x^2), in decimal."""
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        pi = _pi(digits)
        xx = decimal.Decimal(x) ** 2
        total, k = decimal.Decimal(0), 0
        while True:
            kp2 = (decimal.Decimal(k) + decimal.Decimal("0.5")) ** 2
            term = (8 / xx + 2 / (kp2 * pi**2)) * (-2 * kp2 * pi**2 / xx).exp()
            total += term
            if term < decimal.Decimal(10) ** (-digits + 5):
                break
            k += 1
        return float(1 - total)


@pytest.mark.parametrize("x", [0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 10.84, 15.0, 20.0, 25.0, 30.0])
def test_pvalue_is_the_exact_tail_of_the_brownian_range(x):
    want = _tail_decimal(x)
    assert want > 0
    assert pvalue_from_sigma(np.array([x]))[0] == pytest.approx(want, rel=1e-12, abs=0)


def test_pvalue_agrees_with_a_simulated_range_at_a_moderate_sigma():
    rng = np.random.default_rng(3)
    steps = rng.normal(size=(20_000, 1000)) / np.sqrt(1000)
    paths = np.cumsum(steps, axis=1)
    rng_ = np.maximum(paths.max(axis=1), 0) - np.minimum(paths.min(axis=1), 0)
    for x in (2.0, 2.5, 3.0):
        sim = (rng_ > x).mean()
        # the discrete walk's range is below the continuous one (by ~0.58/sqrt(1000) sd): a loose bound
        assert pvalue_from_sigma(np.array([x]))[0] == pytest.approx(sim, abs=4 * np.sqrt(sim / 20_000) + 0.01)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 60.0), st.floats(0.0, 60.0))
def test_pvalue_is_in_0_1_and_never_rises_with_sigma(a, b):
    lo, hi = sorted((a, b))
    p = pvalue_from_sigma(np.array([lo, hi]))
    assert 0.0 <= p[1] <= p[0] <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.floats(0.1, 5.0))
def test_pvalue_is_one_minus_cdf_where_that_is_accurate(x):
    assert pvalue_from_sigma(np.array([x]))[0] == pytest.approx(1 - brownian_range_cdf(np.array([x]))[0],
                                                                rel=1e-9, abs=1e-15)


def test_pvalue_is_monotone_and_positive_on_a_dense_grid():
    sig = np.linspace(0.0, 37.0, 20_001)
    p = pvalue_from_sigma(sig)
    assert np.all(np.diff(p) <= 0) and p[0] == 1.0 and np.all(p[sig > 0] > 0)
    assert pvalue_from_sigma(np.array([np.inf]))[0] == 0.0
    assert family_pvalue(np.inf, 3) == 0.0


@pytest.fixture(scope="module")
def demo():
    pd = pytest.importorskip("pandas")
    d = pd.DataFrame(vc.load_demo())
    test = d[d["role"] == "test"].copy()
    return vc.segments(test, score="score", label="label", features=["segment", "month"])


def test_the_demo_mce_prints_its_tail_not_a_cancellation_zero(demo):
    assert 8 < demo.mce_sigma < 20
    want = min(1.0, demo.mce_segments * _tail_decimal(demo.mce_sigma))
    # session 25: MCGrad's Bonferroni bound is kept as mce_family_pvalue_mcgrad; the printed p-value is
    # drawn under calibration (valid at any event rate), here at its floor 1/(R + 1)
    assert demo.mce_family_pvalue_mcgrad == pytest.approx(want, rel=1e-12, abs=0)
    line = str(demo).splitlines()[-1] if not demo.notes else str(demo).splitlines()[-1 - len(demo.notes)]
    assert "<1e-300" not in line
    assert f"{demo.mce_p_text()} in {demo.n_resamples} draws" in line


def test_the_count_of_the_mce_family_says_what_it_holds(demo):
    # the head says "27 segments, 27 tested"; the MCE's maximum runs over those with at least
    # min_count rows and over all rows: "over 28 segments" alone left the 28th unsaid
    text = str(demo)
    assert demo.mce_segments == demo.n_tested + 1
    assert re.search(rf"over {demo.mce_segments} segments: all rows and the {demo.n_tested} with n >= "
                     rf"{demo.min_count}\)", text)


def test_a_p_value_below_the_smallest_double_prints_as_a_bound():
    n = 500
    p = np.full(2 * n, 0.1)
    y = np.r_[np.ones(n), np.zeros(n)].astype(int)
    res = vc.segments(p, y, features={"g": np.r_[["a"] * n, ["b"] * n]}, depth=1)
    assert res.mce_sigma > 40 and res.mce_family_pvalue_mcgrad == 0.0  # an underflow: the tail is ~1e-19000
    # the printed (drawn) p-value is a bound at 1/(R + 1), never a cancellation zero (session 25)
    assert res.mce_family_pvalue == pytest.approx(1 / (res.n_resamples + 1))
    assert f"p <= {1 / (res.n_resamples + 1):.2g} in {res.n_resamples} draws" in str(res)


def test_the_html_summary_names_its_numbers(demo):
    html = demo._repr_html_()
    kv = re.search(r'<div class="vc-kv">(.*?)</div>', html).group(1)
    keys = re.findall(r"<b>(.*?)</b>", kv)
    raw = {"mce_sigma", "mce_pvalue", "mce_family_pvalue", "mce_segments", "global_ecce", "n_segments",
           "n_tested", "n_discoveries", "min_count", "cells"}
    assert not raw & set(keys), keys
    assert "grid" not in re.findall(r"</b>(.*?)</span>", kv)  # "cells grid" read as nothing
    assert any("MCE" in k for k in keys)
