"""Session 34: the labels-only (classical) interval of vc.ppi_mean with uneven sample weights.

PPI's rate interval is widened for uneven labelled weights (_ppi_sums.weighted_rate_interval and
weighted_score_interval), but the ``classical`` row beside it — the labels alone, PPI at lambda = 0 — kept the
weighted mean's normal interval ybar_w +- z s_c, which covered 0.88-0.91 of true rates at a nominal 95 % in
the designs of test_ppi_weighted_coverage_r28.py (Kish size 80, log-normal weights of sigma 1.5; 600 windows)
and printed narrower than PPI's in the same window, as if the labels alone knew more than labels and scores
together. It now takes PPI's interval at lambda = 0: 0.96-0.99 there.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _logit(p: float) -> float:
    return float(np.log(p) - np.log1p(-p))


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def test_with_constant_scores_ppi_at_lambda_zero_and_the_labels_alone_print_one_interval() -> None:
    # constant scores: power tuning takes lambda 0, so PPI's estimate is the labels' weighted mean, and its
    # interval is the labels-only interval; uneven weights widened PPI's only
    rng = np.random.default_rng(34)
    n = 300
    y = (rng.random(n) < 0.08).astype(float)
    w = np.exp(1.5 * rng.normal(size=n))
    r = vc.ppi_mean(y, np.full(n, 0.08), np.full(2000, 0.08), sample_weight=w, sample_check="off")
    assert r.lam == 0.0
    assert r.estimate == pytest.approx(r.classical, abs=1e-12)
    assert (r.classical_low, r.classical_high) == pytest.approx((r.ci_low, r.ci_high), abs=1e-12)


def test_equal_weights_keep_the_unweighted_labels_only_interval() -> None:
    rng = np.random.default_rng(3)
    y = (rng.random(200) < 0.3).astype(float)
    f = np.clip(0.3 + 0.1 * rng.normal(size=200), 0.01, 0.99)
    g = np.clip(0.3 + 0.1 * rng.normal(size=900), 0.01, 0.99)
    a = vc.ppi_mean(y, f, g, sample_check="off")
    b = vc.ppi_mean(y, f, g, sample_weight=np.full(200, 2.5), sample_check="off")
    assert (a.classical_low, a.classical_high) == (b.classical_low, b.classical_high)


def _window(rng: np.random.Generator, size: int, rate: float, sigma: float, corr: float):
    z = rng.normal(size=size)
    q = _expit(_logit(rate) + z)
    y = (rng.random(size) < q).astype(float)
    f = _expit(np.log(q) - np.log1p(-q) + rng.normal(0, 0.7, size))
    e = corr * z + np.sqrt(1 - corr ** 2) * rng.normal(size=size)
    return y, f, np.exp(sigma * e)


@pytest.mark.parametrize(("rate", "corr"), [(0.05, 0.0), (0.05, 0.5)])  # classical covered 0.91, 0.88 before
def test_weighted_labels_only_interval_covers_the_weighted_rate(rate: float, corr: float) -> None:
    sigma, kish, windows = 1.5, 80, 400
    x, h = np.polynomial.hermite_e.hermegauss(120)  # E[w q] / E[w]: the risk's law tilted by the weight
    truth = float(h @ _expit(_logit(rate) + x + sigma * corr) / h.sum())
    n = int(round(kish * np.exp(sigma ** 2)))
    rng = np.random.default_rng(2034)
    hits = []
    for _ in range(windows):
        y, f, w = _window(rng, n, rate, sigma, corr)
        _, g, u = _window(rng, 2000, rate, sigma, corr)
        r = vc.ppi_mean(y, f, g, sample_weight=w, sample_weight_unlabelled=u, sample_check="off")
        hits.append(r.classical_low <= truth <= r.classical_high)
    assert np.mean(hits) >= 0.935
