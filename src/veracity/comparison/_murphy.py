r"""Murphy diagrams: every model's mean elementary score at every threshold θ (Ehm et al. 2016).

For probability forecasts of a binary event the elementary scores are

.. math:: S_\theta(p, y) = |\mathbb 1\{y < \theta\} - \mathbb 1\{p < \theta\}|\,|y - \theta|
          = \theta\,[y = 0,\ p \ge \theta] + (1 - \theta)\,[y = 1,\ p < \theta],

the regret of acting on "p ≥ θ" when a false alarm costs θ and a miss 1 − θ. Every
proper score is a mixture of them (Brier: :math:`\int_0^1 S_\theta\,d\theta = (p - y)^2 / 2`),
so a model whose curve lies below another's at every θ is better for *every* cost ratio;
where the curves cross, which model to deploy depends on the costs.

The mean over rows at θ needs only the (weighted) counts of scores at or above θ in each
class, so all θ cost one sort per model and class.

The paired difference B − A at θ is a linear combination of four shares of one multinomial: per row,
:math:`d_i(\theta) \in \{0, \pm\theta, \pm(1-\theta)\}` is non-zero only on the *discordant* rows, where
the two models fall on different sides of θ — negatives only B flags (+θ) or only A flags (−θ), positives
only B misses (+(1 − θ)) or only A misses (−(1 − θ)); the rows where *both* do are counted with
:math:`\min(p_A, p_B) \ge \theta`. With :math:`p_1, \dots, p_4` those cells' shares of :math:`\sum w` and
:math:`c = (\theta, -\theta, 1-\theta, -(1-\theta))`, :math:`d = \sum_k c_k p_k`, and the band is MOVER
(Zou & Donner 2008; Newcombe 1998; as the decision curve's) of the four cells' Wilson intervals
:math:`[l_k, u_k]` at effective sizes :math:`m_k`:

.. math:: L = d - \sqrt{\textstyle\sum_{k,l} \rho_{kl}\, e_k e_l},\quad
          e_k = c_k (p_k - l_k)\ (c_k > 0),\ |c_k| (u_k - p_k)\ (c_k < 0),

U likewise with the other ends, :math:`\rho_{kl} = -\mathrm{sign}(c_k c_l)\sqrt{p_k p_l/((1-p_k)(1-p_l))}`
(:math:`k \ne l`, the multinomial correlation; 1 on the diagonal). Where every cell holds many rows this
is the normal interval of the per-row differences (:math:`\sum \rho\,e e \to z^2 \widehat{\mathrm{Var}}(d)`);
where a cell holds a few, its Wilson interval is the score interval of that cell, skewed away from 0 and
reaching :math:`z^2/(m + z^2)` from an empty one — at θ = 0.02 and a 5 % rate d is a few hundred rows of
weight 0.02 against two or three of weight −0.98, and a t band (with or without round 31's half pseudo-row
per cell) read the three rows seen, or none, as the law. :math:`m_k` is n unweighted; weighted, the
effective size of the discordant rows of the cell's class, :math:`(W_D/S_D)\sum w` (:math:`W_D, S_D` their
:math:`\sum w, \sum w^2`), at most the class's own :math:`(W_c/S_c)\sum w` (the class's where the models
agree on all its rows; Kish's size of all rows for a class with none): a cell's variance is read from the
weights of the rows near θ (weights that grow with the score), never below what its class's weights give
(a few light rows seen), and class weights count a positive's weight (round 31's pseudo-rows were of the
rows' mean weight: under positives weighing 19 at a 5 % rate it covered 0.27-0.99). The p-value inverts the
band (the smallest 1 − level whose band excludes 0, by bisection on z).

Seeded simulations (tests/comparison/test_murphy_band_r32.py; 1,000 data sets per cell, truths integrated
over the law): event rates 1, 5, 20, 50 %, 300, 1,000 and 5,000 rows, θ = 0.02-0.98, a calibrated A against
an overconfident B, a planted B = sigmoid(base + 0.4 x) and two exchangeable models (true difference 0),
unweighted, log-normal, class-balancing and score-dependent weights (1,296 cells). Coverage at 95 %:

* unweighted: 0.926-1.000 (the two cells below 0.93 are the t band's own at 5,000 rows and a 50 % rate);
  round 31's band 0.92-1.00, one-sided where it failed: at 1 % events, 1,000 rows, θ = 0.02-0.05, 0.92 and
  0.93 with 7-8 % of draws above the truth (now 0.997-0.998); 5 % events, 1,000 rows, θ = 0.02 (planted),
  0.94 with 5.7 % above (now 0.998);
* log-normal weights 0.953-1.000 (round 31: 0.87-1.00, 23 cells below 0.93); class weights 0.943-1.000
  (0.27-1.00, 44 cells); score-dependent weights 0.941-1.000 (0.62-1.00, 21 cells);
* two exchangeable models called different (the band excludes 0): at most 7.4 % unweighted (the t band's
  own, 5,000 rows), 4.6-5.7 % weighted; 0.8-2 % on average; the 5 % / 300-row near-tie (2.5e-5) never.

Power (the share of draws whose band excludes 0 on the true side), where round 31's band covered at least
0.935: 0.130 on average unweighted (round 31: 0.146), 0.269 (0.272) with class weights, 0.055 (0.082)
log-normal, 0.123 (0.157) score-dependent; 1,000 rows at a 50 % rate, θ = 0.3 and 0.7: 0.68, 0.71 (0.73,
0.75, whose miss on that side was 3.2-4.3 %; now 2.6-3.2 %). The price is width where cells are small: on
150 rows with every cell holding 1-7 rows the band covers 0.97-0.99 (the t band 0.95-0.96). The band costs
the t band's counts (one sort per model and class for all θ) and a bisection for the p-value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import cumulative_slack
from ..core._display import Display, interval_cell
from ..core._intervals import wilson_bounds, wilson_spread
from ..core._special import ndtr
from ..core._stats import residuals
from ..core._text import fmt, render_table, visible
from ..core._weights import kish_size
from ..honest._common import check_level
from ._compare import _sci, rows_text
from ._counts import check_thresholds, class_counts, totals
from ._digits import Cell, decimals, holds_zero, noise_decimals, threshold_decimals
from ._inputs import check_score_type, models_of
from ._paired import from_moments, no_spread, student_df, weight_sums, z_of
from ._signs import signed

#: the default grid: 199 thresholds 0.005, 0.010, …, 0.995
DEFAULT_THETA = np.linspace(0.0, 1.0, 201)[1:-1]


@dataclass(frozen=True, eq=False)
class MurphyDifference:
    """Paired difference ``b - a`` of the mean elementary scores at each θ, with a pointwise band."""

    model_a: str
    model_b: str
    diff: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray

    def ranges(self, theta: np.ndarray) -> dict[str, list[tuple[float, float]]]:
        """θ ranges where the band excludes 0: ``{model_b: [...], model_a: [...]}`` (who is better where)."""
        out: dict[str, list[tuple[float, float]]] = {}
        for name, mask in ((self.model_b, self.ci_high < 0), (self.model_a, self.ci_low > 0)):
            spans, start = [], None
            for k, hit in enumerate(mask):
                if hit and start is None:
                    start = k
                if (not hit or k == mask.size - 1) and start is not None:
                    end = k if hit else k - 1
                    spans.append((float(theta[start]), float(theta[end])))
                    start = None
            out[name] = spans
        return out

    def to_dict(self, theta: np.ndarray) -> dict[str, Any]:
        return {"model_a": self.model_a, "model_b": self.model_b, "theta": theta.tolist(),
                "diff": self.diff.tolist(), "ci_low": self.ci_low.tolist(), "ci_high": self.ci_high.tolist(),
                "p_value": self.p_value.tolist(), "better": self.ranges(theta)}


@dataclass(frozen=True, eq=False, repr=False)
class MurphyDiagram(Display):
    """Mean elementary scores ``elementary[model][k]`` at ``theta[k]`` and the paired differences."""

    theta: np.ndarray
    elementary: dict[str, np.ndarray]
    differences: tuple[MurphyDifference, ...]
    brier: dict[str, float]
    n: int
    level: float
    #: Kish's effective size :math:`(\sum w)^2/\sum w^2` of weighted rows (None unweighted): the header says
    #: "weighted" beside it, as :class:`ModelComparison`'s does
    n_effective: float | None = None

    @property
    def difference(self) -> MurphyDifference | None:
        """The first pair's difference (None for a single model)."""
        return self.differences[0] if self.differences else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            **({} if self.n_effective is None else {"n_effective": self.n_effective}),
            "level": self.level,
            "theta": self.theta.tolist(),
            "elementary": {k: v.tolist() for k, v in self.elementary.items()},
            "brier": dict(self.brier),
            "differences": [d.to_dict(self.theta) for d in self.differences],
        }

    def _frame_records(self) -> list[dict[str, Any]]:
        records = []
        single = len(self.differences) == 1
        prefixes = ["" if single else f"{d.model_b} - {d.model_a} " for d in self.differences]
        taken = {"theta"} | {f"{p}{c}" for p in prefixes for c in ("diff", "ci_low", "ci_high")}
        # a model named like another column ("theta", "diff") replaced it, or was replaced: its curve under
        # "<name> (elementary)" instead
        column = {name: f"{name} (elementary)" if name in taken else name for name in self.elementary}
        for k, t in enumerate(self.theta):
            r: dict[str, Any] = {"theta": float(t)}
            r.update({column[name]: float(v[k]) for name, v in self.elementary.items()})
            for d, prefix in zip(self.differences, prefixes):
                r[f"{prefix}diff"] = float(d.diff[k])
                r[f"{prefix}ci_low"] = float(d.ci_low[k])
                r[f"{prefix}ci_high"] = float(d.ci_high[k])
            records.append(r)
        return records

    def _summary_items(self) -> dict[str, Any]:
        # the level as the printout and the model comparison's notebook view say it ("95%"), not "0.9500"
        weighted = ({} if self.n_effective is None else
                    {"weighted": f"Kish effective size {self.n_effective:,.1f}"})
        return {"n": self.n, **weighted, "thresholds": int(self.theta.size),
                "level": f"{self.level * 100:g}%"}

    def _repr_html_(self) -> str:
        """The notebook view, its differences and their bands signed as the printout signs them."""
        from ..core._display import html_result

        single = len(self.differences) == 1
        prefixes = ["" if single else f"{d.model_b} - {d.model_a} " for d in self.differences]
        places = threshold_decimals(self.theta)
        records = []
        # each row's numbers as the printout writes them (:meth:`_row_digits`), differences signed and never
        # "-0.0000"; the columns keep to_frame()'s names
        for k, r in enumerate(self._html_records()):
            digits = self._row_digits(k)
            texts = {f"{p}{c}": t for p, d in zip(prefixes, self.differences)
                     for c, t in zip(("diff", "ci_low", "ci_high"), self._pair_texts(k, d, digits))}
            cells: dict[str, Any] = {}
            for key, v in r.items():
                if key == "theta":
                    cells[key] = Cell(f"{v:.{places}f}")
                elif key in texts:
                    cells[key] = Cell(texts[key])
                else:
                    cells[key] = Cell(fmt(v, digits))
            records.append(cells)
        return html_result(self._title(), self._summary_items(), records, str(self))

    def _pair_full(self, k: int, d: MurphyDifference) -> int:
        """The decimals the digits rule asks at ``theta[k]`` (:func:`._digits.decimals`) of every model's
        mean elementary score and the pair ``d``'s difference with its band (one group) — at a 0.5 % base
        rate the differences printed "+0.0000 [-0.0001, +0.0000]"."""
        return decimals(*(float(v[k]) for v in self.elementary.values()),
                        (d.diff[k], d.ci_low[k], d.ci_high[k]))

    def _pair_digits(self, k: int, d: MurphyDifference) -> int:
        """:meth:`_pair_full`'s decimals, except for a difference within noise (its band holds 0,
        :func:`._digits.holds_zero`): no finer than show the mean elementary scores to 4 significant digits
        (:func:`._digits.noise_decimals`, the model comparison's rule) — B equal to A rounded to 4 decimals
        printed "0.116569  0.116565  -0.000004  [-0.000025, +0.000017]", digits of a difference the band
        calls noise."""
        full = self._pair_full(k, d)
        if not holds_zero(d.ci_low[k], d.ci_high[k]):
            return full
        return noise_decimals(full, *(float(v[k]) for v in self.elementary.values()))

    def _row_digits(self, k: int) -> int:
        """The decimals of the table's row at ``theta[k]``: the most any pair asks (:meth:`_pair_digits`);
        at least those of every model's mean elementary score (a single model: theirs)."""
        levels = decimals(*(float(v[k]) for v in self.elementary.values()))
        return max([levels, *(self._pair_digits(k, d) for d in self.differences)])

    def _pair_texts(self, k: int, d: MurphyDifference, digits: int) -> tuple[str, str, str]:
        """The pair ``d``'s difference and band ends at ``theta[k]`` printed at ``digits``: signed, the
        difference never "-0.0000"; where ``digits`` is below what the rule asks of it (:meth:`_pair_full`:
        within noise, capped), the ends signed by their side — "[-0.0000, +0.0000]" says the band holds 0,
        which an exact 0's "[+0.0000, +0.0000]" would not."""
        below = digits < self._pair_full(k, d)
        ends = [fmt(float(v), digits, sign=True) if below else signed(v, digits)
                for v in (d.ci_low[k], d.ci_high[k])]
        return signed(d.diff[k], digits), ends[0], ends[1]

    def _noise_note(self, d: MurphyDifference, shown: np.ndarray, places: int) -> str | None:
        """A note where the printed table's difference within noise, capped at the scores' 4 significant
        digits (:meth:`_pair_digits`), prints all its numbers as 0 at some thresholds though they are not 0
        (so that "+0.0000 [-0.0000, +0.0000]" is not read as two models alike there): the first such
        threshold's numbers at two significant digits (as the model comparison's notes), and the others'
        thresholds; None where there is none."""
        hits = []
        for k in shown:
            digits = self._row_digits(k)
            group = [float(v) for v in (d.diff[k], d.ci_low[k], d.ci_high[k])]
            if (digits < self._pair_full(k, d) and any(group)
                    and all(abs(v) < 0.5 * 10.0 ** -digits for v in group)):
                hits.append((k, digits, group))
        if not hits:
            return None
        k, digits, (v, lo, hi) = hits[0]
        more = ", ".join(f"{self.theta[j]:.{places}f}" for j, _, _ in hits[1:])
        return (f"{d.model_b} - {d.model_a} at theta {self.theta[k]:.{places}f} = {_sci(v)} [{_sci(lo)}, "
                f"{_sci(hi)}]: within noise, and 0 at the {digits} decimals that show the mean elementary "
                "scores to 4 significant digits" + (f" (likewise at theta {more})" if more else "")
                + "; to_dict() keeps every digit")

    def __str__(self) -> str:
        names = list(self.elementary)
        pct = f"{self.level * 100:g}%"
        shown = np.unique(np.array([int(np.argmin(np.abs(self.theta - q))) for q in np.linspace(0.1, 0.9, 9)]))
        if self.theta.size <= 12:
            shown = np.arange(self.theta.size)
        d = self.difference
        headers = ["theta", *names] + ([f"{d.model_b} - {d.model_a}", f"{pct} band"] if d is not None else [])
        body = []
        places = threshold_decimals(self.theta)  # a theta of 0.0025 printed "0.003"
        for k in shown:
            digits = self._row_digits(k)
            row = [f"{self.theta[k]:.{places}f}", *(fmt(self.elementary[m][k], digits) for m in names)]
            if d is not None:
                shown_diff, low, high = self._pair_texts(k, d, digits)
                row += [shown_diff, interval_cell(low, high)]
            body.append(row)
        lines = [f"Murphy diagram: mean elementary score at threshold theta (a false alarm costs theta, a miss "
                 f"1 - theta; lower is better), {rows_text(self.n, self.n_effective)}, "
                 f"{self.theta.size:,} threshold{'s' if self.theta.size != 1 else ''}:",
                 render_table(headers, body)]
        if _fine_uniform_grid(self.theta):  # only then is the grid's mean the integral, Brier / 2
            means = {m: (float(self.elementary[m].mean()), self.brier[m] / 2) for m in names}
            shown_means = [(m, v, h, decimals(v, h)) for m, (v, h) in means.items()]
            lines.append("mean over the theta grid (about Brier / 2): " + ", ".join(
                f"{m} {fmt(v, k)} (Brier/2 {fmt(h, k)})" for m, v, h, k in shown_means))
        note = None if d is None else self._noise_note(d, shown, places)
        if note is not None:
            lines.append(f"note: {note}")
        if d is not None and len(self.differences) > 1:  # the table shows the first pair's difference only
            lines.append(f"(the table's difference is {d.model_b} - {d.model_a}; every pair's is in "
                         ".differences and to_dict())")
        for diff in self.differences:
            flat = np.isnan(diff.ci_low) & np.isfinite(diff.diff)
            if self.n > 1 and flat.any():
                lines.append(f"note: at {int(flat.sum())} of {flat.size} thresholds every row's {diff.model_b} - "
                             f"{diff.model_a} difference is the same nonzero value (e.g. the labels all one class): no "
                             "band there (n/a), and no call of who is better")
            ranges = diff.ranges(self.theta)
            # several pairs: each line names its pair ("a is better at no threshold" then "a is better at
            # theta in [0.200, 0.200]", against two other models, read as a contradiction)
            pair = f"{diff.model_b} vs {diff.model_a}: " if len(self.differences) > 1 else ""
            for name in (diff.model_b, diff.model_a):
                spans = ranges[name]
                if spans:
                    text = ", ".join(f"[{a:.{places}f}, {b:.{places}f}]" for a, b in spans)
                    lines.append(f"{pair}{name} is better (the {pct} pointwise band excludes 0) at theta in "
                                 f"{text}")
                else:
                    lines.append(f"{pair}{name} is better at no threshold (the {pct} pointwise band never "
                                 "excludes 0 on its side)")
        found = any(spans for diff in self.differences for spans in diff.ranges(self.theta).values())
        if found and self.theta.size > 1:
            lines.append(_POINTWISE.format(pct=pct, alpha=f"{(1 - self.level) * 100:g}%", k=self.theta.size))
        return visible("\n".join(lines))  # model names in the prose: escaped as in the tables


#: under a "better at theta in ..." line: each threshold's band is tested on its own, so two equally good
#: models were read "b is better at theta in [0.025, 0.025]" — one of 199 thresholds, excluded by chance
_POINTWISE = ("(each {pct} band holds at its own threshold: about {alpha} of the {k:,} thresholds exclude 0 "
              "by chance alone, even for two equally good models; read a wide range of theta, not a lone "
              "threshold)")


def _fine_uniform_grid(theta: np.ndarray) -> bool:
    """Whether ``theta`` is an evenly spaced grid of at least 50 points across (0, 1), on which
    the mean elementary score approximates its integral over theta (Brier / 2)."""
    if theta.size < 50:
        return False
    step = np.diff(theta)
    return bool(step.min() > 0 and step.max() <= 1.01 * step.min() and theta[0] <= 2 * step[0]
                and 1.0 - theta[-1] <= 2 * step[0])


class _Cells:
    r"""The four cells' shares and sizes stacked on a first axis, with the z-free part of Wilson's bounds
    (:func:`..core._intervals.wilson_spread`) computed once: the p-value's bisection asks :meth:`reach` at
    40 z a band."""

    def __init__(self, shares: tuple[np.ndarray, ...], sizes: tuple[np.ndarray, ...]) -> None:
        arrays = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (*shares, *sizes)))
        self.share, self.size = np.stack(arrays[:4]), np.stack(arrays[4:])
        self.k = self.share * self.size
        self.spread = wilson_spread(self.k, self.size)

    def reach(self, z: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""How far Wilson's interval of each cell's share :math:`p` at effective size :math:`m` reaches below
        and above :math:`p` at ``z`` (a number, or an array on new leading axes):
        :math:`\frac{pm + z^2/2}{m + z^2} \pm \frac{z}{m + z^2}\sqrt{p(1-p)\,m + z^2/4}`, cut to
        :math:`[0, 1]`; ``(below, above)``, cells on the first axis."""
        z = np.asarray(z, dtype=float)
        lead = z.ndim - (self.k.ndim - 1)  # z's own leading axes (the bisection's levels), after the cells'
        shape = (4,) + (1,) * max(lead, 0) + self.k.shape[1:]
        k, n, spread, share = (v.reshape(shape) for v in (self.k, self.size, self.spread, self.share))
        low, high = wilson_bounds(k, n, z, spread)
        return share - np.clip(low, 0.0, share), np.clip(high, share, 1.0) - share


def _mover(mean: np.ndarray, shares: tuple[np.ndarray, ...], sizes: tuple[np.ndarray, ...],
           theta: np.ndarray) -> Any:
    """The MOVER band of the module doc as functions of the normal quantile z: ``band(z) -> (low, high)``,
    and ``near(z, above)`` -> the band's end on 0's side (``low`` where ``above``, else ``high``), as band's
    numbers element by element."""
    cost = 1.0 - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = [np.sqrt(s / (1.0 - s)) for s in shares]  # r_kl = odds_k · odds_l, the shares' correlation
    o1, o2, o3, o4 = (np.where(np.isfinite(o), o, 0.0) for o in odds)  # a share of 1: the others are 0
    r12, r34, r14, r23, r13, r24 = o1 * o2, o3 * o4, o1 * o4, o2 * o3, o1 * o3, o2 * o4
    cells = _Cells(shares, sizes)

    def reach(e1: np.ndarray, e2: np.ndarray, e3: np.ndarray, e4: np.ndarray) -> np.ndarray:
        q = (e1 * e1 + e2 * e2 + e3 * e3 + e4 * e4
             + 2.0 * (r12 * e1 * e2 + r34 * e3 * e4 + r14 * e1 * e4 + r23 * e2 * e3
                      - r13 * e1 * e3 - r24 * e2 * e4))
        return np.sqrt(np.maximum(q, 0.0))

    def band(z: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        (b1, b2, b3, b4), (a1, a2, a3, a4) = cells.reach(z)
        return (mean - reach(theta * b1, theta * a2, cost * b3, cost * a4),
                mean + reach(theta * a1, theta * b2, cost * a3, cost * b4))

    def near(z: float | np.ndarray, above: np.ndarray) -> np.ndarray:
        (b1, b2, b3, b4), (a1, a2, a3, a4) = cells.reach(z)
        r = reach(theta * np.where(above, b1, a1), theta * np.where(above, a2, b2),
                  cost * np.where(above, b3, a3), cost * np.where(above, a4, b4))
        return np.where(above, mean - r, mean + r)

    return band, near


def pseudo_band(mean: np.ndarray, shares: tuple[np.ndarray, ...], sizes: tuple[np.ndarray, ...],
                theta: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The band and p-value of the difference ``mean`` (module doc): MOVER of the four discordant
    ``shares`` (negatives only B flags, only A flags; positives only B misses, only A misses, each of
    :math:`\sum w`) from their Wilson intervals at the effective ``sizes`` — Wilson's interval is the
    score interval, about :math:`z^2/2` pseudo-rows in and out of each cell, so a cell seen empty still
    reaches :math:`z^2/(m + z^2)`. Arrays broadcast (one band per entry). The p-value inverts the band:
    the smallest 1 − level whose band excludes 0, by bisection on the quantile z (1 where the difference
    is 0); each step computes only the band's end on 0's side."""
    band, near = _mover(mean, shares, sizes, theta)
    low, high = band(z_of(level))
    mean = np.asarray(mean, dtype=float)
    live = np.flatnonzero(mean.reshape(-1) != 0)  # p is 1 where the difference is 0: no bisection there
    if live.size == mean.size:
        return low, high, _p_value(near, mean)

    def flat(v: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(v, dtype=float), mean.shape).reshape(-1)[live]

    p = np.ones(mean.size)
    if live.size:  # the band's numbers are element by element: the same on the entries bisected
        kept = (tuple(flat(s) for s in shares), tuple(flat(m) for m in sizes))
        near = _mover(flat(mean), *kept, flat(theta))[1]
        p[live] = _p_value(near, flat(mean))
    return low, high, p.reshape(mean.shape)


def _p_value(near: Any, mean: np.ndarray) -> np.ndarray:
    r"""The band's p-value where the difference ``mean`` is not 0: the z where the band's end on 0's side
    (``near(z, above)``) meets 0 (that end moves away from the difference as z grows), by bisection on
    [0, 40] (z to 4e-11); :math:`p = 2\Phi(-z)`."""
    above = mean > 0

    def out(z: np.ndarray) -> np.ndarray:
        end = near(z, above)
        return np.where(above, end > 0.0, end < 0.0)

    lo, hi = _bisect(out, np.zeros_like(mean), np.full_like(mean, 40.0), 40)
    return np.asarray(2.0 * ndtr(-(lo + hi) / 2.0))


#: numbers per call of the test in :func:`_bisect`: up to this many, several levels of the bisection (up to 7)
#: are evaluated in one call (a few thresholds: one pass of numpy calls for 7 halvings instead of 7 passes)
_TREE = 1024


def _bisect(out: Any, lo: np.ndarray, hi: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    r"""``steps`` halvings of the brackets ``[lo, hi]`` (arrays, one root each): at the midpoint
    :math:`z = (lo + hi)/2`, ``lo = z`` where ``out(z)`` (the root lies above z), else ``hi = z``; the
    final ``(lo, hi)``. ``out`` takes points stacked on a new first axis. Several levels of the bisection
    are tested in one call: every midpoint it could visit in those levels, each computed as it computes it
    (the mean of its own bracket's ends), on a grid ``g`` of :math:`2^d + 1` ends; the walk then reads
    them, so the path and every number are those of one halving per call."""
    shape, size = lo.shape, max(lo.size, 1)
    depth = max(1, min(7, (_TREE // size + 1).bit_length() - 1))  # levels a call: 2^depth - 1 points each
    if depth == 1:  # many roots: one halving per call
        for _ in range(steps):
            z = (lo + hi) / 2.0
            up = np.reshape(out(z[None]), shape)
            lo, hi = np.where(up, z, lo), np.where(up, hi, z)
        return lo, hi
    lo, hi = lo.ravel(), hi.ravel()
    cols = np.arange(lo.size)
    done = 0
    while done < steps:
        levels = min(depth, steps - done)
        top = 1 << levels
        g = np.empty((top + 1, lo.size))
        g[0], g[top] = lo, hi
        span = top
        while span > 1:  # each bracket [g[k], g[k + span]] of this level: its midpoint at k + span / 2
            g[span // 2::span] = (g[0:top:span] + g[span::span]) / 2.0
            span //= 2
        hit = np.zeros((top + 1, lo.size), dtype=bool)
        hit[1:top] = np.reshape(out(g[1:top].reshape(top - 1, *shape)), (top - 1, lo.size))
        at, step = np.full(lo.size, top // 2), top // 2
        for _ in range(levels):
            up = hit[at, cols]
            step //= 2
            if step:
                at = at + np.where(up, step, -step)
        lo, hi = np.where(up, g[at, cols], g[at - 1, cols]), np.where(up, g[at + 1, cols], g[at, cols])
        done += levels
    return lo.reshape(shape), hi.reshape(shape)


def _discordant_sizes(cells: list[np.ndarray], squares: list[np.ndarray], tot: Any, w: np.ndarray | None,
                      theta: np.ndarray) -> tuple[np.ndarray, ...]:
    r"""The effective size of each discordant cell's Wilson interval (module doc): n unweighted; weighted,
    one size per class c, shared by its two cells, from the weights of the class's discordant rows D (both
    cells: :math:`W_D, S_D` their :math:`\sum w, \sum w^2`) and of the class (:math:`W_c, S_c`):

    .. math:: m_c = \frac{W}{\max(S_D/W_D,\ S_c/W_c)} = \min\Big(\frac{W_D}{S_D},\ \frac{W_c}{S_c}\Big)\,W

    (:math:`W` the :math:`\sum w` of all rows; :math:`W/(S_c/W_c)` where the models agree on every row of
    the class; Kish's :math:`W^2/S` of all rows for a class with none). It is the variance of a *small*
    share :math:`W_D/W`, :math:`\approx S_D/W^2`, matched to Wilson's :math:`a/m`, and is not
    :func:`._decision_curve.share_size`: that one matches the whole variance
    :math:`[(1-a)^2 S_D + a^2 S_R]/W^2` of each share (its rest's weights too, which matter where the share
    is large) and is never above Kish's :math:`W^2/S`, where this one is (under class weights a class of
    light rows reads up to its own :math:`W/(S_c/W_c)`); each was checked by its own simulation
    (tests/comparison/test_murphy_band_r32.py, test_decision_curve_weights_r32.py)."""
    if w is None:
        full = np.full_like(theta, float(tot.n))
        return full, full, full, full
    kish = float(kish_size(w))
    out = []
    for cls, (wc, sc) in enumerate(((tot.w0, tot.w0sq), (tot.w1, tot.w1sq))):
        whole = wc / sc * tot.w if wc > 0.0 and sc > 0.0 else kish
        wd = cells[2 * cls] + cells[2 * cls + 1]
        sd = squares[2 * cls] + squares[2 * cls + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            own = wd / sd * tot.w
        size = np.where((wd > 0.0) & (sd > 0.0) & np.isfinite(own), np.minimum(own, whole), whole)
        out += [size, size]
    return tuple(out)


def murphy_of(models: Any, theta: np.ndarray, level: float) -> MurphyDiagram:
    y, w = models.y, models.w
    tot = totals(y, w)
    cube = weight_sums(w, tot.n)[2]  # Σw³ (None unweighted): the variance's factor
    counts = [class_counts(d.p, y, w, theta) for d in models.data]
    # two weighted counts of the same rows, summed in another order, differ by rounding (1e-17 where
    # both models put every row on the same side of θ): a difference within the sums' rounding is 0
    slack, slack_sq = cumulative_slack(tot.n, tot.w), cumulative_slack(tot.n, tot.wsq)

    def minus(x: Any, z: Any, tol: float) -> np.ndarray:
        d = x - z
        return np.where(np.abs(d) <= tol, 0.0, d)

    def elementary_of(c: Any) -> np.ndarray:
        r"""Mean elementary score :math:`(\theta W_0^{\ge\theta} + (1-\theta) W_1^{<\theta}) / W`; a class's
        weight at or above θ is its total where they differ by the sums' rounding (every row flagged:
        two models flagging all negatives read 1e-17 apart), its positives' misses the total less it."""
        flagged0 = np.where(np.abs(tot.w0 - c.w0) <= slack, tot.w0, c.w0)
        return (theta * flagged0 + (1.0 - theta) * minus(tot.w1, c.w1, slack)) / tot.w

    def sum_of_differences(a: Any, b: Any) -> np.ndarray:
        r""":math:`\sum w (S_\theta(p_B) - S_\theta(p_A)) = \theta \Delta W_0 + (1 - \theta) \Delta W_1` from
        the counts (0 where they agree up to the sums' rounding)."""
        return theta * minus(b.w0, a.w0, slack) + (1.0 - theta) * minus(a.w1, b.w1, slack)

    # the pair's difference and the two scores are roundings of one number in different orders (θ = 0.4 is
    # not 2/5: three false alarms at 0.4 against two misses at 0.6 summed to 2.8e-17 where both scores read
    # 0.375; weighted counts of the same rows summed in two orders read 1e-17 apart): they disagreed on
    # whether it is 0 (a to_dict "diff" of -7.4e-19 beside two equal scores). A difference of 0 makes the
    # later model's score the earlier one's; equal scores make the difference 0 (below)
    sums = {(i, j): sum_of_differences(counts[i], counts[j]) for i, j in models.pairs()}
    scores = [elementary_of(c) for c in counts]
    for i, j in models.pairs():
        scores[j] = np.where(sums[i, j] == 0.0, scores[i], scores[j])
    elementary = dict(zip(models.names, scores))

    diffs = []
    df = student_df(tot.n, tot.w, tot.wsq)  # NaN: one row, or one row carries nearly all the weight
    for i, j in models.pairs():
        a, b = counts[i], counts[j]
        m = class_counts(np.minimum(models.data[i].p, models.data[j].p), y, w, theta)
        # the four discordant cells (module doc): negatives only B flags, only A flags; positives only B
        # misses (A flags), only A misses
        cells = [minus(b.w0, m.w0, slack), minus(a.w0, m.w0, slack), minus(a.w1, m.w1, slack),
                 minus(b.w1, m.w1, slack)]
        squares = [minus(b.w0sq, m.w0sq, slack_sq), minus(a.w0sq, m.w0sq, slack_sq),
                   minus(a.w1sq, m.w1sq, slack_sq), minus(b.w1sq, m.w1sq, slack_sq)]
        s1 = np.where(scores[j] == scores[i], 0.0, sums[i, j])  # equal scores: a difference of exactly 0
        s1w = theta * minus(b.w0sq, a.w0sq, slack_sq) + (1.0 - theta) * minus(a.w1sq, b.w1sq, slack_sq)
        s2 = theta ** 2 * (squares[0] + squares[1]) + (1.0 - theta) ** 2 * (squares[2] + squares[3])
        mean, se, low, high, p = from_moments(s1, s1w, s2, tot.w, tot.wsq, tot.n, level, cube)
        # every row's difference the same nonzero value (e.g. the labels all one class): a band of no
        # width would "exclude 0" from a handful of rows; there is no band and no test there
        flat = no_spread(mean, se) & (mean != 0.0)
        # the same scores on every row: every difference exactly 0 (the t band's [0, 0] stands)
        if not np.array_equal(models.data[i].p, models.data[j].p):
            if df == df:
                shares = tuple(np.clip(c / tot.w, 0.0, 1.0) for c in cells)
                sizes = _discordant_sizes(cells, squares, tot, w, theta)
                # at θ = 0 both models flag every row (p ≥ 0): no row can be discordant, whatever the rows,
                # and the t band's [0, 0] stands, as for two models with the same scores (the cells' Wilson
                # reach read ±z²/(n + z²) there: ±0.037 on 100 rows)
                band = pseudo_band(mean, shares, sizes, theta, level)
                low, high, p = (np.where(theta == 0.0, v, b) for v, b in zip((low, high, p), band))
            else:
                low = high = p = np.full_like(mean, np.nan)
        low, high, p = (np.where(flat, np.nan, v) for v in (low, high, p))
        diffs.append(MurphyDifference(models.names[i], models.names[j], mean, low, high, p))
    brier = {}
    for name, d in zip(models.names, models.data):
        sq = residuals(d) ** 2
        brier[name] = float(sq.mean() if w is None else np.dot(sq, w) / w.sum())
    return MurphyDiagram(theta=theta.copy(), elementary=elementary, differences=tuple(diffs), brier=brier,
                         n=models.n, level=level, n_effective=None if w is None else kish_size(w))


def murphy_diagram(
    data: Any,
    labels: Any = None,
    *,
    scores: Any = None,
    label: Any = None,
    theta: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
) -> MurphyDiagram:
    r"""Murphy diagram of one or more models: mean elementary score at each threshold θ
    (Ehm, Gneiting, Jordan & Krüger 2016) and the paired difference of every pair with a
    pointwise band (MOVER of the four discordant cells' Wilson intervals);
    ``theta`` defaults to 199 points 0.005, …, 0.995 (given ones are sorted,
    each kept once: ``.theta`` is increasing, so the ranges where a model is better read along it).

    Array form ``murphy_diagram({"A": p_a, "B": p_b}, labels)`` (or one array), frame form
    ``murphy_diagram(frame, scores=["A", "B"], label="y")``. See :mod:`veracity.comparison._murphy`.

    >>> m = murphy_diagram({"a": [.1, .4, .8], "b": [.3, .6, .9]}, [0, 1, 1], theta=[0.25, 0.5])
    >>> m.elementary["a"].round(4).tolist(), m.elementary["b"].round(4).tolist()
    ([0.0, 0.1667], [0.0833, 0.0])
    """
    level = check_level(level)
    check_score_type(score_type, probabilities=True, what="vc.murphy_diagram")
    grid = np.unique(check_thresholds(theta, "theta", DEFAULT_THETA))  # a curve over θ: sorted, each θ once
    models, _, _ = models_of(data, labels, scores=scores, label=label, sample_weight=sample_weight,
                             pos_label=pos_label, score_type=score_type, what="vc.murphy_diagram", minimum=1)
    return murphy_of(models, grid, level)
