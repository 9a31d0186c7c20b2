r"""CORP (Dimitriadis, Gneiting & Jordan 2021) from a model's sort, and of a paired difference.

The CORP curve is the isotonic (PAV) regression of the labels on the scores; the sort that
DeLong's placements already needed gives the distinct scores as runs, so no second sort
(``np.unique``) is paid. The numbers are :func:`veracity.corp`'s (the tests check them).

**The difference.** Each row's Brier score splits as
:math:`(p_i - y_i)^2 = \underbrace{(p_i - y_i)^2 - (\hat p_i - y_i)^2}_{\mathrm{mcb}_i}
- \underbrace{\big((r - y_i)^2 - (\hat p_i - y_i)^2\big)}_{\mathrm{dsc}_i} + \underbrace{(r - y_i)^2}_{\mathrm{unc}_i}`
with :math:`\hat p` the CORP recalibration and r the base rate; averaging gives MCB − DSC + UNC.
For two models on the same rows the per-row differences of these terms decompose the paired
score difference: :math:`\Delta S = \Delta\mathrm{MCB} - \Delta\mathrm{DSC}` (UNC depends only
on the labels, so :math:`\Delta\mathrm{UNC} = 0`) — the CORP decomposition *of the difference*,
equal to the difference of the two decompositions (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._special import xlogy
from ..core._validation import Binary, binary_nll_terms
from ..honest._corp import CORPResult, ScoreDecomposition


@dataclass(frozen=True, eq=False)
class Runs:
    """The distinct probabilities of one model as runs of its sorted rows."""

    order: np.ndarray
    starts: np.ndarray  # first sorted position of each distinct probability
    run: np.ndarray  # run of each sorted position


def runs_of(data: Binary, order: np.ndarray) -> Runs:
    ps = data.p[order]  # non-decreasing: the order sorts the logits or the probabilities
    new = np.empty(ps.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(ps[1:], ps[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    return Runs(order=order, starts=starts, run=np.cumsum(new) - 1)


def isotonic(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    from scipy.optimize import isotonic_regression  # 0.15 s to import: load on use

    return np.clip(isotonic_regression(values, weights=weights, increasing=True).x, 0.0, 1.0)


def corp_from_runs(data: Binary, runs: Runs) -> tuple[CORPResult, np.ndarray]:
    """``(CORP result, recalibrated probability of every row)`` — :func:`veracity.corp`'s numbers."""
    order, starts = runs.order, runs.starts
    ys = data.y[order]
    ws = np.ones(data.n) if data.w is None else data.w[order]
    wx = np.add.reduceat(ws, starts)
    yx = np.add.reduceat(ws * ys, starts) / wx
    fit = isotonic(yx, wx)
    p_hat = np.empty(data.n)
    p_hat[order] = fit[runs.run]
    x = data.p[order[starts]]
    w = np.ones(data.n) if data.w is None else data.w
    total = float(w.sum())
    y = data.y
    base = float(np.dot(w, y) / total)

    def mean(v: np.ndarray) -> float:
        return float(np.dot(w, v) / total)

    def logloss(q: np.ndarray | float) -> np.ndarray:
        return -(xlogy(y, q) + xlogy(1.0 - y, 1.0 - np.asarray(q)))

    s_p, s_hat, s_r = mean((data.p - y) ** 2), mean((p_hat - y) ** 2), mean((base - y) ** 2)
    brier = ScoreDecomposition(score=s_p, mcb=s_p - s_hat, dsc=s_r - s_hat, unc=s_r)
    l_p, l_hat, l_r = mean(binary_nll_terms(data)), mean(logloss(p_hat)), mean(logloss(base))
    log_loss = ScoreDecomposition(score=l_p, mcb=l_p - l_hat, dsc=l_r - l_hat, unc=l_r)
    return CORPResult(x=x, y=fit, weight=wx, brier=brier, log_loss=log_loss, n=data.n), p_hat


def brier_terms(data: Binary, p_hat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-row ``(mcb_i, dsc_i, unc_i)`` of the Brier score (see the module doc)."""
    w = data.w
    y = data.y
    base = float(y.mean()) if w is None else float(np.dot(w, y) / w.sum())
    s_hat = (p_hat - y) ** 2
    unc = (base - y) ** 2
    return (data.p - y) ** 2 - s_hat, unc - s_hat, unc


def difference(a: Binary, b: Binary, p_hat_a: np.ndarray, p_hat_b: np.ndarray) -> ScoreDecomposition:
    """The CORP (Brier) decomposition of the paired difference ``b - a``, from per-row terms."""
    w = a.w
    ta, tb = brier_terms(a, p_hat_a), brier_terms(b, p_hat_b)
    diffs = [tb[k] - ta[k] for k in range(3)]
    if w is None:
        mcb, dsc, unc = (float(d.mean()) for d in diffs)
    else:
        total = float(w.sum())
        mcb, dsc, unc = (float(np.dot(w, d) / total) for d in diffs)
    return ScoreDecomposition(score=mcb - dsc + unc, mcb=mcb, dsc=dsc, unc=unc)
