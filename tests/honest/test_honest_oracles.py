"""Honest estimators against their reference implementations.

Oracles: ``uncertainty-calibration`` (Kumar, Liang & Ma 2019) for the debiased
ECE and its equal-mass binning; ``relplot`` (Błasiok & Nakkiran 2023) for smooth
ECE; scikit-learn's IsotonicRegression for the CORP curve and LogisticRegression
for the calibration slope; scipy.stats.bootstrap for BCa.
"""

import numpy as np
import pytest
import relplot
from calibration import utils as cal
from scipy import optimize, stats
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

import veracity as vc
from veracity.core._binning import make_edges
from veracity.core._validation import prepare_binary
from veracity.honest._bootstrap import _Layout, bootstrap_of


def _data(seed, n, power=1.0, bend=1.0):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** power
    y = (rng.random(n) < p**bend).astype(int)
    return p, y


CASES = [(0, 17, 1, 1), (1, 200, 2, 0.8), (2, 1000, 1, 1.3), (3, 5000, 0.5, 1), (4, 40, 3, 1)]


@pytest.mark.parametrize("seed,n,power,bend", CASES)
def test_equal_count_edges_are_uncertainty_calibrations_equal_bins(seed, n, power, bend):
    p, _ = _data(seed, n, power, bend)
    for m in (1, 5, 15, n + 3):
        edges = make_edges(p, m, "equal-count")
        np.testing.assert_array_equal(edges[1:], cal.get_equal_bins(p, num_bins=m))


@pytest.mark.parametrize("seed,n,power,bend", CASES)
def test_debiased_l2_equals_get_calibration_error(seed, n, power, bend):
    # calibration.get_calibration_error(p, y) on continuous scores: 15 equal-mass bins,
    # L2 norm, debias=True (lower_bound_scaling_ce -> unbiased_l2_ce).
    p, y = _data(seed, n, power, bend)
    assert not cal.is_discrete(p)
    expected = cal.get_calibration_error(p, y, debias=True)
    got = vc.ece(p, y, estimator="debiased", bins=15, strategy="equal-count", norm="l2")
    assert got == pytest.approx(expected, abs=1e-10)
    plugin = cal.get_calibration_error(p, y, debias=False)
    assert vc.ece(p, y, bins=15, strategy="equal-count", norm="l2") == pytest.approx(plugin, abs=1e-10)


@pytest.mark.parametrize("bins", [3, 10, 30])
def test_debiased_l2_other_bin_counts(bins):
    p, y = _data(7, 800, 1.5, 1.0)
    expected = cal.lower_bound_scaling_ce(p, y, p=2, debias=True, num_bins=bins)
    got = vc.ece(p, y, estimator="debiased", bins=bins, strategy="equal-count", norm="l2")
    assert got == pytest.approx(expected, abs=1e-10)


def test_debiased_l1_is_the_limit_of_normal_debiased_ce():
    # calibration.utils.normal_debiased_ce draws Gaussian label means; ours is its
    # closed-form expectation, so many resamples must agree to Monte-Carlo error.
    p, y = _data(5, 3000, 1.0, 1.2)
    binned = cal.bin(list(zip(p, y)), cal.get_equal_bins(p, num_bins=15))
    np.random.seed(0)
    mc = cal.normal_debiased_ce(binned, power=1, resamples=20000)
    got = vc.ece(p, y, estimator="debiased", bins=15, strategy="equal-count", norm="l1")
    assert got == pytest.approx(mc, abs=3e-4)


def test_debiased_weights_of_one_change_nothing():
    p, y = _data(9, 500)
    a = vc.ece(p, y, estimator="debiased", norm="l2")
    b = vc.ece(p, y, estimator="debiased", norm="l2", sample_weight=np.ones(500))
    assert a == pytest.approx(b, abs=1e-14)


@pytest.mark.parametrize(
    "seed,n,power,bend", CASES + [(6, 3, 1, 1), (7, 20000, 4, 0.5), (8, 2000, 0.2, 3)]
)
def test_smooth_ece_equals_relplot(seed, n, power, bend):
    p, y = _data(seed, n, power, bend)
    value, width = relplot.smECE(p, y.astype(float), return_width=True)
    assert vc.ece(p, y, estimator="smooth") == pytest.approx(value, abs=1e-6)
    assert vc.ece_estimates(p, y).smooth_bandwidth == pytest.approx(width, abs=1e-12)


def test_smooth_ece_of_perfect_and_constant_forecasts_equals_relplot():
    y = np.r_[np.zeros(50), np.ones(50)]
    for p in (y * 0.98 + 0.01, np.full(100, 0.5), np.full(100, 0.9)):
        assert vc.ece(p, y, estimator="smooth") == pytest.approx(relplot.smECE(p, y), abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_corp_curve_is_sklearn_isotonic_and_decomposition_is_exact(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    p = np.round(rng.random(n), 2)  # many ties
    y = (rng.random(n) < p**1.5).astype(float)
    w = rng.uniform(0.5, 2.0, n) if seed == 2 else None
    r = vc.corp(p, y, sample_weight=w)
    iso = IsotonicRegression(out_of_bounds="clip").fit(p, y, sample_weight=w)
    np.testing.assert_allclose(r.y, iso.predict(r.x), atol=1e-12)
    np.testing.assert_allclose(r.recalibrate(p), iso.predict(p), atol=1e-12)
    for d in (r.brier, r.log_loss):
        assert d.mcb - d.dsc + d.unc == pytest.approx(d.score, abs=1e-14)
        assert d.mcb >= -1e-15 and d.dsc >= -1e-15
    assert r.brier.score == pytest.approx(vc.brier(p, y, sample_weight=w), rel=1e-12)
    assert r.log_loss.score == pytest.approx(vc.nll(p, y, sample_weight=w), rel=1e-12)
    base = np.average(y, weights=w)
    assert r.brier.unc == pytest.approx(base * (1 - base), rel=1e-12)


def test_calibration_slope_matches_sklearn_and_numeric_information():
    rng = np.random.default_rng(3)
    n = 3000
    eta = rng.normal(0, 2, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.3 + 0.6 * eta)))).astype(float)
    s = vc.calibration_slope(eta, y, score_type="logit")
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(eta[:, None], y)
    assert s.slope == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert s.intercept == pytest.approx(lr.intercept_[0], abs=1e-6)

    def nll(beta):
        z = beta[0] + beta[1] * eta
        return np.sum(np.logaddexp(0, z) - y * z)

    # observed information by central differences of the analytic gradient
    def grad(beta):
        mu = 1 / (1 + np.exp(-(beta[0] + beta[1] * eta)))
        return np.array([np.sum(mu - y), np.sum((mu - y) * eta)])

    b = np.array([s.intercept, s.slope])
    h = 1e-5
    H = np.column_stack([(grad(b + h * e) - grad(b - h * e)) / (2 * h) for e in np.eye(2)])
    cov = np.linalg.inv(H)
    assert s.intercept_se == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-5)
    assert s.slope_se == pytest.approx(np.sqrt(cov[1, 1]), rel=1e-5)
    # calibration-in-the-large: offset model, one parameter
    res = optimize.minimize_scalar(lambda a: np.sum(np.logaddexp(0, a + eta) - y * (a + eta)))
    assert s.citl == pytest.approx(res.x, abs=1e-6)
    mu = 1 / (1 + np.exp(-(s.citl + eta)))
    assert s.citl_se == pytest.approx(1 / np.sqrt(np.sum(mu * (1 - mu))), rel=1e-9)


def test_hosmer_lemeshow_by_its_definition():
    p, y = _data(11, 1000, 1.2, 1.1)
    t = vc.hosmer_lemeshow(p, y, bins=10)
    order = np.argsort(p, kind="stable")
    stat = 0.0
    for g in np.array_split(order, 10):  # deciles of risk, 100 rows each (distinct scores)
        o, e, n = y[g].sum(), p[g].sum(), g.size
        stat += (o - e) ** 2 / (e * (1 - e / n))
    assert t.statistic == pytest.approx(stat, rel=1e-12)
    assert t.df == 10  # held-out scores: chi-squared with G degrees of freedom
    # the lowest decile expects fewer than 5 events: the default p-value is by Monte Carlo (round 21,
    # tests/honest/test_hosmer_small_n_r21.py); df given, the chi-square law
    assert t.method == "monte-carlo" and t.min_expected < 5
    chi_square = vc.hosmer_lemeshow(p, y, bins=10, df=10)
    assert chi_square.p_value == pytest.approx(stats.chi2.sf(stat, 10), rel=1e-12)
    development = vc.hosmer_lemeshow(p, y, bins=10, df=8)
    assert development.statistic == t.statistic
    assert development.p_value == pytest.approx(stats.chi2.sf(stat, 8), rel=1e-12)


def test_spiegelhalter_worked_example():
    # by hand: sum (y-p)(1-2p) = -0.2; sum (1-2p)^2 p(1-p) = 0.1584
    t = vc.spiegelhalter([0.2, 0.7, 0.9, 0.4], [0, 1, 1, 1])
    assert t.statistic == pytest.approx(-0.2 / np.sqrt(0.1584), rel=1e-12)
    # four rows expect 1.8 non-events: the p-value is by Monte Carlo (round 42), against the exact law of
    # the 16 label vectors (0.8704; the normal law's 0.6153 was 0.26 off)
    import itertools

    p = np.array([0.2, 0.7, 0.9, 0.4])
    exact = sum(np.prod(np.where(np.array(ys) == 1, p, 1 - p))
                for ys in itertools.product([0, 1], repeat=4)
                if abs(np.dot(np.array(ys) - p, 1 - 2 * p)) >= 0.2 - 1e-12)
    assert exact == pytest.approx(0.8704, abs=1e-12)
    assert t.method == "monte-carlo" and abs(t.p_value - exact) < 0.02
    many = np.tile(p, 50)  # 200 rows expect 90 non-events: the normal law
    t = vc.spiegelhalter(many, np.tile([0, 1, 1, 1], 50))
    assert t.method == "normal"
    assert t.p_value == pytest.approx(2 * stats.norm.sf(abs(t.statistic)), rel=1e-12)


def test_bootstrap_resample_statistics_equal_metrics_with_count_weights():
    # A resample is the data with multinomial count weights: every resampled metric must
    # equal the library metric with sample_weight = counts (ties included).
    rng = np.random.default_rng(0)
    n = 400
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(float)
    for w in (None, rng.uniform(0.5, 2.0, n)):
        data = prepare_binary(p, y, sample_weight=w)
        layout = _Layout(data, make_edges(p, 15, "uniform", w), "uniform", 0.5)
        layout.columns()
        counts = rng.integers(0, 3, n).astype(float)
        order = np.lexsort((y, p) if w is None else (w, y, p))  # the layout's row order
        cs, ys = counts[order], y[order]
        C = np.r_[0.0, cs[ys == 0], cs[ys == 1]][None, :].copy()
        got = {k: float(v[0]) for k, v in layout.stats(C).items()}
        cw = counts if w is None else counts * w
        ref = {
            "ece": vc.ece(p, y, sample_weight=cw), "mce": vc.mce(p, y, sample_weight=cw, min_count=0),  # the layout's default: every bin
            "brier": vc.brier(p, y, sample_weight=cw), "nll": vc.nll(p, y, sample_weight=cw),
            "auc": vc.auc(p, y, sample_weight=cw), "accuracy": vc.accuracy(p, y, sample_weight=cw),
        }
        for k in ref:
            assert got[k] == pytest.approx(ref[k], abs=1e-12), k


def test_bootstrap_jackknife_is_exact_leave_one_out():
    rng = np.random.default_rng(1)
    n = 120
    p = np.round(rng.random(n), 1)
    y = (rng.random(n) < p).astype(float)
    data = prepare_binary(p, y)
    layout = _Layout(data, make_edges(p, 10, "uniform"), "uniform", 0.5)
    jack = layout.jackknife()
    order = np.lexsort((y, p))
    for i in (0, 5, 60, 119):
        keep = np.ones(n, bool)
        keep[order[i]] = False
        pk, yk = p[keep], y[keep]
        assert jack["ece"][i] == pytest.approx(vc.ece(pk, yk, bins=10), abs=1e-12)
        assert jack["mce"][i] == pytest.approx(vc.mce(pk, yk, bins=10, min_count=0), abs=1e-12)
        assert jack["brier"][i] == pytest.approx(vc.brier(pk, yk), abs=1e-12)
        assert jack["nll"][i] == pytest.approx(vc.nll(pk, yk), abs=1e-12)
        assert jack["auc"][i] == pytest.approx(vc.auc(pk, yk), abs=1e-12)
        assert jack["accuracy"][i] == pytest.approx(vc.accuracy(pk, yk), abs=1e-12)


def test_bca_interval_of_a_mean_agrees_with_scipy():
    # The Brier score is the mean of (p - y)^2: our BCa and scipy's BCa of that mean are
    # the same method; with many resamples the endpoints agree to Monte-Carlo error.
    rng = np.random.default_rng(4)
    n = 300
    p = rng.random(n)
    y = (rng.random(n) < p**2).astype(float)
    ours = bootstrap_of(prepare_binary(p, y), metrics=("brier",), method="bca",
                        n_resamples=20000, seed=1)["brier"]
    ref = stats.bootstrap(((p - y) ** 2,), np.mean, method="BCa", n_resamples=20000,
                          random_state=np.random.default_rng(2)).confidence_interval
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.03 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.03 * width)
    perc = bootstrap_of(prepare_binary(p, y), metrics=("brier",), method="percentile",
                        n_resamples=20000, seed=1)["brier"]
    ref_p = stats.bootstrap(((p - y) ** 2,), np.mean, method="percentile", n_resamples=20000,
                            random_state=np.random.default_rng(2)).confidence_interval
    assert perc.low == pytest.approx(ref_p.low, abs=0.03 * width)
    assert perc.high == pytest.approx(ref_p.high, abs=0.03 * width)


def test_smooth_ece_with_integer_weights_equals_relplot_on_repeated_rows():
    p, y = _data(12, 300, 1.5, 1.0)
    w = np.random.default_rng(12).integers(1, 4, p.size)
    expected = relplot.smECE(np.repeat(p, w), np.repeat(y, w).astype(float))
    assert vc.ece(p, y, estimator="smooth", sample_weight=w) == pytest.approx(expected, abs=1e-6)


def test_ece_estimates_agree_with_single_estimator_calls():
    p, y = _data(13, 700, 1.2, 1.1)
    e = vc.ece_estimates(p, y, bins=12, strategy="quantile")
    for est, norm, value in [("plugin", "l1", e.plugin_l1), ("plugin", "l2", e.plugin_l2),
                             ("plugin", "max", e.plugin_max), ("debiased", "l1", e.debiased_l1),
                             ("debiased", "l2", e.debiased_l2), ("smooth", "l1", e.smooth)]:
        assert value == pytest.approx(vc.ece(p, y, bins=12, strategy="quantile", estimator=est,
                                             norm=norm), abs=1e-15)
