"""From probabilities to decisions: thresholds, operating tables, conformal sets,
abstention (selective prediction) and the redraw simulation of seed 003.

A threshold ``t`` flags a row when ``score >= t``. Every threshold, ``q̂`` and
abstention cut-off is a decision fit on data: fit it on the calib role and
measure it on test.
"""

from ._conformal import (
    ConformalClassifier,
    CoverageLaw,
    CoverageReport,
    conformal_coverage_law,
    conformal_quantile,
    min_calibration_size,
)
from ._redraws import RedrawResult, simulate_redraws
from ._selective import (
    DEFAULT_CANDIDATES,
    RiskCoverage,
    SelectiveThreshold,
    risk_coverage,
    selective_threshold,
)
from ._table import ThresholdRow, ThresholdTable, threshold_table
from ._thresholds import (
    budget_threshold,
    cost_threshold,
    min_positives,
    precision_threshold,
    recall_rank,
    recall_threshold,
)

__all__ = [
    "ConformalClassifier",
    "CoverageLaw",
    "CoverageReport",
    "DEFAULT_CANDIDATES",
    "RedrawResult",
    "RiskCoverage",
    "SelectiveThreshold",
    "ThresholdRow",
    "ThresholdTable",
    "budget_threshold",
    "conformal_coverage_law",
    "conformal_quantile",
    "cost_threshold",
    "min_calibration_size",
    "min_positives",
    "precision_threshold",
    "recall_rank",
    "recall_threshold",
    "risk_coverage",
    "selective_threshold",
    "simulate_redraws",
    "threshold_table",
]
