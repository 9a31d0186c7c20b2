"""A float32 (or float16) slice column in the store (session 38): named as the float it is, as vc.audit(by=)
names it. The store named 0.1f by its double, ``0.10000000149011612`` (``1.0000000200408773e+20`` for 1e20f),
so ``status(by=)`` listed slices that ``vc.audit(by=)`` and ``recalibrate(slice='0.1')`` call otherwise. A
store written before keeps those names, and re-sending its rows stays a no-op (the old name of the same key
agrees, as for zoned times and bytes)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")


def _frame(dtype):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    n = 400
    keys = np.array([0.1, 0.7, 1e20 if dtype == np.float32 else 2.5, 3.0], dtype=dtype)
    ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(np.arange(n) * 50, "min")  # two weeks
    return pd.DataFrame({"id": np.arange(n), "ts": ts,
                         "p": rng.random(n), "s": keys[np.arange(n) % 4],
                         "y": rng.integers(0, 2, n)})


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_narrow_float_slices_are_named_as_the_audit_names_them(tmp_path, dtype):
    from veracity.monitoring import MonitorStore

    df = _frame(dtype)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(df, id="id", time="ts", score="p", by="s")
    store.outcomes(df, id="id", label="y", time="ts")
    status = store.status(freq="W", as_of="2026-03-16", by="s", min_count=10)
    named = sorted({r.slice for r in status.rows} - {"(all)"})
    audit = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), by=df["s"].to_numpy())
    # the store keeps its one documented exception: a whole number is named as the integer (3, not 3.0)
    expected = sorted(g if g != "3.0" else "3" for g in audit.to_dict()["groups"])
    # was ['0.10000000149011612', '0.699999988079071', '1.0000000200408773e+20', '3']
    assert named == expected
    fitted = store.recalibrate(freq="W", as_of="2026-03-16", by="s", slice="0.1", fit="2026-W10",
                               min_count=10)
    fit_row = next(r for r in status.rows if (r.period, r.slice) == ("2026-W10", "0.1"))
    assert fitted.n_fit == fit_row.labelled > 40


def test_a_store_holding_the_doubles_names_takes_the_same_rows_again_as_a_no_op(tmp_path):
    import duckdb

    from veracity.monitoring import MonitorStore

    df = _frame(np.float32)
    path = tmp_path / "m.duckdb"
    store = MonitorStore(path)
    store.log(df, id="id", time="ts", score="p", by="s")
    con = duckdb.connect(str(path))  # the names a veracity before session 38 stored
    con.execute("UPDATE predictions SET s_s = '0.10000000149011612' WHERE s_s = '0.1'")
    con.execute("UPDATE predictions SET s_s = '1.0000000200408773e+20' WHERE s_s = '1e+20'")
    con.close()
    again = MonitorStore(path).log(df, id="id", time="ts", score="p", by="s")
    assert (again.inserted, again.duplicates, again.replaced) == (0, 400, 0)
    new = df.iloc[:1].assign(id=10_000)  # a new row of the key 0.1f: named now as the audit names it
    MonitorStore(path).log(new, id="id", time="ts", score="p", by="s")
    named = {r.slice for r in MonitorStore(path).status(freq="W", as_of="2026-03-16", by="s").rows}
    assert {"0.1", "0.10000000149011612", "1.0000000200408773e+20"} <= named  # old rows keep their names
    moved = df.assign(s=np.float32(0.7))  # another key is still a conflict
    with pytest.raises(vc.VeracityError, match="conflict"):
        MonitorStore(path).log(moved, id="id", time="ts", score="p", by="s")
