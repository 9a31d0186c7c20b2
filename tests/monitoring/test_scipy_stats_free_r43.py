"""Speed-only guards (session 43): Blaker's interval (``veracity monitor scan``, ``vc.monitor`` on even
counts) reads scipy's Boost ufuncs instead of loading ``scipy.stats`` (~0.65 s of CPU a process); the
doubles are ``scipy.stats``'s, edges included."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.stats import binom

from veracity.monitoring import _blaker


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b)))


def _binom_args(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, n, c) over small and large n, whole and half k, off-support k, bad n and c, tiny rates."""
    size = 20_000
    n = np.concatenate([rng.integers(0, 50, size), rng.integers(0, 5000, size)]).astype(float)
    k = np.concatenate([rng.integers(-3, 60, size) + rng.choice([0.0, 0.5], size),
                        rng.integers(-1, 5001, size).astype(float)])
    c = rng.uniform(-0.05, 1.05, k.size)
    c[::7], c[::11], c[::13] = 0.0, 1.0, np.nan
    c[5::17] = rng.uniform(0.0, 1e-6, c[5::17].size)
    edges_k = [np.inf, 1, 1, 1, np.nan, -np.inf, np.inf, 2, 0, -1, 3, 0]
    edges_n = [np.inf, 2.5, -1, np.nan, 3, 3, 3, 3, 0, 0, 3, 1]
    edges_c = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 0.0]
    return (np.concatenate([k, edges_k]), np.concatenate([n, edges_n]), np.concatenate([c, edges_c]))


def test_the_binomial_tails_are_scipy_stats_doubles() -> None:
    rng = np.random.default_rng(43)
    k, n, c = _binom_args(rng)
    tails = _blaker._binom()
    assert isinstance(tails, _blaker._BinomTails)
    assert _same(tails.cdf(k, n, c), binom.cdf(k, n, c))
    assert _same(tails.sf(k - 1.0, n, c), binom.sf(k - 1.0, n, c))
    q = rng.uniform(0.0, 1.0, k.size)
    q[::5], q[::9], q[::19], q[::23] = 0.0, 1.0, 1.2, np.nan
    q[3::29] = rng.uniform(0.0, 1e-12, q[3::29].size)
    with np.errstate(invalid="ignore"):
        want = binom.ppf(q, n, c)
    assert _same(tails.ppf(q, n, c), want)


def test_blaker_runs_without_scipy_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``scipy.stats`` unimportable the interval is still the plain computation's (the old code
    imported it: ImportError)."""
    k = np.array([0.0, 1.0, 2.0, 5.0, 40.0, 100.0])
    n = np.array([10.0, 10.0, 100.0, 20.0, 40.0, 1000.0])
    with monkeypatch.context() as plain:  # scipy.stats.binom itself
        plain.setattr(_blaker, "_binom", lambda: binom)
        want_interval = _blaker.blaker_interval(k, n, 0.95)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    got_interval = _blaker.blaker_interval(k, n, 0.95)
    assert all(_same(g, w) for g, w in zip(got_interval, want_interval))
