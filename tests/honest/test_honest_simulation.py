"""Statistical behaviour by simulation (seeded, vectorised, a few seconds in all).

Tolerances are three binomial (or normal) standard errors of the simulation, so a
correct implementation fails with probability well under 1 %, and the seeds are fixed.
"""

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.core._validation import prepare_binary
from veracity.honest._bootstrap import bootstrap_of
from veracity.honest._noise_floor import noise_floor_of


def _three_se(rate, k):
    return 3 * np.sqrt(rate * (1 - rate) / k)


def test_noise_floor_pvalue_is_uniform_and_ece_sits_on_the_floor_under_calibration():
    rng = np.random.default_rng(0)
    k, n = 400, 300
    pvals, eces, floors = [], [], []
    for _ in range(k):
        p = rng.beta(2, 3, n)
        y = (rng.random(n) < p).astype(float)  # perfectly calibrated
        nf = noise_floor_of(prepare_binary(p, y), bins=10, n_redraws=199,
                            seed=int(rng.integers(2**31)))
        pvals.append(nf.p_value)
        eces.append(nf.ece)
        floors.append(nf.expected)
    pvals = np.array(pvals)
    for alpha in (0.05, 0.2, 0.5):
        assert abs(np.mean(pvals <= alpha) - alpha) <= _three_se(alpha, k)
    # the plug-in ECE of calibrated data is, on average, the computed noise floor
    eces, floors = np.array(eces), np.array(floors)
    assert abs(eces.mean() - floors.mean()) <= 3 * eces.std(ddof=1) / np.sqrt(k)


def test_noise_floor_pvalue_is_tiny_on_a_miscalibrated_model():
    rng = np.random.default_rng(1)
    n = 2000
    p = rng.random(n)
    y = (rng.random(n) < 0.5 + 0.6 * (p - 0.5)).astype(float)  # over-confident
    nf = vc.ece_noise_floor(p, y, n_resamples=999, random_state=3)
    assert nf.p_value == pytest.approx(1 / 1000)
    assert nf.ece > 2 * nf.quantile_95


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_intervals_cover_true_brier_and_auc_at_the_nominal_rate(method):
    # p ~ U(0, 1), y ~ Bernoulli(p): Brier = E[p(1-p)] = 1/6 and
    # AUC = P(p+ > p-) with densities 2p and 2(1-p) = 5/6 exactly.
    rng = np.random.default_rng(2 if method == "bca" else 3)
    k, n = 200, 200
    hits = {"brier": 0, "auc": 0}
    truth = {"brier": 1 / 6, "auc": 5 / 6}
    for _ in range(k):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(float)
        r = bootstrap_of(prepare_binary(p, y), metrics=("brier", "auc"), method=method,
                         n_resamples=300, seed=int(rng.integers(2**31)))
        for m in hits:
            hits[m] += r[m].low <= truth[m] <= r[m].high
    for m, h in hits.items():
        assert abs(h / k - 0.95) <= _three_se(0.95, k), (m, h / k)


def test_spiegelhalter_z_is_standard_normal_under_calibration():
    rng = np.random.default_rng(4)
    k, n = 1500, 150
    z = np.empty(k)
    for i in range(k):
        p = rng.beta(1.5, 2.5, n)
        y = (rng.random(n) < p).astype(float)
        z[i] = vc.spiegelhalter(p, y).statistic
    assert abs(z.mean()) <= 3 / np.sqrt(k)
    assert abs(z.std(ddof=1) - 1) <= 3 / np.sqrt(2 * k)
    assert stats.kstest(z, "norm").pvalue > 0.001
    p_values = 2 * stats.norm.sf(np.abs(z))
    assert abs(np.mean(p_values <= 0.05) - 0.05) <= _three_se(0.05, k)


def test_spiegelhalter_and_slope_detect_overconfidence():
    rng = np.random.default_rng(5)
    n = 3000
    logit = rng.normal(0, 3, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit / 2))).astype(float)  # true tau = 2
    assert vc.spiegelhalter(logit, y, score_type="logit").p_value < 1e-6
    s = vc.calibration_slope(logit, y, score_type="logit")
    assert abs(s.slope - 0.5) < 3 * s.slope_se
    assert s.slope_p_value < 1e-6
    hl = vc.hosmer_lemeshow(logit, y, score_type="logit")
    # extreme scores: groups expecting under 5 events, a Monte-Carlo p-value (round 21): no redraw of
    # 2,000 comes near, the smallest p-value R redraws can give; the chi-square law's is far below
    assert hl.method == "monte-carlo" and hl.p_value == 1 / 2001
    assert vc.hosmer_lemeshow(logit, y, score_type="logit", df=10).p_value < 1e-6
