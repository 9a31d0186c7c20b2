"""An empty store's status says that nothing was checked (before: an empty table and "alerts: none", which
reads as a clean bill of health for a logging job that never ran)."""

import veracity as vc

NOTE = "no prediction at or before the as-of time, so nothing was checked"


def test_an_empty_store_says_nothing_was_checked(tmp_path, cli) -> None:
    path = tmp_path / "m.duckdb"
    vc.MonitorStore(path).init()
    assert NOTE in str(vc.MonitorStore(path).status())
    res = cli(["monitor", "status", str(path)])
    assert res.code == 0 and NOTE in res.out, (res.code, res.out, res.err)


def test_a_store_with_predictions_has_no_such_line(tmp_path) -> None:
    import numpy as np
    import pyarrow as pa

    store = vc.MonitorStore(tmp_path / "m.duckdb")
    t = np.datetime64("2026-03-02", "s") + np.arange(50).astype("timedelta64[h]")
    store.log(pa.table({"id": np.arange(50), "ts": t, "p": np.linspace(0.1, 0.9, 50)}), id="id", time="ts",
              score="p")
    assert NOTE not in str(store.status(as_of="2026-03-20"))
