"""The MCE's family p-value drawn under calibration (session 25): its level on rare events and on
balanced data, its power, its seed, its weights, and an oracle that simulates the rows themselves.

MCGrad's Brownian reading (``mce_pvalue``, and its Bonferroni bound ``mce_family_pvalue_mcgrad``) is a
large-segment law: on click-rate segments expecting ~1 click it rejected a calibrated model in 15-27 %
of seeds at 5 %. ``mce_family_pvalue`` is now (1 + #{T* >= T}) / (R + 1), T = mce_sigma."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


def _rare(seed: int, levels: int = 20):
    rng = np.random.default_rng(seed)
    n = levels * 70
    p = rng.uniform(0.005, 0.03, n)  # click rates: about one click expected per id
    y = (rng.uniform(size=n) < p).astype(int)  # calibrated
    return p, y, rng.integers(0, levels, n).astype(str)


def _bound(seeds: int, alpha: float = 0.05) -> float:
    return alpha + 2 * np.sqrt(alpha * (1 - alpha) / seeds)


def test_level_on_rare_events_over_100_ids():
    seeds = 30
    ps = []
    for s in range(seeds):
        p, y, ids = _rare(1000 + s, levels=100)
        ps.append(vc.segments(p, y, features={"id": ids}, max_levels=10_000, depth=1).mce_family_pvalue)
    assert np.mean(np.array(ps) < 0.05) <= _bound(seeds)


def test_level_on_balanced_data_at_depth_two():
    """Three features at depth 2: three largest sets, drawn independently (conservative by the Gaussian
    correlation inequality, module _mce_null)."""
    seeds = 30
    ps = []
    for s in range(seeds):
        rng = np.random.default_rng(s)
        n = 2000
        p = rng.uniform(0.05, 0.95, n)
        y = (rng.uniform(size=n) < p).astype(int)
        feats = {"a": rng.choice(list("abcd"), n), "b": rng.choice(list("xyz"), n), "c": rng.normal(size=n)}
        ps.append(vc.segments(p, y, features=feats, depth=2).mce_family_pvalue)
    ps_ = np.array(ps)
    assert np.mean(ps_ < 0.05) <= _bound(seeds)
    assert np.mean(ps_ < 0.5) >= 0.3  # not a p-value stuck at 1 (a test that never rejects keeps its level)


@pytest.mark.parametrize("weighted, share", [(False, 0.9), (True, 0.8)], ids=["unweighted", "uneven-weights"])
def test_power_against_a_planted_segment(weighted, share):
    """A gap of +0.1 in one of four regions is found; uneven weights draw every jump at the atom's
    largest weight (wider than the rows' law) and are still powerful."""
    hits = 0
    seeds = 15
    for s in range(seeds):
        rng = np.random.default_rng(500 + s)
        n = 4000
        p = rng.uniform(0.1, 0.9, n)
        region = rng.choice(["EU", "US", "APAC", "LATAM"], n)
        y = (rng.uniform(size=n) < np.where(region == "EU", np.clip(p + 0.1, 0, 1), p)).astype(int)
        w = rng.lognormal(0, 0.5, n) if weighted else None
        res = vc.segments(p, y, features={"region": region}, depth=1, sample_weight=w)
        hits += res.mce_family_pvalue <= 0.05
        assert res.mce_family_pvalue >= 1 / (res.n_resamples + 1)  # the smallest a Monte Carlo p can be
    assert hits >= share * seeds


def test_the_same_random_state_gives_the_same_p_value():
    p, y, ids = _rare(3)
    kw = {"features": {"id": ids}, "max_levels": 10_000, "depth": 1}
    a = vc.segments(p, y, **kw, random_state=7)
    b = vc.segments(p, y, **kw, random_state=7)
    assert a.mce_family_pvalue == b.mce_family_pvalue and a.random_state == 7
    assert vc.segments(p, y, **kw).mce_family_pvalue == vc.segments(p, y, **kw).mce_family_pvalue  # default
    g = vc.segments(p, y, **kw, random_state=np.random.default_rng(7), n_resamples=999)
    assert g.random_state is None and g.n_resamples == 999
    assert ((g.mce_family_pvalue * 1000) % 1) == pytest.approx(0.0, abs=1e-9)  # a count over R + 1 = 1000
    assert a.to_dict()["random_state"] == 7 and a.to_dict()["n_resamples"] == a.n_resamples


@pytest.mark.parametrize("bad", [{"random_state": -1}, {"random_state": 1.5}, {"n_resamples": 0},
                                 {"n_resamples": True}])
def test_bad_draw_options_are_refused(bad):
    p, y, ids = _rare(3)
    with pytest.raises(VeracityError) as e:
        vc.segments(p, y, features={"id": ids}, max_levels=10_000, depth=1, **bad)
    assert "\n" not in str(e.value) and next(iter(bad)) in str(e.value)


def test_equal_weights_read_as_unweighted():
    """Equal weights c: every atom's sum is c times a binomial of the same n and p, so the same seed draws
    the same replicates (the statistic is free of c)."""
    p, y, ids = _rare(4)
    kw = {"features": {"id": ids}, "max_levels": 10_000, "depth": 1}
    a = vc.segments(p, y, **kw)
    b = vc.segments(p, y, **kw, sample_weight=np.full(p.size, 2.5))
    assert b.mce_family_pvalue == pytest.approx(a.mce_family_pvalue, abs=1e-12)


def test_level_with_uneven_weights_on_rare_events():
    seeds = 40
    ps = []
    for s in range(seeds):
        p, y, ids = _rare(2000 + s)
        w = np.random.default_rng(s).lognormal(0.0, 0.5, p.size)
        ps.append(vc.segments(p, y, features={"id": ids}, sample_weight=w, max_levels=10_000,
                              depth=1).mce_family_pvalue)
    assert np.mean(np.array(ps) < 0.05) <= _bound(seeds)


def _ecce_sigma_rows(p: np.ndarray, d: np.ndarray, v: np.ndarray) -> float:
    """MCGrad's ECCE/sigma of one segment from its rows (distinct scores: one step per score)."""
    order = np.argsort(p, kind="stable")
    path = np.r_[0.0, np.cumsum(d[order])]
    return float((path.max() - path.min()) / np.sqrt(v.sum()))


def test_oracle_the_rows_drawn_under_calibration():
    """The definition taken literally on the rows: y* ~ Bernoulli(p) R times, every segment's ECCE/sigma
    recomputed, the maximum compared — the table's atoms must give the same p-value up to Monte Carlo
    error (two features at depth 2: every segment drawn jointly)."""
    rng = np.random.default_rng(11)
    n = 600
    p = rng.choice(np.linspace(0.02, 0.5, 40), n)  # 40 distinct scores: the exact path
    a, b = rng.choice(list("uvw"), n), rng.choice(list("xy"), n)
    y = (rng.uniform(size=n) < np.where((a == "u") & (b == "x"), p * 1.3, p)).astype(int)
    R = 1000
    res = vc.segments(p, y, features={"a": a, "b": b}, depth=2, min_count=30, n_resamples=R)
    masks = [np.ones(n, dtype=bool)]
    masks += [a == u for u in "uvw"] + [b == u for u in "xy"]
    masks += [(a == u) & (b == x) for u in "uvw" for x in "xy"]
    masks = [m for m in masks if m.sum() >= 30 or m.all()]
    assert len(masks) == res.mce_segments
    v = p * (1 - p)
    t_obs = max(_ecce_sigma_rows(p[m], (y - p)[m], v[m]) for m in masks)
    assert t_obs == pytest.approx(res.mce_sigma, rel=1e-9)
    sim = np.random.default_rng(99)
    reach = 0
    for _ in range(R):
        ys = (sim.uniform(size=n) < p).astype(float)
        reach += max(_ecce_sigma_rows(p[m], (ys - p)[m], v[m]) for m in masks) >= t_obs * (1 - 1e-9)
    want = (1 + reach) / (R + 1)
    se = np.sqrt(want * (1 - want) / R)
    assert 0.005 < want < 0.5  # the planted cell makes it a p-value worth comparing
    assert abs(res.mce_family_pvalue - want) <= 4 * np.sqrt(2) * se


def test_lazy_frames_draw_the_same_p_value():
    pl = pytest.importorskip("polars")
    p, y, ids = _rare(5)
    arr = vc.segments(p, y, features={"id": ids}, max_levels=10_000, depth=1)
    lazy = vc.segments(pl.LazyFrame({"p": p, "y": y, "id": ids}), score="p", label="y", features=["id"],
                       max_levels=10_000, depth=1)
    assert lazy.mce_family_pvalue == arr.mce_family_pvalue


def test_the_text_prints_the_simulated_p_value_and_mcgrads_stays():
    p, y, ids = _rare(10)
    res = vc.segments(p, y, features={"id": ids}, max_levels=10_000, depth=1)
    assert f"{res.mce_p_text()} in {res.n_resamples:,} draws under calibration, over {res.mce_family_text()})" \
        in str(res)
    # MCGrad's numbers kept for parity under their names
    assert res.mce_pvalue_mcgrad == res.mce_pvalue
    bonferroni = min(1.0, res.mce_segments * res.mce_pvalue)
    assert res.mce_family_pvalue_mcgrad == pytest.approx(bonferroni, rel=1e-12)
    assert res.mce_family_pvalue > 3 * res.mce_family_pvalue_mcgrad  # the Brownian tail: far too thin here
    d = res.to_dict()
    assert d["mce_family_pvalue"] == res.mce_family_pvalue and d["mce_family_pvalue_mcgrad"] is not None


def test_the_smallest_p_value_prints_as_a_bound():
    rng = np.random.default_rng(0)
    n = 5000
    p = rng.uniform(0.1, 0.9, n)
    g = rng.choice(list("ab"), n)
    y = (rng.uniform(size=n) < np.where(g == "a", np.clip(p + 0.2, 0, 1), p)).astype(int)
    res = vc.segments(p, y, features={"g": g}, depth=1, n_resamples=99)
    assert res.mce_family_pvalue == pytest.approx(0.01)
    assert "p <= 0.01" in str(res) or "p <= 0.010" in str(res)


def test_the_command_line_passes_the_draws_and_prints_them(cli, tmp_path):
    import json

    import pandas as pd

    p, y, ids = _rare(6)
    ids = np.char.add("id", ids)  # read as text, not as a number to bin
    path = tmp_path / "rare.csv"
    pd.DataFrame({"score": p, "label": y, "id": ids}).to_csv(path, index=False)
    argv = ["segments", str(path), "--features", "id", "--json", "--n-resamples", "99", "--random-state", "3"]
    out = json.loads(cli(argv).out)
    want = vc.segments(p, y, features={"id": ids}, max_levels=20, depth=1, n_resamples=99, random_state=3)
    assert out["n_resamples"] == 99 and out["random_state"] == 3
    assert out["mce_sigma"] == pytest.approx(want.mce_sigma, rel=1e-9)
    assert out["mce_family_pvalue"] == want.mce_family_pvalue
    assert out["mce_family_pvalue_mcgrad"] == pytest.approx(want.mce_family_pvalue_mcgrad, rel=1e-12)
