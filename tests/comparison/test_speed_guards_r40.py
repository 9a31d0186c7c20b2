"""Session 40 (speed only): guards that the fast paths give the plain paths' numbers bit for bit.

``mover_interval`` asks ``modified_wilson`` once for both shares stacked (it asked twice, once a share): the
interval is element by element, so the numbers are those of two calls; the plain two-call form is pinned here
on shares that reach every branch (a count of 0, few, 10 or more, a share of 1, weighted sizes)."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.comparison._decision_curve import mover_interval
from veracity.core._intervals import modified_wilson


def _plain_mover(c1, c0, total, size, odds, level, size0=None):
    """Session 39's ``mover_interval``: one ``modified_wilson`` call per share."""
    a = np.clip(np.asarray(c1, dtype=float) / total, 0.0, 1.0)
    b = np.clip(np.asarray(c0, dtype=float) / total, 0.0, 1.0)
    trials_a = np.broadcast_to(np.asarray(size, dtype=float), a.shape)
    trials_b = trials_a if size0 is None else np.broadcast_to(np.asarray(size0, dtype=float), b.shape)
    la, ua = modified_wilson(a, trials_a, level, exact_end=True)
    lb, ub = modified_wilson(b, trials_b, level, exact_end=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(a * b / ((1.0 - a) * (1.0 - b)))
    r = np.where(np.isfinite(r), np.minimum(r, 1.0), 1.0)
    below_a, above_a = a - np.minimum(la, a), np.maximum(ua, a) - a
    below_b, above_b = b - np.minimum(lb, b), np.maximum(ub, b) - b
    nb = a - odds * b
    down = np.sqrt(below_a ** 2 + (odds * above_b) ** 2 + 2.0 * r * below_a * odds * above_b)
    up = np.sqrt(above_a ** 2 + (odds * below_b) ** 2 + 2.0 * r * above_a * odds * below_b)
    return nb - down, nb + up


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_mover_interval_is_the_two_call_interval_bit_for_bit(weighted, level):
    rng = np.random.default_rng(40 + weighted)
    for n in (5, 40, 300, 5000):
        t = np.sort(rng.random(30))
        t[:3] = [0.0, 0.5, 0.99]
        odds = t / (1.0 - t)
        c1 = np.floor(rng.random(30) * n * rng.random()).astype(float)
        c0 = np.floor(rng.random(30) * (n - c1)).astype(float)
        c1[:4], c0[:4] = [0.0, n, 3.0, 12.0], [0.0, 0.0, n - 3.0, 1.0]  # none, all, few, 10 or more
        total = float(n)
        size = float(n) if not weighted else n * rng.uniform(0.3, 1.0, 30)
        size0 = None if not weighted else n * rng.uniform(0.3, 1.0, 30)
        fast = mover_interval(c1, c0, total, size, odds, level, size0)
        plain = _plain_mover(c1, c0, total, size, odds, level, size0)
        for f, p in zip(fast, plain):
            assert f.tobytes() == p.tobytes()
