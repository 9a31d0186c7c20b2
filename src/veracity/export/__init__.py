r"""Where the scores live: a fitted calibrator as one SQL expression or as an ONNX model.

``calibrator.to_sql(column="score", dialect="duckdb")`` returns the text of one SQL
expression (multiclass: one aliased expression per class) that applies the fitted map
inside a database; ``calibrator.to_onnx()`` returns the bytes of an ONNX model for a
serving runtime. Both agree with ``calibrator.transform`` to rounding (tested to 1e-12 on
DuckDB, SQLite, Spark, PostgreSQL and onnxruntime), isotonic steps and histogram bins
exactly. The same from the command line: ``veracity export cal.json --sql duckdb``.

**Where this package sits.** ``export`` works from the calibrator's JSON artifact
(``to_dict()``: kind, params, fitted state, metadata), the same document ``vc.load`` and
``veracity export CAL.json`` read, so it needs nothing of the calibrator classes: it
imports only the core (errors, constants). It is therefore a layer *below* the
calibrators, and ``Calibrator.to_sql`` / ``Calibrator.to_onnx`` in
:mod:`veracity.calibrators._base` are thin methods that import it on use — a
downward import, so the rule "no module imports from a layer above it" holds without
a registry or monkey-patching. The artifact is the contract between the two: a new
calibrator kind becomes exportable by one branch in :mod:`._plan` reading its state.
sqlglot and onnx are imported inside the functions that need them (extras ``sql`` and
``onnx``).

Shapes:

* binary: SQL ``CASE WHEN "score" IS NULL OR <a score transform() refuses> THEN NULL ELSE
  CAST(… AS DOUBLE) END`` (ONNX: NaN for such a score);
  ONNX input ``score`` double ``[N]``, output ``probability`` double ``[N]``;
* multiclass (temperature on K > 2 classes, or on two columns when fit on (N, 2) scores or given
  two column names; vector and matrix scaling, one-vs-rest):
  SQL ``expr_0 AS "probability_0", …, expr_{K−1} AS "probability_{K−1}"`` — a select
  list over the columns ``column`` names (K names, or ``column_0 … column_{K−1}``);
  ONNX input ``score`` double ``[N, K]``, output ``probability`` double ``[N, K]``.

* a segment calibrator (``kind="segment"``, SQL only): the binary shape, reading its feature columns
  beside the score (``features={name: column}``; default: each feature's own name).

``prior_shift=(old, new)`` appends :func:`veracity.adjust_prior` to the map (or is the
whole map when the calibrator is ``None``).
"""

from __future__ import annotations

from typing import Any

from ._plan import EXPORTABLE, plan
from ._sql import DIALECTS

__all__ = ["DIALECTS", "EXPORTABLE", "to_onnx", "to_sql"]


def to_sql(calibrator: Any, column: Any = "score", *, dialect: str = "duckdb", prior_shift: Any = None,
           n_classes: int | None = None, alias: str = "probability", features: Any = None) -> str:
    """SQL text applying a fitted calibrator (or its artifact dict) to ``column``.

    ``dialect``: one of :data:`DIALECTS`. Identifiers are quoted; the text starts with a
    comment giving the artifact's provenance. Multiclass outputs are named
    ``{alias}_0 … {alias}_{K-1}``. ``n_classes`` sizes a bare prior shift
    (``calibrator=None``) for multiclass columns.

    The text reads the column as ``CAST(column AS DOUBLE)``, whatever its type (it cannot see it). A BOOLEAN
    score column, which ``transform()`` reads as 1/0, is read so on DuckDB, SQLite, Spark, Trino and
    Snowflake; PostgreSQL and BigQuery refuse that cast (``cannot cast type boolean to double precision``):
    select the column cast to an integer there, ``… FROM (SELECT CAST(flag AS INTEGER) AS score FROM t)``.

    A ``"segment"`` calibrator (:class:`veracity.SegmentCalibration`) reads its feature columns beside the
    score: ``features={"region": "region_col"}`` names the column of a feature (default: the column of the
    feature's own name). Its text is SQL only (no ONNX form).
    """
    return sql_and_columns(calibrator, column, dialect=dialect, prior_shift=prior_shift, n_classes=n_classes,
                           alias=alias, features=features)[0]


def sql_and_columns(calibrator: Any, column: Any = "score", *, dialect: str = "duckdb",
                    prior_shift: Any = None, n_classes: int | None = None,
                    alias: str = "probability", features: Any = None) -> tuple[str, list[str]]:
    """:func:`to_sql`'s text and the input column names it reads: ``[column]`` (binary), or the K names
    (a prefix expands to ``column_0 … column_{K−1}``) — what ``veracity export --json`` reports."""
    from ._sql import check_columns
    from ._sql import to_sql as _to_sql

    width = len(column) if isinstance(column, (list, tuple)) else None  # K names: K input columns
    p = plan(calibrator, prior_shift=prior_shift, n_classes=n_classes, width=width)
    text = _to_sql(p, column, dialect=dialect, alias=alias, features=features)
    return text, check_columns(column, p.n_inputs)


def to_onnx(calibrator: Any, *, prior_shift: Any = None, n_classes: int | None = None) -> bytes:
    """Bytes of an ONNX model (double input ``score``, double output ``probability``)."""
    from ._onnx import to_onnx as _to_onnx

    return _to_onnx(plan(calibrator, prior_shift=prior_shift, n_classes=n_classes))
