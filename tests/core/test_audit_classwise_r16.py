"""``vc.audit(..., multiclass="classwise")``: each class binned by its own probabilities, the classwise
ECE and Brier's multiclass score reported beside the top-label headline, and the slice table's
accuracy column named for what it holds."""
from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _multiclass(n: int = 6000, k: int = 4, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 1.5
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    truth = np.exp(0.6 * z) / np.exp(0.6 * z).sum(1, keepdims=True)  # an overconfident model
    y = (truth.cumsum(1) < rng.uniform(size=(n, 1))).sum(1)
    return p, y


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_each_class_is_its_own_one_vs_rest_audit(strategy: str) -> None:
    p, y = _multiclass()
    res = vc.audit(p, y, multiclass="classwise", strategy=strategy, bins=10)
    for k in range(p.shape[1]):
        alone = vc.audit(p[:, k], (y == k).astype(int), strategy=strategy, bins=10)
        group = res.groups[f"class {k}"]
        assert group.ece == pytest.approx(alone.ece, abs=1e-12)
        assert [r.count for r in group.table.rows] == [r.count for r in alone.table.rows]
    if strategy == "quantile":  # equal-mass bins of the class's probabilities: no bin holds most rows
        assert max(r.count for r in res.groups["class 0"].table.rows) < 0.2 * len(y)


def test_classwise_summary_matches_the_definitions() -> None:
    p, y = _multiclass()
    res = vc.audit(p, y, multiclass="classwise", strategy="quantile", bins=10)
    summary = res.extras["classwise"]
    onehot = np.eye(p.shape[1])[y]
    assert summary.brier == pytest.approx(float(((p - onehot) ** 2).sum(axis=1).mean()), abs=1e-12)
    assert summary.brier == pytest.approx(vc.brier(p, y, multiclass="classwise"), abs=1e-12)
    assert summary.ece == pytest.approx(vc.ece(p, y, multiclass="classwise", strategy="quantile", bins=10), abs=1e-12)
    assert res.to_dict()["classwise"] == {"n_classes": 4, "ece": summary.ece, "brier": summary.brier}
    text = str(res)
    assert f"classwise ECE {summary.ece:.4f}" in text and f"multiclass Brier {summary.brier:.4f}" in text
    assert "(all, top-label)" in text


def test_accuracy_column_names_its_threshold_or_reading() -> None:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    g = rng.choice(["a", "b"], 400)
    assert "acc@0.3" in str(vc.audit(p, y, by=g, threshold=0.3)).split("By")[1]
    pm, ym = _multiclass(400)
    assert "top-label acc" in str(vc.audit(pm, ym, by=g)).split("By")[1]


def test_cli_multiclass_classwise(tmp_path, cli, refused) -> None:
    import json

    import pandas as pd

    p, y = _multiclass(1500, 3)
    path = tmp_path / "mc.csv"
    pd.DataFrame({"a": p[:, 0], "b": p[:, 1], "c": p[:, 2], "y": y, "g": y % 2}).to_csv(path, index=False)
    res = cli(["audit", path, "--score", "a,b,c", "--label", "y", "--multiclass", "classwise", "--json", "-",
               "--strategy", "quantile", "--bins", "8"])
    assert res.code == 0, res.err
    got = json.loads(res.out)
    assert list(got["groups"]) == ["class 0", "class 1", "class 2"]
    assert got["classwise"]["ece"] == pytest.approx(
        vc.ece(p, y, multiclass="classwise", strategy="quantile", bins=8), abs=1e-12)
    assert got["classwise"]["brier"] == pytest.approx(vc.brier(p, y, multiclass="classwise"), abs=1e-12)
    base = ["audit", path, "--label", "y", "--multiclass", "classwise"]
    refused(cli(base + ["--score", "a"]), "one --score column per class")
    refused(cli(base + ["--score", "a,b,c", "--by", "g"]), "pass one of them")
    refused(cli(base + ["--score", "a,b,c", "--engine", "duckdb"]), "--engine memory")
