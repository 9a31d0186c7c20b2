"""Shared data of the comparison-figure tests (round 28)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest


def _two_models(rate: float, n: int = 100_000, seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Labels at base rate ``rate`` and two models of them: ``good`` (the true probabilities of a logistic
    model, slope 1.5) and ``weak`` (slope 0.8 plus noise), the intercept found by bisection."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    lo, hi = -20.0, 5.0  # the intercept giving a mean score of `rate` (bisection)
    for _ in range(60):
        c = (lo + hi) / 2
        lo, hi = (c, hi) if (1 / (1 + np.exp(-(c + 1.5 * x)))).mean() < rate else (lo, c)
    p = 1 / (1 + np.exp(-(c + 1.5 * x)))
    y = (rng.random(n) < p).astype(int)
    weak = 1 / (1 + np.exp(-(c + 0.8 * x + 0.6 * rng.normal(size=n))))
    return {"good": p, "weak": weak}, y


@pytest.fixture(scope="session")
def two_models() -> Callable[..., Any]:
    """The builder :func:`_two_models` (called with the rate, the rows and a seed)."""
    return _two_models
