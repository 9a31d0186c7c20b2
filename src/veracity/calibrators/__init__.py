"""Calibrators: repair scores with the smallest safe fix, fit only on held-out rows.

One shape for all: ``fit(scores, labels) -> self``, ``transform(scores) ->
probabilities``, ``to_dict()`` / :func:`load` (JSON, never pickle), with provenance
in ``metadata``. See :mod:`veracity.calibrators._base`.
"""

from ._base import Calibrator, load
from ._beta import BetaCalibration
from ._histogram import HistogramBinning
from ._isotonic import IsotonicCalibration
from ._ledger import Ledger, LedgerRow, compare
from ._matrix import MatrixScaling, VectorScaling
from ._ovr import OneVsRest
from ._platt import PlattScaling
from ._prior import PriorEstimate, adjust_prior, estimate_prior
from ._split import CrossFit, cross_fit, fold_index, split
from ._temperature import TemperatureScaling, TraceRow
from ._venn_abers import VennAbers

#: method name (as in ``veracity fit --method``) -> calibrator class
METHODS = {
    "temperature": TemperatureScaling,
    "platt": PlattScaling,
    "isotonic": IsotonicCalibration,
    "histogram": HistogramBinning,
    "beta": BetaCalibration,
    "vector": VectorScaling,
    "matrix": MatrixScaling,
    "venn-abers": VennAbers,
}

__all__ = [
    "METHODS",
    "BetaCalibration",
    "CalibratedClassifier",
    "Calibrator",
    "CrossFit",
    "HistogramBinning",
    "IsotonicCalibration",
    "Ledger",
    "LedgerRow",
    "MatrixScaling",
    "OneVsRest",
    "PlattScaling",
    "PriorEstimate",
    "TemperatureScaling",
    "TraceRow",
    "VectorScaling",
    "VennAbers",
    "adjust_prior",
    "compare",
    "cross_fit",
    "estimate_prior",
    "fold_index",
    "load",
    "split",
]


def __getattr__(name: str):
    # The scikit-learn wrapper imports scikit-learn, so it is loaded on first use only.
    if name == "CalibratedClassifier":
        from ._sklearn import CalibratedClassifier

        return CalibratedClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
