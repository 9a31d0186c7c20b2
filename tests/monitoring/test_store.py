"""The monitoring store: idempotent transactional ingest, pending -> labelled, conflicts, locking, crashes."""

import json
import multiprocessing
import os
import runpy
import signal
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import veracity as vc
from veracity.cli import main
from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")


def _preds(n=500, seed=0, start=0, days=28, t0="2026-03-02"):
    rng = np.random.default_rng(seed)
    t = np.datetime64(t0, "s") + rng.integers(0, days * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    ids = np.arange(start, start + n)
    return pa.table({"id": ids, "ts": t, "p": p, "seg": rng.choice(["a", "b"], n)}), y


def _recount(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        n, distinct = con.execute("SELECT count(*), count(DISTINCT id) FROM predictions").fetchone()
        booked = con.execute("SELECT coalesce(sum(inserted), 0) FROM batches WHERE kind = 'predictions'").fetchone()[0]
        on, odistinct = con.execute("SELECT count(*), count(DISTINCT id) FROM outcomes").fetchone()
        obooked = con.execute("SELECT coalesce(sum(inserted), 0) FROM batches WHERE kind = 'outcomes'").fetchone()[0]
        orphans = con.execute("SELECT count(*) FROM predictions p WHERE NOT EXISTS "
                              "(SELECT 1 FROM batches b WHERE b.batch = p.batch)").fetchone()[0]
        # each prediction's copy of its outcome agrees with the outcomes table
        mismatched = con.execute(
            "SELECT count(*) FROM predictions p LEFT JOIN outcomes o USING (id) "
            "WHERE p.label IS DISTINCT FROM o.label OR p.observed IS DISTINCT FROM o.observed").fetchone()[0]
        assert mismatched == 0
    finally:
        con.close()
    return dict(n=n, distinct=distinct, booked=booked, on=on, odistinct=odistinct, obooked=obooked,
                orphans=orphans)


def test_reingest_is_a_noop(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, _ = _preds()
    path = tmp_path / "p.csv"
    pacsv.write_csv(table, path)
    first = store.log(path, id="id", time="ts", score="p", by="seg")
    assert (first.inserted, first.duplicates, first.batch) == (500, 0, 1)
    before = store.counts()
    again = store.log(path, id="id", time="ts", score="p", by="seg")
    assert (again.inserted, again.duplicates, again.batch, again.seen_before) == (0, 500, None, 1)
    assert "already stored" in str(again) and "ingested before, as batch 1" in str(again)
    assert store.counts() == before == {"predictions": 500, "outcomes": 0, "batches": 1}
    # overlapping file: only the new ids are stored
    new, _ = _preds(n=200, seed=1, start=500)
    more = pa.concat_tables([table.slice(400, 100).select(["id", "ts", "p"]), new.select(["id", "ts", "p"])])
    res = store.log(more, id="id", time="ts", score="p")
    assert (res.inserted, res.duplicates) == (200, 100)
    assert store.counts()["predictions"] == 700


def test_overlap_with_different_values_is_a_conflict_and_nothing_changes(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, _ = _preds()
    store.log(table, id="id", time="ts", score="p")
    changed = table.set_column(2, "p", pa.array(np.where(np.arange(500) == 7, 0.5, table["p"].to_numpy())))
    changed = changed.append_column("extra", pa.array(np.arange(500)))
    with pytest.raises(vc.VeracityError, match=r"1 rows conflict .*id '7': score .* stored vs 0.5 sent.*--replace"):
        store.log(changed, id="id", time="ts", score="p")
    assert store.counts() == {"predictions": 500, "outcomes": 0, "batches": 1}
    res = store.log(changed, id="id", time="ts", score="p", replace=True)
    assert (res.inserted, res.duplicates, res.replaced) == (0, 499, 1)
    con = store.connect(read_only=True)
    assert con.execute("SELECT score FROM predictions WHERE id = '7'").fetchone()[0] == 0.5
    con.close()
    # a batch that disagrees with itself is refused
    twice = pa.table({"id": [1, 1], "ts": ["2026-03-02", "2026-03-02"], "p": [0.1, 0.2]})
    with pytest.raises(vc.VeracityError, match="appears more than once with a different score"):
        store.log(twice, id="id", time="ts", score="p")


def test_outcomes_before_their_predictions_count_once_logged(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, y = _preds(n=50, days=6)
    store.outcomes(pa.table({"id": np.arange(50), "y": y, "t": ["2026-03-10"] * 50}), id="id", label="y", time="t")
    store.log(table, id="id", time="ts", score="p")
    (row,) = store.status(freq="W", as_of="2026-03-31").rows
    assert (row.labelled, row.pending) == (50, 0) and row.rate == pytest.approx(y.mean())
    assert _recount(store.path)["n"] == 50


def test_outcome_conflicts_and_repeats(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, y = _preds(n=100)
    store.log(table, id="id", time="ts", score="p")
    out = pa.table({"id": np.arange(100), "y": y})
    assert store.outcomes(out, id="id", label="y").inserted == 100
    assert store.outcomes(out, id="id", label="y").duplicates == 100
    flipped = pa.table({"id": [3], "y": [1 - y[3]]})
    with pytest.raises(vc.VeracityError, match="1 rows conflict with stored outcomes .*different label"):
        store.outcomes(flipped, id="id", label="y")
    assert store.outcomes(flipped, id="id", label="y", replace=True).replaced == 1
    res = store.outcomes(pa.table({"id": [999], "y": [1]}), id="id", label="y")
    assert res.unmatched == 1 and "no logged prediction yet" in str(res)
    for bad, match in [({"id": [1], "y": [2]}, "not 0 or 1"), ({"id": [1], "y": [None]}, "1 missing label;")]:
        with pytest.raises(vc.VeracityError, match=match):
            store.outcomes(pa.table(bad), id="id", label="y")


def test_pending_then_labelled_is_counted_once(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, y = _preds(n=400, days=6)  # one ISO week: Mon 2026-03-02 .. Sat
    store.log(table, id="id", time="ts", score="p")
    kw = dict(freq="W", as_of="2026-03-31")
    (row,) = store.status(**kw).rows
    assert (row.rows, row.labelled, row.pending, row.status) == (400, 0, 400, "pending")
    assert row.estimate.positives == pytest.approx(table["p"].to_numpy().sum())
    half = np.arange(200)
    store.outcomes(pa.table({"id": half, "y": y[half], "t": ["2026-03-20"] * 200}), id="id", label="y", time="t")
    (row,) = store.status(**kw).rows
    assert (row.rows, row.labelled, row.pending) == (400, 200, 200)
    assert row.rate == pytest.approx(y[:200].mean())  # pending rows are not negatives
    store.outcomes(pa.table({"id": np.arange(400), "y": y, "t": ["2026-03-25"] * 400}), id="id", label="y",
                   time="t")
    store.log(table, id="id", time="ts", score="p")  # re-sent predictions change nothing
    (row,) = store.status(**kw).rows
    assert (row.rows, row.labelled, row.pending) == (400, 400, 0)
    assert row.rate == pytest.approx(y.mean())
    # as of an earlier day the later outcomes had not arrived yet
    (row,) = store.status(freq="W", as_of="2026-03-21").rows
    assert (row.labelled, row.pending) == (200, 200)


def test_status_equals_audit_of_each_period(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    table, y = _preds(n=4000, seed=3, days=35)
    store.log(table, id="id", time="ts", score="p", by="seg")
    store.outcomes(pa.table({"id": np.arange(4000), "y": y}), id="id", label="y")
    res = store.status(freq="W", by="seg")
    t = table["ts"].to_numpy()
    monday = np.datetime64("2026-03-02")
    week = (t.astype("datetime64[D]") - monday) // np.timedelta64(7, "D")
    p, seg = table["p"].to_numpy(), table["seg"].to_numpy(zero_copy_only=False)
    assert [r.period for r in res.rows if r.slice == "(all)"] == ["2026-W10", "2026-W11", "2026-W12",
                                                                  "2026-W13", "2026-W14"]
    for r in res.rows:
        k = int(r.period[-2:]) - 10
        m = (week == k) & ((seg == r.slice) | (r.slice == "(all)"))
        a = vc.audit(p[m], y[m])  # both at their defaults: 15 equal-width bins (issue 22)
        assert r.labelled == m.sum()
        assert r.ece == pytest.approx(a.ece, abs=1e-12)
        assert r.brier == pytest.approx(a.brier, abs=1e-12)
        assert r.nll == pytest.approx(a.nll, rel=1e-10)
        cs = vc.calibration_slope(p[m], y[m])  # row-level logistic fit as the oracle
        assert r.slope == pytest.approx(cs.slope, abs=2e-3)
        assert r.citl == pytest.approx(cs.citl, abs=2e-3)
        lo, hi = vc.binomial_interval(y[m].sum(), m.sum(), level=0.95)
        assert (r.ci_low, r.ci_high) == pytest.approx((float(lo), float(hi)))


def test_time_handling_weeks_timezones_epoch_and_empty_periods(tmp_path):
    pd = pytest.importorskip("pandas")
    store = MonitorStore(tmp_path / "m.duckdb")
    # Monday 00:30 in Berlin (+01:00) is Sunday 23:30 UTC: still ISO week 10; Monday 01:30 is week 11
    frame = pd.DataFrame({
        "id": ["a", "b", "c"],
        "ts": pd.to_datetime(["2026-03-09 00:30", "2026-03-09 01:30", "2026-03-30 12:00"]).tz_localize("Europe/Berlin"),
        "p": [0.2, 0.3, 0.4]})
    store.log(frame, id="id", time="ts", score="p")
    res = store.status(freq="W", as_of="2026-04-01")
    assert [(r.period, r.rows) for r in res.rows] == [("2026-W10", 1), ("2026-W11", 1), ("2026-W12", 0),
                                                      ("2026-W13", 0), ("2026-W14", 1)]
    assert [r.status for r in res.rows] == ["pending", "pending", "empty", "empty", "pending"]
    assert res.rows[0].start == "2026-03-02T00:00:00"  # weeks start on Monday
    # epoch seconds are seconds, not nanoseconds
    store2 = MonitorStore(tmp_path / "e.duckdb")
    store2.log(pa.table({"id": [1], "ts": [1772409600], "p": [0.5]}), id="id", time="ts", score="p")
    assert [r.period for r in store2.status(freq="D", as_of="2026-04-01").rows] == ["2026-03-02"]
    with pytest.raises(vc.VeracityError, match="not epoch seconds"):
        store2.log(pa.table({"id": [2], "ts": [1772409600 * 10**9], "p": [0.5]}), id="id", time="ts", score="p")
    for freq, label in [("M", "2026-03"), ("Q", "2026Q1")]:
        assert store2.status(freq=freq, as_of="2026-04-01").rows[0].period == label


def test_horizon_keeps_immature_labels_pending_and_flags_overdue(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    t = ["2026-03-02", "2026-03-03", "2026-03-20", "2026-03-21"]
    store.log(pa.table({"id": [1, 2, 3, 4], "ts": t, "p": [0.1, 0.2, 0.3, 0.4]}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": [1, 3], "y": [0, 1], "t": ["2026-03-05", "2026-03-22"]}), id="id", label="y",
                   time="t")
    (row,) = store.status(freq="M", as_of="2026-03-31", horizon="14d").rows
    # 1: labelled and mature; 2: mature without outcome (overdue); 3: outcome but immature; 4: pending
    assert (row.labelled, row.pending, row.overdue) == (1, 2, 1)
    for bad in ["nan", "inf", "1e20", "-3d", "soon"]:
        with pytest.raises(vc.VeracityError, match="--horizon must be"):
            store.status(freq="M", horizon=bad)


@pytest.mark.parametrize("content, match", [
    (b"id,ts,p\n1,2026-01-01,0.5\n", "not a DuckDB database file"),
    (b"\x00" * 4096, "not a DuckDB database file"),
    (b"", "not a DuckDB database file"),
])
def test_foreign_files_are_refused(tmp_path, content, match):
    path = tmp_path / "store.duckdb"
    path.write_bytes(content)
    with pytest.raises(vc.VeracityError, match=match):
        MonitorStore(path).status(freq="W")
    assert path.read_bytes() == content  # untouched


def test_truncated_store_other_database_and_newer_schema_are_refused(tmp_path):
    table, _ = _preds(n=2000)
    good = tmp_path / "good.duckdb"
    MonitorStore(good).log(table, id="id", time="ts", score="p")
    data = good.read_bytes()
    cut = tmp_path / "cut.duckdb"
    cut.write_bytes(data[: len(data) // 3])
    with pytest.raises(vc.VeracityError, match=r"cut.duckdb is (not a readable monitoring store \(truncated|a DuckDB file but not a veracity .*truncated store)"):
        MonitorStore(cut).status(freq="W")
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t(x INT)")
    con.close()
    with pytest.raises(vc.VeracityError, match="a DuckDB file but not a veracity monitoring store"):
        MonitorStore(other).log(table, id="id", time="ts", score="p")
    con = duckdb.connect(str(good))
    con.execute("UPDATE veracity_meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(vc.VeracityError, match="schema version 99, newer than this veracity reads"):
        MonitorStore(good).status(freq="W")
    with pytest.raises(vc.VeracityError, match="no monitoring store at"):
        MonitorStore(tmp_path / "missing.duckdb").status(freq="W")


def _close(got, want, where):
    """Equal, floats to 1e-9 at any depth (an estimate with its interval, the per-bin records)."""
    if isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-9, nan_ok=True), where
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for k, v in want.items():
            _close(got[k], v, (where, k))
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, v in enumerate(want):
            _close(got[i], v, (where, i))
    else:
        assert got == want, where


def test_schema_1_store_is_migrated_by_init(tmp_path):
    table, y = _preds(n=300, days=6)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(table, id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(300), "y": y}), id="id", label="y")
    expected = store.status(freq="W").rows[0].to_dict()
    con = duckdb.connect(str(store.path))  # turn it into a version-1 store (no outcome copy)
    con.execute("ALTER TABLE predictions DROP COLUMN label")
    con.execute("ALTER TABLE predictions DROP COLUMN observed")
    con.execute("UPDATE veracity_meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(vc.VeracityError, match=r"schema version 1; run `veracity monitor init .*` once"):
        store.status(freq="W")
    store.init()
    migrated = store.status(freq="W").rows[0].to_dict()
    assert migrated.keys() == expected.keys()
    for key, value in expected.items():  # the sums of the store's groups may differ in the last bit
        _close(migrated[key], value, key)  # (the groups come back from DuckDB in no fixed order)
    assert _recount(store.path)["n"] == 300


_WRITER = textwrap.dedent("""
    import traceback, numpy as np, pyarrow as pa
    from veracity.monitoring import MonitorStore
    path, first, count, step = ARGS
    try:
        store = MonitorStore(path, timeout=60)
        for i in range(first, first + count):
            ids = np.arange(i * step, (i + 1) * step)
            rng = np.random.default_rng(i)
            t = np.datetime64("2026-03-02", "s") + (ids % (28 * 86400)).astype("timedelta64[s]")
            store.log(pa.table({"id": ids, "ts": t, "p": rng.random(step)}), id="id", time="ts", score="p")
            store.outcomes(pa.table({"id": ids[::2], "y": (rng.random(ids[::2].size) < 0.5).astype(int)}),
                           id="id", label="y")
            PROGRESS.send(i)  # this batch is committed
    except BaseException:
        PROGRESS.send(traceback.format_exc())
        raise
""")


def _writer(tmp_path, store, first, count, step):
    """A writer in a process of its own (its own DuckDB and file lock; SIGKILL ends it as any process), and
    a pipe on which it sends the number of each batch it has committed, or its traceback. The process is
    forked from a server that imported veracity once, so it starts in milliseconds instead of the ~1 s a
    fresh interpreter takes to import numpy, pyarrow, DuckDB and veracity (and pandas, which pyarrow and
    DuckDB import on a process's first conversion of numpy data or an Arrow table: ~0.5 s of each writer's
    first batch)."""
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "pyarrow", "pandas", "duckdb", "veracity.monitoring"])
    progress, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=runpy.run_path, args=(str(script),), daemon=True,
                       kwargs={"init_globals": {"ARGS": (str(store), first, count, step), "PROGRESS": send}})
    proc.start()
    send.close()  # the child holds the other end: recv() ends (EOFError) when the child is gone
    return proc, progress


def _sent(progress):
    """Everything a writer sent (batch numbers, a traceback) until it ended."""
    got = []
    while True:
        try:
            got.append(progress.recv())
        except EOFError:
            return got


def test_two_concurrent_writers_lose_no_row(tmp_path):
    store = tmp_path / "m.duckdb"
    MonitorStore(store).init()
    a = _writer(tmp_path, store, 0, 6, 300)
    b = _writer(tmp_path, store, 100, 6, 300)
    for (proc, progress), first in ((a, 0), (b, 100)):
        sent = _sent(progress)
        proc.join(120)
        assert proc.exitcode == 0 and sent == list(range(first, first + 6)), sent
    c = _recount(store)
    assert c["n"] == c["distinct"] == c["booked"] == 12 * 300
    assert c["on"] == c["odistinct"] == c["obooked"] == 12 * 150


def test_sigkill_during_ingests_leaves_a_consistent_store(tmp_path):
    """Each writer is killed while it ingests: after its first batch is in (its first message: the
    process and the store are up) and within ~2 more of its batches (~0.12 s each), so it
    dies inside a log, inside an outcomes call or between them, never while Python starts (a kill
    timed from the writer's start, 0.3-1.6 s, landed before its first batch in 2 of 13 tries on an idle
    machine, more under load, and the test waited 15 s)."""
    store = tmp_path / "m.duckdb"
    MonitorStore(store).init()
    rng = np.random.default_rng(2026)
    first, kills = 0, 0
    while kills < 10:
        proc, progress = _writer(tmp_path, store, first, 1000, 200)  # more batches than it lives to write
        try:
            got = progress.recv() if progress.poll(120) else "nothing in 120 s"
        except EOFError:
            proc.join(10)
            got = f"the writer ended (exit code {proc.exitcode}) before its first batch"
        assert got == first, got  # its first batch is in (else its traceback or why not)
        time.sleep(float(rng.uniform(0.0, 0.3)))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        assert proc.exitcode == -signal.SIGKILL, _sent(progress)  # killed, not ended on an error
        progress.close()
        kills += 1
        c = _recount(store)  # opens after the kill, and the books agree with a recount
        assert c["n"] == c["distinct"] == c["booked"]
        assert c["on"] == c["odistinct"] == c["obooked"]
        assert c["orphans"] == 0
        assert c["n"] % 200 == 0  # a batch is all or nothing
        MonitorStore(store).status(freq="W", as_of="2026-04-01")
        assert c["n"] > first * 200  # the killed writer's first batch stayed in
        first = c["n"] // 200


# ---------------------------------------------------------------------------------- CLI
def _cli_store(tmp_path, capsys):
    table, y = _preds(n=3000, seed=5)
    pacsv.write_csv(table, tmp_path / "pred.csv")
    m = table["ts"].to_numpy() < np.datetime64("2026-03-20")
    pacsv.write_csv(pa.table({"id": table["id"].to_numpy()[m], "y": y[m]}), tmp_path / "out.csv")
    store = str(tmp_path / "m.duckdb")
    assert main(["monitor", "init", store]) == 0
    assert main(["monitor", "log", store, str(tmp_path / "pred.csv"), "--id", "id", "--time", "ts", "--score",
                 "p", "--by", "seg"]) == 0
    assert main(["monitor", "outcomes", store, str(tmp_path / "out.csv"), "--id", "id", "--label", "y"]) == 0
    capsys.readouterr()
    return store


def test_cli_status_json_contract_and_exit_codes(tmp_path, capsys):
    store = _cli_store(tmp_path, capsys)
    assert main(["monitor", "status", store, "--freq", "W", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    keys = {"period", "labelled", "pending", "conf", "rate", "ci_low", "ci_high", "ece", "brier", "nll", "psi",
            "status", "alerts"}
    assert doc["periods"] and all(keys <= set(r) for r in doc["periods"])
    assert sum(r["rows"] for r in doc["periods"] if r["slice"] == "(all)") == 3000
    assert main(["monitor", "status", store, "--window", "7d", "--by", "seg", "--fail-on-alert"]) == 0
    # an alert with --fail-on-alert exits 1: shift every score up
    table = pa.table({"id": np.arange(5000, 5400), "ts": ["2026-03-10"] * 400, "p": np.full(400, 0.95)})
    MonitorStore(store).log(table, id="id", time="ts", score="p")
    MonitorStore(store).outcomes(pa.table({"id": np.arange(5000, 5400), "y": np.zeros(400, int)}), id="id",
                                 label="y")
    capsys.readouterr()
    assert main(["monitor", "status", store, "--freq", "W", "--fail-on-alert"]) == 1
    assert "ALERT 2026-W11" in capsys.readouterr().out
    assert main(["monitor", "status", store, "--freq", "W"]) == 0


@pytest.mark.parametrize("argv, match", [
    (["monitor"], r"say what to do"),
    (["monitor", "status", "{store}", "--horizon", "nan"], r"--horizon must be a finite duration"),
    (["monitor", "status", "{store}", "--horizon", "1e20"], r"--horizon must be a finite duration"),
    (["monitor", "status", "{store}", "--window", "soon"], r"--window must be a duration"),
    (["monitor", "status", "{store}", "--as-of", "yesterday"], r"--as-of must be a date"),
    (["monitor", "status", "{store}", "--by", "region"], r"slice 'region' was never logged"),
    (["monitor", "status", "{tmp}/pred.csv"], r"not a veracity monitoring store"),
    (["monitor", "log", "{store}", "{tmp}/pred.csv", "--id", "nope", "--time", "ts", "--score", "p"],
     r"column 'nope' not found"),
    (["monitor", "log", "{store}", "{tmp}/pred.csv", "--id", "id", "--time", "seg", "--score", "p"],
     r"time column 'seg' has strings that are not ISO 8601"),
    (["monitor", "recalibrate", "{store}", "--method", "magic"], r"method must be one of"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, argv, match):
    import re

    store = _cli_store(tmp_path, capsys)
    argv = [a.format(store=store, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err), err


def test_missing_duckdb_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "duckdb", None)
    assert main(["monitor", "init", str(tmp_path / "m.duckdb")]) == 2
    assert "pip install veracity[duckdb]" in capsys.readouterr().err
