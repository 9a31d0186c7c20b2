"""Speed-only guard (session 39): Blaker's acceptability now computes each element's opposite tail on its
smaller side only (half the ``binom.ppf`` calls); it is round 34's computation bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from veracity.monitoring import _blaker


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b)))


def _plain_acceptability(k, n, c):
    """Blaker's a(c) as round 34 computed it: scipy.stats.binom, both opposite tails on every element."""
    k, n, c = np.broadcast_arrays(np.asarray(k, float), np.asarray(n, float), np.asarray(c, float))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        up = binom.sf(k - 1.0, n, c)
        lo = binom.cdf(k, n, c)
        below, above = np.zeros_like(up), np.zeros_like(lo)
        j0 = np.nan_to_num(binom.ppf(np.minimum(up, 1.0), n, c), nan=-1.0)
        i0 = np.nan_to_num(binom.ppf(np.minimum(lo, 1.0), n, 1.0 - c), nan=-1.0)
        for d in (-1.0, 0.0, 1.0):
            j = j0 + d
            tail = binom.cdf(j, n, c)
            ok = (j >= 0) & (j < k) & (tail <= up * (1.0 + 1e-7))
            below = np.where(ok & (tail > below), tail, below)
            i = i0 + d
            tail = binom.cdf(i, n, 1.0 - c)
            ok = (i >= 0) & (i < n - k) & (tail <= lo * (1.0 + 1e-7))
            above = np.where(ok & (tail > above), tail, above)
    a = np.where(up <= lo, up + below, lo + above)
    return np.minimum(np.nan_to_num(a, nan=1.0), 1.0)


def test_acceptability_and_interval_are_the_plain_computations_bit_for_bit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    n = np.concatenate([np.arange(1.0, 41.0), rng.integers(41, 3000, 60).astype(float)])
    k = np.round(rng.uniform(0, 1, n.size) ** 3 * n)
    k[:5], k[5:10] = 0.0, n[5:10]  # no positives, all positive
    grid = rng.uniform(0, 1, (n.size, 16))
    grid[:, 0], grid[:, 1], grid[:3, 2] = 0.0, 1.0, np.nan
    grid[:, 3] = k / n  # the centre: both tails hold P(X = k)
    kk, nn = k[:, None], n[:, None]
    assert _same(_blaker.acceptability(kk, nn, grid), _plain_acceptability(kk, nn, grid))
    fast = (*_blaker.blaker_interval(k, n, 0.95), *_blaker.blaker_interval(k, n, 0.99))
    monkeypatch.setattr(_blaker, "acceptability", _plain_acceptability)
    plain = (*_blaker.blaker_interval(k, n, 0.95), *_blaker.blaker_interval(k, n, 0.99))
    for got, want in zip(fast, plain):
        assert _same(got, want)
