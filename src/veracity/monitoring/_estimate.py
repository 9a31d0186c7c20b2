r"""Label-free estimates for predictions still waiting for their outcome (CBPE-style).

If the scores are calibrated for the window, each pending prediction is a
Bernoulli(:math:`p_i`) draw, so before any label arrives

* expected positives :math:`E = \sum_i p_i`; the count is Poisson-binomial, and its interval
  (integer endpoints, :func:`count_interval`) is read from the distribution matched to its
  variance :math:`V = \sum_i p_i(1-p_i)` and third cumulant :math:`K_3 = \sum_i p_i(1-p_i)(1-2p_i)`
  (a shifted Skellam), not :math:`E \pm z\sqrt V`, which covers only about 91 % of the counts at
  :math:`E` = 0.5 to 4 (the count's right skew);
* expected confusion at the deployed threshold t (flag when :math:`p \ge t`):
  :math:`\mathrm{TP} = \sum_{p_i \ge t} p_i`, :math:`\mathrm{FP} = \sum_{p_i \ge t} (1-p_i)`,
  :math:`\mathrm{FN} = \sum_{p_i < t} p_i`, :math:`\mathrm{TN} = \sum_{p_i < t} (1-p_i)`;
* expected cost :math:`c_{FP}\,\mathrm{FP} + c_{FN}\,\mathrm{FN}`.

This is the confidence-based performance estimate that NannyML calls CBPE. It is
an *estimate under an assumption*; when the outcomes arrive, the realised count
is compared with the same interval, and a realised value outside it is the
calibration alert of :mod:`veracity.monitoring._status` — the gap itself is the
calibration signal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._count_interval import count_interval
from ..core._display import Display


@dataclass(frozen=True, repr=False)
class Estimate(Display):
    """Expected outcomes of ``n`` unlabelled predictions, assuming calibrated scores."""

    n: float
    positives: float
    low: float  # the count's interval: whole numbers (count_interval)
    high: float
    rate: float
    tp: float
    fp: float
    fn: float
    tn: float
    cost: float
    level: float
    threshold: float
    assumption: str = "the scores are calibrated for this window"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __str__(self) -> str:
        return (f"{self.n:.0f} pending: expect {self.positives:.1f} positives "
                f"[{self.low:.0f}, {self.high:.0f}] ({self.level * 100:g}%), rate {self.rate:.4f}; "
                f"at t={self.threshold:g}: TP {self.tp:.1f}, FP {self.fp:.1f}, FN {self.fn:.1f}, "
                f"TN {self.tn:.1f}; expected cost {self.cost:.1f}")


def estimate_from_sums(*, n: float, sum_p: float, var: float, k3: float, sum_p_hi: float, n_hi: float,
                       sum_p_lo: float, n_lo: float, level: float, threshold: float, cost_fp: float = 1.0,
                       cost_fn: float = 1.0) -> Estimate:
    """An :class:`Estimate` from the sums over the pending rows (split at the threshold; ``var`` =
    Σp(1 − p), ``k3`` = Σp(1 − p)(1 − 2p): :func:`count_interval`); the caller has checked ``level``,
    ``threshold`` and the costs."""
    low, high = count_interval(sum_p, var, k3, n, level)
    fp = n_hi - sum_p_hi
    return Estimate(n=float(n), positives=float(sum_p), low=low, high=high,
                    rate=float(sum_p / n) if n else float("nan"),
                    tp=float(sum_p_hi), fp=float(fp), fn=float(sum_p_lo), tn=float(n_lo - sum_p_lo),
                    cost=float(cost_fp * fp + cost_fn * sum_p_lo), level=float(level),
                    threshold=float(threshold))


def estimate(scores: Any, *, threshold: float = 0.5, level: float = 0.95, cost_fp: float = 1.0,
             cost_fn: float = 1.0) -> Estimate:
    """Label-free estimate for an array of calibrated probabilities.

    >>> e = estimate([0.2, 0.9, 0.5, 0.4])
    >>> round(e.positives, 2), round(e.tp, 2), round(e.fp, 2)
    (2.0, 1.4, 0.6)
    """
    from ..core._intervals import check_interval_args
    from ..core._metrics import check_threshold
    from ..core._validation import as_float_array, check_probabilities
    from ..decisions._inputs import check_cost

    # level in (0, 1), threshold in [0, 1], finite non-negative costs (NaN interval or negative cost before)
    check_interval_args("wilson", level, "two-sided")
    threshold = check_threshold(threshold)
    cost_fp, cost_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    p = as_float_array(scores, "scores")
    check_probabilities(p, "scores")
    hi = p >= threshold
    q = p * (1 - p)
    return estimate_from_sums(n=p.size, sum_p=float(p.sum()), var=float(q.sum()),
                              k3=float((q * (1 - 2 * p)).sum()),
                              sum_p_hi=float(p[hi].sum()), n_hi=float(hi.sum()), sum_p_lo=float(p[~hi].sum()),
                              n_lo=float((~hi).sum()), level=level, threshold=threshold, cost_fp=cost_fp,
                              cost_fn=cost_fn)
