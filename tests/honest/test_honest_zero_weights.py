"""Property: a row of weight 0 is a dropped row for every honest estimator and decision (issue 10).

Inserting rows of weight 0 anywhere never changes a result: not the Hosmer–Lemeshow
groups, not the bootstrap resamples or the noise-floor redraws (same seed), not a
threshold, not a reported row count.
"""

import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veracity as vc


@st.composite
def _problem(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(60, 200))
    p = np.clip(np.round(rng.random(n), draw(st.sampled_from([2, 3, 6]))), 0.01, 0.99)
    y = (rng.random(n) < p).astype(float)
    y[:2] = [0.0, 1.0]
    w = rng.integers(1, 4, n).astype(float)
    k = draw(st.integers(1, 8))
    at = rng.integers(0, n + 1, k)
    P = np.insert(p, at, np.clip(np.round(rng.random(k), 3), 0.01, 0.99))
    Y = np.insert(y, at, (rng.random(k) < 0.5).astype(float))
    W = np.insert(w, at, np.zeros(k))
    return (p, y, w), (P, Y, W)


def _dump(x):
    return json.dumps(x.to_dict() if hasattr(x, "to_dict") else x, sort_keys=True, default=str)


HONEST = {
    "spiegelhalter": lambda s, y, w: vc.spiegelhalter(s, y, sample_weight=w),
    "hosmer_lemeshow": lambda s, y, w: vc.hosmer_lemeshow(s, y, sample_weight=w),
    "calibration_slope": lambda s, y, w: vc.calibration_slope(s, y, sample_weight=w),
    "calibration_tests": lambda s, y, w: vc.calibration_tests(s, y, sample_weight=w),
    "corp": lambda s, y, w: vc.corp(s, y, sample_weight=w),
    "ece_estimates": lambda s, y, w: vc.ece_estimates(s, y, sample_weight=w),
    "ece_noise_floor": lambda s, y, w: vc.ece_noise_floor(s, y, sample_weight=w, n_resamples=50, random_state=0),
    "bootstrap_intervals": lambda s, y, w: vc.bootstrap_intervals(s, y, sample_weight=w, n_resamples=40, random_state=0,
                                                                  method="percentile"),
}

DECISIONS = {
    "threshold_table": lambda s, y, w: vc.threshold_table(s, y, [0.1, 0.3, 0.5, 0.7], cost_fn=5, sample_weight=w),
    "recall_threshold": lambda s, y, w: vc.recall_threshold(s, y, target=0.8, sample_weight=w),
    "precision_threshold": lambda s, y, w: vc.precision_threshold(s, y, target=0.5, sample_weight=w),
    "budget_threshold": lambda s, y, w: vc.budget_threshold(s, fraction=0.2, sample_weight=w),
}


def _same_or_same_error(f, a, b):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ra = f(*a)
    except vc.VeracityError as exc:
        with pytest.raises(vc.VeracityError) as other:
            f(*b)
        assert str(other.value) == str(exc)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rb = f(*b)
    assert _dump(ra) == _dump(rb)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
@pytest.mark.parametrize("name", sorted(HONEST))
def test_zero_weight_rows_never_change_an_honest_estimate(name, problem):
    _same_or_same_error(HONEST[name], *problem)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_zero_weight_rows_never_change_a_decision(name, problem):
    _same_or_same_error(DECISIONS[name], *problem)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
def test_zero_weight_rows_never_change_the_risk_coverage_area(problem):
    (p, y, w), (P, Y, W) = problem
    assert vc.risk_coverage(p, y, sample_weight=w).aurc == pytest.approx(
        vc.risk_coverage(P, Y, sample_weight=W).aurc, rel=1e-12, abs=1e-15)


def test_audit_honest_sections_ignore_zero_weight_rows():
    rng = np.random.default_rng(4)
    p = rng.uniform(0.02, 0.98, 300)
    y = (rng.random(300) < p).astype(float)
    w = rng.uniform(0.5, 2, 300)
    W = w.copy()
    W[::7] = 0.0
    keep = W > 0
    opts = dict(tests=True, corp=True, estimators=True, noise_floor=True, bootstrap="percentile",
                n_resamples=40, bins=10, random_state=0)
    a = vc.audit(p[keep], y[keep], sample_weight=w[keep], **opts)
    b = vc.audit(p, y, sample_weight=W, **opts)
    for key in ("tests", "corp", "estimators", "noise_floor", "intervals"):
        assert _dump(a.extras[key]) == _dump(b.extras[key]), key
