r"""ECE estimators beyond the plug-in: the debiased binned estimator and smooth ECE.

``vc.ece(..., estimator=...)`` dispatches here.

**Debiased** (Kumar, Liang & Ma 2019, "Verified uncertainty calibration"). With
bin share :math:`s_b = n_b/N`, plug-in gap :math:`d_b = \mathrm{conf}_b - \mathrm{acc}_b`
and :math:`\hat\mu_b = \mathrm{acc}_b`:

* ``norm="l2"`` — the per-bin variance correction of the squared gap,

  .. math:: \widehat{\mathrm{ECE}}_2^2 = \sum_b s_b\Big(d_b^2 - \frac{\hat\mu_b(1-\hat\mu_b)}{n_b - 1}\Big),
            \qquad \widehat{\mathrm{ECE}}_2 = \sqrt{\max(\cdot, 0)}

  (bins with fewer than two rows contribute 0). This is
  ``calibration.get_calibration_error(p, y, debias=True)`` of the
  ``uncertainty-calibration`` package when the binning is theirs:
  ``bins=15, strategy="equal-count"`` on continuous scores.
* ``norm="l1"`` — Kumar et al.'s normal debiasing,
  :math:`2\,\widehat{\mathrm{ECE}}_1 - \mathbb{E}\sum_b s_b|d_b + \varepsilon_b|` with
  :math:`\varepsilon_b \sim N(0, \hat\mu_b(1-\hat\mu_b)/n_b)`, evaluated in closed
  form with the folded-normal mean
  :math:`\mathbb{E}|N(d, \sigma^2)| = \sigma\sqrt{2/\pi}\,e^{-d^2/2\sigma^2} + d\,(1 - 2\Phi(-d/\sigma))`
  (the package's ``normal_debiased_ce`` is the Monte-Carlo version of the same number).

With sample weights, :math:`n_b` is replaced by the bin's effective size
:math:`(\sum w)^2/\sum w^2` in the variance terms.

**Smooth** (Błasiok & Nakkiran 2023): kernel smoothing with reflection at 0 and 1
and the automatic bandwidth; see :mod:`veracity.core._smooth`. It has no bins
(``bins`` and ``strategy`` are ignored) and is an L1 quantity.
"""

from __future__ import annotations

import numpy as np
from ._special import ndtr

from ._binning import make_edges
from ._formulas import ece_from_stats
from ._stats import BinStats
from ._validation import Binary, VeracityError

ESTIMATOR_NORMS = {"plugin": ("l1", "l2", "max"), "debiased": ("l1", "l2"), "smooth": ("l1",)}


def _check(estimator: str, norm: str) -> None:
    if estimator not in ESTIMATOR_NORMS:
        raise VeracityError(
            f"estimator must be 'plugin', 'debiased' or 'smooth', got {estimator!r}"
        )
    allowed = ESTIMATOR_NORMS[estimator]
    if norm not in allowed:
        raise VeracityError(
            f"estimator={estimator!r} supports norm {' or '.join(map(repr, allowed))}, got "
            f"norm={norm!r}; use estimator='plugin' for norm='max'"
        )


def _bin_moments(stats: BinStats) -> tuple[np.ndarray, ...]:
    keep = stats.nonempty
    w = stats.weight[keep]
    share = w / stats.total_weight
    conf = stats.sum_p[keep] / w
    acc = np.clip(stats.sum_y[keep] / w, 0.0, 1.0)  # Σwy and Σw summed apart may differ in their last bit
    # 1 / effective size; a bin of weights so small beside the largest that their squares
    # underflow (Σw² = 0) counts as one row, as in BinStats.effective_count (was 0/0 = NaN)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        k = stats.weight_sq[keep] / (w * w)
    k = np.where(np.isfinite(k) & (k > 0), np.minimum(k, 1.0), 1.0)
    return share, conf - acc, acc, k


def debiased_ece_from_stats(stats: BinStats, norm: str = "l2") -> float:
    """Debiased binned ECE (L1 or L2) of per-bin statistics; formulas in the module doc."""
    _check("debiased", norm)
    share, d, acc, k = _bin_moments(stats)
    var_acc = acc * (1.0 - acc)
    if norm == "l2":
        ok = k < 1.0 - 1e-12  # at least two (effective) rows
        corr = np.zeros_like(d)
        corr[ok] = var_acc[ok] * k[ok] / (1.0 - k[ok])
        err = np.where(ok, d * d - corr, 0.0)
        return float(np.sqrt(max(float(np.dot(share, err)), 0.0)))
    sigma = np.sqrt(var_acc * k)
    a = np.abs(d)
    folded = a.copy()
    pos = sigma > 0
    s, x = sigma[pos], a[pos]
    with np.errstate(over="ignore", under="ignore"):  # a gap of 1e160 sigmas: exp(-inf) = 0, exactly
        folded[pos] = s * np.sqrt(2.0 / np.pi) * np.exp(-0.5 * (x / s) ** 2) + x * (1.0 - 2.0 * ndtr(-x / s))
    return float(np.dot(share, 2.0 * a - folded))


def estimate_ece(
    data: Binary, *, estimator: str, bins: int | str = 15, strategy: str = "uniform", norm: str = "l1"
) -> float:
    """ECE of one validated binary problem by ``estimator`` ('plugin', 'debiased', 'smooth')."""
    _check(estimator, norm)
    if estimator == "smooth":
        from ._smooth import smooth_ece

        return smooth_ece(data.p, data.y, data.w)[0]
    edges = make_edges(data.p, bins, strategy, data.w)
    stats = BinStats.from_binary(data, edges, strategy, full=False)
    if estimator == "debiased":
        return debiased_ece_from_stats(stats, norm)
    return ece_from_stats(stats, norm)
