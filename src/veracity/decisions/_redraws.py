r"""Seed 003's redraw experiment: how much does a recall threshold fit on calib wobble?"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._text import render_table
from ..core._options import ScoreType
from ..core._validation import VeracityError, check_random_state, check_same_index, to_numpy
from ..core._weights import sandwich_size
from ._inputs import CEIL_EPS, RECALL_ONE, binary_inputs, caller_level, check_flag, check_target, narrow_float
from ._thresholds import min_positives
from ..core._display import Display
from ..core._compat import renamed, renamed_attribute
from ..core._frameform import rows_form


#: more redraws than this is a mistake (the summaries settle long before), refused before allocating
MAX_REDRAWS = 10_000_000


def _summary(x: np.ndarray, target: float) -> dict[str, float]:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return {"mean": float("nan"), "p05": float("nan"), "p95": float("nan"), "below_target": float("nan")}
    p05, p95 = np.quantile(x, [0.05, 0.95])
    return {"mean": float(x.mean()), "p05": float(p05), "p95": float(p95),
            "below_target": float(np.mean(x < target))}


@dataclass(frozen=True, eq=False, repr=False)
class RedrawResult(Display):
    r"""Outcome of :func:`simulate_redraws`, one entry per (kept) redraw.

    * ``thresholds`` — the recall threshold fit on that redraw's calib rows;
    * ``calib_positives``, ``test_positives`` — positives drawn into calib / test;
    * ``calib_recall`` — recall on the calib rows it was fit on (always ≥ target);
    * ``test_recall`` — the recall a test split would report;
    * ``deployed_recall`` — recall on every pool positive outside calib (the deployment);
    * ``expected_recall`` — theory, :math:`k/(m+1)` for *m* calib positives (with
      ``sample_weight``: at the rank *k* the weighted rule picked, the equal-weight law, which uneven
      weights do not follow: their deployed recall can differ from it).

    ``summary()`` gives mean, 5 %/95 % quantiles and the share below target;
    ``n_resamples`` is the number of kept redraws. ``score_dtype`` is the precision the scores were
    compared in, ``"float64"`` or the scores' own ``"float32"`` (``"float16"``): every threshold is one
    of the scores, so ``scores32 >= thresholds[r]`` in numpy flags the rows each recall counts.
    """

    target: float
    correction: bool
    n_calib: int
    n_test: int
    pool_size: int
    pool_positives: int
    stratify: bool
    random_state: Any
    skipped: int
    thresholds: np.ndarray
    calib_positives: np.ndarray
    test_positives: np.ndarray
    calib_recall: np.ndarray
    test_recall: np.ndarray
    deployed_recall: np.ndarray
    expected_recall: np.ndarray

    weighted: bool = False
    score_dtype: str = "float64"

    seed = renamed_attribute("seed", "random_state")
    redraws = renamed_attribute("redraws", "n_resamples")

    @property
    def n_resamples(self) -> int:
        return int(self.thresholds.shape[0])

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            "calib": _summary(self.calib_recall, self.target),
            "test": _summary(self.test_recall, self.target),
            "deployed": _summary(self.deployed_recall, self.target),
        }

    @property
    def test_mean(self) -> float:
        return self.summary()["test"]["mean"]

    @property
    def deployed_mean(self) -> float:
        return self.summary()["deployed"]["mean"]

    @property
    def test_range(self) -> tuple[float, float]:
        s = self.summary()["test"]
        return s["p05"], s["p95"]

    @property
    def deployed_range(self) -> tuple[float, float]:
        s = self.summary()["deployed"]
        return s["p05"], s["p95"]

    @property
    def test_below_target(self) -> float:
        return self.summary()["test"]["below_target"]

    @property
    def deployed_below_target(self) -> float:
        return self.summary()["deployed"]["below_target"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "correction": self.correction, "n_calib": self.n_calib,
            "n_test": self.n_test, "pool_size": self.pool_size, "pool_positives": self.pool_positives,
            "stratify": self.stratify, "random_state": self.random_state if isinstance(self.random_state, int) else None,
            "n_resamples": self.n_resamples, "weighted": self.weighted, "score_dtype": self.score_dtype,
            "skipped": self.skipped, "mean_calib_positives": float(self.calib_positives.mean()),
            "expected_recall": float(self.expected_recall.mean()), "summary": self.summary(),
        }

    def __str__(self) -> str:
        s = self.summary()
        names = {"calib": "calib (fit here)", "test": "test-reported", "deployed": "deployed"}
        def pct(x: float, digits: int) -> str:  # no recall measured (n_test=0): "n/a", never "nan%"
            return f"{x:.{digits}%}" if math.isfinite(x) else "n/a"

        body = [
            [names[k], pct(v["mean"], 2), pct(v["p05"], 2), pct(v["p95"], 2), pct(v["below_target"], 1)]
            for k, v in s.items()
        ]
        table = render_table(["recall", "mean", "5%", "95%", f"< {self.target:g}"], body)
        if self.weighted:  # the weighted rule picks its own rank: "k = ceil((n+1)·target)" was said of it
            rule = ("the first rank where the calib positives' cumulative weight reaches "
                    + ("target·(W + Σw²/Σw), or target·(W + W/m) where the weights' spread about the "
                       "threshold gives a smaller size m" if self.correction else "target·W"))
        else:
            rule = "ceil((n+1)·target)" if self.correction else "ceil(n·target)"
        few = "too few positives" + (" or too few effective ones" if self.weighted else "")
        skipped = f"; {self.skipped} skipped ({few})" if self.skipped else ""
        compared = ("" if self.score_dtype == "float64"
                    else f" (compared in {self.score_dtype} as the scores are)")
        # the law k/(n+1) is that of equally weighted rows: said of uneven ones as "theory" it promised the
        # target where their deployed recall fell short (0.877 of a 0.9 target, 0.870 "theory")
        mean = self.expected_recall.mean()
        theory = (f"theory k/(n+1) averages {mean:.2%}" if not self.weighted else
                  f"k/(n+1) at the ranks picked averages {mean:.2%}, the law of equally weighted rows: uneven "
                  "weights have no such guarantee")
        return (
            f"{self.n_resamples} redraws of calib ({self.n_calib} rows, {self.calib_positives.mean():.1f} "
            f"positives on average) and test ({self.n_test} rows) from {self.pool_size} rows{skipped}\n"
            f"threshold = the k-th highest calib positive{compared}, k = {rule}; {theory}\n{table}"
        )


@renamed(seed="random_state", redraws="n_resamples", n_redraws="n_resamples")
@rows_form
def simulate_redraws(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    n_calib: int,
    n_test: int | None = None,
    target: float = 0.95,
    correction: bool = True,
    n_resamples: int = 1000,
    stratify: bool = False,
    random_state: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> RedrawResult:
    r"""Redraw the calib/test split many times and watch the recall threshold wobble (seed 003).

    ``scores, labels`` are a labelled pool standing for the population (e.g. the
    27,000 deployment rows of seed 003). Each of ``n_resamples`` repetitions draws
    ``n_calib`` calib rows and ``n_test`` disjoint test rows without replacement
    (``stratify=True`` keeps the positive share of the pool in both), fits
    :func:`~veracity.recall_threshold` on the calib positives (k-th highest of *m*,
    :math:`k = \lceil (m+1)\,\mathrm{target} \rceil` or :math:`\lceil m\,\mathrm{target} \rceil`
    without ``correction``) and measures recall three ways: on calib itself, on the
    test rows (what a test split reports), and on every pool positive outside calib
    (what deployment delivers). Only positives matter for recall, so only positives
    are drawn: the count *m* in calib is hypergeometric (or fixed when stratified).

    The draws of row indices loop over redraws (``Generator.choice``); fitting and
    measuring are vectorised over all redraws. Redraws with too few calib positives
    for the target are skipped (counted in ``skipped``, with a warning). Theory: for
    continuous scores the deployed recall is Beta(k, m + 1 − k) with mean k/(m+1).
    ``pos_label`` names the positive class of two-valued labels; ``random_state``
    (an integer, a ``numpy.random.Generator`` or None) makes the draws reproducible.
    Only the order of the scores matters: ``score_type`` may be ``"probability"``,
    ``"logit"`` or ``"score"`` (a ranking score), as for :func:`~veracity.recall_threshold`.

    ``sample_weight`` weighs the pool's rows (e.g. inverse sampling probabilities):
    rows of weight 0 are dropped from the pool, the threshold is fit with
    :func:`~veracity.recall_threshold`'s weighted rule (the new positive counted at :math:`W/m` of each
    redraw's calib positives, *m* the smaller of Kish's effective number :math:`(\sum w)^2/\sum w^2` and
    the size the weights' spread about the threshold gives; redraws where it is below
    :func:`min_positives` are skipped)
    and every recall is a weighted share of positive weight. Equal weights give the unweighted
    result exactly.

    **Precision.** Every threshold is one of the pool's scores, and every recall counts
    ``score >= threshold`` among the pool's scores: with float32 (float16) scores both sides are
    float32 values, so the counts are numpy's own ``scores32 >= t`` (in float32, as for a Python float
    ``t``) and ``score_dtype`` says ``"float32"``, as :func:`~veracity.threshold_table` does.

    >>> rng = np.random.default_rng(0)
    >>> s = rng.random(20000); y = (rng.random(20000) < s).astype(int)
    >>> r = simulate_redraws(s, y, n_calib=400, n_resamples=200, random_state=1)
    >>> r.deployed_mean > 0.95 - 0.01, r.n_resamples
    (True, 200)
    """
    # the recall threshold is an order statistic (recall_threshold takes any real score): a ranking score
    # (score_type="score") was refused as if it were read as a probability
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)  # before to_numpy drops it
    raw = to_numpy(scores, "scores")  # once: its dtype is the precision of the comparison
    dtype = narrow_float(raw)
    s, y, w = binary_inputs(raw, labels, score_type=score_type, pos_label=pos_label,
                            sample_weight=sample_weight, allow_score=True)
    dropped = 0 if w is None else int(np.count_nonzero(w == 0))
    if w is not None:
        s, y, w = s[w > 0], y[w > 0], w[w > 0]  # a row of weight 0 is a dropped row
        if w.min() == w.max():
            w = None  # equal weights: only their ratios matter
    target = check_target(target, one=RECALL_ONE)
    correction, stratify = check_flag(correction, "correction"), check_flag(stratify, "stratify")
    N = s.shape[0]
    n_test = n_calib if n_test is None else n_test
    for name, v in (("n_calib", n_calib), ("n_test", n_test), ("n_resamples", n_resamples)):
        low = 0 if name == "n_test" else 1
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not (
                np.isfinite(v) and v >= low and int(v) == v):
            what = "a non-negative integer" if low == 0 else "a positive integer"
            raise VeracityError(f"{name} must be {what}; got {v!r}", param=name)
    n_calib, n_test, redraws = int(n_calib), int(n_test), int(n_resamples)
    if redraws > MAX_REDRAWS:  # a few arrays of n_resamples entries each: refused before allocating them
        raise VeracityError(f"n_resamples={redraws:,} is too many: at most {MAX_REDRAWS:,} redraws (10,000 "
                            "already pin the 5 % and 95 % points); pass e.g. n_resamples=1000", param="n_resamples")
    if n_calib + n_test > N:
        raise VeracityError(
            f"n_calib + n_test = {n_calib + n_test} exceeds the pool of {N} rows"
            f"{f' (the {N + dropped} rows less {dropped} of weight 0)' if dropped else ''}; draw fewer rows",
            param="n_calib")
    pos_scores = s[y == 1.0]
    pos_weights = None if w is None else w[y == 1.0]
    P = pos_scores.shape[0]
    need = min_positives(target, correction)
    if P < need:
        raise VeracityError(
            f"the pool has {P} positives; target recall {target:g} needs at least {need} calib positives"
        )
    seed = check_random_state(random_state)
    rng = np.random.default_rng(seed)
    if stratify:
        m_fixed = int(round(n_calib * P / N))
        m = np.full(redraws, m_fixed)
        # both shares rounded up (5 and 5 of 10 rows, 3 positives: 2 + 2) cannot hold more than P
        t = np.full(redraws, min(int(round(n_test * P / N)), P - m_fixed))
    else:
        m = rng.hypergeometric(P, N - P, n_calib, size=redraws)
        t = rng.hypergeometric(P - m, (N - P) - (n_calib - m), n_test) if n_test else np.zeros(redraws, int)
    if pos_weights is not None:
        return _weighted_redraws(pos_scores, pos_weights, m, t, rng, target=target, correction=bool(correction),
                                 n_calib=n_calib, n_test=n_test, pool_size=N, stratify=bool(stratify),
                                 seed=seed, need=need, score_dtype="float64" if dtype is None else dtype.name)
    k = np.maximum(1, np.ceil((m + 1 if correction else m) * target - 1e-9).astype(np.int64))
    keep = (k <= m) & (m >= 1)
    skipped = int((~keep).sum())
    if not keep.any():
        raise VeracityError(
            f"every redraw had too few calib positives (at most {int(m.max())}); target recall "
            f"{target:g} needs at least {need}. Use a larger n_calib"
        )
    if skipped:
        warnings.warn(
            f"{skipped} of {redraws} redraws had fewer than {need} calib positives and were skipped",
            stacklevel=caller_level(),
        )
    m, t, k = m[keep], t[keep], k[keep]
    R = m.shape[0]
    width_c, width_t = int(m.max()), max(1, int(t.max()))
    calib = np.full((R, width_c), -np.inf)
    test = np.full((R, width_t), np.nan)
    for r in range(R):  # index draws only; everything below is vectorised over redraws
        idx = rng.choice(P, m[r] + t[r], replace=False)
        calib[r, : m[r]] = pos_scores[idx[: m[r]]]
        test[r, : t[r]] = pos_scores[idx[m[r]:]]
    desc = -np.sort(-calib, axis=1)
    thr = desc[np.arange(R), k - 1]
    tp_calib = (calib >= thr[:, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        test_hits = (test >= thr[:, None]).sum(axis=1)
        test_recall = np.where(t > 0, test_hits / np.maximum(t, 1), np.nan)
        sorted_pos = np.sort(pos_scores)
        tp_pool = P - np.searchsorted(sorted_pos, thr, side="left")
        outside = P - m
        deployed = np.where(outside > 0, (tp_pool - tp_calib) / np.maximum(outside, 1), np.nan)
    return RedrawResult(
        target=target, correction=bool(correction), n_calib=n_calib, n_test=n_test, pool_size=N,
        pool_positives=P, stratify=bool(stratify), random_state=seed, skipped=skipped, thresholds=thr,
        calib_positives=m, test_positives=t, calib_recall=tp_calib / m, test_recall=test_recall,
        deployed_recall=deployed, expected_recall=k / (m + 1.0),
        score_dtype="float64" if dtype is None else dtype.name,
    )


def _weighted_redraws(pos_scores: np.ndarray, pos_weights: np.ndarray, m: np.ndarray, t: np.ndarray,
                      rng: np.random.Generator, *, target: float, correction: bool, n_calib: int, n_test: int,
                      pool_size: int, stratify: bool, seed: Any, need: int,
                      score_dtype: str = "float64") -> RedrawResult:
    """:func:`simulate_redraws` with unequal weights: the weighted recall rule, weighted recalls."""
    P = pos_scores.shape[0]
    ok = m >= 1
    m, t = m[ok], t[ok]
    R = m.shape[0]
    if R == 0:
        raise VeracityError(f"every redraw had no calib positives; target recall {target:g} needs at least "
                            f"{need}. Use a larger n_calib", param="n_calib")
    width_c, width_t = int(m.max()), max(1, int(t.max()))
    calib = np.full((R, width_c), -np.inf)
    calib_w = np.zeros((R, width_c))
    test = np.full((R, width_t), -np.inf)
    test_w = np.zeros((R, width_t))
    for r in range(R):  # index draws only; everything below is vectorised over redraws
        idx = rng.choice(P, m[r] + t[r], replace=False)
        calib[r, : m[r]], calib_w[r, : m[r]] = pos_scores[idx[: m[r]]], pos_weights[idx[: m[r]]]
        test[r, : t[r]], test_w[r, : t[r]] = pos_scores[idx[m[r]:]], pos_weights[idx[m[r]:]]
    order = np.argsort(-calib, axis=1, kind="stable")
    desc = np.take_along_axis(calib, order, axis=1)
    cum = np.cumsum(np.take_along_axis(calib_w, order, axis=1), axis=1)
    total = cum[:, -1]
    # recall_threshold's weighted rule: the first position where the cumulative positive weight reaches
    # target·(W + W/m) (target·W without correction): the new positive at W/m, m Kish's size (the
    # size-biased mean weight; the mean weight W/m exactly where a redraw's weights are equal), or the
    # smaller size the weights' spread about that threshold gives; refused (skipped) where either size is
    # below the +1 minimum
    top = calib_w.max(axis=1)
    u = calib_w / top[:, None]  # scaled by the largest first: squares near the float range stay finite
    sum_u, sum_u2 = u.sum(axis=1), (u * u).sum(axis=1)
    low = np.where(calib_w > 0, calib_w, np.inf).min(axis=1)
    equal = low == top
    kish = np.where(equal, m, sum_u * sum_u / sum_u2)
    plus_one = np.where(equal, total / m, top * sum_u2 / sum_u)
    j = _first_reaching(cum, target * (total + plus_one if correction else total), total)
    keep = j < m
    if correction:
        keep &= (m < need) | (kish >= need)  # m < need: refused by j >= m above
        spread = _spread_sizes(calib, u, desc[np.arange(R), np.minimum(j, width_c - 1)], equal)
        moved = keep & (spread < kish)
        keep &= ~moved | (spread >= need)
        with np.errstate(divide="ignore"):
            j = np.where(moved, _first_reaching(cum, target * (total + total / spread), total), j)
        keep &= j < m
    skipped = int((~ok).sum() + (~keep).sum())
    if not keep.any():
        raise VeracityError(
            f"every redraw had too few calib positives; target recall {target:g} needs at least {need} "
            "of positive weight, whatever their weights, and an effective number (Kish, (sum w)^2 / sum w^2) "
            f"of at least {need}. Use a larger n_calib", param="n_calib")
    if skipped:
        warnings.warn(f"{skipped} of {ok.size} redraws had too few calib positives for the target (or an "
                      f"effective number of them below {need}) and were skipped", stacklevel=caller_level())
    m, t, j = m[keep], t[keep], j[keep]
    calib, calib_w, test, test_w, total = calib[keep], calib_w[keep], test[keep], test_w[keep], total[keep]
    thr = desc[keep][np.arange(m.shape[0]), j]
    w_calib_hit = (calib_w * (calib >= thr[:, None])).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        w_test = test_w.sum(axis=1)
        test_recall = np.where(w_test > 0, (test_w * (test >= thr[:, None])).sum(axis=1) / w_test, np.nan)
        order_pool = np.argsort(pos_scores, kind="stable")
        sorted_pos = pos_scores[order_pool]
        w_above = np.r_[np.cumsum(pos_weights[order_pool][::-1])[::-1], 0.0]  # weight at or above each position
        w_pool_hit = w_above[np.searchsorted(sorted_pos, thr, side="left")]
        outside = float(pos_weights.sum()) - total
        deployed = np.where(P - m > 0, (w_pool_hit - w_calib_hit) / outside, np.nan)  # positives outside calib
    return RedrawResult(
        target=target, correction=correction, n_calib=n_calib, n_test=n_test, pool_size=pool_size,
        pool_positives=P, stratify=stratify, random_state=seed, skipped=skipped, thresholds=thr,
        calib_positives=m, test_positives=t, calib_recall=w_calib_hit / total, test_recall=test_recall,
        deployed_recall=deployed, expected_recall=(j + 1) / (m + 1.0), weighted=True,
        score_dtype=score_dtype,
    )


def _first_reaching(cum: np.ndarray, need_w: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Per redraw (row of ``cum``), the first position whose cumulative weight reaches ``need_w`` (the
    tolerance of the unweighted rule's ceiling, relative to the total weight); the row's width where none
    does."""
    reached = cum >= (need_w - CEIL_EPS * total)[:, None]
    j: np.ndarray = np.where(reached.any(axis=1), reached.argmax(axis=1), cum.shape[1])
    return j


def _spread_sizes(calib: np.ndarray, u: np.ndarray, thr: np.ndarray, equal: np.ndarray) -> np.ndarray:
    r"""Per redraw, the sandwich size :math:`F(1-F)\,W^2/\sum_i w_i^2 (h_i - F)^2` of the weighted share of
    calib positives caught, :math:`h_i = 1\{s_i \ge t\}` (:func:`~veracity.core._weights.sandwich_size`,
    as :func:`~veracity.decisions._thresholds.weighted_recall_rule` reads it); ``+inf`` for equal weights.
    ``u`` holds the weights scaled by each redraw's largest (0 in the padding)."""
    hit = calib >= thr[:, None]
    total = u.sum(axis=1)
    u_hit = np.where(hit, u, 0.0)
    u_miss = u - u_hit
    size = sandwich_size(total, u_hit.sum(axis=1) / total, (u_hit * u_hit).sum(axis=1),
                         (u_miss * u_miss).sum(axis=1))
    return np.where(equal, np.inf, size)
