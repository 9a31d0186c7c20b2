"""A store whose windows are all pending (no final label yet) drew no rate, interval or labelled rows' mean
score, yet its figure's key listed all three (round 42): now only the marks drawn are keyed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")


def _keys(status) -> list[str]:
    fig = status.plot()
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_pending_only_store_keys_no_rate(tmp_path):
    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 3000
    t = np.datetime64("2026-03-02T00:00", "s") + rng.integers(0, 5 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 8, n)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    pending = _keys(store.status(freq="D", as_of="2026-03-08", horizon="30d"))
    assert "expected rate of pending rows (label-free)" in pending
    assert not any(k in pending for k in ("observed rate", "mean score (labelled rows)", "95% interval of the rate"))
    y = (rng.random(n) < p).astype(int)
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t}), id="id", label="y", time="ts")
    final = _keys(store.status(freq="D", as_of="2026-03-08", horizon="0d"))
    assert all(k in final for k in ("observed rate", "mean score (labelled rows)", "95% interval of the rate"))
