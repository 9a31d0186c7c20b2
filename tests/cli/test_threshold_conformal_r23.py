"""Round 23: `veracity threshold` prints every threshold cell as the threshold measured; `veracity conformal`
names an alpha too small for floating point, and says which q̂ a Mondrian APS empty set passed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd


def _tied(tmp_path) -> str:
    """Every calib and test score is 0.5: a budget below the 30 tied rows flags nothing, at a threshold
    just above 0.5."""
    rng = np.random.default_rng(1)
    path = tmp_path / "tied.csv"
    pd.DataFrame({"score": 0.5, "label": (rng.random(60) < 0.5).astype(int),
                  "role": np.where(np.arange(60) % 2, "calib", "test")}).to_csv(path, index=False)
    return str(path)


def _table_cells(out: str, column: int = 2) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("role"))
    return [line.split()[column] for line in lines[start + 1:] if line.startswith(("calib", "test"))]


def test_threshold_table_cell_is_the_threshold_it_measured(cli, tmp_path):
    path = _tied(tmp_path)
    res = cli(["threshold", path, "--budget", "5", "--also", "1e-7,0.1234567"])
    assert res.code == 0, res.err
    payload = json.loads(cli(["threshold", path, "--budget", "5", "--also", "1e-7,0.1234567", "--json"]).out)
    chosen = float(payload["threshold"])
    assert chosen > 0.5   # nothing flagged: just above the tied top score
    cells = [float(c) for c in _table_cells(res.out)]
    # each threshold printed for both roles, in the order chosen, then --also; "0.5000" was printed for the
    # chosen one (which flags nothing, where 0.5 flags every row) and "0.0000" for 1e-07
    assert cells == [chosen, chosen, 1e-7, 1e-7, 0.1234567, 0.1234567]
    for role, table in payload["roles"].items():
        scores = np.full(30, 0.5)
        for row in table["table"]:
            assert np.sum(scores >= row["threshold"]) == row["alerts"], role


def test_conformal_alpha_too_small_for_floating_point_is_named(cli, refused, tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "bin.csv"
    p = rng.uniform(0.05, 0.95, 80)
    pd.DataFrame({"score": p, "label": (rng.random(80) < p).astype(int)}).to_csv(path, index=False)
    res = cli(["conformal", str(path), "--alpha", "1e-17"])
    refused(res, r"--alpha 1e-17 is too small")
    assert "target" not in res.err, res.err   # "target must be in (0, 1) ... got 1.0" was said


def test_conformal_mondrian_aps_warning_quotes_no_unused_qhat(cli, tmp_path):
    rng = np.random.default_rng(4)
    n, k = 600, 3
    z = rng.normal(size=(n, k)) * 3.0
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.minimum((rng.uniform(size=(n, 1)) > P.cumsum(axis=1)).sum(axis=1), k - 1)
    path = tmp_path / "mc.csv"
    pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y,
                  "role": np.where(np.arange(n) < 300, "calib", "test")}).to_csv(path, index=False)
    args = ["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "--method", "aps", "--mondrian"]
    res = cli(args)
    assert res.code == 0, res.err
    marginal = json.loads(cli(args + ["--json"]).out)["conformal"]["qhat"]
    warned = [line for line in res.err.splitlines() if "empty prediction sets" in line]
    assert warned, res.err
    for line in warned:   # Mondrian sets use one q̂ per class: the marginal q̂ was quoted as the one passed
        assert f"q̂ = {marginal:.6g}" not in line and "their top class's own q̂" in line, line
