"""The report's "Over time" section says what the status says about overdue rows (session 38). A calibrated
model whose positives are confirmed 10-30 days after the prediction, read with a 7-day horizon, alerts with a
"prior shift" diagnosis and a `vc.adjust_prior` fix; the status text adds that the alerting windows hold
overdue rows (past the horizon without an outcome) and that missing late outcomes alone can make that alert.
The report listed the alerts and their fix without that caveat."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import section

pytest.importorskip("duckdb")

CAVEAT = "that alone can make a calibration alert and its diagnosis"


def _store(path, *, late: bool):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(1)
    n = 6000
    ts = np.datetime64("2026-03-02T00:00:00", "s") + rng.integers(0, 42 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(1, 8, n)
    y = (rng.random(n) < p).astype(int)  # calibrated
    days = np.where(y == 1, rng.integers(10, 30, n), rng.integers(1, 5, n)) if late else np.ones(n, int)
    store = MonitorStore(path)
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "t": ts + (days * 86400).astype("timedelta64[s]")}),
                   id="id", label="y", time="t")
    return store, p, y


def test_the_over_time_section_names_the_overdue_rows_beside_the_alerts(tmp_path):
    store, p, y = _store(tmp_path / "m.duckdb", late=True)
    status = store.status(freq="W", as_of="2026-04-13", horizon="7d")
    assert status.alerts and CAVEAT in str(status)
    # the section's text only (the figure's words are read below, where the quiet store's page has them)
    over_time = section(vc.report(p, y, store=status, figures=False).html, "over-time")
    alerted = ", ".join(dict.fromkeys(r.period for r in status.rows if r.alerts))
    total = sum(r.overdue for r in status.rows)
    assert (f"{total:,} of the pending rows are overdue: past the horizon without an outcome (JSON overdue), "
            f"never counted as negatives; alerting rows hold some ({alerted})") in over_time
    assert CAVEAT in over_time
    assert over_time.index(CAVEAT) < over_time.index("<h3>Alerts</h3>")  # read before the fixes listed
    # outcomes that all arrive within the horizon: nothing overdue, no note
    store, p, y = _store(tmp_path / "b.duckdb", late=False)
    quiet = store.status(freq="W", as_of="2026-04-13", horizon="7d")
    assert not any(r.overdue for r in quiet.rows)
    assert "overdue" not in section(vc.report(p, y, store=quiet).html, "over-time")
