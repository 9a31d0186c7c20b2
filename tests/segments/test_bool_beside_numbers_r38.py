"""A feature column holding booleans beside numbers (an object column such as ``[True, 1, 0, False]``).

``np.unique`` reads ``True == 1`` and ``False == 0``, so the levels merged them while the level codes, which
tell ``1`` from ``True`` by name, found no level for half the rows: ``vc.segments`` failed with numpy's raw
"'list' argument must have no negative elements" (arrays and pandas frames alike) and
``vc.SegmentCalibration`` fitted those rows into no segment. The levels are now the values' names, as
``vc.audit(..., by=)`` names the slices of the same column: four segments, each counting its own rows
(session 38).
"""

import numpy as np
import pandas as pd

import veracity as vc


def _data(n=4000, gap=0.0, seed=0):
    rng = np.random.default_rng(seed)
    x = np.array([True, 1, 0, False] * (n // 4), dtype=object)
    p = rng.uniform(0.1, 0.8, n)
    planted = np.array([type(v) is int and v == 1 for v in x])  # the integer 1, not True
    y = (rng.random(n) < p + gap * planted).astype(int)
    return p, y, x, planted


def test_bools_beside_numbers_are_levels_of_their_own_on_arrays_and_frames():
    p, y, x, planted = _data(gap=0.15)
    res = vc.segments(p, y, features={"x": x})
    counts = {r.segment: r.n for r in res.rows}
    assert counts == {"x=True": 1000, "x=1": 1000, "x=0": 1000, "x=False": 1000}
    row = res.segment("x=1")
    assert row.rate == y[planted].mean() and row.discovery
    assert not res.segment("x=True").discovery
    frame = vc.segments(pd.DataFrame({"p": p, "y": y, "x": x}), score="p", label="y", features=["x"])
    def rows(r):
        return sorted((row.segment, row.n, row.gap) for row in r.rows)

    assert rows(frame) == rows(res)
    mixed = np.array([True, 1.5, 0, False] * 1000, dtype=object)  # a float beside the booleans
    assert {r.segment: r.n for r in vc.segments(p, y, features={"x": mixed}).rows} == {
        "x=True": 1000, "x=1.5": 1000, "x=0": 1000, "x=False": 1000}


def test_segment_calibration_corrects_the_integer_level_not_the_boolean():
    p, y, x, planted = _data(n=20_000, gap=0.15, seed=1)
    seg = vc.SegmentCalibration(base="platt", features=["x"], depth=1).fit(p, y, features={"x": x})
    q = seg.transform(p, features={"x": x})
    # the planted level's correction moves its mean score to its rate; the others stay near theirs
    assert abs(q[planted].mean() - y[planted].mean()) < 0.02
    assert abs(q[~planted].mean() - y[~planted].mean()) < 0.02
    assert q[planted].mean() - p[planted].mean() > 0.1
