"""estimate_prior on (N, K) scores: the maximum-likelihood prior, found as the binary one is.

EM crawls where the classes overlap: on 2,000 rows of 3 classes whose scores carry little signal, 10,000 EM
steps stopped short ("did not converge": a prior at 0.853 where the likelihood's maximum puts 0.877, another
at 0.012 for 0); with a little more signal EM took 6,272 steps. The multiclass prior is now Newton's
method on the simplex, checked here against scipy's SLSQP and the KKT conditions of the maximum.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import softmax

import veracity as vc


def _scores(signal: float, n: int = 2000, seed: int = 0):
    rng = np.random.default_rng(seed)
    old = np.array([0.5, 0.3, 0.2])
    y = rng.choice(3, n, p=[0.2, 0.3, 0.5])
    z = rng.normal(0.0, 1.0, (n, 3))
    z[np.arange(n), y] += signal
    return softmax(np.log(old) + signal * z, axis=1), old


def _loglik(P, old, w, pi):
    return float(w @ np.log((P / old) @ pi)) / float(w.sum())


def _slsqp(P, old, w):
    A, wt = P / old, w / w.sum()
    res = minimize(lambda pi: -wt @ np.log(A @ pi), old, jac=lambda pi: -(wt @ (A / (A @ pi)[:, None])),
                   method="SLSQP", bounds=[(1e-12, 1.0)] * old.size,
                   constraints=[{"type": "eq", "fun": lambda pi: pi.sum() - 1.0}],
                   options={"ftol": 1e-16, "maxiter": 1000})
    return res.x


@pytest.mark.parametrize("signal", [0.03, 0.01, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_estimate_is_the_maximum_likelihood_prior(signal, weighted):
    P, old = _scores(signal)
    w = np.random.default_rng(1).exponential(size=P.shape[0]) if weighted else np.ones(P.shape[0])
    est = vc.estimate_prior(P, old, sample_weight=w if weighted else None)  # no "did not converge" warning
    assert est.converged and est.iterations < 50
    assert est.prior.sum() == pytest.approx(1.0, abs=1e-15) and est.prior.min() >= 1e-12
    ref = _slsqp(P, old, w)
    assert _loglik(P, old, w, est.prior) >= _loglik(P, old, w, ref) - 1e-13
    np.testing.assert_allclose(est.prior, ref, atol=1e-6)
    # KKT: the gradient is 1 for every class above the floor, at most 1 for a class held at it
    g = (w / w.sum()) @ ((P / old) / ((P / old) @ est.prior)[:, None])
    inside = est.prior > 1e-9
    np.testing.assert_allclose(g[inside], 1.0, atol=1e-9)
    assert np.all(g[~inside] <= 1.0 + 1e-9)


def test_weak_signal_reaches_the_boundary():
    P, old = _scores(0.03, seed=2)  # one class held at the floor, two inside
    est = vc.estimate_prior(P, old)
    assert est.prior[1] == pytest.approx(1e-12, rel=1e-6)
    assert est.prior[0] == pytest.approx(0.8237356, abs=1e-6)


def test_integer_weights_are_repeated_rows_and_two_columns_are_the_binary_prior():
    P, old = _scores(0.5, n=300)
    w = np.random.default_rng(2).integers(1, 4, P.shape[0])
    a = vc.estimate_prior(P, old, sample_weight=w.astype(float)).prior
    b = vc.estimate_prior(np.repeat(P, w, axis=0), old).prior
    np.testing.assert_allclose(a, b, atol=1e-12)
    p = P[:, 1] / (P[:, 0] + P[:, 1])
    two = vc.estimate_prior(np.column_stack([1.0 - p, p]), [0.6, 0.4]).prior
    assert two[1] == pytest.approx(vc.estimate_prior(p, 0.4).prior, abs=1e-10)
