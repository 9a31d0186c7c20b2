"""Weighted rare events: uneven weights and few expected events make S = Σ w·y strongly right-skewed.

The z test's normal tail is far too thin there (false discoveries in ~19 % of calibrated data sets at
FDR 0.05); a segment whose null law has skewness γ = Σ w³p(1-p)(1-2p) / V^1.5 ≥ 0.03 is tested with the
three-moment shifted gamma (Pearson type III) law on the side it leans to, or, where larger, the law
with every jump the segment's largest weight (test_segments_heavy_atom_r21.py). Oracles: the cumulants
by their definition over the rows, scipy's ``pearson3``, ``poisson`` and ``norm``, and simulated labels
under the null.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, pearson3, poisson

import veracity as vc


def _rare(n=6_000, seed=0, rate=30):
    rng = np.random.default_rng(seed)
    p = np.clip(np.round(rng.beta(1, rate, n), 3), 0.001, 0.999)  # distinct scores are the cells
    y = (rng.uniform(size=n) < p).astype(np.int64)
    g = rng.choice(list("abcd"), n)
    h = rng.choice(list("xyz"), n)
    w = np.round(rng.lognormal(0.0, 1.0, n), 3) + 0.001
    return pd.DataFrame({"p": p, "y": y, "w": w, "g": g, "h": h})


def _cumulants(p, y, w):
    v = p * (1 - p)
    return np.sum(w * y) - np.sum(w * p), np.sum(w * w * v), np.sum(w ** 3 * v * (1 - 2 * p))


def _lattice(p, w, z, skew):
    """Two-sided p-value on the long side of b (Poisson(lam) - lam) + N(0, V - lam b^2): b the largest
    weight among the rows on the rare side, lam = min(k3 / b^3, sum w^4 p(1-p) / b^4) (its definition)."""
    v = p * (1 - p)
    V, k3 = np.sum(w * w * v), np.sum(w ** 3 * v * (1 - 2 * p))
    b = np.max(w[p < 0.5] if skew > 0 else w[p > 0.5])
    lam = min(abs(k3) / b ** 3, np.sum(w ** 4 * v) / b ** 4)
    beta, sd = b / np.sqrt(V), np.sqrt(max(1 - lam * b * b / V, 0.0))
    j = np.arange(400)
    return min(1.0, 2 * np.sum(poisson.pmf(j, lam) * norm.sf((abs(z) - beta * (j - lam)) / sd)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_skewed_segment_takes_the_pearson3_law(seed):
    df = _rare(seed=seed)
    # a positive excess in segment g=a: 25 extra events on rows of that segment
    rng = np.random.default_rng(100 + seed)
    idx = rng.choice(np.flatnonzero((df.g == "a") & (df.y == 0)), 25, replace=False)
    df.loc[idx, "y"] = 1
    res = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"g": df.g.to_numpy()}, depth=1,
                      sample_weight=df.w.to_numpy())
    for r in res.rows:
        m = (df.g == r.features["g"]).to_numpy()
        d, V, k3 = _cumulants(df.p[m].to_numpy(), df.y[m].to_numpy(), df.w[m].to_numpy())
        z, skew = d / np.sqrt(V), k3 / V ** 1.5
        assert skew >= 0.03 and r.test == "gamma"
        assert r.z == pytest.approx(z, rel=1e-9)
        lean = 2 * (pearson3.sf(z, skew) if z > 0 else pearson3.cdf(z, skew))
        lean = max(lean, _lattice(df.p[m].to_numpy(), df.w[m].to_numpy(), z, skew))
        want = min(1.0, lean if z * skew > 0 else 2 * norm.sf(abs(z)))
        assert r.p_value == pytest.approx(want, rel=1e-7)
    a = res.segment("g=a")
    assert a.p_value > 2 * norm.sf(a.z)  # the skewed law's tail is heavier than z's


def test_mirror_side_near_one_leans_the_other_way():
    # scores near 1: the rare outcome is the negative label; the law leans left (skewness < 0)
    df = _rare(seed=5)
    df["p"] = 1 - df.p
    df["y"] = 1 - df.y
    a = (df.g == "a").to_numpy()
    idx = np.flatnonzero(a & (df.y == 1).to_numpy())[:25]
    df.loc[idx, "y"] = 0
    r = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"g": df.g.to_numpy()}, depth=1,
                    sample_weight=df.w.to_numpy()).segment("g=a")
    d, V, k3 = _cumulants(df.p[a].to_numpy(), df.y[a].to_numpy(), df.w[a].to_numpy())
    z, skew = d / np.sqrt(V), k3 / V ** 1.5
    assert skew <= -0.03 and z < 0 and r.test == "gamma"
    lean = max(2 * pearson3.cdf(z, skew), _lattice(df.p[a].to_numpy(), df.w[a].to_numpy(), z, skew))
    assert r.p_value == pytest.approx(min(1.0, lean), rel=1e-7)


def test_unskewed_weighted_segments_keep_the_z_test_exactly():
    rng = np.random.default_rng(7)
    n = 4_000
    p = rng.uniform(0.3, 0.7, n)  # symmetric about 1/2: skewness ~ 0
    y = (rng.uniform(size=n) < p).astype(int)
    w = rng.uniform(0.5, 2.0, n)
    g = rng.choice(list("abc"), n)
    res = vc.segments(p, y, features={"g": g}, depth=1, sample_weight=w)
    for r in res.rows:
        m = g == r.features["g"]
        d, V, k3 = _cumulants(p[m], y[m], w[m])
        assert abs(k3 / V ** 1.5) < 0.03
        assert r.test == "z"
        assert r.p_value == pytest.approx(min(1.0, 2 * norm.sf(abs(d / np.sqrt(V)))), rel=1e-12)


def _simulated_size(sig, rate, n, reps, seed):
    """Share of `reps` calibrated label draws whose p-value (z, and the skew-aware test) is below
    1e-2 and 1e-3, for one segment of `n` rows."""
    from veracity.segments._tests import skew_pvalues

    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 2 * rate, n)
    w = rng.lognormal(0.0, sig, n)
    V = np.sum(w * w * p * (1 - p))
    skew = np.sum(w ** 3 * p * (1 - p) * (1 - 2 * p)) / V ** 1.5
    S = np.empty(reps)
    for s in range(0, reps, 2_000):
        S[s:s + 2_000] = (rng.uniform(size=(2_000, n)) < p) @ w
    z = (S - w @ p) / np.sqrt(V)
    pz, pg = 2 * norm.sf(np.abs(z)), skew_pvalues(z, np.full(reps, skew))
    return skew, [(np.mean(pz <= a), np.mean(pg <= a)) for a in (1e-2, 1e-3)]


@pytest.mark.parametrize("sig, rate, seed", [(1.0, 0.01, 0), (1.5, 0.03, 1)])
def test_size_of_the_skew_aware_test_under_the_null(sig, rate, seed):
    reps = 40_000
    skew, sizes = _simulated_size(sig, rate, 600, reps, seed)
    assert skew > 0.3
    for (z_size, g_size), a in zip(sizes, (1e-2, 1e-3)):
        assert g_size <= a + 3 * np.sqrt(a * (1 - a) / reps)  # within Monte-Carlo error of nominal
    assert sizes[1][0] > 3e-3  # z's tail: more than three times nominal at 1e-3


def _dask(df, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return dd.from_pandas(df, npartitions=npartitions)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
@pytest.mark.parametrize("logit", [False, True])
def test_backends_carry_the_third_cumulant(backend, logit):
    # 2,000 rows: 18 segments take the gamma law, 4 of them raised by the largest-weight atom (which
    # reads the per-cell maximum weight: on Dask, two partitions' maxima merged)
    df = _rare(n=2_000, seed=3)
    df["s"] = np.log(df.p / (1 - df.p))
    score, kw = ("s", {"score_type": "logit"}) if logit else ("p", {})
    feats = {"g": df.g.to_numpy(), "h": df.h.to_numpy()}
    want = vc.segments(df[score].to_numpy(), df.y.to_numpy(), features=feats, sample_weight=df.w.to_numpy(),
                       **kw)
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df).lazy()
    elif backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.register("t", df)
        frame = con.sql("SELECT * FROM t")
    else:
        frame = _dask(df, 2)
    got = vc.segments(frame, score=score, label="y", features=["g", "h"], sample_weight="w", **kw)
    a = {r.segment: r for r in want.rows}
    assert sum(r.test == "gamma" for r in want.rows) >= 10
    assert len(got.rows) == len(want.rows)
    for r in got.rows:
        assert r.test == a[r.segment].test
        if a[r.segment].p_value is None:  # too few (effective) rows: not tested on either
            assert r.p_value is None
        else:
            assert r.p_value == pytest.approx(a[r.segment].p_value, rel=1e-9)
