"""With sequential alerts, the label-free estimates withdrawn after a prior shift named a diagnosis no row
showed (session 38): "withdrawn: prior shift diagnosed in 2026-W15", while 2026-W15 read ``not tested``
with no diagnosis (text and JSON) — the window tests, which diagnosed it, raise no alert in that mode. The
reason now says whose diagnosis it is; with the window tests (where 2026-W15 alerts and shows it) it reads
as before."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def _prior_shift_store(path):
    """The monitoring page's example: 300 predictions a day from Monday 2026-03-02 for 8 weeks, outcomes 2-14
    days later, the fraud rate 0.05 -> 0.15 from 2026-04-06 (week 15) with the scores unchanged."""
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(12)
    days, per_day, sep = 56, 300, 2.0
    start = np.datetime64("2026-03-02T00:00", "s")
    day = np.repeat(np.arange(days), per_day)
    ts = start + (day * 86400 + rng.integers(0, 86400, day.size)).astype("timedelta64[s]")
    prior = np.where(ts < np.datetime64("2026-04-06"), 0.05, 0.15)
    y = (rng.random(day.size) < prior).astype(int)
    x = rng.normal(np.where(y == 1, sep / 2, -sep / 2), 1.0)
    p = 1 / (1 + np.exp(-(sep * x + np.log(0.05 / 0.95))))
    seen = ts + rng.integers(2 * 86400, 14 * 86400, day.size).astype("timedelta64[s]")
    store = MonitorStore(path)
    ids = np.arange(day.size)
    store.log(pa.table({"id": ids, "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": ids, "y": y, "t": seen}), id="id", label="y", time="t")
    return store


def test_a_withdrawal_names_the_window_tests_when_their_diagnosis_is_not_shown(tmp_path):
    store = _prior_shift_store(tmp_path / "m.duckdb")
    seq = store.status(freq="W", as_of="2026-04-27", horizon="14d", alerts="sequential")
    w15 = next(r for r in seq.rows if r.period == "2026-W15")
    assert w15.status == "not tested" and w15.diagnosis is None and not w15.alerts
    reasons = {r.period: r.estimate_cbpe["withdrawn"] for r in seq.rows
               if (r.estimate_cbpe or {}).get("withdrawn")}
    assert sorted(reasons) == ["2026-W16", "2026-W17"]
    for reason in reasons.values():
        assert reason.startswith("prior shift diagnosed in 2026-W15 (base rate ")
        assert (") by the window tests on its final labels, which raise no alert with sequential alerts; "
                in reason)
    assert "by the window tests on its final labels" in str(seq)
    window = store.status(freq="W", as_of="2026-04-27", horizon="14d")
    w15 = next(r for r in window.rows if r.period == "2026-W15")
    assert w15.alerts and w15.diagnosis.startswith("prior shift")  # shown: the reason needs no such words
    withdrawn = [r.estimate_cbpe["withdrawn"] for r in window.rows
                 if (r.estimate_cbpe or {}).get("withdrawn")]
    assert withdrawn and not any("window tests" in w for w in withdrawn)
