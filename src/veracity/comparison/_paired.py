r"""Paired mean differences with a normal interval (Diebold–Mariano / paired t).

Both models are scored on the same rows, so the difference of two mean losses is
the mean of the per-row differences :math:`d_i = \ell(p_{B,i}, y_i) - \ell(p_{A,i}, y_i)`:

.. math:: \bar d = \frac{\sum_i w_i d_i}{\sum_i w_i},\qquad
          \widehat{\mathrm{Var}}(\bar d) = \frac{n}{n-1}\,
          \frac{\sum_i w_i^2 (d_i - \bar d)^2}{(\sum_i w_i)^2}

(unweighted: :math:`s_d^2/n`, the paired t statistic's variance). The interval is
:math:`\bar d \pm z_{1-\alpha/2}\,\widehat{\mathrm{se}}` and the p-value
:math:`2\Phi(-|\bar d| / \widehat{\mathrm{se}})` — the Diebold–Mariano test for
independent rows. Because the rows are shared, what both models get right or wrong
together cancels in :math:`d_i`: the paired interval is much narrower than the two
separate intervals of the means (``tests/comparison`` shows the power it buys).

The same moments serve every per-row quantity here (elementary scores of the Murphy
diagram, net benefit, realised minus expected cost): :func:`from_moments` takes
:math:`\sum w d`, :math:`\sum w^2 d`, :math:`\sum w^2 d^2`, so counts at thresholds can
feed it without a per-row array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._special import ndtr, ndtri


@dataclass(frozen=True)
class Estimate:
    """A mean (or mean difference) with its standard error, normal interval and p-value (H0: 0)."""

    value: float
    se: float
    low: float
    high: float
    p_value: float


def z_of(level: float) -> float:
    return float(ndtri(0.5 + level / 2.0))


def p_of(value: np.ndarray | float, se: np.ndarray | float) -> np.ndarray:
    """Two-sided normal p-value of ``value / se``; 1 where both are 0, 0 where only se is."""
    value, se = np.asarray(value, dtype=float), np.asarray(se, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(value) / se
    p = 2.0 * ndtr(-z)
    return np.where(se > 0, p, np.where(value == 0, 1.0, 0.0))


def from_moments(s1: np.ndarray, s1w: np.ndarray, s2: np.ndarray, total: float, total_sq: float, n: int,
                 level: float) -> tuple[np.ndarray, ...]:
    r"""``(mean, se, low, high, p)`` of a weighted mean from :math:`\sum w d`, :math:`\sum w^2 d`,
    :math:`\sum w^2 d^2`, :math:`\sum w` and :math:`\sum w^2` (arrays: one mean per entry)."""
    mean = np.asarray(s1, dtype=float) / total
    ss = np.asarray(s2, dtype=float) - 2.0 * mean * np.asarray(s1w, dtype=float) + mean * mean * total_sq
    ss = np.maximum(ss, 0.0)  # rounding below 0 when every d is equal
    var = ss / (total * total) * (n / (n - 1.0)) if n > 1 else np.full_like(mean, np.nan)
    se = np.sqrt(var)
    z = z_of(level)
    return mean, se, mean - z * se, mean + z * se, p_of(mean, se)


def paired_mean(d: np.ndarray, w: np.ndarray | None, level: float) -> Estimate:
    """The weighted mean of per-row values ``d`` with its normal interval (see the module doc)."""
    n = d.shape[0]
    if w is None:
        total, total_sq = float(n), float(n)
        s1 = float(d.sum())
        mean = s1 / n
        dev = d - mean
        ss = float(np.dot(dev, dev))
    else:
        total, total_sq = float(w.sum()), float(np.dot(w, w))
        mean = float(np.dot(w, d)) / total
        dev = d - mean
        ss = float(np.dot(w * w, dev * dev))
    if not np.any(d):  # identical losses: exactly 0, no interval to speak of
        return Estimate(0.0, 0.0, 0.0, 0.0, 1.0)
    var = ss / (total * total) * (n / (n - 1.0)) if n > 1 else float("nan")
    se = float(np.sqrt(var))
    z = z_of(level)
    return Estimate(mean, se, mean - z * se, mean + z * se, float(p_of(mean, se)))
