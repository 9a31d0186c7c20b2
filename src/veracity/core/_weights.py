r"""The one rule for rescaling sample weights, shared by every route.

Only the ratios of the weights matter, so extreme weights are multiplied by one exact power
of two :math:`2^k` (every ratio, and every rounding of a sum, is then unchanged) chosen so that
the sums the statistics read — :math:`\sum w`, :math:`\sum w^2`, :math:`(\sum w)^2` and the
per-bin Kish effective size :math:`(\sum w)^2 / \sum w^2` — neither overflow nor underflow:

* the largest weight stays below :math:`2^{256}` (:data:`WEIGHT_EXP_LIMIT`), so that
  :math:`(\sum w)^2 < N^2 \cdot 2^{512}` is finite for any number of rows;
* the smallest positive weight stays at or above :math:`2^{-480}` (:data:`WEIGHT_EXP_FLOOR`), so
  that its square is a normal number (at least :math:`2^{-960}`, with room to spare), and a bin
  that holds only the smallest weights keeps its own effective size.

Weights whose largest value lies in :math:`[2^{-256}, 2^{256})` and whose smallest positive
value is at least :math:`2^{-480}` are left as they are; a largest value outside that range is
brought to :math:`[1/2, 1)`, and the smallest is raised (by the least power of two) when it
would still fall below the floor. Multiplying all the weights by any :math:`2^j` (that keeps
them normal numbers) therefore changes no result: the rescaled weights differ by a power of two
and no sum leaves the normal range.

**Weights too far apart** (largest over smallest above about :math:`2^{735} \approx 10^{221}`)
fit no single scale: the squares of the smallest would underflow however the largest is
placed, unless the largest's sums overflow. They are accepted, not refused (weights spread over
hundreds of decades, e.g. exponentiated log-likelihood ratios, are audited by every function),
and the loss is confined and documented: the largest weight is placed just below
:math:`2^{256}` — a placement fixed by the weights' ratios, so the results stay invariant to
multiplying all weights by a constant — and only rows weighing less than about
:math:`10^{-221}` of the largest are affected: their squares may be subnormal or 0. Their
share of every weighted total is below :math:`10^{-221}` (no ECE, Brier or total moves); a
bin or slice made *only* of such rows keeps its means (ratios of its own sums) but its Kish
effective size is inexact — 1 (the widest interval) where :math:`\sum w^2` underflows to 0.
Clip such weights to 0, or raise them, for exact per-bin effective sizes.

**Reported weights are in the caller's units.** Every statistic is computed on the rescaled
weights; a weight *total* a result shows (an audit's ``total_weight``, a reliability row's
weighted ``n``) is divided by the same :math:`2^k` (:func:`in_user_units`, exact), so memory,
files and databases report the caller's total whatever :math:`k` each chose.

The array form (``check_weights``), the frame and file forms
(``sources._aggregates.weight_scale``, the database form through it) and PPI's joint weights
all call :func:`weight_exponent`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The largest weight, once rescaled, lies below ``2**WEIGHT_EXP_LIMIT``; weights whose largest
#: value lies in ``[2**-WEIGHT_EXP_LIMIT, 2**WEIGHT_EXP_LIMIT)`` keep their scale (when their
#: smallest positive value clears :data:`WEIGHT_EXP_FLOOR`).
WEIGHT_EXP_LIMIT = 256

#: The smallest positive weight, once rescaled, is at least ``2**-WEIGHT_EXP_FLOOR``: its square
#: (at least ``2**-960``) is a normal float64, far from the subnormals below ``2**-1022``.
WEIGHT_EXP_FLOOR = 480

#: A power of two a float64 can hold as a multiplier (``2**1024`` overflows).
_MAX_SHIFT = 1023


def weight_exponent(largest: float, smallest: float | None = None) -> int:
    r"""The exponent :math:`k` that rescales weights to :math:`w \cdot 2^k`.

    ``largest`` is the largest weight (> 0) and ``smallest`` the smallest *positive* one (None
    where it is not known: then only the largest is read). With
    :math:`\text{largest} = m \cdot 2^e` (:math:`1/2 \le m < 1`) and
    :math:`\text{smallest} \ge 2^{f-1}` (``math.frexp``):

    .. math:: k = \min\bigl(\max(k_0,\; 1 - F - f),\; L - e,\; 1023\bigr),
              \qquad k_0 = \begin{cases} 0 & |e| \le L \\ -e & |e| > L \end{cases}

    with :math:`L` = :data:`WEIGHT_EXP_LIMIT` and :math:`F` = :data:`WEIGHT_EXP_FLOOR`: the
    smallest weight is raised to at least :math:`2^{-F}` while the largest stays below
    :math:`2^{L}`. Both hold unless :math:`e - f + 1 > L + F` (weights more than about
    :math:`2^{735}` apart): then :math:`k = L - e`, the largest just below :math:`2^L` and the
    smallest as high as it can go (see the module's note on the loss). :math:`k` above 1023
    happens only for weights that are all subnormal; :math:`2^{1023}` already brings them
    into range.

    >>> weight_exponent(1.0), weight_exponent(3e300), weight_exponent(1.0, 1e-170)
    (0, -999, 85)
    >>> weight_exponent(1.0, 1e-300) == weight_exponent(2.0 ** 90, 2.0 ** 90 * 1e-300) + 90
    True
    """
    e = math.frexp(largest)[1]
    k = -e if abs(e) > WEIGHT_EXP_LIMIT else 0
    if smallest is not None and smallest > 0:
        k = max(k, 1 - WEIGHT_EXP_FLOOR - math.frexp(smallest)[1])
    return min(k, WEIGHT_EXP_LIMIT - e, _MAX_SHIFT)


def positive_min(w: np.ndarray) -> float:
    """The smallest positive value of ``w`` (which holds at least one)."""
    lo = float(w.min())
    return lo if lo > 0 else float(w[w > 0].min())


def rescale_exponent(*weights: np.ndarray) -> int:
    """:func:`weight_exponent` of the largest and the smallest positive value over all of ``weights``
    (each non-negative, with a positive value)."""
    largest = max(float(w.max()) for w in weights)
    smallest = min(positive_min(w) for w in weights)
    return weight_exponent(largest, smallest)


def rescale_weights(*weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """``weights`` (each non-negative, with a positive value) times one common :math:`2^k`,
    :math:`k` = :func:`rescale_exponent` (``np.ldexp``: exact, every ratio unchanged)."""
    k = rescale_exponent(*weights)
    return weights if k == 0 else tuple(np.ldexp(w, k) for w in weights)


def in_user_units(total: float, scale: float) -> float:
    r"""A weight total of rescaled weights (:math:`\sum w \cdot s`, ``scale`` :math:`s = 2^k`) in the
    caller's units: :math:`\sum w`, exact (a division by a power of two). A total beyond the
    largest double (weights near it, summed) is ``inf``: it has no float64 value."""
    if scale == 1.0:
        return float(total)
    k = -(math.frexp(scale)[1] - 1)  # scale = 2**-k
    try:
        return math.ldexp(float(total), k)
    except OverflowError:
        return math.inf


def sums_in_user_units(sums: np.ndarray, scale: float) -> np.ndarray:
    r"""Weight sums of rescaled weights (``scale`` :math:`s = 2^k`), elementwise, in the caller's units: the
    array form of :func:`in_user_units` (exact; a sum beyond the largest double is ``inf``)."""
    if scale == 1.0:
        return sums
    k = -(math.frexp(scale)[1] - 1)  # scale = 2**-k
    with np.errstate(over="ignore"):
        out: np.ndarray = np.ldexp(sums, k)
    return out


def sandwich_size(total: Any, rate: Any, sq_hits: Any, sq_misses: Any) -> np.ndarray:
    r"""The effective size the spread of a weighted share reads: for 0/1 outcomes :math:`h` with weights
    :math:`w`, :math:`r = \sum w h / W`,

    .. math:: \frac{r(1-r)\,W^2}{\sum w^2 (h - r)^2},\qquad
              \sum w^2 (h - r)^2 = (1-r)^2 \sum_{h=1} w^2 + r^2 \sum_{h=0} w^2

    (the sandwich variance of the ratio :math:`r`); ``+inf`` where that spread is 0. Kish's
    :math:`W^2/\sum w^2` (:func:`kish_size`) assumes weights unrelated to :math:`h`: heavier rows more
    often hit make the share noisier than it says, so callers take the smaller of the two. Vectorised;
    pass sums of weights scaled as :func:`kish_size` scales them where they may overflow."""
    total, rate = np.asarray(total, dtype=np.float64), np.asarray(rate, dtype=np.float64)
    spread = (1.0 - rate) ** 2 * np.asarray(sq_hits, dtype=np.float64) + rate * rate * np.asarray(
        sq_misses, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        size = rate * (1.0 - rate) * total * total / np.where(spread > 0, spread, 1.0)
    return np.where(spread > 0, size, np.inf)


def share_size(h: np.ndarray, w: np.ndarray) -> float:
    r"""The sandwich size :math:`F(1-F)\,W^2 / \sum_i w_i^2 (h_i - F)^2` (:func:`sandwich_size`) of the
    weighted share :math:`F = \sum_i w_i h_i / W` of the rows with ``h`` (a boolean array beside the
    positive weights ``w``); ``+inf`` for equal weights or no spread (Kish's size alone then)."""
    if w.min() == w.max():
        return math.inf
    u = w / w.max()  # scaled by the largest first: no square overflows
    total = float(u.sum())
    return float(sandwich_size(total, float(u[h].sum()) / total, float(np.dot(u[h], u[h])),
                               float(np.dot(u[~h], u[~h]))))


def kish_sizes(total: np.ndarray, total_sq: np.ndarray) -> np.ndarray:
    r"""Kish's effective sizes :math:`(\sum w)^2 / \sum w^2` from each group's sums, vectorised: 1 where the
    weights are so small beside the largest that their squares underflow (:math:`\sum w^2 = 0` with
    :math:`\sum w > 0`; the module's note: the smallest size of a non-empty group, the widest interval), 0
    for a group with no weight — the rule of :attr:`~veracity.core._stats.BinStats.effective_count`."""
    total, total_sq = np.asarray(total, dtype=float), np.asarray(total_sq, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = total * total / total_sq
    return np.where(total > 0, np.where(np.isfinite(ratio), ratio, 1.0), 0.0)


def honest_size(W: Any, w2: Any, wy: Any, w2y: Any, wp: Any, V: Any, *, even: Any = False) -> np.ndarray:
    r"""The size a weighted rate's binomial interval (Wilson, Clopper–Pearson) takes, per group, from its
    sums: :math:`W = \sum w`, ``w2`` :math:`= \sum w^2`, ``wy`` :math:`= \sum w y`,
    ``w2y`` :math:`= \sum w^2 y`, ``wp`` :math:`= \sum w p` and ``V`` :math:`= \sum w^2 p(1 - p)`
    (labels :math:`y \in \{0, 1\}`, scores :math:`p`). With :math:`r = \sum wy / W` the rate and
    :math:`c = \sum wp / W` the mean score,

    .. math:: n^\ast = \min\Bigl(\frac{W^2}{\sum w^2},\;
              \frac{r(1-r)\,W^2}{\sum w^2 (y - r)^2},\; \frac{c(1-c)\,W^2}{V}\Bigr),\qquad
              \sum w^2 (y - r)^2 = (1 - 2r)\sum w^2 y + r^2 \sum w^2 .

    The first is Kish's effective size (:func:`kish_sizes`: 1 where :math:`\sum w^2` underflows), which
    assumes weights unrelated to the outcome; the second the observed (sandwich) one; the third
    calibration's — the size Kish's would be if the scores were the truth. The rate's variance is
    :math:`\sum w^2 \pi(1 - \pi) / W^2`, which :math:`r(1 - r)\sum w^2 / W^2` does not bound when heavier
    rows are more often positive (class weights: Wilson on Kish's size alone covered 0.86 at 95 %); the
    observed spread alone is too noisy with rare events (a heavy row's label decides it), and
    calibration's steadies it. A size that a rate or mean score of exactly 0 or 1 makes 0 or undefined is
    not used (Kish's then stands).

    ``even`` (a bool, or one per group): the groups whose rows weigh alike (unweighted too), where the size is
    Kish's, bit for bit (it is :math:`n`; the other two are :math:`n` and at least :math:`n` there, and only
    rounding would separate them). ``w2y``, ``wp`` and ``V`` are not read when ``even`` is True.
    Vectorised; pass sums of weights scaled as :func:`kish_size` scales them where they may overflow."""
    kish = kish_sizes(W, w2)
    if isinstance(even, (bool, np.bool_)) and even:
        return kish
    W, w2 = np.asarray(W, dtype=np.float64), np.asarray(w2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r, c = np.asarray(wy, dtype=np.float64) / W, np.asarray(wp, dtype=np.float64) / W
        V = np.asarray(V, dtype=np.float64)
        observed = np.maximum((1.0 - 2.0 * r) * np.asarray(w2y, dtype=np.float64) + r * r * w2, 0.0)
        by_observed = np.where(observed > 0, r * (1.0 - r) * W * W / observed, np.inf)
        by_scores = np.where(V > 0, c * (1.0 - c) * W * W / V, np.inf)
    by_observed = np.where(by_observed > 0, by_observed, np.inf)
    size = np.minimum(kish, np.fmin(by_observed, np.where(by_scores > 0, by_scores, np.inf)))
    return size if isinstance(even, (bool, np.bool_)) else np.where(even, kish, size)


def kish_size(w: np.ndarray) -> float:
    r"""Kish's effective size :math:`(\sum w)^2 / \sum w^2` (scaled by the largest weight first, so
    weights near the float range neither overflow nor underflow); 0 for no weight."""
    top = float(w.max()) if w.size else 0.0
    if not top > 0.0:
        return 0.0
    u = w / top
    return float(u.sum()) ** 2 / float(np.dot(u, u))
