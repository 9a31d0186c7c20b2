r"""Expected against realised cost at a deployed threshold.

At threshold t, a row is flagged when :math:`p \ge t`. For a declared cost pair (a false
positive costs :math:`c_{FP}`, a miss :math:`c_{FN}`) the scores *predict* the cost

.. math:: \hat C = \frac1W \sum_i w_i\big(f_i\,c_{FP}(1 - p_i) + (1 - f_i)\,c_{FN}\,p_i\big)

(each flagged row is a false alarm with probability 1 − p, each unflagged one a miss with
probability p), while the cost that happened is
:math:`C = \frac1W \sum_i w_i\big(f_i\,c_{FP}(1 - y_i) + (1 - f_i)\,c_{FN}\,y_i\big)`. Their gap

.. math:: C - \hat C = \frac1W \sum_i w_i\,(y_i - p_i)\,\big(c_{FN}(1 - f_i) - c_{FP} f_i\big)

is the calibration error *that the decision pays for*: it weighs miscalibration by where
the rows sit relative to the threshold, so a model with a small ECE can still misjudge
its cost by much.

Given the scores the decisions are fixed, and C is a combination of two independent proportions on
disjoint rows: :math:`C = a\,\hat q_F + b\,\hat r_U` with :math:`\hat q_F` the (weighted) share of
negatives among the flagged rows, :math:`\hat r_U` that of positives among the unflagged,
:math:`a = c_{FP} W_F / W` and :math:`b = c_{FN} W_U / W` (:math:`W_F`, :math:`W_U` the weight flagged and
not). Its interval covers :math:`a\,E\hat q_F + b\,E\hat r_U`, the expected cost of these rows' decisions
at their true risks, by MOVER (Zou & Donner 2008; Newcombe's "method of variance estimates recovery")
from each proportion's interval :math:`[l, u]` (weighted: at an effective size, below): Wilson's, its end
toward the nearer bound (0 or 1) moved out to Clopper–Pearson's exact one where the count on that side is
below 20 (:func:`_share_interval`). Wilson's end toward 0 is too far in for a count of a few (0.18 events for
one seen; the exact 0.025): at 2-5 % event rates on 100 rows (thresholds 0.05-0.5, a miss costing 5-20 or a
false alarm 5; calibrated scores and scores 1.5 times the risk; 1,500 draws a cell) the truth lay below
Wilson's 95 % interval in 0.3-6.2 % of draws (nominal 2.5 %), on 300 rows in 0.9-4.5 %, above it in at
most 3.0 %; now 0.2-1.9 %, 0.5-2.7 % and 2.6 %, at a median width 0-6 % more
(tests/comparison/test_cost_few_events_r34.py); on 10-30 rows of common events 8-9 % more (coverage
0.98-0.99, from 0.97-0.98). The decision curve's modified Wilson interval
(:func:`veracity.core._intervals.modified_wilson`: Garwood's Poisson bound below 10 counts, at both ends)
left 3.0-4.0 % below on 300 rows (misses at counts of 10-17; since round 35 it takes the exact end from 10
counts on too) and was up to 26 % wider where a few rows are flagged (a Poisson bound reads a share of a
few rows near 1 as far less certain than it is).

Weighted, a side's weight :math:`W_F` (or :math:`W_U`) and the total W may move with the labels (positives
weighing 1/π), so each share's Wilson interval is at the size that matches the variance of the side's
term in C's linearisation, :math:`\sum_{side} w_i(c_i - C)/W = a\sum_{side} w_i(d_i - \theta)/W_F`
(:math:`d_i` 1 on the rows the share counts, :math:`\theta = C/c` the side's cost c), the side's n rows
read as drawn alike: :math:`m = W_F^2\,\hat q(1-\hat q)/[(1-\theta)^2\rho_D W_D + \theta^2\rho_R W_R
- (W_D - \theta W_F)^2/n]` (:func:`veracity.comparison._decision_curve.share_size` with its centre; the
:math:`\rho` read from the counted rows', their class's and the side's weights; the rows themselves for
equal weights, whatever θ). Kish's :math:`(\sum w)^2/\sum w^2` of the side's rows (round 31) misread a
share whose rows weigh other than the side's average: with positives weighing 1/π at a 5 % rate it covered
0.37-0.64 at t = 0.02 with a miss costing 10 (tests/comparison/test_cost_weights_r32.py); the share's own
size about its own mean (θ = q̂, round 32's first) took the side's weight as fixed and covered 0.91-0.94 at
1-20 % rates on 1,000-5,000 rows (t = 0.02-0.3, a miss costing 2-10), now 0.95-0.96 (1,000 draws a cell;
tests/comparison/test_cost_class_weights_r32.py). Over 1-50 % rates, 300-5,000 rows, t = 0.02-0.9 and a
miss costing 1-10 (1,000 draws a cell) the lowest coverage under class weights went from 0.91 to 0.95
where a draw holds 10 or more positives on average; at a 1 % rate on 300 rows (three positives, half the
weight) it stays 0.86-0.90. Under log-normal and score-dependent weights, which do not move with the
labels, it is 0.95-1.00, as before. The interval is then

.. math:: C - \sqrt{a^2(\hat q_F - l_F)^2 + b^2(\hat r_U - l_U)^2},\qquad
          C + \sqrt{a^2(u_F - \hat q_F)^2 + b^2(u_U - \hat r_U)^2}

— inside :math:`[0, a + b] \subseteq [0, \max(c_{FP}, c_{FN})]`, and of positive width unless every
row costs 0 whatever its label. The expected cost :math:`\hat C` is fixed given the scores, so the
gap's interval is C's less :math:`\hat C`. (The Student-t interval of the per-row means it replaces
covered 81–88 % at 95 % on 5–30 rows at threshold 0.3 with a miss costing 5.)

The p-value tests "the scores predict the cost" under the law the scores themselves state: given
the scores, each label :math:`y_i \sim \mathrm{Bernoulli}(p_i)` independently, so the realised total
:math:`S = \sum_i b_i y_i`, :math:`b_i = w_i(c_{FN}(1 - f_i) - c_{FP} f_i)`, has mean
:math:`\mu = \sum_i b_i p_i` and the p-value is :math:`P(|S^* - \mu| \ge |S - \mu|)`. Its law is
known, so no variance is estimated from the rows (a Student-t test of the per-row gaps, skewed by
rare misses, called a calibrated model off in 10–13 % of draws at 5 % on 5–30 rows):

* ``method="exact"`` — unweighted (or equal weights), up to 20,000 rows: S = c_FN·K_U − c_FP·K_F
  with K_U, K_F the Poisson-binomial counts of positives among the unflagged and the flagged
  rows; their laws (products of the rows' polynomials :math:`1 - p_i + p_i x`, by FFT) give the
  p-value exactly.
* ``method="monte-carlo"`` — unequal weights, up to 20,000 rows: ``n_resamples`` redraws of
  every label as Bernoulli(p) (:func:`veracity.honest._noise_floor.redraw_bin_sums`), seeded by
  ``random_state`` (None: the fixed seed 0), :math:`(1 + \#\{|S^* - \mu| \ge |S - \mu|\})/(R + 1)`.
* ``method="normal"`` — above 20,000 rows: :math:`z = (S - \mu)/\sqrt{\sum_i b_i^2 p_i(1 - p_i)}`,
  the variance of the law (the skewness term cancels between the two tails: a level error of order 1/n).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._weights import kish_size
from ..core._display import Display, interval_cell
from ..core._intervals import binomial_interval, wilson_bounds
from ..core._metrics import check_threshold
from ..core._special import betaincinv, ndtri
from ..core._text import fmt, render_table, visible
from ..core._validation import VeracityError
from ..decisions._inputs import check_cost
from ..honest._common import check_count, check_level, check_seed
from ._compare import _fmt_p
from ._decision_curve import share_size
from ._digits import Cell, decimals
from ._inputs import check_score_type, models_of
from ._signs import signed


@dataclass(frozen=True)
class CostRow:
    """One model at the deployed threshold: cost per row predicted (``expected``) and realised."""

    model: str
    threshold: float
    flagged: float
    expected: float
    realised: float
    realised_low: float
    realised_high: float
    gap: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str = "exact"  # of the p-value: "exact", "monte-carlo" or "normal" (module docstring)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "model", "threshold", "flagged", "expected", "realised", "realised_low", "realised_high", "gap",
            "ci_low", "ci_high", "p_value", "method")}


@dataclass(frozen=True, eq=False, repr=False)
class RealisedCost(Display):
    """Expected and realised cost per row at a threshold for each model (see :func:`realised_cost`)."""

    rows: tuple[CostRow, ...]
    threshold: float
    cost_fp: float
    cost_fn: float
    n: int
    level: float
    notes: tuple[str, ...] = ()
    n_resamples: int = 2000
    random_state: Any = 0

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "threshold": self.threshold, "cost_fp": self.cost_fp, "cost_fn": self.cost_fn,
                "level": self.level, "rows": [r.to_dict() for r in self.rows], "notes": list(self.notes),
                "n_resamples": self.n_resamples,
                "random_state": self.random_state if isinstance(self.random_state, int) else None}

    def _summary_items(self) -> dict[str, Any]:
        return {"n": self.n, "threshold": self.threshold, "cost_fp": self.cost_fp, "cost_fn": self.cost_fn}

    def _cells(self) -> list[list[str]]:
        """Each row's numbers as printed: flagged, expected, realised, its interval's ends, gap, its interval's
        ends. The decimals are :func:`._digits.decimals`' rule, shared down the table (the models are read
        against each other): the flagged shares at theirs, and the costs per row at those of every expected
        cost, realised cost with its interval and gap with its interval (one group each) — at a 0.5 % base
        rate and 1:1 costs a gap of -0.00002 read "+0.0000 [-0.0007, +0.0008]"."""
        share = decimals(*(r.flagged for r in self.rows))
        cost = decimals(*(g for r in self.rows for g in (
            r.expected, (r.realised, r.realised_low, r.realised_high), (r.gap, r.ci_low, r.ci_high))))
        return [[fmt(r.flagged, share), fmt(r.expected, cost), fmt(r.realised, cost), fmt(r.realised_low, cost),
                 fmt(r.realised_high, cost), signed(r.gap, cost), signed(r.ci_low, cost),  # never "-0.0000"
                 signed(r.ci_high, cost)] for r in self.rows]

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        body = [[r.model, *t[:3], interval_cell(t[3], t[4]), t[5], interval_cell(t[6], t[7]), _fmt_p(r.p_value)]
                for r, t in zip(self.rows, self._cells())]
        return (f"Expected vs realised cost per row at threshold {self.threshold:g} (flag p >= t; a false alarm "
                f"costs {self.cost_fp:g}, a miss {self.cost_fn:g}; {self.n:,} row{'s' if self.n != 1 else ''}):\n"
                + render_table(["model", "flagged", "expected", "realised", f"{pct} CI", "gap", f"{pct} CI",
                                "p-value"], [*body])
                + f"\np-value of gap 0: {self._method_text()}"
                + "".join(f"\nnote: {visible(t)}" for t in self.notes))

    def _repr_html_(self) -> str:
        """The notebook view: the printout's table (the realised cost's interval as one cell) and its
        "p-value of gap 0" line, which the generic view left out with the method it names."""
        from ..core._display import html_kv, html_note, html_page, html_table

        pct = f"{self.level * 100:g}%"
        # each number as the printout writes it, at its column's decimals (:meth:`_cells`)
        records = [{"model": r.model, **{k: Cell(v) for k, v in zip(("flagged", "expected", "realised"), t)},
                    f"{pct} CI of realised": interval_cell(t[3], t[4]), "gap": Cell(t[5]),
                    "ci_low": Cell(t[6]), "ci_high": Cell(t[7]), "p-value": _fmt_p(r.p_value),
                    "method": r.method} for r, t in zip(self.rows, self._cells())]
        parts = [html_kv(self._summary_items()), html_table(records, wide=True, signed=("gap", "ci_low")),
                 html_note(f"p-value of gap 0: {self._method_text()}"),
                 *(html_note(f"note: {t}") for t in self.notes)]
        return visible(html_page(self._title(), parts, str(self)))

    def _method_text(self) -> str:
        methods = {r.method for r in self.rows}
        says = {"exact": "exact", "normal": f"normal approximation (over {_EXACT_ROWS:,} rows)",
                "monte-carlo": (f"Monte-Carlo ({self.n_resamples:,} redraws, random_state "
                                f"{self.random_state})")}
        how = ", ".join(says[m] for m in ("exact", "monte-carlo", "normal") if m in methods)
        return (f"{how}, from the law of the realised cost if the scores are calibrated "
                "(each label Bernoulli(p))")


def cost_of(models: Any, threshold: float, cost_fp: float, cost_fn: float, level: float,
            n_resamples: int = 2000, seed: Any = 0) -> RealisedCost:
    y, w = models.y, models.w
    rows = []
    for name, d in zip(models.names, models.data):
        p = d.p
        f = p >= threshold
        expected = np.where(f, cost_fp * (1.0 - p), cost_fn * p)
        realised = np.where(f, cost_fp * (1.0 - y), cost_fn * y)
        real = float(realised.mean()) if w is None else float(np.dot(w, realised) / w.sum())
        flagged = float(f.mean()) if w is None else float(np.dot(w, f) / w.sum())
        exp_mean = float(expected.mean()) if w is None else float(np.dot(w, expected) / w.sum())
        below, above = _cost_interval(f, y, w, cost_fp, cost_fn, level)
        # a cost per row lies in [0, max(c_FP, c_FN)]: MOVER of two Wilson intervals stays there (a guard
        # against rounding); no width only when every row costs 0 whatever its label, an exact 0
        low, high = max(real - below, 0.0), min(real + above, max(cost_fp, cost_fn))
        gap_p, method = _gap_p_value(p, y, f, w, cost_fp, cost_fn, n_resamples, seed)
        rows.append(CostRow(name, threshold, flagged, exp_mean, real, low, high, real - exp_mean,
                            low - exp_mean, high - exp_mean, gap_p, method))
    return RealisedCost(rows=tuple(rows), threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn, n=models.n,
                        level=level, n_resamples=n_resamples, random_state=seed)


def _cost_interval(f: np.ndarray, y: np.ndarray, w: np.ndarray | None, cost_fp: float, cost_fn: float,
                   level: float) -> tuple[float, float]:
    r"""``(below, above)``: how far the MOVER interval of the realised cost per row
    :math:`C = a\,\hat q_F + b\,\hat r_U` reaches below and above C, from the intervals
    (:func:`_share_interval`) of the share of negatives among the flagged rows and of positives among the
    unflagged (module docstring); weighted, each share's interval is at the effective size of the side's term
    of C's linearisation, centred at :math:`C/c` (module docstring). A side whose rows cost 0 adds nothing."""
    total = float(f.size) if w is None else float(w.sum())
    real = 0.0 if w is None else float(np.dot(w, np.where(f, cost_fp * (1.0 - y), cost_fn * y)) / total)
    lo2, hi2 = 0.0, 0.0
    for side, cost, miss in ((f, cost_fp, 1.0 - y), (~f, cost_fn, y)):
        ws = None if w is None else w[side]
        weight = float(np.count_nonzero(side)) if ws is None else float(ws.sum())
        if cost == 0.0 or not weight > 0.0:  # no row on this side costs anything
            continue
        if w is None or ws is None:  # the counts themselves (w None too: for the type checker)
            size = weight
            share = float(np.count_nonzero(miss[side])) / size
        else:  # the share's own effective size (veracity.comparison._decision_curve.share_size)
            missed = miss[side]
            wc = w[miss == 1.0]  # the class the share counts, over all rows: its weights floor the share's
            share = float(np.dot(ws, missed) / weight)
            lost = ws[missed == 1.0]
            size = float(share_size(np.array(float(lost.sum())), np.array(float(np.dot(lost, lost))),
                                    float(wc.sum()), float(np.dot(wc, wc)), weight,
                                    float(np.dot(ws, ws)), kish_size(ws), centre=real / cost,
                                    rows=int(np.count_nonzero(ws > 0.0))))
        lo, hi = _share_interval(share, size, level)
        a = cost * weight / total
        lo2 += (a * (share - min(lo, share))) ** 2
        hi2 += (a * (max(hi, share) - share)) ** 2
    return math.sqrt(lo2), math.sqrt(hi2)


#: a share's count below this reads Clopper–Pearson's end where it is further out than Wilson's
#: (:func:`_share_interval`; module docstring)
EXACT_END_BELOW = 20


def _share_interval(share: float, size: float, level: float) -> tuple[float, float]:
    r"""The interval of one share ``share`` of ``size`` (effective) rows :math:`m`: Wilson's, its end toward
    the nearer bound moved out to Clopper–Pearson's exact one where the count on that side is below
    :data:`EXACT_END_BELOW` — the lower end to :math:`B_{\alpha/2}(x, m - x + 1)` where
    :math:`x = \text{share}\cdot m \le m/2` and :math:`x` is below it, the upper end to
    :math:`B_{1-\alpha/2}(x + 1, m - x)` where :math:`m - x < m/2` is (module docstring)."""
    x = min(max(share, 0.0), 1.0) * size
    if not 0.0 <= size < math.inf:  # a size that is no count: binomial_interval's refusal (it raises)
        binomial_interval(np.array(x), np.array(size))
    lo, hi = _wilson_ends(x, size, _wilson_z(level))
    few = EXACT_END_BELOW - 1e-9
    if x <= size - x:
        return (min(lo, _exact_end(x, size, level, True)) if x < few else lo), hi
    return lo, (max(hi, _exact_end(x, size, level, False)) if size - x < few else hi)


@functools.lru_cache(maxsize=64)
def _wilson_z(level: float) -> float:
    """The normal quantile of a two-sided ``level``, as :func:`..core._intervals.binomial_interval` reads
    it."""
    alpha = 1.0 - float(level)
    return float(ndtri(1.0 - alpha / 2.0))


def _wilson_ends(x: float, size: float, z: float) -> tuple[float, float]:
    r"""``binomial_interval(x, size, method="wilson")`` of one count :math:`0 \le x \le m` = ``size``:
    :func:`..core._intervals.wilson_bounds` cut to [0, 1], without ``binomial_interval``'s array checks —
    the cost table asks two of them per model and threshold (a simulation: tens of thousands)."""
    low, high = (float(v) for v in wilson_bounds(np.float64(x), np.float64(size), z))
    return min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)


def _exact_end(x: float, size: float, level: float, lower: bool) -> float:
    r"""One end of ``binomial_interval(x, size, method="clopper-pearson", level=level)`` (``lower``: the
    lower) of one count :math:`0 \le x \le m` = ``size``, :math:`m > 0`: :math:`B_{\alpha/2}(x, m - x + 1)`
    (0 at :math:`x = 0`), or :math:`B_{1-\alpha/2}(x + 1, m - x)` (1 at :math:`x = m`), cut to [0, 1] — the
    same ``betaincinv`` of the same float arguments, without the array checks."""
    tail = (1.0 - float(level)) / 2.0
    if lower:
        end = float(betaincinv(x, size - x + 1.0, tail)) if x > 0 else 0.0
    else:
        end = float(betaincinv(x + 1.0, size - x, 1.0 - tail)) if x < size else 1.0
    return min(max(end, 0.0), 1.0)


_EXACT_ROWS = 20_000  # rows of positive weight up to which the p-value is exact (or Monte-Carlo)


def _gap_p_value(p: np.ndarray, y: np.ndarray, f: np.ndarray, w: np.ndarray | None, cost_fp: float,
                 cost_fn: float, n_resamples: int, seed: Any) -> tuple[float, str]:
    r"""``(p_value, method)`` of "the scores predict the cost": :math:`P(|S^* - \mu| \ge |S - \mu|)`
    for :math:`S = \sum_i b_i y_i`, :math:`b_i = w_i(c_{FN}(1 - f_i) - c_{FP} f_i)`, under
    :math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` independently (module docstring). A value the law
    cannot reach (a score of 0 or 1 its label contradicts) has p-value 0."""
    if w is not None:
        keep = w > 0  # a row of weight 0 is a dropped row: it draws no label
        p, y, f, w = p[keep], y[keep], f[keep], w[keep]
        if w.size == 0 or np.all(w == w[0]):
            w = None  # equal weights: the unweighted law scaled
    b = np.where(f, -cost_fp, cost_fn)
    if w is not None:
        b = b * (w / w.max())  # scaled by the largest weight: no overflow, the same p-value
    mu, s = float(np.dot(b, p)), float(np.dot(b, y))
    dist = abs(s - mu)
    tol = 1e-9 * float(np.abs(b).sum())  # the same total summed in another order: equal up to rounding
    var = float(np.dot(b * b, p * (1.0 - p)))
    if dist <= tol:
        return 1.0, "exact"
    if var == 0.0:  # every label certain under the scores, and one of them is not what they say
        return 0.0, "exact"
    if p.size > _EXACT_ROWS:
        return float(math.erfc(dist / math.sqrt(2.0 * var))), "normal"
    if w is None:
        return _exact_p_value(p, f, cost_fp, cost_fn, mu, dist, tol), "exact"
    from ..honest._noise_floor import redraw_bin_sums

    order = np.lexsort((b, p))  # an order that depends only on the rows: the same redraws, however given
    sims = redraw_bin_sums(p[order], b[order], np.zeros(p.size, dtype=np.intp), 1, n_resamples,
                           np.random.default_rng(seed))[:, 0]
    hits = np.count_nonzero(np.abs(sims - mu) >= dist - tol)
    return float((1.0 + hits) / (n_resamples + 1.0)), "monte-carlo"


def _exact_p_value(p: np.ndarray, f: np.ndarray, cost_fp: float, cost_fn: float, mu: float, dist: float,
                   tol: float) -> float:
    r""":math:`P(|c_{FN} K_U - c_{FP} K_F - \mu| \ge d)` for the independent Poisson-binomial counts
    of positives among the unflagged (K_U) and flagged (K_F) rows; rows of cost 0 left out."""
    pu = _poisson_binomial(p[~f] if cost_fn > 0 else p[:0])
    pf = _poisson_binomial(p[f] if cost_fp > 0 else p[:0])
    cu = cost_fn if cost_fn > 0 else 1.0  # K_U is then 0: any positive scale reads it the same
    shift = mu + cost_fp * np.arange(pf.size)  # S - mu = cu K_U - (mu + c_FP K_F)
    lo = np.clip(np.ceil((shift + dist - tol) / cu), 0, pu.size).astype(np.intp)  # K_U >= lo: S - mu >= d
    hi = np.clip(np.floor((shift - dist + tol) / cu) + 1, 0, pu.size).astype(np.intp)  # K_U < hi: <= -d
    below = np.concatenate([[0.0], np.cumsum(pu)])  # below[k] = P(K_U < k)
    above = np.concatenate([np.cumsum(pu[::-1])[::-1], [0.0]])  # above[k] = P(K_U >= k)
    return float(min(1.0, np.dot(pf, above[lo] + below[hi])))


def _poisson_binomial(p: np.ndarray) -> np.ndarray:
    r"""The law of :math:`\sum_i y_i`, :math:`y_i \sim \mathrm{Bernoulli}(p_i)`: the coefficients of
    :math:`\prod_i (1 - p_i + p_i x)`, multiplied pairwise in a tree (FFT once long, negative
    rounding clipped to 0)."""
    n = p.size
    size = 1 << max(0, n - 1).bit_length()
    polys = np.zeros((size, 2))
    polys[:, 0] = 1.0
    polys[:n, 0], polys[:n, 1] = 1.0 - p, p
    while polys.shape[0] > 1:
        a, c = polys[0::2], polys[1::2]
        k = polys.shape[1]
        if k <= 32:
            out = np.zeros((a.shape[0], 2 * k - 1))
            for j in range(k):
                out[:, j:j + k] += a * c[:, j:j + 1]
        else:
            m = 1 << (2 * k - 2).bit_length()
            out = np.fft.irfft(np.fft.rfft(a, m) * np.fft.rfft(c, m), m)[:, :2 * k - 1]
            np.clip(out, 0.0, None, out=out)
        polys = out
    return polys[0, :n + 1]


def _threshold(threshold: Any) -> float:
    """``threshold=`` refused unless one probability in [0, 1], by the one check of ``threshold=``
    (:func:`veracity.core._metrics.check_threshold`, whose message shows the value as given); -0.0 is 0.0
    (it printed "at threshold -0")."""
    return check_threshold(threshold) + 0.0


def realised_cost(
    data: Any,
    labels: Any = None,
    *,
    threshold: float,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    scores: Any = None,
    label: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
    n_resamples: int = 2000,
    random_state: Any = None,
) -> RealisedCost:
    r"""At a deployed ``threshold`` (a probability; rows with p ≥ t are flagged) and a declared cost
    pair, the cost per row the scores predict against the cost that happened, with intervals
    (see :mod:`veracity.comparison._cost`). One array, or a dict of models; frame form with
    ``scores=`` and ``label=``. The p-value of the gap is exact from the law of the labels under
    calibration; with unequal weights it is by Monte Carlo, ``n_resamples`` redraws seeded by
    ``random_state`` (None: the fixed seed 0); ``method`` on each row says which.

    >>> r = realised_cost([.1, .4, .35, .8], [0, 0, 1, 1], threshold=0.3, cost_fn=5)
    >>> row = r.rows[0]
    >>> round(row.expected, 4), round(row.realised, 4), round(row.gap, 4)
    (0.4875, 0.25, -0.2375)
    """
    level = check_level(level)
    n_resamples = check_count(n_resamples, "n_resamples")
    seed = 0 if random_state is None else check_seed(random_state)  # a report: the same rows, the same p
    check_score_type(score_type, probabilities=True, what="vc.realised_cost")
    t = _threshold(threshold)
    c_fp, c_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    if c_fp == 0.0 and c_fn == 0.0:  # every cost 0: a table of zeros and p = 1, no comparison at all
        raise VeracityError("cost_fp and cost_fn are both 0; give at least one a positive cost", param="cost_fp")
    models, _, _ = models_of(data, labels, scores=scores, label=label, sample_weight=sample_weight,
                             pos_label=pos_label, score_type=score_type, what="vc.realised_cost", minimum=1)
    return cost_of(models, t, c_fp, c_fn, level, n_resamples, seed)
