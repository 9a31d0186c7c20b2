"""A store write commits into DuckDB's write-ahead log and leaves the checkpoint to the log's size
(session 32). A checkpoint rewrites a metadata block of the file in place; CI once saw a writer killed
inside that write leave a file whose block checksum failed (test_store.py's SIGKILL test). Every ingest
checkpointed when its connection closed, so every ingest opened that window; now about one in 50 small
ingests does, and what is stored reads the same."""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pytest

from veracity.monitoring import MonitorStore
from veracity.monitoring._store import _CHECKPOINT_BYTES

duckdb = pytest.importorskip("duckdb")


def _batch(i: int, step: int = 200) -> tuple[pa.Table, pa.Table]:
    ids = np.arange(i * step, (i + 1) * step)
    rng = np.random.default_rng(i)
    t = np.datetime64("2026-03-02", "s") + (ids % (28 * 86400)).astype("timedelta64[s]")
    return (pa.table({"id": ids, "ts": t, "p": rng.random(step)}),
            pa.table({"id": ids[::2], "y": (rng.random(ids[::2].size) < 0.5).astype(int)}))


def test_small_ingests_go_to_the_log_and_a_full_log_is_checkpointed(tmp_path):
    path = tmp_path / "m.duckdb"
    wal = tmp_path / "m.duckdb.wal"
    store = MonitorStore(path)
    store.init()
    # 17 ingests of 1,000 predictions and 500 outcomes: the log reaches the threshold at the 11th (~86 kB a
    # batch, measured; 6 to spare should a DuckDB release log less), so both branches below run (a write to
    # the file that empties the log; batches left in the log) and the log refills after its checkpoint. Each
    # ingest reopens the store and replays the log, so the test costs the sum of the log's sizes: it was 80
    # batches of 200 predictions (~18 kB, the threshold at the 52nd), 7.5 s of CPU; 120 before that (~40 s).
    # A DuckDB commit checkpoints when the log plus its estimate of the transaction (over 1 MiB for either
    # size) passes the threshold, so the batches fill about the same log before it, in a fifth of the opens
    batches, step = 17, 1000
    sizes, checkpoints = [], 0
    for i in range(batches):
        before = path.stat().st_mtime_ns, path.stat().st_size
        pred, out = _batch(i, step)
        store.log(pred, id="id", time="ts", score="p")
        store.outcomes(out, id="id", label="y")
        log = wal.stat().st_size if wal.exists() else 0
        sizes.append(log)
        if (path.stat().st_mtime_ns, path.stat().st_size) != before:  # the file itself was written
            checkpoints += 1
            assert log < _CHECKPOINT_BYTES  # a checkpoint empties the log
        else:
            assert 0 < log  # the batch is in the log, the file untouched
    assert max(sizes) < 2 * _CHECKPOINT_BYTES  # the log never grows past the threshold (and one commit)
    assert 1 <= checkpoints <= batches // 8  # was one per ingest; now one per ~1 MiB of log (1 in 34 here)
    con = duckdb.connect(str(path), read_only=True)  # the log replayed: every batch is there
    try:
        n, distinct = con.execute("SELECT count(*), count(DISTINCT id) FROM predictions").fetchone()
        labelled = con.execute("SELECT count(*) FROM predictions WHERE label IS NOT NULL").fetchone()[0]
    finally:
        con.close()
    assert (n, distinct, labelled) == (batches * step, batches * step, batches * step // 2)
    assert store.counts() == {"predictions": batches * step, "outcomes": batches * step // 2,
                              "batches": 2 * batches}


def test_a_store_left_with_a_log_reads_as_the_checkpointed_copy(tmp_path):
    path = tmp_path / "m.duckdb"
    store = MonitorStore(path)
    for i in range(5):
        pred, out = _batch(i)
        store.log(pred, id="id", time="ts", score="p")
        store.outcomes(out, id="id", label="y")
    assert (tmp_path / "m.duckdb.wal").exists()
    def status(store: MonitorStore) -> str:  # NaN fields compare equal as text
        return json.dumps(store.status(freq="W", as_of="2026-04-01").to_dict(), sort_keys=True, default=str)

    logged = status(store)
    con = duckdb.connect(str(path))
    con.execute("CHECKPOINT")
    con.close()
    assert not (tmp_path / "m.duckdb.wal").exists() or os.path.getsize(tmp_path / "m.duckdb.wal") == 0
    assert status(MonitorStore(path)) == logged
