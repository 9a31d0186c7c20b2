"""Round 32: the Murphy diagram's band is MOVER of the four discordant cells' Wilson intervals.

Round 31's band (the t interval with half a pseudo-row per discordant cell) missed on one side where a heavy
(1 − θ) cell holds a few rows: at 1 % events, 1,000 rows, θ = 0.02, it covered 0.92 with 8 % of draws above
the truth; with log-normal weights 0.87, under class-balancing weights 0.27 (its pseudo-rows were of the
rows' mean weight, a positive's weighs 99) and under score-dependent weights 0.62; see
veracity.comparison._murphy. The grid here: event rates 1-50 %, 300-5,000 rows, θ from 0.02 to 0.98,
unweighted, log-normal and class weights; many data sets at once in numpy arrays, their cells counted in one
pass (searchsorted), the band from ``pseudo_band``. Truths are integrals over the simulation's law, not the
code's output on a large sample.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.comparison._murphy import _mover
from veracity.comparison._paired import z_of

from .test_murphy_band_r31 import _sig, _truth  # the law and its exact truth: one definition

THETA = np.array([0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.98])
#: sigmoid(base + x), x ~ N(0, 1), has these event rates
BASE = {0.01: -5.0787, 0.05: -3.3715, 0.2: -1.6497, 0.5: 0.0}


def test_the_base_values_give_the_event_rates():
    x = np.linspace(-9.0, 9.0, 360_001)
    f = np.exp(-x * x / 2.0) / np.sqrt(2.0 * np.pi) * (x[1] - x[0])
    for rate, base in BASE.items():
        assert _sig(base + x) @ f == pytest.approx(rate, abs=1e-4)


def _cells(a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray | None, theta: np.ndarray,
           ia: np.ndarray | None = None):
    """Per data set (rows of the arrays) and θ: Σw and Σw² of the four discordant cells (negatives only b
    flags, only a flags; positives only b misses, only a misses), shape (k, 4, θ). A row flags at θ_j iff
    j < #{θ ≤ p}; it is discordant on [min, max) of its two models' counts, in one cell. ``w`` None: every
    weight 1 (the counts, exact in floats: Σw and Σw² are the same array); ``ia``: a's counts, when the
    caller has them (a is shared by several b)."""
    k, n = a.shape
    ia = np.searchsorted(theta, a, side="right") if ia is None else ia
    ib = np.searchsorted(theta, b, side="right")
    cell = np.where(y, np.where(ia > ib, 2, 3), np.where(ib > ia, 0, 1))
    m = theta.size + 1
    base = (np.arange(k)[:, None] * 4 + cell) * m
    at_lo, at_hi = (base + np.minimum(ia, ib)).ravel(), (base + np.maximum(ia, ib)).ravel()
    out = []
    for v in ((w, w * w) if w is not None else (None,)):
        start = np.bincount(at_lo, None if v is None else v.ravel(), k * 4 * m)
        stop = np.bincount(at_hi, None if v is None else v.ravel(), k * 4 * m)
        c = np.cumsum((start - stop).reshape(k, 4, m), axis=2)[:, :, :-1]
        # the running sums' rounding (a cell that is empty read ±1e-16 of the total): 0
        total = np.full(k, float(n)) if v is None else v.sum(1)
        out.append(np.where(np.abs(c) <= 4 * n * np.finfo(float).eps * total[:, None, None], 0.0, c))
    return out if w is not None else out * 2


def _band(diff: np.ndarray, shares: tuple[np.ndarray, ...], sizes: tuple[np.ndarray, ...], theta: np.ndarray):
    """``pseudo_band``'s band at 95 % (its ``low, high``; the p-value's bisection, unused here, skipped)."""
    return _mover(diff, shares, sizes, theta)[0](z_of(0.95))


@functools.lru_cache(maxsize=None)
def _truth_at(base: float, slope: float, shift: float, theta: tuple[float, ...],
              pos_weight: float) -> np.ndarray:
    """:func:`_truth` (a fine grid: 0.1 s), once per law and grid (the unweighted and log-normal grids
    share it)."""
    return _truth(base, slope, shift, np.array(theta), pos_weight)


def _sizes(cells: np.ndarray, squares: np.ndarray, w: np.ndarray | None, y: np.ndarray):
    """The documented effective sizes: n unweighted; weighted, the class's discordant rows'
    (W_D / S_D) Σw, at most the class's (W_c / S_c) Σw (Kish's size of all rows for a class with none)."""
    n = y.shape[1]
    if w is None:
        return (np.full(cells.shape[::2], float(n)),) * 4
    tot = w.sum(1)[:, None]
    kish = tot * tot / (w * w).sum(1)[:, None]
    out = []
    for cls, mask in enumerate((~y, y)):
        wc, sc = (w * mask).sum(1)[:, None], (w * w * mask).sum(1)[:, None]
        whole = np.where(sc > 0, wc / np.where(sc > 0, sc, 1.0) * tot, kish)
        wd = cells[:, 2 * cls] + cells[:, 2 * cls + 1]
        sd = squares[:, 2 * cls] + squares[:, 2 * cls + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            size = np.where(sd > 0, np.minimum(wd / sd * tot, whole), whole)
        out += [size, size]
    return tuple(out)


#: the model pairs: a calibrated a against an overconfident b (round 31's law), and a planted b = sigmoid(base
#: + 0.4 x) that ignores most of the signal (slope, shift of b)
PAIRS = ((1.3, 0.4), (0.4, 0.0))


def _grid(rate: float, weights: str, ns=(300, 1000, 5000), k: int = 400, seed: int = 0,
          theta: np.ndarray = THETA) -> dict[str, np.ndarray]:
    """Coverage and calls of the band at every pair, n and θ (arrays (2, len(ns), θ)) over ``k`` data sets:
    a = the true risk sigmoid(base + x), b of :data:`PAIRS`; ``weights`` "none", "lognormal" or "class"
    (positives weigh (1 - rate) / rate, rounded)."""
    base = BASE[rate]
    pos_weight = float(round((1.0 - rate) / rate)) if weights == "class" else 1.0
    truth = np.array([_truth_at(base, slope, shift, tuple(theta), pos_weight)
                      for slope, shift in PAIRS])[:, None, :]
    rng = np.random.default_rng(seed)
    cover, right, wrong, above = (np.zeros((len(PAIRS), len(ns), theta.size)) for _ in range(4))
    for r, n in enumerate(ns):
        done = 0
        while done < k:
            kk = min(k - done, max(1, 1_000_000 // n))
            x = rng.normal(size=(kk, n))
            a = _sig(base + x)
            y = rng.random((kk, n)) < a
            w = (None if weights == "none" else rng.lognormal(0.0, 1.0, (kk, n)) if weights == "lognormal"
                 else np.where(y, pos_weight, 1.0))
            total = float(n) if w is None else w.sum(1)[:, None]
            ia = np.searchsorted(theta, a, side="right")
            for s, (slope, shift) in enumerate(PAIRS):
                b = _sig(base + shift + slope * x)
                cells, squares = _cells(a, b, y, w, theta, ia)
                shares = tuple(cells[:, c] / total for c in range(4))
                diff = theta * (shares[0] - shares[1]) + (1.0 - theta) * (shares[2] - shares[3])
                low, high = _band(diff, shares, _sizes(cells, squares, w, y), theta)
                t = truth[s, 0]
                cover[s, r] += ((low <= t) & (t <= high)).sum(0)
                right[s, r] += np.where(t > 0, low > 0, high < 0).sum(0)
                wrong[s, r] += np.where(t > 0, high < 0, low > 0).sum(0)
                above[s, r] += (low > t).sum(0)
            done += kk
    return {"truth": truth, "cover": cover / k, "right": right / k, "wrong": wrong / k, "above": above / k}


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.2, 0.5])
@pytest.mark.parametrize("weights", ["none", "lognormal", "class"])
def test_band_covers_across_rates_sizes_and_thresholds(rate, weights):
    # 2 pairs by 3 sizes by 9 thresholds, 400 data sets each: the lowest of 54 coverages (SE 0.011 at 0.95;
    # 0.91 is 3.6 SE below). Measured here 0.92-0.96 (1,000 data sets: 0.934-1.000); round 31's band
    # 0.88 with log-normal weights and 0.23 with class weights (0.90-0.91 unweighted: the next test)
    out = _grid(rate, weights)
    assert out["cover"].min() >= 0.91, out["cover"].round(3)
    # no call on the wrong side of the truth beyond chance (a two-sided 95 % band: 2.5 % per side)
    assert out["wrong"].max() <= 0.035, out["wrong"].round(3)


@pytest.mark.parametrize(("rate", "pair", "theta"), [
    (0.05, 1, 0.02),  # round 31's band: 0.94, 5.7 % of draws above the truth
    (0.01, 0, 0.02),  # 0.92, 8.0 % above
    (0.01, 0, 0.05),  # 0.93, 6.9 % above
])
def test_band_covers_where_a_heavy_cell_holds_a_few_rows(rate, pair, theta):
    # 1,000 rows, 2,000 data sets (SE 0.005): round 31's band missed on one side only (the two or three heavy
    # (1 - θ) rows absent: the difference read high and the band around it narrow); measured now 0.998 with
    # at most 0.1 % above (2.5 % is a 95 % band's share per side)
    out = _grid(rate, "none", ns=(1000,), k=2000, seed=5, theta=np.array([theta]))
    assert out["cover"][pair, 0, 0] >= 0.93, out["cover"][:, 0, 0]
    assert out["above"][pair, 0, 0] <= 0.035, out["above"][:, 0, 0]


@pytest.mark.parametrize("weights", ["none", "lognormal", "class"])
def test_exchangeable_models_are_rarely_called_different(weights):
    # a and b: the true risk seen through independent noise (sigmoid(base + x + 0.7 e)), so the true
    # difference is 0 at every θ; the share of data sets whose band excludes 0, at every rate, size and θ.
    # Measured (1,000 data sets): at most 0.055 (round 31's band: 0.061), 0.005-0.02 on average
    rng = np.random.default_rng(8)
    worst = 0.0
    for rate in (0.01, 0.05, 0.2, 0.5):
        base = BASE[rate]
        pos_weight = float(round((1.0 - rate) / rate))
        for n, k in ((300, 400), (1000, 400), (5000, 200)):
            x = rng.normal(size=(k, n))
            a = _sig(base + x + 0.7 * rng.normal(size=(k, n)))
            b = _sig(base + x + 0.7 * rng.normal(size=(k, n)))
            y = rng.random((k, n)) < _sig(base + x)
            w = (None if weights == "none" else rng.lognormal(0.0, 1.0, (k, n)) if weights == "lognormal"
                 else np.where(y, pos_weight, 1.0))
            cells, squares = _cells(a, b, y, w, THETA)
            total = float(n) if w is None else w.sum(1)[:, None]
            shares = tuple(cells[:, c] / total for c in range(4))
            diff = THETA * (shares[0] - shares[1]) + (1.0 - THETA) * (shares[2] - shares[3])
            low, high = _band(diff, shares, _sizes(cells, squares, w, y), THETA)
            worst = max(worst, float(((low > 0) | (high < 0)).mean(0).max()))
    assert worst <= 0.085, worst  # 5 % nominal; the largest of 108 rates over 200-400 data sets
