"""Safe defaults and loud mismatches (issue 10): probabilities by default, unbounded
temperature, constrained beta, calibration slope with exact 0/1 scores.

Oracles: scipy's scalar minimiser on the same NLL, statsmodels' GLM on the same rows.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_softmax

import veracity as vc

EPS = np.finfo(np.float64).eps


def _logit(p):
    q = np.clip(p, EPS, 1 - EPS)
    return np.log(q) - np.log1p(-q)


def _scipy_tau_binary(s, y):
    """τ minimising the mean binary NLL of σ(s/τ), searched on log τ by scipy."""
    ypm = 2.0 * y - 1.0

    def f(u):
        return float(np.mean(np.logaddexp(0.0, -ypm * s * math.exp(-u))))

    res = minimize_scalar(f, bounds=(-12.0, 12.0), method="bounded",
                          options={"xatol": 1e-10, "maxiter": 500})
    return math.exp(res.x)


def _scipy_tau_multiclass(Z, y):
    rows = np.arange(y.size)

    def f(u):
        return float(-np.mean(log_softmax(Z * math.exp(-u), axis=1)[rows, y]))

    res = minimize_scalar(f, bounds=(-12.0, 12.0), method="bounded",
                          options={"xatol": 1e-10, "maxiter": 500})
    return math.exp(res.x)


@pytest.fixture(scope="module")
def naive_bayes_binary():
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    p = GaussianNB().fit(Xa, ya).predict_proba(Xb)[:, 1]
    return p, yb.astype(float)


# -- the default takes predict_proba output -------------------------------------------
def test_default_score_type_is_probability_for_every_calibrator():
    for name, cls in vc.calibrators.METHODS.items():
        assert cls().score_type == "probability", name


def test_temperature_on_naive_bayes_probabilities_matches_scipy(naive_bayes_binary):
    p, y = naive_bayes_binary
    ts = vc.TemperatureScaling().fit(p, y)
    ref = _scipy_tau_binary(_logit(p), y)
    assert ts.temperature_ == pytest.approx(ref, rel=1e-6)
    assert ts.temperature_ > 1 and ts.clamped_ is None
    assert "OVERconfident" in str(ts)


def test_probabilities_declared_as_logits_are_refused(naive_bayes_binary):
    p, y = naive_bayes_binary
    for cls in (vc.TemperatureScaling, vc.PlattScaling, vc.BetaCalibration, vc.IsotonicCalibration):
        with pytest.raises(vc.VeracityError, match=r"declared score_type='logit' but all .* lie in "
                                                   r"\[0, 1\].*Drop score_type='logit'"):
            cls(score_type="logit").fit(p, y)


def test_logits_declared_as_probabilities_are_refused_with_the_fix():
    with pytest.raises(vc.VeracityError, match=r"If these are logits, pass TemperatureScaling\(score_type='logit'\)"):
        vc.TemperatureScaling().fit([-2.0, 0.5, 3.0], [0, 1, 1])


def test_multiclass_naive_bayes_on_digits_is_overconfident_not_under():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    P = GaussianNB().fit(Xa, ya).predict_proba(Xb)
    ts = vc.TemperatureScaling().fit(P, yb)
    ref = _scipy_tau_multiclass(np.log(np.clip(P, EPS, 1.0)), yb)
    assert ts.temperature_ == pytest.approx(ref, rel=1e-6)
    assert ts.temperature_ > 1 and "OVERconfident" in str(ts)


# -- unbounded temperature ------------------------------------------------------------------
@pytest.mark.parametrize("tau", [100.0, 131.0, 0.01])
def test_temperature_far_from_one_matches_scipy_without_clamping(tau):
    rng = np.random.default_rng(int(tau * 100))
    n = 4000
    t = rng.normal(0.0, 2.0, n)                      # true logits
    y = (rng.random(n) < expit(t)).astype(float)
    s = t * tau                                       # scores tau times too sharp/flat
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ts = vc.TemperatureScaling(score_type="logit").fit(s, y)
    assert ts.clamped_ is None
    assert ts.temperature_ == pytest.approx(_scipy_tau_binary(s, y), rel=1e-6)
    assert ts.temperature_ == pytest.approx(tau, rel=0.15)
    Z = np.column_stack([np.zeros(n), s, -s]) / 2.0
    y3 = np.where(y == 1.0, 1, 0)
    tm = vc.TemperatureScaling(score_type="logit").fit(Z, y3)
    assert tm.temperature_ == pytest.approx(_scipy_tau_multiclass(Z, y3), rel=1e-6)


# -- beta keeps a, b >= 0 ---------------------------------------------------------------
def test_beta_on_a_reversed_score_warns_and_stays_non_decreasing():
    rng = np.random.default_rng(0)
    p = rng.random(2000)
    y = (rng.random(2000) < 1.0 - p).astype(float)
    with pytest.warns(UserWarning, match=r"BetaCalibration: the score is reversed.*a, b >= 0"):
        c = vc.BetaCalibration().fit(p, y)
    assert c.a_ >= 0 and c.b_ >= 0
    grid = np.linspace(0.001, 0.999, 200)
    out = c.transform(grid)
    assert np.all(np.diff(out) >= 0)
    assert out[0] == pytest.approx(y.mean(), abs=1e-9)


def test_beta_constrained_fit_is_non_decreasing_when_one_coefficient_is_negative():
    rng = np.random.default_rng(1)
    p = rng.beta(0.5, 0.5, 3000)
    # rises in ln p but the -ln(1-p) feature pulls the wrong way
    y = (rng.random(3000) < expit(1.5 * np.log(p) + 0.8 * np.log1p(-p) + 1.0)).astype(float)
    c = vc.BetaCalibration().fit(p, y)
    assert c.a_ >= 0 and c.b_ >= 0
    assert np.all(np.diff(c.transform(np.sort(p))) >= 0)


# -- calibration slope with exact 0/1 probabilities (statsmodels GLM oracle) ---------------
def _statsmodels_fits(p, y):
    sm = pytest.importorskip("statsmodels.api")
    eta = _logit(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slope = sm.GLM(y, sm.add_constant(eta), family=sm.families.Binomial()).fit(tol=1e-12)
        citl = sm.GLM(y, np.ones((y.size, 1)), offset=eta,
                      family=sm.families.Binomial()).fit(tol=1e-12)
    return slope, citl


def _tree_like(seed, share_soft):
    rng = np.random.default_rng(seed)
    n = 1000
    y = (rng.random(n) < 0.5).astype(float)
    p = np.where(rng.random(n) < 0.76, y, 1.0 - y)   # exact 0/1 outputs, right 76% of the time
    soft = rng.random(n) < share_soft
    p[soft] = rng.random(int(soft.sum()))
    return p, y


def test_calibration_slope_converges_with_exact_zero_one_scores_like_statsmodels():
    p, y = _tree_like(1, 0.2)
    assert (p == 0).any() and (p == 1).any() and 0.6 < vc.auc(p, y) < 0.9
    r = vc.calibration_slope(p, y)
    slope, citl = _statsmodels_fits(p, y)
    assert r.slope == pytest.approx(slope.params[1], rel=1e-6)
    assert r.intercept == pytest.approx(slope.params[0], rel=1e-5, abs=1e-8)
    assert r.slope_se == pytest.approx(slope.bse[1], rel=1e-5)
    assert r.citl == pytest.approx(citl.params[0], rel=1e-6)
    assert r.citl_se == pytest.approx(citl.bse[0], rel=1e-5)


def test_calibration_slope_when_every_score_is_exactly_zero_or_one():
    p, y = _tree_like(1, 0.0)
    assert set(np.unique(p)) == {0.0, 1.0}
    r = vc.calibration_slope(p, y)
    slope, _ = _statsmodels_fits(p, y)
    assert r.slope == pytest.approx(slope.params[1], rel=1e-6)
    assert r.slope_se == pytest.approx(slope.bse[1], rel=1e-5)
    assert math.isfinite(r.citl) and math.isfinite(r.citl_se)
    # the in-the-large estimate solves sum(y) = sum(sigmoid(alpha + eta)) exactly
    assert float(expit(r.citl + _logit(p)).sum()) == pytest.approx(y.sum(), rel=1e-9)


def test_calibration_slope_refuses_only_true_separation():
    with pytest.raises(vc.VeracityError, match="perfectly separated"):
        vc.calibration_slope([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    r = vc.calibration_slope([0.1, 0.6, 0.4, 0.9], [0, 0, 1, 1])
    assert math.isfinite(r.slope)
