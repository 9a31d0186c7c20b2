"""The upper layers that register computations into the core, loaded on first need.

The core computes what it can itself; a few things it offers are computed above it and
registered there on import (the frame form of a function by :mod:`veracity.sources`, the
audit's honest sections by :mod:`veracity.honest`, the table form by :mod:`veracity.sql`,
fitting a calibrator on a frame by :mod:`veracity.frames`). ``import veracity`` does not
import those packages (it loads numpy and the core only); it registers one loader here,
and the core calls :func:`load_registrations` the first time it looks for something that
is not registered yet. The dependency still points down: the core never names a package
above it.
"""

from __future__ import annotations

from collections.abc import Callable

_LOADERS: list[Callable[[], None]] = []
_DONE: list[bool] = []


def register_loader(load: Callable[[], None]) -> None:
    """``load()`` imports the packages that register into the core (called once, on first need)."""
    _LOADERS.append(load)


def load_registrations() -> bool:
    """Run the registered loaders once; True when they ran now (so a failed lookup is worth retrying)."""
    if _DONE:
        return False
    _DONE.append(True)
    for load in _LOADERS:
        load()
    return True
