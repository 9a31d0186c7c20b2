"""Metric names that clash in MLflow's file store with names the run already holds (session 41).

The file store writes metric ``a/b/c`` as the file ``metrics/a/b/c``. Within one log veracity kept a name
from being both a file and a folder, but not against the run's metrics: an audit whose slice ``'a'`` was
logged to a run holding an earlier audit's slice ``'a/ece'`` (or a metric ``seg/a`` of the user's) failed
with MLflow's raw ``[Errno 21] Is a directory`` after its artifacts were written; the audit's ``ece`` where
the run holds ``ece/train`` did the same. Such a slice is now renamed (``seg/a-2/``, in ``slices.json``) and a
whole-table name that cannot be renamed is one VeracityError before anything is logged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")
pd = pytest.importorskip("pandas")


def _audit(keys: list[str], n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    df = pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(int), "seg": rng.choice(keys, n)})
    return vc.audit(df, score="p", label="y", by="seg")


def _quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own notices about the file store
    warnings.simplefilter("ignore", FutureWarning)
    return ctx


def test_a_slice_whose_folder_an_earlier_slice_holds_is_renamed(tracking):
    first, second = _audit(["a/ece", "b"]), _audit(["a", "b"], seed=1)
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            log_mlflow(first, figures=False)
            with pytest.warns(UserWarning, match="seg/a/ece/"):  # the earlier slice, named as stale
                logged = log_mlflow(second, figures=False)
    finally:
        ctx.__exit__(None, None, None)
    stored = tracking.get_run(run.info.run_id).data.metrics
    assert stored["seg/a-2/ece"] == second.groups["a"].ece and stored["seg/b/ece"] == second.groups["b"].ece
    assert stored["seg/a/ece/ece"] == first.groups["a/ece"].ece
    assert any("'a' as seg/a-2/" in note for note in logged.notes), logged.notes


def test_a_slice_whose_folder_is_a_metric_of_the_run_is_renamed(tracking):
    result = _audit(["a", "b"])
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            mlflow.log_metric("seg/a", 1.0)
            logged = log_mlflow(result, figures=False)
    finally:
        ctx.__exit__(None, None, None)
    stored = tracking.get_run(run.info.run_id).data.metrics
    assert stored["seg/a"] == 1.0 and stored["seg/a-2/n"] == result.groups["a"].n
    assert "seg/a-2/ece" in logged.metrics


def test_a_whole_table_name_the_store_cannot_hold_is_one_line_before_anything_is_logged(tracking):
    result = _audit(["a", "b"])
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            mlflow.log_metric("ece/train", 0.1)
            with pytest.raises(vc.VeracityError, match=r"holds metric 'ece/train'.* cannot also write 'ece'"):
                log_mlflow(result, figures=False)
            assert tracking.list_artifacts(run.info.run_id) == []  # nothing logged before the refusal
            assert set(tracking.get_run(run.info.run_id).data.metrics) == {"ece/train"}
            logged = log_mlflow(result, figures=False, prefix="audit/")  # as the line says
    finally:
        ctx.__exit__(None, None, None)
    assert tracking.get_run(run.info.run_id).data.metrics["audit/ece"] == result.ece
    assert logged.metrics["audit/ece"] == result.ece
