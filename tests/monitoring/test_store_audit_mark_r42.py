"""The audit-sample mark belongs to the row, not to the feed that brought its label (session 42).

The full label feed repeating the randomly audited rows was refused as a conflict ("different label (or
audit-sample mark)"), and ``--replace``, which the message advised, dropped the mark of every audited row the
feed reached: with confirmed positives arriving first, the audit sample left held only negatives and the
window's PPI rate read 0.0 [0, 0.005] for a true rate of 0.2 — a silent wrong number.
"""

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.cli import main
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-03-02T00:00", "s")
DAY = np.timedelta64(86400, "s")


def _world(tmp_path, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    t = T0 + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 8, n)
    y = (rng.random(n) < p).astype(int)
    ids = np.arange(n).astype(str)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": ids, "ts": t, "p": p}), id="id", time="ts", score="p")
    audit = rng.random(n) < 0.1
    return store, ids, t, y, audit


def _labels(ids, y, t, mask, days):
    return pa.table({"id": ids[mask], "y": y[mask], "ts": t[mask] + days * DAY})


def _ppi(store):
    (row,) = store.status(freq="W", as_of="2026-03-20", horizon="30d").rows  # every label still provisional
    return row.estimate_ppi


def test_the_full_feed_repeating_audit_labels_keeps_the_audit_sample_and_its_ppi_rate(tmp_path):
    store, ids, t, y, audit = _world(tmp_path)
    store.outcomes(_labels(ids, y, t, audit, 1), id="id", label="y", time="ts", audit_sample=True)
    positives = y == 1  # the regular feed confirms the positives first, audited ones among them
    res = store.outcomes(_labels(ids, y, t, positives, 2), id="id", label="y", time="ts")
    assert res.duplicates == int((audit & positives).sum()) > 0
    assert res.inserted == int((~audit & positives).sum())
    ppi = _ppi(store)
    assert ppi["labels"] == int(audit.sum())  # every audit label still counts
    # the true rate, 0.20 (it read 0.0 [0, 0.005] after --replace)
    assert ppi["ci_low"] <= y.mean() <= ppi["ci_high"]
    # --replace on a corrected label keeps the mark too
    fixed = audit & positives
    first = np.flatnonzero(fixed)[:1]
    y2 = y.copy()
    y2[first] = 0
    store.outcomes(_labels(ids, y2, t, np.isin(np.arange(ids.size), first), 3), id="id", label="y", time="ts",
                   replace=True)
    assert _ppi(store)["labels"] == int(audit.sum())


def test_labels_already_stored_gain_the_mark_when_the_audit_sample_sends_them(tmp_path, capsys):
    store, ids, t, y, audit = _world(tmp_path)
    positives = y == 1
    store.outcomes(_labels(ids, y, t, positives, 1), id="id", label="y", time="ts")
    res = store.outcomes(_labels(ids, y, t, audit, 2), id="id", label="y", time="ts", audit_sample=True)
    assert res.filled == int((audit & positives).sum()) > 0 and res.batch is not None
    assert "gained the audit-sample mark" in str(res)
    assert _ppi(store)["labels"] == int(audit.sum())
    # a different label is still a conflict, named as the label alone; nothing is stored
    y3 = 1 - y
    with pytest.raises(vc.VeracityError, match=r"different label; e\.g\. id '\d+': label"):
        store.outcomes(_labels(ids, y3, t, audit, 4), id="id", label="y", time="ts")
    # the CLI route: the full feed as a file, after the audit labels, is a no-op for the audited rows
    path = tmp_path / "feed.csv"
    feed = _labels(ids, y, t, audit, 9)
    path.write_text("id,y,ts\n" + "".join(f"{i},{v},{s}\n" for i, v, s in zip(
        feed["id"].to_pylist(), feed["y"].to_pylist(), feed["ts"].to_pylist())))
    assert main(["monitor", "outcomes", str(store.path), str(path), "--id", "id", "--label", "y",
                 "--time", "ts"]) == 0
    assert f"{int(audit.sum())} already stored (no-op)" in capsys.readouterr().out
    assert _ppi(store)["labels"] == int(audit.sum())
