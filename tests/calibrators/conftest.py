"""Shared data of the calibrator tests."""

from __future__ import annotations

import numpy as np


def informative_logits(n: int = 600, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(z, y)``: ``n`` rows of ``k`` normal logits whose true class is raised by 1.5 (an informative
    model), the data of the extreme-scale tests of temperature, vector and matrix scaling."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    return z, y
