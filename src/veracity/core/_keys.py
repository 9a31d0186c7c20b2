"""The one order of slice keys on every route (memory, frames, files, SQL, model comparison).

Engine-free, so the core orders ``by=`` slices exactly as the engines do: keys sorted by value
(``9`` before ``10``), as text only when they do not compare (``1`` beside ``'a'``), the NaN key
after the values (where ``np.unique`` puts it) and the missing key (None) last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the one key of a NaN slice: each NaN an engine hands back is a new float, unequal to every other,
#: so the rows of a NaN key would split into one slice per bin (``sources._aggregates.slice_key``)
NAN_KEY = float("nan")


def _is_nan(key: Any) -> bool:
    return key is NAN_KEY or (isinstance(key, (float, np.floating)) and key != key)


def key_rank(keys: list[Any]) -> list[int]:
    """Positions of ``keys`` in slice order (see :func:`key_order`); ties keep their given order."""
    present = [i for i, k in enumerate(keys) if k is not None and not _is_nan(k)]
    try:
        present.sort(key=lambda i: keys[i])
    except TypeError:  # values that do not compare (1 beside 'a'): as text
        present.sort(key=lambda i: str(keys[i]))
    return (present + [i for i, k in enumerate(keys) if k is not None and _is_nan(k)]
            + [i for i, k in enumerate(keys) if k is None])


def key_order(keys: list[Any]) -> list[Any]:
    """Slice keys sorted (by value, or as text when they do not compare), the NaN key after the
    values (where ``np.unique`` puts it) and the missing key last: the one order of slices on every
    backend (frames, SQL, model comparison, arrays in memory).

    >>> key_order([10, None, 9, float("nan"), 2])
    [2, 9, 10, nan, None]
    >>> key_order(["b", 1, "a"])
    [1, 'a', 'b']
    """
    return [keys[i] for i in key_rank(keys)]
