r"""CORP (Dimitriadis, Gneiting & Jordan 2021) from a model's sort, and of a paired difference.

The CORP curve is the isotonic (PAV) regression of the labels on the scores; the sort that
DeLong's placements already needed gives the distinct scores as runs, so no second sort
(``np.unique``) is paid, and the recalibrated scores' losses are sums over the runs. The
numbers are :func:`veracity.corp`'s (the tests check them).

**The difference.** Each row's Brier score splits as
:math:`(p_i - y_i)^2 = \underbrace{(p_i - y_i)^2 - (\hat p_i - y_i)^2}_{\mathrm{mcb}_i}
- \underbrace{\big((r - y_i)^2 - (\hat p_i - y_i)^2\big)}_{\mathrm{dsc}_i} + \underbrace{(r - y_i)^2}_{\mathrm{unc}_i}`
with :math:`\hat p` the CORP recalibration and r the base rate; averaging gives MCB − DSC + UNC.
For two models on the same rows the per-row differences of these terms decompose the paired
score difference (the mean of :math:`(p_{B,i} - y_i)^2 - (p_{A,i} - y_i)^2`):
:math:`\Delta S = \Delta\mathrm{MCB} - \Delta\mathrm{DSC}` (UNC depends only on the labels, so
:math:`\Delta\mathrm{UNC} = 0`) — the CORP decomposition *of the difference*, which by linearity
is the difference of the two decompositions (the tests check it against ``vc.corp``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._special import xlogy
from ..core._validation import Binary
from ..honest._corp import CORPResult, ScoreDecomposition
from ._delong import Ranked


@dataclass(frozen=True, eq=False)
class Runs:
    """The distinct probabilities of one model as runs of its sorted rows (labels, weights sorted too)."""

    order: np.ndarray
    starts: np.ndarray | None  # first sorted position of each distinct probability (None: every row)
    x: np.ndarray  # the distinct probabilities
    y: np.ndarray  # labels in sorted order
    w: np.ndarray | None  # weights in sorted order


def sorted_probabilities(data: Binary, ranked: Ranked) -> np.ndarray:
    """The model's probabilities in its sort's order (the logits' order is the probabilities'):
    the sorted scores themselves unless the model was ranked by its logits (then one gather)."""
    return ranked.scores if data.logit is None else data.p[ranked.order]


def runs_of(data: Binary, ranked: Ranked, ps: np.ndarray | None = None) -> Runs:
    """Runs of equal probabilities from the model's sort (``ps``: :func:`sorted_probabilities`,
    when already at hand).

    Without ties every row is its own run: ``starts`` is None and nothing is allocated."""
    if data.logit is None and not ranked.tied:
        return Runs(order=ranked.order, starts=None, x=ranked.scores, y=ranked.y, w=ranked.w)
    ps = sorted_probabilities(data, ranked) if ps is None else ps
    new = np.empty(ps.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(ps[1:], ps[:-1], out=new[1:])
    if new.all():
        return Runs(order=ranked.order, starts=None, x=ps, y=ranked.y, w=ranked.w)
    starts = np.flatnonzero(new)
    return Runs(order=ranked.order, starts=starts, x=ps[starts], y=ranked.y, w=ranked.w)


def isotonic(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """PAV fit (``weights`` None: all 1)."""
    from scipy.optimize import isotonic_regression  # 0.15 s to import: load on use

    return np.clip(isotonic_regression(values, weights=weights, increasing=True).x, 0.0, 1.0)


def run_sums(runs: Runs, weights: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray]:
    """Per run: Σw (None: every run is one row of weight 1) and Σw·y (``weights``: per-row weights
    in sorted order, default the data's)."""
    w = runs.w if weights is None else weights
    if runs.starts is None:
        return (None, runs.y) if w is None else (w, w * runs.y)
    n = runs.y.shape[0]
    if w is None:
        return np.diff(np.r_[runs.starts, n]).astype(np.float64), np.add.reduceat(runs.y, runs.starts)
    return np.add.reduceat(w, runs.starts), np.add.reduceat(w * runs.y, runs.starts)


def _starts(values: np.ndarray) -> np.ndarray:
    """``[0, i_1, …, i_k, m]``: where each run of equal consecutive ``values`` starts, and the end
    (one array: a run's length is the difference of two neighbours)."""
    m = values.shape[0]
    change = np.flatnonzero(values[1:] != values[:-1])
    bounds = np.empty(change.shape[0] + 2, dtype=np.int64)
    bounds[0], bounds[-1] = 0, m
    np.add(change, 1, out=bounds[1:-1])
    return bounds


def pooled_fit(wx: np.ndarray | None, yx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The PAV fit of the run means ``yx / wx`` as ``(fit, Σw, Σwy, bounds)`` per pooled block
    (``bounds``: the first run of each block, then the number of runs; ``wx`` None: every run is
    one row of weight 1, so ``yx`` holds its 0/1 label).

    Consecutive runs with the same mean are pooled before PAV: the least-squares isotonic fit
    is equal on them (averaging two unequal fitted values there keeps the order and, by strict
    convexity, lowers the loss), so the fit is unchanged and PAV sees fewer points — for 0/1
    labels on distinct scores, about half as many. Unweighted, a block of c rows with label
    y has Σw = c and Σwy = c·y (exact: integers).
    """
    values = yx if wx is None else yx / wx
    bounds = _starts(values)
    first = bounds[:-1]
    if wx is None:  # c rows of label y: Σw = c, Σwy = c·y, mean y
        label = yx[first]
        pw = np.subtract(bounds[1:], bounds[:-1], out=np.empty(label.shape[0]))
        return isotonic(label, pw), pw, pw * label, bounds
    pw, py = np.add.reduceat(wx, first), np.add.reduceat(yx, first)
    return isotonic(py / pw, pw), pw, py, bounds


@dataclass(frozen=True, eq=False)
class CORPFit:
    """The PAV fit of one model's runs: the curve (``x``, ``y``, ``weight``) and the mean Brier
    score and log loss of the recalibrated scores (``s_hat``, ``l_hat``) and of the base rate
    (``s_r``, ``l_r``) — everything of :class:`CORPResult` but the model's own two scores."""

    x: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    s_hat: float
    l_hat: float
    s_r: float
    l_r: float


def corp_fit(runs: Runs) -> CORPFit:
    """The PAV fit of the runs: everything the fit changes is constant on a run, so the recalibrated scores'
    Brier score and log loss are sums over the fit's blocks (no per-row pass)."""
    wx, yx = run_sums(runs)
    fit, pw, py, pooled = pooled_fit(wx, yx)
    total, sy = float(pw.sum()), float(py.sum())
    base = sy / total
    # the fit is constant on its blocks (far fewer than runs): sum the pooled runs per block first
    first = _starts(fit)[:-1]
    bw, by, bf = np.add.reduceat(pw, first), np.add.reduceat(py, first), fit[first]
    s_hat = (float(np.dot(bw, bf * bf)) - 2.0 * float(np.dot(bf, by)) + sy) / total
    s_r = base * (1.0 - base)  # mean (r - y)^2 for 0/1 labels
    l_hat = -float(np.sum(xlogy(by, bf) + xlogy(bw - by, 1.0 - bf))) / total
    l_r = -float(xlogy(base, base) + xlogy(1.0 - base, 1.0 - base))
    # The base rate is an isotonic fit, so the PAV fit's loss is at most its: DSC = s_r - s_hat >= 0
    # (and one block, a constant model, *is* the base rate: DSC exactly 0). Read as such, not from two
    # sums rounded apart (a constant model printed DSC "-0.0000").
    s_hat, l_hat = (s_r, l_r) if first.shape[0] == 1 else (min(s_hat, s_r), min(l_hat, l_r))
    # the curve's value at every distinct score: each block's fit repeated over the block's runs
    # (a few long repeats, not one per pooled run)
    y = np.repeat(bf, np.diff(pooled[np.r_[first, fit.shape[0]]]))
    weight = np.broadcast_to(1.0, yx.shape) if wx is None else wx  # one row each: no array
    return CORPFit(x=runs.x, y=y, weight=weight, s_hat=s_hat, l_hat=l_hat, s_r=s_r, l_r=l_r)


def corp_result(f: CORPFit, brier: float, nll: float, n: int) -> CORPResult:
    """:func:`veracity.corp`'s result from the fit and the model's mean Brier score and log loss."""
    # MCB >= 0 and DSC >= 0 by the fit's optimality (the model's own scores and the base rate are
    # isotonic fits too); max(0.0, ·) keeps rounding from printing a "-0.0000" and turns -0.0 into 0.0
    brier_d = ScoreDecomposition(score=brier, mcb=max(0.0, brier - f.s_hat), dsc=max(0.0, f.s_r - f.s_hat),
                                 unc=f.s_r)
    log_loss = ScoreDecomposition(score=nll, mcb=max(0.0, nll - f.l_hat), dsc=max(0.0, f.l_r - f.l_hat),
                                  unc=f.l_r)
    return CORPResult(x=f.x, y=f.y, weight=f.weight, brier=brier_d, log_loss=log_loss, n=n)


def difference(a: CORPResult, b: CORPResult) -> ScoreDecomposition:
    """The CORP (Brier) decomposition of the paired difference ``b - a`` (see the module doc):
    ΔS = ΔMCB − ΔDSC, and ΔUNC = 0 because both models face the same labels."""
    mcb, dsc = b.brier.mcb - a.brier.mcb + 0.0, b.brier.dsc - a.brier.dsc + 0.0  # + 0.0: never -0.0
    return ScoreDecomposition(score=mcb - dsc + 0.0, mcb=mcb, dsc=dsc, unc=0.0)


def overfit_bound(runs: Runs, f: CORPFit, row_keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""A bound on how far the PAV fit's in-sample Brier score sits below that of the true
    (isotonic) recalibration :math:`\mu`, which biases the model's MCB and DSC *upward* by the same
    amount: :math:`\beta = \frac{2}{W}\sum_b \hat f_b(1 - \hat f_b)\,\frac{\sum_{i \in b} w_i^2}{W_b}`
    over the fit's blocks b (value :math:`\hat f_b`, weight :math:`W_b`).

    Why: with :math:`\hat\mu` the fit, :math:`E\|y - \hat\mu\|^2_w = E\|y - \mu\|^2_w + E\|\hat\mu - \mu\|^2_w
    - 2\sum_i w_i \mathrm{cov}(\hat\mu_i, y_i)`, so the bias is at most :math:`2\sum_i w_i\mathrm{cov}(\hat\mu_i,
    y_i)/W` (the risk term is ≥ 0), and for isotonic regression that covariance sum is the label
    variance times the expected number of blocks (its degrees of freedom; Meyer & Woodroofe 2000),
    each block's share of the variance of its mean :math:`\hat f_b(1-\hat f_b)\sum w^2/W_b^2` times
    :math:`W_b`. A constant model (one block) has almost none; a continuous calibrated one,
    :math:`\approx 2\cdot\#\text{blocks}\cdot\bar p(1-\bar p)/n` (0.009 at 600 rows): enough to make a
    calibrated model read worse calibrated than the base rate in every draw without it
    (tests/comparison/test_cmp_corp_bias.py).

    Returns each block's share of β (β is their sum) and, given ``row_keys`` (one random 64-bit
    key per row, shared by the models), each block's key, the keys of its rows summed modulo
    :math:`2^{64}`: a block of the same rows in another model's fit has the same key (a different
    set, with probability :math:`2^{-64}`), the same fitted value and the same overfit, which
    cancels in a difference (:func:`unshared_overfit`)."""
    fit = np.asarray(f.y, dtype=np.float64)  # one fitted value per run
    n = runs.y.shape[0]
    if runs.w is None:
        w1 = np.ones(n) if runs.starts is None else np.diff(np.r_[runs.starts, n]).astype(np.float64)
        w2 = w1
    else:
        sq = runs.w * runs.w
        w1 = runs.w if runs.starts is None else np.add.reduceat(runs.w, runs.starts)
        w2 = sq if runs.starts is None else np.add.reduceat(sq, runs.starts)
    first = _starts(fit)[:-1]
    bw, bw2, fb = np.add.reduceat(w1, first), np.add.reduceat(w2, first), fit[first]
    total = float(w1.sum())
    share = 2.0 * fb * (1.0 - fb) * bw2 / np.where(bw > 0, bw, 1.0) / (total if total > 0.0 else 1.0)
    if row_keys is None:
        return share, np.empty(0, dtype=np.uint64)
    rows = first if runs.starts is None else runs.starts[first]  # each block's first sorted row
    keys = np.add.reduceat(row_keys[runs.order], rows)  # wraps modulo 2**64: a hash of the block's rows
    return share, keys


def unshared_overfit(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    r"""``(β_A, β_B)`` of a pair (:func:`overfit_bound`'s shares and keys): each model's bound summed over
    its blocks that are not blocks (the same rows) of the other's fit — a block the two fits share
    adds the same overfit to both, so the bias of a difference lies in :math:`[-\beta_A, \beta_B]`
    (0 when the fits are one: the same ranking)."""
    share_a, keys_a = a
    share_b, keys_b = b
    only_a = ~np.isin(keys_a, keys_b)
    only_b = ~np.isin(keys_b, keys_a)
    return float(share_a[only_a].sum()), float(share_b[only_b].sum())
