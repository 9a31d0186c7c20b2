"""One source, every engine: numpy, pandas, polars (eager and lazy) and a DuckDB relation give
identical BinStats, AUC and threshold counts (hypothesis), and the store's slices-by-period
statistics merge with an audit's (the same edges, built once)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.core._binning import uniform_edges
from veracity.sources import ArraySource, FrameSource, as_source

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

#: fields that are sums of dyadic numbers (scores k/64, weights in halves): exact in any order
EXACT = ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py")


def _backends(df):
    con = duckdb.connect()
    return {
        "numpy": None,
        "pandas": df,
        "polars": pl.from_pandas(df),
        "polars-lazy": pl.from_pandas(df).lazy(),
        "duckdb": con.from_df(df),
    }


def _source(name, frame, df, weighted, by):
    w = "w" if weighted else None
    if name == "numpy":
        keys = None if by is None else df[by].to_numpy()
        return as_source(df["p"].to_numpy(), df["y"].to_numpy(), by=keys,
                         sample_weight=None if w is None else df["w"].to_numpy())
    return as_source(frame, score="p", label="y", sample_weight=w, by=by)


def _same_stats(a, b):
    assert np.array_equal(a.edges, b.edges)
    for name in EXACT:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    np.testing.assert_allclose(a.sum_nll, b.sum_nll, rtol=1e-12, atol=1e-300)


rows = st.integers(min_value=2, max_value=60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 64), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=n, max_size=n),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows, st.integers(1, 20), st.booleans())
def test_every_engine_gives_identical_bin_stats(data, bins, weighted):
    k, y, w, g = data
    df = pd.DataFrame({"p": np.asarray(k) / 64.0, "y": y, "w": w, "g": g})
    edges = uniform_edges(bins)
    want = want_slices = want_auc = want_counts = None
    for name, frame in _backends(df).items():
        src = _source(name, frame, df, weighted, "g")
        assert isinstance(src, FrameSource if name in ("polars-lazy", "duckdb") else ArraySource)
        got = src.bin_stats(edges)
        slices = {str(key): s for key, s in src.slice_stats(edges).items()}
        auc = src.auc()
        counts = src.counts_at([-np.inf, 0.25, 0.5, 0.5, 1.0, np.inf])
        if want is None:
            want, want_slices, want_auc, want_counts = got, slices, auc, counts
            continue
        _same_stats(got, want)
        assert sorted(slices) == sorted(want_slices), name
        for key in slices:
            _same_stats(slices[key], want_slices[key])
        assert (auc is None) == (want_auc is None)
        if auc is not None:
            assert auc == pytest.approx(want_auc, rel=1e-12)
        for a, b in zip(counts, want_counts):
            assert np.array_equal(a, b), name


def test_array_source_equals_the_array_form():
    rng = np.random.default_rng(3)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    w = rng.uniform(0.1, 3.0, 500)
    src = as_source(p, y, sample_weight=w)
    result = vc.audit(p, y, sample_weight=w, bins=12)
    stats = src.bin_stats(uniform_edges(12))
    assert vc.core._formulas.ece_from_stats(stats, "l1") == result.ece
    assert src.auc() == result.auc
    tp, fp, n_total, n_pos = src.counts_at([0.2, 0.5])
    table = vc.threshold_table(p, y, [0.2, 0.5], sample_weight=w)
    assert np.array_equal(tp, table.tp) and np.array_equal(fp, table.fp)


def test_store_slices_by_period_merge_with_the_audit():
    """The store's question — per (slice, period) BinStats of a DuckDB relation — on the
    audit's edges: the parts add up to the audit's statistics and merge with them."""
    rng = np.random.default_rng(7)
    n = 2000
    df = pd.DataFrame({"p": rng.random(n), "slice": rng.choice(["eu", "us"], n),
                       "period": rng.integers(202401, 202404, n)})
    df["y"] = (rng.random(n) < df["p"]).astype(int)
    rel = duckdb.connect().from_df(df)
    src = as_source(rel, score="p", label="y", by=["slice", "period"])
    parts = src.slice_stats(uniform_edges(10))
    assert sorted(parts) == [(s, p) for s in ("eu", "us") for p in (202401, 202402, 202403)]
    total = None
    for stats in parts.values():
        total = stats if total is None else total + stats
    whole = as_source(df["p"].to_numpy(), df["y"].to_numpy()).bin_stats(uniform_edges(10))
    assert np.array_equal(total.edges, whole.edges)
    assert np.array_equal(total.count, whole.count)
    assert vc.core._formulas.ece_from_stats(whole, "l1") == vc.audit(df["p"], df["y"], bins=10).ece
    merged = whole + parts[("eu", 202401)]  # merging is addition: same edges
    assert merged.n == whole.n + parts[("eu", 202401)].n


def test_frame_form_errors_and_engine_memory(tmp_path):
    df = pd.DataFrame({"p": [0.1, 0.6, 0.8, 0.3], "y": [0, 1, 1, 0]})
    path = tmp_path / "x.parquet"
    df.to_parquet(path)
    lazy = as_source(str(path), score="p", label="y")
    memory = as_source(str(path), score="p", label="y", engine="memory")
    assert isinstance(lazy, FrameSource) and isinstance(memory, ArraySource)
    assert lazy.auc() == memory.auc() == vc.auc(df["p"], df["y"])
    with pytest.raises(vc.VeracityError, match="column 'q' not found.*available columns: p, y"):
        as_source(df, score="q", label="y")
    with pytest.raises(vc.VeracityError, match="needs labels"):
        as_source(df["p"].to_numpy())
    with pytest.raises(vc.VeracityError, match="engine must be"):
        as_source(df, score="p", label="y", engine="spark")


@pytest.mark.parametrize("weighted", [False, True])
def test_a_lazy_polars_auc_is_the_array_kernels_bit_for_bit(weighted):
    # the generic backends count the exact AUC with the one 2U kernel (core._rank), as the arrays do
    rng = np.random.default_rng(11)
    n = 3000
    p = np.round(rng.random(n), 3)  # ties
    y = (rng.random(n) < p).astype(int)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    df = pd.DataFrame({"p": p, "y": y, "w": rng.uniform(0.1, 3.0, n) if w is None else w,
                       "g": rng.choice(["a", "b"], n)})
    lazy = pl.from_pandas(df).lazy()
    sw = "w" if weighted else None
    assert vc.auc(lazy, score="p", label="y", sample_weight=sw) == vc.auc(p, y, sample_weight=w)
    slices = as_source(lazy, score="p", label="y", sample_weight=sw, by="g").slice_auc()
    for key in ("a", "b"):
        rows = df["g"].to_numpy() == key
        want = vc.auc(p[rows], y[rows], sample_weight=None if w is None else w[rows])
        assert slices[key] == pytest.approx(want, rel=1e-13)
    # logits, several score ranges: the ranges' numerators add up to the same integers
    from veracity.sources import _aggregates as agg
    from veracity.sources._api import _Prepared

    s = np.round(rng.normal(0, 2, n), 2)
    prep = _Prepared(pl.DataFrame({"s": s, "y": y}).lazy(), "s", "y")
    got = agg.auc_parts(prep.working(False), score_type="logit", weighted=False, grouped=False,
                        backend="polars", cuts=[0.2, 0.5, 0.77])[None]
    assert got == vc.auc(s, y, score_type="logit")


@pytest.mark.parametrize("strategy", ["quantile", "equal-count"])
@pytest.mark.parametrize("weighted", [False, True])
def test_lazy_equal_mass_edges_are_the_rows_edges(strategy, weighted):
    # one edge builder (core._binning.sorted_edges): per-value counts give the rows' edges exactly
    rng = np.random.default_rng(12)
    n = 2000
    p = np.round(rng.beta(2, 5, n), 2)
    p[:300] = 0.0
    y = (rng.random(n) < p).astype(int)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    df = pl.DataFrame({"p": p, "y": y, "w": np.ones(n) if w is None else w})
    lazy = vc.reliability(df.lazy(), score="p", label="y", sample_weight="w" if weighted else None,
                          bins=13, strategy=strategy)
    rows = vc.reliability(p, y, sample_weight=w, bins=13, strategy=strategy)
    assert np.array_equal(lazy.stats.edges, rows.stats.edges)
    assert lazy.stats.edges.size > 3


def test_dask_contract_counts_equal_the_expressions():
    # Dask counts the input contract in numpy per partition (the one kept copy, for speed): the same
    # numbers as the narwhals expressions every other backend runs, on rows that break every rule
    dd = pytest.importorskip("dask.dataframe")
    import narwhals as nw

    from veracity.sources import _aggregates as agg
    from veracity.sources import _dask

    s = np.array([0.1, np.nan, np.inf, -np.inf, 1.5, -0.2, 0.7, 0.3, 0.9, 0.0, 1.0, 0.4])
    y = np.array([0.0, 1.0, 1.0, 0.0, 2.0, np.nan, -1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    w = np.array([1.0, 2.0, np.nan, -1.0, np.inf, 0.5, 3.0, 1.0, -2.0, 1.0, 0.0, 4.0])
    df = pd.DataFrame({"_s": s, "_y": y, "_w": w})
    want = agg.contract_counts(nw.from_native(pl.from_pandas(df, nan_to_null=False).lazy()),
                               score_type="probability", weighted=True)
    got = _dask.contract_counts(dd.from_pandas(df, npartitions=3))
    assert set(got) == set(want)
    for key in set(want) - {"y_sum"}:  # y_sum is read only when every label is 0/1 (below)
        a, b = got[key], want[key]
        assert (a is None) == (b is None), key
        if a is not None:
            assert float(a) == pytest.approx(float(b), rel=1e-15), key
    clean = df.assign(_y=[0.0, 1.0] * 6)
    want = agg.contract_counts(nw.from_native(pl.from_pandas(clean, nan_to_null=False).lazy()),
                               score_type="probability", weighted=True)
    assert _dask.contract_counts(dd.from_pandas(clean, npartitions=2))["y_sum"] == want["y_sum"] == 6.0
