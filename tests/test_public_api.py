"""The public names of ``import veracity as vc`` are a contract (DESIGN §3): pin them."""

import veracity as vc

# Contract names from DESIGN.md §3 and the issues; removing one breaks outside code.
CONTRACT = {
    "reliability", "ece", "mce", "brier", "brier_decomposition", "nll", "auc", "accuracy", "audit",
    "TemperatureScaling", "PlattScaling", "IsotonicCalibration", "HistogramBinning",
    "BetaCalibration", "VectorScaling", "MatrixScaling", "VennAbers", "adjust_prior", "load",
    "split", "cross_fit", "compare",
    "cost_threshold", "recall_threshold", "precision_threshold", "threshold_table",
    "ConformalClassifier", "risk_coverage", "selective_threshold", "simulate_redraws",
    "plot_reliability", "report", "VeracityError",
}

PINNED = [
    "AuditResult", "BetaCalibration", "BinStats", "BootstrapIntervals", "BrierDecomposition",
    "CORPResult", "CalibratedClassifier", "CalibrationSlope", "CalibrationTests", "Calibrator", "ComparisonRow",
    "ConformalClassifier", "CoverageLaw", "CoverageReport", "CrossFit", "DecisionCurve", "DecisionCurveRow", "ECEEstimates",
    "HistogramBinning", "HosmerLemeshowTest", "IsotonicCalibration", "Ledger", "LedgerRow",
    "MatrixScaling", "ModelComparison", "MonitorResult", "MonitorStore", "MurphyDiagram", "NoiseFloor", "OneVsRest", "PlattScaling", "PriorEstimate",
    "RealisedCost", "RedrawResult", "ReliabilityRow", "ReliabilityTable", "Report", "RiskCoverage", "ScanResult",
    "SegmentCalibration", "SegmentRow", "SegmentsResult", "SelectiveThreshold", "SpiegelhalterTest", "StoreStatus", "TemperatureScaling", "ThresholdRow",
    "ThresholdTable", "VectorScaling", "VennAbers", "VeracityError", "accuracy", "adjust_prior",
    "auc", "audit", "audit_dask", "audit_duckdb", "audit_sql", "binomial_interval", "bootstrap_intervals", "brier",
    "brier_decomposition", "budget_threshold", "calibration_slope", "calibration_tests",
    "compare", "compare_models", "configure_duckdb", "conformal_coverage_law", "corp", "cost_threshold", "cross_fit", "decision_curve", "ece",
    "ece_estimates", "ece_noise_floor", "estimate_prior", "hosmer_lemeshow", "label_maturity",
    "load", "load_demo", "log_mlflow", "mce", "monitor", "murphy_diagram", "nll", "period_keys", "plot_multiclass_reliability",
    "plot_reliability", "plot_reliability_overlay", "plot_risk_coverage", "plot_thresholds",
    "precision_threshold", "realised_cost", "recall_threshold", "reliability", "report", "risk_coverage",
    "scan_file", "segments", "selective_threshold", "simulate_redraws", "spiegelhalter", "split",
    "threshold_table",
]


def test_all_is_sorted_and_pinned():
    assert vc.__all__ == sorted(vc.__all__)
    assert vc.__all__ == PINNED


def test_contract_names_exist():
    assert CONTRACT <= set(vc.__all__)
    for name in vc.__all__:
        assert getattr(vc, name) is not None


def test_error_type_is_a_value_error():
    assert issubclass(vc.VeracityError, ValueError)


def test_import_stays_light():
    # the core never imports the optional heavy dependencies (DESIGN §2)
    import subprocess
    import sys

    code = (
        "import sys, veracity; "
        "print(sorted(m for m in ('sklearn', 'matplotlib', 'pandas', 'polars', 'duckdb', 'dask', 'torch', "
        "'pyspark', 'pyarrow', 'narwhals', 'tqdm', 'statsmodels', 'scipy.stats', 'scipy.special', 'scipy.optimize') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
