"""The store reads its rows through the rows seam (issue 21): its score bins are the one bin index's
(scores on every bin edge land where vc.audit puts them) and threshold= goes through the one check."""

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

import veracity as vc  # noqa: E402
from veracity.monitoring import MonitorStore  # noqa: E402


def test_store_bins_scores_on_the_edges_as_the_audit_does(tmp_path):
    bins = 15
    p = np.concatenate([np.arange(bins + 1) / bins, np.linspace(0.0, 1.0, 301)])  # every edge, 1.0 included
    y = (np.arange(p.size) % 3 == 0).astype(np.int8)
    t = np.datetime64("2026-01-05", "s") + np.arange(p.size).astype("timedelta64[s]")
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(p.size), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(p.size), "y": y, "ts": t}), id="id", label="y", time="ts")
    window = list(store.status(freq="M", as_of="2026-02-01", bins=bins).stats.values())[0]
    audit = vc.audit(p, y, bins=bins).table.stats
    assert np.array_equal(window.count, audit.count)
    assert np.array_equal(window.edges, audit.edges)
    np.testing.assert_allclose(window.sum_p, audit.sum_p, rtol=1e-12)


@pytest.mark.parametrize("threshold", [-0.1, 1.5])
def test_store_threshold_is_the_one_check(tmp_path, threshold):
    store = MonitorStore(tmp_path / "m.duckdb").init()
    with pytest.raises(vc.VeracityError, match=r"threshold must be a probability in \[0, 1\]") as info:
        store.status(threshold=threshold)
    assert info.value.param == "threshold"
