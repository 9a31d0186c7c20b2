"""Round 17: the SQL pushdown's binned Brier score of sharp forecasts is the definition.

Before: the statement returned Σwp², Σwpy and Σwy per bin and the Brier score was expanded from them:
scores within 1e-9..1e-6 of their label (Brier ≈ 6e-14) came out 2.5 % off on SQLite (0.6 % with
weights from 1e-8 to 1e8). Now the statement sums Σw(p − y)², Σw(p − y) and Σ_{y=1} w(1 − p) on both
routes (rows mostly distinct: the window over the rows; repeated scores: the per-score aggregate).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc

from .conftest import load

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_brier_sharp_r17 import exact_brier, exact_within, sharp  # noqa: E402


@pytest.mark.parametrize("kind", ["correct", "weights"])
@pytest.mark.parametrize("scores", ["distinct", "repeated"])
def test_sql_brier_of_sharp_forecasts_is_the_definition(engine, kind, scores):
    name, conn = engine
    p, y, w = sharp(kind, n=400)
    if scores == "repeated":  # five residuals: the per-score aggregate's route
        eps = 10.0 ** (-9 + np.arange(p.size) % 5 * 0.75)
        p = np.where(y == 1, 1.0 - eps, eps)
    table = f"sharp_{kind}_{scores}"
    load(name, conn, table, {"p": p, "y": y, "w": np.ones(p.size) if w is None else w})
    weight = None if w is None else "w"
    want = exact_brier(p, y, w)
    got = vc.audit(conn, table=table, score="p", label="y", sample_weight=weight, bins=10)
    assert got.brier == pytest.approx(want, rel=1e-9, abs=0)
    d = got.decomposition
    assert d.brier == pytest.approx(want, rel=1e-9, abs=0)
    rel, var, cov = exact_within(p, y, w, np.linspace(0, 1, 11))
    assert d.within_variance == pytest.approx(var, abs=1e-9 * want)
    assert d.within_covariance == pytest.approx(cov, abs=1e-9 * want)
    assert got.ece == pytest.approx(vc.audit(p, y, sample_weight=w, bins=10).ece, rel=1e-9, abs=0)
