r"""Split conformal classification: prediction sets with a coverage guarantee.

Seed 003 (Angelopoulos & Bates 2021, §1, §3.2): on *n* calib points compute a
nonconformity score, take :math:`\hat q` = the :math:`\lceil (n+1)(1-\alpha) \rceil`-th
smallest, and predict every class whose score is :math:`\le \hat q`. On fresh
exchangeable data the true class is in the set with probability :math:`\ge 1-\alpha`.

Under covariate shift (Tibshirani, Barber, Candès & Ramdas 2019, "Conformal prediction under
covariate shift", Cor. 1) the calib rows carry the likelihood ratios :math:`w_i = w(x_i)`,
:math:`w(x) = dP_{test}/dP_{calib}(x)` (``sample_weight=``) and a test row at *x* its own
:math:`w(x)` (``test_weight=``): its threshold is the :math:`(1-\alpha)` quantile of
:math:`\sum_i p_i(x)\,\delta_{s_i} + p_\infty(x)\,\delta_{+\infty}`,
:math:`p_i(x) = w_i / (\sum_j w_j + w(x))`, :math:`p_\infty(x) = w(x) / (\sum_j w_j + w(x))`,
one threshold per test row.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from ..core._intervals import modified_wilson
from ..core._special import betainc, betaincinv
from ..core._text import count_noun, fmt, fmt_count, render_table
from ._table import point_aligned, threshold_cell
from ..core._compat import positional_options
from ..core._options import ScoreType
from ..core._weights import kish_size, share_size
from ..core._validation import (
    LOGIT_CHECK_MIN_ROWS,
    VeracityError,
    as_float_array,
    check_binary_labels,
    check_logit_scale,
    check_random_state,
    check_same_index,
    check_score_type,
    check_weights,
    labels_with_pos_label,
    not_probabilities,
    plain,
    prepare_multiclass,
    refuse_pos_label_for_multiclass,
)
from ._inputs import CEIL_EPS, ceil_rank, check_alpha, check_target
from ._thresholds import effective_number, min_positives, plus_one_weight
from ..core._display import Display, html_kv, html_note, html_page, html_table

#: the largest RAPS penalty ``lam`` taken: every lam above 1 gives the same sets, and past about 1e12 the
#: probabilities added to the penalty are lost in floating point
MAX_LAM = 1e6

#: nonconformity scores of :class:`ConformalClassifier` (``score=``)
ConformalScore = Literal["lac", "aps", "raps"]
SCORES: tuple[ConformalScore, ...] = ("lac", "aps", "raps")


def _prob_matrix(probs: Any, labels: Any | None, score_type: str,
                 pos_label: Any = None, n_classes: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(N, K) probabilities (a 1-D binary score p becomes columns [1 − p, p]) and int labels;
    ``pos_label`` (1-D binary scores only) names the label value of class 1; ``n_classes`` (a
    fitted classifier's K) is checked before the rows are (else K − 1 columns read "rows must sum to 1")."""
    check_score_type(score_type, what="a conformal classifier")  # its sets read probabilities: "score" refused
    raw = as_float_array(probs, "probs")
    binary = raw.ndim == 1 or (raw.ndim == 2 and raw.shape[1] == 1)
    if pos_label is not None and labels is not None:
        if not binary:
            refuse_pos_label_for_multiclass(pos_label, raw.shape[1])
        labels = labels_with_pos_label(labels, pos_label, raw.shape[0]).astype(np.int64)
    elif binary and labels is not None:
        # one binary probability per row: its labels are 0/1 (the binary checks name pos_label= for
        # 'yes'/'no' or 1/2, where the multiclass ones would speak of class columns)
        labels = check_binary_labels(labels, raw.shape[0]).astype(np.int64)
    if binary:
        p = raw.reshape(-1)
        if score_type == "logit":
            from scipy.special import expit

            # probabilities declared as logits are refused: on fit and coverage data from 2 distinct values,
            # on the rows of predict_sets from LOGIT_CHECK_MIN_ROWS (a few logits in [0, 1] are plausible);
            # there they passed silently through the sigmoid (every p in [0.5, 0.73]), where (N, K) ones were
            # refused
            check_logit_scale(p, "probs", min_rows=0 if labels is not None else LOGIT_CHECK_MIN_ROWS)
            p = expit(p)
        elif p.min() < 0 or p.max() > 1:  # the library's one wording: the count, the percentage hint
            bad = (p < 0) | (p > 1)
            raise not_probabilities("probs", int(bad.sum()), p.size, float(p.min()), float(p.max()),
                                    rows=np.flatnonzero(bad), n_rows=p.size)
        raw = np.column_stack([1.0 - p, p])
        score_type = "probability"
    if n_classes is not None and raw.ndim == 2 and raw.shape[1] != n_classes:
        given = "one binary score per row" if binary else f"{raw.shape[1]} class columns"
        raise VeracityError(f"probs have {given} but the classifier was fit on {n_classes} classes; pass the "
                            "same class columns, in the same order, as to fit", param="probs")
    fake = np.zeros(raw.shape[0]) if labels is None else labels
    P, y, _, _ = prepare_multiclass(raw, fake, score_type=score_type)
    return P, (None if labels is None else y)


#: why a calib set too small for alpha is refused (the "+1" correction), said in every such error
PLUS_ONE = ("the +1 counts the test row, whose score may exceed every calib score: with fewer rows q̂ is "
            "+inf, every class in every set")


def min_calibration_size(alpha: float) -> int:
    r"""The fewest calib points for which :math:`\lceil (n+1)(1-\alpha) \rceil \le n`.

    That is :math:`n \ge (1-\alpha)/\alpha`: 9 for α = 0.1, 19 for α = 0.05.

    >>> min_calibration_size(0.1), min_calibration_size(0.05)
    (9, 19)
    """
    a = check_alpha(alpha)
    if 1.0 - a == 1.0:  # "target must be in (0, 1), got 1.0" was said of an alpha the user never wrote
        raise VeracityError(f"alpha={a:g} is too small: 1 - alpha rounds to 1 in floating point, so no calib "
                            "set reaches the rank ceil((n+1)(1-alpha)) <= n; pass e.g. alpha=0.01",
                            param="alpha")
    return min_positives(1.0 - a)


def conformal_rank(n: int, alpha: float) -> int:
    r"""The rank :math:`k = \lceil (n+1)(1-\alpha) \rceil` of :math:`\hat q` among *n* calib scores, at
    least 1: for α so near 1 that :math:`(n+1)(1-\alpha)` is below the ceiling's tolerance, k = 0 took the
    *largest* score (index k − 1 = −1), a near-full set where the rule asks for the smallest."""
    return max(1, ceil_rank((n + 1) * (1.0 - alpha)))


@overload
def conformal_quantile(scores: Any, alpha: float, sample_weight: Any = None, *,
                       test_weight: None = None) -> float: ...


@overload
def conformal_quantile(scores: Any, alpha: float, sample_weight: Any = None, *,
                       test_weight: Any) -> np.ndarray: ...


def conformal_quantile(scores: Any, alpha: float, sample_weight: Any = None, *,
                       test_weight: Any = None) -> float | np.ndarray:
    r""":math:`\hat q` = the :math:`k`-th smallest of the *n* scores, :math:`k = \lceil (n+1)(1-\alpha) \rceil`.

    With ``sample_weight`` (weights of the calib rows; a row of weight 0 is a dropped row) and
    no ``test_weight``: the smallest score at which the cumulative weight in ascending order
    reaches :math:`(1-\alpha)(W + W/m) = (1-\alpha)\,W\,(1 + 1/m)`, *W* the total weight and *m* an
    effective number of calib rows: the "+1" test point counted at the weight :math:`W/m`, the
    :math:`k/(n+1)` correction in effective units — the rule below at :math:`t = W/m`. *m* is Kish's
    :math:`(\sum w)^2/\sum w^2` (the test point at the size-biased mean weight :math:`\sum w^2/\sum w`),
    or the size the weights' spread about that q̂ gives when it is smaller,
    :math:`F(1-F)\,W^2/\sum_i w_i^2 (h_i - F)^2` (:math:`h_i = 1\{s_i \le \hat q\}`, *F* their weighted
    share; :func:`_quantile_size`, the size the calib floor reads): that is
    :math:`W/m = (1-F)\,\bar w_{\le} + F\,\bar w_{>}` in size-biased mean weights of the rows at or below
    q̂ and above it, so heavy rows above q̂ — the rows whose own weight the exact rule below would count —
    raise the point's weight. Equal weights give the unweighted rule exactly, like
    :func:`~veracity.recall_threshold`'s weighted rule. Uneven weights carry no finite-sample proof without
    ``test_weight``; measured (seeded simulations, α = 0.1, mean coverage over calib draws): weights
    lognormal with sd 1.5 of the log, independent of the LAC scores, 100 calib rows: the plain mean weight
    :math:`W/n` 0.883, Kish's size 0.926 (sd 2, 1,000 rows: 0.887, 0.911), the smaller size the same
    (0.926, 0.912); a rare, hard class weighted 5x (200 calib rows; coverage weighted alike): Kish's size
    0.8986 ± 0.0003, the smaller size 0.912 (each test row's own weight, the exact rule: 0.912);
    covariate-shift weights :math:`e^{2x}` with scores growing in *x* (200 rows): 0.9035, 0.907 (own weight
    0.907). On 20 such rows it still falls short (0.886: q̂ is often the largest score, with no row above
    it to read), see docs/decisions.md. Uneven weights with *m* below :func:`min_calibration_size` are
    refused (the rule cannot be met).

    With ``test_weight`` (the test rows' own likelihood ratios :math:`w(x)`, in the units of
    ``sample_weight``, which it requires; a number or a 1-D array) the exact rule of
    Tibshirani et al. (2019, Cor. 1): for each test weight *t*,

    .. math:: \hat q(t) = \min\{s_{(j)} : \textstyle\sum_{i \le j} w_{(i)} \ge (1-\alpha)(W + t)\},

    scores in ascending order, :math:`+\infty` when no score reaches it (the mass
    :math:`t / (W + t)` at :math:`+\infty` is more than α: that row's set holds every class).
    Returns an array of the shape of ``test_weight``; ``test_weight`` equal to *W/m* (the
    size-biased mean weight :math:`\sum w^2/\sum w` where Kish's size is the smaller) gives the value
    above (or :math:`+\infty` where that is refused).

    >>> conformal_quantile(np.arange(1, 101) / 100, 0.1)   # k = ceil(101 * 0.9) = 91
    0.91
    >>> conformal_quantile(np.arange(1, 11), 0.2, np.ones(10), test_weight=[0, 1, 3])
    array([ 8.,  9., inf])
    """
    a = check_alpha(alpha)
    s = as_float_array(scores, "scores")
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1:
        raise VeracityError(
            f"scores must be 1-D (one nonconformity score per calib row), got shape {s.shape}; for (N, K) "
            "class probabilities use ConformalClassifier, or pass the score of each row's true class",
            param="scores")
    if test_weight is not None:
        if sample_weight is None:
            raise _test_weight_needs_calib_weights()
        check_same_index(scores=scores, sample_weight=sample_weight)
        cw, shift = _calib_weights(sample_weight, s.shape[0])
        t = _check_test_weight(test_weight, None, shift)
        keep = cw > 0
        cal = _sorted_calib(s[keep], cw[keep])
        return _exact_quantiles(cal, t.reshape(-1), a).reshape(t.shape)
    if sample_weight is not None:
        check_same_index(scores=scores, sample_weight=sample_weight)
        w = check_weights(sample_weight, s.shape[0])
        if w is not None and not w.all():  # a row of weight 0 is a dropped row
            s, w = s[w > 0], w[w > 0]
        if w is not None and w.min() != w.max():
            return _weighted_quantile(s, w, a)
        # equal weights (beside dropped rows): the unweighted rule, bit for bit (the weighted rule's tolerance,
        # 1e-9 of the total weight, is a thousandth of a rank at n = 1e6)
    n = s.shape[0]
    k = conformal_rank(n, a)
    if k > n:
        rows = " of positive weight" if sample_weight is not None else ""
        raise VeracityError(
            f"too few calibration points for alpha={a:g}: need at least {min_calibration_size(a)} calib rows"
            f"{rows} (k = ceil((n+1)(1-alpha)) <= n), got n = {n}; {PLUS_ONE}. Use more calib rows or a larger "
            "alpha"
        )
    return float(np.partition(s, k - 1)[k - 1])


class _UnevenWeights(VeracityError):
    """The weighted +1 rule refused for calib weights whose Kish effective number is too small
    (:func:`conformal_quantile`); :meth:`ConformalClassifier.fit` keeps it for the sets that use q̂."""


def _weighted_quantile(s: np.ndarray, w: np.ndarray, a: float) -> float:
    r"""The rule of :func:`conformal_quantile` without ``test_weight``: the test point counted at
    :math:`t = W/m`, *m* the smaller of Kish's effective number (:math:`t = \sum w^2/\sum w`,
    :func:`~veracity.decisions._thresholds.plus_one_weight`; the mean weight, exactly, for equal weights) and
    the size the weights' spread about that rule's q̂ gives (:func:`_quantile_size`)."""
    s, w = s[w > 0], w[w > 0]
    n = s.shape[0]
    ranked = _sorted_calib(s, w)
    total = float(ranked[1][-1])
    least = min_calibration_size(a)
    m = effective_number(w)
    if n >= least and m < least:  # n < least: the refusal below, whatever the weights
        raise _UnevenWeights(
            f"too few calibration points for alpha={a:g}: the calib weights are uneven, and the +1 "
            f"correction needs an effective number (Kish, (sum w)^2 / sum w^2) of at least {least} calib "
            f"rows, got {m:.3g} of n = {n}; {PLUS_ONE}. Use more calib rows, more even weights or a larger alpha")
    q = _plus_one_quantile(ranked, a, plus_one_weight(w, total), least)
    spread = _quantile_size(s, w, q)
    if not spread < m:  # weights unrelated to the scores about q̂ (or equal): Kish's size
        return q
    if spread < least:  # past Kish's check the share above q̂ (< alpha) leaves a sliver: met in no search
        raise _UnevenWeights(
            f"too few calibration points for alpha={a:g}: the calib weights are uneven, heaviest about q̂, "
            f"and the +1 correction needs an effective number of at least {least} calib rows (the smaller of "
            f"Kish's, {m:.3g}, and the one their spread about q̂ gives, F(1-F) W^2 / sum w^2 (h-F)^2), got "
            f"{spread:.3g} of n = {n}; {PLUS_ONE}. Use more calib rows, more even weights or a larger alpha")
    return _plus_one_quantile(ranked, a, total / spread, least)


def _plus_one_quantile(ranked: _Sorted, a: float, t: float, least: int) -> float:
    r"""The smallest ascending score whose cumulative weight reaches :math:`(1-\alpha)(W + t)` (the
    tolerance of the unweighted rule's ceiling, relative to *W*): the test point counted at weight *t*."""
    s_sorted, cum = ranked
    n = s_sorted.shape[0]
    total = float(cum[-1])
    j = int(np.searchsorted(cum, (1.0 - a) * (total + t) - CEIL_EPS * total, side="left"))
    if j >= n:
        raise VeracityError(
            f"too few calibration points for alpha={a:g}: the weighted rule needs at least "
            f"{least} calib rows of positive weight, whatever their weights "
            f"((1-alpha)(W + sum w^2 / sum w) <= W), got n = {n} (weight {total:.4g}); {PLUS_ONE}. "
            "Use more calib rows or a larger alpha")
    return float(s_sorted[j])


def _test_weight_needs_calib_weights() -> VeracityError:
    return VeracityError(
        "test_weight= (each test row's likelihood ratio w(x) = dP_test/dP_calib) needs the calib rows' "
        "weights w(x_i) in the same units: pass sample_weight= to fit (or to conformal_quantile) too",
        param="test_weight")


def _calib_weights(sample_weight: Any, n: int) -> tuple[np.ndarray, int]:
    """:func:`check_weights` (rescaled by an exact power of two when extreme) and the exponent of
    that power, ``shift`` (weights divided by 2**shift), so that test weights get the same units."""
    raw = check_weights(sample_weight, n, rescale=False)
    w = check_weights(raw, n)
    assert raw is not None and w is not None
    i = int(np.argmax(raw))  # the largest weight: never subnormal after the rescaling
    return w, math.frexp(float(raw[i]))[1] - math.frexp(float(w[i]))[1]


def _check_test_weight(test_weight: Any, n: int | None, shift: int) -> np.ndarray:
    """Finite, non-negative test weights (one per row when ``n`` is given; else a number or a 1-D
    array), in the units of calib weights divided by 2**``shift``."""
    t = as_float_array(test_weight, "test_weight")
    if t.ndim > 1 or (n is not None and t.ndim != 1):
        raise VeracityError("test_weight must be 1-D (one likelihood ratio per test row), got shape "
                            f"{t.shape}", param="test_weight")
    if n is not None and t.shape[0] != n:
        raise VeracityError(f"test_weight has {t.shape[0]} rows but probs have {n}; pass one weight (its "
                            "likelihood ratio w(x)) per test row", param="test_weight")
    if (t < 0).any():
        raise VeracityError(f"test_weight must be non-negative; {int((t < 0).sum())} of {t.size} are "
                            f"negative (min={float(t.min()):.3g})", param="test_weight")
    if shift:
        with np.errstate(over="ignore", under="ignore"):  # a ratio past the float range reads as +inf / 0
            t = np.ldexp(t, -shift)
    return t


#: calib scores in ascending order and their cumulative weights (the exact weighted rule)
_Sorted = tuple[np.ndarray, np.ndarray]


def _sorted_calib(s: np.ndarray, w: np.ndarray) -> _Sorted:
    order = np.argsort(s, kind="stable")
    return s[order], np.cumsum(w[order])


def _exact_quantiles(cal: _Sorted, t: np.ndarray, a: float) -> np.ndarray:
    r"""Per-row :math:`\hat q(t)` of Tibshirani et al. (2019, Cor. 1): the first ascending score whose
    cumulative weight reaches :math:`(1-\alpha)(W + t)` (the tolerance of the unweighted rule's
    ceiling, relative to *W*), :math:`+\infty` past the last; one ``searchsorted`` for all rows."""
    s_sorted, cum = cal
    n = s_sorted.shape[0]
    total = float(cum[-1])
    with np.errstate(over="ignore"):
        need = (1.0 - a) * (total + t) - CEIL_EPS * total
    j = np.searchsorted(cum, need, side="left")
    return np.append(s_sorted, np.inf)[np.minimum(j, n)]


@dataclass(frozen=True, eq=False, repr=False)
class CoverageLaw(Display):
    r"""Distribution of split-conformal coverage given the calib set (Angelopoulos & Bates §3.2):

    .. math:: \text{coverage} \sim \mathrm{Beta}(k,\; n + 1 - k),\qquad k = \lceil (n+1)(1-\alpha) \rceil

    (for continuous scores without ties), i.e. Beta(n + 1 − l, l) with l = ⌊(n+1)α⌋.

    ``classes`` > 1: the marginal coverage of Mondrian sets, one q̂ per class from its own calib rows
    (``n`` in all). It is :math:`\sum_c \pi_c C_c`, each class's :math:`C_c` of the law above on its own
    rows, mixed by the class shares :math:`\pi_c`; that is no Beta, so ``a``, ``b`` are those of the Beta
    of the same mean :math:`\mu` and variance :math:`v`: :math:`a = \mu t`, :math:`b = (1 - \mu) t`,
    :math:`t = \mu(1 - \mu)/v - 1` (``veracity conformal --mondrian`` prints it first).
    """

    n: int
    alpha: float
    a: float
    b: float
    classes: int = 1

    @property
    def mean(self) -> float:
        return self.a / (self.a + self.b)

    @property
    def sd(self) -> float:
        s = self.a + self.b
        return float(np.sqrt(self.a * self.b / (s * s * (s + 1))))

    def interval(self, level: float = 0.9) -> tuple[float, float]:
        """Central interval holding ``level`` of the coverage distribution."""
        level = check_target(level, "level")
        # the Beta law's quantiles at (1 -+ level) / 2, as scipy.stats.beta.interval computes them (the same
        # doubles), without loading scipy.stats (~0.7 s a process)
        lo, hi = (betaincinv(self.a, self.b, (1.0 - level) / 2), betaincinv(self.a, self.b, (1.0 + level) / 2))
        return float(lo), float(hi)

    def cdf(self, x: Any) -> np.ndarray:
        """The Beta law's distribution function at ``x``: scipy.special's regularised incomplete beta at ``x``
        clipped to [0, 1] (the doubles of scipy.stats.beta.cdf, 0 below the support and 1 above)."""
        cdf: np.ndarray = betainc(self.a, self.b, np.clip(x, 0.0, 1.0))  # scipy is untyped (Any)
        return cdf

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval(0.9)
        return {"n": self.n, "alpha": self.alpha, "a": self.a, "b": self.b, "mean": self.mean,
                "sd": self.sd, "p05": lo, "p95": hi, "classes": self.classes}

    def __str__(self) -> str:
        lo, hi = self.interval(0.9)
        law = (f"coverage ~ Beta({self.a:g}, {self.b:g})" if self.classes == 1 else
               f"coverage ≈ Beta({self.a:g}, {self.b:g}), the {self.classes} class laws mixed by class share "
               "(Mondrian; the Beta of the same mean and variance)")
        return (f"{law}: mean {self.mean:.4f}, "
                f"90% of calib draws give {lo:.3f}-{hi:.3f} (n={self.n}, alpha={self.alpha:g})")


def conformal_coverage_law(n: int, alpha: float) -> CoverageLaw:
    """The Beta law of the coverage a calib set of size ``n`` delivers (seed 003: n = 1,000,
    α = 0.1 gives coverage mostly 0.88–0.92): that of one q̂ from ``n`` rows. Mondrian sets have one q̂
    per class, and their marginal coverage mixes the class laws (:class:`ConformalClassifier`).

    >>> law = conformal_coverage_law(1000, 0.1)
    >>> [round(x, 3) for x in law.interval(0.9)]
    [0.884, 0.915]
    """
    a = check_alpha(alpha)
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)) or not (
            np.isfinite(n) and n >= 1 and int(n) == n):
        raise VeracityError(f"n must be a positive integer number of calib points; got {n!r}", param="n")
    n = int(n)
    k = conformal_rank(n, a)
    if k > n:
        raise VeracityError(
            f"too few calibration points for alpha={a:g}: need at least {min_calibration_size(a)}, got {n}; "
            f"{PLUS_ONE} (coverage 1)"
        )
    return CoverageLaw(n=n, alpha=a, a=float(k), b=float(n + 1 - k))


def _mixed_beta(cal_n: np.ndarray, share: np.ndarray,
                alpha: float) -> tuple[float, tuple[float, float] | None]:
    r"""The mean and the Beta parameters ``(a, b)`` of the law of the coverage :math:`\sum_c \pi_c C_c`
    that calib sets of :math:`m_c` rows (``cal_n``), one per class, deliver on rows of class shares
    :math:`\pi_c` (``share``, summing to 1): :math:`C_c \sim \mathrm{Beta}(k_c, m_c + 1 - k_c)`,
    :math:`k_c = \lceil (m_c+1)(1-\alpha) \rceil` (:func:`conformal_coverage_law`; a class with fewer calib
    rows than its rank gets every set, coverage 1), independent. One calib set (``cal_n`` of one entry): its
    own law. Several (Mondrian): the Beta of the mixture's mean :math:`\mu = \sum_c \pi_c \mu_c` and variance
    :math:`v = \sum_c \pi_c^2 v_c`: :math:`a = \mu t`, :math:`b = (1-\mu) t`, :math:`t = \mu(1-\mu)/v - 1`
    (one class of share 1: its own law). ``None`` for a law of variance 0 (every set always holds the
    class): the coverage is its mean."""
    k_c = np.array([conformal_rank(m, alpha) for m in cal_n.tolist()], dtype=np.float64)
    a_c, b_c = k_c, cal_n + 1.0 - k_c
    total = a_c + b_c
    with np.errstate(invalid="ignore", divide="ignore"):
        full = (b_c <= 0) | (total <= 0)  # too few calib rows: every set holds the class
        mean_c = np.where(full, 1.0, a_c / np.where(full, 1.0, total))
        var_c = np.where(full, 0.0, a_c * b_c / np.where(full, 1.0, total ** 2 * (total + 1.0)))
    if cal_n.size == 1:
        return (1.0, None) if full[0] else (float(mean_c[0]), (float(a_c[0]), float(b_c[0])))
    mean = float(np.sum(share * mean_c))
    var = float(np.sum(share ** 2 * var_c))
    if var <= 0.0 or mean >= 1.0:
        return mean, None
    t = mean * (1.0 - mean) / var - 1.0
    return mean, (mean * t, (1.0 - mean) * t)




def _class_kish(y: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    r"""Each class's Kish effective size :math:`(\sum w)^2/\sum w^2` over its rows (0 for a class with none);
    the weights scaled to [0, 1] first, so no square overflows."""
    v = w / w.max()
    total, square = np.bincount(y, weights=v, minlength=k), np.bincount(y, weights=v * v, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(square > 0, total ** 2 / np.where(square > 0, square, 1.0), 0.0)


def _quantile_size(s: np.ndarray, w: np.ndarray, q: float) -> float:
    r"""The effective number of weighted calib rows that the noise of their weighted share at or below
    :math:`\hat q` reads: :math:`F(1-F)\,W^2 / \sum_i w_i^2 (h_i - F)^2`, :math:`h_i = 1\{s_i \le \hat q\}`,
    :math:`F = \sum_i w_i h_i / W` (the sandwich variance of the weighted share; Kish's
    :math:`W^2/\sum w^2` assumes weights unrelated to :math:`h`). ``+inf`` (Kish's alone) for equal
    weights, no rows, an infinite q̂ or no spread. A rare, hard class weighted 5x (class weights, 200
    calib rows, α = 0.1) puts its heavy rows above q̂: the coverage a calib set delivers spread with sd
    0.044, not the 0.026 of Kish's 133 rows: 16 % of calib sets delivered less than the floor, and
    exchangeable rows were called short of the target in about 10 % of draws (with this size, 52 rows
    on average: 4 % and 2 %)."""
    if s.size == 0 or not math.isfinite(q):
        return math.inf
    return share_size(s <= q, w)


def _at_most(x: float, digits: int = 6) -> str:
    r"""``x`` in ``digits`` significant digits, rounded down: a text :math:`\le x`, for "x or more" (0.9964746
    printed ``:.6g`` is 0.996475, and "top probability 0.996475 or more" left out the row at 0.9964746)."""
    text = f"{x:.{digits}g}"
    if float(text) <= x or not math.isfinite(x) or x <= 0:
        return text
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return f"{math.floor(x / step) * step:.{digits}g}"


def _json_label(value: Any) -> Any:
    """A label value as JSON holds it: numpy scalars as Python ones (:func:`plain`), other objects as their
    text."""
    value = plain(value)
    return value if isinstance(value, (str, int, float, bool)) else str(value)


@dataclass(frozen=True, eq=False, repr=False)
class CoverageReport(Display):
    r"""Empirical coverage of prediction sets on labelled rows.

    ``marginal`` = share of rows whose true class is in its set; ``per_class[c]``
    the same among rows of class *c* (NaN for absent classes); ``mean_set_size``;
    ``empty_rate`` = share of empty sets; ``size_counts[s]`` = rows with set size *s*;
    ``qhat[c]`` the threshold of class *c* (with ``test_weight``, one per row: their median, ``row_qhat``
    True, and the printout's column says so: "median qhat", not a q̂ the sets were built at).
    ``pos_label``: the label value of class 1 of 1-D binary scores read with ``pos_label=`` (None
    otherwise); the printout then names each class by it (``1 (label 0)``, ``0 (label not 0)``): with
    ``pos_label=0`` class 0 holds the rows labelled 1, and "class 0 ... 112 rows" read as label 0's.

    ``interval`` is the 95% modified Wilson interval of ``marginal`` on these rows (Wilson's, its end toward 0
    or 1 Garwood's exact bound where fewer than 10 rows are covered or missed,
    :func:`~veracity.core._intervals.modified_wilson`: Wilson's upper end for 9 of 10 rows covered, 0.982,
    called exchangeable rows short of a 0.99 target in 8-9 % of draws of 10 rows; weighted: on the smaller of
    Kish's effective size :math:`(\sum w)^2/\sum w^2` and the sandwich size of the covered share,
    :func:`~veracity.core._weights.share_size`; ``marginal`` times it successes). The coverage a
    calib set delivers varies from calib set to calib set (``Beta(k, n + 1 - k)``,
    :func:`conformal_coverage_law`), so a shortfall is judged against ``calib_floor``, that law's 0.025
    quantile (Mondrian: the Beta law matched to the mean and variance of :math:`\sum_c \pi_c C_c`,
    :math:`\pi_c` the share of these rows in class *c*; weighted calib rows: their effective sizes, the
    smaller of Kish's and the one their weights' spread about q̂ gives;
    :meth:`ConformalClassifier._calib_floor`; None, nothing judged short, where weighted calib rows' effective
    size is below the +1 rule's rank: q̂ refused, each row's own q̂ follows no such law). ``below_target`` is
    True when the interval's upper end lies below ``calib_floor``: coverage is short of the target by more
    than the test rows' and the calib set's sampling noise, and the printout says so in a line of its
    own. Under exchangeable data that
    is at most about a 2.5% chance, whatever the calib set's size (the flag needs the calib set's
    coverage below the floor, or the measured rows' interval to miss it).
    """

    alpha: float
    n: int
    marginal: float
    per_class: np.ndarray
    class_counts: np.ndarray
    class_set_size: np.ndarray
    mean_set_size: float
    empty_rate: float
    size_counts: np.ndarray
    qhat: np.ndarray
    interval: tuple[float, float] | None = None
    calib_floor: float | None = None
    class_high: np.ndarray | None = None
    mondrian: bool = False
    class_joint_high: np.ndarray | None = None
    pos_label: Any = None
    row_qhat: bool = False

    def _class_name(self, c: int) -> str:
        """Class *c* as the printout names it: its index, and with :attr:`pos_label` the labels it holds."""
        if self.pos_label is None or self.per_class.shape[0] != 2:
            return str(c)
        return f"{c} (label {self.pos_label})" if c == 1 else f"{c} (label not {self.pos_label})"

    @property
    def target(self) -> float:
        return 1.0 - self.alpha

    @property
    def short_classes(self) -> list[int]:
        """Classes whose coverage is below the target beyond sampling noise when one q̂ serves them all: the
        upper end of the class's modified Wilson interval on its rows (weighted, their Kish size) at the
        Bonferroni
        level :math:`1 - 0.05/K` over the *K* classes measured (``class_joint_high``; ``class_high`` is the
        95% one the text prints) below ``calib_floor``. Each class is a test: at 95% each, 30 classes covered
        alike were named short in a third of exchangeable draws; jointly, a draw names one at most about
        2.5-5% of the time (the calib floor's 2.5%, and the classes' intervals' 2.5% together). Split
        conformal promises the marginal coverage only; a class can fall far short of it (the rare or hard
        class). Empty under Mondrian, whose per-class q̂ is the fix, and when the marginal coverage itself is
        short (:attr:`below_target`: the rows are not exchangeable with the calib rows, which Mondrian does
        not fix)."""
        high = self.class_joint_high if self.class_joint_high is not None else self.class_high
        if self.mondrian or self.below_target or high is None or self.calib_floor is None:
            return []
        return [int(c) for c in np.flatnonzero(high < self.calib_floor)]

    def class_shortfall_text(self) -> str:
        """The line naming :attr:`short_classes` and the fix (Mondrian), else ''."""
        short = self.short_classes
        if not short:
            return ""
        assert self.class_high is not None
        # the interval the test read: jointly over the K classes measured (Bonferroni), when it was kept
        high, said = self.class_high, "95% interval"
        measured = int(np.count_nonzero(self.class_counts))
        if self.class_joint_high is not None and measured > 1:
            high = self.class_joint_high
            said = f"{100.0 * (1.0 - 0.05 / measured):.4g}% interval, joint over {measured} classes,"
        named = "; ".join(f"class {self._class_name(c)} is covered {self.per_class[c]:.4f} ({said} up to "
                          f"{high[c]:.4f}, {fmt_count(float(self.class_counts[c]))} rows)" for c in short)
        return (f"{named}: below the {self.target:g} target beyond sampling noise. One q̂ promises coverage on "
                "average over the classes, not within each; mondrian=True (veracity conformal --mondrian) gives "
                "every class its own q̂")

    @property
    def below_target(self) -> bool:
        """Whether coverage is below ``1 - alpha`` by more than sampling noise (see the class doc)."""
        return bool(self.interval is not None and self.calib_floor is not None
                    and self.interval[1] < self.calib_floor)

    def shortfall_text(self) -> str:
        """The flag line when :attr:`below_target`, else ''."""
        if not self.below_target:
            return ""
        assert self.interval is not None and self.calib_floor is not None
        low, high = self.interval
        return (f"coverage {self.marginal:.4f} is below the {self.target:g} target beyond sampling noise "
                f"(binomial 95% interval [{low:.4f}, {high:.4f}]; the calib set's own noise reaches down to "
                f"{self.calib_floor:.4f} only): these rows may not be exchangeable with the calib rows")

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "target": self.target,
            "n": self.n,
            "marginal": self.marginal,
            "per_class": [None if np.isnan(v) else float(v) for v in self.per_class],
            "class_counts": [int(v) for v in self.class_counts],
            "mean_set_size": self.mean_set_size,
            "empty_rate": self.empty_rate,
            "size_counts": [int(v) for v in self.size_counts],
            "qhat": [float(v) for v in self.qhat],
            # with test_weight each row had its own q̂: "qhat" holds their median per class
            **({"qhat_is_median": True} if self.row_qhat else {}),
            "interval": None if self.interval is None else [float(v) for v in self.interval],
            "calib_floor": self.calib_floor,
            "below_target": self.below_target,
            "classes_below_target": self.short_classes,
            # class 1 of binary scores read with pos_label= holds that label's rows (per_class[1] is theirs)
            **({} if self.pos_label is None else {"pos_label": _json_label(self.pos_label)}),
        }

    def _title(self) -> str:
        rows = "row" if self.n == 1 else "rows"  # "on 1 rows" was said of one measured row
        return (f"Conformal prediction sets: coverage {self.marginal:.4f} on {self.n:,} {rows} "
                f"(target >= {self.target:g})")

    def _qhat_header(self) -> str:
        """The q̂ column's name: with ``test_weight`` every row has its own q̂, and the column holds their
        median per class (a "qhat" column read as the one threshold the sets were built at)."""
        return "median qhat" if self.row_qhat else "qhat"

    def _frame_records(self) -> list[dict[str, Any]]:
        return [{"class": c, "count": float(self.class_counts[c]), "qhat": float(self.qhat[c]),
                 "coverage": None if np.isnan(self.per_class[c]) else float(self.per_class[c]),
                 "mean_set_size": float(self.class_set_size[c])} for c in range(self.per_class.shape[0])]

    def _repr_html_(self) -> str:
        sizes = ", ".join(f"{s}: {int(c):,}" for s, c in enumerate(self.size_counts) if c)
        items = {"marginal coverage": self.marginal, "target": f">= {self.target:g}",
                 "mean set size": self.mean_set_size, "empty sets": f"{self.empty_rate:.2%}", "rows": self.n}
        short = set(self.short_classes)  # beyond sampling noise, as the text names them (0.8974 of 351 is not)
        rows = [{"class": self._class_name(r["class"]), "count": r["count"],
                 self._qhat_header(): threshold_cell(r["qhat"]), "coverage": r["coverage"],
                 "mean_set_size": r["mean_set_size"], "below target": r["class"] in short}
                for r in self._frame_records()]
        flag = " ".join(t for t in (self.shortfall_text(), self.class_shortfall_text()) if t)
        parts = [html_kv(items), f'<div class="vc-note vc-verdict">{html.escape(flag)}</div>' if flag else "",
                 html_table(rows), html_note(f"rows per set size: {sizes}")]
        return html_page(self._title(), parts, str(self))

    def __str__(self) -> str:
        # every digit a q̂ needs (two classes' q̂ 4 decimals alike were two thresholds), points aligned
        qhat = point_aligned([threshold_cell(q) for q in self.qhat])
        body = [
            [self._class_name(c), fmt_count(float(self.class_counts[c])), qhat[c], fmt(self.per_class[c]),
             fmt(self.class_set_size[c], 2)]
            for c in range(self.per_class.shape[0])
        ]
        table = render_table(["class", "count", self._qhat_header(), "coverage", "mean set size"], body)
        sizes = ", ".join(f"{s}:{int(c)}" for s, c in enumerate(self.size_counts) if c)
        return (
            f"{table}\n"
            f"marginal coverage {self.marginal:.4f} "
            f"(target >= {self.target:g}, {count_noun(self.n, 'row')})   "
            f"mean set size {self.mean_set_size:.3f}   empty sets {self.empty_rate:.2%}\n"
            f"set sizes {{{sizes}}}"
            + (f"\n{self.shortfall_text()}" if self.below_target else "")
            + (f"\n{self.class_shortfall_text()}" if self.short_classes else "")
        )


class ConformalClassifier:
    r"""Split conformal prediction sets for (N, K) class probabilities.

    Scores (higher = less conforming):

    * ``score="lac"`` (least ambiguous set-valued classifier):
      :math:`s(x, y) = 1 - \hat p_y(x)`; the set is :math:`\{k: \hat p_k \ge 1 - \hat q\}`.
    * ``score="aps"`` (adaptive prediction sets, Romano et al. 2020):
      :math:`s(x, y) = \sum_{j:\, \pi(j) \le \pi(y)} \hat p_j`, the probability mass of
      the classes ranked at or above *y* (ranked by probability, ties by column order).
      With ``randomized=False`` (the default) this is the deterministic APS: the set is
      every class whose cumulative mass is :math:`\le \hat q`, which may be empty.
      With ``randomized=True`` the score subtracts :math:`U\hat p_y`, :math:`U \sim U(0,1)`
      drawn from ``random_state`` independently for every calib and test row
      (smaller sets, exact coverage in expectation). Deterministic APS gives an *empty* set
      to a row whose top probability alone exceeds :math:`\hat q` — the surest rows — and a
      warning says so.
    * ``score="raps"`` — regularised APS (Angelopoulos, Bates, Malik & Jordan 2021):
      the APS score plus :math:`\lambda\,(o(y) - k_{reg})^+`, *o(y)* the rank of class *y*
      (1 = most likely), so unlikely classes cost more and sets stay small on a confident
      model; ``lam`` (0 ≤ λ ≤ 1e6, default 0.01; every λ above 1 gives the same sets) and ``k_reg``
      (default 1); ``randomized=True``
      as for APS.

    ``fit`` computes :math:`\hat q` = the :math:`\lceil (n+1)(1-\alpha) \rceil`-th smallest
    calib score. With ``mondrian=True`` one :math:`\hat q_c` is computed from the calib rows
    of each class *c* and class *c* enters a set when its score is :math:`\le \hat q_c`;
    coverage then holds within every class (class-conditional). ``qhat_`` is always the
    marginal :math:`\hat q` over all calib rows; ``class_qhat_`` holds the *K* thresholds
    actually used (all equal to ``qhat_`` unless ``mondrian``); ``class_n_`` the calib rows of
    each class (of positive weight), the *n* of each class's coverage law under ``mondrian``
    (``conformal_coverage_law(n_c, alpha)``); the marginal coverage then mixes those laws by the class
    shares, not the law of one q̂ from all *n* rows (``veracity conformal --mondrian`` prints the
    mixture, then each class's law).

    Covariate shift (Tibshirani, Barber, Candès & Ramdas 2019): ``fit(..., sample_weight=w)``
    with the calib rows' likelihood ratios :math:`w(x_i) = dP_{test}/dP_{calib}(x_i)`, then
    ``predict_sets(probs, test_weight=t)`` / ``coverage(..., test_weight=t)`` with each test
    row's own :math:`w(x)`: row *i*'s threshold is
    :math:`\hat q(t_i) = \min\{s_{(j)} : \sum_{l \le j} w_{(l)} \ge (1-\alpha)(W + t_i)\}`
    over the calib scores in ascending order (of class *c* only, under ``mondrian``), or
    :math:`+\infty` (every class in the set) when none reaches it; see
    :func:`conformal_quantile`. Without ``test_weight`` every row uses ``class_qhat_``, the
    rule with the test row counted at the size-biased mean calib weight :math:`\sum w^2/\sum w`
    (*W/m*, *m* Kish's effective number), or at *W/m* for the smaller size the weights' spread about q̂
    gives (heavy rows above q̂; exact for equal weights, an approximation for uneven ones, see
    :func:`conformal_quantile`); calib weights whose effective number is below :func:`min_calibration_size`
    leave it :math:`+\infty` and refuse sets without ``test_weight`` (:meth:`check_qhat`).

    >>> P = np.array([[.7, .2, .1], [.1, .8, .1], [.3, .3, .4], [.5, .4, .1]] * 5)
    >>> cp = ConformalClassifier(alpha=0.2).fit(P, [0, 1, 2, 1] * 5)
    >>> round(cp.qhat_, 4), cp.predict_sets([[.55, .4, .05]]).tolist()
    (0.6, [[True, True, False]])
    """

    @positional_options("alpha", "score", "mondrian")
    def __init__(
        self,
        *,
        alpha: float = 0.1,
        score: ConformalScore = "lac",
        mondrian: bool = False,
        randomized: bool = False,
        random_state: int | None = None,
        score_type: ScoreType = "probability",
        lam: float = 0.01,
        k_reg: int = 1,
    ) -> None:
        self.alpha = alpha
        self.score = score
        self.mondrian = mondrian
        self.randomized = randomized
        self.random_state = random_state
        self.score_type = score_type
        self.lam = lam
        self.k_reg = k_reg

    # -- scores -------------------------------------------------------------------
    def _class_scores(self, P: np.ndarray) -> np.ndarray:
        """(N, K) nonconformity score of every candidate class."""
        if self.score == "lac":
            return 1.0 - P
        order = np.argsort(-P, axis=1, kind="stable")
        # the total mass is 1 by construction; clip the rounding of the cumulative sum
        cum = np.minimum(np.cumsum(np.take_along_axis(P, order, axis=1), axis=1), 1.0)
        if self.score == "raps":  # + λ (rank − k_reg)^+, rank 1 for the most likely class
            rank = np.arange(1, P.shape[1] + 1, dtype=np.float64)
            cum = cum + float(self.lam) * np.maximum(rank - int(self.k_reg), 0.0)[None, :]
        E = np.empty_like(P)
        np.put_along_axis(E, order, cum, axis=1)
        if self.randomized:
            u = self._rng.random(int(P.shape[0]))[:, None]  # int: the array overload (Any picks float's)
            E = E - u * P
        return E

    def _check_options(self) -> None:
        check_alpha(self.alpha)
        if self.score not in SCORES:
            raise VeracityError(f"score must be 'lac' or 'aps' (or 'raps', regularised APS), got {self.score!r}",
                                param="score")
        if self.randomized and self.score == "lac":
            raise VeracityError("randomized=True applies to score='aps' only (and to 'raps'), not to 'lac'",
                                param="randomized")
        lam = self.lam
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)) or not (
                np.isfinite(lam) and lam >= 0):
            raise VeracityError(f"lam must be a number >= 0, got {lam!r}", param="lam")
        if lam > MAX_LAM:  # lam = 1e15 gave sets of mean size 3.0 where every lam in (1, 1e9] gives 2.765
            raise VeracityError(
                f"lam must be at most {MAX_LAM:,.0f}, got {lam!r}: every lam above 1 gives the same sets (one "
                "rank's penalty then outweighs the whole probability mass), and past about 1e12 floating point "
                "loses the probabilities the penalty is added to (every class of q̂'s rank enters the set); pass "
                "e.g. lam=1", param="lam")
        k = self.k_reg
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise VeracityError(f"k_reg must be a whole number >= 0, got {k!r}", param="k_reg")

    def fit(self, probs: Any, labels: Any, *, sample_weight: Any = None, pos_label: Any = None) -> ConformalClassifier:
        """Compute :math:`\\hat q` (and per-class :math:`\\hat q_c` if ``mondrian``) on calib rows.

        ``pos_label`` (1-D binary probs only) names the label value of class 1, e.g. ``"yes"``;
        :meth:`coverage` then reads labels the same way. ``sample_weight`` weighs the calib
        rows (see :func:`conformal_quantile`; rows of weight 0 are dropped rows; equal
        weights give the unweighted :math:`\\hat q` exactly). ``qhat_`` / ``class_qhat_`` count
        the test row at the size-biased mean calib weight :math:`\\sum w^2/\\sum w`, or more where heavy
        rows lie above q̂ (:func:`conformal_quantile`; ``+inf`` when the weights' effective number is
        below :func:`min_calibration_size`: sets without
        ``test_weight=`` then refuse, :meth:`check_qhat`); the weights are kept so that
        :meth:`predict_sets` and :meth:`coverage` can take ``test_weight=`` (the exact rule).
        """
        self._check_options()
        check_same_index(probs=probs, labels=labels, sample_weight=sample_weight)  # never paired by position
        alpha = float(self.alpha)
        P, y = _prob_matrix(probs, labels, self.score_type, pos_label)
        self.pos_label_ = pos_label
        assert y is not None
        n, k_classes = P.shape
        w, shift = (None, 0) if sample_weight is None else _calib_weights(sample_weight, n)
        self._rng = np.random.default_rng(check_random_state(self.random_state))
        dropped = False
        if w is not None and not w.all():  # a row of weight 0 is a dropped row: no U drawn for it
            P, y, w, dropped = P[w > 0], y[w > 0], w[w > 0], True
            n = int(y.shape[0])
        scores = self._class_scores(P)[np.arange(n), y]
        refused: list[str] = []  # the weighted +1 rule's refusals of uneven weights: q̂ = +inf, kept

        def quantile(s: np.ndarray, weights: np.ndarray | None, rows: str, used: bool = True) -> float:
            try:
                return conformal_quantile(s, alpha, weights)
            except _UnevenWeights as exc:  # test_weight= (the exact rule) still gives every row its q̂
                if used:  # Mondrian's sets use the class q̂ only, not the marginal one
                    refused.append(str(exc).replace("the calib weights", f"the {rows}' weights", 1))
                return math.inf

        if not self.mondrian:
            qhat = quantile(scores, w, "calib rows")
            class_qhat = np.full(k_classes, qhat)
        else:
            need = min_calibration_size(alpha)
            counts = np.bincount(y, minlength=k_classes)
            short = np.flatnonzero(counts < need)
            if short.size:
                c = int(short[0])
                # every short class named (a 10-class fit that fails on class 0 alone hid classes 3 and 7)
                others = ", ".join(f"{int(j)} ({int(counts[j])} rows)" for j in short[1:8]) + (
                    ", ..." if short.size > 8 else "")
                raise VeracityError(
                    f"too few calibration points for Mondrian (per-class) conformal at alpha={alpha:g}: "
                    f"class {c} has {int(counts[c])} calib rows{' of positive weight' if dropped else ''}, each "
                    f"class needs at least {need}. "
                    + (f"{short.size - 1} more classes have too few: {others}. " if short.size > 1 else "")
                    + f"{PLUS_ONE[:1].upper()}{PLUS_ONE[1:]}. "
                    "Use more calib rows, a larger alpha, or mondrian=False"
                )
            class_qhat = np.array([quantile(scores[y == c], None if w is None else w[y == c],
                                            f"class {c} calib rows") for c in range(k_classes)])
            qhat = quantile(scores, w, "calib rows", used=False)
        self.qhat_ = float(qhat)
        self.class_qhat_ = class_qhat
        # sets at q̂ (no test_weight) refuse; test_weight= (each row's own q̂, the exact rule) does not
        self._qhat_refusal = (refused[0] + "; or pass test_weight= (each row's own likelihood ratio, the "
                              "exact covariate-shift rule)") if refused else None
        self.n_calib_ = int(n)
        self.class_n_ = np.bincount(y, minlength=k_classes)  # calib rows (of positive weight) per class
        self._calib_classes = y  # for the per-class effective sizes of weighted Mondrian calib rows
        self.n_classes_ = int(k_classes)
        self.calib_scores_ = scores
        # the exact covariate-shift rule (test_weight=): calib scores sorted once, cumulative weights,
        # one pair per class under Mondrian; the weights' power-of-two rescaling, for the test weights
        self.calib_weights_ = w
        self._weight_shift = shift
        self._fit_alpha = alpha
        self._fit_options = {name: getattr(self, name) for name in self._FIT_OPTIONS}
        if w is None:
            self._sorted: list[_Sorted] = []
        elif self.mondrian:
            self._sorted = [_sorted_calib(scores[y == c], w[y == c]) for c in range(k_classes)]
        else:
            self._sorted = [_sorted_calib(scores, w)]
        return self

    #: the options the fitted state depends on: q̂ is a quantile of the scores they define
    _FIT_OPTIONS = ("alpha", "score", "mondrian", "randomized", "score_type", "lam", "k_reg")

    def _check_fitted(self) -> None:
        if not hasattr(self, "qhat_"):
            raise VeracityError("this ConformalClassifier is not fitted; call fit(probs, labels) first")
        for name, then in getattr(self, "_fit_options", {}).items():
            now = getattr(self, name)
            if not (now is then or now == then):  # a changed option: q̂ of one rule beside sets of another
                raise VeracityError(
                    f"{name} was {then!r} when this ConformalClassifier was fit and is now {now!r}; q̂ belongs "
                    f"to the options of fit: call fit(probs, labels) again after changing {name}", param=name)

    def check_qhat(self) -> None:
        """Raise the weighted +1 rule's refusal kept by :meth:`fit`: calib weights so uneven that their
        effective number (Kish's, or the smaller one their spread about q̂ gives) is below
        :func:`min_calibration_size` leave ``class_qhat_`` at
        :math:`+\\infty` (no set without ``test_weight=``); nothing otherwise."""
        self._check_fitted()
        refusal = getattr(self, "_qhat_refusal", None)
        if refusal is not None:
            raise VeracityError(refusal)

    def predict_sets(self, probs: Any, *, test_weight: Any = None) -> np.ndarray:
        """Boolean (N, K) matrix: ``sets[i, c]`` is True when class *c* is in row *i*'s set.

        ``test_weight`` (one per row, >= 0; needs ``fit(..., sample_weight=)`` in the same units):
        each row's likelihood ratio :math:`w(x)`, for its own threshold (see the class docstring);
        without it every row uses ``class_qhat_``."""
        self._check_fitted()
        check_same_index(probs=probs, test_weight=test_weight)
        P, _ = _prob_matrix(probs, None, self.score_type, n_classes=self.n_classes_)
        return self._sets_of(P, self._test_weights(test_weight, P.shape[0]))

    def _test_weights(self, test_weight: Any, n: int) -> np.ndarray | None:
        if test_weight is None:
            return None
        if getattr(self, "calib_weights_", None) is None:
            raise _test_weight_needs_calib_weights()
        return _check_test_weight(test_weight, n, self._weight_shift)

    def row_qhat(self, *, test_weight: Any) -> np.ndarray:
        """(N, K) thresholds of the exact covariate-shift rule: ``[i, c]`` = :math:`\\hat q(t_i)`
        for class *c* (the same in every column unless ``mondrian``); ``+inf`` where row *i*'s
        own weight leaves more than α of the mass at :math:`+\\infty`."""
        self._check_fitted()
        if getattr(self, "calib_weights_", None) is None:
            raise _test_weight_needs_calib_weights()
        return self._row_qhat(_check_test_weight(test_weight, None, self._weight_shift).reshape(-1))

    def _row_qhat(self, t: np.ndarray) -> np.ndarray:
        a = self._fit_alpha  # the alpha of class_qhat_, even if self.alpha was changed since fit
        if not self.mondrian:
            q = _exact_quantiles(self._sorted[0], t, a)
            return np.repeat(q[:, None], self.n_classes_, axis=1)
        return np.column_stack([_exact_quantiles(cal, t, a) for cal in self._sorted])  # a loop over classes

    def _sets_of(self, P: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """The sets of (N, K) *probabilities* ``P`` (already read from ``score_type``: the
        logits of ``score_type="logit"`` are never read a second time); ``t``: the rows' own
        checked test weights (the exact rule) or None (``class_qhat_``)."""
        if P.shape[1] != self.n_classes_:
            raise VeracityError(
                f"probs have {P.shape[1]} classes but the calibrator was fit on {self.n_classes_}"
            )
        if t is None:
            self.check_qhat()
        Q = self.class_qhat_[None, :] if t is None else self._row_qhat(t)
        sets = self._class_scores(P) <= Q
        self._hint_empty(P, sets, Q, per_row=t is not None)
        return sets

    def _hint_empty(self, P: np.ndarray, sets: np.ndarray, Q: np.ndarray, *, per_row: bool = False) -> None:
        """One-line warning when the deterministic APS/RAPS score leaves confident rows with an
        empty set: the top class alone passes q̂ (its score is its own probability, plus ``lam`` for RAPS
        with ``k_reg=0``, which charges the top class too: compared on the probability alone, those empty
        sets went unsaid)."""
        if self.score == "lac" or self.randomized:
            return
        empty = ~sets.any(axis=1)
        if not empty.any():
            return
        top = P.max(axis=1)[empty]
        charge = float(self.lam) * max(1.0 - int(self.k_reg), 0.0) if self.score == "raps" else 0.0
        Q_empty = np.broadcast_to(Q, P.shape)[empty]
        confident = top + charge > Q_empty[np.arange(top.shape[0]), P[empty].argmax(axis=1)]
        sure = int(confident.sum())
        if sure:
            import warnings

            # Mondrian: each class has its own q̂ (qhat_, the marginal one, is used by no set: "top
            # probability 0.9795 or more, above q̂ = 0.9907" was said); the least top probability of the
            # confident rows
            where = ("above their rows' own q̂" if per_row
                     else "above their top class's own q̂" if self.mondrian
                     else f"above q̂ = {threshold_cell(self.qhat_, decimals=False)}")
            plus = f" plus lam = {float(self.lam):g} (k_reg=0 charges the top class too)" if charge else ""
            warnings.warn(
                f"{int(empty.sum())} empty prediction sets, {sure} of them for confident rows (top probability "
                f"{_at_most(float(top[confident].min()))} or more{plus}, {where}): the deterministic "
                f"{self.score.upper()} "
                f"score leaves out a class whose probability{' plus lam' if charge else ''} alone passes q̂; "
                "use randomized=True"
                + (", score='raps' or score='lac'" if self.score == "aps" else " or score='lac'"),
                UserWarning, stacklevel=4)

    def coverage(self, probs: Any, labels: Any, *, sample_weight: Any = None,
                 pos_label: Any = None, test_weight: Any = None) -> CoverageReport:
        """Marginal and per-class coverage, set sizes and empty-set rate on labelled rows
        (``pos_label`` defaults to the one given to :meth:`fit`). With ``sample_weight`` the
        rates and mean sizes are weighted; the counts are of the rows of positive weight.
        ``test_weight``: each row's own likelihood ratio, for its own threshold (as in
        :meth:`predict_sets`); the report's ``qhat`` is then the median of the rows' thresholds
        of each class."""
        self._check_fitted()
        if pos_label is None:
            pos_label = getattr(self, "pos_label_", None)
        check_same_index(probs=probs, labels=labels, sample_weight=sample_weight, test_weight=test_weight)
        P, y = _prob_matrix(probs, labels, self.score_type, pos_label, n_classes=self.n_classes_)
        assert y is not None
        w = check_weights(sample_weight, P.shape[0])
        t = self._test_weights(test_weight, P.shape[0])
        if w is not None and not w.all():  # a row of weight 0 is a dropped row
            P, y, t, w = P[w > 0], y[w > 0], (None if t is None else t[w > 0]), w[w > 0]
        sets = self._sets_of(P, t)  # P holds probabilities: predict_sets would read logits again
        n, k = sets.shape
        hit = sets[np.arange(n), y]
        size = sets.sum(axis=1)
        counts = np.bincount(y, minlength=k)
        mass = counts if w is None else np.bincount(y, weights=w, minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_class = np.bincount(y, weights=hit if w is None else hit * w, minlength=k) / mass
            class_size = np.bincount(y, weights=size if w is None else size * w, minlength=k) / mass
        marginal = float(np.average(hit, weights=w))
        interval, floor = self._shortfall_bounds(marginal, n, w, mass, hit)
        return CoverageReport(
            class_high=self._class_highs(per_class, y, k, w), mondrian=bool(self.mondrian),
            # every class measured is a test of its own: Bonferroni over them (K = 30 classes covered alike
            # were named short in a third of draws at 95% each)
            class_joint_high=self._class_highs(per_class, y, k, w,
                                               level=1.0 - 0.05 / max(1, int(np.count_nonzero(counts)))),
            alpha=float(self.alpha), n=int(n), marginal=marginal, per_class=per_class,
            class_counts=counts, class_set_size=class_size, mean_set_size=float(np.average(size, weights=w)),
            empty_rate=float(np.average(size == 0, weights=w)), size_counts=np.bincount(size, minlength=k + 1),
            qhat=self.class_qhat_.copy() if t is None else np.median(self._row_qhat(t), axis=0),
            interval=interval, calib_floor=floor, pos_label=pos_label, row_qhat=t is not None,
        )

    @staticmethod
    def _class_highs(per_class: np.ndarray, y: np.ndarray, k: int, w: np.ndarray | None,
                     level: float = 0.95) -> np.ndarray:
        r"""The upper end of each class's modified Wilson interval of its coverage at ``level`` (two-sided),
        on its rows (weighted: their Kish size :math:`(\sum w)^2/\sum w^2`); NaN for a class with no rows."""
        n_c = np.bincount(y, minlength=k).astype(np.float64) if w is None else _class_kish(y, w, k)
        with np.errstate(invalid="ignore"):  # a class with no rows: NaN
            _, high = modified_wilson(np.nan_to_num(per_class), n_c, level)
        return np.where(n_c > 0, high, np.nan)

    def _shortfall_bounds(self, marginal: float, n: int, w: np.ndarray | None, mass: np.ndarray,
                          hit: np.ndarray) -> tuple[tuple[float, float] | None, float | None]:
        r"""The 95% modified Wilson interval of ``marginal`` on ``n`` rows (weighted: the smaller of Kish's
        effective
        size and the sandwich size of the share covered, :func:`~veracity.core._weights.share_size`:
        uncovered rows weighing 20x, a rare hard class's, made Kish's interval too narrow, and exchangeable
        rows were called short in 3.5 % of draws) and the calib floor, the 0.025 quantile of the law of the coverage a calib set
        delivers (:class:`CoverageReport`, :meth:`_calib_floor`)."""
        if n == 0:
            return None, None
        n_eff = float(n) if w is None else min(kish_size(w), share_size(hit, w))
        low, high = modified_wilson(np.array(marginal), np.array(n_eff), 0.95)
        return (float(low), float(high)), self._calib_floor(mass)

    def _calib_floor(self, mass: np.ndarray) -> float | None:
        r"""The 0.025 quantile of the law of the coverage a calib set delivers (:class:`CoverageReport`):
        a Beta law ``(a, b)``, its quantile by scipy's ``betaincinv(a, b, 0.025)``.

        One calib set of :math:`n` rows: :math:`\mathrm{Beta}(k, n + 1 - k)`, :math:`k = \lceil (n+1)(1-\alpha)
        \rceil` (:func:`conformal_coverage_law`); weighted calib rows: the same on an effective size
        :math:`m` for :math:`n`, the smaller of Kish's and the one the weights' spread about q̂ gives
        (:func:`_quantile_size`; equal weights: the unweighted law). Mondrian: the marginal coverage is
        :math:`\sum_c \pi_c C_c` over the classes' laws (:math:`\pi_c` the share of the measured rows in class
        *c*; a class with fewer calib rows than its rank gets every set, coverage 1), matched by the Beta
        of its mean :math:`\mu = \sum_c \pi_c \mu_c` and variance :math:`v = \sum_c \pi_c^2 v_c`:
        :math:`a = \mu t`, :math:`b = (1-\mu) t`, :math:`t = \mu(1-\mu)/v - 1` (one class: its own law).
        A law of variance 0 (every class's sets always hold it) is its mean (:func:`_mixed_beta`).

        None (no floor: nothing is judged short) when weighted calib rows have an effective size below the
        +1 rule's rank (a class of the measured rows, under Mondrian): their q̂ is refused, and the sets
        measured are those of the rows' own q̂ (``test_weight=``), which follow no such law. Read as a class
        whose every set holds it, the floor was 1 and a coverage of 0.83 (interval [0.66, 0.93]) on 30 rows
        was called "below the 0.9 target beyond sampling noise"."""
        cal_n = self._calib_n_eff()
        share = mass / mass.sum()
        if not self.mondrian:  # one calib set: its rows (weighted: its effective size)
            cal_n, share = np.array([float(cal_n.sum())]), np.array([1.0])
        alpha = float(self.alpha)
        if self.calib_weights_ is not None and any(
                conformal_rank(m, alpha) > m for m, pi in zip(cal_n.tolist(), share.tolist()) if pi > 0):
            return None
        mean, ab = _mixed_beta(cal_n, share, alpha)
        return mean if ab is None else float(betaincinv(ab[0], ab[1], 0.025))

    def _marginal_law(self) -> CoverageLaw:
        r"""The law of the marginal coverage these sets deliver over calib sets of these class counts, on
        rows of the calib set's class shares: :func:`conformal_coverage_law` of ``n_calib_`` rows; Mondrian,
        the classes' laws (each of its ``class_n_`` rows) mixed by the shares :math:`n_c / n`, matched by a
        Beta (:func:`_mixed_beta`, as for ``calib_floor``; ``classes`` > 1). Equally weighted rows' laws."""
        alpha = self._fit_alpha
        if not self.mondrian:
            return conformal_coverage_law(self.n_calib_, alpha)
        n_c = np.asarray(self.class_n_, dtype=np.float64)
        _, ab = _mixed_beta(n_c, n_c / n_c.sum(), alpha)
        assert ab is not None  # fit gave every class at least its rank of calib rows: variance > 0
        return CoverageLaw(n=self.n_calib_, alpha=alpha, a=ab[0], b=ab[1], classes=int(n_c.size))

    def _calib_n_eff(self) -> np.ndarray:
        """Each class's calib rows, for the sd of the coverage a calib set delivers; summed, the whole
        calib set's when not Mondrian. Weighted calib rows: the smaller of Kish's effective size and the
        one the spread of their weights about q̂ gives (:func:`_quantile_size`)."""
        w = self.calib_weights_
        if w is None:
            return np.asarray(self.class_n_, dtype=np.float64)
        s = self.calib_scores_
        if not self.mondrian:  # one effective size for the whole calib set, as the first entry
            return np.array([min(kish_size(w), _quantile_size(s, w, self.qhat_))])
        y = self._calib_classes
        spread = [_quantile_size(s[y == c], w[y == c], float(q)) for c, q in enumerate(self.class_qhat_)]
        size: np.ndarray = np.minimum(_class_kish(y, w, self.n_classes_), np.array(spread))
        return size

    def to_dict(self) -> dict[str, Any]:
        if hasattr(self, "qhat_"):
            self._check_fitted()  # q̂ beside options changed since fit would describe neither
        out: dict[str, Any] = {
            "kind": "ConformalClassifier",
            "alpha": float(self.alpha),
            "score": self.score,
            "mondrian": bool(self.mondrian),
            "randomized": bool(self.randomized),
        }
        if self.score == "raps":
            out.update(lam=float(self.lam), k_reg=int(self.k_reg))
        if hasattr(self, "qhat_"):
            out.update(qhat=self.qhat_, class_qhat=[float(q) for q in self.class_qhat_],
                       n_calib=self.n_calib_, n_classes=self.n_classes_)
        return out

    def __repr__(self) -> str:
        return (f"ConformalClassifier(alpha={self.alpha!r}, score={self.score!r}, "
                f"mondrian={self.mondrian!r})")
