"""Platt scaling with a few scores far beyond the rest (session 16).

Two decision values of ±1e10 … ±1e308 on the right side of the boundary add softplus(−|a x|) = 0 to
the loss at the optimum, so the maximum-likelihood (a, b) is that of the other rows. Before: the
columns were scaled by their standard deviation (the far rows' alone), the ordinary rows shrank to
~1e-10 and Newton stopped at a ~ 5e-4 (1e10) or 3e-307 (1e308) with "did not converge": every
calibrated probability was the base rate 0.518.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

import veracity as vc


def _data(seed: int = 3, n: int = 500):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)
    return z, y


def _nll(theta: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    u = theta[0] * x + theta[1]
    return float(np.sum(np.logaddexp(0.0, u) - y * u))


def _oracle(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # scipy's BFGS on the ordinary rows alone (order-one scores: well scaled)
    res = minimize(_nll, np.zeros(2), args=(x, y), method="BFGS", options={"gtol": 1e-10})
    return res.x


@pytest.mark.parametrize("big", [1e10, 1e100, 1e308])
def test_far_scores_on_the_right_side_do_not_move_the_fit(big):
    z, y = _data()
    ref = _oracle(z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged, slope positive: no warning
        pl = vc.PlattScaling(score_type="logit").fit(np.r_[z, big, -big], np.r_[y, 1, 0])
    np.testing.assert_allclose([pl.a_, pl.b_], ref, rtol=1e-6, atol=1e-8)
    assert pl.converged_


def test_a_far_score_on_the_wrong_side_still_counts():
    # one row at 1e10 labelled 0: the maximum-likelihood slope is ~ -1.7e-9 (scikit-learn's
    # LogisticRegression(C=inf) on x / 1e10 gives the same); the loss must not exceed the oracle's
    from sklearn.linear_model import LogisticRegression

    z, y = _data()
    x, t = np.r_[z, 1e10], np.r_[y, 0]
    m = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x[:, None] / 1e10, t)
    sk = np.array([m.coef_[0, 0] / 1e10, m.intercept_[0]])
    with pytest.warns(UserWarning, match="negative slope"):
        pl = vc.PlattScaling(score_type="logit").fit(x, t)
    assert _nll(np.array([pl.a_, pl.b_]), x, t) <= _nll(sk, x, t) + 1e-9
    assert pl.a_ == pytest.approx(sk[0], rel=1e-3)


def test_heavy_tailed_scores_match_scikit_learn():
    # Cauchy decision values: far rows everywhere, both fits run, the answer is the MLE
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    x = rng.standard_cauchy(20_000)
    y = (rng.random(x.size) < 1.0 / (1.0 + np.exp(-0.7 * np.clip(x, -50, 50) + 0.2))).astype(int)
    c = np.abs(x).max()
    m = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x[:, None] / c, y)
    pl = vc.PlattScaling(score_type="logit").fit(x, y)
    np.testing.assert_allclose([pl.a_, pl.b_], [m.coef_[0, 0] / c, m.intercept_[0]], rtol=1e-6)


@pytest.mark.parametrize("big", [1e10, 1e308])
def test_far_scores_in_a_large_fit(big):
    # above 4 * 65,536 rows the fit starts from a subsample's: the far rows must not stop it there
    from sklearn.linear_model import LogisticRegression

    z, y = _data(seed=6, n=270_000)
    m = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(z[:, None], y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl = vc.PlattScaling(score_type="logit").fit(np.r_[z, big, -big], np.r_[y, 1, 0])
    np.testing.assert_allclose([pl.a_, pl.b_], [m.coef_[0, 0], m.intercept_[0]], rtol=1e-6, atol=1e-8)
