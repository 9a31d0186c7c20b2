"""SegmentCalibration's saved levels and the levels a transform finds (session 38; hunt beside "roles").

- A feature of bytes (a BLOB/binary column) or of Python durations fitted, but ``save`` raised json's
  ``TypeError: Object of type bytes is not JSON serializable`` (a traceback, and no artifact). Such a level
  is saved as its name now, and the loaded calibrator gives the fitted one's numbers bit for bit.
- A level found as text (``"7"``: the column read as text at fit) was not found in the same column read as
  floats at transform (``7.0``: pandas' integer column with a NaN): every row went uncorrected, silently,
  where the integer ``7`` found it.
"""

from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

rng = np.random.default_rng(3804)
N = 3000
G = rng.integers(1, 4, N)
P = rng.uniform(0.05, 0.95, N)
_TRUE = 1 / (1 + np.exp(-(np.log(P / (1 - P)) + np.where(G == 1, 1.0, 0.0))))
Y = (rng.uniform(size=N) < _TRUE).astype(int)


def _fit(column):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vc.SegmentCalibration(features=["g"]).fit(P, Y, features={"g": column})


@pytest.mark.parametrize("column", [
    np.where(G == 1, b"a", b"b").astype(object),
    np.where(G == 1, b"a", b"b"),
    np.array([dt.timedelta(days=int(g)) for g in G], dtype=object),
], ids=["bytes", "numpy-bytes", "timedelta"])
def test_levels_json_cannot_hold_are_saved_by_name(column, tmp_path):
    cal = _fit(column)
    fitted = cal.transform(P, features={"g": column})
    assert np.abs(fitted - cal.base_.transform(P)).max() > 0.05  # a real correction
    cal.save(tmp_path / "seg.json")
    again = vc.load(tmp_path / "seg.json")
    np.testing.assert_array_equal(again.transform(P, features={"g": column}), fitted)


def test_a_text_level_is_found_in_the_column_read_as_floats():
    cal = _fit(G.astype(str))
    fitted = cal.transform(P, features={"g": G.astype(str)})
    assert np.abs(fitted - cal.base_.transform(P)).max() > 0.05
    as_floats = G.astype(float)
    np.testing.assert_array_equal(cal.transform(P, features={"g": as_floats}), fitted)
    # the frame route: pandas' integer column with one NaN is float
    holed = pd.Series(G, dtype=float)
    holed.iloc[0] = np.nan
    frame = pd.DataFrame({"p": P, "g": holed})
    got = cal.transform(frame, score="p")
    np.testing.assert_array_equal(got[1:], fitted[1:])
    assert got[0] == cal.base_.transform(P[:1])[0]  # a missing value: no level seen at fit, no correction
    np.testing.assert_array_equal(vc.load(cal.to_dict()).transform(P, features={"g": as_floats}), fitted)
