"""Round 31: the Murphy diagram's pointwise band (vc.murphy_diagram's ``.difference``).

The per-row difference of two models' elementary scores at θ takes the values 0, ±θ and ±(1 − θ): it is
non-zero only on the rows where the two models fall on different sides of θ. Where one of those discordant
kinds is rare (a rare event, a small or large θ), the Student-t band read the handful of rows seen as the
whole law: a calibrated model A against an overconfident B at a 1 % event rate on 300 rows, the band covered
the true difference at θ = 0.02-0.1 in 55-75 % of seeded draws at 95 %, and at a 5 % rate (θ = 0.02, where the
two are tied to 2.5e-5) it called "a is better" in 77 % of them. Round 31 added half a pseudo-row to each
of the four discordant cells (Agresti & Min 2005); round 32 made the band MOVER of the four cells' Wilson
intervals (test_murphy_band_r32.py has the grid of rates, sizes and weights), see
veracity.comparison._murphy. The truths here are integrals over the simulation's law (a fine grid), not the
code's output on a large sample.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.core._paired_mean import paired_mean


def _sig(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _draw(rng: np.random.Generator, n: int, base: float, weighted: bool | float, slope: float, shift: float):
    """A calibrated model a (the true probability) and b = sigmoid(base + shift + slope x); ``weighted``
    True: log-normal weights; a number: the positives' weight (the negatives' 1)."""
    x = rng.normal(size=n)
    q = _sig(base + x)
    y = (rng.random(n) < q).astype(float)
    w = (None if weighted is False else rng.lognormal(0.0, 1.0, n) if weighted is True
         else np.where(y == 1, float(weighted), 1.0))
    return q, _sig(base + shift + slope * x), y, w


def _truth(base: float, slope: float, shift: float, theta: np.ndarray, pos_weight: float = 1.0) -> np.ndarray:
    """E[w (S_θ(b, y) - S_θ(a, y))] / E[w] under the law of :func:`_draw` (w = ``pos_weight`` for
    positives, 1 for negatives), by a fine grid over x ~ N(0, 1)."""
    x = np.linspace(-9.0, 9.0, 360_001)
    f = np.exp(-x * x / 2.0) / np.sqrt(2.0 * np.pi) * (x[1] - x[0])
    q = _sig(base + x)
    b = _sig(base + shift + slope * x)
    t = theta[:, None]
    fp = t * (1.0 - q) * ((b >= t) * 1.0 - (q >= t))
    fn = (1.0 - t) * q * ((b < t) * 1.0 - (q < t))
    return (fp @ f + pos_weight * (fn @ f)) / ((1.0 - q) @ f + pos_weight * (q @ f))


def _elementary(p: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Ehm et al. (2016): S_θ(p, y) = θ [y = 0, p ≥ θ] + (1 - θ) [y = 1, p < θ], per row and θ."""
    t = theta[None, :]
    return t * ((y[:, None] == 0) & (p[:, None] >= t)) + (1.0 - t) * ((y[:, None] == 1) & (p[:, None] < t))


def _simulate(n: int, base: float, theta: np.ndarray, *, weighted: bool | float = False, slope: float = 1.3,
              shift: float = 0.4, k: int = 200, seed: int = 7) -> dict[str, np.ndarray]:
    pos_weight = 1.0 if isinstance(weighted, bool) else float(weighted)
    truth = _truth(base, slope, shift, theta, pos_weight)
    rng = np.random.default_rng(seed)
    cover, right, wrong = np.zeros(theta.size), np.zeros(theta.size), np.zeros(theta.size)
    for _ in range(k):
        a, b, y, w = _draw(rng, n, base, weighted, slope, shift)
        d = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta, sample_weight=w).difference
        cover += (d.ci_low <= truth) & (truth <= d.ci_high)
        right += np.where(truth > 0, d.ci_low > 0, d.ci_high < 0)
        wrong += np.where(truth > 0, d.ci_high < 0, d.ci_low > 0)
    return {"truth": truth, "cover": cover / k, "right": right / k, "wrong": wrong / k}


def _wilson(share: float, size: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of a share at an effective size (Wilson 1927)."""
    centre = (share * size + z * z / 2) / (size + z * z)
    half = z / (size + z * z) * np.sqrt(share * (1 - share) * size + z * z / 4)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def _mover_band(a, b, y, w, theta, level):
    """The documented band from the rows: each discordant cell's share of Σw and Wilson interval at its
    effective size (n; weighted, (W_D / S_D) Σw of its class's discordant rows, at most the class's
    (W_c / S_c) Σw), combined by MOVER with the multinomial correlations."""
    n = y.size
    ww = np.ones(n) if w is None else w
    z = stats.norm.ppf(0.5 + level / 2)
    low, high = [], []
    for t in theta:
        fa, fb = a >= t, b >= t
        masks = [(y == 0) & fb & ~fa, (y == 0) & fa & ~fb, (y == 1) & fa & ~fb, (y == 1) & fb & ~fa]
        coef = np.array([t, -t, 1 - t, -(1 - t)])
        p = np.array([ww[m].sum() / ww.sum() for m in masks])
        sizes = []
        for cls, pair in ((0, masks[:2]), (1, masks[2:])):
            rows = ww[y == cls]
            whole = rows.sum() / (rows ** 2).sum() * ww.sum()
            d = ww[pair[0] | pair[1]]
            own = min(d.sum() / (d ** 2).sum() * ww.sum(), whole) if d.size else whole
            sizes.append(n if w is None else own)
        ends = np.array([_wilson(p[k], sizes[k // 2], z) for k in range(4)])
        # how far each cell moves the difference down and up (a cell of coefficient < 0 moves it down by
        # its upper reach)
        down = np.where(coef > 0, coef * (p - ends[:, 0]), -coef * (ends[:, 1] - p))
        up = np.where(coef > 0, coef * (ends[:, 1] - p), -coef * (p - ends[:, 0]))
        r = -np.sign(np.outer(coef, coef)) * np.sqrt(np.outer(p, p) / np.outer(1 - p, 1 - p))
        np.fill_diagonal(r, 1.0)
        d = coef @ p
        low.append(d - np.sqrt(down @ r @ down))
        high.append(d + np.sqrt(up @ r @ up))
    return np.array(low), np.array(high)


@pytest.mark.parametrize("weighted", [False, True, 9.0])
def test_band_is_mover_of_the_four_discordant_cells_wilson_intervals(weighted):
    rng = np.random.default_rng(3)
    n = 80
    a, b = rng.random(n), rng.random(n)
    y = (rng.random(n) < 0.3).astype(float)
    w = (None if weighted is False else rng.lognormal(0.0, 1.0, n) if weighted is True
         else np.where(y == 1, weighted, 1.0))
    theta = np.array([0.05, 0.2, 0.5, 0.8, 0.95])
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta, sample_weight=w).difference
    d = _elementary(b, y, theta) - _elementary(a, y, theta)
    low, high = _mover_band(a, b, y, w, theta, 0.95)
    for k in range(theta.size):
        assert m.diff[k] == pytest.approx(paired_mean(d[:, k], w, 0.95).value, abs=1e-14)
    np.testing.assert_allclose(m.ci_low, low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.ci_high, high, rtol=0, atol=1e-12)
    # the p-value inverts the band: at level 1 - p its end on 0's side meets 0
    for k in range(theta.size):
        if m.diff[k] != 0:
            lo, hi = _mover_band(a, b, y, w, theta[k:k + 1], 1 - m.p_value[k])
            assert (lo[0] if m.diff[k] > 0 else hi[0]) == pytest.approx(0.0, abs=1e-9)
        assert (m.p_value[k] < 0.05) == (m.ci_low[k] > 0 or m.ci_high[k] < 0)


def test_no_discordant_row_is_not_a_zero_width_band_but_the_same_scores_are():
    # b is a monotone map of a through 0.5: no row falls on different sides of 0.5 in this sample, but
    # that says the discordant share is small, not 0 (in another sample of other models it need not be)
    rng = np.random.default_rng(4)
    a = rng.random(200)
    y = (rng.random(200) < a).astype(float)
    b = 0.5 + 0.8 * (a - 0.5)
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.5]).difference
    # every cell empty: Wilson's upper end z²/(n + z²) in the two cells that move the difference each way
    # (round 31's half pseudo-row per cell gave ±0.0070, half of this)
    z2 = stats.norm.ppf(0.975) ** 2
    half = z2 / (200 + z2) * np.sqrt(0.5 ** 2 + 0.5 ** 2)
    assert m.diff[0] == 0.0 and m.p_value[0] == 1.0
    assert m.ci_low[0] == pytest.approx(-half, rel=1e-12) and m.ci_high[0] == pytest.approx(half, rel=1e-12)
    same = vc.murphy_diagram({"a": a, "b": a.copy()}, y, theta=[0.2, 0.5]).difference
    assert same.ci_low.tolist() == [0.0, 0.0] and same.ci_high.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(("n", "base", "theta", "weighted"), [
    (300, -4.5, [0.02, 0.05, 0.1], False),  # 1 % events (t band: 55-75 %; round 31 99-100 %)
    (300, -3.0, [0.02], False),  # 5 % events (t band: 28 %; round 31 100 %)
    (100, -3.0, [0.05], False),  # 5 % events, 100 rows (t band: 43 %; round 31 100 %)
    (300, -3.0, [0.02, 0.05, 0.1], True),  # log-normal weights (t band: 58-83 %; round 31 94-100 %)
    (300, 0.0, [0.3, 0.5, 0.7], False),  # a common rate (t band: 90-96 %; round 31 94-96 %)
    # round 32: positives weigh 19 (class-balancing weights at 5 % events): round 31's pseudo-rows were of
    # the rows' mean weight, a twentieth of a positive's; it covered 0.53-0.99 here
    (1000, -3.0, [0.05, 0.1, 0.2, 0.3, 0.5], 19.0),
])
def test_band_covers_at_rare_events_and_common_rates(n, base, theta, weighted):
    cover = _simulate(n, base, np.array(theta), weighted=weighted)["cover"]
    assert cover.min() >= 0.9, cover  # 95 % nominal; 200 draws: 0.90 is 3 standard errors below


def test_near_tie_is_not_called_a_win():
    # 5 % events, 300 rows, θ = 0.02: the true difference b - a is 2.5e-5 (the two models make the same
    # decision on all but ~3 % of rows, and there a's misses cost what b's false alarms do); the t band
    # excluded 0 ("a is better") in 77 % of draws (now none): the rare positives that a misses and b catches
    # (each -0.98 in b - a) were mostly absent from 300 rows
    out = _simulate(300, -3.0, np.array([0.02]))
    assert out["truth"][0] == pytest.approx(2.5e-5, abs=1e-5)
    assert out["right"][0] + out["wrong"][0] <= 0.05
    rng = np.random.default_rng(7)
    a, b, y, _ = _draw(rng, 300, -3.0, False, 1.3, 0.4)
    text = str(vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.02, 0.5]))
    assert "a is better at no threshold" in text


def test_power_at_a_common_rate_stays_that_of_the_t_band():
    # a planted real difference: b = sigmoid(0.4 x) ignores most of the signal; 1,000 rows at a 50 % rate;
    # the t band's calls computed here from the per-row differences (scipy's t quantile)
    theta = np.array([0.3, 0.7])
    truth = _truth(0.0, 0.4, 0.0, theta)
    assert (truth > 0.01).all()
    rng = np.random.default_rng(9)
    k, n = 150, 1000
    new, old = np.zeros(theta.size), np.zeros(theta.size)
    q = stats.t.ppf(0.975, n - 1)
    for _ in range(k):
        a, b, y, _ = _draw(rng, n, 0.0, False, 0.4, 0.0)
        d = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta).difference
        new += d.ci_low > 0
        rows = _elementary(b, y, theta) - _elementary(a, y, theta)
        old += rows.mean(0) - q * rows.std(0, ddof=1) / np.sqrt(n) > 0
    assert (old / k > 0.5).all()
    assert (new >= 0.9 * old).all(), (new / k, old / k)
