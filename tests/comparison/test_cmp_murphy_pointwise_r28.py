"""A Murphy diagram of two equally good models said "b is better (the 95% pointwise band excludes 0) at theta
in [0.025, 0.025]" and no more (session 28): each band holds at its own threshold, so across 199 thresholds
some exclude 0 by chance alone. The printout now says so under any such line."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _equal(seed: int, n: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two models of the same quality: the truth plus independent noise of one size."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-0.85 + x))))
    a, b = (1 / (1 + np.exp(-(-0.85 + x + 0.5 * rng.normal(size=n)))) for _ in range(2))
    return a, b, y


def test_equally_good_models_get_lone_thresholds_and_the_printout_says_why():
    lone = 0
    for seed in range(20):
        a, b, y = _equal(seed)
        m = vc.murphy_diagram({"a": a, "b": b}, y)
        ranges = m.difference.ranges(m.theta)
        found = any(ranges.values())
        lone += found
        text = str(m)
        assert ("by chance alone, even for two equally good models" in text) == found, text
    # the simulation: equally good models show a "better" threshold in many draws (pointwise bands)
    assert lone >= 5, lone


def test_no_caveat_where_no_threshold_is_called():
    a, _, y = _equal(1)
    text = str(vc.murphy_diagram({"a": a, "b": a}, y))
    assert "is better at no threshold" in text and "by chance alone" not in text
