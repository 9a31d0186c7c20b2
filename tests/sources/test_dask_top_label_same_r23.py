"""The Dask multiclass top-label audit reads rows as the array form does (round 23).

Round 22 moved the Dask top-label steps into one numpy function per partition, a second copy of
:func:`veracity.core._validation.prepare_top_label`'s row math, and the copies disagreed:

* from logits the copy took ``log p = z - (max z + log Σ e^(z - max z))``, the array form (scipy's
  ``log_softmax``) ``(z - max z) - log Σ …``: the same in exact arithmetic, not in floats, and far apart
  for large logits (1e15: the last bit of 1e15 is 0.125, so a probability 0.73 read as 0.78);
* logits near ±1e308 overflowed ``z - max z`` with a RuntimeWarning (an error under a strict filter);
  the array form reads them as probability 0, silently;
* a row of K >= 8 probabilities was summed in sequence (the copy held classes as rows), the array form
  pairwise along a contiguous row: a row at the tolerance was refused by one and audited by the other.
  The array form itself summed a Fortran-ordered array (``DataFrame.to_numpy()``) in sequence too.

Both now call :func:`~veracity.core._validation.class_probabilities`,
:func:`~veracity.core._validation.top_label_rows` and
:func:`~veracity.core._validation.row_sums_off_one`, which read rows in C order. The oracle is the
array form, ``vc.audit`` on numpy arrays: the per-row working columns must be identical, the audit
equal up to the order in which partitions are summed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import ROW_SUM_ATOL, prepare_top_label

from .conftest import same_audit

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


def _threads():
    return dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"})


def _pandas(s, y):
    k = s.shape[1]
    return pd.DataFrame({**{f"c{i}": s[:, i] for i in range(k)}, "y": y})


def _dask(s, y, layout):
    """A Dask frame of ``s`` and ``y`` in ``layout``: a number of partitions, "one-row" (one per row),
    "empty" (empty partitions between and around the rows) or "by-class" (sorted by label, one
    partition per class: every other class is absent from each)."""
    df = _pandas(s, y)
    if layout == "one-row":
        return dd.from_pandas(df, npartitions=len(df), sort=False)
    if layout == "empty":
        half, none = len(df) // 2, df.iloc[:0]
        parts = [none, df.iloc[:half], none, none, df.iloc[half:], none]
        return dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])
    if layout == "by-class":
        order = np.argsort(np.asarray(y), kind="stable")
        df = df.iloc[order].reset_index(drop=True)
        groups = [g for _, g in df.groupby("y", sort=True)]
        return dd.concat([dd.from_pandas(g, npartitions=1, sort=False) for g in groups])
    return dd.from_pandas(df, npartitions=layout, sort=False)


def _dask_rows(s, y, score_type, layout):
    """The Dask working columns ``_s, _y, _l`` of the top-label reading, row by row in frame order."""
    from veracity.sources._dask import top_label_frame

    k = s.shape[1]
    ddf = _dask(s, y, layout)
    native = ddf.rename(columns={**{f"c{i}": f"__vc_s{i}" for i in range(k)}, "y": "__vc_y"})
    native = native.assign(__vc_y=native["__vc_y"].astype("float64"), _w=1.0)
    with _threads():
        out = top_label_frame(native, k, score_type, grouped=False).compute()
    order = np.argsort(np.asarray(y), kind="stable") if layout == "by-class" else np.arange(len(y))
    return out, order


def _audit_dask(s, y, score_type, layout, **kwargs):
    with _threads():
        return vc.audit(_dask(s, y, layout), score=[f"c{i}" for i in range(s.shape[1])], label="y",
                        score_type=score_type, bins=7, **kwargs)


def _logits(n, k, seed, scale=2.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, scale, (n, k))
    return z, rng.integers(0, k, n)


def _hostile():
    """``(id, scores, labels, score_type)``: inputs the two readings must agree on."""
    rng = np.random.default_rng(23)
    z, y = _logits(60, 4, seed=1)
    cases = [("logits", z, y, "logit")]
    zt = np.round(z)  # ties in the top class: the first maximum is the prediction
    zt[::3, 2] = zt[::3, 0] = zt[::3].max(axis=1)
    cases.append(("tied logits", zt, y, "logit"))
    pt = np.exp(zt) / np.exp(zt).sum(axis=1, keepdims=True)
    pt = np.round(pt, 2)
    pt[:, -1] = 1.0 - pt[:, :-1].sum(axis=1)
    pt = np.clip(pt, 0.0, 1.0)
    cases.append(("tied probabilities", pt, y, "probability"))
    big = z + 1e15  # huge logits: the last bit of 1e15 is 0.125
    big[::2] -= 2e15
    cases.append(("logits near 1e15", big, y, "logit"))
    far = np.where(z > 0, 1e308, -1e308) * np.abs(np.sign(z))  # gaps beyond the largest float
    far[:, 0] = z[:, 0]
    cases.append(("logits near 1e308", far, y, "logit"))
    z9, y9 = _logits(80, 9, seed=2)
    cases.append(("9 classes logits", z9, y9, "logit"))
    p9 = np.exp(z9) / np.exp(z9).sum(axis=1, keepdims=True)
    cases.append(("9 classes probabilities", p9, y9, "probability"))
    cases.append(("float32 logits", z.astype(np.float32), y, "logit"))
    p32 = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).astype(np.float32)
    cases.append(("float32 probabilities", p32, y, "probability"))
    cases.append(("float labels", z, y.astype(np.float64), "logit"))
    cases.append(("int32 labels", z, y.astype(np.int32), "logit"))
    z2 = rng.normal(0, 3, (40, 2))
    cases.append(("boolean labels, 2 classes", z2, rng.random(40) < 0.5, "logit"))
    return cases


HOSTILE = _hostile()
LAYOUTS = [1, 3, "one-row", "empty", "by-class"]


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("case", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_dask_top_label_rows_are_the_array_forms(case, layout):
    """Row by row, identical: confidence, correct, log-loss (one definition, so no tolerance)."""
    _, s, y, score_type = case
    if layout == "one-row" and len(y) > 40:
        s, y = s[:40], y[:40]
    want = prepare_top_label(s, y, score_type=score_type)
    got, order = _dask_rows(s, y, score_type, layout)
    np.testing.assert_array_equal(got["_s"].to_numpy(), want.p[order])
    np.testing.assert_array_equal(got["_y"].to_numpy(), want.y[order])
    np.testing.assert_array_equal(got["_l"].to_numpy(), want.nll_terms[order])


@pytest.mark.parametrize("layout", ["empty", "by-class"], ids=str)
@pytest.mark.parametrize("case", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_dask_top_label_audit_is_the_array_forms(case, layout):
    _, s, y, score_type = case
    want = vc.audit(s, y, score_type=score_type, bins=7)
    same_audit(_audit_dask(s, y, score_type, layout), want)


def test_huge_logits_read_as_the_array_form_reads_them():
    # the definition: p = softmax(z) of z - max z, which is exact here (the logits differ by small integers)
    z = np.array([[1e15, 1e15 - 1, 1e15 - 3], [1e15 - 1, 1e15, 1e15 - 2], [-1e15, -1e15 - 2, -1e15 - 1]] * 10)
    y = np.tile([0, 1, 2], 10)
    shifted = z - z.max(axis=1, keepdims=True)
    p = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    got = _audit_dask(z, y, "logit", 2)
    assert got.table.stats.sum_p.sum() == pytest.approx(p.max(axis=1).sum(), rel=1e-12)
    assert got.metrics["nll"] == pytest.approx(-np.mean(np.log(p[np.arange(30), y])), rel=1e-12)


def test_logits_beyond_the_largest_float_raise_no_overflow_warning():
    z, y = _logits(30, 3, seed=4)
    z[::3, 1], z[::3, 2] = 1e308, -1e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _audit_dask(z, y, "logit", 2)
    same_audit(got, vc.audit(z, y, score_type="logit", bins=7))


def _borderline_row(k, seed=0):
    """A row of ``k`` probabilities whose pairwise sum (numpy's, along a contiguous row) and sequential
    sum (class by class) lie on different sides of the tolerance ``ROW_SUM_ATOL * k``."""
    tol = ROW_SUM_ATOL * k
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.ones(k), 20_000) * (1.0 + tol)
    pairwise = rows.sum(axis=1)
    sequential = rows[:, 0].copy()
    for j in range(1, k):
        sequential += rows[:, j]
    split = (np.abs(pairwise - 1.0) > tol) != (np.abs(sequential - 1.0) > tol)
    assert split.any()
    return rows[np.flatnonzero(split)[0]]


@pytest.mark.parametrize("layout", [1, 3], ids=str)
def test_a_row_at_the_sum_tolerance_is_judged_alike(layout):
    z, y = _logits(50, 9, seed=6)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    p[17] = _borderline_row(9)
    try:
        want = vc.audit(p, y, bins=7)
    except vc.VeracityError as error:
        assert "must sum to 1; 1 of 50" in str(error)
        with pytest.raises(vc.VeracityError, match="must sum to 1; 1 of 50 rows"):
            _audit_dask(p, y, "probability", layout)
    else:
        same_audit(_audit_dask(p, y, "probability", layout), want)


@pytest.mark.parametrize("score_type", ["probability", "logit"])
def test_the_array_form_does_not_depend_on_memory_layout(score_type):
    """``DataFrame.to_numpy()`` gives a Fortran-ordered (N, K) array; the reading is the C-ordered one's."""
    z, y = _logits(200, 9, seed=7)
    s = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True) if score_type == "probability" else z
    if score_type == "probability":
        s[17] = _borderline_row(9)
    outcomes = []
    for a in (np.ascontiguousarray(s), np.asfortranarray(s)):
        try:
            d = prepare_top_label(a, y, score_type=score_type)
            outcomes.append((d.p, d.y, d.nll_terms))
        except vc.VeracityError as error:
            outcomes.append(str(error))
    if isinstance(outcomes[0], str) or isinstance(outcomes[1], str):
        assert outcomes[0] == outcomes[1]
    else:
        for c, f in zip(*outcomes):
            np.testing.assert_array_equal(c, f)


def test_rows_off_one_are_counted_alike():
    z, y = _logits(60, 3, seed=8)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    p[[4, 9, 40]] *= 1.01
    with pytest.raises(vc.VeracityError, match=r"must sum to 1; 3 of 60 do not"):
        vc.audit(p, y)
    for layout in ("empty", "by-class", 4):
        with pytest.raises(vc.VeracityError, match=r"must sum to 1; 3 of 60 rows of 'c0', 'c1', 'c2' do not"):
            _audit_dask(p, y, "probability", layout)


def test_text_labels_are_refused_by_both():
    z, y = _logits(30, 3, seed=9)
    labels = np.array(["0", "1", "2"])[y]
    with pytest.raises(vc.VeracityError, match="column index"):
        vc.audit(z, labels, score_type="logit")
    with pytest.raises(vc.VeracityError):
        _audit_dask(z, labels, "logit", 2)


def test_text_labels_of_multiclass_scores_are_refused_as_class_indices_on_dask():
    z, y = _logits(30, 3, seed=9)
    with pytest.raises(vc.VeracityError, match=r"class indices 0\.\.2|column index 0\.\.2"):
        _audit_dask(z, np.array(["0", "1", "2"])[y], "logit", 2)


def test_probability_rows_declared_as_logits_are_refused_on_dask():
    z, y = _logits(40, 3, seed=10)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    with pytest.raises(vc.VeracityError, match="look like predict_proba output"):
        vc.audit(p, y, score_type="logit")
    with pytest.raises(vc.VeracityError, match="look like predict_proba output"):
        _audit_dask(p, y, "logit", 2)
