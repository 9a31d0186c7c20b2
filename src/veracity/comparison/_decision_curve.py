r"""Decision curves: net benefit against threshold probability (Vickers & Elkin 2006).

Treating the rows with :math:`p \ge t` (a threshold probability t says a false positive
is worth :math:`t / (1 - t)` true positives),

.. math:: \mathrm{NB}(t) = \frac{\mathrm{TP}(t)}{N} - \frac{\mathrm{FP}(t)}{N}\,\frac{t}{1 - t},

beside "treat all" (every row flagged: :math:`\pi - (1 - \pi)\,t/(1-t)`, π the prevalence)
and "treat none" (0). Weighted: TP, FP and N are sums of weights. The numbers equal the
``dcurves`` package's (``dcurves.dca``; the tests check them to 1e-12) at every t > 0; at t = 0 veracity
flags every row (p ≥ 0: the curve meets "treat all"), where ``dcurves`` leaves out scores of exactly 0.

Net benefit is :math:`\mathrm{NB} = a - k\,b` with :math:`a = \mathrm{TP}/N`, :math:`b = \mathrm{FP}/N`
and :math:`k = t/(1-t)`: two shares of one multinomial (flagged positive, flagged negative, unflagged), so
each point gets the MOVER interval of that contrast (Zou & Donner 2008; Newcombe 1998 for correlated
shares) from each share's Wilson interval :math:`[l, u]` at an effective size (the rows; weighted, each
share's own, below):

.. math:: L = \mathrm{NB} - \sqrt{(a - l_a)^2 + k^2 (u_b - b)^2 + 2 r\,(a - l_a)\,k\,(u_b - b)},\quad
          U = \mathrm{NB} + \sqrt{(u_a - a)^2 + k^2 (b - l_b)^2 + 2 r\,(u_a - a)\,k\,(b - l_b)},

:math:`r = \sqrt{ab/((1-a)(1-b))}` the correlation of :math:`a` and :math:`-k b` (1 for "treat all", whose
interval is then Wilson's of the prevalence, mapped). It replaces the Student-t interval of the per-row values
:math:`f_i\,(y_i - (1 - y_i)\,k)` (:func:`._paired.from_moments`), a Wald interval of rare shares: at a 1 %
event rate on 300 rows it covered the net benefit at t = 0.02-0.1 in 54-86 % of draws at 95 % (66-85 % with
log-normal weights), at 10 % on 100 rows 85-91 % (82-85 % weighted), "treat all" 90 % (80 % weighted), and a
sharp model's (AUC about 0.99, 285 rows) at t = 0.9 and 0.95, where a false positive costs 9 and 19 true ones
and few are seen, 91 % and 74 % (MOVER 96 % and 95 %); MOVER
measured 94-100 % there and 93.5-97 % at common rates, as wide as the t interval (0.98-1.3 times) where that
covered (tests/comparison/test_claims_r31.py). The t interval's moments still decide where a point has no
interval: a zero-width one where every row's net benefit is the same (a threshold above every score: exactly
0, with a note), none (NaN) where one row carries the weight. All thresholds cost one sort per model and
class.

Weighted, a share :math:`a = W_D/W` (:math:`W_D, S_D` the :math:`\sum w, \sum w^2` of the rows it counts: one
class's flagged rows; :math:`W_R, S_R` the other rows'; :math:`W, S` all rows') has variance
:math:`[(1-a)^2 S_D + a^2 S_R]/W^2`, and its Wilson interval is at the size that matches it,
:math:`m = W / ((1-a)\rho_D + a\rho_R)`, reading each :math:`S` as :math:`\rho W` with
:math:`\rho_D = \max(S_D/W_D, S_c/W_c, S/W)` (:math:`c` the share's class) and
:math:`\rho_R = \max(S_R/W_R, S/W)`: never above Kish's :math:`W^2/S`, nor what the class's weights give, so
a few light rows seen, or a class of a few rows, do not read as many (:func:`share_size`; n unweighted).
Small shares give :math:`W/\rho_D`, the Murphy band's :math:`\min(W_D/S_D, W_c/S_c)W` but for the floor
:math:`S/W` (:func:`._murphy._discordant_sizes`, which has none); large ones need the rest's weights
("treat all" is :math:`a = 1 - b`, both at one size: Wilson's interval of the prevalence, mapped).
Round 31 read both shares at Kish's :math:`W^2/S`, which misreads a share whose rows weigh other than the
average: at a 5 % rate on 1,000 rows it covered 0.79-0.88 at t = 0.1-0.3 with positives weighing 1/π (now
0.94-0.96) and 0.78-0.88 at t = 0.2-0.5 with weights growing with the score, :math:`e^{0.4x}` (now
0.91-0.95). Over 1-50 % rates, 300-5,000 rows and t = 0.02-0.9 (1,000 data sets per cell, where most draws
flag a row; tests/comparison/test_decision_curve_weights_r32.py) the lowest coverage went from 0.79 to 0.90
under class weights (below 0.93 only at a 1 % rate on 300 rows: three positives; "treat all" 0.97-0.99, from
0.84), from 0.66 to 0.82 under score weights (below 0.92 only where a draw flags under ten rows on average),
from 0.937 to 0.947 under log-normal weights; unweighted it is unchanged (the same numbers).

Each share's interval is the *modified* Wilson interval (round 34): Wilson's, an end moved out to Garwood's
exact Poisson bound where the share's effective count (:math:`a m`, or :math:`m - a m`) is below 10
(:func:`veracity.core._intervals.modified_wilson`). Wilson's end toward 0 is too far in for a count of a
few (0.18 events for one seen; Garwood's 0.025), and at a high threshold, where a handful of negatives are
flagged and each costs :math:`k` = 9 or 19, that end of :math:`b` sets the upper end of NB: among draws that
flag a row, the truth lay above the 95 % interval in 3.6-8.0 % at t = 0.9-0.95 at a common or a 20 % rate
on 40-300 rows and 2.5-10.4 % at a 5 % rate (nominal 2.5), now 0.9-3.0 % and 0-3.6 % (one cell of about 60
flagging draws read 9.3 % before and after), at median widths 0-4 % more there and up to 7 % more at
t = 0.02-0.3 with 5 % events on 40 rows, whose low tail went from 3.0-3.5 % to 1.2-1.9 % (1,000 draws a
cell; tests/comparison/test_decision_curve_few_counts_r34.py). From 10 on (round 35) the end toward the
nearer bound moves out to the exact binomial (Clopper-Pearson) end where that is further out
(``modified_wilson(..., exact_end=True)``): Wilson's end toward 0 is still too far in for a skewed count
there — the true share lay below it with probability up to 0.050 at 5-18 expected events (exact binomial
sums; nominal 0.025) — and at a 4.4 % rate on 300 rows the truth lay below the net benefit's 95 % interval in
3.0-3.9 % of draws at t = 0.02-0.1, at a 19 % rate on 200 rows in 3.4-3.8 %; now 1.5-2.2 % and 2.0-3.0 %, at
widths 0-5 % more (800 draws a design; tests/comparison/test_decision_curve_exact_end_r35.py,
tests/core/test_intervals_r35.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display, interval_cell
from ..core._intervals import modified_wilson
from ..core._text import fmt, render_table, visible
from ..core._validation import VeracityError
from ..core._weights import kish_size, sums_in_user_units
from ..honest._common import check_level
from ._compare import rows_text
from ._counts import check_thresholds, class_counts, totals
from ._digits import Cell, decimals, level_text, threshold_decimals
from ._inputs import check_score_type, models_of
from ._paired import from_moments, no_spread, weight_sums
from ._signs import signed, unneg

#: the default thresholds: 0.01, 0.02, …, 0.99
DEFAULT_THRESHOLDS = np.arange(1, 100) / 100.0


#: what the "best" column is: the highest point estimate, not a test — each interval is one strategy's own,
#: and "best: b" beside two models whose intervals overlap almost wholly (+0.2596 [+0.2525, +0.2667] each) read
#: as a finding
BEST_NOTE = ("best: the highest net benefit at each threshold, by point estimate; each interval is that "
             "strategy's own, not one of a difference (vc.compare_models and vc.murphy_diagram test "
             "differences)")


@dataclass(frozen=True)
class DecisionCurveRow:
    """Net benefit of ``model`` (a model's name, ``"all"`` or ``"none"``) at ``threshold``."""

    threshold: float
    model: str
    net_benefit: float
    ci_low: float
    ci_high: float
    tp: float
    fp: float

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "model": self.model, "net_benefit": self.net_benefit,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "tp": self.tp, "fp": self.fp}


@dataclass(frozen=True, eq=False, repr=False)
class DecisionCurve(Display):
    """Net benefit per threshold for every model, "all" and "none" (see :func:`decision_curve`)."""

    thresholds: np.ndarray
    models: tuple[str, ...]
    net_benefit: dict[str, np.ndarray]
    ci_low: dict[str, np.ndarray]
    ci_high: dict[str, np.ndarray]
    tp: dict[str, np.ndarray]
    fp: dict[str, np.ndarray]
    n: int
    prevalence: float
    level: float
    notes: tuple[str, ...] = ()
    #: Kish's effective size of weighted rows (None unweighted); weighted, the prevalence is Σw over
    #: positives / Σw, and the header says so
    n_effective: float | None = None

    @property
    def rows(self) -> tuple[DecisionCurveRow, ...]:
        out = []
        for name in (*self.models, "all", "none"):
            for k, t in enumerate(self.thresholds):
                out.append(DecisionCurveRow(float(t), name, float(self.net_benefit[name][k]),
                                            float(self.ci_low[name][k]), float(self.ci_high[name][k]),
                                            float(self.tp[name][k]), float(self.fp[name][k])))
        return tuple(out)

    def best(self) -> list[str]:
        """At each threshold, the strategy with the highest net benefit (a model, "all" or "none"; of
        strategies tied, the first in that order — the printed table names every one tied)."""
        names = [*self.models, "all", "none"]
        nb = np.vstack([self.net_benefit[m] for m in names])
        return [names[k] for k in np.argmax(nb, axis=0)]

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, **({} if self.n_effective is None else {"n_effective": self.n_effective}),
                "prevalence": self.prevalence, "level": self.level, "models": list(self.models),
                "rows": [r.to_dict() for r in self.rows], "notes": list(self.notes)}

    def _summary_items(self) -> dict[str, Any]:
        weighted = ({} if self.n_effective is None else
                    {"weighted": f"Kish effective size {self.n_effective:,.1f}"})
        return {"n": self.n, **weighted, "prevalence": level_text(self.prevalence),
                "thresholds": int(self.thresholds.size)}

    def _html_records(self) -> list[dict[str, Any]]:
        """The notebook table's rows, each net benefit and its interval at their decimals (one group,
        :func:`._digits.decimals`, as printed), one that rounds to 0 shown as 0."""
        places = threshold_decimals(self.thresholds)
        out = []
        for r in self._frame_records():
            k = decimals((r["net_benefit"], r["ci_low"], r["ci_high"]))
            out.append({**r, "threshold": Cell(f"{r['threshold']:.{places}f}"),
                        **{c: Cell(fmt(unneg(r[c], k), k)) for c in ("net_benefit", "ci_low", "ci_high")}})
        return out

    def __str__(self) -> str:
        t = self.thresholds
        shown = np.arange(t.size) if t.size <= 12 else np.unique(
            np.array([int(np.argmin(np.abs(t - q))) for q in np.linspace(0.1, 0.9, 9)]))
        names = [*self.models, "all"]
        every = [*self.models, "all", "none"]
        nb = np.vstack([self.net_benefit[m] for m in every])
        top = nb.max(axis=0)
        # ties printed as ties: a model that flags no row is exactly as good as "none", not better
        best = [" = ".join(m for m, v in zip(every, nb[:, k]) if v == top[k]) for k in range(t.size)]

        def cell(m: str, k: Any) -> str:  # no interval (one row carrying the weight): one "n/a", as the HTML
            values = (self.net_benefit[m][k], self.ci_low[m][k], self.ci_high[m][k])
            digits = decimals(values)  # at a 0.5 % prevalence a net benefit is about 0.001 (._digits)
            return (f"{signed(values[0], digits)} "  # never "-0.0000" (._signs)
                    + interval_cell(signed(values[1], digits), signed(values[2], digits)))

        places = threshold_decimals(t)  # thresholds of 0.0025 and 0.005 printed "0.003" and "0.005"
        body = [[f"{t[k]:.{places}f}", *(cell(m, k) for m in names), best[k]] for k in shown]
        pct = f"{self.level * 100:g}%"
        return (f"Decision curve: net benefit = TP/N - FP/N * t/(1-t), flag p >= t "
                f"({rows_text(self.n, self.n_effective)}, "
                f"{'weighted ' if self.n_effective is not None else ''}prevalence "
                f"{level_text(self.prevalence)}; {pct} intervals; 'none' is 0):\n"
                + render_table(["threshold", *names, "best"], body, align="l" + "r" * len(names) + "l")
                + f"\n{BEST_NOTE}" + "".join(f"\nnote: {visible(t)}" for t in self.notes))


def mover_interval(c1: np.ndarray, c0: np.ndarray, total: float, size: float | np.ndarray, odds: np.ndarray,
                   level: float, size0: float | np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""MOVER interval of :math:`\mathrm{NB} = a - k b` (module doc): ``c1`` and ``c0`` the (weighted) true
    and false positives per threshold, ``total`` :math:`\sum w`, ``size`` the effective size of the Wilson
    interval of :math:`a` (``size0`` that of :math:`b`; the same when None), ``odds`` :math:`k = t/(1-t)`.
    Each share's interval is the modified Wilson one (:func:`veracity.core._intervals.modified_wilson`):
    Wilson's, an end moved out to Garwood's exact Poisson bound where the share's effective count
    :math:`x = a m` (or :math:`m - x`) is below 10, and from 10 on the end toward the nearer bound to the
    exact binomial one where that is further out (``exact_end``; module doc)."""
    a = np.clip(np.asarray(c1, dtype=float) / total, 0.0, 1.0)
    b = np.clip(np.asarray(c0, dtype=float) / total, 0.0, 1.0)
    a, b = np.broadcast_arrays(a, b)
    trials_a = np.broadcast_to(np.asarray(size, dtype=float), a.shape)
    trials_b = trials_a if size0 is None else np.broadcast_to(np.asarray(size0, dtype=float), b.shape)
    # both shares in one call (element by element, the numbers of two calls; half the calls' overhead)
    (la, lb), (ua, ub) = modified_wilson(np.stack([a, b]), np.stack([trials_a, trials_b]), level,
                                         exact_end=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(a * b / ((1.0 - a) * (1.0 - b)))
    r = np.where(np.isfinite(r), np.minimum(r, 1.0), 1.0)  # a or b of 1: the other is 0, and r reads nothing
    below_a, above_a = a - np.minimum(la, a), np.maximum(ua, a) - a
    below_b, above_b = b - np.minimum(lb, b), np.maximum(ub, b) - b
    nb = a - odds * b
    down = np.sqrt(below_a ** 2 + (odds * above_b) ** 2 + 2.0 * r * below_a * odds * above_b)
    up = np.sqrt(above_a ** 2 + (odds * below_b) ** 2 + 2.0 * r * above_a * odds * below_b)
    return nb - down, nb + up


def share_size(cell: np.ndarray, cell_sq: np.ndarray, whole: float, whole_sq: float, total: float,
               total_sq: float, kish: float, centre: float | None = None, rows: int = 0) -> np.ndarray:
    r"""The effective size :math:`m` of the Wilson interval of one weighted share :math:`a = W_D/W` (module
    doc): ``cell``, ``cell_sq`` the :math:`W_D, S_D` (:math:`\sum w, \sum w^2`) of the rows it counts, per
    threshold; ``whole``, ``whole_sq`` their class's :math:`W_c, S_c`; ``total``, ``total_sq`` the
    :math:`W, S` of the rows it is a share of; ``kish`` their Kish size :math:`W^2/S`. The share's variance
    :math:`[(1-a)^2 S_D + a^2 S_R]/W^2` (R the other rows) matched to Wilson's :math:`a(1-a)/m`, each
    :math:`S` read as :math:`\rho W` with :math:`\rho_D = \max(S_D/W_D, S_c/W_c, S/W)` and
    :math:`\rho_R = \max(S_R/W_R, S/W)`:

    .. math:: m = \frac{W}{(1 - a)\,\rho_D + a\,\rho_R} \le \frac{W^2}{S}

    (n unweighted, Kish's size for equal weights; ``kish`` where the sums overflow).

    With a ``centre`` θ (and the ``rows`` n the share is over; :mod:`._cost`), the variance matched is that
    of :math:`\sum w_i(d_i - \theta)` over n rows drawn alike, :math:`d_i` 1 on the rows counted, as a
    mean's: :math:`(1-\theta)^2\rho_D W_D + \theta^2\rho_R W_R - (W_D - \theta W)^2/n`, and
    :math:`m = W^2 a(1-a)` over it — the form above at θ = a; n for equal weights, whatever θ (the size
    above where it is not positive). Not the Murphy band's size (:func:`._murphy._discordant_sizes`), which
    matches a small share's variance only and has no floor :math:`S/W`."""
    w, s = total, total_sq
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = np.clip(np.asarray(cell, dtype=float) / w, 0.0, 1.0)
        floor = s / w
        rho_d = np.full_like(a, floor)
        if whole > 0.0:
            rho_d = np.maximum(rho_d, whole_sq / whole)
        rho_d = np.where(cell > 0.0, np.maximum(rho_d, cell_sq / cell), rho_d)
        rest, rest_sq = w - cell, s - cell_sq
        rho_r = np.where((rest > 0.0) & (rest_sq > 0.0), np.maximum(floor, rest_sq / rest), floor)
        m = w / ((1.0 - a) * rho_d + a * rho_r)
        if centre is not None and rows > 0:
            var = ((1.0 - centre) ** 2 * rho_d * cell + centre ** 2 * rho_r * rest
                   - (cell - centre * w) ** 2 / rows)
            moved = w * w * a * (1.0 - a) / var
            m = np.where(np.isfinite(moved) & (moved > 0.0), moved, m)
    return np.where(np.isfinite(m) & (m > 0.0), m, kish)


def decision_curve_of(models: Any, thresholds: np.ndarray, level: float) -> DecisionCurve:
    y, w = models.y, models.w
    tot = totals(y, w)
    cube = weight_sums(w, tot.n)[2]  # Σw³ (None unweighted): the variance's factor
    odds = thresholds / (1.0 - thresholds)
    size = float(tot.n) if w is None else kish_size(w)  # the shares' effective size
    unit = models.data[0].weight_scale  # the power of two the caller's weights were multiplied by
    nb, lo, hi, tp, fp = {}, {}, {}, {}, {}
    notes: list[str] = []

    def put(name: str, c1: np.ndarray, c1sq: np.ndarray, c0: np.ndarray, c0sq: np.ndarray) -> None:
        s1 = c1 - odds * c0
        s1w = c1sq - odds * c0sq
        s2 = c1sq + odds * odds * c0sq
        mean, se, low, high, _ = from_moments(s1, s1w, s2, tot.w, tot.wsq, tot.n, level, cube)
        real = np.isfinite(low) & np.isfinite(high) & ~no_spread(mean, se)
        if np.any(real):  # the MOVER interval (module doc) wherever the t interval is one
            if w is None:
                m_low, m_high = mover_interval(c1, c0, tot.w, size, odds, level)
            else:  # each share at its own effective size (module doc); "all": b = 1 - a, at a's
                size1 = share_size(c1, c1sq, tot.w1, tot.w1sq, tot.w, tot.wsq, size)
                size0 = (size1 if name == "all" else
                         share_size(c0, c0sq, tot.w0, tot.w0sq, tot.w, tot.wsq, size))
                m_low, m_high = mover_interval(c1, c0, tot.w, size1, odds, level, size0)
            low, high = np.where(real, m_low, low), np.where(real, m_high, high)
        # a per-row net benefit lies in [-t/(1-t), 1]: the interval is cut there
        low, high = np.maximum(low, -odds), np.minimum(high, 1.0)
        nb[name], lo[name], hi[name] = mean, low, high
        # TP and FP in the caller's units: extreme weights are scaled by an exact 2^k on the way in
        # (check_weights), and weights of 1e300 reported TP 73.9 for 99 rows (a total of 9.9e301)
        tp[name], fp[name] = sums_in_user_units(c1, unit), sums_in_user_units(c0, unit)
        flat = no_spread(mean, se)  # every row's net benefit equal: the interval has no width
        if np.any(flat):
            where = ("at every threshold" if flat.all() else
                     f"at {int(flat.sum())} of {flat.size} thresholds (e.g. {thresholds[flat][0]:g})")
            if name != "all" and not np.any((c1 + c0)[flat]):
                # it flags no row there: the general "more rows (of both classes) give one" misread a threshold
                # above every score, where the rows' classes do not matter
                notes.append(f"{name!r}: zero-width interval {where}: it flags no row there, so its net benefit "
                             "is exactly 0, that of treating none; the interval is no confidence interval")
                return
            why = ("the labels are all one class" if name == "all" else
                   "it flags no row there, or every row and the labels are all one class")
            notes.append(f"{name!r}: zero-width interval {where}: every row has the same net benefit ({why}), "
                         "so the interval is no confidence interval; more rows (of both classes) give one")

    for name, d in zip(models.names, models.data):
        c = class_counts(d.p, y, w, thresholds)
        put(name, c.w1, c.w1sq, c.w0, c.w0sq)
    full = np.ones_like(thresholds)
    put("all", tot.w1 * full, tot.w1sq * full, tot.w0 * full, tot.w0sq * full)
    zero = np.zeros_like(thresholds)
    nb["none"], lo["none"], hi["none"], tp["none"], fp["none"] = zero, zero, zero, zero, zero
    if not np.all(np.isfinite(lo["all"])):  # no spread to estimate: every strategy's interval is n/a
        notes.append("no interval (n/a): " + ("one row" if tot.n < 2 else
                     f"one row carries nearly all the weight (Kish effective size {size:.3g}, below 2)"))
    return DecisionCurve(thresholds=thresholds.copy(), models=models.names, net_benefit=nb, ci_low=lo, ci_high=hi,
                         tp=tp, fp=fp, n=models.n, prevalence=tot.w1 / tot.w, level=level, notes=tuple(notes),
                         n_effective=None if w is None else kish_size(w))


def decision_curve(
    data: Any,
    labels: Any = None,
    *,
    scores: Any = None,
    label: Any = None,
    thresholds: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
) -> DecisionCurve:
    r"""Decision curve (net benefit against threshold probability) of one or more models, with
    "treat all" and "treat none" and a MOVER-Wilson interval per point; ``thresholds`` are
    probabilities in [0, 1) (default 0.01, …, 0.99). ``.rows``: one per (threshold, model).

    Array form ``decision_curve({"A": p_a, "B": p_b}, labels)`` (or one array); frame form
    ``decision_curve(frame, scores=["A", "B"], label="y")``. See :mod:`veracity.comparison._decision_curve`.

    >>> dc = decision_curve({"m": [.1, .4, .35, .8]}, [0, 0, 1, 1], thresholds=[0.3])
    >>> [(r.model, round(r.net_benefit, 4)) for r in dc.rows]
    [('m', 0.3929), ('all', 0.2857), ('none', 0.0)]
    """
    level = check_level(level)
    check_score_type(score_type, probabilities=True, what="vc.decision_curve")
    grid = check_thresholds(thresholds, "thresholds", DEFAULT_THRESHOLDS, upper_open=True)
    models, _, _ = models_of(data, labels, scores=scores, label=label, sample_weight=sample_weight,
                             pos_label=pos_label, score_type=score_type, what="vc.decision_curve", minimum=1)
    taken = [m for m in models.names if m in ("all", "none")]
    if taken:  # its curve and the strategy's would share one name, and one would replace the other
        raise VeracityError(
            f"a model named {taken[0]!r} would be confused with the 'treat {taken[0]}' strategy, which the decision "
            f"curve names {taken[0]!r}; rename the model, e.g. '{taken[0]}_model'")
    return decision_curve_of(models, grid, level)
