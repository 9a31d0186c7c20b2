r"""CORP reliability diagram and score decomposition (Dimitriadis, Gneiting & Jordan 2021).

CORP = *Consistent, Optimally binned, Reproducible, PAV-based*. The reliability
curve is the isotonic (pool-adjacent-violators) regression of the labels on the
scores: rows with equal scores are pooled first (weighted mean label), then PAV
fits the non-decreasing step function :math:`\hat p` closest in squared error
(the same fit as scikit-learn's ``IsotonicRegression``). It needs no bins and no
bandwidth: the blocks of the PAV solution *are* the optimal bins.

For a proper score S (Brier, log loss) with mean :math:`\bar S(\cdot)`:

.. math::
    \bar S(p) = \underbrace{\bar S(p) - \bar S(\hat p)}_{\mathrm{MCB}}
              - \underbrace{(\bar S(r) - \bar S(\hat p))}_{\mathrm{DSC}}
              + \underbrace{\bar S(r)}_{\mathrm{UNC}}

with :math:`r` the base rate (the constant forecast). MCB (miscalibration) ≥ 0
and DSC (discrimination) ≥ 0 because the PAV fit minimises every proper score
among isotonic functions of the score, and both p itself and the constant r are
such functions. The identity is exact by construction. Log loss of :math:`\hat p`
and r uses :math:`0\log 0 = 0` (a pure block scores 0); log loss of p is
veracity's ``nll`` (clipped at machine epsilon, or exact from logits).

Top-label confidences of (N, K) scores are decomposed as the binary forecast they are — the confidence
against "the argmax is the label" — the Brier score and the log loss alike: the log loss of p is then the
binary log loss of the confidence (clipped as above), not the categorical NLL of the true class that
``vc.nll`` reports. That NLL charges a wrong row :math:`-\log p_y \ge -\log(1 - \text{conf})`, a loss no
function of the confidence can remove, so it had entered MCB: a perfectly calibrated 3-class model read a
log-loss MCB of 0.21 beside a Brier MCB of 0.0006. ``top_label`` marks such a result, and its printout
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core._text import fmt, render_table
from ..core._weights import sums_in_user_units
from ..core._validation import (
    Binary, as_float_array, binary_nll_terms, check_probabilities, prepare_binary,
)
from ..core._display import Display
from ..core._frameform import rows_form


@dataclass(frozen=True)
class ScoreDecomposition:
    """``score = mcb - dsc + unc`` for one proper score."""

    score: float
    mcb: float
    dsc: float
    unc: float

    def to_dict(self) -> dict[str, float]:
        return {"score": self.score, "mcb": self.mcb, "dsc": self.dsc, "unc": self.unc}


@dataclass(frozen=True, eq=False, repr=False)
class CORPResult(Display):
    """CORP curve (``x`` distinct scores, ``y`` recalibrated probability, ``weight`` per point)
    and the MCB − DSC + UNC decompositions of the Brier score and log loss."""

    x: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    brier: ScoreDecomposition
    log_loss: ScoreDecomposition
    n: int
    #: the scores were top-label confidences of (N, K) class probabilities: the decompositions are of the
    #: confidence as a binary forecast of "the argmax is the label" (module doc)
    top_label: bool = False

    @property
    def blocks(self) -> int:
        """Number of constant pieces of the PAV fit (the CORP 'bins')."""
        return int(np.count_nonzero(np.diff(self.y) != 0) + 1) if self.y.size else 0

    def recalibrate(self, scores: Any) -> np.ndarray:
        """The CORP curve as a step function of new probability scores (right-continuous)."""
        s = as_float_array(scores, "scores")  # NaN would land on the last step, silently
        check_probabilities(s, "scores")
        i = np.searchsorted(self.x, s, side="right") - 1
        return self.y[np.clip(i, 0, self.x.size - 1)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "blocks": self.blocks,
            "brier": self.brier.to_dict(),
            "log_loss": self.log_loss.to_dict(),
            "top_label": self.top_label,
            "curve": {"x": self.x.tolist(), "y": self.y.tolist(), "weight": self.weight.tolist()},
        }

    def __str__(self) -> str:
        rows = [
            [name, fmt(d.score), fmt(d.mcb), fmt(d.dsc), fmt(d.unc)]
            for name, d in (("Brier", self.brier), ("log loss", self.log_loss))
        ]
        table = render_table(["score", "value", "MCB", "DSC", "UNC"], rows)
        blocks, scores = self.blocks, self.x.size  # "1 block", "5,932 distinct scores", as counts print
        of = " of the top-label confidence" if self.top_label else ""  # a binary forecast of "argmax right"
        return (
            f"CORP decomposition{of} (PAV reliability curve, {blocks:,} block{'s' * (blocks != 1)} over "
            f"{scores:,} distinct score{'s' * (scores != 1)}; score = MCB - DSC + UNC):\n{table}"
        )


def _constant_log_loss(pos: np.ndarray, neg: np.ndarray) -> float:
    r"""Summed log loss of forecasting each set's own rate :math:`q = P/W` (``pos`` P, ``neg`` N: the
    label-1 and label-0 weight per set, W = P + N): :math:`-\sum [P \log(P/W) + N \log(N/W)]`,
    0 log 0 = 0. The smaller side's log as :math:`\log m - \log W`, the larger's as
    :math:`\mathrm{log1p}(-m/W)`: every term is ≥ 0 and a rate within 1e-16 of 0 or 1 still counts
    (the rounded rate's log(1 - q) was -inf)."""
    small, large = np.minimum(pos, neg), np.maximum(pos, neg)
    total = pos + neg
    seen = small > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        minority = np.where(seen, small * (np.log(np.where(seen, small, 1.0)) - np.log(np.where(seen, total, 1.0))),
                            0.0)
        majority = large * np.log1p(-np.where(seen, small / np.where(seen, total, 1.0), 0.0))
    return float(-(minority + majority).sum()) + 0.0  # + 0.0: pure sets score 0, not -0.0


def _fitted_score(fitted: float, score: float, constant: float) -> float:
    r"""The PAV fit's mean score :math:`\bar S(\hat p)`, at most the score's and the base rate's
    (:math:`\bar S(p)`, :math:`\bar S(r)`): the fit minimises every proper score among isotonic functions of
    the score, and p and r are such functions, so MCB and DSC are :math:`\ge 0` exactly. The three means are
    sums in different orders (per row for p, per block for the fit): scores already isotonic-calibrated (an
    isotonic fit read on its own rows) gave a fit 1e-16 above them, and MCB printed "-0.0000"."""
    return min(fitted, score, constant)


def corp_of(data: Binary) -> CORPResult:
    from ._common import weighted_rows

    data = weighted_rows(data)
    p, y = data.p, data.y
    w = np.ones_like(p) if data.w is None else data.w
    x, inverse = np.unique(p, return_inverse=True)
    wx = np.bincount(inverse, weights=w, minlength=x.size)
    yx = np.bincount(inverse, weights=w * y, minlength=x.size) / wx
    from scipy.optimize import isotonic_regression  # 0.15 s to import: load on use

    fit = isotonic_regression(yx, weights=wx, increasing=True).x
    fit = np.clip(fit, 0.0, 1.0)
    p_hat = fit[inverse]
    total = float(w.sum())
    base = float(np.dot(w, y) / total)

    def mean(v: np.ndarray) -> float:
        return float(np.dot(w, v) / total) + 0.0  # + 0.0: a pure block's -0.0 log loss reads 0

    s_p, s_r = mean((p - y) ** 2), mean((base - y) ** 2)
    s_hat = _fitted_score(mean((p_hat - y) ** 2), s_p, s_r)
    brier = ScoreDecomposition(score=s_p, mcb=s_p - s_hat, dsc=s_r - s_hat, unc=s_r)
    # log loss of a constant forecast over a set of rows = the rate of its own rows (a PAV block,
    # or all rows), from the block's label sums: a rate of 1 - 1e-20 rounds to 1.0, and
    # log(1 - q) of the rounded rate made MCB and DSC -inf for weights spread over 16 decades
    pos = np.bincount(inverse, weights=w * y, minlength=x.size)
    neg = np.bincount(inverse, weights=w * (1.0 - y), minlength=x.size)
    block = np.concatenate(([0], np.cumsum(np.diff(fit) != 0)))
    # top-label confidences: the binary log loss of the confidence, not the categorical NLL (module doc)
    l_p = mean(binary_nll_terms(replace(data, nll_terms=None) if data.top_label else data))
    l_r = _constant_log_loss(np.array([pos.sum()]), np.array([neg.sum()])) / total
    l_hat = _fitted_score(_constant_log_loss(np.bincount(block, weights=pos), np.bincount(block, weights=neg))
                          / total, l_p, l_r)
    log_loss = ScoreDecomposition(score=l_p, mcb=l_p - l_hat, dsc=l_r - l_hat, unc=l_r)
    return CORPResult(x=x, y=fit, weight=sums_in_user_units(wx, data.weight_scale), brier=brier,
                      log_loss=log_loss, n=data.n, top_label=data.top_label)


@rows_form
def corp(
    scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
    score_type: str = "probability", sample_weight: Any = None,
    pos_label: Any = None,
) -> CORPResult:
    r"""CORP reliability curve (PAV) and the MCB − DSC + UNC decomposition of Brier and log loss.

    >>> r = corp([0.1, 0.3, 0.35, 0.6, 0.8, 0.9], [0, 0, 1, 0, 1, 1])
    >>> r.y.tolist()
    [0.0, 0.0, 0.5, 0.5, 1.0, 1.0]
    >>> d = r.brier
    >>> abs(d.mcb - d.dsc + d.unc - d.score) < 1e-15
    True
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return corp_of(data)
