r"""Calibration and scoring metrics as plain functions of ``(scores, labels)``.

Every function takes scores first and labels second, an optional
``sample_weight``, and a declared ``score_type``. Binned metrics read only the
mergeable :class:`~veracity.BinStats`; the ``*_from_stats`` functions are the
same formulas applied to a statistics object (from memory, a file or a cluster).

Multiclass (N, K) inputs use the top-label reading: confidence = max
probability, outcome = "argmax equals the label" (a tie: for K = 2 class 1, as a 1-D
:math:`p \ge 0.5` predicts 1; for K >= 3 the first maximum). ``multiclass="classwise"``
averages (ECE) or sums (Brier) the K one-vs-rest problems instead. NLL of a
multiclass input is the categorical log-loss :math:`-\log p_{i, y_i}`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ._binning import make_edges
from ._formulas import (
    BrierDecomposition,
    brier_decomposition_from_stats,
    ece_from_stats,
)
from ._frameform import frame_call, is_frame_form, require_labels
from ._honest import estimate_ece
from ._parallel import submit
from ._rank import twice_u, weighted_twice_u
from ._stats import BinStats, residuals
from ._options import AucAverage, AucMulticlass, Estimator, ScoreType, Strategy
from ._validation import (
    Binary,
    VeracityError,
    binary_nll_terms,
    is_real,
    prepare_binary,
    prepare_classwise,
    prepare_multiclass,
    refuse_score,
)

Norm = Literal["l1", "l2", "max"]
Multiclass = Literal["top-label", "classwise"]
ESTIMATORS = ("plugin", "debiased", "smooth")


# ----------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------
def _problems(
    scores: Any, labels: Any, sample_weight: Any, score_type: str, multiclass: str,
    pos_label: Any = None,
) -> list[Binary]:
    if multiclass not in ("top-label", "classwise"):
        raise VeracityError(f"multiclass must be 'top-label' or 'classwise', got {multiclass!r}",
                            param="multiclass")
    if multiclass == "classwise":
        return prepare_classwise(scores, labels, sample_weight=sample_weight, score_type=score_type)
    return [prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                           pos_label=pos_label)]


def _stats(data: Binary, bins: int, strategy: str, *, full: bool) -> BinStats:
    edges = make_edges(data.p, bins, strategy, data.w)
    return BinStats.from_binary(data, edges, strategy, full=full)


def _wmean(values: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return float(values.mean())
    return float(np.dot(values, w) / w.sum())


# ----------------------------------------------------------------------------------
# public metric functions
# ----------------------------------------------------------------------------------
def ece(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    norm: Norm = "l1",
    estimator: Estimator = "plugin",
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    multiclass: Multiclass = "top-label",
) -> float:
    r"""Expected calibration error.

    .. math:: \mathrm{ECE} = \sum_b \frac{n_b}{N}\,|\mathrm{acc}_b - \mathrm{conf}_b|

    ``strategy="quantile"`` uses equal-mass bins; ``norm`` selects the L1 (default),
    L2 or max norm — the largest gap over *every* non-empty bin, ``vc.mce(..., min_count=0)``: ``vc.mce``
    and the audit's MCE read only the bins of at least ``min_count`` (20) rows, so with thin bins the two
    differ (``vc.mce`` is NaN when no bin has 20 rows); ``estimator`` selects the plug-in estimator (default),
    the debiased L2 estimator or smooth ECE (see :mod:`veracity.core._honest`).
    ``multiclass="classwise"`` averages the one-vs-rest ECE over classes.

    >>> round(ece([0.1, 0.4, 0.8, 0.9], [0, 1, 1, 1], bins=10), 4)
    0.25
    """
    refuse_score(score_type, "vc.ece")
    if is_frame_form(score, label):
        return frame_call(ece, scores, labels, locals())
    require_labels("ece", labels)
    if estimator not in ESTIMATORS:
        raise VeracityError(
            f"estimator must be 'plugin', 'debiased' or 'smooth', got {estimator!r}"
        )
    problems = _problems(scores, labels, sample_weight, score_type, multiclass, pos_label)
    if estimator == "plugin":
        values = [ece_from_stats(_stats(d, bins, strategy, full=False), norm) for d in problems]
    else:
        values = [
            estimate_ece(d, estimator=estimator, bins=bins, strategy=strategy, norm=norm)
            for d in problems
        ]
    return float(np.mean(values))


def mce(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    min_count: int = 20,
    sample_weight: Any = None,
    pos_label: Any = None,
    multiclass: Multiclass = "top-label",
) -> float:
    r"""Maximum calibration error over the sufficient bins,
    :math:`\max_{b:\,n_b \ge \text{min\_count}} |\mathrm{acc}_b - \mathrm{conf}_b|`.

    A bin with fewer than ``min_count`` rows (Kish effective size when weighted; DESIGN:
    seed 003 does not draw bins under 20, seed 004 marks them "insufficient observations")
    never sets the maximum; NaN when no bin has enough rows. ``min_count=0`` gives the
    maximum over every non-empty bin (``vc.ece(..., norm="max")``).
    ``multiclass="classwise"`` averages the one-vs-rest values over classes.

    >>> round(mce([.05, .1, .15, .9], [0, 0, 0, 0], bins=2, min_count=3), 12)  # the 1-row bin is not acted on
    0.1
    """
    refuse_score(score_type, "vc.mce")
    if is_frame_form(score, label):
        return frame_call(mce, scores, labels, locals())
    require_labels("mce", labels)
    from ._reliability import max_gaps

    if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 0:
        raise VeracityError(f"min_count must be a whole number >= 0, got {min_count!r}", param="min_count")
    problems = _problems(scores, labels, sample_weight, score_type, multiclass, pos_label)
    values = [max_gaps(_stats(d, bins, strategy, full=False), min_count)[0] for d in problems]
    return float(np.mean(values))


def brier(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    multiclass: Multiclass = "top-label",
) -> float:
    r"""Brier score: mean squared error of probability forecasts.

    .. math:: \mathrm{BS} = \frac{1}{N} \sum_i (p_i - y_i)^2

    For (N, K) input the top-label reading squares (confidence − correct);
    ``multiclass="classwise"`` gives Brier's original multiclass score
    :math:`\frac1N\sum_i\sum_k (p_{ik} - [y_i = k])^2`.

    >>> round(brier([.76, .82, .81, .91, .70], [1, 0, 1, 1, 0]), 5)   # seed 004 worked case
    0.25284
    """
    refuse_score(score_type, "vc.brier")
    if is_frame_form(score, label):
        return frame_call(brier, scores, labels, locals())
    require_labels("brier", labels)
    problems = _problems(scores, labels, sample_weight, score_type, multiclass, pos_label)
    return float(sum(_wmean(residuals(d) ** 2, d.w) for d in problems))


def brier_decomposition(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> BrierDecomposition:
    """Brier score split into reliability, resolution, uncertainty and the within-bin terms.

    See :class:`BrierDecomposition` for the formulas; the identity is exact.
    """
    refuse_score(score_type, "vc.brier_decomposition")
    if is_frame_form(score, label):
        return frame_call(brier_decomposition, scores, labels, locals())
    require_labels("brier_decomposition", labels)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return brier_decomposition_from_stats(_stats(data, bins, strategy, full=True))


def nll(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    r"""Mean negative log-likelihood (log-loss).

    From logits: :math:`\frac1N\sum_i \mathrm{softplus}(-y^\pm_i s_i)`, :math:`y^\pm = 2y-1`,
    exact and overflow-free for any finite logit. From probabilities:
    :math:`-\frac1N\sum_i \log \mathrm{clip}(q_i, \epsilon, 1)`, with :math:`q_i` the
    probability given to the observed label and :math:`\epsilon` = float64 machine
    epsilon (scikit-learn's rule). Multiclass: categorical :math:`-\log p_{i,y_i}`.
    """
    refuse_score(score_type, "vc.nll")
    if is_frame_form(score, label):
        return frame_call(nll, scores, labels, locals())
    require_labels("nll", labels)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return _wmean(binary_nll_terms(data), data.w)


def _ranking_scores(data: Binary) -> np.ndarray:
    # Rank logits when we have them: the sigmoid saturates and would create ties.
    return data.logit if data.logit is not None else data.p


def _sorted_subset(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.sort(s[mask])


def mann_whitney_u2(
    s: np.ndarray, positive: np.ndarray, w: np.ndarray | None = None
) -> tuple[int | float, int | float, int | float]:
    r"""Twice the Mann–Whitney U and the class totals: ``(2U, W+, W-)``.

    :math:`2U = \sum_{i:\,y_i=1} w_i\,\big(2 W_-(< s_i) + w_-(= s_i)\big)` — integers when
    unweighted, so sums over partitions stay exact; AUC = 2U / (2 W+ W-).
    """
    n_pos = int(positive.sum())
    n_neg = int(positive.size - n_pos)
    if w is None:
        pos_future = submit(positive.size, _sorted_subset, s, positive)
        neg = np.sort(s[~positive])
        pos = pos_future.result()
        half = pos.size // 2
        first = submit(positive.size, twice_u, neg, pos[:half])
        return first.result() + twice_u(neg, pos[half:]), n_pos, n_neg
    return weighted_twice_u(s[positive], w[positive], s[~positive], w[~positive])


def auc_of(data: Binary) -> float:
    """Mann–Whitney AUC of a validated binary problem (ties count ½)."""
    positive = data.y == 1.0
    n_pos = int(positive.sum())
    n_neg = data.n - n_pos
    if n_pos == 0 or n_neg == 0:
        only = "1" if n_neg == 0 else "0"
        raise VeracityError(
            f"AUC needs both classes; all {data.n} labels are {only}. "
            "Audit a sample that contains positives and negatives"
        )
    u2, w_pos, w_neg = mann_whitney_u2(_ranking_scores(data), positive, data.w)
    if not (w_pos > 0 and w_neg > 0):
        raise VeracityError("AUC needs positive total weight in both classes")
    return u2 / (2.0 * w_pos * w_neg) if data.w is None else float(u2 / (2.0 * w_pos * w_neg))


AUC_MULTICLASS = ("top-label", "ovr", "ovo")
AUC_AVERAGES = ("macro", "weighted")


def _class_auc(s: np.ndarray, positive: np.ndarray, w: np.ndarray | None, what: str) -> float:
    u2, w_pos, w_neg = mann_whitney_u2(s, positive, w)
    if not (w_pos > 0 and w_neg > 0):
        raise VeracityError(
            f"{what} needs rows of both sides with positive weight; check that every class "
            "occurs in the labels, or use multiclass='top-label'"
        )
    return float(u2 / (2.0 * w_pos * w_neg))


def multiclass_auc(
    P: np.ndarray, y: np.ndarray, w: np.ndarray | None, *, multiclass: str, average: str,
    log_p: np.ndarray | None = None,
) -> float:
    r"""One-vs-rest or one-vs-one AUC of an (N, K) problem (scikit-learn's definitions).

    * ``ovr``: :math:`A_k = \mathrm{AUC}(P_{\cdot k},\ [y = k])`; macro = mean over k,
      weighted = :math:`\sum_k \pi_k A_k` with :math:`\pi_k` the (weighted) share of class k.
    * ``ovo`` (Hand & Till 2001): on the rows of classes a and b only,
      :math:`A_{ab} = \tfrac12\big(\mathrm{AUC}(P_{\cdot a}, [y=a]) + \mathrm{AUC}(P_{\cdot b}, [y=b])\big)`;
      macro = mean over the K(K−1)/2 pairs, weighted = weighted by each pair's share of rows.

    Classes are ranked by ``log_p`` when given (logit input): the same order as P without
    the ties that a saturated softmax creates. The loop runs over classes, never rows.
    """
    if multiclass not in ("ovr", "ovo"):
        raise VeracityError(f"multiclass must be one of {AUC_MULTICLASS}, got {multiclass!r}", param="multiclass")
    if average not in AUC_AVERAGES:
        raise VeracityError(f"average must be 'macro' or 'weighted', got {average!r}", param="average")
    rank = log_p if log_p is not None else P
    k = P.shape[1]
    weight = np.ones(y.size) if w is None else w
    share = np.bincount(y, weights=weight, minlength=k) / weight.sum()
    if multiclass == "ovr":
        scores = np.array([
            _class_auc(rank[:, c], y == c, w, f"one-vs-rest AUC of class {c}") for c in range(k)
        ])
        return float(scores.mean() if average == "macro" else np.dot(share, scores))
    pair_scores, pair_shares = [], []
    for a in range(k):
        for b in range(a + 1, k):
            rows = (y == a) | (y == b)
            wr = None if w is None else w[rows]
            what = f"one-vs-one AUC of classes {a} and {b}"
            a_vs_b = _class_auc(rank[rows, a], y[rows] == a, wr, what)
            b_vs_a = _class_auc(rank[rows, b], y[rows] == b, wr, what)
            pair_scores.append(0.5 * (a_vs_b + b_vs_a))
            pair_shares.append(share[a] + share[b])
    scores, shares = np.array(pair_scores), np.array(pair_shares)
    return float(scores.mean() if average == "macro" else np.dot(shares, scores) / shares.sum())


def auc(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    multiclass: AucMulticlass = "top-label",
    average: AucAverage = "macro",
) -> float:
    r"""Area under the ROC curve as the Mann–Whitney statistic.

    .. math:: \mathrm{AUC} = \frac{1}{n_+ n_-}\sum_{i:\,y_i=1}\sum_{j:\,y_j=0}
              \big([s_i > s_j] + \tfrac12[s_i = s_j]\big)

    computed exactly in O(N log N) by sorting each class and counting with binary
    search (weighted: pairs weighted by :math:`w_i w_j`). Logits are ranked directly,
    so saturated probabilities never create spurious ties.

    For (N, K) input, ``multiclass`` chooses the reading: ``"top-label"`` (default) —
    how well the confidence separates right from wrong answers; ``"ovr"`` or ``"ovo"``
    — scikit-learn's one-vs-rest / one-vs-one AUC (``roc_auc_score(multi_class=...)``)
    with ``average="macro"`` or ``"weighted"`` (see :func:`multiclass_auc`). A 1-D
    (binary) input has one AUC whatever ``multiclass`` says.

    >>> auc([.2, .4, .6, .8], [0, 0, 1, 1]), auc([.01, .02, .98, .99], [0, 0, 1, 1])  # seed 004
    (1.0, 1.0)
    """
    if is_frame_form(score, label):
        return frame_call(auc, scores, labels, locals())
    require_labels("auc", labels)
    if multiclass not in AUC_MULTICLASS:
        raise VeracityError(f"multiclass must be one of {AUC_MULTICLASS}, got {multiclass!r}", param="multiclass")
    if average not in AUC_AVERAGES:
        raise VeracityError(f"average must be 'macro' or 'weighted', got {average!r}", param="average")
    if multiclass != "top-label" and np.ndim(scores) == 2:
        P, y, w, log_p = prepare_multiclass(
            scores, labels, sample_weight=sample_weight, score_type=score_type
        )
        return multiclass_auc(P, y, w, multiclass=multiclass, average=average, log_p=log_p)
    # a rank statistic: the declared reading cannot change its value, so any real scores go
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label, trusted_logits=True, allow_score=True)
    return auc_of(data)


def check_threshold(threshold: Any) -> float:
    """The decision threshold: a probability in [0, 1] (the one check of ``threshold=``), as a float;
    -0.0 reads 0.0 (``+ 0.0``), so that no printout says "acc(-0)"."""
    if not (is_real(threshold) and 0.0 <= threshold <= 1.0):
        raise VeracityError(f"threshold must be a probability in [0, 1], got {threshold!r}", param="threshold")
    return float(threshold) + 0.0


def refuse_top_label_threshold(threshold: Any, n_classes: int, *, classwise: str = "") -> None:
    """(N, K) scores read top-label: their accuracy is the share of rows whose argmax is the label, which no
    threshold cuts. A threshold other than 0.5 (the default; for K = 2 cutting the positive class's column at
    0.5 is the argmax up to ties) was ignored silently: refused in one line naming the reading that uses it.
    ``classwise``: the call's own one-vs-rest reading that keeps the threshold, added to the remedy."""
    threshold = check_threshold(threshold)
    if threshold == 0.5:
        return
    column = ("the positive class's column P[:, 1]" if n_classes == 2
              else "one class's column P[:, k] with the labels y == k")
    raise VeracityError(
        f"threshold={threshold!r} has no effect on (N, K) scores read top-label (the accuracy is the share "
        f"of rows whose argmax is the label): pass {column} to threshold it{classwise}, or leave threshold "
        "at 0.5 for the top-label (argmax) accuracy", param="threshold")


def accuracy_of(data: Binary, threshold: float = 0.5) -> float:
    r"""The weighted share of correct decisions :math:`\hat y = 1[p \ge t]`; of top-label data (the callers
    refuse a threshold there, :func:`refuse_top_label_threshold`) the share of rows whose argmax is right."""
    check_threshold(threshold)
    if data.top_label:  # the share of rows whose argmax is the label; no threshold
        return _wmean(data.y, data.w)
    if data.logit is not None and 0.0 < threshold < 1.0:
        # Decide on the logit scale: exact, no rounding at the sigmoid's flat ends.
        predicted = data.logit >= np.log(threshold / (1.0 - threshold))
    else:
        predicted = data.p >= threshold
    return _wmean((predicted == (data.y == 1.0)).astype(np.float64), data.w)


def accuracy(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    threshold: float = 0.5,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    r"""Fraction of correct decisions, predicting 1 when :math:`p \ge t` (DESIGN §3).

    For (N, K) input: fraction of rows whose argmax equals the label; a tied row predicts class 1 for
    K = 2 (a row [0.5, 0.5] reads as a 1-D p = 0.5 does), the first maximum for K >= 3. No threshold cuts
    the argmax: a ``threshold`` other than 0.5 is refused there (pass the positive class's column to cut it).

    >>> accuracy([0.2, 0.5, 0.7], [0, 1, 0])
    0.6666666666666666
    """
    refuse_score(score_type, "vc.accuracy")
    if is_frame_form(score, label):
        return frame_call(accuracy, scores, labels, locals())
    require_labels("accuracy", labels)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    if data.top_label:
        refuse_top_label_threshold(threshold, data.n_classes)
    return accuracy_of(data, threshold)
