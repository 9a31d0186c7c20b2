"""Session 35: the monitoring store's confusion_ppi cuts TP ... TN at the flagged share's bounds (as
vc.ppi_audit does).

One week of 2,000 Beta(2, 3) scores with 30 random audit labels (seed 32): before session 35 TP read 0.0311 in
[0.0000, 0.6294] and FP's upper end 0.4202 with 0.3085 of the rows flagged (the flag needs no label, so
TP, FP <= P(flag)); the bound is the exact one-sided end of the flagged share at 0.02 (1 - level).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from scipy.stats import beta

import veracity as vc
from veracity.monitoring import MonitorStore


def test_confusion_ppi_respects_the_flagged_share_and_equals_ppi_audit(tmp_path):
    rng = np.random.default_rng(32)
    s = rng.beta(2, 3, 2000)
    y = (rng.random(2000) < s).astype(np.int8)
    mask = np.zeros(2000, bool)
    mask[rng.choice(2000, 30, replace=False)] = True
    t0 = np.datetime64("2026-03-02T00:00:00")  # a Monday: one weekly window
    ts = t0 + (np.arange(2000) * 300).astype("timedelta64[s]")
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(2000), "ts": ts, "p": s}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(2000)[mask], "y": y[mask],
                             "ts": ts[mask] + np.timedelta64(3600, "s")}),
                   id="id", label="y", time="ts", audit_sample=True)
    st = store.status(freq="W", as_of="2026-03-20", horizon="60d", threshold=0.5)
    rows = [r for r in st.rows if r.confusion_ppi is not None]
    assert len(rows) == 1
    got = rows[0].confusion_ppi
    tail = 0.02 * 0.05
    upper = beta.ppf(1 - tail, 617 + 1, 2000 - 617)  # 617 of 2,000 rows flagged
    lower = beta.ppf(tail, 617, 2000 - 617 + 1)
    assert got["tp"]["ci_high"] == pytest.approx(upper, rel=1e-9)  # was 0.6294
    assert got["fp"]["ci_high"] == pytest.approx(upper, rel=1e-9)  # was 0.4202
    assert got["fn"]["ci_high"] <= 1 - lower and got["tn"]["ci_high"] <= 1 - lower
    ref = vc.ppi_audit(y[mask], s[mask], s[~mask], sample_check="off")
    for q in ("tp", "fp", "fn", "tn", "cost"):
        three = (got[q]["estimate"], got[q]["ci_low"], got[q]["ci_high"])
        assert three == pytest.approx((ref.row(q)["estimate"], ref.row(q)["ci_low"], ref.row(q)["ci_high"]),
                                      abs=1e-9), q
