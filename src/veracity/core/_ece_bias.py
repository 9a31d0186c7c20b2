r"""How far a binned calibration error can sit from its truth by noise alone: the bounds that
bias-aware intervals (Armstrong & Kolesár 2020) add to the bootstrap's spread.

A bin's observed gap :math:`\hat\delta_k = \mathrm{acc}_k - \mathrm{conf}_k` is about
:math:`N(\delta_k, \sigma_k^2)`. The plug-in ECE reads :math:`|\hat\delta_k|`, whose mean exceeds
:math:`|\delta_k|` by :math:`E|\hat\delta| - |\delta| \in [0, \sqrt{2/\pi}\,\sigma_k]` (the most at
:math:`\delta_k = 0`, a calibrated bin; nothing for a far miscalibrated one), so

.. math:: E[\widehat{\mathrm{ECE}}] - \mathrm{ECE} \in [0,\ \sqrt{2/\pi}\, S],\qquad
          S = \sum_k \frac{W_k}{W}\,\sigma_k .

No bootstrap sees that bias: resamples re-centre each gap at its noisy sample value, where the
bias is smaller. So the bootstrap's percentile and BCa intervals of ECE cover the true binned ECE
of a calibrated model in no draw at all (0 of 60 in the suite's simulation). The MCE reads the
largest :math:`|\hat\delta_k|` over the sufficient bins: its bias lies in
:math:`[0,\ E\max_k \sigma_k |Z_k|]` (:func:`expected_max_abs`), since
:math:`\max_k|\hat\delta_k| \le \max_k|\delta_k| + \max_k|\hat\delta_k - \delta_k|`.
"""

from __future__ import annotations

import numpy as np

from ._special import ndtr

#: the plug-in gap's largest bias, in units of the bin's σ: :math:`E|Z| = \sqrt{2/\pi}`
PLUGIN_BIAS_HIGH = float(np.sqrt(2.0 / np.pi))

#: the bias :math:`E[\hat e] - |\delta|` of one bin's *debiased* L1 term :math:`\hat e = 2|\hat\delta| -
#: F(|\hat\delta|)` (F the folded-normal mean, ``comparison._resample.debiased_l1``), with
#: :math:`\hat\delta \sim N(\delta, \sigma^2)`, lies in ``[DEBIASED_BIAS_LOW, DEBIASED_BIAS_HIGH]`` times σ
#: for every δ: the highest, at δ = 0, is :math:`2\sqrt{2/\pi} - 2/\sqrt\pi = 2(\sqrt2 - 1)/\sqrt\pi`; the
#: lowest, −0.09353 at δ ≈ 1.40σ (numerical; rounded outward; tests/comparison check both by quadrature)
DEBIASED_BIAS_HIGH = 2.0 * (2.0**0.5 - 1.0) / np.pi**0.5
DEBIASED_BIAS_LOW = -0.09353


def bin_sigmas(weight: np.ndarray, weight_sq: np.ndarray, sum_y: np.ndarray) -> np.ndarray:
    r"""Each bin's standard error of its observed rate, :math:`\sigma_k^2 = \tilde a_k(1 - \tilde a_k)\,
    \sum w^2 / (\sum w)^2`, with the rate shrunk, :math:`\tilde a_k = (a_k m_k + 1)/(m_k + 2)`
    (:math:`m_k = (\sum w)^2/\sum w^2`, its effective row count: a bin of 3 positives is not certain).
    Per-bin sums on the last axis; 0 for an empty bin. A bin of weights so small beside the largest
    that their squares underflow (:math:`\sum w^2 = 0`) counts as one row, as in
    ``BinStats.effective_count`` (its 0/0 was NaN, and NaN σ made a comparison's interval NaN)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        keep = weight > 0
        safe = np.where(keep, weight, 1.0)
        k = weight_sq / (safe * safe)
        k = np.where(keep & np.isfinite(k) & (k > 0), np.minimum(k, 1.0), 1.0)
        m = 1.0 / k
        acc = ((sum_y / safe) * m + 1.0) / (m + 2.0)
        return np.where(keep, np.sqrt(acc * (1.0 - acc) * k), 0.0)


def noise_scale(weight: np.ndarray, weight_sq: np.ndarray, sum_y: np.ndarray) -> np.ndarray:
    r""":math:`S = \sum_k (W_k / W)\,\sigma_k` (:func:`bin_sigmas`): the share-weighted standard error of
    the bins' gaps. Per-bin sums on the last axis."""
    total = weight.sum(axis=-1)
    share = np.where(weight > 0, weight, 0.0) / total[..., None]
    out: np.ndarray = (share * bin_sigmas(weight, weight_sq, sum_y)).sum(axis=-1)
    return out


def expected_max_abs(sigmas: np.ndarray) -> float:
    r""":math:`E\max_k \sigma_k|Z_k|` for independent standard normal :math:`Z_k`:
    :math:`\int_0^\infty 1 - \prod_k (2\Phi(t/\sigma_k) - 1)\,dt`, by the trapezoid rule on 4,001
    points up to :math:`9\max\sigma` (the integrand is below 1e-18 there)."""
    s = np.asarray(sigmas, dtype=np.float64)
    s = s[s > 0]
    if s.size == 0:
        return 0.0
    t = np.linspace(0.0, 9.0 * float(s.max()), 4001)
    f = 1.0 - np.prod(2.0 * ndtr(t[:, None] / s[None, :]) - 1.0, axis=1)
    return float((t[1] - t[0]) * (f.sum() - 0.5 * (f[0] + f[-1])))


#: the share of 1 − level spent on bounding the bins' biases (the rest on the noise)
BIAS_SHARE = 0.2


def plugin_bias(x: np.ndarray | float) -> np.ndarray:
    r"""The plug-in gap's bias in units of σ when the true gap is :math:`x\sigma`:
    :math:`h(x) = E|Z + x| - x = \sqrt{2/\pi}\,e^{-x^2/2} - 2x\,\Phi(-x)`, falling from
    :math:`\sqrt{2/\pi}` at 0 to 0 (x ≥ 0)."""
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    out: np.ndarray = np.maximum(PLUGIN_BIAS_HIGH * np.exp(-0.5 * x * x) - 2.0 * x * ndtr(-x), 0.0)
    return out


def plugin_ece_bias_bound(weight: np.ndarray, weight_sq: np.ndarray, sum_y: np.ndarray, sum_p: np.ndarray,
                          gamma: float) -> float:
    r"""An upper bound on the plug-in ECE's bias that holds with probability at least :math:`1 - \gamma`:
    each bin's true gap is at least :math:`L_k = \max(0, |\hat\delta_k| - z\sigma_k)` (z two-sided at
    :math:`\gamma/M`, M the non-empty bins: all of them hold at once by Bonferroni) and the bias falls
    with the gap, so :math:`\sum_k (W_k/W)\,\sigma_k\,h(L_k/\sigma_k)` (:func:`plugin_bias`). A bin far
    from calibrated adds almost nothing; a calibrated one up to :math:`\sqrt{2/\pi}\,\sigma_k`."""
    from ._special import ndtri

    keep = weight > 0
    if not keep.any():
        return 0.0
    sigma = bin_sigmas(weight, weight_sq, sum_y)
    gap = np.abs(sum_y - sum_p) / np.where(keep, weight, 1.0)
    z = float(ndtri(1.0 - gamma / (2.0 * int(keep.sum()))))
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.where(sigma > 0, np.maximum(gap - z * sigma, 0.0) / np.where(sigma > 0, sigma, 1.0), np.inf)
    per_bin = np.where(keep & (sigma > 0), sigma * plugin_bias(np.where(np.isfinite(x), x, 0.0)), 0.0)
    return float(np.dot(np.where(keep, weight, 0.0) / weight.sum(), per_bin))


#: where :func:`debiased_bias` is least, :data:`DEBIASED_BIAS_LOW` (numerical, to 1e-9; tests check it)
DEBIASED_BIAS_ARGMIN = 1.4032811977


def folded_mean(x: np.ndarray | float) -> np.ndarray:
    r""":math:`F(x) = E|x + Z| = \sqrt{2/\pi}\,e^{-x^2/2} + x\,(1 - 2\Phi(-x))` (Z standard normal), the
    folded normal's mean: even in x, :math:`\sqrt{2/\pi}` at 0, about :math:`|x|` far from it."""
    x = np.asarray(x, dtype=np.float64)
    out: np.ndarray = PLUGIN_BIAS_HIGH * np.exp(-0.5 * x * x) + x * (1.0 - 2.0 * ndtr(-x))
    return out


def debiased_bias(x: np.ndarray | float) -> np.ndarray:
    r"""The debiased L1 term's bias in units of σ when the true gap is :math:`x\sigma` (x ≥ 0): with
    :math:`\hat\delta = \sigma(x + Z)` the term is :math:`\sigma\,(2|x + Z| - F(|x + Z|))`
    (:func:`folded_mean`; ``comparison._resample.debiased_l1``, σ read as known), and since F is even,
    :math:`E\,F(x + Z) = E|x + Z + Z'| = \sqrt2\,F(x/\sqrt2)` (Z' an independent copy), so

    .. math:: g(x) = 2F(x) - \sqrt2\,F(x/\sqrt2) - x .

    :math:`g(0) = 2(\sqrt2 - 1)/\sqrt\pi` (:data:`DEBIASED_BIAS_HIGH`, a calibrated bin); g falls to its
    least, :data:`DEBIASED_BIAS_LOW`, at :data:`DEBIASED_BIAS_ARGMIN`, then rises to 0 from below
    (below 2e-3 in size past x = 4): a far miscalibrated bin is read without bias."""
    x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 40.0)  # |g| < 1e-300 past 40 (and inf - inf at inf)
    out: np.ndarray = 2.0 * folded_mean(x) - 2.0**0.5 * folded_mean(x / 2.0**0.5) - x
    return out


def debiased_ece_bias_range(weight: np.ndarray, weight_sq: np.ndarray, sum_y: np.ndarray, sum_p: np.ndarray,
                            z: float) -> tuple[np.ndarray, np.ndarray]:
    r"""``(low, high)``: the range of the debiased ECE's bias over every truth its bins' gaps allow,
    :math:`|\delta_k| \in [L_k, U_k]\,\sigma_k = [\max(0, |\hat\delta_k| - z\sigma_k),\ |\hat\delta_k| +
    z\sigma_k]` (σ: :func:`bin_sigmas`; the caller picks z, e.g. two-sided at γ/M by Bonferroni over
    the M bins, and then the range holds with probability at least 1 − γ):

    .. math:: \sum_k \frac{W_k}{W}\,\sigma_k \min_{[L_k, U_k]} g,\qquad
              \sum_k \frac{W_k}{W}\,\sigma_k \max_{[L_k, U_k]} g

    (g: :func:`debiased_bias`; it falls then rises, so its largest value on an interval is at an end and
    its least at :data:`DEBIASED_BIAS_ARGMIN` clipped into it). A far miscalibrated bin adds about
    nothing to either end; a calibrated one :math:`[-0.094, 0.467]\,\sigma_k`, the worst case's range.
    Per-bin sums on the last axis; leading axes (models) kept."""
    keep = weight > 0
    sigma = bin_sigmas(weight, weight_sq, sum_y)
    pos = keep & (sigma > 0)
    safe = np.where(pos, sigma, 1.0)
    gap = np.abs(sum_y - sum_p) / np.where(keep, weight, 1.0)
    low_x = np.maximum(gap / safe - z, 0.0)
    high_x = gap / safe + z
    top = np.maximum(debiased_bias(low_x), debiased_bias(high_x))
    bottom = debiased_bias(np.clip(DEBIASED_BIAS_ARGMIN, low_x, high_x))
    total = np.where(keep, weight, 0.0).sum(axis=-1, keepdims=True)
    share = np.where(pos, weight / np.where(total > 0, total, 1.0) * safe, 0.0)
    return (share * bottom).sum(axis=-1), (share * top).sum(axis=-1)
