"""``SegmentCalibration(bins=...)`` cuts numeric features into equal-mass bins; where every feature was
categorical it changed nothing, silently (r35), where ``vc.segments`` notes it and ``veracity segments
--bins`` refuses it (r34). Its default is now ``bins=None`` (5 bins, as ``vc.segments``), and a ``bins``
given where no feature is numeric warns in one line; the fit is that of ``bins=None``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n: int = 3000, seed: int = 35):
    rng = np.random.default_rng(seed)
    region = rng.choice(["EU", "US", "APAC"], n)
    p = rng.uniform(0.1, 0.9, n)
    truth = np.clip(p + np.where(region == "EU", 0.08, 0.0), 0, 1)
    y = (rng.uniform(size=n) < truth).astype(int)
    return p, y, region, rng.choice(["web", "app"], n), rng.normal(size=n)


@pytest.mark.parametrize("bins", [3, 5, 12])
def test_bins_on_categorical_features_warns(bins):
    p, y, region, device, _ = _data()
    feats = {"region": region, "device": device}
    with pytest.warns(UserWarning) as record:
        seg = vc.SegmentCalibration(features=["region", "device"], bins=bins).fit(p, y, features=feats)
    (w,) = [str(r.message) for r in record]
    assert f"bins={bins}" in w and "changed nothing" in w and "'region', 'device'" in w and "\n" not in w
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = vc.SegmentCalibration(features=["region", "device"]).fit(p, y, features=feats)
    # it changed nothing: the same corrections as bins left out
    assert seg.corrections_ == plain.corrections_
    np.testing.assert_array_equal(seg.transform(p, features=feats), plain.transform(p, features=feats))


def test_frame_form_warns_too():
    p, y, region, device, _ = _data()
    df = pd.DataFrame({"p": p, "y": y, "region": region})
    with pytest.warns(UserWarning, match=r"bins=4\) cuts numeric features .* changed nothing; drop bins="):
        vc.SegmentCalibration(features=["region"], bins=4).fit(df, score="p", label="y")


def test_no_warning_with_a_numeric_feature_or_bins_left_out():
    p, y, region, _, x = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        three = vc.SegmentCalibration(features=["region", "x"], bins=3, depth=1).fit(
            p, y, features={"region": region, "x": x})
        default = vc.SegmentCalibration(features=["x"], depth=1).fit(p, y, features={"x": x})
        five = vc.SegmentCalibration(features=["x"], bins=5, depth=1).fit(p, y, features={"x": x})
        vc.SegmentCalibration(features=["region"]).fit(p, y, features={"region": region})
    assert three.specs_[1].n_levels == 3
    # bins=None (the default) is 5 equal-mass bins, as vc.segments' default
    assert default.bins is None and default.specs_[0].labels == five.specs_[0].labels
    assert len(default.specs_[0].labels) == 5
    assert list(default.specs_[0].labels) == list(vc.segments(p, y, features={"x": x}).levels["x"])


def test_default_round_trips_and_one_bin_is_still_refused():
    p, y, region, _, x = _data()
    seg = vc.SegmentCalibration(features=["x"], depth=1).fit(p, y, features={"x": x})
    back = vc.load(seg.to_dict())
    assert back.bins is None
    np.testing.assert_array_equal(back.transform(p, features={"x": x}), seg.transform(p, features={"x": x}))
    for bad in (1, 0, 2.5, True):
        with pytest.raises(vc.VeracityError, match="bins"):
            vc.SegmentCalibration(features=["x"], bins=bad).fit(p, y, features={"x": x})
