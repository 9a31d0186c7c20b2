"""Round 41: a segment's ``weight`` (Σw) is in the caller's units at every scale of the weights. Extreme
scales are normalised by an exact power of two before the sums (every p-value, gap and interval is a ratio
of the weights and keeps its value), but the rows' and the result's ``weight`` were the normalised sums:
weights of 10¹⁰⁰ read Σw = 118 where they summed to 6.6·10¹⁰³, on the array and on every frame route."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import veracity as vc


def _data(n=2_000, seed=15):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    g = rng.choice(list("abc"), n)
    y = (rng.uniform(size=n) < p).astype(int)
    return p, y, g, rng.lognormal(0.0, 1.0, n)


@pytest.mark.parametrize("scale", [1e100, 1e-300])
@pytest.mark.parametrize("route", ["arrays", "polars lazy"])
def test_weight_is_the_callers_sum(scale, route):
    p, y, g, w = _data()
    w = w * scale
    if route == "arrays":
        res = vc.segments(p, y, features={"g": g}, sample_weight=w, depth=1, n_resamples=9)
    else:
        frame = pl.DataFrame({"p": p, "y": y, "g": g, "w": w}).lazy()
        res = vc.segments(frame, score="p", label="y", features=["g"], sample_weight="w", depth=1,
                          n_resamples=9)
    assert res.weight == pytest.approx(w.sum(), rel=1e-12)
    for level in "abc":
        assert res.segment(f"g={level}").weight == pytest.approx(w[g == level].sum(), rel=1e-12)
    plain = vc.segments(p, y, features={"g": g}, sample_weight=w / scale, depth=1, n_resamples=9)
    assert res.segment("g=a").p_value == pytest.approx(plain.segment("g=a").p_value, rel=1e-9)


def test_a_total_beyond_float_is_null_in_json():
    p, y, g, _ = _data()
    res = vc.segments(p, y, features={"g": g}, sample_weight=np.full(p.size, 1e306), depth=1, n_resamples=9)
    out = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert out["weight"] is None and out["segments"][0]["weight"] is None
