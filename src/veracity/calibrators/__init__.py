"""Calibrators: repair scores with the smallest safe fix, fit only on held-out rows.

One shape for all: ``fit(scores, labels) -> self``, ``transform(scores) ->
probabilities``, ``to_dict()`` / :func:`load` (JSON, never pickle), with provenance
in ``metadata``. See :mod:`veracity.calibrators._base`.
"""

from ._base import Calibrator, load
from ._ledger import Ledger, LedgerRow, compare
from ._split import CrossFit, cross_fit, split
from ._temperature import TemperatureScaling

__all__ = [
    "Calibrator",
    "CrossFit",
    "Ledger",
    "LedgerRow",
    "TemperatureScaling",
    "compare",
    "cross_fit",
    "load",
    "split",
]
