"""Old spellings of options: they keep working for one release, with one warning per name.

The vocabulary is one across the library (DESIGN §3, issue 21): ``interval=`` is the
per-bin binomial interval, ``bootstrap=`` the resampled (bootstrap) intervals,
``random_state=`` the seed (default None), ``n_resamples=`` every resample count,
``bins=`` the bins, ``sample_weight=`` the weights and ``by=`` the slices; options are
keyword-only. Older names (:func:`renamed`) and options passed by position
(:func:`positional_options`) stay as aliases so code keeps running; each warns once per
process with :class:`VeracityDeprecationWarning`.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

from ._validation import VeracityError

F = TypeVar("F", bound=Callable[..., Any])

#: (function, old name) pairs already warned about in this process
_WARNED: set[tuple[str, str]] = set()


class VeracityDeprecationWarning(DeprecationWarning, FutureWarning):
    """An old spelling that still works for one release (a :class:`DeprecationWarning`;
    also a :class:`FutureWarning`, the category older releases of veracity used)."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _warn_once(name: str, key: str, message: str) -> None:
    """Warn once per process, attributed to the first caller outside veracity (the user's line)."""
    if (name, key) in _WARNED:
        return
    _WARNED.add((name, key))
    level = 2
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level += 1
        frame = frame.f_back
    warnings.warn(message, VeracityDeprecationWarning, stacklevel=level)


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each ``old=`` keyword as ``new=``, warning once per process.

    The old names are listed in the wrapper's ``__renamed__`` (``inspect.signature`` shows
    only the new ones).

    >>> @renamed(seed="random_state")
    ... def f(*, random_state=None):
    ...     return random_state
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f(seed=3)
    3
    """

    def wrap(func: F) -> F:
        name = getattr(func, "__qualname__", func.__name__)

        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise VeracityError(f"{name}() got both {old}= and {new}=; pass only {new}=", param=new)
                    kwargs[new] = kwargs.pop(old)
                    _warn_once(name, old, f"{name}(): {old}= is renamed {new}=; {old}= will be removed")
            return func(*args, **kwargs)

        inner.__renamed__ = {**getattr(func, "__renamed__", {}), **old_to_new}  # type: ignore[attr-defined]
        return inner  # type: ignore[return-value]

    return wrap


def positional_options(*names: str) -> Callable[[F], F]:
    """Decorator: options that used to be positional (``names``, in their old order after the
    data arguments) are keyword-only now; passed by position they still work, with a warning.

    >>> @positional_options("target")
    ... def f(scores, *, target=0.5):
    ...     return target
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f([0.1], 0.9)
    0.9
    """

    def wrap(func: F) -> F:
        name = getattr(func, "__qualname__", func.__name__)
        params = inspect.signature(func).parameters.values()
        n_positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(names):
                    raise TypeError(f"{name}() takes {n_positional} positional arguments but {len(args)} were given")
                for key, value in zip(names, extra):
                    if key in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument {key!r}")
                    kwargs[key] = value
                shown = ", ".join(f"{k}=" for k in names[:len(extra)])
                _warn_once(name, "positional", f"{name}(): pass {shown} by keyword; options by position "
                           "will be refused in the next release")
                args = args[:n_positional]
            return func(*args, **kwargs)

        inner.__positional_options__ = names  # type: ignore[attr-defined]
        return inner  # type: ignore[return-value]

    return wrap


def renamed_attribute(old: str, new: str) -> property:
    """A result's old attribute name, read as ``new`` with a warning once per process
    (``seed = renamed_attribute("seed", "random_state")`` in a result class)."""

    def get(self: Any) -> Any:
        name = type(self).__name__
        _warn_once(name, old, f"{name}.{old} is renamed {name}.{new}; .{old} will be removed")
        return getattr(self, new)

    return property(get, doc=f"Old name of :attr:`{new}` (deprecated).")
