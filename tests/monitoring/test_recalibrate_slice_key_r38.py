"""``recalibrate(by=, slice=KEY)`` with a key that is no string (session 38): the store names a slice key
as the audit does (a whole-number float as the integer, a zoned time as its UTC instant), but
``recalibrate`` named the key ``str(key)``: ``slice=9.0`` was refused as "slice '9.0' of 'g' has no
predictions (its values: '2.5', '9')", and a zoned time in its own zone likewise."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    pd = pytest.importorskip("pandas")
    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 800
    odd = np.arange(n) % 2 == 1
    paris = [pd.Timestamp(f"2026-01-0{d} 10:00", tz="Europe/Paris") for d in (1, 2)]
    ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(np.arange(n) * 25, "min")  # two weeks
    df = pd.DataFrame({"id": np.arange(n), "ts": ts, "p": rng.random(n), "g": np.where(odd, 9.0, 2.5),
                       "day": pd.Series([paris[int(o)] for o in odd])})
    df["y"] = (rng.random(n) < df["p"]).astype(int)
    s = MonitorStore(tmp_path_factory.mktemp("r") / "m.duckdb")
    s.log(df, id="id", time="ts", score="p", by=["g", "day"])
    s.outcomes(df, id="id", label="y", time="ts")
    return s, pd


@pytest.mark.parametrize("by, key, name", [
    ("g", 9.0, "9"), ("g", np.float64(9.0), "9"),
    ("day", "tz", "2026-01-02 09:00:00+00:00")])
def test_a_slice_key_is_read_as_the_store_names_it(store, by, key, name):
    s, pd = store
    if key == "tz":
        key = pd.Timestamp("2026-01-02 10:00", tz="Europe/Paris")
    got = s.recalibrate(as_of="2026-03-16", by=by, slice=key, fit="2026-W10", min_count=10)
    named = s.recalibrate(as_of="2026-03-16", by=by, slice=name, fit="2026-W10", min_count=10)
    assert (got.n_fit, got.n_eval) == (named.n_fit, named.n_eval) and got.n_fit > 100
