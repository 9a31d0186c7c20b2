"""Reporting: the self-contained HTML report (its figures come from :mod:`veracity.plotting`)."""

from ..plotting import (
    plot_multiclass_reliability,
    plot_reliability,
    plot_reliability_overlay,
    plot_risk_coverage,
    plot_thresholds,
)
from ._html import Report, report

__all__ = [
    "Report",
    "plot_multiclass_reliability",
    "plot_reliability",
    "plot_reliability_overlay",
    "plot_risk_coverage",
    "plot_thresholds",
    "report",
]
