"""Round 18: every lazy engine's Brier score of confident logits is the definition (σ(−s)², not 0).

Before: the engines summed the residual as p − y of the rounded logistic, so a positive at s > 37
(p = 1.0 exactly) contributed 0 and a sharp, correct model given as logits read a Brier score of 0.
Now a positive's residual is −1 / (1 + e^s) where the rows live (tests/core/test_brier_logits_r18.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_brier_logits_r18 import confident_logits, definition  # noqa: E402
from test_brier_sharp_routes_r17 import _frame, threads  # noqa: E402,F401 - threads: a fixture

pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask", "spark"])
def test_lazy_brier_of_confident_logits_is_the_definition(backend, weighted, tmp_path, request, threads):
    s, y, w = confident_logits(n=300, weighted=weighted)
    df = pd.DataFrame({"s": s, "y": y, "w": np.ones(s.size) if w is None else w})
    frame = _frame(backend, df, tmp_path, request)
    weight = "w" if weighted else None
    want = definition(s, y, w)
    got = vc.audit(frame, score="s", label="y", score_type="logit", sample_weight=weight)
    assert got.brier == pytest.approx(want, rel=1e-9, abs=0)
    memory = vc.audit(s, y, score_type="logit", sample_weight=w)
    assert got.brier == pytest.approx(memory.brier, rel=1e-9, abs=0)
    assert got.decomposition.reliability == pytest.approx(memory.decomposition.reliability, rel=1e-9, abs=0)
