r"""Calibration over time from arrays: one row per period, read from per-period statistics.

This module holds the array form of :func:`monitor` (scores, labels and period keys or times as
arrays), the result types (:class:`MonitorRow`, :class:`MonitorResult`), :func:`summarize_periods`
(rows from per-period statistics, which every route ends in) and the reading of times
(:func:`period_keys`, :func:`label_maturity`). The frame form -- a frame, a lazy engine frame or
a file's path, grouped where the rows live -- is :mod:`._monitor_frames`.

For each period the monitor reports the labelled rows, the rows still waiting
for a final label (*pending* — seed 004: a label that is not yet final must not
be counted as a negative), the observed rate with an exact (Clopper–Pearson) interval, the mean
confidence, calibration-in-the-large (rate − confidence), ECE, Brier and NLL.

A period is flagged

* ``insufficient`` when it has fewer than ``min_count`` labelled rows (seed 004:
  such bins "do not trigger threshold changes"),
* ``alert`` when its mean confidence lies outside the interval of its observed
  rate — the model's average promise no longer matches what happens,
* ``ok`` otherwise.

Each flag is a per-period test at ``level``; with many periods some false alerts
are expected (at most 1 − level of the periods when nothing changed, the interval being
Clopper–Pearson's where the rows weigh alike; with uneven weights, about that).

Labels arrive late, scores do not: every period also gets the **population
stability index** of its score distribution against a reference period (the
first one unless named), computed on all rows, pending ones included:

.. math:: \mathrm{PSI} = \sum_b (a_b - r_b)\,\ln\frac{a_b}{r_b}

with :math:`a_b, r_b` the shares of the period's and the reference's rows in
equal-width bin b, each count smoothed by +0.5 so empty bins stay finite. The
customary reading: below 0.1 stable, 0.1–0.25 moderate shift, above 0.25 major
shift — a reason to recalibrate before the labels confirm it. Those thresholds assume large
windows, so a shift is called only where a chi-square test of the two histograms also tells it
from noise (p < 0.01); otherwise the period reads "within noise" (see :mod:`._shift`).

With ``sample_weight`` every "how many rows" question is asked of the **effective**
number of rows, :math:`n_\mathrm{eff} = (\sum w)^2 / \sum w^2` (the rows an unweighted
sample of the same precision would hold; :math:`n` without weights): the rate's
interval, ``insufficient`` (:math:`n_\mathrm{eff}` < ``min_count``, as the reliability
table's ``sufficient``) and the PSI's "few rows" label. The PSI's histograms are read
in the same units (scaled to :math:`n_\mathrm{eff}` rows before the +0.5 smoothing), so
multiplying every weight by a constant changes nothing. A Kish size does not say everything where the
heavy rows are the risky ones: the rate's interval is then widened to its hull with the score interval of
the rate (:func:`_weighted_hull`), and the shift's chi-square test reads the histograms' own share
variances (:func:`._shift.chi2_homogeneity`); equal weights keep the unweighted numbers.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core._intervals import binomial_interval, check_interval_args
from ..core._formulas import brier_from_stats, ece_from_stats, nll_from_stats
from ..core._binning import check_bins, enough_effective, uniform_edges
from ..core._stats import BinStats, grouped_stats, score_histograms
from ..core._text import fmt, fmt_count, render_table
from ..core._validation import (MissingLabels, VeracityError, check_score_type, check_weights, prepare_binary,
                                to_numpy)
from ..core._weights import in_user_units
from ..sources._arrow_numpy import from_numpy
from ..sources._arrow_numpy import to_numpy as arrow_to_numpy
from ..core._compat import positional_options
from ..core._display import Display, fmt_weight
from ._blaker import blaker_interval
from ._alerts import Alert
from ._slice_names import name_order
from ._shift import (PSI_MATERIAL, SHIFT_ALPHA, chi2_homogeneity, population_stability,  # noqa: F401
                     shift_label)

#: time zone names that are UTC itself, upper-cased (a column in one of them needs no conversion)
UTC_NAMES = frozenset({"UTC", "ETC/UTC", "ETC/UCT", "UCT", "GMT", "ETC/GMT", "ZULU", "ETC/ZULU"})

FREQS = {"D": "datetime64[D]", "W": "datetime64[W]", "M": "datetime64[M]", "Q": "quarter", "Y": "datetime64[Y]"}


@dataclass(frozen=True)
class MonitorRow:
    period: str
    n: float
    pending: int
    base_rate: float
    conf: float
    gap: float
    ci_low: float
    ci_high: float
    ece: float
    brier: float
    nll: float
    status: str
    psi: float = float("nan")
    shift: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False, repr=False)
class MonitorResult(Display):
    """Per-period calibration; ``stats`` keeps each period's mergeable statistics."""

    rows: tuple[MonitorRow, ...]
    stats: dict[str, BinStats] = field(default_factory=dict)
    level: float = 0.95
    min_count: int = 100
    histograms: dict[str, np.ndarray] = field(default_factory=dict)
    reference: str | None = None
    #: the rows read, labelled and pending (0 when built from statistics alone)
    rows_read: int = 0
    #: per period, the effective number of rows behind its histogram, (Σw)² / Σw² (its count unweighted)
    histogram_sizes: dict[str, float] = field(default_factory=dict)
    #: the rows read that are dated after ``as_of`` (left out of every count: not yet predicted then)
    after_as_of: int = 0

    @property
    def alerts(self) -> tuple[Alert, ...]:
        """One :class:`~veracity.monitoring.Alert` per alerting period (the type ``StoreStatus.alerts`` and
        ``StatusRow.alerts`` hold): its sentence, with ``.period``, ``.slice`` ("") and ``.kind``
        ("calibration"). ``alert_periods`` lists the periods' names."""
        pct = f"{self.level * 100:g}%"
        return tuple(
            Alert(f"calibration: mean confidence {r.conf:.4f} outside the {pct} interval of the rate "
                  f"[{r.ci_low:.4f}, {r.ci_high:.4f}] ({self._labelled(r)} labelled rows)", period=r.period)
            for r in self.rows if r.status == "alert")

    @property
    def alert_periods(self) -> list[str]:
        """The names of the periods with an alert, in order."""
        return [r.period for r in self.rows if r.status == "alert"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "min_count": self.min_count,
            "alerts": [str(a) for a in self.alerts],
            "alert_periods": self.alert_periods,
            "reference": self.reference,
            "periods": [r.to_dict() for r in self.rows],
            "stats": {k: s.to_dict() for k, s in self.stats.items()},
            "histograms": {k: h.tolist() for k, h in self.histograms.items()},
            **({"histogram_sizes": dict(self.histogram_sizes)} if self.histogram_sizes else {}),
            **({"after_as_of": self.after_as_of} if self.after_as_of else {}),
        }

    def _labelled(self, r: MonitorRow) -> str:
        """The period's labelled rows as counted: with weights ``r.n`` is their total weight Σw, which
        scaling every weight would change, so the count of rows is shown (a row of weight 0 counts).
        Without the rows' count, a weight sum is read at 12 digits (:func:`fmt_weight`: "10", never "10.0"
        from the last bit of 100 weights of 0.1); a whole count prints as it is."""
        s = self.stats.get(r.period)
        if s is None or not self.histogram_sizes:
            return fmt_count(r.n) if float(r.n).is_integer() else fmt_weight(r.n)
        return fmt_count(int(s.count.sum()))

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        body = [
            [
                r.period,
                self._labelled(r),
                str(r.pending),
                fmt(r.conf),
                fmt(r.base_rate),
                fmt(r.gap, sign=True),
                f"[{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]",
                fmt(r.ece),
                fmt(r.brier),
                fmt(r.nll),
                r.status,
                fmt(r.psi, 3),
                r.shift,
            ]
            for r in self.rows
        ]
        headers = ["period", "labelled", "pending", "conf", "rate", "gap", f"{pct} CI of rate",
                   "ECE", "Brier", "NLL", "status", "PSI", "scores"]
        table = render_table(headers, body, align="lrrrrrlrrrlrl")
        notes = [
            f"(gap = observed rate - mean confidence; alert = mean confidence outside the {pct} "
            f"interval of the rate; insufficient = fewer than {self.min_count} labelled rows)"
        ]
        if self.histogram_sizes:
            notes.append("(weighted: labelled counts rows; the interval, insufficient and the PSI read the "
                         "effective rows (sum w)^2 / sum w^2, the interval and the shift test also how the weights "
                         "spread over the scores; JSON n is the total weight)")
        if any(r.pending for r in self.rows):
            notes.append("(pending rows have no final label yet and are not counted as negatives)")
        if self.reference is not None:
            notes.append(
                f"(PSI: score distribution of all rows vs {self.reference}; < 0.1 stable, "
                f"0.1-0.25 moderate, > 0.25 major shift where a chi-square test also rejects at "
                f"p < {SHIFT_ALPHA:g}, else 'within noise'; not judged under {self.min_count} rows)"
            )
        if self.after_as_of:
            noun = "row" if self.after_as_of == 1 else "rows"
            notes.append(f"({fmt_count(self.after_as_of)} {noun} dated after as_of left out: not yet "
                         "predicted at the as-of time)")
        alerts = self.alert_periods
        notes.append(f"alerts: {', '.join(alerts)}" if alerts else "alerts: none")
        return table + "\n" + "\n".join(notes)


def _check_min_count(min_count: Any) -> None:
    """``min_count``: a whole number of (effective) rows >= 0, as ``vc.reliability`` and ``vc.mce`` take it."""
    ok = (not isinstance(min_count, (bool, np.bool_)) and isinstance(min_count, (int, float, np.integer, np.floating))
          and bool(np.isfinite(min_count)) and min_count >= 0 and float(min_count) % 1 == 0)
    if not ok:
        raise VeracityError(f"min_count must be a whole number of rows >= 0, e.g. 100; got {min_count!r}",
                            param="min_count")


def _kish(total: float, total_sq: float) -> float:
    r"""Kish effective size :math:`(\sum w)^2 / \sum w^2` of rows weighing ``total`` > 0 in all. Rows
    weighing less than about :math:`10^{-221}` of the largest weight (:mod:`veracity.core._weights`) may
    have squares that underflow to 0: such a period counts as one row, the smallest effective size of a
    non-empty period (as ``BinStats.effective_count`` counts such a bin; a ZeroDivisionError before)."""
    return total * total / total_sq if total_sq > 0 else 1.0


def _weighted_hull(s: BinStats, rated: tuple[float, float], low: float, high: float, level: float
                   ) -> tuple[float, float]:
    r"""The interval of a period's rate where its labelled rows' weights are uneven: the hull of Wilson's
    interval at the Kish size (``low``, ``high``) and the score interval of the rate under the scores'
    Bernoulli model — the rates :math:`\bar f + \delta` not rejected when each row's outcome is read as
    Bernoulli(:math:`f_i + \delta`):

    .. math:: (\hat r - \bar f - \delta)^2 \le z^2 \sum \omega_i^2 (f_i + \delta)(1 - f_i - \delta),

    :math:`\omega = w / \sum w`, :math:`\hat r` and :math:`\bar f` the weighted rate and mean score (a
    quadratic in :math:`\delta`, :func:`veracity.delayed._ppi_sums._score_roots`). The period's statistics
    hold :math:`\sum w^2` per score bin but not :math:`\sum w^2 f`: within a bin :math:`\sum w^2 f` and
    :math:`\sum w^2 f^2` are read as :math:`\sum w^2` times the bin's weighted means of :math:`f` and
    :math:`f^2`. At :math:`\delta = 0` it is the score test of calibration, so the period alerts (its mean
    score outside the hull) only where that test rejects too. Wilson's interval alone reads the rate's
    variance as :math:`\hat r(1 - \hat r)\sum\omega^2`; where the heavy rows are the risky ones
    :math:`\sum \omega_i^2 f_i(1 - f_i)` is larger, and calibrated periods alerted in 6.5-8.1 % of periods
    at a nominal 5 %, 4.9-5.4 % with the hull (three seeds of 1,000 periods of 300 rows, Beta(0.5, 20)
    scores, log-normal weights of sigma 1.5 correlated 0.8 with the logit score:
    tests/monitoring/test_claims_r31.py). Equal weights (Kish size = rows) keep the unweighted interval
    (:func:`_even`), bit for bit; statistics without :math:`\sum w f^2` and weights whose squares under- or
    overflow keep Wilson's."""
    from ..delayed._ppi_sums import _score_roots, z_of

    rate, n_eff = rated
    total = s.total_weight
    if s.sum_p2 is None or not n_eff < s.n * (1.0 - 1e-9) or not total > 0:
        return low, high
    w = np.asarray(s.weight, dtype=np.float64).reshape(-1)
    wsq = np.asarray(s.weight_sq, dtype=np.float64).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_f = np.where(w > 0, np.asarray(s.sum_p, dtype=np.float64).reshape(-1) / w, 0.0)
        mean_ff = np.where(w > 0, np.asarray(s.sum_p2, dtype=np.float64).reshape(-1) / w, 0.0)
    t2 = total * total
    if not (t2 > 0 and wsq.sum() > 0 and np.isfinite(t2)):  # squares that under- or overflow: Wilson's alone
        return low, high
    a, b1, b2 = float(wsq.sum() / t2), float((wsq * mean_f).sum() / t2), float((wsq * mean_ff).sum() / t2)
    conf = float(s.sum_p.sum() / total)
    lo_d, hi_d = _score_roots(np.asarray(rate - conf), np.asarray(a), np.asarray(b1), np.asarray(b2),
                              z_of(level))
    if not (np.isfinite(lo_d) and np.isfinite(hi_d)):
        return low, high
    return max(min(low, conf + float(lo_d)), 0.0), min(max(high, conf + float(hi_d)), 1.0)


def _even(s: BinStats, n_eff: float) -> bool:
    r"""Whether a period's labelled rows weigh alike (no weights, or equal ones: the Kish size is the
    number of rows, up to rounding): its rate's interval is then Blaker's (:mod:`._blaker`), the exact
    two-sided binomial test of a mean confidence :math:`c` inverted. Wilson's interval inverts the normal
    score test, whose level fails where few positives are expected: at :math:`nc` = 0.5 to 4 (100 to 500
    rows at 0.2 to 2 %) a calibrated period alerted in 6 to 9 % of periods at a nominal 5 % (3 positives in
    100 rows at :math:`c` = 0.01 lie outside Wilson's interval; :math:`P(X \ge 3)` = 0.079). The number of
    positives of calibrated scores is Poisson-binomial, no more spread than the binomial at their mean
    (Hoeffding, 1956), so an exact binomial test holds its level for them too
    (tests/monitoring/test_monitor_rare_alerts_r33.py). Clopper-Pearson's interval, the equal-tailed exact
    test, held it but spent half of it on a tail that cannot reject where a few positives are expected
    (at :math:`nc = 3`, :math:`P(X = 0) \approx 0.05`): against rates twice the scores' its power was 0.25
    at three expected positives and 0.42 at five, Blaker's 0.39 and 0.55, every false-alarm rate still at
    most 5 % (tests/monitoring/test_monitor_blaker_r34.py; at two, 0.21 is the most any exact test reaches:
    :math:`P(X \ge 5) = 0.052`)."""
    return bool(n_eff >= s.n * (1.0 - 1e-9))


def _scaled(h: np.ndarray, size: float | None) -> np.ndarray:
    """A weighted histogram in units of effective rows (``size`` = its n_eff; None: already counts)."""
    total = float(h.sum())
    return h if size is None or total <= 0 else h * (size / total)


def summarize_periods(
    stats: dict[str, BinStats],
    *,
    pending: dict[str, int] | None = None,
    histograms: dict[str, np.ndarray] | None = None,
    reference: str | None = None,
    level: float = 0.95,
    min_count: int = 100,
    histogram_sizes: dict[str, float] | None = None,
    weight_scale: float = 1.0,
    histogram_squares: dict[str, np.ndarray] | None = None,
) -> MonitorResult:
    """Monitor rows from per-period statistics (from memory, a file scan, or a history).

    ``weight_scale`` is the power of two the statistics' weights were multiplied by
    (:mod:`veracity.core._weights`): each period's weighted ``n`` is reported divided by it, in the
    caller's units (every other figure is a ratio, the same in any units).

    ``histograms`` (all rows' score counts per bin, per period) add the PSI of each
    period against ``reference`` (default: the first period with enough rows, below). Weighted histograms come with
    ``histogram_sizes``, each period's effective number of rows (Σw)² / Σw²: the PSI reads the
    histograms in those units and the "few rows" label compares that size with ``min_count``, as
    ``insufficient`` does for the labelled rows (without it, a histogram's sum is its row count).
    ``histogram_squares`` (weighted: the per-bin sums of the squared weights, in the histograms' units
    squared) read the shift's chi-square test with the design's share variances
    (:func:`._shift.chi2_homogeneity`).
    Periods are listed in the order of their keys (``9`` before ``10``; :func:`._slice_names.name_order`);
    the default reference is the first with at least ``min_count`` rows (effective rows when weighted;
    else the first whose rows weigh more than 0), and a period whose labelled rows all weigh 0 is
    ``insufficient`` with no PSI.
    """
    check_interval_args("wilson", level, "two-sided")
    _check_min_count(min_count)
    if reference is not None and not isinstance(reference, str):  # a key as given (2, not '2'): its name
        from ..core._keys import same_key

        reference = str(same_key(reference))  # numpy's own scalars too: np.float32(2.1) is '2.1', as the keys
    pending = pending or {}
    histograms = histograms or {}
    # periods in the order of their keys (9 before 10; dates as text): the first is the reference
    histograms = {k: histograms[k] for k in name_order([str(k) for k in histograms])}
    weighed = [k for k, h in histograms.items() if float(h.sum()) > 0]  # periods whose rows weigh something
    sizes = {k: float(v) for k, v in (histogram_sizes or {}).items()}
    squares = histogram_squares
    if weighed:
        # default: the first period with min_count rows (a 3-row first period made every later PSI "within
        # noise" against a histogram of 3 rows), else the first whose rows weigh anything
        # (an effective size's rows are at least the size: equal weights decide as row counts do)
        enough = [k for k in weighed if enough_effective(size := sizes.get(k, float(histograms[k].sum())),
                                                         min_count, size)]
        reference = reference if reference is not None else (enough or weighed)[0]
        if reference not in histograms:
            raise VeracityError(
                f"reference period {reference!r} not found; periods: {', '.join(list(histograms)[:12])}"
            )
        if reference not in weighed:  # every PSI would compare with an empty histogram
            raise VeracityError(f"reference period {reference!r}: every row weighs 0, so it has no score "
                                f"distribution; name another (e.g. {weighed[0]!r})", param="reference")
    elif histograms and reference is not None and reference not in histograms:
        raise VeracityError(f"reference period {reference!r} not found; periods: {', '.join(list(histograms)[:12])}")
    else:
        reference = None

    stats = {k: stats[k] for k in name_order(list(stats))}

    def psi_of(period: str) -> tuple[float, str]:
        if reference is None or period not in histograms or not float(histograms[period].sum()) > 0:
            return float("nan"), ""  # no reference, or rows that all weigh 0: no distribution to compare
        here = _scaled(histograms[period], sizes.get(period))
        there = _scaled(histograms[reference], sizes.get(reference))
        psi = population_stability(here, there)
        rows = sizes.get(period, float(histograms[period].sum()))
        if psi != psi or rows < min_count or psi < PSI_MATERIAL:  # "", "few rows", "stable": no test read
            return psi, shift_label(psi, float("nan"), rows, min_count)
        # the label reads only whether the p-value is below SHIFT_ALPHA, and the design's p-value is never
        # below the plain test's (chi2_homogeneity): the design is read only where the plain test rejects
        p = chi2_homogeneity(here, there)
        if p < SHIFT_ALPHA and squares is not None and period in squares and reference in squares:
            # the unscaled weighted histograms with their per-bin squares: the shares' design variances
            design = (histograms[period], squares[period], histograms[reference], squares[reference])
            p = chi2_homogeneity(here, there, design)
        return psi, shift_label(psi, p, rows, min_count)

    nan = float("nan")
    # the interval of every period's rate in one vectorised call (element by element, the same operations
    # as one call per period): Blaker's where the weights are even (exact: a calibrated period alerts with
    # probability at most 1 - level), Wilson's at the Kish size where they are not
    rated = {period: (float(s.sum_y.sum() / s.total_weight), _kish(s.total_weight, float(s.weight_sq.sum())))
             for period, s in stats.items() if s.total_weight > 0}
    rate_n = np.asarray(list(rated.values()), dtype=np.float64).reshape(-1, 2)
    lows, highs = binomial_interval(rate_n[:, 0] * rate_n[:, 1], rate_n[:, 1], method="wilson", level=level)
    even = np.asarray([_even(stats[period], n_eff) for period, (_, n_eff) in rated.items()], dtype=bool)
    if even.any():
        k, n = rate_n[even, 0] * rate_n[even, 1], rate_n[even, 1]
        lows[even], highs[even] = blaker_interval(k, n, level)
    intervals = {period: (float(lo), float(hi)) for period, lo, hi in zip(rated, lows.tolist(), highs.tolist())}
    for period, (low_, high_) in intervals.items():  # uneven weights: widened to the score interval's hull
        intervals[period] = _weighted_hull(stats[period], rated[period], low_, high_, level)
    rows = []
    for period, s in stats.items():
        total = s.total_weight
        if not total > 0:  # labelled rows that all weigh 0 hold no evidence: insufficient, not "pending"
            psi, shift = psi_of(period)
            rows.append(MonitorRow(period, 0.0, int(pending.get(period, 0)), nan, nan, nan, nan, nan, nan, nan,
                                   nan, "insufficient", psi, shift))
            continue
        rate, n_eff = rated[period]
        conf = float(s.sum_p.sum() / total)
        low, high = intervals[period]
        if not enough_effective(n_eff, min_count, s.n):  # up to the sums' rounding, as the table's bins
            status = "insufficient"
        elif conf < low or conf > high:
            status = "alert"
        else:
            status = "ok"
        psi, shift = psi_of(period)
        rows.append(
            MonitorRow(
                period=period,
                n=in_user_units(total, weight_scale),
                pending=int(pending.get(period, 0)),
                base_rate=rate,
                conf=conf,
                gap=rate - conf,
                ci_low=low,
                ci_high=high,
                ece=ece_from_stats(s),
                brier=brier_from_stats(s),
                nll=nll_from_stats(s),
                status=status,
                psi=psi,
                shift=shift,
            )
        )
    labelled = {r.period for r in rows}
    for period in sorted((set(pending) | set(histograms)) - labelled - {"(all)"}):
        psi, shift = psi_of(period)  # nothing labelled yet: the scores still speak
        rows.append(MonitorRow(period, 0.0, int(pending.get(period, 0)), nan, nan, nan, nan, nan,
                               nan, nan, nan, "pending", psi, shift))
    rank = {name: i for i, name in enumerate(name_order([r.period for r in rows]))}
    rows.sort(key=lambda r: rank[r.period])
    return MonitorResult(rows=tuple(rows), stats=dict(stats), level=float(level),
                         min_count=int(min_count), histograms=histograms, reference=reference,
                         histogram_sizes=sizes)


def _value_kind(raw: np.ndarray) -> str:
    """pandas' ``infer_dtype(raw, skipna=False)`` as far as :func:`_object_times` tells its answers apart,
    from each value's type: numbers only are ``integer`` (ints), ``floating`` (floats), ``integer-na``
    (ints and NaN) or ``mixed-integer-float``; ``string`` and ``decimal`` when every value is one;
    ``timedelta`` for durations beside missing values only; an int beside other values is
    ``mixed-integer``, any other mix ``mixed``; one other type, ``other``. Checked against pandas on
    every mix of up to three of twenty kinds of value (tests/sources/test_no_pandas_r23.py)."""
    from decimal import Decimal

    def kind(v: Any) -> str:
        if isinstance(v, (bool, np.bool_)):
            return "bool"
        if isinstance(v, np.timedelta64):  # an np.integer, yet no number
            return "timedelta"
        if isinstance(v, (int, np.integer)):
            return "int"
        if isinstance(v, (float, np.floating)):
            return "float" if v == v else "nan"
        if isinstance(v, str):
            return "string"
        return "decimal" if isinstance(v, Decimal) else type(v).__name__

    kinds = {kind(v) for v in raw.tolist()}
    if kinds <= {"int", "float", "nan"}:
        if "int" not in kinds:
            return "floating"
        if kinds == {"int"}:
            return "integer"
        return "mixed-integer-float" if "float" in kinds else "integer-na"
    if len(kinds) == 1:
        return kinds.pop() if kinds <= {"string", "decimal"} else "other"
    if "timedelta" in kinds and kinds <= {"timedelta", "nan", "NoneType", "NaTType"}:
        return "timedelta"  # pandas skips the missing values beside durations even with skipna=False
    return "mixed-integer" if "int" in kinds else "mixed"


def _object_times(raw: np.ndarray, name: str = "times") -> np.ndarray:
    """An object column of times checked for one encoding: numbers only are epoch seconds (as a
    float array); strings only are text (as a ``str`` array, read as the store reads it); numbers
    beside dates or text are refused — read one by one, an int would be nanoseconds (1970-01) next to
    a date, a silent wrong period (issue 23's fuzz) — and so are datetimes with a time zone beside ones
    without (:func:`._time.mixed_zones_problem`), as strings with and without an offset are."""
    pandas = sys.modules.get("pandas")  # importing it here would cost every command line run half a second
    kind = pandas.api.types.infer_dtype(raw, skipna=False) if pandas is not None else _value_kind(raw)
    if kind in ("integer", "floating", "mixed-integer-float", "decimal"):
        return raw.astype(np.float64)
    if kind == "string":
        return raw.astype(str)
    if kind == "mixed" and any(isinstance(v, (int, float, np.integer, np.floating))
                               and not isinstance(v, (bool, np.bool_)) and v == v for v in raw.tolist()):
        kind = "mixed-integer"  # a float beside dates or text (pandas: "mixed"): the same mix, refused
    if kind == "mixed-integer":
        raise VeracityError(
            "times mixes numbers with dates or text in one column; numbers are read as epoch seconds and "
            "dates as dates, so a mix has no one reading: convert the column to one encoding (e.g. "
            "pandas.to_datetime(..., utc=True) or all epoch seconds)", param="times")
    from ._time import mixed_zones_problem

    missing = sum(1 for v in raw.reshape(-1).tolist() if v is None or v != v)
    if missing:  # NaT or None among datetimes: numpy's cast had said "could not parse them: 'float' ..."
        raise VeracityError(f"{name} has {missing} missing values; drop or fill them", param=name)
    problem = mixed_zones_problem(raw.reshape(-1))
    if problem is not None:  # naive rows read as UTC beside aware ones: refused, as such strings are
        raise VeracityError(f"{name} {problem}", param=name)
    return raw


def _string_array(words: np.ndarray) -> Any:
    """A 1-D numpy ``str`` array as an Arrow string array, as ``pa.array(words, type=pa.string())`` makes
    it (which imports pandas): each value's UTF-8 bytes, the padding of numpy's fixed width dropped
    (``mask = arange(width) < length``), behind int32 offsets ``0, cumsum(lengths)``."""
    import pyarrow as pa

    encoded = np.char.encode(words, "utf-8") if words.size else np.empty(0, dtype="S1")
    width = max(encoded.dtype.itemsize, 1)
    lengths = np.char.str_len(encoded).astype(np.int64) if encoded.size else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 2**31:
        return pa.array(words, type=pa.string())  # past int32 offsets: pyarrow's own (chunked) build
    data = np.ascontiguousarray(encoded).view(np.uint8).reshape(len(encoded), width)
    data = data[np.arange(width) < lengths[:, None]]
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)])


def _as_times(times: Any, name: str = "times") -> np.ndarray:
    """Times as ``datetime64``: datetimes as they are, numbers as epoch seconds (UTC), text as the
    monitoring store reads it (:func:`._time.parse_time_strings`: ISO 8601, every string with a UTC
    offset or every one without, never a mix); anything else at the microsecond, so that years
    outside 1677..2262 (nanoseconds' range) keep their date."""
    raw = to_numpy(times, name)
    if raw.dtype == object and raw.size:
        raw = _object_times(raw, name)
    if raw.dtype.kind == "U":
        # the store's one reading of time strings: numpy's own would read '20260301' as 1995-11-14, 'today'
        # as today, and a mix of strings with and without an offset without a word (the store refuses it)
        import pyarrow as pa
        import pyarrow.compute as pc

        from ._time import parse_time_strings

        text = _string_array(raw.reshape(-1))
        if not pc.all(pc.match_substring_regex(text, r"^[0-9]{4}(-[0-9]{2})?$")).as_py():
            parsed = parse_time_strings(text, f"{name} must be dates or datetimes in one ISO 8601 form, but it")
            raw = np.asarray(arrow_to_numpy(parsed)).reshape(raw.shape)
        # else ISO 8601 months or years ('2026-03', a month key as time): their first instant, UTC, by numpy
    if raw.dtype.kind in "iuf":
        # numbers are epoch seconds, as everywhere times enter veracity (monitoring._time); numpy
        # alone would read int64 as nanoseconds and put every row in 1970-01
        import pyarrow as pa

        from ._time import to_utc_timestamps

        raw = np.asarray(arrow_to_numpy(to_utc_timestamps(from_numpy(raw), name)))
    try:
        with warnings.catch_warnings():
            # numpy converts a string's offset to UTC (the reading veracity documents) and says so, each time
            warnings.filterwarnings("ignore", message="no explicit representation of timezones")
            t = raw.astype("datetime64[us]") if raw.dtype.kind != "M" else raw
    except (TypeError, ValueError) as exc:
        raise VeracityError(
            f"{name} must be dates or datetimes (e.g. '2026-03-01'); could not parse them: {exc}"
        ) from None
    if np.isnat(t).any():
        raise VeracityError(f"{name} has {int(np.isnat(t).sum())} missing values; drop or fill them")
    return t


@positional_options("freq")
def period_keys(times: Any, *, freq: str = "M") -> np.ndarray:
    """String period keys for datetimes: ``freq`` in D, W, M, Q, Y (e.g. '2026-03-02', '2026-W10',
    '2026-03', '2026Q1', '2026'), in UTC.

    ``W`` is the ISO week, Monday to Sunday, named by its ISO year and number (``2026-W01`` starts on
    Monday 2025-12-29), as the monitoring store names its weeks.
    ``freq`` is keyword-only (``period_keys(t, "W")`` still works, with a deprecation warning).

    >>> period_keys(np.array(["2026-01-15", "2026-02-01"], dtype="datetime64[D]"), freq="M").tolist()
    ['2026-01', '2026-02']
    >>> period_keys(np.array(["2025-12-28", "2025-12-29", "2026-01-04"], dtype="datetime64[D]"), freq="W").tolist()
    ['2025-W52', '2026-W01', '2026-W01']
    """
    return _period_keys(times, freq, "times")


def _period_keys(times: Any, freq: str, name: str) -> np.ndarray:
    """:func:`period_keys` of an argument called ``name`` (its refusals say so: ``periods`` in
    :func:`monitor`)."""
    if freq not in FREQS:
        raise VeracityError(f"freq must be one of {', '.join(FREQS)}; got {freq!r}")
    t = _as_times(times, name)
    if freq == "W":
        return _iso_weeks(t)
    if freq == "Q":
        months = t.astype("datetime64[M]").astype(np.int64)
        years = 1970 + months // 12
        quarters = months % 12 // 3 + 1
        return np.char.add(np.char.add(years.astype(str), "Q"), quarters.astype(str))
    return t.astype(FREQS[freq]).astype(str)


def _iso_weeks(t: np.ndarray) -> np.ndarray:
    """ISO week names ``YYYY-Www`` of datetimes: the week runs Monday to Sunday and belongs to the year
    of its Thursday; its number is 1 + the whole weeks from that year's first Thursday's week.
    (numpy's own ``datetime64[W]`` weeks start on Thursday, the weekday of 1970-01-01.)"""
    days = t.astype("datetime64[D]").astype(np.int64)
    thursday = days - (days + 3) % 7 + 3  # 1970-01-01 (day 0) is a Thursday: (day + 3) % 7 is 0 on Mondays
    year = thursday.astype("datetime64[D]").astype("datetime64[Y]")
    week = (thursday - year.astype("datetime64[D]").astype(np.int64)) // 7 + 1
    return np.char.add(np.char.add(year.astype(str), "-W"), np.char.zfill(week.astype(str), 2))


def _cutoff(as_of: Any, horizon: Any) -> np.datetime64:
    """The latest prediction time (to the microsecond, UTC) whose label is final at ``as_of``:
    ``as_of − horizon``, both read as the store and the CLI read them (``datetime64[us]``; the
    horizon ``round(seconds·10⁶)`` microseconds), so that every route counts the same labels final."""
    from ._time import parse_duration, parse_instant

    h = np.timedelta64(int(round(parse_duration(horizon, "horizon") * 1e6)), "us")
    return parse_instant(as_of, "as_of").astype("datetime64[us]") - h


def label_maturity(prediction_time: Any, as_of: Any, horizon: Any) -> np.ndarray:
    """True where a label is final: ``prediction_time + horizon <= as_of``, to the microsecond (finer
    times are cut to the microsecond, as the monitoring store stores them).

    ``horizon`` is a ``numpy.timedelta64``, a number of days or a duration such as ``"30d"``;
    NaN, infinite, negative or absurd (over 100 years) horizons are refused. ``as_of`` is a
    date/time (a string with an offset is converted to UTC), times as :func:`period_keys` reads them.

    >>> label_maturity(np.array(["2026-01-01", "2026-03-01"], dtype="datetime64[D]"),
    ...                np.datetime64("2026-03-15"), 30).tolist()
    [True, False]
    """
    return _maturity(prediction_time, as_of, horizon, "prediction_time")


def _maturity(times: Any, as_of: Any, horizon: Any, name: str) -> np.ndarray:
    """:func:`label_maturity` of an argument called ``name``."""
    t = _as_times(times, name).astype("datetime64[us]")
    return t <= _cutoff(as_of, horizon)


def monitor(
    scores: Any,
    labels: Any = None,
    periods: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    freq: str | None = None,
    mature: Any = None,
    bins: int = 15,
    score_type: str = "probability",
    sample_weight: Any = None,
    level: float = 0.95,
    min_count: int = 100,
    reference: str | None = None,
    pos_label: Any = None,
    as_of: Any = None,
    horizon: Any = None,
) -> MonitorResult:
    """Calibration per period. ``periods`` are keys, or datetimes with ``freq``.

    ``mature`` (boolean, one per row) marks rows whose label is final; the others
    are counted as pending and left out of every metric (their labels may be
    missing). ``as_of`` with ``horizon`` (``"30d"``, a number of days) marks them from
    the prediction times instead: a label is final when ``time + horizon <= as_of``
    (:func:`label_maturity`; with ``mature`` too, a row must pass both), and a row dated
    after ``as_of`` is left out of every count (it did not exist at ``as_of``; as
    ``MonitorStore.status(as_of=)`` leaves it out; ``after_as_of`` counts them). Every
    other row's score enters the PSI against ``reference``. ``pos_label`` names the positive class
    of two-valued labels.

    Frame form: ``monitor(frame, score="p", label="y", periods="ts", freq="M",
    mature="final")`` with column names, a frame or a file's path (CSV/Parquet, read
    by DuckDB where it lives); lazy frames are grouped where they live.
    """
    _check_min_count(min_count)
    if (as_of is None) != (horizon is None):
        raise VeracityError("as_of and horizon go together: a label is final when its prediction time + "
                            "horizon <= as_of", param="horizon" if horizon is None else "as_of")
    if as_of is not None and freq is None:
        raise VeracityError("as_of/horizon read the prediction times: pass periods holding times, with freq=",
                            param="freq")
    score_type = check_score_type(score_type, what="vc.monitor")
    if score is not None or label is not None:
        if periods is None:  # monitor(frame, "ts", score=..., label=...)
            periods, labels = labels, None
        from ..sources import read_errors
        from ._monitor_frames import _monitor_frame

        return read_errors(scores, lambda: _monitor_frame(
            scores, labels, periods, score=score, label=label, freq=freq, mature=mature, bins=bins,
            score_type=score_type, sample_weight=sample_weight, level=level, min_count=min_count,
            reference=reference, pos_label=pos_label, as_of=as_of, horizon=horizon))
    if labels is None or periods is None:
        raise VeracityError("monitor needs scores, labels and periods: monitor(scores, labels, periods), or with "
                            "a frame monitor(frame, score='p', label='y', periods='ts')",
                            param="periods" if labels is not None else "labels")
    keys = to_numpy(periods, "periods")
    final_by_time = None if as_of is None else _maturity(keys, as_of, horizon, "periods")
    # a prediction dated after as_of did not exist then: left out of every count, as the store's status does
    later = None if as_of is None else ~_maturity(keys, as_of, 0, "periods")
    if freq is not None:
        keys = _period_keys(keys, freq, "periods")
    else:
        _refuse_times_as_keys(keys)
        _refuse_missing_keys(keys)
        keys = _one_zero(keys)
    keys = np.asarray(keys).astype(str)
    n_later = 0 if later is None else int(later.sum())
    if later is not None and n_later:  # their scores still checked (every row is), under a key then dropped
        keys = np.where(later, _LATER, keys)
    edges = uniform_edges(check_bins(bins, auto=False))
    n = keys.size
    lengths = {name: np.shape(to_numpy(a, name)) for name, a in (("scores", scores), ("labels", labels))}
    if keys.ndim != 1 or any(len(shape) == 0 for shape in lengths.values()):
        raise VeracityError("monitor needs arrays with one score, label and period key per row, e.g. "
                            "monitor(scores, labels, periods); got a single value", param="scores")
    if len(lengths["scores"]) > 2 or (len(lengths["scores"]) == 2 and lengths["scores"][1] > 1):
        # (N, 2) is read top-label by vc.audit, refused by vc.segments: never half-read here (the
        # histograms refused it, the calibration numbers would have been top-label)
        raise VeracityError(f"vc.monitor watches binary scores (one probability per row), got shape "
                            f"{lengths['scores']}; pass the positive class's column, e.g. P[:, 1] of "
                            "predict_proba's two columns", param="scores")
    if len(lengths["scores"]) == 2:  # (N, 1): the one column
        scores = np.asarray(to_numpy(scores, "scores"))[:, 0]
    if lengths["scores"][0] != n or lengths["labels"][0] != n:
        raise VeracityError(
            f"scores, labels and periods must have one entry per row: got {lengths['scores'][0]} scores, "
            f"{lengths['labels'][0]} labels and {n} period keys", param="labels")
    # the keys' text sorted once: each grouping below sorts their codes (the rank of each key in that order),
    # so it meets the groups in the same order, with the same rows, and names them back
    names, codes = np.unique(keys, return_inverse=True)
    codes = codes.reshape(-1)

    def named(parts: dict[str, Any] | None) -> Any:
        return None if parts is None else {str(names[int(code)]): v for code, v in parts.items()}

    histograms = named(score_histograms(scores, codes, edges, score_type=score_type, sample_weight=sample_weight))
    sizes = named(_effective_sizes(codes, sample_weight))
    squares = None
    if sizes is not None:  # per bin, the sums of the squared weights: the shift test's design effect
        w = check_weights(sample_weight, n)
        with np.errstate(over="ignore", under="ignore"):
            w2 = None if w is None else w * w
        if w2 is not None and np.all(np.isfinite(w2)):  # squares that overflow: the Kish reading alone
            squares = named(score_histograms(scores, codes, edges, score_type=score_type, sample_weight=w2))
    if mature is not None:
        m = to_numpy(mature, "mature")
        if m.dtype != bool or m.shape != (n,):
            raise VeracityError("mature must be a boolean array with one flag per row")
    else:
        m = np.ones(n, dtype=bool)
    if final_by_time is not None:
        m = m & final_by_time
    if n_later:
        for parts in (histograms, sizes, squares):
            if parts is not None:
                parts.pop(_LATER, None)
    waiting, counts = np.unique(keys[~m & (keys != _LATER)], return_counts=True)
    pending = {str(k): int(c) for k, c in zip(waiting, counts)}
    stats: dict[str, BinStats] = {}
    if m.any():
        rows = np.flatnonzero(m)
        pick = (lambda a: None if a is None else np.asarray(to_numpy(a, "array"))[rows])
        # labels of pending rows may be missing: validate only the final ones
        pend = _missing_labels_may_pend(mature is None and final_by_time is None, "mature=")
        with pend, _in_rows_of(rows, n):
            data = prepare_binary(pick(scores), pick(labels), sample_weight=pick(sample_weight),
                                  score_type=score_type, pos_label=pos_label)
        stats = named(grouped_stats(data, codes[rows], edges))
    result = summarize_periods(dict(sorted(stats.items())), pending=pending, histograms=histograms,
                               reference=reference, level=level, min_count=min_count, histogram_sizes=sizes,
                               weight_scale=data.weight_scale if m.any() else 1.0, histogram_squares=squares)
    return replace(result, rows_read=n, after_as_of=n_later)


#: the key of the rows dated after ``as_of`` while they are checked (no period key holds a NUL)
_LATER = "\x00after as_of"


def _effective_sizes(keys: np.ndarray, sample_weight: Any) -> dict[str, float] | None:
    """Per key, the effective number of rows (Σw)² / Σw² of all its rows (None without weights)."""
    from ..core._validation import check_weights

    w = check_weights(sample_weight, keys.size)
    if w is None:
        return None
    uniq, inv = np.unique(keys, return_inverse=True)
    sw = np.bincount(inv.reshape(-1), weights=w, minlength=uniq.size)
    sw2 = np.bincount(inv.reshape(-1), weights=w * w, minlength=uniq.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        # a key whose weights' squares all underflow (weights below ~1e-221 of the largest) counts as one row
        n_eff = np.where(sw2 > 0, sw * sw / sw2, np.where(sw > 0, 1.0, 0.0))
    return {str(k): float(v) for k, v in zip(uniq.tolist(), n_eff.tolist())}


def _one_zero(keys: np.ndarray) -> np.ndarray:
    """Period keys with ``-0.0`` read as ``0.0`` (:func:`veracity.core._keys.same_key`): one value, one
    period, as SQL's GROUP BY, the lazy forms and ``vc.audit(by=)`` take them (a key ``round(-0.3)`` made a
    period ``-0.0`` beside ``0.0`` here, one period on DuckDB). Every other key is unchanged."""
    from ..core._keys import same_key

    if keys.dtype.kind == "f":
        return keys + keys.dtype.type(0)  # -0.0 + 0.0 == +0.0, in the keys' own precision
    if keys.dtype == object and keys.ndim == 1 and keys.size:
        zero = np.asarray(keys == 0, dtype=bool)  # only a zero can be -0.0 (and False, kept as it is)
        if zero.any():
            keys = keys.copy()
            keys[zero] = np.frompyfunc(same_key, 1, 1)(keys[zero])
    return keys


def _refuse_times_as_keys(keys: np.ndarray) -> None:
    """Dates or times without ``freq`` made one period per distinct instant (500 rows at 500 times: 500
    periods of one row); the frame form refuses them, and so does this one, in the same words."""
    temporal = keys.dtype.kind == "M"
    if keys.dtype == object and keys.size:
        import datetime

        first = next((v for v in keys[:1000] if v is not None and v == v), None)
        temporal = isinstance(first, (datetime.date, np.datetime64))  # pandas' Timestamp is a datetime
    if temporal:
        raise VeracityError("periods holds dates/times; pass freq='D', 'W', 'M', 'Q' or 'Y' to group them into "
                            "periods (or period keys such as '2026-03')", param="freq")


def _refuse_missing_keys(keys: np.ndarray, subject: str = "periods", noun: str = "missing key") -> None:
    """Period keys must all be there: a NaN, NaT or None key once became a period named 'nan' or 'None'.
    The refusal counts them, names the first by its position in ``keys`` ("first at row k", k from 0) and
    begins with ``subject``, ``noun`` naming what is missing (the frame form: "column 'g' (periods)",
    "missing value")."""
    from ..core._text import count_noun
    from ..core._validation import _is_missing

    if keys.dtype.kind in "fc":
        missing = np.isnan(keys)
    elif keys.dtype.kind in "mM":
        missing = np.isnat(keys)
    elif keys.dtype == object:  # None, NaN, pandas' NA or NaT (as the labels' check reads them)
        missing = np.frompyfunc(_is_missing, 1, 1)(keys).astype(bool)
    else:
        return
    if missing.any():
        n, first = int(missing.sum()), int(np.flatnonzero(missing)[0])
        raise VeracityError(f"{subject} has {count_noun(n, noun)} (first at row {first}); drop or fill "
                            f"{'it' if n == 1 else 'them'}", param="periods")



@contextmanager
def _missing_labels_may_pend(active: bool, how: str) -> Iterator[None]:
    """A refusal of missing labels, when no row was marked pending (``active``), says how to keep such
    rows as pending (``how``: ``mature=`` or ``mature='column'``) besides dropping them: in a monitor a
    label that has not arrived yet is the normal case, not a broken row."""
    try:
        yield
    except MissingLabels as exc:
        if not active:
            raise
        raise VeracityError(
            f"{exc.message}; or keep the rows whose label has not arrived as pending: pass {how} (True where "
            "the label is final) or as_of= with horizon=", exc.param, exc.hint, value=exc.value, rows=exc.rows,
            n_rows=exc.n_rows) from None


@contextmanager
def _in_rows_of(rows: np.ndarray, n: int) -> Iterator[None]:
    """An error about particular rows of the final rows (the arrays picked at ``rows`` of ``n``) names
    them in the caller's arrays: ``exc.rows`` become ``rows[exc.rows]`` of ``n``, and "flat index k" of the
    picked 1-D array reads ``rows[k]`` (with a row pending before it, "first at flat index 2" named a
    pending row, whose label may be missing). Errors about no one row pass unchanged."""
    try:
        yield
    except VeracityError as exc:
        if exc.rows is None or exc.n_rows != rows.size or rows.size == n:
            raise
        message = re.sub(r"\bflat index (\d+)", lambda m: f"flat index {rows[int(m.group(1))]}"
                         if int(m.group(1)) < rows.size else m.group(0), exc.message)
        raise type(exc)(message, exc.param, exc.hint, value=exc.value, rows=rows[exc.rows],
                        n_rows=n) from None
