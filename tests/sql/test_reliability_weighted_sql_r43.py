"""The SQL pushdown's weighted reliability interval is the arrays' (session 43).

The per-bin interval's size with uneven weights (:func:`veracity.core._weights.honest_size`) reads Σw²y and
Σw²p(1 − p), which the statement now sums per bin when a weight column is given — on both routes (the
per-score aggregate, for repeated scores, carries the positives' Σw² per score; the window over the rows
sums them row by row), on SQLite, DuckDB and PostgreSQL. Before, the statement had no such sums and the
interval was Kish's. Unweighted statements sum nothing more (the statistics hold None).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import load


def _rows(scores: str, n: int = 1_500, seed: int = 12):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 1.0, n) ** 2
    if scores == "repeated":  # a few hundred distinct scores: the per-score aggregate
        p = np.round(p, 3)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return p, y, np.where(y == 1, 9.0, 1.0), rng.choice(["a", "b"], n)


def _intervals(table) -> np.ndarray:
    return np.array([[r.ci_low, r.ci_high] for r in table.rows])


@pytest.mark.parametrize("scores", ["distinct", "repeated"])
def test_sql_gives_the_arrays_weighted_intervals(engine, scores):
    """Class weights 9:1, Wilson and Clopper–Pearson, whole and per slice: the arrays' intervals to 1e-12."""
    name, conn = engine
    p, y, w, g = _rows(scores)
    table = f"rel_w_{scores}"
    load(name, conn, table, {"p": p, "y": y, "w": w, "g": g})
    for interval in ("wilson", "clopper-pearson"):
        got = vc.audit(conn, table=table, score="p", label="y", sample_weight="w", bins=10, by="g",
                       interval=interval)
        want = vc.audit(p, y, sample_weight=w, bins=10, by=g, interval=interval)
        np.testing.assert_allclose(_intervals(got.table), _intervals(want.table), rtol=0, atol=1e-12)
        for key in ("a", "b"):
            np.testing.assert_allclose(_intervals(got.groups[key].table), _intervals(want.groups[key].table),
                                       rtol=0, atol=1e-12)
        for field in ("sum_w2y", "sum_w2pq"):
            np.testing.assert_allclose(getattr(got.table.stats, field), getattr(want.table.stats, field),
                                       rtol=1e-12, err_msg=field)


def test_sql_logits_give_the_arrays_weighted_intervals(engine):
    """Logits: 1 − p as the logistic of −s on both sides (Σw²p(1 − p) of sharp scores keeps its digits)."""
    name, conn = engine
    p, y, w, _ = _rows("distinct")
    s = np.log(p / (1.0 - p))
    load(name, conn, "rel_w_logits", {"s": s, "y": y, "w": w})
    got = vc.audit(conn, table="rel_w_logits", score="s", label="y", sample_weight="w", bins=10,
                   score_type="logit")
    want = vc.audit(s, y, sample_weight=w, bins=10, score_type="logit")
    np.testing.assert_allclose(_intervals(got.table), _intervals(want.table), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.table.stats.sum_w2pq, want.table.stats.sum_w2pq, rtol=1e-12)


def test_unweighted_sql_keeps_no_square_sums(engine):
    name, conn = engine
    p, y, _, _ = _rows("repeated", n=400)
    load(name, conn, "rel_unweighted", {"p": p, "y": y})
    got = vc.audit(conn, table="rel_unweighted", score="p", label="y", bins=5)
    assert got.table.stats.sum_w2y is None and got.table.stats.sum_w2pq is None
    want = vc.audit(p, y, bins=5)
    np.testing.assert_allclose(_intervals(got.table), _intervals(want.table), rtol=0, atol=1e-12)
