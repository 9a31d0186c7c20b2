"""Honest estimators: how far each audit number can be trusted.

* debiased and smooth ECE (``vc.ece(..., estimator=...)``, :mod:`veracity.core._honest`),
* the ECE noise floor under perfect calibration with a p-value (:func:`ece_noise_floor`),
* bootstrap intervals, percentile and BCa, for every headline metric (:func:`bootstrap_intervals`),
* calibration tests: Spiegelhalter, Hosmer–Lemeshow, calibration-in-the-large and slope,
* the CORP reliability curve and its MCB − DSC + UNC decomposition (:func:`corp`),
* every ECE estimator side by side (:func:`ece_estimates`).
"""

from ._bootstrap import BootstrapIntervals, Interval, bootstrap_intervals
from ._corp import CORPResult, ScoreDecomposition, corp
from ._estimates import ECEEstimates, ece_estimates
from ._noise_floor import NoiseFloor, ece_noise_floor
from ._tests import (
    CalibrationSlope,
    CalibrationTests,
    HosmerLemeshowTest,
    SpiegelhalterTest,
    calibration_slope,
    calibration_tests,
    hosmer_lemeshow,
    spiegelhalter,
)

# the audit's optional sections: the core names them, this package computes them (core/_sections.py)
from ..core._sections import register_section
from ._bootstrap import bootstrap_of
from ._corp import corp_of
from ._estimates import ece_estimates_of
from ._noise_floor import noise_floor_of
from ._tests import calibration_tests_of

register_section("estimators", ece_estimates_of)
register_section("noise_floor", noise_floor_of)
register_section("bootstrap", bootstrap_of)
register_section("tests", calibration_tests_of)
register_section("corp", corp_of)

__all__ = [
    "BootstrapIntervals",
    "CORPResult",
    "CalibrationSlope",
    "CalibrationTests",
    "ECEEstimates",
    "HosmerLemeshowTest",
    "Interval",
    "NoiseFloor",
    "ScoreDecomposition",
    "SpiegelhalterTest",
    "bootstrap_intervals",
    "calibration_slope",
    "calibration_tests",
    "corp",
    "ece_estimates",
    "ece_noise_floor",
    "hosmer_lemeshow",
    "spiegelhalter",
]
