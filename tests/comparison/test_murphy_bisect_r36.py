"""The Murphy band's p-value bisects on z for every threshold at once; for a few thresholds several levels
of the bisection are tested in one pass (``_murphy._bisect``): the path and the numbers are those of one
halving per pass."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.comparison._murphy import _bisect


def _halvings(out, lo, hi, steps):
    for _ in range(steps):
        z = (lo + hi) / 2.0
        up = out(z)
        lo, hi = np.where(up, z, lo), np.where(up, hi, z)
    return lo, hi


@pytest.mark.parametrize("size", [(), (1,), (3,), (40,), (7, 9), (3_000,)])
def test_the_walk_is_the_bisection_even_where_the_test_is_not_monotone(size):
    rng = np.random.default_rng(len(size) * 100 + int(np.prod(size)))
    root = rng.uniform(0.0, 40.0, size)
    noise = rng.integers(1, 1 << 20, size)

    def flips(z):  # a root, but with islands: a test that is not monotone in z must be walked, not searched
        return (z < root) ^ (np.floor(z * noise * 7.0) % 5 == 0)

    want = _halvings(flips, np.zeros(size), np.full(size, 40.0), 40)
    got = _bisect(flips, np.zeros(size), np.full(size, 40.0), 40)  # points stacked on a first axis
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.array_equal(g, w)


def test_the_band_p_value_inverts_the_band_at_few_thresholds():
    rng = np.random.default_rng(2)
    n = 400
    x = rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-x))).astype(int)
    a, b = 1 / (1 + np.exp(-x)), 1 / (1 + np.exp(-0.4 * x))
    d = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.3, 0.7]).difference
    for k in range(2):  # at level 1 - p the band's end on 0's side meets 0
        theta = [[0.3, 0.7][k]]
        band = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta, level=1 - d.p_value[k]).difference
        assert (band.ci_low[0] if d.diff[k] > 0 else band.ci_high[0]) == pytest.approx(0.0, abs=1e-9)
