"""Spark for real (``local[2]``, one session for the run): the same audit as the arrays.

Spark is also in the shared parametrisation (conftest.BACKENDS); these add what
only Spark needs. Few and quick on purpose — starting the JVM dominates. The SQL-injection column
name and the bad-input message are checked here too.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import veracity as vc

from .conftest import dataset, make
from .test_frames_backends import same_audit


def test_spark_audit_equals_the_array_form(spark, tmp_path, request):
    """The weighted Spark case of test_frames_backends.py::test_audit_equals_the_array_form (which runs Spark
    unweighted only), every assert of it, on column names that need quoting."""
    df = dataset().rename(columns={"p": 'p"; DROP TABLE x; --', "segment": "seg`ment"})
    frame = make("spark", df, tmp_path, request)
    got = vc.audit(frame, score='p"; DROP TABLE x; --', label="y", sample_weight="w", by="seg`ment", bins=12)
    p, y, w = df['p"; DROP TABLE x; --'].to_numpy(), df["y"].to_numpy(), df["w"].to_numpy()
    want = vc.audit(p, y, sample_weight=w, bins=12, by={"seg`ment": df["seg`ment"].to_numpy()})
    same_audit(got, want)
    assert got.auc == pytest.approx(roc_auc_score(y, p, sample_weight=w), rel=1e-12)
    assert got.group_column == "seg`ment"
    assert list(got.groups) == list(want.groups) == ["east", "north", "south"]
    for key in want.groups:
        same_audit(got.groups[key], want.groups[key])
        rows = (df["seg`ment"] == key).to_numpy()
        assert got.groups[key].auc == pytest.approx(roc_auc_score(y[rows], p[rows], sample_weight=w[rows]),
                                                    rel=1e-12)
    assert "By seg`ment:" in str(got)


def test_spark_logits_metrics_and_bad_input(spark, tmp_path, request):
    # the exact AUC of logits on Spark (vc.auc(frame, score_type="logit") equal to the arrays'):
    # test_spark_exact_auc_over_many_score_ranges, over many score ranges
    df = dataset(seed=4)
    frame = make("spark", df, tmp_path, request)
    assert vc.ece(frame, score="p", label="y") == pytest.approx(vc.ece(df["p"], df["y"]), rel=1e-9)
    (tmp_path / "bad").mkdir()
    bad = make("spark", df.assign(y=np.where(np.arange(len(df)) == 5, 2, df["y"])), tmp_path / "bad", request)
    with pytest.raises(vc.VeracityError) as spark_error:
        vc.audit(bad, score="p", label="y")
    with pytest.raises(vc.VeracityError) as pandas_error:
        vc.audit(df.assign(y=np.where(np.arange(len(df)) == 5, 2, df["y"])), score="p", label="y")
    assert str(spark_error.value) == str(pandas_error.value)


def test_spark_exact_auc_over_many_score_ranges(spark, tmp_path, request, monkeypatch):
    # one shuffle by score range (~300 rows each) into numpy in the Python workers, ties included
    from veracity.sources import _aggregates as agg

    monkeypatch.setattr(agg, "ROWS_PER_TASK", 300)
    df = dataset(seed=21)
    frame = make("spark", df, tmp_path, request)
    w = df["w"].to_numpy()
    got = vc.audit(frame, score="p", label="y", by="segment", sample_weight="w")
    assert got.auc == pytest.approx(roc_auc_score(df["y"], df["p"], sample_weight=w), rel=1e-12)
    for key in ("east", "north", "south"):
        rows = (df["segment"] == key).to_numpy()
        assert got.groups[key].auc == pytest.approx(roc_auc_score(df["y"][rows], df["p"][rows],
                                                                  sample_weight=w[rows]), rel=1e-12)
    assert vc.auc(frame, score="logit", label="y", score_type="logit") == vc.auc(
        df["logit"].to_numpy(), df["y"].to_numpy(), score_type="logit")


def test_spark_gives_each_score_range_its_own_task(spark):
    from pyspark.sql import functions as F

    from veracity.sources._spark import spread_keys

    keys = spread_keys(spark, 7)
    frame = spark.createDataFrame([(k,) for k in keys], "k int").repartition(7, "k")
    placed = frame.select("k", F.spark_partition_id().alias("part")).collect()
    assert sorted(row["part"] for row in placed) == list(range(7))
    assert {row["k"]: row["part"] for row in placed} == {k: i for i, k in enumerate(keys)}


def test_spark_label_in_the_sign_bit_keeps_zero_scores_and_ties(spark, tmp_path, request, monkeypatch):
    # probabilities cross the shuffle as one column (+s positive, -s negative): 0.0, -0.0 and 1.0
    # with both labels, and heavy ties, must still give roc_auc_score exactly
    import pandas as pd

    from veracity.sources import _aggregates as agg

    monkeypatch.setattr(agg, "ROWS_PER_TASK", 200)
    rng = np.random.default_rng(12)
    n = 1500
    p = rng.choice([0.0, -0.0, 0.25, 0.5, 1.0], n) * rng.choice([1.0, 1.0, rng.random()], n)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"p": p, "y": y})
    assert ((df["p"] == 0) & (df["y"] == 1)).any() and np.signbit(df["p"]).any()
    got = vc.audit(make("spark", df, tmp_path, request), score="p", label="y")
    assert got.auc == roc_auc_score(y, p)


def test_spark_reads_boolean_scores_and_weights_and_subnormal_weights(spark, tmp_path, request):
    """Before: a boolean score (or weight) column was refused ("must be numeric, got Boolean") while the
    array form reads it as 0/1; weights below 2.2e-308 raised OverflowError (math range error)."""
    df = dataset()
    hard = (df["p"] >= 0.5).to_numpy()
    keep = (df["w"] > 1.0).to_numpy()
    tiny = df["w"].to_numpy() * 1e-310
    frame = make("spark", df.assign(p=hard, keep=keep, tiny=tiny), tmp_path, request)
    y = df["y"].to_numpy()
    same_audit(vc.audit(frame, score="p", label="y", sample_weight="keep"),
               vc.audit(hard, y, sample_weight=keep))
    got = vc.audit(frame, score="p", label="y", sample_weight="tiny")
    want = vc.audit(hard, y, sample_weight=tiny)
    assert got.ece == pytest.approx(want.ece, rel=1e-12)
    assert got.auc == pytest.approx(want.auc, rel=1e-12)
