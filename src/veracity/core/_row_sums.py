r"""When a linear map of logits may drop a per-row constant, and which: rows of :math:`W` that sum alike,
and the row's reference entry :math:`r`.

Softmax is unchanged by a constant added to every logit of a row. For logits :math:`Wz + b`, shifting
:math:`z` by :math:`r\mathbf 1` changes them by :math:`r\,W\mathbf 1 = r s`, :math:`s_k` the sum of row
:math:`k`. Less a constant :math:`rc` (the same softmax) that is

.. math:: L'_k = \sum_j W_{kj}(z_j - r) + b_k + r\,(s_k - c),

exact for any :math:`r` and :math:`c`. Where every row has the same sum, :math:`c = s` drops the last
term; where some rows share a sum (a partial tie), :math:`c` the largest sum (:math:`r \ge 0`; the
smallest where :math:`r < 0`) drops it for the classes that win at a large common offset, whose split
the biases decide, and pushes the others down by :math:`|r||s_k - c|`. The calibrators (``transform``)
and the exports (SQL, ONNX) decide it, and pick :math:`r`, with :func:`reference_rule` (for the map) and
:func:`row_reference` (for the rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

#: :math:`\sum_j |W_{kj}||z_j|` from which float64 rounding of :math:`Wz` shows beside a bias of order 1:
#: the calibrators sum such rows left to right and shift them where :func:`reference_rule` allows
ROUNDING_SHOWS = 2.0 ** 8


def _exact_sums(W: np.ndarray) -> list[Fraction]:
    return [sum(map(Fraction, row), Fraction(0)) for row in np.asarray(W, dtype=np.float64).tolist()]


def equal_row_sums(W: np.ndarray) -> bool:
    r"""Whether every row of ``W`` has the same exact sum, :math:`W\mathbf 1 = s\mathbf 1` (vector scaling:
    one scale for every class). The correctly rounded sums (:func:`math.fsum`) tell most maps apart; where
    they agree, the rows are summed as fractions, exactly."""
    rows = np.asarray(W, dtype=np.float64).tolist()
    try:
        if len({math.fsum(row) for row in rows}) > 1:
            return False  # correctly rounded sums that differ: exact sums that differ
    except OverflowError:
        pass
    return len(set(_exact_sums(W))) == 1


@dataclass(frozen=True, eq=False)
class ReferenceRule:
    r"""How a map's rows are shifted: :math:`r` the row's largest entry (``side="max"``) or smallest
    (``"min"``), and the correction :math:`r(s_k - c)` written as
    :math:`\max(r, 0)\,\mathrm{below}_k + \min(r, 0)\,\mathrm{above}_k` with
    :math:`\mathrm{below}_k = s_k - \max s \le 0` and :math:`\mathrm{above}_k = s_k - \min s \ge 0`
    (each the exact difference rounded once; one of the two products is 0). Both are 0 where the rows
    sum alike: ``offsets`` is then None and the logits are :math:`W(z - r\mathbf 1) + b`."""

    side: str
    below: np.ndarray
    above: np.ndarray

    @property
    def offsets(self) -> np.ndarray | None:
        """The K x 2 weights ``[below | above]`` of the features :math:`\\max(r, 0), \\min(r, 0)`, or None."""
        if not (self.below.any() or self.above.any()):
            return None
        return np.stack([self.below, self.above], axis=1)

    def __str__(self) -> str:
        what = "one row sum" if self.offsets is None else "rows tied on their sums among others"
        return f"reference: the row's {'largest' if self.side == 'max' else 'smallest'} entry ({what})"


def reference_rule(W: np.ndarray) -> ReferenceRule | None:
    r"""The rule for :math:`W(z - r\mathbf 1) + b` (module docstring), or None: :math:`Wz + b` as it is,
    where no two rows of :math:`W` share their exact sum (no class wins a large common offset together
    with another: the class with the largest (smallest) sum takes probability 1 in the limit, which
    :math:`Wz + b` gives as well).

    :math:`r` is the row's largest entry where :math:`\max_k s_k \ge 0`, its smallest otherwise; why
    the extreme entry, and not (as ``transform`` used until session 25) the median. Any :math:`r` gives
    the same softmax in exact arithmetic; in floating point the logits, summed left to right after
    :math:`x_j = \mathrm{fl}(z_j - r)`, are off by at most

    .. math:: |\delta_k| \le \gamma_{K+3}\Big(\sum_j |W_{kj}|\,|z_j - r| + |r|\,|s_k - c| + |b_k|\Big),
       \qquad \gamma_n = \frac{n u}{1 - n u},\ u = 2^{-53}

    (one rounding in each :math:`z_j - r`, one per product, one in :math:`s_k - c`, the rest in the
    sum), and a probability by at most :math:`p_k(e^{2\max\delta} - 1)` over the classes that carry it:
    what matters is :math:`\delta` of the classes that win. A class with :math:`s_k \ne c` lies
    :math:`|r||s_k - c|` below the others, so its share of that term costs it at most
    :math:`u\,|r||s_k - c|\,e^{-|r||s_k - c| + \dots}`. With :math:`s > 0` the winners read the row's
    large entries: for vector scaling (:math:`W = v I`, :math:`v > 0`) exactly the classes whose
    :math:`z_k` lies within :math:`(745 + \max b - \min b)/v` of :math:`\max_j z_j`; for them
    :math:`|z_k - \max z|` is that small, and :math:`z_k - r` is exact where :math:`z_k` lies within a
    factor 2 of :math:`r` (Sterbenz), so :math:`\delta_k \le \gamma_2 |b_k|`, whatever the other entries.
    The median can lie anywhere between: on :math:`(10^{17}, 10^{17} + 16, -10^{17}, -10^{17})` it is
    :math:`-10^{17}`, :math:`2\cdot 10^{17} + 16` rounds to :math:`2\cdot 10^{17}`, and two classes
    :math:`e^{16}` apart read as tied (probabilities off by 0.5); the largest entry gives them exactly.
    With :math:`s < 0` the winners read the smallest entries, hence ``"min"``. For a full matrix no
    single :math:`r` minimises every class's bound; the extreme entry keeps exact the terms of the
    features at the top, where a near-diagonal :math:`W` (what the off-diagonal penalty fits) puts the
    winners' weight. An entry of the row, so a common offset :math:`c` of the logits (where
    :math:`z + c` is exact) moves it by :math:`c` and leaves :math:`z - r` bit for bit as it was. And it
    is one ``GREATEST`` (``LEAST``) in SQL and one ONNX ``Max`` (``Min``), where a median is a sorting
    network: ``transform`` and the exports read the same :math:`r` (:func:`row_reference`), so they agree
    to rounding."""
    try:
        if len({math.fsum(row) for row in np.asarray(W, dtype=np.float64).tolist()}) == W.shape[0]:
            return None  # correctly rounded sums all apart: exact sums all apart
    except OverflowError:
        pass
    sums = _exact_sums(W)
    if len(set(sums)) == len(sums):
        return None
    hi, lo = max(sums), min(sums)
    below = np.array([float(s - hi) for s in sums])
    above = np.array([float(s - lo) for s in sums])
    return ReferenceRule("min" if hi < 0 else "max", below, above)


def reference_side(W: np.ndarray) -> str | None:
    """The side of :func:`reference_rule` (``"max"``, ``"min"``), or None where it gives no rule."""
    rule = reference_rule(W)
    return None if rule is None else rule.side


def row_reference(Z: np.ndarray, side: str) -> np.ndarray:
    r"""Each row's reference entry, shape ``(N, 1)``: its largest (``side="max"``) or smallest (``"min"``)
    entry (:func:`reference_rule`), as ``GREATEST``/``LEAST`` and ONNX ``Max``/``Min`` pick it."""
    out: np.ndarray = (Z.max if side == "max" else Z.min)(axis=1, keepdims=True)
    return out


def offset_features(r: np.ndarray) -> np.ndarray:
    r"""The features :math:`\max(r, 0), \min(r, 0)` that :attr:`ReferenceRule.offsets` weighs, shape
    ``(N, 2)`` from ``r`` of shape ``(N, 1)``."""
    return np.concatenate([np.maximum(r, 0.0), np.minimum(r, 0.0)], axis=1)
