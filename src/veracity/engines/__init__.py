"""Deprecated import path: the engines are :mod:`veracity.sources`, the one seam for where rows live.

``vc.audit_duckdb`` and ``vc.audit_dask`` are deprecated aliases of the frame form
``vc.audit(frame, score=..., label=...)`` (they warn); :func:`scan_file` and
:class:`ScanResult` (the streaming scan ``veracity monitor FILE`` uses) live in
:mod:`veracity.sources._scan`. This module only re-exports them for old imports.
"""

from ..sources._engines import audit_dask, audit_duckdb
from ..sources._scan import ScanResult, scan_file

__all__ = ["ScanResult", "audit_dask", "audit_duckdb", "scan_file"]
