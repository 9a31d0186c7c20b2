"""A report with a calibrator logs its Summary's metrics, which are of the scores as given (before the
calibrator): the log says so. Before, ``vc.log_mlflow(report)`` put the raw scores' ECE (0.1006 on the
demo) in the run as ``ece`` with nothing to tell it from the calibrated scores' (0.0683), a number a
reader of the run takes for the deployed model's."""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc
from veracity.calibrators import TemperatureScaling


def _rows():
    rng = np.random.default_rng(0)
    z = rng.normal(0, 2.5, 3000)
    y = (rng.uniform(size=z.size) < 1 / (1 + np.exp(-z / 2))).astype(int)  # over-confident logits
    return z, y


def test_a_report_with_a_calibrator_says_its_metrics_are_before_it(tracking):
    import mlflow

    z, y = _rows()
    cal = TemperatureScaling(score_type="logit").fit(z[:1500], y[:1500])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's own deprecation notices
        report = vc.report(z[1500:], y[1500:], score_type="logit", calibrator=cal, bootstrap=False,
                           figures=False)
        with mlflow.start_run() as run:
            logged = vc.log_mlflow(report)
    raw = vc.audit(z[1500:], y[1500:], score_type="logit", bootstrap=False)
    after = vc.audit(cal.transform(z[1500:]), y[1500:], bootstrap=False)
    held = tracking.get_run(run.info.run_id).data.metrics
    assert held["ece"] == raw.ece and abs(raw.ece - after.ece) > 0.02  # the run holds the raw scores' ECE
    assert any("before the calibrator" in n for n in logged.notes)
    assert "before the calibrator" in str(logged)


def test_a_report_without_a_calibrator_has_no_such_note(tracking):
    import mlflow

    z, y = _rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = vc.report(z, y, score_type="logit", bootstrap=False, figures=False)
        with mlflow.start_run():
            logged = vc.log_mlflow(report)
    assert not any("calibrator" in n for n in logged.notes)
