r"""The binary prior-shift formula, one copy for the calibrators (:func:`veracity.adjust_prior`) and the
exported maps (a step table's values shifted in Python, so that SQL and ONNX give the very doubles
``adjust_prior(transform(x))`` gives).

.. math:: p_\text{new} = \frac{p (1-\pi_\text{old}) \pi_\text{new}}
          {p (1-\pi_\text{old}) \pi_\text{new} + (1-p) \pi_\text{old} (1-\pi_\text{new})}

written without dividing by :math:`1 - p` (so that :math:`p = 1` stays 1), with the two prior factors
rescaled where a term underflows.
"""

from __future__ import annotations

import numpy as np

#: the smallest normal double: a sum below it has lost digits to underflow (or is 0)
_TINY = float(np.finfo(np.float64).tiny)


def _shift_tiny(p: np.ndarray, o: float, nw: float) -> np.ndarray:
    r"""The formula where :math:`p(1-\pi_\text{old})\pi_\text{new}` or :math:`(1-p)\pi_\text{old}(1-\pi_\text{new})`
    underflows (old = new = 1e-200 with p = 1e-200 gave 0, not p): the two prior factors are divided by the
    larger first, so one of them is 1."""
    a, b = (1.0 - o) * nw, o * (1.0 - nw)
    m = max(a, b)
    num = p * (a / m)
    den = num + (1.0 - p) * (b / m)
    # den = 0 only where p = 0 and b/m underflows, or p = 1 and a/m does: the limit is p itself
    return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0), p)


def binary_prior_shift(p: np.ndarray, o: float, nw: float) -> np.ndarray:
    """Checked probabilities ``p`` (1-D float64) under the positive rate ``nw`` instead of ``o`` (both
    strictly between 0 and 1; see the module's formula). Returns a new array."""
    with np.errstate(divide="ignore", invalid="ignore"):
        num = p * (1.0 - o) * nw
        den = (1.0 - p) * o * (1.0 - nw)
        out = num / (num + den)
        low = (num < _TINY) | (den < _TINY)  # a term lost digits to underflow (or is 0)
        if low.any():
            out[low] = _shift_tiny(p[low], o, nw)
    return np.asarray(out, dtype=np.float64)
