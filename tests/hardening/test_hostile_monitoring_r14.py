"""Round 14 hardening of the monitoring store: the same data gives the same slices as ``vc.audit``.

Oracles: hand-written slice names and orders (``str`` of the key a frame hands back, keys sorted by
value, the missing keys last) and ``vc.audit`` on the same frame, which the store does not call.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pytest.importorskip("duckdb")

N = 240


def _frame(keys: object, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, N)
    ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(rng.integers(0, 3 * 86400, N), unit="s")
    return pd.DataFrame({"id": np.arange(N).astype(str), "ts": ts, "score": p,
                         "y": (rng.uniform(size=N) < p).astype(int), "k": keys, "obs": ts + pd.Timedelta("1h")})


def _store_slices(tmp_path, frame, **log) -> tuple[list[str], vc.MonitorStore]:
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(frame, id="id", time="ts", score="score", by="k", **log)
    store.outcomes(frame, id="id", label="y", time="obs")
    status = store.status(freq="M", by="k", as_of="2026-04-01", min_count=10)
    return [r["slice"] for r in status.to_dict()["periods"]], store


CASES = {
    # keys (cycled over the rows), the names and order vc.audit gives them
    "int": ([10, 9, 2], ["2", "9", "10"]),
    "float": ([10.5, 9.5, 2.5], ["2.5", "9.5", "10.5"]),
    "bool": ([True, False], ["False", "True"]),
    "negative": ([10, -1, 2], ["-1", "2", "10"]),
    "datetime": (list(pd.to_datetime(["2026-01-02 10:00", "2026-01-01 00:00"])), ["2026-01-01 00:00:00",
                                                                           "2026-01-02 10:00:00"]),
    "zoned": (list(pd.to_datetime(["2026-01-02 10:00", "2026-01-01 00:00"]).tz_localize("Europe/Berlin")),
              # the UTC instants (core/_keys.key_name): Berlin is UTC+1 in winter
              ["2025-12-31 23:00:00+00:00", "2026-01-02 09:00:00+00:00"]),
    "date": ([dt.date(2026, 1, 2), dt.date(2026, 1, 1)], ["2026-01-01", "2026-01-02"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_store_slices_are_named_and_ordered_as_the_audit_names_them(tmp_path, case):
    # was: 9/10 as text in text order ('10' before '9'), the float 9.0 stored as '9', booleans as
    # 'true'/'false', times as '2026-01-01 00:00:00.000000000': the same column sliced two ways
    values, expected = CASES[case]
    keys = [values[i % len(values)] for i in range(N)]
    frame = _frame(keys)
    if case == "zoned":
        frame["k"] = pd.Series(pd.DatetimeIndex(keys))
    got, _ = _store_slices(tmp_path, frame)
    assert got == ["(all)", *expected]
    assert list(vc.audit(frame, score="score", label="y", by="k").to_dict()["groups"]) == expected


def test_missing_and_nan_keys_go_last_and_numbers_in_value_order(tmp_path):
    keys = pd.array([[10, 9, None, 2][i % 4] for i in range(N)], dtype="Int64")
    got, _ = _store_slices(tmp_path, _frame(keys))
    assert got == ["(all)", "2", "9", "10", "(missing)"]  # was ['(all)', '(missing)', '10', '2', '9']
    assert list(vc.audit(_frame(keys), score="score", label="y", by="k").to_dict()["groups"]) == [
        "2", "9", "10", "(missing)"]


def test_a_nan_key_of_a_polars_frame_is_the_missing_slice_after_the_values(tmp_path):
    # a NaN key is the missing key now (one slice with null), named '(missing)' on every route
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(_frame([[10.0, np.nan, 9.0][i % 3] for i in range(N)]), nan_to_null=False)
    got, _ = _store_slices(tmp_path, frame)
    assert got == ["(all)", "9", "10", "(missing)"]  # was ['(all)', '10', '9', 'NaN'], then 'nan'
    assert list(vc.audit(frame, score="score", label="y", by="k").to_dict()["groups"]) == [
        "9.0", "10.0", "(missing)"]


def test_the_store_slice_numbers_equal_the_audit_of_the_slice(tmp_path):
    frame = _frame([[10.5, 9.5, 2.5][i % 3] for i in range(N)])
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(frame, id="id", time="ts", score="score", by="k")
    store.outcomes(frame, id="id", label="y", time="obs")
    rows = {r.slice: r for r in store.status(freq="M", by="k", as_of="2026-04-01").rows}
    for key, name in ((10.5, "10.5"), (9.5, "9.5"), (2.5, "2.5")):
        part = frame[frame["k"] == key]
        assert rows[name].rows == len(part)
        assert rows[name].rate == pytest.approx(part["y"].mean(), abs=1e-12)
        assert rows[name].conf == pytest.approx(part["score"].mean(), abs=1e-12)


def test_the_cli_lists_slices_in_key_order(tmp_path, capsys):
    from veracity.cli import main

    path = tmp_path / "d.csv"
    _frame([[10, 9, 2][i % 3] for i in range(N)]).to_csv(path, index=False)
    store = str(tmp_path / "m.duckdb")
    assert main(["monitor", "log", store, str(path), "--id", "id", "--time", "ts", "--score", "score",
                 "--by", "k"]) == 0
    assert main(["monitor", "outcomes", store, str(path), "--id", "id", "--label", "y", "--time", "obs"]) == 0
    capsys.readouterr()
    assert main(["monitor", "status", store, "--freq", "M", "--as-of", "2026-04-01", "--by", "k"]) == 0
    lines = [ln.split()[1] for ln in capsys.readouterr().out.splitlines() if ln.startswith("2026-03")]
    assert lines == ["(all)", "2", "9", "10"]


def test_recalibrate_takes_a_slice_key_as_its_value(tmp_path):
    rng = np.random.default_rng(3)
    n = 3000
    p = rng.uniform(0.05, 0.95, n)
    ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(rng.integers(0, 14 * 86400, n), unit="s")
    frame = pd.DataFrame({"id": np.arange(n), "ts": ts, "score": p, "y": (rng.uniform(size=n) < p).astype(int),
                          "k": rng.choice([9, 10], n), "obs": ts + pd.Timedelta("1h")})
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(frame, id="id", time="ts", score="score", by="k")
    store.outcomes(frame, id="id", label="y", time="obs")
    # was: "slice 9 of 'k' has no predictions (its values: '10', '9')": the key 9 is the slice '9'
    by_key = store.recalibrate(freq="W", by="k", slice=9, as_of="2026-04-01")
    by_name = store.recalibrate(freq="W", by="k", slice="9", as_of="2026-04-01")
    assert by_key.to_dict() == by_name.to_dict()
    with pytest.raises(vc.VeracityError, match=r"its values: '10', '9'"):
        store.recalibrate(freq="W", by="k", slice="11", as_of="2026-04-01")


# ---------------------------------------------------------------- vc.monitor: period keys in key order
def _shifted_period_10(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 4000
    periods = rng.choice([8, 9, 10, 11], n)
    p = rng.uniform(0.05, 0.95, n)
    p = np.where(periods == 10, p ** 0.3, p)  # period 10's scores moved up; the others alike
    return p, (rng.uniform(size=n) < p).astype(int), periods


def test_monitor_orders_numeric_period_keys_by_value_and_takes_the_first_as_reference():
    # was: periods '10', '11', '8', '9' (text order), PSI against '10' (the shifted period): 8, 9 and 11
    # read MAJOR shift and the shifted period 10 "stable"
    p, y, periods = _shifted_period_10(0)
    got = vc.monitor(p, y, periods)
    assert [r.period for r in got.rows] == ["8", "9", "10", "11"]
    assert got.reference == "8"
    assert list(got.to_dict()["stats"]) == ["8", "9", "10", "11"]
    shift = {r.period: r.shift for r in got.rows}
    assert shift["10"] == "MAJOR" and shift["9"] == "stable" and shift["11"] == "stable"
    got_frame = vc.monitor(pd.DataFrame({"p": p, "y": y, "k": periods}), score="p", label="y", periods="k")
    assert [r.period for r in got_frame.rows] == ["8", "9", "10", "11"] and got_frame.reference == "8"


def test_monitor_period_order_false_alarms_of_the_shift_label_stay_rare():
    # seeded simulation: stationary scores over periods 8..11; with the first period (8) as reference the
    # shift label (PSI material and chi-square p < 0.01) calls a stationary period MAJOR/moderate rarely
    called = 0
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        n = 2000
        periods = rng.choice([8, 9, 10, 11], n)
        p = rng.uniform(0.05, 0.95, n)
        got = vc.monitor(p, (rng.uniform(size=n) < p).astype(int), periods)
        assert got.reference == "8"
        called += sum(r.shift not in ("stable", "within noise", "") for r in got.rows)
    assert called <= 3  # 120 comparisons at p < 0.01: about 1.2 expected


# ---------------------------------------------------------------- vc.monitor with weights
def _weighted(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 600
    p = rng.uniform(0.05, 0.95, n)
    return p, (rng.uniform(size=n) < p).astype(int), np.repeat(["a", "b", "c"], n // 3), rng.uniform(0.5, 2, n)


def test_a_period_whose_rows_all_weigh_zero_is_insufficient_not_pending():
    p, y, per, w = _weighted()
    w[per == "b"] = 0
    row = {r.period: r for r in vc.monitor(p, y, per, sample_weight=w, min_count=50).rows}["b"]
    # was: status 'pending' with 0 pending rows, and a PSI of 0.12 read from an empty histogram
    assert (row.status, row.pending, row.n) == ("insufficient", 0, 0.0)
    assert np.isnan(row.psi) and row.shift == ""


def test_the_default_reference_is_the_first_period_with_weight_and_an_empty_one_is_refused():
    p, y, per, w = _weighted()
    w[per == "a"] = 0
    got = vc.monitor(p, y, per, sample_weight=w)
    assert got.reference == "b"  # was 'a': every PSI compared with an empty histogram
    assert {r.period: r.psi for r in got.rows}["b"] == 0.0
    with pytest.raises(vc.VeracityError, match="every row weighs 0"):
        vc.monitor(p, y, per, sample_weight=w, reference="a")


def test_the_labelled_column_counts_rows_whatever_the_weight_scale():
    p, y, per, w = _weighted()
    one, thousand = (str(vc.monitor(p, y, per, sample_weight=w * c, min_count=50)) for c in (1.0, 1000.0))
    assert one == thousand  # was: 'labelled' printed the total weight (about 250 vs 250,000)
    first = next(ln for ln in one.splitlines() if ln.startswith("a "))
    assert first.split()[1] == "200"


def test_an_integer_slice_column_that_gains_a_missing_value_keeps_its_slices(tmp_path):
    # pandas makes an int column with a missing value float64: the key 9 of the second batch must stay
    # the slice '9' of the first (the naming as vc.audit's '9.0' had split each slice in two)
    def batch(lo: int, missing: bool) -> pd.DataFrame:
        k = np.array([9, 10] * 100, dtype=float if missing else int)
        if missing:
            k[::7] = np.nan
        return pd.DataFrame({"id": np.arange(lo, lo + 200), "ts": pd.Timestamp("2026-03-02"), "score": 0.5, "k": k})

    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(batch(0, False), id="id", time="ts", score="score", by="k")
    store.log(batch(200, True), id="id", time="ts", score="score", by="k")
    rows = [(r.slice, r.rows) for r in store.status(freq="M", by="k", as_of="2026-04-01").rows]
    # second batch: rows 0, 7, ..., 196 missing (29 of them: 15 nines at even rows, 14 tens at odd rows)
    assert rows == [("(all)", 400), ("9", 100 + 85), ("10", 100 + 86), ("(missing)", 29)]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_monitor_scan_lists_numeric_period_keys_in_value_order(tmp_path, capsys, engine):
    from veracity.cli import main

    p, y, periods = _shifted_period_10(1)
    path = tmp_path / "scan.csv"
    pd.DataFrame({"p": p, "y": y, "k": periods}).to_csv(path, index=False)
    assert main(["monitor", "scan", str(path), "--score", "p", "--label", "y", "--period", "k", "--engine", engine,
                 "--json"]) == 0
    got = __import__("json").loads(capsys.readouterr().out)
    assert [r["period"] for r in got["periods"]] == ["8", "9", "10", "11"] and got["reference"] == "8"


def test_a_list_per_row_as_a_slice_is_refused_in_one_line(tmp_path):
    # was: ArrowNotImplementedError "Unsupported cast from list<item: int64> to utf8" (a raw traceback)
    df = pd.DataFrame({"id": [1, 2], "ts": ["2026-03-02"] * 2, "score": [0.1, 0.9], "k": [[1], [2]]})
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.init()
    with pytest.raises(vc.VeracityError, match=r"slice column 'k' .* one plain value per row"):
        store.log(df, id="id", time="ts", score="score", by="k")
    assert store.counts()["predictions"] == 0


# ---------------------------------------------------------------- the false-alarm claim with --by
def test_the_false_alarm_note_with_slices_is_per_row_and_a_window_can_alert_more_often(tmp_path):
    # seeded simulation: a calibrated, stationary stream, 20 weeks x (all) + 10 slices. The note said
    # "a calibrated, stationary window alerts with probability <= 0.01", but with 11 rows a window each
    # with its own three tests, windows alert far more often (the rows keep their 0.01)
    rows = alerts = windows = alerting_windows = 0
    note = ""
    for seed in range(2):
        rng = np.random.default_rng(seed)
        n = 40000
        p = rng.uniform(0.02, 0.98, n)
        ts = pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.integers(0, 20 * 7 * 86400, n), unit="s")
        df = pd.DataFrame({"id": np.arange(n), "ts": ts, "score": p, "y": (rng.uniform(size=n) < p).astype(int),
                           "k": rng.integers(0, 10, n)})
        store = vc.MonitorStore(tmp_path / f"m{seed}.duckdb")
        store.log(df, id="id", time="ts", score="score", by="k")
        store.outcomes(df, id="id", label="y", time="ts")
        status = store.status(freq="W", by="k", as_of="2026-06-30")
        per_window: dict[str, list[bool]] = {}
        for r in status.rows:
            per_window.setdefault(r.period, []).append(bool(r.alerts))
        rows += len(status.rows)
        alerts += sum(bool(r.alerts) for r in status.rows)
        windows += len(per_window)
        alerting_windows += sum(any(v) for v in per_window.values())
        note = next(line for line in str(status).splitlines() if line.startswith("(pending"))
    assert (rows, windows) == (440, 40)
    assert alerts <= 12  # per row <= 0.01: about 4.4 expected at most
    assert alerting_windows >= 2  # "a window <= 0.01" would expect at most 0.4 of 40
    assert "stationary row alerts with probability <= 0.01" in note
    assert "with 11 rows a window, some row of a window alerts with probability up to 0.11" in note
