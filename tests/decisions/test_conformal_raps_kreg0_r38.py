"""Deterministic RAPS with k_reg=0 charges lam to the top class too, so a row whose top probability plus lam
passes q̂ gets an empty set, as deterministic APS gives the surest rows one. The warning compared the top
probability alone with q̂ and said nothing: 72 of 2,000 sets empty (3.6 %), silently, where k_reg=1 on the
same model warns about its own 72."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _confident(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(4000, 10))
    z[np.arange(4000), rng.integers(0, 10, 4000)] += 6.5
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return P, np.minimum((rng.uniform(size=(4000, 1)) > P.cumsum(axis=1)).sum(axis=1), 9)


def test_k_reg_0_empty_sets_are_said():
    P, y = _confident()
    cp = vc.ConformalClassifier(alpha=0.05, score="raps", k_reg=0, lam=0.01).fit(P[:2000], y[:2000])
    with pytest.warns(UserWarning, match=r"^72 empty prediction sets, 72 of them for confident rows .*plus lam = "
                                         r"0\.01 \(k_reg=0 charges the top class too\)") as caught:
        report = cp.coverage(P[2000:], y[2000:])
    assert len(caught) == 1
    assert report.empty_rate == pytest.approx(72 / 2000)
    with pytest.warns(UserWarning, match="empty prediction sets"):
        sets = cp.predict_sets(P[2000:])
    assert int((~sets.any(axis=1)).sum()) == 72

