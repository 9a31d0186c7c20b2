r"""The multicalibration error, as MCGrad defines it.

MCGrad (Meta, ``mcgrad.metrics.MulticalibrationError``; Guy et al. 2025,
*Measuring multi-calibration*, arXiv:2506.11251) measures each segment k by its
**ECCE** (Arrieta-Ibarra et al. 2022): with the segment's rows in increasing score
order and :math:`C_j = \sum_{i \le j} w_i (y_i - p_i) / W_k` (and :math:`C_0 = 0`),

.. math:: \mathrm{ECCE}_k = \max_j C_j - \min_j C_j,\qquad
          \sigma_k = \sqrt{\textstyle\sum_{i \in k} w_i^2\, p_i (1-p_i)}\,/\,W_k,

its sigma-scale statistic :math:`\mathrm{ECCE}_k/\sigma_k`, and the model by

.. math:: \mathrm{MCE}_\sigma = \max_k \mathrm{ECCE}_k/\sigma_k,\qquad
          \mathrm{MCE} = \mathrm{MCE}_\sigma\,\sigma_{\mathrm{all}},\qquad
          \mathrm{MDE} = 5\,\sigma_{\mathrm{all}},

the maximum running over every row (k = all) and every segment of at least
``min_count`` rows (MCGrad's ``min_samples_per_segment``); p-value
:math:`1 - F(\mathrm{MCE}_\sigma)` with F the law of the range of a standard
Brownian motion on [0, 1], summed here as its tail series (:func:`pvalue_from_sigma`: MCGrad's
``1 - F`` cancels to 0 from about 8 sigma and is machine epsilon by convention from 20). Source:
``src/mcgrad/metrics.py`` of github.com/facebookincubator/MCGrad (``_calculate_cumulative_differences``,
``_ecce_standard_deviation_per_segment``, ``MulticalibrationError.mce``,
``_ecce_cdf``). Rows with equal scores are summed as one step here (MCGrad takes
them in the order its sort leaves them), so the two agree exactly when a segment's
scores are distinct; above ``max_cells`` distinct scores the path is taken on
equal-width score cells (see :mod:`._cells`).

**Certain scores.** A segment whose scores are all exactly 0 or 1 has :math:`\sigma_k = 0`;
if a label contradicts one, its ECCE/σ is infinite (MCGrad's convention), and so are
:math:`\mathrm{MCE}_\sigma` and, here, the MCE — MCGrad's product :math:`\infty \cdot
\sigma_{\mathrm{all}}` is NaN when every score is 0 or 1 (:math:`\sigma_{\mathrm{all}} = 0`);
the result's notes name the segment. Logits are never certain: on the logit route each row's
:math:`p_i(1-p_i)` is :math:`\sigma(s_i)\sigma(-s_i) > 0`, so :math:`\sigma_k > 0` and every number
is finite, however large the logits.

**The p-value is per segment.** :math:`1 - F(x)` is the chance that *one* calibrated
segment's ECCE exceeds :math:`x\,\sigma_k`; MCGrad applies it to the maximum over the K
segments unadjusted (its docstring says so). Under perfect calibration that reading is
far from uniform: with K = 34 segments (the whole, 30 + 3 levels) ``mce_pvalue`` fell
below 0.05 in 57-64 % of seeded calibrated data sets (tests/hardening). The family's
p-value is the Bonferroni bound :func:`family_pvalue`,
:math:`\min(1, K\,(1 - F(\mathrm{MCE}_\sigma)))`, valid under any dependence (1.7-2.5 %
false alarms at 5 % in the same simulations).
"""

from __future__ import annotations

import math
import sys

import numpy as np

#: MCGrad's constants: below ECCE_SIGMA_MIN its p-value is 1, from ECCE_SIGMA_MAX on its CDF is
#: 1 - machine epsilon (:func:`brownian_range_cdf` keeps them; :func:`pvalue_from_sigma` needs no floor)
ECCE_SIGMA_MIN = 0.1
ECCE_SIGMA_MAX = 20.0
#: from this sigma on the p-value is the tail series (below it, 1 - F loses no digits: F < 0.5)
TAIL_FROM = 1.5
#: terms of the tail series: the 9th is below 1e-38 of the first from TAIL_FROM on
_TAIL_TERMS = 8


def ecce_per_segment(seg: np.ndarray, d: np.ndarray, n_segments: int) -> np.ndarray:
    """Range of the running sum of ``d`` within each segment (rows sorted by segment, then cell)."""
    if seg.size == 0:
        return np.zeros(n_segments)
    run = np.cumsum(d)
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    before = np.r_[0.0, run][starts]  # running total before each segment's first cell
    offset = np.repeat(before, np.diff(np.r_[starts, seg.size]))
    path = run - offset
    hi = np.maximum(np.maximum.reduceat(path, starts), 0.0)
    lo = np.minimum(np.minimum.reduceat(path, starts), 0.0)
    out = np.zeros(n_segments)
    out[seg[starts]] = hi - lo
    return out


def brownian_range_cdf(x: np.ndarray) -> np.ndarray:
    r"""CDF of the range of standard Brownian motion on [0, 1] (MCGrad's ``_ecce_cdf``):
    :math:`\sum_{k \ge 0} (8/x^2 + 2/((k+\frac12)^2\pi^2))\, e^{-2 (k+\frac12)^2 \pi^2 / x^2}`."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    eps = sys.float_info.epsilon
    out = np.full(x.shape, 1.0 - eps)
    need = x < ECCE_SIGMA_MAX
    if need.any():
        xc = x[need]
        fact = 4.0 / math.sqrt(2.0 * math.pi) * (1.0 / xc + xc / math.pi**2)
        kmax = np.ceil(0.5 + xc / math.pi / math.sqrt(2.0) * np.sqrt(np.log(fact / eps))).astype(int)
        k = np.arange(int(kmax.max()))
        kp = (k + 0.5)[None, :]
        xx = xc[:, None]
        terms = (8.0 / xx**2 + 2.0 / kp**2 / math.pi**2) * np.exp(-2.0 * kp**2 * math.pi**2 / xx**2)
        terms = np.where(k[None, :] < kmax[:, None], terms, 0.0)
        out[need] = terms.sum(axis=1)
    return out


def tail(x: np.ndarray) -> np.ndarray:
    r""":math:`1 - F(x)` for :math:`x \ge` :data:`TAIL_FROM`, F the law of the range of a standard
    Brownian motion on [0, 1], by its tail series (Feller 1951; the CDF series above transformed by
    Poisson summation: the same law, a series that converges fast where that one cancels):

    .. math:: 1 - F(x) = 8 \sum_{k \ge 1} (-1)^{k-1}\, k\, \bar\Phi(k x)
              = 8\,\bar\Phi(x) \Big(1 + \sum_{k \ge 2} (-1)^{k-1} k\,
              e^{\log\bar\Phi(kx) - \log\bar\Phi(x)}\Big),

    :math:`\bar\Phi` the standard normal upper tail; the ratios are taken in log space (their sum is
    at most 0.05 in size from 1.5 on, so nothing cancels), and :math:`\bar\Phi(x)` keeps its relative
    precision until it underflows past ~38 sigma (a tail below 1e-308); 0 at x = inf."""
    from scipy.special import log_ndtr, ndtr

    x = np.asarray(x, dtype=np.float64)
    k = np.arange(2, _TAIL_TERMS + 1, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # -inf - -inf at x = inf: its tail is 0 whatever the ratios
        ratio = np.exp(log_ndtr(-np.multiply.outer(x, k)) - log_ndtr(-x)[..., None])
        rest = np.nan_to_num(np.sum(((-1.0) ** (k - 1) * k) * ratio, axis=-1))
    return 8.0 * ndtr(-x) * (1.0 + rest)


def pvalue_from_sigma(sigma: np.ndarray) -> np.ndarray:
    r""":math:`1 - F(x)`, the chance that one calibrated segment's ECCE reaches x of its sigmas (F the
    law of :func:`brownian_range_cdf`): 1 below MCGrad's :data:`ECCE_SIGMA_MIN`, ``1 - F`` below
    :data:`TAIL_FROM` (where it keeps its digits) and the tail series :func:`tail` from there, so
    that it is accurate to ~1e-13 relative at every sigma (the normal tail's rounding of x^2; MCGrad's
    ``1 - F`` cancels to 0 from about 8 sigma: 0 at 10.84 where the tail is 8.9e-27), never rises with
    sigma, underflows to 0 only past ~38 sigma (a tail below 1e-308), is 0 at infinity and NaN at
    NaN."""
    x = np.atleast_1d(np.asarray(sigma, dtype=np.float64))
    out = np.where(np.isnan(x), np.nan, 1.0)
    far = x >= TAIL_FROM
    if far.any():
        out[far] = tail(x[far])
    mid = (x >= ECCE_SIGMA_MIN) & ~far
    if mid.any():
        # max with the tail at TAIL_FROM: the two forms differ by rounding (~1e-16), never upwards there
        edge = float(tail(np.array(TAIL_FROM)))
        out[mid] = np.clip(1.0 - brownian_range_cdf(x[mid]), edge, 1.0)
    return out


def sigma_scale(ecce: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """ECCE / sigma, MCGrad's conventions: inf when sigma is 0 and ECCE is not, 0 when both are."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((ecce != 0) & (sd == 0), np.inf, np.where(sd == 0, 0.0, ecce / np.where(sd == 0, 1.0, sd)))


def family_pvalue(mce_sigma: np.ndarray | float, n_segments: np.ndarray | int) -> np.ndarray:
    r"""Bonferroni p-value of :math:`\mathrm{MCE}_\sigma` as the maximum over ``n_segments`` (K)
    sigma-scale statistics: :math:`\min(1, K\,(1 - F(\mathrm{MCE}_\sigma)))` — at most
    :math:`\alpha` with probability at most :math:`\alpha` under perfect calibration, whatever
    the overlap of the segments (K counts every segment in the maximum, the whole included)."""
    sigma = np.asarray(mce_sigma, dtype=np.float64)
    k = np.asarray(n_segments, dtype=np.float64)
    return np.minimum(1.0, k * pvalue_from_sigma(sigma).reshape(sigma.shape))
