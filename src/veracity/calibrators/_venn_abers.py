r"""Inductive Venn–ABERS predictors (Vovk, Petej & Fedorova, NeurIPS 2015).

For a test score s, isotonic regression is fit twice on the calibration rows
plus the test row, once labelled 0 and once labelled 1; the fitted values at the
test row are :math:`p_0 \le p_1`, an interval that is well calibrated in the
Venn sense. The merged probability is :math:`p = p_1 / (1 - p_0 + p_1)`.

Both values depend only on where s falls among the k distinct calibration
scores, so all 2(k + 1) of them are computed once at fit time. With the
cumulative sum diagram :math:`P_m = (\sum_{j\le m} w_j, \sum_{j\le m} y_j)` of the
pooled calibration rows, the isotonic value of a test row inserted after group
j with label :math:`\ell` is the min–max average

.. math:: \max_{a\le j}\ \min_{b\ge j}\ \frac{Y_b - Y_a + \ell}{W_b - W_a + 1},

the slope of the lower common tangent ("bridge") between the prefix hull of
:math:`\{P_a - (1, \ell)\}_{a\le j}` and the suffix hull of :math:`\{P_b\}_{b\ge j}`.
Every prefix and suffix lower hull is stored at once as parent pointers (one
monotone-chain pass each way, O(k); the left sets are translates of the CSD, so
the same pointers serve both labels); each bridge is found by walking the two
chains from the gap, all slots at once. After the O(n log n) sort this is typically O(k) overall
(each walk is a few hull vertices), against the O(k²) of the reference
``venn-abers`` package. A test score equal to a calibration score is pooled with
it; as in the reference package this gives the same p1 as a score just below it
and the same p0 as one just above it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import Calibrator
from ._isotonic import pooled


def _prefix_hull(x: list[float], y: list[float]) -> list[int]:
    """prv[j]: the vertex before j on the lower hull of points 0..j (−1 for none)."""
    n = len(x)
    prv = [-1] * n
    stack = [0]
    top = 0                                   # index of the top of the stack
    ax, ay = x[0], y[0]                       # its coordinates
    for j in range(1, n):
        xj, yj = x[j], y[j]
        while top > 0:                        # pop while (second, top, j) is not a left turn
            o = stack[top - 1]
            ox, oy = x[o], y[o]
            if (ax - ox) * (yj - oy) - (ay - oy) * (xj - ox) <= 0.0:
                stack.pop()
                top -= 1
                ax, ay = ox, oy
            else:
                break
        prv[j] = stack[top]
        stack.append(j)
        top += 1
        ax, ay = xj, yj
    return prv


def _suffix_hull(x: list[float], y: list[float]) -> list[int]:
    """nxt[j]: the vertex after j on the lower hull of points j..k (−1 for none)."""
    n = len(x)
    nxt = [-1] * n
    stack = [n - 1]
    top = 0
    ax, ay = x[n - 1], y[n - 1]
    for j in range(n - 2, -1, -1):
        xj, yj = x[j], y[j]
        while top > 0:                        # pop while (j, top, second) is not a left turn
            b = stack[top - 1]
            bx, by = x[b], y[b]
            if (ax - xj) * (by - yj) - (ay - yj) * (bx - xj) <= 0.0:
                stack.pop()
                top -= 1
                ax, ay = bx, by
            else:
                break
        nxt[j] = stack[top]
        stack.append(j)
        top += 1
        ax, ay = xj, yj
    return nxt


def _bridge_slopes(px: np.ndarray, py: np.ndarray, prv: np.ndarray, nxt: np.ndarray,
                   label: float) -> np.ndarray:
    """Isotonic value of a weight-1 test row with ``label`` in every slot j = 0..k.

    The left set {P_a − (1, label)} is a translate of {P_a}, so its prefix hulls are
    the prefix hulls of P (``prv``); ``nxt`` holds the suffix hulls. All slots walk
    their two chains at once (vectorised over the slots still moving).
    """
    k1 = px.size
    a = np.arange(k1)
    b = np.arange(k1)
    act = np.arange(k1)
    moved = np.zeros(k1, dtype=bool)
    while act.size:
        idx = act
        while idx.size:  # advance b while its next vertex is not above line(L_a, P_b)
            nb = nxt[b[idx]]
            keep = nb >= 0
            idx, nb = idx[keep], nb[keep]
            aa, bb = a[idx], b[idx]
            ax, ay = px[aa] - 1.0, py[aa] - label
            cond = (px[bb] - ax) * (py[nb] - ay) - (py[bb] - ay) * (px[nb] - ax) <= 0.0
            idx, nb = idx[cond], nb[cond]
            b[idx] = nb
        moved[act] = False
        idx = act
        while idx.size:  # retreat a while its previous vertex is not above line(L_a, P_b)
            pa = prv[a[idx]]
            keep = pa >= 0
            idx, pa = idx[keep], pa[keep]
            aa, bb = a[idx], b[idx]
            lxa, lya = px[aa] - 1.0, py[aa] - label
            lxp, lyp = px[pa] - 1.0, py[pa] - label
            cond = (lxa - lxp) * (py[bb] - lyp) - (lya - lyp) * (px[bb] - lxp) <= 0.0
            idx, pa = idx[cond], pa[cond]
            a[idx] = pa
            moved[idx] = True
        act = act[moved[act]]
    return (py[b] - (py[a] - label)) / (px[b] - (px[a] - 1.0))


class VennAbers(Calibrator):
    r"""Inductive Venn–ABERS: probability intervals [p0, p1] and a merged probability.

    Parameters: ``score_type`` (``"probability"`` default; only the order of the
    scores matters). Fitted: ``c_`` (distinct calibration scores), ``p0_`` and
    ``p1_`` (k + 1 values each, one per gap between calibration scores).
    :meth:`transform` returns :math:`p_1/(1 - p_0 + p_1)`;
    :meth:`predict_interval` returns ``(p0, p1)``.
    """

    kind = "venn-abers"
    multiclass = "binary"
    _params = ("score_type",)
    _state = ("c_", "p0_", "p1_")

    def __init__(self, *, score_type: str = "probability"):
        self.score_type = score_type

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        c, ybar, wsum = pooled(s, y, w)
        W = np.concatenate(([0.0], np.cumsum(wsum)))
        Y = np.concatenate(([0.0], np.cumsum(wsum * ybar)))
        px, py = W.tolist(), Y.tolist()
        prv = np.asarray(_prefix_hull(px, py), dtype=np.intp)
        nxt = np.asarray(_suffix_hull(px, py), dtype=np.intp)
        self.c_ = c
        self.p0_ = _bridge_slopes(W, Y, prv, nxt, 0.0)
        self.p1_ = _bridge_slopes(W, Y, prv, nxt, 1.0)

    def predict_interval(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(p0, p1)`` for every score: the Venn–ABERS probability interval."""
        self._require_fitted()
        s = self._scores(scores, fitting=False)
        p0 = self.p0_[np.searchsorted(self.c_, s, side="right")]
        p1 = self.p1_[np.searchsorted(self.c_, s, side="left")]
        return p0, p1

    def _transform(self, s: np.ndarray) -> np.ndarray:
        p0 = self.p0_[np.searchsorted(self.c_, s, side="right")]
        p1 = self.p1_[np.searchsorted(self.c_, s, side="left")]
        return p1 / (1.0 - p0 + p1)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        width = self.p1_[:-1] - self.p0_[1:]
        return (f"inductive Venn-ABERS on {self.c_.size} distinct calibration scores; "
                f"median interval width {float(np.median(width)) if width.size else 0.0:.4f}")
