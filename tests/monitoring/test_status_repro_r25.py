"""The store's status is bit-reproducible: the same rows give the same JSON however DuckDB splits
them among its threads (its parallel float sums add in whatever order the threads finish)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import veracity as vc

# its tests share expensive module fixtures: one worker builds them once (tests/conftest.py)
pytestmark = pytest.mark.xdist_group(__name__)

duckdb = pytest.importorskip("duckdb")

ROWS = 40_000


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store of ROWS predictions (70 % labelled, some as an audit sample), repacked into DuckDB row
    groups of 2,048 rows so that a few seconds of rows span twenty row groups, as millions do."""
    rng = np.random.default_rng(7)
    ts = pd.Timestamp("2026-03-02", tz="UTC") + pd.to_timedelta(rng.integers(0, 28 * 86400, ROWS), unit="s")
    p = rng.beta(1, 12, ROWS)
    y = (rng.random(ROWS) < p * 1.3).astype(int)
    ids = np.arange(ROWS).astype(str)
    store = vc.MonitorStore(tmp_path_factory.mktemp("repro") / "m.duckdb")
    store.log(pd.DataFrame({"id": ids, "ts": ts, "score": p, "seg": rng.choice(list("abc"), ROWS)}),
              id="id", time="ts", score="score", by="seg")
    lab = rng.random(ROWS) < 0.7
    aud = lab & (rng.random(ROWS) < 0.1)
    obs = ts + pd.to_timedelta(rng.integers(1, 20, ROWS), unit="D")
    for m, audit in ((lab & ~aud, False), (aud, True)):
        store.outcomes(pd.DataFrame({"id": ids[m], "y": y[m], "obs": obs[m]}), id="id", label="y", time="obs",
                       audit_sample=audit)
    con = duckdb.connect()
    con.execute(f"ATTACH '{store.path}' AS s (ROW_GROUP_SIZE 2048)")
    con.execute("CREATE TEMP TABLE keep AS SELECT * FROM s.predictions")
    con.execute("DELETE FROM s.predictions")
    con.execute("INSERT INTO s.predictions SELECT * FROM keep")
    con.execute("CHECKPOINT s")
    groups = con.sql("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('s.predictions')").fetchall()
    con.close()
    assert groups[0][0] >= 10
    return store


def _with_threads(store, monkeypatch, threads):
    connect = type(store).connect

    def connect_with_threads(self, **kw):
        con = connect(self, **kw)
        con.execute(f"SET threads = {threads}")
        return con

    monkeypatch.setattr(type(store), "connect", connect_with_threads)


@pytest.mark.parametrize("by", [None, "seg"])
def test_status_json_is_the_same_bytes_every_time_and_for_any_thread_count(store, monkeypatch, by):
    seen = set()
    for threads in (1, 4, 8, 8, 8, 8, 3):
        _with_threads(store, monkeypatch, threads)
        st = store.status(as_of="2026-04-10", horizon="20d", by=by)
        seen.add(json.dumps(st.to_dict(), default=str))
    assert len(seen) == 1


def test_exact_grouped_sums_are_the_correctly_rounded_sums_whatever_the_order():
    """grouped_sums(exact=) against math.fsum (the correctly rounded sum of the same doubles), on values
    spanning 36 binades, mixed signs, and the same rows in two orders and two thread counts."""
    import narwhals as nw

    from veracity.sources._grouped import grouped_sums

    rng = np.random.default_rng(3)
    n = 60_000
    x = rng.choice([-1.0, 1.0], n) * rng.random(n) * 2.0 ** rng.integers(-30, 6, n)
    g = rng.integers(0, 5, n)
    want = [math.fsum(x[g == k].tolist()) for k in range(5)]
    got = []
    for order, threads in ((np.arange(n), 1), (rng.permutation(n), 4)):
        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        t = pd.DataFrame({"g": g[order], "x": x[order]})  # noqa: F841 (read by DuckDB's replacement scan)
        rel = con.sql("SELECT * FROM t")
        out = grouped_sums(rel, {"g": nw.col("g")}, {"s": nw.col("x"), "s2": nw.col("x") * nw.col("x")},
                           exact=2.0 ** 12)
        assert out["g"].tolist() == list(range(5))
        got.append(out)
        con.close()
    assert got[0]["s"].tobytes() == got[1]["s"].tobytes() and got[0]["s2"].tobytes() == got[1]["s2"].tobytes()
    np.testing.assert_allclose(got[0]["s"], want, rtol=4 * 2.0 ** -53, atol=0)
    want2 = [math.fsum((x[g == k] ** 2).tolist()) for k in range(5)]
    np.testing.assert_allclose(got[0]["s2"], want2, rtol=4 * 2.0 ** -53, atol=0)


def test_html_names_the_ppi_rate_by_the_rows_it_estimates(store):
    """The PPI rate is vc.ppi_mean over the scores it is given: all the window's rows (the audit sample is
    drawn from all of them), so its column says "all rows", as the mean score it is set against does."""
    st = store.status(as_of="2026-04-10", horizon="20d")
    assert any(r.estimate_ppi and r.labelled < r.rows for r in st.rows)
    html = st._repr_html_()
    assert "PPI rate (all rows)" in html and "PPI rate (pending)" not in html
