"""The frame form beside the array form, applied where the public names are exported.

``vc.audit(scores, labels, ...)`` is the array form; passing ``score=`` (and
``label=``) selects the frame form ``vc.audit(frame, score="p", label="y", ...)``.
The core functions stay array-only and frame-agnostic; this thin wrapper routes.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from ..core._validation import VeracityError

_METRICS = ("ece", "mce", "brier", "brier_decomposition", "nll", "auc", "accuracy")


def _frame_args(name: str, args: tuple, score: Any, label: Any) -> Any:
    if not args:
        raise VeracityError(f"vc.{name}(frame, score=..., label=...) needs the frame as first argument")
    if label is None or score is None:
        raise VeracityError(
            f"the frame form needs both column names: vc.{name}(frame, score='p', label='y')"
        )
    return args[0]


def frame_form(fn: Callable[..., Any], *, columns: tuple[str, ...] = ()) -> Callable[..., Any]:
    """``fn`` with a frame form: ``fn(frame, *rest, score=..., label=..., **options)``.

    ``columns`` names further keyword arguments that name columns in the frame form
    (e.g. ``periods`` for :func:`vc.monitor`).
    """
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, score: Any = None, label: Any = None, **kwargs: Any) -> Any:
        if score is None and label is None:
            return fn(*args, **kwargs)
        data = _frame_args(name, args, score, label)
        try:
            return _route(name, fn, columns, data, args, score, label, kwargs)
        except VeracityError:
            raise
        except Exception as exc:  # a file's read error must not echo its content
            from ._duckdb import describe_error, is_duckdb_error

            if isinstance(data, (str, os.PathLike)) and is_duckdb_error(exc):
                raise VeracityError(describe_error(exc, os.fspath(data))) from None
            raise

    wrapper.__doc__ = (fn.__doc__ or "") + (
        "\n\n    Frame form: ``fn(frame, score='p', label='y', sample_weight='w', ...)`` with column\n"
        "    names; see :mod:`veracity.frames`.\n"
    ).replace("fn(", f"{name}(")
    return wrapper


def _route(name: str, fn: Callable[..., Any], columns: tuple[str, ...], data: Any, args: tuple, score: Any,
           label: Any, kwargs: dict[str, Any]) -> Any:
    from . import _api

    if name == "audit":
        if len(args) > 1:
            raise VeracityError("vc.audit(frame, score=..., label=...) takes no positional labels")
        return _api.audit_frame(data, score=score, label=label, **kwargs)
    if name == "reliability":
        return _api.reliability_frame(data, score=score, label=label, **kwargs)
    if name in _METRICS:
        if len(args) > 1:
            raise VeracityError(f"vc.{name}(frame, score=..., label=...) takes no positional labels")
        return _api.metric_frame(name, fn, data, score=score, label=label, **kwargs)
    if name == "threshold_table":
        from ._thresholds import threshold_table_frame

        return threshold_table_frame(fn, data, *args[1:], score=score, label=label, **kwargs)
    if name == "monitor":
        from ._monitor import monitor_frame

        return monitor_frame(fn, data, *args[1:], score=score, label=label, **kwargs)
    named = {k: kwargs.pop(k) for k in columns if k in kwargs}
    return _api.in_memory_frame(name, fn, data, *args[1:], score=score, label=label, columns=named,
                                **kwargs)
