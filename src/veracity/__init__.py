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
from .datasets import load_demo

# -- monitoring and engines --------------------------------------------------------
from .sources._engines import audit_dask, audit_duckdb
from .sources._scan import ScanResult, scan_file
# (veracity.monitoring loads on first use of one of its names: see _ON_FIRST_USE below)

# -- calibrators (issue 3) ---------------------------------------------------------
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

# -- decisions (issue 4) -----------------------------------------------------------
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

# -- honest estimators (issue 5) ---------------------------------------------------
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

# -- is the new model better? paired comparison (issue 25) ---------------------------
# (veracity.comparison loads on first use: see _ON_FIRST_USE below)

# -- before the labels arrive: PPI, label budgets, anytime-valid alerts (issue 26) -------
# (veracity.delayed loads on first use: see _ON_FIRST_USE below)

# -- reporting (issue 7) -----------------------------------------------------------
# (matplotlib is imported only when a plot is drawn.) ``vc.report`` is the function; the
# package is ``veracity.reporting``. Its old path ``veracity.report`` is loaded first, so
# that importing it later cannot rebind ``vc.report`` to a module.
from . import report as _report_path
from .reporting import (
    Report,
    plot_multiclass_reliability,
    plot_reliability,
    plot_reliability_overlay,
    plot_risk_coverage,
    plot_thresholds,
    report,
)

# -- where the scores live: audits inside a SQL database, MLflow (issue 27) -----------
# (sqlglot, the database drivers and MLflow are imported only when used)
from . import sql as _sql  # registers vc.audit(connection, table=...); the SQL code loads on first use
# (veracity.tracking loads on first use: see _ON_FIRST_USE below)

# -- where it is miscalibrated: segments and their repair (issue 24) -----------------
from .segments import SegmentCalibration, SegmentRow, SegmentsResult, segments

# -- the rows seam: the frame form of every function above (``vc.audit(frame, score="p",
# label="y")``) reads a frame's rows through veracity.sources, which registers itself on import
from .sources import configure_duckdb
from .frames import _fit as _frame_fit  # registers Calibrator.fit's frame form (fit(frame, score=, label=))


if _TYPE_CHECKING:  # the names loaded on first use, for type checkers
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

#: packages that only these names need, loaded on their first use so that ``import veracity`` stays
#: light (none of them registers anything on import): name -> module
_ON_FIRST_USE = {name: module for module, names in {
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
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name][0], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# pinned by tests/test_public_api.py; a lazy name is listed when its dependency is installed, so
# that ``from veracity import *`` works without it (vc.CalibratedClassifier then says what to install)
__all__ = sorted(set(_public_names()) | set(_ON_FIRST_USE) | {name for name, (_, needs) in _LAZY.items() if _installed(needs)})
