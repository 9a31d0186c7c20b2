"""Bad inputs give the same one-line message on every backend (one input contract)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import make

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
    ("out of range", _set("p", 7, 1.5), {}, r"^column 'p' \(scores\) must hold probabilities in \[0, 1\]; 1 of 50 are not \(min=.*, max=1\.5\)\. If these are logits"),
    ("label 2", _set("y", 4, 2), {}, r"^column 'y' \(labels\) must be binary 0/1 \(or bool\); 1 of 50 are not \(min=2, max=2\)"),
    ("label nan", _set("y", 4, np.nan, "float64"), {}, r"^column 'y' \(labels\) must be binary 0/1 \(or bool\); 1 of 50 are not \(missing\)"),
    ("negative weight", _set("w", 5, -1.0), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) must be non-negative; 1 of 50 are negative \(min=-1\)"),
    ("infinite weight", _set("w", 5, np.inf), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) has 1 missing, NaN or infinite"),
    ("zero weights", lambda df: df.assign(w=0.0), {"sample_weight": "w"}, r"^column 'w' \(sample_weight\) sums to 0"),
    ("string scores", lambda df: df.assign(p=df["p"].astype(str)), {}, r"^column 'p' \(scores\) must be numeric, got String"),
    ("yes/no labels", lambda df: df.assign(y=np.where(df["y"] == 1, "yes", "no")), {}, r"^column 'y' \(labels\) must hold 0/1 numbers or booleans, got String"),
    ("missing column", lambda df: df, {"label": "target"}, r"^column 'target' not found.*; available columns: p, y, w$"),
]


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
    assert len(messages) == 1, messages


@pytest.mark.parametrize("backend", BACKENDS)
def test_boolean_labels_and_integer_scores_are_fine(backend, tmp_path):
    df = _base().assign(y=lambda d: d["y"] == 1, p=lambda d: (d["p"] > 0.5).astype(np.int64))
    got = vc.audit(make(backend, df, tmp_path), score="p", label="y")
    assert got.brier == pytest.approx(vc.brier(df["p"].to_numpy(), df["y"].to_numpy()), rel=1e-12)


def test_decimal_scores_refused(tmp_path):
    import duckdb

    rel = duckdb.connect().sql("SELECT 0.5 AS p, 1 AS y UNION ALL SELECT 0.25, 0")
    with pytest.raises(vc.VeracityError, match=r"column 'p' \(scores\) is Decimal.*cast it to a float"):
        vc.audit(rel, score="p", label="y")


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
        ({"multiclass": "classwise"}, r"unknown option|binary"),
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


@pytest.mark.parametrize("logits", [False, True], ids=["probabilities", "logits"])
def test_multiclass_top_label_on_dask(logits, tmp_path):
    # the row-wise max/argmax/log-sum-exp run as staged columns, which Dask aligns
    df, s, y = _multiclass(logits=logits)
    score_type = "logit" if logits else "probability"
    got = vc.audit(make("dask", df, tmp_path), score=["c0", "c1", "c2"], label="y", sample_weight="w", by="seg",
                   score_type=score_type, bins=8)
    want = vc.audit(s, y, sample_weight=df["w"].to_numpy(), by=df["seg"].to_numpy(), by_name="seg",
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
