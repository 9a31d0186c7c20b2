"""The result of :func:`~veracity.ppi_mean` (:class:`PpiMean`), its notes, and the JSON records of
:func:`ppi_records` (one per window of :func:`~veracity.delayed.ppi_from_sums`)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core._binning import enough_effective
from ..core._digits import clear_of_zero_decimals
from ..core._display import Display
from ..core._text import fmt, fmt_p, render_table
from ._ppi_sums import (NO_SPREAD, RATE_BOUNDS, PpiSums, cut_to_range, flat_scores, judged_calibrated,
                        ppi_from_sums, rare_cbpe_interval, rare_outcome, rare_outcome_interval,
                        weighted_gap_interval, weighted_rate_interval, weighted_score_interval)

NOT_CALIBRATED = "the scores are not calibrated here; the label-free estimate is not valid"
#: an estimate of a rate outside [0, 1] (its interval is cut to the range; the estimate is left as computed)
OUT_OF_RANGE = ("the PPI estimate {estimate:.4f} lies outside [0, 1] (lambda {lam:.3f}: the labels' correction "
                "outweighs the scores' mean, as with badly calibrated scores or few unlabelled rows); its "
                "interval is cut to [0, 1]: read the classical row, or keep power tuning on")
#: below this many labels the normal intervals cover less than their level (seeded simulation in
#: tests/delayed/test_ppi_simulation.py: 85-88 % at 10 labels, 88-92 % at 20, for a 95 % interval)
FEW_LABELS = 50
FEW = ("only {n:,} labels: below about 50 the normal interval is too narrow (simulated 95 % intervals "
       "covered 85-88 % of true rates at 10 labels, 88-92 % at 20); label more rows (vc.labels_needed says how many)")
#: weighted labels counted by their Kish effective size, below FEW_LABELS: a few heavy rows carry the
#: estimate. Uneven weights widen the rate's interval (_ppi_sums.weighted_rate_interval) and that of
#: rate - score, which judges calibration (_ppi_sums.weighted_gap_interval; seeded simulation in
#: tests/delayed/test_ppi_audit_weighted_r28.py, the design of tests/delayed/test_ppi_weights_scale.py:
#: 95 % intervals from 100 labels of effective size below 50, typically about 4, covered 100 % of true
#: rates and 98 % of true gaps rate - score; the normal intervals had covered 48 % of each before session 28)
FEW_EFFECTIVE = ("only {eff:.1f} effective labels (Kish size (sum w)^2 / sum w^2 of the {n:,} weighted "
                 "labels): below about 50 a few heavy rows carry the estimate, and the intervals of the rate "
                 "and of rate - score, widened for uneven weights, are wide (simulated 95 % intervals from "
                 "100 labels of effective size about 4 covered nearly all true rates and gaps rate - score, "
                 "where the normal intervals covered about half); label more rows, or weigh them less "
                 "unevenly")
#: the same for vc.ppi_audit's window, whose shares, cost and bins' rates have intervals too (the shares
#: and the cost widened as the rate's, _audit.confusion_intervals; a bin's Wilson interval from its Kish
#: size); the same simulation: more than 90 % of true rates, shares, bins' rates and gaps rate - score
FEW_EFFECTIVE_AUDIT = ("only {eff:.1f} effective labels (Kish size (sum w)^2 / sum w^2 of the {n:,} "
                       "weighted labels): below about 50 a few heavy rows carry the estimates, and the "
                       "intervals of the rate, rate - score, the shares, the cost and the bins' rates are "
                       "wide (simulated 95 % intervals from 100 labels of effective size about 4 covered "
                       "more than 90 % of true rates, gaps rate - score, shares and bins' rates); label more "
                       "rows, or weigh them less unevenly")
#: uneven weights with fewer effective labels than this of the rarer class (the Kish size of its rows): the
#: weighted interval, widened for uneven weights (_ppi_sums.weighted_rate_interval), may still be a little
#: narrow
#: (seeded simulations of session 28, the designs of tests/delayed/test_ppi_weighted_coverage_r28.py)
FEW_WEIGHTED_CLASS = 50
#: ... where the weights are this uneven: Kish's design effect n sum w^2 / (sum w)^2 of the labels at least
#: this
#: (log-normal weights of sigma 0.83; sigma 0.5, design effect 1.3, covered 0.95 with the normal interval)
FEW_WEIGHTED_DEFF = 2.0
FEW_WEIGHTED = ("uneven weights (design effect {deff:.1f}: {n:,} labels count as {eff:.1f}) leave only "
                "{k:.1f} effective {cls} labels (Kish size (sum w)^2 / sum w^2 of the {cls} rows): below "
                "about 50 the weighted interval may be somewhat narrow, as a few heavy rows skew the "
                "estimate and its standard error together (simulated 95 % intervals with log-normal "
                "weights covered 91-100 % of true rates at 10-50 effective labels of the rarer class, the "
                "least where the weights rise with the outcome); label more rows, or weigh them less "
                "unevenly")
#: the same for a designed sample (propensity=), counting only the labels drawn at random (seeded
#: simulation in tests/delayed/test_ppi_weights_scale.py: every flagged row and 5 random others covered
#: 39 % for a 95 % interval, 10 random others 69 %, 20 others 84 %)
FEW_DRAWN = ("only {n:,} labels drawn at random (propensity < 1; the {certain:,} rows labelled with certainty say "
             "nothing about the others): below about 50 the normal interval is too narrow (simulated 95 % "
             "intervals covered 39 % of true rates with 5 random labels, 69 % with 10, 84 % with 20); label more "
             "randomly chosen rows")
#: fewer labels than this of the rarer class (positive or negative) make the normal interval far too narrow,
#: however many labels there are (seeded simulation in tests/delayed/test_rare_class_r16.py: windows whose
#: labels held one positive covered the true rate 13-28 % of the time at a nominal 95 %, two positives
#: 52-64 %, three and more 90-96 %)
RARE_CLASS = 3
RARE = ("only {k} of the {n:,} labels {are} {cls}: near a rate of {edge} the interval rests on very few events "
        "(it is the Wilson-type interval for rare outcomes: the normal one covered 13-28 % of true rates with one "
        "label of the rarer class, 52-64 % with two); label more rows (vc.labels_needed says how many)")
RARE_BOTH = ("only {pos} positive and {neg} negative {cls}of the {n:,} labels: the interval rests on very few "
             "events of either class (the Wilson-type interval for rare outcomes); label more rows "
             "(vc.labels_needed says how many)")
#: the rectifier's normal interval excludes 0 where the exact judgement (labels of one class, or fewer than
#: 10 of one class) finds no evidence against calibration: said, so that the table does not read as a verdict
EXACT_JUDGED = ("the rectifier's interval excludes 0, but {why} it is no reliable test of calibration: by an "
                "exact binomial bound these labels are no evidence that the scores are miscalibrated")
#: the reverse: the rectifier's normal interval holds 0 where the exact judgement of fewer than 10 labels of
#: one class rejects calibration (2 positives of 100 labels whose scores expect 0.1): the verdict's basis,
#: said, so that "not calibrated" does not read as contradicting the printed interval (exact_rejects_note)
EXACT_REJECTS = ("{what} holds 0, but with fewer than 10 labels of one class it is no reliable test of "
                 "calibration: by an exact binomial bound the labels hold too {many} positives for the "
                 "scores ({k} where they expect {e}), which is evidence that the scores are miscalibrated")


def exact_rejects_note(positives: float, expected: float,
                       what: str = "the rectifier's interval (of the labels' mean y - score)") -> str:
    """:data:`EXACT_REJECTS` for ``positives`` labelled (weighted: effective) positives where calibrated
    scores expect ``expected``.

    >>> exact_rejects_note(2, 0.1).split("(")[-1]
    '2 where they expect 0.1), which is evidence that the scores are miscalibrated'
    """
    return EXACT_REJECTS.format(what=what, many="many" if positives > expected else "few",
                                k=f"{positives:.3g}", e=f"{expected:.3g}")


#: power tuning on scores constant up to rounding (_ppi_sums.flat_scores): lambda 0, said
FLAT = ("the scores are constant (their spread is rounding noise): they carry no information about the "
        "outcome, so power tuning uses lambda 0 (the labels alone; the estimate is the same at any lambda)")
ZERO_WIDTH = ("the {n:,} labels show no spread (e.g. all one class): the normal interval has zero width and is "
              "not a confidence interval; label more rows")


def bound_texts(low: float, high: float, digits: int = 4, *, sign: bool = True) -> tuple[str, str]:
    """An interval's two ends as printed (signed by default, as a difference's): at ``digits`` decimals,
    or, where the interval is clear of 0 and its end nearest 0 prints as 0 there, at the decimals that show
    that end to two significant digits (the digits rule's :func:`~veracity.core._digits.decimals` of the
    end alone, at most :data:`~veracity.core._digits.MOST`; beyond them that end in scientific notation).
    A sequence's bounds [-0.043139, -0.000021] printed "[-0.0431, -0.0000] ALARM", which reads as bounds
    that touch 0; they print "[-0.043139, -0.000021]". An interval that holds 0 keeps ``digits``."""
    d = clear_of_zero_decimals(low, high, digits)
    lo_text = hi_text = None
    near = low if low > 0.0 else high
    if math.isfinite(low) and math.isfinite(high) and not low <= 0.0 <= high:
        if float(f"{near:.{d}f}") == 0.0:  # below half a unit of MOST decimals: its own notation
            tiny = f"{near:+.1e}" if sign else f"{near:.1e}"
            lo_text, hi_text = (tiny, None) if low > 0.0 else (None, tiny)
    return (lo_text or fmt(low, d, sign=sign)), (hi_text or fmt(high, d, sign=sign))


# -- the result ---------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class PpiMean(Display):
    """A prediction-powered estimate of a window's rate, beside the classical and CBPE ones.

    ``estimate``, ``ci_low``, ``ci_high`` — PPI++ (power-tuned ``lam``); ``classical*`` — the
    labels alone; ``cbpe*`` — the mean score (valid only if the scores are calibrated);
    ``rectifier*`` — the mean of y − score over the labelled rows (calibration-in-the-large).
    ``calibrated`` is False when the rectifier's interval excludes 0, and ``note`` then
    says that the label-free estimate is not valid (a rectifier interval of zero width —
    labels without spread — is no evidence either way and counts as calibrated). When the
    PPI interval itself has zero width (e.g. every label one class) ``note`` says it is
    not a confidence interval. ``sample_p`` is the p-value of the
    random-sample check; ``valid`` is False when the check failed (``sample_check="flag"``).
    """

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    lam: float
    level: float
    n_labelled: int
    n_unlabelled: int
    classical: float
    classical_low: float
    classical_high: float
    cbpe: float
    cbpe_low: float
    cbpe_high: float
    rectifier: float
    rectifier_low: float
    rectifier_high: float
    calibrated: bool
    sample_p: float
    valid: bool
    n_excluded: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def note(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None

    @property
    def width(self) -> float:
        return self.ci_high - self.ci_low

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"method": "ppi", "estimate": self.estimate, "ci_low": self.ci_low, "ci_high": self.ci_high,
             "uses": f"{self.n_labelled:,} labels + {self.n_unlabelled:,} scores (lambda {self.lam:.3f})"},
            {"method": "classical", "estimate": self.classical, "ci_low": self.classical_low,
             "ci_high": self.classical_high, "uses": f"{self.n_labelled:,} labels"},
            {"method": "cbpe", "estimate": self.cbpe, "ci_low": self.cbpe_low, "ci_high": self.cbpe_high,
             "uses": "scores only; valid if calibrated"},
            {"method": "rectifier", "estimate": self.rectifier, "ci_low": self.rectifier_low,
             "ci_high": self.rectifier_high, "uses": "mean of y - score (0 if calibrated)"},
        ]

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "notes"}
        out["notes"] = list(self.notes)
        out["note"] = self.note
        out["methods"] = self.rows()
        return out

    def _frame_records(self) -> list[dict[str, Any]]:
        return self.rows()

    def _cells(self) -> list[tuple[str, str, str]]:
        """Each method's (method, estimate, interval) as every view prints them: rates at 4 decimals; the
        rectifier, a difference y − score, signed as the other tables print a difference (``+0.0999
        [+0.0643, +0.1355]``), an end clear of 0 never printed as 0 (:func:`bound_texts`)."""
        out = []
        for r in self.rows():
            if r["method"] == "rectifier":
                low, high = bound_texts(r["ci_low"], r["ci_high"])
                out.append((r["method"], fmt(r["estimate"], sign=True), f"[{low}, {high}]"))
            else:
                low, high = bound_texts(r["ci_low"], r["ci_high"], sign=False)
                out.append((r["method"], fmt(r["estimate"]), f"[{low}, {high}]"))
        return out

    def _summary_items(self) -> dict[str, str]:
        """The notebook's key numbers, named in words (the fields' names — ``lam``, ``sample_p`` — are in
        ``to_dict()``): labels and scored rows, the power-tuning λ, the random-sample check where it ran,
        whether the scores are calibrated in the large, rows left out of the audit where there are any."""
        items = {"labels": f"{self.n_labelled:,}", "scored rows": f"{self.n_unlabelled:,}",
                 "power-tuning λ": f"{self.lam:.3f}" + (" (constant scores)" if FLAT in self.notes else ""),
                 "calibrated in the large": "yes" if self.calibrated else "no"}
        if self.sample_p == self.sample_p:  # NaN: no check ran (a designed sample, sample_check="off")
            failed = "" if self.valid else " (NOT a random sample)"
            items["random-sample check p"] = fmt_p(self.sample_p) + failed
        if self.n_excluded:
            items["rows left out of the audit"] = f"{self.n_excluded:,}"
        return items

    def _repr_html_(self) -> str:
        """The notebook view: the printout's title, its key numbers named in words (not the raw fields:
        "note n/a", "lam", "n_excluded 0"), its table as printed (the rectifier signed) and its notes."""
        from ..core._display import html_kv, html_note, html_page

        e = html.escape
        pct = f"{self.level * 100:g}% CI"
        uses = {"ppi": f"{self.n_labelled:,} labels + {self.n_unlabelled:,} scores",
                "classical": f"{self.n_labelled:,} labels", "cbpe": "scores only; valid if calibrated",
                "rectifier": "mean of y − score (0 if calibrated)"}
        head = "".join(f'<th{" class=vc-l" if c in ("method", "uses") else ""}>{e(c)}</th>'
                       for c in ("method", "estimate", pct, "uses"))
        body = "".join(f'<tr><td class="vc-l">{e(m)}</td><td>{e(est)}</td><td>{e(ci)}</td>'
                       f'<td class="vc-l">{e(uses[m])}</td></tr>' for m, est, ci in self._cells())
        table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        parts = [html_kv(self._summary_items()), table,
                 *(html_note(f"note: {t}") for t in self.notes)]
        if self.n_excluded:
            parts.append(html_note(f"({self.n_excluded:,} labelled rows outside the random audit sample were "
                                   "used as scored rows only)"))
        return html_page(self._title(), parts, str(self))

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}% CI"
        uses = [r["uses"] for r in self.rows()]
        body = [[m, est, ci, u] for (m, est, ci), u in zip(self._cells(), uses)]
        low, high = bound_texts(self.ci_low, self.ci_high, sign=False)
        lines = [f"rate of the window: PPI++ estimate {fmt(self.estimate)} [{low}, {high}] ({pct})",
                 render_table(["method", "estimate", pct, "uses"], body, align="lrll")]
        if self.n_excluded:
            lines.append(f"({self.n_excluded} labelled rows outside the random audit sample were used as "
                         "scored rows only)")
        lines.extend(f"note: {t}" for t in self.notes)
        return "\n".join(lines)


def few_labels_note(n: int, se: float, n_effective: float | None = None, *, drawn: int | None = None,
                    effective: str = FEW_EFFECTIVE) -> str | None:
    r"""The note on too few labels for a normal interval, or None: :data:`ZERO_WIDTH` when the
    standard error ``se`` is below :data:`NO_SPREAD` (labels without spread), else :data:`FEW_DRAWN`
    (a designed sample with fewer than :data:`FEW_LABELS` labels ``drawn`` at random), :data:`FEW`
    (fewer than :data:`FEW_LABELS` labels ``n``) or ``effective`` (weighted labels whose
    Kish size :math:`n_{\text{eff}} = (\sum w)^2 / \sum w^2` is below it: :data:`FEW_EFFECTIVE`, or
    :data:`FEW_EFFECTIVE_AUDIT` for vc.ppi_audit's window) — the one test of :func:`ppi_mean`,
    :func:`ppi_records` and vc.ppi_audit."""
    if not se >= NO_SPREAD:
        return ZERO_WIDTH.format(n=n)
    if drawn is not None and drawn < FEW_LABELS:
        return FEW_DRAWN.format(n=drawn, certain=n - drawn)
    if n < FEW_LABELS:
        return FEW.format(n=n)
    # up to the sums' rounding: 50 labels weighing 0.1 each (Kish size 50, computed 49.99999999999997) are
    # 50 labels, as unweighted, not "only 50.0 effective labels"
    if n_effective is not None and not enough_effective(n_effective, FEW_LABELS, n):
        return effective.format(eff=n_effective, n=n)
    return None


def weighted_class_note(sums: PpiSums) -> str | None:
    r"""The note on uneven weights (Kish's design effect :math:`n \sum w^2 / (\sum w)^2` at least
    :data:`FEW_WEIGHTED_DEFF`) that leave fewer than :data:`FEW_WEIGHTED_CLASS` effective labels of the rarer
    class, or None (one window's sums of 0/1 labels). The rarer class's effective labels are the Kish
    size of its rows: :math:`(\sum_{y=1} w)^2 / \sum_{y=1} w^2` (``wy`` squared over ``w2y``) for the
    positives, the same over the negatives. None with equal labelled weights (the unweighted interval), labels
    all of one class (the rare-class note's case) or sums that are not finite. Uneven weights skew the
    weighted
    mean and its linearised variance together — a window whose few heavy labels are negatives gets both too
    low; :func:`~veracity.delayed._ppi_sums.weighted_rate_interval` widens the interval for it, and 95 %
    intervals then covered 91-100 % at 10-50 effective labels of the rarer class with log-normal weights (the
    least, 91 %, with weights rising with the outcome), against 85-94 % before
    (tests/delayed/test_ppi_weighted_coverage_r28.py)."""
    n, w, w2, wy, w2y = (float(np.asarray(getattr(sums, k), dtype=np.float64).reshape(-1)[0])
                         for k in ("n", "w", "w2", "wy", "w2y"))
    if not all(np.isfinite((n, w, w2, wy, w2y))) or not (w > 0 and w2 > 0) or w * w >= n * w2 * (1.0 - 1e-12):
        return None
    w2n = w2 - w2y
    if not (wy > 0 and w2y > 0 and w - wy > 0 and w2n > 0):
        return None
    pos, neg = wy * wy / w2y, (w - wy) ** 2 / w2n
    k, cls = (pos, "positive") if pos <= neg else (neg, "negative")
    deff = n * w2 / (w * w)
    if not (k < FEW_WEIGHTED_CLASS and deff >= FEW_WEIGHTED_DEFF):
        return None
    return FEW_WEIGHTED.format(k=k, cls=cls, eff=w * w / w2, n=int(round(n)), deff=deff)


def rare_class_note(n: int, mean_y: float, n_effective: float | None = None) -> str | None:
    r"""The note on labels with fewer than :data:`RARE_CLASS` of one class, or None: the labels' rarer class
    counted as :math:`k = \min(\bar y, 1 - \bar y)\, n` (:math:`\bar y` their mean, weighted when they are;
    :math:`n` their Kish effective size :math:`(\sum w)^2 / \sum w^2` when weighted, the count otherwise: the
    number of positives or of negatives when unweighted); when the other class has fewer than
    :data:`RARE_CLASS` too (and ``k`` > 0), a note naming both counts (no rate to be near). None when :math:`\bar y` is not
    finite. ``k`` = 0 is the labels without spread, which the zero-width note names when the interval has no width."""
    if n_effective is not None and abs(n_effective - n) <= 1e-9 * n:  # equal weights: the count itself
        n_effective = None
    size = float(n if n_effective is None else n_effective)
    if not np.isfinite(mean_y) or not size > 0:
        return None
    pos = float(mean_y) <= 0.5
    k = (float(mean_y) if pos else 1.0 - float(mean_y)) * size
    k = round(k, 6)  # a count, up to the rounding of the mean
    if k >= RARE_CLASS:
        return None
    other = round(size - k, 6)
    if 0 < k and other < RARE_CLASS:  # both classes present and rare (a handful of labels): no rate to be near
        pos_k, neg_k = (k, other) if pos else (other, k)
        return RARE_BOTH.format(pos=_count_text(pos_k, n_effective), neg=_count_text(neg_k, n_effective), n=n,
                                cls="" if n_effective is None else "(effective labels, Kish size) ")
    cls = ("positive" if pos else "negative") if n_effective is None else \
        ("positive (effective labels, Kish size)" if pos else "negative (effective labels, Kish size)")
    return RARE.format(k=_count_text(k, n_effective), n=n, are="is" if k == 1 else "are", cls=cls,
                       edge="0" if pos else "1")


def _count_text(k: float, n_effective: float | None) -> str:
    """A count of labels as the rare-class notes print it: whole labels as they are (``3``); an effective
    count of weighted labels to one decimal, or two significant digits below 1 (``2.4``, ``0.14``), not the
    six decimals of its rounding (``0.144904``)."""
    if n_effective is None:
        return f"{k:g}"
    return f"{k:.1f}" if k >= 1 else f"{k:.2g}"


def _rare_labels_interval(v: dict[str, Any], size: float, level: float, sums: PpiSums | None = None) -> None:
    r"""The labels-only (classical) interval as PPI's rate interval at :math:`\lambda = 0` — PPI with
    :math:`\lambda = 0` is the labels alone, and prints the same interval. Labels with fewer than 10 of one
    class: the modified Wilson interval of :func:`~veracity.delayed._ppi_sums.rare_outcome_interval`
    (``size`` the labels or their Kish size), as PPI's rate takes there. The cut normal interval printed
    ``classical 0.0000 [0.0000, 0.0000]`` for 50 labels all 0 under PPI's ``[0.0000, 0.0713]`` (as if the
    labels alone knew the rate exactly), and ``0.0100 [0.0000, 0.0295]`` for 1 positive of 100 under PPI's
    ``[0.0003, 0.0545]`` at :math:`\lambda = 0`: the labels alone looked twice as precise as the same
    estimate with the scores. ``sums`` (uneven labelled weights; None unweighted or with equal weights): then
    also widened as PPI's rate is, to the hull with the design-effect Wilson interval
    (:func:`~veracity.delayed._ppi_sums.weighted_rate_interval`, :math:`n^* = \min(\hat p(1 - \hat p)/s_c^2,
    n_{\text{eff}})` at :math:`\lambda = 0`) and the score interval
    (:func:`~veracity.delayed._ppi_sums.weighted_score_interval` at :math:`\lambda = 0`): the weighted
    mean's normal interval :math:`\bar y_w \pm z s_c` covered 0.88-0.93 of true rates at a nominal 95 %
    with log-normal weights (the designs of tests/delayed/test_ppi_weighted_coverage_r28.py, Kish sizes
    80-300), under PPI's widened interval of the same window
    (tests/delayed/test_classical_weighted_r34.py). In place."""
    c = {"estimate": np.asarray(v["classical"]), "se": np.asarray(v["classical_se"]),
         "classical_se": np.asarray(v["classical_se"]), "lam": np.asarray(0.0),
         "ci_low": np.asarray(v["classical_low"]), "ci_high": np.asarray(v["classical_high"])}
    rare_outcome_interval(c, size, v["classical"] * size, level)
    if sums is not None:
        weighted_rate_interval(c, sums, level)
        weighted_score_interval(c, sums, level)
    v["classical_low"], v["classical_high"] = float(c["ci_low"]), float(c["ci_high"])


def _result(out: dict[str, np.ndarray], *, level: float, n: int, m: int, excluded: int, p: float, valid: bool,
            f: np.ndarray | None = None, g: np.ndarray | None = None, w: np.ndarray | None = None,
            drawn: int | None = None, sums: PpiSums | None = None) -> PpiMean:
    """The :class:`PpiMean` of one window; ``w`` (the labelled rows' weights) counts the labels by
    their Kish effective size for the few-labels note, ``drawn`` (a designed sample) by the labels
    drawn at random; ``sums`` (of 0/1 labels, weighted) for the note on few effective labels of the rarer
    class (:func:`weighted_class_note`)."""
    v = {k: float(np.asarray(x)) for k, x in out.items()}
    # uneven labelled weights: the gap's interval widened to its hull with the score interval, before the
    # verdict that reads it (_ppi_sums.weighted_gap_interval; equal weights came here as w None)
    if w is not None and sums is not None and drawn is None:
        weighted_gap_interval(v, sums, level)
    # labels all one class: the rectifier's normal interval holds the scores' spread only, so the exact
    # test judges it; for a designed sample, the test of the labels drawn at random (propensity < 1) when
    # those are all one class (the certain rows add no sampling variance)
    if drawn is not None and not v.get("drawn_label_se", 1.0) >= NO_SPREAD:
        calibrated = bool(judged_calibrated(0.0, 0.0, 0.0, drawn, level, rectifier=v["drawn_rectifier"]))
    else:
        # the count of positives and its expectation under calibration (weighted: by the labels' Kish size),
        # for the exact judgement of labels with fewer than EXACT_BELOW of one class
        # (_ppi_sums.judged_calibrated)
        size = n if w is None else float(w.sum()) ** 2 / float(w @ w)
        exact = drawn is None
        calibrated = bool(judged_calibrated(v["rectifier_low"], v["rectifier_high"], v["rectifier_se"],
                                            n if w is None else float(w.sum() / w.max()), level,
                                            label_se=v["classical_se"] if drawn is None else None,
                                            rectifier=v["rectifier"],
                                            positives=v["classical"] * size if exact else None,
                                            expected=((v["classical"] - v["rectifier"]) * size if exact
                                                      else None),
                                            rare_n=size))
    # the outcome is 0/1: a rate lies in [0, 1] and the rectifier y - f in [-1, 1], so a normal interval
    # reaching beyond is cut at the bound (ppi_from_sums stays the plain normal interval, as it also
    # serves quantities such as costs)
    cut_to_range(v, RATE_BOUNDS)
    rare_applied = False
    # labels with fewer than 10 of one class (weighted: by the Kish size): the Wilson-type interval
    if drawn is None:
        size = n if w is None else float(w.sum()) ** 2 / float(w @ w)
        rare_applied = bool(rare_outcome(size, v["classical"] * size)) and np.isfinite(v["estimate"])
        rare_outcome_interval(v, size, v["classical"] * size, level)
        if w is not None and sums is not None:  # uneven labelled weights: the design-effect interval, and the
            weighted_rate_interval(v, sums, level)  # score interval under the scores' Bernoulli model
            weighted_score_interval(v, sums, level)
        _rare_labels_interval(v, size, level, sums if w is not None else None)
    else:  # a designed sample: _design took Wilson's (rare_design_interval) or the gamma (uneven_...)
        rare_applied = v.get("rare_interval", 0.0) == 1.0
    v = {k: float(x) for k, x in v.items()}
    notes = []
    if not valid and drawn is not None:  # a designed sample whose propensities are those of a larger window
        notes.append("NOT VALID: the labels drawn at random stand for clearly more rows (the sum of 1 / "
                     "propensity) than the window has beyond its rows labelled with certainty, so the "
                     "estimates are too high; pass all of the window's unlabelled rows, and each labelled "
                     "row's chance of being labelled from this window")
    elif not valid:
        notes.append("NOT VALID: the labelled rows do not look like a random sample of the window "
                     f"(score-histogram chi-square p = {fmt_p(p)}); PPI needs a random audit sample")
    eff = None if w is None else float(w.sum()) ** 2 / float(w @ w)
    # the Wilson-type interval always has width: labels of one class are then no zero-width note
    few = few_labels_note(n, 1.0 if rare_applied else v["se"], eff, drawn=drawn)
    if few:
        notes.append(few)
    elif w is not None and sums is not None and drawn is None:
        weighted = weighted_class_note(sums)
        if weighted:
            notes.append(weighted)
    rare = None if drawn is not None or few == ZERO_WIDTH.format(n=n) else rare_class_note(n, v["classical"], eff)
    if rare:  # the labels' mean: classical, before any cut (a rate is in [0, 1] anyway)
        notes.append(rare)
    if calibrated and not v["rectifier_low"] <= 0.0 <= v["rectifier_high"] and few != ZERO_WIDTH.format(n=n):
        flat = not v["classical_se"] >= NO_SPREAD
        notes.append(EXACT_JUDGED.format(why="with labels all of one class (it holds only the scores' spread)"
                                         if flat else "with fewer than 10 labels of one class"))
    if not calibrated and drawn is None and v["rectifier_low"] <= 0.0 <= v["rectifier_high"]:
        # judged by the exact bound of few labels of one class, not by the interval printed: said
        size = n if w is None else float(w.sum()) ** 2 / float(w @ w)
        notes.append(exact_rejects_note(v["classical"] * size, (v["classical"] - v["rectifier"]) * size))
    if not calibrated:
        notes.append(NOT_CALIBRATED)
    if (drawn is None and sums is not None and m > 0 and v["lam"] == 0.0
            and bool(np.all(flat_scores(sums)))):  # power tuning on constant scores: lambda 0, said
        notes.append(FLAT)
    if not 0.0 <= v["estimate"] <= 1.0:  # a rate: the interval was cut to [0, 1], the estimate is not
        notes.append(OUT_OF_RANGE.format(estimate=v["estimate"], lam=v["lam"]))
    return PpiMean(
        estimate=v["estimate"], ci_low=v["ci_low"], ci_high=v["ci_high"], se=v["se"], lam=v["lam"], level=level,
        n_labelled=n, n_unlabelled=m, classical=v["classical"], classical_low=v["classical_low"],
        classical_high=v["classical_high"], cbpe=v["cbpe"], cbpe_low=v["cbpe_low"], cbpe_high=v["cbpe_high"],
        rectifier=v["rectifier"], rectifier_low=v["rectifier_low"], rectifier_high=v["rectifier_high"],
        calibrated=calibrated, sample_p=p, valid=valid, n_excluded=excluded, notes=tuple(notes))


def _records_judged(cols: dict[str, np.ndarray], n: np.ndarray, eff: np.ndarray, w_: np.ndarray,
                    wy: np.ndarray, wf: np.ndarray, unweighted: np.ndarray, level: float) -> dict[int, bool]:
    r"""``{window: calibrated}`` of :func:`ppi_records` for the windows with an estimate (at least 2 labels, a
    finite estimate), judged in one vectorised call of :func:`judged_calibrated` over those windows (the
    same judgement window by window, elementwise). The exact test's exponent: n unweighted; weighted sums
    hold no largest weight (W / max w, the exact exponent), so the Kish size stands in for it (an
    approximation): :math:`\min(n, n_{\text{eff}})`. The exact rare-class judgement: the sums of 0/1 labels
    with weight 1 are counts; weighted, the weighted means times the Kish size (as vc.ppi_mean; equal
    weights: the counts, up to rounding)."""
    idx = np.flatnonzero((n >= 2) & np.isfinite(cols["estimate"]))
    if not idx.size:
        return {}
    n_i, eff_i, plain = n[idx], eff[idx], np.asarray(unweighted[idx], dtype=bool)
    exponent = np.where(eff_i < n_i, eff_i, n_i)  # Python's min(n, eff): eff only where strictly smaller
    wy_i, wf_i, w_i = wy[idx], wf[idx], w_[idx]
    out = judged_calibrated(cols["rectifier_low"][idx], cols["rectifier_high"][idx],
                            cols["rectifier_se"][idx], exponent, level, label_se=cols["classical_se"][idx],
                            rectifier=cols["rectifier"][idx],
                            positives=np.where(plain, wy_i, wy_i / w_i * eff_i),
                            expected=np.where(plain, wf_i, wf_i / w_i * eff_i),
                            rare_n=np.where(plain, exponent, eff_i))
    return {int(i): bool(c) for i, c in zip(idx, np.atleast_1d(out))}


def _records_exact_rejects(cols: dict[str, np.ndarray], i: int, wy: float, wf: float, w: float, eff: float,
                           plain: bool) -> str | None:
    """:func:`exact_rejects_note` for window ``i`` of :func:`ppi_records` judged not calibrated although its
    rectifier's interval holds 0 (the exact rare-class judgement: the counts unweighted, else the weighted
    means times the Kish size, as :func:`_records_judged`), else None."""
    if not cols["rectifier_low"][i] <= 0.0 <= cols["rectifier_high"][i]:
        return None
    scale = 1.0 if plain else eff / w
    return exact_rejects_note(wy * scale, wf * scale)


def ppi_records(sums: PpiSums, *, level: float = 0.95, power_tuning: bool = True,
                sum_fff: Any = None) -> list[dict[str, Any]]:
    r"""One JSON-ready record per window of :func:`ppi_from_sums` (the keys a status row carries):
    ``estimate_ppi`` and ``estimate_cbpe`` (each ``{"estimate", "ci_low", "ci_high"}``, PPI's
    with ``lam`` and ``labels``; None where the window has fewer than 2 random labels),
    ``rectifier`` (the same three keys), ``calibrated`` (None without labels) and ``note`` — the
    notes :func:`ppi_mean` gives the same window: an interval of zero width, fewer than
    :data:`FEW_LABELS` labels (or, weighted, a Kish effective size :math:`(\sum w)^2 / \sum w^2`
    below it), scores not calibrated, and :data:`FLAT` where power tuning took ``lam`` 0 because the
    scores are constant (:func:`~veracity.delayed._ppi_sums.flat_scores`), so that a ``lam`` of 0
    is never left without its reason, and :data:`OUT_OF_RANGE` where the estimate lies outside [0, 1]; NaN
    is written as None, so the records pass ``json.dumps(..., allow_nan=False)``. A window's PPI interval is
    :func:`ppi_mean`'s: the normal interval cut at [0, 1], or, for labels with fewer than 10 of one class
    (weighted: Kish size), the Wilson-type interval of
    :func:`~veracity.delayed._ppi_sums.rare_outcome_interval`. ``sum_fff`` (per window, :math:`\sum f^3` over
    all its rows, labelled or not): ``estimate_cbpe``'s interval of unweighted windows whose scores expect
    fewer than 10 events, or whose count's spread lies below
    :func:`~veracity.delayed._ppi_sums.count_handover` of the level, is vc.ppi_mean's count interval
    (:func:`~veracity.delayed._ppi_sums.rare_cbpe_interval`); without it, and for weighted windows (their
    sums hold no :math:`\sum w^3`, which vc.ppi_mean's weighted interval reads), the normal interval."""
    out = ppi_from_sums(sums, level=level, power_tuning=power_tuning)
    if sum_fff is not None:  # unweighted windows (weights 1 on both sides: the sums are counts)
        plain_rows = ((np.asarray(sums.w) == sums.n) & (np.asarray(sums.w2) == sums.n)
                      & (np.asarray(sums.wu) == sums.m) & (np.asarray(sums.wu2) == sums.m))
        rare_cbpe_interval(out, np.asarray(sums.wf) + sums.wuf, np.asarray(sums.wff) + sums.wuff, sum_fff,
                           np.asarray(sums.n) + sums.m, level, where=plain_rows)
    cut_to_range(out, RATE_BOUNDS)  # a rate, as vc.ppi_mean reports it
    weighted_gap_interval(out, sums, level)  # uneven labelled weights: rate - score as vc.ppi_mean's
    n = np.atleast_1d(np.asarray(sums.n, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):  # Kish size and the labels' weighted mean times it
        size = np.asarray(sums.w, dtype=np.float64) ** 2 / np.asarray(sums.w2, dtype=np.float64)
        events = np.asarray(sums.wy, dtype=np.float64) / np.asarray(sums.w, dtype=np.float64) * size
    # labels with fewer than 10 of one class: the Wilson-type interval, as vc.ppi_mean's
    rare_outcome_interval(out, size, events, level)
    weighted_rate_interval(out, sums, level)  # uneven labelled weights: as vc.ppi_mean's
    weighted_score_interval(out, sums, level)
    rare_ = np.atleast_1d(np.broadcast_to(rare_outcome(size, events), n.shape))  # their interval has width
    with np.errstate(divide="ignore", invalid="ignore"):  # Kish size; equals n when every weight is 1
        eff = np.atleast_1d(np.asarray(sums.w, dtype=np.float64) ** 2 / np.asarray(sums.w2, dtype=np.float64))
    cols = {k: np.atleast_1d(v) for k, v in out.items()}
    w_, w2_ = (np.atleast_1d(np.asarray(getattr(sums, k), dtype=np.float64)) for k in ("w", "w2"))
    wy, wf = (np.broadcast_to(np.atleast_1d(np.asarray(getattr(sums, k), dtype=np.float64)), n.shape)
              for k in ("wy", "wf"))
    unweighted = np.broadcast_to((w_ == n) & (w2_ == n), n.shape)
    # power tuning on constant scores took lambda 0: vc.ppi_mean's FLAT note (with unlabelled rows; untuned,
    # lambda is 1)
    m_ = np.broadcast_to(np.atleast_1d(np.asarray(sums.m, dtype=np.float64)), n.shape)
    flat = np.broadcast_to(np.atleast_1d(flat_scores(sums)), n.shape) & (m_ > 0) & (cols["lam"] == 0.0)
    judged = _records_judged(cols, n, eff, w_, wy, wf, unweighted, level)
    fields: dict[str, np.ndarray] | None = None
    recs = []
    for i in range(n.size):
        def three(name: str, prefix: str, i: int = i) -> dict[str, float | None]:
            vals = (cols[name][i], cols[f"{prefix}_low"][i], cols[f"{prefix}_high"][i])
            return {k: float(v) if np.isfinite(v) else None for k, v in zip(("estimate", "ci_low", "ci_high"), vals)}

        has = n[i] >= 2 and np.isfinite(cols["estimate"][i])
        plain = unweighted[i]
        calibrated = judged.get(i)
        few = (few_labels_note(int(n[i]), 1.0 if rare_[i] else float(cols["se"][i]), float(eff[i]))
               if has else None)
        if has and not few and not plain:  # uneven weights, few effective labels of the rarer class
            if fields is None:  # each sum as one array per window, built once
                fields = {k: np.broadcast_to(np.atleast_1d(np.asarray(getattr(sums, k), dtype=np.float64)),
                                             n.shape) for k in PpiSums.__dataclass_fields__}
            few = weighted_class_note(PpiSums(**{k: v[i] for k, v in fields.items()}))
        recs.append({
            "estimate_ppi": {**three("estimate", "ci"), "lam": float(cols["lam"][i]), "labels": int(n[i])}
            if has else None,
            "estimate_cbpe": three("cbpe", "cbpe"),
            "rectifier": three("rectifier", "rectifier") if has else None,
            "calibrated": calibrated,
            "note": "; ".join(n_ for n_ in (
                few,
                rare_class_note(int(n[i]), float(cols["classical"][i]),
                                None if eff[i] == n[i] else float(eff[i]))
                if has and (rare_[i] or float(cols["se"][i]) >= NO_SPREAD) else None,
                _records_exact_rejects(cols, i, float(wy[i]), float(wf[i]), float(w_[i]), float(eff[i]),
                                       bool(plain)) if has and calibrated is False else None,
                NOT_CALIBRATED if calibrated is False else None,
                FLAT if has and flat[i] else None,
                OUT_OF_RANGE.format(estimate=float(cols["estimate"][i]), lam=float(cols["lam"][i]))
                if has and not 0.0 <= float(cols["estimate"][i]) <= 1.0 else None) if n_) or None,
        })
    return recs
