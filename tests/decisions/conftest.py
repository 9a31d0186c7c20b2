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
