"""Round 21: the coverage law that ``veracity conformal --mondrian`` states.

``--json`` carried ``coverage_law`` = Beta(k, n + 1 - k) of one q̂ from all n calib rows. Mondrian sets
have one q̂ per class, from that class's rows only, so their marginal coverage is
Σ_c π_c C_c, C_c ~ Beta(k_c, n_c + 1 - k_c) independent: with 4 classes of 5 calib rows at α = 0.2
the stated law had mean 0.810 and 5 % quantile 0.656 where the sets deliver 0.833 and 0.705. The
stated law is now the Beta matched to that mixture's mean and variance (the law ``calib_floor``
already used), and the text prints it beside the per-class laws.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.cli import main

K, PER_CLASS, ALPHA = 4, 5, 0.2


def _calib(rng, per_class=PER_CLASS):
    """Calib rows of ``per_class`` rows per class whose true-class LAC score 1 - p_y is uniform on (0, 1):
    p_y ~ U(0, 1), the rest shared equally, so class c's sets cover a new row of class c with probability
    exactly min(q̂_c, 1)."""
    y = np.repeat(np.arange(K), per_class)
    u = rng.random(y.size)
    P = np.tile(((1.0 - u) / (K - 1))[:, None], (1, K))
    P[np.arange(y.size), y] = u
    return P, y


def _stated_law(tmp_path, capsys):
    P, y = _calib(np.random.default_rng(0))
    path = tmp_path / "calib.csv"
    pd.DataFrame({**{f"p{c}": P[:, c] for c in range(K)}, "y": y}).to_csv(path, index=False)
    args = ["conformal", str(path), "--score", ",".join(f"p{c}" for c in range(K)), "--label", "y",
            "--alpha", str(ALPHA), "--mondrian", "-q"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    return out, capsys.readouterr().out


def test_the_stated_law_is_the_law_of_the_realised_coverage_of_mondrian_sets(tmp_path, capsys):
    out, text = _stated_law(tmp_path, capsys)
    law = out["coverage_law"]
    # realised marginal coverage of the library's Mondrian sets over many calib draws of the same class
    # counts, on rows of the same class shares (1/4 each): the mean of the classes' min(q̂_c, 1)
    rng = np.random.default_rng(21)
    draws = 2000
    realised = np.empty(draws)
    for i in range(draws):
        cp = vc.ConformalClassifier(alpha=ALPHA, mondrian=True).fit(*_calib(rng))
        realised[i] = np.minimum(cp.class_qhat_, 1.0).mean()
    se = realised.std() / math.sqrt(draws)
    assert abs(law["mean"] - realised.mean()) <= 4 * se  # before: 0.8095, realised 0.833 (se 0.0013)
    assert law["sd"] == pytest.approx(realised.std(), rel=0.06)
    for key, q in (("p05", 0.05), ("p95", 0.95)):
        assert abs(law[key] - np.quantile(realised, q)) <= 0.012, key  # before: p05 0.656, realised 0.705
    assert law["n"] == K * PER_CLASS and law["classes"] == K
    # the per-class laws are each class's own: Beta(k, n_c + 1 - k), k = ceil((n_c + 1)(1 - alpha)) = 5
    assert [(c["a"], c["b"], c["n"]) for c in out["class_coverage_laws"]] == [(5.0, 1.0, PER_CLASS)] * K
    # the text states the same marginal law, as a mix of the class laws, beside the per-class ones
    theory = [line for line in text.splitlines() if line.startswith("theory")]
    assert theory[0].startswith("theory: coverage ≈ Beta(") and f"mean {law['mean']:.4f}" in theory[0]
    assert "4 class laws mixed by class share" in theory[0]
    assert theory[1].startswith("theory per class: class 0 coverage ~ Beta(5, 1)")


def test_the_stated_law_is_the_one_the_shortfall_floor_reads():
    """``calib_floor`` of rows of the calib set's class shares is the stated law's 0.025 quantile."""
    rng = np.random.default_rng(1)
    P, y = _calib(rng, per_class=30)
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P[:-10], y[:-10])
    law = cp._marginal_law()
    shares = np.bincount(y[:-10], minlength=K)
    assert cp._calib_floor(shares.astype(float)) == pytest.approx(law.interval(0.95)[0], rel=1e-12)
    plain = vc.ConformalClassifier(alpha=0.1).fit(P, y)
    assert plain._marginal_law().to_dict() == vc.conformal_coverage_law(P.shape[0], 0.1).to_dict()
    assert str(plain._marginal_law()).startswith("coverage ~ Beta(")
