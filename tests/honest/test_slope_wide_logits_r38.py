"""The recalibration fit on logits that span many decades (``score_type="logit"``).

Logits of 1e20 that are all right beside calibrated logits of about 1 have a finite MLE (the slope of the
calibrated rows: the far rows are certain and right at any slope above 1e-18). Newton from b = 0 moved b by
about 1/max|eta| a step and read a step of 2e-20 as converged: slope 1.5e-20, "p = 0.0000" against the
ideal 1 -- a calibrated model called wildly over-confident. Where the far rows' labels are random, the
ridge (1e-12 of the information's trace, 1e60) swamped the intercept's information and the score equations
were left unsolved. Now both fits solve the score equations; logits beyond 2^128, where the information
overflows, are refused in one line (before: "singular (the score takes too few distinct values)" of 100
distinct logits, after overflow warnings), and the bootstrap's log loss of such logits (1e304, a right
answer) no longer overflows its squares."""

import numpy as np
import pytest

import veracity as vc


def _rows(seed: int, far: float, random_far: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    near = rng.normal(size=300) * 2.0
    sign = rng.choice([-1.0, 1.0], size=60)
    eta = np.r_[near, sign * far * (1.0 + rng.random(60))]
    y = np.r_[(rng.random(300) < 1.0 / (1.0 + np.exp(-near))), sign > 0].astype(float)
    if random_far:
        y[300:] = rng.random(60) < 0.5
    return eta, y, rng.exponential(size=360)


def _score_equations(fit: vc.CalibrationSlope, eta: np.ndarray, y: np.ndarray,
                     w: np.ndarray) -> tuple[float, float]:
    """The weighted score equations of logit P = a + b eta at the reported (a, b), relative to their scale."""
    mu = 1.0 / (1.0 + np.exp(-np.clip(fit.intercept + fit.slope * eta, -700.0, 700.0)))
    return (abs(float(np.dot(w, y - mu))) / w.sum(),
            abs(float(np.dot(w * eta, y - mu))) / float(np.dot(w, np.abs(eta))))


@pytest.mark.parametrize("far", [1e20, 1e30])
def test_far_logits_that_are_right_leave_the_slope_of_the_others(far) -> None:
    eta, y, _ = _rows(0, far, random_far=False)
    near = vc.calibration_slope(eta[:300], y[:300], score_type="logit")
    fit = vc.calibration_slope(eta, y, score_type="logit")
    assert fit.slope == pytest.approx(near.slope, rel=1e-6), (fit.slope, near.slope)  # before: 1.5e-20
    assert fit.slope_p_value > 0.05 and fit.slope_p_value == pytest.approx(near.slope_p_value, rel=1e-4)


@pytest.mark.parametrize("far", [1e10, 1e20, 1e30])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_fit_solves_its_score_equations(far, weighted) -> None:
    for random_far in (False, True):
        eta, y, w = _rows(1, far, random_far)
        fit = vc.calibration_slope(eta, y, score_type="logit", sample_weight=w if weighted else None)
        g_a, g_b = _score_equations(fit, eta, y, w if weighted else np.ones_like(eta))
        assert g_a < 1e-8 and g_b < 1e-8, (random_far, g_a, g_b, fit.intercept, fit.slope)


def test_logits_beyond_2_to_128_are_refused_in_one_line() -> None:
    eta, y, _ = _rows(2, 1e200, random_far=True)
    with pytest.raises(vc.VeracityError) as info:
        vc.calibration_slope(eta, y, score_type="logit")
    text = str(info.value)
    assert "\n" not in text and "cannot weigh logits of" in text, text
    assert "too few distinct values" not in text, text
    tests = vc.calibration_tests(eta, y, score_type="logit")  # the other tests still read the rows
    assert tests.slope is None and "cannot weigh logits" in tests.skipped["slope"]
    assert tests.spiegelhalter is not None and tests.hosmer_lemeshow is not None


def test_in_the_large_refusal_on_far_logits_does_not_ask_for_logits() -> None:
    rng = np.random.default_rng(3)
    eta = rng.choice([-1.0, 1.0], size=50) * 1e6 * (1.0 + rng.random(50))  # no offset reaches them
    with pytest.raises(vc.VeracityError) as info:
        vc.calibration_slope(eta, (rng.random(50) < 0.5).astype(float), score_type="logit")
    assert "every logit is so far from 0" in str(info.value) and "score_type='logit'" not in str(info.value)


def test_bootstrap_of_far_logits_keeps_finite_spreads() -> None:
    eta, y, _ = _rows(4, 1e305, random_far=True)
    rows = vc.bootstrap_intervals(eta, y, score_type="logit", n_resamples=100)  # before: overflow warnings
    nll = rows["nll"]
    assert nll.estimate > 1e303 and np.isfinite(nll.se) and 0 < nll.se < nll.estimate
    assert nll.low <= nll.estimate <= nll.high and nll.method == "bca"
