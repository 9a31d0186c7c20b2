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
