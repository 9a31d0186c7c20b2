"""DuckDB: lazy (never collected), locked down (only the named files, no network,
no extensions), quoted identifiers, and read errors that never echo file content."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.sources import _duckdb

duckdb = pytest.importorskip("duckdb")


@pytest.fixture
def limit_64mb():
    before = dict(_duckdb.DEFAULTS)
    vc.configure_duckdb(memory_limit="64MB", threads=2)
    yield
    _duckdb.DEFAULTS.update(before)


def test_a_file_larger_than_the_memory_limit_is_not_collected(tmp_path, limit_64mb):
    n = 4_500_000  # raw columns: 4.5e6 x (8-byte score + 8-byte label) = 72 MB > 64 MB
    path = str(tmp_path / "big.parquet")
    duckdb.sql(
        f"COPY (SELECT round(p, 5) AS p, CAST(random() < p AS BIGINT) AS y "
        f"FROM (SELECT random() AS p FROM range({n}))) TO '{path}' (FORMAT parquet)"
    )
    import tracemalloc

    tracemalloc.start()  # numpy's allocations are traced: the rows that pass through Python
    try:
        result = vc.audit(path, score="p", label="y", bins=10)
        python_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.n == n
    # the exact AUC streams the rows by score range through numpy: never the whole score column
    # (8n bytes; the peak is a few ranges' worth, ~40-52 % of it depending on DuckDB's chunking)
    assert python_peak < 8 * n * 0.75, f"{python_peak / 1e6:.1f} MB"
    # cross-check on a fresh, unlimited connection with plain SQL
    con = duckdb.connect()
    total, pos = con.execute(f"SELECT count(*), sum(y) FROM read_parquet('{path}')").fetchone()
    assert (result.n, result.base_rate) == (total, pytest.approx(pos / total, rel=1e-12))
    # the same limit refuses to hold the rows: the audit above could not have collected them
    rel = _duckdb.read(path)
    with pytest.raises(duckdb.OutOfMemoryException):
        rel.aggregate("list(p ORDER BY p) AS l, list(y) AS m").fetchall()


def test_only_the_named_files_and_no_extensions(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    path = tmp_path / "a.parquet"
    pd.DataFrame({"p": [0.1, 0.8, 0.4], "y": [0, 1, 1]}).to_parquet(path)
    other = tmp_path / "secret.csv"
    other.write_text("a\n1\n")
    assert vc.audit(str(path), score="p", label="y").n == 3
    locked = _duckdb.connect([str(path)])
    for sql in (f"SELECT * FROM read_csv('{other}')", "INSTALL httpfs", "LOAD httpfs",
                "SET enable_external_access = true", "SELECT * FROM read_parquet('https://example.com/x.parquet')"):
        with pytest.raises(duckdb.Error):
            locked.execute(sql)
    assert not (tmp_path / "home" / ".duckdb").exists()


@pytest.mark.parametrize("url", ["https://example.com/a.parquet", "s3://bucket/a.parquet", "http://x/y.csv",
                                 "gcs://b/c.parquet", "https://example.com/a.parquet?x=1",
                                 "s3://bucket/logs/*.parquet", "http://169.254.169.254/*"])
def test_remote_paths_refused(url, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(vc.VeracityError, match=r"remote paths \(\w+://\) are not read.*your own DuckDB connection"):
        vc.audit(url, score="p", label="y")
    assert not (home / ".duckdb").exists()  # no extension was installed or loaded


def test_parse_errors_never_echo_file_content(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_text("p,y\ntop secret value,1\n")  # not Parquet at all
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(str(path), score="p", label="y")
    assert "secret" not in str(info.value)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    csv = tmp_path / "bad.csv"
    csv.write_text("p,y\n0.1,0\n0.2,1,extra,confidential\n")
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(str(csv), score="p", label="y")
    assert "confidential" not in str(info.value) and "\n" not in str(info.value)


def test_missing_files_and_globs(tmp_path):
    with pytest.raises(vc.VeracityError, match="file not found"):
        vc.audit(str(tmp_path / "nope.parquet"), score="p", label="y")
    with pytest.raises(vc.VeracityError, match="no file matches"):
        vc.audit(str(tmp_path / "*.parquet"), score="p", label="y")
    (tmp_path / "h.csv").write_text("p,y\n")
    with pytest.raises(vc.VeracityError, match="h.csv has a header but no rows; pass a file with at least "
                                               "one data row$"):  # the in-memory read's words (round 30)
        vc.audit(str(tmp_path / "h.csv"), score="p", label="y")


def test_a_users_own_connection_and_relation():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT (i % 97) / 96.0 AS p, CAST(i % 3 = 0 AS INTEGER) AS y FROM range(5000) r(i)")
    rel = con.table("t")
    df = rel.df()
    got = vc.audit(rel, score="p", label="y")
    assert got.ece == pytest.approx(vc.ece(df["p"], df["y"]), rel=1e-12)
    assert got.auc == vc.auc(df["p"], df["y"])


def test_exact_auc_spill_files_are_removed_and_a_bad_temp_directory_is_one_line(tmp_path, monkeypatch):
    # many score ranges: the rows go to files in the temp directory, which is empty again afterwards
    from sklearn.metrics import roc_auc_score

    monkeypatch.setattr(_duckdb, "rows_per_range", lambda relation: 500)
    before = dict(_duckdb.DEFAULTS)
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"p": rng.random(6000), "y": rng.integers(0, 2, 6000), "g": rng.choice(["a", "b"], 6000)})
    rel = duckdb.connect().from_df(df)
    try:
        spill = tmp_path / "spill"
        vc.configure_duckdb(temp_directory=str(spill))
        got = vc.audit(rel, score="p", label="y", by="g")
        assert got.auc == pytest.approx(roc_auc_score(df["y"], df["p"]), rel=1e-12)
        assert spill.is_dir() and list(spill.iterdir()) == []
        blocker = tmp_path / "a-file"
        blocker.write_text("x")
        vc.configure_duckdb(temp_directory=str(blocker / "below"))
        with pytest.raises(vc.VeracityError, match=r"^the exact AUC needs a temp directory .* set "
                                                   r"vc\.configure_duckdb\(temp_directory=\.\.\.\)$"):
            vc.audit(rel, score="p", label="y")
    finally:
        _duckdb.DEFAULTS.update(before)


def test_rows_per_range_follows_the_memory_limit():
    assert _duckdb.parse_bytes("64MB") == 64 * 10**6
    assert _duckdb.parse_bytes("244.1 MiB") == int(244.1 * 2**20)
    con = duckdb.connect(config={"memory_limit": "64MB"})
    from veracity.sources import _duckdb_auc

    per_row = _duckdb_auc.WORKERS * _duckdb_auc.BYTES_PER_COUNTED_ROW
    assert _duckdb.memory_limit(con.sql("SELECT 1")) == pytest.approx(64e6, rel=0.1)
    assert _duckdb.rows_per_range(con.sql("SELECT 1")) == pytest.approx(64e6 / 2 / per_row, rel=0.1)


def test_exact_auc_with_many_ranges_equals_one_range():
    import narwhals as nw

    from veracity.sources import _aggregates as agg
    from veracity.sources._source import as_frame

    rng = np.random.default_rng(5)
    df = pd.DataFrame({"p": np.round(rng.random(4000), 3), "y": rng.integers(0, 2, 4000), "w": rng.random(4000)})
    lf = agg.base(as_frame(duckdb.connect().from_df(df)).nw, "p", "y", None, None)
    one = agg.auc_parts(lf, score_type="probability", weighted=False, grouped=False, backend="duckdb")
    cuts = agg.range_cuts(lf, score_type="probability", n=4000, rows_per_range=300)
    assert len(cuts) >= 10
    many = agg.auc_parts(lf, score_type="probability", weighted=False, grouped=False, backend="duckdb", cuts=cuts)
    assert one == many
    assert isinstance(lf, nw.LazyFrame)


def test_a_late_csv_error_does_not_echo_the_row(tmp_path):
    path = tmp_path / "late.csv"
    rows = "".join(f"0.{i % 9 + 1},{i % 2}\n" for i in range(30000))
    path.write_text("p,y\n" + rows + "0.5,1,classified-token,x\n")
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(str(path), score="p", label="y")
    assert "classified-token" not in str(info.value) and "\n" not in str(info.value)
    assert str(info.value).startswith(f"could not read {path} as CSV")


def test_prefetched_batches_keep_order_raise_in_the_caller_and_stop_early():
    import threading

    from veracity.sources._duckdb_auc import _prefetched

    def failing():
        yield from range(5)
        raise RuntimeError("scan failed")

    seen = []
    with pytest.raises(RuntimeError, match="scan failed"):
        for item in _prefetched(failing()):
            seen.append(item)
    assert seen == [0, 1, 2, 3, 4]
    for item in _prefetched(iter(range(10**6)), depth=2):  # the consumer stops: the pump thread ends
        if item == 3:
            break
    assert not [t for t in threading.enumerate() if t.name == "veracity-duckdb-scan"]
