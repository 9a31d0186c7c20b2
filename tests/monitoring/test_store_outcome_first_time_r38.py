"""An outcome stored before its prediction, observed more than a day before the prediction's time (session
38): one of the two times is wrong, and the store says so when the outcome comes second; when the prediction
came second it said nothing (the check ran on outcome batches only)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def test_a_prediction_dated_after_its_stored_outcome_is_warned_about(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    seen = np.array(["2026-03-01", "2026-03-12", "2026-03-12"], dtype="datetime64[s]")
    store.outcomes(pa.table({"id": [1, 2, 3], "y": [1, 0, 1], "t": seen}), id="id", label="y", time="t")
    preds = pa.table({"id": [1, 2, 3], "ts": np.full(3, np.datetime64("2026-03-10T00:00", "s")),
                      "p": [0.1, 0.2, 0.3]})
    with pytest.warns(UserWarning, match="1 outcome was observed more than a day before their prediction"):
        res = store.log(preds, id="id", time="ts", score="p")
    assert res.observed_before == 1 and "check the --time columns" in str(res)
    again = store.log(preds, id="id", time="ts", score="p")  # a no-op stores nothing: nothing to say again
    assert again.observed_before == 0
