"""Platt, isotonic, histogram, beta, Venn-ABERS, vector/matrix, prior: against definitions and peers."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

import veracity as vc


def _data(n, seed, ties=False):
    rng = np.random.default_rng(seed)
    u = rng.normal(0, 1.5, n)
    y = (rng.random(n) < expit(u)).astype(float)
    s = 2.0 * u + rng.normal(0, 0.5, n)
    p = expit(s)
    if ties:
        p = np.round(p, 2)
    return s, p, y


# -- Platt ----------------------------------------------------------------------------------
def test_platt_matches_unregularised_logistic_regression():
    # oracle: scikit-learn LogisticRegression unregularised (C=inf, i.e. penalty=None) on the 1-D score
    from sklearn.linear_model import LogisticRegression

    s, p, y = _data(3000, 0)
    ref = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    ref.fit(s[:, None], y)
    c = vc.PlattScaling(score_type="logit").fit(s, y)
    assert c.a_ == pytest.approx(ref.coef_[0, 0], abs=1e-5)
    assert c.b_ == pytest.approx(ref.intercept_[0], abs=1e-5)
    assert np.allclose(c.transform(s), ref.predict_proba(s[:, None])[:, 1], atol=1e-6)
    # probabilities are mapped to logit(p) first
    c2 = vc.PlattScaling(score_type="probability").fit(p, y)
    assert c2.a_ == pytest.approx(c.a_, abs=1e-5)


def test_platt_target_smoothing_equals_soft_label_regression():
    # Platt (1999): targets (N+ + 1)/(N+ + 2) and 1/(N- + 2); oracle = weighted LR on
    # duplicated rows (label 1 with weight t, label 0 with weight 1 - t)
    from sklearn.linear_model import LogisticRegression

    s, _, y = _data(400, 1)
    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    X2 = np.concatenate([s, s])[:, None]
    y2 = np.concatenate([np.ones_like(y), np.zeros_like(y)])
    ref = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    ref.fit(X2, y2, sample_weight=np.concatenate([t, 1 - t]))
    c = vc.PlattScaling(score_type="logit", smoothing=True).fit(s, y)
    assert c.a_ == pytest.approx(ref.coef_[0, 0], abs=1e-5)
    assert c.b_ == pytest.approx(ref.intercept_[0], abs=1e-5)


def test_platt_reports_reversed_direction():
    s, _, y = _data(500, 2)
    with pytest.warns(UserWarning, match="negative slope"):
        c = vc.PlattScaling(score_type="logit").fit(-s, y)
    assert c.reversed_ and c.a_ < 0
    with pytest.raises(vc.VeracityError, match="reverses the ranking"):
        vc.PlattScaling(score_type="logit", on_reversed="error").fit(-s, y)
    c = vc.PlattScaling(score_type="logit", on_reversed="allow").fit(-s, y)
    led = vc.compare(-s, y, c)
    assert led.certificates["reversals"] > 0 and not led.certificates["argsort_identical"]
    assert "REGRESSION" in str(led) or "broken" in str(led)


# -- isotonic -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_isotonic_equals_sklearn_with_ties(seed):
    # oracle: sklearn IsotonicRegression(out_of_bounds="clip"); ties pooled by weighted mean
    from sklearn.isotonic import IsotonicRegression

    _, p, y = _data(2000, seed, ties=True)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, p.size)
    ref = IsotonicRegression(out_of_bounds="clip")
    fitted = ref.fit_transform(p, y, sample_weight=w)
    step = vc.IsotonicCalibration().fit(p, y, sample_weight=w)
    lin = vc.IsotonicCalibration(interpolation="linear").fit(p, y, sample_weight=w)
    assert np.max(np.abs(step.transform(p) - fitted)) <= 1e-12
    assert np.max(np.abs(lin.transform(p) - fitted)) <= 1e-12
    new = np.random.default_rng(seed + 10).uniform(-0.1, 1.1, 500)
    new = np.clip(new, 0, 1)
    assert np.max(np.abs(lin.transform(new) - ref.predict(new))) <= 1e-12


def test_isotonic_step_clips_and_counts_ties():
    c = vc.IsotonicCalibration().fit([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    # PAV: [0, 0.5, 0.5, 1]
    assert c.transform([0.0, 0.2, 0.5, 0.6, 0.79, 1.0]).tolist() == [0.0, 0.0, 0.5, 0.5, 0.5, 1.0]
    assert c.n_steps_ == 3 and c.ties_created_ == 1


finite_p = st.integers(0, 1000).map(lambda v: v / 1000)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite_p, st.integers(0, 1)), min_size=4, max_size=60))
def test_isotonic_strict_is_strictly_increasing(rows):
    p = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows], dtype=float)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a single constant block cannot be strict (warned)
        c = vc.IsotonicCalibration(ties="strict").fit(p, y)
    if c.knots_y_.size < 2 or c.knots_y_[0] == c.knots_y_[-1]:
        return
    grid = np.unique(p)
    out = c.transform(grid)
    assert np.all(np.diff(out) > 0)
    assert np.array_equal(np.argsort(c.transform(p), kind="stable"), np.argsort(p, kind="stable"))


def test_isotonic_strict_single_block_warns():
    with pytest.warns(UserWarning, match="one constant block"):
        vc.IsotonicCalibration(ties="strict").fit([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0])


# -- histogram --------------------------------------------------------------------------------
def test_histogram_binning_is_the_bin_positive_rate():
    p = np.array([0.05, 0.07, 0.15, 0.95, 0.92, 0.91, 0.55])
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    c = vc.HistogramBinning(bins=10).fit(p, y)
    out = c.transform([0.06, 0.19, 0.93, 0.5, 0.35])
    assert out.tolist() == pytest.approx([0.5, 0.0, 2 / 3, 1.0, 0.35])  # empty bin -> midpoint
    q = vc.HistogramBinning(bins=3, strategy="quantile").fit(p, y)
    assert q.counts_.sum() == 7


# -- beta ---------------------------------------------------------------------------------------
def test_beta_matches_exact_logistic_fit_and_betacal():
    # oracle 1: exact unregularised LR on the features (ln p, -ln(1 - p)), Kull et al. 2017
    # oracle 2: the betacal package (parameters="abm"); it stops lbfgs at tol 1e-4, so
    #           its coefficients agree only to ~1e-3
    from betacal import BetaCalibration as Ref
    from sklearn.linear_model import LogisticRegression

    _, p, y = _data(3000, 3)
    F = np.column_stack([np.log(p), -np.log1p(-p)])
    exact = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(F, y)
    c = vc.BetaCalibration().fit(p, y)
    assert exact.coef_[0] == pytest.approx([c.a_, c.b_], abs=1e-5)
    assert exact.intercept_[0] == pytest.approx(c.c_, abs=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = Ref(parameters="abm").fit(p, y)
        expected = ref.predict(p)
    a, b, _ = ref.calibrator_.map_
    assert c.a_ == pytest.approx(a, abs=2e-3) and c.b_ == pytest.approx(b, abs=2e-3)
    assert np.max(np.abs(c.transform(p) - expected)) < 1e-3


def test_beta_drops_a_negative_coefficient():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 2000)
    y = (rng.random(2000) < 0.3 + 0.4 * (p > 0.98)).astype(float)  # flat: a or b goes negative
    c = vc.BetaCalibration().fit(p, y)
    assert c.a_ >= 0 and c.b_ >= 0


# -- Venn-ABERS -----------------------------------------------------------------------------------
def test_venn_abers_matches_package_and_brute_force():
    # oracles: the venn-abers package (calc_p0p1/calc_probs) and isotonic regression refits
    from sklearn.isotonic import IsotonicRegression
    from venn_abers.venn_abers import calc_p0p1, calc_probs

    _, p, y = _data(300, 4, ties=True)
    test = np.concatenate([np.round(np.random.default_rng(9).random(100), 2), p[:30], [0.0, 1.0]])
    c = vc.VennAbers().fit(p, y)
    p0, p1 = c.predict_interval(test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P0, P1, cc = calc_p0p1(np.column_stack([1 - p, p]), y)
        merged, ref = calc_probs(P0, P1, cc, np.column_stack([1 - test, test]))
    assert np.array_equal(p0, ref[:, 0]) and np.array_equal(p1, ref[:, 1])
    assert np.allclose(c.transform(test), merged[:, 1], atol=1e-15)
    for v, a, b in zip(test[:15], p0[:15], p1[:15]):
        for label, value in ((0, a), (1, b)):
            iso = IsotonicRegression(out_of_bounds="clip").fit(np.append(p, v), np.append(y, label))
            assert iso.predict([v])[0] == pytest.approx(value, abs=1e-12)
    assert np.all(p0 <= p1)


# -- vector / matrix ---------------------------------------------------------------------------------
def test_vector_and_matrix_scaling_fix_a_biased_overconfident_model():
    rng = np.random.default_rng(6)
    n, k = 4000, 4
    U = rng.normal(0, 1, (n, k))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    Z = 3.0 * U + np.array([0.8, 0, 0, -0.5])  # over-confident and biased
    roles = vc.split(y, random_state=0)
    cal, ev = roles == "calib", roles == "test"
    for cls in (vc.VectorScaling, vc.MatrixScaling):
        c = cls(score_type="logit").fit(Z[cal], y[cal], role="calib")
        led = vc.compare(Z[ev], y[ev], c)
        assert led.row("NLL").after < led.row("NLL").before
        assert led.row("ECE").after < led.row("ECE").before
        assert np.allclose(c.transform(Z).sum(1), 1.0)
    # heavy regularisation pins matrix scaling's off-diagonal to ~0
    m = vc.MatrixScaling(score_type="logit", reg_lambda=1e3).fit(Z[cal], y[cal])
    off = m.W_ - np.diag(np.diag(m.W_))
    assert np.abs(off).max() < 1e-3


def test_vector_scaling_gradient_matches_finite_differences():
    # the analytic gradient fed to L-BFGS: checked against scipy's finite differences
    from scipy.optimize import check_grad
    from scipy.special import log_softmax

    rng = np.random.default_rng(7)
    Z = rng.normal(size=(50, 3))
    y = rng.integers(0, 3, 50)
    m = vc.MatrixScaling(score_type="logit", reg_lambda=0.3, reg_mu=0.2)

    def f(theta):
        W, b = m._unpack(theta, 3)
        logp = log_softmax(Z @ W.T + b, axis=1)
        pen = m._penalty(W, b, 3)[0]
        return -logp[np.arange(50), y].mean() + pen

    def g(theta):
        W, b = m._unpack(theta, 3)
        P = np.exp(log_softmax(Z @ W.T + b, axis=1))
        G = (P - np.eye(3)[y]) / 50
        _, pW, pb = m._penalty(W, b, 3)
        return m._pack_grad(G.T @ Z + pW, G.sum(0) + pb, 3)

    theta = rng.normal(size=12)
    assert check_grad(f, g, theta) < 1e-5


# -- prior shift ---------------------------------------------------------------------------------
def test_adjust_prior_seed_004_worked_example():
    # seed 004: p = 0.8, pi_old = 0.01, pi_new = 0.10 -> LR = 396, odds 44, p_new = 44/45
    assert vc.adjust_prior(0.8, 0.01, 0.10) == pytest.approx(44 / 45, rel=1e-12)
    out = vc.adjust_prior(np.array([0.0, 0.8, 1.0]), 0.01, 0.10)
    assert out.tolist() == pytest.approx([0.0, 44 / 45, 1.0])
    P = np.array([[0.2, 0.8], [0.5, 0.5]])
    assert vc.adjust_prior(P, [0.99, 0.01], [0.9, 0.1])[:, 1] == pytest.approx(
        vc.adjust_prior(P[:, 1], 0.01, 0.10))
    # identity when the prior does not move
    assert vc.adjust_prior(0.3, 0.2, 0.2) == pytest.approx(0.3)


def test_em_recovers_a_shifted_prior():
    rng = np.random.default_rng(8)
    # calibrated scores under prior 0.5; deployment has prior 0.2
    n = 40000
    y = (rng.random(n) < 0.2).astype(float)
    x = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    p_old = expit(2 * x)  # exact posterior under prior 0.5 for N(+-1, 1)
    est = vc.estimate_prior(p_old, 0.5)
    assert est.converged and est.prior == pytest.approx(0.2, abs=0.01)
    assert "EM prior estimate" in str(est)


@pytest.mark.parametrize("old, new, match", [
    (0.0, 0.1, "strictly between 0 and 1"),
    (0.1, 1.5, "strictly between 0 and 1"),
    ([0.5, 0.6], 0.1, "sum to 1"),
])
def test_adjust_prior_bad_priors(old, new, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.adjust_prior([0.2, 0.4], old, new)
