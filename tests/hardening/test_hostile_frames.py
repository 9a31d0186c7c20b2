"""Hostile frames (issue 23): literal column names, UTC periods on every backend, one-line errors.

Each case failed before: a LazyFrame column named ``^s.*$`` was read as a regex (ECE of
another column), monthly periods of zone-aware times followed the column's or the session's
zone, ``vc.monitor`` raised IndexError/TypeError, a latin-1 CSV reached ``veracity apply`` as a
pyarrow traceback.
"""

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

RNG = np.random.default_rng(3)
N = 3000
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(int)


def test_a_column_named_like_a_regex_is_read_literally():
    lf = pl.DataFrame({"^s.*$": P, "s_other": RNG.random(N), "y": Y}).lazy()
    assert vc.ece(lf, score="^s.*$", label="y") == pytest.approx(vc.ece(P, Y), abs=1e-12)
    assert vc.audit(lf, score="^s.*$", label="y").auc == pytest.approx(vc.auc(P, Y), abs=1e-12)


def _periods(result):
    return [(r.period, r.n) for r in result.rows]


def test_zone_aware_periods_are_utc_on_every_backend():
    ts = pd.Series(pd.date_range("2026-01-01", periods=N, freq="30min", tz="UTC")).dt.tz_convert("Asia/Tokyo")
    df = pd.DataFrame({"p": P, "y": Y, "ts": ts})
    want = _periods(vc.monitor(df, score="p", label="y", periods="ts", freq="M"))
    assert [k for k, _ in want] == ["2026-01", "2026-02", "2026-03"]  # UTC months, not Tokyo's
    assert _periods(vc.monitor(pl.from_pandas(df).lazy(), score="p", label="y", periods="ts", freq="M")) == want
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    assert _periods(vc.monitor(con.from_df(df), score="p", label="y", periods="ts", freq="M")) == want
    con.execute("SET TimeZone = 'America/New_York'")  # a session zone would move rows: refused, not used
    with pytest.raises(vc.VeracityError, match="TimeZone is 'America/New_York'"):
        vc.monitor(con.from_df(df), score="p", label="y", periods="ts", freq="M")


@pytest.mark.parametrize("call, match", [
    (lambda: vc.monitor(P, Y[:-1], np.repeat(["a"], N)), "one entry per row"),
    (lambda: vc.monitor(0.5, 1, "2026-01"), "got a single value"),
])
def test_monitor_shape_errors_are_one_line(call, match):
    with pytest.raises(vc.VeracityError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_latin1_csv_is_one_line_in_apply(tmp_path, capsys):
    (tmp_path / "fit.csv").write_text("score,label\n" + "\n".join(f"{p},{y}" for p, y in zip(P[:200], Y[:200])))
    assert main(["fit", str(tmp_path / "fit.csv"), "--method", "platt", "--out", str(tmp_path / "cal.json"),
                 "-q"]) == 0
    (tmp_path / "latin1.csv").write_bytes(b"score,label,name\n0.2,1,caf\xe9\n0.7,0,x\n")
    capsys.readouterr()
    assert main(["apply", str(tmp_path / "cal.json"), str(tmp_path / "latin1.csv"), "--out",
                 str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("veracity apply: input error:") and "not UTF-8" in err[-1]


def test_epoch_seconds_are_seconds_in_monitor_scan_and_period_keys(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    seconds = (np.datetime64("2026-01-01", "s") + np.arange(N) * 1800).astype(np.int64)
    assert vc.period_keys(seconds, freq="M")[0] == "2026-01"  # numpy alone reads int64 as nanoseconds: 1970-01
    pq.write_table(pa.table({"p": P, "y": Y, "ts": seconds}), tmp_path / "epoch.parquet")
    assert main(["monitor", "scan", str(tmp_path / "epoch.parquet"), "--score", "p", "--label", "y", "--time",
                 "ts", "-q"]) == 0
    out = capsys.readouterr().out
    assert "2026-01" in out and "1970" not in out


def test_duplicated_column_names_are_refused_on_lazy_frames():
    con = duckdb.connect()
    rel = con.sql("SELECT p, p AS p, y FROM (SELECT unnest(?) AS p, unnest(?) AS y)",
                  params=[P[:50].tolist(), Y[:50].tolist()])
    with pytest.raises(vc.VeracityError, match="column 'p' appears 2 times"):
        vc.ece(rel, score="p", label="y")


@pytest.mark.parametrize("form", ["pandas", "arrow"])
def test_duplicated_column_names_are_refused_on_in_memory_frames(form):
    """A pandas frame with two columns named 'y' reached narwhals' DuplicateError (a traceback; fuzz)."""
    pa = pytest.importorskip("pyarrow")
    frame = pd.DataFrame([P[:50], Y[:50], 1 - Y[:50]], index=["p", "y", "y"]).T
    data = frame if form == "pandas" else pa.Table.from_arrays(
        [pa.array(frame.iloc[:, i].to_numpy()) for i in range(3)], names=["p", "y", "y"])
    with pytest.raises(vc.VeracityError, match="column 'y' appears 2 times") as info:
        vc.ece(data, score="p", label="y")
    assert "\n" not in str(info.value)


def _lazy_forms(frame, tmp_path):
    """The same rows as a LazyFrame, a DuckDB relation, a CSV path and a Parquet path."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    frame.to_csv(tmp_path / "glob.csv", index=False)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "glob.parquet")
    return {"lazy": pl.from_pandas(frame).lazy(), "duckdb": con.from_df(frame),
            "csv": str(tmp_path / "glob.csv"), "parquet": str(tmp_path / "glob.parquet")}


@pytest.mark.parametrize("name", ["*", "^s.*$", "p.*", "s*", "(p)|y", "#1", "COLUMNS(*)"])
@pytest.mark.parametrize("role", ["score", "label"])
def test_glob_and_regex_like_column_names_are_literal_on_lazy_frames(name, role, tmp_path):
    """score='*' was a polars DuplicateError on a LazyFrame and a DuckDB BinderException on a
    relation or a CSV path (a star expression): every form reads the column of that name."""
    other = RNG.random(N)  # a second score column a star or a regex would also match
    cols = {"p": P, "y": Y, "s_other": other}
    cols[name] = cols.pop("p" if role == "score" else "y")
    frame = pd.DataFrame(cols)
    score, label = (name, "y") if role == "score" else ("p", name)
    want_ece, want = vc.ece(P, Y), vc.audit(P, Y).to_dict()["metrics"]
    for form, data in _lazy_forms(frame, tmp_path).items():
        assert vc.ece(data, score=score, label=label) == pytest.approx(want_ece, rel=1e-9), form
        got = vc.audit(data, score=score, label=label).to_dict()["metrics"]
        assert got == pytest.approx(want, rel=1e-9), form
        table = vc.threshold_table(data, thresholds=[0.5], score=score, label=label).to_dict()
        assert table == vc.threshold_table(P, Y, [0.5]).to_dict(), form


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
def test_nanosecond_zone_aware_times_on_duckdb(zone, tmp_path):
    """A zone-aware nanosecond column (what pandas writes to Parquet) is TIMESTAMPTZ_NS in DuckDB,
    which narwhals reads as Unknown: vc.monitor refused every Parquet file and relation of them."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    ts = pd.Series(pd.date_range("2026-01-01", periods=N, freq="30min", tz="UTC")).dt.tz_convert(zone)
    table = pa.Table.from_pandas(pd.DataFrame({"p": P, "y": Y, "ts": ts}), preserve_index=False)
    assert str(table.schema.field("ts").type).startswith("timestamp[ns")
    pq.write_table(table, tmp_path / "ns.parquet")
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    want = _periods(vc.monitor(P, Y, ts.dt.tz_convert(None).to_numpy(), freq="M"))
    for data in (str(tmp_path / "ns.parquet"), con.from_arrow(table)):
        assert _periods(vc.monitor(data, score="p", label="y", periods="ts", freq="M")) == want


@pytest.mark.parametrize("name", ["*", "^y.*$"])
def test_pattern_names_on_eager_polars_frames(name):
    """An eager polars DataFrame read '*' and '^...$' as patterns wherever an expression named the
    column: pos_label= (DuplicateError, ColumnNotFoundError) and the named message of a bad row."""
    text = np.where(Y == 1, "yes", "no")
    frame = pl.DataFrame({"p": P, name: text, "y2": np.where(RNG.random(N) < 0.5, "yes", "no")})
    assert vc.ece(frame, score="p", label=name, pos_label="yes") == pytest.approx(vc.ece(P, Y), rel=1e-12)
    assert vc.audit(frame, score="p", label=name, pos_label="yes").to_dict()["metrics"] == pytest.approx(
        vc.audit(P, Y).to_dict()["metrics"], rel=1e-12)
    missing = pl.DataFrame({"p": P, name: np.where(np.arange(N) == 0, np.nan, Y), "y2": Y.astype(float)})
    with pytest.raises(vc.VeracityError, match="missing|NaN") as info:
        vc.audit(missing, score="p", label=name)
    assert "\n" not in str(info.value)


def test_duplicated_column_names_are_refused_in_parquet_files(tmp_path):
    """DuckDB renames the second of two Parquet columns named 'p' (p_1): score='p' read the first
    silently, where the memory engine refuses."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(P[:50]), pa.array(Y[:50]), pa.array(1 - P[:50])], names=["p", "y", "p"])
    pq.write_table(table, tmp_path / "dup.parquet")
    for source in (tmp_path / "dup.parquet", str(tmp_path / "*.parquet")):
        with pytest.raises(vc.VeracityError, match="column 'p' appears 2 times") as info:
            vc.ece(str(source), score="p", label="y")
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_duplicated_parquet_columns_on_the_cli(tmp_path, cli, refused, engine):
    """The memory engine said "could not read ... Multiple matches for FieldRef.Name(p)" (Arrow's words)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(P[:50]), pa.array(Y[:50]), pa.array(1 - P[:50])], names=["p", "y", "p"])
    pq.write_table(table, tmp_path / "dup.parquet")
    refused(cli(["audit", tmp_path / "dup.parquet", "--score", "p", "--label", "y", "--engine", engine]),
            "column 'p' appears 2 times")


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_zone_aware_times_on_dask(zone):
    """narwhals reads a Dask column of datetime64[ns, America/New_York] (a zone name with an underscore)
    as Unknown: vc.monitor refused it ("is Unknown; with freq= it must hold dates"; fuzz)."""
    dd = pytest.importorskip("dask.dataframe")
    ts = pd.Series(pd.date_range("2026-01-01", periods=N, freq="30min", tz="UTC")).dt.tz_convert(zone)
    frame = dd.from_pandas(pd.DataFrame({"p": P, "y": Y, "ts": ts}), npartitions=3)
    want = _periods(vc.monitor(P, Y, ts.dt.tz_convert(None).to_numpy(), freq="M"))
    assert _periods(vc.monitor(frame, score="p", label="y", periods="ts", freq="M")) == want


@pytest.mark.parametrize("score_type, value", [("probability", 1 / 3), ("logit", -2.0)])
@pytest.mark.parametrize("smoothing", [False, True])
def test_platt_on_one_tied_score_fits_the_array_map_on_lazy_frames(score_type, value, smoothing):
    """One score for every row: the slope is 0 and the intercept the base rate's logit, as the
    array fit finds. Before: lazy DuckDB/polars stopped Newton at a = 0.32 (singular Hessian), a
    map that moved every other score (0.1 -> 0.23, 0.9 -> 0.56 where the array fit gives 1/3)."""
    s = np.full(30, value)
    y = np.array([1, 0, 0] * 10)
    w = np.arange(30) % 4
    df = pd.DataFrame({"s": s, "y": y, "w": w})
    want = vc.PlattScaling(score_type=score_type, smoothing=smoothing).fit(s, y, sample_weight=w)
    assert want.a_ == 0.0
    for frame in (duckdb.from_df(df), pl.from_pandas(df).lazy()):
        got = vc.PlattScaling(score_type=score_type, smoothing=smoothing).fit(
            frame, score="s", label="y", sample_weight="w")
        assert got.a_ == 0.0 and got.b_ == pytest.approx(want.b_, rel=1e-12)


def test_missing_nullable_boolean_labels_are_missing_not_a_third_class():
    labels = pd.Series([True, False, None, True, False, True], dtype="boolean")
    for call in (lambda: vc.ece(np.linspace(0.1, 0.9, 6), labels),
                 lambda: vc.ece(np.linspace(0.1, 0.9, 6), labels, pos_label=True)):
        with pytest.raises(vc.VeracityError, match=r"^labels contain 1 missing value \(None/NaN\) of 6 rows; drop or fill "
                                                   r"that row first$"):
            call()


@pytest.mark.parametrize("scores, labels, name", [([[0.1, 0.2], [0.3]], [0, 1], "scores"),
                                                  (np.linspace(0.1, 0.9, 3), [0, [1], 1], "labels")])
def test_ragged_input_is_one_line(scores, labels, name):
    with pytest.raises(vc.VeracityError, match=rf"^{name} is ragged: its rows have different lengths") as info:
        vc.ece(scores, labels)
    assert "\n" not in str(info.value)
