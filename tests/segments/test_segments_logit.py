"""Logits: a finite logit is never a certain score (issue: large logits read as contradictions).

sigma(s) rounds to exactly 1.0 from s ~ 37 on, but the row's probability of label 0 is
sigma(-s) > 0 and its log loss softplus(s) is finite (vc.audit / vc.nll agree). So no row on
the logit route is "certain", and each row's null variance is sigma(s) sigma(-s), not the 0
that p(1 - p) of the rounded probability gives.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _expit(s):
    return 1.0 / (1.0 + np.exp(-s))


def _data(n=3_000, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 2.0, n)
    region = rng.choice(["EU", "US"], n)
    y = (rng.uniform(size=n) < _expit(s)).astype(np.int64)
    big = np.flatnonzero(region == "US")
    s[big] = 40.0  # sigma(40) == 1.0 in float64
    y[big] = 1
    y[big[:3]] = 0  # three labels against logits of 40: unlikely (4e-18 each), never impossible
    w = np.round(rng.uniform(0.2, 3.0, n), 3)
    return pd.DataFrame({"s": s, "y": y, "w": w, "region": region})


def _hand_z(df, weighted):
    """z of segment US by its definition: sum w (y - p) / sqrt(sum w^2 p (1 - p)), p (1 - p) from the logit."""
    m = df.region == "US"
    s, y = df.s[m].to_numpy(), df.y[m].to_numpy()
    w = df.w[m].to_numpy() if weighted else np.ones(s.size)
    p = _expit(s)
    return float(np.sum(w * (y - p)) / math.sqrt(np.sum(w * w * p * _expit(-s))))


@pytest.mark.parametrize("weighted", [False, True])
def test_large_finite_logits_are_not_certain_contradictions(weighted):
    df = _data()
    assert _expit(40.0) == 1.0 and np.isfinite(vc.nll(df.s, df.y, score_type="logit"))
    res = vc.segments(df.s.to_numpy(), df.y.to_numpy(), features={"region": df.region.to_numpy()}, depth=1,
                      score_type="logit", sample_weight=df.w.to_numpy() if weighted else None)
    us = next(r for r in res.rows if r.segment == "region=US")
    assert us.test == "z"  # was "certain"
    assert us.z == pytest.approx(_hand_z(df, weighted), rel=1e-6)  # about -1e7: finite
    assert math.isfinite(us.ecce_sigma) and math.isfinite(res.mce_sigma) and math.isfinite(res.mce)
    assert not any("infinite" in note for note in res.notes)


def test_large_logits_same_on_a_lazy_frame():
    pl = pytest.importorskip("polars")
    df = _data()
    arrays = vc.segments(df.s.to_numpy(), df.y.to_numpy(), features={"region": df.region.to_numpy()}, depth=1,
                         score_type="logit", sample_weight=df.w.to_numpy())
    lazy = vc.segments(pl.from_pandas(df).lazy(), score="s", label="y", features=["region"], depth=1,
                       score_type="logit", sample_weight="w")
    a = {r.segment: r for r in arrays.rows}
    for r in lazy.rows:
        assert r.test == a[r.segment].test
        assert r.z == pytest.approx(a[r.segment].z, rel=1e-9)
        assert r.ecce_sigma == pytest.approx(a[r.segment].ecce_sigma, rel=1e-9)
    assert lazy.mce == pytest.approx(arrays.mce, rel=1e-9)


def test_probabilities_of_exactly_one_are_still_certain():
    df = _data()
    p = _expit(df.s.to_numpy())  # the same rows as probabilities: 1.0 against label 0 is impossible
    res = vc.segments(p, df.y.to_numpy(), features={"region": df.region.to_numpy()}, depth=1)
    us = next(r for r in res.rows if r.segment == "region=US")
    assert us.test == "certain" and math.isinf(res.mce)


def test_logits_beyond_float_range_of_the_variance_stay_finite():
    """sigma(800) sigma(-800) underflows to 0 in float64: the variance is floored at the smallest normal
    double, so the segment is still a z test, not an infinite MCE blaming rows "exactly 0 or 1"."""
    duckdb = pytest.importorskip("duckdb")
    df = _data()
    df.loc[df.region == "US", "s"] = 800.0
    con = duckdb.connect()
    con.register("t", df)
    for data in (df, con.sql("SELECT * FROM t")):
        res = vc.segments(data, score="s", label="y", features=["region"], depth=1, score_type="logit")
        us = next(r for r in res.rows if r.segment == "region=US")
        assert us.test == "z" and us.z < -1e100 and math.isfinite(us.z)
        assert math.isfinite(res.mce) and not any("infinite" in note for note in res.notes)
        last = str(res).splitlines()[-1]  # 1e150 sigmas print as such, not as 150 digits
        # r22: + "all rows and the 2 with n >= 50"; r31: + "sigma: the largest segment's alone, not corrected
        # for the maximum" (a number of 150 digits would still take the line past 400 characters)
        assert "e+1" in last and len(last) < 270, last


def test_segment_calibration_refuses_two_columns_saying_what_to_pass():
    """SegmentCalibration.fit on predict_proba's (N, 2) said "method must be one of platt, ... for
    one-vs-rest, got 'segment'"; vc.segments' own reading: pass the positive class's column."""
    from veracity.segments import SegmentCalibration

    df = _data()
    p = _expit(np.clip(df.s.to_numpy(), -5, 5))
    feats = {"region": df.region.to_numpy()}
    cal = SegmentCalibration(features=["region"], depth=1)
    with pytest.raises(vc.VeracityError, match=r"P\[:, 1\]"):
        cal.fit(np.c_[1 - p, p], df.y.to_numpy(), features=feats)
    cal.fit(p, df.y.to_numpy(), features=feats)
    with pytest.raises(vc.VeracityError, match=r"P\[:, 1\]"):
        cal.transform(np.c_[1 - p, p], features=feats)
