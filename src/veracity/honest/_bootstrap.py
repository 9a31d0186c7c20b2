r"""Bootstrap intervals for the headline metrics: ECE, MCE, Brier, NLL, AUC, accuracy.

**Resampling.** Each resample draws N rows with replacement: exact multinomial
counts :math:`c_i`, drawn hierarchically (one multinomial over blocks of 65,536
rows, then uniform draws inside each block, so every ``bincount`` stays in cache),
seeded; every metric of a chunk of resamples is computed from its count matrix:

* binned sums per bin (weight, Σwp, Σwy) and the row sums behind Brier, NLL and
  accuracy — matrix products of cache-sized column blocks of the counts with
  the per-row values; rows are laid out by class, then by score, so every
  (bin, class) pair is a contiguous block;
* the Mann–Whitney AUC — with negatives sorted by score, the running negative
  mass :math:`\mathrm{cum}_k = \sum_{j \le k} c_j w_j` read at
  :math:`k_i` = the number of negatives strictly below positive i gives
  :math:`\mathrm{num} = \sum_{y_i=1} c_i w_i\,\mathrm{cum}_{k_i}`; tied pairs count ½
  (the mean of the readings at "strictly below" and "at or below"). Unweighted,
  these are integer sums, exact.

**Order.** The rows are put in a canonical order first (by score, label, weight:
:func:`~veracity.honest._common.canonical_rows`) and the count of resample r for the
k-th row of that order is drawn from the stream, so the intervals are bit-identical
for any permutation of the rows (rows equal on every key are interchangeable: a
resample of them is the same multiset whichever gets which count).

It is the exact (multinomial) bootstrap; nothing is approximated. Bins are those
of the full sample (ECE and MCE intervals are conditional on the binning).
Memory stays bounded: chunks hold at most ~4·10⁶ counts (1e6 rows → 4 resamples
per chunk).

**Intervals.** ``method="percentile"``: the :math:`\alpha/2` and
:math:`1-\alpha/2` quantiles of the resampled values. ``method="bca"`` (Efron
1987): the quantiles at :math:`\Phi\big(z_0 + \frac{z_0 + z_q}{1 - a(z_0 + z_q)}\big)`
with bias correction :math:`z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\}/B + \tfrac12\#\{\theta^* = \hat\theta\}/B)`
(equal up to the sums' rounding, :func:`share_below`)
and acceleration :math:`a = \sum u_i^3 / (6(\sum u_i^2)^{3/2})`,
:math:`u_i = \bar\theta_{(\cdot)} - \theta_{(i)}`, from the **exact delete-one
jackknife**: every metric here has a closed-form leave-one-out value (Brier, NLL
and accuracy are ratios of sums; ECE/MCE change only the left-out row's bin; the
AUC loses the left-out row's pairs, :math:`w_i A_i` with :math:`A_i` its weighted
count of opposite-class rows ranked below it, ties ½), so all N jackknife values
cost one sort — no delete-a-group approximation is needed even at 10⁶ rows. When
BCa is undefined (all resamples on one side of the estimate) the percentile
interval is reported and the row says so.

**Too few rows of a class.** Below :data:`~veracity.core._delong.MIN_CLASS_ROWS` (10) rows of a
class — weighted, the class's Kish effective size (:func:`~veracity.core._delong.few_class_rows`) — no
interval is shown (n/a, no boot SE; the estimates stay) and a note says why: the rule of
:func:`veracity.compare_models`, which refuses its DeLong and bootstrap intervals there. Resamples of so
few rows of a class cannot place a 95 % interval: a resample may hold no row of the class (no AUC), two
rows (one positive, one negative) have three distinct resamples and printed ``auc 1.0000 [1.0000,
1.0000]``, boot SE 0. Seeded simulation (calibrated Beta scores, 150-200 samples a setting; the 5-row
case in tests/honest/test_bootstrap_few_rows_r22.py): the 95 % intervals (BCa, the default) covered the
true AUC in 26 % of samples of 3 rows, 60 % of 5, 84 % of 8, 75 % of 1,000 rows with about 5 positives;
Brier, NLL and accuracy 64-69 % at 3 rows, 83-87 % at 5, 89-95 % at 8-16.

**Weighted AUC.** With heavy-tailed weights the weighted AUC's interval covers less often than its level
although its boot SE is right, so a weighted AUC's interval is shown with a note
(:data:`WEIGHTED_AUC_NOTE`) when the smaller class's Kish effective size
:math:`\min_c (\sum_{y=c} w)^2 / \sum_{y=c} w^2` is below :data:`WEIGHTED_AUC_KISH` (100). Seeded
simulation (calibrated uniform scores, weights :math:`w = e^{\sigma Z + 2p}`, :math:`\sigma` 1-1.2,
300-1,000 rows; tests/claims/test_claims_bootstrap_r32.py): 95 % BCa intervals covered the true weighted
AUC in 0.88 of samples with a Kish size below 30, 0.91 at 30-60, 0.93 at 60-100, 0.94 at 100-200;
percentile intervals (0.88-0.94), a weighted DeLong, a logit-scale DeLong and a bootstrap-t (0.90-0.91)
did not hold the level either; the closest, a logit-scale Wald interval with the exact jackknife SE and a
t quantile on the smaller Kish size less one degrees of freedom, covered 0.92-0.97 over the settings tried
(0.92 at a true AUC of 0.91 with 300 rows), so it is not used. Unweighted rows, and rows of equal weights
(the unweighted rows), get their own note (:data:`FEW_AUC_NOTE`) below :data:`FEW_AUC_ROWS` (100) rows of
the smaller class: near an AUC of 1 the resampled AUC is skewed, and 95 % BCa intervals of binormal scores
at an AUC of 0.96 covered it 0.886 of the time with 12 positives to 150 negatives, 0.913 with 20, 0.917
with 40 / 300, 0.930 with 100 / 1,000 (0.929 at an AUC of 0.90, 40 / 300; 1,000 samples each, session 42;
percentile 0.869 with 20), most misses above the truth; a logit-scale DeLong did no better (0.88-0.94).

**Weighted Brier score, log loss and accuracy.** They under-cover alike on few effective rows, and carry a
note (:data:`WEIGHTED_MEANS_NOTE`) when the rows' Kish effective size :math:`(\sum w)^2/\sum w^2` is below
:data:`WEIGHTED_MEANS_KISH` (100): in the same setting (weights :math:`e^{1.2 Z + 2p}`, 300 rows, Kish
effective size 39-99 in 90 % of the samples) the 95 % BCa intervals of the weighted Brier score, log loss and accuracy covered the population's values 0.87, 0.86 and
0.91 of the time, where weights :math:`e^{2p}` on as many rows (Kish size about 229) kept the level
(tests/honest/test_bootstrap_weighted_means_r33.py; 0.90-0.92 at Kish sizes 100-200 in a larger run).
The rows' Kish size alone misses rare events: a mean of rare-event rows moves with the few rows of the
smaller class, so the note also fires when the smaller class's Kish size (as the weighted AUC's) is below
100. Seeded simulation (calibrated Beta(0.6, 30) scores, 2 % events, weights :math:`e^{\sigma Z + 2p}`,
3,000-6,000 rows; tests/honest/test_bootstrap_rare_weighted_r34.py): with the rows' Kish size 750-2,100
(no note before) and the positives' 20-41, the 95 % BCa intervals covered the weighted Brier score, log
loss and accuracy 0.88-0.93 of the time, where weights :math:`e^{2p}` (σ = 0) kept the level (0.95).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from ..core._special import ndtr, ndtri

from ..core._binning import bin_index, cumulative_slack, enough_effective, make_edges
from ..core._ece_bias import BIAS_SHARE, bin_sigmas, expected_max_abs, plugin_ece_bias_bound
from ..core._metrics import auc_of, refuse_top_label_threshold
from ..core._text import count_noun, fmt, render_table
from ..core._validation import Binary, VeracityError, binary_nll_terms, prepare_binary
from ._common import (canonical_rows, check_count, check_level, check_min_count, check_seed, check_threshold,
                      weighted_rows)
from ..core._delong import MIN_CLASS_ROWS, few_class_rows
from ..core._weights import kish_size
from ..core._display import Display, html_note, html_page, html_table, interval_cell
from ..core._compat import renamed, renamed_attribute
from ..core._parallel import advance
from ..core._frameform import rows_form

METRICS = ("ece", "mce", "brier", "nll", "auc", "accuracy")
METHODS = ("percentile", "bca")
_CHUNK_COUNTS = 1 << 22
#: the note under intervals refused for too few rows of a class (module docstring; ``{few}``: what
#: :func:`~veracity.core._delong.few_class_rows` says)
FEW_ROWS = ("too few rows of a class ({few}; the bootstrap needs at least {need} of each, as "
            "vc.compare_models): no interval is shown (n/a): resamples of so few rows of a class cover far "
            "less often than the level (simulated 95 % intervals covered the true AUC 26-84 % of the time "
            "with 3-8 rows, the true Brier score 68-90 % with 3-16)")
#: the row's own note for such an interval (the full reason is in the result's notes)
FEW_ROWS_ROW = "too few rows of a class"
#: below this Kish effective size of the smaller class a weighted AUC's interval carries
#: :data:`WEIGHTED_AUC_NOTE` (module docstring, "Weighted AUC")
WEIGHTED_AUC_KISH = 100.0
#: the note on such an interval (``{kish}``: the smaller class's Kish effective size)
WEIGHTED_AUC_NOTE = ("the weighted AUC's interval may cover less often than its level: the smaller class's "
                     "Kish effective size is {kish:.1f} (below 100); simulated 95 % intervals (BCa and "
                     "percentile) with heavy-tailed log-normal weights covered the true weighted AUC "
                     "0.87-0.91 of the time at Kish sizes 10-60, 0.91-0.93 at 60-100")
#: the row's own note for such an interval (the full text is in the result's notes)
WEIGHTED_AUC_ROW = "may under-cover (few effective rows)"
#: unweighted rows: below this many rows of the smaller class the AUC's interval carries :data:`FEW_AUC_NOTE`
FEW_AUC_ROWS = 100
#: the note on such an interval (``{rows}``: the smaller class's rows)
FEW_AUC_NOTE = ("the AUC's interval may cover less often than its level: the smaller class has {rows:,} "
                "rows (below 100); simulated 95 % BCa intervals of binormal scores covered the true AUC "
                "0.89 of the time with 12 positives, 0.91-0.92 with 20-40 and 0.93 with 100 at an AUC of "
                "0.96 (0.87 percentile, 20 positives), most misses above it")
#: below this Kish effective size of the rows, or of the smaller class, the weighted Brier score's, log
#: loss's and accuracy's intervals carry :data:`WEIGHTED_MEANS_NOTE` (module docstring, "Weighted Brier
#: score, log loss and accuracy")
WEIGHTED_MEANS_KISH = 100.0
#: the metrics it concerns, as :data:`WEIGHTED_MEANS_NOTE` names them
WEIGHTED_MEANS = {"brier": "Brier score", "nll": "log loss", "accuracy": "accuracy"}
#: the note on such intervals (``{metrics}``: those shown; ``{whose}`` ``{kish}``: the rows' Kish effective
#: size when below 100, else the smaller class's; ``{also}``: then the rows' too); the text before the first
#: brace says which intervals it concerns (the report places it by that)
WEIGHTED_MEANS_NOTE = ("the intervals of weighted means ({metrics}) may cover less often than the level: "
                       "{whose} Kish effective size is {kish:.1f} (below 100{also}); simulated 95 % "
                       "intervals with heavy-tailed log-normal weights covered the weighted Brier score, "
                       "log loss and accuracy 0.86-0.92 of the time at Kish sizes of the rows 39-99, "
                       "0.88-0.93 at Kish sizes of the smaller class 20-41 (rare events)")
#: the row's note for an interval refused for too few resamples (the full reason is in the result's notes)
FEW_RESAMPLES_ROW = "too few resamples for this level"
#: the note on an interval of zero width: resamples of rows that all agree (every resample separates the
#: classes, or classifies every row right) cannot see the rows the sample lacks
ZERO_WIDTH = "zero width: the resamples show no spread here; not a confidence interval"


@dataclass(frozen=True)
class Interval:
    """One metric's bootstrap interval; ``method`` is the method actually used."""

    metric: str
    estimate: float
    low: float
    high: float
    se: float
    method: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "method": self.method,
            "note": self.note,
        }


@dataclass(frozen=True, eq=False, repr=False)
class BootstrapIntervals(Display):
    """Bootstrap intervals for several metrics. ``samples[name]`` holds the B resampled values."""

    intervals: tuple[Interval, ...]
    method: str
    level: float
    n_resamples: int
    random_state: Any
    n: int
    bins: int
    strategy: str
    samples: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    seed = renamed_attribute("seed", "random_state")

    def __getitem__(self, metric: str) -> Interval:
        for row in self.intervals:
            if row.metric == metric:
                return row
        raise KeyError(metric)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "level": self.level,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state if isinstance(self.random_state, int) else None,
            "n": self.n,
            "bins": self.bins,
            "strategy": self.strategy,
            "intervals": {row.metric: row.to_dict() for row in self.intervals},
            "notes": list(self.notes),
        }

    def _binned(self) -> str:
        """``"15 uniform bins"``, ``"1 uniform bin"``."""
        return count_noun(self.bins, self.strategy + " bin")

    def _frame_records(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.intervals]

    def _html_body(self) -> str:
        rows = [{"metric": r.metric, "estimate": r.estimate, "ci_low": r.low, "ci_high": r.high, "boot SE": r.se,
                 "method": r.method, "note": r.note} for r in self.intervals]
        notes = "".join(html_note(f"note: {t}") for t in self.notes)
        return html_table(rows) + html_note(
            f"{self.level * 100:g}% intervals, {self.method}, {self.n_resamples} resamples of {count_noun(self.n, 'row')}, "
            f"random_state {self.random_state}; ECE/MCE conditional on {self._binned()}"
        ) + notes

    def _repr_html_(self) -> str:
        return html_page("Bootstrap intervals", [self._html_body()], str(self))

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        rows = [
            [r.metric, fmt(r.estimate), interval_cell(fmt(r.low), fmt(r.high)), fmt(r.se), r.method, r.note]
            for r in self.intervals
        ]
        table = render_table(["metric", "estimate", f"{pct} CI", "boot SE", "method", ""], rows,
                             align="lrlrll")
        aware = [r.metric.upper() for r in self.intervals if r.method == "bias-aware"]
        on_bins = f" on {self._binned()}"  # an ECE/MCE interval is conditional on its bins
        binned = [r.metric.upper() for r in self.intervals if r.metric in ("ece", "mce")]
        method = self.method + (f"; {'/'.join(aware)} bias-aware{on_bins}" if aware
                                else f"; {'/'.join(binned)}{on_bins}" if binned else "")
        notes = "".join(f"\nnote: {t}" for t in self.notes)
        return (
            f"Bootstrap intervals ({method}, {self.n_resamples} resamples of {count_noun(self.n, 'row')}, "
            f"random_state {self.random_state}):\n{table}{notes}"
        )


# ----------------------------------------------------------------------------------
# layout: rows sorted by score, bins contiguous, tie levels
# ----------------------------------------------------------------------------------
class _Layout:
    def __init__(self, data: Binary, edges: np.ndarray, strategy: str, threshold: float,
                 min_count: float = 0) -> None:
        # by score; negatives first inside a tie; then by weight (and top-label log-loss), so that
        # the same rows in another order get the same resamples (rows equal in all are interchangeable)
        data = canonical_rows(data)
        self.n = data.n
        p, y = data.p, data.y
        w = np.ones(self.n) if data.w is None else data.w
        s = data.logit if data.logit is not None else data.p
        nll = binary_nll_terms(data)
        if data.top_label:
            correct = y
        elif data.logit is not None and 0.0 < threshold < 1.0:
            correct = ((s >= np.log(threshold / (1.0 - threshold))) == (y == 1.0)).astype(float)
        else:
            correct = ((p >= threshold) == (y == 1.0)).astype(float)
        self.p, self.y, self.w, self.s = p, y, w, s
        self.weighted = data.w is not None
        idx = bin_index(p, edges, strategy)
        self.n_bins = edges.size - 1
        self.bin = idx
        # columns: w, wp, wy, w(p-y)^2, w*nll, w*correct
        self.X = np.column_stack([w, w * p, w * y, w * (p - y) ** 2, w * nll, w * correct])
        if np.any(np.diff(idx) < 0):  # pragma: no cover - p is monotone in the ranking score
            raise VeracityError("internal: bins are not monotone in the ranking score")
        self.bins_used = np.unique(idx)
        # MCE reads the bins that are sufficient in the sample itself (effective size >= min_count):
        # the binning and which bins count are fixed, as the intervals are conditional on the binning
        wb = np.bincount(idx, weights=w, minlength=self.n_bins)
        wb2 = np.bincount(idx, weights=w * w, minlength=self.n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            eff = np.where(wb > 0, wb * wb / np.where(wb2 > 0, wb2, 1.0), 0.0)
        self.enough = enough_effective(eff, min_count, np.bincount(idx, minlength=self.n_bins))  # per bin
        self.posw = np.where(y == 1.0, w, 0.0)
        self.negw = w - self.posw
        # tie levels that hold both classes (only those need the 1/2 correction)
        new_level = np.r_[True, s[1:] != s[:-1]]
        level = np.cumsum(new_level) - 1
        n_levels = int(level[-1]) + 1 if self.n else 0
        self.level = level
        self.n_levels = n_levels

    # -- resampling layout: [dummy | negatives by score | positives by score] --------
    def columns(self) -> None:
        """Build the column layout used by :meth:`stats` (once)."""
        if hasattr(self, "X_cols"):
            return
        neg = np.flatnonzero(self.y == 0.0)  # already in score order
        pos = np.flatnonzero(self.y == 1.0)
        self.n_neg, self.n_pos = neg.size, pos.size
        cols = np.concatenate([neg, pos])
        X_cols = np.vstack([np.zeros((1, self.X.shape[1])), self.X[cols]])
        self.w_neg = np.r_[0.0, self.w[neg]]
        self.w_pos = self.w[pos]
        # contiguous (start, end) column blocks of each used bin, per class
        blocks: list[list[tuple[int, int]]] = []
        for b in self.bins_used:
            parts = []
            for offset, members in ((1, neg), (1 + neg.size, pos)):
                bb = self.bin[members]
                lo, hi = np.searchsorted(bb, b, "left"), np.searchsorted(bb, b, "right")
                if hi > lo:
                    parts.append((offset + lo, offset + hi))
            blocks.append(parts)
        self.blocks = blocks
        # each positive's #negatives strictly below and at or below: read off the tie levels of the
        # sorted layout (as the jackknife does), no binary search per positive
        neg_in_level = np.bincount(self.level[neg], minlength=self.n_levels)
        before = np.cumsum(neg_in_level) - neg_in_level
        level_pos = self.level[pos]
        k_lt = before[level_pos]
        k_le = k_lt + neg_in_level[level_pos]
        self.k_lt, self.k_le = k_lt, k_le
        self.ties = bool(np.any(k_lt != k_le))
        self.X_cols = X_cols  # set last: its presence means the layout is complete

    def stats(self, C: np.ndarray, *, auc: bool = True) -> dict[str, np.ndarray]:
        """Metric values for each row of a (b, N + 1) count matrix in the column layout.

        Column 0 is a dummy that is never drawn. Unweighted counts stay integers, so
        the AUC numerator (running sums of counts) is exact integer arithmetic. ``auc=False``
        leaves the AUC out (its running sums are one pass per resample; the other metrics are
        the same numbers either way).
        """
        self.columns()
        b = C.shape[0]
        nb = self.bins_used.size
        per_bin = np.zeros((b, nb, 3))
        totals = np.zeros((b, self.X.shape[1]))
        step = _GEMM_COLUMNS  # convert and multiply cache-sized column blocks
        for j, parts in enumerate(self.blocks):
            for s, e in parts:
                for a in range(s, e, step):
                    z = min(e, a + step)
                    block = C[:, a:z].astype(np.float64, copy=False) @ self.X_cols[a:z]
                    per_bin[:, j] += block[:, :3]
                    totals += block
        out = _from_sums(per_bin, totals, self.enough[self.bins_used])
        if not auc:
            return out
        # AUC: running negative mass read at each positive (k_lt: negatives strictly below)
        n0 = 1 + self.n_neg
        num = np.empty(b)
        for k in range(b):  # 1-D running sums per resample (integers when unweighted: exact)
            neg, ps = C[k, :n0], C[k, n0:]
            if self.weighted:
                neg, ps = neg * self.w_neg, ps * self.w_pos
            cum = np.cumsum(neg)
            if self.ties:
                num[k] = 0.5 * (np.dot(ps, cum[self.k_lt]) + np.dot(ps, cum[self.k_le]))
            else:
                num[k] = np.dot(ps, cum[self.k_lt])
        pos = totals[:, 2]
        den = pos * (totals[:, 0] - pos)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["auc"] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        return out

    # -- exact delete-one jackknife ------------------------------------------------
    def jackknife(self) -> dict[str, np.ndarray]:
        X, w = self.X, self.w
        W = X[:, 0].sum()
        rest = W - w
        with np.errstate(invalid="ignore", divide="ignore"):
            out = {
                "brier": (X[:, 3].sum() - X[:, 3]) / rest,
                "nll": (X[:, 4].sum() - X[:, 4]) / rest,
                "accuracy": (X[:, 5].sum() - X[:, 5]) / rest,
            }
            m = self.n_bins
            wb = np.bincount(self.bin, weights=w, minlength=m)
            db = np.bincount(self.bin, weights=X[:, 2] - X[:, 1], minlength=m)  # Σw(y - p)
            own = db[self.bin]
            own_new = own - (X[:, 2] - X[:, 1])
            total_abs = np.abs(db).sum()
            out["ece"] = (total_abs - np.abs(own) + np.abs(own_new)) / rest
            gap = np.where((wb > 0) & self.enough, np.abs(db) / np.where(wb > 0, wb, 1.0), -np.inf)
            top = np.argsort(gap)[::-1]
            first, second = gap[top[0]], (gap[top[1]] if m > 1 else -np.inf)
            others = np.where(self.bin == top[0], second, first)
            wb_new = wb[self.bin] - w
            new_gap = np.where((wb_new > 1e-12 * W) & self.enough[self.bin],
                               np.abs(own_new) / np.where(wb_new > 0, wb_new, 1.0), -np.inf)
            mce = np.maximum(others, new_gap)
            out["mce"] = np.where(np.isfinite(mce), mce, np.nan)
            # AUC: leave-one-out pairs
            posw, negw = self.posw, self.negw
            lw_pos = np.bincount(self.level, weights=posw, minlength=self.n_levels)
            lw_neg = np.bincount(self.level, weights=negw, minlength=self.n_levels)
            cum_neg_before = np.cumsum(lw_neg) - lw_neg
            cum_pos_after = lw_pos[::-1].cumsum()[::-1] - lw_pos
            a_pos = cum_neg_before[self.level] + 0.5 * lw_neg[self.level]
            b_neg = cum_pos_after[self.level] + 0.5 * lw_pos[self.level]
            P, Q = posw.sum(), negw.sum()
            num = np.dot(posw, a_pos)
            is_pos = self.y == 1.0
            loo_num = num - np.where(is_pos, w * a_pos, w * b_neg)
            loo_den = np.where(is_pos, (P - w) * Q, P * (Q - w))
            out["auc"] = np.where(loo_den > 0, loo_num / np.where(loo_den > 0, loo_den, 1.0), np.nan)
        return out


def _from_sums(per_bin: np.ndarray, totals: np.ndarray, enough: np.ndarray) -> dict[str, np.ndarray]:
    W = totals[:, 0]
    wb, sp, sy = per_bin[..., 0], per_bin[..., 1], per_bin[..., 2]
    d = np.abs(sy - sp)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where((wb > 0) & enough, d / np.where(wb > 0, wb, 1.0), -np.inf)
        mce = gap.max(axis=1) if gap.shape[1] else np.full(gap.shape[0], -np.inf)
        return {
            "ece": d.sum(axis=1) / W,
            "mce": np.where(np.isfinite(mce), mce, np.nan),
            "brier": totals[:, 3] / W,
            "nll": totals[:, 4] / W,
            "accuracy": totals[:, 5] / W,
        }


_GEMM_COLUMNS = 1 << 15  # count columns converted to float per matrix product (cache-sized)
_BLOCK = 1 << 16  # rows per block of the hierarchical draw (fits the L2 cache as int64 counts)


def _counts(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """(b, n + 1) integer multinomial row counts of b bootstrap resamples; column 0 is never drawn.

    Exact hierarchical draw: the n draws of a resample are first split over blocks of
    ``_BLOCK`` rows (one multinomial over the blocks), then drawn uniformly inside each
    block, so every ``bincount`` stays cache-resident. Same law as n uniform row indices.
    """
    C = np.empty((b, n + 1), dtype=np.int64)
    C[:, 0] = 0
    if n > _BLOCK:
        sizes = np.full(-(-n // _BLOCK), _BLOCK)
        sizes[-1] = n - _BLOCK * (sizes.size - 1)
        per_block = rng.multinomial(n, sizes / n, size=b)
        for k in range(b):
            for g, size in enumerate(sizes):
                a = 1 + g * _BLOCK
                draws = rng.integers(0, size, size=per_block[k, g], dtype=np.uint16)
                C[k, a : a + size] = np.bincount(draws, minlength=size)
    else:
        draws = rng.integers(1, n + 1, size=(b, n), dtype=np.int64)
        draws += (np.arange(b, dtype=np.int64) * (n + 1))[:, None]
        C[:] = np.bincount(draws.ravel(), minlength=b * (n + 1)).reshape(b, n + 1)
    return C


def _workers(n_jobs: int | None, n_chunks: int) -> int:
    """Threads for the resampling loop: ``n_jobs`` or, by default, up to 2 (numpy releases the GIL)."""
    if n_jobs is None:
        n_jobs = min(2, os.cpu_count() or 1)
    n_jobs = check_count(n_jobs, "n_jobs")
    return max(1, min(n_jobs, n_chunks))


def share_below(estimate: float, boot: np.ndarray, rows: int) -> float:
    r"""The share of finite resampled values below the estimate, ties counted ½ — BCa's
    :math:`\Phi(z_0)` (Efron 1987): :math:`(\#\{\theta^* < \hat\theta - \tau\} + \tfrac12
    \#\{|\theta^* - \hat\theta| \le \tau\}) / B`.

    A tie is decided up to the arithmetic's own rounding, :math:`\tau` =
    :func:`~veracity.core._binning.cumulative_slack` (``rows``, :math:`|\hat\theta|`)
    :math:`= N \varepsilon |\hat\theta|`: every metric read here (Brier, NLL, AUC, accuracy) is a sum, or a
    ratio of two sums, of at most :math:`N` non-negative terms, computed for the estimate from the rows and
    for a resample by a matrix product of its counts, in another order; recursive summation errs by at most
    :math:`(N - 1)u` relative (:math:`u = \varepsilon/2`), so two evaluations of one exact value differ by at
    most about :math:`N\varepsilon` times it. Exact ``==`` split such ties by the last bit: resamples equal to
    the estimate in exact arithmetic counted as below or above it, which moved :math:`z_0`. Values further
    apart than :math:`\tau` are distinct: a metric's genuine steps are far larger (:math:`1/N` for accuracy,
    :math:`\ge 1/N^2` for the AUC, against :math:`N\varepsilon \le 2\cdot10^{-7}` relative up to
    :math:`10^9` rows), and where the resamples spread continuously the band of width :math:`2\tau` holds a
    vanishing share of them."""
    tol = cumulative_slack(rows, abs(float(estimate)))
    below = np.count_nonzero(boot < estimate - tol)
    tied = np.count_nonzero(np.abs(boot - estimate) <= tol)
    return (below + 0.5 * tied) / boot.size


#: values beyond this are scaled by a power of two before squares and sums (:func:`_scaled`)
_LARGEST_VALUE = 2.0**256


def _scaled(x: np.ndarray) -> tuple[np.ndarray, float]:
    """``(x / s, s)``: ``s`` the power of two that brings the largest ``|x|`` to at most 1 where it is beyond
    :data:`_LARGEST_VALUE` (else ``(x, 1.0)``: the arithmetic unchanged to the bit). A log loss from logits of
    1e305 is 1e304 (a right answer): its resamples' squares overflowed, the boot SE read inf and BCa's
    acceleration (cubes of jackknife deviations) NaN, with overflow warnings."""
    top = float(np.max(np.abs(x))) if x.size else 0.0
    if not top > _LARGEST_VALUE or not np.isfinite(top):
        return x, 1.0
    s = np.ldexp(1.0, np.frexp(top)[1])
    return x / s, float(s)


def _spread(x: np.ndarray) -> float:
    """The sample standard deviation (ddof 1) of finite ``x``, 0 for one value; computed on the scale of
    :func:`_scaled`, so values near the largest double do not overflow their squares."""
    if x.size < 2:
        return 0.0
    xs, s = _scaled(x)
    return float(xs.std(ddof=1)) * s


def _interval(
    name: str, estimate: float, boot: np.ndarray, jack: np.ndarray | None, method: str, level: float,
    rows: int = 1,
) -> Interval:
    """One metric's percentile or BCa interval from its resampled values ``boot`` (and delete-one jackknife
    values ``jack`` for BCa's acceleration); ``rows`` the rows summed (ties of :func:`share_below`)."""
    finite = boot[np.isfinite(boot)]
    alpha = 1.0 - level
    note = ""
    if finite.size < boot.size:
        note = f"{boot.size - finite.size} degenerate resamples dropped"
    if finite.size == 0 or not np.isfinite(estimate):
        return Interval(name, estimate, float("nan"), float("nan"), float("nan"), method, "undefined")
    se = _spread(finite)
    qs = np.array([alpha / 2, 1 - alpha / 2])
    used = method
    frac = share_below(estimate, finite, rows)
    if not 0.025 <= frac <= 0.975:
        side = "above" if frac < 0.5 else "below"
        note = (note + "; " if note else "") + (
            f"resamples sit {side} the estimate ({frac:.1%} below it): biased metric, "
            "read with the noise floor"
        )
    if method == "bca":
        z0 = float(ndtri(frac))
        accel = float("nan")
        if jack is not None and np.count_nonzero(np.isfinite(jack)) >= 2:
            jf = _scaled(jack if np.isfinite(jack).all() else jack[np.isfinite(jack)])[0]  # a: scale-free
            u = jf.mean() - jf
            u2 = u * u
            den = 6.0 * float(u2.sum()) ** 1.5
            accel = float(np.dot(u2, u) / den) if den > 0 else 0.0
        if np.isfinite(z0) and np.isfinite(accel):
            zq = ndtri(qs)
            adj = z0 + (z0 + zq) / (1.0 - accel * (z0 + zq))
            qs = ndtr(adj)
        else:
            used = "percentile"
            note = (note + "; " if note else "") + "BCa undefined, percentile shown"
    low, high = np.quantile(finite, qs)
    if high == low:  # e.g. classes separated (AUC 1) or every row right (accuracy 1) in every resample
        note = (note + "; " if note else "") + ZERO_WIDTH
    return Interval(name, float(estimate), float(low), float(high), se, used, note)


def _bias_bounds(layout: _Layout, gamma: float) -> dict[str, float]:
    """The plug-in ECE's and MCE's largest upward bias (:mod:`veracity.core._ece_bias`): for ECE the
    bound that holds with probability 1 - ``gamma`` (each bin's bias read at the smallest gap its data
    allow: nothing for a far miscalibrated bin, up to √(2/π)·σ for a calibrated one), for MCE
    E max σ_k|Z_k| over the sufficient bins."""
    m = layout.n_bins
    w = layout.w
    wb = np.bincount(layout.bin, weights=w, minlength=m)
    wb2 = np.bincount(layout.bin, weights=w * w, minlength=m)
    sy = np.bincount(layout.bin, weights=w * layout.y, minlength=m)
    sp = np.bincount(layout.bin, weights=w * layout.p, minlength=m)
    sigma = bin_sigmas(wb, wb2, sy)
    return {"ece": plugin_ece_bias_bound(wb, wb2, sy, sp, gamma),
            "mce": expected_max_abs(sigma[layout.enough & (wb > 0)])}


def _bias_aware(name: str, estimate: float, boot: np.ndarray, bias_high: float, level: float) -> Interval:
    r"""A bias-aware interval (Armstrong & Kolesár 2020) for ECE or MCE, whose plug-in estimate sits
    above the truth by a bias in :math:`[0, \beta]` that the resamples cannot see: the noise from
    the centred resamples :math:`q = \theta^* - \overline{\theta^*}`, the bias as a bound,

    .. math:: \big[\max(0,\ \hat\theta - \beta - q_{1-\alpha'/2}),\ \hat\theta - q_{\alpha'/2}\big].

    For ECE, β holds with probability :math:`1 - \mathrm{BIAS\_SHARE}\cdot\alpha` and the noise
    quantiles spend the rest, :math:`\alpha' = (1 - \mathrm{BIAS\_SHARE})\,\alpha`; for MCE β is the
    bias's expectation bound and :math:`\alpha' = \alpha`. A percentile or BCa interval of the
    plug-in ECE covered the true binned ECE of a calibrated model in 0 of 60 simulated draws, of a
    mildly miscalibrated one in 3-28 % (tests/honest/test_honest_ece_interval_simulation.py)."""
    finite = boot[np.isfinite(boot)]
    note = f"{boot.size - finite.size} degenerate resamples dropped" if finite.size < boot.size else ""
    if finite.size == 0 or not np.isfinite(estimate):
        return Interval(name, estimate, float("nan"), float("nan"), float("nan"), "bias-aware", "undefined")
    se = _spread(finite)
    alpha = (1.0 - level) * (1.0 - BIAS_SHARE if name == "ece" else 1.0)  # ECE's bias bound spends the rest
    q_low, q_high = np.quantile(finite - finite.mean(), [alpha / 2, 1 - alpha / 2])
    low = max(0.0, float(estimate - bias_high - q_high))
    high = float(estimate - q_low)
    note = (note + "; " if note else "") + f"plug-in bias up to {bias_high:.4f} allowed for"
    return Interval(name, float(estimate), low, max(high, low), se, "bias-aware", note)


def _enough_resamples(rows: tuple[Interval, ...], n_resamples: int,
                      level: float) -> tuple[tuple[Interval, ...], tuple[str, ...]]:
    r"""``rows`` with no interval (n/a; the estimate and boot SE stay) where B = ``n_resamples`` cannot
    place its ends, and the note that says so: a percentile-type interval reads the resamples'
    :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles, and with :math:`(B+1)\alpha/2 \le 1`
    (:func:`~veracity.core._intervals.fewest_resamples`) those sit between the two smallest and the two
    largest of B values — at most a :math:`1 - 2/(B+1)` interval, whatever the level. ECE's bias-aware
    interval spends :math:`(1 - \mathrm{BIAS\_SHARE})\,\alpha` on its noise quantiles, so it needs more
    (50 at 0.95, where the others need 40). Seeded simulation (150 samples of 300 calibrated rows):
    "95 %" percentile intervals of the Brier score from 19 resamples covered the truth 84 % of the time,
    from 200 resamples 93 % (tests/honest/test_bootstrap_resamples_r30.py). :func:`veracity.compare_models`
    refuses them alike."""
    from ..core._intervals import fewest_resamples

    alpha = 1.0 - level
    need: dict[str, int] = {}
    for r in rows:
        spent = alpha * (1.0 - BIAS_SHARE) if r.method == "bias-aware" and r.metric == "ece" else alpha
        k = fewest_resamples(n_resamples, 1.0 - spent)
        if k is not None and r.note != "undefined":
            need[r.metric] = k
    if not need:
        return rows, ()
    nan = float("nan")
    rows = tuple(replace(r, low=nan, high=nan, note=FEW_RESAMPLES_ROW)
                 if r.metric in need and r.note != "undefined" else r for r in rows)
    ece = " (ECE's bias-aware interval reads its noise at 0.8 alpha)" if "ece" in need else ""
    note = (f"{n_resamples} resamples are too few for the {level * 100:g}% bootstrap intervals of "
            f"{'/'.join(need)}, which are not shown (n/a): an end at the resamples' alpha/2 quantile needs "
            f"(B + 1) * alpha/2 > 1, else it falls between the two most extreme resampled values{ece}; pass "
            f"n_resamples (--n-resamples on the command line) of at least {max(need.values())} (1,000 is the "
            "default)")
    return rows, (note,)


def bootstrap_of(
    data: Binary,
    *,
    metrics: tuple[str, ...] = METRICS,
    method: str = "bca",
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = 0,
    bins: int | str = 15,
    strategy: str = "uniform",
    threshold: float = 0.5,
    edges: np.ndarray | None = None,
    n_jobs: int | None = None,
    min_count: int = 20,
) -> BootstrapIntervals:
    if method not in METHODS:
        raise VeracityError(f"method must be 'percentile' or 'bca', got {method!r}", param="method")
    if isinstance(metrics, str):  # one metric by name: metrics="ece" (never the letters 'e', 'c', 'e')
        metrics = (metrics,)
    bad = [m for m in metrics if m not in METRICS]
    if bad or not metrics:
        raise VeracityError(f"metrics must be chosen from {list(METRICS)}, got {list(metrics)!r}", param="metrics")
    n_resamples = check_count(n_resamples, "n_resamples", 2)
    level = check_level(level)
    seed = 0 if seed is None else check_seed(seed)  # a report, not a draw: the same rows, the same intervals
    threshold = check_threshold(threshold)  # NaN or 2 would read every row as "predicts 0"
    min_count = check_min_count(min_count)
    # rows of weight 0 are never resampled; the rest in an order that depends only on the rows, so
    # the edges, the resamples and every sum are the same for the rows in any order
    data = canonical_rows(weighted_rows(data))
    if edges is None:
        edges = make_edges(data.p, bins, strategy, data.w)
    layout = _Layout(data, edges, strategy, threshold, min_count)
    ones = np.ones((1, data.n + 1), dtype=np.int64)
    ones[0, 0] = 0
    full = layout.stats(ones)
    estimates = {k: float(v[0]) for k, v in full.items()}
    if "auc" in metrics and np.isfinite(estimates["auc"]):
        estimates["auc"] = auc_of(data)  # exact rank statistic of the canonical rows
    n = data.n
    b = max(1, min(n_resamples, _CHUNK_COUNTS // max(n, 1)))
    chunks = [(a, min(n_resamples, a + b)) for a in range(0, n_resamples, b)]
    streams = np.random.SeedSequence(seed if not isinstance(seed, np.random.Generator)
                                     else seed.integers(2**63)).spawn(len(chunks))
    samples = {k: np.empty(n_resamples) for k in metrics}

    def run(job: tuple[tuple[int, int], np.random.SeedSequence]) -> None:
        (a, e), ss = job
        values = layout.stats(_counts(np.random.default_rng(ss), n, e - a), auc="auc" in metrics)
        for k in metrics:
            samples[k][a:e] = values[k]
        advance("bootstrap resamples", e - a, n_resamples)

    jobs = list(zip(chunks, streams))
    workers = _workers(n_jobs, len(jobs))
    if workers == 1:
        for job in jobs:
            run(job)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, jobs))
    jack = layout.jackknife() if method == "bca" else {}
    bias = _bias_bounds(layout, BIAS_SHARE * (1.0 - level)) if {"ece", "mce"} & set(metrics) else {}
    rows = tuple(
        _bias_aware(k, estimates[k], samples[k], bias[k], level) if k in bias
        else _interval(k, estimates[k], samples[k], jack.get(k), method, level, data.n) for k in metrics
    )
    rows, notes = _enough_resamples(rows, n_resamples, level)
    few = few_class_rows(data.y, data.w)
    if few and data.top_label:  # multiclass: the classes of the top-label metrics are right and wrong
        few += " (multiclass: a row is positive when its top label is right)"
    if few:  # no interval on too few rows of a class: compare_models' rule (module docstring)
        nan = float("nan")
        rows = tuple(replace(r, low=nan, high=nan, se=nan,  # an undefined estimate keeps its own note
                             note=FEW_ROWS_ROW if r.estimate == r.estimate else r.note) for r in rows)
        notes = (FEW_ROWS.format(few=few, need=MIN_CLASS_ROWS), *notes)
    elif data.w is not None and np.ptp(data.w) > 0:  # module docstring, "Weighted AUC" and the next section
        rows, notes = _weighted_notes(rows, notes, data.y, data.w)
    else:  # unweighted (or equal weights): the AUC's interval on few rows of a class (module docstring)
        smaller = int(min(np.count_nonzero(data.y == 1.0), np.count_nonzero(data.y != 1.0)))
        if smaller < FEW_AUC_ROWS and any(r.metric == "auc" and np.isfinite(r.low) for r in rows):
            notes = (*notes, FEW_AUC_NOTE.format(rows=smaller))
            rows = tuple(replace(r, note=(r.note + "; " if r.note else "") + "may under-cover (few rows of a "
                                 "class)") if r.metric == "auc" else r for r in rows)
    return BootstrapIntervals(
        intervals=rows,
        method=method,
        level=level,
        n_resamples=n_resamples,
        random_state=seed,
        n=n,
        bins=edges.size - 1,
        strategy=strategy,
        samples=samples,
        notes=notes,
    )


def _weighted_notes(rows: tuple[Interval, ...], notes: tuple[str, ...], y: np.ndarray,
                    w: np.ndarray) -> tuple[tuple[Interval, ...], tuple[str, ...]]:
    """Uneven weights: the row note :data:`WEIGHTED_AUC_ROW` and the result's note on the intervals that may
    under-cover on few effective rows (module docstring) — the weighted AUC's below a smaller-class Kish
    size of :data:`WEIGHTED_AUC_KISH` (:data:`WEIGHTED_AUC_NOTE`), the weighted Brier score's, log loss's and
    accuracy's below a Kish size of the rows, or of the smaller class, of :data:`WEIGHTED_MEANS_KISH`
    (:data:`WEIGHTED_MEANS_NOTE`).
    An interval not shown (n/a) gets no note."""
    shown = {r.metric for r in rows if np.isfinite(r.low)}
    flagged: set[str] = set()
    smaller = _smaller_kish(y, w)
    if "auc" in shown and smaller < WEIGHTED_AUC_KISH:
        flagged.add("auc")
        notes = (*notes, WEIGHTED_AUC_NOTE.format(kish=smaller))
    means = [m for m in WEIGHTED_MEANS if m in shown]
    # the rows' Kish size, or the smaller class's: a mean of rare-event rows moves with its few positives
    if means and ((kish := kish_size(w)) < WEIGHTED_MEANS_KISH or smaller < WEIGHTED_MEANS_KISH):
        flagged.update(means)
        names = [WEIGHTED_MEANS[m] for m in means]
        said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        said_kish = (dict(whose="the rows'", kish=kish, also="") if kish < WEIGHTED_MEANS_KISH
                     else dict(whose="the smaller class's", kish=smaller, also=f"; the rows' {kish:.1f}"))
        notes = (*notes, WEIGHTED_MEANS_NOTE.format(metrics=said, **said_kish))
    rows = tuple(replace(r, note=(r.note + "; " if r.note else "") + WEIGHTED_AUC_ROW) if r.metric in flagged
                 else r for r in rows)
    return rows, notes


def _smaller_kish(y: np.ndarray, w: np.ndarray) -> float:
    r"""The smaller of the two classes' Kish effective sizes :math:`(\sum_{y=c} w)^2 / \sum_{y=c} w^2`."""
    pos = y == 1.0
    return min(kish_size(w[pos]), kish_size(w[~pos]))


@renamed(seed="random_state")
@rows_form
def bootstrap_intervals(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    metrics: str | tuple[str, ...] | list[str] = METRICS,
    method: str = "bca",
    n_resamples: int = 1000,
    level: float = 0.95,
    random_state: Any = None,
    bins: int | str = 15,
    strategy: str = "uniform",
    threshold: float = 0.5,
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    n_jobs: int | None = None,
    min_count: int = 20,
) -> BootstrapIntervals:
    r"""Seeded bootstrap intervals (percentile or BCa) for ECE, MCE, Brier, NLL, AUC and accuracy.

    MCE is the maximum over the bins with at least ``min_count`` rows in the sample (as
    :func:`veracity.mce`); a thin bin never sets it. (N, K) scores are read top-label: the accuracy
    resampled is the argmax's, which no threshold cuts (a ``threshold`` other than 0.5 is refused).

    ``n_resamples`` exact multinomial resamples of the rows, vectorised over
    resamples in memory-bounded chunks; BCa uses the exact delete-one jackknife.
    ``random_state`` (an integer, or a ``numpy.random.Generator`` for fresh resamples; None, the
    default, is the fixed seed 0, so the same rows always print the same intervals) seeds the resamples.
    See :mod:`veracity.honest._bootstrap` for the method. Below 10 rows of a class (weighted: the class's
    Kish effective size; :data:`~veracity.core._delong.MIN_CLASS_ROWS`, as :func:`veracity.compare_models`)
    no interval is shown (n/a) and ``notes`` says why: resamples of so few rows cover far less often than
    the level.

    >>> r = bootstrap_intervals([.1, .3, .35, .6, .8, .9] * 5, [0, 0, 1, 1, 0, 1] * 5,
    ...                         metrics=["brier"], method="percentile", n_resamples=200,
    ...                         random_state=0)
    >>> row = r["brier"]
    >>> row.low <= row.estimate <= row.high
    True
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    if data.top_label:  # the accuracy resampled is the argmax's, which no threshold cuts
        refuse_top_label_threshold(threshold, data.n_classes)
    return bootstrap_of(
        data, metrics=(metrics,) if isinstance(metrics, str) else tuple(metrics), method=method,
        n_resamples=n_resamples, level=level,
        seed=random_state, bins=bins, strategy=strategy, threshold=threshold, n_jobs=n_jobs,
        min_count=min_count,
    )
