"""Progress on stderr for slow commands (tqdm, imported only when a bar is shown).

A bar appears only when stderr is a terminal, ``--quiet`` is not given and the
JSON is not going to stdout (``--json -``), and only once the command has run
for ``delay`` seconds — quick commands stay silent. Library loops report
through :func:`tick` (a no-op unless a bar is active), so the bar counts
bootstrap resamples, noise-floor redraws and demo steps where they exist and
shows the elapsed time otherwise.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_ACTIVE: dict[str, Any] = {}


def wanted(args: argparse.Namespace, stream: Any = None) -> bool:
    """Whether a bar may be drawn for these arguments."""
    stream = sys.stderr if stream is None else stream
    if getattr(args, "quiet", False) or getattr(args, "json", None) == "-":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextmanager
def activity(args: argparse.Namespace, label: str, *, delay: float = 1.0,
             stream: Any = None) -> Iterator[None]:
    """Show an elapsed-time bar on stderr while the block runs (if :func:`wanted`)."""
    if not wanted(args, stream):
        yield
        return
    try:
        from tqdm import tqdm
    except ImportError:  # the progress extra is not installed: stay silent
        yield
        return
    stop = threading.Event()

    def run() -> None:
        if stop.wait(delay):
            return
        bar = tqdm(desc=label, total=None, file=stream or sys.stderr, leave=False, unit=" steps",
                   bar_format="{desc}: {elapsed} {postfix}", dynamic_ncols=True)
        _ACTIVE["bar"] = bar
        while not stop.wait(0.2):
            bar.refresh()
        _ACTIVE.pop("bar", None)
        bar.close()

    thread = threading.Thread(target=run, name="veracity-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def tick(note: str) -> None:
    """Say what the command is doing now (shown beside the elapsed time when a bar is up)."""
    bar = _ACTIVE.get("bar")
    if bar is not None:
        bar.set_postfix_str(note, refresh=False)
