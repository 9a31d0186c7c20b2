"""Round 32: ``vc.compare_models``' weighted ΔAUC (DeLong's paired test, ``veracity.core._delong``) holds its
level and covers the true difference under heavy-tailed weights — where the interval of one weighted AUC
does not (the audit's bootstrap interval carries a note there: ``veracity.honest._bootstrap``, "Weighted
AUC"; tests/claims/test_claims_bootstrap_r32.py).

Data: p ~ U(0, 1), y ~ Bernoulli(p), weights w = exp(sigma Z + 2p) (sigma = 1.2: the smaller class's Kish
effective size is about 15-60 on 300 rows), two models s = logit(p) + N(0, tau). The weighted AUC estimates
E[w w' [s > s'] | y = 1, y' = 0] / (E[w | y = 1] E[w | y = 0]); the factor exp(sigma Z) is independent of the
rest and cancels, so the true AUC is that of the tilted class densities f_1(x) ∝ x e^{2x}, f_0(x) ∝ (1 - x)
e^{2x} of p, read through the model's noise: int int f_1(x) f_0(x') Phi((logit x - logit x') / (tau sqrt 2)),
by quadrature (:func:`_true_auc`; tau = 0 is the claims test's closed form 0.82648).

Wider seeded runs (/tmp/s32/cmpauc, 3,000-4,000 draws a setting; sigma 0, 0.5, 1, 1.2; 300 and 1,000 rows;
exchangeable pairs at tau 0.3, 1, 3 and pairs tau 0 vs 1, 0.5 vs 1, 0 vs 2.5, 2 vs 3): the null rejected in
2.2-5.5 % of draws at 5 %, the 95 % interval covered the true difference (0.036-0.15) in 0.940-0.964; the same
draws' DeLong interval of one weighted AUC covered 0.90-0.945 at sigma >= 1. Outside that grid (p ~ Beta(0.3,
0.3): AUCs near 0.93, a difference of 0.08) the ΔAUC interval covered 0.929-0.944, missing on one side
(DeLong's skew near an AUC of 1, seen unweighted too: 0.942 on 1,000 rows), and t on the smaller class's Kish
size less one (0.936 where 0.929) did not mend it.

Tolerances: three Monte Carlo standard errors of the nominal rate; seeds fixed; about 3 s on one core.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.core._delong import delong_covariance, delong_test, rank_models

LEVEL = 0.95
TILT = 2.0


def _three_se(rate: float, k: int) -> float:
    return 3.0 * float(np.sqrt(rate * (1.0 - rate) / k))


@lru_cache(maxsize=None)
def _true_auc(tau: float, m: int = 2000) -> float:
    """The population weighted AUC of the model logit(p) + N(0, tau) (module doc), on an m-point midpoint
    grid (an m x m normal cdf: once per tau and grid)."""
    x = (np.arange(m) + 0.5) / m
    f1, f0 = x * np.exp(TILT * x), (1.0 - x) * np.exp(TILT * x)
    f1, f0 = f1 / f1.sum(), f0 / f0.sum()
    if tau == 0.0:
        return float(np.dot(f1, np.cumsum(f0) - f0 / 2.0))
    logit = np.log(x / (1.0 - x))
    return float(f1 @ stats.norm.cdf((logit[:, None] - logit[None, :]) / (tau * np.sqrt(2.0))) @ f0)


def _draw(rng: np.random.Generator, n: int, sigma: float, tau_a: float, tau_b: float):
    p = rng.random(n)
    y = (rng.random(n) < p).astype(float)
    w = np.exp(rng.normal(0.0, sigma, n) + TILT * p)
    logit = np.log(p / (1.0 - p))
    a = logit + tau_a * rng.normal(size=n) if tau_a else logit.copy()
    b = logit + tau_b * rng.normal(size=n) if tau_b else logit.copy()
    return a, b, y, w


def _smaller_kish(y: np.ndarray, w: np.ndarray) -> float:
    return min(float(w[y == c].sum() ** 2 / (w[y == c] ** 2).sum()) for c in (0.0, 1.0))


@lru_cache(maxsize=None)
def _simulate(tau_a: float, tau_b: float, draws: int, seed: int, sigma: float = 1.2,
              n: int = 300) -> np.ndarray:
    """Per draw: (ΔAUC covered, p-value, model A's one-AUC DeLong interval covered, smaller Kish size); draws
    with a class of Kish size below 10 (the ΔAUC interval is n/a there: MIN_CLASS_ROWS) are left out."""
    truth_a, truth_b = _true_auc(tau_a), _true_auc(tau_b)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        a, b, y, w = _draw(rng, n, sigma, tau_a, tau_b)
        kish = _smaller_kish(y, w)
        if kish < 10.0:
            continue
        ranked = rank_models([a, b], y, w)
        cov = delong_covariance(ranked, y, w)
        e = delong_test(ranked, cov, 0, 1, LEVEL)
        # the normal interval of A's own AUC (core._delong.auc_interval's before it moved to the logit scale
        # with t on the smaller class's Kish size, session 32): the contrast this setting is hard for
        half = float(stats.norm.ppf(0.5 + LEVEL / 2)) * float(np.sqrt(cov[0, 0]))
        low_a, high_a = ranked[0].auc - half, ranked[0].auc + half
        out.append((e.low <= truth_b - truth_a <= e.high, e.p_value, low_a <= truth_a <= high_a, kish))
    return np.array(out, dtype=float)


def test_true_weighted_auc_oracle():
    # tau = 0 is the closed form of tests/claims/test_claims_bootstrap_r32.py; a finer grid agrees; a huge
    # seeded draw of the weighted AUC agrees within its Monte Carlo error
    assert _true_auc(0.0) == pytest.approx(0.8264788, abs=1e-6)
    assert _true_auc(1.0) == pytest.approx(_true_auc(1.0, m=1000), abs=1e-6)
    a, b, y, w = _draw(np.random.default_rng(1), 400_000, 0.5, 0.0, 1.0)  # Monte Carlo SE about 3e-4
    ranked = rank_models([a, b], y, w / w.max())
    assert ranked[1].auc - ranked[0].auc == pytest.approx(_true_auc(1.0) - _true_auc(0.0), abs=1.5e-3)


def test_simulated_aucs_are_what_compare_models_reports():
    # the simulation reads core._delong directly (fast); vc.compare_models' AUC row is that estimate (to
    # rounding: compare_models reads the weights unscaled) for probability and ranking scores alike
    rng = np.random.default_rng(7)
    for _ in range(3):
        a, b, y, w = _draw(rng, 300, 1.2, 0.0, 1.0)
        ranked = rank_models([a, b], y, w / w.max())
        e = delong_test(ranked, delong_covariance(ranked, y, w / w.max()), 0, 1, LEVEL)
        probabilities = (1 / (1 + np.exp(-a)), 1 / (1 + np.exp(-b)))
        for scores, kind in (((a, b), "score"), (probabilities, "probability")):
            row = vc.compare_models({"A": scores[0], "B": scores[1]}, y.astype(int), sample_weight=w,
                                    score_type=kind, n_resamples=0).row("auc")
            assert (row.diff, row.ci_low, row.ci_high, row.p_value) == pytest.approx(
                (e.value, e.low, e.high, e.p_value), rel=1e-12, abs=1e-15)


def test_weighted_delta_auc_holds_its_level_under_heavy_tailed_weights():
    # two exchangeable models (tau 1 each): the null is true; seeded: 3.7 % of 1,956 draws rejected at 5 %
    sim = _simulate(1.0, 1.0, 2000, 3201)
    assert np.median(sim[:, 3]) < 60  # the heavy-tailed regime: few effective rows of the smaller class
    rate = float(np.mean(sim[:, 1] < 1.0 - LEVEL))
    assert rate <= 1.0 - LEVEL + _three_se(1.0 - LEVEL, len(sim)), f"rejected in {rate:.3f} of {len(sim)}"


def test_weighted_delta_auc_interval_covers_the_true_difference_under_heavy_tailed_weights():
    # model A = logit p, model B with noise sd 1: a true difference of -0.0519. Seeded: the ΔAUC interval
    # covered 0.959 of 1,965 draws; in the same draws the normal interval of A's own weighted AUC covered 0.894
    # (the under-coverage that the audit's bootstrap interval notes), so this setting is one where a weighted
    # AUC's interval can fail
    sim = _simulate(0.0, 1.0, 2000, 3202)
    covered = float(np.mean(sim[:, 0]))
    assert covered >= LEVEL - _three_se(LEVEL, len(sim)), f"covered in {covered:.3f} of {len(sim)}"
    single = float(np.mean(sim[:, 2]))
    assert single < LEVEL - _three_se(LEVEL, len(sim)), f"one AUC's interval covered {single:.3f}"
