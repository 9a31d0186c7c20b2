"""The earlier engine entry points, deprecated aliases of the frame form.

``vc.audit_duckdb(path, score=..., label=..., weight=...)`` and
``vc.audit_dask(ddf, ...)`` are ``vc.audit(frame, score=..., label=...,
sample_weight=...)`` on a DuckDB relation and a Dask DataFrame; they warn once and
call it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core._validation import VeracityError


def _deprecated(old: str, new: str) -> None:
    import warnings

    warnings.warn(f"vc.{old} is deprecated; use {new} (the same numbers)", DeprecationWarning, stacklevel=3)


def _options(bins: int, score_type: str, interval: str, level: float, min_count: int,
             threshold: float) -> dict[str, Any]:
    return dict(bins=bins, score_type=score_type, interval=interval, level=level, min_count=min_count,
                threshold=threshold)


def audit_duckdb(source: str | Path, *, score: str = "score", label: str = "label", weight: str | None = None,
                 by: str | None = None, bins: int = 15, score_type: str = "probability",
                 interval: str = "wilson", level: float = 0.95, min_count: int = 20, threshold: float = 0.5,
                 connection: Any = None) -> Any:
    """``vc.audit`` of a CSV/Parquet file or glob inside DuckDB (= ``vc.audit(path, score=..., ...)``).

    With ``connection`` the file is opened on that (user-configured) DuckDB connection.
    """
    from ..core._audit import audit
    from ._duckdb import read

    _deprecated("audit_duckdb", "vc.audit(path_or_relation, score=..., label=..., sample_weight=...)")
    data: Any = source
    if connection is not None:  # read as the file route reads it: Parquet durations as durations (not
        data = read(source, connection)  # counts), a CSV's "NA", "null", "nan" … as missing (not text)
    return audit(data, score=score, label=label, sample_weight=weight, by=by,
                 **_options(bins, score_type, interval, level, min_count, threshold))


def audit_dask(ddf: Any, *, score: str = "score", label: str = "label", weight: str | None = None,
               by: str | None = None, bins: int = 15, score_type: str = "probability", interval: str = "wilson",
               level: float = 0.95, min_count: int = 20, threshold: float = 0.5, n_ranges: int | None = None) -> Any:
    """``vc.audit`` of a Dask DataFrame (= ``vc.audit(ddf, score=..., ...)``); ``n_ranges`` is ignored."""
    from ..core._audit import audit

    _deprecated("audit_dask", "vc.audit(ddf, score=..., label=..., sample_weight=...)")
    if type(ddf).__module__.split(".")[0] != "dask" or isinstance(ddf, (str, os.PathLike)):
        raise VeracityError(f"audit_dask needs a dask DataFrame, got {type(ddf).__name__}; "
                            "for pandas/numpy data use vc.audit")
    return audit(ddf, score=score, label=label, sample_weight=weight, by=by,
                 **_options(bins, score_type, interval, level, min_count, threshold))


# PEP 702's marker (what ``warnings.deprecated`` sets): deprecated aliases keep their old signatures so
# that the code calling them keeps running; the vocabulary check skips them (tests/display/test_vocabulary)
audit_duckdb.__deprecated__ = "vc.audit(path_or_relation, score=..., label=..., sample_weight=...)"  # type: ignore[attr-defined]
audit_dask.__deprecated__ = "vc.audit(ddf, score=..., label=..., sample_weight=...)"  # type: ignore[attr-defined]
