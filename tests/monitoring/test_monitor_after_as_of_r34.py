"""``vc.monitor(..., as_of=, horizon=)`` leaves out the rows dated after ``as_of``, as the store does.

A prediction made after the as-of time did not exist then. ``MonitorStore.status(as_of=)`` leaves such
predictions out (``ts <= as_of``), but ``vc.monitor`` counted them as pending (their label "not final
yet") and listed their periods: 400 predictions every 6 hours from 1 January, as of 1 February with a
7-day horizon, printed eleven extra weeks (2026-W05 .. 2026-W15) of 28 "pending" rows and 275 pending
rows in all where the store's status lists 2026-W01 .. W05 with 28 pending. Now both count the same
rows, on every route, and a note counts those left out.
"""

import numpy as np
import pytest

import veracity as vc

N = 400


def _rows():
    rng = np.random.default_rng(0)
    t = np.datetime64("2026-01-01T00:00", "us") + np.arange(N) * np.timedelta64(6, "h")
    p = rng.uniform(0.1, 0.9, N)
    y = (rng.uniform(size=N) < p).astype(int)
    return t, p, y


def _expected(t):
    """Per ISO week, (labelled, pending) of the rows dated at or before as_of, by hand."""
    as_of, cutoff = np.datetime64("2026-02-01T00:00", "us"), np.datetime64("2026-01-25T00:00", "us")
    keys = vc.period_keys(t, freq="W")
    out = {}
    for k in np.unique(keys[t <= as_of]):
        here = (keys == k) & (t <= as_of)
        out[str(k)] = (int((here & (t <= cutoff)).sum()), int((here & (t > cutoff)).sum()))
    return out


def _counts(result):
    return {r.period: (int(r.n), r.pending) for r in result.rows}


def test_arrays_leave_out_rows_after_as_of():
    t, p, y = _rows()
    r = vc.monitor(p, y, t, freq="W", as_of="2026-02-01", horizon="7d", min_count=10)
    expected = _expected(t)
    assert list(expected) == ["2026-W01", "2026-W02", "2026-W03", "2026-W04", "2026-W05"]
    assert _counts(r) == expected
    assert sum(pend for _, pend in expected.values()) == 28
    assert r.after_as_of == int((t > np.datetime64("2026-02-01")).sum()) == 275
    assert r.rows_read == N and r.to_dict()["after_as_of"] == 275
    assert "(275 rows dated after as_of left out" in str(r)


def test_their_scores_leave_the_psi():
    # the PSI of a period holding as_of reads its rows up to as_of only: the same as a monitor of those rows
    t, p, y = _rows()
    keep = t <= np.datetime64("2026-02-01")
    r = vc.monitor(p, y, t, freq="W", as_of="2026-02-01", horizon="7d", min_count=10)
    alone = vc.monitor(p[keep], y[keep], t[keep], freq="W", as_of="2026-02-01", horizon="7d", min_count=10)
    seen = lambda res: [(x.period, x.psi, x.pending) for x in res.rows]  # noqa: E731
    assert seen(r) == seen(alone)
    assert alone.after_as_of == 0 and "after as_of" not in str(alone) and "after_as_of" not in alone.to_dict()


@pytest.mark.parametrize("form", ["pandas", "polars-lazy", "parquet", "duckdb"])
def test_frames_agree(form, tmp_path):
    pd = pytest.importorskip("pandas")
    t, p, y = _rows()
    w = np.random.default_rng(1).uniform(0.5, 2.0, N)
    df = pd.DataFrame({"p": p, "y": y, "ts": pd.to_datetime(t), "w": w})
    if form == "polars-lazy":
        data = pytest.importorskip("polars").from_pandas(df).lazy()
    elif form in ("parquet", "duckdb"):
        pytest.importorskip("pyarrow")
        path = str(tmp_path / "d.parquet")
        df.to_parquet(path)
        data = path if form == "parquet" else pytest.importorskip("duckdb").sql(f"SELECT * FROM '{path}'")
    else:
        data = df
    for weight in (None, "w"):
        r = vc.monitor(data, score="p", label="y", periods="ts", freq="W", as_of="2026-02-01", horizon="7d",
                       min_count=10, sample_weight=weight)
        arrays = vc.monitor(p, y, t, freq="W", as_of="2026-02-01", horizon="7d", min_count=10,
                            sample_weight=None if weight is None else w)
        assert [(x.period, x.pending) for x in r.rows] == [(x.period, x.pending) for x in arrays.rows]
        assert [x.n for x in r.rows] == pytest.approx([x.n for x in arrays.rows], rel=1e-12)
        assert [x.psi for x in r.rows] == pytest.approx([x.psi for x in arrays.rows], rel=1e-9, abs=1e-12)
        assert r.after_as_of == 275 and r.rows_read == N


def test_the_store_counts_the_same(tmp_path):
    pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    t, p, y = _rows()
    df = pd.DataFrame({"id": [f"r{i}" for i in range(N)], "p": p, "y": y, "ts": pd.to_datetime(t)})
    store = vc.MonitorStore(str(tmp_path / "m.duckdb"))
    store.log(df, id="id", time="ts", score="p")
    store.outcomes(df, id="id", label="y", time="ts")
    status = store.status(freq="W", as_of="2026-02-01", horizon="7d", min_count=10)
    r = vc.monitor(p, y, t, freq="W", as_of="2026-02-01", horizon="7d", min_count=10)
    assert {s.period: (s.labelled, s.pending) for s in status.rows} == _counts(r)


def test_every_row_after_as_of():
    t, p, y = _rows()
    r = vc.monitor(p, y, t, freq="W", as_of="2025-12-01", horizon="7d", min_count=10)
    assert r.rows == () and r.after_as_of == N
    assert "(400 rows dated after as_of left out" in str(r)
