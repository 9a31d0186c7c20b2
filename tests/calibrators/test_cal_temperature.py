"""Temperature scaling: seed numbers, oracles, separable data, invariance properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_softmax

import veracity as vc


def _overconfident(n, seed=0, scale=2.5):
    rng = np.random.default_rng(seed)
    u = rng.normal(0.0, 1.5, n)
    y = (rng.random(n) < expit(u)).astype(float)
    return scale * u + rng.normal(0, 0.3, n), y


def _nll(s, y, tau):
    # seed 000: NLL(tau) = mean softplus(-y± s / tau)
    return float(np.mean(np.logaddexp(0.0, -(2 * y - 1) * s / tau)))


# -- seed numbers ---------------------------------------------------------------------
def test_seed_003_softmax_at_t1_and_t2():
    # seed 003: logits (3, 1, 0) -> 84/11/4 % at T = 1 and 63/23/14 % at T = 2
    ts = vc.TemperatureScaling(score_type="logit")
    z = np.array([[3.0, 1.0, 0.0]])
    ts.temperature_, ts.n_classes_ = 1.0, 3
    assert np.round(100 * ts.transform(z)).tolist() == [[84.0, 11.0, 4.0]]
    ts.temperature_ = 2.0
    assert np.round(100 * ts.transform(z)).tolist() == [[63.0, 23.0, 14.0]]


def test_seed_000_golden_bracket_widths_and_trace():
    s, y = _overconfident(400, seed=1)
    ts = vc.TemperatureScaling(score_type="logit", method="golden").fit(s, y)
    rows = {r.iteration: r for r in ts.trace_}
    assert {10, 20, 30, 40, 80} <= set(rows)
    phi = (math.sqrt(5) - 1) / 2
    # bracket width after k iterations = 19.95 * phi^k; seed prints 1.622e-01 after 10
    assert f"{rows[10].width:.3e}" == "1.622e-01"
    for k in (10, 20, 30, 40):
        assert rows[k].width == pytest.approx(19.95 * phi ** k, rel=1e-9)
    assert f"{rows[20].width:.3e}" == "1.319e-03" and f"{rows[40].width:.3e}" == "8.718e-08"
    # best NLL never increases along the trace and equals NLL at the final tau
    nlls = [r.nll for r in ts.trace_]
    assert all(b <= a + 1e-15 for a, b in zip(nlls, nlls[1:]))
    assert ts.nll_after_ == pytest.approx(_nll(s, y, ts.temperature_), rel=1e-12)
    assert ts.nll_before_ == pytest.approx(_nll(s, y, 1.0), rel=1e-12)
    assert "1.622e-01" in str(ts)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_newton_matches_golden_and_scipy_bounded(seed):
    s, y = _overconfident(3000, seed=seed)
    newton = vc.TemperatureScaling(score_type="logit").fit(s, y).temperature_
    golden = vc.TemperatureScaling(score_type="logit", method="golden").fit(s, y).temperature_
    # oracle: dense grid to locate, then scipy bounded minimisation (Brent) to refine
    grid = np.linspace(0.05, 20, 4000)
    best = grid[np.argmin([_nll(s, y, t) for t in grid])]
    ref = minimize_scalar(lambda t: _nll(s, y, t), bounds=(max(0.05, best - 0.01), best + 0.01),
                          method="bounded", options={"xatol": 1e-12}).x
    assert newton == pytest.approx(golden, abs=1e-6)
    assert newton == pytest.approx(ref, abs=1e-6)
    assert newton > 1.0  # over-confident model -> tau > 1


def test_weighted_fit_equals_repeated_rows():
    s, y = _overconfident(500, seed=3)
    w = np.random.default_rng(0).integers(1, 4, s.size)
    a = vc.TemperatureScaling(score_type="logit").fit(s, y, sample_weight=w).temperature_
    b = vc.TemperatureScaling(score_type="logit").fit(np.repeat(s, w), np.repeat(y, w)).temperature_
    assert a == pytest.approx(b, rel=1e-9)


def test_probability_input_maps_to_logits():
    s, y = _overconfident(1000, seed=4)
    a = vc.TemperatureScaling(score_type="logit").fit(s, y)
    b = vc.TemperatureScaling(score_type="probability").fit(expit(s), y)
    assert a.temperature_ == pytest.approx(b.temperature_, rel=1e-7)
    assert np.allclose(a.transform(s), b.transform(expit(s)), atol=1e-9)


# -- separable / degenerate data ----------------------------------------------------------
@pytest.mark.parametrize("method, lo", [("newton", 1e-10), ("golden", 0.05)])
def test_separable_data_stops_at_the_lower_end_and_warns(method, lo):
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.warns(UserWarning, match="separates the calibration labels perfectly"):
        ts = vc.TemperatureScaling(score_type="logit", method=method).fit(s, y)
    assert ts.temperature_ == lo and ts.clamped_ == "lower"


@pytest.mark.parametrize("method", ["newton", "golden"])
def test_reversed_scores_warn_that_they_are_reversed(method):
    # ten copies of six rows (AUC 1/9): six alone are noise-level (exact Mann-Whitney p = 0.2), which
    # the warning now says instead of "reversed" (tests/calibrators/test_reversed_vs_noise_r30b.py)
    s = np.tile([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], 10)
    y = np.tile([1, 1, 0, 1, 0, 0], 10)
    with pytest.warns(UserWarning, match="scores are reversed .*sign convention"):
        ts = vc.TemperatureScaling(score_type="logit", method=method).fit(s, y)
    assert ts.clamped_ == "upper"
    assert ts.temperature_ == (1e10 if method == "newton" else 20.0)


@pytest.mark.parametrize("method", ["newton", "golden"])
def test_explicit_bounds_say_the_optimum_lies_beyond(method):
    rng = np.random.default_rng(3)
    s = rng.normal(0, 30, 2000)
    y = (rng.random(2000) < expit(s / 50)).astype(float)  # optimum tau = 50
    with pytest.warns(UserWarning, match="upper bound 20 of bounds=.*Widen bounds="):
        ts = vc.TemperatureScaling(score_type="logit", method=method, bounds=(0.05, 20.0)).fit(s, y)
    assert ts.temperature_ == 20.0 and ts.clamped_ == "upper"
    free = vc.TemperatureScaling(score_type="logit").fit(s, y)  # unbounded: no warning
    assert free.clamped_ is None and 35 < free.temperature_ < 70


# -- the seed's NLL-overfitting effect (seed 003) ------------------------------------------
def test_fit_on_train_of_memorising_model_gives_t_below_one():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    n, d = 600, 120
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + rng.normal(0, 1.5, n) > 0).astype(int)
    roles = vc.split(y, roles={"train": 0.5, "calib": 0.5}, random_state=1)
    tr, ca = roles == "train", roles == "calib"
    model = LogisticRegression(C=0.5, max_iter=5000).fit(X[tr], y[tr])  # 300 rows, 120 features
    s = model.decision_function(X)
    t_train = vc.TemperatureScaling(score_type="logit").fit(s[tr], y[tr], role="train", allow_role="train").temperature_
    t_calib = vc.TemperatureScaling(score_type="logit").fit(s[ca], y[ca], role="calib").temperature_
    assert t_train < 1.0 < t_calib


# -- multiclass ---------------------------------------------------------------------------
def test_multiclass_matches_scipy_and_k2_equals_binary():
    rng = np.random.default_rng(5)
    Z = rng.normal(0, 3, (2000, 4))
    y = (Z / 3 + rng.gumbel(size=Z.shape)).argmax(1)
    ts = vc.TemperatureScaling(score_type="logit").fit(Z, y)
    f = lambda t: -np.mean(log_softmax(Z / t, axis=1)[np.arange(len(y)), y])  # noqa: E731
    ref = minimize_scalar(f, bounds=(0.05, 20), method="bounded", options={"xatol": 1e-12}).x
    assert ts.temperature_ == pytest.approx(ref, abs=1e-6)
    golden = vc.TemperatureScaling(score_type="logit", method="golden").fit(Z, y).temperature_
    assert ts.temperature_ == pytest.approx(golden, abs=1e-6)
    # K = 2 logits (0, s) are the binary problem sigma(s / tau)
    s, yb = _overconfident(800, seed=6)
    t2 = vc.TemperatureScaling(score_type="logit").fit(np.column_stack([np.zeros_like(s), s]), yb.astype(int))
    assert t2.temperature_ == pytest.approx(vc.TemperatureScaling(score_type="logit").fit(s, yb).temperature_, rel=1e-9)


grid_logits = st.integers(-64, 64).map(lambda v: v / 8.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(grid_logits, grid_logits, grid_logits), min_size=4, max_size=40),
       st.floats(0.05, 20))
def test_multiclass_temperature_never_changes_argmax(rows, tau):
    Z = np.array(rows)
    ts = vc.TemperatureScaling(score_type="logit")
    ts.temperature_, ts.n_classes_ = tau, 3
    assert np.array_equal(ts.transform(Z).argmax(1), Z.argmax(1))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-4000, 4000), min_size=6, max_size=60), st.data())
def test_binary_temperature_keeps_argsort_auc_and_decisions(ints, data):
    s = np.array(ints) / 100.0
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=s.size, max_size=s.size)))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    tau = data.draw(st.floats(0.05, 20))
    ts = vc.TemperatureScaling(score_type="logit")
    ts.temperature_, ts.n_classes_ = tau, 2
    ts.score_type = "logit"
    ts.nll_before_ = ts.nll_after_ = 0.0
    ts.trace_, ts.n_iter_, ts.clamped_ = (), 0, None
    ts.metadata = {}
    z = ts.transform_logit(s)
    assert np.array_equal(np.argsort(z, kind="stable"), np.argsort(s, kind="stable"))
    assert np.array_equal(z >= 0, s >= 0)
    assert vc.auc(z, y, score_type="logit") == vc.auc(s, y, score_type="logit")
    cert = vc.compare(s, y, ts).certificates
    assert cert["argsort_identical"] and cert["auc_identical"] and cert["decisions_identical"]


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "brent"}, "method must be 'newton' or 'golden'"),
    ({"bounds": (5.0, 1.0)}, "0 < lo < hi"),
    ({"bounds": "wide"}, "bounds must be None or two numbers"),
    ({"iterations": 0}, "iterations must be a positive integer"),
    ({"score_type": "logits"}, "score_type must be 'probability' or 'logit'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.TemperatureScaling(**kwargs).fit([0.1, -0.2, 1.0], [0, 1, 1])
