"""The picture of a segment search: each segment's gap with its interval, discoveries highlighted.

matplotlib is imported here only, and only when a plot is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ._style import _name

INK, MUTED, GRID = "#1f2933", "#8a94a6", "#e4e7eb"
HIT, CALM = "#d55e00", "#1f5fa8"
#: segments drawn: the discoveries, then the smallest p-values, up to this many
MAX_ROWS = 30
#: characters of a segment's name shown beside its row (three features' levels fit)
SEGMENT_NAME = 60


def plot_segments(result: Any, ax: Any = None, max_rows: int = MAX_ROWS) -> Any:
    """Gap (rate − mean score) per segment with its interval; discoveries in orange."""
    rows = [r for r in result.rows if r.sufficient][:max_rows]
    if not rows:
        rows = list(result.rows[:max_rows])
    # a long name shown by its ends: in full it squeezed the axes to nothing (the table keeps it whole)
    names = [f"{_name(r.segment, SEGMENT_NAME)}  (n={r.n:,})" for r in rows]
    found = len(result.discoveries)
    # two lines: one would run off the figure's right edge beside long segment names
    title = (f"Where it is miscalibrated: {found} discover{'y' if found == 1 else 'ies'} at FDR {result.fdr:g}"
             f"{' (orange)' if found else ''}\nMCE {result.mce:.4f} ({result.mce_sigma:.1f}σ)")
    own = ax is None
    if ax is None:
        try:
            from matplotlib.figure import Figure
        except ImportError:  # pragma: no cover - depends on the environment
            raise VeracityError("plots need matplotlib; install it with: pip install 'veracity[plot]'") from None
        from ._reliability import _text_width

        # the axes get the title's width (and 0.5 in) beside the widest name, so the title, which starts at the
        # axes' left edge, is not cut off at the figure's right edge by long segment names
        labels = max((_text_width(t, 8) for t in names), default=0.0) / 72.0
        heading = max(_text_width(line, 10) for line in title.splitlines()) / 72.0
        width = max(7.5, labels + heading + 0.9)
        key_room = 0.25 * any(r.test == "certain" for r in rows)  # the key below the axes
        fig = Figure(figsize=(width, 1.2 + 0.28 * max(len(rows), 1) + key_room), dpi=100, layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    pos = np.arange(len(rows))[::-1]
    certain = False
    for y, r in zip(pos, rows):
        colour = HIT if r.discovery else CALM
        ax.plot([r.ci_low, r.ci_high], [y, y], color=colour, linewidth=2.0, alpha=0.8)
        # a segment proved miscalibrated by a score of exactly 0 or 1 its label contradicts (p = 0) is a
        # discovery whatever its gap's interval says: drawn as an X and named in the legend, so an
        # orange interval across 0 is not read as a discovery the interval contradicts
        mark = "X" if r.test == "certain" else "o"
        certain = certain or mark == "X"
        ax.plot([r.gap], [y], mark, color=colour, markersize=6 if mark == "X" else 5,
                gid="certain" if mark == "X" else None)
    if certain:
        from matplotlib.lines import Line2D

        key = [Line2D([], [], marker="X", linestyle="", color=HIT,
                      label="certain: a score of exactly 0 or 1 its label contradicts (p = 0)")]
        if own:  # below the axes, where it covers no segment's interval
            fig.legend(handles=key, loc="outside lower left", fontsize=8, frameon=False)
        else:
            ax.legend(handles=key, loc="best", fontsize=8, frameon=False)
    ax.axvline(0.0, color=MUTED, linewidth=1.0)
    ax.set_yticks(pos)
    ax.set_yticklabels(names, fontsize=8)
    level = getattr(result, "level", 0.95)
    ax.set_xlabel(f"gap = observed rate − mean score ({level * 100:g}% interval)", fontsize=9, color=INK)
    ax.set_title(title, fontsize=10, color=INK, loc="left")
    ax.grid(True, axis="x", color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
