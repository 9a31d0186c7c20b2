"""The comparison's digits rule, kept under its old import path: the rule lives in
:mod:`veracity.core._digits` (the segments, below the comparison in the layers, print by it too); see there
for the formula."""

from __future__ import annotations

from ..core._digits import (FEWEST, LEVEL_SIGNIFICANT, MOST, SIGNIFICANT, Cell, decimals, holds_zero,
                             level_text, noise_decimals, threshold_decimals)

__all__ = ["FEWEST", "LEVEL_SIGNIFICANT", "MOST", "SIGNIFICANT", "Cell", "decimals", "holds_zero",
           "level_text", "noise_decimals", "threshold_decimals"]
