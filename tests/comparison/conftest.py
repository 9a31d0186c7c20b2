"""Helpers shared by the comparison tests (``from .conftest import delong_draws``, as tests/sql and
tests/sources share theirs): DeLong's null simulation and the weighted two-model problems of the
round-23 DeLong tests."""

from __future__ import annotations

import numpy as np

from veracity.core._delong import delong_covariance, delong_test, rank_model


def delong_draws(n1: int, n0: int, draws: int, seed: int, weighted: bool, noise_b: float = 1.0) -> np.ndarray:
    """``(difference, se, p)`` of DeLong's paired test on ``draws`` seeded data sets of ``n1`` positives and
    ``n0`` negatives: two models, the same signal plus independent noise (sd 1 and ``noise_b``; 1:
    exchangeable, the null true), exponential weights when ``weighted``. One row per draw."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n1), np.zeros(n0)]
    out = []
    for _ in range(draws):
        z = rng.normal(size=y.size) + y
        sa, sb = z + rng.normal(size=y.size), z + noise_b * rng.normal(size=y.size)
        w = rng.exponential(size=y.size) if weighted else None
        ranked = [rank_model(sa, y, w), rank_model(sb, y, w)]
        e = delong_test(ranked, delong_covariance(ranked, y, w), 0, 1, 0.95)
        out.append((e.value, e.se, e.p_value))
    return np.array(out)


def null_rejection_rate(n1: int, n0: int, draws: int, seed: int, weighted: bool) -> float:
    """Share of ``draws`` null data sets (:func:`delong_draws`, exchangeable models) on which DeLong's
    paired test rejects at 5 %."""
    return float(np.mean(delong_draws(n1, n0, draws, seed, weighted)[:, 2] < 0.05))


def level_allowance(draws: int) -> float:
    """5 % plus three Monte Carlo standard errors of a rejection rate over ``draws`` draws."""
    return 0.05 + 3.0 * float(np.sqrt(0.05 * 0.95 / draws))


def two_model_problem(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, y, w)``: a seeded binary problem of 60-500 rows, two correlated models' probabilities, 0/1
    labels (floats) and weights in [0.2, 3)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 500))
    y = (rng.random(n) < rng.uniform(0.2, 0.6)).astype(float)
    x = rng.normal(size=n) + y * rng.uniform(0.2, 2.0)
    a = 1 / (1 + np.exp(-(x + 0.7 * rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(1.3 * x - 0.5 + 0.5 * rng.normal(size=n))))
    return a, b, y, rng.uniform(0.2, 3.0, n)


def float_near_tie(seed: int = 0, n: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two models that rank alike but for float ties: A's scores rounded to 5 decimals (29 tied values among
    2,000), B = A^1.2 (monotone) + N(0, 1e-9). Returns (a, b, y)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    a = np.round(1 / (1 + np.exp(-x)), 5)
    b = np.clip(a ** 1.2 + rng.normal(scale=1e-9, size=n), 0, 1)
    return a, b, y


def wilson_oracle(k: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval written out (an oracle independent of veracity's), modified (round 34): an end
    moved out to Garwood's exact Poisson bound where its count, k or n - k, is below 10; and (round 35) the
    end toward the nearer bound of a count of 10 or more to Clopper-Pearson's exact one where further out."""
    from scipy import stats

    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * np.sqrt(k * (n - k) / n + z * z / 4)
    low, high = centre - half, centre + half
    tail = stats.norm.cdf(-z)
    if 0 < k < 10:
        low = min(low, stats.gamma.ppf(tail, k) / n)
    elif 10 <= k <= n - k:
        low = min(low, stats.beta.ppf(tail, k, n - k + 1))
    if 0 < n - k < 10:
        high = max(high, 1 - stats.gamma.ppf(tail, n - k) / n)
    elif 10 <= n - k <= k:
        high = max(high, stats.beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def paired_t_tails(draw, truth, reps: int, seed: int, keep) -> np.ndarray:
    """Seeded simulation of the paired-t intervals of (Brier, log loss): ``draw(rng) -> (a, b, _, y)`` two
    models' scores and the labels, kept where ``keep(k)`` for k >= 1 the rows of the smaller class, until
    ``reps`` draws; per metric, the shares of draws whose 95 % interval lies above ``truth[m]`` and below it."""
    from veracity.comparison._paired import paired_losses
    from veracity.core._validation import Binary

    rng = np.random.default_rng(seed)
    out, used = np.zeros((2, 2)), 0
    while used < reps:
        a, b, _, y = draw(rng)
        k = int(min(y.sum(), y.size - y.sum()))
        if k < 1 or not keep(k):
            continue
        _, est = paired_losses([Binary(p=a, y=y, w=None), Binary(p=b, y=y, w=None)], [(0, 1)], None, 0.95)
        for m, e in enumerate(est[(0, 1)]):
            out[m] += (truth[m] < e.low, truth[m] > e.high)
        used += 1
    return out / reps
