"""Seeded simulations: the segment tests' false-discovery rate, interval coverage and power (issue 24).

Labels are redrawn for hundreds of seeds at once: the scores and features stay fixed,
each seed's labels are one row of a (seeds, rows) matrix, and every segment's label sum
is one matrix product with the segments' membership matrix. The p-values, q-values and
intervals then come from the same functions ``vc.segments`` uses, and a few seeds are
checked against the public function itself, so the vectorised path is the real one.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._intervals import binomial_interval
from veracity.segments._api import specs_from_arrays
from veracity.segments._family import feature_sets, strides
from veracity.segments._tests import EXACT_MAX, qvalues, z_pvalues


def _membership(features: dict, depth: int, min_count: int = 50, max_levels: int = 20):
    """(rows, segments) 0/1 matrix, each segment's depth and text, in the family's order."""
    n = len(next(iter(features.values())))
    specs, codes, _ = specs_from_arrays(features, n, None, bins=5, min_count=min_count, max_levels=max_levels)
    cols, depth_of, names = [], [], []
    for s in feature_sets(len(specs), depth)[1:]:
        key = sum(codes[i] * st for i, st in zip(s, strides(specs, s)))
        for k in np.unique(key):
            cols.append(key == k)
            depth_of.append(len(s))
            rest, parts = int(k), []
            for i, st in zip(s, strides(specs, s)):
                parts.append(f"{specs[i].name}={specs[i].labels[rest // st]}")
                rest %= st
            names.append(" & ".join(parts))
    return np.column_stack(cols).astype(np.float32), np.array(depth_of), names


def _simulate(p, prob, M, depth_of, seeds, min_count=50, level=0.95):
    """p-values, q-values, gaps and intervals of every segment for ``seeds`` label redraws."""
    rng = np.random.default_rng(seeds)
    n = M.sum(axis=0).astype(np.float64)
    parts = []
    for a in range(0, seeds, 200):  # 200 seeds of labels at a time
        Y = (rng.uniform(size=(min(200, seeds - a), p.size)) < prob).astype(np.float32)
        parts.append((Y @ M).T.astype(np.float64))
    sum_y = np.concatenate(parts, axis=1)  # (segments, seeds)
    sum_p = (p @ M.astype(np.float64))[:, None]
    var = ((p * (1 - p)) @ M.astype(np.float64))[:, None]
    assert n.min() > EXACT_MAX  # every tested segment takes the z test here
    _, pv = z_pvalues(sum_y - sum_p, np.broadcast_to(var, sum_y.shape))
    pv = np.where((n >= min_count)[:, None], pv, np.nan)
    q = qvalues(pv, depth_of)
    conf = sum_p / n[:, None]
    lo, hi = binomial_interval(sum_y, np.broadcast_to(n[:, None], sum_y.shape), method="wilson", level=level)
    return pv, q, sum_y / n[:, None] - conf, lo - conf, hi - conf


def _null_data(n, seed, sizes):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    feats = {f"f{j}": rng.choice([f"L{i}" for i in range(k)], n) for j, k in enumerate(sizes)}
    return p, feats


def test_fdr_under_global_null_depth2_and_coverage():
    # perfectly calibrated: y ~ Bernoulli(p). 5 features, 457 tested segments, 200 seeds.
    p, feats = _null_data(30_000, 1, (10, 8, 5, 4, 6))
    M, depth_of, names = _membership(feats, depth=2)
    assert M.shape[1] >= 300
    pv, q, gap, lo, hi = _simulate(p, p, M, depth_of, seeds=200)
    fdp = (q <= 0.05).any(axis=0).astype(float)  # every discovery is false: FDP = 1 if any
    assert fdp.mean() <= 0.05
    cover = (lo <= 0) & (0 <= hi)  # the true gap of every segment is 0
    assert cover.mean() >= 0.94
    # the vectorised path is vc.segments' own: two seeds through the public function
    rng = np.random.default_rng(200)
    # n_resamples=1: the MCE family p-value's draws play no part in the rows or the discoveries
    Y = (rng.uniform(size=(200, p.size)) < p)
    for seed in (0, 7):
        res = vc.segments(p, Y[seed].astype(int), features=feats, depth=2, n_resamples=1)
        rows = {r.segment: r for r in res.rows}
        assert len(rows) == len(names)
        for j in (0, 5, len(names) - 1):
            r = rows[names[j]]
            assert r.p_value == pytest.approx(pv[j, seed], rel=1e-9, abs=1e-15)
            assert r.q_value == pytest.approx(q[j, seed], rel=1e-9)
            assert r.ci_low == pytest.approx(lo[j, seed], abs=1e-12)


def test_fdr_bh_single_features():
    # depth 1 (BH alone) over 300 levels: under the global null BH's FDR is exactly alpha * m0/m = 0.05
    # for independent tests, so the simulated mean is held to 0.05 within two Monte-Carlo standard errors.
    p, feats = _null_data(15_000, 2, (30,) * 10)
    M, depth_of, _ = _membership(feats, depth=1, max_levels=30)
    assert M.shape[1] == 300
    seeds = 1000
    _, q, *_ = _simulate(p, p, M, depth_of, seeds=seeds)
    fdp = (q <= 0.05).any(axis=0).astype(float)
    assert fdp.mean() <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / seeds)


def test_coverage_of_a_true_nonzero_gap():
    rng = np.random.default_rng(3)
    n = 20_000
    p = rng.uniform(0.1, 0.8, n)
    feats = {"a": rng.choice(["x", "y", "z", "w"], n), "b": rng.choice(["u", "v", "t"], n)}
    effect = {"x": 0.06, "y": -0.04, "z": 0.0, "w": 0.02}
    prob = np.clip(p + np.vectorize(effect.get)(feats["a"]) + np.where(feats["b"] == "u", 0.03, 0.0), 0, 1)
    M, depth_of, _ = _membership(feats, depth=2)
    _, _, _, lo, hi = _simulate(p, prob, M, depth_of, seeds=300)
    n_seg = M.sum(axis=0)
    true_gap = ((prob - p) @ M.astype(np.float64)) / n_seg
    cover = (lo <= true_gap[:, None]) & (true_gap[:, None] <= hi)
    assert cover.mean() >= 0.94


def test_power_planted_segment_gap_005_n2000():
    rng = np.random.default_rng(4)
    n = 20_000
    p = rng.uniform(0.1, 0.85, n)
    region = np.repeat([f"r{i}" for i in range(10)], 2_000)  # 10 levels of exactly 2,000 rows
    feats = {"region": region, "device": rng.choice(["ios", "android", "web"], n),
             "plan": rng.choice(["free", "paid"], n)}
    prob = np.where(region == "r3", p + 0.05, p)
    M, depth_of, names = _membership(feats, depth=2)
    _, q, *_ = _simulate(p, prob, M, depth_of, seeds=200)
    planted = names.index("region=r3")
    assert (q[planted] <= 0.05).mean() >= 0.9
    # and the planted segment's size is what the row says it detects
    res = vc.segments(p, (rng.uniform(size=n) < prob).astype(int), features=feats)
    row = res.segment("region=r3")
    assert row.n == 2_000 and row.min_detectable_gap < 0.05


def _interaction(seed, n=20_000, delta=0.08):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.15, 0.8, n)
    a = rng.choice(["a0", "a1"], n)
    b = rng.choice(["b0", "b1"], n)
    sign = np.where((a == "a1") == (b == "b1"), 1.0, -1.0)  # XOR: A and B alone stay calibrated
    y = (rng.uniform(size=n) < p + delta * sign).astype(int)
    return p, y, {"A": a, "B": b, "C": rng.choice(["c0", "c1", "c2"], n)}


def test_interaction_found_at_depth_2_not_at_depth_1():
    # depth 1 sees nothing but its 5 % chance of a false discovery per run; depth 2 finds A & B every time
    found2 = found1 = 0
    # n_resamples=1: the MCE family p-value's draws play no part in the rows or the discoveries
    for seed in range(10):
        p, y, feats = _interaction(seed)
        deep = vc.segments(p, y, features=feats, depth=2, n_resamples=1)
        flat = vc.segments(p, y, features=feats, depth=1, n_resamples=1)
        found2 += deep.segment("A=a1 & B=b1").discovery
        found1 += any(r.discovery for r in flat.rows if r.segment.startswith(("A=", "B=")))
        assert abs(flat.segment("A=a1").gap) < 0.03  # A alone is calibrated
    assert found2 == 10 and found1 <= 1


def test_tiny_segments_are_insufficient_never_discoveries():
    rng = np.random.default_rng(5)
    n = 10_000
    p = rng.uniform(0.05, 0.3, n)
    shop = np.where(np.arange(n) < 30, "tiny", rng.choice(["s1", "s2"], n))
    shop = np.where((np.arange(n) >= 30) & (np.arange(n) < 60), "small", shop)
    y = (rng.uniform(size=n) < p).astype(int)
    y[:30] = 1  # a 30-row segment whose scores say ~0.17 and whose labels are all 1
    res = vc.segments(p, y, features={"shop": shop}, depth=1, min_count=40)
    tiny = res.segment("shop=other")  # 60 rows of levels under min_count, pooled
    assert tiny.n == 60 and tiny.sufficient and tiny.discovery
    res = vc.segments(p, y, features={"shop": shop}, depth=1, min_count=40, max_levels=20)
    levels = res.levels["shop"]
    assert "tiny" not in levels
    # with min_count above the pooled segment's size it is insufficient: no p-value, never a discovery
    res = vc.segments(p, y, features={"shop": shop}, depth=1, min_count=100)
    row = res.segment("shop=other")
    assert not row.sufficient and not row.discovery and row.p_value is None and row.q_value is None
    assert row.gap > 0.3  # the number is shown, flagged, not tested
    # at depth 2 the many small intersections are insufficient, and none is a discovery
    region = rng.choice(["r1", "r2", "r3"], n)
    deep = vc.segments(p, y, features={"shop": shop, "region": region}, depth=2, min_count=100)
    small = [r for r in deep.rows if r.n < 100]
    assert small and not any(r.discovery or r.sufficient or r.p_value is not None for r in small)


def test_exact_poisson_binomial_for_small_segments():
    rng = np.random.default_rng(6)
    n = 4_000
    p = np.round(rng.uniform(0.05, 0.6, n), 2)  # 56 distinct scores: cells are single scores
    g = np.where(np.arange(n) < 120, "small", rng.choice(["big1", "big2"], n))
    y = (rng.uniform(size=n) < p).astype(int)
    y[:120] = (rng.uniform(size=120) < p[:120] + 0.15).astype(int)
    row = vc.segments(p, y, features={"g": g}, depth=1).segment("g=small")
    assert row.test == "exact"
    # brute force: the Poisson-binomial pmf by dynamic programming over the 120 rows
    pmf = np.zeros(121)
    pmf[0] = 1.0
    for pi in p[:120]:
        pmf[1:] = pmf[1:] * (1 - pi) + pmf[:-1] * pi
        pmf[0] *= 1 - pi
    k = int(y[:120].sum())
    expected = min(1.0, 2 * min(pmf[: k + 1].sum(), pmf[k:].sum()))
    assert row.p_value == pytest.approx(expected, rel=1e-9)


def test_segment_ece_noise_floor_matches_the_monte_carlo_floor():
    rng = np.random.default_rng(7)
    n = 8_000
    p = rng.uniform(0.05, 0.95, n)
    g = rng.choice(["a", "b"], n)
    y = (rng.uniform(size=n) < p).astype(int)
    row = vc.segments(p, y, features={"g": g}, depth=1, max_cells=100_000).segment("g=a")
    mask = g == "a"
    nf = vc.ece_noise_floor(p[mask], y[mask], bins=10, n_resamples=400, random_state=0)
    assert row.ece == pytest.approx(nf.ece, rel=1e-9)
    assert row.ece_floor == pytest.approx(nf.expected, rel=0.05)


def test_minimum_detectable_gap_is_detected_80_percent_at_5_percent():
    rng = np.random.default_rng(8)
    n = 12_000
    p = rng.uniform(0.2, 0.7, n)
    g = np.repeat(["a", "b", "c"], 4_000)
    feats = {"g": g}
    y0 = (rng.uniform(size=n) < p).astype(int)
    mdg = vc.segments(p, y0, features=feats, depth=1).segment("g=a").min_detectable_gap
    prob = np.where(g == "a", p + mdg, p)
    M, depth_of, names = _membership(feats, depth=1)
    pv, *_ = _simulate(p, prob, M, depth_of, seeds=400)
    power = (pv[names.index("g=a")] <= 0.05).mean()
    assert 0.74 <= power <= 0.86
