"""Experiment tracking: ``vc.log_mlflow(result_or_calibrator)`` logs to an MLflow run.

Sits at the reporting level (it draws the reliability diagram and builds the HTML
report); MLflow is imported only when something is logged.
"""

from ._mlflow import MlflowLog, log_mlflow

__all__ = ["MlflowLog", "log_mlflow"]
