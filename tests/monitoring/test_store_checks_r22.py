"""A process that logs batch after batch checks the store once (session 22: each ``log`` re-read the
catalogue and every stored value, ~15 ms of a ~100 ms call and growing with the store), and checks it
again as soon as anything else has changed the file."""

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")


def _batch(i, n=50):
    ids = np.arange(i * n, (i + 1) * n)
    t = np.datetime64("2026-03-02", "s") + (ids * 600).astype("timedelta64[s]")
    return pa.table({"id": ids, "ts": t, "p": np.linspace(0.1, 0.9, n)})


@pytest.fixture()
def checks(monkeypatch):
    seen = []
    for name in ("_check_schema", "_check_readable"):
        real = getattr(MonitorStore, name)

        def counted(self, con, *a, _real=real, _name=name, **k):
            seen.append(_name)
            return _real(self, con, *a, **k)

        monkeypatch.setattr(MonitorStore, name, counted)
    return seen


def test_batch_after_batch_checks_the_store_once(tmp_path, checks):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(_batch(0), id="id", time="ts", score="p")  # created, then checked, by this object
    checks.clear()
    for i in range(1, 4):
        store.log(_batch(i), id="id", time="ts", score="p")
        labels = pa.table({"id": np.arange(i * 50, i * 50 + 10), "y": np.ones(10, int)})
        store.outcomes(labels, id="id", label="y")
    assert checks == []
    # another object of the same process (the CLI, outcomes after log) trusts the same file state
    assert MonitorStore(store.path).counts()["predictions"] == 200 and checks == []


def test_a_file_changed_by_another_writer_is_checked_again_once(tmp_path, checks):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(_batch(0), id="id", time="ts", score="p")
    con = duckdb.connect(str(store.path))  # another writer (a process of its own as far as the file shows)
    con.execute("INSERT INTO veracity_meta VALUES ('note', 'written by another tool')")
    con.close()
    checks.clear()
    store.log(_batch(1), id="id", time="ts", score="p")
    # the read-only open before the write reads the catalogue and every value; the write trusts it
    assert checks == ["_check_schema", "_check_readable"]
    checks.clear()
    store.log(_batch(2), id="id", time="ts", score="p")
    assert checks == []


def test_a_store_damaged_after_a_checked_write_is_still_refused(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(_batch(0), id="id", time="ts", score="p")
    con = duckdb.connect(str(store.path))
    con.execute("ALTER TABLE batches DROP COLUMN content_hash")
    con.close()
    with pytest.raises(vc.VeracityError, match="column 'content_hash' of table 'batches' is missing"):
        store.log(_batch(1), id="id", time="ts", score="p")
    with pytest.raises(vc.VeracityError, match="content_hash"):
        store.counts()
