"""Pictures of the comparison results (matplotlib, imported only here, only when a plot is drawn)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError

from ._style import GRID, INK, MUTED, PALETTE, _legend_above, _name, _plain, _style  # noqa: F401 - one style
from ._style import _figure as _styled_figure


def _figure(figsize: tuple[float, float]) -> Any:
    return _styled_figure(figsize, 100)


def _axes(ax: Any, figsize: tuple[float, float], rows: int = 1, **kw: Any) -> tuple[Any, list[Any]]:
    if ax is not None:
        return ax.figure, [ax]
    fig = _figure(figsize)
    axes = fig.subplots(rows, 1, **kw) if rows > 1 else [fig.subplots()]
    return fig, list(np.atleast_1d(axes))


def comparison_figure(result: Any, ax: Any = None) -> Any:
    """CORP reliability curves of every model; without ``ax``, the paired differences beside them."""
    if ax is None:
        fig = _figure((10.0, 4.4))
        left, right = fig.subplots(1, 2, width_ratios=(1.0, 1.2))
    else:
        fig, left, right = ax.figure, ax, None
    left.plot([0, 1], [0, 1], color=MUTED, linestyle="--", linewidth=1, label="perfect calibration")
    if not result.corp:  # a ranking-only comparison: said, not an empty panel that looks like lost curves
        left.text(0.5, 0.35, "no CORP curves: score_type='score' has no probability\nreading (AUC only); "
                  "calibrate first, or declare\nthe scores probabilities", ha="center", va="center",
                  fontsize=9, color=MUTED, transform=left.transAxes,
                  bbox={"facecolor": "white", "edgecolor": "none"})
    # MCB and DSC as the CORP table prints them (comparison._digits: a rare event's 0.000013, not 0.0000)
    printed = dict(result._corp_levels()) if result.corp else {}
    for k, (name, c) in enumerate(result.corp.items()):
        left.step(c.x, c.y, where="post", color=PALETTE[k % len(PALETTE)], linewidth=1.8,
                  label=f"{_name(name)} (MCB {printed[name][1]}, DSC {printed[name][2]})")
    _style(left)
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    left.set_xlabel("score")
    left.set_ylabel("CORP recalibrated probability")
    # the key in its own band above the axes: inside them (upper left) it covered the curves that run
    # above the diagonal there, an under-confident model's the first
    handles, names = left.get_legend_handles_labels()
    _legend_above(left, handles, names, ncol=1)
    left.set_title("CORP reliability", loc="left", fontsize=11, fontweight="bold", pad=9 + 12.5 * len(names))
    if right is not None:
        _differences(right, result)
    return fig


#: an interval this many times wider than every other row's reach runs off the axis (an arrow at the edge)
CLIP_RATIO = 10.0


def _axis_limit(reach: np.ndarray) -> float | None:
    r"""Half-width of the paired-differences axis, or None to let matplotlib fit everything.

    ``reach`` is each row's furthest point from 0 (estimate and interval ends, in % of A's value). With
    :math:`m` the (upper) median of the positive reaches, a row reaching beyond :data:`CLIP_RATIO`
    :math:`\cdot m` runs off the axis, which then spans twice the largest reach left (a debiased ECE of
    0.015 with an interval of ±0.03 is ±200 %, beside Brier differences of 1 %: fitting it squeezed every
    other row onto 0, so significant differences read as none; arrows at the edges, its numbers written
    above it). Before, only the widest row could run off, and only when it reached ten times the next one:
    three models' three ECE rows (+250 %, +800 %, +2,300 %) kept an axis of ±2,300 %, on which the
    significant Brier differences of +15 % to +26 % sat on 0."""
    finite = np.sort(reach[np.isfinite(reach) & (reach > 0)])
    if finite.size < 2:
        return None
    within = finite[finite <= CLIP_RATIO * finite[finite.size // 2]]
    if within.size == finite.size:
        return None
    return float(2.0 * within[-1])


def _pct(v: float) -> str:
    """A percentage written on the paired-differences axis: whole percents, one significant digit under
    0.5 % (a -0.4 % change beside an interval of [-290 %, +252 %] printed "-0%"), plain "0%" at 0."""
    if v == 0:
        return "0%"
    return f"{v:+.0f}%" if abs(v) >= 0.5 else f"{v:+.1g}%"


def _differences(right: Any, result: Any) -> None:
    """The paired differences B − A, each as % of A's value with its interval (green: B better)."""
    rows = list(result.rows)
    ypos = np.arange(len(rows))[::-1]
    # % of |A's value|: a debiased ECE can be slightly negative, and dividing by it flipped the bar
    rel = np.array([100.0 * r.diff / abs(r.value_a) if r.value_a else np.nan for r in rows])
    lo = np.array([100.0 * r.ci_low / abs(r.value_a) if r.value_a else np.nan for r in rows])
    hi = np.array([100.0 * r.ci_high / abs(r.value_a) if r.value_a else np.nan for r in rows])
    with np.errstate(invalid="ignore"):
        reach = np.fmax(np.abs(rel), np.fmax(np.abs(lo), np.abs(hi)))
    limit = _axis_limit(reach)
    for i, (y0, r, v, a, b) in enumerate(zip(ypos, rows, rel, lo, hi)):
        better = (r.metric == "auc") == (r.diff > 0)
        sig = r.ci_low > 0 or r.ci_high < 0
        color = (PALETTE[2] if better else PALETTE[1]) if sig else MUTED
        if not r.value_a:
            # A's value is 0 (a perfect Brier or log-loss): no percentage of it; the row said nothing at all
            right.annotate(f"{r.diff:+.4g} (A's value is 0: no % of it)", (0.0, y0), xytext=(4, 0),
                           textcoords="offset points", ha="left", va="center", fontsize=8, color=color,
                           gid="no-percentage")
            continue
        if limit is not None and reach[i] > limit:
            # runs off the axis: arrows at the edges it crosses, its estimate and interval written above it
            whole = np.isfinite(a) and np.isfinite(b)
            ends = (min(a, v), max(b, v)) if whole else (v, v)
            for end, marker in zip(ends, ("<", ">")):
                if abs(end) > limit and (marker == "<") == (end < 0):
                    right.plot([float(np.sign(end)) * limit], [y0], marker, color=color, markersize=7,
                               gid="clipped")
            interval = f" [{_pct(a)}, {_pct(b)}]" if whole else ", no interval (n/a)"
            right.annotate(f"{_pct(v)}{interval}, off the axis", (0.0, y0), xytext=(0, 7),
                           textcoords="offset points", ha="center", fontsize=8, color=color,
                           gid=None if whole else "no-interval")
            if whole:
                right.plot([max(a, -limit), min(b, limit)], [y0, y0], color=color, linewidth=2.2)
            # the estimate at its own x even off the axis (clipped there; its arrow and text stand in)
            right.plot([v], [y0], "o", color=color, markersize=6)
            continue
        if np.isfinite(a) and np.isfinite(b):
            right.plot([a, b], [y0, y0], color=color, linewidth=2.2)
        else:
            # n/a interval (too few rows of a class, too few resamples): said, not a bare grey dot that the
            # key below reads as "within noise"
            right.annotate("no interval (n/a)", (v, y0), xytext=(0, 7), textcoords="offset points",
                           ha="right" if v > 0 else "left", fontsize=8, color=color, gid="no-interval")
        right.plot([v], [y0], "o", color=color, markersize=6)
    if limit is not None:
        right.set_xlim(-limit * 1.05, limit * 1.05)
    right.axvline(0, color=INK, linewidth=1)
    right.set_yticks(ypos)
    pairs = {(r.model_a, r.model_b) for r in rows}
    from ..comparison._compare import SHOWN  # the table's names: the ECE compared is the debiased one

    metric = [SHOWN.get(r.metric, r.metric) for r in rows]
    # every colour drawn is named: before, the heading named green alone, so an orange (B worse) or grey
    # (interval across 0) row had no key
    key = "green: B better, orange: B worse, grey: within noise"
    if len(pairs) == 1:  # one pair: the metric names the row, the title names the pair once
        (model_a, model_b), = pairs
        right.set_yticklabels(metric, fontsize=9)
        pair = f"B − A = {_name(model_b, 24)} − {_name(model_a, 24)}"
        heading = f"Paired differences\n{pair}"
    else:
        right.set_yticklabels([f"{m}: {_name(r.model_b, 24)} - {_name(r.model_a, 24)}" for m, r in zip(metric, rows)],
                              fontsize=9)
        heading = "Paired differences"
    _style(right)
    right.set_xlabel(f"difference, % of A's value ({result.level * 100:g}% paired interval)\n{key}")
    right.set_title(heading, loc="left", fontsize=11, fontweight="bold")


def murphy_figure(result: Any, ax: Any = None) -> Any:
    """Elementary score curves; without ``ax``, the first pair's difference with its band below; on the θ
    axis of :func:`murphy_limits` (a rare event's curves fill the figure). ``fig.axes[0].set_xlim(0, 1)``
    draws the whole axis: every θ is drawn, whatever the axis shows."""
    diff = result.difference
    if ax is None:
        fig = _figure((7.0, 6.0) if diff is not None else (7.0, 3.8))
        if diff is not None:
            top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(1.4, 1.0))
        else:
            top, bottom = fig.subplots(), None
    else:
        fig, top, bottom = ax.figure, ax, None
    for k, (name, values) in enumerate(result.elementary.items()):
        top.plot(result.theta, values, color=PALETTE[k % len(PALETTE)], linewidth=1.8, label=_name(name))
    _style(top)
    top.set_ylabel("mean elementary score")
    top.set_title("Murphy diagram (lower is better)", loc="left", fontsize=11, fontweight="bold")
    top.legend(fontsize=8, frameon=False)
    if bottom is not None and diff is not None:
        # the band named with its level and reading (pointwise, as the text says): an unnamed band read as
        # one of unknown level, or as simultaneous over θ
        bottom.fill_between(result.theta, diff.ci_low, diff.ci_high, color=PALETTE[0], alpha=0.2, linewidth=0,
                            label=f"{result.level * 100:g}% pointwise band", gid="band")
        bottom.plot(result.theta, diff.diff, color=PALETTE[0], linewidth=1.6, label="difference",
                    gid="difference")
        bottom.axhline(0, color=INK, linewidth=1)
        bottom.legend(fontsize=8, frameon=False)
        _style(bottom)
        bottom.set_ylabel(f"{_name(diff.model_b, 24)} - {_name(diff.model_a, 24)}")
        bottom.set_xlabel("threshold θ (false alarm costs θ, miss 1 − θ)")
    else:
        top.set_xlabel("threshold θ (false alarm costs θ, miss 1 − θ)")
    x_range = murphy_limits(result)
    if x_range is not None:  # the difference panel below shares it
        top.set_xlim(*x_range)
    return fig


#: the threshold axis ends where the best model's net benefit falls under this share of its peak …
USEFUL_SHARE = 0.05
#: … times this (a margin past that point), unless that is most of the thresholds' span (then all of it)
USEFUL_PAD = 1.25
#: the share of the thresholds' span from which the whole span is drawn (the look at common rates)
WHOLE_SPAN = 0.8


def decision_curve_limits(result: Any) -> tuple[tuple[float, float] | None, tuple[float, float]]:
    r"""The decision curve's default axes: (threshold range, or None for the thresholds' whole span;
    net-benefit range).

    Net benefit is on the prevalence's scale, so at a rare event (π = 0.5 %) every model's curve turns within
    the first few percent of the thresholds and the whole [0, 1] axis pressed them against its left edge.
    With :math:`B(t) = \max_m \mathrm{NB}_m(t)` the best model's net benefit (point estimates) and
    :math:`t_u` the largest threshold with :math:`B(t) \ge` :data:`USEFUL_SHARE` :math:`\cdot \max_t B`,
    the axis ends at :math:`\max(` :data:`USEFUL_PAD` :math:`t_u`, the next threshold :math:`)`; where that
    is :data:`WHOLE_SPAN` of the thresholds' span or more (every common base rate), or no model's net
    benefit is above 0, the whole span is drawn, as before.

    The net-benefit axis runs from a little below 0 (Vickers' plots; ``dcurves``): with
    :math:`T` the largest net benefit of any strategy (a model's band's upper end included) and
    :math:`c = \min(0.01, 0.05\,T)`,
    :math:`[-0.05\,T - c,\; 1.1\,T + c]` — the fixed margin of 0.01 (kept from :math:`T \ge 0.2` on) scales
    down with :math:`T`, so at π = 0.5 % (:math:`T \approx 0.005`) "treat all", which falls to
    :math:`\pi - (1 - \pi)\,t/(1 - t)`, no longer stretches the axis to twice the curves' height."""
    order = np.argsort(result.thresholds, kind="stable")
    t = np.asarray(result.thresholds, dtype=float)[order]
    curves = [np.asarray(result.net_benefit[m], dtype=float)[order] for m in result.models]
    strategies = [*curves, *(np.asarray(result.net_benefit[m], dtype=float) for m in ("all", "none")),
                  *(np.asarray(result.ci_high[m], dtype=float) for m in result.models)]  # bands not cut off
    tops = [float(np.nanmax(c)) for c in strategies if np.isfinite(c).any()]
    top = max(tops) if tops else 0.0
    c = min(0.01, 0.05 * max(top, 1e-3 if top <= 0 else top))
    if top <= 0:  # the old floor: "none" (0) on the axis whatever the others are
        top = 1e-3
    y_range = (-0.05 * top - c, top * 1.1 + c)
    with np.errstate(all="ignore"):
        best = np.nanmax(np.vstack(curves), axis=0) if curves and t.size > 1 else np.array([np.nan])
    return _useful_range(t, best), y_range


def _useful_range(t: np.ndarray, gain: np.ndarray) -> tuple[float, float] | None:
    r"""The threshold axis for a ``gain`` along increasing thresholds ``t`` (:func:`decision_curve_limits`):
    up to :math:`\max(` :data:`USEFUL_PAD` :math:`t_u`, the next threshold :math:`)`, :math:`t_u` the last
    with ``gain`` :math:`\ge` :data:`USEFUL_SHARE` of its peak; None (the whole span) where that reaches
    :data:`WHOLE_SPAN` of the span, or ``gain`` is nowhere above 0."""
    peak = float(np.nanmax(gain)) if t.size > 1 and np.isfinite(gain).any() else 0.0
    if peak <= 0:
        return None
    k = int(np.nonzero(gain >= USEFUL_SHARE * peak)[0].max())
    hi = max(USEFUL_PAD * t[k], t[min(k + 1, t.size - 1)])
    if hi >= t[0] + WHOLE_SPAN * (t[-1] - t[0]):
        return None
    return max(0.0, float(t[0] - 0.03 * (hi - t[0]))), float(hi)


def murphy_limits(result: Any) -> tuple[float, float] | None:
    r"""The Murphy diagram's θ axis: a range, or None for the θ grid's whole span.

    A model's mean elementary score is
    :math:`E_m(\theta) = \theta\,\mathrm{FP}_m + (1 - \theta)\,\mathrm{FN}_m
    = (1 - \theta)\,(\pi - \mathrm{NB}_m(\theta))` (FP, FN: shares of the rows; NB: the decision curve's net
    benefit), so past a model's scores every curve runs down the one line :math:`(1 - \theta)\,\pi`, and at a
    rare event (π = 0.5 %) all that differs lies within the first few percent of θ. With
    :math:`F_m = E_m / (1 - \theta)` and :math:`\theta_K` the largest θ, the gain
    :math:`G(\theta) = \max_m |F_m(\theta) - F_m(\theta_K)|` is :math:`\max_m |\mathrm{NB}_m(\theta)|` where
    no score reaches :math:`\theta_K` — a model worse than flagging no one counts too — and the axis follows
    it by the decision curve's rule (:func:`decision_curve_limits`: :data:`USEFUL_SHARE`,
    :data:`USEFUL_PAD`, :data:`WHOLE_SPAN`): at a 30 % base rate the whole span is drawn, as before."""
    t = np.asarray(result.theta, dtype=float)
    if t.size < 2 or not result.elementary or t[-1] >= 1:
        return None
    with np.errstate(all="ignore"):
        f = np.vstack([np.asarray(v, dtype=float) / (1.0 - t) for v in result.elementary.values()])
        gain = np.nanmax(np.abs(f - f[:, -1:]), axis=0)
    return _useful_range(t, gain)


def decision_curve_figure(result: Any, ax: Any = None) -> Any:
    """Net benefit of each model with its band, "treat all" and "treat none", on the axes of
    :func:`decision_curve_limits` (a rare event's curves fill the figure); where "treat all" falls below the
    net-benefit axis a note on the axes says from which threshold. ``fig.axes[0].set_xlim(0, 1)`` (or
    ``set_ylim``) draws another range: every threshold's curve is drawn, whatever the axis shows."""
    fig, (axis,) = _axes(ax, (7.0, 4.4))
    # the curves along increasing t (thresholds given out of order were drawn zig-zagging in that order)
    order = np.argsort(result.thresholds, kind="stable")
    t = result.thresholds[order]
    for k, name in enumerate(result.models):
        color = PALETTE[k % len(PALETTE)]
        axis.fill_between(t, result.ci_low[name][order], result.ci_high[name][order], color=color, alpha=0.15,
                          linewidth=0, gid="band")
        axis.plot(t, result.net_benefit[name][order], color=color, linewidth=1.8, label=_name(name))
    axis.plot(t, result.net_benefit["all"][order], color=MUTED, linewidth=1.4, linestyle="--",
              label="treat all")
    axis.plot(t, result.net_benefit["none"][order], color=INK, linewidth=1.2, label="treat none")
    # "none" (0) counts: where every other net benefit is below 0 the axis ran upside down, 0 off it
    x_range, (y_lo, y_hi) = decision_curve_limits(result)
    axis.set_ylim(y_lo, y_hi)
    if x_range is not None:
        axis.set_xlim(*x_range)
    treat_all = result.net_benefit["all"][order]
    below = np.nonzero(treat_all < y_lo)[0]
    if below.size:  # say so: a dashed line that just stops reads as one that ends
        t_off = float(t[below[0]])
        axis.annotate(f"treat all: below the axis from t = {t_off:.2g}", xy=(t_off, y_lo), xytext=(4, 4),
                      textcoords="offset points", fontsize=8, color=MUTED, ha="left", va="bottom",
                      gid="treat_all_off")
    _style(axis)
    axis.set_xlabel("threshold probability t")
    axis.set_ylabel("net benefit")
    axis.set_title("Decision curve", loc="left", fontsize=11, fontweight="bold")
    # the shaded bands named with their level, and as each model's own (the text's note): unnamed, they
    # read as bands of unknown level, or of a difference between the models
    from matplotlib.patches import Patch

    handles, names = axis.get_legend_handles_labels()
    if result.models:
        handles.append(Patch(facecolor=MUTED, alpha=0.3, linewidth=0))
        names.append(f"shaded: each model's {result.level * 100:g}% interval")
    axis.legend(handles, names, fontsize=8, frameon=False)
    return fig


def cost_figure(result: Any, ax: Any = None) -> Any:
    """Expected against realised cost per row (with its interval) for each model."""
    fig, (axis,) = _axes(ax, (6.0, 3.6))
    x = np.arange(len(result.rows))
    expected = [r.expected for r in result.rows]
    realised = [r.realised for r in result.rows]
    err = np.array([[r.realised - r.realised_low for r in result.rows], [r.realised_high - r.realised for r in result.rows]])
    axis.bar(x - 0.18, expected, width=0.36, color=PALETTE[5], label="expected (from the scores)")
    axis.bar(x + 0.18, realised, width=0.36, color=PALETTE[1], yerr=err, capsize=4, ecolor=INK,
             label=f"realised ({result.level * 100:g}% interval)")
    axis.set_xticks(x)
    axis.set_xticklabels([_name(r.model, 24) for r in result.rows])
    _style(axis)
    axis.set_ylabel("cost per row")
    reach = [v for r in result.rows for v in (r.expected, r.realised_high) if np.isfinite(v)]
    if reach and max(reach) > 0:  # headroom for the key, which covered the tallest bar's interval
        axis.set_ylim(0, 1.3 * max(reach))
    # the costs the bars price, as the text's heading gives them
    axis.set_title(f"Cost at threshold {result.threshold:g} (false alarm {result.cost_fp:g}, miss "
                   f"{result.cost_fn:g})", loc="left", fontsize=11, fontweight="bold")
    axis.legend(fontsize=8, frameon=False)
    return fig
