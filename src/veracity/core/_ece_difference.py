r"""The bias-aware interval of a paired ECE difference, shared by the calibrator ledger and the
model comparison: the percentile of resampled differences, the bias the resamples cannot see, and
the p-value that reads both.

With :math:`\hat\Delta` a binned ECE difference (B − A, or after − before) on the same rows, B
paired resamples :math:`\Delta^*_1 \dots \Delta^*_B` of it and their centred values
:math:`q = \Delta^* - \overline{\Delta^*}`, each side's binned ECE sits above or below its truth by a
bias no resample sees (resampling re-centres every bin's gap at its noisy sample value, where the
bias is smaller). With :math:`\alpha = 1 - \text{level}`, the bias of :math:`\hat\Delta` is given
:math:`\gamma = \mathrm{BIAS\_SHARE}\cdot\alpha` (:data:`veracity.core._ece_bias.BIAS_SHARE`): it lies
in :math:`[\beta_-, \beta_+]` with probability at least :math:`1 - \gamma` (:func:`plugin_bias_shifts`,
:func:`debiased_bias_shifts`: each bin's bias read over the gaps its data allow, every bin of both
sides at once by Bonferroni), and the noise gets the rest, :math:`\alpha' = (1 - \mathrm{BIAS\_SHARE})\alpha`
(Armstrong & Kolesár 2020):

.. math:: \big[\hat\Delta - \beta_+ + q_{(k)},\ \hat\Delta - \beta_- + q_{(B+1-k)}\big]

with k the order statistic of :math:`\alpha'` (:func:`order_k`, :func:`shifted_percentile`) —
:func:`bias_aware_interval`, with its p-value, the least α at which the interval excludes 0.

What the two callers share and what they do not:

* **shared** (here): the interval, its order statistics and p-value, and the Bonferroni split of γ
  over the non-empty bins of *both* sides;
* **the statistic differs, for a reason**: the ledger prints the plug-in ECE, the seeds' definition,
  on the ledger's own ``strategy`` (equal-width or quantile edges, each side binned on its own
  edges), whose per-bin bias lies in :math:`[0, \sqrt{2/\pi}\,\sigma_k]`
  (:func:`veracity.core._ece_bias.plugin_ece_bias_bound`); ``vc.compare_models`` prints the debiased
  ECE (Kumar et al. 2019) on equal-width bins, whose bias lies in :math:`[-0.094, 0.467]\,\sigma_k`
  and may be negative (:func:`veracity.core._ece_bias.debiased_ece_bias_range`) — so each has its
  own :math:`[\beta_-, \beta_+]`;
* **the resamples differ, for a reason**: the ledger's statistic is a function of per-bin sums that
  are linear in the resampling counts, so all its multinomial resamples are one matrix product
  (``calibrators._noise``); the comparison's Poisson resamples also refit CORP's PAV per resample
  and model, so they are drawn one count vector at a time and shared by every model
  (``comparison._resample.PairedBootstrap``). Both resample the same rows for both sides: the
  interval is paired either way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._ece_bias import BIAS_SHARE, debiased_ece_bias_range, plugin_ece_bias_bound
from ._special import ndtri


def order_k(b: int, level: float) -> int:
    r"""The rank k of the interval's ends :math:`d^*_{(k)}, d^*_{(B+1-k)}`: the largest integer strictly
    below :math:`x = (B+1)\alpha/2` (at least 1). With :math:`p = 2(c + 1)/(B+1)` (c resampled
    values on the wrong side of 0) the interval excludes 0 exactly when :math:`c < k`, i.e.
    :math:`c + 1 < x`, i.e. :math:`p < \alpha` — strictly, so p = α (B + 1 a multiple of 2/α)
    does not read as an exclusion. Davison & Hinkley's :math:`\lfloor x\rfloor` (1997, §5.2) is the
    same k unless x is an integer. The level's 1 − level is read at 12 decimals, as it was meant
    (1 − 0.95 is 0.05000000000000004 in floating point, which would make x = 5 read 5.000…04)."""
    x = round((b + 1) * round(1.0 - level, 12) / 2.0, 9)
    return max(1, int(np.ceil(x)) - 1)


def shifted_percentile(estimate: float, resampled: np.ndarray, shift_low: float, shift_high: float,
                       level: float) -> tuple[float, float, float]:
    r"""``(low, high, p)``: the percentile interval of the B resampled differences, its lower end read
    from :math:`d^* + s_{low}` and its upper from :math:`d^* + s_{high}` (:math:`s_{low} \le s_{high}`),
    ends the order statistics :math:`k` and :math:`B + 1 - k` (:func:`order_k`), and
    :math:`p = \min(1, 2(\min(\#\{d^* + s_{low} \le 0\}, \#\{d^* + s_{high} \ge 0\}) + 1)/(B+1))`:
    the same k on each side, so the interval excludes 0 exactly when :math:`p < \alpha` (whenever
    :math:`k \ge 1` is reachable, i.e. :math:`B + 1 > 2/\alpha`). Non-finite resamples are dropped."""
    finite = resampled[np.isfinite(resampled)]
    if finite.size == 0:
        return float("nan"), float("nan"), float("nan")
    if estimate == 0.0 and not np.any(finite) and shift_low == shift_high == 0.0:
        return 0.0, 0.0, 1.0
    b = finite.size
    k = order_k(b, level)
    lower, upper = finite + shift_low, finite + shift_high
    low = float(np.partition(lower, k - 1)[k - 1])
    high = float(np.partition(upper, b - k)[b - k])
    below = np.count_nonzero(lower <= 0.0)
    above = np.count_nonzero(upper >= 0.0)
    return low, high, float(min(1.0, 2.0 * (min(below, above) + 1) / (b + 1)))


def percentile(estimate: float, resampled: np.ndarray, level: float) -> tuple[float, float, float]:
    r"""``(low, high, p)``: the plain percentile interval of the resampled differences and its p-value,
    :math:`p = \min(1, 2(\min(\#\{d^* \le 0\}, \#\{d^* \ge 0\}) + 1)/(B+1))` (:func:`shifted_percentile`
    with no shift)."""
    return shifted_percentile(estimate, resampled, 0.0, 0.0, level)


def _bonferroni_z(sums_a: np.ndarray, sums_b: np.ndarray, gamma: float) -> tuple[int, float]:
    """``(M, z)``: the non-empty bins of both sides and the two-sided normal quantile at γ/M."""
    m = int((sums_a[0] > 0).sum() + (sums_b[0] > 0).sum())
    return m, (float(ndtri(1.0 - gamma / (2.0 * m))) if m else 0.0)


def debiased_bias_shifts(sums_a: np.ndarray, sums_b: np.ndarray, gamma: float) -> tuple[float, float]:
    r"""``(β₋, β₊)`` of the *debiased* ECE difference B − A: the bias lies in
    :math:`[\mathrm{low}_B - \mathrm{high}_A,\ \mathrm{high}_B - \mathrm{low}_A]` with probability at
    least :math:`1 - \gamma` (:func:`veracity.core._ece_bias.debiased_ece_bias_range`, z two-sided at
    :math:`\gamma / M`, M the non-empty bins of both sides). ``sums_*``: per-bin Σw, Σw², Σwp, Σwy
    (``(4, bins)``)."""
    m, z = _bonferroni_z(sums_a, sums_b, gamma)
    if m == 0:
        return 0.0, 0.0
    low_a, high_a = debiased_ece_bias_range(sums_a[0], sums_a[1], sums_a[3], sums_a[2], z)
    low_b, high_b = debiased_ece_bias_range(sums_b[0], sums_b[1], sums_b[3], sums_b[2], z)
    return float(low_b - high_a), float(high_b - low_a)


def plugin_bias_shifts(sums_a: np.ndarray, sums_b: np.ndarray, gamma: float) -> tuple[float, float]:
    r"""``(β₋, β₊)`` of the *plug-in* ECE difference B − A: each side's bias lies in
    :math:`[0, b]` (b: :func:`veracity.core._ece_bias.plugin_ece_bias_bound`, every bin's true gap at
    least its observed one less :math:`z\sigma_k`, z two-sided at γ/M over the M non-empty bins of both
    sides), so the difference's bias lies in :math:`[-b_A, b_B]` with probability at least
    :math:`1 - \gamma`. ``sums_*`` as in :func:`debiased_bias_shifts`."""
    m, _ = _bonferroni_z(sums_a, sums_b, gamma)
    if m == 0:
        return 0.0, 0.0
    # plugin_ece_bias_bound splits its γ over its own side's bins: give each side its share of γ
    bound = [plugin_ece_bias_bound(s[0], s[1], s[3], s[2], gamma * int((s[0] > 0).sum()) / m)
             if (s[0] > 0).any() else 0.0 for s in (sums_a, sums_b)]
    return -bound[0], bound[1]


def bias_aware_interval(estimate: float, resampled: np.ndarray,
                        shifts: Callable[[float], tuple[float, float]], level: float, *,
                        p_value: bool = True) -> tuple[float, float, float]:
    r"""``(low, high, p)`` of a binned ECE difference, bias-aware (see the module doc):
    :math:`[\hat\Delta - \beta_+ + q_{(k)},\ \hat\Delta - \beta_- + q_{(B+1-k)}]` with
    ``shifts(γ)`` giving :math:`(\beta_-, \beta_+)` at :math:`\gamma = \mathrm{BIAS\_SHARE}\cdot\alpha`.

    The p-value is the least α at which that interval excludes 0 (it does for every larger α: both
    the bias range and the noise quantiles narrow as α grows), found by bisection, so the interval
    excludes 0 exactly when p < 1 − level and p does not depend on the level asked for. **p = 1**
    whenever even the α = 1 interval holds 0: there the bias range still holds with probability
    :math:`1 - \mathrm{BIAS\_SHARE}`, a width no α removes — a difference within the bias the two
    estimates may carry is no evidence either way. Like every bootstrap p-value it is at least
    :math:`2/(B+1)`. ``p_value=False`` skips the bisection (p is NaN). NaN throughout when no
    resample is finite."""
    finite = resampled[np.isfinite(resampled)]
    if finite.size == 0:
        return float("nan"), float("nan"), float("nan")
    centre = estimate - float(finite.mean())

    def at(alpha: float) -> tuple[float, float]:
        beta_low, beta_high = shifts(BIAS_SHARE * alpha)
        low, high, _ = shifted_percentile(estimate, finite, centre - beta_high, centre - beta_low,
                                          1.0 - (1.0 - BIAS_SHARE) * alpha)
        return low, high

    alpha = round(1.0 - level, 12)
    low, high = at(alpha)
    if not p_value:
        return low, high, float("nan")

    def excludes(a: float) -> bool:
        lo, hi = at(a)
        return lo > 0.0 or hi < 0.0

    if not excludes(1.0):
        return low, high, 1.0
    # invariant: no exclusion at `keep`, exclusion at `drop`; the level's α sits on its own side
    keep, drop = (0.0, alpha) if (low > 0.0 or high < 0.0) else (alpha, 1.0)
    for _ in range(60):
        mid = 0.5 * (keep + drop)
        if not keep < mid < drop:
            break
        keep, drop = (keep, mid) if excludes(mid) else (mid, drop)
    mid = 0.5 * (keep + drop)
    p = mid if keep < mid < drop else keep  # below α exactly when excluded at α
    return low, high, float(max(p, min(1.0, 2.0 / (finite.size + 1))))  # B resamples show no less
