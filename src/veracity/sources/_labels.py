"""``pos_label=`` on a frame: two-valued labels (strings, booleans, numbers) as 0/1, where the data lives.

``vc.audit(frame, score="p", label="y", pos_label="yes")`` reads the label
column's distinct values in one small aggregate (at most five come back) and
checks them as the array form does: no missing labels, at most two values, and
``pos_label`` among them. The labels then become the expression
``[label == pos_label]`` (1.0 or 0.0) that every aggregate reads in place of the
column. A text ``pos_label`` on a numeric or boolean column is read in the
column's type (``"1"``, ``"true"``), as the command line's ``--pos-label`` passes it, by the array
form's one rule (:func:`veracity.core._validation.text_names_label`): on a boolean column only
``true``/``false`` and ``1``/``0`` (any case) name True/False (``"yes"`` is refused, never read as
True); on a number column a decimal numeral names the label of exactly its value (``"1.0"`` the
integer 1; ``"9007199254740993"`` never the integer 2**53, as a float reading made it).

An in-memory Arrow table (a file read with ``--engine memory``) is read with ``pyarrow.compute`` and
numpy instead (:func:`positive_array`): narwhals' aggregates, literals and comparisons with a value
build a ``pa.array`` or ``pa.scalar`` there, which imports pandas (no dependency of veracity).
"""

from __future__ import annotations

import decimal
import math
from typing import Any

import numpy as np

from ..core._validation import (MissingLabels, VeracityError, check_pos_label, nul_hint, plain,
                                 pos_label_not_among, refuse_text_on_inexact_floats, text_names_label)
from ._aggregates import _flag, collect, missing_labels_message

#: most distinct label values shown in a message
SHOWN = 5

#: a value whose repr is longer is shortened in a message (see :func:`brief`)
_LONGEST = 40
#: significant digits of a shortened number
_DIGITS = 16


def brief(value: Any) -> str:
    """``repr(value)``, shortened for a one-line message when longer than :data:`_LONGEST` characters.

    A long number (a ``Decimal`` or an ``int``) is written without its trailing zeros
    (``Decimal('1E+400')``), and where that is still long, as its first :data:`_DIGITS`
    significant digits, an ellipsis and its exponent (``Decimal('1.234567890123456...e+399')``);
    any other long repr as its first 30 characters, an ellipsis and its length (the SQL route's
    messages use it too)."""
    shown = repr(value)
    if len(shown) <= _LONGEST:
        return shown
    if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool) and decimal.Decimal(value).is_finite():
        sign, digits, exponent = decimal.Decimal(value).as_tuple()
        kept = "".join(map(str, digits)).rstrip("0") or "0"  # the zeros dropped exactly (normalize() rounds
        number = decimal.Decimal(f"{'-' if sign else ''}{kept}e{int(exponent) + len(digits) - len(kept)}")
        text = str(number)  # to the context's 28 digits)
        if len(text) > _LONGEST - 11:
            text = f"{'-' if sign else ''}{kept[0]}.{kept[1:_DIGITS]}...e{number.adjusted():+d}"
        return f"Decimal({text!r})" if isinstance(value, decimal.Decimal) else text
    return f"{shown[:_LONGEST - 10]}... ({len(shown)} characters)"


def _shown(values: list[Any]) -> str:
    return ", ".join(brief(v) for v in values)


def _matching(values: list[Any], pos_label: Any, *, narrow: Any = None) -> Any:
    """The column value ``pos_label`` names (in the column's own type), or None: a value of its type
    equal to it, else (not text) a value equal to it (numbers of another width, True == 1 ...), else (text,
    as ``--pos-label`` passes it) the value the text names, read in the column's type by the array
    form's one rule (:func:`veracity.core._validation.text_names_label`: ``"true"`` a true/false
    label, ``"1"`` or ``"1.0"`` the number 1, exactly). A numpy scalar is compared as the Python number it
    holds, exactly (:func:`veracity.core._validation.plain`), as the array form compares it:
    ``np.float32(0.1)`` (0.10000000149011612) is not the float64 label 0.1 (numpy's ``==`` rounded the
    label to float32 and named 0.1 where the labels were 0.1 and 0.10000000149011612).

    ``narrow``: the numpy type of a column of float32 (or float16) numbers (``values`` are their exact
    float64 values), else None. There, as the array form compares such labels with a Python float (numpy
    rounds the float to the labels' width), a Python float names the label equal to its nearest number of
    that width (:func:`_narrow_named`)."""
    wanted = plain(pos_label)
    for v in values:
        if type(v) is type(wanted) and v == wanted:
            return v
    for v in values:  # numbers of another width, True == 1 ...
        if not isinstance(wanted, str) and not isinstance(v, str) and v == wanted:
            return v
    if narrow is not None:
        rounded = _narrow_named(pos_label, narrow)
        match = next((v for v in values if rounded is not None and v == rounded), None)
        if match is not None:
            return match
    if isinstance(pos_label, str):  # text from the command line, read in the column's type (never on
        refuse_text_on_inexact_floats(pos_label, values)  # doubles of 2**53 or more, which may be merged labels)
        return next((v for v in values if text_names_label(pos_label, v)), None)
    return None


def _narrow_named(pos_label: Any, narrow: Any) -> float | None:
    """The label of numpy float type ``narrow`` (float32, float16) that a Python float ``pos_label`` names:
    its nearest number of that type (``0.1`` names ``np.float32(0.1)``, exactly 0.10000000149011612, as
    ``np.float32 array == 0.1`` compares), or None.

    Only a finite float within the type's range whose nearest number there is not a whole number: a whole
    number label is never named by rounding (``16777217.0`` is not the float32 label ``16777216``;
    ``1e-50`` not ``0.0``), nor an infinite one (``1e39`` is not ``inf``), nor does a numpy float64 (it is
    compared exactly, as the array form compares it)."""
    if (type(pos_label) is not float or not math.isfinite(pos_label)
            or abs(pos_label) > float(np.finfo(narrow).max)):
        return None
    rounded = float(narrow(pos_label))
    return None if rounded.is_integer() else rounded


def not_among(pos_label: Any, name: str, values: list[Any]) -> VeracityError:
    """The one-line error for a ``pos_label`` that names none of the label column's ``values``, in every
    route's words (:func:`veracity.core._validation.pos_label_not_among`), with the array form's advice where
    it differs from a value only by NUL characters at the end (:func:`veracity.core._validation.nul_hint`)."""
    return pos_label_not_among(pos_label, values, where=f"the values of column {name!r} (labels)",
                               shown=_shown, hint=nul_hint(pos_label, values))


def label_values(frame: Any, label: str, rows: Any = None) -> tuple[int, int, int, list[Any]]:
    """``(rows, missing, distinct, the first few sorted distinct values)`` of a label column (of the
    rows ``rows`` keeps: an expression; None: every row).

    ``distinct`` and the values are meaningful only without missing labels.
    """
    import narwhals as nw

    column = _arrow_column(frame, label) if rows is None else None
    if column is not None:
        return _arrow_label_values(column)
    x = frame if rows is None else frame.filter(rows)
    col = nw.col(label)
    dtype = x.collect_schema()[label]
    is_missing = col.is_null()
    if dtype.is_float():
        is_missing = is_missing | col.is_nan().fill_null(True)
    bounds = _by_bounds(dtype, x.implementation)
    ends = [col.min().alias("lo"), col.max().alias("hi")] if bounds else []
    row = collect(x.select(nw.len().alias("rows"), _flag(is_missing).sum().alias("missing"),
                           col.n_unique().alias("distinct"), *ends)).rows(named=True)[0]
    missing, distinct = int(row["missing"] or 0), int(row["distinct"] or 0)
    values: list[Any] = []
    if distinct and not missing:  # (with missing values the caller refuses; no values needed)
        values = _two_values(row, distinct) if bounds else []
        if not values:
            values = _first_values(x.select(col).drop_nulls().unique(), label, distinct)
    return int(row["rows"] or 0), missing, distinct, values


def _by_bounds(dtype: Any, implementation: Any) -> bool:
    """Whether a label column of narwhals type ``dtype`` (numbers, booleans; text outside pandas and Dask)
    lists its one or two distinct values as its smallest and largest (see :func:`_two_values`).
    Categories, enums, decimals, times and nested types take the query of their distinct values
    (:func:`_first_values`); so does text on pandas and Dask, whose object columns hold text beside a
    missing float NaN, where a min is a TypeError."""
    import narwhals as nw

    if dtype.is_integer() or dtype.is_float() or dtype == nw.Boolean:
        return True
    return bool(dtype == nw.String and not (implementation.is_pandas_like() or implementation.is_dask()))


def _two_values(row: dict[str, Any], distinct: int) -> list[Any]:
    """The sorted distinct values of a label column of at most two (no missing one), from its min (``lo``)
    and max (``hi``), read in the counts' own query: a binary column's two values are its min and its max,
    so a ``pos_label=`` check is one aggregate, not two (on Spark and Dask a query is a job). What
    :func:`_first_values` lists for such a column (:func:`veracity.core._keys.key_order` of the same
    values); ``[]`` (that query instead) for more values, or where the bounds do not tell two values
    apart (an engine counting ``-0.0`` and ``0.0`` as two)."""
    from ..core._keys import key_order

    lo, hi = row["lo"], row["hi"]
    if distinct == 1 and lo == hi:
        return [lo]
    if distinct == 2 and lo != hi:
        return key_order([lo, hi])[:SHOWN]
    return []


def _first_values(unique: Any, label: str, distinct: int) -> list[Any]:
    """The first :data:`SHOWN` of a label column's distinct values (``unique``: a one-column frame of them),
    sorted by value (:func:`veracity.core._keys.key_order`) as every route lists them.

    The backend sorts only where there are more than :data:`SHOWN`; there it sorts by the column's own
    order, which for an ordered category (a pandas ``ordered=True`` category, a polars Enum) is its
    categories' order, not the values': ``['yes', 'no']`` listed ``'yes', 'no'`` and suggested
    ``pos_label='no'`` where every other route lists ``'no', 'yes'``. Two values or a handful are sorted
    here. A column the backend cannot sort (pandas' ``ArrowDtype`` dictionary: pyarrow has no sort of it,
    which raised ``ArrowNotImplementedError``) is sorted here too, its distinct values collected.
    """
    from ..core._keys import key_order

    if distinct > SHOWN:
        try:
            return key_order(collect(unique.sort(label).head(SHOWN)).get_column(label).to_list())
        except Exception:  # noqa: BLE001 - a type the backend cannot sort: collected and sorted here
            pass
    return key_order(collect(unique).get_column(label).to_list())[:SHOWN]


def _arrow_column(frame: Any, label: str) -> Any:
    """The column ``label`` of an in-memory Arrow table (``frame``: a narwhals frame) when it holds
    text, numbers or booleans (the types :mod:`._arrow_numpy` reads), else None."""
    import sys

    pa = sys.modules.get("pyarrow")
    native = frame.to_native()
    if pa is None or not isinstance(native, pa.Table):
        return None
    column = native.column(label)
    kind = column.type
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
            or pa.types.is_floating(kind) or pa.types.is_boolean(kind)):
        return column
    return None


def _arrow_label_values(column: Any) -> tuple[int, int, int, list[Any]]:
    """:func:`label_values` of an Arrow column: nulls (and NaN) counted, distinct values (a null one
    of them, as polars counts) and the first :data:`SHOWN` sorted ones, in ``pyarrow.compute``.

    Numbers are counted as they compare: ``-0.0`` is ``0.0`` (``x + 0.0``), as numpy, polars and DuckDB
    count them (pyarrow counted both: labels 0.0, -0.0 and 1.0 were refused as "3 values" on an Arrow
    table only); float16 as the float32 holding the same number (pyarrow has no sort of float16: "no
    kernel matching input types (halffloat)")."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_float16(column.type):
        column = column.cast(pa.float32())
    missing = column.null_count
    if pa.types.is_floating(column.type):
        missing += int(pc.sum(pc.is_nan(column)).as_py() or 0)
        column = pc.add(column, pa.scalar(0.0, column.type))  # -0.0 + 0.0 is 0.0
    distinct = int(pc.count_distinct(column, mode="all").as_py() or 0)
    values: list[Any] = []
    if distinct and not missing:
        unique = pc.unique(column).drop_null()
        values = unique.take(pc.array_sort_indices(unique)).slice(0, SHOWN).to_pylist()
    return len(column), missing, distinct, values


def positive_value(frame: Any, label: str, pos_label: Any, *, shown: str | None = None,
                   rows: Any = None) -> Any:
    """The label column's value that ``pos_label`` names (in the column's own type), after the array
    form's checks.

    ``shown`` is the user's column name (``label`` may be an internal name);
    ``rows`` (an expression) restricts the check to rows whose label counts
    (the monitor's mature rows).
    """
    name = shown or label
    pos_label = check_pos_label(pos_label)  # one value (a list or an array: the array form's one line)
    if isinstance(pos_label, float) and pos_label != pos_label:
        raise VeracityError("pos_label must be a label value, not NaN")
    n, missing, distinct, values = label_values(frame, label, rows)
    if missing:
        raise MissingLabels(missing_labels_message(name, missing, n))
    if distinct > 2:
        raise VeracityError(
            f"column {name!r} (labels): pos_label= needs a binary label set, but the labels take {distinct} "
            f"values ({_shown(values)}{', ...' if distinct > len(values) else ''}); "
            "pass (N, K) scores for a multiclass problem"
        )
    dtype = frame.collect_schema()[label]
    if dtype.is_integer():  # DuckDB hands a HUGEINT's values back as Decimals, and a Decimal of 39
        # digits is a DOUBLE literal there: 2**127 - 1 equalled 2**127 - 2 (every row positive, base rate 1,
        # silently)
        values = [int(v) if isinstance(v, decimal.Decimal) else v for v in values]
    match = _matching(values, pos_label, narrow=_narrow_float(dtype))
    if match is None:
        raise not_among(pos_label, name, values)
    return match


def _narrow_float(dtype: Any) -> Any:
    """``np.float32`` (``np.float16``) where the label column's ``dtype`` (narwhals) is float32 (float16),
    else None (see :func:`_matching`)."""
    import narwhals as nw

    return np.float32 if dtype == nw.Float32 else np.float16 if dtype == nw.Float16 else None


def is_positive(label: str, match: Any) -> Any:
    """The 0/1 label expression ``[label == match]`` (1.0 or 0.0; a missing label 0.0).

    A ``Decimal`` is compared by ``is_in``, never as a literal: Dask turns the literal's one-value object
    series into text (its ``convert-string`` default), so ``DECIMAL 0.10 == '0.10'`` matched no row and a
    Parquet file of DECIMAL labels read with ``--engine dask --pos-label 0.1`` audited base rate 0, every
    row a negative, silently (narwhals cannot type a Dask literal as a decimal)."""
    import narwhals as nw

    column = nw.col(label)
    same = column.is_in([match]) if isinstance(match, decimal.Decimal) else column == nw.lit(match)
    return nw.when(same).then(nw.lit(1.0)).otherwise(nw.lit(0.0))


def positive_expr(frame: Any, label: str, pos_label: Any, *, shown: str | None = None,
                  rows: Any = None) -> Any:
    """The 0/1 label expression ``[label == pos_label]``, after the array form's checks
    (:func:`positive_value`)."""
    return is_positive(label, positive_value(frame, label, pos_label, shown=shown, rows=rows))


def positive_array(frame: Any, label: str, match: Any) -> np.ndarray | None:
    """``[label == match]`` as float64 numpy (what :func:`is_positive` gives) for an in-memory Arrow
    table read here (see :func:`_arrow_column`), without importing pandas; None for any other frame."""
    from ._arrow_numpy import to_numpy

    column = _arrow_column(frame, label)
    if column is None:
        return None
    return np.asarray(to_numpy(column) == match, dtype=np.float64)
