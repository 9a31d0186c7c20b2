"""Temperature scaling with a few logits that dwarf the rest (session 16).

Rows whose logit is ±1e10 … ±1e308 *with the matching label* add softplus(−|s|/τ) = 0 to the NLL
at every τ of interest, so the maximum-likelihood τ is that of the other rows. Before: Newton ran on
s / max|s|, which shrank the ordinary logits to 1e-10 (subnormal at 1e308) and put their β beyond
its range, and f'(β) = Σ w s σ(βs) − Σ w s y cancelled to exactly 0 once the big rows entered both
sums: τ = 1 with a false "separated" warning at 1e10, and τ = 2.7e306 (every output 0.5) with no
warning at all at 1e100 … 1e308.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import veracity as vc


def _data(seed: int = 3, n: int = 500):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z / 1.3))).astype(np.int64)
    return z, y


def _oracle_tau(z: np.ndarray, y: np.ndarray) -> float:
    # the NLL of the ordinary rows alone, minimised by scipy over log tau
    m = (2.0 * y - 1.0) * z
    res = minimize_scalar(lambda lt: np.logaddexp(0.0, -m / np.exp(lt)).sum(), bounds=(-5.0, 5.0),
                          method="bounded", options={"xatol": 1e-12})
    return float(np.exp(res.x))


@pytest.mark.parametrize("big", [1e10, 1e100, 1e200, 1e308])
def test_correctly_labelled_huge_logits_do_not_move_tau(big):
    z, y = _data()
    ref = _oracle_tau(z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "separated" warning: the rows are not separated
        ts = vc.TemperatureScaling(score_type="logit").fit(np.r_[z, big, -big], np.r_[y, 1, 0])
    assert ts.temperature_ == pytest.approx(ref, rel=1e-7)
    assert ts.clamped_ is None
    got = ts.transform(np.array([-1.0, 0.5, 2.0]))
    np.testing.assert_allclose(got, 1.0 / (1.0 + np.exp(-np.array([-1.0, 0.5, 2.0]) / ref)), rtol=1e-7)


def test_huge_logit_with_the_wrong_label_still_counts():
    # one row at +1e10 labelled 0 adds softplus(1e10/tau): its slope 1e10/2 at beta = 0 outweighs
    # every other row's, so the NLL rises with beta = 1/tau from 0 on -- no positive tau fits
    z, y = _data()
    m = (2.0 * y - 1.0) * z
    assert 1e10 * 0.5 - 0.5 * m.sum() > 0.0  # f'(0+) > 0: the optimum is beta -> 0
    with pytest.warns(UserWarning, match="reversed"):
        ts = vc.TemperatureScaling(score_type="logit").fit(np.r_[z, 1e10], np.r_[y, 0])
    assert ts.clamped_ == "upper" and ts.temperature_ >= 1e10


def test_multiclass_rows_with_a_huge_logit_gap():
    rng = np.random.default_rng(5)
    Z = rng.normal(0.0, 1.5, (400, 3))
    y = (Z + rng.gumbel(size=Z.shape)).argmax(axis=1)
    base = vc.TemperatureScaling(score_type="logit").fit(Z, y).temperature_
    big = np.array([[1e300, 0.0, 0.0], [0.0, 0.0, 1e300]])
    ts = vc.TemperatureScaling(score_type="logit").fit(np.r_[Z, big], np.r_[y, 0, 2])
    assert ts.temperature_ == pytest.approx(base, rel=1e-8)
