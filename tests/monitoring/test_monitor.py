"""Monitoring on arrays and single files: per-period calibration, label maturity, streaming engine."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import main
from veracity.engines import scan_file
from veracity.monitoring import label_maturity, monitor, period_keys


def _log(n=6000, seed=0, shift_last=0.0):
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 180, n)
    t = np.datetime64("2026-01-01") + days.astype("timedelta64[D]")
    p = rng.uniform(0.02, 0.98, n)
    month = period_keys(t, freq="M")
    true_p = np.clip(p + shift_last * (month == "2026-06"), 0, 1)
    y = (rng.random(n) < true_p).astype(np.int64)
    return t, month, p, y


def test_periods_equal_audit_of_each_period():
    t, month, p, y = _log()
    result = monitor(p, y, t, freq="M")
    assert [r.period for r in result.rows] == [f"2026-0{m}" for m in range(1, 7)]
    for row in result.rows:
        m = month == row.period
        a = vc.audit(p[m], y[m])  # both at their defaults: 15 equal-width bins (issue 22)
        assert row.n == m.sum()
        assert row.ece == pytest.approx(a.ece, abs=1e-12)
        assert row.brier == pytest.approx(a.brier, abs=1e-12)
        assert row.nll == pytest.approx(a.nll, rel=1e-12)
        assert row.base_rate == pytest.approx(y[m].mean())


def test_shifted_period_alerts_and_calibrated_ones_mostly_do_not():
    t, month, p, y = _log(n=12000, shift_last=-0.15)
    result = monitor(p, y, month)
    assert "2026-06" in result.alert_periods
    # under perfect calibration, alerts are ~5 % false positives per period
    rng = np.random.default_rng(9)
    n = 400 * 300
    pp = rng.uniform(0.05, 0.95, n)
    yy = (rng.random(n) < pp).astype(int)
    keys = np.repeat(np.arange(400), 300).astype(str)
    calm = monitor(pp, yy, keys, min_count=50)
    rate = len(calm.alerts) / 400
    assert 0.05 - 3 * np.sqrt(0.05 * 0.95 / 400) < rate < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)


def test_monitor_alerts_are_the_same_type_as_the_stores():
    """Issue 22: ``alerts`` is one type everywhere -- Alert sentences that know their period and kind."""
    from veracity.monitoring import Alert

    t, month, p, y = _log(n=12000, shift_last=-0.15)
    result = monitor(p, y, month)
    alerts = result.alerts
    assert alerts and all(isinstance(a, Alert) and isinstance(a, str) for a in alerts)
    assert [a.period for a in alerts] == result.alert_periods
    assert {a.kind for a in alerts} == {"calibration"} and all(a.slice == "" for a in alerts)
    row = {r.period: r for r in result.rows}["2026-06"]
    june = [a for a in alerts if a.period == "2026-06"][0]
    assert f"{row.conf:.4f}" in june and f"[{row.ci_low:.4f}, {row.ci_high:.4f}]" in june
    doc = result.to_dict()
    assert doc["alerts"] == [str(a) for a in alerts] and doc["alert_periods"] == result.alert_periods
    json.dumps(doc)  # plain strings in the JSON
    assert str(result).splitlines()[-1] == "alerts: " + ", ".join(result.alert_periods)


def test_immature_labels_are_pending_not_negatives():
    t, month, p, y = _log()
    as_of = np.datetime64("2026-06-15")
    mature = label_maturity(t, as_of, 30)
    y_recorded = np.where(mature, y, 0)  # not-yet-final labels look like negatives in the log
    result = monitor(p, y_recorded, month, mature=mature)
    by_period = {r.period: r for r in result.rows}
    for period, row in by_period.items():
        m = (month == period) & mature
        assert row.pending == int(((month == period) & ~mature).sum())
        if m.any():
            assert row.base_rate == pytest.approx(y[m].mean())  # the true labels, not zeros
    assert by_period["2026-06"].pending > 0


def test_label_maturity_rule():
    t = np.array(["2026-01-01", "2026-01-20", "2026-02-10"], dtype="datetime64[D]")
    assert label_maturity(t, "2026-02-19", 30).tolist() == [True, True, False]
    assert label_maturity(t, "2026-02-19", "30d").tolist() == [True, True, False]
    for bad in [float("nan"), float("inf"), 1e20, -1]:  # issue 13: refused in one line, not a traceback
        with pytest.raises(vc.VeracityError, match="horizon must be a finite duration"):
            label_maturity(t, "2026-02-19", bad)


def test_period_keys_quarters_and_bad_input():
    t = np.array(["2026-01-15", "2026-05-01", "2026-12-31"], dtype="datetime64[D]")
    assert period_keys(t, freq="Q").tolist() == ["2026Q1", "2026Q2", "2026Q4"]
    with pytest.raises(vc.VeracityError, match="freq must be one of"):
        period_keys(t, freq="H")
    with pytest.raises(vc.VeracityError, match="times must be dates"):
        period_keys(np.array(["soon", "later"]), freq="M")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_streaming_scan_equals_in_memory(tmp_path, fmt):
    t, month, p, y = _log(n=5000, seed=3)
    w = np.random.default_rng(1).uniform(0.5, 2, p.size)
    table = pa.table({"p": p, "y": y, "w": w, "month": month})
    path = tmp_path / f"log.{fmt}"
    (pq.write_table if fmt == "parquet" else pacsv.write_csv)(table, path)
    edges = np.linspace(0, 1, 11)
    scan = scan_file(path, score="p", label="y", weight="w", group="month", edges=edges, batch_rows=700)
    whole = vc.BinStats.from_arrays(p, y, edges=edges, sample_weight=w)
    np.testing.assert_array_equal(scan.total.count, whole.count)
    for name in ("weight", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll"):
        np.testing.assert_allclose(getattr(scan.total, name), getattr(whole, name), rtol=1e-12)
    for key, stats in scan.groups.items():
        m = month == key
        part = vc.BinStats.from_arrays(p[m], y[m], edges=edges, sample_weight=w[m])
        np.testing.assert_allclose(stats.sum_nll, part.sum_nll, rtol=1e-12)
    assert scan.rows_read == 5000


def test_cli_monitor_scan_demo(capsys):
    assert main(["monitor", "scan", "--period", "month"]) == 0
    first = capsys.readouterr().out
    assert "2026-01" in first and "status" in first
    assert main(["monitor", "scan", "--period", "month", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    counts = {r["period"]: r["n"] for r in doc["periods"]}
    d = vc.load_demo()
    assert counts["2026-01"] == int((d["month"] == "2026-01").sum())


def test_cli_monitor_time_freq_and_maturity(tmp_path, capsys):
    t, month, p, y = _log(n=3000, seed=5)
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"ts": t.astype("datetime64[s]"), "score": p, "label": y}), path)
    assert main(["monitor", "scan", str(path), "--time", "ts", "--freq", "Q", "--as-of", "2026-06-15",
                 "--horizon", "30", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by = {r["period"]: r for r in doc["periods"]}
    assert set(by) == {"2026Q1", "2026Q2"}
    # a prediction dated after the as-of time did not exist then: left out, not pending (round 34)
    as_of = np.datetime64("2026-06-15")
    expected_pending = int(((label_maturity(t, as_of, 30) == False) & (t <= as_of)).sum())  # noqa: E712
    assert doc["after_as_of"] == int((t > as_of).sum()) > 0
    assert by["2026Q2"]["pending"] == expected_pending and by["2026Q1"]["pending"] == 0


def test_cli_monitor_scan_is_vc_monitor_on_every_engine(tmp_path, capsys):
    """`monitor scan FILE` is vc.monitor on the file: in memory and where it lives (DuckDB) alike."""
    t, month, p, y = _log(n=3000, seed=6)
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"ts": t.astype("datetime64[s]"), "score": p, "label": y}), path)
    argv = ["monitor", "scan", str(path), "--time", "ts", "--freq", "M", "--as-of", "2026-05-15T06:00+02:00",
            "--horizon", "20d", "--json", "-"]
    docs = {}
    for engine in ("memory", "duckdb"):
        assert main([*argv, "--engine", engine]) == 0
        docs[engine] = json.loads(capsys.readouterr().out)
    want = vc.monitor(p, y, t, freq="M", as_of="2026-05-15T04:00", horizon=20)
    for doc in docs.values():
        assert doc["rows_read"] == 3000 == want.rows_read
        assert [(r["period"], r["pending"]) for r in doc["periods"]] == [(r.period, r.pending) for r in want.rows]
        for got, row in zip(doc["periods"], want.rows):
            assert got["n"] == row.n and (got["ece"] is None or got["ece"] == pytest.approx(row.ece, rel=1e-9))


def test_cli_monitor_scan_epoch_seconds_in_a_csv_on_every_engine(tmp_path, capsys):
    """A CSV's fractional epoch seconds are seconds on every engine (Dask once read them as
    nanoseconds: every row in 1970-01), and a Dask CSV time that is no time is refused in one
    line naming the column and the text."""
    t, month, p, y = _log(n=2000, seed=8)
    seconds = t.astype("datetime64[ms]").astype(np.int64) / 1000.0 + 0.25
    path = tmp_path / "log.csv"
    pacsv.write_csv(pa.table({"ts": seconds, "score": p, "label": y}), path)
    argv = ["monitor", "scan", str(path), "--time", "ts", "--freq", "M", "--as-of", "2026-05-01", "--horizon", "30",
            "--json", "-"]
    want = vc.monitor(p, y, seconds, freq="M", as_of="2026-05-01", horizon=30)
    assert len(want.rows) > 3
    for engine in ("memory", "duckdb", "dask"):
        assert main([*argv, "--engine", engine]) == 0, capsys.readouterr().err
        got = json.loads(capsys.readouterr().out)["periods"]
        assert [(r["period"], r["n"], r["pending"]) for r in got] == [(r.period, r.n, r.pending) for r in want.rows]
    text = [str(v) for v in t.astype("datetime64[s]").astype(str)]
    text[11] = "last tuesday"
    pacsv.write_csv(pa.table({"ts": text, "score": p, "label": y}), path)
    assert main([*argv, "--engine", "dask"]) == 2
    err = capsys.readouterr().err.strip()
    # round 26: Dask reads the text as the memory route does (ISO 8601 only) and refuses it in that
    # route's line (was "holds text that is not a date or time, e.g. 'last tuesday'; --time needs ...")
    said = ("column 'ts' (periods) must be dates or datetimes in one ISO 8601 form, but it has strings that "
            "are not ISO 8601 times (data row 12: 'last tuesday'); ")  # text[11], data row 12 (round 27)
    assert "\n" not in err and said in err, err
    assert main([*argv, "--engine", "memory"]) == 2 and capsys.readouterr().err.strip() == err


def test_cli_monitor_scan_csv_times_on_spark_and_dask(tmp_path, capsys, spark):
    """CSV times (with offsets) are parsed by every engine: Spark infers a session-zone timestamp,
    Dask reads text and the command parses it; both give the memory route's numbers. A Spark
    session in another zone is refused in one line (its months would follow that zone)."""
    t, month, p, y = _log(n=2000, seed=7)
    text = [str(v) + "+02:00" for v in t.astype("datetime64[s]").astype(str)]
    path = tmp_path / "log.csv"
    pacsv.write_csv(pa.table({"ts": text, "score": p, "label": y}), path)
    argv = ["monitor", "scan", str(path), "--time", "ts", "--freq", "M", "--as-of", "2026-05-01", "--horizon", "30",
            "--json", "-"]
    docs = {}
    for engine in ("memory", "dask", "spark"):
        assert main([*argv, "--engine", engine]) == 0, capsys.readouterr().err
        docs[engine] = json.loads(capsys.readouterr().out)
    for engine in ("dask", "spark"):
        got, want = docs[engine]["periods"], docs["memory"]["periods"]
        assert [(r["period"], r["n"], r["pending"]) for r in got] == [(r["period"], r["n"], r["pending"]) for r in want]
        for a, b in zip(got, want):
            assert a["ece"] is None and b["ece"] is None or a["ece"] == pytest.approx(b["ece"], rel=1e-9), engine
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
    try:
        frame = spark.read.option("header", True).option("inferSchema", True).csv(str(path))
        with pytest.raises(vc.VeracityError, match=r"Spark session's time zone 'Europe/Paris'.*set spark.sql"):
            vc.monitor(frame, score="score", label="label", periods="ts", freq="M")
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


@pytest.mark.parametrize(
    "argv, match",
    [
        (["monitor", "scan"], r"--period COL .* or --time COL"),
        (["monitor", "scan", "--period", "quarter"], r"column 'quarter' not found"),
        (["monitor", "scan", "--time", "month", "--as-of", "2026-01-01"], r"--as-of and --horizon go together"),
        (["monitor", "scan", "--period", "month", "--as-of", "2026-01-01", "--horizon", "3"], r"need --time"),
        (["monitor", "scan", "--period", "month", "--mature", "segment"], r"must be boolean"),
        (["monitor", "scan", "--period", "month", "--bins", "0"], r"--bins must be a positive integer"),
        (["monitor", "scan", "--time", "month", "--as-of", "2026-01-01", "--horizon", "nan"],
         r"--horizon must be a finite duration"),
    ],
)
def test_cli_monitor_bad_input(capsys, argv, match):
    import re

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err), err


# ------------------------------------------------------------------ label-free drift (PSI)
from veracity.monitoring._monitor import population_stability  # noqa: E402


def test_psi_definition_by_hand():
    a = np.array([30.0, 50.0, 20.0, 0.0])
    r = np.array([25.0, 25.0, 25.0, 25.0])
    a_s, r_s = (a + 0.5) / (a + 0.5).sum(), (r + 0.5) / (r + 0.5).sum()
    expected = sum((x - z) * np.log(x / z) for x, z in zip(a_s, r_s))
    assert population_stability(a, r) == pytest.approx(expected, rel=1e-12)
    assert population_stability(r, r) == 0.0
    assert population_stability(a, r) > 0 and population_stability(r, a) > 0


def test_shifted_scores_flag_major_before_any_label_arrives():
    rng = np.random.default_rng(11)
    n = 4000
    month = np.repeat(["2026-01", "2026-02", "2026-03"], n)
    p = np.concatenate([rng.beta(2, 5, n), rng.beta(2, 5, n), rng.beta(5, 2, n)])  # March shifts
    y = (rng.random(3 * n) < p).astype(float)
    mature = month != "2026-03"
    y[~mature] = np.nan  # March labels do not exist yet
    result = monitor(p, y, month, mature=mature)
    by = {r.period: r for r in result.rows}
    assert by["2026-03"].status == "pending" and by["2026-03"].pending == n
    assert by["2026-03"].shift == "MAJOR" and by["2026-03"].psi > 0.25
    assert by["2026-02"].shift == "stable" and by["2026-02"].psi < 0.1
    assert result.reference == "2026-01" and by["2026-01"].psi == 0.0
    few = monitor(np.append(p, [0.9] * 5), np.append(y, [np.nan] * 5), np.append(month, ["2026-04"] * 5),
                  mature=np.append(mature, [False] * 5))
    assert {r.period: r.shift for r in few.rows}["2026-04"] == "few rows"
    other = monitor(p, y, month, mature=mature, reference="2026-03")
    assert {r.period: r.shift for r in other.rows}["2026-01"] == "MAJOR"
    with pytest.raises(vc.VeracityError, match="reference period '2025-12' not found"):
        monitor(p, y, month, mature=mature, reference="2025-12")


def test_file_scan_accepts_missing_labels_on_pending_rows(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 600
    p = rng.random(n)
    final = np.arange(n) < 400
    labels = pa.array([int(v) if f else None for v, f in zip(rng.random(n) < p, final)], type=pa.int64())
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"score": p, "label": labels, "final": final,
                             "month": np.where(np.arange(n) < 300, "a", "b")}), path)
    assert main(["monitor", "scan", str(path), "--period", "month", "--mature", "final", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by = {r["period"]: r for r in doc["periods"]}
    assert by["a"]["pending"] == 0 and by["b"]["pending"] == 200
    assert by["b"]["n"] == 100
    assert sum(doc["histograms"]["b"]) == 300  # every row's score, pending included
    # a missing label on a row declared final is still an error
    pq.write_table(pa.table({"score": p, "label": labels, "month": np.full(n, "a")}), path)
    assert main(["monitor", "scan", str(path), "--period", "month"]) == 2
    err = capsys.readouterr().err  # missing labels' one wording (missing_labels_message)
    assert "column 'label' (labels) has 200 missing values" in err and "first at data row 401" in err, err
    # ... and so is one on a row --mature calls final
    pq.write_table(pa.table({"score": p, "label": labels, "final": np.arange(n) < 401,
                             "month": np.full(n, "a")}), path)
    assert main(["monitor", "scan", str(path), "--period", "month", "--mature", "final"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "missing" in err and "'label'" in err, err


def test_monitoring_bins_default_to_the_audits_so_their_eces_compare():
    """Issue 22: vc.monitor used 10 bins and vc.audit 15; at their defaults the ECEs now agree."""
    import inspect

    t, month, p, y = _log()
    assert inspect.signature(monitor).parameters["bins"].default == \
        inspect.signature(vc.audit).parameters["bins"].default == 15
    result = monitor(p, y, t, freq="M")
    for row in result.rows:
        m = month == row.period
        assert row.ece == pytest.approx(vc.audit(p[m], y[m]).ece, abs=1e-12)
        assert row.ece == pytest.approx(vc.ece(p[m], y[m]), abs=1e-12)


@pytest.mark.parametrize("freq", ["D", "W", "M", "Q", "Y"])
def test_lazy_frames_read_integer_epoch_seconds_like_the_arrays(freq):
    """An int64 column of epoch seconds (UTC) gives the array form's periods on a lazy frame too
    (DuckDB and polars compute the calendar by arithmetic): dates from 1901 to 2100, leap days,
    month ends and negative seconds included."""
    import duckdb
    import polars as pl

    rng = np.random.default_rng(4)
    n = 4000
    t = rng.integers(-2_000_000_000, 4_100_000_000, n)
    t[:6] = [-1, 0, 951_782_399, 951_782_400, 4_107_542_399, -2_208_988_800]  # 1969-12-31, 1970, 2000-02-29 ...
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    want = monitor(p, y, t, freq=freq, min_count=1)
    frame = pl.DataFrame({"p": p, "y": y, "t": t})
    con = duckdb.connect()
    con.register("scores", frame.to_arrow())
    for lazy in (frame.lazy(), con.sql("SELECT * FROM scores")):
        got = monitor(lazy, score="p", label="y", periods="t", freq=freq, min_count=1)
        assert [r.period for r in got.rows] == [r.period for r in want.rows]
        assert len(want.rows) > 1
        for a, b in zip(got.rows, want.rows):
            assert a.n == b.n and abs(a.ece - b.ece) < 1e-12 and abs(a.brier - b.brier) < 1e-12, (a, b)


def test_psi_shift_is_called_only_beyond_noise_with_power_against_a_real_shift():
    """Seeded simulation of the shift label's claim. Stationary scores in windows of 100 rows used to
    read "moderate" in 24 of 29 windows (PSI's 0.1 threshold is below its own noise at that size);
    now a shift is called only when the chi-square test of the two histograms rejects at 0.01 too."""
    from veracity.monitoring._shift import SHIFT_ALPHA

    rng = np.random.default_rng(0)
    called, k = 0, 0
    for per in (100, 200, 400):
        periods = np.repeat([f"p{j:03d}" for j in range(101)], per)
        s = rng.beta(2, 5, periods.size)
        y = (rng.random(s.size) < s).astype(int)
        shifts = [r.shift for r in vc.monitor(s, y, periods=periods).rows[1:]]
        called += sum(v in ("moderate", "MAJOR") for v in shifts)
        k += len(shifts)
    assert called / k <= SHIFT_ALPHA + 3 * np.sqrt(SHIFT_ALPHA * (1 - SHIFT_ALPHA) / k), called / k
    # power: the score law moves from Beta(2, 5) to Beta(3, 4) after the reference window
    periods = np.repeat([f"p{j:02d}" for j in range(21)], 200)
    s = np.r_[rng.beta(2, 5, 200), rng.beta(3, 4, 20 * 200)]
    y = (rng.random(s.size) < s).astype(int)
    assert all(r.shift == "MAJOR" for r in vc.monitor(s, y, periods=periods).rows[1:])
