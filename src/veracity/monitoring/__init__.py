"""Monitoring: calibration per period from arrays (``monitor``) or from a store (``MonitorStore``)."""

from ._estimate import Estimate, estimate
from ._monitor import (
    MonitorResult,
    MonitorRow,
    label_maturity,
    monitor,
    period_keys,
    summarize_periods,
)
from ._recalibrate import Recalibration, recalibrate_store
from ._alerts import Alert
from ._status import StatusRow, StoreStatus, store_status
from ._store import IngestResult, MonitorStore, StoreBusy

__all__ = ["Alert", "Estimate", "IngestResult", "MonitorResult", "MonitorRow", "MonitorStore", "Recalibration",
           "StoreBusy",
           "StatusRow", "StoreStatus", "estimate", "label_maturity", "monitor", "period_keys",
           "recalibrate_store", "store_status", "summarize_periods"]
