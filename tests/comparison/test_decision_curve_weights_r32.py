"""Round 32: the decision curve's MOVER interval under sample weights.

Round 31 put both shares' Wilson intervals (a = TP/W, b = FP/W) at one overall Kish size. A share's variance
is read from the weights of its own rows and of the rest, [(1 - a)^2 S_D + a^2 (S - S_D)] / W^2, so under
weights that differ between the rows a share counts and the others one Kish size misreads it: with positives
weighing 1/π (class balancing) at a 5 % rate on 1,000 rows the interval covered the net benefit in 0.79-0.88
of draws at t = 0.1-0.3, with weights growing with the score (exp(0.4 x)) 0.78-0.88 at t = 0.2-0.5 (1,000
data sets per cell). Each share now has its own effective size
(veracity.comparison._decision_curve.share_size). Truths are integrals over the simulation's law, not the
code's output on a large sample.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import wilson_oracle

THRESHOLDS = np.array([0.02, 0.1, 0.2, 0.3, 0.5])
BASE = -3.3715  # sigmoid(BASE + x), x ~ N(0, 1): a 5 % event rate
RATE = 0.05


def _sig(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _weights(scheme: str, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weights of positives and of negatives at x: class balancing (positives 1/π) or exp(0.4 x)."""
    if scheme == "class":
        return np.full_like(x, 1.0 / RATE), np.ones_like(x)
    return np.exp(0.4 * x), np.exp(0.4 * x)


def _truth(scheme: str) -> np.ndarray:
    """E[w y F] / E[w] - k E[w (1 - y) F] / E[w] for the overconfident model sigmoid(BASE + 0.4 + 1.3 x),
    F = [p >= t], y ~ Bernoulli(sigmoid(BASE + x)) (a fine grid over x)."""
    x = np.linspace(-9.0, 9.0, 360_001)
    f = np.exp(-x * x / 2.0) / np.sqrt(2.0 * np.pi) * (x[1] - x[0])
    q = _sig(BASE + x)
    w1, w0 = _weights(scheme, x, q)
    flag = (_sig(BASE + 0.4 + 1.3 * x) >= THRESHOLDS[:, None]) * 1.0
    total = (w1 * q + w0 * (1.0 - q)) @ f
    odds = THRESHOLDS / (1.0 - THRESHOLDS)
    return (flag @ (w1 * q * f) - odds * (flag @ (w0 * (1.0 - q) * f))) / total


def test_the_base_gives_the_event_rate():
    x = np.linspace(-9.0, 9.0, 360_001)
    f = np.exp(-x * x / 2.0) / np.sqrt(2.0 * np.pi) * (x[1] - x[0])
    assert _sig(BASE + x) @ f == pytest.approx(RATE, abs=1e-4)


@pytest.mark.parametrize(("scheme", "seed"), [("class", 1), ("score", 2)])
def test_weighted_interval_covers_the_net_benefit(scheme, seed):
    # 1,000 rows, 250 data sets (SE 0.014 at 0.95; 0.90 is 3.6 SE below; the mean over the 5 thresholds has
    # SE under 0.01). This seed: class weights 0.95-0.98, mean 0.968 (round 31: 0.88-0.93, mean 0.905), score
    # weights 0.95-0.97, mean 0.960 (round 31: 0.81-0.91, mean 0.874)
    truth = _truth(scheme)
    rng = np.random.default_rng(seed)
    k, n = 250, 1000
    covered = np.zeros(THRESHOLDS.size)
    for _ in range(k):
        x = rng.normal(size=n)
        y = (rng.random(n) < _sig(BASE + x)).astype(int)
        w1, w0 = _weights(scheme, x, y)
        w = np.where(y == 1, w1, w0)
        dc = vc.decision_curve({"m": _sig(BASE + 0.4 + 1.3 * x)}, y, thresholds=THRESHOLDS, sample_weight=w)
        low, high = dc.ci_low["m"], dc.ci_high["m"]
        covered += (low <= truth) & (truth <= high)
    cover = covered / k
    assert cover.min() >= 0.90, cover.round(3)
    assert cover.mean() >= 0.93, cover.round(3)


def _size(d: np.ndarray, cls: np.ndarray, w: np.ndarray) -> float:
    """The documented effective size of the share of the rows ``d`` (of class ``cls``), written out:
    W / ((1 - a) rho_D + a rho_R)."""
    total, squares = w.sum(), (w * w).sum()
    a = w[d].sum() / total
    rho_d = max(squares / total, (w[cls] ** 2).sum() / w[cls].sum(),
                (w[d] ** 2).sum() / w[d].sum() if d.any() else 0.0)
    rho_r = max(squares / total, (w[~d] ** 2).sum() / w[~d].sum() if (~d).any() else 0.0)
    return total / ((1 - a) * rho_d + a * rho_r)


def test_weighted_interval_is_the_mover_of_two_wilson_intervals_at_their_own_sizes():
    rng = np.random.default_rng(4)
    x = rng.normal(size=400)
    y = (rng.random(400) < _sig(-1.5 + x)).astype(int)
    p = _sig(-1.5 + 1.3 * x)
    w = np.where(y == 1, 4.0, 1.0) * rng.lognormal(0.0, 0.5, 400)
    t = np.array([0.1, 0.3, 0.6])
    dc = vc.decision_curve({"m": p}, y, thresholds=t, sample_weight=w, level=0.9)
    total, z, pos = w.sum(), 1.6448536269514722, y == 1
    for j, tk in enumerate(t):
        k = tk / (1 - tk)
        d1, d0 = (p >= tk) & pos, (p >= tk) & ~pos
        a, b = w[d1].sum() / total, w[d0].sum() / total
        m1, m0 = _size(d1, pos, w), _size(d0, ~pos, w)
        (la, ua), (lb, ub) = wilson_oracle(a * m1, m1, z), wilson_oracle(b * m0, m0, z)
        r = np.sqrt(a * b / ((1 - a) * (1 - b)))
        nb = a - k * b
        low = nb - np.sqrt((a - la) ** 2 + (k * (ub - b)) ** 2 + 2 * r * (a - la) * k * (ub - b))
        high = nb + np.sqrt((ua - a) ** 2 + (k * (b - lb)) ** 2 + 2 * r * (ua - a) * k * (b - lb))
        assert (dc.ci_low["m"][j], dc.ci_high["m"][j]) == pytest.approx((low, high), abs=1e-12)
    # "treat all": b = 1 - a, so Wilson's interval of the weighted prevalence at its size, mapped
    k0 = t[0] / (1 - t[0])
    pi, m = w[pos].sum() / total, _size(pos, pos, w)
    lo, hi = wilson_oracle(pi * m, m, z)
    assert (dc.ci_low["all"][0], dc.ci_high["all"][0]) == pytest.approx(
        (lo - (1 - lo) * k0, hi - (1 - hi) * k0), abs=1e-12)
