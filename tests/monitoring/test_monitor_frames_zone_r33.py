"""vc.monitor on a pandas frame whose time column is in a zone named with '_' (America/New_York).

narwhals reads such a column's dtype as Unknown (its pattern for ``datetime64[ns, zone]`` takes no '_'),
so ``as_of=``/``horizon=`` refused a valid column ("column 'ts' (periods) is Unknown; as_of/horizon need
prediction times"), and any other error of the call (a reference not found, a bad level) was reported
as "is Unknown; with freq= it must hold dates". The column is now read as its UTC instants."""

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")


def _frame(zone):
    rng = np.random.default_rng(33)
    n = 400
    local = pd.Timestamp("2026-03-01", tz=zone) + pd.to_timedelta(rng.uniform(0, 60 * 86400, n), unit="s")
    p = rng.uniform(0.05, 0.6, n)
    return pd.DataFrame({"ts": local, "p": p, "y": (rng.random(n) < p).astype(int)})


@pytest.mark.parametrize("zone", ["America/New_York", "America/Los_Angeles"])
def test_as_of_on_a_zone_with_underscore_equals_the_array_form(zone):
    df = _frame(zone)
    got = vc.monitor(df, score="p", label="y", periods="ts", freq="W", as_of="2026-04-10T12:00-04:00",
                     horizon="7d", min_count=10)
    # the same instants, by hand: final where ts + 7 days <= as_of (16:00 UTC), periods in UTC
    utc = df["ts"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
    final = utc + np.timedelta64(7, "D") <= np.datetime64("2026-04-10T16:00")
    keys = vc.period_keys(utc, freq="W")
    existed = utc <= np.datetime64("2026-04-10T16:00")  # those dated after as_of are left out (round 34)
    assert [r.period for r in got.rows] == sorted(set(keys[existed].tolist()))
    assert got.after_as_of == (~existed).sum() > 0
    for r in got.rows:
        here = (keys == r.period) & existed
        assert r.n == (here & final).sum() and r.pending == (here & ~final).sum()
        if (here & final).any():
            m = here & final
            assert r.ece == pytest.approx(vc.ece(df["p"].to_numpy()[m], df["y"].to_numpy()[m]), rel=1e-12)
    assert sum(r.pending for r in got.rows) > 0 and sum(r.n for r in got.rows) > 0


@pytest.mark.parametrize(("kw", "words"), [({"reference": "2020-01"}, "reference period '2020-01' not found"),
                                           ({"level": 2}, "level must be in (0, 1)")])
def test_other_errors_are_not_reported_as_the_time_column(kw, words):
    with pytest.raises(vc.VeracityError) as info:
        vc.monitor(_frame("America/New_York"), score="p", label="y", periods="ts", freq="M", **kw)
    assert words in str(info.value) and "Unknown" not in str(info.value)


def test_dask_frame_in_such_a_zone_gives_the_pandas_numbers():
    dd = pytest.importorskip("dask.dataframe")
    df = _frame("America/New_York")
    kw = dict(score="p", label="y", periods="ts", freq="W", as_of="2026-04-10", horizon=7, min_count=10)
    a, b = vc.monitor(df, **kw), vc.monitor(dd.from_pandas(df, npartitions=3), **kw)
    assert [(r.period, r.n, r.pending) for r in a.rows] == [(r.period, r.n, r.pending) for r in b.rows]
    assert np.allclose([r.brier for r in a.rows], [r.brier for r in b.rows], rtol=1e-12, equal_nan=True)
