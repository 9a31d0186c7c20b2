"""Fewer projections and passes on a lazy frame, the same numbers (session 44; speed-only guards).

On DuckDB every projection of a narwhals chain is one bind of the whole plan (~2 ms): a lazy audit
bound 18 relations. The contract's columns, the fused contract's neutral ``_s``/``_y`` and the bin
table's probability now ride in fewer projections (an expression used where its column was read), the
audit's AUC reuses the statistics' working frame, and the lazy monitor counts its pending rows in the
histogram's pass. These pin that the fast chains give the old chains' numbers bit for bit (the old
chains are written out here) and that the projections and passes are fewer.
"""

from __future__ import annotations

import math

import narwhals as nw
import numpy as np
import pytest

import veracity as vc
from veracity.core._binning import bin_index, uniform_edges
from veracity.sources import _aggregates as agg


def _old_contract_columns(lf, weighted=True):
    s, y, w = nw.col("_s"), nw.col("_y"), nw.col("_w")
    inf = float("inf")
    s_ok = ~(s.is_null() | s.is_nan() | (s.abs() == inf)).fill_null(True)
    y_ok = ((y == 0.0) | (y == 1.0)).fill_null(False)
    w_ok = ~(w.is_null() | w.is_nan() | (w.abs() == inf)).fill_null(True)
    flag = agg._flag
    weights = {"_w_bad": flag(~w_ok), "_w_neg": flag(w_ok & (w < 0)), "_wf": nw.when(w_ok).then(w),
               "_wp": nw.when(w_ok & (w > 0)).then(w)}
    return lf.with_columns(
        _one=nw.lit(1, nw.Int64), _s_miss=flag(s.is_null() | s.is_nan()), _s_inf=flag(s.abs() == inf),
        _sf=nw.when(s_ok).then(s), _y_bad=flag(~y_ok),
        _yf=nw.when(~y_ok & ~(y.is_null() | y.is_nan()).fill_null(True)).then(y),
        **(weights if weighted else {}),
    ).with_columns(_p_bad=flag((nw.col("_sf") < 0) | (nw.col("_sf") > 1)))


def _old_bin_table(lf, *, bins, score_type, threshold, grouped, edges, strategy, contract=False,
                   weighted=False):
    w, p, y = nw.col("_w"), nw.col("_p"), nw.col("_y")
    if edges is None or strategy == "uniform":
        edges, strategy = uniform_edges(bins), "uniform"
    b = bin_index(p, np.asarray(edges, dtype=np.float64), strategy)
    if contract:
        b = nw.when(nw.col("_ok")).then(b).otherwise(nw.lit(-1, nw.Int64))
    x = lf.with_columns(_p=agg.probability(score_type)).with_columns(
        _b=b, _l=agg._nll(score_type),
        _c=1.0 - (nw.when(agg._decision(score_type, threshold)).then(1.0).otherwise(0.0) - y).abs(),
        _r=nw.when(y == 1.0).then(-agg.complement(score_type)).otherwise(p),
    ).with_columns(
        _one=nw.lit(1, nw.Int64), weight=w, weight_sq=w * w, sum_p=w * p, sum_y=w * y,
        sum_p2=w * p * p, sum_py=w * p * y, sum_nll=w * nw.col("_l"), correct=w * nw.col("_c"),
        sum_r=w * nw.col("_r"), sum_q1=-(w * y * nw.col("_r")), sum_r2=w * (nw.col("_r") * nw.col("_r")),
    )
    names = agg._SUM_NAMES
    if weighted:
        x = x.with_columns(sum_w2y=(w * w) * y, sum_w2pq=(w * w) * (p * agg.complement(score_type)))
        names = (*agg._SUM_NAMES, *agg.SQUARE_NAMES)
    keys = [*agg.key_columns(grouped), "_b"]
    rows = agg.collect(x.group_by(keys).agg(nw.col("_one").sum().alias("count"),
                                            *(nw.col(k).sum() for k in names),
                                            *(agg.contract_exprs(weighted=False) if contract else [])))
    return {name: agg.values(rows.get_column(name)) for name in rows.columns}


def _old_fused(lf, *, bins, score_type, threshold, grouped):
    s, y = nw.col("_s"), nw.col("_y")
    ok = ~(s.is_null() | s.is_nan() | (s.abs() == float("inf"))) & ((y == 0.0) | (y == 1.0))
    if score_type == "probability":
        ok = ok & (s >= 0.0) & (s <= 1.0)
    x = _old_contract_columns(lf, weighted=False).with_columns(_ok=ok.fill_null(False)).with_columns(
        _s=nw.when(nw.col("_ok")).then(s).otherwise(nw.lit(0.0, nw.Float64)),
        _y=nw.when(nw.col("_ok")).then(y).otherwise(nw.lit(0.0, nw.Float64)))
    return _old_bin_table(x, bins=bins, score_type=score_type, threshold=threshold, grouped=grouped,
                          edges=None,
                          strategy="uniform", contract=True)


def _rows(backend: str, score_type: str):
    """Working columns ``_s, _y, _w, _g``: scores on bin edges, 0 and 1 (or far logits), a NaN, a
    score outside [0, 1], a label 2 — the contract's counts and the neutral rows' bin -1 included."""
    import polars as pl

    rng = np.random.default_rng(44)
    n = 3000
    p = rng.uniform(0, 1, n)
    p[:30] = np.repeat(np.arange(15) / 15, 2)  # on the equal-width edges
    p[30:32] = [0.0, 1.0]
    s = p if score_type == "probability" else np.log(p + 1e-300) - np.log1p(-p + 1e-16)
    s[32:34] = [np.nan, 1.5 if score_type == "probability" else 800.0]
    y = (rng.random(n) < p).astype(np.float64)
    y[34] = 2.0
    w = rng.uniform(0.1, 3.0, n)
    g = rng.choice(["a", "b", "c"], n)
    lf = pl.DataFrame({"_s": s, "_y": y, "_w": w, "_g": g}).lazy()
    if backend == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads = 1")  # the sums' order is then the rows' order on both chains
        con.register("t", lf.collect().to_arrow())
        return nw.from_native(con.sql("SELECT * FROM t"))
    return nw.from_native(lf)


def _close(u, v, exact: bool) -> bool:
    """Bit for bit on DuckDB (one thread: each chain sums the rows in their order); polars' group-by
    sums floats in an order of its threads' making, which moves the last bit from run to run of either
    chain, so there floats agree to 1e-12 and integers, None and NaN exactly."""
    if exact or not isinstance(u, float) or not isinstance(v, float):
        return repr(u) == repr(v)
    return (math.isnan(u) and math.isnan(v)) or math.isclose(u, v, rel_tol=1e-12, abs_tol=1e-300)


def _same(a: dict, b: dict, exact: bool) -> None:
    assert sorted(a) == sorted(b)
    def order(t: dict) -> list[int]:
        keys = t.get("_g", [None] * len(t["_b"]))
        return sorted(range(len(t["_b"])), key=lambda i: (str(keys[i]), t["_b"][i]))

    order_a, order_b = order(a), order(b)
    for k in a:
        va, vb = [a[k][i] for i in order_a], [b[k][i] for i in order_b]
        assert len(va) == len(vb) and all(_close(u, v, exact) for u, v in zip(va, vb)), (k, va, vb)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
@pytest.mark.parametrize("score_type", ["probability", "logit"])
def test_the_fused_contract_and_bin_table_give_the_old_chains_numbers(backend, score_type):
    lf = _rows(backend, score_type)
    exact = backend == "duckdb"
    ok = lf.filter(~nw.col("_s").is_nan() & (nw.col("_y") != 2.0)
                   & ((nw.col("_s") <= 1.0) if score_type == "probability" else nw.lit(True)))
    for grouped in (False, True):
        new = agg._bin_table(ok, bins=15, score_type=score_type, threshold=0.5, grouped=grouped, edges=None,
                             strategy="uniform", top_label=False)
        _same(new, _old_bin_table(ok, bins=15, score_type=score_type, threshold=0.5, grouped=grouped,
                                  edges=None, strategy="uniform"), exact)
        for weighted in (False, True):
            edges = np.array([0.0, 0.1, 0.35, 0.5, 0.77, 1.0])
            for strategy in ("uniform", "quantile"):
                _same(agg._bin_table(ok, bins=5, score_type=score_type, threshold=0.3, grouped=grouped,
                                     edges=edges, strategy=strategy, top_label=False, weighted=weighted),
                      _old_bin_table(ok, bins=5, score_type=score_type, threshold=0.3, grouped=grouped,
                                     edges=edges, strategy=strategy, weighted=weighted), exact)
        # the fused pass (contract counts and bin sums in one aggregate) against the old chain's table
        sums, counts = agg.bin_sums_and_contract(lf, bins=15, score_type=score_type, threshold=0.5,
                                                 grouped=grouped)
        native = _old_fused(lf, bins=15, score_type=score_type, threshold=0.5, grouped=grouped)
        keep = [i for i, b in enumerate(native["_b"]) if b is not None and int(b) >= 0]
        old_sums = agg._per_slice({k: [v[i] for i in keep] for k, v in native.items()}, 15, grouped)
        old_counts = agg.exact_labels(lf, agg.combine_contract(native, weighted=False))
        assert sorted(counts) == sorted(old_counts)
        assert all(_close(counts[k], old_counts[k], exact) for k in counts), (counts, old_counts)
        assert counts["s_miss"] == 1 and counts["y_bad"] == 1 and counts["n"] == 3000
        assert sorted(sums, key=str) == sorted(old_sums, key=str)
        for key in sums:
            assert sorted(sums[key]) == sorted(old_sums[key])
            for name, values in sums[key].items():
                olds = old_sums[key][name].tolist()
                assert all(_close(u, v, exact) for u, v in zip(values.tolist(), olds)), name
    for weighted in (False, True):
        new_c = agg.collect(agg.contract_columns(lf, weighted).select(*agg.contract_exprs(weighted))).rows()
        old_c = agg.collect(_old_contract_columns(lf, weighted).select(*agg.contract_exprs(weighted))).rows()
        assert len(new_c[0]) == len(old_c[0]) and all(_close(u, v, exact) for u, v in zip(new_c[0], old_c[0]))
        assert new_c[0][0] == 3000


def _counting(monkeypatch) -> dict:
    seen = {"collect": 0, "with_columns": 0}
    collect, with_columns = nw.LazyFrame.collect, nw.LazyFrame.with_columns

    def counted_collect(self, *a, **k):
        seen["collect"] += 1
        return collect(self, *a, **k)

    def counted_with_columns(self, *a, **k):
        seen["with_columns"] += 1
        return with_columns(self, *a, **k)

    monkeypatch.setattr(nw.LazyFrame, "collect", counted_collect)
    monkeypatch.setattr(nw.LazyFrame, "with_columns", counted_with_columns)
    return seen


def test_a_lazy_audit_and_monitor_build_fewer_projections_and_passes(monkeypatch):
    import polars as pl

    rng = np.random.default_rng(5)
    n = 2000
    t = (np.datetime64("2026-01-01T00:00:00", "s") + rng.integers(0, 90 * 86400, n).astype("timedelta64[s]"))
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    m = rng.random(n) < 0.7
    frame = pl.DataFrame({"p": p, "y": y, "t": t.astype("datetime64[us]"), "m": m})
    want_audit = vc.audit(p, y)
    want_monitor = vc.monitor(p, y, t, freq="M", mature=m, min_count=1)
    seen = _counting(monkeypatch)
    got = vc.audit(frame.lazy(), score="p", label="y")
    assert seen["with_columns"] <= 3, seen  # 7 before: contract 2, fused 2, bin table 3
    assert math.isclose(got.ece, want_audit.ece, rel_tol=1e-12)
    assert math.isclose(got.auc, want_audit.auc, rel_tol=1e-12)
    seen.update(collect=0, with_columns=0)
    rows = vc.monitor(frame.lazy(), score="p", label="y", periods="t", freq="M", mature="m", min_count=1).rows
    assert seen["collect"] <= 5, seen  # 6 before: the pending rows were a pass of their own
    assert [(r.period, r.pending) for r in rows] == [(r.period, r.pending) for r in want_monitor.rows]
    assert sum(r.pending for r in rows) == int((~m).sum()) > 0
    for a, b in zip(rows, want_monitor.rows):
        assert a.n == b.n and math.isclose(a.ece, b.ece, rel_tol=1e-9, abs_tol=1e-12)
