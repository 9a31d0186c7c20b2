"""The option types of the public functions: ``Literal`` strings a type checker can check.

Each option's values are defined once, beside the code that checks them, and gathered
here for signatures: ``ece(p, y, strategy="quantile")`` type-checks, ``strategy="quantil"``
does not (and is refused at run time with the same list of values).
"""

from __future__ import annotations

from typing import Literal

from ._binning import Strategy
from ._intervals import IntervalMethod, Sided
from ._validation import ScoreType

#: ECE estimators (``vc.ece(..., estimator=)``; see :mod:`veracity.core._honest`)
Estimator = Literal["plugin", "debiased", "smooth"]
#: readings of (N, K) scores by ``vc.auc``: confidence vs correctness, or per class
AucMulticlass = Literal["top-label", "ovr", "ovo"]
#: how ``vc.auc`` averages per-class AUCs
AucAverage = Literal["macro", "weighted"]
#: resampled intervals of ``vc.audit(..., bootstrap=)``: ``True`` is BCa
BootstrapMethod = Literal["percentile", "bca"]

__all__ = ["AucAverage", "AucMulticlass", "BootstrapMethod", "Estimator", "IntervalMethod", "ScoreType",
           "Sided", "Strategy"]
