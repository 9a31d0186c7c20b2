"""When a linear map of logits may drop a per-row constant: rows of :math:`W` that sum alike.

Softmax is unchanged by a constant added to every logit of a row. For logits :math:`Wz + b`, shifting
:math:`z` by :math:`r\\mathbf 1` changes them by :math:`r\\,W\\mathbf 1`, which is one constant for every
class exactly when every row of :math:`W` has the same sum :math:`s` (:math:`W\\mathbf 1 = s\\mathbf 1`).
The calibrators (``transform``) and the exports (SQL, ONNX) decide it with this one function.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

#: :math:`\sum_j |W_{kj}||z_j|` from which float64 rounding of :math:`Wz` shows beside a bias of order 1:
#: the calibrators sum such rows left to right and shift them where :func:`equal_row_sums` allows
ROUNDING_SHOWS = 2.0 ** 8


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
    return len({sum(map(Fraction, row), Fraction(0)) for row in rows}) == 1
