"""Monitoring: calibration per period, label maturity, persistent history."""

from ._monitor import (
    MonitorResult,
    MonitorRow,
    label_maturity,
    monitor,
    period_keys,
    summarize_periods,
)

__all__ = ["MonitorResult", "MonitorRow", "label_maturity", "monitor", "period_keys", "summarize_periods"]
