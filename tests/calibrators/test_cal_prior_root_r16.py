"""estimate_prior: the binary prior is EM's fixed point found directly (session 16).

Where the classes overlap EM's rate tends to 1: on 20,000 scores of a weak model (true prior 0.1)
10,000 EM iterations stopped at 0.0268 ("NOT converged", but no warning) while the
maximum-likelihood prior is 0.02410 (11 % off), and at a slightly stronger model EM said
"converged" 7.8e-9 away from it with tol=1e-10.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

import veracity as vc


def _weak_model(d: float, seed: int = 1, n: int = 20_000):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(int)
    x = rng.normal(y * d, 1.0)
    lr = np.exp(d * x - d * d / 2.0)
    return lr / (1.0 + lr)  # posterior under a 0.5 prior


def _mle(p: np.ndarray, old: float, w: np.ndarray | None = None) -> float:
    a, b = p / old, (1.0 - p) / (1.0 - old)
    w = np.ones(p.size) if w is None else w
    slope = lambda pi: np.dot(w, (a - b) / (pi * a + (1.0 - pi) * b))  # noqa: E731  L'(pi), decreasing
    lo, hi = 1e-12, 1.0 - 1e-12
    if slope(lo) <= 0.0:
        return lo
    if slope(hi) >= 0.0:
        return hi
    return brentq(slope, lo, hi, xtol=1e-16, rtol=1e-15)


@pytest.mark.parametrize("d", [0.02, 0.1, 0.3, 1.0])
def test_binary_prior_is_the_maximum_likelihood_root(d):
    p = _weak_model(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = vc.estimate_prior(p, 0.5)
    assert est.converged
    assert est.prior == pytest.approx(_mle(p, 0.5), rel=1e-12, abs=1e-15)
    # EM's fixed point: the mean adjusted probability is the prior itself
    assert np.mean(vc.adjust_prior(p, 0.5, est.prior)) == pytest.approx(est.prior, rel=1e-9)


def test_integer_weights_are_repeated_rows():
    p = _weak_model(0.5, n=3000)
    w = np.random.default_rng(2).integers(0, 4, p.size)
    a = vc.estimate_prior(p, 0.3, sample_weight=w).prior
    b = vc.estimate_prior(np.repeat(p, w), 0.3).prior
    assert a == pytest.approx(b, rel=1e-12)
    assert a == pytest.approx(_mle(p, 0.3, w.astype(float)), rel=1e-12)


def test_boundary_priors_stay_at_the_clip():
    assert vc.estimate_prior(np.zeros(50), 0.5).prior == 1e-12
    assert vc.estimate_prior(np.r_[np.zeros(50), np.ones(150)], 0.5).prior == pytest.approx(0.75, abs=1e-12)


def test_unconverged_estimate_warns():
    rng = np.random.default_rng(3)
    P = rng.dirichlet([1.0, 1.0, 1.0], 500)
    with pytest.warns(UserWarning, match="did not converge in 2 iterations"):
        est = vc.estimate_prior(P, [0.2, 0.3, 0.5], max_iter=2)
    assert not est.converged
    with pytest.warns(UserWarning, match="did not converge in 1 iterations"):
        vc.estimate_prior(_weak_model(0.1), 0.5, max_iter=1)
