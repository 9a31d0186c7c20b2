"""Hostile input against the monitoring store (issue 23): nothing lost, nothing injected.

Each case reproduces a failure seen before the fix: an output path over the store that
replaced it with JSON (exit 0), ``:memory:`` accepted as a store (every row lost), slice
names pasted into SQL (a file's content printed), URL stores that left folders behind.
"""

import hashlib
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import veracity as vc
from veracity.cli import main
from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")


def _digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


@pytest.fixture()
def store_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    n = 300
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    pacsv.write_csv(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": rng.choice(["a", "b"], n)}),
                    tmp_path / "p.csv")
    pacsv.write_csv(pa.table({"id": np.arange(n), "y": (rng.random(n) < p).astype(np.int64)}),
                    tmp_path / "y.csv")
    assert main(["monitor", "log", "m.duckdb", "p.csv", "--id", "id", "--time", "ts", "--score", "p",
                 "--by", "seg", "-q"]) == 0
    assert main(["monitor", "outcomes", "m.duckdb", "y.csv", "--id", "id", "--label", "y", "-q"]) == 0
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["monitor", "status", "m.duckdb", "--json", "m.duckdb"],
    ["monitor", "status", "m.duckdb", "--json", "./m.duckdb"],
    ["monitor", "init", "m.duckdb", "--json", "m.duckdb"],
    ["monitor", "log", "m.duckdb", "p.csv", "--id", "id", "--time", "ts", "--score", "p", "--json", "m.duckdb"],
    ["monitor", "outcomes", "m.duckdb", "y.csv", "--id", "id", "--label", "y", "--json", "m.duckdb"],
    ["monitor", "recalibrate", "m.duckdb", "--out", "m.duckdb"],
    ["monitor", "recalibrate", "m.duckdb", "--json", "m.duckdb"],
    ["report", "--store", "m.duckdb", "--out", "m.duckdb"],
])
def test_no_output_path_overwrites_the_store(store_dir, argv, capsys):
    before = _digest("m.duckdb")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "monitoring store" in err and "overwrite an input" in err
    assert len(err.strip().splitlines()) == 1
    assert _digest("m.duckdb") == before


@pytest.mark.parametrize("name", [":memory:", ":memory:x", "md:foo", "motherduck:x", "s3://bucket/m.duckdb",
                                  "http://host/m.duckdb", "", " "])
def test_special_and_remote_store_names_are_refused(tmp_path, monkeypatch, name, capsys):
    monkeypatch.chdir(tmp_path)
    pacsv.write_csv(pa.table({"id": [1, 2], "ts": ["2026-01-01", "2026-01-02"], "p": [0.2, 0.7]}), "p.csv")
    with pytest.raises(vc.VeracityError, match="store"):
        MonitorStore(name)
    assert main(["monitor", "log", name, "p.csv", "--id", "id", "--time", "ts", "--score", "p"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["p.csv"]  # no "s3:" folder, no stray file


def test_a_file_named_like_a_special_name_through_a_path_is_a_file(tmp_path):
    # "./:memory:" normalises to ":memory:" in pathlib; it must still be opened as a file
    store = MonitorStore(str(tmp_path / ":memory:")).init()
    assert (tmp_path / ":memory:").is_file()
    assert store.counts()["batches"] == 0


_SECRET = "TOP-SECRET-CONTENT-9431"


def _hostile_names(secret_path):
    return [
        f'a", \'\') || (SELECT content FROM read_text(\'{secret_path}\')) || coalesce(p."s_a',
        'q"x',
        'x"; DROP TABLE predictions; --',
        "seg'; SELECT 1; --",
        "ünïcødé ✓",
    ]


def test_slice_names_cannot_inject_sql(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text(_SECRET)
    store = MonitorStore(tmp_path / "inj.duckdb")
    names = _hostile_names(secret)
    n = 240
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, n)
    table = {"id": [str(i) for i in range(n)], "ts": ["2026-01-05"] * n, "p": p}
    for name in names:
        table[name] = rng.choice(["u", "v"], n).tolist()
    store.log(pa.table(table), id="id", time="ts", score="p", by=names)
    store.outcomes(pa.table({"id": table["id"], "y": (rng.random(n) < p).astype(np.int8)}), id="id", label="y")
    for name in names:
        st = store.status(by=name, freq="M", as_of="2026-02-01")
        text = str(st)
        assert _SECRET not in text
        assert {r.slice for r in st.rows} >= {"u", "v"}
        # the CLI prints the same and nothing more
        code = main(["monitor", "status", str(store.path), "--by", name, "--freq", "M", "--as-of",
                     "2026-02-01", "-q"])
        out = capsys.readouterr()
        assert code in (0, 1) and _SECRET not in out.out + out.err
    # recalibrating one slice filters by the slice column as a quoted identifier, its value bound
    # (monthly windows: the January fit window has no later window to judge on, which is its one-line error)
    for name in names:
        with pytest.raises(vc.VeracityError) as info:
            store.recalibrate(by=name, slice="u", freq="M", as_of="2026-02-01", min_count=10)
        assert _SECRET not in str(info.value) and "\n" not in str(info.value)
    assert store.counts()["predictions"] == n  # nothing dropped


def test_the_store_connection_cannot_read_other_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(_SECRET)
    store = MonitorStore(tmp_path / "m.duckdb").init()
    con = store.connect(read_only=True)
    try:
        with pytest.raises(duckdb.Error, match="(?i)disabled|permission"):
            con.execute(f"SELECT content FROM read_text('{secret}')").fetchall()
    finally:
        con.close()


def test_model_names_are_values_not_sql(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    model = "x' OR '1'='1"
    store.log(pa.table({"id": ["1", "2"], "ts": ["2026-01-05", "2026-01-06"], "p": [0.2, 0.7]}),
              id="id", time="ts", score="p", model=model)
    store.log(pa.table({"id": ["3"], "ts": ["2026-01-05"], "p": [0.4]}), id="id", time="ts", score="p",
              model="other")
    st = store.status(model=model, freq="M", as_of="2026-02-01")
    assert sum(r.rows for r in st.rows) == 2


# -- stores that cannot be trusted: refused in one line by every command, never written --------
def _labelled_store(tmp_path, n=400):
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, n)
    t = np.datetime64("2026-01-05", "s") + rng.integers(0, 50 * 86400, n).astype("timedelta64[s]")
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": rng.choice(["a", "b"], n)}),
              id="id", time="ts", score="p", by="seg", model="A")
    store.outcomes(pa.table({"id": np.arange(n), "y": (rng.random(n) < p).astype(np.int8)}), id="id", label="y")
    pacsv.write_csv(pa.table({"id": [10_000], "ts": ["2026-01-05"], "p": [0.5]}), tmp_path / "more.csv")
    pacsv.write_csv(pa.table({"id": [0], "y": [1]}), tmp_path / "late.csv")
    return store


def _every_command(store):
    s = str(store.path)
    folder = os.path.dirname(s)
    return [
        ["monitor", "status", s, "--freq", "M"],
        ["monitor", "status", s, "--freq", "M", "--by", "seg"],
        ["monitor", "recalibrate", s, "--freq", "M"],
        ["monitor", "log", s, os.path.join(folder, "more.csv"), "--id", "id", "--time", "ts", "--score", "p"],
        ["monitor", "outcomes", s, os.path.join(folder, "late.csv"), "--id", "id", "--label", "y"],
        ["monitor", "init", s],
        ["report", "--store", s, "--out", os.path.join(folder, "r.html")],
    ]


def _edit(path, *sql):
    con = duckdb.connect(str(path))
    try:
        for statement in sql:
            con.execute(statement)
    finally:
        con.close()


_HAND_EDITS = {
    "label 7 (constraint dropped)": (
        "CREATE TABLE p2 AS SELECT * FROM predictions", "DROP TABLE predictions",
        "ALTER TABLE p2 RENAME TO predictions", "UPDATE predictions SET label = 7 WHERE id = '1'"),
    "duplicated ids (key dropped)": (
        "CREATE TABLE p2 AS SELECT * FROM predictions", "DROP TABLE predictions",
        "ALTER TABLE p2 RENAME TO predictions", "INSERT INTO predictions SELECT * FROM predictions LIMIT 5"),
    "time retyped": ("ALTER TABLE predictions ALTER observed TYPE VARCHAR",),
    "outcomes dropped": ("DROP TABLE outcomes",),
    "column dropped": ("ALTER TABLE batches DROP COLUMN content_hash",),
    "slice column dropped": ("ALTER TABLE predictions DROP COLUMN s_seg",),
    "meta dropped": ("DROP TABLE veracity_meta",),
}


@pytest.fixture(scope="module")
def labelled_files(tmp_path_factory):
    """The files of :func:`_labelled_store` (the store, its log, the two CSVs), written once per module."""
    folder = tmp_path_factory.mktemp("labelled")
    _labelled_store(folder)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("edit", sorted(_HAND_EDITS))
def test_hand_edited_stores_are_refused_by_every_command(tmp_path, edit, capsys, labelled_files):
    for name, content in labelled_files.items():  # a copy of the same store for each edit
        (tmp_path / name).write_bytes(content)
    store = MonitorStore(tmp_path / "m.duckdb")
    _edit(store.path, *_HAND_EDITS[edit])
    before = _digest(store.path)
    for argv in _every_command(store):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, (argv, err)
        assert "store" in err
    with pytest.raises(vc.VeracityError):
        store.status(freq="M")
    assert _digest(store.path) == before  # nothing written into it


def test_a_store_changed_behind_the_writer_is_checked_again(tmp_path, monkeypatch):
    """The object that wrote the store skips the read-only pre-check only while the file is as it
    left it: replaced by another database (same name) or edited by hand, the next write through
    the same object is refused and writes nothing."""
    store = _labelled_store(tmp_path)
    opens = []
    real = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: opens.append(k.get("read_only")) or real(*a, **k))
    store.log(tmp_path / "more.csv", id="id", time="ts", score="p")
    assert opens == [False]  # unchanged since its own last write: one open, for writing
    _edit(store.path, *_HAND_EDITS["outcomes dropped"])
    before = _digest(store.path)
    opens.clear()
    with pytest.raises(vc.VeracityError, match="no 'outcomes' table"):
        store.outcomes(tmp_path / "late.csv", id="id", label="y", replace=True)
    assert opens == [True] and _digest(store.path) == before  # checked read-only first, nothing written
    other = tmp_path / "other.duckdb"
    _edit(other, "CREATE TABLE t(x INT)")
    os.replace(other, store.path)
    before = _digest(store.path)
    with pytest.raises(vc.VeracityError, match="not a veracity monitoring store"):
        store.log(tmp_path / "more.csv", id="id", time="ts", score="p")
    assert _digest(store.path) == before


def test_a_truncated_store_is_refused_and_never_written(tmp_path, capsys):
    store = _labelled_store(tmp_path, n=60_000)
    size = os.path.getsize(store.path)
    con = duckdb.connect(str(store.path), read_only=True)
    block = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    con.close()
    with open(store.path, "r+b") as fh:  # the last block lost (a copy cut short, a full disk)
        fh.truncate(size - block)
    before = _digest(store.path)
    for argv in _every_command(store):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, (argv, err)
    assert _digest(store.path) == before


def test_unknown_model_is_one_line(tmp_path, capsys):
    store = _labelled_store(tmp_path)
    with pytest.raises(vc.VeracityError, match=r"no prediction was logged with model 'nosuch' \(logged models: 'A'\)"):
        store.status(model="nosuch", freq="M")
    for argv in (["monitor", "status", str(store.path), "--model", "nosuch"],
                 ["monitor", "status", str(store.path), "--model", "nosuch", "--window", "7d"],
                 ["monitor", "recalibrate", str(store.path), "--model", "nosuch"]):
        assert main(argv) == 2
        assert "logged models: 'A'" in capsys.readouterr().err


# -- ids are text as written; re-sends fill what was missing; --replace replaces everything sent ---
def test_csv_ids_keep_their_text(tmp_path):
    (tmp_path / "p.csv").write_text("id,ts,p\n000123,2026-01-05,0.3\n007,2026-01-05,0.6\n7,2026-01-06,0.6\n")
    (tmp_path / "y.csv").write_text("id,y\n000123,1\n007,0\n")
    store = MonitorStore(tmp_path / "m.duckdb")
    assert store.log(tmp_path / "p.csv", id="id", time="ts", score="p").inserted == 3  # 007 and 7 are two ids
    got = store.outcomes(tmp_path / "y.csv", id="id", label="y")
    assert (got.inserted, got.unmatched) == (2, 0)  # text ids join
    st = store.status(freq="M")  # outcomes are observed now (no time column): judge as of now
    assert st.rows[0].labelled == 2 and st.rows[0].pending == 1


def test_replace_with_a_new_model_replaces_the_model(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": ["1", "2"], "ts": ["2026-01-05"] * 2, "p": [0.2, 0.7]}), id="id", time="ts",
              score="p", model="A")
    new = pa.table({"id": ["1", "2"], "ts": ["2026-01-05"] * 2, "p": [0.3, 0.8]})
    with pytest.raises(vc.VeracityError, match="conflict"):
        store.log(new, id="id", time="ts", score="p", model="B")
    store.log(new, id="id", time="ts", score="p", model="B", replace=True)
    with pytest.raises(vc.VeracityError, match="logged models: 'B'"):
        store.status(model="A", freq="M", as_of="2026-02-01")
    assert store.status(model="B", freq="M", as_of="2026-02-01").rows[0].rows == 2
    con = store.connect(read_only=True)
    try:
        assert con.execute("SELECT id, model, score FROM predictions ORDER BY id").fetchall() == [
            ("1", "B", 0.3), ("2", "B", 0.8)]
    finally:
        con.close()
    # the same rows under another model name are a conflict too, not a silent relabelling
    with pytest.raises(vc.VeracityError, match="model B stored vs C sent"):
        store.log(new, id="id", time="ts", score="p", model="C")


def test_relogging_with_a_new_slice_fills_it(tmp_path):
    rows = {"id": ["1", "2", "3"], "ts": ["2026-01-05"] * 3, "p": [0.2, 0.7, 0.4], "seg": ["a", "b", "a"]}
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table(rows), id="id", time="ts", score="p")
    again = store.log(pa.table(rows), id="id", time="ts", score="p", by="seg")
    assert (again.inserted, again.duplicates, again.filled) == (0, 3, 3)
    assert "gained slice/model values" in str(again)
    st = store.status(by="seg", freq="M", as_of="2026-02-01")
    assert {r.slice: r.rows for r in st.rows} == {"(all)": 3, "a": 2, "b": 1}
    assert store.log(pa.table(rows), id="id", time="ts", score="p", by="seg").batch is None  # now a no-op
    moved = dict(rows, seg=["b", "b", "a"])
    with pytest.raises(vc.VeracityError, match="slice 'seg' a stored vs b sent"):
        store.log(pa.table(moved), id="id", time="ts", score="p", by="seg")
    store.log(pa.table(moved), id="id", time="ts", score="p", by="seg", replace=True)
    st = store.status(by="seg", freq="M", as_of="2026-02-01")
    assert {r.slice: r.rows for r in st.rows} == {"(all)": 3, "a": 1, "b": 2}


def test_empty_input_is_a_noop_with_a_note(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb").init()
    pd = pytest.importorskip("pandas")
    got = store.outcomes(pd.DataFrame({"id": pd.Series([], dtype=str), "y": pd.Series([], dtype=int)}),
                         id="id", label="y")
    assert got.batch is None and "no rows" in str(got)
    got = store.log(pa.table({"id": pa.array([], pa.string()), "ts": pa.array([], pa.string()),
                              "p": pa.array([], pa.float64())}), id="id", time="ts", score="p")
    assert got.batch is None and store.counts()["batches"] == 0


def test_unused_messy_columns_do_not_matter(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": ["1", "2"], "ts": ["2026-01-05", "2026-01-06"], "p": [0.2, 0.7],
                          "junk": [{"a": 1}, "text"]})  # mixed objects: pyarrow cannot convert this column
    assert MonitorStore(tmp_path / "m.duckdb").log(frame, id="id", time="ts", score="p").inserted == 2


def test_time_column_mixing_types_is_one_line(tmp_path):
    pd = pytest.importorskip("pandas")
    import datetime as dt

    frame = pd.DataFrame({"id": ["1", "2", "3"], "p": [0.2, 0.7, 0.5],
                          "ts": [dt.datetime(2026, 1, 5), "2026-01-06", 1767225600]})
    with pytest.raises(vc.VeracityError, match="one type") as info:
        MonitorStore(tmp_path / "m.duckdb").log(frame, id="id", time="ts", score="p")
    assert "\n" not in str(info.value)


def test_threads_of_one_process_wait_for_each_other(tmp_path):
    import threading

    store = _labelled_store(tmp_path)
    errors = []

    def reader():
        try:
            for _ in range(5):
                MonitorStore(store.path, timeout=30).status(freq="M")
        except Exception as exc:  # pragma: no cover - the failure being tested
            errors.append(exc)

    def writer():
        try:
            for i in range(5):
                MonitorStore(store.path, timeout=30).log(
                    pa.table({"id": [f"w{i}"], "ts": ["2026-01-05"], "p": [0.5]}), id="id", time="ts", score="p")
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.counts()["predictions"] == 405


def test_high_cardinality_slices_are_pooled_with_a_note(tmp_path, capsys):
    n, values = 6000, 3000
    rng = np.random.default_rng(5)
    p = rng.uniform(0.05, 0.95, n)
    users = np.where(rng.random(n) < 0.3, "big", rng.integers(0, values, n).astype(str))
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ["2026-01-05"] * n, "p": p, "user": users}), id="id",
              time="ts", score="p", by="user")
    st = store.status(by="user", freq="M", as_of="2026-02-01")
    names = [r.slice for r in st.rows]
    assert len(names) == 20 + 2 and names.count("(other)") == 1 and "big" in names  # 20 kept + (other) + (all)
    assert st.pooled == len(set(users)) - 20
    assert sum(r.rows for r in st.rows if r.slice != "(all)") == n  # nothing lost in pooling
    assert "pooled into slice '(other)'" in str(st) and st.to_dict()["pooled_slices"] == st.pooled
    wide = store.status(by="user", freq="M", as_of="2026-02-01", max_slices=50)
    assert len(wide.rows) == 52
    with pytest.raises(vc.VeracityError, match="max_slices must be a positive integer"):
        store.status(by="user", max_slices=0)
    assert main(["monitor", "status", str(store.path), "--by", "user", "--freq", "M", "--as-of", "2026-02-01",
                 "--max-slices", "5", "--json", "-"]) == 0
    import json

    assert len(json.loads(capsys.readouterr().out)["periods"]) == 7
