"""Engines: sources of per-bin statistics beyond in-memory arrays.

* :func:`scan_file` streams a CSV/Parquet file in record batches with pyarrow
  (the monitor's scan).
* :func:`audit_duckdb` and :func:`audit_dask` are kept as aliases of the frame
  form ``vc.audit(frame, score=..., label=...)`` (see :mod:`veracity.frames`),
  which runs the same implementation on every backend.
"""

from ..frames._engines import audit_dask, audit_duckdb
from ._arrow import ScanResult, scan_file

__all__ = ["ScanResult", "audit_dask", "audit_duckdb", "scan_file"]
