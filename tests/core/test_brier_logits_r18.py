"""Round 18: the Brier score of confident logits is the definition, σ(−s)², not 0.

Before: a logit's residual was ``p − y`` of the rounded logistic p = σ(s): a positive at s > 37 has
p = 1.0 exactly, so its squared error e^{−2s} read 0, and the Brier score of a sharp, correct model
given as logits read 0 (or kept only rounding noise, 1e-33 relative error 1). Now a positive's
residual is −σ(−s) itself, on every route.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc


def confident_logits(n: int = 400, seed: int = 0, weighted: bool = False):
    """Correct logits of magnitude 30..60 (σ(−|s|) from 9.4e-14 down to 8.8e-27): a sharp, right model."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.int64)
    t = rng.uniform(30.0, 60.0, n)
    s = np.where(y == 1, t, -t)
    w = 10.0 ** rng.uniform(-3, 3, n) if weighted else None
    return s, y, w


def definition(s, y, w=None) -> float:
    """Σ w σ(−|s|)² / Σ w for correct logits: σ(−t) = e^{−t} / (1 + e^{−t}), t = |s| > 0 (a few ulps)."""
    w = np.ones(s.size) if w is None else w
    assert np.all(np.where(y == 1, s > 0, s < 0))
    miss = [math.exp(-abs(v)) / (1.0 + math.exp(-abs(v))) for v in s]
    return math.fsum(wi * m * m for wi, m in zip(w, miss)) / math.fsum(w)


@pytest.mark.parametrize("weighted", [False, True])
def test_brier_of_confident_logits_is_the_definition(weighted):
    s, y, w = confident_logits(weighted=weighted)
    want = definition(s, y, w)
    assert vc.brier(s, y, score_type="logit", sample_weight=w) == pytest.approx(want, rel=1e-12, abs=0)
    result = vc.audit(s, y, score_type="logit", sample_weight=w)
    assert result.brier == pytest.approx(want, rel=1e-12, abs=0)
    d = vc.brier_decomposition(s, y, score_type="logit", sample_weight=w)
    assert d.brier == pytest.approx(want, rel=1e-12, abs=0)


def test_only_confident_logits_give_a_positive_brier_score():
    """Every row at |s| >= 40: p rounds to 0 or 1 exactly, and still the score is e^{-2|s|}, not 0."""
    s = np.array([40.0, 45.0, -50.0, -41.0])
    y = np.array([1, 1, 0, 0])
    want = definition(s, y)
    assert want > 0
    assert vc.brier(s, y, score_type="logit") == pytest.approx(want, rel=1e-12, abs=0)
    assert vc.audit(s, y, score_type="logit").brier == pytest.approx(want, rel=1e-12, abs=0)


def test_probabilities_of_the_same_rows_are_unchanged():
    """The probability form's residual is p − y as before (the rounded p is the user's number)."""
    s, y, _ = confident_logits()
    p = 1.0 / (1.0 + np.exp(-s))
    assert vc.brier(p, y) == pytest.approx(float(np.mean((p - y) ** 2)), rel=1e-12, abs=1e-300)
