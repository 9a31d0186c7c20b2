"""The expression route's top-label reading is the array form's (round 23).

Polars, DuckDB and Spark frames read multiclass logits as expressions
(:func:`veracity.sources._multiclass._staged`). Round 23 gave the array form and Dask one
definition, :func:`veracity.core._validation.class_probabilities`:
``log p = (z - max z) - log Σ e^(z - max z)``, the shift first. The expressions took
``z - (max z + log Σ …)``: equal in exact arithmetic, not in floats. ``max z + log Σ`` rounds
``log Σ`` to the last bit of ``max z`` (0.125 at 1e15), so logits near 1e15 read an NLL of
0.7083 where the array form reads 0.7214, silently.

The oracle is ``vc.audit`` on the numpy array: the frame audits must equal it up to the order in
which an engine sums rows (``conftest.REL``, as tests/sources/test_dask_top_label_same_r23.py), and the
huge-logit reading must equal the definition computed here from small, exact differences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import same_audit

BACKENDS = ["polars-lazy", "duckdb"]


def _frame(backend, s, y):
    df = pd.DataFrame({**{f"c{i}": s[:, i] for i in range(s.shape[1])}, "y": np.asarray(y, dtype=np.int64)})
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy()
    duckdb = pytest.importorskip("duckdb")
    return duckdb.from_df(df)


def _audit_frame(backend, s, y, **kwargs):
    return vc.audit(_frame(backend, s, y), score=[f"c{i}" for i in range(s.shape[1])], label="y",
                    score_type="logit", bins=7, **kwargs)


def _logits(n=60, k=4, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 2.0, (n, k)), rng.integers(0, k, n)


def _cases():
    z, y = _logits()
    zt = np.round(z)  # ties in the top class: the first maximum is the prediction
    zt[::3, 2] = zt[::3, 0] = zt[::3].max(axis=1)
    big = z + 1e15  # huge logits: the last bit of 1e15 is 0.125
    big[::2] -= 2e15
    return [("ordinary logits", z, y), ("tied top logits", zt, y), ("logits near 1e15", big, y)]


CASES = _cases()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_frame_top_label_audit_is_the_array_forms(case, backend):
    _, s, y = case
    same_audit(_audit_frame(backend, s, y), vc.audit(s, y, score_type="logit", bins=7))


@pytest.mark.parametrize("backend", BACKENDS)
def test_huge_logits_read_as_the_definition(backend):
    # the definition: softmax of z - max z, exact here (the logits differ by small integers)
    z = np.array([[1e15, 1e15 - 1, 1e15 - 3], [1e15 - 1, 1e15, 1e15 - 2], [-1e15, -1e15 - 2, -1e15 - 1]] * 10)
    y = np.tile([0, 1, 2], 10)
    shifted = z - z.max(axis=1, keepdims=True)
    p = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    got = _audit_frame(backend, z, y)
    assert got.table.stats.sum_p.sum() == pytest.approx(p.max(axis=1).sum(), rel=1e-12)
    assert got.metrics["nll"] == pytest.approx(-np.mean(np.log(p[np.arange(30), y])), rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_common_shift_of_tied_logits_leaves_the_frame_audit_unchanged(backend):
    # softmax is shift invariant; with the shift taken first, z - max z is exact for integer logits
    # and any power-of-two shift below 2^52 (the shifted logits stay exact), so the audit is unchanged
    z, y = CASES[1][1], CASES[1][2]
    base = _audit_frame(backend, z, y)
    for shift in (2.0 ** 20, 2.0 ** 40, -(2.0 ** 44)):
        same_audit(_audit_frame(backend, z + shift, y), base)


def _error(call):
    with pytest.raises(vc.VeracityError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_probability_rows_declared_as_logits_are_refused_with_the_array_forms_message(backend):
    z, y = _logits(40, 3, seed=10)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    want = _error(lambda: vc.audit(p, y, score_type="logit"))
    assert "look like predict_proba output" in want
    assert _error(lambda: _audit_frame(backend, p, y)) == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_few_probability_rows_or_true_logits_in_0_1_are_read_as_logits(backend):
    # guard: below LOGIT_CHECK_MIN_ROWS rows, or rows in [0, 1] that do not sum to 1, both forms read them
    from veracity.core._validation import LOGIT_CHECK_MIN_ROWS

    z, y = _logits(40, 3, seed=10)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    few = LOGIT_CHECK_MIN_ROWS - 1
    want = vc.audit(p[:few], y[:few], score_type="logit", bins=7)
    same_audit(_audit_frame(backend, p[:few], y[:few]), want)
    u = np.random.default_rng(3).uniform(0.0, 1.0, (40, 3))
    same_audit(_audit_frame(backend, u, y), vc.audit(u, y, score_type="logit", bins=7))
