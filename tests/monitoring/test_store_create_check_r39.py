"""Speed-only guards (session 39): a store this process has just created is not read back by the schema
check (``_check_schema``: ~10 ms of a ~50 ms ``init``); these pin that such a store passes that check, and
that any store not made by the open that reads it is still checked."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")


@pytest.fixture()
def checks(monkeypatch):
    seen = []
    real = MonitorStore._check_schema

    def counted(self, con):
        seen.append(str(self.path))
        return real(self, con)

    monkeypatch.setattr(MonitorStore, "_check_schema", counted)
    return seen


@pytest.mark.parametrize("make", ["init", "log"])
def test_a_store_made_by_this_open_is_not_checked_and_passes_the_check(tmp_path, checks, make):
    store = MonitorStore(tmp_path / "m.duckdb")
    if make == "init":
        store.init()
    else:
        t = np.datetime64("2026-03-02", "s") + np.arange(5).astype("timedelta64[h]")
        store.log(pa.table({"id": np.arange(5), "ts": t, "p": np.linspace(0.1, 0.9, 5)}), id="id", time="ts",
                  score="p")
    assert checks == []  # created by this open: no read-back
    con = duckdb.connect(str(store.path), read_only=True)
    try:
        store._check_schema(con)  # what the skipped check would have read: the store as this version makes it
    finally:
        con.close()
    assert len(checks) == 1
    # another process's file (as far as this one can tell) is checked on its first open
    other = MonitorStore(store.path)
    con = duckdb.connect(str(store.path))
    con.execute("INSERT INTO veracity_meta VALUES ('note', 'written by another tool')")
    con.close()
    assert other.counts()["predictions"] == (0 if make == "init" else 5)
    assert len(checks) == 2
