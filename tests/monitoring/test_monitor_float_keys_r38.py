"""vc.monitor with float period keys (session 38): one value, one period, named alike on every route.

A DuckDB FLOAT (or a polars Float32) key column named each period twice on the lazy forms: its labelled
rows by the float32 (``0.1``), its histogram and pending rows by the double ``to_list`` made of it
(``0.10000000149011612``), so every period was listed twice, once without PSI and once as a "pending"
period of no rows. A key ``-0.0`` (``round(-0.3)``) made a period of its own beside ``0.0`` on the array
form, while DuckDB grouped both into one."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _frame(zero=-0.0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 600
    p = rng.random(n)
    y = (rng.random(n) < p).astype(float)
    g = np.where(np.arange(n) % 3 == 0, zero, np.where(np.arange(n) % 3 == 1, 0.0, 0.7)).astype(np.float32)
    final = np.arange(n) % 3 != 0  # the first key's rows are still pending
    y[~final] = np.nan
    return pd.DataFrame({"p": p, "y": y, "g": g, "final": final})


def _rows(result):
    return [(r.period, r.n, r.pending, round(r.psi, 12), r.status) for r in result.rows]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, object])
def test_a_negative_zero_key_is_the_period_zero_on_arrays(dtype):
    df = _frame()
    keys = df["g"].to_numpy().astype(np.float64).astype(dtype)  # -0.0, 0.0 and 0.699999988079071
    got = vc.monitor(df["p"].to_numpy(), df["y"].to_numpy(), keys, mature=df["final"].to_numpy(),
                     min_count=10)
    # was ['-0.0' (200 pending, no labels), '0.0' (200 labelled), ...], the reference '0.0' alone
    assert [r.period for r in got.rows][0] == "0.0" and len(got.rows) == 2
    assert (got.rows[0].n, got.rows[0].pending) == (200.0, 200)
    assert got.reference == "0.0" and got.rows[1].psi > 0


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
def test_float32_and_negative_zero_keys_give_the_array_forms_periods(engine):
    df = _frame()
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.register("t", df)
        frame = con.sql("SELECT * FROM t")
    else:
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df).lazy()
    lazy = vc.monitor(frame, score="p", label="y", periods="g", mature="final", min_count=10)
    memory = vc.monitor(df, score="p", label="y", periods="g", mature="final", min_count=10)
    # was four rows on the lazy forms: '0.0' (labelled, no pending), '-0.0' (pending only),
    # '0.699999988079071' (its PSI, no labels) and '0.7' (its labels, PSI n/a)
    assert [r.period for r in lazy.rows] == ["0.0", "0.7"]
    assert [r[:3] + r[4:] for r in _rows(lazy)] == [r[:3] + r[4:] for r in _rows(memory)]
    assert lazy.reference == memory.reference == "0.0"
    assert lazy.rows[1].psi == pytest.approx(memory.rows[1].psi) and lazy.rows[1].psi > 0
