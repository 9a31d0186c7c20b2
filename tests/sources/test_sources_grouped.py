"""Grouped sums over any keys (the monitoring store's aggregate): the same groups and sums on a
DuckDB relation, a polars lazy frame and numpy; the keys are the one bin index's."""

import numpy as np
import pytest

from veracity.core._binning import bin_index, uniform_edges
from veracity.sources._grouped import at_threshold, grouped_sums, logit_cell, score_bin

nw = pytest.importorskip("narwhals")
duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def _table(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.0, 1.0, n), 3)
    p[:6] = [0.0, 1.0, 0.5, 1 / 3, 0.1, 0.9]
    return {"p": p, "g": rng.choice(["a", "b", "c"], n), "y": (rng.random(n) < p).astype(np.int8)}


def _frames(t):
    con = duckdb.connect()
    arrow = pa.table(t)
    return {"duckdb": con.from_arrow(arrow), "polars-lazy": pl.from_arrow(arrow).lazy(), "arrow": arrow}


def _reference(t, bins, threshold):
    b = bin_index(t["p"], uniform_edges(bins), "uniform")
    f = (t["p"] >= threshold).astype(np.int64)
    keys = np.rec.fromarrays([t["g"], b, f])
    uniq, inv = np.unique(keys, return_inverse=True)
    n = np.bincount(inv).astype(np.float64)
    sp = np.bincount(inv, weights=t["p"])
    sy = np.bincount(inv, weights=t["y"].astype(np.float64))
    return {(str(k[0]), int(k[1]), int(k[2])): (n[i], sp[i], sy[i]) for i, k in enumerate(uniq)}


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy", "arrow"])
@pytest.mark.parametrize("bins,threshold", [(10, 0.5), (15, 0.3), (7, 0.0), (3, 1.0)])
def test_grouped_sums_match_numpy(backend, bins, threshold):
    t = _table()
    frame = _frames(t)[backend]
    p = nw.col("p")
    got = grouped_sums(frame, {"g": nw.col("g"), "bin": score_bin(p, bins), "flag": at_threshold(p, threshold)},
                       {"sp": p, "sy": nw.col("y").cast(nw.Float64)})
    assert got["n"].dtype == np.float64
    table = {(str(g), int(b), int(f)): (n, sp, sy)
             for g, b, f, n, sp, sy in zip(got["g"], got["bin"], got["flag"], got["n"], got["sp"], got["sy"])}
    want = _reference(t, bins, threshold)
    assert table.keys() == want.keys()
    for k, (n, sp, sy) in want.items():
        assert table[k][0] == n and table[k][2] == sy
        assert table[k][1] == pytest.approx(sp, rel=1e-12)


def test_grouped_sums_without_sums_counts_rows_per_key():
    t = _table()
    got = grouped_sums(_frames(t)["duckdb"], {"g": nw.col("g")}, {})
    counts = dict(zip(got["g"].tolist(), got["n"].tolist()))
    names, n = np.unique(t["g"], return_counts=True)
    assert counts == dict(zip(names.tolist(), n.astype(float).tolist()))


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_grouped_sums_where_keeps_the_rows_it_names(backend):
    t = _table()
    got = grouped_sums(_frames(t)[backend], {"g": nw.col("g")}, {"sp": nw.col("p")}, where=nw.col("y") == 1)
    keep = t["y"] == 1
    for g, n, sp in zip(got["g"], got["n"], got["sp"]):
        rows = keep & (t["g"] == g)
        assert n == rows.sum() and sp == pytest.approx(t["p"][rows].sum(), rel=1e-12)


def _cells(eta):
    rel = duckdb.connect().from_arrow(pa.table({"eta": eta}))
    old = rel.project("least(greatest(floor((eta + 12) * 50.0), 0), 1199)::BIGINT AS c").fetchnumpy()["c"]
    new = nw.from_native(rel).select(c=logit_cell(nw.col("eta"), 1200, 12.0)).to_native().fetchnumpy()["c"]
    return old, new


def test_logit_cell_is_the_store_cell():
    """The equal-width logit cell through the one bin index equals the store's former SQL rule
    least(greatest(floor((eta + 12) * 50), 0), 1199) for the logits of scores (every 5-decimal
    score, random ones) and random logits far beyond [-12, 12]; only a logit within an ulp of a
    cell edge k/50 - 12 (measure zero among scores) may fall in the neighbouring cell."""
    rng = np.random.default_rng(1)
    p = np.concatenate([np.arange(0, 100_001) / 100_000, rng.uniform(0.0, 1.0, 200_000), [1e-13, 1 - 1e-13]])
    eta = np.concatenate([np.log(np.maximum(p, 1e-12)) - np.log(np.maximum(1 - p, 1e-12)),
                          rng.uniform(-30.0, 30.0, 200_000), rng.normal(0.0, 2.0, 200_000)])
    old, new = _cells(eta)
    assert np.array_equal(old, new)
    old, new = _cells(np.arange(-600, 601) / 50.0)  # the cell edges themselves
    assert np.abs(old - new).max() <= 1


def test_at_threshold_is_score_at_or_above():
    p = np.array([0.0, 0.29999999999999999, 0.3, 0.30000000000000004, 1.0])
    rel = duckdb.connect().from_arrow(pa.table({"p": p}))
    for t in (0.0, 0.3, 1.0):
        got = nw.from_native(rel).select(f=at_threshold(nw.col("p"), t)).to_native().fetchnumpy()["f"]
        assert got.tolist() == (p >= t).astype(int).tolist()
