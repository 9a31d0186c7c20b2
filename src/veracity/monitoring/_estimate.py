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


def _poisson_window(lam: float) -> tuple[int, np.ndarray]:
    """(first count, Poisson(``lam``) probabilities of the counts from it): every count within
    12 standard deviations and 12 of the mean (the mass outside is below 1e-20). Each probability is
    ``exp(xlogy(k, lam) - gammaln(k + 1) - lam)``, as ``scipy.stats.poisson.pmf`` computes it (the same
    doubles, without its argument checks: a tenth of the time, and status reads one per window)."""
    if lam <= 0:
        return 0, np.ones(1)
    from scipy.special import gammaln, xlogy

    first = int(max(np.floor(lam - 12.0 * np.sqrt(lam) - 12.0), 0.0))
    k = np.arange(first, int(np.ceil(lam + 12.0 * np.sqrt(lam) + 12.0)) + 1, dtype=np.float64)
    return first, np.exp(xlogy(k, lam) - gammaln(k + 1) - lam)


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The full linear convolution of two real non-empty 1-d arrays, :math:`c_k = \\sum_j a_j b_{k-j}`:
    a one-point array times the other; else by FFT, both zero-padded to
    ``next_fast_len(len(a) + len(b) - 1)``, multiplied in the frequency domain and transformed back.
    These are the steps ``scipy.signal.fftconvolve(a, b)`` takes, so the same doubles
    (tests/monitoring/test_estimate_convolve_r37.py), from ``scipy.fft`` alone: importing
    ``scipy.signal`` costs about 0.5 s of CPU (it loads ``scipy.stats``), paid by every
    ``veracity monitor status`` with a pending window."""
    if a.size == 1 or b.size == 1:  # fftconvolve multiplies (broadcasts) along a length-1 axis
        return a * b
    from scipy import fft as sp_fft

    n = a.size + b.size - 1
    size = sp_fft.next_fast_len(n, True)
    return np.array(sp_fft.irfftn(sp_fft.rfftn(a, [size], axes=[0]) * sp_fft.rfftn(b, [size], axes=[0]),
                                  [size], axes=[0])[:n])


def count_interval(sum_p: float, var: float, k3: float, n: float, level: float) -> tuple[float, float]:
    r"""The ``level`` interval of the number of positives among rows with probabilities :math:`p_i`,
    from :math:`E = \sum p_i`, :math:`V = \sum p_i(1-p_i)` and :math:`K_3 = \sum p_i(1-p_i)(1-2p_i)`:
    whole numbers ``(low, high)`` within ``[0, n]``.

    The count is Poisson-binomial; it is read as :math:`m + G - L` with :math:`G \sim` Poisson
    :math:`(\lambda_+)`, :math:`L \sim` Poisson :math:`(\lambda_-)` independent (a Skellam shifted by
    :math:`m`), matched to its first three cumulants: :math:`\lambda_\pm = (V \pm K_3)/2`,
    :math:`m = E - K_3 = \sum (3p_i^2 - 2p_i^3)` (:math:`|K_3| \le V`, so :math:`\lambda_\pm \ge 0`;
    a rounding outside is clipped). Rows with :math:`p` near 0 are the Poisson part :math:`G` (the
    Poisson limit is exact), rows near 1 the losses :math:`L` from their sure count in :math:`m`.
    Its fourth cumulant :math:`V` is at least the count's :math:`\sum p_i(1-p_i)(1 - 6p_i(1-p_i))`:
    the tails are never lighter. With :math:`F` the Skellam's distribution function interpolated
    linearly between its integers, :math:`P(X \le x) \approx F(x - m)` for integers :math:`x`;
    ``low`` is the smallest :math:`x` with :math:`F(x - m) > \alpha/2` and ``high`` the smallest with
    :math:`F(x - m) \ge 1 - \alpha/2`, :math:`\alpha = 1 -` ``level``: equal tails, each at most
    :math:`\alpha/2` under the matched distribution.

    Exact coverage (the Poisson-binomial by convolution) over binomial and mixed score sets with
    :math:`E` from 0.01 to 1000 is at least ``level`` at 0.8 to 0.99 (tests/monitoring/
    test_estimate_r31.py); :math:`E \pm z\sqrt V` gave 0.91 at :math:`E` = 0.5 and 0.92 at 1. At large
    counts it tends to :math:`E \pm z\sqrt V` (moved by the skew) in whole numbers, no wider.
    """
    alpha = 1.0 - float(level)
    v = max(float(var), 0.0)
    k3 = min(max(float(k3), -v), v)
    shift = float(sum_p) - k3
    g0, g = _poisson_window((v + k3) / 2.0)
    l0, lpmf = _poisson_window((v - k3) / 2.0)
    # S = G - L on the integers from g0 - (l0 + len(l) - 1): the convolution of G's and L's reversed
    pmf = _fft_convolve(g, lpmf[::-1])
    s = np.arange(pmf.size, dtype=np.float64) + (g0 - (l0 + lpmf.size - 1))
    cdf = np.cumsum(np.clip(pmf, 0.0, None))
    x = np.arange(np.floor(shift + s[0]), np.ceil(shift + s[-1]) + 1.0)
    fx = np.interp(x - shift, s, cdf, left=0.0, right=1.0)
    low = x[min(int(np.searchsorted(fx, alpha / 2.0, side="right")), x.size - 1)]
    high = x[min(int(np.searchsorted(fx, 1.0 - alpha / 2.0, side="left")), x.size - 1)]
    return float(min(max(low, 0.0), n)), float(min(max(high, 0.0), n))


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
