"""Round 21: Hosmer–Lemeshow's p-value when its groups expect few events.

``vc.hosmer_lemeshow`` referred H to chi-square with G degrees of freedom whatever the counts. That
law is asymptotic: with 10 groups of 1–4 rows (n = 10–40) it rejected calibrated scores 12–14 % of
the time at the 5 % level (scores ~ Beta(1, 9); 8–9 % for Beta(0.5, 0.5) or uniform ones). When a
group expects fewer than 5 events or non-events the p-value is now by Monte Carlo under the null
itself (every label redrawn as Bernoulli(p)), which is valid at every level; the chi-square answer
is kept, unchanged, when every group expects 5 or more (and above 20,000 rows, or with ``df=``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc


def _three_se(rate: float, k: int) -> float:
    return 3.0 * math.sqrt(rate * (1.0 - rate) / k)


def test_size_at_5_percent_with_groups_of_one_to_four_rows():
    rng = np.random.default_rng(21)
    k = 300
    rejected = {}
    for n in (10, 20, 40):
        hits = 0
        for _ in range(k):
            p = rng.beta(1.0, 9.0, n)  # a rare outcome: most groups expect well under one event
            y = (rng.random(n) < p).astype(float)
            hits += vc.hosmer_lemeshow(p, y, bins=10).p_value <= 0.05
        rejected[n] = hits / k
    # at or below the level within binomial error at each n (before: 0.14, 0.13, 0.12) ...
    assert all(rate <= 0.05 + _three_se(0.05, k) for rate in rejected.values()), rejected
    # ... and at most mildly conservative, all n together
    pooled = sum(rejected.values()) / len(rejected)
    assert abs(pooled - 0.05) <= _three_se(0.05, k * len(rejected)), rejected


def test_power_against_under_predicting_scores_remains():
    rng = np.random.default_rng(5)
    k, n = 200, 40
    hits = 0
    for _ in range(k):
        p = rng.beta(1.0, 9.0, n)
        truth = 1.0 / (1.0 + np.exp(-(np.log(p / (1.0 - p)) + 1.5)))  # the odds are e^1.5 times the model's
        y = (rng.random(n) < truth).astype(float)
        hits += vc.hosmer_lemeshow(p, y, bins=10).p_value <= 0.05
    assert hits / k >= 0.55  # about 0.75


def _groups(w, groups):
    """Rows of distinct sorted scores in groups of equal count (equal weights), or of equal weight (uneven
    weights, session 24): the row whose weight interval [before, before + w) covers j/G of the total opens
    a new group (a cut at the first row, or twice at one row, opens none)."""
    if np.ptp(w) == 0:
        return np.array_split(np.arange(w.size), groups)
    opener = np.unique(np.searchsorted(np.cumsum(w), np.arange(1, groups) * w.sum() / groups, side="right"))
    return np.split(np.arange(w.size), opener[opener > 0])


def _statistic(p, y, w, groups):
    """Hosmer–Lemeshow's H by its definition, each group in effective rows:
    Σ_g (O_g − E_g)² / (E_g (1 − E_g / n_g)) · n_g / Σ_g w², O = Σ w y, E = Σ w p, n = Σ w (rows of
    distinct sorted scores in the groups of :func:`_groups`). ``y`` may be a (configurations, rows) matrix."""
    out = 0.0
    for g in _groups(w, groups):
        o, e, m, w2 = y[..., g] @ w[g], p[g] @ w[g], w[g].sum(), (w[g] ** 2).sum()
        out = out + (o - e) ** 2 / (e * (1 - e / m)) * m / w2
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_monte_carlo_p_value_matches_the_exact_null_law(weighted):
    """16 rows in 8 groups of 2: all 2^16 label vectors enumerated give the exact P(H* >= H)."""
    rng = np.random.default_rng(3)
    n, groups = 16, 8
    p = np.sort(rng.uniform(0.02, 0.6, n))
    w = rng.uniform(0.2, 5.0, n) if weighted else np.ones(n)
    y = (rng.random(n) < np.clip(p + 0.25, 0, 1)).astype(float)  # somewhat under-predicted
    configs = np.array(list(itertools.product((0.0, 1.0), repeat=n)))
    prob = np.prod(np.where(configs == 1.0, p, 1.0 - p), axis=1)
    h_obs = _statistic(p, y, w, groups)
    exact = float(prob[_statistic(p, configs, w, groups) >= h_obs * (1 - 1e-9)].sum())
    r = 20000
    t = vc.hosmer_lemeshow(p, y, bins=groups, sample_weight=w if weighted else None, n_resamples=r)
    assert t.statistic == pytest.approx(h_obs, rel=1e-9)
    assert t.method == "monte-carlo" and t.n_resamples == r and t.random_state == 0
    assert abs(t.p_value - exact) <= 4 * math.sqrt(exact * (1 - exact) / r) + 1 / r, (t.p_value, exact)
    assert 0.001 < exact < 0.5  # a p-value the comparison can see


def test_monte_carlo_p_value_is_seeded_reported_and_order_free():
    rng = np.random.default_rng(8)
    n = 30
    p = rng.beta(1.0, 9.0, n)
    y = (rng.random(n) < p).astype(float)
    w = rng.uniform(0.5, 2.0, n)
    t = vc.hosmer_lemeshow(p, y, sample_weight=w)
    assert t.method == "monte-carlo" and t.min_expected < 5 and t.n_resamples == 2000
    again = vc.hosmer_lemeshow(p, y, sample_weight=w)
    order = rng.permutation(n)
    shuffled = vc.hosmer_lemeshow(p[order], y[order], sample_weight=w[order])
    scaled = vc.hosmer_lemeshow(p, y, sample_weight=1e6 * w)
    assert again.p_value == t.p_value == shuffled.p_value == scaled.p_value
    assert (1 / 2001) <= t.p_value <= 1.0 and (t.p_value * 2001) == pytest.approx(round(t.p_value * 2001))
    other = vc.hosmer_lemeshow(p, y, sample_weight=w, random_state=1)
    assert other.random_state == 1 and other.p_value == pytest.approx(t.p_value, abs=0.05)
    text = str(t)
    assert "Monte-Carlo p = " in text and "2,000 label redraws" in text and "random_state 0" in text
    assert "df =" not in text
    d = t.to_dict()
    assert (d["method"], d["n_resamples"], d["random_state"]) == ("monte-carlo", 2000, 0)
    both = vc.calibration_tests(p, y, sample_weight=w, n_resamples=500, random_state=2)
    assert both.hosmer_lemeshow.n_resamples == 500 and both.hosmer_lemeshow.random_state == 2
    assert "Monte-Carlo p" in str(both)


def test_large_counts_keep_the_chi_square_answer():
    """Every group expecting 5 or more events and non-events: chi-square with G df, as before."""
    rng = np.random.default_rng(2)
    p = rng.uniform(0.1, 0.9, 5000)
    y = (rng.random(5000) < p).astype(float)
    t = vc.hosmer_lemeshow(p, y)
    assert t.method == "chi-square" and t.n_resamples is None and t.min_expected >= 5
    assert t.p_value == pytest.approx(stats.chi2.sf(t.statistic, 10), rel=1e-12)
    want = f"Hosmer-Lemeshow H = {t.statistic:.3f}, df = 10, p = {t.p_value:.4f} (10 equal-count bins)"
    assert str(t) == want


def test_chi_square_is_kept_but_flagged_when_df_is_given_or_the_rows_are_many():
    rng = np.random.default_rng(4)
    p = rng.beta(1.0, 9.0, 30)
    y = (rng.random(30) < p).astype(float)
    development = vc.hosmer_lemeshow(p, y, df=8)  # the development-sample convention: its own law
    assert development.method == "chi-square"
    assert development.p_value == pytest.approx(stats.chi2.sf(development.statistic, 8), rel=1e-12)
    assert "< 5: chi-square approximate" in str(development)
    p = rng.beta(1.0, 400.0, 30000)  # the lowest groups expect about 1 event: above 20,000 rows
    y = (rng.random(30000) < p).astype(float)
    big = vc.hosmer_lemeshow(p, y)
    assert big.method == "chi-square" and big.min_expected < 5 and "chi-square approximate" in str(big)
    assert big.p_value == pytest.approx(stats.chi2.sf(big.statistic, 10), rel=1e-12)


def test_a_contradicted_score_of_0_has_p_value_0_by_either_law():
    p = np.array([0.0, 0.05, 0.1, 0.2, 0.3, 0.5])
    y = np.array([1, 0, 0, 1, 0, 1])
    t = vc.hosmer_lemeshow(p, y, bins=6)
    assert t.statistic == math.inf and t.p_value == 0.0 and t.method == "monte-carlo"
