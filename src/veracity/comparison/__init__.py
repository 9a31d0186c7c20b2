"""Is the new model better? Paired, calibration-aware model comparison (issue 25).

* :func:`compare_models` — Brier, log loss, debiased ECE and AUC of every pair of models
  on the same rows, each difference with a paired interval and p-value (Diebold–Mariano,
  DeLong, paired Poisson bootstrap), the CORP decomposition of each model and of the
  difference, and a verdict (who has the higher resolution — DSC, not the AUC — who is better
  calibrated, and what the AUC says where it tells otherwise);
* :func:`murphy_diagram` — mean elementary scores over every threshold θ (Ehm et al. 2016)
  and their paired difference with a pointwise band: which model wins for which cost ratio;
* :func:`decision_curve` — net benefit against threshold probability (Vickers & Elkin 2006),
  with "treat all" and "treat none" and intervals;
* :func:`realised_cost` — at a deployed threshold, the cost the scores predict against the
  cost that happened, with an interval.

Layer: above ``core``, ``decisions`` and ``honest`` and beside ``frames`` (whose in-memory
column lookup the frame form uses); nothing below imports it.
"""

from ._compare import ComparisonRow, CORPDifference, ModelComparison, compare_models
from ._cost import CostRow, RealisedCost, realised_cost
from ._decision_curve import DecisionCurve, DecisionCurveRow, decision_curve
from ._murphy import MurphyDiagram, MurphyDifference, murphy_diagram

__all__ = [
    "CORPDifference",
    "ComparisonRow",
    "CostRow",
    "DecisionCurve",
    "DecisionCurveRow",
    "ModelComparison",
    "MurphyDiagram",
    "MurphyDifference",
    "RealisedCost",
    "compare_models",
    "decision_curve",
    "murphy_diagram",
    "realised_cost",
]
