"""The label-free estimate's line names its interval's level as the rest of the status does (session 38): at
``level=0.999`` it read "expect 112.3 positives [85, 141] (100%)" under a table headed "99.9% CI" (and 0.975
read 98%): a 100 % interval of a count is every count, not [85, 141]."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.monitoring._estimate import estimate

pytest.importorskip("duckdb")


@pytest.mark.parametrize("level, shown", [(0.999, "(99.9%)"), (0.975, "(97.5%)")])
def test_the_estimate_line_names_its_level(tmp_path, level, shown):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    store = MonitorStore(tmp_path / "m.duckdb")
    ts = np.datetime64("2026-03-02T00:00", "s") + (np.arange(500) * 60).astype("timedelta64[s]")
    store.log(pa.table({"id": np.arange(500), "ts": ts, "p": rng.beta(1, 9, 500)}), id="id", time="ts",
              score="p")
    text = str(store.status(freq="W", as_of="2026-03-09", level=level))
    line = next(ln for ln in text.splitlines() if "500 pending: expect" in ln)
    assert shown in line
    assert shown in str(estimate(rng.beta(1, 9, 50), level=level))
