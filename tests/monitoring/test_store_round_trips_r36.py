"""An ingest's statements (session 36). Each ingest opens the store, replays DuckDB's log and runs its statements
on that fresh connection (1-4 ms each); the bookkeeping reads (the slices, ids sent twice with different values,
the batch number, a content seen before, the unmatched outcomes) are one query, and a prediction batch copies
outcomes onto its rows only when one of its ids has an outcome. What is stored and said stays as before; the
label-free interval reads the Poisson probabilities without scipy.stats' checked ``pmf`` (the same doubles)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")


class _Counting:
    """A connection that records the statements it runs (the first words of each)."""

    def __init__(self, con, seen):
        self._con, self._seen = con, seen

    def execute(self, sql, *args):
        self._seen.append(" ".join(str(sql).split()[:4]))
        return self._con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._con, name)


@pytest.fixture
def statements(monkeypatch):
    seen: list[str] = []
    connect = MonitorStore.connect

    def counting(self, **kw):
        return _Counting(connect(self, **kw), seen)

    monkeypatch.setattr(MonitorStore, "connect", counting)
    return seen


def _table(ids, day="2026-03-03"):
    return pa.table({"id": ids, "ts": [day] * len(ids), "p": np.linspace(0.1, 0.9, len(ids))})


def test_an_ingest_reads_its_bookkeeping_in_one_query(tmp_path, statements):
    store = MonitorStore(tmp_path / "m.duckdb").init()
    store.log(_table(np.arange(10)), id="id", time="ts", score="p")
    statements.clear()
    res = store.log(_table(np.arange(10, 30)), id="id", time="ts", score="p", by=None)
    assert (res.inserted, res.batch) == (20, 2)
    selects = [s for s in statements if s.startswith("SELECT")]
    assert len(selects) == 2, statements  # the bookkeeping, then the counts against the stored rows (3 before)
    assert not [s for s in statements if s.startswith("UPDATE predictions")], statements  # no outcome to copy
    statements.clear()
    res = store.outcomes(pa.table({"id": [1, 2, 999], "y": [1, 0, 1]}), id="id", label="y")
    assert (res.inserted, res.unmatched, res.batch) == (3, 1, 3)
    assert len([s for s in statements if s.startswith("SELECT")]) == 2, statements  # 4 before


def test_outcomes_sent_first_are_copied_onto_their_predictions(tmp_path):
    """The copy a prediction batch skips when none of its ids has an outcome still runs when one has."""
    store = MonitorStore(tmp_path / "m.duckdb")
    store.outcomes(pa.table({"id": [3, 4], "y": [1, 0], "t": ["2026-03-05"] * 2}), id="id", label="y", time="t")
    res = store.log(_table(np.arange(6)), id="id", time="ts", score="p")
    assert (res.inserted, res.batch) == (6, 2)
    con = duckdb.connect(str(store.path), read_only=True)
    try:
        got = con.execute("SELECT id, label FROM predictions ORDER BY id").fetchall()
    finally:
        con.close()
    assert got == [("0", None), ("1", None), ("2", None), ("3", 1), ("4", 0), ("5", None)]


def test_bookkeeping_refusals_read_as_before(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    twice = pa.table({"id": [5, 7, 7, 5, 9], "ts": ["2026-03-03"] * 5, "p": [0.1, 0.2, 0.3, 0.4, 0.5]})
    with pytest.raises(vc.VeracityError, match=r"id '5' appears more than once with a different score, time, "
                                                r"model or slice; each id must be one prediction"):
        store.log(twice, id="id", time="ts", score="p")
    both = _table([3]).append_column("seg", pa.array(["a"])).append_column("SEG", pa.array(["b"]))
    with pytest.raises(vc.VeracityError, match=r"by names 'seg' and 'SEG', which differ only in case"):
        store.log(both, id="id", time="ts", score="p", by=["seg", "SEG"])
    store.log(_table([1, 2]).append_column("Seg", pa.array(["a", "b"])), id="id", time="ts", score="p", by="Seg")
    logged = r"slice column 'seg' differs only in case from the logged slice 'Seg'"
    with pytest.raises(vc.VeracityError, match=logged):  # the logged slice is named first, as before
        store.log(both, id="id", time="ts", score="p", by=["seg", "SEG"])
    with pytest.raises(vc.VeracityError, match=logged):
        store.log(_table([3]).append_column("seg", pa.array(["a"])), id="id", time="ts", score="p", by="seg")
    again = store.log(_table([1, 2]).append_column("Seg", pa.array(["a", "b"])), id="id", time="ts", score="p",
                      by="Seg")
    assert (again.batch, again.duplicates, again.seen_before) == (None, 2, 1)
    assert store.counts() == {"predictions": 2, "outcomes": 0, "batches": 1}


def test_the_label_free_interval_reads_the_same_poisson_doubles_without_scipy_stats(monkeypatch):
    from scipy.stats import poisson

    from veracity.core._count_interval import count_interval
    from veracity.core._count_interval import poisson_window as _poisson_window

    rng = np.random.default_rng(36)
    lams = [*rng.exponential(5.0, 200), *(10.0 ** rng.uniform(-8, 4, 200)), 1e-300, 1.0, 1000.0]
    want = [poisson.pmf(np.arange(f, f + w.size, dtype=np.float64), lam)
            for lam, (f, w) in zip(lams, map(_poisson_window, lams))]
    intervals = [count_interval(e, v, k3, 1e6, 0.95) for e, v, k3 in ((0.5, 0.45, 0.4), (60.0, 36.0, 12.0))]

    def refused(*args, **kwargs):
        raise AssertionError("scipy.stats.poisson.pmf called")

    monkeypatch.setattr(poisson, "pmf", refused)
    for lam, w in zip(lams, want):
        assert np.array_equal(_poisson_window(lam)[1], w)  # bit for bit
    assert [count_interval(e, v, k3, 1e6, 0.95) for e, v, k3 in ((0.5, 0.45, 0.4), (60.0, 36.0, 12.0))] == intervals
