"""Overdue rows in the status text (session 38). The table's ``pending`` column counts the rows past the
horizon without an outcome too (the JSON splits them: ``pending``, ``overdue``), and nothing said so. A
calibrated model whose positives are confirmed 10-30 days after the prediction, read with a 7-day horizon,
alerted on every mature week — "prior shift ... fix: vc.adjust_prior(p, old=0.1065, new=0.006522)" —
because the late positives were simply not in yet: the status now names the overdue rows and what they can
do to an alert."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def _late_positives(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(1)
    n = 6000
    ts = np.datetime64("2026-03-02T00:00:00", "s") + rng.integers(0, 42 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(1, 8, n)
    y = (rng.random(n) < p).astype(int)  # calibrated
    delay = np.where(y == 1, rng.integers(10, 30, n), rng.integers(1, 5, n)) * 86400
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "t": ts + delay.astype("timedelta64[s]")}),
                   id="id", label="y", time="t")
    return store


def test_overdue_rows_are_named_beside_the_alerts_they_can_make(tmp_path):
    status = _late_positives(tmp_path).status(freq="W", as_of="2026-04-13", horizon="7d")
    overdue = {r.period: r.overdue for r in status.rows if r.overdue}
    alerted = [r.period for r in status.rows if r.alerts]
    assert alerted and all(overdue.get(p) for p in alerted)  # every alert sits on a window with overdue rows
    text = str(status)
    assert (f"({sum(overdue.values())} of the pending rows are overdue: past the horizon without an outcome "
            "(JSON overdue), never counted as negatives; alerting rows hold some ("
            + ", ".join(alerted)) in text
    assert "that alone can make a calibration alert and its diagnosis" in text
    # with a horizon the positives' delay fits in, nothing is overdue and nothing alerts
    patient = _late_positives(tmp_path / "b").status(freq="W", as_of="2026-04-13", horizon="30d")
    assert not any(r.overdue for r in patient.rows) and not patient.alerts
    assert "overdue" not in str(patient)


def test_overdue_rows_without_an_alert_get_the_short_note(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    ts = np.datetime64("2026-03-02T10:00:00", "s") + np.arange(6).astype("timedelta64[D]")
    store.log(pa.table({"id": np.arange(6), "ts": ts, "p": np.full(6, 0.3)}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": [0, 1], "y": [0, 1], "t": ts[:2] + np.timedelta64(1, "D")}), id="id",
                   label="y", time="t")
    text = str(store.status(freq="W", as_of="2026-12-01", horizon="7d"))
    assert "(4 of the pending rows are overdue: past the horizon without an outcome (JSON overdue), never " \
           "counted as negatives)" in text
