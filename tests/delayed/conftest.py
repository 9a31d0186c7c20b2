"""Shared oracles of the delayed-label tests: Wilson's and the modified Wilson interval, written out."""

from __future__ import annotations

import numpy as np
import pytest

Z = 1.959963984540054


def wilson(p, n_star, z=Z):
    """Wilson's score interval for a proportion p of n_star trials, written out."""
    centre = (p + z * z / (2 * n_star)) / (1 + z * z / n_star)
    half = z / (1 + z * z / n_star) * np.sqrt(p * (1 - p) / n_star + z * z / (4 * n_star**2))
    return centre - half, centre + half


def modified_wilson(p, n_star, z=Z):
    """Brown, Cai & DasGupta's (2001) modified Wilson interval, written out: Wilson's ends, each lowered
    (raised) to Garwood's exact Poisson bound chi2_{2x, alpha/2} / (2 n*) where the count x = p n* (or n* - x)
    is below 10 (session 24: Wilson's lower end alone missed the truth below it 4.9 % of the time at a nominal
    2.5 %, tests/delayed/test_ppi_rare_rate_r24.py)."""
    from scipy.stats import chi2, norm

    alpha = 2 * norm.sf(z)
    lo, hi = wilson(p, n_star, z)
    x, x_ = p * n_star, (1 - p) * n_star
    if 0 < x < 10:
        lo = min(lo, chi2.ppf(alpha / 2, 2 * x) / 2 / n_star)
    if 0 < x_ < 10:
        hi = max(hi, 1 - chi2.ppf(alpha / 2, 2 * x_) / 2 / n_star)
    return (0.0 if p <= 0 else min(max(lo, 0.0), p)), (1.0 if p >= 1 else max(min(hi, 1.0), p))


@pytest.fixture
def rare_window() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A window of 20 labels with 2 positives where scores near 0.001 expect 0.02 (labels, their scores,
    3,000 unlabelled scores): the rare-class judgement's test case (round 28)."""
    rng = np.random.default_rng(40)
    f = np.clip(rng.normal(0.001, 0.001 / 3, 20), 1e-4, 1)
    y = np.zeros(20)
    y[:2] = 1
    return y, f, np.clip(rng.normal(0.001, 0.001 / 3, 3000), 1e-4, 1)


def risk_weighted_rows(rng: np.random.Generator, size: int, rate: float, sigma: float, corr: float,
                       noise: float = 0.7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The weighted PPI designs' rows: risk q (logit-normal around ``rate``), outcome y ~ Bernoulli(q), score
    a noisy q (``noise`` on the logit scale), log-normal weight whose log has correlation ``corr`` with the
    risk. Returns (y, f, w)."""
    from scipy.special import expit, logit

    z = rng.normal(size=size)
    q = expit(logit(rate) + z)
    y = (rng.random(size) < q).astype(float)
    f = expit(logit(q) + rng.normal(0, noise, size))
    e = corr * z + np.sqrt(1 - corr ** 2) * rng.normal(size=size)
    return y, f, np.exp(sigma * e)

