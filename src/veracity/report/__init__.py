"""Reporting: plots (matplotlib, imported only when a plot is drawn) and the HTML report."""

from ._html import Report, report
from ._plots import (
    plot_multiclass_reliability,
    plot_reliability,
    plot_reliability_overlay,
    plot_risk_coverage,
    plot_thresholds,
)

__all__ = [
    "Report",
    "plot_multiclass_reliability",
    "plot_reliability",
    "plot_reliability_overlay",
    "plot_risk_coverage",
    "plot_thresholds",
    "report",
]
