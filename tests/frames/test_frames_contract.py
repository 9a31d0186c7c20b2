"""Bad inputs give the same one-line message on every backend (one input contract)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import make, threaded_dask

BACKENDS = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "parquet", "dask"]


def _base(n=50):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"p": np.round(rng.random(n), 2), "y": rng.integers(0, 2, n),
                         "w": rng.uniform(0.5, 2, n)})


def _set(col, row, value, dtype=None):
    def edit(df):
        df = df.copy()
        if dtype is not None:
            df[col] = df[col].astype(dtype)
        df.loc[row, col] = value
        return df
    return edit


CASES = [
    ("nan score", _set("p", 3, np.nan), {}, r"^column 'p' \(scores\) has 1 missing/NaN and 0 infinite values of 50 rows"),
    ("inf score", _set("p", 3, np.inf), {}, r"^column 'p' \(scores\) has 0 missing/NaN and 1 infinite"),
    ("out of range", _set("p", 7, 1.5), {}, r"^column 'p' \(scores\) must be probabilities in \[0, 1\]; 1 of 50 are not \(min=.*, max=1\.5\)\. If these are logits"),
    ("label 2", _set("y", 4, 2), {}, r"^column 'y' \(labels\) must be binary 0/1 \(or bool\); 1 of 50 are not \(min=2, max=2\)"),
    ("label nan", _set("y", 4, np.nan, "float64"), {}, r"^column 'y' \(labels\) has 1 missing value \(None/NaN\) of 50 rows; drop or fill that row first"),
    ("negative weight", _set("w", 5, -1.0), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) must be non-negative; 1 of 50 are negative \(min=-1\)"),
    ("infinite weight", _set("w", 5, np.inf), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) has 1 missing, NaN or infinite"),
    ("zero weights", lambda df: df.assign(w=0.0), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) sums to 0"),
    ("string scores", lambda df: df.assign(p=df["p"].astype(str)), {}, r"^column 'p' \(scores\) must be numeric, got String"),
    ("yes/no labels", lambda df: df.assign(y=np.where(df["y"] == 1, "yes", "no")), {}, r"^column 'y' \(labels\) must hold 0/1 numbers or booleans, got text \(values 'no', 'yes'\)"),
    # a path: the in-memory read's words on every engine (round 30; globs: test_engine_no_rows_r30.py)
    ("no rows", lambda df: df.iloc[:0], {},
     r"^(the frame has|.+scores\.parquet has a header but) no rows; pass (at least one row|a file with at "
     r"least one data row)$"),
    ("missing column", lambda df: df, {"label": "target"}, r"^column 'target' not found.*; available columns: p, y, w$"),
]


@pytest.mark.xdist_group("dask")  # starts the Dask cluster (tests/conftest.py groups by engine)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_message_on_every_backend(case, tmp_path):
    _, edit, kwargs, match = case
    df = edit(_base())
    messages = set()
    for backend in BACKENDS:
        sub = tmp_path / backend
        sub.mkdir()
        with pytest.raises(vc.VeracityError, match=match) as info:
            vc.audit(make(backend, df, sub), **{"score": "p", "label": "y", **kwargs})
        messages.add(str(info.value).replace(str(sub / "scores.parquet"), "<file>").replace(" in <file>", ""))
    if case[0] == "no rows":  # one wording per kind of source: a frame, a file
        assert messages == {"the frame has no rows; pass at least one row",
                            "<file> has a header but no rows; pass a file with at least one data row"}, \
            messages
        return
    assert len(messages) == 1, messages


@pytest.mark.parametrize("backend", BACKENDS)
def test_boolean_labels_and_integer_scores_are_fine(backend, tmp_path):
    df = _base().assign(y=lambda d: d["y"] == 1, p=lambda d: (d["p"] > 0.5).astype(np.int64))
    got = vc.audit(make(backend, df, tmp_path), score="p", label="y")
    assert got.brier == pytest.approx(vc.brier(df["p"].to_numpy(), df["y"].to_numpy()), rel=1e-12)


def test_decimal_scores_are_read_as_floats(tmp_path):
    """A DECIMAL column (DuckDB reads 0.5 as DECIMAL(2,1)) is audited as its nearest float64 values,
    as the array form and the SQL route read it (tests/hardening/test_hostile_frames_r5.py)."""
    import duckdb

    rel = duckdb.connect().sql("SELECT 0.5 AS p, 1 AS y UNION ALL SELECT 0.25, 0")
    assert vc.audit(rel, score="p", label="y").brier == pytest.approx(vc.brier([0.5, 0.25], [1, 0]), abs=1e-15)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bins": 0}, r"bins must be a positive integer"),
        ({"score_type": "odds"}, r"score_type must be"),
        ({"threshold": 2}, r"threshold must be a probability"),
        ({"sample_weight": np.ones(3)}, r"with a frame, sample_weight= names a column"),
        ({"score": 3}, r"score= must name a column"),
        ({"label": None}, r"needs both column names"),
        ({"strategy": "nope"}, r"strategy must be"),
        ({"bootstrap": True}, r"bootstrap need every row in memory"),
        ({"multiclass": "classwise"}, r"reads \(N, K\) scores top-label only; for multiclass='classwise' collect"),
    ],
)
def test_bad_options_on_a_lazy_frame(kwargs, match, tmp_path):
    frame = make("duckdb", _base(), tmp_path)
    with pytest.raises(vc.VeracityError, match=match):
        vc.audit(frame, **{"score": "p", "label": "y", **kwargs})


def test_auc_single_class_message_matches_arrays(tmp_path):
    df = _base().assign(y=1)
    with pytest.raises(vc.VeracityError) as arrays:
        vc.auc(df["p"], df["y"])
    with pytest.raises(vc.VeracityError) as lazy:
        vc.auc(make("duckdb", df, tmp_path), score="p", label="y")
    assert str(lazy.value) == str(arrays.value)
    assert vc.audit(make("duckdb", df, tmp_path), score="p", label="y").auc is None


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_weight_scale_invariance_on_a_lazy_frame(scale, tmp_path):
    df = _base(200)
    want = vc.audit(make("duckdb", df, tmp_path), score="p", label="y", sample_weight="w", bins="auto")
    got = vc.audit(make("duckdb", df.assign(w=df["w"] * scale), tmp_path), score="p", label="y",
                   sample_weight="w", bins="auto")
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=1e-9), key
    assert got.table.bins == want.table.bins


def _multiclass(n=600, seed=5, logits=False):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, (n, 3))
    if not logits:  # ties; from logits keep them continuous (the softmax's last bits decide ties)
        z = np.round(z, 1)
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    s = z if logits else P
    return pd.DataFrame({"c0": s[:, 0], "c1": s[:, 1], "c2": s[:, 2], "y": y,
                         "w": rng.uniform(0.5, 2, n), "seg": rng.choice(["a", "b"], n)}), s, y


def test_multiclass_top_label_on_dask(tmp_path):
    # the row-wise max/argmax/log-sum-exp run as staged columns, which Dask aligns (probabilities
    # without slices: test_frames_backends.py::test_multiclass_frame_in_memory)
    df, s, y = _multiclass(300, logits=True)
    score_type = "logit"
    with threaded_dask():  # the cluster: test_frames_backends.py::test_multiclass_frame_in_memory
        got = vc.audit(make("dask", df, tmp_path), score=["c0", "c1", "c2"], label="y", sample_weight="w",
                       by="seg", score_type=score_type, bins=8)
    want = vc.audit(s, y, sample_weight=df["w"].to_numpy(), by={"seg": df["seg"].to_numpy()},
                    score_type=score_type, bins=8)
    assert got.n_classes == 3 and got.group_column == "seg"
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=1e-9), key
    for key in want.groups:
        assert got.groups[key].metrics["ece"] == pytest.approx(want.groups[key].metrics["ece"], rel=1e-9)


def test_multiclass_bad_rows_same_message_on_dask(tmp_path):
    df, _, _ = _multiclass(60)
    bad = df.assign(c0=np.where(np.arange(60) == 4, df["c0"] + 0.2, df["c0"]))
    with pytest.raises(vc.VeracityError, match=r"^multiclass probability rows must sum to 1; 1 of 60 rows"):
        vc.audit(make("dask", bad, tmp_path), score=["c0", "c1", "c2"], label="y")


# ---------------------------------------------------------------------------------------
# pos_label= on a frame: two-valued labels of any type, where the data lives
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", [*BACKENDS, "csv", "glob", "spark"])
def test_pos_label_text_labels_on_every_backend(backend, tmp_path, request):
    df = _base(400).assign(seg=lambda d: np.where(np.arange(400) % 3 == 0, "a", "b"))
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), sample_weight=df["w"].to_numpy(),
                    by={"seg": df["seg"].to_numpy()})
    text = df.assign(y=np.where(df["y"] == 1, "yes", "no"))
    got = vc.audit(make(backend, text, tmp_path, request), score="p", label="y", pos_label="yes",
                   sample_weight="w", by="seg")
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
    np.testing.assert_allclose(got.table.stats.sum_y, want.table.stats.sum_y, rtol=1e-12)
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=1e-9), key
    assert got.group_column == "seg"  # the slice column is named after the frame's column
    assert list(got.groups) == ["a", "b"]


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
@pytest.mark.parametrize("pos_label", [True, False])
def test_pos_label_boolean_labels_and_the_negative_class(backend, pos_label, tmp_path):
    df = _base(300)
    frame = make(backend, df.assign(y=df["y"] == 1), tmp_path)
    y = (df["y"] == 1) if pos_label else (df["y"] == 0)
    got = vc.brier(frame, score="p", label="y", pos_label=pos_label)
    assert got == pytest.approx(vc.brier(df["p"].to_numpy(), y.to_numpy().astype(float)), rel=1e-12)
    assert vc.auc(frame, score="p", label="y", pos_label=pos_label) == pytest.approx(
        vc.auc(df["p"].to_numpy(), y.to_numpy()), rel=1e-12)


POS_LABEL_CASES = [
    ("three values", lambda d: d.assign(y=np.where(np.arange(len(d)) == 4, "maybe", np.where(d["y"] == 1, "yes", "no"))),
     "yes", r"^column 'y' \(labels\): pos_label= needs a binary label set, but the labels take 3 values "
            r"\('maybe', 'no', 'yes'\); pass \(N, K\) scores for a multiclass problem$"),
    ("not a value", lambda d: d.assign(y=np.where(d["y"] == 1, "yes", "no")),
     "Yes", r"^pos_label='Yes' is not among the values of column 'y' \(labels\) \('no', 'yes'\); pass one of them$"),
    ("missing label", lambda d: d.assign(y=np.where(np.arange(len(d)) == 4, None, np.where(d["y"] == 1, "yes", "no"))),
     "yes", r"^column 'y' \(labels\) has 1 missing value \(None/NaN\) of 50 rows; drop or fill that row first$"),
]


@pytest.mark.xdist_group("dask")  # starts the Dask cluster (tests/conftest.py groups by engine)
@pytest.mark.parametrize("case", POS_LABEL_CASES, ids=[c[0] for c in POS_LABEL_CASES])
def test_pos_label_bad_label_sets_same_message_on_every_backend(case, tmp_path):
    _, edit, pos_label, match = case
    df = edit(_base())
    messages = set()
    for backend in BACKENDS:
        sub = tmp_path / backend
        sub.mkdir()
        with pytest.raises(vc.VeracityError, match=match) as info:
            vc.audit(make(backend, df, sub), score="p", label="y", pos_label=pos_label)
        messages.add(str(info.value))
    assert len(messages) == 1, messages


def test_pos_label_text_from_the_command_line_reads_in_the_column_type(tmp_path):
    # --pos-label passes text: "1" names 1 on a numeric column, "true" names True on a boolean one
    df = _base(200)
    want = vc.brier(df["p"].to_numpy(), df["y"].to_numpy())
    assert vc.brier(make("duckdb", df, tmp_path), score="p", label="y", pos_label="1") == pytest.approx(want)
    (tmp_path / "b").mkdir()
    boolean = make("duckdb", df.assign(y=df["y"] == 1), tmp_path / "b")
    assert vc.brier(boolean, score="p", label="y", pos_label="true") == pytest.approx(want)
    with pytest.raises(vc.VeracityError, match=r"pos_label='x' is not among the values of column 'y'"):
        vc.brier(boolean, score="p", label="y", pos_label="x")


def test_pos_label_refused_for_multiclass(tmp_path):
    df, _, _ = _multiclass(60)
    with pytest.raises(vc.VeracityError, match=r"^pos_label= is for binary labels"):
        vc.audit(make("duckdb", df, tmp_path), score=["c0", "c1", "c2"], label="y", pos_label=1)


@pytest.mark.parametrize("backend", BACKENDS)  # Spark: test_pos_label_text_labels_on_every_backend
def test_slice_column_named_after_the_frames_column(backend, tmp_path, request):
    df = _base(300).assign(**{"Region Code": lambda d: np.where(np.arange(300) % 2 == 0, "x", "y")})
    got = vc.audit(make(backend, df, tmp_path, request), score="p", label="y", by="Region Code")
    assert got.group_column == "Region Code"
    assert "By Region Code:" in str(got)
    assert got.to_dict()["by"] == "Region Code"


def test_cli_audit_pos_label_on_the_duckdb_engine(tmp_path, cli):
    # veracity audit FILE --engine duckdb --pos-label yes: the lazy path reads text labels too (in-process
    # through tests/conftest.py's ``cli``: the claim is the option's reading, not the process; two
    # interpreter starts were ~2.5 s of this test)
    import json

    df = _base(120)
    path = tmp_path / "scores.csv"
    df.assign(y=np.where(df["y"] == 1, "yes", "no")).to_csv(path, index=False)
    out = cli(["audit", str(path), "--score", "p", "--label", "y", "--engine", "duckdb", "--pos-label", "yes",
               "--json"])
    assert out.code == 0, out.err
    got = json.loads(out.out)
    assert got["metrics"]["brier"] == pytest.approx(vc.brier(df["p"].to_numpy(), df["y"].to_numpy()), rel=1e-12)
    bad = cli(["audit", str(path), "--score", "p", "--label", "y", "--engine", "duckdb", "--pos-label", "maybe"])
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1
    assert "is not among the values of column 'y'" in bad.err


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_contract_in_the_bin_pass_equals_its_own_pass(backend, tmp_path, monkeypatch):
    # DuckDB, Dask and polars count the contract in the bin-sum pass; the separate pass is the reference
    from veracity.sources import _api

    from .conftest import dataset

    df = dataset(seed=9)
    fused = vc.audit(make(backend, df, tmp_path), score="logit", label="y", score_type="logit", by="segment")
    bad = df.assign(logit=np.where(np.arange(len(df)) == 5, -np.inf, df["logit"]))
    (tmp_path / "bad").mkdir()
    with pytest.raises(vc.VeracityError) as fused_error:
        vc.audit(make(backend, bad, tmp_path / "bad"), score="logit", label="y", score_type="logit")
    monkeypatch.setattr(_api, "FUSED_BACKENDS", set())
    alone = vc.audit(make(backend, df, tmp_path), score="logit", label="y", score_type="logit", by="segment")
    for got, want in [(fused, alone), *((fused.groups[k], alone.groups[k]) for k in alone.groups)]:
        assert got.n == want.n
        np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
        np.testing.assert_allclose(got.table.stats.sum_nll, want.table.stats.sum_nll, rtol=1e-12)
        assert got.metrics == pytest.approx(want.metrics, rel=1e-12)
    with pytest.raises(vc.VeracityError) as alone_error:
        vc.audit(make(backend, bad, tmp_path / "bad"), score="logit", label="y", score_type="logit")
    assert str(fused_error.value) == str(alone_error.value)
    assert "has 0 missing/NaN and 1 infinite" in str(fused_error.value)
