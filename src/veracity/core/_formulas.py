r"""Metric formulas applied to per-bin statistics (:class:`~veracity.BinStats`).

These are the numbers every engine shares: arrays in memory, files and clusters all
produce a ``BinStats`` and read ECE, Brier, NLL and the Brier decomposition from it
here. :mod:`._metrics` (the public functions of ``(scores, labels)``) and
:mod:`._honest` (estimators beyond the plug-in) both build on this module.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import cast

import numpy as np

from ._stats import BinStats
from ._validation import VeracityError
from ._display import Display, added_term

NORMS = ("l1", "l2", "max")


# ----------------------------------------------------------------------------------
# from statistics
# ----------------------------------------------------------------------------------
def ece_from_stats(stats: BinStats, norm: str = "l1") -> float:
    r"""Plug-in calibration error of binned statistics.

    .. math::
        \mathrm{ECE}_1 = \sum_b \tfrac{n_b}{N}\,|\mathrm{acc}_b - \mathrm{conf}_b|,\quad
        \mathrm{ECE}_2 = \Big(\sum_b \tfrac{n_b}{N}(\mathrm{acc}_b - \mathrm{conf}_b)^2\Big)^{1/2},\quad
        \mathrm{ECE}_\infty = \max_{b:\,n_b>0} |\mathrm{acc}_b - \mathrm{conf}_b|

    with weighted counts :math:`n_b = \sum_{i\in b} w_i`; empty bins contribute 0.
    """
    if norm not in NORMS:
        raise VeracityError(f"norm must be 'l1', 'l2' or 'max', got {norm!r}", param="norm")
    keep = stats.nonempty
    gap = np.abs(gap_numerator(stats)[keep]) / stats.weight[keep]
    if norm == "max":
        return float(gap.max())
    total = stats.total_weight
    if norm == "l1":  # Σ_b |Σ w (p - y)| / W, each bin's sum accurate (BinStats.sum_r), added exactly
        return float(math.fsum((stats.weight[keep] * gap).tolist()) / total)
    return float(np.sqrt(math.fsum((stats.weight[keep] * gap * gap).tolist()) / total))


def gap_numerator(stats: BinStats) -> np.ndarray:
    r"""Per bin :math:`\sum w (p - y)`: carried (``sum_r``), or Σwp − Σwy where it was not."""
    return stats.sum_r if stats.sum_r is not None else stats.sum_p - stats.sum_y


def _nonnegative(value: float, bound: float, what: str) -> float:
    r"""``value``, a sum of squares computed by differences of sums, with a rounding error of at most
    ``bound`` (:func:`_rounding_bound`): between ``-bound`` and 0 it is read as 0; a more negative
    value means statistics that no rows could give (built by hand, or from different rows), refused
    rather than clamped."""
    if value >= 0.0:
        return value
    if value >= -bound:
        return 0.0
    raise VeracityError(
        f"these statistics give a negative {what} ({value:.3g}); their sums do not come from one set "
        "of rows. Build them with BinStats.from_arrays or merge statistics of the same bins")


def _rounding_bound(stats: BinStats, keep: np.ndarray, scale: np.ndarray) -> float:
    r"""A bound on the rounding error of a combination of per-bin sums whose magnitudes add up to
    ``scale`` per bin: each sum of :math:`n_b` rows errs by at most :math:`n_b 2^{-53}` of its size
    (recursive summation, the worst order an engine may take), and the combination by a few more."""
    counts = stats.count[keep].astype(np.float64) + 8.0
    return float(np.dot(counts, np.abs(scale)) * np.finfo(np.float64).eps)


def brier_from_stats(stats: BinStats) -> float:
    r""":math:`\frac{1}{W}\sum_b \sum_{i\in b} w_i (p_i - y_i)^2`, from the carried per-bin sums of
    squared residuals (``sum_r2``).

    Statistics without them (built by hand or saved by an older version) give the expanded
    :math:`\frac{1}{W}(\sum wp^2 - 2\sum wpy + \sum wy)` (y² = y), which cancels for sharp
    forecasts: an absolute error of about :math:`10^{-16}` times the sums, so a relative error of
    percents at a Brier score of 1e-13."""
    stats.require_full("Brier")
    if stats.sum_r2 is not None:
        return float(math.fsum(stats.sum_r2.tolist()) / stats.total_weight)
    sum_p2, sum_py = cast(np.ndarray, stats.sum_p2), cast(np.ndarray, stats.sum_py)  # full: checked above
    parts = [*sum_p2.tolist(), *(-2.0 * sum_py).tolist(), *stats.sum_y.tolist()]
    every = np.ones(stats.n_bins, dtype=bool)
    bound = _rounding_bound(stats, every, sum_p2 + 2.0 * np.abs(sum_py) + np.abs(stats.sum_y))
    return float(_nonnegative(math.fsum(parts), bound, "Brier score") / stats.total_weight)


def nll_from_stats(stats: BinStats) -> float:
    stats.require_full("NLL")
    return float(cast(np.ndarray, stats.sum_nll).sum() / stats.total_weight)  # full: checked above


@dataclass(frozen=True, repr=False)
class BrierDecomposition(Display):
    r"""Exact binned decomposition of the Brier score.

    With bin weights :math:`n_b`, total :math:`N`, bin means
    :math:`\bar p_b` (conf) and :math:`\bar y_b` (acc), overall rate :math:`\bar y`:

    * ``reliability`` :math:`= \sum_b \frac{n_b}{N}(\bar p_b - \bar y_b)^2` (calibration term),
    * ``resolution`` :math:`= \sum_b \frac{n_b}{N}(\bar y_b - \bar y)^2`,
    * ``uncertainty`` :math:`= \bar y(1 - \bar y)`,
    * ``refinement`` :math:`= \sum_b \frac{n_b}{N}\bar y_b(1 - \bar y_b) = \mathrm{UNC} - \mathrm{RES}`,
    * ``within_variance`` :math:`= \frac{1}{N}\sum_b\sum_{i\in b}(p_i - \bar p_b)^2`,
    * ``within_covariance`` :math:`= \frac{1}{N}\sum_b\sum_{i\in b}(p_i - \bar p_b)(y_i - \bar y_b)`.

    Identities (exact for any data, up to rounding):
    ``brier = reliability + refinement + within_variance − 2·within_covariance``
    (seed 000's calibration–refinement split) and
    ``brier = reliability − resolution + uncertainty + within_variance − 2·within_covariance``
    (seed 004's Murphy decomposition). The two within-bin terms vanish when every
    forecast in a bin equals its bin mean.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    refinement: float
    within_variance: float
    within_covariance: float

    @property
    def calibration(self) -> float:
        """Alias of ``reliability`` (seed 000 calls it the calibration term)."""
        return self.reliability

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    def __str__(self) -> str:
        # a within-bin term that rounds to 0 prints as the formula has it, never with its rounding noise's
        # sign (a zero covariance computed -1e-18 printed "- 2 x within-bin covariance -0.0000"); a real
        # covariance below zero keeps its sign after the formula's "- 2 x"
        cov = f"{self.within_covariance:.4f}"
        cov = cov.removeprefix("-") if float(cov) == 0 else cov
        return (
            f"Brier {self.brier:.4f} = reliability {self.reliability:.4f} "
            f"- resolution {self.resolution:.4f} + uncertainty {self.uncertainty:.4f} "
            f"{added_term('within-bin variance', self.within_variance)} "
            f"- 2 x within-bin covariance {cov}"
        )


def brier_decomposition_from_stats(stats: BinStats) -> BrierDecomposition:
    stats.require_full("the Brier decomposition")
    if stats.sum_r is not None and stats.sum_q1 is not None and stats.sum_r2 is not None:
        return _decomposition_of_residuals(stats)
    keep = stats.nonempty
    w = stats.weight[keep]
    total = stats.total_weight
    conf = stats.sum_p[keep] / w
    acc = stats.sum_y[keep] / w
    base = stats.sum_y.sum() / total
    sum_p2, sum_py = cast(np.ndarray, stats.sum_p2), cast(np.ndarray, stats.sum_py)  # full: checked above
    within_var = (sum_p2[keep] - stats.sum_p[keep] * conf).sum() / total
    within_cov = (sum_py[keep] - stats.sum_p[keep] * acc).sum() / total
    return BrierDecomposition(
        brier=brier_from_stats(stats),
        reliability=float(np.dot(w, (conf - acc) ** 2) / total),
        resolution=float(np.dot(w, (acc - base) ** 2) / total),
        uncertainty=float(base * (1.0 - base)),
        refinement=float(np.dot(w, acc * (1.0 - acc)) / total),
        within_variance=_nonnegative(float(within_var), _rounding_bound(stats, keep, 2.0 * sum_p2[keep]) / total,
                                     "within-bin variance"),
        within_covariance=float(within_cov),
    )


def _decomposition_of_residuals(stats: BinStats) -> BrierDecomposition:
    r"""The decomposition from the residual sums, accurate for sharp forecasts.

    Per bin (weight :math:`W`, positives' weight :math:`W_1 = aW`, :math:`W_0 = W - W_1`,
    :math:`R = \sum w(p - y)`, :math:`Q = \sum_{y=1} w(1 - p)`, :math:`S = \sum w(p - y)^2`),
    with :math:`p - \bar p = (r - \bar r) + (y - a)`:

    * reliability :math:`R^2/W`, refinement :math:`W_1W_0/W`,
    * within-bin covariance :math:`\sum w(p - \bar p)(y - a) = -Q - aR + W_1W_0/W`,
    * within-bin variance :math:`\sum w(p - \bar p)^2 = S - R^2/W - 2(Q + aR) + W_1W_0/W`,

    so Brier − reliability − refinement = variance − 2·covariance holds to rounding of terms
    no larger than the Brier score's own (the expanded form's error is a rounding of
    :math:`\sum wp^2`, which for sharp forecasts is the whole weight)."""
    keep = stats.nonempty
    total = stats.total_weight
    w, w1 = stats.weight[keep], stats.sum_y[keep]
    r, q, s = (cast(np.ndarray, v)[keep] for v in (stats.sum_r, stats.sum_q1, stats.sum_r2))
    w0 = w - w1
    a = w1 / w
    base = math.fsum(w1.tolist()) / total
    refine = w1 * w0 / w
    reliability = r * r / w
    cross = q + a * r
    within_var = [*s.tolist(), *(-reliability).tolist(), *(-2.0 * cross).tolist(), *refine.tolist()]
    within_cov = [*(-q).tolist(), *(-a * r).tolist(), *refine.tolist()]
    scale = s + reliability + 2.0 * (np.abs(q) + np.abs(a * r)) + refine

    def mean(values: list[float]) -> float:
        return math.fsum(values) / total

    return BrierDecomposition(
        brier=brier_from_stats(stats),
        reliability=mean(reliability.tolist()),
        resolution=float(np.dot(w, (a - base) ** 2) / total),
        uncertainty=float(base * (1.0 - base)),
        refinement=mean(refine.tolist()),
        within_variance=_nonnegative(mean(within_var), _rounding_bound(stats, keep, scale) / total,
                                     "within-bin variance"),
        within_covariance=mean(within_cov),
    )
