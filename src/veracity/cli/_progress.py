"""Progress on stderr for slow commands (tqdm, imported only when a bar is shown).

A bar appears only when stderr is a terminal, ``--quiet`` is not given and the
JSON is not going to stdout (``--json -``), and only once the command has run
for ``delay`` seconds (``VERACITY_PROGRESS_DELAY``, default 1) — quick commands
stay silent. Library loops report finished chunks through
:func:`veracity.core._parallel.advance` (bootstrap resamples, noise-floor
draws), so the bar shows real counts — ``bootstrap resamples:  40%|████      | 400/1000 [00:02<00:03]``
— and the elapsed time where no count exists; :func:`tick` names the current step
(demo steps). Only the drawing thread touches tqdm; the reports only update a
small locked state, so worker threads may report.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..core._parallel import listen

COUNTED = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}{unit} [{elapsed}<{remaining}]{postfix}"
ELAPSED = "{desc}: {elapsed}{postfix}"


class _State:
    """What the bar should show now: label, units done of total, and a note."""

    def __init__(self, label: str) -> None:
        self.lock = threading.Lock()
        self.command = label
        self.label: str | None = None
        self.done = 0
        self.total = 0
        self.unit = ""
        self.note = ""

    def advance(self, label: str, done: int, total: int, unit: str) -> None:
        with self.lock:
            if label != self.label or total != self.total:  # a new piece of work starts its own count
                self.label, self.done, self.total, self.unit = label, 0, total, unit
            self.done = min(self.total, self.done + done)

    def tick(self, note: str) -> None:
        with self.lock:
            self.note = note

    def draw(self, bar: Any) -> None:
        """Copy the state onto the tqdm bar and redraw it (drawing thread only)."""
        with self.lock:
            label, done, total, unit, note = self.label, self.done, self.total, self.unit, self.note
        if label is not None and total > 0:
            bar.bar_format = COUNTED
            bar.desc = label
            bar.total, bar.n, bar.unit = total, done, f" {unit}" if unit else ""
            bar.unit_scale = total >= 100_000  # 4.5M/10.0M draws; resample counts stay whole
        else:
            bar.bar_format, bar.desc = ELAPSED, self.command
        bar.postfix = note
        bar.refresh()


_ACTIVE: dict[str, _State] = {}


def wanted(args: argparse.Namespace, stream: Any = None) -> bool:
    """Whether a bar may be drawn for these arguments."""
    stream = sys.stderr if stream is None else stream
    if getattr(args, "quiet", False) or getattr(args, "json", None) == "-":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _size(stream: Any) -> tuple[int, int]:
    """The terminal's (columns, rows); 80 x 24 where it reports none, as a fresh pseudo-terminal
    does (tqdm draws nothing on a terminal of 0 rows)."""
    try:
        size = os.get_terminal_size(stream.fileno())
        return size.columns or 80, size.lines or 24
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 80, 24


def _delay(default: float) -> float:
    try:
        return max(0.0, float(os.environ.get("VERACITY_PROGRESS_DELAY", default)))
    except ValueError:
        return default


@contextmanager
def activity(args: argparse.Namespace, label: str, *, delay: float | None = None,
             stream: Any = None) -> Iterator[None]:
    """Show a progress bar on stderr while the block runs (if :func:`wanted`): counts when the
    work reports them, the elapsed time otherwise. The last state is drawn once more at the end."""
    if not wanted(args, stream):
        yield
        return
    try:
        from tqdm import tqdm
    except ImportError:  # the progress extra is not installed: stay silent
        yield
        return
    state = _State(label)
    stop = threading.Event()
    wait = _delay(1.0) if delay is None else delay

    def run() -> None:
        if stop.wait(wait):
            return
        out = stream or sys.stderr
        cols, rows = _size(out)
        bar = tqdm(desc=label, total=None, file=out, leave=False, bar_format=ELAPSED, ncols=cols, nrows=rows)
        try:
            while True:
                state.draw(bar)
                if stop.wait(0.2):
                    state.draw(bar)  # the final counts, then the line is cleared
                    break
        finally:
            bar.close()

    thread = threading.Thread(target=run, name="veracity-progress", daemon=True)
    _ACTIVE["state"] = state
    thread.start()
    try:
        with listen(state.advance):
            yield
    finally:
        stop.set()
        thread.join()
        _ACTIVE.pop("state", None)


def tick(note: str) -> None:
    """Say what the command is doing now (shown beside the count or the elapsed time)."""
    state = _ACTIVE.get("state")
    if state is not None:
        state.tick(note)


@contextmanager
def writing(stream: Any = None) -> Iterator[None]:
    """Print a line on the bar's stream: the bar is cleared first and drawn again after (a note
    printed while the bar showed was glued to it: ``veracity audit: 00:00/path/scores.csv``)."""
    if "state" not in _ACTIVE:
        yield
        return
    from tqdm import tqdm

    with tqdm.external_write_mode(file=stream or sys.stderr):
        yield
