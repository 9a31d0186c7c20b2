r"""``vc.compare_models``: is model B better than model A, on these rows, and how?

Every pair of models is compared on the *same* rows, so each difference gets a
**paired** interval and p-value:

==========  =====================================================  ===============================
metric      difference B − A                                       interval
==========  =====================================================  ===============================
brier       mean of per-row :math:`(p_B - y)^2 - (p_A - y)^2`      paired t (Diebold–Mariano, t on n−1 df)
log_loss    mean of per-row log-loss differences                   paired t (Diebold–Mariano, t on n−1 df)
ece         debiased ECE (Kumar et al. 2019, L1)                   bias-aware paired bootstrap
auc         Mann–Whitney AUC                                       DeLong's paired test
==========  =====================================================  ===============================

and the CORP decomposition (Brier = MCB − DSC + UNC, :mod:`veracity.honest._corp`) of each model and of the
difference, with paired bootstrap intervals for ΔMCB and ΔDSC, which the verdict reads: *who has the higher
resolution* (DSC, discrimination in the CORP decomposition — not the AUC) and *who is better calibrated*
(MCB), e.g. ``"hgb has the higher resolution (DSC +0.0120 [+0.0080, +0.0160] for hgb - logreg) but is worse
calibrated (MCB +0.0040 [+0.0020, +0.0060] for hgb - logreg): recalibrate hgb, then it wins"`` — every number
the table's B − A, and said so; when neither part differs beyond noise but the Brier score does (their sum),
it names the model with the lower Brier score, and says "no clear difference" only when the Brier interval
holds 0 too. Where the AUC row (DeLong) tells otherwise than the DSC part — it differs when DSC does not, does
not when DSC does, or favours the other model — the verdict adds what the AUC says (``"...; the AUC differs: a
ranks better (AUC -0.0184 [-0.0252, -0.0117] for b - a, DeLong p < 0.0001)"``), so the line never contradicts
the table; the log-loss and debiased-ECE rows likewise (:func:`_rows_clause`). Without resamples no CORP part
has an interval, and the verdict reads the Brier interval alone (:func:`_point_verdict`). With ``by=``, the
slices are read with the false-discovery rate controlled across them (Benjamini–Hochberg q-values per pair and
difference: :func:`_slice_readings`). The debiased ECE keeps a bias that depends on how calibrated each bin is
(:math:`\sigma_k g(|\delta_k|/\sigma_k)`, up to 0.47 σ a bin for a calibrated one, none for a far
miscalibrated one), which no bootstrap sees, so the ΔECE interval adds the range that bias can take over the
gaps the bins' data allow (:func:`._resample.ece_difference_interval`): a percentile interval covered the true
ΔECE 30–72 % of the time at 95 % when one model was calibrated and the other not. CORP's MCB and DSC sit above
their truths by the PAV fit's overfit (a continuous model's, not a few-valued one's), which no bootstrap sees
either, so ΔMCB and ΔDSC allow for it (:func:`._resample.overfit_interval`, :func:`._corp.overfit_bound`;
nothing when both models share one PAV fit): without it a calibrated model read worse calibrated than the base
rate in every simulated draw. Two models with one order of the rows (a recalibration) share one PAV fit:
ΔDSC is exactly 0 and ΔMCB *is* ΔBrier, so ΔMCB takes the Brier row's paired t interval and p-value, never
a bootstrap interval of its own that could read the one number otherwise. See :mod:`._paired`,
:mod:`._delong`, :mod:`._corp` and :mod:`._resample` for the methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core._display import Display, interval_cell
from ..core._binning import check_bins
from ..core._intervals import fewest_resamples
from ..core._keys import key_name, refuse_shared_names
from ..core._parallel import submit
from ..core._text import fmt, render_table, visible
from ..core._validation import VeracityError
from ..core._weights import kish_size, sums_in_user_units
from ..core._delong import MIN_CLASS_ROWS, few_class_rows
from ..core._paired_mean import SKEW_CLASS_ROWS, SKEW_SAYS, class_sizes, skew_note, skewed_classes
from ..honest._common import check_count, check_level, check_seed
from ..honest._corp import CORPResult, ScoreDecomposition
from ..sources._api import key_order
from ._corp import (corp_fit, corp_result, difference, overfit_bound, runs_of, sorted_probabilities,
                    unshared_overfit)
from ._delong import delong_covariance, delong_test, rank_model, same_ranking
from ._digits import Cell, decimals, holds_zero, level_text, noise_decimals
from ._inputs import Models, models_of
from ._paired import Estimate, paired_losses, student_df, weight_sums
from ._signs import signed, unneg
from ._resample import PairedBootstrap, debiased_l1, ece_difference_interval, overfit_interval, sorted_bin_sums

METRICS = ("brier", "log_loss", "ece", "auc")
METHODS = {
    "brier": "paired t",
    "log_loss": "paired t",
    "ece": "bias-aware bootstrap",
    "auc": "DeLong",
}


#: what the printed table calls a metric: "ece" is the debiased ECE (Kumar et al. 2019), not the plug-in ECE
#: that ``vc.audit`` prints as "ECE" (the two differ on the same rows), so it is shown as "ece_debiased"; rows,
#: ``to_dict`` and ``to_frame`` keep the name "ece"
SHOWN = {"ece": "ece_debiased"}

#: why a debiased-ECE difference that is not 0 can have p = 1 (:func:`._resample.ece_difference_interval`)
ECE_P_ONE = ("ece_debiased p = 1: the difference is within the bias the debiased ECEs may still carry, "
             "which the bias-aware interval keeps at every level (no evidence either way)")

#: more resamples than this is a mistake (each is a pass over the rows), refused before allocating
MAX_RESAMPLES = 100_000

#: DeLong's test (ΔAUC) and the paired bootstrap (ΔECE, ΔMCB, ΔDSC) need at least this many rows of
#: each class (weighted: the class's Kish effective size :math:`(\sum w)^2/\sum w^2`) — veracity's rule that a
#: normal approximation of a count needs 10 of each outcome (:data:`veracity.delayed._ppi_sums.EXACT_BELOW`,
#: the rule of ``vc.ppi_mean``). Below it their sampling law is degenerate, and two equally good models were
#: called different in ranking or calibration in 17-35 % of seeded draws of 2-10 rows, in 22-46 % where one
#: row of weight 1,000 sat among 20-200, and in 10-40 % by DeLong with 2-3 positives (at 5 %); so those
#: intervals and p-values are n/a there (a note says so) and no verdict reads them. The paired t intervals of
#: the Brier and log-loss differences are shown: two equally good models were called different in 2-6 % of
#: those draws (tests/comparison/test_cmp_tiny_samples_r21.py) and in 0.3-5 % of draws of rare events on
#: 100-1,000 rows, but where the models differ the t law misreads a mean of a few large per-row differences
#: (those of the few rows of a class): pooled over designs (rates 1-20 %, 100-2,000 rows, calibrated and
#: miscalibrated models of different sharpness), the true difference lay beyond one end of the 95 % interval
#: in 5-11 % of seeded draws with 2-9 of a class (22 % in the worst design; 2.5 % is nominal), 3.6-6 % with
#: 10-19, at most 3.3 % (Brier) and 4.2 % (log loss) with 20-39 and 2.8 % from 40 (4.3 % in the worst
#: design; tests/comparison/test_cmp_rare_events_r34.py). The note says so (:data:`FEW_T_ROWS`).
#: Hall's (1992) skew-corrected t alone called two equally good models different in 9-17 % of draws with
#: 1-20 expected positives (nominal 5 %): its sample skewness is noisy. Round 43: below :data:`SHORT_T_ROWS`
#: of a class the Brier and log-loss verdicts need both it and the t (the hull of their intervals,
#: ``core._paired_mean.skew_guarded``), which rejects no more often than the t, and held a calibrated model
#: against itself through a near-identity map (skewed differences, where the t called "worse" in 5.8-6.6 %
#: of draws of 300 rows with 10 positives) at 1.3-1.5 %; weighted it still runs high (:data:`SKEW_SAYS`;
#: tests/comparison/test_cmp_skew_r43.py).
#: Round 35 widened the draws (rates 1-50 %, 15-200 expected rows of the rarer class, model B calibrated and
#: sharp, overconfident, 1.6 times too high or underconfident against a calibrated coarse A; 1,500 draws a
#: design, 28 designs): the miss stays past 10 of a class, where no note said so — pooled, the worse tail
#: held 3.1 % (Brier) and 4.0 % (log loss) of the draws with 10-39 of a class (6.1 % and 11.2 % in the
#: worst design), 2.6 % and 3.4 % with 40-99 (3.9 % and 6.8 %), 2.5 % and 3.0 % with 100-299 (3.3 % and
#: 4.8 %); the log loss's worst are models too high or overconfident, whose few confident misses weigh
#: heavily. Weighted (2 % events on 3,000-6,000 rows, weights :math:`e^{\sigma Z + 2p}`, σ 0-1.2, the
#: positives' Kish size 17-68) the Brier interval's worse tail held 3.3-5.7 %, the log loss's 2.7-4.3 %, and
#: DeLong's ΔAUC interval's 0-3.7 % (300 draws each). So from :data:`MIN_CLASS_ROWS` to
#: :data:`SHORT_T_ROWS` of a class, where both tails ran clearly short, a note says how short
#: (:func:`_short_t_note`); past 40 the Brier interval's held the level (2.5-2.6 % pooled) and the log
#: loss's ran short by a point or less but for models whose confident misses weigh heavily.
# (MIN_CLASS_ROWS lives in core._delong, which the calibrator ledger reads too)

#: below this many rows of a class (weighted: Kish effective size), from :data:`MIN_CLASS_ROWS` on, the
#: Brier and log-loss intervals (paired t) carry a note of how short they ran (:func:`_short_t_note`)
SHORT_T_ROWS = SKEW_CLASS_ROWS  # core._paired_mean: the skew-guarded verdict below it too

#: the pooled worse tail of the Brier and log-loss intervals with :data:`MIN_CLASS_ROWS` to
#: :data:`SHORT_T_ROWS` rows of a class, and those of the worst design (the comment above)
SHORT_T_TAILS = ("3.1%", "4.0%", "6.1% and 11%")


class NoSuchRow(VeracityError, KeyError):
    """:meth:`ModelComparison.row` found no such row (a KeyError, as it always was, that says why)."""

    def __str__(self) -> str:
        return VeracityError.__str__(self)


def rows_text(n: int, n_effective: float | None) -> str:
    """A header's rows: "2,000 rows", or weighted "2,000 rows, weighted (Kish effective size 1,523.4)"
    (:math:`(\\sum w)^2/\\sum w^2`: the size the intervals read the rows at); every comparison printout
    says it the same way, so a weighted table never reads as one of plain row counts."""
    rows = f"{n:,} row{'s' if n != 1 else ''}"
    return rows if n_effective is None else f"{rows}, weighted (Kish effective size {n_effective:,.1f})"


@dataclass(frozen=True)
class ComparisonRow:
    """One metric of one pair: ``diff = value_b - value_a`` with its paired interval and p-value."""

    model_a: str
    model_b: str
    metric: str
    value_a: float
    value_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    se: float
    method: str
    #: a slice's row (``by=``): the Benjamini–Hochberg q-value of ``p_value`` across the slices, per pair and
    #: metric, and what it reads at the level's alpha — "better"/"worse" (B against A) where q ≤ 1 − level,
    #: else "within noise" ("n/a" without a p-value); None on the whole-table rows
    q_value: float | None = None
    reading: str | None = None

    def to_dict(self) -> dict[str, Any]:
        keys = ["model_a", "model_b", "metric", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value"]
        keys += ["q_value"] if self.q_value is not None else []
        keys += ["se", "method"] + (["reading"] if self.reading is not None else [])
        return {k: getattr(self, k) for k in keys}


@dataclass(frozen=True)
class CORPDifference:
    """CORP (Brier) decomposition of the paired difference ``b - a``: ``score = mcb - dsc + unc``
    (``unc`` is 0: both models face the same labels), with paired bootstrap intervals."""

    model_a: str
    model_b: str
    score: float
    mcb: float
    dsc: float
    unc: float
    mcb_low: float
    mcb_high: float
    dsc_low: float
    dsc_high: float
    mcb_p: float
    dsc_p: float
    #: a slice's (``by=``): the Benjamini–Hochberg q-values of ``mcb_p`` and ``dsc_p`` across the slices
    mcb_q: float | None = None
    dsc_q: float | None = None

    def to_dict(self) -> dict[str, Any]:
        keys = ["model_a", "model_b", "score", "mcb", "dsc", "unc", "mcb_low", "mcb_high", "dsc_low",
                "dsc_high", "mcb_p", "dsc_p"]
        keys += ["mcb_q", "dsc_q"] if self.mcb_q is not None else []
        return {k: getattr(self, k) for k in keys}


@dataclass(frozen=True, eq=False, repr=False)
class ModelComparison(Display):
    """Paired comparison of two or more models on the same rows (see :func:`compare_models`).

    ``rows``: one :class:`ComparisonRow` per pair and metric; ``corp``: model → :class:`CORPResult`;
    ``corp_differences``: one :class:`CORPDifference` per pair; ``verdicts``: one sentence per pair
    (``verdict`` is the first); ``groups``: slice → comparison when ``by=`` was given.
    """

    models: tuple[str, ...]
    rows: tuple[ComparisonRow, ...]
    corp: dict[str, CORPResult]
    corp_differences: tuple[CORPDifference, ...]
    verdicts: tuple[str, ...]
    n: int
    level: float
    n_resamples: int
    random_state: Any
    bins: int
    score_type: str
    notes: tuple[str, ...] = ()
    groups: dict[str, ModelComparison] = field(default_factory=dict)
    group_column: str | None = None
    #: ``by=`` with ``min_count``: the slices with fewer rows, not tested (slice → rows)
    too_small: dict[str, int] = field(default_factory=dict)
    min_count: int = 0
    #: per pair, what its verdict reads besides the rows: (identical scores, too few resamples, too few rows
    #: of a class) — a slice's verdict is read again with its q-values (:func:`_slice_readings`)
    readings: tuple[tuple[bool, bool, str], ...] = field(default=(), repr=False)
    #: weighted rows: their Kish effective size :math:`(\sum w)^2/\sum w^2`, which the header prints beside
    #: the row count; None unweighted
    n_effective: float | None = None

    @property
    def verdict(self) -> str:
        return self.verdicts[0] if self.verdicts else ""

    def row(self, metric: str, model_a: str | None = None, model_b: str | None = None) -> ComparisonRow:
        """The row of ``metric`` (for the first pair unless ``model_a``/``model_b`` are given)."""
        for r in self.rows:
            if r.metric == metric and model_a in (None, r.model_a) and model_b in (None, r.model_b):
                return r
        raise NoSuchRow(self._no_row(metric, model_a, model_b))

    def _no_row(self, metric: str, model_a: str | None, model_b: str | None) -> str:
        """Why :meth:`row` found nothing: a metric not compared, or a pair given the other way round (the
        rows hold each pair once, diff = value_b - value_a)."""
        metrics = list(dict.fromkeys(r.metric for r in self.rows))
        if metric not in metrics:
            return f"no metric {metric!r} in this comparison; the metrics are {', '.join(map(repr, metrics))}"
        pairs = self._pairs
        if (model_b, model_a) in pairs:
            return (f"the pair is stored as model_a={model_b!r}, model_b={model_a!r} (diff = value_b - value_a); "
                    f"pass those and negate diff, ci_low and ci_high")
        shown = ", ".join(f"({a!r}, {b!r})" for a, b in pairs)
        return f"no {metric!r} row for model_a={model_a!r}, model_b={model_b!r}; the pairs are {shown}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "models": list(self.models),
            "level": self.level,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state if isinstance(self.random_state, int) else None,
            "bins": self.bins,
            "score_type": self.score_type,
            "comparison": [r.to_dict() for r in self.rows],
            "corp": {name: {"brier": c.brier.to_dict(), "log_loss": c.log_loss.to_dict(), "blocks": c.blocks}
                     for name, c in self.corp.items()},
            "corp_difference": [d.to_dict() for d in self.corp_differences],
            "verdicts": list(self.verdicts),
            "notes": list(self.notes),
        }
        if self.groups or self.too_small:
            out["group_column"] = self.group_column
            out["groups"] = {k: g.to_dict() for k, g in self.groups.items()}
            out["slice_fdr"] = {"method": "Benjamini-Hochberg", "alpha": round(1.0 - self.level, 12),
                                "slices_tested": len(self.groups), "min_count": self.min_count,
                                "slices_with_a_reading": len(self._read_slices)}
            out["too_small"] = dict(self.too_small)
        return out

    def _frame_records(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.rows]

    def _summary_items(self) -> dict[str, Any]:
        return {"n": self.n, "level": self.level, "verdict": self.verdict}

    @property
    def _pairs(self) -> list[tuple[str, str]]:
        """The compared (A, B) pairs, in the order of the rows."""
        return list(dict.fromkeys((r.model_a, r.model_b) for r in self.rows))

    @property
    def _ece_p_one(self) -> bool:
        """Whether a debiased-ECE difference that is not 0 has p = 1 (:data:`ECE_P_ONE` explains it)."""
        return any(r.metric == "ece" and r.p_value == 1.0 and r.diff != 0.0 for r in self.rows)

    @property
    def _noise_notes(self) -> list[tuple[str, str]]:
        """(metric, note) for each row whose difference is within noise and printed below its digits
        (:func:`_below_print`) so that it and its interval's ends all print as 0, though they are not 0: its
        numbers at two significant digits, so that "+0.0000 [-0.0000, +0.0000]" is not read as an identical
        pair (an AUC's: two rankings alike but for float ties)."""
        out = []
        for r in self.rows:
            k = _row_digits(r)
            if not _below_print(r):
                continue
            if r.metric == "auc":
                scale = (f"the AUCs' {k} decimals (the two models order all but a tiny share of the "
                         "positive-negative pairs alike)")
            else:
                levels = _LEVELS.get(r.metric, r.metric)
                scale = f"the {k} decimals that show the {levels} to 4 significant digits"
            note = _noise_note(f"{SHOWN.get(r.metric, r.metric)} {r.model_b} - {r.model_a}", r.diff, r.ci_low,
                               r.ci_high, k, scale)
            if note is not None:
                out.append((r.metric, note))
        return out

    @property
    def _corp_notes(self) -> list[tuple[str, str]]:
        """(part, note) as :attr:`_noise_notes`, for the CORP parts (ΔMCB, ΔDSC) within noise whose numbers
        all print as 0 at their levels' 4 significant digits (:func:`_part_digits`)."""
        out = []
        for d in self.corp_differences:
            levels = _part_levels(self.corp, d)
            for part, value, low, high in (("mcb", d.mcb, d.mcb_low, d.mcb_high),
                                           ("dsc", d.dsc, d.dsc_low, d.dsc_high)):
                k = _part_digits(value, low, high, levels[part])
                if k >= _part_digits(value, low, high):
                    continue
                note = _noise_note(f"CORP {part.upper()} {d.model_b} - {d.model_a}", value, low, high, k,
                                   f"the {k} decimals that show the {part.upper()}s to 4 significant digits")
                if note is not None:
                    out.append((part, note))
        return out

    def _slice_verdicts(self, key: str) -> list[str]:
        """This comparison's verdicts as the whole comparison lists it under slice ``key``: each names the
        slice and its rows, and, with more than one pair, the pair (``x (100 rows, b vs a): ...``) — three
        models gave three lines per slice that did not say which pair each was about."""
        pairs = self._pairs
        return [f"{key} ({self.n:,} rows{f', {b} vs {a}' if len(pairs) > 1 else ''}): {text}"
                for (a, b), text in zip(pairs, self.verdicts)]

    @property
    def _read_slices(self) -> dict[str, float]:
        """The slices with a difference beyond noise across the slices (some q-value at most 1 − level),
        each with its smallest q-value."""
        alpha = 1.0 - self.level
        out: dict[str, float] = {}
        for key, g in self.groups.items():
            qs = [r.q_value for r in g.rows if r.q_value is not None]
            qs += [q for d in g.corp_differences for q in (d.mcb_q, d.dsc_q) if q is not None]
            qs = [q for q in qs if q == q]
            if qs and min(qs) <= alpha + 1e-12:
                out[key] = min(qs)
        return out

    def _fdr_text(self) -> str:
        """How the slices are read, for the line above them."""
        alpha = round(1.0 - self.level, 12)
        small = (f"; {len(self.too_small):,} slice{'s' if len(self.too_small) != 1 else ''} under "
                 f"min_count={self.min_count:,} rows not tested" if self.too_small else "")
        tested = f"{len(self.groups):,} slice{'s' if len(self.groups) != 1 else ''}"
        return (f"{tested} compared{small}; a slice's difference is read beyond noise only where its "
                f"Benjamini-Hochberg q-value across the slices (per pair and metric) is at most {alpha:g}: "
                f"false-discovery rate {alpha * 100:g}%; intervals are each slice's own, unadjusted")

    def _printed_notes(self) -> list[str]:
        """:attr:`notes` as printed: the first :data:`SHOWN_FAILED` notes of slices not compared (one class,
        too few rows ...), then one line counting the rest — ``by=`` an id column of one-row slices printed
        a note per slice, thousands of lines; ``.notes`` and ``to_dict()`` keep every one."""
        failed = [t for t in self.notes if t.startswith(FAILED_PREFIX) and FAILED_MARK in t]
        if len(failed) <= SHOWN_FAILED:
            return list(self.notes)
        hidden = set(failed[SHOWN_FAILED:])
        kept = [t for t in self.notes if t not in hidden]
        at = kept.index(failed[SHOWN_FAILED - 1]) + 1
        more = (f"... {len(failed) - SHOWN_FAILED:,} more slices not compared ({len(failed):,} in all); "
                "every one is named in .notes and to_dict() (--json)")
        return [*kept[:at], more, *kept[at:]]

    def _shown_slices(self) -> tuple[list[str], str]:
        """The slices printed, and a line for the rest: every slice when at most :data:`SHOWN_SLICES`, else
        those read beyond noise, smallest q-value first, up to that many (``.groups`` and ``to_dict()``
        keep them all)."""
        read = self._read_slices
        if len(self.groups) <= SHOWN_SLICES:
            shown = list(self.groups)
        else:
            shown = sorted(read, key=lambda k: read[k])[:SHOWN_SLICES]
        left = len(self.groups) - len(shown)
        left_read = len(read) - sum(k in read for k in shown)
        rest = (f"... {left:,} more slice{'s' if left != 1 else ''} not printed ({left_read:,} of them "
                f"with a difference beyond noise); every slice is in .groups and to_dict() (--json)"
                if left else "")
        if self.too_small:
            named = list(self.too_small)[:5]
            more = f", ... ({len(self.too_small):,} in all)" if len(self.too_small) > 5 else ""
            small = (f"too small to test (fewer than {self.min_count:,} rows): "
                     + ", ".join(f"{k} ({self.too_small[k]:,} rows)" for k in named) + more)
            rest = f"{rest}; {small}" if rest else small
        return shown, rest

    def _corp_digits(self, d: CORPDifference) -> tuple[int, int, int, int]:
        """The decimals of a CORP difference row's Brier, MCB, DSC and UNC: MCB and DSC at their difference's
        and interval's (one group, as the verdict prints them; within noise, no finer than the two models'
        MCBs or DSCs need at 4 significant digits: :func:`_part_digits`), the Brier difference at its
        comparison row's (:func:`_row_digits`)."""
        brier = next((r for r in self.rows if r.metric == "brier" and (r.model_a, r.model_b) ==
                      (d.model_a, d.model_b)), None)
        levels = _part_levels(self.corp, d)
        return (_row_digits(brier) if brier is not None else decimals(d.score),
                _part_digits(d.mcb, d.mcb_low, d.mcb_high, levels["mcb"]),
                _part_digits(d.dsc, d.dsc_low, d.dsc_high, levels["dsc"]), decimals(d.unc))

    def _corp_levels(self) -> list[tuple[str, list[str]]]:
        """Each model's CORP row as printed: Brier, MCB, DSC and UNC (:mod:`._digits`: a calibrated model's
        MCB of 0.000012 is not "0.0000"). A column's levels share the decimals of its most demanding number,
        its difference rows' included, so that MCBs of 0.000013 and 0.000012 read against their difference
        -0.000002, and the Brier scores at their comparison rows' decimals."""
        columns = [[c.brier.score, c.brier.mcb, c.brier.dsc, c.brier.unc] for c in self.corp.values()]
        diffs = [self._corp_digits(d) for d in self.corp_differences]
        shared = [max([decimals(*(m[k] for m in columns)), *(dd[k] for dd in diffs)]) for k in range(4)]
        return [(name, [level_text(v, shared[k]) for k, v in enumerate(values)])
                for name, values in zip(self.corp, columns)]

    def _corp_diffs(self) -> list[tuple[CORPDifference, list[str]]]:
        """Each CORP difference row as printed: Brier, MCB, DSC, UNC, the MCB and the DSC interval, at
        :meth:`_corp_digits` decimals — an interval's ends signed by their side where its part prints below
        the digits the rule asks (within noise: :func:`_group_texts`)."""
        out = []
        for d in self.corp_differences:
            score, mcb, dsc, unc = self._corp_digits(d)
            mcb_texts = _group_texts(d.mcb, d.mcb_low, d.mcb_high, mcb,
                                     _part_digits(d.mcb, d.mcb_low, d.mcb_high))
            dsc_texts = _group_texts(d.dsc, d.dsc_low, d.dsc_high, dsc,
                                     _part_digits(d.dsc, d.dsc_low, d.dsc_high))
            out.append((d, [_sf(d.score, score), mcb_texts[0], dsc_texts[0], _sf(d.unc, unc),
                            interval_cell(*mcb_texts[1:]), interval_cell(*dsc_texts[1:])]))
        return out

    def _repr_html_(self) -> str:
        """The notebook view: what the printout says, as tables — the metrics named as printed
        (``ece_debiased``), the p = 1 note, the CORP decomposition, each verdict and note."""
        from ..core._display import html_kv, html_note, html_page, html_section, html_table

        pairs = self._pairs
        # long model names are shortened in the tables' headers and cells (whole in the tooltip and in
        # each section's title), so the tables fit a notebook column instead of running off its edge
        short = short_names([*self.models, *self.corp, *(n for pair in pairs for n in pair),
                             *(n for d in self.corp_differences for n in (d.model_a, d.model_b))])
        names = {short[n]: n for n in short}
        names.update({f"{short[b]} - {short[a]}": f"{b} - {a}" for a, b in
                      [*pairs, *((d.model_a, d.model_b) for d in self.corp_differences)]})
        head = {"rows": f"{self.n:,}", "level": f"{self.level * 100:g}%", "resamples": self.n_resamples}
        if self.n_effective is not None:  # as the text's first line says it
            head["weighted"] = f"Kish effective size {self.n_effective:,.1f}"
        if self.corp:  # probabilities: the debiased ECE's bins, as the text's first line says them
            head["ECE on"] = f"{self.bins} equal-width bins"
        parts = [html_kv(head)]
        for a, b in pairs:
            # each number as the printout writes it, at its row's decimals (:mod:`._digits`)
            records = [{"metric": SHOWN.get(r.metric, r.metric), **_row_cells(r, a, b),
                        "p-value": _fmt_p(r.p_value), "method": r.method}
                       for r in self.rows if (r.model_a, r.model_b) == (a, b)]
            rename = {a: short[a], b: short[b], f"{b} - {a}": f"{short[b]} - {short[a]}"}
            # difference and interval signed, as printed: an unsigned 0.1138 hid which model is ahead
            shown = html_table(records, wide=True, rename=rename, names=names,
                               signed=(f"{b} - {a}", "ci_low"))
            parts.append(html_section(f"{b} vs {a}", shown))
        if self._ece_p_one:
            parts.append(html_note(ECE_P_ONE))
        parts += [html_note(f"note: {t}") for _, t in self._noise_notes]
        if self.corp:
            corp: list[dict[str, Any]] = [
                {"model": short[name], **{k: Cell(v) for k, v in zip(("Brier", "MCB", "DSC", "UNC"), texts)},
                 "MCB interval": "", "DSC interval": ""} for name, texts in self._corp_levels()]
            # a difference row's numbers signed, as printed (the models' rows above it are not differences)
            corp += [{"model": f"{short[d.model_b]} - {short[d.model_a]}",
                      **{k: Cell(v) for k, v in zip(("Brier", "MCB", "DSC", "UNC"), texts[:4])},
                      "MCB interval": Cell(texts[4]), "DSC interval": Cell(texts[5])}
                     for d, texts in self._corp_diffs()]
            parts.append(html_section("CORP decomposition of the Brier score (Brier = MCB - DSC + UNC; lower MCB: "
                                      "better calibrated, higher DSC: more resolution)",
                                      html_table(corp, wide=True, names=names)))
            parts += [html_note(f"note: {t}") for _, t in self._corp_notes]
        for (a, b), text in zip(pairs, self.verdicts):
            parts.append(html_note(f"Verdict ({b} vs {a}): {text}" if len(pairs) > 1 else f"Verdict: {text}"))
        parts += [html_note(f"note: {t}") for t in self._printed_notes()]
        if self.groups or self.too_small:
            listed, rest = self._shown_slices()
            notes = [html_note(f"slices: {self._fdr_text()}")]
            parts.append(html_section(f"by {self.group_column or 'slice'}", "".join(
                notes + [html_note(text) for key in listed for text in self.groups[key]._slice_verdicts(key)]
                + ([html_note(rest)] if rest else []))))
        return visible(html_page(self._title(), parts, str(self)))

    def _rows_text(self) -> str:
        return rows_text(self.n, self.n_effective)

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        pairs = self._pairs
        boot = (f"{self.n_resamples} paired Poisson resamples, random_state {self.random_state}"
                if self.n_resamples else "no resamples")
        # the bins of the debiased ECE, as vc.compare's header says them (an ECE's value depends on them)
        ece_bins = f"; ECE on {self.bins} equal-width bins" if self.corp else ""
        head = f"Model comparison on {self._rows_text()} (paired; {pct} intervals; {boot}{ece_bins}):"
        lines = [head]
        for a, b in pairs:
            cells = [(r, [str(c) for c in _row_cells(r, a, b).values()])
                     for r in self.rows if (r.model_a, r.model_b) == (a, b)]
            body = [[SHOWN.get(r.metric, r.metric), *t[:3], interval_cell(t[3], t[4]), _fmt_p(r.p_value),
                     r.method] for r, t in cells]
            lines += [f"{b} vs {a}:" if len(pairs) > 1 else "",
                      render_table(["metric", a, b, f"{b} - {a}", f"{pct} CI", "p-value", "method"], body,
                                   align="lrrrlrl")]
        lines = [line for line in lines if line]
        if self._ece_p_one:
            lines.append(ECE_P_ONE)
        lines += [f"note: {t}" for _, t in self._noise_notes]
        if self.corp:
            corp_rows = [[name, *texts, ""] for name, texts in self._corp_levels()]
            for d, texts in self._corp_diffs():
                corp_rows.append([f"{d.model_b} - {d.model_a}", *texts[:4],
                                  f"MCB {texts[4]}  DSC {texts[5]}"])
            lines += ["CORP decomposition of the Brier score (Brier = MCB - DSC + UNC; lower MCB: better "
                      "calibrated, higher DSC: more resolution):",
                      render_table(["model", "Brier", "MCB", "DSC", "UNC", f"{pct} CI"], corp_rows,
                                   align="lrrrrl")]
            lines += [f"note: {t}" for _, t in self._corp_notes]
        for (a, b), text in zip(pairs, self.verdicts):
            lines.append(f"Verdict ({b} vs {a}): {text}" if len(pairs) > 1 else f"Verdict: {text}")
        lines += [f"note: {t}" for t in self._printed_notes()]
        if self.groups or self.too_small:
            lines += [f"slices: {self._fdr_text()}", f"by {self.group_column or 'slice'}:"]
            shown, rest = self._shown_slices()
            for key in shown:
                lines += [f"  {text}" for text in self.groups[key]._slice_verdicts(key)]
            if rest:
                lines.append(f"  {rest}")
        return visible("\n".join(lines))  # names in the verdicts and notes too: no U+202E printed raw


#: with more slices than this, only the slices read beyond noise are printed (up to this many)
SHOWN_SLICES = 20
#: a slice that could not be compared has a note "slice KEY (N rows) not compared: WHY"; the printout names
#: at most this many (:meth:`ModelComparison._printed_notes`)
SHOWN_FAILED = 5
FAILED_PREFIX, FAILED_MARK = "slice ", ") not compared: "


#: a model name longer than this is shortened in the notebook's tables (its start … its end)
SHORT_NAME = 24


def short_names(names: Any, width: int = SHORT_NAME) -> dict[str, str]:
    """Each name as the notebook's tables head it: whole when at most ``width`` characters, else its
    first and last characters around an ellipsis (a version or fold number is usually at the end),
    ``width`` characters in all; widened until no two names read the same."""
    names = list(dict.fromkeys(str(n) for n in names))
    for w in range(max(width, 3), max(map(len, names), default=0) + 1):
        tail = (w - 1) // 2
        short = {n: n if len(n) <= w else f"{n[:w - 1 - tail]}…{n[len(n) - tail:]}" for n in names}
        if len(set(short.values())) == len(short):
            return short
    return {n: n for n in names}


def _ci(low: float, high: float, digits: int = 4) -> str:
    """A difference's interval as the tables print it: signed ends, or one "n/a" when there is none."""
    return interval_cell(_sf(low, digits), _sf(high, digits))


def _sf(value: float, digits: int = 4) -> str:
    """A difference as the comparison prints it: signed, ``digits`` decimals (:func:`._digits.decimals` picks
    them), and never "-0.0000" — a value that rounds to 0 (an interval's end a rounding error below 0) prints
    "+0.0000", as an exact 0 does; "-0.0000" beside a verdict of "the same" read as a difference."""
    return signed(value, digits)


def _part_levels(corp: dict[str, CORPResult] | None, d: CORPDifference) -> dict[str, tuple[float, ...]]:
    """The two models' MCBs and DSCs (the levels of the CORP difference ``d``'s parts); none without them."""
    if not corp or d.model_a not in corp or d.model_b not in corp:
        return {"mcb": (), "dsc": ()}
    a, b = corp[d.model_a].brier, corp[d.model_b].brier
    return {"mcb": (a.mcb, b.mcb), "dsc": (a.dsc, b.dsc)}


def _part_digits(value: float, low: float, high: float, levels: tuple[float, ...] = ()) -> int:
    """The decimals of a difference printed with its interval: one group (:func:`._digits.decimals`); within
    noise (its interval holds 0), no finer than show its ``levels`` (the two models' values of the part) to 4
    significant digits (:func:`._digits.noise_decimals`)."""
    full = decimals((value, low, high))
    return noise_decimals(full, *levels) if levels and holds_zero(low, high) else full


def _group_texts(value: float, low: float, high: float, digits: int, full: int) -> tuple[str, str, str]:
    """A difference and its interval's ends at ``digits`` decimals: signed, the difference never "-0.0000"
    (:func:`_sf`); where ``digits`` is below the ``full`` decimals the rule asks (a difference within noise,
    capped at its levels' digits), the ends signed by their side — "[-0.0000, +0.0000]" says the interval
    holds 0, which "[+0.0000, +0.0000]", an exact 0's, would not."""
    if digits < full:
        return _sf(value, digits), fmt(float(low), digits, sign=True), fmt(float(high), digits, sign=True)
    return _sf(value, digits), _sf(low, digits), _sf(high, digits)


def _row_full(r: ComparisonRow) -> int:
    """The decimals the digits rule asks of a comparison row: each model's value, and the difference with its
    interval (one group), each shown to two significant digits at least (:mod:`._digits`) — at a 0.1 % base
    rate a Brier row read "0.0012  0.0011  +0.0001  [+0.0000, +0.0002]"."""
    return decimals(r.value_a, r.value_b, (r.diff, r.ci_low, r.ci_high))


def _row_digits(r: ComparisonRow) -> int:
    """The decimals a comparison row prints all its numbers at: :func:`_row_full`'s, except a difference
    within noise (:func:`_below_print`), which prints no finer than its values' 4 significant digits."""
    full = _row_full(r)
    noise = holds_zero(r.ci_low, r.ci_high) or (r.metric == "auc" and r.ci_low != r.ci_low)
    return noise_decimals(full, r.value_a, r.value_b) if noise else full


def _below_print(r: ComparisonRow) -> bool:
    r"""Whether ``r`` is a row whose difference is printed at fewer decimals than the digits rule asks.

    A difference within noise — its interval holds 0 — prints no finer than the decimals that show the row's
    values to 4 significant digits (:func:`._digits.noise_decimals`): a near-tie (B is A rounded to 4
    decimals) had a Brier difference and interval of 1e-7 and printed both Brier scores at 8 decimals,
    "0.19426322  0.19426325  +0.00000003  [-0.00000008, +0.00000014]", digits of nothing. So capped, the row
    reads "0.1943  0.1943  +0.0000  [-0.0000, +0.0000]", its interval's ends signed by their side (it holds 0,
    which "[+0.0000, +0.0000]", an identical pair's, would not say), and a note gives the difference and its
    ends at two significant digits (:meth:`ModelComparison._noise_notes`). The AUC, a share of pairs near 0.5
    to 1 at every base rate, needs no more than 4 decimals as a level: its row is capped also where DeLong
    has no interval (two rankings alike but for float ties read "0.7443028  0.7443038  +0.0000010").
    An interval clear of 0 keeps the digits that show it clear of 0 (the rule of :mod:`._digits`)."""
    return _row_digits(r) < _row_full(r)


def _row_texts(r: ComparisonRow) -> tuple[str, str, str, str, str]:
    """A comparison row's numbers as every view prints them (text, notebook, report, verdicts), at
    :func:`_row_digits` decimals: A's and B's values, the difference B − A (signed, never "-0.0000"), and its
    interval's ends — signed by their side where the row prints below its digits (:func:`_below_print`)."""
    k = _row_digits(r)
    diff, low, high = _group_texts(r.diff, r.ci_low, r.ci_high, k, _row_full(r))
    return fmt(r.value_a, k), fmt(r.value_b, k), diff, low, high


def _quoted(name: str, texts: tuple[str, str, str], interval: bool, q: float | None) -> str:
    """``"DSC -0.0219 [-0.0303, -0.0152]"`` from a difference's printed texts, with ``, q ...`` when given."""
    q_text = "" if q is None or q != q else f", q {_p_text(q)[2:]}"
    diff, low, high = texts
    return f"{name} {diff} [{low}, {high}]{q_text}" if interval else f"{name} {diff}{q_text}"


def _row_signed(name: str, r: ComparisonRow, q: float | None = None) -> str:
    """A row's difference in a verdict as its table prints it (:func:`_row_texts`), with ``q`` when given."""
    return _quoted(name, _row_texts(r)[2:], r.ci_low == r.ci_low, q)


def _sci(value: float) -> str:
    """A tiny signed number at two significant digits ("+1.0e-06"); 0 as "0"."""
    return "0" if value == 0 else f"{value:+.1e}"


def _noise_note(what: str, value: float, low: float, high: float, digits: int, scale: str) -> str | None:
    """A note for a difference within noise printed below its digits whose numbers all print as 0 at
    ``digits`` decimals though they are not all 0 (so that "+0.0000 [-0.0000, +0.0000]" is not read as an
    exact 0): ``what`` = its numbers at two significant digits, and why; else None."""
    group = [v for v in (value, low, high) if v == v]
    if not any(group) or any(abs(v) >= 0.5 * 10.0 ** -digits for v in group):
        return None
    interval = low == low
    shown = f"{_sci(value)} [{_sci(low)}, {_sci(high)}]" if interval else f"{_sci(value)} (no interval)"
    within = "within noise, and " if interval else ""
    return f"{what} = {shown}: {within}0 at {scale}; to_dict() keeps every digit"


#: what a note calls a row's values, by metric (the decimals a difference within noise is printed at)
_LEVELS = {"brier": "Brier scores", "log_loss": "log losses", "ece": "debiased ECEs", "auc": "AUCs"}


def _row_cells(r: ComparisonRow, a: str, b: str) -> dict[str, Cell]:
    """A comparison row's numbers as printed (:func:`_row_texts`): A's and B's values, the difference B − A
    and its interval (``ci_low``: the notebook table joins it with ``ci_high``)."""
    value_a, value_b, diff, low, high = _row_texts(r)
    return {a: Cell(value_a), b: Cell(value_b), f"{b} - {a}": Cell(diff), "ci_low": Cell(low),
            "ci_high": Cell(high)}


def _unneg(value: float) -> float:
    """``value``, or 0.0 where it prints as -0.0000 at 4 decimals (:func:`_sf`; :func:`._signs.unneg`)."""
    return unneg(value)


def _fmt_p(p: float) -> str:
    if p != p:
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _signed(name: str, value: float, low: float, high: float, q: float | None = None,
            digits: int | None = None, levels: tuple[float, ...] = ()) -> str:
    """``"DSC -0.0219 [-0.0303, -0.0152]"`` in the table's orientation (B − A), with ``q = ...`` (the
    slice's Benjamini–Hochberg q-value across slices) when given; at ``digits`` decimals (default: the
    difference's and its interval's own, :func:`_part_digits` — within noise no finer than its ``levels``
    need, the ends then signed by their side, as the CORP table prints them; a row's: :func:`_row_signed`)."""
    k = _part_digits(value, low, high, levels) if digits is None else digits
    full = _part_digits(value, low, high) if digits is None else digits
    return _quoted(name, _group_texts(value, low, high, k, full), low == low, q)


def _excludes_zero(low: float, high: float) -> bool:
    return low > 0 or high < 0


def _verdict(d: CORPDifference, brier: ComparisonRow, identical: bool, few: bool = False,
             few_rows: str = "", auc: ComparisonRow | None = None, q: dict[str, float] | None = None,
             alpha: float = 0.05, others: tuple[ComparisonRow, ...] = (),
             corp: dict[str, CORPResult] | None = None) -> str:
    """The one line a user reads, true of every row it speaks about. It reads the CORP parts: DSC, the
    *resolution* (discrimination in the CORP decomposition: how far the PAV-recalibrated scores move
    from the base rate, which rewards a ranking that separates the classes where it is most sure), and
    MCB, the miscalibration. DSC is not the AUC, and the two can disagree (DSC clear of 0 where DeLong's
    p is 0.09, or the reverse), so the verdict says "higher resolution", never "ranks better", and when
    the ``auc`` row (DeLong) tells otherwise than the DSC part, it says what the AUC says
    (:func:`_auc_clause`).

    Every number is printed in the table's orientation, B − A, and says so ("for b - a"): a DSC of
    +0.0192 for the model with the higher resolution read against the table's b - a of -0.0192. Two
    models of one ranking (a monotone map of the other: the same PAV fit, DSC and AUC differing by exactly
    0) have "the same resolution (identical ranking)", not one that "differs by no more than noise".

    ``few``: too few resamples for intervals at this level (:func:`_few_resamples`), whose ends are then
    the extreme resamples (a 0 % interval from one): the verdict reads them as without resamples (the Brier
    interval alone, :func:`_point_verdict`), rather than calling a difference significant on such an interval.
    ``few_rows``: too few rows of a class for any interval of ΔMCB and ΔDSC (:data:`MIN_CLASS_ROWS`; what
    :func:`_few_rows` says): the verdict reads only the Brier interval (paired t), and gives the two parts as
    point estimates, calling neither model better resolved or better calibrated.
    ``q``: metric ("brier", "dsc", "mcb", "auc") → Benjamini–Hochberg q-value across the slices of a
    ``by=`` comparison (:func:`_slice_readings`): a difference is then beyond noise only where its q is at
    most ``alpha`` (1 − level), not where its own interval excludes 0, and each number carries its q.
    ``others``: the pair's log-loss and debiased-ECE rows, said where they differ beyond noise and the line
    would otherwise deny it (:func:`_rows_clause`): "no clear difference between a and b" beside a log loss
    or ECE interval clear of 0 contradicted the table.
    ``corp``: the models' CORP decompositions, whose MCBs and DSCs are the levels a ΔMCB or ΔDSC within
    noise is printed at (:func:`_part_digits`), as the CORP table prints it; every number is quoted as its
    table prints it (:func:`_row_signed`)."""
    a, b = d.model_a, d.model_b
    vs = f"for {b} - {a}"
    if identical:
        return f"{a} and {b} have identical scores: no difference"
    qs = q or {}

    def beyond(metric: str, low: float, high: float) -> bool:
        if q is None:
            return _excludes_zero(low, high)
        value = qs.get(metric, float("nan"))
        return value == value and value <= alpha and low == low

    brier_text = _row_signed("Brier", brier, qs.get("brier"))
    brier_sig = beyond("brier", brier.ci_low, brier.ci_high)
    if few_rows:
        parts = f"DSC {_sf(d.dsc, decimals(d.dsc))}, MCB {_sf(d.mcb, decimals(d.mcb))}"
        why = (f"too few rows of a class ({few_rows}; at least {MIN_CLASS_ROWS} of each) to tell resolution "
               f"from calibration ({parts} {vs}, point estimates)")
        if brier_sig:
            better = a if brier.diff > 0 else b
            return f"{better} has the lower Brier score ({brier_text} {vs}); {why}" + _rows_clause(
                others, beyond, qs, quiet=False, calibrated=None, lower=better)
        rows_text = _rows_clause(others, beyond, qs, quiet=True, calibrated=None)
        what = " in Brier score" if rows_text else ""
        return f"no clear difference{what} between {a} and {b}: {brier_text} {vs}; {why}{rows_text}"
    if few:
        nan = float("nan")
        d = replace(d, mcb_low=nan, mcb_high=nan, dsc_low=nan, dsc_high=nan)
    bootstrap = d.dsc_low == d.dsc_low
    # one ranking (a recalibration): the same PAV fit, so DSC and the AUC differ by exactly 0
    same_ranking = d.dsc == 0 and (auc is None or (auc.diff == 0 and auc.se == 0))
    if not bootstrap and not same_ranking:  # no interval for either part: the Brier interval alone decides
        return _point_verdict(d, brier, brier_text, brier_sig, few, auc, q is not None, qs, beyond, others)
    if not bootstrap:
        # one order of the scores: ΔDSC is exactly 0, so ΔMCB is ΔBrier (to the bit, as estimates and as
        # truths) and the Brier difference's paired t interval (or q-value) is the MCB difference's
        d = replace(d, mcb_low=brier.ci_low, mcb_high=brier.ci_high)
        qs = {**qs, "mcb": qs.get("brier", float("nan"))}

    # who is better at each: DSC higher is better, MCB lower is better
    rank_sig = beyond("dsc", d.dsc_low, d.dsc_high) and not same_ranking
    cal_sig = brier_sig if not bootstrap else beyond("mcb", d.mcb_low, d.mcb_high)
    ranker = b if d.dsc > 0 else a
    calib, other_c = (b, a) if d.mcb < 0 else (a, b)
    levels = _part_levels(corp, d)
    dsc_text = _signed("DSC", d.dsc, d.dsc_low, d.dsc_high, qs.get("dsc"), levels=levels["dsc"])
    mcb_text = _signed("MCB", d.mcb, d.mcb_low, d.mcb_high, qs.get("mcb"), levels=levels["mcb"])
    # one order of the scores: say where the MCB interval comes from (no resamples: read here; with them,
    # compare_of gave ΔMCB the Brier row's interval)
    brier_interval = not bootstrap or (d.mcb_low == brier.ci_low and d.mcb_high == brier.ci_high)
    tail = "" if not brier_interval else (" (the MCB difference is the Brier difference here, and has its "
                                          "paired t interval)")
    auc_text = _auc_clause(auc, ranker if rank_sig else None, None if q is None else beyond(
        "auc", auc.ci_low, auc.ci_high) if auc is not None else None, qs.get("auc"))
    quiet = not (rank_sig or cal_sig or brier_sig)  # the line says "no clear difference"
    rows_text = _rows_clause(others, beyond, qs, quiet=quiet, calibrated=calib if cal_sig else None,
                             lower=(a if brier.diff > 0 else b) if brier_sig else None)
    tail += rows_text + auc_text
    same = f"their resolution is the same (one order of the scores: DSC differs by exactly 0 {vs})"
    # "differs by no more than noise across the slices": its q-value is above the false-discovery level
    noise = "no more than noise across the slices" if q is not None else "no more than noise"
    lower = (a if brier.diff > 0 else b) if brier_sig else None  # the lower Brier score, beyond noise

    def yet(favoured: str) -> str:
        """The Brier row where it differs beyond noise towards the other model than the one the line
        favours (ΔBrier = ΔMCB − ΔDSC: a part's wide interval can hold what the sum's narrower one does not),
        so that the line never contradicts the table."""
        if lower in (None, favoured):
            return ""
        return f"; yet {lower} has the lower Brier score ({brier_text} {vs})"

    if rank_sig and cal_sig and ranker == calib:
        return (f"{ranker} is better: it has the higher resolution and is better calibrated ({dsc_text}, "
                f"{mcb_text} {vs}){yet(ranker)}{tail}")
    if rank_sig and cal_sig and lower == ranker:
        # it wins already: "recalibrate it, then it wins" read as though it lost now
        return (f"{ranker} is better: it has the higher resolution ({dsc_text} {vs}) and the lower Brier "
                f"score ({brier_text} {vs}), though it is worse calibrated ({mcb_text} {vs}): recalibrating "
                f"{ranker} would widen its lead{tail}")
    if rank_sig and cal_sig:
        return (f"{ranker} has the higher resolution ({dsc_text} {vs}) but is worse calibrated ({mcb_text} "
                f"{vs}): recalibrate {ranker}, then it wins{tail}")
    if rank_sig:
        return (f"{ranker} has the higher resolution ({dsc_text} {vs}); their calibration differs by "
                f"{noise} ({mcb_text} {vs}){yet(ranker)}{tail}")
    if cal_sig:
        resolution = same if same_ranking else f"their resolution differs by {noise} ({dsc_text} {vs})"
        return (f"{calib} is better calibrated ({mcb_text} {vs}); {resolution}: recalibrating {other_c} "
                f"would close the gap{yet(calib)}{tail}")
    parts = (f"{dsc_text}, {mcb_text}" if not same_ranking
             else f"{mcb_text}; DSC the same (one order of the scores)")
    if brier_sig:  # the Brier row says they differ: never "no clear difference"
        better = a if brier.diff > 0 else b
        return (f"{better} has the lower Brier score ({brier_text} {vs}), but neither its "
                f"resolution (DSC) nor its calibration (MCB) alone differs by more than noise ({parts} "
                f"{vs}){tail}")
    # another row differs although the Brier score and its parts do not: "no clear difference" says of what
    what = " in Brier score, resolution or calibration" if auc_text or rows_text else ""
    return f"no clear difference{what} between {a} and {b}: {brier_text}, {parts} {vs}{tail}"


def _point_verdict(d: CORPDifference, brier: ComparisonRow, brier_text: str, brier_sig: bool, few: bool,
                   auc: ComparisonRow | None, sliced: bool, qs: dict[str, float], beyond: Any,
                   others: tuple[ComparisonRow, ...]) -> str:
    """The verdict when neither CORP part has an interval (no resamples, or too few to place its ends) and
    the two models rank the rows differently: like the verdict on too few rows of a class, it reads the
    Brier interval alone (paired t; across slices its q-value) and gives ΔDSC and ΔMCB as point estimates,
    calling neither model better resolved nor better calibrated. Point estimates named a winner for every
    pair of equally good models ("b is better: it has the higher resolution and is better calibrated (DSC
    +0.0102, MCB -0.0009 ...)") beside a Brier interval that held 0. The AUC row (DeLong) is said where it
    differs beyond noise, as a verdict that calls no model better resolved says it."""
    a, b = d.model_a, d.model_b
    vs = f"for {b} - {a}"
    why = "too few resamples for their intervals" if few else "their intervals need resamples"
    parts = f"DSC {_sf(d.dsc, decimals(d.dsc))}, MCB {_sf(d.mcb, decimals(d.mcb))}"
    auc_text = _auc_clause(auc, None, None if not sliced or auc is None else beyond(
        "auc", auc.ci_low, auc.ci_high), qs.get("auc"))
    rows_text = _rows_clause(others, beyond, qs, quiet=not brier_sig, calibrated=None,
                             lower=(a if brier.diff > 0 else b) if brier_sig else None)
    if brier_sig:
        better = a if brier.diff > 0 else b
        return (f"{better} has the lower Brier score ({brier_text} {vs}); resolution and calibration are not "
                f"told apart ({parts} {vs}: point estimates; {why}){rows_text}{auc_text}")
    what = " in Brier score" if auc_text or rows_text else ""
    return (f"no clear difference{what} between {a} and {b}: {brier_text}, {parts} {vs} (DSC and MCB: point "
            f"estimates; {why}){rows_text}{auc_text}")


#: the rows besides Brier and AUC a verdict answers to (lower is better for both), as it names them
OTHER_ROWS = {"log_loss": ("log loss", "log loss"), "ece": ("debiased ECE", "ECE")}


def _rows_clause(others: tuple[ComparisonRow, ...], beyond: Any, qs: dict[str, float], *, quiet: bool,
                 calibrated: str | None, lower: str | None = None) -> str:
    """What the log-loss and debiased-ECE rows add to a verdict that reads the Brier score and its CORP parts,
    so that the line never contradicts them: a row whose difference is beyond noise (its interval clear of 0;
    across slices, its q-value at most alpha: ``beyond``) is said — "; the log loss differs: a has the lower
    log loss (log loss +0.0205 [+0.0023, +0.0388] for b - a)" — where the verdict says "no clear difference"
    (``quiet``); the ECE row also where the verdict does not call the model it favours better calibrated
    (``calibrated``: the model the verdict calls better calibrated, or None), and the log-loss row where it
    favours another model than the one the verdict gives the lower Brier score (``lower``). Else ""."""
    out = []
    for r in others:
        if r.metric not in OTHER_ROWS or not beyond(r.metric, r.ci_low, r.ci_high):
            continue
        better = r.model_a if r.diff > 0 else r.model_b
        agrees = better == calibrated if r.metric == "ece" else lower is None or better == lower
        if not quiet and agrees:
            continue
        name, short = OTHER_ROWS[r.metric]
        shown = _row_signed(short, r, qs.get(r.metric))
        vs = f"for {r.model_b} - {r.model_a}"
        out.append(f"; the {name} differs: {better} has the lower {name} ({shown} {vs})")
    return "".join(out)


def _auc_clause(auc: ComparisonRow | None, resolved: str | None, sig: bool | None = None,
                q: float | None = None) -> str:
    """What the AUC row (DeLong) adds to a verdict that reads the DSC part, so that the line never
    contradicts the table: "" when the two agree — the AUC's interval excludes 0 towards ``resolved`` (the
    model the verdict gives the higher resolution), or holds 0 where the verdict gives neither — or when
    the AUC has no interval; else "; the AUC differs: A ranks better (...)", "; yet the AUC says ..."
    or "; the AUC does not differ beyond noise (...)". ``sig``: whether the AUC differs beyond noise
    (None: its interval excludes 0; across slices, its q-value is at most alpha)."""
    if auc is None or auc.ci_low != auc.ci_low:
        return ""
    a, b = auc.model_a, auc.model_b
    shown = _row_signed("AUC", auc, q)
    text = f"{shown} for {b} - {a}, DeLong {_p_text(auc.p_value)}"
    if _excludes_zero(auc.ci_low, auc.ci_high) if sig is None else sig:
        better = b if auc.diff > 0 else a
        if better == resolved:
            return ""
        if resolved is None:
            return f"; the AUC differs: {better} ranks better ({text})"
        return f"; yet the AUC says {better} ranks better ({text})"
    if resolved is None:
        return ""
    return f"; the AUC does not differ beyond noise ({text})"


def _p_text(p: float) -> str:
    """A p-value in a sentence: "p < 0.0001" or "p = 0.0917" (not "p = <0.0001")."""
    shown = _fmt_p(p)
    return f"p < {shown[1:]}" if shown.startswith("<") else f"p = {shown}"


def _auc_verdict(r: ComparisonRow, identical: bool, few_rows: str = "", q: float | None = None,
                 alpha: float = 0.05) -> str:
    """The verdict of a ranking-only comparison (``score_type="score"``); ``q``: the AUC difference's
    Benjamini–Hochberg q-value across slices, which must then be at most ``alpha`` for "ranks better"."""
    a, b = r.model_a, r.model_b
    if identical:
        return f"{a} and {b} have identical scores: no difference"
    text = _row_signed("AUC", r, q)
    if few_rows and r.ci_low != r.ci_low and r.diff != 0:
        better = b if r.diff > 0 else a
        return (f"{better} ranks better by the point estimate ({text} for {b} - {a}); too few rows of a "
                f"class ({few_rows}; DeLong's test needs at least {MIN_CLASS_ROWS} of each): no interval, "
                "no test")
    if r.ci_low != r.ci_low and r.diff != 0:  # DeLong has no variance here: the point estimate, said as one
        better = b if r.diff > 0 else a
        return (f"{better} ranks better by the point estimate ({text} for {b} - {a}); DeLong has no variance on "
                "these rows (fewer than two rows of a class, one row carrying a class's weight, or both models "
                "separating the classes perfectly): no interval, no test")
    if r.diff == 0 and r.se == 0:
        return f"{a} and {b} rank the rows the same (AUC {_sf(0.0)} for {b} - {a}, identical ranking)"
    sig = _excludes_zero(r.ci_low, r.ci_high) if q is None else (q == q and q <= alpha)
    if sig:
        better = b if r.diff > 0 else a
        return f"{better} ranks better ({text} for {b} - {a}, DeLong {_p_text(r.p_value)})"
    across = q is not None and _excludes_zero(r.ci_low, r.ci_high)
    noise = " (not beyond noise across the slices)" if across else ""
    return f"no clear difference in ranking between {a} and {b} ({text} for {b} - {a}){noise}"


def _per_model(models: Models, k: int, bins: int) -> tuple[Any, Any, Any, Any]:
    """Model k's sort and everything read from it: DeLong's placements, and (probabilities) the
    runs of equal scores, their CORP fit and the per-bin sums of the debiased ECE — one task
    per model, run side by side."""
    ranked = rank_model(models.rank(k), models.y, models.w)
    if not models.probabilistic:
        return ranked, None, None, None
    ps = sorted_probabilities(models.data[k], ranked)
    runs = runs_of(models.data[k], ranked, ps)
    return ranked, runs, corp_fit(runs), sorted_bin_sums(ps, ranked.y, ranked.w, bins)


def compare_of(models: Models, *, level: float, n_resamples: int, random_state: Any, bins: int) -> ModelComparison:
    """The comparison of checked models (see :func:`compare_models`).

    Work plan (what makes ten million rows of two models cost about two sorts): each model's
    sort, placements, CORP fit and per-bin ECE sums (slices of the sorted rows) run as one task
    on the shared pool (numpy releases the GIL while sorting), while this thread reads the rows
    once for the paired Brier and log-loss differences; the DeLong covariance is one more pass
    over the placements.
    """
    y, w = models.y, models.w
    names = models.names
    # too few rows of a class for DeLong's normal law and the bootstrap: those intervals are n/a
    few_rows = _few_rows(models)
    futures = [submit(models.n, _per_model, models, k, bins) for k in range(len(names))]
    data = models.data
    if models.probabilistic:
        skew = skewed_classes(models.y, w)  # few of one class among many: skewed differences
        means, paired = paired_losses(list(data), models.pairs(), w, level, skew=skew)
    done = [f.result() for f in futures]
    ranked = [d[0] for d in done]
    cov = delong_covariance(ranked, y, w)  # symmetric to the bit (core._delong), so swapping A and B mirrors
    identical = {pair: any(f"{names[pair[0]]!r} and {names[pair[1]]!r}" in t for t in models.notes)
                 for pair in models.pairs()}
    # every pair identical: their intervals are the exact [0, 0], shown; a note "shown n/a" contradicted them
    few_rows_shown = few_rows if not all(identical.values()) else ""
    rows: list[ComparisonRow] = []
    corp: dict[str, CORPResult] = {}
    diffs: list[CORPDifference] = []
    verdicts: list[str] = []
    if not models.probabilistic:
        for i, j in models.pairs():
            e = _gated(delong_test(ranked, cov, i, j, level), few_rows)
            rows.append(_row(names, i, j, "auc", ranked[i].auc, ranked[j].auc, e))
            verdicts.append(_auc_verdict(rows[-1], identical[(i, j)], few_rows))
        return ModelComparison(models=names, rows=tuple(rows), corp={}, corp_differences=(), verdicts=tuple(verdicts),
                               n=models.n, level=level, n_resamples=0, random_state=random_state, bins=bins,
                               score_type=models.score_type,
                               notes=models.notes + _few_rows_note(few_rows_shown, False),
                               readings=tuple((identical[p], False, few_rows) for p in models.pairs()),
                               n_effective=None if w is None else kish_size(w))
    runs = [d[1] for d in done]
    for k, name in enumerate(names):
        fitted = corp_result(done[k][2], float(means[k, 0]), float(means[k, 1]), models.n)
        # the curve's weights in the caller's units (extreme weights are scaled by 2^k on the way in: weights
        # of 1e-300 read 0.67 a point)
        corp[name] = replace(fitted, weight=sums_in_user_units(fitted.weight, data[k].weight_scale))
    resample = bool(n_resamples) and not few_rows  # too few rows of a class: no bootstrap interval to draw
    row_keys = np.random.default_rng(0x0C0_4B).integers(0, 2**63, size=models.n, dtype=np.uint64) \
        if resample else None  # one random key per row: which PAV blocks two fits share
    overfit = [overfit_bound(runs[k], done[k][2], row_keys) for k in range(len(names))]
    bin_sums = np.stack([d[3] for d in done])
    ece = debiased_l1(bin_sums[:, 0], bin_sums[:, 1], bin_sums[:, 2], bin_sums[:, 3])
    boot = PairedBootstrap(list(data), runs if resample else None, bins=bins)
    samples = boot.run(n_resamples, random_state) if resample else {}
    nan = float("nan")
    # too few resamples to place the ends at this level: no bootstrap interval (n/a), not the extreme
    # resamples (1 resample gave MCB [+0.0028, +0.0167], a 0 % interval that read as significant)
    few = bool(_few_resamples(n_resamples, level))
    for i, j in models.pairs():
        for t, metric in enumerate(("brier", "log_loss")):
            rows.append(_row(names, i, j, metric, means[i, t], means[j, t], paired[(i, j)][t]))
        diff = float(ece[j] - ece[i])
        if samples:
            low, high, p = ece_difference_interval(diff, samples["ece"][:, j] - samples["ece"][:, i],
                                                   bin_sums[i], bin_sums[j], level)
            se = float(np.std(samples["ece"][:, j] - samples["ece"][:, i], ddof=1)) if n_resamples > 1 else nan
            if few:
                low = high = nan
        else:
            low = high = p = se = nan
        if identical[(i, j)]:
            diff, low, high, p, se = 0.0, 0.0, 0.0, 1.0, 0.0
        rows.append(_row(names, i, j, "ece", float(ece[i]), float(ece[j]), Estimate(diff, se, low, high, p)))
        rows.append(_row(names, i, j, "auc", ranked[i].auc, ranked[j].auc,
                         _gated(delong_test(ranked, cov, i, j, level), few_rows)))
        dec: ScoreDecomposition = difference(corp[names[i]], corp[names[j]])
        if identical[(i, j)]:
            mcb_low = mcb_high = dsc_low = dsc_high = 0.0
            mcb_p = dsc_p = 1.0 if samples or (n_resamples and few_rows) else nan
        elif samples:
            # the PAV blocks both fits share (all of them for one ranking: a recalibration) overfit alike
            beta_a, beta_b = unshared_overfit(overfit[i], overfit[j])
            mcb_low, mcb_high, mcb_p = overfit_interval(dec.mcb, samples["mcb"][:, j] - samples["mcb"][:, i],
                                                        beta_a, beta_b, level)
            dsc_low, dsc_high, dsc_p = overfit_interval(dec.dsc, samples["dsc"][:, j] - samples["dsc"][:, i],
                                                        beta_a, beta_b, level)
            if dec.dsc == 0.0 and same_ranking(ranked[i], ranked[j]):
                # one order of the scores (a recalibration): one PAV fit, ΔDSC exactly 0 and ΔMCB the Brier
                # difference itself, so its interval and p-value are the Brier row's (paired t) — a second,
                # bootstrap interval of the same number read "better calibrated" beside a Brier row within
                # noise (and the other way) in 2-3 % of seeded draws of 150-1,000 rows
                brier = next(r for r in rows[-4:] if r.metric == "brier")  # the pair's, appended above
                mcb_low, mcb_high, mcb_p = brier.ci_low, brier.ci_high, brier.p_value
            if few:
                mcb_low = mcb_high = dsc_low = dsc_high = nan
        else:
            mcb_low = mcb_high = mcb_p = dsc_low = dsc_high = dsc_p = nan
        diffs.append(CORPDifference(names[i], names[j], dec.score, dec.mcb, dec.dsc, dec.unc, mcb_low, mcb_high,
                                    dsc_low, dsc_high, mcb_p, dsc_p))
        brier_row = next(r for r in rows if r.metric == "brier" and r.model_a == names[i] and r.model_b == names[j])
        auc_row = rows[-1]  # the pair's AUC row (DeLong), appended just above
        verdicts.append(_verdict(diffs[-1], brier_row, identical[(i, j)], few=few, few_rows=few_rows,
                                 auc=auc_row, others=tuple(rows[-3:-1]),  # the log-loss and ECE rows
                                 corp=corp))
    # Kish effective size below 2 (one row carries nearly all the weight): the paired t intervals are n/a too;
    # else an n/a one is a difference the same on every row (._paired.flat_estimate)
    t_na, flat = t_na_or_flat(rows, no_t_interval(models.n, *weight_sums(w, models.n)[:2]))
    return ModelComparison(models=names, rows=tuple(rows), corp=corp, corp_differences=tuple(diffs),
                           verdicts=tuple(verdicts), n=models.n, level=level, n_resamples=n_resamples,
                           random_state=random_state, bins=bins, score_type=models.score_type,
                           notes=(models.notes + _few_resamples(n_resamples, level)
                                  + _few_rows_note(few_rows_shown, True, t_na, all_flat(rows, flat))
                                  + flat_note(flat)
                                  + (_short_t_note(models) + _skew_note(models)
                                     if not all(identical.values()) else ())),
                           readings=tuple((identical[p], few, few_rows) for p in models.pairs()),
                           n_effective=None if w is None else kish_size(w))


def no_t_interval(n: int, total: float, total_sq: float) -> bool:
    """Whether no paired t interval can be read on these rows: fewer than 2, or a Kish effective size below 2
    (:func:`veracity.core._paired_mean.student_df` is NaN)."""
    df = student_df(n, total, total_sq)
    return df != df


def t_na_or_flat(rows: list[ComparisonRow], no_t: bool) -> tuple[bool, list[ComparisonRow]]:
    """``(t_na, flat)``: whether the Brier and log-loss intervals are n/a for want of rows (``no_t``:
    :func:`no_t_interval`), and else the rows whose interval is n/a because every row's difference is
    the same nonzero value (:func:`._paired.flat_estimate`)."""
    na = [r for r in rows if r.metric in ("brier", "log_loss") and r.ci_low != r.ci_low and r.diff != 0.0]
    return (bool(na), []) if no_t else (False, na)


def flat_note(flat: list[ComparisonRow]) -> tuple[str, ...]:
    """The note under rows whose every per-row difference is the same nonzero value
    (:func:`._paired.flat_estimate`): a t interval of no width would "exclude 0" from two rows, so it is
    n/a and calls no model better."""
    if not flat:
        return ()
    shown = ", ".join(f"{_LEVELS_ONE[r.metric]} {r.model_b} - {r.model_a} {_sf(r.diff, decimals(r.diff))}"
                      for r in flat)
    return (f"every row's difference is the same ({shown}): on these rows the models differ alike wherever "
            "they differ (hard 0/1 predictions, or scores c and 1 - c, say), and a t interval would have no "
            "width and 'exclude 0' from two rows; what the rows not seen would give is unknown, so that "
            "interval and p-value are n/a and no model is called better by it",)


def all_flat(rows: list[ComparisonRow], flat: list[ComparisonRow]) -> bool:
    """Whether every Brier and log-loss row not of identical losses is one of ``flat`` (and some is)."""
    shown = [r for r in rows if r.metric in ("brier", "log_loss") and not (r.diff == 0.0 and r.se == 0.0)]
    return bool(flat) and len(flat) == len(shown)


#: a row's metric in :func:`flat_note`
_LEVELS_ONE = {"brier": "Brier", "log_loss": "log loss"}


def _gated(e: Estimate, few_rows: str) -> Estimate:
    """DeLong's estimate on too few rows of a class (:data:`MIN_CLASS_ROWS`): its interval, p-value and
    standard error n/a — all three read the normal law refused there (an SE beside an n/a interval claimed a
    precision the row denies); the point estimate stays, and so does an exact 0 (the same ranking:
    ``(0, 0, 0, 0, 1)``)."""
    if not few_rows or (e.value == 0.0 and e.se == 0.0):
        return e
    nan = float("nan")
    return replace(e, se=nan, low=nan, high=nan, p_value=nan)


def _few_rows(models: Models) -> str:
    """How many rows of each class, when a class has fewer than :data:`MIN_CLASS_ROWS` (weighted: by its Kish
    effective size) — "3 positive and 397 negative rows" — else "" (:func:`veracity.core._delong.few_class_rows`)."""
    return few_class_rows(models.y, models.w)


#: what the note under too few rows of a class says of the paired t intervals (Brier, log loss), which are
#: shown: the seeded draws of the comment above :data:`NoSuchRow`
FEW_T_ROWS = ("are shown but run short with so few of a class: where two models differed, the true "
              "difference lay beyond one end of the 95% interval in 5-11% of seeded draws (22% in the worst "
              "design; 2.5% is nominal), though two equally good models were called different no more often "
              "than the level allows")


def _few_rows_note(few_rows: str, probabilistic: bool, t_na: bool = False,
                   all_flat: bool = False) -> tuple[str, ...]:
    """The note under a comparison on too few rows of a class (:data:`MIN_CLASS_ROWS`), or none. ``t_na``:
    the paired t intervals are n/a too (the rows' Kish effective size is below 2), so the note says that
    instead of how they run short (:data:`FEW_T_ROWS`); ``all_flat``: they are all n/a as differences the
    same on every row (:func:`flat_note` says why)."""
    if not few_rows:
        return ()
    if probabilistic:
        which, need = "AUC, ECE, MCB and DSC differences", "DeLong's test and the paired bootstrap need"
        t_says = "are n/a too: one row carries nearly all the weight (Kish effective size below 2)"
        if all_flat:
            t_says = "are n/a too: every row's difference is the same (below)"
        tail = f"; the Brier and log-loss intervals (paired t) {t_says if t_na or all_flat else FEW_T_ROWS}"
    else:
        which, need, tail = "AUC difference", "DeLong's test needs", ""
    return (f"too few rows of a class for the intervals of the {which} ({few_rows}; {need} at least "
            f"{MIN_CLASS_ROWS} of each): shown n/a, no p-value, none called significant{tail}",)


def _short_t_note(models: Models) -> tuple[str, ...]:
    """The note under a comparison whose rarer class holds :data:`MIN_CLASS_ROWS` to :data:`SHORT_T_ROWS`
    rows (weighted: Kish effective size), where the paired t intervals of the Brier and log-loss differences
    run short (the measured tails, :data:`SHORT_T_TAILS`), or none."""
    size1, size0 = class_sizes(models.y, models.w)
    least = min(size1, size0)
    if not MIN_CLASS_ROWS * (1.0 - 1e-9) <= least < SHORT_T_ROWS * (1.0 - 1e-9):
        return ()
    brier, log_loss, worst = SHORT_T_TAILS
    if models.w is None:
        rows = f"{int(size1):,} positive and {int(size0):,} negative rows"
    else:
        rows = f"Kish effective sizes {size1:.1f} positive and {size0:.1f} negative of the weighted rows"
    return (f"few rows of a class for the Brier and log-loss intervals (paired t; {rows}: fewer than "
            f"{SHORT_T_ROWS} of a class): they run short — where two models differed, the true difference lay "
            f"beyond one end of the 95% interval in {brier} (Brier) and {log_loss} (log loss) of seeded draws "
            f"with {MIN_CLASS_ROWS}-{SHORT_T_ROWS - 1} of a class, pooled over designs ({worst} in the worst; "
            "2.5% is nominal)",)


def _skew_note(models: Models) -> tuple[str, ...]:
    """The note under a comparison with fewer than :data:`SHORT_T_ROWS` rows of one class among at least that
    many of the other (:func:`veracity.core._paired_mean.skewed_classes`), whose Brier and log-loss verdicts
    are skew-guarded (:data:`~veracity.core._paired_mean.SKEW_SAYS`), or none."""
    rows = skew_note(models.y, models.w)
    return (f"{rows.split(':')[0]}: the Brier and log-loss differences are {SKEW_SAYS}",) if rows else ()


def _few_resamples(n_resamples: int, level: float) -> tuple[str, ...]:
    r"""A note when B resamples cannot place the interval's ends: :math:`(B+1)(1-\text{level})/2 \le 1`
    makes them the smallest and largest resample (a :math:`1 - 2/(B+1)` interval, whatever the level),
    and no p-value can fall below the level (:func:`._resample.percentile`)."""
    need = fewest_resamples(n_resamples, level)
    if need is None:
        return ()
    alpha = round(1.0 - level, 12)
    return (f"{n_resamples} resample{'s are' if n_resamples > 1 else ' is'} too few for {level * 100:g}% bootstrap "
            f"intervals, which are not shown (n/a): their ends would be the smallest and largest resampled value "
            f"(a {100 * (1 - 2 / (n_resamples + 1)):.1f}% interval), and no p-value can fall below "
            f"{alpha:g} (1 - level); pass n_resamples of at least {need} (200 to 2,000 is usual)",)


def _row(names: tuple[str, ...], i: int, j: int, metric: str, va: float, vb: float, e: Estimate) -> ComparisonRow:
    return ComparisonRow(names[i], names[j], metric, float(va), float(vb), float(e.value), float(e.low),
                         float(e.high), float(e.p_value), float(e.se), METHODS[metric])


_key_order = key_order  # the slices' one order on every backend (veracity.sources)


def compare_models(
    data: Any,
    labels: Any = None,
    *,
    scores: Any = None,
    label: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
    n_resamples: int = 200,
    random_state: Any = None,
    bins: int = 15,
    by: Any = None,
    min_count: int = 0,
) -> ModelComparison:
    r"""Paired, calibration-aware comparison of two or more models scored on the same rows.

    Array form: ``compare_models({"A": scores_a, "B": scores_b}, labels)``; frame form:
    ``compare_models(frame, scores=["A", "B"], label="y")`` (every frame ``vc.audit`` reads; a
    lazy one is read once, in one projection of the named columns only, since the paired tests
    pair every row — see :mod:`veracity.comparison._inputs`). For every
    pair (A, B) in the order given: Brier, log loss, debiased ECE and AUC of each model and
    ``diff = B - A`` with a paired interval at ``level`` and a p-value (H0: no difference) —
    paired t (Diebold–Mariano with Student's t on n − 1 degrees of freedom; weighted, Kish's
    effective size − 1: :mod:`veracity.comparison._paired`) for Brier and log loss, DeLong for AUC, a paired
    Poisson bootstrap (``n_resamples``, ``random_state``: None is the fixed seed 0) for ECE — plus the CORP
    decomposition of each model and of the difference and a one-line verdict. See
    :mod:`veracity.comparison._compare`.

    ``score_type="score"`` (rankings without a probability reading) compares AUC only.
    ``by`` (an array of keys, or a column name in the frame form) adds one comparison per
    slice in ``.groups``, read with the false-discovery rate controlled across the slices: each slice row's
    ``q_value`` is the Benjamini–Hochberg q-value of its ``p_value`` over the slices (per pair and metric;
    ΔMCB and ΔDSC too, ``mcb_q``, ``dsc_q``), its ``reading`` is "better"/"worse" (B against A) only where
    q ≤ 1 − level, and the slices' verdicts read those q-values, not each slice's own interval (with 8,600
    slices at 5 %, about 430 differences read "better" or "worse" by chance). ``min_count``: a slice of
    fewer rows is not tested, only listed (``.too_small``). With more than 20 slices, the printout shows
    only those read beyond noise (``.groups`` keeps them
    all). ``n_resamples=0`` skips the bootstrap (ECE and CORP differences
    then have no interval, and the verdict reads the Brier interval alone). Below :data:`MIN_CLASS_ROWS`
    (10) rows of a class — weighted, the class's Kish effective size — the AUC, ECE, MCB and DSC differences
    have no interval or p-value either (their sampling law is degenerate there; a note says so, and the
    verdict reads the Brier interval alone).

    >>> r = compare_models({"a": [.1, .4, .35, .8, .7, .2], "b": [.2, .6, .3, .9, .6, .1]},
    ...                    [0, 1, 0, 1, 1, 0], n_resamples=0)
    >>> [(row.metric, round(row.diff, 4)) for row in r.rows]
    [('brier', -0.0321), ('log_loss', -0.0739), ('ece', -0.0417), ('auc', 0.0)]
    """
    level = check_level(level)
    n_resamples = check_count(n_resamples, "n_resamples", 0)
    if n_resamples > MAX_RESAMPLES:  # one row of results per resample: refused before allocating them
        raise VeracityError(f"n_resamples={n_resamples:,} is too many: at most {MAX_RESAMPLES:,} (each resample "
                            "is a pass over the rows; 200 to 2,000 is usual); pass e.g. n_resamples=1000",
                            param="n_resamples")
    # a report, not a draw: None is the fixed seed 0, so the same rows print the same comparison (as
    # vc.compare, vc.audit and the command line); a numpy Generator gives fresh resamples
    random_state = 0 if random_state is None else check_seed(random_state)
    check_bins(bins, auto=False)  # at most MAX_BINS: the per-bin sums are allocated per model and resample
    min_count = check_count(min_count, "min_count", 0)
    if min_count and by is None:
        raise VeracityError(f"min_count={min_count} sets the fewest rows of a slice, and there are no "
                            "slices: pass by= too, or drop min_count", param="min_count")
    left_out: list[np.ndarray] = []  # the keys of rows of weight 0 (dropped): a slice of them only is said
    models, keys, by_name = models_of(data, labels, scores=scores, label=label, sample_weight=sample_weight,
                                      pos_label=pos_label, score_type=score_type, by=by,
                                      what="vc.compare_models", left_out=left_out)
    options = {"level": level, "n_resamples": n_resamples, "random_state": random_state, "bins": int(bins)}
    whole = compare_of(models, **options)
    if keys is None:
        return whole
    groups: dict[str, ModelComparison] = {}
    too_small: dict[str, int] = {}
    notes = list(whole.notes)
    listed = _listed_keys(keys)
    ordered = _key_order(list(dict.fromkeys(listed)))
    texts = [key_name(k) for k in ordered]  # as vc.audit names the slice of the same key, on every route
    refuse_shared_names(ordered, texts)  # 1 and '1': refused, as vc.audit and SQL refuse them
    # each row's slice, found once (a dict look-up per key; the missing keys' slice is None, as the inputs
    # turn NaN, NaT and NA into None), and the rows of every slice from one stable sort: the slice's rows
    # by == on all the rows per slice cost n x slices (10,000 slices of 10 rows: 10^9 comparisons)
    index = {k: i for i, k in enumerate(ordered)}
    codes = np.fromiter(map(index.__getitem__, listed), dtype=np.int64, count=len(listed))
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes, minlength=len(ordered)))
    sized = [order[(ends[s - 1] if s else 0):ends[s]] for s in range(len(ordered))]
    # a slice below min_count costs its count only; the others are compared together (._slices: the
    # slices without resamples in one vectorised pass, the rest one at a time)
    tested = [s for s in range(len(ordered)) if sized[s].size >= min_count]
    from ._slices import compare_slices

    results = dict(zip(tested, compare_slices(models, [sized[s] for s in tested], **options)))
    for s, name in enumerate(texts):
        rows = sized[s]
        if s not in results:
            too_small[name] = int(rows.size)
            continue
        result = results[s]
        if isinstance(result, VeracityError):
            count = f"{rows.size:,} row{'s' if rows.size != 1 else ''}"
            notes.append(f"{FAILED_PREFIX}{name} ({count}{FAILED_MARK}{result}")
        else:
            groups[name] = result
    groups = _slice_readings(groups, level)
    notes += _lone_slice_note(groups, n_resamples, level)
    notes += _weightless_note(left_out, set(ordered))
    from dataclasses import replace

    return replace(whole, groups=groups, group_column=by_name, notes=tuple(notes), too_small=too_small,
                   min_count=min_count)


def _listed_keys(keys: np.ndarray) -> list[Any]:
    """The slice keys as Python values: times and durations as their slice names (``tolist()`` hands ns
    times back as ints), float32 keys as the numbers they print as (0.1, not 0.10000000149011612)."""
    if keys.dtype.kind in "mM":
        from ..core._stats import slice_keys

        keys = slice_keys(keys)[0]
    return list(keys) if keys.dtype.kind == "f" and keys.itemsize < 8 else keys.tolist()


def _weightless_note(left_out: list[np.ndarray], kept: set[Any]) -> tuple[str, ...]:
    """The note naming the slices left out because every row of theirs weighs 0 (``left_out``: the keys of
    the rows of weight 0; ``kept``: the slices compared or listed), as ``vc.audit`` names them — such a
    slice was in neither ``.groups``, ``.too_small`` nor the notes, and read as a slice the data lacks."""
    if not left_out or not left_out[0].size:
        return ()
    from collections import Counter

    counts = Counter(_listed_keys(left_out[0]))  # rows per key, counted in C (no Python loop over rows)
    gone = [k for k in _key_order(list(counts)) if k not in kept]
    if not gone:
        return ()
    named = ", ".join(f"{key_name(k)} ({counts[k]:,} row{'s' if counts[k] != 1 else ''})" for k in gone[:5])
    more = f", ... ({len(gone):,} in all)" if len(gone) > 5 else ""
    return (f"slice{'s' if len(gone) != 1 else ''} left out, every row weighing 0: {named}{more}",)


def _lone_slice_note(groups: dict[str, ModelComparison], n_resamples: int, level: float) -> tuple[str, ...]:
    r"""A note when the slices' bootstrap differences (ΔECE, ΔMCB, ΔDSC) cannot be read beyond noise in a
    slice of its own: a bootstrap p-value is at least :math:`2/(B+1)`, so across m slices with a bootstrap
    the Benjamini–Hochberg q-value of the one slice that differs is at least :math:`2m/(B+1)`; above
    1 − level none can be found unless many slices differ together (k slices at the floor:
    :math:`2m/(k(B+1))`).
    With 200 resamples and 41 slices a slice whose own ΔDSC interval excluded 0 read "q = 0.8119 ... no more
    than noise across the slices" — a want of resamples, not evidence of no difference."""
    alpha = 1.0 - level
    # the slices with a bootstrap p-value, as the q-values count them (m: n/a p-values are no test)
    tested = sum(any(d.dsc_p == d.dsc_p for d in g.corp_differences) for g in groups.values())
    floor = 2.0 / (n_resamples + 1) if n_resamples else float("nan")
    # too few resamples for any interval: the note of _few_resamples says it already
    if tested < 2 or not tested * floor > alpha + 1e-12 or fewest_resamples(n_resamples, level) is not None:
        return ()
    need = int(np.ceil(2.0 * tested / alpha - 1.0))
    return (f"with {n_resamples:,} resamples a bootstrap p-value is at least {floor:.4g}, so across the "
            f"{tested:,} slices with a bootstrap the q-value of one slice's ECE, MCB or DSC difference is at "
            f"least {min(tested * floor, 1.0):.4g} (above {alpha:g}): those differences are read beyond "
            f"noise only where many slices differ together, not in a slice of its own; pass n_resamples of "
            f"at least {need:,} to find one slice's",)


#: the differences a slice's verdict reads, by the name :func:`_verdict` gives them: (row metric or CORP part)
READ = ("brier", "log_loss", "ece", "auc", "mcb", "dsc")


def _reading(metric: str, diff: float, q: float, alpha: float) -> str:
    """A slice row's reading: "better" or "worse" (B against A: lower Brier, log loss and ECE, higher AUC)
    where its q-value is at most ``alpha``, "within noise" above, "n/a" without one."""
    if q != q:
        return "n/a"
    if q > alpha or diff == 0:
        return "within noise"
    return "better" if (diff > 0) == (metric == "auc") else "worse"


def _slice_readings(groups: dict[str, ModelComparison], level: float) -> dict[str, ModelComparison]:
    r"""The slices read with the false-discovery rate controlled across them (Benjamini & Hochberg 1995):
    for each pair and each difference (Brier, log loss, ΔECE, ΔAUC, ΔMCB, ΔDSC) the p-values of the tested
    slices get q-values :math:`q_{(i)} = \min_{j \ge i} m\,p_{(j)}/j` (m: the slices with a p-value; an n/a
    p-value is no test), a row's ``reading`` is "better"/"worse" only where q ≤ α = 1 − level, and each
    slice's verdict is read again with those q-values (:func:`_verdict`'s ``q``). Among the slices read
    "better" or "worse" for one difference, the expected share of false ones is then at most α
    (independent or positively dependent slices; disjoint slices of independent rows are independent)."""
    from ..segments._tests import bh_qvalues

    if not groups:
        return groups
    alpha = 1.0 - level
    keys = list(groups)
    first = groups[keys[0]]
    pairs = first._pairs
    # each (pair, difference)'s column of the p-value matrix, found by a dict look-up (thousands of slices)
    col = {(a, b, metric): k * len(READ) + READ.index(metric)
           for k, (a, b) in enumerate(pairs) for metric in READ}
    # p-values: slice x (pair, difference); a slice lacks none (every slice compares every pair and metric)
    p = np.full((len(keys), len(pairs) * len(READ)), np.nan)
    for s, key in enumerate(keys):
        g = groups[key]
        for r in g.rows:
            p[s, col[(r.model_a, r.model_b, r.metric)]] = r.p_value
        for d in g.corp_differences:
            p[s, col[(d.model_a, d.model_b, "mcb")]] = d.mcb_p
            p[s, col[(d.model_a, d.model_b, "dsc")]] = d.dsc_p
    q_all = bh_qvalues(p).tolist()
    out: dict[str, ModelComparison] = {}
    for s, key in enumerate(keys):
        g = groups[key]
        q_s = q_all[s]
        rows = []
        for r in g.rows:  # the row with its q-value and reading (a new frozen row, built directly)
            q_r = q_s[col[(r.model_a, r.model_b, r.metric)]]
            rows.append(ComparisonRow(r.model_a, r.model_b, r.metric, r.value_a, r.value_b, r.diff, r.ci_low,
                                      r.ci_high, r.p_value, r.se, r.method, q_r,
                                      _reading(r.metric, r.diff, q_r, alpha)))
        diffs = tuple(replace(d, mcb_q=q_s[col[(d.model_a, d.model_b, "mcb")]],
                              dsc_q=q_s[col[(d.model_a, d.model_b, "dsc")]]) for d in g.corp_differences)
        verdicts = []
        for k, (a, b) in enumerate(g._pairs):
            identical, few, few_rows = g.readings[k]
            pair = {r.metric: r for r in rows if (r.model_a, r.model_b) == (a, b)}
            qs = {m: q_s[col[(a, b, m)]] for m in READ}
            if not diffs:
                verdicts.append(_auc_verdict(pair["auc"], identical, few_rows, qs["auc"], alpha))
                continue
            verdicts.append(_verdict(diffs[k], pair["brier"], identical, few=few, few_rows=few_rows,
                                     auc=pair["auc"], q=qs, alpha=alpha,
                                     others=(pair["log_loss"], pair["ece"]), corp=g.corp))
        out[key] = replace(g, rows=tuple(rows), corp_differences=diffs, verdicts=tuple(verdicts))
    return out
