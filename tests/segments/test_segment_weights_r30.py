"""Weights and segments (round 30): the audit and the repair cut numeric features at weighted equal-mass
points, as every equal-mass binning in veracity does (integer weights cut as the rows repeated), so
``vc.SegmentCalibration`` corrects the segments ``vc.segments`` reports on the same weighted data; the
repair's shrinkage reads weights as importance weights (scale-free), not as repeated rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    age = np.round(rng.uniform(18, 80, n), 2)
    region = rng.choice(["EU", "US", "APAC"], n)
    truth = np.clip(p + np.where(age > 65, 0.15, 0.0), 0, 1)
    y = (rng.uniform(size=n) < truth).astype(int)
    w = np.where(age > 60, 6, 1)  # the old weigh more: unweighted cuts put most of their weight in one bin
    return p, y, age, region, w


def _names(res):
    return sorted(r.segment for r in res.rows)


def test_weighted_cuts_are_the_repeated_rows_cuts_in_audit_and_repair():
    p, y, age, region, w = _data()
    rep = np.repeat(np.arange(p.size), w)
    feats = {"age": age, "region": region}
    weighted = vc.segments(p, y, features=feats, sample_weight=w, depth=1, min_count=10)
    feats_rep = {k: v[rep] for k, v in feats.items()}
    repeated = vc.segments(p[rep], y[rep], features=feats_rep, depth=1, min_count=10)
    assert _names(weighted) == _names(repeated)
    seg = vc.SegmentCalibration(features=["age", "region"], depth=1, min_count=10)
    seg.fit(p, y, features=feats, sample_weight=w)
    seg_rep = vc.SegmentCalibration(features=["age", "region"], depth=1, min_count=10)
    seg_rep.fit(p[rep], y[rep], features=feats_rep)
    assert seg.specs_[0].cuts == seg_rep.specs_[0].cuts
    # each bin holds about a fifth of the weight (unweighted cuts gave the over-60s ~4/5 of it in 2 bins)
    codes = seg.specs_[0].codes(age)
    share = np.bincount(codes, weights=w) / w.sum()
    assert share.max() < 0.3
    # the repair's segments are the audit's: the same level names, feature by feature
    repaired = sorted(f"{sp.name}={label}" for sp in seg.specs_ for label in sp.labels)
    assert repaired == _names(weighted)


def test_frame_forms_cut_as_the_arrays_do():
    p, y, age, region, w = _data(seed=1)
    df = pd.DataFrame({"p": p, "y": y, "age": age, "region": region, "w": w})
    want = _names(vc.segments(p, y, features={"age": age, "region": region}, sample_weight=w, min_count=10))
    pl = pytest.importorskip("polars")
    for frame in (df, pl.from_pandas(df).lazy()):
        got = vc.segments(frame, score="p", label="y", features=["age", "region"], sample_weight="w",
                          min_count=10)
        assert _names(got) == want
    seg = vc.SegmentCalibration(features=["age", "region"], min_count=10).fit(df, score="p", label="y",
                                                                             sample_weight="w")
    arr = vc.SegmentCalibration(features=["age", "region"], min_count=10)
    arr.fit(p, y, features={"age": age, "region": region}, sample_weight=w)
    assert seg.specs_[0].cuts == arr.specs_[0].cuts
    rep = np.repeat(np.arange(p.size), w)
    assert seg.specs_[0].cuts == vc.SegmentCalibration(features=["age"], min_count=10).fit(
        p[rep], y[rep], features={"age": age[rep]}).specs_[0].cuts


def test_a_value_holding_a_bins_weight_is_its_own_bin_as_repeated():
    rng = np.random.default_rng(2)
    n = 500
    x = rng.uniform(1, 10, n)
    x[:40] = 0.0  # 8 % of the rows, but weight 10 each: 40 * 10 / (40 * 10 + 460) = 47 % of the weight
    w = np.where(x == 0, 10, 1)
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    rep = np.repeat(np.arange(n), w)
    res = vc.segments(p, y, features={"x": x}, sample_weight=w, min_count=10)
    assert _names(res) == _names(vc.segments(p[rep], y[rep], features={"x": x[rep]}, min_count=10))
    assert any(r.segment.startswith("x=[0, ") for r in res.rows)


def test_equal_weights_cut_as_no_weights():
    # 0.1 summed in any order misses j/5 of the total by an ulp: the cuts must not move
    p, y, age, region, _ = _data(seed=3)
    w = np.full(p.size, 0.1)
    a = vc.SegmentCalibration(features=["age"]).fit(p, y, features={"age": age}, sample_weight=w)
    b = vc.SegmentCalibration(features=["age"]).fit(p, y, features={"age": age})
    assert a.specs_[0].cuts == b.specs_[0].cuts
    assert _names(vc.segments(p, y, features={"age": age}, sample_weight=w)) == \
        _names(vc.segments(p, y, features={"age": age}))


def test_shrinkage_reads_weights_as_importance_weights_scale_free():
    """Documented: v_k = sum w^2 p(1-p) / (sum w p(1-p))^2 does not change when every weight is multiplied
    by c, so all weights = 10 fit as no weights, not as every row repeated 10 times."""
    p, y, age, region, w = _data(n=2_000, seed=4)
    feats = {"age": age, "region": region}
    kw = dict(base="isotonic", features=["age", "region"], min_count=10)
    fits = [vc.SegmentCalibration(**kw).fit(p, y, features=feats, sample_weight=w * c)
            for c in (1, 1e-3, 37.0)]
    out = [f.transform(p, features=feats) for f in fits]
    assert max(t for t in fits[0].tau2_) > 0  # something to shrink
    for f, o in zip(fits[1:], out[1:]):
        np.testing.assert_allclose(f.tau2_, fits[0].tau2_, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(o, out[0], rtol=1e-9, atol=1e-12)
    ones = vc.SegmentCalibration(**kw).fit(p, y, features=feats)
    tens = vc.SegmentCalibration(**kw).fit(p, y, features=feats, sample_weight=np.full(p.size, 10))
    np.testing.assert_allclose(tens.transform(p, features=feats), ones.transform(p, features=feats),
                               rtol=1e-9)
    rep = np.repeat(np.arange(p.size), 10)
    repeated = vc.SegmentCalibration(**kw).fit(p[rep], y[rep], features={k: v[rep] for k, v in feats.items()})
    # repeated rows are 10 times the data: smaller sampling variances, less shrinkage, another answer
    assert np.max(np.abs(repeated.transform(p, features=feats) - ones.transform(p, features=feats))) > 1e-3
