"""Round 32: seeded simulations of three printed statistical claims that had none (the rule "statistics are
claims"): ``vc.bootstrap_intervals``' interval of a weighted AUC (the audit's honest section reads the same
``bootstrap_of``), its bias-aware ECE / MCE intervals on multiclass (N, K) top-label scores, and the Wald
intervals of ``vc.calibration_slope`` on top-label scores.

Tolerances are three Monte-Carlo standard errors of the simulated rate, 3 sqrt(r (1 - r) / R) at the
nominal rate r; the seeds are fixed. The file runs in about 10 s on one core.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from scipy import integrate, stats

import veracity as vc

LEVEL = 0.95


def _three_se(rate: float, k: int) -> float:
    return 3 * np.sqrt(rate * (1 - rate) / k)


def _categorical(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One label per row drawn from that row's class probabilities (vectorised inverse-CDF draw)."""
    u = rng.random((probs.shape[0], 1))
    return np.minimum((u > np.cumsum(probs, axis=1)).sum(axis=1), probs.shape[1] - 1)


# -- 1. the bootstrap interval of a weighted AUC covers the population's weighted AUC --------------------
# Calibrated uniform scores (y ~ Bernoulli(p), p ~ U(0, 1)) with log-normal weights rising with the score,
# w = exp(sigma Z + c p). The weighted AUC sum_{i pos, j neg} w_i w_j [p_i > p_j] / (W_1 W_0) estimates
# E[w w' [p > p'] | y = 1, y' = 0] / (E[w | y = 1] E[w | y = 0]); the factor exp(sigma Z) is independent of
# everything else and cancels, so the truth is the AUC of the tilted class densities
# f_1(x) ∝ x e^{cx}, f_0(x) ∝ (1 - x) e^{cx}: int f_1 F_0 (0.82648 at c = 2; 5/6 unweighted). Intervals
# that are not shown (n/a: a class's Kish effective size below 10, the documented refusal) are not counted.

def _population_weighted_auc(c: float) -> float:
    """int_0^1 f_1(x) F_0(x) dx for the tilted densities above (c != 0), F_0 in closed form."""
    def f0_mass(x: float) -> float:  # int_0^x (1 - t) e^{ct} dt
        return ((1 - x) * np.exp(c * x) - 1) / c + (np.exp(c * x) - 1) / c ** 2

    def f1_mass(x: float) -> float:  # int_0^x t e^{ct} dt
        return (x * np.exp(c * x)) / c - (np.exp(c * x) - 1) / c ** 2

    num, _ = integrate.quad(lambda x: x * np.exp(c * x) * f0_mass(x), 0.0, 1.0, epsabs=1e-12)
    return num / (f1_mass(1.0) * f0_mass(1.0))


@lru_cache(maxsize=None)
def _weighted_auc_coverage(sigma: float, n: int, draws: int, c: float = 2.0) -> tuple[float, int, int]:
    """(coverage, intervals shown, those shown with the note "may under-cover")."""
    truth = _population_weighted_auc(c)
    rng = np.random.default_rng(3210)
    hits = shown = noted = 0
    for r in range(draws):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        w = np.exp(rng.normal(0.0, sigma, n) + c * p)
        row = vc.bootstrap_intervals(p, y, sample_weight=w, metrics="auc", n_resamples=199,
                                     random_state=r)["auc"]
        if np.isfinite(row.low):
            shown += 1
            hits += row.low <= truth <= row.high
            noted += "may under-cover" in row.note
    return hits / shown, shown, noted


def test_population_weighted_auc_oracle():
    # the oracle itself: a grid (midpoint rule on the cumulative negative mass) agrees, and at c -> 0 the
    # tilted AUC tends to the unweighted 5/6 (it falls by about 0.0035 per unit of c)
    x = (np.arange(1_000_000) + 0.5) / 1_000_000
    f1, f0 = x * np.exp(2 * x), (1 - x) * np.exp(2 * x)
    f1, f0 = f1 / f1.sum(), f0 / f0.sum()
    assert _population_weighted_auc(2.0) == pytest.approx(float(np.dot(f1, np.cumsum(f0) - f0 / 2)), abs=1e-9)
    assert _population_weighted_auc(0.01) == pytest.approx(5 / 6, abs=1e-4)


def test_weighted_auc_interval_covers_with_moderate_lognormal_weights():
    # sigma = 0.3: the score's tilt e^{2p} (7.4 across) and a mild noise factor (quartiles 1.5 apart)
    rate, shown, noted = _weighted_auc_coverage(sigma=0.3, n=1000, draws=250)
    assert rate >= LEVEL - _three_se(LEVEL, shown), f"covered in {rate:.3f} of {shown}"
    assert noted == 0  # Kish sizes of 300 and more: no note


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "bootstrap intervals (BCa and percentile alike) of a weighted AUC under-cover with heavy-tailed "
    "log-normal weights: seeded, this setting (sigma = 1.2, 300 rows) covered in 0.873 of 292 shown; "
    "sigma = 1 (the weights of test_claims_r32.py) 0.906 of 1000 draws of 300 rows, 0.898 of 600 of 1000 "
    "rows; unweighted at the same class sizes (110 rows) 0.948. The bootstrap SE matches a naive "
    "bootstrap: finite-sample, not a resampling bug (DeLong, logit-DeLong and bootstrap-t: 0.90-0.91; "
    "logit jackknife-t on the Kish size 0.92-0.97 across settings). The interval now carries a note below a "
    "Kish size of 100 (test_weighted_auc_interval_on_few_effective_rows_says_it_under_covers)"))
def test_weighted_auc_interval_covers_with_heavy_tailed_lognormal_weights():
    rate, shown, _ = _weighted_auc_coverage(sigma=1.2, n=300, draws=300)
    assert rate >= LEVEL - _three_se(LEVEL, shown), f"covered in {rate:.3f} of {shown}"


def test_weighted_auc_interval_on_few_effective_rows_says_it_under_covers():
    # the note under these intervals (honest._bootstrap.WEIGHTED_AUC_NOTE) quotes 0.87-0.91 at Kish sizes
    # 10-60: every interval of the heavy-tailed setting above (Kish sizes about 15-60) carries it, and the
    # simulated coverage lies in the quoted range
    rate, shown, noted = _weighted_auc_coverage(sigma=1.2, n=300, draws=300)
    assert noted == shown
    tol = _three_se(0.89, shown)
    assert 0.87 - tol <= rate <= 0.91 + tol, f"covered in {rate:.3f} of {shown}"


# -- 2. bias-aware ECE / MCE intervals of multiclass (N, K) top-label scores cover the true binned ECE / MCE
# The binary case is tests/honest/test_honest_ece_interval_simulation.py. Here P ~ Dirichlet(0.6, 0.6, 0.6)
# is the model and the labels are drawn from Q = P^t / sum P^t (t = 1 calibrated, t < 1 the model is
# over-confident, t > 1 under-confident). The truth, on the 15 fixed equal-width bins (the default) of the
# top-label confidence conf = max_k P_k, from one huge draw of P (no label noise: E[correct | P] = Q_top):
# ECE = sum_b pi_b |E[Q_top - conf | bin b]|; the MCE interval is conditional on the bins it reads (those
# with at least min_count = 20 rows in the sample), so its truth is the largest |population gap| among them.

_BINS = 15


def _sharpen(P: np.ndarray, t: float) -> np.ndarray:
    if t == 1.0:
        return P
    Q = P ** t
    return Q / Q.sum(axis=1, keepdims=True)


@lru_cache(maxsize=1)
def _truth_draw(rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The one huge draw of P behind every t's truth (seed 3220), its top label, confidence, bin and bin
    counts: drawn once per process (0.4 s), not once per t."""
    rng = np.random.default_rng(3220)
    P = rng.dirichlet([0.6, 0.6, 0.6], rows)
    top = P.argmax(axis=1)
    conf = P[np.arange(rows), top]
    b = np.minimum((conf * _BINS).astype(int), _BINS - 1)
    return P, top, conf, b, np.bincount(b, minlength=_BINS)


def _top_label_truth(t: float, rows: int = 1_000_000) -> tuple[float, np.ndarray]:
    P, top, conf, b, count = _truth_draw(rows)
    gap = np.abs(np.bincount(b, weights=_sharpen(P, t)[np.arange(rows), top] - conf, minlength=_BINS))
    return float(gap.sum() / rows), gap / np.maximum(count, 1)


@pytest.mark.parametrize("t", [1.0, 0.6, 1.5], ids=["calibrated", "over-confident", "under-confident"])
def test_top_label_ece_and_mce_intervals_cover_the_true_binned_errors(t):
    ece_truth, gap = _top_label_truth(t)
    rng = np.random.default_rng(3221)
    draws, n = 200, 1000
    hits = {"ece": 0, "mce": 0}
    for r in range(draws):
        P = rng.dirichlet([0.6, 0.6, 0.6], n)
        y = _categorical(rng, _sharpen(P, t))
        res = vc.bootstrap_intervals(P, y, metrics=("ece", "mce"), n_resamples=99, random_state=r, bins=_BINS)
        b = np.minimum((P.max(axis=1) * _BINS).astype(int), _BINS - 1)
        mce_truth = gap[np.bincount(b, minlength=_BINS) >= 20].max()
        hits["ece"] += res["ece"].low <= ece_truth <= res["ece"].high
        hits["mce"] += res["mce"].low <= mce_truth <= res["mce"].high
    for name, h in hits.items():
        assert res[name].method == "bias-aware"
        assert h / draws >= LEVEL - _three_se(LEVEL, draws), f"{name}: covered in {h / draws:.3f} of {draws}"


# -- 3. calibration_slope on (N, K) top-label scores: estimate +- z SE covers the truth ---------------------
# ``vc.calibration_slope`` accepts (N, K) scores and fits logit P(correct) = a + b logit(confidence). A
# correctly specified top-label model: confidence c ~ U(0.45, 0.97) on a random class, the rest split
# between the other two (each below c), and the label is the top class with probability
# sigmoid(a + b logit c), else one of the others. The truth is then (a, b) itself; with b = 1 the
# calibration-in-the-large model logit P = alpha + logit c holds too, with alpha = a. Weighted: log-normal
# weights rising with the confidence (the sandwich SEs).

def _top_label_rows(rng: np.random.Generator, n: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    c = rng.uniform(0.45, 0.97, n)
    u = rng.uniform(0.3, 0.7, n)
    rows = np.arange(n)
    top = rng.integers(0, 3, n)
    others = (top[:, None] + np.array([1, 2])) % 3
    P = np.empty((n, 3))
    P[rows, top] = c
    P[rows[:, None], others] = np.column_stack([u, 1 - u]) * (1 - c)[:, None]
    eta = np.log(c / (1 - c))
    right = rng.random(n) < 1 / (1 + np.exp(-(a + b * eta)))
    y = np.where(right, top, others[rows, (rng.random(n) < 0.5).astype(int)])
    return P, y


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "lognormal weights"])
@pytest.mark.parametrize("a, b", [(0.3, 0.6), (0.4, 1.0)], ids=["over-confident", "slope 1"])
def test_top_label_calibration_slope_wald_intervals_cover_the_truth(a, b, weighted, monkeypatch):
    # the SEs' coverage only: the p-values' label redraws (Monte Carlo under skewing uneven weights since
    # session 43) are not read here, so a few keep the fits quick
    from veracity.honest import _tests

    monkeypatch.setattr(_tests, "_WALD_REDRAWS", 19)
    draws, n = 300, 400
    z = stats.norm.ppf(1 - (1 - LEVEL) / 2)
    rng = np.random.default_rng(3230 + weighted + 2 * (b == 1.0))
    hits = {"intercept": 0, "slope": 0, "citl": 0}
    for _ in range(draws):
        P, y = _top_label_rows(rng, n, a, b)
        conf = P.max(axis=1)
        w = np.exp(rng.normal(0.0, 0.8, n) + 0.5 * np.log(conf / (1 - conf))) if weighted else None
        fit = vc.calibration_slope(P, y, sample_weight=w)
        hits["intercept"] += abs(fit.intercept - a) <= z * fit.intercept_se
        hits["slope"] += abs(fit.slope - b) <= z * fit.slope_se
        hits["citl"] += abs(fit.citl - a) <= z * fit.citl_se
    assert fit.top_label
    if b != 1.0:  # calibration-in-the-large has a truth only where its model holds
        del hits["citl"]
    for name, h in hits.items():
        assert h / draws >= LEVEL - _three_se(LEVEL, draws), f"{name}: covered in {h / draws:.3f} of {draws}"
