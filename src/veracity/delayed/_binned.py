r"""Anytime-valid alerts per score bin: one confidence sequence per bin, α shared out.

The rows whose score falls in bin :math:`k` form their own stream of :math:`y - p`; each
bin gets the sequence of :mod:`veracity.delayed._sequence` at level :math:`\alpha/K`
(Bonferroni over the :math:`K` bins, fixed in advance), so the chance that *any* bin
of a calibrated stream ever alarms, over unlimited looks, is at most :math:`\alpha`.
Per (bin, batch) the store needs the same three sums as for the whole stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._text import fmt, render_table
from ..core._validation import check_binary_labels, check_weights
from ..decisions._inputs import check_alpha
from ._audit import _edges, bin_of
from ._ppi import probabilities_1d
from ._sequence import (
    ConfidenceSequence,
    batch_sums,
    bounds_cell,
    check_shift_at,
    check_tolerance,
    first_alarm,
    json_key,
    sequence_from_sums,
    uneven_weights,
    weighted_sequence,
)
from ..core._frameform import rows_form


@dataclass(frozen=True, eq=False, repr=False)
class BinnedSequences(Display):
    """One :class:`ConfidenceSequence` per score bin (``sequences``, each at ``alpha / bins``).

    ``alarm_at`` — the first step at which any bin alarms (None if none), ``alarm_bins`` —
    the bins that alarm at that step; the family's false-alarm chance is at most ``alpha``.
    """

    edges: np.ndarray
    sequences: tuple[ConfidenceSequence, ...]
    alpha: float

    @property
    def labels(self) -> list[str]:
        e, k = self.edges, self.edges.size - 1
        return [f"[{e[i]:g}, {e[i + 1]:g}{']' if i == k - 1 else ')'}" for i in range(k)]

    @property
    def alarm_at(self) -> int | None:
        hits = [cs.alarm_at for cs in self.sequences if cs.alarm_at is not None]
        return min(hits) if hits else None

    @property
    def alarm_bins(self) -> list[str]:
        a = self.alarm_at
        return [lab for lab, cs in zip(self.labels, self.sequences) if a is not None and cs.alarm_at == a]

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for i, (lab, cs) in enumerate(zip(self.labels, self.sequences)):
            last = cs.low.size - 1
            out.append({"bin": lab, "lo": float(self.edges[i]), "hi": float(self.edges[i + 1]),
                        "n": int(cs.n[last]), "estimate": float(cs.estimate[last]),
                        "low": float(cs.low[last]), "high": float(cs.high[last]), "alarm_at": cs.alarm_at,
                        "alarm_step": cs.alarm_step, "status": "alert" if cs.alarm_at is not None else "ok"})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "alpha_per_bin": self.alpha / len(self.sequences),
                "alarm_at": self.alarm_at, "alarm_bins": self.alarm_bins,
                "bins": [{**r, "alarm_step": json_key(r["alarm_step"])} for r in self.rows()]}

    def _frame_records(self) -> list[dict[str, Any]]:
        return self.rows()

    def __str__(self) -> str:
        # an alarm's step as the sequences print it (dates as dates: the table had read "2026-01-22 00:00:00"
        # above "alarm: first at step 2026-01-18")
        body = [[r["bin"], f"{r['n']:,}", fmt(r["estimate"], sign=True),
                 bounds_cell(r["low"], r["high"]),
                 "" if cs.alarm_at is None else f"ALARM at {cs.key_text(cs.alarm_at)}"]
                for r, cs in zip(self.rows(), self.sequences)]
        k = len(self.sequences)
        bins = f"{k} bin{'' if k == 1 else 's'}"
        lines = [(f"confidence sequences per score bin for rate - mean score (anytime-valid; alpha={self.alpha:g} "
                 f"shared by {bins}, {self.alpha / k:.3g} each; bounds after the last look)"),
                 render_table(["bin", "labelled", "rate-score", "bounds", ""], body, align="lrrll")]
        lines.append("alarm: none" if self.alarm_at is None else
                     f"alarm: first at step {self.sequences[0].key_text(self.alarm_at)} in {', '.join(self.alarm_bins)}")
        return "\n".join(lines)


@rows_form(columns=("batches",))
def binned_sequences(scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
                     bins: Any = 10, alpha: float = 0.05, batches: Any = None,
                     tolerance: float = 0.0, shift_at: int | None = None, sample_weight: Any = None,
                     pos_label: Any = None, score_type: str = "probability") -> BinnedSequences:
    """Anytime-valid running bounds on rate − mean score within each score bin (``bins``: a
    count of equal-width bins or edges), each at ``alpha / bins``; the other options
    (``sample_weight``, ``pos_label``, ``score_type`` among them) are those of
    :func:`~veracity.confidence_sequence` (weights are taken over their mean across all bins; with
    ``score_type="logit"`` the bins are on the probability scale).

    >>> b = binned_sequences([0.2] * 500 + [0.8] * 500, [1, 0, 0, 0, 0] * 100 + [1, 1, 1, 1, 0] * 100, bins=2)
    >>> b.alarm_at, [r["n"] for r in b.rows()]
    (None, [500, 500])
    """
    alpha = check_alpha(alpha)
    tolerance = check_tolerance(tolerance)
    edges = _edges(bins)
    p = probabilities_1d(scores, score_type=score_type, what="vc.binned_sequences")
    y = check_binary_labels(labels, p.shape[0], pos_label)
    w = check_weights(sample_weight, p.shape[0])
    k = edges.size - 1
    b = bin_of(p, edges)  # vc.audit's and the store's bins: 0.3 in [0.3, 0.4) of bins=10
    x = y - p
    keys, inv, n, sx, sxx = batch_sums(x, batches, extra=b, groups=k)
    shift_at = check_shift_at(shift_at, n.shape[1])
    a = alpha / k
    cum = np.cumsum(n, axis=1)
    if w is None:
        low, high = sequence_from_sums(n, sx, sxx, alpha=a)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = np.cumsum(sx, axis=1) / cum
    else:
        steps = n.shape[1]
        idx = b * steps + inv
        low, high = weighted_sequence(x, w, idx, (k, steps), alpha=a)
        positive = (w > 0).astype(np.float64)  # a row of weight 0 is a dropped row: not counted as labelled
        cum = np.cumsum(np.bincount(idx, weights=positive, minlength=k * steps).reshape(k, steps), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = np.cumsum(np.bincount(idx, weights=w * x, minlength=k * steps).reshape(k, steps), axis=1) / \
                np.cumsum(np.bincount(idx, weights=w, minlength=k * steps).reshape(k, steps), axis=1)
    at = first_alarm(low, high, tolerance)
    seqs = tuple(ConfidenceSequence(low=low[i], high=high[i], estimate=est[i], n=cum[i].astype(np.int64), alpha=a,
                                    alarm_at=None if at[i] < 0 else int(at[i]), shift_at=shift_at, steps=keys,
                                    tolerance=tolerance, weighted=uneven_weights(w)) for i in range(k))
    return BinnedSequences(edges=edges, sequences=seqs, alpha=alpha)
