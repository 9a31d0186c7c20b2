"""Engines: sources of per-bin statistics beyond in-memory arrays.

* :func:`scan_file` streams a CSV/Parquet file in record batches with pyarrow.
* :func:`audit_duckdb` runs the whole audit (exact AUC included) inside DuckDB,
  out of core; needs the optional extra ``veracity[duckdb]``.
"""

from ._arrow import ScanResult, scan_file
from ._duckdb import audit_duckdb

__all__ = ["ScanResult", "audit_duckdb", "scan_file"]
