"""selective_threshold with weights tied to the errors (class weights on a rare, often-missed class): the
bound read the weighted error rate over Kish's effective size alone, which assumes weights unrelated to
the errors. With errors weighing 10x the correct rows the "1 - delta upper bound <= target" missed the
true weighted risk in about 12.5% of draws at delta = 0.1; the smaller of Kish's size and the sandwich's
r(1-r) W^2 / sum w^2 (e - r)^2 keeps it under delta."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.decisions import DEFAULT_CANDIDATES

A, HEAVY = 0.1, 10.0  # P(error | conf c) = A (1 - c), c ~ U(0, 1); an error weighs HEAVY, a correct row 1


def _weighted_risk(t: float) -> float:
    """The true weighted selective risk of answering conf >= t: E[w e; c >= t] / E[w; c >= t]."""
    pe = A * (1.0 - t) / 2.0  # P(error | c >= t)
    return pe * HEAVY / (pe * HEAVY + 1.0 - pe)


def test_weights_tied_to_errors_keep_the_risk_guarantee_in_simulation():
    rng = np.random.default_rng(35)
    draws, above, feasible = 150, 0, 0
    for _ in range(draws):
        c = rng.random(3000)
        err = rng.random(3000) < A * (1.0 - c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # an infeasible draw abstains, warning
            res = vc.selective_threshold(c, (~err).astype(int), target_risk=0.1, delta=0.1,
                                         reading="confidence", sample_weight=np.where(err, HEAVY, 1.0))
        if res.feasible:
            feasible += 1
            above += _weighted_risk(res.threshold) > 0.1
    assert feasible >= 100
    # the bound holds at 1 - delta/J for each of J = 141 candidates: about none above the target
    # (Kish's size alone: 19 of 150 here)
    assert above <= 3, above


def test_the_bound_uses_the_smaller_of_kish_and_the_sandwich_size():
    """By definition, on one draw (reference: scipy's beta quantile)."""
    rng = np.random.default_rng(0)
    c = rng.random(4000)
    err = rng.random(4000) < 0.3 * (1.0 - c)
    w = np.where(err, 4.0, 1.0)
    r = vc.selective_threshold(c, (~err).astype(int), target_risk=0.2, delta=0.1, reading="confidence",
                               sample_weight=w)
    assert r.feasible and r.errors > 0
    ans = c >= r.threshold
    wa, ea = w[ans], err[ans].astype(float)
    W = wa.sum()
    rate = (wa * ea).sum() / W
    kish = W * W / (wa * wa).sum()
    sandwich = rate * (1 - rate) * W * W / (wa * wa * (ea - rate) ** 2).sum()
    assert sandwich < kish  # heavy errors: the spread is wider than Kish's size says
    J = DEFAULT_CANDIDATES.size
    assert r.risk_upper_bound == pytest.approx(stats.beta.ppf(1 - 0.1 / J, rate * sandwich + 1,
                                                              sandwich - rate * sandwich), rel=1e-9)
