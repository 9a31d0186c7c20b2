"""Small helpers shared by the honest estimators."""

from __future__ import annotations

from typing import Any

import numpy as np

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


def contradicted_rows(data: Binary) -> int:
    """Rows (of positive weight: pass :func:`weighted_rows`) whose probability score is exactly 0 with
    label 1 or exactly 1 with label 0: each has probability 0 under calibration, so any test of
    calibration has exact p-value 0 on such data. Never for logit scores, binary or multiclass, nor for
    top-label confidences (whose input may have been logits): their probability is never exactly 0 or
    1, and a softmax rounded to 1.0 is not a claim of certainty."""
    if data.logit is not None or data.top_label:
        return 0
    return int(np.count_nonzero(np.abs(data.y - data.p) == 1.0))



def _row_keys(data: Binary) -> list[np.ndarray]:
    """The sort keys of :func:`canonical_rows`, primary first."""
    keys = [data.p] if data.logit is None else [data.logit, data.p]
    keys.append(data.y)
    if data.w is not None:
        keys.append(data.w)
    if data.nll_terms is not None:
        keys.append(data.nll_terms)  # top-label rows of equal confidence may differ in log-loss
    return keys


def _in_order(keys: list[np.ndarray]) -> bool:
    """Whether the rows are already sorted by ``keys`` (primary first): one vectorised pass."""
    ok = np.ones(max(keys[0].size - 1, 0), dtype=bool)
    for k in reversed(keys):  # fold from the least significant key up
        a, b = k[:-1], k[1:]
        ok = (a < b) | ((a == b) & ok)
    return bool(ok.all())


def canonical_order(keys: list[np.ndarray]) -> np.ndarray:
    """Row order sorting by ``keys`` lexicographically (primary first): a stable argsort by the
    primary key, then one ``np.lexsort`` of the rows that tie on it (none for distinct scores)."""
    order = np.argsort(keys[0], kind="stable")
    if len(keys) == 1:
        return order
    first = keys[0][order]
    tie = first[1:] == first[:-1]
    if not tie.any():
        return order
    member = np.zeros(order.size, dtype=bool)
    member[1:] |= tie
    member[:-1] |= tie
    at = np.flatnonzero(member)  # sorted positions of tied rows: whole tie groups, ascending
    rows = order[at]
    order[at] = rows[np.lexsort([k[rows] for k in reversed(keys)])]
    return order


def canonical_rows(data: Binary) -> Binary:
    """``data`` in an order that depends only on its multiset of rows, so that every seeded
    resample or redraw of it is the same, bit for bit, whatever order the rows came in (a
    shuffled copy, a file read back by another engine, an ``ORDER BY`` changed).

    Rows sorted lexicographically by the ranking score (the logit when there is one, else
    ``p``), ``p``, the label, the weight and the top-label log-loss: rows equal in all of
    these are equal in every field, so their relative order cannot change a number. Sorted by
    score, the rows' bins (monotone in the score) are contiguous and ascending, the layout
    the bootstrap and the noise floor read. Rows already in that order come back as they are
    (one vectorised check), so a second call costs no sort.
    """
    keys = _row_keys(data)
    if _in_order(keys):
        return data
    from ..core._stats import subset

    return subset(data, canonical_order(keys))
