r"""DeLong's paired test of two AUCs, from placements found with one sort per model.

**Placements** (DeLong, DeLong & Clarke-Pearson 1988). With :math:`\psi(x, z) = [x > z] + \tfrac12[x = z]`,
each positive row i has :math:`V_{10}(i) = \sum_{j: y_j = 0} w_j\,\psi(s_i, s_j) / W_0` (the share of
negatives it outranks) and each negative row j has :math:`V_{01}(j) = \sum_{i: y_i=1} w_i\,\psi(s_i, s_j) / W_1`;
the AUC is the weighted mean of either. Sun & Xu (2014) obtain them from midranks; here one
``argsort`` of the model's scores gives, for every tie level, the negative mass strictly below
and the positive mass strictly above, so all placements cost O(N log N) — never the O(N²)
kernel (the tests check the two agree to 1e-10).

**Covariance.** For models a, b the placements' (weighted) covariances over the positives and
over the negatives give

.. math:: \mathrm{Cov}(\hat A_a, \hat A_b) = \frac{n_1}{n_1 - 1}\frac{\sum_{y_i=1} w_i^2 (V^a_{10}(i) - \hat A_a)(V^b_{10}(i) - \hat A_b)}{W_1^2}
          + \frac{n_0}{n_0 - 1}\frac{\sum_{y_j=0} w_j^2 (V^a_{01}(j) - \hat A_a)(V^b_{01}(j) - \hat A_b)}{W_0^2}

— unweighted, exactly DeLong's :math:`S_{10}/n_1 + S_{01}/n_0`. The paired test of
:math:`\hat A_b - \hat A_a` is normal with variance :math:`\mathrm{Var}_a + \mathrm{Var}_b - 2\,\mathrm{Cov}_{ab}`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._parallel import submit
from ..core._validation import VeracityError
from ._paired import Estimate, p_of, z_of


@dataclass(frozen=True, eq=False)
class Ranked:
    """One model's scores in sorted order: ``order`` (argsort), tie ``level`` of each sorted row,
    and the DeLong placement ``v`` of every row (original order)."""

    order: np.ndarray
    level: np.ndarray | None  # None: no ties (level = position)
    v: np.ndarray
    auc: float


def rank_model(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> Ranked:
    """Placements of one model (see the module doc); one argsort, the rest linear."""
    n = s.shape[0]
    order = np.argsort(s)
    ss = s[order]
    ys = y[order]
    pos = ys == 1.0
    if w is None:
        pw = pos.astype(np.float64)
        nw = 1.0 - pw
    else:
        ws = w[order]
        pw = np.where(pos, ws, 0.0)
        nw = ws - pw
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ss[1:], ss[:-1], out=new[1:])
    if new.all():  # no ties: every row is its own level
        level = None
        P, N = pw, nw
    else:
        level = np.cumsum(new) - 1
        P = np.bincount(level, weights=pw)
        N = np.bincount(level, weights=nw)
    W1, W0 = float(P.sum()), float(N.sum())
    if not (W1 > 0 and W0 > 0):
        only = "1" if W0 == 0 else "0"
        raise VeracityError(
            f"AUC needs both classes; all {n} labels are {only}. Compare the models on rows that contain "
            "positives and negatives")
    below_neg = np.cumsum(N)
    below_neg -= N
    below_neg += 0.5 * N  # negatives strictly below, and half of those tied
    below_neg /= W0
    above_pos = W1 - np.cumsum(P)
    above_pos += 0.5 * P
    above_pos /= W1
    if level is not None:
        below_neg, above_pos = below_neg[level], above_pos[level]
    v_sorted = np.where(pos, below_neg, above_pos)
    auc = float(np.dot(pw, v_sorted) / W1)
    v = np.empty(n)
    v[order] = v_sorted
    return Ranked(order=order, level=level, v=v, auc=auc)


def rank_models(scores: list[np.ndarray], y: np.ndarray, w: np.ndarray | None) -> list[Ranked]:
    """:func:`rank_model` of every model, the sorts side by side on the shared pool (numpy
    releases the GIL while sorting)."""
    futures = [submit(y.shape[0], rank_model, s, y, w) for s in scores]
    return [f.result() for f in futures]


def delong_covariance(ranked: list[Ranked], y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The (m, m) covariance matrix of the m models' AUCs (see the module doc)."""
    pos = y == 1.0
    auc = np.array([r.auc for r in ranked])
    cov = np.zeros((len(ranked), len(ranked)))
    for mask in (pos, ~pos):
        V = np.vstack([r.v[mask] for r in ranked])
        V -= auc[:, None]
        n = V.shape[1]
        if w is None:
            total, Vw = float(n), V
        else:
            wm = w[mask]
            total = float(wm.sum())
            Vw = V * (wm * wm)
        if n > 1:
            cov += (Vw @ V.T) / (total * total) * (n / (n - 1.0))
        else:
            cov += np.nan
    return cov


def delong_test(ranked: list[Ranked], cov: np.ndarray, i: int, j: int, level: float) -> Estimate:
    """Paired DeLong interval and p-value of ``AUC_j - AUC_i``."""
    diff = ranked[j].auc - ranked[i].auc
    var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
    if ranked[i].v is ranked[j].v or np.array_equal(ranked[i].v, ranked[j].v):
        diff, var = 0.0, 0.0  # the same ranking: exactly no difference
    se = float(np.sqrt(max(var, 0.0)))
    z = z_of(level)
    return Estimate(diff, se, diff - z * se, diff + z * se, float(p_of(diff, se)))


def auc_interval(ranked: Ranked, var: float, level: float) -> tuple[float, float]:
    """DeLong's normal interval of one AUC (used to show what two unpaired intervals would say)."""
    se = float(np.sqrt(max(var, 0.0)))
    z = z_of(level)
    return ranked.auc - z * se, ranked.auc + z * se
