"""Seeded simulations that give the round-3 segment and comparison statistics their power.

Each test states the claim, the rate it measured, and the plausible break its band
excludes (checked by monkeypatching the break in a scratch run):

* the exact Poisson-binomial test of small segments, with many scores pooled into one
  score cell (Hoeffding's bound), keeps its size — and a p-value not doubled is caught;
* the Wilson interval of a segment's gap covers at its level when the scores in a
  segment are alike (the interval is then near exact, so 90 % or 99 % is caught);
* weighted segments' z test uses :math:`\\sum w^2 p(1-p)` (:math:`\\sum w\\,p(1-p)` is caught);
* the multicalibration error's per-segment p-value applied to the maximum is not a
  family p-value (64 % false alarms at 5 %); the Bonferroni :func:`family_pvalue` is.

The decision-curve, Murphy-band and realised-cost intervals' simulation is in
tests/comparison/test_cmp_simulation.py, beside the paired intervals' (same model draws).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import veracity as vc
from veracity.core._intervals import binomial_interval

_mce = importlib.import_module("veracity.segments._mce")
_tests = importlib.import_module("veracity.segments._tests")


def _se(rate: float, k: int) -> float:
    return float(np.sqrt(rate * (1 - rate) / k))


# -- segments ---------------------------------------------------------------------------------
def test_exact_test_of_small_segments_keeps_its_size_with_pooled_score_cells():
    # 100 segments of 100 rows (each takes the exact test) x 20 label draws = 2,000 p-values; scores
    # spread over (0.02, 0.6) and only 8 score cells, so each cell pools many scores and the test
    # uses the cell's mean (Hoeffding: conservative). Measured size 0.035 at 5 %, 0.0055 at 1 %;
    # a p-value not doubled (one-sided) measures about 0.07 and fails the bound.
    rng = np.random.default_rng(20)
    n = 10_000
    p = rng.uniform(0.02, 0.6, n)
    g = np.repeat(np.arange(100), 100).astype(str)
    pv = []
    for _ in range(20):
        y = (rng.random(n) < p).astype(int)
        # n_resamples=1: the MCE family p-value's draws play no part in the rows' exact p-values
        r = vc.segments(p, y, features={"g": g}, depth=1, max_levels=100, max_cells=8, n_resamples=1)
        pv += [row.p_value for row in r.rows if row.test == "exact"]
    pv = np.array(pv)
    assert pv.size == 2000
    size = float(np.mean(pv <= 0.05))
    assert 0.02 <= size <= 0.05, size
    assert float(np.mean(pv <= 0.01)) <= 0.01 + 3 * _se(0.01, pv.size)


def test_exact_p_value_is_the_brute_force_poisson_binomial_of_the_cell_means():
    # the exact p-value's law, computed row by row: the same two-sided doubling of the smaller tail
    rng = np.random.default_rng(21)
    counts = np.array([7, 12, 30, 5])
    probs = np.array([0.05, 0.2, 0.35, 0.6])
    rows = np.repeat(probs, counts)
    pmf = np.zeros(rows.size + 1)
    pmf[0] = 1.0
    for q in rows:
        pmf[1:] = pmf[1:] * (1 - q) + pmf[:-1] * q
        pmf[0] *= 1 - q
    for k in rng.integers(0, rows.size + 1, 12):
        want = min(1.0, 2 * min(pmf[: k + 1].sum(), pmf[k:].sum()))
        assert _tests.poisson_binomial_pvalue(int(k), counts, probs) == pytest.approx(want, rel=1e-10, abs=1e-300)


def test_wilson_gap_interval_covers_at_its_level_when_scores_in_a_segment_are_alike():
    # Each segment's scores sit in a narrow band, so its labels are nearly Binomial and the Wilson
    # interval nearly exact: 40 segments of 400 rows, 150 draws (6,000 intervals); measured 0.9495.
    # With scores spread over (0.05, 0.95) the same interval measures 0.98 (conservative: the labels
    # vary less than a binomial's), which would hide a 90 % interval (0.90 here) — this band does not,
    # nor a 99 % one (0.99).
    rng = np.random.default_rng(22)
    k_seg, size, draws = 40, 400, 150
    centre = np.linspace(0.05, 0.9, k_seg)
    p = np.clip(np.repeat(centre, size) + rng.uniform(-0.01, 0.01, k_seg * size), 0.01, 0.99)
    seg = np.repeat(np.arange(k_seg), size)
    y = rng.random((draws, p.size)) < p
    sum_y = np.stack([np.bincount(seg, weights=row, minlength=k_seg) for row in y.astype(float)])
    conf = np.bincount(seg, weights=p) / size
    lo, hi = binomial_interval(sum_y, np.full(sum_y.shape, float(size)), method="wilson", level=0.95)
    cover = float(np.mean((lo - conf <= 0) & (0 <= hi - conf)))
    assert abs(cover - 0.95) <= 3.5 * _se(0.95, sum_y.size), cover
    # the vectorised interval is the public row's: one draw through vc.segments
    res = vc.segments(p, y[0].astype(int), features={"s": seg.astype(str)}, depth=1, max_levels=k_seg)
    row = res.segment("s=7")
    assert row.ci_low == pytest.approx(lo[0, 7] - conf[7], abs=1e-12)
    assert row.ci_high == pytest.approx(hi[0, 7] - conf[7], abs=1e-12)


def test_weighted_segments_z_test_has_its_size():
    # Weights 1 or 4 (known before the label): the null variance is sum w^2 p(1-p). 10 calls of 120
    # segments x 150 rows: 1,200 z tests; measured size 0.0375. With sum w p(1-p) (weights entering
    # once) the variance is ~3.4x too small and the size ~0.29; var / 2 measured 0.15.
    rng = np.random.default_rng(23)
    k_seg, size = 120, 150
    n = k_seg * size
    p = rng.uniform(0.1, 0.9, n)
    w = np.where(rng.random(n) < 0.5, 1.0, 4.0)
    seg = np.repeat(np.arange(k_seg), size).astype(str)
    pv = []
    for _ in range(10):
        y = (rng.random(n) < p).astype(int)
        # n_resamples=1: the MCE family p-value's draws play no part in the rows' z/gamma p-values
        r = vc.segments(p, y, features={"s": seg}, depth=1, max_levels=k_seg, sample_weight=w, max_cells=16,
                        n_resamples=1)
        pv += [row.p_value for row in r.rows if row.test in ("z", "gamma")]  # "gamma": |skewness| >= 0.03
    pv = np.array(pv)
    assert pv.size == 1200
    size_ = float(np.mean(pv <= 0.05))
    assert abs(size_ - 0.05) <= 3.5 * _se(0.05, pv.size), size_


def _mce_null(seeds: int, rng: np.random.Generator, p: np.ndarray, members: list[np.ndarray]):
    """MCE_sigma of ``seeds`` calibrated label draws, from the library's own path pieces: per
    (seed, segment, score cell) sums of y - p, :func:`ecce_per_segment`, :func:`sigma_scale`."""
    values, cell = np.unique(p, return_inverse=True)
    c, k = values.size, len(members)
    sd = np.array([np.sqrt(np.sum(p[m] * (1 - p[m]))) / m.sum() for m in members])
    Y = (rng.random((seeds, p.size)) < p).astype(float)
    D = Y - p
    sums = np.zeros((seeds, k, c))
    for j, m in enumerate(members):
        for s in range(seeds):
            sums[s, j] = np.bincount(cell[m], weights=D[s, m], minlength=c)
    seg = np.repeat(np.arange(seeds * k), c)
    ecce = _mce.ecce_per_segment(seg, sums.reshape(-1), seeds * k).reshape(seeds, k)
    ecce /= np.array([m.sum() for m in members])[None, :]
    return _mce.sigma_scale(ecce, sd[None, :]).max(axis=1), Y


def test_mce_per_segment_p_value_is_not_a_family_p_value_and_bonferroni_is():
    # Perfectly calibrated labels; the MCE takes the maximum over K = 34 segments (every row, 30
    # levels of g, 3 of h). MCGrad's p-value of that maximum is the one-segment p-value: measured
    # below 0.05 in 64 % of 300 draws. family_pvalue (Bonferroni over K) measured 1.7 %.
    rng = np.random.default_rng(24)
    n = 3000
    p = np.round(rng.uniform(0.05, 0.95, n), 2)  # 91 distinct scores: each its own score cell
    g = rng.integers(0, 30, n)
    h = rng.integers(0, 3, n)
    members = [np.ones(n, bool)] + [g == i for i in range(30)] + [h == i for i in range(3)]
    sigma, Y = _mce_null(300, rng, p, members)
    unadjusted = _mce.pvalue_from_sigma(sigma)
    family = _mce.family_pvalue(sigma, len(members))
    assert float(np.mean(unadjusted <= 0.05)) > 0.3
    fa = float(np.mean(family <= 0.05))
    assert fa <= 0.05 + 2 * _se(0.05, sigma.size), fa
    # the vectorised path is vc.segments': its MCE_sigma and (MCGrad's) p-value on two draws
    feats = {"g": g.astype(str), "h": h.astype(str)}
    for s in (0, 1):
        res = vc.segments(p, Y[s].astype(int), features=feats, depth=1, max_levels=30)
        assert res.n_tested + 1 == len(members)
        assert res.mce_sigma == pytest.approx(sigma[s], rel=1e-9)
        assert res.mce_pvalue == pytest.approx(unadjusted[s], rel=1e-9)
        assert res.mce_segments == len(members)
        assert res.mce_family_pvalue_mcgrad == pytest.approx(min(1.0, 34 * res.mce_pvalue), rel=1e-12)
        assert f"over {len(members)} segments" in str(res)
