r"""Metric formulas applied to per-bin statistics (:class:`~veracity.BinStats`).

These are the numbers every engine shares: arrays in memory, files and clusters all
produce a ``BinStats`` and read ECE, Brier, NLL and the Brier decomposition from it
here. :mod:`._metrics` (the public functions of ``(scores, labels)``) and
:mod:`._honest` (estimators beyond the plug-in) both build on this module.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import cast

import numpy as np

from ._stats import BinStats
from ._validation import VeracityError
from ._display import Display

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
    gap = np.abs(stats.sum_y[keep] - stats.sum_p[keep]) / stats.weight[keep]
    if norm == "max":
        return float(gap.max())
    share = stats.weight[keep] / stats.total_weight
    if norm == "l1":
        return float(np.dot(share, gap))
    return float(np.sqrt(np.dot(share, gap * gap)))


def brier_from_stats(stats: BinStats) -> float:
    r""":math:`\frac{1}{W}\sum w (p - y)^2 = \frac{1}{W}(\sum wp^2 - 2\sum wpy + \sum wy)` (y² = y)."""
    stats.require_full("Brier")
    sum_p2, sum_py = cast(np.ndarray, stats.sum_p2), cast(np.ndarray, stats.sum_py)  # full: checked above
    total = sum_p2.sum() - 2.0 * sum_py.sum() + stats.sum_y.sum()
    return float(max(total, 0.0) / stats.total_weight)


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
        return (
            f"Brier {self.brier:.4f} = reliability {self.reliability:.4f} "
            f"- resolution {self.resolution:.4f} + uncertainty {self.uncertainty:.4f} "
            f"+ within-bin variance {self.within_variance:.4f} "
            f"- 2 x within-bin covariance {self.within_covariance:.4f}"
        )


def brier_decomposition_from_stats(stats: BinStats) -> BrierDecomposition:
    stats.require_full("the Brier decomposition")
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
        within_variance=float(max(within_var, 0.0)),
        within_covariance=float(within_cov),
    )
