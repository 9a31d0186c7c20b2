"""Multiclass scores on Dask: the top-label reading is one ``map_partitions`` (round 22).

The row-wise steps (max, log-sum-exp, argmax, the chosen class's log-loss) were narwhals expressions,
a column each, which Dask's optimiser took ~4 s to simplify per compute on 300 rows (four computes per
audit: ~18 s). They are one numpy pass per partition now; the numbers are checked here against the
array form (the definition's reference), and the contract's messages against the pandas frame's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import threaded_dask

dd = pytest.importorskip("dask.dataframe")

REL = 1e-9


def _frame(n, k, seed, logits):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, (n, k))
    if not logits:  # ties within rows: the first maximum is the prediction, as numpy's argmax
        z = np.round(z, 1)
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1).clip(0, k - 1)
    s = z if logits else P
    cols = {f"c{i}": s[:, i] for i in range(k)}
    frame = pd.DataFrame({**cols, "y": y, "w": rng.uniform(0.5, 2, n), "seg": rng.choice(["a", "b", "c"], n)})
    return frame, s, y


def _same(got, want):
    assert got.n == want.n and got.n_classes == want.n_classes
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
    for name in ("weight", "sum_p", "sum_y", "sum_nll"):
        np.testing.assert_allclose(getattr(got.table.stats, name), getattr(want.table.stats, name), rtol=REL,
                                   atol=1e-12, err_msg=name)
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=REL, abs=1e-12), key


@pytest.mark.parametrize("k", [3, 11])
@pytest.mark.parametrize("logits", [False, True], ids=["probabilities", "logits"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_multiclass_audit_on_dask_equals_the_array_form(k, logits, weighted, monkeypatch):
    from veracity.sources import _dask

    monkeypatch.setattr(_dask, "CHUNK_ROWS", 97)  # partitions in several chunks
    df, s, y = _frame(500, k, seed=k, logits=logits)
    score_type = "logit" if logits else "probability"
    w = df["w"].to_numpy() if weighted else None
    with threaded_dask():
        got = vc.audit(dd.from_pandas(df, npartitions=3), score=[f"c{i}" for i in range(k)], label="y",
                       sample_weight="w" if weighted else None, by="seg", score_type=score_type, bins=8)
    want = vc.audit(s, y, sample_weight=w, by={"seg": df["seg"].to_numpy()}, score_type=score_type, bins=8)
    _same(got, want)
    assert set(got.groups) == set(want.groups)
    for key in want.groups:
        _same(got.groups[key], want.groups[key])


@pytest.mark.dask_cluster
def test_multiclass_audit_on_a_dask_cluster_equals_the_array_form():
    # the partition functions pickled to worker processes
    df, s, y = _frame(300, 4, seed=8, logits=True)
    got = vc.audit(dd.from_pandas(df, npartitions=2), score=["c0", "c1", "c2", "c3"], label="y",
                   sample_weight="w", by="seg", score_type="logit", bins=6)
    want = vc.audit(s, y, sample_weight=df["w"].to_numpy(), by={"seg": df["seg"].to_numpy()},
                    score_type="logit", bins=6)
    _same(got, want)


def test_multiclass_audit_on_dask_builds_no_chain_of_column_assignments(monkeypatch):
    """The row-wise multiclass steps are one map_partitions, not a chain of column assignments: each
    assignment is a node Dask's optimiser re-walked on every compute (~8 s per call on 300 rows before,
    72 assignments; a count, not a timing)."""
    df, _, _ = _frame(300, 3, seed=5, logits=True)
    frame = dd.from_pandas(df, npartitions=2)
    cls, calls = type(frame), []
    original = cls.assign
    monkeypatch.setattr(cls, "assign", lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    with threaded_dask():
        vc.audit(frame, score=["c0", "c1", "c2"], label="y", sample_weight="w", by="seg", score_type="logit",
                 bins=8)
    assert len(calls) <= 8, len(calls)


def _message(frame, **kwargs):
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(frame, score=["c0", "c1", "c2"], label="y", **kwargs)
    return str(info.value)


CONTRACT = [
    ("nan score", lambda d: d.assign(c1=np.where(np.arange(len(d)) == 5, np.nan, d["c1"])), {}),
    ("inf logit", lambda d: d.assign(c1=np.where(np.arange(len(d)) == 5, np.inf, d["c1"])),
     {"score_type": "logit"}),
    ("out of range", lambda d: d.assign(c2=np.where(np.arange(len(d)) == 9, 1.5, d["c2"])), {}),
    ("row sum", lambda d: d.assign(c0=np.where(np.arange(len(d)) == 4, d["c0"] + 0.2, d["c0"])), {}),
    ("class 3", lambda d: d.assign(y=np.where(np.arange(len(d)) % 7 == 0, 3, d["y"])), {}),
    ("class -1.5", lambda d: d.assign(y=np.where(np.arange(len(d)) == 2, -1.5, d["y"])), {}),
    ("missing label", lambda d: d.assign(y=pd.array(np.where(np.arange(len(d)) == 3, None, d["y"]),
                                                     dtype="Int64")), {}),
    ("no rows", lambda d: d.iloc[:0], {}),
]


@pytest.mark.parametrize("case", CONTRACT, ids=[c[0] for c in CONTRACT])
def test_multiclass_contract_on_dask_says_what_pandas_says(case):
    _, edit, kwargs = case
    df = edit(_frame(60, 3, seed=1, logits=False)[0])
    want = _message(df, **kwargs)
    with threaded_dask():
        assert _message(dd.from_pandas(df, npartitions=3), **kwargs) == want
