"""Round 38 (w3): ``veracity threshold --target-recall R --sample-weight W --json`` gave the rank k of the
weighted "+1" rule but not which effective size m it counted the new positive at (Kish's or the one the
weights' spread about the threshold gives, the smaller); the text line said it. ``rule.weighted_plus_one``
now says it: the size used, m, Kish's m, the weight W/m and the cumulative weight R·(W + W/m) reached."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.cli import main
from veracity.core._weights import kish_size

from .conftest import kept_positives


def _run(tmp_path, capsys, seed: int, scale: float = 1.0, *extra: str) -> tuple[dict, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = kept_positives(rng, 100)
    w = scale / (0.02 + 0.98 * s)  # inverse sampling probabilities: heavy positives low in the scores
    frame = pd.DataFrame({"p": np.r_[s, rng.random(100) * 0.5], "y": np.repeat([1, 0], 100),
                          "w": np.r_[w, np.full(100, scale)]})
    path = tmp_path / f"d{seed}.csv"
    frame.to_csv(path, index=False)
    assert main(["threshold", str(path), "--score", "p", "--label", "y", "--sample-weight", "w",
                 "--target-recall", "0.9", "--json", "-", *extra]) == 0
    return json.loads(capsys.readouterr().out), s, w


@pytest.mark.parametrize(("seed", "size"), [(0, "kish"), (1, "spread"), (4, "spread")])
def test_the_json_says_which_size_the_weighted_plus_one_rule_used(tmp_path, capsys, seed, size):
    doc, s, w = _run(tmp_path, capsys, seed)
    rule = doc["rule"]
    got = rule["weighted_plus_one"]  # before: no such key (KeyError)
    from veracity.decisions._thresholds import weighted_recall_rule

    desc, k, plus, spread = weighted_recall_rule(s, w, 0.9)
    assert rule["k"] == k and doc["threshold"] == desc[k - 1] == vc.recall_threshold(
        s, np.ones(100), target=0.9, sample_weight=w)
    assert got["size"] == size and got["kish_m"] == pytest.approx(kish_size(w), rel=1e-12)
    assert got["m"] == pytest.approx(kish_size(w) if spread is None else spread, rel=1e-12)
    if size == "spread":
        assert got["m"] < got["kish_m"]
    total = float(w.sum())
    assert got["weight"] == pytest.approx(total / got["m"], rel=1e-9) == pytest.approx(plus, rel=1e-12)
    assert got["reaches"] == pytest.approx(0.9 * (total + got["weight"]), rel=1e-12)
    # the text line gives the same m where it is the spread's
    path = tmp_path / f"d{seed}.csv"
    assert main(["threshold", str(path), "--score", "p", "--label", "y", "--sample-weight", "w",
                 "--target-recall", "0.9"]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert (f"(m = {got['m']:.4g}," in said) == (size == "spread")


def test_the_weight_is_in_the_callers_units_and_absent_without_a_weighted_plus_one(tmp_path, capsys):
    doc, _, w = _run(tmp_path, capsys, 1)
    big, _, _ = _run(tmp_path, capsys, 1, 1e300)  # weights near the float range: scaled inside, not here
    one, huge = doc["rule"]["weighted_plus_one"], big["rule"]["weighted_plus_one"]
    assert huge["m"] == pytest.approx(one["m"], rel=1e-12) and huge["size"] == one["size"] == "spread"
    assert huge["weight"] == pytest.approx(1e300 * one["weight"], rel=1e-9)
    assert huge["reaches"] == pytest.approx(1e300 * one["reaches"], rel=1e-9)
    plain, _, _ = _run(tmp_path, capsys, 1, 1.0, "--no-correction")
    assert plain["rule"]["weighted_plus_one"] is None  # no +1 row to weigh


def test_equal_positive_weights_give_the_plain_rule_with_m_n(tmp_path, capsys):
    rng = np.random.default_rng(7)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    w = np.where(y == 1, 2.5, rng.uniform(0.5, 3.0, 300))  # the positives weigh alike
    path = tmp_path / "eq.csv"
    pd.DataFrame({"p": p, "y": y, "w": w}).to_csv(path, index=False)
    assert main(["threshold", str(path), "--score", "p", "--label", "y", "--sample-weight", "w",
                 "--target-recall", "0.9", "--json", "-"]) == 0
    rule = json.loads(capsys.readouterr().out)["rule"]
    n = int(y.sum())
    assert rule["k"] == int(np.ceil((n + 1) * 0.9))
    assert rule["weighted_plus_one"] == {"size": "kish", "m": n, "kish_m": n, "weight": 2.5,
                                         "reaches": pytest.approx(0.9 * (n + 1) * 2.5, rel=1e-12)}
