"""A refusal on `veracity fit` advises in --method choices, not Python class names (round 28): "use
TemperatureScaling, PlattScaling, IsotonicCalibration or HistogramBinning" named classes the command line
cannot pass; it reads "use --method temperature, platt, isotonic or histogram"."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def test_lazy_fit_refusal_names_methods(tmp_path, cli, refused) -> None:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 200)
    y = (rng.random(200) < p).astype(int)
    path = tmp_path / "s.csv"
    path.write_text("score,label\n" + "".join(f"{a:.17g},{b}\n" for a, b in zip(p, y)))
    result = cli(["fit", str(path), "--method", "beta", "--engine", "duckdb", "--out", str(tmp_path / "b.json")])
    refused(result, r"use --method temperature, platt, isotonic or histogram, or use --engine memory$")
    assert "Scaling" not in result.err and "Calibration, " not in result.err
