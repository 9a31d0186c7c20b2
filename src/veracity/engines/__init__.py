"""Engines: sources of per-bin statistics beyond in-memory arrays.

* :func:`scan_file` streams a CSV/Parquet file in record batches with pyarrow.
* :func:`audit_duckdb` runs the whole audit (exact AUC included) inside DuckDB,
  out of core; needs the optional extra ``veracity[duckdb]``.
* :func:`audit_dask` runs it on a Dask DataFrame — local or on a cluster; needs
  ``veracity[dask]``.

Each returns the same statistics (and the same :class:`~veracity.AuditResult`)
as the in-memory audit of the same rows.
"""

from ._arrow import ScanResult, scan_file
from ._dask import audit_dask
from ._duckdb import audit_duckdb

__all__ = ["ScanResult", "audit_dask", "audit_duckdb", "scan_file"]
