"""veracity — honest probabilities.

Audit whether a model's scores mean what they say, repair them with calibrators
fit only on held-out data, turn them into decisions, and watch them drift.

Layout, bottom to top: :mod:`veracity.core` (validation, per-bin statistics, metrics, the
audit), :mod:`veracity.sources` (where the rows live: arrays, frames, DuckDB, Spark, Dask —
one seam, each computation written once), the calibrators, decisions and honest estimators,
monitoring, comparison and SQL, then :mod:`veracity.plotting` (``result.plot()``'s one seam)
and :mod:`veracity.reporting` (``vc.report``), the CLI and the seed demos. Importing this
package loads numpy only; the heavy libraries load when a call needs them.

>>> import veracity as vc
>>> round(vc.brier([.76, .82, .81, .91, .70], [1, 0, 1, 1, 0]), 5)
0.25284
"""

import sys as _sys
import types as _types
from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._version import __version__

# -- audit core --------------------------------------------------------------------
from .core._validation import VeracityError
from .core._intervals import binomial_interval
from .core._stats import BinStats
from .core._formulas import BrierDecomposition
from .core._metrics import (
    accuracy,
    auc,
    brier,
    brier_decomposition,
    ece,
    mce,
    nll,
)
from .core._reliability import ReliabilityRow, ReliabilityTable, reliability
from .core._audit import AuditResult, audit

# Everything above the core loads on the first use of one of its names (``_ON_FIRST_USE`` below),
# so that ``import veracity`` loads numpy and the core only. The packages that register a
# computation into the core (the frame forms, the audit's honest sections, the table form, a
# calibrator's fit on a frame) are imported by one loader the core calls on first need.


def _load_registrations() -> None:
    from . import honest, segments, sources, sql  # noqa: F401  (each registers its part on import)
    from .frames import _fit  # noqa: F401  (Calibrator.fit(frame, score=, label=))


from .core._plugins import register_loader as _register_loader

_register_loader(_load_registrations)
del _register_loader

if _TYPE_CHECKING:  # the names loaded on first use, for type checkers
    from .datasets import load_demo
    from .sources._engines import audit_dask, audit_duckdb
    from .sources._scan import ScanResult, scan_file
    from .sources import configure_duckdb
    from .calibrators import (
        BetaCalibration,
        Calibrator,
        CrossFit,
        HistogramBinning,
        IsotonicCalibration,
        Ledger,
        LedgerRow,
        MatrixScaling,
        OneVsRest,
        PlattScaling,
        PriorEstimate,
        TemperatureScaling,
        VectorScaling,
        VennAbers,
        adjust_prior,
        compare,
        cross_fit,
        estimate_prior,
        load,
        split,
    )
    from .decisions import (
        ConformalClassifier,
        CoverageLaw,
        CoverageReport,
        RedrawResult,
        RiskCoverage,
        SelectiveThreshold,
        ThresholdRow,
        ThresholdTable,
        budget_threshold,
        conformal_coverage_law,
        cost_threshold,
        precision_threshold,
        recall_threshold,
        risk_coverage,
        selective_threshold,
        simulate_redraws,
        threshold_table,
    )
    from .honest import (
        BootstrapIntervals,
        CalibrationSlope,
        CalibrationTests,
        CORPResult,
        ECEEstimates,
        HosmerLemeshowTest,
        NoiseFloor,
        SpiegelhalterTest,
        bootstrap_intervals,
        calibration_slope,
        calibration_tests,
        corp,
        ece_estimates,
        ece_noise_floor,
        hosmer_lemeshow,
        spiegelhalter,
    )
    from .reporting import (
        Report,
        plot_multiclass_reliability,
        plot_reliability,
        plot_reliability_overlay,
        plot_risk_coverage,
        plot_thresholds,
        report,
    )
    from .segments import SegmentCalibration, SegmentRow, SegmentsResult, segments
    from .monitoring import (
        MonitorResult,
        MonitorStore,
        StoreStatus,
        label_maturity,
        monitor,
        period_keys,
    )
    from .comparison import (
        ComparisonRow,
        DecisionCurve,
        DecisionCurveRow,
        ModelComparison,
        MurphyDiagram,
        RealisedCost,
        compare_models,
        decision_curve,
        murphy_diagram,
        realised_cost,
    )
    from .delayed import (
        BinnedSequences,
        ConfidenceSequence,
        LabelPlan,
        PpiAudit,
        PpiMean,
        binned_sequences,
        confidence_sequence,
        label_plan,
        labels_needed,
        ppi_audit,
        ppi_mean,
    )
    from .tracking import (
        log_mlflow,
    )
    from .sql._audit import audit_sql

#: the names above the core, each loaded with its package on first use so that ``import veracity``
#: stays light: name -> module
_ON_FIRST_USE = {name: module for module, names in {
    '.datasets': ('load_demo',),
    '.sources._engines': ('audit_dask', 'audit_duckdb'),
    '.sources._scan': ('ScanResult', 'scan_file'),
    '.sources': ('configure_duckdb',),
    '.calibrators': ('BetaCalibration', 'Calibrator', 'CrossFit', 'HistogramBinning', 'IsotonicCalibration', 'Ledger', 'LedgerRow', 'MatrixScaling', 'OneVsRest', 'PlattScaling', 'PriorEstimate', 'TemperatureScaling', 'VectorScaling', 'VennAbers', 'adjust_prior', 'compare', 'cross_fit', 'estimate_prior', 'load', 'split'),
    '.decisions': ('ConformalClassifier', 'CoverageLaw', 'CoverageReport', 'RedrawResult', 'RiskCoverage', 'SelectiveThreshold', 'ThresholdRow', 'ThresholdTable', 'budget_threshold', 'conformal_coverage_law', 'cost_threshold', 'precision_threshold', 'recall_threshold', 'risk_coverage', 'selective_threshold', 'simulate_redraws', 'threshold_table'),
    '.honest': ('BootstrapIntervals', 'CalibrationSlope', 'CalibrationTests', 'CORPResult', 'ECEEstimates', 'HosmerLemeshowTest', 'NoiseFloor', 'SpiegelhalterTest', 'bootstrap_intervals', 'calibration_slope', 'calibration_tests', 'corp', 'ece_estimates', 'ece_noise_floor', 'hosmer_lemeshow', 'spiegelhalter'),
    '.reporting': ('Report', 'plot_multiclass_reliability', 'plot_reliability', 'plot_reliability_overlay', 'plot_risk_coverage', 'plot_thresholds', 'report'),
    '.segments': ('SegmentCalibration', 'SegmentRow', 'SegmentsResult', 'segments'),
    '.monitoring': ('MonitorResult', 'MonitorStore', 'StoreStatus', 'label_maturity', 'monitor', 'period_keys'),
    '.comparison': ('ComparisonRow', 'DecisionCurve', 'DecisionCurveRow', 'ModelComparison', 'MurphyDiagram', 'RealisedCost', 'compare_models', 'decision_curve', 'murphy_diagram', 'realised_cost'),
    '.delayed': ('BinnedSequences', 'ConfidenceSequence', 'LabelPlan', 'PpiAudit', 'PpiMean', 'binned_sequences', 'confidence_sequence', 'label_plan', 'labels_needed', 'ppi_audit', 'ppi_mean'),
    '.tracking': ('log_mlflow',),
    '.sql._audit': ('audit_sql',),
}.items() for name in names}


def _public_names() -> list[str]:
    import types

    return sorted(
        name
        for name, value in globals().items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    )


#: the subpackages, reachable as attributes (``vc.calibrators``) before anything imported them
_SUBPACKAGES = frozenset({
    "calibrators", "cli", "comparison", "core", "datasets", "decisions", "delayed", "demos", "engines",
    "export", "frames", "honest", "io", "monitoring", "plotting", "reporting", "segments", "sources", "sql",
    "tracking",
})


class _Package(_types.ModuleType):
    """This package's module type: importing a subpackage that shares its name with a public function
    (``veracity.segments``, and the old path ``veracity.report``, an alias of ``veracity.reporting``)
    never rebinds ``vc.segments`` / ``vc.report``, the functions."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _ON_FIRST_USE and isinstance(value, _types.ModuleType):
            return  # the module stays in sys.modules; the name keeps meaning the function
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

#: loaded on first access (they import an optional heavy dependency): name -> (module, dependency)
_LAZY = {"CalibratedClassifier": (".calibrators._sklearn", "sklearn")}


def _installed(package: str) -> bool:
    from importlib.util import find_spec

    try:
        return find_spec(package) is not None  # looks for it without importing it
    except ImportError:
        return False


def __getattr__(name: str) -> object:
    if name in _ON_FIRST_USE:
        import importlib

        value = getattr(importlib.import_module(_ON_FIRST_USE[name], __name__), name)
        globals()[name] = value  # once loaded, a plain attribute
        return value
    if name in _SUBPACKAGES:  # vc.calibrators etc. without importing them first, as before
        import importlib

        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name][0], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# pinned by tests/test_public_api.py; a lazy name is listed when its dependency is installed, so
# that ``from veracity import *`` works without it (vc.CalibratedClassifier then says what to install)
__all__ = sorted(set(_public_names()) | set(_ON_FIRST_USE) | {name for name, (_, needs) in _LAZY.items() if _installed(needs)})
