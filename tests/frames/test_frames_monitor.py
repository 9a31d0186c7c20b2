"""``vc.monitor`` on every backend: per-period statistics grouped where the data lives.

Oracles: the array form (``vc.monitor`` on numpy columns) for every number, and
pandas' own grouping for the counts (labelled rows per period, pending rows per
period), which the code under test never calls.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import BACKENDS, dataset, make


def logs(n: int = 3000, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = dataset(n, seed=seed)
    start = np.datetime64("2025-11-20T00:00:00", "us")
    df["ts"] = start + rng.integers(0, 150 * 86_400, n).astype("timedelta64[s]")
    df["final"] = rng.random(n) < 0.8
    return df


def same_monitor(got, want):
    assert [r.period for r in got.rows] == [r.period for r in want.rows]
    for a, b in zip(got.rows, want.rows):
        assert (a.pending, a.status, a.shift) == (b.pending, b.status, b.shift), a.period
        for name in ("n", "base_rate", "conf", "gap", "ci_low", "ci_high", "ece", "brier", "nll", "psi"):
            x, y = getattr(a, name), getattr(b, name)
            assert (x != x and y != y) or x == pytest.approx(y, rel=1e-9, abs=1e-12), (a.period, name)
    assert got.reference == want.reference
    assert list(got.histograms) == list(want.histograms)
    for key in want.histograms:
        np.testing.assert_allclose(got.histograms[key], want.histograms[key], rtol=1e-12)


#: every backend, Spark included (conftest.BACKENDS), unweighted and weighted (a third ("spark", True)
#: case ran the weighted Spark case twice)
CASES = [(b, w) for b in BACKENDS for w in (False, True)]


@pytest.mark.dask_cluster
@pytest.mark.parametrize("backend, weighted", CASES, ids=[f"{b}-{'weighted' if w else 'unweighted'}" for b, w in CASES])
def test_monthly_monitor_with_pending_rows_equals_the_arrays(backend, weighted, tmp_path, request):
    df = logs()
    frame = make(backend, df, tmp_path, request)
    w = df["w"].to_numpy() if weighted else None
    got = vc.monitor(frame, score="p", label="y", periods="ts", freq="M", mature="final",
                     sample_weight="w" if weighted else None, min_count=50)
    want = vc.monitor(df["p"].to_numpy(), df["y"].to_numpy(), df["ts"].to_numpy(), freq="M",
                      mature=df["final"].to_numpy(), sample_weight=w, min_count=50)
    same_monitor(got, want)
    # pandas' own grouping is the oracle for the counts
    month = df["ts"].dt.strftime("%Y-%m")
    assert [r.period for r in got.rows] == sorted(month.unique()) == ["2025-11", "2025-12", "2026-01", "2026-02",
                                                                      "2026-03", "2026-04"]
    pending = (~df["final"]).groupby(month).sum()
    assert {r.period: r.pending for r in got.rows} == {k: int(v) for k, v in pending.items()}
    if not weighted:
        labelled = df["final"].groupby(month).sum()
        assert {r.period: r.n for r in got.rows} == {k: float(v) for k, v in labelled.items()}
        for r in got.rows:
            assert got.stats[r.period].count.sum() == labelled[r.period]


@pytest.mark.parametrize("backend", BACKENDS)
def test_as_of_and_horizon_mark_pending_rows_from_the_times(backend, tmp_path, request):
    """Labels final when time + horizon <= as_of (to the microsecond, as the store counts them; as_of
    with an offset in UTC): the same pending rows as label_maturity on the arrays, and as pandas counts
    them — a prediction 0.4 s after the cutoff is still pending."""
    df = logs(2500, seed=12)
    micro = np.random.default_rng(1).integers(0, 10**6, len(df)).astype("timedelta64[us]")
    df["ts"] = (df["ts"].to_numpy().astype("datetime64[us]") + micro)  # sub-second times, in microseconds
    as_of, horizon = "2026-03-20T01:30:00+02:00", "21d"  # cutoff 2026-02-26T23:30:00 UTC
    edge = np.datetime64("2026-02-26T23:30:00", "us") + np.array([-1, 0, 1, 400_000, 999_999], "timedelta64[us]")
    df.loc[: edge.size - 1, "ts"] = edge  # final, final, then pending by 1 µs, 0.4 s and 0.999999 s
    df.loc[: edge.size - 1, "final"] = True
    got = vc.monitor(make(backend, df, tmp_path, request), score="p", label="y", periods="ts", freq="M",
                     mature="final", as_of=as_of, horizon=horizon, min_count=50)
    final = df["final"].to_numpy() & vc.label_maturity(df["ts"].to_numpy(), as_of, horizon)
    # a prediction dated after as_of did not exist then: left out, as the store leaves it out (round 34)
    kept = (df["ts"] <= pd.Timestamp("2026-03-19T23:30:00")).to_numpy()
    want = vc.monitor(df["p"].to_numpy()[kept], df["y"].to_numpy()[kept], df["ts"].to_numpy()[kept], freq="M",
                      mature=final[kept], min_count=50)
    same_monitor(got, want)
    cutoff = pd.Timestamp("2026-03-19T23:30:00") - pd.Timedelta(days=21)
    by_hand = ~(df["final"] & (df["ts"] <= cutoff))[kept]
    assert {r.period: r.pending for r in got.rows} == {
        k: int(v) for k, v in by_hand.groupby(df["ts"][kept].dt.strftime("%Y-%m")).sum().items()}
    assert got.rows_read == len(df) and got.after_as_of == int((~kept).sum()) > 0
    assert vc.label_maturity(edge, as_of, horizon).tolist() == [True, True, False, False, False]


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "csv", "dask"])
@pytest.mark.parametrize("freq", ["D", "W", "Q", "Y"])
def test_calendar_frequencies(backend, freq, tmp_path):
    df = logs(1500, seed=8)
    got = vc.monitor(make(backend, df, tmp_path), score="p", label="y", periods="ts", freq=freq, min_count=20)
    want = vc.monitor(df["p"].to_numpy(), df["y"].to_numpy(), df["ts"].to_numpy(), freq=freq, min_count=20)
    same_monitor(got, want)


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
def test_key_periods_logits_and_reference(backend, tmp_path):
    df = logs(2000, seed=9)
    got = vc.monitor(make(backend, df, tmp_path), score="logit", label="y", periods="segment", score_type="logit",
                     bins=7, reference="south", level=0.9)
    want = vc.monitor(df["logit"].to_numpy(), df["y"].to_numpy(), df["segment"].to_numpy(), score_type="logit",
                      bins=7, reference="south", level=0.9)
    same_monitor(got, want)
    assert str(got) == str(want)


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
def test_pos_label_with_unlabelled_pending_rows(backend, tmp_path):
    # pending rows have no label yet (None): only final labels are checked and counted
    df = logs(1200, seed=10)
    text = df.assign(y=np.where(df["final"], np.where(df["y"] == 1, "churn", "stay"), None))
    got = vc.monitor(make(backend, text, tmp_path), score="p", label="y", periods="ts", freq="M", mature="final",
                     pos_label="churn", min_count=30)
    want = vc.monitor(df["p"].to_numpy(), df["y"].to_numpy(), df["ts"].to_numpy(), freq="M",
                      mature=df["final"].to_numpy(), min_count=30)
    same_monitor(got, want)


@pytest.mark.parametrize(
    "edit, kwargs, match",
    [
        (None, {"periods": "ts"}, r"^column 'ts' \(periods\) holds dates/times; pass freq="),
        (None, {"periods": "segment", "freq": "M"}, r"^column 'segment' \(periods\) is String; with freq= it must"),
        (None, {"periods": "ts", "freq": "H"}, r"^freq must be one of D, W, M, Q, Y; got 'H'"),
        (None, {"periods": "ts", "freq": "M", "mature": "segment"},
         r"^column 'segment' \(mature\) must be boolean"),
        (None, {}, r"needs periods= naming the period or time column"),
        (None, {"periods": "ts", "freq": "M", "as_of": "2026-03-01"}, r"^as_of and horizon go together"),
        (None, {"periods": "segment", "as_of": "2026-03-01", "horizon": 7}, r"^as_of/horizon read the prediction"),
        (None, {"periods": "ts", "freq": "M", "as_of": "2026-03-01", "horizon": "-3d"}, r"^horizon must be"),
        (None, {"periods": "ts", "freq": "M", "as_of": "soon", "horizon": 3}, r"^as_of must be a date"),
        (lambda d: d.assign(p=np.where(np.arange(len(d)) == 3, 1.5, d["p"])), {"periods": "segment"},
         r"^column 'p' \(scores\) must be probabilities in \[0, 1\]; 1 of 300"),
        (lambda d: d.assign(y=np.where(np.arange(len(d)) == 3, 2, d["y"])), {"periods": "segment"},
         r"^column 'y' \(labels\) must be binary 0/1 \(or bool\); 1 of 300"),
        (lambda d: d.assign(ts=d["ts"].where(np.arange(len(d)) != 4)), {"periods": "ts", "freq": "M"},
         r"^column 'ts' \(periods\) has 1 missing value; drop or fill it"),
    ],
)
def test_bad_input_on_a_lazy_frame(edit, kwargs, match, tmp_path):
    df = logs(300)
    if edit is not None:
        df = edit(df)
    with pytest.raises(vc.VeracityError, match=match):
        vc.monitor(make("duckdb", df, tmp_path), score="p", label="y", **kwargs)


def test_pending_labels_are_not_checked(tmp_path):
    # a label that is not final may be anything (here 7): it is counted as pending only
    df = logs(500)
    df["y"] = np.where(df["final"], df["y"], 7)
    got = vc.monitor(make("duckdb", df, tmp_path), score="p", label="y", periods="ts", freq="M", mature="final")
    assert sum(r.pending for r in got.rows) == int((~df["final"]).sum())


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "parquet", "dask"])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_epoch_seconds_read_alike_on_every_backend(backend, kind, tmp_path):
    """Times given as epoch seconds (whole or fractional, to the microsecond) land in the same periods
    and mature alike in memory and where the data lives: fractional times a few microseconds either
    side of midnight, of a month's end and of the cutoff included."""
    df = logs(1500, seed=14)
    seconds = df["ts"].to_numpy().astype("datetime64[s]").astype(np.int64)
    if kind == "float":
        edge = np.datetime64("2026-02-01T00:00:00", "s").astype(np.int64)   # a month's end, and the cutoff below
        nudge = np.array([-2.5e-6, -1e-6, 0.0, 1e-6, 2.5e-6, 0.4])
        seconds = seconds + np.random.default_rng(3).random(len(df))
        seconds[: 2 * nudge.size] = np.r_[edge + nudge, edge - 86_400 * 20 + nudge]
    df["ts"] = seconds
    as_of, horizon = "2026-03-02T00:00:00", "29d"  # cutoff 2026-02-01T00:00:00
    got = vc.monitor(make(backend, df, tmp_path), score="p", label="y", periods="ts", freq="D", mature="final",
                     as_of=as_of, horizon=horizon, min_count=5)
    times = pd.to_datetime(np.round(seconds * 1e6).astype(np.int64), unit="us").to_numpy()  # the documented reading
    final = df["final"].to_numpy() & (times <= np.datetime64("2026-02-01T00:00:00"))  # to the microsecond
    kept = times <= np.datetime64("2026-03-02T00:00:00")  # those after as_of are left out (round 34)
    want = vc.monitor(df["p"].to_numpy()[kept], df["y"].to_numpy()[kept], times[kept], freq="D",
                      mature=final[kept], min_count=5)
    same_monitor(got, want)
    assert sum(r.pending for r in got.rows) == int((~final & kept).sum())
    assert got.after_as_of == int((~kept).sum()) > 0


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb"])
@pytest.mark.parametrize("times, what", [(1.7e12, r"max \|value\| 1\.7e\+12"), (np.inf, "1 not finite")])
def test_times_that_are_not_epoch_seconds_are_refused_alike(backend, times, what, tmp_path):
    # milliseconds read as seconds would be months in the year 55,000 on a lazy frame: refused, as in memory
    df = logs(300)
    df["ts"] = np.where(np.arange(len(df)) == 7, times, 1.7e9)
    for kw in ({}, {"as_of": "2026-03-01", "horizon": "3d"}):
        with pytest.raises(vc.VeracityError, match=rf"^column 'ts' \(periods\) holds numbers that are not epoch "
                                                  rf"seconds \({what}\); numbers are read as seconds"):
            vc.monitor(make(backend, df, tmp_path), score="p", label="y", periods="ts", freq="M", **kw)


@pytest.mark.parametrize("backend", ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "dask"])
def test_zone_aware_times_mature_by_their_instant(backend):
    """Times in Europe/Paris with as_of/horizon: the periods and the pending rows are those of the
    same instants in UTC (polars' lazy frame once failed to compare a Paris column with the cutoff)."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    df = logs(900, seed=15).drop(columns="ts")
    df["ts"] = pd.Timestamp("2026-01-31T23:30:00", tz="Europe/Paris") + pd.to_timedelta(np.arange(len(df)) * 7200,
                                                                                           unit="s")
    frame = {"pandas": lambda: df, "polars": lambda: pl.from_pandas(df), "polars-lazy": lambda: pl.from_pandas(df).lazy(),
             "pyarrow": lambda: pa.Table.from_pandas(df), "duckdb": lambda: duckdb.from_df(df),
             "dask": lambda: __import__("dask.dataframe").dataframe.from_pandas(df, npartitions=3)}[backend]()
    got = vc.monitor(frame, score="p", label="y", periods="ts", freq="D", as_of="2026-02-20T00:00:00+01:00",
                     horizon="2d", min_count=5)
    utc = df["ts"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
    final = utc <= np.datetime64("2026-02-17T23:00:00")
    kept = utc <= np.datetime64("2026-02-19T23:00:00")  # those after as_of are left out (round 34)
    want = vc.monitor(df["p"].to_numpy()[kept], df["y"].to_numpy()[kept], utc[kept], freq="D",
                      mature=final[kept], min_count=5)
    same_monitor(got, want)
    assert sum(r.pending for r in got.rows) == int((~final & kept).sum()) > 0
