"""Frames first: one audit on every backend — pandas, polars, pyarrow, DuckDB, Dask, Spark.

``vc.audit(frame, score="p", label="y", by="segment", sample_weight="w")`` and the
same ``score=``/``label=`` form on :func:`vc.reliability`, the metrics,
:func:`vc.threshold_table` and :func:`vc.monitor`. A frame is a pandas, polars
(eager or lazy) or pyarrow table, a DuckDB relation, a Dask or Spark DataFrame,
an Ibis table, or a path / glob of CSV or Parquet files (read lazily, and
safely, through DuckDB: see :mod:`veracity.frames._duckdb`).

In-memory frames take the array code on their columns; lazy frames are never
collected — per-bin statistics, the input contract's counts and the exact AUC
are aggregates computed where the data lives (:mod:`veracity.frames._aggregates`,
one implementation in narwhals expressions for every backend).
"""

from ._dispatch import frame_form
from ._duckdb import configure as configure_duckdb
from ._source import is_frame

__all__ = ["configure_duckdb", "frame_form", "is_frame"]
