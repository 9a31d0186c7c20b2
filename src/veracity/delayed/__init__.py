"""Before the labels arrive: prediction-powered estimates, label budgets, anytime-valid alerts (issue 26).

* :func:`ppi_mean` / :func:`ppi_audit` — PPI++ estimates with valid intervals from a random
  audit sample and the window's scored rows, beside the label-free (CBPE) estimate and
  the rectifier that tests it; :func:`ppi_from_sums` does the same from per-window sums;
* :func:`labels_needed` / :func:`label_plan` — how many random rows to label per window;
* :func:`confidence_sequence` — anytime-valid running bounds on rate − mean score, with
  :func:`sequence_from_sums` for per-batch (daily) sums; :func:`binned_sequences` per score bin.
"""

from ._audit import PpiAudit, ppi_audit
from ._binned import BinnedSequences, binned_sequences
from ._plan import LabelPlan, label_plan, labels_needed, plan_from_group_sums, plan_from_sums
from ._ppi import PpiMean, PpiSums, ppi_from_sums, ppi_mean, ppi_records, sample_check_p
from ._sequence import ConfidenceSequence, confidence_sequence, first_alarm, sequence_from_sums

__all__ = [
    "BinnedSequences",
    "ConfidenceSequence",
    "LabelPlan",
    "PpiAudit",
    "PpiMean",
    "PpiSums",
    "binned_sequences",
    "confidence_sequence",
    "first_alarm",
    "label_plan",
    "plan_from_group_sums",
    "labels_needed",
    "plan_from_sums",
    "ppi_audit",
    "ppi_from_sums",
    "ppi_mean",
    "ppi_records",
    "sample_check_p",
    "sequence_from_sums",
]
