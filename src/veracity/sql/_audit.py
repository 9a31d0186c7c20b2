"""``audit_sql``: the audit of a table computed inside the database that holds it.

The per-bin statistics, accuracy, the input contract's counts and the exact AUC are
aggregates written in SQL (:mod:`._query`) and run where the rows are; only
O(bins × slices) rows come back, and the same
:func:`~veracity.core._audit.audit_from_stats` as every other backend turns them into
the result, so the numbers are the array form's.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import replace
from typing import Any

import numpy as np

from ..core._audit import AuditResult, audit_from_stats
from ..core._binning import (AutoBins, auto_bins, check_bins, check_strategy, cut_edges, edges_at, rule_positions,
                             uniform_edges)
from ..core._metrics import check_threshold
from ..core._keys import key_name
from ..core._stats import MAX_GROUPS, BinStats, check_max_groups, other_key, refuse_shared_names
from ..core._validation import LOGIT_CHECK_MIN_ROWS, VeracityError, check_logit_range, check_score_type
from ..sources._aggregates import slice_key as _slice_key
from ..sources._api import key_order, shown_arg, stats_from_sums
from . import _query as q
from ._connect import Database, open_database
from ._labels import brief, declared_boolean, positive_value, text_labels


def audit_sql(
    connection_or_url: Any,
    *,
    table: Any,
    score: str,
    label: str,
    by: str | None = None,
    sample_weight: str | None = None,
    bins: int | str = 15,
    strategy: str = "uniform",
    pos_label: Any = None,
    score_type: str = "probability",
    interval: str = "wilson",
    level: float = 0.95,
    sided: str = "two-sided",
    min_count: int = 20,
    threshold: float = 0.5,
    max_groups: int | None = MAX_GROUPS,
    dialect: str | None = None,
) -> AuditResult:
    r"""``vc.audit`` of a table in a SQL database, computed where the table is.

    ``connection_or_url`` is an open DB-API 2.0 connection (``sqlite3``, ``psycopg``,
    ``duckdb`` …), an ADBC connection, a SQLAlchemy engine or connection, or a URL
    (``sqlite:///scores.db``, ``duckdb:///scores.duckdb``, ``postgresql://user@host/db``;
    other schemes through SQLAlchemy when installed). ``table`` names the table (a string,
    or a tuple ``(schema, table)``); ``score``, ``label``, ``by`` and ``sample_weight``
    name its columns. The options mean what they mean on :func:`vc.audit`.

    The database computes the per-bin sums of :class:`~veracity.BinStats`, accuracy at
    ``threshold``, the input contract's counts (the same one-line errors as arrays) and the
    exact Mann–Whitney AUC (ties ½: weights per distinct score, then a running sum in score
    order); only O(bins × slices) rows travel. SQL is generated with sqlglot for the
    connection's dialect (``dialect=`` overrides the guess); every name is quoted, every
    value escaped, and a URL's password never appears in a message. Connections passed in
    are left open; one opened from a URL is closed.

    >>> import sqlite3
    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    >>> _ = con.executemany("INSERT INTO t VALUES (?, ?)", [(.76, 1), (.82, 0), (.81, 1), (.91, 1), (.70, 0)])
    >>> r = audit_sql(con, table="t", score="p", label="y", min_count=1)
    >>> round(r.brier, 5), r.auc   # seed 004's worked case
    (0.25284, 0.6666666666666666)
    """
    score_type = check_score_type(score_type)
    check_strategy(strategy)
    if not isinstance(score, str):
        raise VeracityError(
            "audit_sql audits one binary score column: score= must be a column name, got "
            f"{shown_arg(score, hint=_NAMES_NOT_VALUES)}")
    threshold = check_threshold(threshold)  # as the array form: a string is refused, not read as a number
    cap = check_max_groups(max_groups)
    if isinstance(bins, str):
        if bins != "auto":
            raise VeracityError(f"bins must be a positive integer or 'auto', got {bins!r}")
    else:
        check_bins(bins)
    for role, name in (("label", label), ("by", by), ("sample_weight", sample_weight)):
        if (name is not None or role == "label") and not isinstance(name, str):
            raise VeracityError(f"{role}= names a column of the table (a string), got "
                                f"{shown_arg(name, hint=_NAMES_NOT_VALUES)}")
    for role, name in (("label", label), ("sample_weight", sample_weight)):
        if name == score:  # the answers read as scores: a perfect model (Brier 0, AUC 1), silently
            raise VeracityError(f"score= names the {role} column {name!r}; name the column of the model's scores")
    if sample_weight is not None and sample_weight == label:  # every negative weighed 0: base rate 1, silently
        raise VeracityError(f"sample_weight= names the label column {label!r}, which would weigh every negative "
                            "row 0; name the column of the rows' weights (or pass none)", param="sample_weight")
    db = open_database(connection_or_url, dialect=dialect)
    try:
        cols = _columns(db, table, score, label, sample_weight, by, pos_label)
        return _audit(db, cols, bins=bins, strategy=strategy, score_type=score_type, threshold=threshold,
                      cap=cap, table_options={"ci": interval, "level": level, "sided": sided,
                                              "min_count": min_count})
    finally:
        db.close()


def _folded(db: Database, table: Any) -> Any:
    """``table`` spelt in lower (then upper) case where the database holds that table and not the name as
    given (an unquoted name folded when it was created), else None."""
    parts = [table] if isinstance(table, str) else list(table)
    for fold in (str.lower, str.upper):
        spelt = [fold(part) for part in parts]
        if spelt == parts:
            continue
        candidate = spelt[0] if isinstance(table, str) else tuple(spelt)
        try:
            db.run(q.columns_sql(candidate, db.dialect), what="reading the table's columns")
        except VeracityError:
            continue
        return candidate
    return None


#: what a wrong column argument holding many values is told (see :func:`~veracity.sources._api.shown_arg`)
_NAMES_NOT_VALUES = "; the table form names columns of the table (pass arrays to vc.audit without table=)"


# -- the table's columns ---------------------------------------------------------------------------
def _columns(db: Database, table: Any, score: str, label: str, weight: str | None, by: str | None,
             pos_label: Any) -> q.Columns:
    """Check the names against the table, and find how to read the label."""
    q.table_node(table)
    if db.dialect == "sqlite" and isinstance(table, (list, tuple)) and len(table) == 3:
        raise VeracityError(f"table={table!r}: SQLite names a table by two parts, (database, table) (\"main\", "
                            "\"temp\" or an attached database's name); pass table=(database, table)")
    try:
        _, present = db.run(q.columns_sql(table, db.dialect), what="reading the table's columns")
    except VeracityError as exc:
        if isinstance(table, str) and "(" in table:  # read_parquet('x.parquet'), (SELECT ...)
            raise VeracityError(f"{exc}; table= names a table or view of the database, not a query or a table "
                                "function: create a view of it, or pass the file or frame to vc.audit") from None
        parts = table.split(".") if isinstance(table, str) else []
        if len(parts) > (2 if db.dialect == "sqlite" else 3) or not all(parts):
            parts = list(table.rpartition(".")[::2]) if isinstance(table, str) and "." in table.strip(".") else []
        if len(parts) > 1:  # "schema.t" is one quoted name
            named = " in ".join(f"{role} {part!r}" for role, part in zip(("table", "schema", "catalog"),
                                                                          reversed(parts)))
            raise VeracityError(f"{exc}; table={table!r} names one table whose name holds a dot: for {named} "
                                f"pass table={tuple(parts)!r}") from None
        folded = _folded(db, table)
        if folded is not None:  # CREATE TABLE Scores made "scores" (PostgreSQL folds unquoted names)
            raise VeracityError(f"{exc}; names are matched exactly, and the database holds {folded!r}, which "
                                f"differs only by case: pass table={folded!r}") from None
        raise
    wanted = {"score": score, "label": label, "sample_weight": weight, "by": by}
    for role, name in wanted.items():
        if name is None:
            continue
        q.ident(name, role)
        if name not in present:  # names are matched exactly: never a column that differs only by case
            shown = ", ".join(brief(c) for c in present[:20]) + (", ..." if len(present) > 20 else "")
            cased = [c for c in present if c.lower() == name.lower()]
            renamed = [c for c in present if c.lower().startswith(name.lower() + "_") and c[len(name) + 1:].isdigit()]
            hint = (f"; names are matched exactly, and {', '.join(brief(c) for c in cased)} differs only by case"
                    + (f" (DuckDB renames the second of two columns that differ only by case: here "
                       f"{', '.join(brief(c) for c in renamed)})" if renamed else "")
                    if cased else "")
            cut = name.encode("utf-8")[:63].decode("utf-8", "ignore")
            if db.dialect == "postgres" and cut != name and cut in present:
                # CREATE TABLE cut the longer name to this one (with a NOTICE): brief() shows both alike
                hint += (f"; PostgreSQL keeps only the first 63 bytes of a name ({len(name.encode('utf-8'))} "
                         f"here): the table's column is the name cut to them, {role}={cut!r}")
            raise VeracityError(f"{role}={brief(name)}: the table has no such column (columns: {shown}){hint}")
    names = [score, label] + ([weight] if weight else []) + ([by] if by else [])
    values = db.query(q.probe_sql(table, names, db.dialect), what="reading the columns' types")
    first = dict(zip(names, values[0])) if values else {}
    decimal_text = _numbers_sent_as_text(db, table, first)
    first.update(decimal_text)
    for role, name in (("scores", score), ("sample_weight", weight)):
        if name is not None and isinstance(first.get(name), (str, bytes)):
            raise VeracityError(
                f"column {name!r} ({role}) must hold numbers, found text such as {str(first[name])[:40]!r}; "
                "convert it to numbers")
        if name is not None and first.get(name) is not None and not _numeric(first[name]):
            # a DATE, INTERVAL, array … column: its cast to double fails in the database (and on DuckDB,
            # which has no savepoints, that failure aborts the caller's open transaction)
            raise VeracityError(f"column {name!r} ({role}) must hold numbers, found {_kind(first[name])}; "
                                "name a column of numbers")
    if by is not None and first.get(by) is not None and not _hashable(first[by]):
        raise VeracityError(f"by={by!r} holds {_kind(first[by])}, which cannot name a slice; slice by a "
                            "column of numbers, text, dates or booleans")
    # BOOLEAN scores or weights read as 1.0 / 0.0, as the arrays and every frame read them
    booleans = {name for name in (score, weight) if name is not None and isinstance(first.get(name), (bool, np.bool_))}
    # a NaN key is the missing key (NULL), one slice on every route: a DOUBLE by= column's NaN is read as
    # NULL (and a NUMERIC's, where it can hold NaN: PostgreSQL and its kin)
    sample = first.get(by) if by is not None else None
    by_nan = isinstance(sample, float) or (isinstance(sample, decimal.Decimal) and q.numeric_nan(db.dialect))
    cols = q.Columns(table=table, score=score, label=label, weight=weight, by=by, score_bool=score in booleans,
                     weight_bool=weight in booleans, by_text=_finer_than_python(db, table, by), by_nan=by_nan,
                     by_decimal_text=by in decimal_text, by_float32=_float32(db, table, by, sample))
    if pos_label is not None:
        # a REAL/FLOAT label: psycopg hands float4 0.1f back as the double 0.1, which the column's values
        # (compared as doubles there) never equal: every row read as negative, silently; pos_label=0.1 names
        # the float32 0.1 as the frame routes do (DuckDB too)
        float32 = db.dialect in ("postgres", "duckdb") and _float32(db, table, label, first.get(label),
                                                                   role="label")
        return replace(cols, label_kind="pos", pos_value=positive_value(
            db, table, label, pos_label, decimal_text=label in decimal_text,
            boolean=declared_boolean(db, table, label), float32=float32))
    sample = first.get(label)
    if isinstance(sample, (bool, np.bool_)):
        return replace(cols, label_kind="bool")
    if isinstance(sample, (str, bytes)):
        raise text_labels(db, table, label)
    if sample is not None and not _numeric(sample):
        fix = (f"pass pos_label= naming the positive class (e.g. pos_label={sample!r})" if _hashable(sample)
               else "name a column of 0/1 labels")
        raise VeracityError(f"column {label!r} (labels) holds {_kind(sample)}, not 0/1 numbers; {fix}")
    return cols


def _numbers_sent_as_text(db: Database, table: Any, first: dict[str, Any]) -> dict[str, decimal.Decimal]:
    """The probed values that are text only because the driver hands a NUMERIC back as text (ADBC's
    PostgreSQL driver: ``'0.8050'``, ``'nan'``; psycopg hands the same value as a ``Decimal``), as the
    ``Decimal`` they are: the SQL casts the column as a number either way, so the column must not be
    refused (or its labels read) as text."""
    texts = [name for name, value in first.items() if isinstance(value, str)]
    if db.dialect != "postgres" or not texts:
        return {}
    found = db.query(q.pg_types_sql(table, texts, db.dialect), what="reading the columns' types")
    out: dict[str, decimal.Decimal] = {}
    for name, kind in zip(texts, found[0] if found else ()):
        if str(kind) in q.PG_NUMBER_TYPES:
            try:
                out[name] = decimal.Decimal(first[name].strip())
            except decimal.InvalidOperation:
                continue
    return out


def _float32(db: Database, table: Any, by: str | None, sample: Any, role: str = "by=") -> bool:
    """Whether the ``by=`` (or ``role``) column holds single-precision floats
    (:attr:`q.Columns.by_float32`)."""
    if by is None or not isinstance(sample, float) or db.dialect not in ("duckdb", "postgres"):
        return False
    sql = (q.type_sql(table, by, db.dialect) if db.dialect == "duckdb"
           else q.pg_types_sql(table, [by], db.dialect))
    found = db.query(sql, what=f"reading the {role} column's type")
    return bool(found) and str(found[0][0]) in q.FLOAT32_TYPES


def _finer_than_python(db: Database, table: Any, by: str | None) -> bool:
    """Whether the ``by=`` column holds times finer than Python's microseconds (DuckDB's TIMESTAMP_NS)."""
    if by is None or db.dialect != "duckdb":
        return False
    found = db.query(q.type_sql(table, by, db.dialect), what="reading the by= column's type")
    return bool(found) and str(found[0][0]).upper() in q.SUB_MICROSECOND


def _numeric(value: Any) -> bool:
    """Whether a value read from a column is a number (the cast to double is then defined)."""
    import decimal

    return isinstance(value, (int, float, decimal.Decimal, np.number, np.bool_))


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _kind(value: Any) -> str:
    """``datetime.date values such as datetime.date(2024, 1, 1)``: what a column holds, for a message."""
    return f"{type(value).__name__} values such as {' '.join(repr(value).split())[:60]}"


# -- the contract and the sums ---------------------------------------------------------------------
def _screen(db: Database, cols: q.Columns, score_type: str) -> tuple[int | None, dict[str, Any]]:
    """``(rows, weights)`` when every row meets the contract, else ``(None, {})``; ``weights`` holds
    the largest weight and the smallest positive one (``w_max``, ``w_pos_min``: what
    :func:`_weight_scale` reads)."""
    rows, names = db.run(q.screen_sql(cols, db.dialect, score_type=score_type),
                         what="checking the rows (the input contract)")
    rec = dict(zip(names, rows[0]))
    n, bad, text = int(rec["_c_n"] or 0), int(rec["_c_bad"] or 0), int(rec["_c_text"] or 0)
    weights = _weight_extremes([rec])
    w_max = weights["w_max"]
    fine = n > 0 and bad == 0 and text == 0 and (cols.weight is None or (w_max is not None and w_max > 0))
    return (n, weights) if fine else (None, {})


def _weight_extremes(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"w_max", "w_pos_min"}``: the largest ``_c_w_max`` and the smallest ``_c_w_pos_min`` of the
    records (None where no record holds one)."""
    maxima = [float(r["_c_w_max"]) for r in recs if r["_c_w_max"] is not None]
    minima = [float(r["_c_w_pos_min"]) for r in recs if r["_c_w_pos_min"] is not None]
    return {"w_max": max(maxima) if maxima else None, "w_pos_min": min(minima) if minima else None}


def _contract(db: Database, cols: q.Columns, score_type: str) -> dict[str, Any]:
    """The contract's counts over every row (one aggregate)."""
    rows, names = db.run(q.contract_sql(cols, db.dialect, score_type=score_type),
                         what="checking the rows (the input contract)")
    rec = dict(zip(names, rows[0]))
    out: dict[str, Any] = {}
    for col in q.CONTRACT:
        name, value = col[3:], rec.get(col)
        if name.endswith(("_min", "_max", "_sum")):
            out[name] = None if value is None else float(value)
        else:
            out[name] = int(value or 0)
    return out


#: the AUC's parts returned beside the sums, per bin
_AUC_PARTS = ("_num", "_pos", "_neg")


#: the key of the slice that pools every key beyond the cap, applied in the database (q.Columns.pool)
_OTHER = object()
#: a sliced audit fetches up to this many times the cap's (slice, bin) rows and pools in Python (a few
#: values over the cap: one statement); beyond, the cap is applied in the database (:func:`_capped_sums`)
_OVER_CAP = 4


def _sums(db: Database, cols: q.Columns, *, score_type: str, threshold: float, bins: int, n: int,
          edges: np.ndarray, strategy: str, grouped: bool, screen: bool = False, rows: bool = False,
          cap: int | None = None) -> tuple[dict[Any, dict[str, Any]] | None, dict[str, Any]]:
    """Per slice: the per-bin sums and the AUC's parts per bin; with ``screen``, also the contract's
    screen over every row (``n``, ``bad``, ``text``, ``w_max``, ``w_pos_min``) — the sums are then
    ``None`` unless every row meets the contract. ``rows``: the route of :func:`_rows_route`.

    ``cap`` (a sliced audit's slice cap, not yet applied in the database): at most
    :data:`_OVER_CAP` × cap × bins (slice, bin) rows may come back; one more means more slices than
    the cap, and ``(None, {"truncated": True})`` is returned for :func:`_capped_sums` to cap them in
    the database."""
    capped = grouped and cap is not None and cols.pool is None
    limit = _OVER_CAP * (cap or 0) * (edges.size - 1) + 1 if capped else None
    sql = q.stats_sql(cols, db.dialect, score_type=score_type, threshold=threshold, bins=bins, n=n,
                      edges=edges, strategy=strategy, grouped=grouped, screen=screen, rows=rows, limit=limit)
    found, names = db.run(sql, sorts=True)
    if limit is not None and len(found) >= limit:
        return None, {"truncated": True}
    recs = [dict(zip(names, row)) for row in found]
    seen: dict[str, Any] = {"n": sum(int(r["count"] or 0) for r in recs)}
    if screen:
        seen["bad"] = sum(int(r["_c_bad"] or 0) for r in recs)
        seen["text"] = sum(int(r["_c_text"] or 0) for r in recs)
        seen.update(_weight_extremes(recs))
        if seen["n"] == 0 or seen["bad"] or seen["text"] or (cols.weight is not None and not (seen["w_max"] or 0) > 0):
            return None, seen
    m = edges.size - 1
    exact = cols.weight is None  # integer-valued: kept as Python ints (exact AUC for any N)
    per_slice: dict[Any, dict[str, Any]] = {}
    # a kept key as the count per key read it: SQLite hands back the REAL 5.0 of a CASE (no column affinity)
    # as the integer 5
    kept = {k: k for k in cols.pool[0]} if cols.pool is not None else {}
    filled: dict[tuple[Any, int], Any] = {}  # (key, bin) -> the key as the database handed it back
    for rec in recs:
        # NaN: the missing key
        raw = (_OTHER if rec.get("_o") else _key(rec["_g"], cols)) if grouped else None
        key = kept.get(raw, raw) if grouped else None
        acc = per_slice.setdefault(key, {**{k: np.zeros(m) for k in q.SUMS}, "_parts": []})
        b = int(rec["_b"])
        if (key, b) in filled:  # two keys of the database, one in Python
            # both named, in a fixed order: the rows come back in no particular order
            both = " and ".join(sorted({brief(filled[key, b]), brief(raw)}))
            raise VeracityError(
                f"by={cols.by!r}: two values of the column come back as one Python value ({both}), so "
                "their slices cannot be told apart; slice by the column cast to text (a view)")
        filled[key, b] = raw
        for name in q.SUMS:
            acc[name][b] = float(rec[name] or 0.0)
        cast = int if exact else float
        acc["_parts"].append((b, *(cast(rec[k] or 0) for k in _AUC_PARTS)))
    return per_slice, seen


def _key(raw: Any, cols: q.Columns) -> Any:
    """A slice key as the database handed it back: a NUMERIC NaN or ±Infinity (a ``Decimal``, whose NaN
    refuses ``<``, and which a query cannot write) as the double it equals; any NaN one slice. A NUMERIC
    key the driver hands back as text (:attr:`q.Columns.by_decimal_text`) is the ``Decimal`` it spells, a
    single-precision one (:attr:`q.Columns.by_float32`) the float32 it is."""
    if cols.by_decimal_text and isinstance(raw, str):
        raw = decimal.Decimal(raw.strip())
    if cols.by_float32 and isinstance(raw, float):
        raw = np.float32(raw)
    if isinstance(raw, decimal.Decimal) and not raw.is_finite():
        raw = float(raw)
    return _slice_key(raw)


def _capped_sums(db: Database, cols: q.Columns, cap: int | None, **options: Any
                 ) -> tuple[q.Columns, int, tuple[dict[Any, dict[str, Any]] | None, dict[str, Any]]]:
    """:func:`_sums`, with the slice cap applied in the database when the slices outnumber it:
    ``(columns, keys pooled, (sums, seen))``. The kept keys are the array form's (the largest cap − 1 by
    rows, ties in key order), found from one count per key; the other keys' rows are summed as one
    slice there, so O(cap × bins) rows of sums come back however many values ``by=`` takes."""
    found = _sums(db, cols, cap=cap, **options)
    if not found[1].get("truncated"):
        return cols, 0, found
    assert cap is not None
    counts: dict[Any, int] = {}
    for raw, rows in db.query(q.slice_counts_sql(cols, db.dialect), what="counting the rows of each slice"):
        key = _key(raw, cols)
        counts[key] = counts.get(key, 0) + int(rows)
    order = _key_order(list(counts))
    by_size = sorted(range(len(order)), key=lambda i: -counts[order[i]])  # stable: ties in key order
    keep = [order[i] for i in by_size[: cap - 1]]
    cols = replace(cols, pool=(tuple(k for k in keep if k is not None), any(k is None for k in keep)))
    return cols, len(order) - len(keep), _sums(db, cols, cap=cap, **options)


def _refuse(db: Database, cols: q.Columns, score_type: str) -> dict[str, Any]:
    """Count how the rows break the contract and raise its one-line error (return the counts if none do)."""
    counts = _contract(db, cols, score_type)
    _check(_label_pair(db, cols, counts), cols, score_type)
    return counts


def _label_pair(db: Database, cols: q.Columns, counts: dict[str, Any]) -> dict[str, Any]:
    """``counts`` with ``y_pair``, the two label values ``(lo, hi)``, where labels that are not 0/1 are
    refused and the column holds exactly two values, none missing: the refusal then says which to map to
    1 or to pass as ``pos_label`` ("Map 1 to 0 and 2 to 1, or pass pos_label=2."), as the array form and
    every frame say (:func:`..sources._aggregates.exact_labels`); it said only "map the two classes to 0
    and 1 and drop unlabelled rows". Asked on the refusal's path only (two small queries)."""
    y_min = counts.get("y_min")
    if not int(counts.get("y_bad") or 0) or y_min is None or math.isnan(float(y_min)):
        return counts
    if cols.label_kind != "numeric":
        return counts
    from ._labels import label_values

    missing, distinct, values = label_values(db, cols.table, cols.label)
    numbers = [int(v) if isinstance(v, decimal.Decimal) and v.is_finite() and v == v.to_integral_value()
               else v for v in values]
    if missing or distinct != 2 or len(numbers) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and math.isfinite(v)
            and not (abs(v) >= 2.0 ** 53 and v % 1 == 0) for v in numbers):
        return counts  # (a whole float beyond 2**53 may name no stored label: no hint, as on arrays)
    return {**counts, "y_pair": tuple(sorted(numbers))}


def _rows_route(db: Database, cols: q.Columns) -> bool:
    """Whether the AUC's window runs over the rows rather than one aggregate per distinct score:
    on row-at-a-time engines, when most of the first rows' scores are distinct (:func:`q.route_sql`)."""
    if q.window_by_bin(db.dialect):
        return False
    (n, distinct), = db.query(q.route_sql(cols, db.dialect), what="sampling the scores")
    return bool(n) and int(distinct) >= q.ROWS_SHARE * int(n)


def _combine(parts: list[tuple[int, Any, Any, Any]], db: Database, rows: bool) -> tuple[Any, Any, Any]:
    return q.combine_bins(parts, by_bin=q.window_by_bin(db.dialect), rows=rows)


def _auc_of(num: Any, pos: Any, neg: Any) -> float | None:
    """The array path's expression, so unweighted AUCs are bit-identical."""
    return float(num / (2.0 * pos * neg)) if pos > 0 and neg > 0 else None


def _check(counts: dict[str, Any], cols: q.Columns, score_type: str) -> int:
    """The contract's one-line errors (the frame form's, naming the columns)."""
    from ..sources._aggregates import check_contract

    if not counts["n"]:
        raise VeracityError("the table has no rows; pass at least one row")
    for role, key, name in (("scores", "t_score", cols.score), ("labels", "t_label", cols.label),
                            ("sample_weight", "t_weight", cols.weight)):
        if counts.get(key):
            raise VeracityError(
                f"column {name!r} ({role}) holds text in {counts[key]} of {counts['n']} rows; it must hold "
                "numbers: convert or drop those rows")
    return check_contract(counts, score=cols.score, label=cols.label, weight=cols.weight, score_type=score_type)


_stats = stats_from_sums  # one constructor of BinStats from an aggregate's sums (veracity.sources)
_key_order = key_order


# -- equal-mass edges --------------------------------------------------------------------------------
def _edges(db: Database, cols: q.Columns, *, bins: int, strategy: str, score_type: str, n: int) -> np.ndarray:
    """The edges :mod:`veracity.core._binning` finds on the rows, from a few sorted positions."""
    if strategy == "uniform":
        return uniform_edges(bins)
    if strategy == "quantile" and cols.weight is not None:
        cuts: list[Any] = []
        for first in range(1, max(bins, 2), q.CUTS_PER_STATEMENT):  # a statement returns ~1,000 columns at most
            last = min(first + q.CUTS_PER_STATEMENT - 1, bins - 1)
            row = db.query(q.weighted_cuts_sql(cols, db.dialect, score_type=score_type, bins=bins, first=first,
                                               last=last), what="finding the equal-mass edges", sorts=True)[0]
            lo, hi = float(row[0]), float(row[1])
            cuts += row[2:]
        picks = np.array([hi if v is None else float(v) for v in cuts], dtype=np.float64)
        return cut_edges(picks, lo)
    positions = rule_positions(n, bins, strategy)
    rows = db.query(q.positions_sql(cols, db.dialect, score_type=score_type, positions=[int(i) for i in positions]),
                    what="finding the equal-mass edges", sorts=True)
    found = {int(i): float(p) for i, p in rows}
    return edges_at(lambda pos: np.array([found[int(i)] for i in pos], dtype=np.float64), n, bins, strategy)


# -- the AUC of the whole table (sliced audits) and of a pooled slice ------------------------------
def _whole_auc(db: Database, cols: q.Columns, *, n: int, edges: np.ndarray, strategy: str, score_type: str,
               rows: bool, pool: tuple[list[Any], bool] | None = None) -> float | None:
    sql = q.auc_sql(cols, db.dialect, n=n, bins=edges.size - 1, edges=edges, strategy=strategy,
                    score_type=score_type, pool=pool, rows=rows)
    found, names = db.run(sql, what="the AUC query", sorts=True)
    cast = int if cols.weight is None else float
    parts: list[tuple[int, Any, Any, Any]] = [
        (int(rec["_b"]), cast(rec["_num"] or 0), cast(rec["_pos"] or 0), cast(rec["_neg"] or 0))
        for rec in (dict(zip(names, row)) for row in found)]
    return _auc_of(*_combine(parts, db, rows))


# -- the audit ---------------------------------------------------------------------------------------
def _audit(db: Database, cols: q.Columns, *, bins: Any, strategy: str, score_type: str, threshold: float,
           cap: int | None, table_options: dict[str, Any]) -> AuditResult:
    grouped = cols.by is not None
    rows = _rows_route(db, cols)
    pooled_in_db = 0  # keys pooled by the slice cap in the database (see _capped_sums)
    options: dict[str, Any] = dict(score_type=score_type, threshold=threshold, strategy=strategy, grouped=grouped,
                                   rows=rows)
    sums: dict[Any, dict[str, Any]] | None = None
    if strategy == "uniform" and not isinstance(bins, str):
        # the default audit: the contract's screen rides along with the statistics — one pass in all
        m = check_bins(bins)
        edges = uniform_edges(m)
        try:
            cols, pooled_in_db, (sums, seen) = _capped_sums(db, cols, cap, bins=m, n=0, edges=edges,
                                                            screen=True, **options)
        except VeracityError:  # rows that break the contract can make it fail (e.g. the bin of -inf)
            counts = _refuse(db, cols, score_type)
            if cols.weight is None or _weight_scale(counts) == 1.0:
                raise
            # weights whose squares overflow or underflow (PostgreSQL refuses both): summed rescaled below
            sums, seen = None, {"n": counts["n"], **_extremes_of(counts), "checked": True}
        n, weights = int(seen["n"]), _extremes_of(seen)
        if sums is None and not seen.get("checked"):  # some row breaks the contract: count how, for the error
            counts = _refuse(db, cols, score_type)  # (passes only if the table changed in between)
            n, weights = int(counts["n"]), _extremes_of(counts)
        elif sums is not None and n > q.EXACT_DOUBLE_ROWS and cols.weight is None:
            sums = None  # so many rows that doubles could round: count again in integers
    else:
        screened, weights = _screen(db, cols, score_type)
        if screened is None:
            counts = _refuse(db, cols, score_type)
            screened, weights = int(counts["n"]), _extremes_of(counts)
        n = screened
    scale = _weight_scale(weights) if cols.weight is not None else 1.0
    if scale != 1.0:
        cols = replace(cols, weight_scale=scale)
        sums = None  # the weights' sums again, rescaled
    auto = None
    if sums is None:
        if isinstance(bins, str):
            if bins != "auto":
                raise VeracityError(f"bins must be a positive integer or 'auto', got {bins!r}")
            if cols.weight is None:
                n_eff = float(n)
            else:  # (Σw)² / Σw² of the rescaled weights
                total, sq = db.query(q.weight_totals_sql(cols, db.dialect), what="summing the weights")[0]
                n_eff = float(total) ** 2 / float(sq)
            m = auto_bins(n_eff)
            auto = AutoBins(m, n_eff)
        else:
            m = check_bins(bins)
        edges = _edges(db, cols, bins=m, strategy=strategy, score_type=score_type, n=n)
        cols, pooled_now, (sums, _) = _capped_sums(db, cols, cap, bins=edges.size - 1, n=n, edges=edges,
                                                   **options)
        pooled_in_db = pooled_now or pooled_in_db
    if sums is None:  # pragma: no cover - only a table that changed between two statements
        raise VeracityError("the table changed while it was audited; audit it again")
    if score_type == "logit" and n >= LOGIT_CHECK_MIN_ROWS:
        _check_logit_scale(db, cols, edges, sums, n)

    other = sums.pop(_OTHER, None)
    order = _key_order(list(sums))
    if cols.pool is not None:  # the cap applied in the database: its pooled slice last, as below
        name = other_key(pooled_in_db)
        empty: dict[str, Any] = {**{k: np.zeros(edges.size - 1) for k in q.SUMS}, "_parts": []}
        sums[name] = other if other is not None else empty
        order.append(name)
    pooled: tuple[list[Any], bool] | None = None
    if grouped and cap is not None and len(order) > cap:
        sizes = {k: sums[k]["count"].sum() for k in order}
        by_size = sorted(range(len(order)), key=lambda i: -sizes[order[i]])  # stable: ties in key order
        keep = [order[i] for i in by_size[: cap - 1]]
        merged: dict[str, Any] = {name: 0.0 for name in q.SUMS}
        for k in order:
            if k not in keep:
                merged = {name: merged[name] + sums[k][name] for name in q.SUMS}
        kept = {k: sums[k] for k in _key_order(keep)}
        kept[other_key(len(order) - len(keep))] = {**merged, "_pooled": True}
        sums = kept
        order = list(sums)
        pooled = (keep, any(k is None for k in keep))

    def result(part: dict[str, Any], auc: float | None) -> AuditResult:
        s = _stats(part, edges, strategy)
        return audit_from_stats(s, auc=auc, accuracy=float(part["correct"].sum()) / s.total_weight,
                                score_type=score_type, n_classes=2, threshold=threshold,
                                weight_scale=cols.weight_scale, **table_options)  # totals in the user's units

    where: dict[str, Any] = dict(n=n, edges=edges, strategy=strategy, score_type=score_type, rows=rows)
    cols = replace(cols, pool=None)  # the AUC queries read the rows' own keys

    def slice_auc(k: Any) -> float | None:
        if sums[k].get("_pooled"):
            return _whole_auc(db, cols, pool=pooled, **where)
        return _auc_of(*_combine(sums[k]["_parts"], db, rows))

    if not grouped:
        out = result(sums[None], slice_auc(None))
    else:
        # a slice whose rows all weigh 0 holds no evidence: left out and named, as the in-memory audit does
        refuse_shared_names(order)
        groups = {key_name(k): result(sums[k], slice_auc(k)) for k in order if sums[k]["weight"].sum() > 0}
        weightless = {key_name(k): int(sums[k]["count"].sum()) for k in order
                      if not sums[k]["weight"].sum() > 0}
        total = {name: sum(sums[k][name] for k in order) for name in q.SUMS}
        out = replace(result(total, _whole_auc(db, cols, **where)), groups=groups, group_column=cols.by,
                      zero_weight_groups=weightless)
    if auto is not None:
        # the rule's M, and the bins left where equal-mass cuts on tied scores merged (as in memory)
        out = replace(out, extras={"auto_bins": replace(auto, used=out.table.bins), **out.extras})
    return out


#: a bin of σ(s) wholly below this holds a score below 0; one wholly above, a score above 1 (σ(1) = 0.731)
_LOGIT_BIN_LOW, _LOGIT_BIN_HIGH = 0.49, 0.75


def _check_logit_scale(db: Database, cols: q.Columns, edges: np.ndarray, sums: dict[Any, Any], n: int) -> None:
    """Declared logits that all lie in [0, 1] are refused as the array form refuses them (from
    :data:`LOGIT_CHECK_MIN_ROWS` rows with some score strictly inside (0, 1): they are probabilities).
    Any filled bin of σ(s) wholly outside [σ(0), σ(1)] already holds a score outside [0, 1]: only
    otherwise does one small aggregate read the scores' range."""
    counts = sum(np.asarray(part["count"], dtype=np.float64) for part in sums.values())
    filled = np.flatnonzero(counts > 0)
    if np.any((edges[filled + 1] < _LOGIT_BIN_LOW) | (edges[filled] > _LOGIT_BIN_HIGH)):
        return
    (lo, hi, inside), = db.query(q.logit_scale_sql(replace(cols, pool=None), db.dialect),
                                 what="reading the scores' range")
    if inside and lo is not None and hi is not None:
        check_logit_range(float(lo), float(hi), n)


def _extremes_of(counts: dict[str, Any]) -> dict[str, Any]:
    """The largest and the smallest positive weight of the contract's counts (or of a screen)."""
    return {"w_max": counts.get("w_max"), "w_pos_min": counts.get("w_pos_min")}


def _weight_scale(counts: dict[str, Any]) -> float:
    from ..sources._aggregates import weight_scale

    return weight_scale(counts)
