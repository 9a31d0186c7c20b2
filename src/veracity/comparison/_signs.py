"""Signed differences as the comparison prints them: never ``-0.0000``.

``fmt(value, sign=True)`` keeps the sign of a tiny negative (``-1e-12`` prints ``-0.0000``), which beside a
verdict of "no difference" reads as one. Every signed number the comparison results print — the model
comparison's differences, the Murphy diagram's difference and band, the decision curve's net benefit and
its interval, the realised cost's gap and its interval — goes through :func:`signed`: a value that rounds to
0 at the printed precision prints ``+0.0000``, as an exact 0 does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._text import fmt


def unneg(value: float, digits: int = 4) -> float:
    """``value``, or 0.0 where it is negative but prints as ``-0.000…0`` at ``digits`` decimals
    (:math:`-\\tfrac12 10^{-d} < v < 0`); NaN and every other value unchanged."""
    return 0.0 if -0.5 * 10.0 ** -digits < value < 0 else value


def signed(value: float, digits: int = 4) -> str:
    """``value`` signed at ``digits`` decimals (``fmt(..., sign=True)``), never ``-0.0000``: a value that
    rounds to 0 prints ``+0.0000``; NaN prints ``n/a``."""
    return fmt(unneg(float(value), digits), digits, sign=True)


def unneg_records(records: list[dict[str, Any]], columns: Any) -> list[dict[str, Any]]:
    """``records`` with each float in ``columns`` passed through :func:`unneg` (the notebook tables sign
    their difference columns as the printout does)."""
    keep = set(columns)
    def cell(k: str, v: Any) -> Any:
        return unneg(float(v)) if k in keep and isinstance(v, (float, np.floating)) else v

    return [{k: cell(k, v) for k, v in r.items()} for r in records]
