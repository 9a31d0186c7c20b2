"""Helpers shared by the decisions tests (``from .conftest import role_rows_csv``, as tests/comparison shares
its own)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def role_rows_csv(tmp_path, weights: np.ndarray, seed: int) -> str:
    """A CSV of ``weights.size`` rows ``p, y, w, role``: the first half ``calib`` rows, all positive, the rest
    ``test`` rows positive with probability 0.3; scores spread evenly over [0.02, 0.98]."""
    n = weights.size
    rng = np.random.default_rng(seed)
    p = np.linspace(0.02, 0.98, n)
    y = np.r_[np.ones(n // 2), (rng.random(n - n // 2) < 0.3)].astype(int)  # calib rows: all positive
    role = np.where(np.arange(n) < n // 2, "calib", "test")
    path = tmp_path / "rows.csv"
    pd.DataFrame({"p": p, "y": y, "w": weights, "role": role}).to_csv(path, index=False)
    return str(path)


#: a three-class law whose class 2 is rare and hard (its true class stands out little): the weighted-conformal
#: simulations weigh that class up (tests/decisions/test_conformal_*_r35/_r38)
HARD_PRIOR = np.array([0.6, 0.35, 0.05])
HARD_SHIFT = np.array([2.0, 2.0, 0.3])


def hard_class_draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of (class probabilities, labels) from that law: a label from HARD_PRIOR, normal logits with
    the true class's shifted up by HARD_SHIFT, probabilities the posterior under the prior."""
    y = rng.choice(3, n, p=HARD_PRIOR)
    z = rng.normal(0.0, 1.0, (n, 3))
    z[np.arange(n), y] += HARD_SHIFT[y]
    p = np.exp(z) * HARD_PRIOR
    return p / p.sum(axis=1, keepdims=True), y


def kept_positives(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` positive scores of a uniform population, each kept with probability 0.02 + 0.98 s (a sample whose
    inverse-probability weights depend on the score: the weighted recall rule's hard case)."""
    s = np.empty(0)
    while s.size < n:
        c = rng.random(4 * n)
        s = np.r_[s, c[rng.random(c.size) < 0.02 + 0.98 * c]]
    return s[:n]
