"""Session 28: ``status.plot()`` (and the report's "Over time" figure) draws the ``(all)`` rows only, so a
window where a slice alerts and ``(all)`` does not showed no alert at all — a quiet figure beside an
``ALERT 2026-W10 [b]`` line. Such a window is now marked at the top of the upper panel."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")


def _store(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(3)
    n_a, n_b = 2000, 150
    t0 = np.datetime64("2026-03-02T00:00", "s")  # a Monday: every row in 2026-W10, the next week calibrated
    ts = np.concatenate([t0 + rng.integers(0, 7 * 86400, n_a + n_b).astype("timedelta64[s]"),
                         t0 + np.timedelta64(7 * 86400, "s")
                         + rng.integers(0, 7 * 86400, n_a).astype("timedelta64[s]")])
    seg = np.array(["a"] * n_a + ["b"] * n_b + ["a"] * n_a)
    p = rng.beta(2, 5, ts.size)
    q = p.copy()
    q[n_a:n_a + n_b] = np.clip(p[n_a:n_a + n_b] + 0.3, 0, 1)  # slice b of week 10: far more positives
    y = (rng.random(ts.size) < q).astype(int)
    s = MonitorStore(tmp_path / "m.duckdb")
    ids = np.arange(ts.size)
    s.log(pa.table({"id": ids, "ts": ts, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    s.outcomes(pa.table({"id": ids, "y": y}), id="id", label="y")
    return s.status(freq="W", as_of="2027-01-01", by="seg")


def test_a_slice_alert_is_marked_on_the_figure_of_the_all_rows(tmp_path):
    st = _store(tmp_path)
    alerting = {(r.period, r.slice) for r in st.rows if r.alerts}
    assert alerting == {("2026-W10", "b")}  # the premise: (all) is quiet in both weeks, slice b alerts in W10
    fig = st.plot()
    top = fig.axes[0]
    marks = [c for c in top.collections if c.get_gid() == "slice-alerts"]
    assert len(marks) == 1
    xs = marks[0].get_offsets()[:, 0]
    assert list(xs) == [0.0]  # the first window (2026-W10), not the quiet 2026-W11
    assert "a slice alerts (see the status)" in top.get_legend_handles_labels()[1]

