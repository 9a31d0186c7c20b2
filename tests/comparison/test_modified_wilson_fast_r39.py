"""Round 39, speed-only guard: ``modified_wilson`` computes Garwood's bound and the exact binomial ends only
where an element reads them; the numbers are the plain formula's (copied here as it was) bit for bit, and
its errors the same."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.core._intervals import FEW_COUNTS, binomial_interval, modified_wilson, poisson_low
from veracity.core._special import betaincinv
from veracity.core._validation import VeracityError


def _plain_modified_wilson(p, n_star, level, exact_end=False):
    """modified_wilson as it was (round 38)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    n_star = np.asarray(n_star, dtype=np.float64)
    low, high = binomial_interval(p * n_star, n_star, method="wilson", level=level)
    x, x_ = p * n_star, (1.0 - p) * n_star
    with np.errstate(divide="ignore", invalid="ignore"):
        few = FEW_COUNTS - 1e-9
        if exact_end:
            tail = (1.0 - level) / 2.0
            many, many_ = (x >= few) & (x <= x_), (x_ >= few) & (x_ <= x)
            exact_low = betaincinv(np.where(many, x, 1.0), np.where(many, x_ + 1.0, 1.0), tail)
            exact_high = betaincinv(np.where(many_, x + 1.0, 1.0), np.where(many_, x_, 1.0), 1.0 - tail)
            low = np.where(many, np.fmin(low, exact_low), low)
            high = np.where(many_, np.fmax(high, exact_high), high)
        low = np.where(x < few, np.minimum(low, poisson_low(x, level) / n_star), low)
        high = np.where(x_ < few, np.maximum(high, 1.0 - poisson_low(x_, level) / n_star), high)
    low = np.where(p <= 0.0, 0.0, np.clip(np.minimum(low, p), 0.0, 1.0))
    high = np.where(p >= 1.0, 1.0, np.clip(np.maximum(high, p), 0.0, 1.0))
    return low, high


@pytest.mark.parametrize("exact_end", [False, True])
def test_modified_wilson_is_the_plain_formula_bit_for_bit(exact_end):
    rng = np.random.default_rng(3)
    n = np.concatenate([[0.0, 0.0, 1.0, 5.0, 1e6, 1e200], rng.lognormal(4.0, 2.0, 300)])
    p = np.concatenate([[0.0, 0.5, 1.0, 0.3, 0.0, 1e-199], rng.uniform(size=300) ** 3])
    p[6::7] = 1.0 - p[6::7]
    for level in (0.8, 0.95, 0.99):
        fast = modified_wilson(p, n, level, exact_end=exact_end)
        assert all(np.array_equal(f, s, equal_nan=True)
                   for f, s in zip(fast, _plain_modified_wilson(p, n, level, exact_end)))
        for i in range(0, n.size, 23):  # one share at a time (the scalar calls), and one few count only
            for args in ((p[i], n[i]), (np.array([p[i], 0.5]), np.array([n[i], 1e4]))):
                got = modified_wilson(*args, level, exact_end=exact_end)
                want = _plain_modified_wilson(*args, level, exact_end)
                assert all(np.array_equal(f, s, equal_nan=True) for f, s in zip(got, want))


@pytest.mark.parametrize("p, n", [(np.nan, 10.0), (0.5, -1.0), (0.5, np.inf), (0.5, np.nan)])
def test_modified_wilson_refuses_what_binomial_interval_refuses(p, n):
    with pytest.raises(VeracityError) as fast:
        modified_wilson(p, n, 0.95)
    with pytest.raises(VeracityError) as plain:
        _plain_modified_wilson(p, n, 0.95)
    assert str(fast.value) == str(plain.value)
    with pytest.raises(VeracityError, match="level"):
        modified_wilson(0.5, 10.0, 1.5)
