"""Round 18: vc.monitor's refusal of missing labels says how to keep those rows as pending.

In a monitor a label that has not arrived yet is the normal case. Before, the refusal said only
"map the two classes to 0 and 1 and drop unlabelled rows" (array form: "drop or fill those rows"),
though ``mature=`` (or ``as_of=`` with ``horizon=``) keeps them as pending rows, counted apart.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")


def _rows():
    rng = np.random.default_rng(0)
    n = 300
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(float)
    y[-50:] = np.nan
    ts = pd.date_range("2026-01-01", periods=n, freq="h")
    return p, y, ts


@pytest.mark.parametrize("form", ["array", "pandas", "polars-lazy"])
def test_missing_labels_point_to_mature_and_horizon(form):
    p, y, ts = _rows()
    df = pd.DataFrame({"p": p, "y": y, "ts": ts})
    if form == "array":
        call, how = (lambda: vc.monitor(p, y, ts.to_numpy(), freq="W")), "mature="
    else:
        frame = df if form == "pandas" else pytest.importorskip("polars").from_pandas(df).lazy()
        call, how = (lambda: vc.monitor(frame, score="p", label="y", periods="ts", freq="W")), "mature='column'"
    with pytest.raises(vc.VeracityError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message and "50" in message
    assert f"pending: pass {how}" in message and "as_of= with horizon=" in message
    # and the hint is right: marking them pending is accepted, 50 pending rows in the last week
    flags = ~np.isnan(y)
    result = (vc.monitor(p, y, ts.to_numpy(), freq="W", mature=flags) if form == "array" else
              vc.monitor(df.assign(m=flags), score="p", label="y", periods="ts", freq="W", mature="m"))
    assert sum(r.pending for r in result.rows) == 50


def test_other_refusals_are_unchanged():
    p, y, ts = _rows()
    p[3] = np.nan
    with pytest.raises(vc.VeracityError) as err:
        vc.monitor(p, np.nan_to_num(y), ts.to_numpy(), freq="W")
    assert "pending" not in str(err.value)
    with pytest.raises(vc.VeracityError) as err:  # rows marked: a missing final label is a broken row
        vc.monitor(np.nan_to_num(p), y, ts.to_numpy(), freq="W", mature=np.ones(y.size, dtype=bool))
    assert "pending" not in str(err.value)


@pytest.mark.parametrize("form", ["pandas", "polars-lazy"])
@pytest.mark.parametrize("broken", ["p", "w"])
def test_a_missing_score_or_weight_on_a_frame_gets_no_pending_label_advice(form, broken):
    """Before (session 19's review): the lazy route matched the word "missing" in any refusal, so a
    missing score or weight was told to pass mature= -- advice about labels, for a broken score."""
    p, y, ts = _rows()
    df = pd.DataFrame({"p": p, "y": np.nan_to_num(y), "w": np.ones(p.size), "ts": ts})
    df.loc[3, broken] = np.nan
    frame = df if form == "pandas" else pytest.importorskip("polars").from_pandas(df).lazy()
    with pytest.raises(vc.VeracityError) as err:
        vc.monitor(frame, score="p", label="y", sample_weight="w", periods="ts", freq="W")
    message = str(err.value)
    assert f"column {broken!r}" in message and "missing" in message
    assert "pending" not in message and "mature" not in message
