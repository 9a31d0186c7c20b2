"""Round 37 (speed-only guards): two fast paths that replace vectorised calls must give their numbers.

* the realised cost's share interval (:func:`veracity.comparison._cost._share_interval`) takes Wilson's
  interval and Clopper-Pearson's end of one count in Python floats instead of two ``binomial_interval``
  calls (120 µs each on a 0-d array): pinned bit for bit to those calls;
* the Murphy band's p-value bisection evaluates only the band's end on 0's side, from Wilson's bounds with
  their z-free parts computed once (:class:`veracity.comparison._murphy._Cells`): pinned bit for bit to the
  band of :func:`veracity.core._intervals.wilson_bounds` as round 32 wrote it.
"""

from __future__ import annotations

import numpy as np
import pytest

from veracity.comparison._cost import EXACT_END_BELOW, _share_interval
from veracity.comparison._murphy import _bisect, pseudo_band
from veracity.comparison._paired import z_of
from veracity.core._intervals import binomial_interval, wilson_bounds
from veracity.core._special import ndtr


def _plain_share_interval(share: float, size: float, level: float) -> tuple[float, float]:
    """Round 34's share interval, from ``binomial_interval`` calls."""
    x = min(max(share, 0.0), 1.0) * size
    k, m = np.array(x), np.array(size)
    lo, hi = (float(v) for v in binomial_interval(k, m, method="wilson", level=level))
    low_side = x <= size - x
    few = EXACT_END_BELOW - 1e-9
    if (x < few and low_side) or (size - x < few and not low_side):
        cp_lo, cp_hi = (float(v) for v in binomial_interval(k, m, method="clopper-pearson", level=level))
        lo, hi = (min(lo, cp_lo), hi) if low_side else (lo, max(hi, cp_hi))
    return lo, hi


def test_share_interval_is_the_binomial_interval_calls_bit_for_bit():
    rng = np.random.default_rng(37)
    sizes = [*rng.uniform(0.05, 5.0, 40), *rng.uniform(5.0, 60.0, 40), *rng.uniform(60.0, 1e5, 40),
             1.0, 2.0, 20.0, 1e9, 1e149, 1e151, 1e200, 1e-300]
    count = 0
    for size in sizes:
        shares = [*rng.random(4), *(rng.random(3) * 25.0 / size), *(1.0 - rng.random(3) * 25.0 / size),
                  0.0, 1.0, 0.5, -0.1, 1.1]
        for share in shares:
            for level in (0.95, 0.9, 0.99, 0.5):
                fast, plain = _share_interval(share, size, level), _plain_share_interval(share, size, level)
                assert np.array(fast).tobytes() == np.array(plain).tobytes(), (share, size, level, plain)
                count += 1
    assert count == len(sizes) * 15 * 4



def test_share_interval_of_no_rows_and_of_a_size_that_is_no_count_as_binomial_interval():
    from veracity import VeracityError

    for call in (_share_interval, _plain_share_interval):  # no rows: NaN ends
        assert np.isnan(call(0.3, 0.0, 0.95)).all()
    for size in (-1.0, np.inf, np.nan):
        for call in (_share_interval, _plain_share_interval):
            with pytest.raises(VeracityError, match="trials must be finite counts"):
                call(0.3, size, 0.95)

def _plain_band(mean, shares, sizes, theta, level):
    """Round 32's band and p-value: each cell's Wilson reach from ``wilson_bounds``, both ends a step."""
    cost = 1.0 - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = [np.sqrt(s / (1.0 - s)) for s in shares]
    o1, o2, o3, o4 = (np.where(np.isfinite(o), o, 0.0) for o in odds)
    r12, r34, r14, r23, r13, r24 = o1 * o2, o3 * o4, o1 * o4, o2 * o3, o1 * o3, o2 * o4

    def wilson_reach(share, size, z):
        low, high = wilson_bounds(share * size, size, z)
        return share - np.clip(low, 0.0, share), np.clip(high, share, 1.0) - share

    def reach(e1, e2, e3, e4):
        q = (e1 * e1 + e2 * e2 + e3 * e3 + e4 * e4
             + 2.0 * (r12 * e1 * e2 + r34 * e3 * e4 + r14 * e1 * e4 + r23 * e2 * e3
                      - r13 * e1 * e3 - r24 * e2 * e4))
        return np.sqrt(np.maximum(q, 0.0))

    def band(z):
        (b1, a1), (b2, a2), (b3, a3), (b4, a4) = (wilson_reach(s, m, z) for s, m in zip(shares, sizes))
        return (mean - reach(theta * b1, theta * a2, cost * b3, cost * a4),
                mean + reach(theta * a1, theta * b2, cost * a3, cost * b4))

    low, high = band(z_of(level))
    above = mean > 0

    def out(z):
        down, up = band(z)
        return np.where(above, down > 0.0, up < 0.0)

    lo, hi = _bisect(out, np.zeros_like(mean), np.full_like(mean, 40.0), 40)
    return low, high, np.where(mean == 0, 1.0, 2.0 * ndtr(-(lo + hi) / 2.0))


@pytest.mark.parametrize("shape", [(9,), (3,), (199,), (50, 9), (1,)])
def test_murphy_band_and_p_value_are_round_32s_bit_for_bit(shape):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    for case in range(6):
        theta = np.sort(rng.random(shape[-1]))
        raw = rng.random((5, *shape)) ** rng.integers(1, 6)
        raw[:, rng.random(shape) < 0.2] = 0.0
        shares = tuple(raw[i] / raw.sum(0).clip(1e-300) * rng.random() for i in range(4))
        if case == 0:  # one cell holds every row: the others' correlations 0
            shares = (np.ones(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape))
        sizes = tuple(rng.integers(1, 3000) * rng.uniform(0.5, 1.5, shape) for _ in range(4))
        mean = theta * (shares[0] - shares[1]) + (1.0 - theta) * (shares[2] - shares[3])
        level = (0.95, 0.9, 0.99)[case % 3]
        fast = pseudo_band(mean, shares, sizes, theta, level)
        plain = _plain_band(mean, shares, sizes, theta, level)
        for f, p in zip(fast, plain):
            assert f.tobytes() == p.tobytes()
