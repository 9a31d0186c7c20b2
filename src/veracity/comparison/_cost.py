r"""Expected against realised cost at a deployed threshold.

At threshold t, a row is flagged when :math:`p \ge t`. For a declared cost pair (a false
positive costs :math:`c_{FP}`, a miss :math:`c_{FN}`) the scores *predict* the cost

.. math:: \hat C = \frac1W \sum_i w_i\big(f_i\,c_{FP}(1 - p_i) + (1 - f_i)\,c_{FN}\,p_i\big)

(each flagged row is a false alarm with probability 1 − p, each unflagged one a miss with
probability p), while the cost that happened is
:math:`C = \frac1W \sum_i w_i\big(f_i\,c_{FP}(1 - y_i) + (1 - f_i)\,c_{FN}\,y_i\big)`. Their gap

.. math:: C - \hat C = \frac1W \sum_i w_i\,(y_i - p_i)\,\big(c_{FN}(1 - f_i) - c_{FP} f_i\big)

is the calibration error *that the decision pays for*: it weighs miscalibration by where
the rows sit relative to the threshold, so a model with a small ECE can still misjudge
its cost by much. Both C and the gap are means of per-row values and get Student-t
intervals (:func:`._paired.paired_mean`); the p-value tests "the scores predict the cost".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._metrics import check_threshold
from ..core._text import fmt, render_table, visible
from ..core._validation import VeracityError
from ..decisions._inputs import check_cost
from ..honest._common import check_level
from ._compare import _fmt_p
from ._inputs import check_score_type, models_of
from ._paired import no_spread, paired_mean


@dataclass(frozen=True)
class CostRow:
    """One model at the deployed threshold: cost per row predicted (``expected``) and realised."""

    model: str
    threshold: float
    flagged: float
    expected: float
    realised: float
    realised_low: float
    realised_high: float
    gap: float
    ci_low: float
    ci_high: float
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "model", "threshold", "flagged", "expected", "realised", "realised_low", "realised_high", "gap",
            "ci_low", "ci_high", "p_value")}


@dataclass(frozen=True, eq=False, repr=False)
class RealisedCost(Display):
    """Expected and realised cost per row at a threshold for each model (see :func:`realised_cost`)."""

    rows: tuple[CostRow, ...]
    threshold: float
    cost_fp: float
    cost_fn: float
    n: int
    level: float
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "threshold": self.threshold, "cost_fp": self.cost_fp, "cost_fn": self.cost_fn,
                "level": self.level, "rows": [r.to_dict() for r in self.rows], "notes": list(self.notes)}

    def _summary_items(self) -> dict[str, Any]:
        return {"n": self.n, "threshold": self.threshold, "cost_fp": self.cost_fp, "cost_fn": self.cost_fn}

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        body = [[r.model, fmt(r.flagged), fmt(r.expected), fmt(r.realised),
                 f"[{fmt(r.realised_low)}, {fmt(r.realised_high)}]", fmt(r.gap, sign=True),
                 f"[{fmt(r.ci_low, sign=True)}, {fmt(r.ci_high, sign=True)}]",
                 _fmt_p(r.p_value)] for r in self.rows]
        return (f"Expected vs realised cost per row at threshold {self.threshold:g} (flag p >= t; a false alarm "
                f"costs {self.cost_fp:g}, a miss {self.cost_fn:g}; {self.n:,} row{'s' if self.n != 1 else ''}):\n"
                + render_table(["model", "flagged", "expected", "realised", f"{pct} CI", "gap", f"{pct} CI",
                                "p-value"], [*body])
                + "".join(f"\nnote: {visible(t)}" for t in self.notes))


def cost_of(models: Any, threshold: float, cost_fp: float, cost_fn: float, level: float) -> RealisedCost:
    y, w = models.y, models.w
    rows = []
    notes = []
    for name, d in zip(models.names, models.data):
        p = d.p
        f = p >= threshold
        expected = np.where(f, cost_fp * (1.0 - p), cost_fn * p)
        realised = np.where(f, cost_fp * (1.0 - y), cost_fn * y)
        real = paired_mean(realised, w, level)
        gap = paired_mean(realised - expected, w, level)
        flagged = float(f.mean()) if w is None else float(np.dot(w, f) / w.sum())
        exp_mean = float(expected.mean()) if w is None else float(np.dot(w, expected) / w.sum())
        # a cost per row lies in [0, max(c_FP, c_FN)]: the interval of a rare miss is cut there
        top = max(cost_fp, cost_fn)
        gap_p = gap.p_value
        if no_spread(gap.value, gap.se) and gap.value != 0.0:  # a test of no spread "rejects" at p = 0
            gap_p = float("nan")
            notes.append(f"{name!r}: every row has the same gap between realised and expected cost "
                         f"({fmt(gap.value, sign=True)}), so its interval has zero width and there is no test "
                         "(p-value n/a); more rows (of both classes) give one")
        rows.append(CostRow(name, threshold, flagged, exp_mean, real.value, max(real.low, 0.0), min(real.high, top),
                            gap.value, gap.low, gap.high, gap_p))
        if no_spread(real.value, real.se):  # every row cost the same: an interval of no width
            kind = (f"the labels are all one class (every label {int(y[0])})" if np.all(y == y[0]) else
                    "the labels hold both classes")
            notes.append(f"{name!r}: every row has the same realised cost ({fmt(real.value)}; {kind}, "
                         f"{'every' if flagged == 1.0 else 'no' if flagged == 0.0 else 'some'} row flagged), so its "
                         "interval has zero width and is no confidence interval; more rows (of both classes) give one")
    return RealisedCost(rows=tuple(rows), threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn, n=models.n,
                        level=level, notes=tuple(notes))


def _threshold(threshold: Any) -> float:
    """``threshold=`` refused unless one probability in [0, 1], by the one check of ``threshold=``
    (:func:`veracity.core._metrics.check_threshold`, whose message shows the value as given)."""
    return check_threshold(threshold)


def realised_cost(
    data: Any,
    labels: Any = None,
    *,
    threshold: float,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    scores: Any = None,
    label: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
) -> RealisedCost:
    r"""At a deployed ``threshold`` (a probability; rows with p ≥ t are flagged) and a declared cost
    pair, the cost per row the scores predict against the cost that happened, with intervals
    (see :mod:`veracity.comparison._cost`). One array, or a dict of models; frame form with
    ``scores=`` and ``label=``.

    >>> r = realised_cost([.1, .4, .35, .8], [0, 0, 1, 1], threshold=0.3, cost_fn=5)
    >>> row = r.rows[0]
    >>> round(row.expected, 4), round(row.realised, 4), round(row.gap, 4)
    (0.4875, 0.25, -0.2375)
    """
    level = check_level(level)
    check_score_type(score_type, probabilities=True, what="vc.realised_cost")
    t = _threshold(threshold)
    c_fp, c_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    if c_fp == 0.0 and c_fn == 0.0:  # every cost 0: a table of zeros and p = 1, no comparison at all
        raise VeracityError("cost_fp and cost_fn are both 0; give at least one a positive cost", param="cost_fp")
    models, _, _ = models_of(data, labels, scores=scores, label=label, sample_weight=sample_weight,
                             pos_label=pos_label, score_type=score_type, what="vc.realised_cost", minimum=1)
    return cost_of(models, t, c_fp, c_fn, level)
