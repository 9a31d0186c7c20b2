"""Renamed keyword arguments: the old name keeps working, with one FutureWarning per name.

The vocabulary is one across the library (DESIGN §3): ``interval=`` is the
per-bin binomial interval, ``bootstrap=`` the resampled (bootstrap) intervals,
``random_state=`` the seed. Older names stay as aliases so code keeps running.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from ._validation import VeracityError

F = TypeVar("F", bound=Callable[..., Any])

#: (function, old name) pairs already warned about in this process
_WARNED: set[tuple[str, str]] = set()


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each ``old=`` keyword as ``new=``, warning once per process.

    >>> @renamed(seed="random_state")
    ... def f(*, random_state=0):
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
                        raise VeracityError(f"{name}() got both {old}= and {new}=; pass only {new}=")
                    kwargs[new] = kwargs.pop(old)
                    if (name, old) not in _WARNED:
                        _WARNED.add((name, old))
                        warnings.warn(f"{name}(): {old}= is renamed {new}=; {old}= will be removed",
                                      FutureWarning, stacklevel=2)
            return func(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap
