"""Rolling windows of the store: a window ending at the as-of time holds (start, start + w]."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")


def _daily(tmp_path, days=15, per=300, seed=3):
    """Times at midnight, one day after another; EU miscalibrated on every 7th day (the boundary days)."""
    rng = np.random.default_rng(seed)
    counts = per + 10 * np.arange(days)  # a different number of rows each day
    n = int(counts.sum())
    day = np.repeat(np.arange(days), counts)
    t = np.datetime64("2026-03-01", "s") + day * np.timedelta64(86400, "s")
    p = rng.uniform(0.1, 0.9, n)
    region = rng.choice(["EU", "US"], n)
    planted = (region == "EU") & (day % 7 == 0)
    y = (rng.random(n) < np.where(planted, np.clip(p + 0.4, 0, 1), p)).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "region": region}), id="id", time="ts", score="p",
              by=["region"])
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t}), id="id", label="y", time="ts")
    return store, t, p, y, region


def test_window_recalibration_fits_the_windows_own_rows(tmp_path):
    """recalibrate read a window as [start, end) (to the second): the boundary day its status row counted
    went to the next window, so it fitted other rows than the status's fit window holds."""
    store, t, p, y, region = _daily(tmp_path)
    as_of = "2026-03-15T00:00:00.250000"  # a fraction of a second: the status prints starts to the second
    st = store.status(window="7d", as_of=as_of, min_count=100)
    rec = store.recalibrate(window="7d", as_of=as_of, min_count=100)
    rows = {r.period: r for r in st.rows}
    days = (t.astype("datetime64[D]") - np.datetime64("2026-03-01", "D")).astype(int)
    assert rec.n_fit == rows[rec.fit_period].labelled == int(((days >= 1) & (days <= 7)).sum())
    assert rec.n_eval == rows[rec.eval_period].labelled


def test_window_segments_read_the_windows_own_rows(tmp_path):
    """Daily times at midnight, 7-day windows ending at a midnight as-of: the status counted a row at a
    boundary in the window it ends, the segment search in the window it starts (and raised "the frame has
    no rows" on the oldest window, which holds one boundary day only)."""
    rng = np.random.default_rng(3)
    days, per = 15, 300
    n = days * per
    t = np.repeat(np.datetime64("2026-03-01", "s") + np.arange(days) * np.timedelta64(86400, "s"), per)
    p = rng.uniform(0.1, 0.9, n)
    region = rng.choice(["EU", "US"], n)
    day = np.repeat(np.arange(days), per)
    planted = (region == "EU") & (day % 7 == 0)  # the boundary days
    y = (rng.random(n) < np.where(planted, np.clip(p + 0.4, 0, 1), p)).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "region": region}), id="id", time="ts", score="p",
              by=["region"])
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t}), id="id", label="y", time="ts")
    as_of = np.datetime64("2026-03-15", "s")
    st = store.status(window="7d", as_of=str(as_of), segments=True)
    rows = [r for r in st.rows if r.slice == "(all)"]
    assert len(rows) == 3  # (02-22, 03-01], (03-01, 03-08], (03-08, 03-15]
    for k, row in enumerate(reversed(rows)):
        end = as_of - np.timedelta64(7 * 86400 * k, "s")
        inside = (t > end - np.timedelta64(7 * 86400, "s")) & (t <= end)
        assert row.labelled == int(inside.sum())
        ref = vc.segments(p[inside], y[inside], features={"region": region[inside]}, min_count=50)
        assert [d["segment"] for d in row.segments] == [d.segment for d in ref.discoveries]
        assert [d["n"] for d in row.segments] == [d.n for d in ref.discoveries]
        assert row.segments and row.segments[0]["segment"] == "region=EU"
