"""DeLong's interval of one AUC (core._delong.auc_interval), session 32: the normal interval
AUC ± z·se under-covered near an AUC of 1 — unweighted too (0.884 at AUC 0.95 with about 30 positives) and
heavily with heavy-tailed weights (0.891 at AUC 0.85, log-normal sigma 1.2, smaller Kish size about 29).
Now logit(AUC) ± t·se/(AUC(1 - AUC)), t on the smaller class's size (weighted: Kish's) less one.

Seeded simulation: binormal scores (negatives N(0, 1), positives N(d, 1)) with true AUC Phi(d/sqrt 2); weights
exp(sigma Z) independent of scores and labels, so the weighted AUC's population value is that same AUC."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from veracity.core._delong import auc_interval, delong_covariance, rank_models

LEVEL = 0.95


def _three_se(k: int) -> float:
    return 3.0 * float(np.sqrt(LEVEL * (1.0 - LEVEL) / k))


def _coverage(auc: float, n: int, prev: float, sigma: float, draws: int, seed: int) -> tuple[float, int]:
    """Share of draws whose interval holds the true AUC (draws with a class of Kish size below 10 left out:
    the comparison shows no AUC interval there, core._delong.MIN_CLASS_ROWS)."""
    d = np.sqrt(2.0) * stats.norm.ppf(auc)
    rng = np.random.default_rng(seed)
    hits = []
    for _ in range(draws):
        y = (rng.random(n) < prev).astype(float)
        s = rng.normal(size=n) + d * y
        w = None if sigma == 0.0 else np.exp(sigma * rng.normal(size=n))
        if w is None:
            small = min(y.sum(), n - y.sum())
        else:
            small = min(w[y == c].sum() ** 2 / (w[y == c] ** 2).sum() for c in (0.0, 1.0))
        if small < 10.0:
            continue
        ranked = rank_models([s], y, w)
        low, high = auc_interval(ranked[0], float(delong_covariance(ranked, y, w)[0, 0]), LEVEL)
        hits.append(low <= auc <= high)
    return float(np.mean(hits)), len(hits)


def test_unweighted_auc_interval_covers_near_auc_one():
    # seeded: the new interval covered 0.947 of 1,500 draws; the normal one 0.884 (0.95 - 3 SE = 0.933)
    covered, k = _coverage(0.95, 100, 0.3, 0.0, 1500, 3211)
    assert k == 1500
    assert LEVEL - _three_se(k) <= covered <= LEVEL + _three_se(k), f"covered {covered:.3f} of {k}"


def test_weighted_auc_interval_covers_under_heavy_tailed_weights():
    # log-normal weights, sigma 1.2, 300 rows (smaller Kish size about 29): new 0.939 of 1,468, normal 0.891
    covered, k = _coverage(0.85, 300, 0.3, 1.2, 1500, 3212)
    assert k > 1400
    assert LEVEL - _three_se(k) <= covered <= LEVEL + _three_se(k), f"covered {covered:.3f} of {k}"


def test_auc_interval_is_the_logit_t_formula():
    # a hand case: 3 of 4 positive-negative pairs ordered, AUC 0.75, variance given
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    y = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    ranked = rank_models([s], y, None)[0]
    auc = 8.0 / 9.0
    assert ranked.auc == pytest.approx(auc)
    var = 0.004
    t = stats.t.ppf(0.975, 2)  # 3 of each class: 2 degrees of freedom
    half = t * np.sqrt(var) / (auc * (1 - auc))
    expect = [1 / (1 + np.exp(-(np.log(auc / (1 - auc)) + sign * half))) for sign in (-1, 1)]
    assert auc_interval(ranked, var, LEVEL) == pytest.approx(expect, rel=1e-12)
    # weighted: t on the smaller class's Kish size less one (negatives: weights 1, 1, 2 -> 16/6)
    w = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 1.0])
    ranked_w = rank_models([s], y, w)[0]
    a = ranked_w.auc
    half = stats.t.ppf(0.975, 16.0 / 6.0 - 1.0) * np.sqrt(var) / (a * (1 - a))
    expect = [1 / (1 + np.exp(-(np.log(a / (1 - a)) + sign * half))) for sign in (-1, 1)]
    assert auc_interval(ranked_w, var, LEVEL) == pytest.approx(expect, rel=1e-12)


def test_auc_interval_edges():
    s = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    y = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    ranked = rank_models([s], y, None)
    var = float(delong_covariance(ranked, y, None)[0, 0])
    assert var == 0.0
    assert auc_interval(ranked[0], var, LEVEL) == (1.0, 1.0)  # perfect separation, no spread
    low, high = auc_interval(ranked[0], float("nan"), LEVEL)
    assert np.isnan(low) and np.isnan(high)
