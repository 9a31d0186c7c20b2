r"""Calibration tests: Spiegelhalter's z, Hosmer–Lemeshow, calibration-in-the-large and slope.

* **Spiegelhalter (1986)** z-test of :math:`H_0`: every :math:`p_i` is the true
  probability. With :math:`N = \sum w_i (y_i - p_i)(1 - 2p_i)` and
  :math:`V = \sum w_i^2 (1 - 2p_i)^2 p_i (1 - p_i)`, :math:`z = N/\sqrt V`
  is asymptotically N(0, 1) under :math:`H_0`; the p-value is two-sided. N is the Brier score's
  excess over its expectation under :math:`H_0` (:math:`\sum w[(p - y)^2 - p(1 - p)] = N`), so the test
  weighs each row by :math:`1 - 2p_i`: a score of 0.5 counts for nothing whatever its label (ten
  scores of 0.5 that all came true, chance 1/1,024, add nothing to N or V), and errors that
  leave the Brier score unchanged go unseen. Hosmer–Lemeshow and the noise floor read every row.
  The normal law is asymptotic, and its far tail arrives last: on calibrated rare-event scores
  (Beta(0.3, 6)) it kept the 5 % level from 10 rows on, but with 10–20 rows it read p ≤ 0.01 about
  2 % of the time and p ≤ 0.001 about 0.6 % (seeded, 4,000 samples each;
  tests/honest/test_calibration_tests_r30.py) — on few rows, or few effective rows, read a small
  p-value with Hosmer–Lemeshow's Monte-Carlo p-value or the noise floor, which are exact. Below 5
  expected events or non-events (effective rows when weighted) z's own p-value is by Monte Carlo, and with
  uneven weights also where its numerator is as skewed as a count of fewer than 20 expected events
  (:func:`_skew_events`): a few heavy rows carry the variance there, and the normal law had read p ≤ 0.01
  in 2 % and p ≤ 0.001 in 0.7–0.9 % of samples above 5 effective events (3,000 calibrated rows of
  Beta(0.5, 30) scores, log-normal weights of sd 1.5; tests/honest/test_spiegelhalter_weighted_tail_r43.py).
* **Contradicted certainty.** A probability score of exactly 0 whose label is 1 (or exactly 1 whose
  label is 0) has probability 0 under :math:`H_0`, so every test's exact p-value is 0 — Spiegelhalter's,
  Hosmer–Lemeshow's and the recalibration's two Wald tests (``contradicted`` counts those rows; binary
  probability scores only). The statistics cannot see it: such a row adds no variance to
  Spiegelhalter's :math:`V`, in a Hosmer–Lemeshow group with other scores its term is ordinary noise —
  one score of 0 that came true among 1,000 calibrated rows had read p = 0.95 and 0.57 — and the
  recalibration fit reads it at the clipped logit −36 (calibration-in-the-large p = 0.37 and 0.90 for
  that row among 1,000 calibrated ones).
* **Rounded certainty.** A logit score, or a top-label confidence, whose probability rounds to exactly 0 or
  1 is not a claim of certainty (a softmax rounded to 1.0: no contradiction), so Hosmer–Lemeshow reads
  every such score at :math:`\epsilon` or :math:`1 - \epsilon` (:data:`PROB_EPS`, the log-loss's and the
  recalibration's clip), in its statistic and in its Monte-Carlo redraws alike. A bin of such scores all
  0 or all 1 still counts no degree of freedom (its term is about :math:`n_g\epsilon` under calibration),
  but a wrong label in it adds about :math:`1/(n_g\epsilon)` to H: the statistic is enormous, not
  infinite, the p-value is the chi-square's 0 or the Monte-Carlo floor :math:`1/(R + 1)` (no redraw at
  :math:`1 - \epsilon` draws a wrong label), and the printout names the bin, its rows and the labels
  against it (``rounded_misses``). Before, such a bin printed ``H = inf, p = 0.0000`` with no reason
  (500 softmax rows, 100 of them [1, 0, 0] with one wrong label), beside Spiegelhalter's p = 0.44, which
  gives the row no variance, and the noise floor's 0.54.
* **Hosmer–Lemeshow (1980)** :math:`\hat C`: rows in G groups of equal count by
  sorted score ("deciles of risk", the ``equal-count`` binning) — with uneven weights, of equal weight
  (the weighted ``quantile`` binning of the reliability table, :func:`~veracity.core._binning.quantile_edges`:
  a cut at the score whose cumulative weight covers :math:`j/G` of the total), as the deciles of risk
  of the population the weights stand for. Groups of equal row count had put a tenth of the rows, not of
  the weight, in each group: with the top tenth of the scores weighted 10x one group held half the weight,
  and as each group's weights were then constant the statistic was the unweighted one to the last digit
  (the rows' test, not the weighted population's). Under calibration both keep the level (seeded, 1,000
  samples of 2,000 rows, top tenth 10x or top fifth 20x: 0.043 and 0.048 at 5 %; tests/honest/
  test_stats_r24.py). Equal weights are unweighted rows: the equal-count groups,
  :math:`H = \sum_g (O_g - E_g)^2 / (E_g(1 - E_g/n_g))` with :math:`O_g = \sum w y`,
  :math:`E_g = \sum w p`, :math:`n_g = \sum w`; with weights each group's term is counted in
  effective rows, times :math:`n_g / \sum_g w^2` (Kish), so only the weights' ratios matter
  (unit weights: the classic statistic; weights of 0.1 had shrunk H tenfold), referred to
  :math:`\chi^2_{G}` — G counting only the groups whose scores are not all 0 or all 1: such a group
  has no variance, its term is 0 under calibration, and counting it as a degree of freedom had read H
  as too small (scores of exactly 0 or 1 on 60 % of 25,000 rows: the 5 % test rejected calibrated
  scores 2 % of the time, now 6 %, tests/honest/test_calibration_tests_r30.py). G degrees of freedom
  are the convention for probabilities not fitted on the rows tested (external validation:
  Hosmer, Lemeshow & Sturdivant 2013), which is what veracity audits —
  held-out scores. Pass ``df=G - 2`` for the development-sample convention (a logistic
  model fitted on these rows); on held-out scores it rejects a calibrated model too often
  (11 % at the 5 % level in the suite's simulation). The chi-square law is asymptotic: when a
  group expects fewer than 5 events or non-events (:math:`E_g` or :math:`n_g - E_g`, in effective
  rows :math:`E_g \, n_g / \sum_g w^2`; Cochran's rule) it rejected a calibrated model 8–14 % of
  the time at 5 % (10 groups of 1–4 rows). Then, up to 20,000 rows and with ``df`` left to its
  default, the p-value is by **Monte Carlo** under the null itself: every label redrawn as
  :math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` (the same scores, weights and groups),
  :math:`p = (1 + \#\{H^* \ge H\}) / (R + 1)` over ``n_resamples`` redraws seeded by
  ``random_state`` (None: the fixed seed 0) — valid at every level for any *R*, weighted or not,
  as each row's label is drawn from its own score (the rows in a canonical order first, so the
  p-value does not depend on their order; the noise floor's draws). ``method`` says which law
  gave the p-value. Above 20,000 rows (R redraws cost R × n draws) the chi-square law is kept, and its
  far tail is far too light where a group expects much less than one event: on 25,000-50,000 calibrated
  rows of rare-event scores (Beta(0.2, 20), 1 % events) it read p ≤ 0.01 in 3 % and p ≤ 0.001 in 2 % of
  samples (seeded, 2,000 samples of 50,000 rows; tests/honest/test_hosmer_far_tail_r35.py) — one event
  in a group expecting 0.01 adds about 100 to H, where its chance is 1 %. Such a p-value below 0.01
  prints that measured fact and points to the noise floor, whose p-value is exact at any size.
* **Calibration-in-the-large and calibration slope** (Cox 1958; Van Calster et al.
  2016, 2019): logistic recalibration on the logit :math:`\eta_i` of the score.
  Slope model :math:`\mathrm{logit}\,P(y=1) = a + b\,\eta` (ideal :math:`b = 1`;
  :math:`b < 1`: over-confident); in-the-large model
  :math:`\mathrm{logit}\,P(y=1) = \alpha + \eta` (offset, ideal :math:`\alpha = 0`;
  :math:`\alpha > 0`: the model under-predicts on average). Fitted by Newton's method
  (weighted maximum likelihood); standard errors from the inverse Fisher information
  :math:`H^{-1}`, :math:`H = \sum x x^\top \mu(1-\mu)`. With ``sample_weight`` the estimate solves
  :math:`U = \sum w\,x\,(y - \mu) = 0`, whose variance under the fitted model is
  :math:`B = \sum w^2 x x^\top \mu(1-\mu)` (as Spiegelhalter's :math:`V`), so the covariance is the
  sandwich :math:`H_w^{-1} B H_w^{-1}`, :math:`H_w = \sum w\,x x^\top \mu(1-\mu)`: it does not depend
  on the weights' scale, and equal weights give the unweighted :math:`H^{-1}`. (Scaling the weights to
  the Kish effective size and inverting :math:`H_w` is right only when the weights do not vary with
  the score: with the tails of the scores weighted 10x, the slope test rejected calibrated scores 15 %
  of the time at 5 %; with the middle weighted up, almost never.) The two Wald statistics are referred to
  the normal law, except where uneven weights make the weighted count of events :math:`\sum w y` (the
  in-the-large fit's score) as skewed as a count of fewer than 20 expected events
  (:func:`_wald_skew_events`, Spiegelhalter's rule): a few heavy rows carry the variance there, and the
  normal law had read p <= 0.001 in 0.4-0.9 % of calibrated samples (2,000-3,000 rows of Beta(0.5, 30)
  scores, log-normal weights of sd 1.2-1.5) and in 2.1 % in the large on 200 rows of Beta(0.5, 20) with
  sd 2. There, up to 20,000 rows, both p-values are by Monte Carlo (``method``; 2,000 label redraws, seed 0,
  each refitted: :func:`_redrawn_wald_p_values`), which keeps the level at 0.01 and 0.001
  (tests/honest/test_recalibration_weighted_tail_r43.py); unweighted rows and equal weights keep the
  normal law.
  Probabilities are mapped to logits after clipping to :math:`[\epsilon, 1-\epsilon]`
  (machine epsilon); declare ``score_type="logit"`` to use raw logits exactly. Logits spanning many decades
  (beyond :math:`2^{20}`) are fitted with steps measured on the linear predictor (:func:`_slope_fit`: logits
  of 1e20 that were all right beside calibrated ones had read slope 1.5e-20, p = 0, for an MLE of 1.06);
  beyond :math:`2^{128}` the fit is refused in one line (its information overflows).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from ..core._special import chdtrc, expit, ndtr

from ..core._binning import bin_index, enough_effective, equal_count_edges, quantile_edges
from ..core._text import count_noun, fmt, render_table
from ..core._validation import PROB_EPS, Binary, VeracityError, prepare_binary
from ..core._weights import sums_in_user_units
from ._common import canonical_rows, check_count, check_seed, contradicted_rows, weighted_rows
from ..core._compat import renamed, renamed_attribute
from ..core._display import Display
from ..core._frameform import rows_form


def _two_sided(z: float) -> float:
    return float(2.0 * ndtr(-abs(z)))


# ----------------------------------------------------------------------------------
# Spiegelhalter
# ----------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class SpiegelhalterTest(Display):
    """Spiegelhalter's z (``statistic``) and its two-sided ``p_value``: by the normal law (``method``
    ``"normal"``), or by Monte Carlo (``"monte-carlo"``: ``n_resamples`` redraws of the labels as
    Bernoulli(p), the fixed seed 0) where the rows expect fewer than 5 events or non-events, or, with
    uneven weights, where z is as skewed as a count of fewer than 20 (``skew_events``): there the normal
    law is too light in its tails (:func:`spiegelhalter_of`). Each row counts with weight
    :math:`1 - 2p`: scores of 0.5 never move it (module doc)."""

    statistic: float
    p_value: float
    n: int
    #: rows whose probability score is exactly 0 with label 1, or exactly 1 with label 0: impossible
    #: under calibration, so the p-value is 0 whatever z reads (z gives such a row no variance)
    contradicted: int = 0
    method: str = "normal"
    n_resamples: int | None = None
    #: the fewest events or non-events the rows expect (effective rows when weighted)
    min_expected: float = math.inf
    #: with uneven weights, the expected events a count as skewed as z's numerator would have:
    #: :math:`1/\gamma^2` (:func:`_skew_events`); inf unweighted or with equal weights
    skew_events: float = math.inf

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("min_expected", "skew_events"):
            out[key] = None if math.isinf(out[key]) else out[key]
        return out

    def __str__(self) -> str:
        rows = count_noun(self.n, "row")
        if self.method == "normal":
            law = "normal law"
        elif self.min_expected < _MIN_EXPECTED:
            law = (f"Monte-Carlo law: {self.n_resamples:,} label redraws, seed 0; the rows expect "
                   f"{_short_of(self.min_expected, _MIN_EXPECTED)} events or non-events")
        else:
            law = (f"Monte-Carlo law: {self.n_resamples:,} label redraws, seed 0; uneven weights make z as "
                   f"skewed as a count of {_short_of(self.skew_events, _MIN_SKEW_EVENTS)} expected events")
        line = f"Spiegelhalter z = {self.statistic:+.3f}, two-sided p = {self.p_value:.4f} ({law}; {rows})"
        return line + _contradicted_note(self.contradicted)


def _contradicted_note(k: int) -> str:
    return (f"; {count_noun(k, 'score')} of exactly 0 or 1 that the label contradicts: impossible under "
            "calibration, so p = 0") if k else ""


def spiegelhalter_of(data: Binary) -> SpiegelhalterTest:
    """Spiegelhalter's z; a probability of exactly 0 or 1 that its label contradicts (rows of positive
    weight; binary probability scores only: :func:`contradicted_rows`) has probability 0 under
    calibration, so the exact p-value is 0, as Hosmer–Lemeshow's: z alone gave such a row no variance
    and could read a score of 0 that came true among 1,000 calibrated rows as p = 0.95."""
    data = weighted_rows(data)
    p, y = data.p, data.y
    w = np.ones_like(p) if data.w is None else data.w
    a = 1.0 - 2.0 * p
    num = float(np.dot(w, (y - p) * a))
    var = float(np.dot(w * w, a * a * p * (1.0 - p)))
    contradicted = contradicted_rows(data)
    if var <= 0.0 and not contradicted:
        raise VeracityError(
            "Spiegelhalter's z is undefined: every score is 0, 0.5 or 1 (zero variance); "
            "use hosmer_lemeshow or the noise floor instead"
        )
    z = num / math.sqrt(var) if var > 0.0 else math.copysign(math.inf, num)
    size = data.n if data.w is None else float(w.sum()) ** 2 / float(np.dot(w, w))
    least = min(float(np.dot(w, p)), float(np.dot(w, 1.0 - p))) / float(w.sum()) * size
    least = _up_to_rounding(least, data.n)
    skew = _skew_events(p, w * a) if data.w is not None and np.ptp(w) > 0 else math.inf
    normal = least >= _MIN_EXPECTED and skew >= _MIN_SKEW_EVENTS
    if contradicted or normal or data.n > _MAX_REDRAWN_ROWS or not math.isfinite(z):
        return SpiegelhalterTest(statistic=float(z), p_value=0.0 if contradicted else _two_sided(z), n=data.n,
                                 contradicted=contradicted, min_expected=least, skew_events=skew)
    return SpiegelhalterTest(statistic=float(z), p_value=_redrawn_z_p_value(data, z), n=data.n,
                             method="monte-carlo", n_resamples=_SPIEGELHALTER_REDRAWS, min_expected=least,
                             skew_events=skew)


def _skew_events(p: np.ndarray, c: np.ndarray) -> float:
    r"""The expected events of a Poisson count as skewed as :math:`N = \sum c_i (y_i - p_i)`:
    :math:`1/\gamma^2`, :math:`\gamma = \kappa_3 / \kappa_2^{3/2}`, :math:`\kappa_2 = \sum c^2 p(1 - p)`,
    :math:`\kappa_3 = \sum c^3 p(1 - p)(1 - 2p)` (a Poisson count of mean :math:`\lambda` has
    :math:`\gamma = 1/\sqrt\lambda`; unweighted rows of a rare event read about their expected events).
    Uneven weights (:math:`c = w(1 - 2p)`) put z's variance on a few heavy rows: 3,000 calibrated rows of
    Beta(0.5, 30) scores with log-normal weights (sd 1.5) expect about 6 effective events, yet read
    :math:`1/\gamma^2` about 0.6 — and the normal law read p <= 0.001 in 0.9 % of samples."""
    top = float(np.max(np.abs(c)))
    if not top > 0.0:
        return math.inf
    u = c / top  # 1/gamma^2 does not depend on the weights' scale (weights of 1e45 had overflowed k2^3)
    v = p * (1.0 - p)
    k2 = float(np.dot(u * u, v))
    if not k2 > 0.0:  # no variance (contradicted certainty alone): the p-value is 0 whatever the law
        return math.inf
    gamma = float(np.dot(u ** 3, v * (1.0 - 2.0 * p))) / k2 ** 1.5
    return math.inf if abs(gamma) < 1e-150 else 1.0 / (gamma * gamma)


def _up_to_rounding(least: float, rows: int) -> float:
    """The fewest expected events or non-events, ``_MIN_EXPECTED`` where it falls short of it only by the
    rounding of its sums (:func:`~veracity.core._binning.enough_effective`): 50 scores of 0.1 sum to
    4.999999999999998, which had switched to the Monte-Carlo law and printed "5 < 5"."""
    return _MIN_EXPECTED if _MIN_EXPECTED > least and enough_effective(least, _MIN_EXPECTED, rows) else least


def _short_of(value: float, limit: float) -> str:
    """``"<value> < <limit>"`` with digits enough that the value never prints as the limit (4.9996 < 5,
    not "5 < 5")."""
    for digits in range(3, 18):
        text = f"{value:.{digits}g}"
        if float(text) < limit:
            break
    return f"{text} < {limit:g}"


#: Spiegelhalter's Monte-Carlo redraws where the rows expect fewer than 5 events or non-events
_SPIEGELHALTER_REDRAWS = 4000
#: with uneven weights, Spiegelhalter's p-value is by Monte Carlo where z's numerator is as skewed as a count
#: of fewer expected events than this (:func:`_skew_events`; module doc)
_MIN_SKEW_EVENTS = 20.0


def _redrawn_z_p_value(data: Binary, z: float) -> float:
    r"""Two-sided Monte-Carlo p-value of Spiegelhalter's ``z``: the labels redrawn as
    :math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` (rows in canonical order, the noise floor's draws, seed 0),
    :math:`z^*` recomputed with the same weights and variance, :math:`(1 + \#\{|z^*| \ge |z|\}) / (R + 1)`.

    The normal law of z is asymptotic, and with about one expected event its tails are far off: on 10-50
    calibrated rows expecting 0.5 events it rejected 8.8-9.2 % at the 5 % level (redraws, session 42:
    4.9-5.3 %; tests/honest/test_spiegelhalter_rare_r42.py)."""
    from ._noise_floor import redraw_bin_sums

    rows = canonical_rows(data)
    p = rows.p
    w = np.ones_like(p) if rows.w is None else rows.w
    a = w * (1.0 - 2.0 * p)
    sd = math.sqrt(float(np.dot(w * w, (1.0 - 2.0 * p) ** 2 * p * (1.0 - p))))
    drawn = redraw_bin_sums(p, a, np.zeros(p.size, dtype=np.intp), 1, _SPIEGELHALTER_REDRAWS,
                            np.random.default_rng(0))[:, 0]
    sims = np.abs(drawn - float(np.dot(a, p))) / sd
    tol = 1e-9 * abs(z)  # the same sums in another order: equal up to rounding
    return float((1.0 + np.count_nonzero(sims >= abs(z) - tol)) / (_SPIEGELHALTER_REDRAWS + 1.0))


@rows_form
def spiegelhalter(
    scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
    score_type: str = "probability", sample_weight: Any = None,
    pos_label: Any = None,
) -> SpiegelhalterTest:
    r"""Spiegelhalter's z-test of calibration: :math:`z = \sum (y-p)(1-2p) / \sqrt{\sum (1-2p)^2 p(1-p)}`.

    Where the rows expect fewer than 5 events or non-events (or, with uneven ``sample_weight``, z is as
    skewed as a count of fewer than 20 expected events) the p-value is by Monte Carlo
    (:class:`SpiegelhalterTest`; four rows: 0.8743, the exact law's 0.8704, the normal law's 0.6153):

    >>> t = spiegelhalter([0.2, 0.7, 0.9, 0.4], [0, 1, 1, 1])
    >>> round(t.statistic, 4), round(t.p_value, 4), t.method
    (-0.5025, 0.8743, 'monte-carlo')
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return spiegelhalter_of(data)


# ----------------------------------------------------------------------------------
# Hosmer-Lemeshow
# ----------------------------------------------------------------------------------
#: Cochran's rule: a group expecting fewer events or non-events than this makes the chi-square law
#: unreliable (the p-value is then by Monte Carlo, up to ``_MAX_REDRAWN_ROWS`` rows)
_MIN_EXPECTED = 5.0
#: above this many rows the chi-square law is kept (R redraws cost R x n draws)
_MAX_REDRAWN_ROWS = 20_000
#: a chi-square p-value below this, with a group expecting fewer than 5 events or non-events, gets
#: :data:`_FAR_TAIL`: there the law's far tail is far too light (module doc, "Hosmer–Lemeshow")
_FAR_TAIL_P = 0.01
_FAR_TAIL = ("; its far tail is too light here: on 25,000-50,000 calibrated rows of rare-event scores it "
             "read p <= 0.01 in 3 % and p <= 0.001 in 2 % of samples (one event in a bin expecting 0.01 adds "
             "about 100 to H), so read this p-value beside the noise floor's, which is exact")


@dataclass(frozen=True, eq=False, repr=False)
class HosmerLemeshowTest(Display):
    r"""Hosmer–Lemeshow statistic, its degrees of freedom and p-value, and the table of its
    ``bins`` equal-count bins (Hosmer and Lemeshow's "groups"; equal-weight bins with uneven weights:
    ``strategy``).

    ``method`` is the law of the p-value: ``"chi-square"`` (:math:`\chi^2_{df}`) or
    ``"monte-carlo"`` (``n_resamples`` redraws of the labels as Bernoulli(p), seeded by
    ``random_state``; used when a bin expects fewer than 5 events or non-events). ``min_expected``
    is the fewest events or non-events a bin expects (in effective rows when weighted; bins whose scores
    are all 0 or all 1, ``degenerate``, left out). ``df`` is G less the ``degenerate`` bins (their term is
    0 under calibration, not a chi-square term), or the ``df=`` given; a Monte-Carlo p-value does not
    use it, so there ``to_dict`` (the JSON) keeps
    the key ``"df"`` as null and the printout gives no df: a df beside that p-value read as a chi-square
    test."""

    statistic: float
    df: int
    p_value: float
    bins: int
    n: np.ndarray
    observed: np.ndarray
    expected: np.ndarray
    method: str = "chi-square"
    min_expected: float = math.inf
    n_resamples: int | None = None
    random_state: Any = None
    #: rows whose probability score is exactly 0 with label 1, or exactly 1 with label 0: impossible under
    #: calibration, so the p-value is 0 whichever law gave it (:func:`contradicted_rows`)
    contradicted: int = 0
    #: how the groups were cut: ``"equal-count"`` (rows), or ``"equal-weight"`` (uneven sample weights: the
    #: weighted quantile edges of :func:`~veracity.core._binning.quantile_edges`)
    strategy: str = "equal-count"
    #: bins whose scores are all 0, or all 1: no variance, so under calibration their term is 0 — they add
    #: no degree of freedom to the default ``df`` and are left out of ``min_expected``
    degenerate: int = 0
    #: the ``degenerate`` bins of logit or top-label scores (rounded to exactly 0 or 1: not certain, so read
    #: at ε or 1 − ε) that hold labels against their score, as ``(bin, score, rows, against, term)``: the
    #: bin's number (1 = lowest scores), its score 0.0 or 1.0, its rows, those whose label is against it,
    #: and the bin's term in H — at least about 1/(rows · ε), so H is enormous; the printout names each one
    rounded_misses: tuple[tuple[int, float, int, int, float], ...] = ()
    #: the scores were top-label confidences of (N, K) class probabilities
    top_label: bool = False
    #: the ``bins`` asked for; ``bins`` (the groups made) can be fewer — fewer rows than bins, tied scores
    #: (never split across groups), rows heavier than 1/G of the weight — and the printout says how many
    #: each merged (``merged_by``; None: not recorded, as ``bins``)
    requested_bins: int | None = None
    #: why fewer bins were made than asked for (``requested_bins`` > ``bins``), as the printout words it:
    #: too few rows, rows each holding more than 1/G of the weight (they span several equal-weight cuts), and
    #: tied scores (never split across bins), each with the bins it merged ("": not recorded, or none merged)
    merged_by: str = ""

    groups = renamed_attribute("groups", "bins")

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            # the df of the law that gave the p-value: none for Monte Carlo (the key stays, null)
            "df": None if self.method == "monte-carlo" else self.df,
            "p_value": self.p_value,
            "method": self.method,
            "min_expected": self.min_expected,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state if isinstance(self.random_state, int) else None,
            "contradicted": self.contradicted,
            "bins": self.bins,
            "requested_bins": self.requested_bins,
            "strategy": self.strategy,
            "degenerate": self.degenerate,
            "rounded_misses": [{"bin": b, "score": v, "rows": r, "against": k, "term": t}
                               for b, v, r, k, t in self.rounded_misses],
            "table": [
                {"n": float(n), "observed": float(o), "expected": float(e)}
                for n, o, e in zip(self.n, self.observed, self.expected)
            ],
        }

    def __str__(self) -> str:
        bins = count_noun(self.bins, self.strategy + " bin")
        if self.requested_bins is not None and self.requested_bins > self.bins:
            bins += (f", {self.requested_bins - self.bins} of bins={self.requested_bins} merged "
                     f"{self.merged_by or 'by tied scores'}")
        if self.degenerate:
            bins += f", {self.degenerate} of scores all 0 or all 1"
        h = f"{self.statistic:.3f}" if self.statistic < 1e6 else f"{self.statistic:.3g}"  # not 15 digits
        if self.method == "monte-carlo":
            line = (
                f"Hosmer-Lemeshow H = {h}, Monte-Carlo p = {self.p_value:.4f} "
                f"({bins}, fewest expected events or non-events "
                f"{_short_of(self.min_expected, _MIN_EXPECTED)}; {self.n_resamples:,} label redraws, "
                f"random_state {self.random_state})"
            )
        else:
            small = (f", fewest expected events or non-events {_short_of(self.min_expected, _MIN_EXPECTED)}: "
                     "chi-square approximate" if self.min_expected < _MIN_EXPECTED else "")
            if small and self.p_value < _FAR_TAIL_P:
                small += _FAR_TAIL
            line = (
                f"Hosmer-Lemeshow H = {h}, df = {self.df}, p = {self.p_value:.4f} "
                f"({bins}{small})"
            )
        return line + _contradicted_note(self.contradicted) + "".join(
            _rounded_note(m, self.bins, self.top_label) for m in self.rounded_misses)


def _rounded_note(miss: tuple[int, float, int, int, float], bins: int, top_label: bool) -> str:
    """Why H is enormous: a bin of scores rounded to exactly 0 or 1 (logits or top-label confidences, not
    certain) that holds labels against its score."""
    b, score, rows, against, term = miss
    what = "top-label confidence" if top_label else "logit's probability"
    read = f"1 - {PROB_EPS:.2g}" if score == 1.0 else f"{PROB_EPS:.2g}"
    return (f"; bin {b} of {bins} ({count_noun(rows, 'row')}, every score exactly {score:.1f}) holds "
            f"{count_noun(against, 'label')} against its score: a {what} rounded to {score:.1f} is not "
            f"certain, so it is read at {read} and the bin adds {term:.3g} to H (chance under calibration at "
            f"most {rows * PROB_EPS:.2g}" + ("; confidences rounded from float32 or float16 make it likelier)"
                                             if top_label else ")"))


def hosmer_lemeshow_of(data: Binary, groups: int = 10, df: int | None = None, *,
                       n_resamples: int = 2000, seed: Any = None) -> HosmerLemeshowTest:
    data = weighted_rows(data)  # the equal-count groups are over the rows that carry weight
    groups = check_count(groups, "bins", 2)
    dof = None if df is None else check_count(df, "df")
    n_resamples = check_count(n_resamples, "n_resamples")
    seed = 0 if seed is None else check_seed(seed)  # a report, not a draw: the same rows, the same p-value
    w = data.w
    # groups of equal weight where the weights differ (equal weights: the unweighted rows' equal-count groups)
    uneven = w is not None and bool(np.ptp(w) > 0)
    rule = "quantile" if uneven else "equal-count"
    edges = quantile_edges(data.p, groups, w) if uneven else equal_count_edges(data.p, groups)
    idx = bin_index(data.p, edges, rule)
    strategy = "equal-weight" if uneven else "equal-count"
    m = edges.size - 1
    q = _hl_scores(data)
    n_g = np.bincount(idx, weights=w, minlength=m).astype(np.float64)
    o_g = np.bincount(idx, weights=data.y if w is None else data.y * w, minlength=m)
    e_g = np.bincount(idx, weights=data.p if w is None else data.p * w, minlength=m)
    # each group in effective rows: (O - E)^2 and E(1 - E/n) scale as c^2 and c with the weights,
    # so the term is computed with the group's weights over their largest (w² of weights below
    # 1e-154 of the largest underflowed: such a group's term was lost, however miscalibrated)
    keep = n_g > 0
    top = np.zeros(m)
    if w is not None:
        np.maximum.at(top, idx, w)
    ws = None if w is None else w / np.where(top > 0, top, 1.0)[idx]
    c_n = n_g if ws is None else np.bincount(idx, weights=ws, minlength=m).astype(np.float64, copy=False)
    c_o = o_g if ws is None else np.bincount(idx, weights=data.y * ws, minlength=m)
    c_w2 = n_g if ws is None else np.bincount(idx, weights=ws * ws, minlength=m).astype(np.float64)
    # expected events E and non-events F = n - E, F summed from 1 - q (exact near 1, where n - E is not)
    c_e = np.bincount(idx, weights=q if ws is None else q * ws, minlength=m)
    c_f = np.bincount(idx, weights=1.0 - q if ws is None else (1.0 - q) * ws, minlength=m)
    # a group whose scores are all exactly 0, or all exactly 1, has no variance: under calibration its term is
    # 0, not a chi-square term, so it adds no degree of freedom and no small expected count (it had added
    # both: a df too many reads H as too small, and its 0 expected events had flagged the law approximate)
    rows_g = np.bincount(idx, minlength=m)
    flat = ((np.bincount(idx, weights=(data.p == 1.0).astype(np.float64), minlength=m) == rows_g)
            | (np.bincount(idx, weights=(data.p == 0.0).astype(np.float64), minlength=m) == rows_g))
    against = np.bincount(idx, weights=(np.abs(data.y - data.p) == 1.0).astype(np.float64), minlength=m)
    n_g, o_g, e_g = n_g[keep], o_g[keep], e_g[keep]
    c_n, c_o, c_e, c_f, c_w2 = c_n[keep], c_o[keep], c_e[keep], c_f[keep], c_w2[keep]
    rows_g, flat, against = rows_g[keep], flat[keep], against[keep]
    g = int(n_g.size)
    merged_by = _merge_reasons(data, groups, uneven, g) if g < groups else ""
    if dof is not None and dof > g:  # H sums g terms: a chi-squared on more degrees of freedom reads it as too small
        few = (f"the {g} groups made of bins={groups} ({groups - g} merged {merged_by})" if g < groups
               else f"bins={groups}")
        raise VeracityError(f"df={dof} exceeds {few}; pass df={max(g - 2, 1)} (G - 2, scores fitted on these rows) "
                            f"or leave df out (G, held-out scores)", param="df")
    var = c_e * c_f / c_n * (c_w2 / c_n)
    terms = _hl_terms(c_o, c_e, var)
    stat = float(terms.sum())
    degenerate = int(np.count_nonzero(flat))
    live = ~flat if degenerate < g else np.ones_like(flat)
    # the expected events and non-events of each group in effective rows (unit weights: E_g, n_g - E_g)
    least = _up_to_rounding(float(min(np.min(c_e[live]), np.min(c_f[live])) if w is None
                                  else np.min((np.minimum(c_e, c_f) * c_n / c_w2)[live])), data.n)
    # a score of exactly 0 or 1 that its label contradicts is impossible under calibration: p = 0 by the
    # exact law, whatever H reads (its group's other rows gave the term variance: H had read it as noise)
    contradicted = contradicted_rows(data)
    # logits and top-label confidences rounded to exactly 0 or 1 are read at ε or 1 - ε (_hl_scores): a bin
    # of them holding a label against its score has a finite, enormous term, which the printout explains
    misses = tuple((int(b) + 1, 1.0 if e_g[b] > 0 else 0.0, int(rows_g[b]), int(against[b]), float(terms[b]))
                   for b in np.flatnonzero(flat & (against > 0))) if not contradicted else ()
    mc = dof is None and least < _MIN_EXPECTED and data.n <= _MAX_REDRAWN_ROWS  # the law of the p-value
    dof = max(g - degenerate, 1) if dof is None else dof
    if contradicted:
        p_value = 0.0
    elif mc:
        p_value = _redrawn_p_value(data, edges, rule, top, keep, c_e, var, stat, n_resamples, seed)
    else:
        p_value = float(_chi2_sf(stat, dof))
    return HosmerLemeshowTest(
        statistic=stat, df=dof, p_value=p_value, bins=g, n=sums_in_user_units(n_g, data.weight_scale),
        observed=sums_in_user_units(o_g, data.weight_scale),
        expected=sums_in_user_units(e_g, data.weight_scale),
        method="monte-carlo" if mc else "chi-square", min_expected=least,
        n_resamples=n_resamples if mc else None, random_state=seed if mc else None, contradicted=contradicted,
        strategy=strategy, degenerate=degenerate, rounded_misses=misses, top_label=data.top_label,
        requested_bins=groups, merged_by=merged_by,
    )


def _merge_reasons(data: Binary, groups: int, uneven: bool, made: int) -> str:
    r"""Why ``made`` < ``groups`` bins: the printout's words after "merged". The same cuts of the scores'
    ranks (every score distinct) make :math:`G_0` bins — :math:`\min(G, N)` of equal count; of equal weight
    fewer where one row's weight interval covers two cuts :math:`jW/G`, which needs more than 1/G of the
    weight — so :math:`G - \min(G, N)` bins are lost to too few rows, :math:`\min(G, N) - G_0` to heavy rows
    and :math:`G_0 -` ``made`` to tied scores (which never straddle a cut). It had said "merged by tied
    scores" of 6 distinct scores with bins=10, and of one row carrying most of the weight."""
    n = data.n
    base = min(groups, n)
    untied = base
    if uneven and data.w is not None and n > 0:
        rows = canonical_rows(data)  # tied rows of unequal weight in one order: the counts never hang on it
        ranks = (np.arange(n) + 0.5) / n  # canonical rows are sorted by score
        cut = quantile_edges(ranks, groups, data.w if rows.w is None else rows.w)
        untied = int(np.count_nonzero(np.bincount(bin_index(ranks, cut, "quantile"), minlength=cut.size - 1)))
    parts = []
    if groups > base:
        parts.append(f"{groups - base} as there {'is' if n == 1 else 'are'} only {count_noun(n, 'row')}")
    if base > untied:
        parts.append(f"{base - untied} by rows each holding more than 1/{groups} of the weight")
    if untied > made:
        parts.append(f"{untied - made} by tied scores")
    if not parts:  # pragma: no cover - made < groups has one of the reasons above
        return "by tied scores"
    if len(parts) == 1:  # one reason: its count is the total already printed
        return parts[0].split(" ", 1)[1]
    return "(" + ", ".join(parts) + ")"


def _hl_scores(data: Binary) -> np.ndarray:
    r"""The probabilities Hosmer–Lemeshow reads: ``data.p``, clipped to :math:`[\epsilon, 1 - \epsilon]`
    (:data:`PROB_EPS`) for logit scores and top-label confidences, whose probability is never exactly 0
    or 1 (a softmax rounded to 1.0 is not a claim of certainty: :func:`contradicted_rows`), as the log-loss
    and the recalibration read them. A probability score of exactly 0 or 1 is kept: a label against it is
    a contradiction, p = 0."""
    if data.logit is None and not data.top_label:
        return data.p
    return np.clip(data.p, PROB_EPS, 1.0 - PROB_EPS)


def _hl_terms(c_o: np.ndarray, c_e: np.ndarray, var: np.ndarray) -> np.ndarray:
    r"""Each group's term :math:`(O - E)^2 / \mathrm{var}` (last axis: the groups); a group of
    variance 0 (every score 0, or every score 1) adds 0 when its labels agree, +inf when not."""
    diff2 = (c_o - c_e) ** 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a term of 1e310: inf, p = 0
        return np.where(var > 0, diff2 / np.where(var > 0, var, 1.0), np.where(diff2 > 0, np.inf, 0.0))


def _redrawn_p_value(data: Binary, edges: np.ndarray, rule: str, top: np.ndarray, keep: np.ndarray,
                     c_e: np.ndarray, var: np.ndarray, stat: float, n_resamples: int, seed: Any) -> float:
    r"""Monte-Carlo p-value of Hosmer–Lemeshow's ``stat`` under calibration: the labels redrawn as
    :math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` ``n_resamples`` times (rows in canonical order, the
    noise floor's draws), the statistic recomputed with the same groups, weights and variances,
    :math:`(1 + \#\{H^* \ge H\}) / (R + 1)`. A statistic of +inf (a group of scores 0 or 1 its
    labels contradict: impossible under calibration) has p-value 0."""
    from ._noise_floor import redraw_bin_sums

    if not math.isfinite(stat):
        return 0.0
    rows = canonical_rows(data)
    idx = bin_index(rows.p, edges, rule)
    m = edges.size - 1
    ws = None if rows.w is None else rows.w / np.where(top > 0, top, 1.0)[idx]
    drawn = redraw_bin_sums(_hl_scores(rows), ws, idx, m, n_resamples, np.random.default_rng(seed))[:, keep]
    # a group of variance 0 draws its own labels (scores 0 or 1): its term is 0 in every redraw
    sims = np.where(var > 0, _hl_terms(drawn, c_e, var), 0.0).sum(axis=1)
    tol = 1e-9 * stat  # the same sums in another order: equal up to rounding
    return float((1.0 + np.count_nonzero(sims >= stat - tol)) / (n_resamples + 1.0))


@renamed(groups="bins")
@rows_form
def hosmer_lemeshow(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 10,
    df: int | None = None,
    n_resamples: int = 2000,
    random_state: Any = None,
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> HosmerLemeshowTest:
    r"""Hosmer–Lemeshow goodness-of-fit: :math:`H = \sum_g (O_g - E_g)^2 / (E_g(1 - E_g/n_g))`.

    ``bins`` (Hosmer and Lemeshow's G "groups") are equal-count by sorted score
    (``strategy="equal-count"``), or of equal weight with uneven ``sample_weight`` (the weighted
    ``"quantile"`` edges of the reliability table; ``strategy="equal-weight"``); :math:`O_g` counts a
    group's events, :math:`E_g` sums its scores and :math:`n_g` counts its rows (with ``sample_weight``: weighted sums, each group counted in
    effective rows). H is referred to :math:`\chi^2_{df}`; ``df`` defaults to G, the convention for
    held-out scores (G less the groups whose scores are all 0 or all 1, ``degenerate``: their term is 0
    under calibration); ``df=G - 2`` is the development-sample convention (a model fitted on these rows).
    Logit scores and top-label confidences are read clipped to :math:`[\epsilon, 1 - \epsilon]`: rounded to
    0 or 1 they are not certain, so a wrong label there makes H enormous, not infinite, and the result names
    the bin (``rounded_misses``).

    When a group expects fewer than 5 events or non-events the chi-square law is unreliable. Then,
    with ``df`` left out and up to 20,000 rows, the p-value is by Monte Carlo: every label is redrawn
    as Bernoulli(p) ``n_resamples`` (R) times, and :math:`p = (1 + \#\{H^* \ge H\}) / (R + 1)` with
    :math:`H^*` a redraw's statistic. The redraws are seeded by ``random_state`` (None: the fixed seed
    0; a ``numpy.random.Generator`` gives fresh redraws). The result's ``method``
    (``"chi-square"`` or ``"monte-carlo"``) says which law gave the p-value; ``min_expected`` is the
    fewest events or non-events a group expects.

    >>> t = hosmer_lemeshow([0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8], [0, 0, 1, 0, 0, 1, 1, 1], bins=4)
    >>> t.method, round(t.statistic, 3), round(t.p_value, 4), round(t.min_expected, 2)
    ('monte-carlo', 2.68, 0.4698, 0.15)
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return hosmer_lemeshow_of(data, bins, df, n_resamples=n_resamples, seed=random_state)


# ----------------------------------------------------------------------------------
# calibration-in-the-large and slope
# ----------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class CalibrationSlope(Display):
    """Logistic recalibration: in-the-large ``citl`` (offset model) and ``intercept``/``slope``.

    Each estimate has a standard error (``*_se``); ``slope_p_value`` tests b = 1,
    ``citl_p_value`` tests α = 0 (two-sided Wald tests: by the normal law, or by Monte Carlo where uneven
    weights skew the weighted event count, ``method``). ``top_label``: the scores were (N, K) class
    probabilities, so the fit is of P(the top class is the label) on the logit of its confidence.
    ``contradicted`` counts the probability scores of exactly 0 with label 1, or exactly 1 with label 0
    (:func:`contradicted_rows`): impossible under either null (α = 0, or b = 1 with any a: each gives
    such a row probability 0), so both p-values are 0 then. The Wald
    tests cannot see it: such a score enters the fit at the clipped logit ±36, and the in-the-large
    fit's likelihood goes flat (5 scores of 0 that came true among 20 read α = +18.6, SE 1,929,
    p = 0.99).
    """

    citl: float
    citl_se: float
    citl_p_value: float
    intercept: float
    intercept_se: float
    slope: float
    slope_se: float
    slope_p_value: float
    n: int
    top_label: bool = False
    #: probability scores of exactly 0 with label 1, or exactly 1 with label 0: both p-values are 0
    contradicted: int = 0
    #: the law of both Wald statistics: ``"normal"``, or ``"monte-carlo"`` (``n_resamples`` label redraws,
    #: seed 0, each refitted: :func:`_redrawn_wald_p_values`) where uneven weights make the weighted event
    #: count as skewed as a count of fewer than 20 expected events (``skew_events``)
    method: str = "normal"
    n_resamples: int | None = None
    #: with uneven weights, the expected events a count as skewed as the weighted count of events
    #: :math:`\sum w y` would have (:func:`_wald_skew_events`); inf unweighted or with equal weights
    skew_events: float = math.inf

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["skew_events"] = None if math.isinf(self.skew_events) else self.skew_events
        return out

    def __str__(self) -> str:
        rows = [
            ["calibration-in-the-large", fmt(self.citl, sign=True), fmt(self.citl_se), "0",
             f"{self.citl_p_value:.4f}"],
            ["calibration intercept", fmt(self.intercept, sign=True), fmt(self.intercept_se), "", ""],
            ["calibration slope", fmt(self.slope), fmt(self.slope_se), "1", f"{self.slope_p_value:.4f}"],
        ]
        model = ("top label: logit P(correct) = a + b * logit(confidence)" if self.top_label
                 else "logit P(y=1) = a + b * logit(score)")
        note = _contradicted_note(self.contradicted)
        law = ("" if self.method == "normal" else
               f"; Monte-Carlo law: {self.n_resamples:,} label redraws, each refitted, seed 0; "
               f"uneven weights make the weighted event count as skewed as a count of "
               f"{_short_of(self.skew_events, _MIN_SKEW_EVENTS)} expected events")
        return f"Logistic recalibration ({model}; two-sided Wald p-values{law}):\n" + render_table(
            ["", "estimate", "SE", "ideal", "p-value"], rows, align="lrrrr"
        ) + (f"\n({note[2:]})" if note else "")


def _eta(data: Binary) -> np.ndarray:
    if data.logit is not None:
        return data.logit
    p = np.clip(data.p, PROB_EPS, 1.0 - PROB_EPS)
    return np.log(p) - np.log1p(-p)


def _loglik(X: np.ndarray, offset: np.ndarray | float, y: np.ndarray, w: np.ndarray, b: np.ndarray) -> float:
    eta = X @ b + offset
    return float(np.dot(w, y * eta - np.logaddexp(0.0, eta)))


def _citl(eta: np.ndarray, y: np.ndarray, w: np.ndarray, *, logits: bool = False) -> tuple[float, float]:
    r"""MLE of :math:`\alpha` in :math:`\mathrm{logit}P = \alpha + \eta` and its SE.

    The score :math:`g(\alpha) = \sum w (y - \sigma(\alpha + \eta))` falls strictly
    from :math:`\sum w y > 0` to :math:`-\sum w (1-y) < 0`, so with both classes present
    the root exists and is unique, even when scores of exactly 0 or 1 put
    :math:`\eta` at :math:`\pm 36`. Safeguarded Newton: a bracket kept by the sign of
    :math:`g`, bisection whenever a Newton step leaves it. ``logits``: the scores were given as logits (the
    refusal then does not ask for them).
    """
    def g_h(a: float) -> tuple[float, float]:
        mu = expit(a + eta)
        return float(np.dot(w, y - mu)), float(np.dot(w, mu * (1.0 - mu)))

    lo, hi = -1.0, 1.0
    while g_h(lo)[0] <= 0.0 and lo > -1e4:
        lo *= 2.0
    while g_h(hi)[0] >= 0.0 and hi < 1e4:
        hi *= 2.0
    a = 0.0 if lo < 0.0 < hi else 0.5 * (lo + hi)
    for _ in range(200):
        g, h = g_h(a)
        if g == 0.0:
            break
        if g > 0.0:
            lo = a
        else:
            hi = a
        new = a + g / h if h > 0.0 else math.nan
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)
        if abs(new - a) <= 1e-13 * (1.0 + abs(a)) or hi - lo <= 1e-13 * (1.0 + abs(a)):
            a = new
            break
        a = new
    _, h = g_h(a)
    if not h > 1e-12 * float(w.sum()):  # no curvature: SE 1/sqrt(h) in the millions, an estimate of nothing
        every = ("every logit is so far from 0 that its probability is 0 or 1 to machine precision" if logits
                 else "every score is 0 or 1 to machine precision")
        raise VeracityError(
            f"calibration-in-the-large and slope are undefined here: {every}, so the fit has no curvature "
            "and any offset fits; audit the reliability table instead (vc.audit)"
            + ("" if logits else ", or pass the model's raw logits with score_type='logit'")
        )
    return a, 1.0 / math.sqrt(h)


def _separated(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> bool:
    """True when the labels are (quasi-)separated by eta, so the slope MLE does not exist."""
    live = w > 0
    e1, e0 = eta[live & (y == 1.0)], eta[live & (y == 0.0)]
    return bool(e0.max() <= e1.min() or e1.max() <= e0.min())


def _separated_message(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> str:
    """Why the slope has no finite estimate: the labels separated by the score, strictly (AUC 1, or 0), or
    only up to tied scores where both classes meet (quasi-separation: the AUC is below 1, so the message
    must not say "AUC = 1": 3 negatives at 0 and 2 positives at 0 and 1 read AUC 0.83)."""
    live = w > 0
    e1, e0 = eta[live & (y == 1.0)], eta[live & (y == 0.0)]
    if e0.max() < e1.min() or e1.max() < e0.min():
        return ("the labels are perfectly separated by the score (every positive scores above "
                "every negative, or the reverse), so the calibration slope has no finite "
                "estimate; report AUC = 1 and the audit table instead")
    return ("the labels are separated by the score up to tied scores (every positive scores at or above "
            "every negative, or the reverse: both classes meet only at one score), so the calibration slope "
            "has no finite estimate; read the audit table instead")


#: logits beyond this are refused by the recalibration fit (:func:`_slope_fit`): its information
#: :math:`\sum \eta^2 \mu(1 - \mu)` overflows near 1e154, and long before that rows of logits of 1e60 and of 1
#: cannot be weighed against each other by a Newton step in double precision
LARGEST_LOGIT = 2.0**128
#: beyond this largest logit the fit measures its steps by the rows' linear predictors and lengthens a step
#: that gains (:func:`_slope_fit`); below it the iteration is the one every earlier result came from
_WIDE_LOGIT = 2.0**20


def _slope_fit(eta: np.ndarray, y: np.ndarray, w: np.ndarray,
               iterations: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Weighted logistic MLE of ``logit P = a + b eta``; returns ((a, b), covariance).

    Damped Newton started at the base rate (a = logit ȳ, b = 0), where the Fisher
    information is well conditioned even when exact 0/1 scores put eta at ±36; a step
    that lowers the log-likelihood is halved, and a singular information gets a ridge.
    Logits beyond 2^20 (:data:`_WIDE_LOGIT`): the rows of the largest logits hold the information at b = 0,
    and each step then moved b by about 1/max|eta| (2e-20 at logits of 1e20), so a step in b alone read as
    converged at b = 1.8e-20 where the MLE was 1.06 (the large logits all right, the others calibrated), with
    p = 0 against slope 1. There convergence is read on the linear predictor (a step times max|eta|) and a
    step that gains is doubled while it gains. Logits beyond 2^128 (:data:`LARGEST_LOGIT`) are refused.
    """
    top = float(np.max(np.abs(eta)))
    if top > LARGEST_LOGIT:
        raise VeracityError(
            f"the recalibration fit cannot weigh logits of {top:.3g} against the others in double precision "
            f"(its information sums eta^2; logits up to {LARGEST_LOGIT:.3g} are fitted), so "
            "calibration-in-the-large and slope are not computed; clip the logits to the range the model "
            "means (a logit of 40 is already a probability of 1 - 4e-18), or audit the reliability table "
            "instead (vc.audit)")
    wide = top > _WIDE_LOGIT
    reach = np.array([1.0, top if wide else 1.0])  # |x| at most this, per parameter
    X = np.column_stack([np.ones_like(eta), eta])
    ybar = float(np.dot(w, y) / w.sum())
    beta = np.array([math.log(ybar) - math.log1p(-ybar), 0.0])
    base = _loglik(X, 0.0, y, w, beta)
    for _ in range(iterations):
        mu = expit(X @ beta)
        grad = X.T @ (w * (y - mu))
        info = (X * (w * mu * (1.0 - mu))[:, None]).T @ X
        # the ridge in each parameter's own units where logits are wide: 1e-12 of the trace had swamped
        # the intercept's information (about n) with 1e-12 of the slope's (Σ eta² μ(1 - μ): 1e60 at 1e30)
        ridge = (1e-12 * np.diag(np.maximum(np.diag(info), 1e-300)) if wide
                 else 1e-12 * max(float(np.trace(info)), 1e-300) * np.eye(2))
        try:
            step = np.linalg.solve(info + ridge, grad)
        except np.linalg.LinAlgError:  # pragma: no cover - the ridge makes it regular
            break
        t = 1.0
        while t > 1e-10:
            cand = beta + t * step
            new = _loglik(X, 0.0, y, w, cand)
            if new >= base - 1e-13 * abs(base):
                break
            t *= 0.5
        else:
            break
        while wide and t >= 1.0:  # a full step that gains: twice as far while that gains more
            further = beta + 2.0 * t * step
            gain = _loglik(X, 0.0, y, w, further)
            if not gain > new + 1e-12 * abs(new):
                break
            cand, new, t = further, gain, 2.0 * t
        beta, base = cand, new
        if np.max(np.abs(t * step) * reach) < 1e-12 * (1.0 + np.max(np.abs(beta) * reach)):
            break
    mu = expit(X @ beta)
    info = (X * (w * mu * (1.0 - mu))[:, None]).T @ X
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov = np.full((2, 2), np.nan)
    if not np.all(np.isfinite(beta)) or not np.all(np.isfinite(cov)):
        raise VeracityError(
            "the recalibration fit is singular (the score takes too few distinct values); "
            "calibration slope is undefined for this data"
        )
    return beta, cov


def _newton(
    X: np.ndarray, offset: np.ndarray, y: np.ndarray, w: np.ndarray, iterations: int = 200
) -> tuple[np.ndarray, np.ndarray]:
    """``logit P = X @ beta + offset`` for the two recalibration models; (beta, covariance).

    One column of ones with the score as offset: calibration-in-the-large
    (:func:`_citl`); columns (1, eta) without offset: the slope model
    (:func:`_slope_fit`). Kept for callers of the earlier helper (monitoring).
    """
    if X.shape[1] == 1:
        alpha, se = _citl(np.asarray(offset, dtype=np.float64), y, w)
        return np.array([alpha]), np.array([[se * se]])
    eta = X[:, 1]
    if _separated(eta, y, w):
        raise VeracityError(
            "the labels are perfectly separated by the score, so the calibration slope "
            "has no finite estimate; report AUC = 1 and the audit table instead"
        )
    return _slope_fit(eta, y, w, iterations)


def _sandwich(X: np.ndarray, linear: np.ndarray, w: np.ndarray) -> np.ndarray:
    r"""Covariance :math:`H^{-1} B H^{-1}` of a weighted logistic fit at its linear predictor
    ``linear``: :math:`H = \sum w\,x x^\top v`, :math:`B = \sum w^2 x x^\top v`,
    :math:`v = \mu(1 - \mu)`; the columns of ``X`` are the fitted parameters' covariates (the
    in-the-large model: one column of ones)."""
    mu = expit(linear)
    v = mu * (1.0 - mu)
    H = (X * (w * v)[:, None]).T @ X
    B = (X * (w * w * v)[:, None]).T @ X
    try:
        Hi = np.linalg.inv(H)
    except np.linalg.LinAlgError:  # pragma: no cover - the fit above already refused a singular H
        return np.full(H.shape, np.nan)
    out: np.ndarray = Hi @ B @ Hi
    return out


def calibration_slope_of(data: Binary) -> CalibrationSlope:
    data = weighted_rows(data)
    y = data.y
    # weights scaled to sum to the Kish effective size (Σw)²/Σw², so the fit's tolerances read rows,
    # not the weights' units; with weights the SEs are the sandwich (_sandwich), which no scale moves
    w = np.ones_like(y) if data.w is None else data.w * (data.w.sum() / np.dot(data.w, data.w))
    live = w > 0
    if y[live].min() == y[live].max():
        of = "" if data.w is None else " of positive weight"  # "weighted labels" of unweighted rows misread
        raise VeracityError(
            f"calibration slope needs both classes; all {int(live.sum())} labels{of} are {int(y[live][0])}"
        )
    eta = _eta(data)
    if np.ptp(eta[live]) == 0.0:
        raise VeracityError("calibration slope is undefined for constant scores")
    if _separated(eta, y, w):
        raise VeracityError(_separated_message(eta, y, w))
    alpha, citl_se = _citl(eta, y, w, logits=data.logit is not None)
    beta, cov = _slope_fit(eta, y, w)
    if data.w is not None:  # the weighted estimating equations' variance: the sandwich (module doc)
        citl_se = float(np.sqrt(_sandwich(np.ones((eta.size, 1)), alpha + eta, w)[0, 0]))
        cov = _sandwich(np.column_stack([np.ones_like(eta), eta]), beta[0] + beta[1] * eta, w)
    slope_se = float(np.sqrt(cov[1, 1]))
    # a score of exactly 0 or 1 its label contradicts has probability 0 under either null: exact p = 0
    contradicted = contradicted_rows(data)
    z_citl, z_slope = alpha / citl_se, (beta[1] - 1.0) / slope_se
    p_citl, p_slope = _two_sided(z_citl), _two_sided(z_slope)
    uneven = data.w is not None and np.ptp(data.w) > 0
    skew = _wald_skew_events(eta, w) if uneven else math.inf
    redrawn = (skew < _MIN_SKEW_EVENTS and not contradicted and data.n <= _MAX_REDRAWN_ROWS
               and float(np.max(np.abs(eta))) <= _WIDE_LOGIT
               and math.isfinite(z_citl) and math.isfinite(z_slope))
    if redrawn:
        p_citl, p_slope = _redrawn_wald_p_values(data, float(alpha), z_citl, z_slope)
    return CalibrationSlope(
        citl=float(alpha),
        citl_se=citl_se,
        citl_p_value=0.0 if contradicted else p_citl,
        intercept=float(beta[0]),
        intercept_se=float(np.sqrt(cov[0, 0])),
        slope=float(beta[1]),
        slope_se=slope_se,
        slope_p_value=0.0 if contradicted else p_slope,
        n=data.n,
        top_label=data.top_label,
        contradicted=contradicted,
        method="monte-carlo" if redrawn else "normal",
        n_resamples=_WALD_REDRAWS if redrawn else None,
        skew_events=skew,
    )


#: the recalibration's Monte-Carlo redraws where uneven weights skew its Wald statistics (module doc)
_WALD_REDRAWS = 2000


def _wald_skew_events(eta: np.ndarray, w: np.ndarray) -> float:
    r""":func:`_skew_events` of the in-the-large fit's score at its null, :math:`\sum w (y - \sigma(\eta))`
    (:math:`c = w`): the weighted count of events, whose skew a few heavy rows of rare events carry (as they
    carry Spiegelhalter's). It decides both tests' law: the slope's own efficient score,
    :math:`\sum w (\eta - m)(y - \mu)`, reads far below 20 on calibrated scores of common events whose normal
    law keeps its level (weights of 10 on the scores beyond logit 2: 0.6; unweighted uniform scores: 44), and
    every design whose far tail failed has this count below 20 (0.3-2.4)."""
    return _skew_events(expit(eta), w)


def _redrawn_wald_p_values(data: Binary, alpha: float, z_citl: float, z_slope: float) -> tuple[float, float]:
    r"""Two-sided Monte-Carlo p-values of the recalibration's two Wald statistics (``data`` weighted):
    :math:`R` = ``_WALD_REDRAWS`` redraws of the labels (rows in canonical order, seed 0, one uniform
    :math:`u_{ri}` per row and redraw shared by both tests), each refitted with the sandwich SE
    (:func:`_refit_citl`, :func:`_refit_slope`): in the large :math:`y^* = [u < \sigma(\eta)]`, the null
    :math:`\alpha = 0` itself; the slope :math:`y^* = [u < \sigma(\hat\alpha + \eta)]`, the null
    :math:`b = 1` at its fitted intercept (the in-the-large fit).
    :math:`p = (1 + \#\{|z^*| \ge |z|\})/(R + 1)`,
    a redraw whose fit has no finite estimate (one class, separated labels) counted as reaching :math:`|z|`
    (conservative). Vectorised over redraws in blocks of about 2^18 rows' draws."""
    rows = canonical_rows(data)
    eta = _eta(rows)
    raw = np.ones_like(eta) if rows.w is None else rows.w
    w = raw * (raw.sum() / np.dot(raw, raw))  # as calibration_slope_of scales them
    p0, mu = expit(eta), expit(alpha + eta)
    rng = np.random.default_rng(0)
    block = max(1, min(_WALD_REDRAWS, 2**18 // eta.size))  # cache-sized blocks: 4x quicker than 16 MB ones
    hits = np.zeros(2)
    tol = 1e-9
    for start in range(0, _WALD_REDRAWS, block):
        u = rng.random((min(block, _WALD_REDRAWS - start), eta.size))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a redraw with no fit reads nan
            zc = np.abs(_refit_citl((u < p0).astype(np.float64), eta, w))
            zs = np.abs(_refit_slope((u < mu).astype(np.float64), eta, w, alpha))
        hits[0] += np.count_nonzero(~(zc < abs(z_citl) * (1.0 - tol)))  # nan (no estimate) counts as a hit
        hits[1] += np.count_nonzero(~(zs < abs(z_slope) * (1.0 - tol)))
    out = (1.0 + hits) / (_WALD_REDRAWS + 1.0)
    return float(out[0]), float(out[1])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """:math:`1/(1 + e^{-x})` in place of ``x`` (the redraws' many passes: about 5x quicker than ``expit``,
    the same doubles up to an ulp or two; :math:`e^{-x}` overflowing to inf reads 0, as it should)."""
    with np.errstate(over="ignore"):
        np.negative(x, out=x)
        np.exp(x, out=x)
    x += 1.0
    np.reciprocal(x, out=x)
    return x


def _refit_citl(Y: np.ndarray, eta: np.ndarray, w: np.ndarray, iterations: int = 60) -> np.ndarray:
    r"""Each row of ``Y`` (a redraw of the labels) refitted in the large,
    :math:`\mathrm{logit}P = \alpha + \eta`:
    Newton from :math:`\log(\sum w y / \sum w \sigma(\eta))` (the rare-event root; steps capped at 4), on the
    redraws not yet settled; the Wald :math:`z = \hat\alpha / SE`, SE the sandwich
    :math:`\sqrt{\sum w^2 v}/\sum w v` (:func:`_sandwich`); nan where a redraw has one class only."""
    events = Y @ w
    ok = (events > 0.0) & (events < w.sum())
    a = np.zeros(Y.shape[0])
    a[ok] = np.log(events[ok]) - math.log(float(np.dot(w, expit(eta))))
    live = np.flatnonzero(ok)
    for _ in range(iterations):
        if live.size == 0:
            break
        M = _sigmoid(a[live, None] + eta)
        fitted = M @ w
        M -= M * M  # v = mu (1 - mu)
        step = np.clip((events[live] - fitted) / (M @ w), -4.0, 4.0)
        finite = np.isfinite(step)
        a[live] += np.where(finite, step, 0.0)
        ok[live[~finite]] = False
        live = live[finite & (np.abs(step) > 1e-8 * (1.0 + np.abs(a[live])))]
    ok[live] = False  # not settled in ``iterations`` steps
    M = _sigmoid(a[:, None] + eta)
    M -= M * M
    h, b = (M @ np.column_stack([w, w * w])).T
    z: np.ndarray = a * h / np.sqrt(b)
    return np.where(ok, z, np.nan)


def _refit_slope(Y: np.ndarray, eta: np.ndarray, w: np.ndarray, alpha: float,
                 iterations: int = 60) -> np.ndarray:
    r"""Each row of ``Y`` refitted by the slope model :math:`\mathrm{logit}P = a + b\eta`: Newton from
    :math:`(\hat\alpha + \log(\sum w y / \sum w \mu), 1)`, :math:`\mu = \sigma(\hat\alpha + \eta)`
    (2 x 2 solves written out; steps capped at 4 on the largest :math:`|\eta|`), on the redraws not yet
    settled; the Wald :math:`z = (\hat b - 1)/SE`, SE from the sandwich :math:`H^{-1} B H^{-1}`
    (:func:`_sandwich`); nan where a redraw has one class, separated labels (:func:`_separated`) or a fit
    that did not settle."""
    ones = Y > 0.5
    hi1 = np.where(ones, eta, -np.inf).max(axis=1)
    lo1 = np.where(ones, eta, np.inf).min(axis=1)
    hi0 = np.where(ones, -np.inf, eta).max(axis=1)
    lo0 = np.where(ones, np.inf, eta).min(axis=1)
    ok = np.isfinite(hi1) & np.isfinite(hi0) & (hi0 > lo1) & (hi1 > lo0)
    a, b = np.full(Y.shape[0], alpha), np.ones(Y.shape[0])
    a[ok] += np.log((Y @ w)[ok]) - math.log(float(np.dot(w, expit(alpha + eta))))
    cols = np.column_stack([w, w * eta, w * eta * eta])  # one pass of each matrix product reads them all
    reach = max(1.0, float(np.max(np.abs(eta))))
    live = np.flatnonzero(ok)
    settled = ~ok
    for _ in range(iterations):
        if live.size == 0:
            break
        every = live.size == a.size  # a slice, not a copy, while every redraw is live
        M = _sigmoid(a[live, None] + b[live, None] * eta)
        g0, g1 = (((Y if every else Y[live]) - M) @ cols[:, :2]).T
        M -= M * M  # v = mu (1 - mu)
        h00, h01, h11 = (M @ cols).T
        det = h00 * h11 - h01 * h01
        da, db = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        size = np.abs(da) + np.abs(db) * reach
        scale = np.minimum(1.0, 4.0 / np.where(size > 0.0, size, 1.0))
        finite = np.isfinite(size)
        a[live] += np.where(finite, scale * da, 0.0)
        b[live] += np.where(finite, scale * db, 0.0)
        done = finite & (size <= 1e-8 * (1.0 + np.abs(a[live]) + np.abs(b[live]) * reach))
        settled[live[done]] = True
        live = live[finite & ~done]
    M = _sigmoid(a[:, None] + b[:, None] * eta)
    M -= M * M
    h00, h01, h11, b00, b01, b11 = (M @ np.column_stack([cols, cols * w[:, None]])).T
    det = h00 * h11 - h01 * h01
    r0, r1 = -h01 / det, h00 / det  # the slope's row of H^-1
    var = r0 * r0 * b00 + 2.0 * r0 * r1 * b01 + r1 * r1 * b11
    z: np.ndarray = (b - 1.0) / np.sqrt(var)
    return np.where(ok & settled, z, np.nan)


@rows_form
def calibration_slope(
    scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
    score_type: str = "probability", sample_weight: Any = None,
    pos_label: Any = None,
) -> CalibrationSlope:
    r"""Calibration-in-the-large :math:`\alpha` (:math:`\mathrm{logit}P = \alpha + \eta`) and
    calibration slope :math:`b` (:math:`\mathrm{logit}P = a + b\eta`), with standard errors.

    :math:`\eta` is the logit of the score. A slope below 1 means the scores are too
    extreme (over-confident); :math:`\alpha > 0` means the model predicts too few events.
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return calibration_slope_of(data)


# ----------------------------------------------------------------------------------
# all tests together (for the audit)
# ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class CalibrationTests(Display):
    """Spiegelhalter, Hosmer–Lemeshow and the logistic recalibration, as one audit section."""

    spiegelhalter: SpiegelhalterTest | None
    hosmer_lemeshow: HosmerLemeshowTest | None
    slope: CalibrationSlope | None
    skipped: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "spiegelhalter": None if self.spiegelhalter is None else self.spiegelhalter.to_dict(),
            "hosmer_lemeshow": None if self.hosmer_lemeshow is None else self.hosmer_lemeshow.to_dict(),
            "calibration_slope": None if self.slope is None else self.slope.to_dict(),
            "skipped": dict(self.skipped),
        }

    def __str__(self) -> str:
        lines = ["Calibration tests:"]
        for part in (self.spiegelhalter, self.hosmer_lemeshow, self.slope):
            if part is not None:
                lines.append(str(part))
        lines.extend(f"{name}: not computed ({why})" for name, why in self.skipped.items())
        return "\n".join(lines)


def calibration_tests_of(data: Binary, groups: int = 10, *, n_resamples: int = 2000,
                         seed: Any = None) -> CalibrationTests:
    groups = check_count(groups, "bins", 2)  # a bad option is the caller's mistake, never a "skipped" test
    n_resamples = check_count(n_resamples, "n_resamples")
    seed = check_seed(seed)
    parts: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, fn in (
        ("spiegelhalter", spiegelhalter_of),
        ("hosmer_lemeshow", lambda d: hosmer_lemeshow_of(d, groups, n_resamples=n_resamples, seed=seed)),
        ("slope", calibration_slope_of),
    ):
        try:
            parts[name] = fn(data)
        except VeracityError as exc:
            parts[name] = None
            skipped[name] = str(exc)
    return CalibrationTests(skipped=skipped, **parts)


@renamed(groups="bins")
@rows_form
def calibration_tests(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 10,
    n_resamples: int = 2000,
    random_state: Any = None,
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> CalibrationTests:
    """Spiegelhalter's z, Hosmer–Lemeshow and the calibration slope at once; a test that is
    undefined for this data is listed in ``skipped`` with the reason instead of raising.
    ``bins``, ``n_resamples`` and ``random_state`` are Hosmer–Lemeshow's (its equal-count bins, of equal
    weight with uneven weights; the redraws of its Monte-Carlo p-value when a bin expects fewer than 5
    events or non-events, see
    :func:`hosmer_lemeshow`)."""
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return calibration_tests_of(data, bins, n_resamples=n_resamples, seed=random_state)


def _chi2_sf(stat: float, dof: int) -> float:
    """The chi-square law's upper tail, scipy.special's ``chdtrc`` (the doubles of ``scipy.stats.chi2.sf``,
    without loading scipy.stats)."""
    return float(chdtrc(dof, stat))
