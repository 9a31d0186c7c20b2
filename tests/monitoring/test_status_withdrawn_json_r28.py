"""Session 28: after a diagnosed prior shift the status text and the figure withdraw the label-free
estimate of the later pending windows ("withdrawn: prior shift diagnosed in ..."), and ``estimate_cbpe``
says so, but the JSON's ``estimate`` of the same row still carried the old prior's expected positives with
nothing to say they are withdrawn: a cron job reading ``estimate.positives`` got a forecast the status
had taken back. Now it carries ``withdrawn`` (the reason) too."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.special import expit, logit

pytest.importorskip("duckdb")


def _world(rng, n, prior, pi_model=0.05, sep=2.0):
    y = (rng.random(n) < prior).astype(int)
    x = rng.normal(np.where(y == 1, sep / 2, -sep / 2), 1.0)
    return expit(sep * x + logit(pi_model)), y


def test_json_estimate_says_it_is_withdrawn_after_a_prior_shift(tmp_path, cli):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(11)
    t0 = np.datetime64("2026-03-02T00:00", "s")  # a Monday
    weeks = [_world(rng, 3000, prior) for prior in (0.05, 0.05, 0.15, 0.15)]
    p = np.concatenate([w[0] for w in weeks])
    y = np.concatenate([w[1] for w in weeks])
    week = np.repeat(np.arange(4), 3000)
    ts = t0 + (week * 7 * 86400 + rng.integers(0, 7 * 86400, p.size)).astype("timedelta64[s]")
    ids = np.arange(p.size)
    path = tmp_path / "m.duckdb"
    s = MonitorStore(path)
    s.log(pa.table({"id": ids, "ts": ts, "p": p}), id="id", time="ts", score="p")
    done = week < 3  # the last week's outcomes have not arrived
    seen = np.full(done.sum(), np.datetime64("2026-03-25"))
    s.outcomes(pa.table({"id": ids[done], "y": y[done], "o": seen}), id="id", label="y", time="o")
    st = s.status(freq="W", as_of="2026-03-30")
    shifted, pending = st.rows[2], st.rows[3]
    assert shifted.diagnosis.startswith("prior shift"), shifted.diagnosis  # the premise
    assert pending.status == "pending" and pending.estimate is not None
    reason = pending.estimate_cbpe["withdrawn"]
    assert f"withdrawn: {reason}" in str(st)  # the text withdraws it
    assert pending.to_dict()["estimate"]["withdrawn"] == reason
    out = cli(["monitor", "status", str(path), "--freq", "W", "--as-of", "2026-03-30", "--json"])
    assert out.code == 0, out.err
    rows = json.loads(out.out)["periods"]
    assert rows[3]["estimate"]["withdrawn"] == reason
    assert "withdrawn" not in (rows[1]["estimate"] or {})  # before the shift nothing is withdrawn
