"""``bins=`` cuts numeric features into equal-mass bins (a categorical feature's levels are its values):
given where no feature is numeric it changed nothing, silently (r34). The result now says so in a note,
on arrays, in-memory frames and a lazy frame alike; a numeric feature among them, or bins left out, gives
no such note."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n: int = 3000, seed: int = 34):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return p, y, rng.choice(["EU", "US", "APAC"], n), rng.choice(["web", "app"], n), rng.normal(size=n)


def _bins_notes(res) -> list[str]:
    return [n for n in res.notes if "bins=" in n]


@pytest.mark.parametrize("bins", [3, 12])
def test_bins_on_categorical_features_is_noted(bins):
    p, y, region, device, _ = _data()
    res = vc.segments(p, y, features={"region": region, "device": device}, bins=bins)
    plain = vc.segments(p, y, features={"region": region, "device": device})
    # the same segments and numbers: the count changed nothing ...
    assert [r.segment for r in res.rows] == [r.segment for r in plain.rows]
    assert [r.p_value for r in res.rows] == [r.p_value for r in plain.rows]
    # ... and the result says so
    (note,) = _bins_notes(res)
    assert f"bins={bins}" in note and "changed nothing" in note and "'region', 'device'" in note
    assert note in res.to_dict()["notes"] and note in str(res)
    assert _bins_notes(plain) == []


def test_no_note_where_a_feature_is_numeric_or_bins_is_left_out():
    p, y, region, _, x = _data()
    assert _bins_notes(vc.segments(p, y, features={"region": region, "x": x}, bins=3)) == []
    assert _bins_notes(vc.segments(p, y, features={"x": x}, bins=3)) == []
    assert _bins_notes(vc.segments(p, y, features={"region": region})) == []
    # bins=None is the default, 5 bins: the same segments as bins=5
    a = vc.segments(p, y, features={"x": x}, bins=None)
    b = vc.segments(p, y, features={"x": x}, bins=5)
    assert [r.segment for r in a.rows] == [r.segment for r in b.rows] and len(a.rows) == 5


def test_frames_and_a_lazy_frame_say_it_too():
    duckdb = pytest.importorskip("duckdb")
    p, y, region, device, _ = _data()
    df = pd.DataFrame({"p": p, "y": y, "region": region, "device": device})
    con = duckdb.connect()
    rel = con.from_df(df)
    for data in (df, rel):
        res = vc.segments(data, score="p", label="y", features=["region", "device"], bins=4)
        (note,) = _bins_notes(res)
        assert "bins=4" in note and "changed nothing" in note
        assert _bins_notes(vc.segments(data, score="p", label="y", features=["region", "device"])) == []
