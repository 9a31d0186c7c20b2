"""Round 12 hardening of monitoring and segments: every route reads the same rows the same way.

Oracles are hand-computed numbers (pending counts of a handful of times around a cutoff) and the
audit (``vc.audit``), which the monitoring and segment code does not call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


# ---------------------------------------------------------------- 1. label maturity to the microsecond
EDGE = np.datetime64("2026-01-01T00:00:00", "us") + np.array([-1, 0, 1, 500_000, 999_999, 1_000_000],
                                                              "timedelta64[us]")
# as_of − horizon = 2026-01-01T00:00:00 exactly: final iff time <= the cutoff, to the microsecond
FINAL = [True, True, False, False, False, False]


def test_label_maturity_counts_to_the_microsecond_on_the_arrays():
    assert vc.label_maturity(EDGE, "2026-01-02T00:00:00", "1d").tolist() == FINAL
    # as_of with a fraction of a second moves the cutoff by that fraction (0.7 s: up to 0.5 s is final)
    assert vc.label_maturity(EDGE, "2026-01-02T00:00:00.7", "1d").tolist() == [True, True, True, True, False,
                                                                                False]


def test_a_horizon_with_a_fraction_of_a_second_is_not_rounded():
    # 2.5 s: final while time <= as_of - 2.5 s (once rounded to 2 s: the time 3 s before as_of counted final)
    t = np.datetime64("2026-01-01T00:00:00", "s") + np.arange(4).astype("timedelta64[s]")
    assert vc.label_maturity(t, "2026-01-01T00:00:05", "2.5s").tolist() == [True, True, True, False]
    assert vc.label_maturity(t.astype(np.int64), "2026-01-01T00:00:05", "2.5s").tolist() == [True, True, True, False]
    import duckdb

    for times in (t, t.astype(np.int64), t.astype(np.int64) + 0.0):  # datetimes, whole and float epoch seconds
        df = pd.DataFrame({"p": [0.2, 0.4, 0.6, 0.8], "y": [0, 1, 0, 1], "t": times})
        got = vc.monitor(duckdb.from_df(df), score="p", label="y", periods="t", freq="D",
                         as_of="2026-01-01T00:00:05", horizon="2.5s", min_count=1)
        assert [(r.n, r.pending) for r in got.rows] == [(3.0, 1)]


@pytest.mark.parametrize("backend", ["pandas", "duckdb", "polars-lazy"])
def test_frames_and_the_store_count_the_same_labels_final(backend, tmp_path):
    import duckdb
    import polars as pl

    n = EDGE.size
    df = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "ts": EDGE, "p": np.linspace(0.2, 0.7, n),
                       "y": [0, 1, 0, 1, 1, 0], "observed": EDGE})
    frame = {"pandas": lambda: df, "duckdb": lambda: duckdb.from_df(df),
             "polars-lazy": lambda: pl.from_pandas(df).lazy()}[backend]()
    got = vc.monitor(frame, score="p", label="y", periods="ts", freq="M", as_of="2026-01-02T00:00:00",
                     horizon="1d", min_count=1)
    pending = {r.period: r.pending for r in got.rows}
    assert pending == {"2025-12": 0, "2026-01": 4}  # 2 final (both in December: -1 µs; 0 is 2026-01), by hand
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(df, id="id", time="ts", score="p")
    store.outcomes(df, id="id", label="y", time="observed")
    status = store.status(freq="D", as_of="2026-01-02T00:00:00", horizon="1d", min_count=1)
    assert {r.period: (r.labelled, r.pending) for r in status.rows} == {"2025-12-31": (1, 0), "2026-01-01": (1, 4)}


# ---------------------------------------------------------------- 2. booleans read as the audit reads them
@pytest.mark.parametrize("score, weight", [("p", None), ("p", "w"), ("hard", None)])
def test_true_false_columns_of_a_users_duckdb_relation_over_csv(score, weight, tmp_path):
    """DuckDB 2.0 pushes CAST(c AS DOUBLE) into a CSV scan and fails on the text 'False': a label,
    weight or hard 0/1 score column of True/False on the user's own relation is read as 1/0 by
    vc.monitor and vc.segments, as by vc.audit (once a raw ConversionException)."""
    import duckdb

    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({"p": rng.uniform(0.01, 0.99, n), "hard": rng.random(n) < 0.5, "w": rng.random(n) < 0.8,
                       "ts": (np.datetime64("2026-01-01") + rng.integers(0, 25, n).astype("timedelta64[D]"))
                       .astype("datetime64[s]"), "seg": rng.choice(["a", "b"], n)})
    df["y"] = rng.random(n) < df["p"]
    f = tmp_path / "b.csv"
    df.to_csv(f, index=False)
    p = df[score].to_numpy(dtype=float)
    y = df["y"].to_numpy(dtype=int)
    w = None if weight is None else df[weight].to_numpy(dtype=float)
    got = vc.monitor(duckdb.connect().read_csv(str(f)), score=score, label="y", periods="ts", freq="M",
                     sample_weight=weight, min_count=1)
    assert [r.period for r in got.rows] == ["2026-01"]
    want = vc.audit(p, y, sample_weight=w)
    assert got.rows[0].ece == pytest.approx(want.ece, abs=1e-12)
    assert got.rows[0].n == pytest.approx(n if w is None else w.sum())
    seg = vc.segments(duckdb.connect().read_csv(str(f)), score=score, label="y", features=["seg"], min_count=1,
                      sample_weight=weight)
    for r in seg.rows:
        rows = (df["seg"] == r.segment.split("=")[1]).to_numpy() & (True if w is None else w > 0)
        gap = np.average(y[rows] - p[rows], weights=None if w is None else w[rows])  # rate − conf, by definition
        assert r.gap == pytest.approx(gap, abs=1e-12), r.segment


# ---------------------------------------------------------------- 3. time levels named as the audit names them
@pytest.mark.parametrize("kind, names", [
    ("paris", ["2025-12-31 23:00:00+00:00", "2026-01-01 23:00:00+00:00"]),  # the UTC instants (key_name)
    ("utc", ["2026-01-01 00:00:00+00:00", "2026-01-02 00:00:00+00:00"]),
    ("ns", ["2026-01-01 00:00:00", "2026-01-01 00:00:00.000000001"]),
])
@pytest.mark.parametrize("route", ["frame", "series", "array"])
def test_time_levels_print_as_the_audit_names_its_slices(kind, names, route):
    """A time feature's levels read as vc.audit(..., by=) prints the same keys (written by hand):
    a zoned time as its UTC instant with +00:00 (once the UTC time without an offset, then the
    zone's own offset), nine decimals below a microsecond (once numpy's
    '2026-01-01T00:00:00.000000001')."""
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"p": rng.uniform(0.05, 0.95, n)})
    df["y"] = (rng.random(n) < df["p"]).astype(int)
    first = rng.random(n) < 0.5
    if kind == "ns":
        df["t"] = pd.Timestamp("2026-01-01") + pd.to_timedelta(np.where(first, 0, 1), unit="ns")
    else:
        zone = "Europe/Paris" if kind == "paris" else "UTC"
        df["t"] = pd.Timestamp("2026-01-01", tz=zone) + pd.to_timedelta(np.where(first, 0, 1), unit="D")
    if route == "frame":
        got = vc.segments(df, score="p", label="y", features=["t"], min_count=1)
    else:
        feature = df["t"] if route == "series" else df["t"].to_numpy()
        got = vc.segments(df["p"].to_numpy(), df["y"].to_numpy(), features={"t": feature}, min_count=1)
    want = {f"t={names[0]}": int(first.sum()), f"t={names[1]}": int((~first).sum())}
    assert {r.segment: r.n for r in got.rows} == want
    audit = str(vc.audit(df, score="p", label="y", by="t"))
    assert all(name in audit for name in names)
