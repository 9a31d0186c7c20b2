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
:math:`\min(p_A, p_B) \ge \theta`. The band is the Student-t interval of the per-row differences
(:func:`._paired.from_moments`: n − 1 degrees of freedom; weighted, Kish's size − 1 and the factor κ) with
half a pseudo-row in each of the four discordant cells (Agresti & Min 2005's adjustment for matched pairs,
½ per cell of each class's 2 × 2 table), added to the variance only (the estimate is the plain difference):

.. math:: \widetilde{\mathrm{se}}^2 = \widehat{\mathrm{se}}^2
          + \tfrac12\,\bigl(2\theta^2 + 2(1-\theta)^2\bigr)\,\frac{\overline{w^2}}{(\sum w)^2},
          \qquad d \pm t_{\nu}\,\widetilde{\mathrm{se}},

:math:`\overline{w^2} = \sum w^2 / n` (pseudo-rows of the rows' root-mean-square weight: the added term is
:math:`1/n^2` unweighted, :math:`1/(n\,n_e)` weighted, :math:`n_e = (\sum w)^2/\sum w^2`); the p-value is
Student's on the same :math:`\widetilde{\mathrm{se}}`. Where a discordant kind is rare, the plain t band
read the few rows seen as the whole law: a kind with no row in the sample got no variance, so a heavy
(1 − θ) miss that happens once in 500 rows either was absent (a narrow band away from the truth) or was
seen (a swing). Seeded simulations (calibrated A against an overconfident B, 500 draws, 95 %, truths
integrated over the simulation's law; a coverage < 93 % is a failure): the t band covered

* at 1 % events, 300 rows, θ = 0.02-0.1: 51-75 % (now 99-100 %); 1,000 rows: 91-92 % (now 94-95 %);
* at 5 % events, 300 rows, θ = 0.02: 26 % (now 100 %), where the two models are tied to 2.5e-5 and the t band
  called "a is better" in 80 % of draws (now 0 %); 100 rows, θ = 0.05: 43 % (now 100 %);
* with log-normal weights (5 %, 300 rows), θ = 0.02-0.1: 59-84 % (now 95-100 %);
* at a 27-50 % rate, θ = 0.02-0.1 and 0.9, where discordant rows are rare again: 1-95 % (now 93-100 %), the
  t band on the wrong side of 0 in up to 59 % of draws (now at most 1 %); θ = 0.2-0.7: 39-100 % (now
  93-100 %; the lowest, 92.8 %, is the t band's own there).

Power (the share of draws whose band excludes 0 on the true side) where the t band covered: a planted B =
sigmoid(0.4 x) that ignores most of the signal, 1,000 rows at a 50 % rate, θ = 0.3 and 0.7: 0.72 and 0.73 (t
0.72, 0.73); 300 rows: 0.30, 0.26 (t 0.32, 0.27), θ = 0.2: 0.15 (t 0.20); log-normal weights (300 rows):
0.24, 0.19 (t 0.27, 0.22), θ = 0.2: 0.11 (t 0.23), θ = 0.1 and 0.9: 0 (t 0.10, 0.09); 27 % rate, 1,000 rows,
θ = 0.1-0.7: 0.07-0.80 (t 0.07-0.80, within 0.04); 5 % rate, 1,000 rows, θ = 0.1-0.3: 0.49, 0.20, 0.05 (t
0.51, 0.22, 0.06); the overconfident B at 5 %, 1,000 rows, θ = 0.2, 0.3, 0.5: 0.37, 0.44, 0.31 (t 0.37,
0.44, 0.36); at 1 %, 1,000 rows, θ = 0.02-0.2 (t coverage 91-92 %): 0.06-0.26 (t 0.23-0.33), the price of
the rare heavy misses' variance. Where the t band's power came from the missing rare rows (5 % rate, 300
rows, θ = 0.02: 0.53 at coverage 47 %) it is gone. Lowest coverage seen: 0.89 (planted, 5 % rate, 1,000
rows, θ = 0.02; t 0.88) and 0.91 with weights (θ = 0.1; t 0.85), 0.92-0.93 elsewhere at worst: a handful of
heavy rows, skewed beyond what the pseudo-rows mend. The band costs nothing beyond the t band's counts (one
sort per model and class for all θ). Checked in tests/comparison/test_murphy_band_r31.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import cumulative_slack
from ..core._display import Display, interval_cell
from ..core._stats import residuals
from ..core._text import fmt, render_table, visible
from ..core._weights import kish_size
from ..honest._common import check_level
from ._compare import _sci
from ._counts import check_thresholds, class_counts, totals
from ._digits import Cell, decimals, holds_zero, noise_decimals, threshold_decimals
from ._inputs import check_score_type, models_of
from ._paired import from_moments, no_spread, p_t_array, student_df, t_of, weight_sums
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

    @property
    def difference(self) -> MurphyDifference | None:
        """The first pair's difference (None for a single model)."""
        return self.differences[0] if self.differences else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
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
        return {"n": self.n, "thresholds": int(self.theta.size), "level": f"{self.level * 100:g}%"}

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
                 f"1 - theta; lower is better), {self.n:,} row{'s' if self.n != 1 else ''}, "
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


#: the pseudo-rows added to each of the four discordant cells (Agresti & Min 2005's ½ per cell)
PSEUDO = 0.5


def pseudo_band(mean: np.ndarray, se: np.ndarray, theta: np.ndarray, n: int, extra: float, df: float,
                level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The band and p-value of the difference ``mean`` (module doc): the Student-t interval on ``df``
    degrees of freedom with :math:`\widetilde{se}^2 = \widehat{se}^2 + \tfrac12\,(2\theta^2 + 2(1-\theta)^2)`
    · ``extra`` (:math:`1/n^2`; weighted :math:`1/(n\,n_e)`); NaN where ``se`` is (one row)."""
    wide = np.sqrt(se * se + PSEUDO * 2.0 * (theta * theta + (1.0 - theta) ** 2) * extra)
    q = t_of(level, df) if df == df and n > 1 else float("nan")
    return mean - q * wide, mean + q * wide, p_t_array(mean, wide, df)


def murphy_of(models: Any, theta: np.ndarray, level: float) -> MurphyDiagram:
    y, w = models.y, models.w
    tot = totals(y, w)
    cube = weight_sums(w, tot.n)[2]  # Σw³ (None unweighted): the variance's factor
    counts = [class_counts(d.p, y, w, theta) for d in models.data]
    elementary = {name: (theta * c.w0 + (1.0 - theta) * (tot.w1 - c.w1)) / tot.w
                  for name, c in zip(models.names, counts)}
    # two weighted counts of the same rows, summed in another order, differ by rounding (1e-17 where
    # both models put every row on the same side of θ): a difference within the sums' rounding is 0
    slack, slack_sq = cumulative_slack(tot.n, tot.w), cumulative_slack(tot.n, tot.wsq)

    def minus(x: np.ndarray, z: np.ndarray, tol: float) -> np.ndarray:
        d = x - z
        return np.where(np.abs(d) <= tol, 0.0, d)

    diffs = []
    # half a pseudo-row in each discordant cell (module doc): pseudo-rows of the rows' root-mean-square
    # weight, each adding w²d²/(Σw)², that is d²/(n·n_e) with n_e Kish's effective size (1/n² unweighted)
    extra = 1.0 / (tot.n * float(tot.n)) if w is None else 1.0 / (tot.n * max(kish_size(w), 1e-300))
    df = student_df(tot.n, tot.w, tot.wsq)
    for i, j in models.pairs():
        a, b = counts[i], counts[j]
        m = class_counts(np.minimum(models.data[i].p, models.data[j].p), y, w, theta)
        s1 = theta * minus(b.w0, a.w0, slack) + (1.0 - theta) * minus(a.w1, b.w1, slack)
        s1w = theta * minus(b.w0sq, a.w0sq, slack_sq) + (1.0 - theta) * minus(a.w1sq, b.w1sq, slack_sq)
        s2 = theta ** 2 * (minus(a.w0sq, m.w0sq, slack_sq) + minus(b.w0sq, m.w0sq, slack_sq)) \
            + (1.0 - theta) ** 2 * (minus(a.w1sq, m.w1sq, slack_sq) + minus(b.w1sq, m.w1sq, slack_sq))
        mean, se, low, high, p = from_moments(s1, s1w, s2, tot.w, tot.wsq, tot.n, level, cube)
        # every row's difference the same nonzero value (e.g. the labels all one class): a band of no
        # width would "exclude 0" from a handful of rows; there is no band and no test there
        flat = no_spread(mean, se) & (mean != 0.0)
        # the same scores on every row: every difference exactly 0 (the t band's [0, 0] stands)
        if not np.array_equal(models.data[i].p, models.data[j].p):
            low, high, p = pseudo_band(mean, se, theta, tot.n, extra, df, level)
        low, high, p = (np.where(flat, np.nan, v) for v in (low, high, p))
        diffs.append(MurphyDifference(models.names[i], models.names[j], mean, low, high, p))
    brier = {}
    for name, d in zip(models.names, models.data):
        sq = residuals(d) ** 2
        brier[name] = float(sq.mean() if w is None else np.dot(sq, w) / w.sum())
    return MurphyDiagram(theta=theta.copy(), elementary=elementary, differences=tuple(diffs), brier=brier,
                         n=models.n, level=level)


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
    pointwise band (Student's t with half a pseudo-row in each discordant cell); ``theta`` defaults to 199 points 0.005, …, 0.995 (given ones are sorted,
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
