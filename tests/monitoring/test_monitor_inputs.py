"""vc.monitor's reading of its inputs: score shapes, label maturity, period edges."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


def _rows(n=3_000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return p, y, np.repeat(["2026-01", "2026-02", "2026-03"], n // 3)


def test_two_column_scores_are_refused_saying_what_to_pass():
    """predict_proba's (N, 2): vc.audit reads it top-label, vc.segments refuses it; vc.monitor said only
    "scores must be 1-D for score histograms". One line naming the column to pass."""
    p, y, per = _rows()
    with pytest.raises(VeracityError, match=r"P\[:, 1\]") as err:
        vc.monitor(np.c_[1 - p, p], y, per)
    assert "\n" not in str(err.value) and "(3000, 2)" in str(err.value)
    with pytest.raises(VeracityError, match=r"P\[:, 1\]"):
        vc.monitor(np.c_[p, 1 - p, np.zeros_like(p)], y, per)


def test_one_column_scores_read_as_the_column():
    p, y, per = _rows()
    assert str(vc.monitor(p[:, None], y, per)) == str(vc.monitor(p, y, per))


def test_store_refusals_print_plain_numbers(tmp_path):
    """The first bad score / label is shown as the number it is, not numpy's repr (np.float64(-2.9))."""
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    ts = np.array(["2026-03-02T00:00:00"] * 3, dtype="datetime64[s]")
    with pytest.raises(VeracityError, match=r"first at row 1: -2\.5\)") as err:
        store.log(pa.table({"id": [1, 2, 3], "ts": ts, "p": [0.2, -2.5, 0.4]}), id="id", time="ts", score="p")
    assert "np." not in str(err.value)
    store.log(pa.table({"id": [1, 2, 3], "ts": ts, "p": [0.2, 0.5, 0.4]}), id="id", time="ts", score="p")
    with pytest.raises(VeracityError, match=r"first at row 2: 2\.0\)") as err:
        store.outcomes(pa.table({"id": [1, 2, 3], "y": [0, 1, 2]}), id="id", label="y")
    assert "np." not in str(err.value)


def test_weeks_are_iso_weeks_as_in_the_store(tmp_path):
    """freq="W" grouped by numpy's weeks, which start on Thursday (1970-01-01), named by that Thursday;
    the store's weeks (and its docs) are ISO weeks, Monday to Sunday, named 2026-W01."""
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(7)
    n = 3_000
    t = np.datetime64("2025-12-20T00:00:00", "s") + rng.integers(0, 35 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(np.int64)
    iso = pd.to_datetime(t).isocalendar()
    names = [f"{a}-W{b:02d}" for a, b in zip(iso.year, iso.week)]
    want = pd.Series(names).value_counts().sort_index()
    got = vc.monitor(p, y, t, freq="W", min_count=1)
    assert [r.period for r in got.rows] == list(want.index)
    assert [int(r.n) for r in got.rows] == want.tolist()
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    status = store.status(freq="W", as_of="2026-03-01", min_count=1)
    assert [(r.period, r.rows) for r in status.rows] == [(r.period, int(r.n)) for r in got.rows]


def test_cli_scan_with_two_score_columns_says_so_in_one_line(tmp_path, capsys):
    """`veracity monitor scan --score q,p` spoke Python ("pass score= naming ..."); one line, exit 2."""
    from veracity.cli import main

    p, y, per = _rows()
    path = tmp_path / "s.csv"
    path.write_text("q,p,y,per\n" + "".join(f"{1 - a},{a},{b},{c}\n" for a, b, c in zip(p, y, per)))
    assert main(["monitor", "scan", str(path), "--score", "q,p", "--label", "y", "--period", "per"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "2 score columns" in err and "score=" not in err, err


def test_times_without_freq_are_refused_on_every_route():
    """Datetimes as period keys without freq= made one period per distinct instant on arrays and in-memory
    frames (500 rows at 500 times: 500 periods of one row); lazy frames refused. One line everywhere."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    n = 500
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    t = np.datetime64("2026-01-01T00:00", "s") + rng.integers(0, 86400 * 60, n).astype("timedelta64[s]")
    for times in (t, t.astype("datetime64[D]"), pd.Series(t).dt.tz_localize("UTC")):
        with pytest.raises(VeracityError, match="dates/times; pass freq="):
            vc.monitor(p, y, times)
    df = pd.DataFrame({"p": p, "y": y, "t": t})
    for frame in (df, pl.from_pandas(df), pl.from_pandas(df).lazy()):
        with pytest.raises(VeracityError, match=r"column 't' \(periods\) holds dates/times"):
            vc.monitor(frame, score="p", label="y", periods="t")
    assert [r.period for r in vc.monitor(p, y, t, freq="M").rows] == ["2026-01", "2026-02", "2026-03"]
