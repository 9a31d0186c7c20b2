"""``status(model='', segments=True)`` on predictions logged with ``model=''`` (session 38): the segments
query read ``model`` as a truth value, left the filter out and passed its parameter anyway, and the status
said the store "could not be read as a monitoring store ...; restore it from a backup" of a sound store."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def test_an_empty_model_name_filters_the_segments_like_any_name(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 400
    ts = np.datetime64("2026-03-02T00:00", "s") + (np.arange(n) * 60).astype("timedelta64[s]")
    p = rng.random(n)
    g = rng.choice(["a", "b"], n)
    table = pa.table({"id": np.arange(n), "ts": ts, "p": p, "g": g,  # slice 'a' under-confident
                      "y": (rng.random(n) < np.clip(p + 0.3 * (g == "a"), 0, 1)).astype(int)})
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(table, id="id", time="ts", score="p", by="g", model="")
    other = table.set_column(0, "id", pa.array(np.arange(n) + n))  # the same rows under another model
    store.log(other, id="id", time="ts", score="p", by="g", model="v2")
    store.outcomes(pa.concat_tables([table, other]), id="id", label="y", time="ts")
    row = store.status(as_of="2026-03-09", model="", segments=True).rows[0]
    assert row.rows == n and [d["segment"] for d in row.segments][:1] == ["g=a"]
    assert row.segments[0]["n"] == int((g == "a").sum())  # only the model '' rows, not both models' 2x
