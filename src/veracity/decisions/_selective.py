r"""Selective prediction (abstention): answer only when confident enough.

Seed 000 names it as the next step after calibration: refuse to answer below a
confidence threshold and trade coverage (the share answered) for selective risk
(the error rate among the answered).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from ..core._special import expit

from ..core._intervals import binomial_interval
from ..core._options import ScoreType
from ..core._text import count_noun, fmt, fmt_count, render_table
from ..core._validation import (
    LOGIT_CHECK_MIN_ROWS,
    VeracityError,
    as_float_array,
    check_binary_labels,
    check_logit_scale,
    check_probabilities,
    check_same_index,
    check_score_type,
    check_weights,
    prepare_top_label,
    refuse_pos_label_for_multiclass,
    to_numpy,
)
from ._inputs import (caller_level, check_target, compared_thresholds, in_caller_units, in_precision,
                      narrow_float, weight_shift)
from ._table import point_aligned, threshold_cell
from ..core._display import Display, fmt_weight, html_note, html_page, html_table
from ..core._frameform import rows_form
from ..core._weights import sandwich_size

READINGS = ("top-label", "confidence")

#: Default candidate thresholds for confidences in [0, 1]: fixed before seeing any
#: data (required for the guarantee): 0.00, 0.01, …, 1.00 and 1 − 10^(−x) for
#: x = 2.0, 2.1, …, 6.0 to resolve very confident models.
DEFAULT_CANDIDATES = np.unique(
    np.concatenate([np.round(np.linspace(0.0, 1.0, 101), 10), 1.0 - 10.0 ** -np.linspace(2.0, 6.0, 41)])
)


def _confidence_correct(
    scores: Any, labels: Any, *, sample_weight: Any, score_type: str, reading: str,
    pos_label: Any = None, what: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.dtype | None]:
    r"""(confidence, correct 0/1, weights, precision) for the chosen reading.

    The precision is the scores' float dtype when narrower than float64 (:func:`._inputs.narrow_float`),
    else None. Confidences are then held in it (:func:`._inputs.in_precision`): the scores' own values
    (``reading="confidence"``, the top entry of (N, K) probabilities) stay as they are; those computed
    from them — :math:`\max(p, 1-p)`, expit or softmax of logits — are computed in float64 and rounded
    once to that dtype, as a float32 pipeline holds them (``np.maximum(p32, 1 - p32)`` bit for bit).
    ``what`` names the caller in the refusal of a ranking score ("this function reads ..." named none)."""
    check_score_type(score_type, what=what)
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)  # never paired by position
    if reading not in READINGS:
        raise VeracityError(f"reading must be 'top-label' or 'confidence', got {reading!r}", param="reading")
    raw = to_numpy(scores, "scores")  # once: its dtype is the precision confidences are compared in
    dtype = narrow_float(raw)
    s = as_float_array(raw, "scores")
    if reading == "confidence":
        if s.ndim != 1:
            raise VeracityError(
                f"with reading='confidence' scores must be 1-D confidences, got shape {s.shape}"
            )
        if score_type == "probability":
            check_probabilities(s)
        else:  # probabilities declared as logits: refused, as by every reader of logits
            check_logit_scale(s, min_rows=LOGIT_CHECK_MIN_ROWS)
        y = check_binary_labels(labels, s.shape[0], pos_label)
        return s, y, check_weights(sample_weight, s.shape[0]), dtype
    if s.ndim == 2 and s.shape[1] > 1:
        refuse_pos_label_for_multiclass(pos_label, s.shape[1])
        d = prepare_top_label(s, labels, sample_weight=sample_weight, score_type=score_type)
        return in_precision(d.p, dtype), d.y, d.w, dtype  # softmax of float32 logits: rounded to float32
    s = s.reshape(-1) if s.ndim == 2 else s
    if s.ndim != 1:
        raise VeracityError(f"scores must be 1-D or (N, K), got shape {s.shape}", param="scores")
    if score_type == "logit":
        check_logit_scale(s, min_rows=LOGIT_CHECK_MIN_ROWS)  # probabilities declared as logits: refused
        p = expit(s)
    else:
        check_probabilities(s)
        p = s
    y = check_binary_labels(labels, s.shape[0], pos_label)
    w = check_weights(sample_weight, s.shape[0])
    pred = (p >= 0.5).astype(np.float64)
    return in_precision(np.maximum(p, 1.0 - p), dtype), (pred == y).astype(np.float64), w, dtype


@dataclass(frozen=True, eq=False, repr=False)
class RiskCoverage(Display):
    r"""Risk–coverage curve: one point per distinct confidence, most confident first.

    Answering the rows with confidence ``>= thresholds[j]`` covers ``coverage[j]``
    of the rows (weight) with selective risk ``risk[j]`` = errors / answered; ``n`` is the
    number of rows, or with ``sample_weight`` their total weight (``weighted``).
    ``aurc`` is the area under the step curve,
    :math:`\sum_j \mathrm{risk}_j\,(\mathrm{cov}_j - \mathrm{cov}_{j-1})`, which without
    ties equals :math:`\frac1N \sum_{i=1}^N \mathrm{risk}(i/N)` (Geifman et al. 2019).

    ``score_dtype`` is the precision the confidences are held and compared in: ``"float64"``, or
    ``"float32"`` (``"float16"``) for scores of that dtype — every threshold is then one of those values,
    and ``conf32 >= t`` in numpy answers the rows the curve counts (:func:`risk_coverage`).
    """

    thresholds: np.ndarray
    coverage: np.ndarray
    risk: np.ndarray
    accepted: np.ndarray
    errors: np.ndarray
    aurc: float
    n: float
    weighted: bool = False
    score_dtype: str = "float64"

    @property
    def _dtype(self) -> np.dtype | None:
        """The precision the thresholds are compared in, None for float64 (:func:`threshold_cell`)."""
        return None if self.score_dtype == "float64" else np.dtype(self.score_dtype)

    def _compared(self) -> str:
        """The note a float32 curve carries (nothing for float64): its cut-offs are compared in float32."""
        return "" if self._dtype is None else f"; compared in {self.score_dtype} as the scores are"

    def risk_at(self, coverage: float) -> float:
        """Selective risk at the first curve point whose coverage reaches ``coverage`` (in [0, 1])."""
        try:
            c = float(coverage)
        except (TypeError, ValueError):
            c = float("nan")
        if not 0.0 <= c <= 1.0:
            raise VeracityError(f"coverage must be a share of the rows in [0, 1], e.g. 0.8; got {coverage!r}",
                                param="coverage")
        j = int(np.searchsorted(self.coverage, c - 1e-12, side="left"))
        return float(self.risk[min(j, self.risk.shape[0] - 1)])

    def _grid(self) -> list[int]:
        idx = np.searchsorted(self.coverage, np.linspace(0.1, 1.0, 10) - 1e-12, side="left")
        return sorted(set(int(min(i, self.coverage.shape[0] - 1)) for i in idx))

    def to_dict(self) -> dict[str, Any]:
        m = self.coverage.shape[0]
        keep = np.arange(m) if m <= 1000 else np.unique(np.linspace(0, m - 1, 1000).round().astype(int))
        return {
            "n": self.n,
            "aurc": self.aurc,
            "points": len(self.coverage),
            "score_dtype": self.score_dtype,
            "curve": [
                {"threshold": float(self.thresholds[i]), "coverage": float(self.coverage[i]),
                 "risk": float(self.risk[i]), "accepted": float(self.accepted[i]),
                 "errors": float(self.errors[i])}
                for i in keep
            ],
        }

    def _count(self, x: float) -> str:
        """A count of rows, or with weights a weight sum read at 12 digits (:func:`fmt_weight`): 100 rows
        weighing 0.1 answered print "10" whatever the last bit of their sum (it printed "10.0" on a
        9.999999999999998)."""
        return fmt_weight(x) if self.weighted else fmt_count(x)

    def _title(self) -> str:
        return (f"Risk–coverage curve: {self._count(self.n)} {self._what()}, "
                f"{count_noun(len(self.coverage), 'curve point')}, "
                f"AURC {self.aurc:.4f}{self._compared()}")

    def _repr_html_(self) -> str:
        rows = [{"answer if conf >=": threshold_cell(self.thresholds[i], self._dtype),
                 "coverage": float(self.coverage[i]),
                 "risk": float(self.risk[i]), "answered": float(self.accepted[i]), "errors": float(self.errors[i])}
                for i in self._grid()]
        return html_page(self._title(), [html_table(rows), html_note(
            f"the curve at coverage 10 %, 20 %, … 100 %; to_frame() has all {len(self.coverage):,} points")],
            str(self))

    def __str__(self) -> str:
        grid = self._grid()
        # every digit a cut-off needs (0.9945 is not 1 - 0.0055 = 0.9945000000000001), points aligned
        cells = point_aligned([threshold_cell(self.thresholds[i], self._dtype) for i in grid])
        body = [
            [cell, fmt(self.coverage[i]), fmt(self.risk[i]), self._count(self.accepted[i]),
             self._count(self.errors[i])]
            for cell, i in zip(cells, grid)
        ]
        table = render_table(["answer if conf >=", "coverage", "risk", "answered", "errors"], body)
        points = f"{count_noun(len(self.coverage), 'curve point')}{self._compared()}"
        return f"{table}\n({self._count(self.n)} {self._what()}, {points})   AURC {self.aurc:.4f}"

    def _what(self) -> str:
        """What ``n`` counts: the weight, or the rows in the number the count takes ("1 rows" was said)."""
        return "weight" if self.weighted else "row" if self.n == 1 else "rows"


@rows_form
def risk_coverage(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    sample_weight: Any = None,
    score_type: ScoreType = "probability",
    reading: str = "top-label",
    pos_label: Any = None,
) -> RiskCoverage:
    r"""Risk–coverage curve and its area (AURC) for abstaining below a confidence.

    ``reading="top-label"`` (default): (N, K) scores are read as the top class with
    confidence :math:`\max_k p_k` and error :math:`\arg\max_k p_k \ne y`; 1-D binary
    probabilities *p* predict ``p >= 0.5`` with confidence :math:`\max(p, 1-p)`.
    ``reading="confidence"``: the scores already are confidences and ``labels`` are
    1 for a correct answer, 0 for a wrong one. ``pos_label`` names the positive class of
    two-valued binary labels (with ``reading="confidence"``: the value meaning "correct").
    ``score_type="logit"`` scores are converted as everywhere in veracity — expit for 1-D,
    softmax for (N, K) — so in the top-label reading the confidences and ``thresholds`` are
    probabilities; with ``reading="confidence"`` logit confidences stay logits (and so do the
    thresholds). Declared logits that all lie in [0, 1] are refused (they look like probabilities).

    **Precision.** Confidences are compared as numpy compares ``conf >= t`` for a Python float ``t``:
    in the scores' own precision. Float32 (float16) scores give float32 confidences — the scores
    themselves, the top entry of (N, K) probabilities, or :math:`\max(p, 1-p)`, expit or softmax
    computed in float64 and rounded once to float32, as ``np.maximum(p32, 1 - p32)`` holds them — so
    every ``thresholds[j]`` is a float32 value, printed with the digits that name it in float32, and
    ``conf32 >= thresholds[j]`` answers the rows the curve counts; ``score_dtype`` says which.

    >>> rc = risk_coverage([.9, .8, .7, .6], [1, 1, 0, 1], reading="confidence")
    >>> rc.coverage.tolist(), rc.risk.tolist(), round(rc.aurc, 4)
    ([0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 0.3333333333333333, 0.25], 0.1458)
    """
    conf, correct, w, dtype = _confidence_correct(
        scores, labels, sample_weight=sample_weight, score_type=score_type, reading=reading,
        pos_label=pos_label, what="vc.risk_coverage",
    )
    shift = weight_shift(sample_weight, w)  # answered/errors are weight sums in the caller's units
    if w is not None and not w.all():  # a row of weight 0 is a dropped row: no curve point of its own
        conf, correct, w = conf[w > 0], correct[w > 0], w[w > 0]
    order = np.argsort(-conf, kind="stable")
    c = conf[order]
    err = 1.0 - correct[order]
    ww = np.ones_like(c) if w is None else w[order]
    cum_w = np.cumsum(ww)
    cum_e = np.cumsum(err * ww)
    # last index of every run of equal confidence: ties are answered together
    last = np.flatnonzero(np.append(c[1:] != c[:-1], True))
    accepted = cum_w[last]
    errors = cum_e[last]
    total = float(cum_w[-1])
    coverage = accepted / total
    with np.errstate(invalid="ignore", divide="ignore"):
        risk = np.where(accepted > 0, errors / np.where(accepted > 0, accepted, 1.0), 0.0)
    widths = np.diff(np.concatenate([[0.0], coverage]))
    return RiskCoverage(
        thresholds=c[last], coverage=coverage, risk=risk, accepted=in_caller_units(accepted, shift),
        errors=in_caller_units(errors, shift), aurc=float(np.sum(risk * widths)),
        n=in_caller_units(total, shift), weighted=w is not None,
        score_dtype="float64" if dtype is None else dtype.name,
    )


def _candidates(candidates: Any, *, score_type: str, reading: str) -> np.ndarray:
    """The sorted distinct candidate thresholds, on the scale of the confidences compared with them.

    Confidences are probabilities except with ``reading="confidence"`` and ``score_type="logit"``
    (then they, and the candidates, are logits). In the top-label reading the confidence is a
    probability whatever ``score_type`` (logits pass through expit / softmax first), so candidates
    given beside logits are refused: on the scores' (logit) scale they would silently be read as
    probabilities. Candidates outside [0, 1] for probability confidences are refused too.
    """
    if candidates is None:
        if reading == "confidence" and score_type == "logit":
            raise VeracityError(
                "confidences on a logit scale need explicit candidates=[...] thresholds, "
                "fixed before looking at these data"
            )
        return DEFAULT_CANDIDATES
    cand = np.unique(as_float_array(candidates, "candidates").reshape(-1))
    if reading == "top-label" and score_type == "logit":
        raise VeracityError(
            "with reading='top-label' confidences are probabilities (expit / softmax of the logits), so "
            "candidates=[...] given with score_type='logit' would be read as probabilities: drop candidates= "
            "(the default grid), or pass the probabilities (expit of 1-D logits, softmax of (N, K) ones) with "
            "score_type='probability' and candidates in [0, 1] (expit of logit thresholds)",
            param="candidates")
    if reading == "top-label" or score_type == "probability":
        lo, hi = float(cand[0]), float(cand[-1])
        if lo < 0.0 or hi > 1.0:
            raise VeracityError(
                f"candidates are thresholds on probability confidences and must lie in [0, 1], got {lo:g} to "
                f"{hi:g}: pass probabilities (expit of logit thresholds), e.g. candidates=[0.8, 0.9, 0.95]",
                param="candidates")
    return cand


@dataclass(frozen=True, eq=False, repr=False)
class SelectiveThreshold(Display):
    r"""An abstention threshold with a finite-sample risk guarantee.

    Answer when confidence ``>= threshold``. With probability at least
    :math:`1 - \delta` over the calib draw, the selective risk of this threshold on
    new data from the same distribution is at most ``target_risk``.
    ``threshold`` is ``inf`` (answer nothing) when no candidate could be certified.
    ``n`` counts the calib rows; with unequal ``sample_weight`` ``accepted`` and ``errors`` are
    weight sums (in the caller's units) and ``weight`` is the total calib weight (None unweighted).

    ``score_dtype`` is the precision the confidences were compared in: ``"float64"``, or ``"float32"``
    (``"float16"``) for scores of that dtype, compared with each candidate rounded to it — numpy's own
    ``conf32 >= threshold``. ``threshold`` is the candidate as given (the lowest of those that round to
    one value there); ``candidates`` counts the distinct thresholds tested (Bonferroni's *J*).
    """

    threshold: float
    target_risk: float
    delta: float
    coverage: float
    risk: float
    risk_upper_bound: float
    accepted: float
    errors: float
    n: int
    candidates: int
    certified: int
    feasible: bool
    method: str
    weight: float | None = None
    score_dtype: str = "float64"

    def __float__(self) -> float:
        return float(self.threshold)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def _html_records(self) -> list[dict[str, Any]]:
        # the threshold as the text names it (threshold_cell): the notebook table's 4 decimals printed the
        # cut-off 1 - 10^-4.4 = 0.99996019 as "1.0000"; rows answered and their errors as counts (0 errors
        # printed as a rate, "0.0000")
        dtype = None if self.score_dtype == "float64" else np.dtype(self.score_dtype)
        counts = ({} if self.weight is not None
                  else {"accepted": int(self.accepted), "errors": int(self.errors)})
        return [{**r, "threshold": threshold_cell(self.threshold, dtype), **counts}
                for r in self._frame_records()]

    def __str__(self) -> str:
        if not self.feasible:
            return (f"no threshold certifies risk <= {self.target_risk:g} at delta={self.delta:g} "
                    f"({count_noun(self.n, 'calib row')}, {count_noun(self.candidates, 'candidate')}); "
                    "abstain on everything")
        of = (f"{fmt_count(self.accepted)} of {self.n}" if self.weight is None  # rows
              else f"weight {fmt_weight(self.accepted)} of {fmt_weight(self.weight)}")
        dtype = None if self.score_dtype == "float64" else np.dtype(self.score_dtype)
        compared = "" if dtype is None else f", compared in {self.score_dtype} as the scores are"
        return (
            f"answer if confidence >= {threshold_cell(self.threshold, dtype, decimals=False)}{compared}: "
            f"coverage {self.coverage:.4f} "
            f"({of}), calib risk {self.risk:.4f}, "
            f"{1 - self.delta:g}-confidence upper bound {self.risk_upper_bound:.4f} <= target "
            f"{self.target_risk:g} ({self.method} over {count_noun(self.candidates, 'candidate')}, "
            f"{self.certified} certified)"
        )


@rows_form
def selective_threshold(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    target_risk: float,
    delta: float = 0.1,
    candidates: Any = None,
    score_type: ScoreType = "probability",
    reading: str = "top-label",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> SelectiveThreshold:
    r"""Lowest abstention threshold whose selective risk is certified :math:`\le` ``target_risk``.

    For every candidate threshold :math:`t_j` (:math:`j = 1..J`) count the calib rows
    answered, :math:`n_j = \#\{\mathrm{conf} \ge t_j\}`, and the errors among them,
    :math:`e_j`. Given :math:`n_j` these errors are Binomial(:math:`n_j`, :math:`R(t_j)`),
    so the one-sided Clopper–Pearson bound

    .. math:: U_j = B^{-1}_{1 - \delta/J}(e_j + 1,\; n_j - e_j)

    exceeds the true risk :math:`R(t_j)` with probability :math:`\ge 1 - \delta/J`.
    **Multiple testing: Bonferroni over the J candidates**, so with probability
    :math:`\ge 1-\delta` *every* bound holds at once, and the returned threshold —
    the lowest (largest-coverage) :math:`t_j` with :math:`U_j \le` ``target_risk`` —
    has true risk :math:`\le` ``target_risk``. The candidates must be fixed before
    seeing the data; the default is a fixed grid for confidences in [0, 1]
    (``DEFAULT_CANDIDATES``: 0.00–1.00 by 0.01 plus 1 − 10⁻² … 1 − 10⁻⁶, 141 values).
    When nothing is certified the threshold is ``inf`` (abstain on everything) and a
    warning says so.

    Readings of ``scores``/``labels`` (and ``pos_label``), and of ``score_type="logit"``, as in
    :func:`risk_coverage`. ``candidates`` are on the confidences' scale: probabilities in [0, 1]
    (others are refused), or logits with ``reading="confidence"`` and ``score_type="logit"``
    (which needs them: there is no default grid of logits). In the top-label reading the
    confidence is a probability whatever ``score_type``, so explicit candidates beside logits
    are refused (they would be read as probabilities); pass the probabilities instead.

    ``sample_weight`` weighs the calib rows (a row of weight 0 is a dropped row): coverage,
    risk, ``accepted`` and ``errors`` are weighted, and each bound takes the weighted error
    rate :math:`r = \sum w e / W` over an effective size of the answered rows, the smaller of Kish's
    :math:`W^2 / \sum w^2` and the one their spread gives, :math:`r(1-r)\,W^2 / \sum w^2 (e - r)^2`
    (the sandwich variance of the ratio :math:`r`; Kish's alone assumes weights unrelated to the errors:
    errors weighing 10x the correct rows, as class weights do, had the bound miss the true weighted
    risk in 12.5% of seeded draws at δ = 0.1, 0% with the smaller size) — exact for equal weights
    (which give the unweighted result bit for bit), an approximation otherwise.

    **Precision.** A candidate is compared as numpy compares ``conf >= t`` for a Python float ``t``: in
    the scores' own precision (:func:`risk_coverage`). With float32 (float16) scores row *i* is answered
    at :math:`t_j` when :math:`\mathrm{conf}_i \ge \mathrm{fl}_{32}(t_j)`, the candidate rounded to the
    nearest float32: a confidence float32(0.7) = 0.699999988… is answered at 0.7, as ``conf32 >= 0.7``
    answers it. Candidates that round to one float32 value are one test, counted once in *J* (the
    lowest is kept); the default grid's 141 values stay 141 distinct float32 values (1 − 10⁻⁶ is
    0.999999 there too). ``score_dtype`` says which precision; the printed threshold names the value
    in it. To compare in float64 instead, pass ``scores.astype(np.float64)``.
    """
    target = check_target(target_risk, "target_risk", example=0.05)
    d = check_target(delta, "delta", example=0.1)
    conf, correct, w, dtype = _confidence_correct(
        scores, labels, sample_weight=sample_weight, score_type=score_type, reading=reading,
        pos_label=pos_label, what="vc.selective_threshold",
    )
    shift = weight_shift(sample_weight, w)  # accepted/errors are weight sums in the caller's units
    if w is not None:
        conf, correct, w = conf[w > 0], correct[w > 0], w[w > 0]  # a row of weight 0 is a dropped row
        if w.min() == w.max():
            w, shift = None, 0  # equal weights: only their ratios matter (accepted/errors count rows)
    cand = _candidates(candidates, score_type=score_type, reading=reading)
    tc = compared_thresholds(cand, dtype)  # float32 confidences: conf >= fl32(t), numpy's conf32 >= t
    if dtype is not None:  # candidates equal in that precision are one test: J counts it once
        first = np.append(True, tc[1:] != tc[:-1])  # cand ascending, rounding monotone: equal ones adjacent
        cand, tc = cand[first], tc[first]
    n = conf.shape[0]
    idx = np.argsort(conf, kind="stable")
    order = conf[idx]
    err_sorted = (1.0 - correct)[idx]
    pos = np.searchsorted(order, tc, side="left")
    J = cand.shape[0]
    if d / J < 1e-12:  # each bound's level 1 - delta/J would round to (or near) 1 in floating point
        raise VeracityError(f"delta={delta!r} is too small: Bonferroni over {J} candidates tests each at "
                            f"1 - delta/{J}, which floating point cannot tell from 1; pass delta >= {J * 1e-12:.1g} "
                            "(e.g. 0.1)", param="delta")
    if w is None:
        suffix_err = np.concatenate([np.cumsum(err_sorted[::-1])[::-1], [0.0]])
        accepted = (n - pos).astype(np.float64)
        errors = suffix_err[pos]
        total = float(n)
        _, upper = binomial_interval(errors, accepted, method="clopper-pearson", level=1.0 - d / J, sided="upper")
    else:
        ws = w[idx]

        def suffix(v: np.ndarray) -> np.ndarray:
            return np.concatenate([np.cumsum(v[::-1])[::-1], [0.0]])[pos]

        accepted, errors, sq = suffix(ws), suffix(ws * err_sorted), suffix(ws * ws)
        sq_err, sq_ok = suffix(ws * ws * err_sorted), suffix(ws * ws * (1.0 - err_sorted))
        total = float(w.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(accepted > 0, errors / np.where(accepted > 0, accepted, 1.0), 0.0)
            n_eff = np.where(accepted > 0, accepted * accepted / np.where(sq > 0, sq, 1.0), 0.0)
            # the size the rows' spread gives (the sandwich): Kish's alone assumes weights unrelated to the
            # errors, and errors weighing 10x the correct rows had their bound miss the true weighted risk in
            # 12.5% of draws at delta = 0.1
            n_eff = np.minimum(n_eff, sandwich_size(accepted, rate, sq_err, sq_ok))
            e_eff = rate * n_eff
        _, upper = binomial_interval(np.minimum(e_eff, n_eff), n_eff, method="clopper-pearson",
                                     level=1.0 - d / J, sided="upper")
    upper = np.where(accepted > 0, upper, 1.0)
    ok = np.flatnonzero(upper <= target)
    score_dtype = "float64" if dtype is None else dtype.name
    if ok.size == 0:
        warnings.warn(
            f"no candidate threshold certifies selective risk <= {target:g} at delta={d:g} with "
            f"{count_noun(n, 'calib row')}; abstaining on everything. Use more calib rows, a larger "
            "target_risk or delta",
            stacklevel=caller_level(),
        )
        return SelectiveThreshold(
            threshold=float("inf"), target_risk=target, delta=d, coverage=0.0, risk=0.0,
            risk_upper_bound=float("nan"), accepted=0.0, errors=0.0, n=n, candidates=J, certified=0,
            feasible=False, method="bonferroni", weight=None if w is None else in_caller_units(total, shift),
            score_dtype=score_dtype,
        )
    j = int(ok[0])  # candidates ascending: the lowest certified threshold, the largest coverage
    return SelectiveThreshold(
        threshold=float(cand[j]), target_risk=target, delta=d, coverage=float(accepted[j] / total),
        risk=float(errors[j] / accepted[j]), risk_upper_bound=float(upper[j]),
        accepted=in_caller_units(float(accepted[j]), shift),
        errors=in_caller_units(float(errors[j]), shift), n=n, candidates=J,
        certified=int(ok.size), feasible=True, method="bonferroni",
        weight=None if w is None else in_caller_units(total, shift), score_dtype=score_dtype,
    )
