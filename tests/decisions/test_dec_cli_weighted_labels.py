"""What the decision commands print beside their numbers, weighted or Mondrian (session 11).

* `veracity threshold --sample-weight` headed a column of weight sums "rows" (403 "rows" on a role of
  about 200 rows with weights 1-3).
* `veracity conformal --mondrian` printed as "theory" the Beta law of one marginal q̂ from all calib
  rows; Mondrian fits one q̂ per class, each following the law of that class's n_c rows.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.cli import main


@pytest.fixture
def binary_file(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    p = np.round(rng.beta(2, 5, n), 2)
    y = (rng.random(n) < p).astype(int)
    w = rng.integers(1, 4, n).astype(float)
    role = np.where(rng.random(n) < 0.5, "calib", "test")
    path = tmp_path / "b.csv"
    pd.DataFrame({"score": p, "label": y, "w": w, "role": role}).to_csv(path, index=False)
    return path, p, y, w, role


def test_threshold_table_heads_weight_sums_weight(binary_file, capsys):
    path, p, y, w, role = binary_file
    assert main(["threshold", str(path), "--sample-weight", "w", "--target-recall", "0.9", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(line for line in lines if line.startswith("role"))
    assert head.split()[1] == "weight"
    calib = next(line for line in lines if line.startswith("calib"))
    assert float(calib.split()[1]) == pytest.approx(w[role == "calib"].sum())
    assert main(["threshold", str(path), "--target-recall", "0.9", "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert next(line for line in out if line.startswith("role")).split()[1] == "rows"


@pytest.fixture
def multiclass_file(tmp_path):
    rng = np.random.default_rng(1)
    n, k = 2000, 3
    L = rng.normal(size=(n, k)) * 1.5
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    role = np.where(rng.random(n) < 0.5, "calib", "test")
    path = tmp_path / "mc.csv"
    pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y, "w": rng.uniform(0.2, 3, n),
                  "role": role}).to_csv(path, index=False)
    return path, y, role


def test_mondrian_theory_is_the_law_of_each_class(multiclass_file, capsys):
    path, y, role = multiclass_file
    assert main(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "--mondrian", "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    counts = np.bincount(y[role == "calib"], minlength=3)
    laws = out["class_coverage_laws"]
    assert [law["n"] for law in laws] == counts.tolist()
    for law, n_c in zip(laws, counts):
        ref = vc.conformal_coverage_law(int(n_c), 0.1)
        assert (law["a"], law["b"]) == (ref.a, ref.b)
    assert main(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "--mondrian", "-q"]) == 0
    text = capsys.readouterr().out
    assert f"(n={counts[0]})" in text and "theory per class" in text


def test_weighted_q_hat_theory_line_says_it_assumes_equal_weights(multiclass_file, capsys):
    path, _, _ = multiclass_file
    assert main(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "--sample-weight", "w", "-q"]) == 0
    theory = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("theory"))
    assert "for equally weighted rows" in theory
    assert main(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "-q"]) == 0
    theory = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("theory"))
    assert "weighted" not in theory
