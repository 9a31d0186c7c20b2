"""Session 41: a store window's anytime-valid bounds read only the labels final by the window's end.

The sequences take one batch per UTC date on which labels became final. A rolling window (``window="1d"``)
ending at noon had read its end date's whole batch — labels that became final up to 12 hours after the
window ended — so its ``sequence_low``/``sequence_high`` were a later look's, and an alarm landed on a window
that had ended before the labels that raised it were final. Now each window reads the days that ended by its
end (the last window: every label final by the as-of time); calendar periods, which end at midnight, read
the same days.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")
DAY = np.timedelta64(86_400, "s")


def _store(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(16)
    n = 30_000
    t = np.datetime64("2026-01-01", "s") + rng.integers(0, 20 * 86_400, n).astype("timedelta64[s]")
    p = rng.beta(2, 8, n)
    final_at = t + DAY  # observed a day after the prediction, final at the 1-day horizon
    y = (rng.random(n) < p + 0.15 * (final_at >= np.datetime64("2026-01-12T18:00"))).astype(int)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": final_at}), id="id", label="y", time="ts")
    return store, p, y, final_at


def test_rolling_windows_read_the_days_final_by_their_end(tmp_path):
    store, p, y, final_at = _store(tmp_path)
    as_of = np.datetime64("2026-01-16T12:00")
    st = store.status(window="1d", as_of=str(as_of), horizon="1d", alerts="sequential")
    alpha = (1 - st.alert_level) / 2
    day = final_at.astype("datetime64[D]")
    checked = 0
    for row in st.rows[:-1]:
        end = np.datetime64(row.end)
        assert end.astype("datetime64[h]").item().hour == 12  # windows end at noon, mid-batch
        read = (final_at <= as_of) & (day + DAY <= end)  # the whole days that ended by the window's end
        if not read.any():
            assert row.sequence_low is None
            continue
        cs = vc.confidence_sequence(p[read], y[read], batches=day[read], alpha=alpha)
        assert (row.sequence_low, row.sequence_high) == pytest.approx((cs.low[-1], cs.high[-1]), abs=1e-12)
        checked += 1
    assert checked >= 10
    # the alarm: its day's batch (2026-01-13) ended at midnight, so the first window to alert is the one
    # ending at noon on 2026-01-14, not the one ending at noon on 2026-01-13, 12 hours before that batch ended
    assert st.sequence_alarms["(all)"]["day"] == "2026-01-13"
    first = next(r for r in st.rows if r.alerts)
    assert np.datetime64(first.end) == np.datetime64("2026-01-14T12:00")
    last = st.rows[-1]  # every label final by the as-of time
    every = final_at <= as_of
    cs = vc.confidence_sequence(p[every], y[every], batches=day[every], alpha=alpha)
    assert (last.sequence_low, last.sequence_high) == pytest.approx((cs.low[-1], cs.high[-1]), abs=1e-12)
    # weeks end at midnight: each reads every day before its end, as before
    as_of = np.datetime64("2026-01-22")
    st = store.status(freq="W", as_of=str(as_of), horizon="1d", alerts="sequential")
    day = final_at.astype("datetime64[D]")
    for row in st.rows[:-1]:
        read = (final_at <= as_of) & (day < np.datetime64(row.end))
        cs = vc.confidence_sequence(p[read], y[read], batches=day[read], alpha=(1 - st.alert_level) / 2)
        assert (row.sequence_low, row.sequence_high) == pytest.approx((cs.low[-1], cs.high[-1]), abs=1e-12)
