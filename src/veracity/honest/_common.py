"""Small helpers shared by the honest estimators."""

from __future__ import annotations

from typing import Any

from ..core._metrics import check_threshold  # noqa: F401 (re-exported: the one check of threshold=)
from ..core._validation import (  # noqa: F401 (re-exported: defined in the core)
    Binary, VeracityError, check_count, check_min_count, is_real,
)
from ..core._validation import check_random_state as check_seed  # noqa: F401 (re-exported)


def check_level(level: Any) -> float:
    if not (is_real(level) and 0.0 < level < 1.0):
        raise VeracityError(f"level must be a probability strictly between 0 and 1, got {level!r}", param="level")
    return float(level)


def weighted_rows(data: Binary) -> Binary:
    """``data`` without its rows of weight 0: a row of weight 0 is a dropped row, so it never
    moves a row-based choice (Hosmer–Lemeshow groups, bootstrap resamples, redraws) or a count."""
    if data.w is None or data.w.all():
        return data
    from ..core._stats import subset

    return subset(data, data.w > 0)
