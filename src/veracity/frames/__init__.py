"""Frames: fitting calibrators on frames and applying them to files.

The frame form of every function (``vc.audit(frame, score="p", label="y", ...)`` and
the same ``score=``/``label=`` on the metrics, :func:`vc.reliability`,
:func:`vc.threshold_table` and :func:`vc.monitor`) is part of each function's own
signature; the rows of a frame are read through :mod:`veracity.sources`, the one seam
for where the rows live. What stays here: :mod:`._fit` (calibrators fit on lazy
frames) and :mod:`._apply` (a calibrator applied to a file, batch by batch).
"""

from ..sources import configure_duckdb, is_frame

__all__ = ["configure_duckdb", "is_frame"]
