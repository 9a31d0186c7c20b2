"""Round 15: a segment level is named as vc.audit(..., by=) names the slice of the same value, on
every input type (core/_keys.key_name: a zoned time as its UTC instant with +00:00, -0.0 as 0.0,
bytes as Python's literal b'..'); and a monitoring store written under the old names (a zoned time
in its column's zone, bytes as their UTF-8 text) takes the same batch again as a no-op."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

N = 400


def _data(seed: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, N)
    y = (rng.random(N) < p).astype(int)
    return p, y, rng.random(N) < 0.4


def _routes(frame: pd.DataFrame) -> dict[str, object]:
    import duckdb
    import polars as pl
    import pyarrow as pa

    return {"pandas": frame, "polars": pl.from_pandas(frame), "lazy": pl.from_pandas(frame).lazy(),
            "arrow": pa.Table.from_pandas(frame),
            "duckdb": duckdb.connect().from_arrow(pa.Table.from_pandas(frame))}


def _segments(*data: object, **kw: object) -> dict[str, float]:
    got = vc.segments(*data, min_count=1, **kw)
    return {r.segment: r.n for r in got.rows if r.segment != "(all)"}


@pytest.mark.parametrize("zone", ["Europe/Paris", "Asia/Tokyo", "America/New_York"])
def test_a_zoned_time_level_is_its_utc_instant_on_every_route(zone):
    # was: the column's zone (10:00+01:00) on frames, arrays and lazy polars, UTC on DuckDB
    p, y, first = _data()
    start = pd.Timestamp("2026-01-01 10:00", tz=zone)
    t = pd.Series(start + pd.to_timedelta(np.where(first, 0, 183), unit="D"))  # winter and summer time
    frame = pd.DataFrame({"p": p, "y": y, "t": t})
    # written independently of veracity: pandas' own UTC conversion of each instant
    instants = sorted(set(t))
    want = {f"t={ts.tz_convert('UTC')}": int((t == ts).sum()) for ts in instants}
    assert all(name.endswith("+00:00") for name in want)
    audit = list(vc.audit(frame, score="p", label="y", by="t").to_dict()["groups"])
    assert [f"t={g}" for g in audit] == sorted(want)  # the audit names the same slices
    for route, data in _routes(frame).items():
        assert _segments(data, score="p", label="y", features=["t"]) == want, route
    for route, column in {"series": t, "objects": t.to_numpy()}.items():
        assert _segments(p, y, features={"t": column}) == want, route


def test_a_zoned_level_keeps_its_nanoseconds_in_utc():
    p, y, first = _data(6)
    start = pd.Timestamp("2026-01-01 10:00", tz="Asia/Tokyo")
    t = pd.Series(start + pd.to_timedelta(np.where(first, 0, 1), unit="ns"))
    want = {"t=2026-01-01 01:00:00+00:00": int(first.sum()),
            "t=2026-01-01 01:00:00.000000001+00:00": int((~first).sum())}
    frame = pd.DataFrame({"p": p, "y": y, "t": t})
    assert _segments(frame, score="p", label="y", features=["t"]) == want
    assert _segments(p, y, features={"t": t}) == want
    audit = vc.audit(frame, score="p", label="y", by="t").to_dict()["groups"]
    assert [f"t={g}" for g in audit] == sorted(want)


def test_bytes_levels_are_named_as_python_literals_on_every_route():
    # was: UnicodeDecodeError on every in-memory route for bytes that are no ASCII
    p, y, first = _data(7)
    values = np.where(first, 0, 1)
    b = pd.Series(np.array([b"\xff\x00", b"ab"], dtype=object)[values], dtype=object)
    frame = pd.DataFrame({"p": p, "y": y, "b": b})
    want = {f"b={key!r}": int((values == i).sum()) for i, key in enumerate([b"\xff\x00", b"ab"])}
    assert set(want) == {"b=b'\\xff\\x00'", "b=b'ab'"}
    audit = list(vc.audit(frame, score="p", label="y", by="b").to_dict()["groups"])
    assert sorted(f"b={g}" for g in audit) == sorted(want)
    for route, data in _routes(frame).items():
        assert _segments(data, score="p", label="y", features=["b"]) == want, route
    for route, column in {"series": b, "objects": b.to_numpy()}.items():
        assert _segments(p, y, features={"b": column}) == want, route


def test_bytes_and_the_text_they_spell_are_two_levels():
    p, y, first = _data(8)
    b = np.array(["ab", b"ab"], dtype=object)[np.where(first, 0, 1)]
    assert _segments(p, y, features={"b": b}) == {"b=ab": int(first.sum()), "b=b'ab'": int((~first).sum())}


def test_minus_zero_among_text_is_the_level_zero():
    # was: two levels '-0.0' and '0.0' for one key (the audit's one slice '0.0')
    p, y, _ = _data(9)
    keys = np.array(["a", -0.0, 0.0, None], dtype=object)[np.arange(N) % 4]
    frame = pd.DataFrame({"p": p, "y": y, "k": pd.Series(keys, dtype=object)})
    got = _segments(p, y, features={"k": keys})
    assert got == {"k=a": N // 4, "k=0.0": N // 2, "k=missing": N // 4}
    assert "0.0" in vc.audit(frame, score="p", label="y", by="k").to_dict()["groups"]
    assert _segments(frame, score="p", label="y", features=["k"]) == got


def test_a_zoned_time_among_text_and_numbers_is_its_own_level():
    # was: its rows matched no level (its name in the column's zone, its key the UTC time): a crash in
    # np.bincount on code -1
    p, y, _ = _data(10)
    paris = pd.Timestamp("2026-01-01 10:00", tz="Europe/Paris")
    keys = np.array(["a", paris, 3], dtype=object)[np.arange(N) % 3]
    got = _segments(p, y, features={"k": keys})
    n = [int((np.arange(N) % 3 == i).sum()) for i in range(3)]
    want = {"k=a": n[0], f"k={paris.tz_convert('UTC')}": n[1], "k=3": n[2]}
    assert got == want
    assert sorted(f"k={g}" for g in vc.audit(p, y, by=keys).to_dict()["groups"]) == sorted(want)


# ------------------------------------------------------- the store: names written by an older veracity
def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    zoned = pd.DatetimeIndex([pd.Timestamp("2026-01-01 10:00", tz="Europe/Paris"),
                              pd.Timestamp("2026-07-01 10:00:00.000000001", tz="Europe/Paris")])
    return pd.DataFrame({
        "id": np.arange(n).astype(str),
        "ts": pd.Timestamp("2026-03-02") + pd.to_timedelta(rng.integers(0, 3 * 86400, n), unit="s"),
        "score": rng.uniform(0.05, 0.95, n), "z": pd.Series(zoned[np.arange(n) % 2]),
        "b": np.array([b"ab", "\u00e9".encode(), b"x y"], dtype=object)[np.arange(n) % 3]})


def _old_store(path, frame: pd.DataFrame) -> vc.MonitorStore:
    """A store as veracity a8e6b98 wrote it (checked against that version): a zoned time named
    str() of the value in its column's zone, bytes by their UTF-8 text."""
    import duckdb

    store = vc.MonitorStore(path)
    store.log(frame, id="id", time="ts", score="score", by=["z", "b"])
    old = pd.DataFrame({"id": frame["id"], "z": frame["z"].map(str),
                        "b": frame["b"].map(lambda v: v.decode())})
    assert old["z"].str.endswith(("+01:00", "+02:00")).all()
    with duckdb.connect(str(path)) as con:
        con.register("old", old)
        con.execute("UPDATE predictions p SET s_z = o.z, s_b = o.b FROM old o WHERE p.id = o.id")
    return store


def _stored(path) -> list[tuple[str, str]]:
    import duckdb

    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT DISTINCT s_z, s_b FROM predictions ORDER BY ALL").fetchall()


def test_re_sending_a_batch_to_a_store_of_the_old_names_is_a_no_op(tmp_path):
    # was: '60 rows conflict with stored predictions (... slice 'z' 2026-01-01 10:00:00+01:00 stored vs
    # 2026-01-01 09:00:00+00:00 sent, slice 'b' ab stored vs b'ab' sent)'
    frame = _frame()
    path = tmp_path / "m.duckdb"
    store = _old_store(path, frame)
    before = _stored(path)
    got = store.log(frame, id="id", time="ts", score="score", by=["z", "b"])
    assert (got.inserted, got.duplicates, got.replaced) == (0, len(frame), 0)
    assert _stored(path) == before  # the rows keep their names


@pytest.mark.parametrize("change", ["bytes", "instant", "offset_only"])
def test_a_different_slice_value_is_still_a_conflict_with_an_old_name(tmp_path, change):
    frame = _frame()
    store = _old_store(tmp_path / "m.duckdb", frame)
    sent = frame.copy()
    if change == "bytes":
        sent.loc[0, "b"] = b"ab "  # not the UTF-8 of the stored 'ab'
    elif change == "instant":
        sent.loc[0, "z"] = sent.loc[0, "z"] + pd.Timedelta("1ns")
    else:  # the stored wall time read as UTC: another instant
        sent["z"] = pd.Series(pd.DatetimeIndex(sent["z"]).tz_localize(None).tz_localize("UTC"))
    with pytest.raises(VeracityError, match="conflict with stored predictions"):
        store.log(sent, id="id", time="ts", score="score", by=["z", "b"])


def test_replace_rewrites_the_old_names_with_the_new(tmp_path):
    frame = _frame()
    path = tmp_path / "m.duckdb"
    store = _old_store(path, frame)
    got = store.log(frame, id="id", time="ts", score="score", by=["z", "b"], replace=True)
    assert got.replaced == len(frame)
    want = sorted({(str(z.tz_convert("UTC")), repr(b)) for z, b in zip(frame["z"], frame["b"])})
    assert _stored(path) == want
    again = store.log(frame, id="id", time="ts", score="score", by=["z", "b"])
    assert (again.inserted, again.duplicates, again.replaced) == (0, len(frame), 0)
