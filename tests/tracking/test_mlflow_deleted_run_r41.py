"""Logging to a deleted run (session 41): MLflow's raw ``MlflowException`` ("must be in 'active'
lifecycle_stage") came after ``audit.json`` and ``report.html`` were written into the deleted run; now one
VeracityError before anything is logged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")


def test_a_deleted_run_is_one_line_and_nothing_is_logged(tracking):
    rng = np.random.default_rng(0)
    p = rng.random(500)
    result = vc.audit(p, (rng.random(500) < p).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own notices about the file store
        warnings.simplefilter("ignore", FutureWarning)
        with mlflow.start_run() as run:
            pass
        tracking.delete_run(run.info.run_id)
        with pytest.raises(vc.VeracityError, match=r"is deleted .* restore it .* or log to another run"):
            log_mlflow(result, run=run.info.run_id, figures=False)
        assert tracking.list_artifacts(run.info.run_id) == []
        tracking.restore_run(run.info.run_id)
        logged = log_mlflow(result, run=run.info.run_id, figures=False)
    assert tracking.get_run(run.info.run_id).data.metrics["ece"] == result.ece == logged.metrics["ece"]
