"""The picture of a segment search: each segment's gap with its interval, discoveries highlighted.

matplotlib is imported here only, and only when a plot is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ..segments._result import interval_mark, level_texts
from ._style import _name

INK, MUTED, GRID = "#1f2933", "#8a94a6", "#e4e7eb"
HIT, CALM = "#d55e00", "#1f5fa8"
#: segments drawn: the discoveries, then the smallest p-values, up to this many
MAX_ROWS = 30
#: characters of a segment's name shown beside its row (three features' levels fit)
SEGMENT_NAME = 60
#: the key's lines, by the gid of the marker they explain: a certain segment (a contradicted score of 0 or 1,
#: drawn as an X) and a discovery whose interval includes 0 (hollow), the short form of the text table's
#: footnotes (:data:`~veracity.segments._result.CERTAIN_NOTE`, :data:`~veracity.segments._result.SPREAD_NOTE`)
KEYS = {
    "certain": "certain: a score of exactly 0 or 1 its label contradicts (p = 0)",
    "spread": ("discovery whose interval includes 0: the test weighs the gap against the spread calibration "
               "gives these scores,\nΣw²p(1 − p); the interval, Wilson on the observed rate, allows for any true "
               "probabilities, so it is wider"),
}


#: a segment's point by its gid: an X for a certain segment (a discovery whatever its gap's interval says), a
#: hollow circle for a discovery whose interval includes 0 (the test's spread is narrower than the interval's),
#: a filled circle otherwise; coloured by the row (orange: a discovery), the key's markers orange
POINTS: dict[str, dict[str, Any]] = {
    "certain": {"marker": "X", "markersize": 6},
    "spread": {"marker": "o", "markerfacecolor": "white", "markeredgewidth": 1.5, "markersize": 6},
    "": {"marker": "o", "markersize": 5},
}


def _point(row: Any) -> str:
    """The gid of a segment's point (:data:`POINTS`): ``"certain"``, ``"spread"`` or ``""``."""
    if row.test == "certain":
        return "certain"
    return "spread" if interval_mark(row) else ""


def _key_lines(kinds: list[str]) -> int:
    """Text lines of the key explaining ``kinds`` (its room below the axes)."""
    return sum(KEYS[k].count("\n") + 1 for k in kinds)


def plot_segments(result: Any, ax: Any = None, max_rows: int = MAX_ROWS) -> Any:
    """Gap (rate − mean score) per segment with its interval; discoveries in orange, a certain one as an X
    and one whose interval includes 0 hollow, each named in a key. The title counts the discoveries and
    gives the MCE with its sigma and its p-value under calibration (``result.mce_p_text()``), and, where
    more than ``max_rows`` segments were tested, how many of them are drawn (the smallest p-values; where
    more than ``max_rows`` are discoveries, the most important of them, as the table orders them)."""
    tested = [r for r in result.rows if r.sufficient]
    rows = tested[:max_rows]
    if not rows:
        rows = list(result.rows[:max_rows])
    # a long name shown by its ends: in full it squeezed the axes to nothing (the table keeps it whole)
    names = [f"{_name(r.segment, SEGMENT_NAME)}  (n={r.n:,})" for r in rows]
    gids = [_point(r) for r in rows]
    kinds = [k for k in KEYS if k in gids]  # the key's entries, in KEYS' order
    found = len(result.discoveries)
    # two lines (three when cut): one would run off the figure's right edge beside long names. The MCE's
    # sigma is the largest of many segments' and is no z-score: 2.5σ read as evidence where its p-value under
    # calibration (the text's) was 0.5, so the p-value stands beside it; and rows cut at max_rows are said
    # to be (30 of 59 drawn read as every segment searched)
    # (more discoveries than rows: the rows are the discoveries in the table's order, by importance, which
    # are not those with the smallest p-values; the title said they were)
    # none tested: the segments drawn are the untested ones, which the title says (they read as tested)
    shown = (f"\nnone tested: each segment drawn has under min_count = {result.min_count:,} rows"
             if not tested else
             "" if len(tested) <= len(rows) else
             f"\nshown: the {len(rows):,} most important of {found:,} discoveries (evidence × size; "
             f"{len(tested):,} segments tested)" if found > len(rows) else
             f"\nshown: the {len(rows):,} of {len(tested):,} tested segments with the smallest p-values")
    p_text = result.mce_p_text()
    p_text = "" if p_text.endswith("n/a") else f", {p_text} under calibration"
    # the procedures named as the printout's header names them, on a line of their own (a longer first line
    # widened the figure, which the report then scales down): intersections are judged by BY, stricter than
    # the single features' BH, so an intersection with a smaller p-value can stay undiscovered
    title = (f"Where it is miscalibrated: {found} discover{'y' if found == 1 else 'ies'} at FDR {result.fdr:g}"
             f"{' (orange)' if found else ''}\n({result.procedure()})\nMCE {level_texts(result.mce)[0]} ({result.mce_sigma:.1f}σ"
             f"{p_text}){shown}")
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
        # the key below the axes starts at the figure's left edge: its widest line and marker fit across it
        key = max((_text_width(line, 8) for k in kinds for line in KEYS[k].splitlines()), default=0.0) / 72.0
        width = max(7.5, labels + heading + 0.9, key + 0.7)
        key_room = 0.05 + 0.17 * _key_lines(kinds) if kinds else 0.0
        height = 1.2 + 0.17 * (shown.count("\n") + 1) + 0.28 * max(len(rows), 1) + key_room
        fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    from matplotlib.lines import Line2D

    pos = np.arange(len(rows))[::-1]
    # the lines ax.plot would make, added directly (ax.plot parsed its arguments again for each of them)
    for y, r, gid in zip(pos, rows, gids):
        colour = HIT if r.discovery else CALM
        ax.add_line(Line2D(np.atleast_1d([r.ci_low, r.ci_high]), np.atleast_1d([y, y]), color=colour,
                           linewidth=2.0, alpha=0.8))
        # a certain segment is a discovery whatever its gap's interval says, and a discovery's interval can
        # include 0 when the test's spread is narrower: marked and named in the key, so an orange interval
        # across 0 is not read as a discovery the interval contradicts
        ax.add_line(Line2D(np.atleast_1d([r.gap]), np.atleast_1d([y]), linestyle="", color=colour,
                           gid=gid or None, **POINTS[gid]))
    ax._request_autoscale_view()  # as ax.plot
    if kinds:
        handles = [Line2D([], [], linestyle="", color=HIT, label=KEYS[k], **POINTS[k]) for k in kinds]
        if own:  # below the axes, where it covers no segment's interval
            fig.legend(handles=handles, loc="outside lower left", fontsize=8, frameon=False)
        else:
            ax.legend(handles=handles, loc="best", fontsize=8, frameon=False)
    ax.axvline(0.0, color=MUTED, linewidth=1.0)
    # margins of a fixed part of a row: matplotlib's 5 % of the span left ten empty rows above and below
    # 200 segments, and none beside 3
    ax.set_ylim(-0.7, len(rows) - 0.3)
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
