"""Platt and beta calibration (and their one-vs-rest form) where a tenth of the logits lie at 1e160-1e300
among logits of order 1: the fit equals the minimiser of the weighted log-loss (an independent L-BFGS fit on
the well-scaled equivalent x / s, s a power of two at the far rows' size), and emits no numpy
RuntimeWarning. Before, the damped Newton's trial points overflowed (a x of 1e300 times a slope above 1)
and numpy printed "overflow encountered in multiply" / "invalid value encountered in subtract" (raised as
errors under ``-W error``, as this suite runs); the line search then rejected those points, so the fitted
numbers were already right."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

import veracity as vc


def _data(scale: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    s = rng.normal(size=600) + 1.2 * (2 * y - 1)
    s[np.random.default_rng(1).random(600) < 0.1] *= scale
    return s, y


def _loss(cols: list[np.ndarray], theta: np.ndarray, y: np.ndarray) -> float:
    """mean softplus(-y± z), z = Σ θ_j x_j + c, each product exact or ±inf (logaddexp takes inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = theta[-1] + sum(t * c for t, c in zip(theta[:-1], cols))
        return float(np.mean(np.logaddexp(0.0, -(2 * y - 1) * z)))


def _reference(cols: list[np.ndarray], y: np.ndarray, bounds: list | None = None) -> float:
    s = 2.0 ** np.frexp(max(float(np.abs(c).max()) for c in cols))[1]
    X = [c / s for c in cols]
    sign = 2 * y - 1

    def f(t: np.ndarray) -> tuple[float, np.ndarray]:
        z = t[-1] + sum(a * c for a, c in zip(t[:-1], X))
        r = -sign * expit(-sign * z) / y.size
        return (float(np.mean(np.logaddexp(0.0, -sign * z))),
                np.array([float(r @ c) for c in X] + [float(r.sum())]))

    best = np.inf
    for t0 in (np.r_[np.ones(len(X)), 0.0], np.zeros(len(X) + 1)):
        r = minimize(f, t0, jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000})
        best = min(best, _loss(cols, np.r_[r.x[:-1] / s, r.x[-1]], y))
    return best


@pytest.mark.parametrize("scale", [1e160, 1e300, -1e300])
def test_platt(scale):
    s, y = _data(scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = vc.PlattScaling(score_type="logit", on_reversed="allow").fit(s, y)
    assert _loss([s], np.array([cal.a_, cal.b_]), y) == pytest.approx(_reference([s], y), rel=1e-9)


@pytest.mark.parametrize("scale", [1e160, 1e300])
def test_beta(scale):
    s, y = _data(scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = vc.BetaCalibration(score_type="logit").fit(s, y)
    f1, f2 = -np.logaddexp(0.0, -s), np.logaddexp(0.0, s)
    ref = _reference([f1, f2], y, bounds=[(0, None), (0, None), (None, None)])
    assert _loss([f1, f2], np.array([cal.a_, cal.b_, cal.c_]), y) == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("method", ["platt", "beta"])
def test_one_vs_rest(method):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    z = rng.normal(size=(600, 3))
    z[np.arange(600), y] += 1.5
    z[np.random.default_rng(1).random(600) < 0.1] *= 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = vc.OneVsRest(method=method, score_type="logit").fit(z, y)
        p = cal.transform(z)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
