"""Where the rows live: the one seam below the metrics.

:func:`as_source` turns what a caller hands over — arrays, a pandas / polars / pyarrow
table, a DuckDB relation, a Dask or Spark DataFrame, an Ibis table, a CSV/Parquet path or
glob — into a source that answers what the layers above ask of rows: the input
contract's counts, per-bin statistics (:class:`~veracity.BinStats`) for given edges and
slices, the exact AUC per slice, weights at or above thresholds and per-distinct-value
sums; callers with their own grouping (the monitoring store) get grouped sums over any keys,
the score bin and the threshold flag among them (:mod:`._grouped`). In-memory data is an
:class:`ArraySource` (numpy); lazy frames are a :class:`FrameSource` (narwhals aggregates,
DuckDB / Spark / Dask for the order statistics), never collected whole.

Each computation below the metrics is written once and every engine calls it: the bin index
and the equal-width / equal-mass edges (:mod:`veracity.core._binning`), the 2U kernel per score
range (:mod:`veracity.core._rank`, run by DuckDB's spilled ranges (:mod:`._duckdb_auc`), Spark's
workers and Dask's tasks (:mod:`._range_auc`) and the other backends), the weights at or above
thresholds (:mod:`._thresholds`), the column lookup (:func:`._source.require_columns`) and the
contract's one-line errors (:func:`._aggregates.check_contract`).

The core's public functions take the frame form through this package
(``vc.audit(frame, score="p", label="y")``): it registers each with
:mod:`veracity.core._frameform` on import, since the core never imports it.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from ..core._frameform import register_frame_form
from ..core._validation import VeracityError
from ._duckdb import configure as configure_duckdb
from ._source import is_frame
from ._sources import ArraySource, FrameSource, Source, as_source

__all__ = ["ArraySource", "FrameSource", "Source", "as_source", "configure_duckdb", "is_frame", "read_errors"]


def _no_labels(name: str, data: Any, labels: Any, score: Any, label: Any) -> None:
    if labels is not None:
        raise VeracityError(f"vc.{name}(frame, score=..., label=...) takes no positional labels; "
                            "name the label column with label=", param="labels")
    if score is None or label is None:
        raise VeracityError(f"the frame form needs both column names: vc.{name}(frame, score='p', label='y')",
                            param="label" if score is not None else "score")


def read_errors(data: Any, compute: Any) -> Any:
    """A file's read error in one line, never its content; a check veracity wrote into the query of a
    DuckDB relation (a Parquet duration or time DuckDB cannot hold exactly) in its own line too; a
    Spark DataFrame whose session has stopped, before any work (Spark asserted with no message)."""
    _refuse_stopped_spark(data)
    try:
        return compute()
    except VeracityError:
        raise
    except Exception as exc:
        from ._duckdb import ERROR_MARK, describe_error, is_duckdb_error

        if isinstance(data, (str, os.PathLike)) and is_duckdb_error(exc):
            raise VeracityError(describe_error(exc, os.fspath(data))) from None
        if is_duckdb_error(exc) and ERROR_MARK in str(exc):  # a check veracity wrote into the query of
            raise VeracityError(describe_error(exc, "the relation")) from None  # a user's relation: its line
        if is_duckdb_error(exc) and type(exc).__name__ == "ResourceInUseException":
            # DuckDB 2.0: the user's connection still holds a result it has not finished reading
            raise VeracityError(
                "the DuckDB connection behind this relation has a result not yet read to the end (e.g. after "
                "con.execute(...).fetchone()); finish it with .fetchall(), or pass a relation of another "
                "cursor: con.cursor().table('t')") from None
        raise


def _refuse_stopped_spark(data: Any) -> None:
    """A Spark DataFrame whose session was stopped (``spark.stop()``, or its master went away) cannot be
    read: pyspark raised a bare ``AssertionError`` from its first column expression. Refused in one line."""
    if not (type(data).__module__ or "").startswith("pyspark."):
        return
    session = getattr(data, "sparkSession", None)
    context = getattr(session, "sparkContext", None)
    if context is not None and getattr(context, "_jsc", True) is None:
        raise VeracityError("the Spark session of this DataFrame has stopped (spark.stop(), or its master went "
                            "away); start a session and create the DataFrame again")


def _rows(name: str, fn: Any, data: Any, *, score: Any, label: Any, **options: Any) -> Any:
    from ._api import in_memory_frame

    return read_errors(data, lambda: in_memory_frame(name, fn, data, score=score, label=label, **options))


def _audit(data: Any, labels: Any, *, score: Any, label: Any, **options: Any) -> Any:
    from ._api import audit_frame

    _no_labels("audit", data, labels, score, label)
    return read_errors(data, lambda: audit_frame(data, score=score, label=label, **options))


def _reliability(data: Any, labels: Any, *, score: Any, label: Any, **options: Any) -> Any:
    from ._api import reliability_frame

    _no_labels("reliability", data, labels, score, label)
    return read_errors(data, lambda: reliability_frame(data, score=score, label=label, **options))


def _metric(name: str, data: Any, labels: Any, *, score: Any, label: Any, **options: Any) -> Any:
    from ..core import _metrics
    from ._api import metric_frame

    _no_labels(name, data, labels, score, label)
    fn = getattr(_metrics, name)
    return read_errors(data, lambda: metric_frame(name, fn, data, score=score, label=label, **options))


register_frame_form("audit", _audit)
register_frame_form("_rows", _rows)  # the in-memory frame form of the functions that need the rows
register_frame_form("reliability", _reliability)
for _name in ("ece", "mce", "brier", "brier_decomposition", "nll", "auc", "accuracy"):
    register_frame_form(_name, partial(_metric, _name))
