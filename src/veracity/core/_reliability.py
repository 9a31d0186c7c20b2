"""The reliability table: per-bin counts, confidence, frequency, gap and interval."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ._binning import enough_effective, make_edges
from ._intervals import binomial_interval, check_interval_args
from ._formulas import ece_from_stats, gap_numerator
from ._stats import BinStats
from ._text import count_noun, fmt, fmt_count, fmt_edge_pair, render_table
from ._compat import renamed
from ._frameform import frame_call, is_frame_form, require_labels
from ._validation import VeracityError, check_min_count, prepare_binary, refuse_score
from ._display import Display, fmt_weight
from ._options import IntervalMethod, ScoreType, Sided, Strategy


@dataclass(frozen=True)
class ReliabilityRow:
    """One non-empty bin. ``n`` is the (weighted) count, ``count`` the number of rows."""

    index: int
    lo: float
    hi: float
    n: float
    count: int
    conf: float
    acc: float
    gap: float
    ci_low: float
    ci_high: float
    sufficient: bool

    def label(self, last: bool) -> str:
        close = "]" if last else ")"
        lo, hi = fmt_edge_pair(self.lo, self.hi)
        return f"[{lo},{hi}{close}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, eq=False, repr=False)
class ReliabilityTable(Display):
    r"""Reliability table (empty bins omitted from ``rows`` and listed in ``empty_bins``).

    ``gap = acc − conf`` (positive: under-confident, negative: over-confident);
    ``[ci_low, ci_high]`` is the binomial interval of ``acc``;
    ``sufficient`` is ``n ≥ min_count`` (effective size when weighted, decided up to the rounding of
    its sums, so equal weights mark the bins rows would: :func:`~veracity.core._binning.enough_effective`).
    ``mce`` is :math:`\max |\mathrm{gap}_b|` over the *sufficient* bins only (NaN when no
    bin is sufficient): a bin marked "do not act on" never sets the headline maximum;
    ``mce_insufficient`` is the largest gap among the other bins, shown apart.
    """

    rows: tuple[ReliabilityRow, ...]
    empty_bins: tuple[int, ...]
    stats: BinStats
    ece: float
    mce: float
    ci: str
    level: float
    sided: str
    min_count: int
    #: the largest |gap| among the insufficient bins (None when every bin is sufficient),
    #: shown apart from ``mce``, which is the maximum over sufficient bins only
    mce_insufficient: float | None = None

    @property
    def n(self) -> int:
        return self.stats.n

    @property
    def weighted(self) -> bool:
        """True when the rows carried unequal-to-one weights: ``n`` is then a weight sum (not a
        row count) and ``sufficient`` reads the effective size."""
        return not np.array_equal(self.stats.weight, self.stats.count)

    @property
    def interval(self) -> str:
        """The per-bin binomial interval ('wilson' or 'clopper-pearson'); ``ci`` is the same."""
        return self.ci

    @property
    def bins(self) -> int:
        return self.stats.n_bins

    def empty_bin_text(self) -> str:
        """Where the empty bins are, by score range, a run of adjacent ones as one range, with their count:
        ``no rows in [0.2,0.4), [0.5,0.9) (6 empty bins omitted)``. Their 0-based indices (``empty_bins``, the
        JSON's) read as "the sixth bin" for index 6, which is the seventh; "" when no bin is empty.

        A bin whose rows all weigh 0 holds no evidence and is omitted too, but it is not without rows:
        ``no rows in [0.2,0.4); only rows of weight 0 in [0.8,1.0] (2 empty bins omitted)`` (it read
        "no rows in [0.8,1.0]" of a bin holding 56 rows of weight 0, counted in the table's points)."""
        if not self.empty_bins:
            return ""
        idx = np.asarray(self.empty_bins)
        weightless = self.stats.count[idx] > 0
        parts = [f"{what} {self._bin_ranges(idx[pick])}"
                 for what, pick in (("no rows in", ~weightless), ("only rows of weight 0 in", weightless))
                 if pick.any()]
        return f"{'; '.join(parts)} ({count_noun(len(idx), 'empty bin')} omitted)"

    def _bin_ranges(self, idx: np.ndarray) -> str:
        """The score ranges of the (sorted) bins ``idx``, a run of adjacent bins as one range."""
        e, last = self.stats.edges, self.bins - 1
        breaks = np.flatnonzero(np.diff(idx) > 1)
        starts, ends = idx[np.r_[0, breaks + 1]], idx[np.r_[breaks, idx.size - 1]]
        pairs = (fmt_edge_pair(float(e[a]), float(e[b + 1])) for a, b in zip(starts, ends))
        return ", ".join(f"[{lo},{hi}{']' if b == last else ')'}" for (lo, hi), b in zip(pairs, ends))

    @property
    def strategy(self) -> str:
        return self.stats.strategy

    @classmethod
    def from_stats(
        cls,
        stats: BinStats,
        *,
        ci: str = "wilson",
        level: float = 0.95,
        sided: str = "two-sided",
        min_count: int = 20,
    ) -> ReliabilityTable:
        check_interval_args(ci, level, sided)
        check_min_count(min_count)
        n_eff = stats.effective_count
        enough = enough_effective(n_eff, min_count, stats.count)  # up to the sums' rounding
        acc = stats.acc
        conf = stats.conf
        size = interval_sizes(stats)
        low, high = binomial_interval(
            np.nan_to_num(acc) * size, size, method=ci, level=level, sided=sided
        )
        keep = np.flatnonzero(stats.nonempty)
        e = stats.edges
        with np.errstate(invalid="ignore", divide="ignore"):  # acc − conf = −Σw(p − y)/Σw, not a difference of two means
            gaps = -gap_numerator(stats) / stats.weight
        rows = tuple(
            ReliabilityRow(
                index=int(b),
                lo=float(e[b]),
                hi=float(e[b + 1]),
                n=float(stats.weight[b]),
                count=int(stats.count[b]),
                conf=float(conf[b]),
                acc=float(acc[b]),
                gap=float(gaps[b]),
                ci_low=float(low[b]),
                ci_high=float(high[b]),
                sufficient=bool(enough[b]),
            )
            for b in keep
        )
        empty = tuple(int(b) for b in np.flatnonzero(~stats.nonempty))
        mce, mce_thin = max_gaps(stats, min_count)
        return cls(
            rows=rows,
            empty_bins=empty,
            stats=stats,
            ece=ece_from_stats(stats, "l1"),
            mce=mce,
            ci=ci,
            level=float(level),
            sided=sided,
            min_count=int(min_count),
            mce_insufficient=mce_thin,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "bins": self.bins,
            "strategy": self.strategy,
            "interval": self.ci,
            "ci": self.ci,  # the old name of "interval", kept for readers of older JSON
            "level": self.level,
            "sided": self.sided,
            "min_count": self.min_count,
            "ece": self.ece,
            "mce": self.mce,
            "mce_insufficient": self.mce_insufficient,
            "empty_bins": list(self.empty_bins),
            "table": [r.to_dict() for r in self.rows],
        }

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        side = "" if self.sided == "two-sided" else f" {self.sided}"
        weighted = self.weighted
        headers = ["bin", "weight" if weighted else "count", "conf", "acc", "gap", f"{pct}{side} CI", ""]
        last = self.bins - 1
        body = [
            [
                r.label(r.index == last),
                fmt_weight(r.n) if weighted else fmt_count(r.n),
                fmt(r.conf),
                fmt(r.acc),
                fmt(r.gap, sign=True),
                f"[{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]",
                "" if r.sufficient else "insufficient",
            ]
            for r in self.rows
        ]
        table = render_table(headers, body, align="lrrrrll")
        omitted = f"; {self.empty_bin_text()}" if self.empty_bins else ""
        footer = (
            f"({count_noun(self.n, 'point')} in {self.bins} {self.strategy} bin{'s' if self.bins != 1 else ''}{omitted})   "
            f"ECE {self.ece:.4f}   {self.mce_text()}"
        )
        if any(not r.sufficient for r in self.rows):
            seen = "effective observations (Kish)" if weighted else "observations"
            footer += f"\n(insufficient: fewer than {self.min_count} {seen}; do not act on these bins)"
        return f"{table}\n{footer}"

    def _title(self) -> str:
        return f"Reliability table: {count_noun(self.n, 'row')}, {self.bins} {self.strategy} bin{'s' if self.bins != 1 else ''}; ECE {self.ece:.4f}; {self.mce_text()}"

    def _summary_items(self) -> dict[str, Any]:
        items: dict[str, Any] = {"interval": f"{self.level * 100:g}% {self.ci}" + (
            "" if self.sided == "two-sided" else f" {self.sided}"), "sufficient bins": f"{'effective n' if self.weighted else 'n'} >= {self.min_count}"}
        if self.empty_bins:
            items["empty bins"] = self.empty_bin_text()
        return items

    def mce_text(self) -> str:
        """``MCE 0.1234`` (sufficient bins), with the insufficient bins' maximum shown apart."""
        return mce_text(self.mce, self.mce_insufficient, self.min_count, weighted=self.weighted)

    def _frame_records(self) -> list[dict[str, Any]]:
        # the frame's own index numbers the rows: the bin number is ``bin``; ``count`` (rows) only
        # when weighted, where it differs from ``n`` (the weighted count)
        weighted = any(r.n != r.count for r in self.rows)
        out = []
        for r in self.rows:
            d = {"bin": r.index, **r.to_dict()}
            del d["index"]
            if not weighted:  # n is the row count: shown as the whole number it is
                d["n"] = d.pop("count")
            out.append(d)
        return out


def interval_sizes(stats: BinStats) -> np.ndarray:
    r"""The size each bin's binomial interval (Wilson, Clopper–Pearson, either side) is taken at.

    Kish's effective size :math:`(\sum w)^2 / \sum w^2` (:attr:`BinStats.effective_count`; the row count
    unweighted) where the bin's rows weigh alike, or where the statistics lack :math:`\sum w^2 y` and
    :math:`\sum w^2 p(1 - p)` (unweighted, or saved before they existed); otherwise the smallest of it, the
    observed (sandwich) size :math:`r(1 - r)W^2 / \sum w^2 (y - r)^2` and calibration's
    :math:`c(1 - c)W^2 / \sum w^2 p(1 - p)` (:func:`veracity.core._weights.honest_size`, the rule of
    ``vc.segments``' intervals): Kish's size assumes weights unrelated to the label, and class weights
    (positives 9 times the negatives) made Wilson on it cover 0.86 at 95 %. A bin's rows weigh alike when
    its Kish size reaches its row count up to the sums' rounding
    (:func:`~veracity.core._binning.enough_effective`). ``sufficient`` stays on Kish's size."""
    from ._weights import honest_size

    n_eff = stats.effective_count
    if stats.sum_w2y is None or stats.sum_w2pq is None:
        return n_eff
    even = enough_effective(n_eff, stats.count, stats.count)  # type: ignore[arg-type]  # per bin
    if even.all():
        return n_eff
    return np.where(stats.nonempty, honest_size(stats.weight, stats.weight_sq, stats.sum_y, stats.sum_w2y,
                                                stats.sum_p, stats.sum_w2pq, even=even), n_eff)


def max_gaps(stats: BinStats, min_count: float) -> tuple[float, float | None]:
    r"""``(MCE, MCE of the insufficient bins)``: :math:`\max |\mathrm{acc}_b - \mathrm{conf}_b|`
    over the non-empty bins whose effective size is at least ``min_count`` (up to its sums' rounding:
    :func:`~veracity.core._binning.enough_effective`), and over the others.

    The first is NaN when no bin is sufficient, the second None when every bin is.
    """
    keep = stats.nonempty
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(gap_numerator(stats)) / np.where(keep, stats.weight, 1.0)
    enough = keep & enough_effective(stats.effective_count, min_count, stats.count)
    thin = keep & ~enough
    mce = float(gap[enough].max()) if enough.any() else float("nan")
    return mce, (float(gap[thin].max()) if thin.any() else None)


def mce_text(mce: float, thin: float | None, min_count: int, *, weighted: bool = False) -> str:
    """How every printout shows MCE: the sufficient bins' maximum, the thin bins' apart.

    One clause, one parenthesis: ``MCE 0.0145 (largest gap among the insufficient bins 0.5719,
    not acted on)``, or, when no bin is sufficient, ``MCE n/a (no bin has >= 20 rows; largest gap
    among the insufficient bins 0.3602, not acted on)``. The thin bins' maximum is shown only
    when it exceeds the MCE (or there is no MCE).
    """
    seen = "effective observations" if weighted else "rows"
    notes = [] if mce == mce else [f"no bin has >= {min_count} {seen}"]
    if thin is not None and (mce != mce or thin > mce):
        notes.append(f"largest gap among the insufficient bins {fmt(thin)}, not acted on")
    head = f"MCE {fmt(mce)}" if mce == mce else "MCE n/a"
    return f"{head} ({'; '.join(notes)})" if notes else head


@renamed(ci="interval")
def reliability(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    sided: Sided = "two-sided",
    min_count: int = 20,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> ReliabilityTable:
    r"""Reliability table of binary (or top-label multiclass) forecasts.

    Per bin b: :math:`n_b`, :math:`\mathrm{conf}_b = \frac{1}{n_b}\sum_{i\in b} p_i`,
    :math:`\mathrm{acc}_b = \frac{1}{n_b}\sum_{i\in b} y_i`, ``gap = acc − conf``, a
    Wilson or Clopper–Pearson interval for acc, and ``sufficient = n_b ≥ min_count``.
    Equal-width bins use index ``min(floor(p·M), M−1)``; ``strategy="quantile"``
    gives equal-mass bins that never split equal scores. ``pos_label`` names the positive
    class of two-valued labels (e.g. ``"yes"``).

    >>> t = reliability([.76, .82, .81, .91, .70], [1, 0, 1, 1, 0], bins=1)  # seed 004
    >>> round(t.rows[0].conf, 2), round(t.rows[0].acc, 2)
    (0.8, 0.6)
    """
    refuse_score(score_type, "vc.reliability")
    if is_frame_form(score, label):
        return frame_call(reliability, scores, labels, locals())
    require_labels("reliability", labels)
    check_interval_args(interval, level, sided)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    edges = make_edges(data.p, bins, strategy, data.w)
    stats = BinStats.from_binary(data, edges, strategy, full=False)
    table = ReliabilityTable.from_stats(stats, ci=interval, level=level, sided=sided, min_count=min_count)
    from ._audit import table_in_user_units  # each bin's weighted n in the caller's units, as vc.audit shows it

    return table_in_user_units(table, data.weight_scale)
