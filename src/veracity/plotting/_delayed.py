"""Pictures of the delayed-label results (matplotlib, imported only when a plot is drawn).

The confidence sequence's picture draws exactly the ``low``/``high`` arrays the alarm
reads (gid ``band``), the running estimate (``estimate``), zero (``zero``) and the alarm
(``alarm``). The PPI picture shows the PPI++, classical and CBPE intervals side by side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ._style import _legend_above

BLUE, ORANGE, GREEN, INK, MUTED, GRID = "#1f5fa8", "#d55e00", "#009e73", "#1f2933", "#8a94a6", "#e4e7eb"


def _new_figure(figsize: tuple[float, float]) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise VeracityError("plots need matplotlib; install it with: pip install 'veracity[plot]'") from None
    return Figure(figsize=figsize, dpi=100, layout="constrained")


def _axes(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    fig = _new_figure(figsize)
    return fig, fig.subplots()


def _style(ax: Any) -> None:
    ax.grid(True, color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_sequence(cs: Any, ax: Any = None) -> Any:
    """Running bounds (the band the alarm uses), the running estimate, zero and the alarm."""
    fig, ax = _axes(ax, (8.0, 3.6))
    x = np.arange(cs.low.size)
    label = f"anytime-valid bounds on a fixed gap (alpha={cs.alpha:g})"
    if cs.alarm_at is None:
        ax.fill_between(x, cs.low, cs.high, color=BLUE, alpha=0.22, linewidth=0, step="post", label=label,
                        gid="band")
    else:
        # after the alarm the gap has moved: the running intersection, valid for a gap that stayed fixed,
        # may exclude the running mean, so the band beyond the alarm is drawn faint and named for what it is
        ax.fill_between(x, cs.low, cs.high, color=BLUE, alpha=0.08, linewidth=0, step="post",
                        label="the same bounds after the alarm (the gap has moved)", gid="band")
        upto = x <= cs.alarm_at
        ax.fill_between(x[upto], cs.low[upto], cs.high[upto], color=BLUE, alpha=0.16, linewidth=0, step="post",
                        label=label, gid="band_to_alarm")
    ax.plot(x, cs.estimate, color=BLUE, linewidth=1.2, drawstyle="steps-post", label="rate - mean score",
            gid="estimate")
    ax.axhline(0.0, color=INK, linewidth=0.9, gid="zero")
    if cs.tolerance:  # named: two unexplained dashed lines beside a band whose alarm reads them
        for sign in (-1, 1):
            ax.axhline(sign * cs.tolerance, color=MUTED, linewidth=0.9, linestyle="--", gid="tolerance",
                       label=(f"tolerance [-{cs.tolerance:g}, {cs.tolerance:g}] (alarm when the bounds "
                              "lie wholly outside it)") if sign > 0 else None)
    if cs.alarm_at is not None:
        ax.axvline(cs.alarm_at, color=ORANGE, linewidth=1.6, linestyle="--", label=f"alarm at {cs.key_text(cs.alarm_at)}",
                   gid="alarm")
    if cs.shift_at is not None:
        ax.axvline(cs.shift_at, color=MUTED, linewidth=1.0, linestyle=":", label="shift", gid="shift")
    # The first rows' bounds are near ±1 and say nothing; scaled to them, the band the alarm reads
    # later is a flat line. The y-range fits the band and estimate from a tenth of the way in (or from
    # the alarm, when earlier); the wide start runs off the axes, as the band visibly narrows into view.
    start = x.size // 10
    if cs.alarm_at is not None:
        start = min(start, int(cs.alarm_at))
    shown = np.concatenate([cs.low[start:], cs.high[start:], cs.estimate[start:]])
    finite = shown[np.isfinite(shown) & (np.abs(shown) < 1)]
    if finite.size:
        pad = max(float(np.abs(finite).max()), float(cs.tolerance or 0.0), 0.01) * 1.2
        ax.set_ylim(-pad, pad)
    _style(ax)
    # the rows are the labelled rows the sequence reads (unlabelled ones never enter it)
    ax.set_xlabel("labelled row" if cs.steps is None else "batch")
    ax.set_ylabel("rate - mean score")
    if cs.steps is not None and cs.steps.size:
        step = max(1, cs.steps.size // 10)
        ax.set_xticks(x[::step], [cs.key_text(i) for i in range(0, cs.steps.size, step)], rotation=30, ha="right")
    # the key above the axes and a title saying what is drawn: in the upper left the key covered the band
    # where it is widest (it runs off the axes there), and the figure had no title
    handles, names = ax.get_legend_handles_labels()
    _legend_above(ax, handles, names, ncol=2)
    total = int(cs.n[-1]) if np.size(cs.n) else 0
    ax.set_title(f"Confidence sequence of rate - mean score ({total:,} labelled rows)", loc="left",
                 fontsize=11, fontweight="bold", color=INK, pad=9 + 12.5 * -(-len(names) // 2))
    return fig


def plot_ppi(r: Any, ax: Any = None) -> Any:
    """PPI++, classical and CBPE estimates of the rate with their intervals, each row naming what it
    uses (labels, scores), and the estimate with its interval written beside it.

    Before, the rows were named "PPI++", "labels only", "CBPE (scores only)" without their counts, and
    the narrowest bar, CBPE's, read as the best estimate even where the scores were judged miscalibrated
    and CBPE not valid (said only in the table's note): the row now says "not valid here" and is drawn
    hollow, and the figure has a title. CBPE is the mean score of every row, the labelled ones too, so
    its row counts n_labelled + n_unlabelled scores (it said n_unlabelled, 825 of June's 975)."""
    import textwrap

    own = ax is None
    # the note under the title, wrapped to the figure's width from its left edge (at 95 characters from the
    # axes' edge, right of the row names, a long note ran off the figure), and the figure taller by its lines
    # (a fixed 3 in squeezed the three rows together under a note of seven lines)
    note = textwrap.wrap(r.note, 112 if own else 95) if r.note else []
    fig, ax = _axes(ax, (7.2, 3.0 + 0.14 * len(note)))
    valid_cbpe = bool(r.calibrated)
    names = [f"PPI++\n{r.n_labelled:,} labels + {r.n_unlabelled:,} scores",
             f"labels only\n{r.n_labelled:,} labels",
             f"CBPE, {r.n_labelled + r.n_unlabelled:,} scores\n"
             + ("valid if calibrated" if valid_cbpe else "not valid here: scores miscalibrated")]
    est = [r.estimate, r.classical, r.cbpe]
    lo = [r.ci_low, r.classical_low, r.cbpe_low]
    hi = [r.ci_high, r.classical_high, r.cbpe_high]
    y = np.arange(3)[::-1]
    for i, colour in enumerate((BLUE, MUTED, ORANGE)):
        hollow = i == 2 and not valid_cbpe
        ax.errorbar([est[i]], [y[i]], xerr=[[est[i] - lo[i]], [hi[i] - est[i]]], fmt="o", color=colour,
                    capsize=3, gid=("ppi", "classical", "cbpe")[i],
                    markerfacecolor="white" if hollow else colour)
    left, right = ax.get_xlim()
    for i in range(3):  # centred on the estimate, or leaning inwards near an edge (not over the names)
        where = (est[i] - left) / (right - left) if right > left else 0.5
        ax.annotate(f"{est[i]:.4f} [{lo[i]:.4f}, {hi[i]:.4f}]", (est[i], y[i]), xytext=(0, 6),
                    textcoords="offset points", va="bottom", fontsize=8, color=INK, gid="estimate_label",
                    ha="left" if where < 0.25 else "right" if where > 0.75 else "center")
    ax.set_yticks(y, names, fontsize=8.5)
    ax.set_ylim(-0.6, 2.7)
    ax.set_xlabel(f"rate ({r.level * 100:g}% intervals)")
    _style(ax)
    ax.set_title("Rate of the window: PPI++ and two baselines", loc="left", fontsize=11, fontweight="bold",
                 color=INK, pad=6 + 12 * len(note))
    if note:  # under the title, wrapped: one line of a long note ran off the figure
        ax.annotate("\n".join(note), (0.01 if own else 0, 1),
                    xycoords=("figure fraction" if own else "axes fraction", "axes fraction"), xytext=(0, 4),
                    textcoords="offset points", ha="left", va="bottom", fontsize=8, color=ORANGE, gid="note")
    return fig


def plot_binned(bs: Any, ax: Any = None) -> Any:
    """One small panel per score bin: its running bounds (the band its alarm uses) and estimate."""
    if ax is not None:
        raise VeracityError("BinnedSequences.plot() draws one panel per bin; call it without ax")
    k = len(bs.sequences)
    cols = min(k, 5)
    rows = -(-k // cols)
    fig = _new_figure((2.4 * cols, 2.1 * rows))  # no Axes of its own to clear first
    axes = fig.subplots(rows, cols, sharex=True, squeeze=False).ravel()
    for a, (label, cs) in zip(axes, zip(bs.labels, bs.sequences)):
        x = np.arange(cs.low.size)
        a.fill_between(x, cs.low, cs.high, color=BLUE, alpha=0.22, linewidth=0, step="post", gid="band")
        a.plot(x, cs.estimate, color=BLUE, linewidth=1.0, drawstyle="steps-post", gid="estimate")
        a.axhline(0.0, color=INK, linewidth=0.8, gid="zero")
        if cs.alarm_at is not None:
            a.axvline(cs.alarm_at, color=ORANGE, linewidth=1.4, linestyle="--", gid="alarm")
        # the bin's labelled rows beside its name: a bin of 63 labels has a wide band for that reason
        count = int(cs.n[-1]) if np.size(cs.n) else 0
        a.set_title(f"score {label}  ({count:,} labelled)", fontsize=9,
                    color=ORANGE if cs.alarm_at is not None else INK)
        # ±0.25, or wider to hold the bin's last bounds and estimate (a bin off by more was an empty panel)
        last = np.array([cs.low[-1], cs.high[-1], cs.estimate[-1]]) if cs.low.size else np.zeros(0)
        last = last[np.isfinite(last)]
        reach = float(np.abs(last).max()) * 1.1 if last.size else 0.0
        pad = min(max(0.25, reach, float(cs.tolerance or 0.0) * 1.2), 1.05)
        a.set_ylim(-pad, pad)
        _style(a)
    for i, a in enumerate(axes[:k]):  # the axes named once: rows along the bottom, the gap down the left
        if i % cols == 0:
            a.set_ylabel("rate - mean score", fontsize=9)
        if i + cols >= k:
            a.set_xlabel("row" if bs.sequences[0].steps is None else "batch", fontsize=9)
            a.xaxis.set_tick_params(labelbottom=True)
    for a in axes[k:]:
        a.set_visible(False)
    # what the band, line and dashes are (no key before)
    alarm = "; dashed orange: alarm" if any(cs.alarm_at is not None for cs in bs.sequences) else ""
    fig.suptitle(f"rate - mean score per score bin: band = anytime-valid bounds (alpha {bs.alpha:g} over "
                 f"{k} bins), line = running estimate{alarm}", fontsize=10)
    return fig
