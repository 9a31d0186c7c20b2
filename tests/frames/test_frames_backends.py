"""One dataset through every backend: the frame form equals the array form.

Counts identical, per-bin sums and metrics to 1e-9 relative, exact AUC equal to
scikit-learn's ``roc_auc_score`` (the oracle), slices agree — on numpy arrays,
pandas, polars (eager and lazy), pyarrow, DuckDB (relation, Parquet, CSV, glob)
and Dask here; Spark in test_frames_spark.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import veracity as vc

from .conftest import BACKENDS, dataset, make

REL = 1e-9


def same_audit(a, b):
    assert a.n == b.n
    np.testing.assert_array_equal(a.table.stats.count, b.table.stats.count)
    for name in ("weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll"):
        np.testing.assert_allclose(getattr(a.table.stats, name), getattr(b.table.stats, name), rtol=REL,
                                   atol=1e-12, err_msg=name)
    for key, value in b.metrics.items():
        assert a.metrics[key] == pytest.approx(value, rel=REL, abs=1e-12), key


#: every backend unweighted and weighted, but Spark weighted: test_frames_spark.py's
#: test_spark_audit_equals_the_array_form is that case (weights, slices, bins=12, every assert below), with
#: column names that need quoting
AUDIT_CASES = [pytest.param(b, w, id=f"{'weighted' if w else 'unweighted'}-{b}")
               for w in (False, True) for b in BACKENDS if not (w and b == "spark")]


@pytest.mark.dask_cluster
@pytest.mark.parametrize("backend, weighted", AUDIT_CASES)
def test_audit_equals_the_array_form(backend, weighted, tmp_path):
    df = dataset()
    w = df["w"].to_numpy() if weighted else None
    frame = make(backend, df, tmp_path)
    got = vc.audit(frame, score="p", label="y", by="segment", sample_weight="w" if weighted else None, bins=12)
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), sample_weight=w, bins=12,
                    by={"segment": df["segment"].to_numpy()})
    same_audit(got, want)
    # scikit-learn is the oracle for the exact AUC (ties count one half)
    assert got.auc == pytest.approx(roc_auc_score(df["y"], df["p"], sample_weight=w), rel=1e-12)
    assert got.group_column == "segment"
    assert list(got.groups) == list(want.groups) == ["east", "north", "south"]
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])
        rows = (df["segment"] == key).to_numpy()
        assert got.groups[key].auc == pytest.approx(
            roc_auc_score(df["y"][rows], df["p"][rows], sample_weight=None if w is None else w[rows]), rel=1e-12)
    assert "By segment:" in str(got)


@pytest.mark.parametrize("backend", BACKENDS)
def test_logits_threshold_and_auto_bins(backend, tmp_path):
    df = dataset(seed=4)
    frame = make(backend, df, tmp_path)
    got = vc.audit(frame, score="logit", label="y", score_type="logit", threshold=0.3, bins="auto")
    want = vc.audit(df["logit"].to_numpy(), df["y"].to_numpy(), score_type="logit", threshold=0.3, bins="auto")
    same_audit(got, want)
    assert got.table.bins == want.table.bins == 15  # ceil(3000 ** (1/3))
    assert got.auc == pytest.approx(roc_auc_score(df["y"], df["logit"]), rel=1e-12)


@pytest.mark.dask_cluster
@pytest.mark.parametrize("backend", BACKENDS)
def test_metrics_and_reliability(backend, tmp_path):
    df = dataset(seed=7)
    frame = make(backend, df, tmp_path)
    p, y, w = (df[c].to_numpy() for c in ("p", "y", "w"))
    for name in ("ece", "mce", "brier", "nll", "auc", "accuracy"):
        fn = getattr(vc, name)
        assert fn(frame, score="p", label="y", sample_weight="w") == pytest.approx(
            fn(p, y, sample_weight=w), rel=REL), name
    d = vc.brier_decomposition(frame, score="p", label="y", bins=8)
    assert d.reliability == pytest.approx(vc.brier_decomposition(p, y, bins=8).reliability, rel=REL)
    table = vc.reliability(frame, score="p", label="y", bins=5)
    ref = vc.reliability(p, y, bins=5)
    assert [r.n for r in table.rows] == [r.n for r in ref.rows]
    assert table.ece == pytest.approx(ref.ece, rel=REL)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_continuous_scores_exact_auc(backend, tmp_path):
    # every score distinct: the per-range running sums carry the whole order
    rng = np.random.default_rng(11)
    n = 20_000
    import pandas as pd

    df = pd.DataFrame({"p": rng.random(n)})
    df["y"] = (rng.random(n) < df["p"]).astype(np.int64)
    got = vc.auc(make(backend, df, tmp_path), score="p", label="y")
    assert got == vc.auc(df["p"], df["y"])  # integer Mann-Whitney sums: bit-identical
    assert got == pytest.approx(roc_auc_score(df["y"], df["p"]), rel=1e-12)


@pytest.mark.parametrize("backend", ["duckdb", "parquet", "polars-lazy"])
def test_sql_injection_column_name_is_a_column(backend, tmp_path):
    df = dataset(500).rename(columns={"p": 'p"; DROP TABLE x; --', "segment": "seg'ment"})
    got = vc.audit(make(backend, df, tmp_path), score='p"; DROP TABLE x; --', label="y", by="seg'ment")
    want = vc.audit(df['p"; DROP TABLE x; --'], df["y"], by={"seg'ment": df["seg'ment"].to_numpy()})
    same_audit(got, want)
    assert got.group_column == "seg'ment"


@pytest.mark.xdist_group("dask")  # starts the Dask cluster (tests/conftest.py groups by engine)
def test_multiclass_frame_in_memory(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(2)
    P = rng.dirichlet([1, 1, 1], 400)
    y = rng.integers(0, 3, 400)
    df = pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y})
    got = vc.audit(df, score=["p0", "p1", "p2"], label="y")
    same_audit(got, vc.audit(P, y))
    same_audit(vc.audit(make("duckdb", df, tmp_path), score=["p0", "p1", "p2"], label="y"), vc.audit(P, y))
    same_audit(vc.audit(make("dask", df, tmp_path), score=["p0", "p1", "p2"], label="y"), vc.audit(P, y))


def test_array_form_and_dataframe_matrix_unchanged():
    import pandas as pd

    df = dataset(200)
    # a DataFrame passed positionally is still an (N, K) score matrix, not a frame
    P = pd.DataFrame({"a": 1 - df["p"], "b": df["p"]})
    assert vc.ece(P, df["y"]) == vc.ece(P.to_numpy(), df["y"].to_numpy())


def test_threshold_table_and_monitor_frame_form():
    df = dataset(600)
    t = vc.threshold_table(df, [0.3, 0.5], score="p", label="y", sample_weight="w")
    ref = vc.threshold_table(df["p"].to_numpy(), df["y"].to_numpy(), [0.3, 0.5], sample_weight=df["w"].to_numpy())
    assert [r.tp for r in t.rows] == [r.tp for r in ref.rows]
    m = vc.monitor(df, score="p", label="y", periods="segment")
    ref_m = vc.monitor(df["p"].to_numpy(), df["y"].to_numpy(), df["segment"].to_numpy())
    assert str(m) == str(ref_m)


@pytest.mark.parametrize("backend", ["pandas", "duckdb", "polars-lazy"])
def test_slice_cap_pools_the_smallest_groups_like_the_arrays(backend, tmp_path):
    import pandas as pd

    rng = np.random.default_rng(8)
    n = 4000
    keys = rng.choice([f"k{i:02d}" for i in range(12)], n, p=np.arange(12, 0, -1) / 78)
    df = pd.DataFrame({"p": np.round(rng.random(n), 2), "y": rng.integers(0, 2, n), "k": keys})
    got = vc.audit(make(backend, df, tmp_path), score="p", label="y", by="k", max_groups=5)
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), by={"k": keys}, max_groups=5)
    assert list(got.groups) == list(want.groups)
    assert list(got.groups)[-1] == "(other 8 values)"
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
@pytest.mark.parametrize("strategy", ["quantile", "equal-count"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_equal_mass_bins_exact_from_per_score_counts(backend, strategy, weighted, tmp_path):
    df = dataset(seed=12)
    w = df["w"].to_numpy() if weighted else None
    got = vc.audit(make(backend, df, tmp_path), score="p", label="y", strategy=strategy, bins=9,
                   sample_weight="w" if weighted else None, by="segment")
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), strategy=strategy, bins=9, sample_weight=w,
                    by={"segment": df["segment"].to_numpy()})
    np.testing.assert_array_equal(got.table.stats.edges, want.table.stats.edges)
    assert got.table.strategy == strategy
    same_audit(got, want)
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])


def _multiclass_frame(n=900, seed=3, logits=False):
    import pandas as pd

    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, (n, 3))
    if not logits:  # ties; from logits the softmax's last bits decide ties, so keep them continuous
        z = np.round(z, 1)
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in P])
    s = z if logits else P
    return pd.DataFrame({"c0": s[:, 0], "c1": s[:, 1], "c2": s[:, 2], "y": y,
                         "w": rng.uniform(0.5, 2, n), "seg": rng.choice(["a", "b"], n)}), s, y


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
@pytest.mark.parametrize("logits", [False, True], ids=["probabilities", "logits"])
def test_multiclass_top_label_on_lazy_frames(backend, logits, tmp_path):
    df, s, y = _multiclass_frame(logits=logits)
    score_type = "logit" if logits else "probability"
    got = vc.audit(make(backend, df, tmp_path), score=["c0", "c1", "c2"], label="y", sample_weight="w",
                   by="seg", score_type=score_type, bins=8)
    want = vc.audit(s, y, sample_weight=df["w"].to_numpy(), by={"seg": df["seg"].to_numpy()},
                    score_type=score_type, bins=8)
    assert got.n_classes == want.n_classes == 3
    same_audit(got, want)
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])


@pytest.mark.parametrize("backend", ["pandas", "duckdb", "polars-lazy"])
def test_multiclass_bad_rows_same_message(backend, tmp_path):
    df, _, _ = _multiclass_frame(60)
    bad = df.assign(c0=np.where(np.arange(60) == 4, df["c0"] + 0.2, df["c0"]))
    with pytest.raises(vc.VeracityError, match=r"multiclass probability rows must sum to 1; 1 of 60 rows of 'c0', 'c1', 'c2'"):
        vc.audit(make(backend, bad, tmp_path), score=["c0", "c1", "c2"], label="y")
    (tmp_path / "b").mkdir()
    with pytest.raises(vc.VeracityError, match=r"column 'y' \(labels\) must hold class indices 0..2 for 3 score columns; 1 of 60"):
        vc.audit(make(backend, df.assign(y=np.where(np.arange(60) == 7, 3, df["y"])), tmp_path / "b"),
                 score=["c0", "c1", "c2"], label="y")


@pytest.mark.dask_cluster
@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "parquet", "dask"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_exact_auc_over_many_score_ranges(backend, weighted, tmp_path, monkeypatch):
    # ranges of ~300 rows: the per-range sorts and their merge carry the whole order, ties included
    from veracity.sources import _aggregates as agg
    from veracity.sources import _duckdb

    monkeypatch.setattr(agg, "ROWS_PER_TASK", 300)
    monkeypatch.setattr(_duckdb, "rows_per_range", lambda relation: 300)
    df = dataset(seed=21)
    w = df["w"].to_numpy() if weighted else None
    frame = make(backend, df, tmp_path)
    got = vc.audit(frame, score="p", label="y", by="segment", sample_weight="w" if weighted else None)
    assert got.auc == pytest.approx(roc_auc_score(df["y"], df["p"], sample_weight=w), rel=1e-12)
    for key in ("east", "north", "south"):
        rows = (df["segment"] == key).to_numpy()
        assert got.groups[key].auc == pytest.approx(
            roc_auc_score(df["y"][rows], df["p"][rows], sample_weight=None if w is None else w[rows]), rel=1e-12)
    if not weighted:  # the same unweighted call on the same rows either way: asked once per backend
        logit = vc.auc(frame, score="logit", label="y", score_type="logit")
        assert logit == vc.auc(df["logit"].to_numpy(), df["y"].to_numpy(), score_type="logit")


def test_dask_local_scheduler_chunked_passes_and_in_memory_shuffle(monkeypatch):
    # no cluster: partitions are read in small chunks and the AUC shuffle is Dask's in-memory "tasks"
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import dask

    from veracity.sources import _aggregates as agg
    from veracity.sources import _dask

    def no_client():
        raise ValueError("no client")

    monkeypatch.setattr(distributed, "default_client", no_client)
    monkeypatch.setattr(_dask, "CHUNK_ROWS", 256)
    monkeypatch.setattr(agg, "ROWS_PER_TASK", 300)
    assert _dask._shuffle_method() == "tasks"
    with dask.config.set({"dataframe.shuffle.method": "disk"}):
        assert _dask._shuffle_method() is None  # the user's choice stands
    df = dataset(seed=8)
    with dask.config.set(scheduler="synchronous"):
        got = vc.audit(dd.from_pandas(df, npartitions=3), score="p", label="y", by="segment", sample_weight="w")
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), sample_weight=df["w"].to_numpy(),
                    by={"segment": df["segment"].to_numpy()})
    same_audit(got, want)
    assert got.auc == pytest.approx(roc_auc_score(df["y"], df["p"], sample_weight=df["w"]), rel=1e-12)
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])


@pytest.mark.parametrize("backend", BACKENDS)
def test_missing_slice_keys_are_one_slice_named_missing(backend, tmp_path):
    df = dataset(n=400, seed=6)
    df["segment"] = df["segment"].where(np.arange(len(df)) % 5 != 0, None)
    got = vc.audit(make(backend, df, tmp_path), score="p", label="y", by="segment")
    missing = df["segment"].isna().to_numpy()
    assert sorted(got.groups) == ["(missing)", "east", "north", "south"]
    assert got.groups["(missing)"].n == int(missing.sum())
    want = vc.audit(df["p"].to_numpy()[missing], df["y"].to_numpy()[missing])
    assert got.groups["(missing)"].auc == pytest.approx(want.auc, rel=1e-12)


@pytest.mark.parametrize("backend", ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "parquet", "dask"])
def test_time_slice_keys_are_named_alike_on_every_backend(backend, tmp_path):
    """Slices by a datetime, a date and a UTC time column: the same names in memory as where the data
    lives (in-memory frames once named them '2026-01-01T00:00:00.000000000'), the same rows in each."""
    df = dataset(n=600, seed=16)
    day = np.random.default_rng(2).integers(0, 3, len(df))
    df["when"] = pd.Timestamp("2026-01-01") + pd.to_timedelta(day, unit="D")
    df["day"] = df["when"].dt.date
    df["utc"] = pd.Timestamp("2026-01-01", tz="UTC") + pd.to_timedelta(day, unit="h")
    frame = make(backend, df, tmp_path)
    names = {"when": [f"2026-01-0{d + 1} 00:00:00" for d in range(3)], "day": [f"2026-01-0{d + 1}" for d in range(3)],
             "utc": [f"2026-01-01 0{d}:00:00+00:00" for d in range(3)]}
    for column, expected in names.items():
        got = vc.audit(frame, score="p", label="y", by=column)
        assert sorted(got.groups) == expected, column
        for d, name in enumerate(expected):
            assert got.groups[name].n == int((day == d).sum())


@pytest.mark.parametrize("backend", ["duckdb-arrow", "polars-lazy"])
@pytest.mark.parametrize("max_groups", [None, 3])
def test_nan_slice_keys_are_one_slice_as_in_memory(backend, max_groups):
    """A float slice column holding NaN: every NaN row in one slice '(missing)', as np.unique groups them
    (DuckDB hands back each NaN as a new float: its rows once split into one slice per bin)."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    rng = np.random.default_rng(17)
    p = rng.random(700)
    y = (rng.random(700) < p).astype(int)
    g = np.where(rng.random(700) < 0.2, np.nan, rng.choice([1.5, 2.0, 3.0, 4.0], 700))
    table = pa.table({"p": p, "y": y, "g": g})  # NaN stays NaN (pandas would make it NULL)
    con = duckdb.connect()
    frame = con.from_arrow(table) if backend == "duckdb-arrow" else pl.from_arrow(table).lazy()
    options = {} if max_groups is None else {"max_groups": max_groups}
    got = vc.audit(frame, score="p", label="y", by="g", **options)
    want = vc.audit(p, y, by=g, **options)
    assert list(got.groups) == list(want.groups)
    assert "(missing)" in want.groups or max_groups
    for key in want.groups:
        a, b = got.groups[key], want.groups[key]
        assert a.n == b.n, key
        for name in ("ece", "brier", "nll", "auc", "accuracy"):
            assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-12, abs=1e-15), (key, name)


@pytest.mark.parametrize("backend", ["array", "pandas", "polars-lazy", "duckdb", "sqlite"])
def test_a_missing_key_beside_the_text_missing_is_refused(backend):
    """Slices are named by their key's text: NULL and the text '(missing)' would share a name (in memory
    one slice of both; in a database one overwrote the other, losing rows): refused in one line. The
    text 'None' is an ordinary key now (the missing key is named '(missing)')."""
    import sqlite3

    import duckdb
    import polars as pl

    rng = np.random.default_rng(18)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    g = np.array(["(missing)", None, "a"] * 100, dtype=object)
    df = pd.DataFrame({"p": p, "y": y, "g": g})
    con = sqlite3.connect(":memory:")
    df.to_sql("t", con, index=False)
    run = {"array": lambda: vc.audit(p, y, by=g), "pandas": lambda: vc.audit(df, score="p", label="y", by="g"),
           "polars-lazy": lambda: vc.audit(pl.from_pandas(df).lazy(), score="p", label="y", by="g"),
           "duckdb": lambda: vc.audit(duckdb.from_df(df), score="p", label="y", by="g"),
           "sqlite": lambda: vc.audit(con, table="t", score="p", label="y", by="g")}[backend]
    refused = r"^two slice keys, .* are both named '\(missing\)'; make them distinct"
    with pytest.raises(vc.VeracityError, match=refused) as info:
        run()
    assert "\n" not in str(info.value)
    ok = vc.audit(df.assign(g=df["g"].fillna("missing")), score="p", label="y", by="g")
    assert sorted(ok.groups) == ["(missing)", "a", "missing"] and ok.groups["missing"].n == 100
    # the text 'None' beside a missing key: two slices, 'None' and '(missing)', 100 rows each
    texts = vc.audit(p, y, by=np.array(["None", None, "a"] * 100, dtype=object))
    assert list(texts.groups) == ["None", "a", "(missing)"]
    assert texts.groups["None"].n == texts.groups["(missing)"].n == 100


@pytest.mark.parametrize("max_groups", [None, 2, 3, 4])
def test_the_missing_slice_is_last_on_every_backend(max_groups):
    """Slice order, and which keys a cap keeps among equal sizes, are the same in memory as in
    DuckDB, polars and SQLite: values in order, the missing keys' slice last (memory once sorted
    its name 'None' among the texts, keeping other slices under a cap; it is named '(missing)' now)."""
    import sqlite3

    import duckdb
    import polars as pl

    rng = np.random.default_rng(19)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(int)
    g = np.array(["b", None, "a", "Z"] * 100, dtype=object)
    df = pd.DataFrame({"p": p, "y": y, "g": g})
    con = sqlite3.connect(":memory:")
    df.to_sql("t", con, index=False)
    options = {} if max_groups is None else {"max_groups": max_groups}
    runs = [vc.audit(p, y, by=g, **options), vc.audit(df, score="p", label="y", by="g", **options),
            vc.audit(pl.from_pandas(df).lazy(), score="p", label="y", by="g", **options),
            vc.audit(duckdb.from_df(df), score="p", label="y", by="g", **options),
            vc.audit(con, table="t", score="p", label="y", by="g", **options)]
    names = [list(r.groups) for r in runs]
    assert all(n == names[0] for n in names), names
    assert max_groups is not None or names[0] == ["Z", "a", "b", "(missing)"]
    for r in runs[1:]:
        for key in names[0]:
            assert r.groups[key].ece == pytest.approx(runs[0].groups[key].ece, rel=1e-12)
