"""``with store:`` keeps one DuckDB connection for a block of calls (session 44).

The documented daily loop (one ``log``/``outcomes`` call per file) opened the store once per call:
~15 ms of CPU per open plus replaying the write-ahead log, 125 opens and ~9 s of CPU for the
walkthrough's 124 files. In a block the file is opened once; each ingest is still its own transaction,
the stored rows are the same, and the lock is held until the block ends.
"""

from __future__ import annotations

import json
import threading

import duckdb
import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.monitoring import StoreBusy


def _days(rng: np.random.Generator, n_days: int = 4, per: int = 40) -> tuple[list, list]:
    preds, labels = [], []
    for d in range(n_days):
        ids = [f"t{d}-{i}" for i in range(per)]
        seconds = d * 86400 + np.sort(rng.integers(0, 86400, per))
        ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(seconds, "s")
        p = np.round(rng.uniform(0.01, 0.99, per), 6)
        preds.append(pd.DataFrame({"id": ids, "ts": ts, "score": p, "seg": rng.choice(["a", "b"], per)}))
        labels.append(pd.DataFrame({"id": ids, "y": (rng.random(per) < p).astype(int),
                                    "seen": ts + pd.Timedelta("3D")}))
    return preds, labels


def _feed(store: vc.MonitorStore, preds: list, labels: list) -> list[dict]:
    """The day-by-day loop, a re-sent day (no-op), a conflict (refused) and its --replace."""
    out = []
    for p, y in zip(preds, labels):
        out.append(store.log(p, id="id", time="ts", score="score", by="seg").to_dict())
        out.append(store.outcomes(y, id="id", label="y", time="seen").to_dict())
    out.append(store.log(preds[0], id="id", time="ts", score="score", by="seg").to_dict())
    bad = preds[1].assign(score=0.5)
    with pytest.raises(vc.VeracityError, match="conflict"):
        store.log(bad, id="id", time="ts", score="score", by="seg")
    out.append(store.log(bad, id="id", time="ts", score="score", by="seg", replace=True).to_dict())
    out.append(store.counts())
    return out


def _tables(path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        got = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
               for t in ("predictions", "outcomes", "veracity_meta")}
        got["batches"] = con.execute("SELECT * EXCLUDE (ingested_at) FROM batches ORDER BY batch").fetchall()
    finally:
        con.close()
    return got


def _counting(monkeypatch) -> list:
    opened: list = []
    real = duckdb.connect

    def connect(*args, **kwargs):
        opened.append(args[0] if args else kwargs.get("database"))
        return real(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", connect)
    return opened


def test_a_block_opens_the_store_once_and_stores_what_call_by_call_stores(tmp_path, monkeypatch):
    preds, labels = _days(np.random.default_rng(44))
    plain = vc.MonitorStore(tmp_path / "plain.duckdb")
    opened = _counting(monkeypatch)
    want = _feed(plain, preds, labels)
    assert len(opened) >= 12  # one open per call (and the first write's read-only check)
    status_plain = plain.status(freq="D", as_of="2026-03-20", min_count=1)
    del opened[:]
    with vc.MonitorStore(tmp_path / "held.duckdb") as held:
        got = _feed(held, preds, labels)
        status_held = held.status(freq="D", as_of="2026-03-20", min_count=1)
    # the refused conflict leaves the block's connection as it was: still one open for the whole block
    assert len(opened) == 1, opened
    for a, b in zip(got, want):
        a.pop("source", None), b.pop("source", None)
    assert got == want
    assert _tables(tmp_path / "held.duckdb") == _tables(tmp_path / "plain.duckdb")
    # (as JSON text: NaN equals NaN there, and every number is written to the last digit)
    assert json.dumps(status_held.to_dict(), default=str) == json.dumps(status_plain.to_dict(), default=str)
    assert len(status_held.rows) >= 4


def test_the_lock_is_held_for_the_block_and_released_at_its_end(tmp_path):
    path = tmp_path / "m.duckdb"
    preds, labels = _days(np.random.default_rng(1), n_days=1)
    with vc.MonitorStore(path) as store:
        store.log(preds[0], id="id", time="ts", score="score")
        # another object, another access mode: it waits, then fails
        with pytest.raises(StoreBusy, match="busy"):
            vc.MonitorStore(path, timeout=0.2).counts()
        with store:  # blocks nest: the inner end keeps the connection
            store.outcomes(labels[0], id="id", label="y", time="seen")
        assert store.counts()["outcomes"] == 40
    assert vc.MonitorStore(path, timeout=0.2).counts() == {"predictions": 40, "outcomes": 40, "batches": 2}


def test_a_read_opened_block_reopens_for_a_write_and_a_failed_write_reopens_checked(tmp_path, monkeypatch):
    path = tmp_path / "m.duckdb"
    preds, labels = _days(np.random.default_rng(2), n_days=2)
    vc.MonitorStore(path).log(preds[0], id="id", time="ts", score="score")
    opened = _counting(monkeypatch)
    with vc.MonitorStore(path) as store:
        assert store.counts()["predictions"] == 40  # read-only open
        store.log(preds[1], id="id", time="ts", score="score")  # reopened for writing (then kept)
        store.outcomes(labels[0], id="id", label="y", time="seen")
        assert store.counts() == {"predictions": 80, "outcomes": 40, "batches": 3}
    assert len(opened) == 2, opened
    assert vc.MonitorStore(path).counts() == {"predictions": 80, "outcomes": 40, "batches": 3}


def test_a_block_belongs_to_its_thread(tmp_path):
    store = vc.MonitorStore(tmp_path / "m.duckdb").init()
    seen: list = []
    with store:
        store.counts()

        def other() -> None:
            try:
                with store:
                    pass
            except vc.VeracityError as exc:
                seen.append(str(exc))

        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert len(seen) == 1 and "another thread" in seen[0]
    with store:  # the block ended: the store opens again
        assert store.counts()["batches"] == 0
