"""Vector scaling's penalty shrinks towards temperature scaling, so the fit does not depend on the
logits' scale (towards v = 1 it did: logits 30 times too small fit with NLL 0.958 instead of 0.777)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 3000, k: int = 4):
    rng = np.random.default_rng(0)
    z = rng.normal(0, 2, (n, k))
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)  # one draw per row from its softmax
    return z, y


def _nll(cal: vc.VectorScaling, z: np.ndarray, y: np.ndarray) -> float:
    q = cal.transform(z)
    return float(-np.mean(np.log(q[np.arange(y.size), y])))


@pytest.mark.parametrize("scale", [0.03, 0.3, 3.0, 30.0])
def test_fit_does_not_depend_on_the_logits_scale(scale):
    z, y = _data()
    natural = _nll(vc.VectorScaling(score_type="logit").fit(z, y), z, y)
    unpenalised = _nll(vc.VectorScaling(score_type="logit", reg_lambda=0.0, reg_mu=0.0).fit(z * scale, y),
                       z * scale, y)
    scaled = _nll(vc.VectorScaling(score_type="logit").fit(z * scale, y), z * scale, y)
    assert scaled == pytest.approx(natural, abs=1e-3)
    assert scaled == pytest.approx(unpenalised, abs=1e-3)


def test_centre_is_the_fitted_inverse_temperature():
    from scipy.optimize import minimize_scalar

    z, y = _data()
    cal = vc.VectorScaling(score_type="logit").fit(z * 0.1, y)

    def nll(t: float) -> float:
        a = t * z * 0.1
        a = a - a.max(axis=1, keepdims=True)
        return float(-np.mean(a[np.arange(y.size), y] - np.log(np.exp(a).sum(axis=1))))

    best = minimize_scalar(nll, bounds=(0.1, 100.0), method="bounded", options={"xatol": 1e-10}).x
    assert cal._centre == pytest.approx(best, rel=1e-6)
