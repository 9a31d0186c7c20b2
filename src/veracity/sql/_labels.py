"""The label column of a table audited in its database: its values, and the value ``pos_label`` names.

Messages show a value briefly (:func:`brief`): a PostgreSQL NUMERIC label of 1e400 comes back as a
``Decimal`` of 401 digits, a text label may hold thousands of characters.
"""

from __future__ import annotations

import decimal
import math
from typing import Any

import numpy as np

from ..core._validation import (MissingLabels, VeracityError, check_pos_label, nul_hint, pos_label_not_among,
                                 text_labels_error)
from ..sources._aggregates import missing_labels_message
from ..sources._labels import brief  # one rule for a long value in a message, on every route
from . import _query as q
from ._connect import Database

#: most distinct label values shown in a message
SHOWN = 5
def shown(values: list[Any]) -> str:
    return ", ".join(brief(v) for v in values)


def label_values(db: Database, table: Any, label: str) -> tuple[int, int, list[Any]]:
    """``(missing, distinct)`` counts of the label column, and its first :data:`SHOWN` distinct values."""
    counts_sql, values_sql = q.label_values_sql(table, label, db.dialect, SHOWN)
    missing, distinct = db.query(counts_sql, what="counting the label values")[0]
    values = [row[0] for row in db.query(values_sql, what="reading the label values")]
    return int(missing or 0), int(distinct or 0), values


def row_count(db: Database, table: Any) -> int:
    """The table's number of rows (the "of N rows" of a refusal of missing labels)."""
    from sqlglot import exp

    sql = q.write(exp.select(exp.Count(this=exp.Star())).from_(q.table_node(table)), db.dialect)
    (n,), = db.query(sql, what="counting the rows")
    return int(n or 0)


def missing_labels(db: Database, table: Any, label: str, missing: int) -> MissingLabels:
    """The refusal of ``missing`` missing labels in every route's words
    (:func:`..sources._aggregates.missing_labels_message`)."""
    return MissingLabels(missing_labels_message(label, missing, row_count(db, table)))


def text_labels(db: Database, table: Any, label: str) -> VeracityError:
    """The refusal of a label column of text without ``pos_label=``, as every route words it: its missing
    labels first (they are refused with ``pos_label=`` too), else the column's first few values and the
    fix (:func:`veracity.core._validation.text_labels_error`)."""
    missing, distinct, values = label_values(db, table, label)
    if missing:
        return missing_labels(db, table, label, missing)
    return text_labels_error(values, distinct, name=label, shown=shown)


def declared_boolean(db: Database, table: Any, label: str) -> bool:
    """Whether ``label`` is a SQLite column declared BOOLEAN (SQLite stores its values as the integers 0
    and 1, where DuckDB and PostgreSQL hand back False / True): its labels are then named as booleans are,
    ``pos_label="true"`` naming the stored 1. False on every other engine, whose drivers give booleans."""
    if db.dialect != "sqlite":
        return False
    try:
        found = db.query(q.sqlite_declared_type_sql(table, label),
                         what="reading the label column's declared type")
    except VeracityError:  # no pragma_table_info (SQLite before 3.16): the values read as stored, as before
        return False
    declared = str(found[0][0] or "") if found else ""
    return declared.split("(")[0].strip().upper() in q.SQLITE_BOOLEAN_TYPES


def _as_booleans(values: list[Any]) -> list[Any] | None:
    """The stored 0/1 values of a column declared BOOLEAN as the booleans they stand for, or None where
    some value is not the integer 0 or 1 (a BOOLEAN column of SQLite holds any value it is given)."""
    if not all(type(v) is int and v in (0, 1) for v in values):
        return None
    return [bool(v) for v in values]


def _is_nan(value: Any) -> bool:
    return (isinstance(value, float) and math.isnan(value)) or (isinstance(value, decimal.Decimal) and value.is_nan())


def positive_value(db: Database, table: Any, label: str, pos_label: Any, *,
                   decimal_text: bool = False, boolean: bool = False, float32: bool = False) -> Any:
    """The label column's value that ``pos_label`` names, after the array form's checks. ``decimal_text``:
    the column is a NUMERIC whose values the driver hands back as text (ADBC's PostgreSQL driver), read as
    the ``Decimal`` values they spell (psycopg's). ``boolean``: the column is declared BOOLEAN and stores
    its values as 0 / 1 (SQLite, :func:`declared_boolean`): they are named and shown as False / True, as
    DuckDB's and PostgreSQL's BOOLEAN columns are, and the stored value named is returned. ``float32``: the
    column holds single-precision floats that the driver hands back rounded to their shortest text (psycopg
    reads PostgreSQL's REAL 0.1f as the double 0.1): read as the doubles they are (0.10000000149011612, as
    DuckDB hands them and a float32 array holds them), so ``pos_label`` names them by the array form's rule
    and the SQL compares the value the column holds."""
    from ..sources._labels import _matching

    pos_label = check_pos_label(pos_label)  # one value (a list or an array: the array form's one line)
    if isinstance(pos_label, float) and pos_label != pos_label:
        raise VeracityError("pos_label must be a label value, not NaN")
    missing, distinct, found = label_values(db, table, label)
    if decimal_text:
        found = [decimal.Decimal(v.strip()) if isinstance(v, str) else v for v in found]
    if float32:
        found = [float(np.float32(v)) if isinstance(v, float) else v for v in found]
    values = [v for v in found if not _is_nan(v)]
    if len(values) < len(found):  # NaN labels (DuckDB, PostgreSQL; a NUMERIC's too): missing, as in the array form
        (nans,), = db.query(q.nan_count_sql(table, label, db.dialect), what="counting the NaN labels")
        missing, distinct = missing + max(int(nans or 0), 1), distinct - 1
    if not missing and not distinct:
        raise VeracityError("the table has no rows; pass at least one row")
    if missing:
        raise missing_labels(db, table, label, missing)
    if distinct > 2:
        raise VeracityError(
            f"column {label!r} (labels): pos_label= needs a binary label set, but the labels take {distinct} "
            f"values ({shown(values)}{', ...' if distinct > len(values) else ''}); "
            "pass (N, K) scores for a multiclass problem")
    stored = values
    booleans = _as_booleans(values) if boolean else None
    if booleans is not None:  # pos_label="true" names the stored 1, as it names TRUE on DuckDB
        values = booleans
    # text by every route's rule: '1.0' names Decimal('1'), '1_0' none; a float32 column's 0.1 as the frame
    # routes name it (narrow)
    match = _matching(values, pos_label, narrow=np.float32 if float32 else None)
    if match is None:  # every route's words (on a true/false column: how to name each), values shown briefly
        where = f"the values of column {label!r} (labels)"
        raise pos_label_not_among(pos_label, values, where=where, shown=shown,
                                  hint=nul_hint(pos_label, values))
    return stored[values.index(match)] if booleans is not None else match
