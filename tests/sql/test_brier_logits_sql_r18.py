"""Round 18: the SQL pushdown's Brier score of confident logits is the definition (σ(−s)², not 0).

Before: the statement summed 1 − p of the rounded logistic: a positive at s > 37 gave 0, and a
sharp, correct model given as logits read a Brier score of 0 in the database. Now 1 / (1 + exp(s)),
on both routes (rows mostly distinct: the window over the rows; repeated scores: the per-score
aggregate), and PostgreSQL raises no underflow on the squares of e^{-700}.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc

from .conftest import load

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_brier_logits_r18 import confident_logits, definition  # noqa: E402


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("scores", ["distinct", "repeated"])
def test_sql_brier_of_confident_logits_is_the_definition(engine, weighted, scores):
    name, conn = engine
    s, y, w = confident_logits(n=300, weighted=weighted)
    if scores == "repeated":  # eight magnitudes: the per-score aggregate's route
        s = np.sign(s) * (30.0 + 4.0 * (np.arange(s.size) % 8))
    table = f"logits_{int(weighted)}_{scores}"
    load(name, conn, table, {"s": s, "y": y, "w": np.ones(s.size) if w is None else w})
    weight = "w" if weighted else None
    want = definition(s, y, w)
    got = vc.audit(conn, table=table, score="s", label="y", score_type="logit", sample_weight=weight)
    assert got.brier == pytest.approx(want, rel=1e-9, abs=0)
    assert got.decomposition.brier == pytest.approx(want, rel=1e-9, abs=0)


def test_sql_logits_beyond_the_exponent_range_raise_nothing(engine):
    """Logits of ±800 (e^{-800} underflows; its square too): the statement runs on every engine and
    the score is 0 to within the smallest double's square, as the array form's."""
    name, conn = engine
    s = np.array([800.0, 750.0, -800.0, -710.0, 2.0, -1.0])
    y = np.array([1, 1, 0, 0, 1, 0])
    load(name, conn, "logits_far", {"s": s, "y": y})
    got = vc.audit(conn, table="logits_far", score="s", label="y", score_type="logit")
    memory = vc.audit(s, y, score_type="logit")
    assert got.brier == pytest.approx(memory.brier, rel=1e-12, abs=1e-300)
