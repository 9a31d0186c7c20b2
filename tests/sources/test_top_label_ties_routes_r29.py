"""Every route reads a K = 2 tie as class 1, and K >= 3 ties as the first maximum (round 29).

The top-label prediction has three definitions: the array form's
(:func:`veracity.core._validation.top_label_rows`, which Dask's partitions call too) and the expression
route's (:func:`veracity.sources._multiclass.top_label_base`: pandas, polars, DuckDB, Spark). All read
an (N, 2) row [0.5, 0.5] as class 0 (the first maximum), where a 1-D p = 0.5 predicts 1 (DESIGN §3).
The oracle is the 1-D reading of the same rows and shares counted here; every route's audit must equal
the array form's.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import CLASS_COLUMN_ROUTES, class_columns_frame, same_audit

BACKENDS = CLASS_COLUMN_ROUTES


@pytest.fixture
def threads():
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "threads"}):
        yield


def _pairs(n=120, seed=29):
    """K = 2 probability rows, half of them tied at [0.5, 0.5], with 0/1 labels."""
    rng = np.random.default_rng(seed)
    p1 = rng.choice([0.5, 0.5, 0.25, 0.75, 0.125, 0.875], n)
    return np.column_stack([1.0 - p1, p1]), rng.integers(0, 2, n)


def _call(fn, backend, s, y, tmp_path, request, **kwargs):
    frame = class_columns_frame(backend, s, y, tmp_path, request)
    return fn(frame, score=[f"c{i}" for i in range(s.shape[1])], label="y", **kwargs)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_k2_tie_predicts_class_1_on_every_route(backend, tmp_path, request):
    P, y = _pairs()
    want = float(np.mean((P[:, 1] >= 0.5) == (y == 1)))  # p >= 0.5 predicts 1, counted here
    assert vc.accuracy(P[:, 1], y) == pytest.approx(want, abs=1e-15)
    audit = _call(vc.audit, backend, P, y, tmp_path, request, bins=8, min_count=1)
    assert audit.metrics["accuracy"] == pytest.approx(want, rel=1e-12)
    same_audit(audit, vc.audit(P, y, bins=8, min_count=1))
    table = _call(vc.reliability, backend, P, y, tmp_path, request, bins=8, min_count=1)
    tied = [r for r in table.rows if r.lo <= 0.5 < r.hi]
    ties = P[:, 1] == 0.5
    assert len(tied) == 1 and tied[0].n == int(ties.sum())
    assert tied[0].acc == pytest.approx(float(np.mean(y[ties] == 1)), rel=1e-12)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("backend", ["duckdb", "dask", "polars-lazy"])
def test_tied_k2_logits_predict_class_1(backend, tmp_path, request):
    z = np.full((40, 2), -0.8)
    y = np.r_[np.ones(30, dtype=int), np.zeros(10, dtype=int)]
    got = _call(vc.accuracy, backend, z, y, tmp_path, request, score_type="logit")
    assert got == 0.75 == vc.accuracy(z[:, 1] - z[:, 0], y, score_type="logit")


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("backend", ["pandas", "duckdb", "dask", "polars-lazy"])
def test_k3_ties_keep_the_first_maximum(backend, tmp_path, request):
    rows = np.array([[0.4, 0.4, 0.2], [0.2, 0.4, 0.4], [0.3, 0.3, 0.4], [0.4, 0.2, 0.4]] * 10)
    first = np.tile([0, 1, 2, 0], 10)
    rng = np.random.default_rng(3)
    y = np.where(rng.random(40) < 0.6, first, rng.integers(0, 3, 40))
    want = float(np.mean(first == y))
    got = _call(vc.audit, backend, rows, y, tmp_path, request, bins=5, min_count=1)
    assert got.metrics["accuracy"] == pytest.approx(want, rel=1e-12)
    same_audit(got, vc.audit(rows, y, bins=5, min_count=1))
