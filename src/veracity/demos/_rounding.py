"""Thresholds as the demos print them: 4 decimals that name the threshold measured."""

from __future__ import annotations

import math


def rounded_down(t: float, decimals: int = 4) -> float:
    r"""The largest number of ``decimals`` decimals at or below ``t``, :math:`\lfloor 10^d t\rfloor / 10^d`:
    a threshold written down as the tables print it that flags every row ``t`` flags (``score >= t``),
    and more only where a score lies between the two (a recall threshold keeps its recall)."""
    scale = 10.0 ** decimals
    low = math.floor(t * scale) / scale
    return low if low <= t else (math.floor(t * scale) - 1) / scale  # t·10^d rounded up to an integer
