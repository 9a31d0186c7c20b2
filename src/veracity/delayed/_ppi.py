r"""Prediction-powered estimates of a rate from a few labels and many scored rows.

A window has :math:`n` rows whose outcome is known — a **random** audit sample — and
:math:`N` rows with only a score :math:`f`. The PPI++ estimate of the mean outcome
(Angelopoulos, Duchi & Zrnic 2023, *PPI++: Efficient Prediction-Powered Inference*)

.. math:: \hat\theta_\lambda = \lambda\,\bar f_{\text{unlabelled}}
          + \overline{(y - \lambda f)}_{\text{labelled}}

is unbiased for every fixed :math:`\lambda` — the scores need not be calibrated —
with the normal interval :math:`\hat\theta_\lambda \pm z\sqrt{\hat\sigma^2_{y-\lambda f}/n
+ \lambda^2\hat\sigma^2_f/N}` (variances with divisor :math:`n`, :math:`N`). Power tuning
picks the :math:`\lambda` that minimises that variance,

.. math:: \hat\lambda = \frac{\widehat{\mathrm{Cov}}(y, f)}{(1 + n/N)\,\widehat{\mathrm{Var}}(f)}
          \quad\text{clipped to } [0, 1],

(covariance over the labelled rows with divisor :math:`n`, variance over all
:math:`n + N` scores with divisor :math:`n + N - 1`): :math:`\lambda = 0` is the classical
mean of the labels, :math:`\lambda = 1` plain PPI. These are exactly ``ppi_py``'s
``ppi_mean_pointestimate`` / ``ppi_mean_ci`` (``lam=None``), to rounding — the interval cut at
[0, 1], and only where the labels hold at least 10 of each class (weighted: by their Kish size).
Below that the normal interval of a rare outcome under-covers (88 % for a 95 % interval with 100
labels at a rate of 0.05), and the rate's interval is the modified Wilson interval (Wilson's, with
Garwood's exact Poisson end below 10 effective events) at the PPI estimate :math:`\hat p`
with the effective labels :math:`n^* = \hat p(1 - \hat p)/\hat\sigma^2` (:math:`\hat\sigma` PPI's
standard error; :func:`~veracity.delayed._ppi_sums.rare_outcome_interval`); a designed sample
(``propensity=``) with fewer than 10 of one class among its labels drawn at random takes that interval
for the rate of the rows not labelled with certainty
(:func:`~veracity.delayed._design.rare_design_interval`), and one whose random labels were drawn with unequal
propensities takes Fay and Feuer's gamma interval for the sampled count of positives
(:func:`~veracity.delayed._design.uneven_design_interval`). Coverage given the count of labelled positives
stays at 0.96-1.00 for every count from 5 to 15 where each is a typical count, on both sides of the switch
(seeded simulation in tests/delayed/test_ppi_rare_r17.py).

Beside it every result carries

* the **classical** estimate (labels only) and the **CBPE** estimate (the mean score of
  all rows, with the Poisson-binomial interval :math:`\pm z\sqrt{\sum f(1-f)}/M` that is
  right only if the scores are calibrated — where they expect fewer than 10 events or non-events, or the
  count's spread lies below :func:`~veracity.delayed._ppi_sums.count_handover` of the level, the
  skewed count's own interval, :func:`~veracity.delayed._ppi_sums.rare_cbpe_interval`: the normal one
  covered 0.91 of realised rates at 0.5 expected events, 0.741 at 0.8 past 10; weighted rows: its hull
  with that interval at an effective size, :func:`~veracity.delayed._ppi_sums.weighted_cbpe_interval`);
* the **rectifier** :math:`\overline{y - f}` over the labelled rows with its interval —
  calibration-in-the-large of the window, estimated without assuming anything. When
  its interval excludes 0 the scores are not calibrated here and CBPE's estimate is
  not valid; the result says so.

Everything is a function of a handful of sums per window (:class:`PpiSums`), so a
store computes them in SQL and calls :func:`ppi_from_sums` for all windows at once.

**Sample weights** (survey / importance weights; only their ratios matter) give the
weighted means and the linearised (Hájek) variance :math:`\sum_i \omega_i^2 (r_i -
\bar r)^2` with :math:`\omega = w / \sum w`; unweighted this is the formula above. Uneven weights are
power-tuned with the :math:`\lambda` that minimises that variance
(:func:`~veracity.delayed._ppi_sums.weighted_lambda`; ppi_py's estimate at that :math:`\lambda`, and its own
tuning and interval differ).
Weights of one side only (``sample_weight`` without ``sample_weight_unlabelled``, or the
reverse) are read relative to their mean: the other side's rows weigh one mean weight each.
A row of weight 0 is a dropped row (it counts nowhere, not even as a label). Equal weights are no weights
(the unweighted result). Uneven labelled weights skew the weighted mean and its variance together, and
:math:`\hat\theta \pm z\hat\sigma` covered 85-93 % at Kish sizes of 80-1000 with log-normal weights; their
interval is widened to the design-effect Wilson interval where that is wider
(:func:`~veracity.delayed._ppi_sums.weighted_rate_interval`; 91-100 % in the same simulations), and to the
score interval under the scores' Bernoulli model (:func:`~veracity.delayed._ppi_sums.weighted_score_interval`:
weights rising with the risk had left 0.905-0.956, now 0.930-0.971). The
rectifier's interval, which judges calibration, is widened likewise to its hull with the score interval of
the gap (:func:`~veracity.delayed._ppi_sums.weighted_gap_interval`): its normal interval had judged calibrated
scores "not calibrated" up to twice as often as the level allows.

**The audit sample must be random.** PPI's validity rests on the labelled rows being a
uniformly random sample of the window. A sample of flagged rows only, or of the
early-maturing outcomes, is not: :func:`ppi_mean` compares the labelled rows' score
histogram with the unlabelled rows' (a chi-square test of homogeneity; weighted rows by their
weighted histograms, counted by their Kish size) and refuses —
or, with ``sample_check="flag"``, marks the result invalid — when they clearly differ.
``audit_sample=`` (a mask over the labelled rows) keeps only the randomly sampled
labels for PPI; the other labelled rows count as scored rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._special import chdtrc, expit
from ..core._text import fmt_p
from ..core._validation import (VeracityError, as_float_array, check_binary_labels, check_same_index,
                                check_score_type, check_weights, to_numpy)
from ..core._weights import rescale_weights
from ..decisions._inputs import scores_1d
# the estimates from sums and the result live in their own modules; every name stays importable from here
from ._ppi_result import (FEW as FEW, FEW_DRAWN as FEW_DRAWN, FEW_EFFECTIVE as FEW_EFFECTIVE,
                          FEW_LABELS as FEW_LABELS, NOT_CALIBRATED as NOT_CALIBRATED, ZERO_WIDTH as ZERO_WIDTH,
                          PpiMean as PpiMean, _result, few_labels_note as few_labels_note,
                          ppi_records as ppi_records, weighted_class_note as weighted_class_note)
from ._ppi_sums import (NO_SPREAD as NO_SPREAD, RATE_BOUNDS as RATE_BOUNDS, PpiSums as PpiSums,
                        check_level as check_level, cut_to_range as cut_to_range,
                        judged_calibrated as judged_calibrated, ppi_from_sums as ppi_from_sums,
                        rare_cbpe_interval as rare_cbpe_interval,
                        weighted_cbpe_interval as weighted_cbpe_interval, z_of as z_of)

#: a labelled sample whose score histogram differs from the unlabelled rows' at this
#: p-value is not a random sample of the window
SAMPLE_CHECK_P = 1e-4
SAMPLE_CHECK_BINS = 10
SAMPLE_CHECKS = ("raise", "flag", "off")


# -- the audit-sample check -----------------------------------------------------------------
def sample_check_p(counts_labelled: np.ndarray, counts_unlabelled: np.ndarray) -> float:
    """p-value of a chi-square test that two score histograms (same bins) come from one law."""
    a = np.asarray(counts_labelled, dtype=np.float64)
    b = np.asarray(counts_unlabelled, dtype=np.float64)
    keep = (a + b) > 0
    a, b = a[keep], b[keep]
    if a.size < 2 or a.sum() == 0 or b.sum() == 0:
        return 1.0
    col = a + b
    ea = col * a.sum() / col.sum()
    eb = col * b.sum() / col.sum()
    stat = float((((a - ea) ** 2) / ea).sum() + (((b - eb) ** 2) / eb).sum())
    return float(chdtrc(a.size - 1, stat))


#: the smallest expected count of a cell of a chi-square test (Cochran's rule): sparser bins are merged
MIN_EXPECTED = 5.0


def merge_sparse_bins(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The two histograms with adjacent bins merged, in score order, until every cell's expected count is at
    least :data:`MIN_EXPECTED` under homogeneity: a run of bins becomes one cell once its pooled count
    :math:`c` reaches :math:`5\,N / \min(n_a, n_b)` (the smaller histogram then expects
    :math:`c \min(n_a, n_b) / N \ge 5` there); a short run left at the end joins the cell before it.
    One ``searchsorted`` per merged cell. (The random-sample check here and the store's score-shift test,
    :func:`veracity.monitoring._shift.chi2_homogeneity`, both merge with it.)"""
    starts = merge_starts(a, b)
    return np.add.reduceat(a, starts), np.add.reduceat(b, starts)


def merge_starts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The first bin of each merged cell of :func:`merge_sparse_bins` (``np.add.reduceat`` merges any
    per-bin sums of the same rows alike: the weights' squares of a weighted histogram, say)."""
    c = np.cumsum(a + b)
    need = MIN_EXPECTED * c[-1] / min(float(a.sum()), float(b.sum()))
    ends, done = [], 0.0
    while True:
        e = int(np.searchsorted(c, done + need * (1 - 1e-12), side="left"))
        if e >= c.size:
            break
        ends.append(e)
        done = float(c[e])
    if not ends:
        return np.zeros(1, dtype=np.intp)
    ends[-1] = c.size - 1  # the short run at the end joins the last cell
    return np.r_[0, np.asarray(ends[:-1], dtype=np.intp) + 1]


def _histogram(x: np.ndarray, edges: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    r"""Rows of ``x`` per bin of ``edges``; weighted, the weighted shares times the Kish size
    :math:`(\sum w)^2 / \sum w^2` — the counts a sample of that many unweighted rows would give."""
    idx = np.searchsorted(edges, x, side="right")
    if w is None:
        return np.bincount(idx, minlength=edges.size + 1).astype(np.float64)
    return np.bincount(idx, weights=w, minlength=edges.size + 1) * (float(w.sum()) / float(w @ w))


def _sample_check(f: np.ndarray, g: np.ndarray, w: np.ndarray | None = None,
                  u: np.ndarray | None = None) -> float:
    """p-value of the random-sample check: the labelled scores ``f`` against the unlabelled ``g`` in
    :data:`SAMPLE_CHECK_BINS` bins at ``g``'s quantiles, sparse bins merged (:func:`merge_sparse_bins`)
    so that every cell expects at least :data:`MIN_EXPECTED` rows of the smaller side. Unmerged, a
    window labelled almost in full at random (400 of 405 rows: five unlabelled rows in ten bins)
    was called "not a random sample" in 11 % of windows for a test at p < 1e-4.

    With weights (``w`` of the labelled rows, ``u`` of the unlabelled; None: 1 each) the histograms are
    the weighted ones, each side counted by its Kish size (:func:`_histogram`; equal weights: the counts):
    PPI with weights needs the weighted labelled rows to look like the weighted unlabelled ones, and a
    stratified review weighted by its stratum's unlabelled rows over its labels does, though its unweighted
    scores do not (tests/delayed/test_sample_check_weights_r20.py)."""
    if g.size < 2 or f.size < 2:
        return 1.0
    edges = np.unique(np.quantile(g, np.linspace(0, 1, SAMPLE_CHECK_BINS + 1)[1:-1]))
    a, b = _histogram(f, edges, w), _histogram(g, edges, u)
    keep = (a + b) > 0
    a, b = merge_sparse_bins(a[keep], b[keep])
    return sample_check_p(a, b)


def _nonrandom_message(p: float, f: np.ndarray, g: np.ndarray, w: np.ndarray | None = None,
                       u: np.ndarray | None = None) -> str:
    weighted = " weighted" if w is not None or u is not None else ""
    mean_f, mean_g = np.average(f, weights=w), np.average(g, weights=u)
    return (f"the {f.size:,} labelled rows are not a random sample of the window: their{weighted} scores "
            f"differ from the {g.size:,} unlabelled rows' (mean {mean_f:.3f} vs {mean_g:.3f}; chi-square "
            f"p = {fmt_p(p)}), and PPI is valid only for a random audit sample. Label randomly chosen "
            "rows (vc.labels_needed says how many), pass audit_sample= marking the randomly sampled ones, "
            "or, for a designed sample (every flagged row and a random share of the others, say), pass "
            "propensity= with each labelled row's chance of having been labelled")


def probabilities_1d(scores: Any, *, score_type: Any = "probability", name: str = "scores",
                     what: str = "this function") -> np.ndarray:
    """1-D probabilities of the positive class: the scores as given (``score_type="probability"``, checked to
    lie in [0, 1]) or the probabilities expit(s) of logits s
    (``score_type="logit"``); a ranking score (``"score"``) has no probability reading and is refused."""
    check_score_type(score_type, what=what)
    s = scores_1d(scores, score_type=score_type, name=name)
    return expit(s) if score_type == "logit" else s


def _labels_and_scores(labels: Any, scores_labelled: Any, scores_unlabelled: Any, pos_label: Any,
                       score_type: Any = "probability", what: str = "vc.ppi_mean"
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = probabilities_1d(scores_labelled, score_type=score_type, name="scores_labelled", what=what)
    y = check_binary_labels(labels, f.shape[0], pos_label)
    g = probabilities_1d(scores_unlabelled, score_type=score_type, name="scores_unlabelled", what=what)
    return y, f, g


def check_row_indexes(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, sample_weight: Any = None,
                      sample_weight_unlabelled: Any = None, audit_sample: Any = None,
                      propensity: Any = None) -> None:
    """Refuse pandas inputs of one side (the labelled rows; the unlabelled rows) on different indexes:
    matched by position they would pair a label, weight or propensity with another row's score (as
    everywhere in veracity)."""
    check_same_index(scores_labelled=scores_labelled, labels=labels, sample_weight=sample_weight,
                     audit_sample=audit_sample, propensity=propensity)
    check_same_index(scores_unlabelled=scores_unlabelled, sample_weight_unlabelled=sample_weight_unlabelled)


def _check_mask(audit_sample: Any, n: int) -> np.ndarray | None:
    if audit_sample is None:
        return None
    raw = to_numpy(audit_sample, "audit_sample")
    if raw.ndim != 1 or raw.shape[0] != n:
        raise VeracityError(f"audit_sample must be one True/False per labelled row ({n}), got shape {raw.shape}")
    if raw.dtype != bool:
        vals = as_float_array(raw, "audit_sample")
        if not np.isin(vals, (0.0, 1.0)).all():
            raise VeracityError("audit_sample must be True/False (or 1/0): True where the row was labelled "
                                "because it was randomly sampled")
        raw = vals == 1.0
    return raw


def _mean_one(w: np.ndarray | None) -> np.ndarray | None:
    """Weights divided by their mean over the rows of positive weight (None stays None)."""
    return None if w is None else w / float(np.mean(w[w > 0]))


def _joint_weights(sample_weight: Any, sample_weight_unlabelled: Any, n: int, m: int
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Checked weights of the labelled and the unlabelled rows. Given both, they are in one unit: CBPE's
    mean over all rows (and audit_sample's rows moved to the unlabelled side) compare the two, so
    extreme weights are scaled by one common power of two, never each by its own. Given one side
    only, the other side's rows weigh 1 each, so the given weights are divided by their mean over the
    rows of positive weight: a row of that side weighs its weight over the mean weight, and
    multiplying all of them by a constant changes nothing (CBPE pools both sides, and audit_sample
    moves labelled rows to the unlabelled side)."""
    if sample_weight is None or sample_weight_unlabelled is None:
        return _mean_one(check_weights(sample_weight, n)), _mean_one(check_weights(sample_weight_unlabelled, m))
    w = check_weights(sample_weight, n, rescale=False)
    u = check_weights(sample_weight_unlabelled, m, rescale=False)
    assert w is not None and u is not None  # both given
    w, u = rescale_weights(w, u)  # one power of two from the largest and smallest weight of both sides
    return w, u


def _unweighted_if_equal(w: np.ndarray | None, u: np.ndarray | None
                         ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(None, None)`` where every row of positive weight weighs the same up to rounding (relative 1e-12; one
    value over both sides when both carry weights — a side given no weights already weighs one mean weight a
    row, :func:`_joint_weights`): equal weights are no weights, and take the unweighted route bit for bit, the
    exact rare-class judgement of calibration included (tests/delayed/test_ppi_weighted_coverage_r28.py).
    Else the weights unchanged."""
    given = [x for x in (w, u) if x is not None and x.size]
    if not given:
        return w, u
    vals = np.concatenate(given)
    top = float(vals.max())
    return (None, None) if top - float(vals.min()) <= 1e-12 * top else (w, u)


def _check_sample_mode(sample_check: Any) -> str:
    if sample_check not in SAMPLE_CHECKS:
        raise VeracityError(f"sample_check must be 'raise', 'flag' or 'off', got {sample_check!r}")
    return str(sample_check)


def _prepare(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, sample_weight: Any,
             sample_weight_unlabelled: Any, audit_sample: Any, pos_label: Any, sample_check: Any,
             score_type: Any = "probability", what: str = "vc.ppi_mean"
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, int, float, bool]:
    """Checked (y, f, g, w, u, excluded, sample p, sample valid) for one window (``f``, ``g``:
    probabilities)."""
    mode = _check_sample_mode(sample_check)
    y, f, g = _labels_and_scores(labels, scores_labelled, scores_unlabelled, pos_label, score_type, what)
    w, u = _joint_weights(sample_weight, sample_weight_unlabelled, f.shape[0], g.shape[0])
    mask = _check_mask(audit_sample, f.shape[0])
    excluded = 0
    if mask is not None and not mask.all():
        excluded = int((~mask).sum())
        if u is not None or w is not None:
            u = np.concatenate([np.ones(g.size) if u is None else u, (np.ones(f.size) if w is None else w)[~mask]])
        g = np.concatenate([g, f[~mask]])
        y, f = y[mask], f[mask]
        w = None if w is None else w[mask]
    if y.size < 2:
        raise VeracityError(f"PPI needs at least 2 randomly sampled labelled rows, got {y.size}; label more rows "
                            "of the window (vc.labels_needed says how many)")
    if w is not None and int((w > 0).sum()) < 2:  # rows of weight 0 are no evidence: one row would give [e, e]
        raise VeracityError(f"PPI needs at least 2 randomly sampled labelled rows of positive sample_weight, got "
                            f"{int((w > 0).sum())}; give more labelled rows a weight above 0")
    if w is not None and not w.all():  # a row of weight 0 is a dropped row (λ, the counts, the sample check)
        y, f, w = y[w > 0], f[w > 0], w[w > 0]
    if u is not None and not u.all():
        g, u = g[u > 0], u[u > 0]
    w, u = _unweighted_if_equal(w, u)
    if g.size < 1:
        raise VeracityError("scores_unlabelled is empty: every row is labelled, so the classical rate needs no "
                            "scores; pass the rows that have no label yet")
    p = 1.0
    valid = True
    if mode != "off":
        p = _sample_check(f, g, w, u)
        if p < SAMPLE_CHECK_P:
            if mode == "raise":
                raise VeracityError(_nonrandom_message(p, f, g, w, u))
            valid = False
    return y, f, g, w, u, excluded, p, valid


def _rare_cbpe(out: dict[str, Any], f: np.ndarray, g: np.ndarray, level: float) -> None:
    """CBPE's interval from all the window's scores ``f`` and ``g`` where they expect fewer than 10 events (or
    non-events): :func:`~veracity.delayed._ppi_sums.rare_cbpe_interval`. In place."""
    s1, s2, s3 = (float(np.sum(f**k)) + float(np.sum(g**k)) for k in (1, 2, 3))
    rare_cbpe_interval(out, s1, s2, s3, f.size + g.size, level)


def ppi_mean(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, level: float = 0.95,
             power_tuning: bool = True, sample_weight: Any = None, sample_weight_unlabelled: Any = None,
             audit_sample: Any = None, sample_check: str = "raise", propensity: Any = None,
             pos_label: Any = None, score_type: str = "probability") -> PpiMean:
    r"""Prediction-powered (PPI++) estimate of the rate, with its interval, from a random
    audit sample and the window's scored rows.

    ``labels`` and ``scores_labelled`` are the audited rows; ``scores_unlabelled`` the rows
    without a label. ``power_tuning=False`` uses :math:`\lambda = 1` (plain PPI).
    ``audit_sample`` (True/False per labelled row) marks the labels that come from random
    sampling; only those enter PPI. ``sample_check`` — ``"raise"`` (default) refuses a
    labelled sample whose scores clearly differ from the unlabelled rows' (not random),
    ``"flag"`` returns the result marked ``valid=False``, ``"off"`` skips the check.
    ``propensity`` — for a *designed* sample (every flagged row and 2 % of the others,
    say): each labelled row's known probability of having been chosen; the estimate is
    then the inverse-probability-weighted PPI of :mod:`veracity.delayed._design`, valid for
    the window's realised rate without a uniform sample (at least 2 labelled rows must have been drawn at
    random, propensity < 1). The random-sample check is replaced there by a check that the propensities
    describe this window: labels drawn at random that stand for clearly more rows, :math:`\sum 1/\pi`, than
    the window has beyond its rows labelled with certainty (:func:`~veracity.delayed._design.design_size`:
    ``scores_unlabelled`` holding only part of the window, say) are refused (``sample_check="raise"``) or
    marked ``valid=False`` (``"flag"``). ``score_type="logit"`` reads the
    scores as logits, each the probability expit(s) (``"probability"``, the default: scores in [0, 1]).

    The interval is PPI++'s normal one :math:`\hat\theta \pm z\hat\sigma` cut at [0, 1] (``ppi_py``'s),
    except where the labels hold fewer than 10 of one class (weighted labels: :math:`\bar y_w n_{\text{eff}}`
    or :math:`(1 - \bar y_w) n_{\text{eff}}` below 10, :math:`n_{\text{eff}}` their Kish size): there it is
    the modified Wilson interval (Wilson's score interval, each end moved out to Garwood's exact Poisson
    bound where fewer than 10 effective events lie beyond it) at :math:`\hat p = \hat\theta` cut to
    [0, 1] with
    :math:`n^* = \hat p(1-\hat p)/\hat\sigma^2` effective labels (:math:`n` where :math:`\hat p` is 0 or 1 or
    :math:`\hat\sigma` is 0; at most :math:`n` when every label is one class), which covers rare outcomes at
    the level (:func:`~veracity.delayed._ppi_sums.rare_outcome_interval`). A designed sample does the same
    where its labels drawn at random (propensity < 1) hold fewer than 10 of one class, for the rate of the
    rows not labelled with certainty (:func:`~veracity.delayed._design.rare_design_interval`), and takes Fay
    and Feuer's gamma interval where those labels were drawn with unequal propensities
    (:func:`~veracity.delayed._design.uneven_design_interval`). Uneven labelled
    weights widen it to its hull with the modified Wilson interval at
    :math:`n^* = \min(\hat p(1-\hat p), n_{\text{eff}} s_c^2) / \hat\sigma^2` (:math:`s_c` the labels' own
    standard error; :func:`~veracity.delayed._ppi_sums.weighted_rate_interval`) and with the score interval
    :math:`(\hat\theta - \bar f - \delta)^2 \le z^2 (\sum \omega_i^2 (f_i + \delta)(1 - f_i - \delta) + (1 -
    \lambda)^2 \sum \omega_i^2 (f_i - \bar f)^2 + \lambda^2 \sum \nu_j^2 (g_j - \bar g)^2)` of the rate
    :math:`\bar f + \delta` (:func:`~veracity.delayed._ppi_sums.weighted_score_interval`), and the rectifier's
    to its hull with the score interval :math:`(\hat d - \delta)^2 \le z^2 \sum \omega_i^2 (f_i + \delta)(1 -
    f_i - \delta)` of the gap (:func:`~veracity.delayed._ppi_sums.weighted_gap_interval`), which judges
    calibration; equal weights are no weights (the unweighted result, bit for bit).

    >>> r = ppi_mean([1, 0, 0, 1, 0, 0], [0.9, 0.2, 0.1, 0.6, 0.3, 0.2], [0.8, 0.1, 0.3, 0.2, 0.7, 0.1, 0.2])
    >>> round(r.estimate, 4), round(r.lam, 4)
    (0.3004, 0.8135)
    """
    level = check_level(level)
    if not isinstance(power_tuning, (bool, np.bool_)):  # "no" would read as True
        raise VeracityError(f"power_tuning must be True or False, got {power_tuning!r}", param="power_tuning")
    check_row_indexes(labels, scores_labelled, scores_unlabelled, sample_weight=sample_weight,
                      sample_weight_unlabelled=sample_weight_unlabelled, audit_sample=audit_sample,
                      propensity=propensity)
    if propensity is not None:
        from ._design import DESIGN_Z, check_propensity, design_estimates, design_size

        if sample_weight is not None or sample_weight_unlabelled is not None or audit_sample is not None:
            raise VeracityError("propensity= already weighs each labelled row by 1 / propensity; drop "
                                "sample_weight= and audit_sample= (give every labelled row its propensity)")
        _check_sample_mode(sample_check)
        y, f, g = _labels_and_scores(labels, scores_labelled, scores_unlabelled, pos_label, score_type)
        pi = check_propensity(propensity, f.size)
        drawn = int((pi < 1).sum())
        if drawn < 2:  # certain rows say nothing of the unlabelled rows: the interval would be [e, e]
            raise VeracityError(
                f"PPI with propensity= needs at least 2 labelled rows drawn at random (propensity < 1), got "
                f"{drawn}: rows labelled with certainty (propensity 1) say nothing about the unlabelled rows' "
                "outcomes; label randomly chosen rows as well", param="propensity")
        valid = True
        if sample_check != "off":  # propensities of a larger window (design_size)
            S, M_r, z = design_size(pi, float(y.size + g.size))
            if z > DESIGN_Z:
                if sample_check == "raise":
                    raise VeracityError(
                        f"the propensities do not describe this window: the {drawn:,} labels drawn at random "
                        f"stand for {S:,.0f} rows (the sum of 1 / propensity), but the window has {M_r:,.0f} "
                        f"rows not labelled with certainty ({z:.1f} standard errors more), so the estimates "
                        f"would read too high (the labels' inverse-propensity sums {S / M_r:.2g} times too "
                        "high). Pass all of the window's unlabelled rows as scores_unlabelled, and each "
                        "labelled row's chance of being labelled from this window (sample_check='flag' marks "
                        "the result invalid instead)", param="propensity")
                valid = False
        out = design_estimates(y, f, g, pi, level=level, power_tuning=bool(power_tuning))
        _rare_cbpe(out, f, g, level)
        return _result(out, level=level, n=y.size, m=g.size, excluded=0, p=float("nan"), valid=valid,
                       drawn=drawn)
    y, f, g, w, u, excluded, p, valid = _prepare(
        labels, scores_labelled, scores_unlabelled, sample_weight=sample_weight,
        sample_weight_unlabelled=sample_weight_unlabelled, audit_sample=audit_sample, pos_label=pos_label,
        sample_check=sample_check, score_type=score_type)
    sums = PpiSums.of(y, f, g, w, u)
    out = ppi_from_sums(sums, level=level, power_tuning=bool(power_tuning))
    if w is None and u is None:
        _rare_cbpe(out, f, g, level)
    else:  # weighted rows: the hull with the count interval at their effective size
        weighted_cbpe_interval(out, np.concatenate([f, g]), np.concatenate(
            [np.ones(f.size) if w is None else w, np.ones(g.size) if u is None else u]), level)
    return _result(out, level=level, n=y.size, m=g.size, excluded=excluded, p=p, valid=valid, w=w, sums=sums)
