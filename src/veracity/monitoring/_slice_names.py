"""The store's slice names and their order, the same as :func:`veracity.audit`'s for the same column.

A slice value is stored as text (a ``VARCHAR`` column per ``by=`` column). Arrow's own cast to text
named the same keys differently from ``vc.audit(frame, by=...)``: ``true`` for ``True``, ``9`` for
the float ``9.0``, ``2026-01-01 00:00:00.000000000`` for a time. :func:`slice_texts` names each
distinct value as vc.audit names it, :func:`veracity.core._keys.key_name` of the Python object a
frame hands back: an int ``9``, a float ``9.0``, a bool ``True``, a ``datetime`` ``2026-01-01
10:00:00``, a zoned one (``10:00:00+01:00``) as its UTC instant ``2026-01-01 09:00:00+00:00``, a
``date`` ``2026-01-01``, bytes as ``b'ab'``, a float32 key as the float32 it is (``0.1``). (Stores written
before that rule hold a zoned key in its column's zone, bytes as their UTF-8 text and a float32 key as its
double's digits, ``0.10000000149011612``; those rows keep the names they were stored with.)
One exception: a float that is a whole number is named as
the integer (``9``, where vc.audit says ``9.0``), because a store gathers batches: pandas turns an
integer column with one missing value into floats, and the key 9 of that batch must stay the slice
``9`` of the batches before it (not a second slice ``9.0``). :func:`slice_order` orders the stored names as
:func:`veracity.core._keys.key_order` orders the keys (``9`` before ``10``; text when the keys do not
compare), then the pooled ``(other)`` and the missing keys' ``(missing)`` last; :func:`name_order`
orders ``vc.monitor``'s period keys the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._keys import key_name, key_rank

#: the status's names for the rows without a slice value and for the slices beyond ``max_slices``
MISSING = "(missing)"
OTHER = "(other)"


def slice_texts(col: Any, name: str = "by", source: str = "the input") -> Any:
    """An Arrow slice column as text, each value named as vc.audit names it (nulls stay null); one
    conversion per distinct value, not per row. Lists and records per row are refused in one line."""
    import pyarrow as pa

    from ..core._validation import VeracityError

    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if pa.types.is_nested(col.type):
        raise VeracityError(f"slice column {name!r} in {source} holds {col.type} values (a list or record per "
                            "row); a slice key must be one plain value per row (text, a number, a boolean or a "
                            "time): pass one key per row", param="by")
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return col.cast(pa.string())
    if pa.types.is_floating(col.type):  # NaN is the missing key (core._keys.is_missing): stored as null,
        import pyarrow.compute as pc    # the status's (missing), not refused as that reserved name

        col = pc.if_else(pc.is_nan(col), pa.scalar(None, col.type), col)
    if pa.types.is_timestamp(col.type) and col.type.tz is not None:  # a zoned time: its UTC instant (key_name)
        col = col.cast(pa.timestamp(col.type.unit, tz="UTC"))
    encoded = col.dictionary_encode()
    values = encoded.dictionary.to_pylist()
    if pa.types.is_floating(col.type):  # a whole number as the integer (see the module's note)
        if col.type.bit_width < 64:  # the float32 (float16) each value is, as vc.audit names it ('0.1'), not
            width = np.float32 if col.type.bit_width == 32 else np.float16  # the double's 0.10000000149011612
            values = [None if v is None else width(v) for v in values]
        values = [int(v) if v == v and abs(float(v)) < 2.0**53 and v == int(v) else v for v in values]
    names = pa.array([key_name(v) for v in values], type=pa.string())
    return names.take(encoded.indices)


def _key(name: str) -> Any:
    """The key a stored name spells, for ordering: an integer or a float when the name is exactly its
    text (``9``, ``2.5``, ``nan``; ``007`` stays text), else the text."""
    for kind in (int, float):
        try:
            value = kind(name)
        except ValueError:
            continue
        if str(value) == name:
            return value
    return name


def name_order(names: list[str]) -> list[str]:
    """The distinct ``names`` in the order of the keys they spell (:func:`veracity.core._keys.key_order`):
    the period keys ``9, 10, 11`` of ``vc.monitor(..., periods=[...])`` in that order, not ``10, 11, 9``.

    >>> name_order(["10", "8", "9"])
    ['8', '9', '10']
    """
    names = list(dict.fromkeys(names))
    return [names[i] for i in key_rank([_key(n) for n in names])]


def slice_order(names: list[str]) -> list[str]:
    """The distinct slice ``names`` in vc.audit's order of their keys, ``(other)`` and ``(missing)`` last.

    >>> slice_order(["10", "(missing)", "9", "nan", "2.5"])
    ['2.5', '9', '10', 'nan', '(missing)']
    """
    names = list(dict.fromkeys(names))
    return name_order([n for n in names if n not in (OTHER, MISSING)]) + [n for n in (OTHER, MISSING) if n in names]
