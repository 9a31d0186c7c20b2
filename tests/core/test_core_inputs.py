"""Input containers, multiclass readings, slices and the JSON shape."""

import json

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc

rng = np.random.default_rng(0)
P = rng.random(500)
Y = (rng.random(500) < P).astype(int)


@pytest.mark.parametrize(
    "convert",
    [
        list,
        pd.Series,
        pl.Series,
        pa.array,
        lambda a: pa.chunked_array([a[:200], a[200:]]),
        lambda a: a.astype(np.float32),
    ],
    ids=["list", "pandas", "polars", "pyarrow", "chunked", "float32"],
)
def test_containers_give_same_numbers(convert):
    expected = vc.audit(P, Y).metrics
    got = vc.audit(convert(P), convert(Y.astype(float)) if convert is not list else list(Y)).metrics
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-6 if convert is not list else 0)


def test_bool_labels():
    assert vc.brier(P, Y.astype(bool)) == vc.brier(P, Y)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    assert vc.auc(torch.tensor(P), torch.tensor(Y)) == vc.auc(P, Y)


def test_pandas_missing_values_are_an_error():
    s = pd.Series([0.1, None, 0.5], dtype="Float64")
    with pytest.raises(vc.VeracityError, match="NaN|missing|numeric"):
        vc.ece(s, [0, 1, 1])


def test_pyarrow_nulls_are_an_error():
    with pytest.raises(vc.VeracityError, match="1 missing"):
        vc.ece(pa.array([0.1, None, 0.5]), [0, 1, 1])


def test_logit_and_probability_readings_agree():
    s = rng.normal(0, 2, 1000)
    y = (rng.random(1000) < 1 / (1 + np.exp(-s))).astype(int)
    p = 1 / (1 + np.exp(-s))
    a = vc.audit(s, y, score_type="logit")
    b = vc.audit(p, y)
    for key in ("ece", "brier", "auc", "accuracy"):
        assert a.metrics[key] == pytest.approx(b.metrics[key], abs=1e-12)
    assert a.nll == pytest.approx(b.nll, rel=1e-9)


def test_multiclass_top_label_reading():
    z = rng.normal(size=(800, 5)) * 2
    y = rng.integers(0, 5, 800)
    Pm = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    conf = Pm.max(1)
    correct = (Pm.argmax(1) == y).astype(int)
    assert vc.ece(Pm, y) == pytest.approx(vc.ece(conf, correct), abs=1e-15)
    assert vc.accuracy(Pm, y) == pytest.approx(correct.mean())
    assert vc.auc(Pm, y) == pytest.approx(vc.auc(conf, correct))
    assert vc.brier(Pm, y) == pytest.approx(vc.brier(conf, correct))
    # logits give the same top-label numbers
    assert vc.ece(z, y, score_type="logit") == pytest.approx(vc.ece(Pm, y), abs=1e-12)
    # classwise: mean of one-vs-rest ECEs; Brier's original multiclass score
    cw = np.mean([vc.ece(Pm[:, k], (y == k).astype(int)) for k in range(5)])
    assert vc.ece(Pm, y, multiclass="classwise") == pytest.approx(cw)
    onehot = np.eye(5)[y]
    assert vc.brier(Pm, y, multiclass="classwise") == pytest.approx(((Pm - onehot) ** 2).sum(1).mean())
    result = vc.audit(Pm, y)
    assert result.n_classes == 5 and "top-label" in str(result)


def test_audit_slices_share_edges_and_sum_to_whole():
    groups = np.where(np.arange(500) % 3 == 0, "a", "b")
    result = vc.audit(P, Y, by={"cohort": groups}, strategy="quantile", bins=8)
    assert set(result.groups) == {"a", "b"}
    for g in result.groups.values():
        np.testing.assert_array_equal(g.table.stats.edges, result.table.stats.edges)
    merged = result.groups["a"].table.stats + result.groups["b"].table.stats
    np.testing.assert_array_equal(merged.count, result.table.stats.count)
    assert result.groups["a"].n == int((groups == "a").sum())
    # uniform bins are data-independent, so a slice's ECE equals the ECE of its rows
    uniform = vc.audit(P, Y, by=groups)
    assert uniform.groups["a"].ece == pytest.approx(vc.ece(P[groups == "a"], Y[groups == "a"]), abs=1e-15)
    assert "By cohort:" in str(result)


def test_audit_to_dict_matches_design_contract():
    d = json.loads(json.dumps(vc.audit(P, Y).to_dict()))
    assert set(d["metrics"]) == {"ece", "mce", "brier", "nll", "auc", "accuracy"}
    assert d["n"] == 500
    row_keys = {"lo", "hi", "n", "conf", "acc", "gap", "ci_low", "ci_high", "sufficient"}
    assert all(row_keys <= set(row) for row in d["table"])
    assert d["metrics"]["ece"] == pytest.approx(vc.ece(P, Y))
    assert d["metrics"]["brier"] == pytest.approx(vc.brier(P, Y), abs=1e-14)
    assert d["metrics"]["nll"] == pytest.approx(vc.nll(P, Y), rel=1e-12)
    assert d["metrics"]["auc"] == vc.auc(P, Y)


def test_table_string_layout():
    text = str(vc.reliability(P, Y, bins=10))
    header = text.splitlines()[0].split()
    assert header[:5] == ["bin", "count", "conf", "acc", "gap"]
    assert "95% CI" in text.splitlines()[0]
    assert text.splitlines()[-1].startswith("(500 points")
