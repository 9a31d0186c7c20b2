"""A small shared thread pool for the few steps that release the GIL (sorting, bincount),
and the progress hook of long vectorised loops.

numpy's sort and searchsorted run without the GIL, so on a multi-core machine the
two class-wise sorts behind an exact AUC, and the per-bin statistics, can run at
the same time. Below ``MIN_ROWS`` rows everything runs inline.

Progress: a loop over chunks (bootstrap resamples, noise-floor draws) calls
:func:`advance` once per finished chunk; it does nothing unless a listener was
installed with :func:`listen` (the command line's progress bar does), so the
library itself never prints. Listeners may be called from worker threads.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator

#: inputs smaller than this run in the calling thread
MIN_ROWS = 200_000

_pool: ThreadPoolExecutor | None = None


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(4, 2 * (os.cpu_count() or 1)),
                                   thread_name_prefix="veracity")
    return _pool


class _Done:
    """A finished 'future' for work run inline."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._value = fn(*args)

    def result(self) -> Any:
        return self._value


def submit(n_rows: int, fn: Callable[..., Any], *args: Any) -> Future[Any] | _Done:
    """Run ``fn(*args)`` on the pool when the input is large, else inline."""
    if n_rows < MIN_ROWS or (os.cpu_count() or 1) < 2:
        return _Done(fn, *args)
    return _get_pool().submit(fn, *args)


#: called as listener(label, done, total, unit) with the units finished in one chunk
Listener = Callable[[str, int, int, str], None]
_listener: Listener | None = None


def advance(label: str, done: int, total: int, unit: str = "") -> None:
    """Report that ``done`` more of ``total`` units of the work named ``label`` are finished.

    Incremental (chunks may finish in any order, on any thread); a no-op without a listener.
    """
    listener = _listener
    if listener is not None:
        listener(label, int(done), int(total), unit)


@contextmanager
def listen(listener: Listener) -> Iterator[None]:
    """Send :func:`advance` reports to ``listener`` while the block runs."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous
