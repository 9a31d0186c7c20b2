"""vc.monitor's ``reference=`` given as a key of the periods' own type (session 38): ``reference=2`` on
integer period keys was refused as "reference period 2 not found; periods: 0, 1, 2". It now names the
period the key names, on arrays and lazy frames alike; a key that is no period is still refused."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(0)
    n = 600
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(int), np.arange(n) % 3


@pytest.mark.parametrize("keys, reference, name", [
    (lambda g: g, 2, "2"), (lambda g: g, np.int64(2), "2"), (lambda g: g.astype(float), 2.0, "2.0"),
    (lambda g: g.astype(np.float32) + np.float32(0.1), np.float32(2.1), "2.1"),
    (lambda g: g.astype(float), -0.0, "0.0")])
def test_a_reference_key_names_its_period(keys, reference, name):
    p, y, g = _data()
    result = vc.monitor(p, y, keys(g), reference=reference, min_count=10)
    assert result.reference == name
    assert next(r for r in result.rows if r.period == name).psi == 0.0


def test_a_reference_key_on_a_lazy_frame_and_a_key_that_is_no_period(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    p, y, g = _data()
    con = duckdb.connect()
    con.register("t", pd.DataFrame({"p": p, "y": y, "g": g}))
    lazy = vc.monitor(con.sql("SELECT * FROM t"), score="p", label="y", periods="g", reference=1,
                      min_count=10)
    assert lazy.reference == "1"
    with pytest.raises(vc.VeracityError, match="reference period '7' not found; periods: 0, 1, 2"):
        vc.monitor(p, y, g, reference=7, min_count=10)
