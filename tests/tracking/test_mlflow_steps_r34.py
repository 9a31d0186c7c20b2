"""The run shows the metrics ``vc.log_mlflow`` logged, whatever steps the run already holds (session 34).

MLflow shows a metric's value of the highest step: an ``auc`` a training loop logged at steps 0 … 4
outranked the audit's, which was logged at step 0, so ``run.data.metrics["auc"]`` read back the loop's last
AUC where ``log_mlflow`` said it logged the audit's (and a metric cleared to NaN stayed the loop's number).
Now a log's metrics go one step past the highest the run holds for them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")


def _audit(seed: int, one_class: bool = False):
    rng = np.random.default_rng(seed)
    p = rng.random(800)
    y = np.zeros(800, dtype=int) if one_class else (rng.random(800) < p).astype(int)
    return vc.audit(p, y, by={"seg": rng.choice(["web", "mobile"], 800)})


def _history(client, run_id, key):
    return sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))


def test_a_training_loops_steps_do_not_hide_the_audit(tracking):
    result = _audit(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with mlflow.start_run() as run:
            for epoch, auc in enumerate([0.6, 0.7, 0.8, 0.9, 0.95]):
                mlflow.log_metric("auc", auc, step=epoch)
            mlflow.log_metric("seg/web/ece", 0.5, step=7)
            logged = log_mlflow(result, figures=False)
    stored = tracking.get_run(run.info.run_id).data.metrics
    assert logged.metrics["auc"] == result.auc
    assert stored["auc"] == result.auc != 0.95
    assert stored["seg/web/ece"] == result.groups["web"].ece
    assert stored["ece"] == result.ece
    assert _history(tracking, run.info.run_id, "auc")[-1] == (8, result.auc)  # one step for the whole log
    assert _history(tracking, run.info.run_id, "ece") == [(8, result.ece)]


def test_second_audit_is_the_next_step_and_clears_past_a_loop(tracking):
    first, second = _audit(1), _audit(2, one_class=True)  # the second has no AUC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with mlflow.start_run() as run:
            log_mlflow(first, figures=False)
            mlflow.log_metric("auc", 0.99, step=5)
            log_mlflow(second, figures=False)
    stored = tracking.get_run(run.info.run_id).data.metrics
    assert stored["ece"] == second.ece
    assert math.isnan(stored["auc"])  # not the loop's 0.99, nor the first audit's AUC
    assert _history(tracking, run.info.run_id, "ece") == [(0, first.ece), (6, second.ece)]
