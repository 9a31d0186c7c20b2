"""One column per role: a column named by two of a monitor's column options is refused in one line.

The store's ``log`` (id, time, score, slices), ``outcomes`` (id, label, time) and ``vc.monitor``'s frame
form (score, label, periods, mature, weight) each read a column per option. One column named by two of
them was read twice, in two ways: ``--id ts --time ts`` stored the time as the id, ``--time p`` read the
scores as epoch seconds (every row in January 1970), ``mature='y'`` kept only the positive rows as final
(a rate of 1.0 in every period), ``score='y', label='y'`` a perfect model; or it was refused in words about
the second reading (a text id "not ISO 8601 times").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core._validation import VeracityError


def refuse_shared_columns(named: Iterable[tuple[str, str, Any]]) -> None:
    """Refuse the first column named by two options. ``named``: ``(option, role, columns)`` — the option
    as the caller spells it (``"--time"``, ``"time="``), what it reads (``"prediction time"``) and its
    column name, a list of them, or None (not given). The same option naming a column twice, and a value
    that names no column, are left to the option's own check."""
    seen: dict[str, tuple[str, str]] = {}
    for option, role, columns in named:
        # a list of names (by=, score=[...]); anything else (an array passed for a name) is left to the
        # option's own check
        listed = isinstance(columns, (list, tuple))
        names = [columns] if isinstance(columns, str) else list(columns) if listed else []
        for col in names:
            if not isinstance(col, str) or not col:
                continue
            first = seen.get(col)
            if first is not None and first[0] != option:
                raise VeracityError(
                    f"{first[0]} and {option} name the same column {col!r} (named twice): one column cannot "
                    f"be both the {first[1]} and the {role}; name the column that holds each",
                    param=option.strip("-=").replace("-", "_") or None)
            seen.setdefault(col, (option, role))
