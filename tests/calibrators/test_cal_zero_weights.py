"""Zero and tiny weights (issue 10): a row of weight 0 is a dropped row everywhere.

Oracle: scikit-learn's IsotonicRegression (zero weights, subnormal-spaced knots).
Property: appending rows of weight 0 never changes any calibrator or metric result.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veracity as vc

CALIBRATORS = {
    "temperature": lambda: vc.TemperatureScaling(),
    "platt": lambda: vc.PlattScaling(on_reversed="allow"),
    "isotonic": lambda: vc.IsotonicCalibration(),
    "isotonic-linear": lambda: vc.IsotonicCalibration(interpolation="linear"),
    "isotonic-strict": lambda: vc.IsotonicCalibration(ties="strict"),
    "histogram": lambda: vc.HistogramBinning(bins=5),
    "histogram-quantile": lambda: vc.HistogramBinning(bins=4, strategy="quantile"),
    "beta": lambda: vc.BetaCalibration(),
    "venn-abers": lambda: vc.VennAbers(),
}


def test_isotonic_zero_weight_matches_sklearn():
    from sklearn.isotonic import IsotonicRegression

    x, y, w = [0.1, 0.2, 0.3, 0.4], [0, 1, 1, 1], [1, 0, 1, 1]
    ours = vc.IsotonicCalibration(interpolation="linear").fit(x, y, sample_weight=w)
    ref = IsotonicRegression().fit(x, y, sample_weight=w).predict(x)
    np.testing.assert_allclose(ours.transform(x), ref, atol=1e-15)
    np.testing.assert_allclose(ref, [0.0, 0.5, 1.0, 1.0])


def test_ties_whose_weights_are_all_zero():
    x = [0.1, 0.2, 0.2, 0.3, 0.5]
    y = [0, 1, 0, 1, 1]
    w = [1, 0, 0, 1, 1]
    for make in CALIBRATORS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = make().fit(x, y, sample_weight=w).transform(x)
            b = make().fit([0.1, 0.3, 0.5], [0, 1, 1]).transform(x)
        np.testing.assert_array_equal(a, b)


def test_isotonic_subnormal_spaced_knots_stay_finite():
    # scikit-learn's test_isotonic_non_regression_inf_slope: the slope between knots
    # 4.1e-320 and 4.4e-314 overflows float64.
    x = np.array([0.0, 4.1e-320, 4.4e-314, 1.0])
    y = np.array([0, 0, 1, 1])
    c = vc.IsotonicCalibration(interpolation="linear").fit(x, y)
    grid = np.array([0.0, 3e-320, 4.1e-320, 1e-314, 2e-314, 4.4e-314, 0.5, 1.0])
    out = c.transform(grid)
    assert np.all(np.isfinite(out)) and np.all((out >= 0) & (out <= 1))
    assert np.all(np.diff(out) >= 0)
    assert out[2] == 0.0 and out[5] == 1.0
    assert 0.0 < out[4] < 1.0


def test_all_zero_weights_of_one_class_is_a_clear_error():
    with pytest.raises(vc.VeracityError, match="needs both classes"):
        vc.PlattScaling().fit([0.1, 0.4, 0.8], [0, 1, 1], sample_weight=[1, 0, 0])


@st.composite
def _problem(draw):
    n = draw(st.integers(8, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), draw(st.sampled_from([2, 6])))
    p = np.clip(p, 0.01, 0.99)
    y = (rng.random(n) < p).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = rng.integers(1, 4, n).astype(float)
    k = draw(st.integers(1, 5))
    extra_p = np.clip(np.round(rng.random(k), 3), 0.0, 1.0)   # may sit outside the fit range
    extra_y = (rng.random(k) < 0.5).astype(float)
    at = rng.integers(0, n + 1, k)                            # inserted anywhere
    return p, y, w, extra_p, extra_y, at


def _with_zero_rows(p, y, w, extra_p, extra_y, at):
    return (np.insert(p, at, extra_p), np.insert(y, at, extra_y),
            np.insert(w, at, np.zeros(extra_p.size)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
def test_zero_weight_rows_never_change_a_calibrator(problem):
    p, y, w, ep, ey, at = problem
    P, Y, W = _with_zero_rows(p, y, w, ep, ey, at)
    grid = np.linspace(0.0, 1.0, 41)
    for name, make in CALIBRATORS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = make().fit(p, y, sample_weight=w)
            b = make().fit(P, Y, sample_weight=W)
        np.testing.assert_array_equal(a.transform(grid), b.transform(grid), err_msg=name)
        assert a.metadata["data_hash"] == b.metadata["data_hash"], name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
def test_zero_weight_rows_never_change_a_metric(problem):
    p, y, w, ep, ey, at = problem
    P, Y, W = _with_zero_rows(p, y, w, ep, ey, at)
    for name, f in {
        "ece": lambda s, l, sw: vc.ece(s, l, sample_weight=sw),
        "ece-quantile": lambda s, l, sw: vc.ece(s, l, sample_weight=sw, strategy="quantile"),
        "mce": lambda s, l, sw: vc.mce(s, l, sample_weight=sw, min_count=0),
        "brier": lambda s, l, sw: vc.brier(s, l, sample_weight=sw),
        "nll": lambda s, l, sw: vc.nll(s, l, sample_weight=sw),
        "auc": lambda s, l, sw: vc.auc(s, l, sample_weight=sw),
        "accuracy": lambda s, l, sw: vc.accuracy(s, l, sample_weight=sw),
    }.items():
        assert f(p, y, w) == pytest.approx(f(P, Y, W), rel=1e-12, abs=1e-15), name
    # MCE over sufficient bins (Kish size >= 20): NaN on both sides when no bin has enough rows
    a, b = vc.mce(p, y, sample_weight=w), vc.mce(P, Y, sample_weight=W)
    assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    try:
        a = vc.calibration_slope(p, y, sample_weight=w)
    except vc.VeracityError:
        return
    b = vc.calibration_slope(P, Y, sample_weight=W)
    assert a.slope == pytest.approx(b.slope, rel=1e-9, abs=1e-12)
    assert a.citl == pytest.approx(b.citl, rel=1e-9, abs=1e-12)
