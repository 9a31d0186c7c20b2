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
and the same p0 as one just above it. With ``sample_weight`` the test row weighs the mean
calibration weight :math:`\bar w` (the "+1" row of the conformal rules), so only the ratios
of the weights matter.

**Multiclass** (Manokhin 2017, "Multi-class probabilistic classification using
inductive and cross Venn–Abers predictors", COPA; the ``venn-abers`` package's
one-vs-one form). For every pair of classes :math:`i < j` a binary Venn–ABERS
predictor is fit on the calibration rows of class i or j, with the pairwise score
:math:`p_j/(p_i + p_j)` (for logits :math:`z_j - z_i`, the same order) and label
:math:`[y = j]`; its merged probability is :math:`r_{j|ij} = p_1/(1 - p_0 + p_1)` and
:math:`r_{i|ij} = 1 - r_{j|ij}`. The pairwise probabilities are coupled into class
probabilities (Price, Knerr, Personnaz & Dreyfus 1995)

.. math:: q_c = \Big(\sum_{c' \ne c} \frac{1}{r_{c|cc'}} - (K - 2)\Big)^{-1},

and each row is normalised to sum to 1. ``VennAbers(multiclass="ovo")`` (the default)
fits this form on (N, K) scores; ``multiclass="ovr"`` the one-vs-rest form
(:class:`~veracity.OneVsRest`). The loop runs over the K(K−1)/2 pairs, never over rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ._base import Calibrator, _is_multiclass, require_every_class, warn
from ._isotonic import pooled, reversed_association, reversed_words

#: multiclass forms of Venn-ABERS on (N, K) scores
MULTICLASS_FORMS = ("ovo", "ovr")


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


def venn_abers_table(s: np.ndarray, y: np.ndarray, w: np.ndarray | None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(c, p0, p1)``: distinct calibration scores and the k + 1 values of p0 and p1.

    With weights the test row weighs :math:`\bar w`, the mean weight of the calibration rows
    (the weights are divided by it, so the test row weighs 1): only the ratios of the weights
    matter, and equal weights give the unweighted table.
    """
    if w is not None:
        w = w / float(np.mean(w))  # a test row of weight 1 = w̄: scaling all weights changes nothing
    return _table_of_pooled(*pooled(s, y, w))


def _table_of_pooled(c: np.ndarray, ybar: np.ndarray, wsum: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`venn_abers_table` from the pooled calibration rows (weights already divided by their mean)."""
    W = np.concatenate(([0.0], np.cumsum(wsum)))
    Y = np.concatenate(([0.0], np.cumsum(wsum * ybar)))
    px, py = W.tolist(), Y.tolist()
    prv = np.asarray(_prefix_hull(px, py), dtype=np.intp)
    nxt = np.asarray(_suffix_hull(px, py), dtype=np.intp)
    # a slope is a weighted mean of labels in [0, 1]; the rounding of the weighted sums can put it
    # a few ulps outside (1 + 1e-15), which the artifact schema then refuses on load
    return (c, np.clip(_bridge_slopes(W, Y, prv, nxt, 0.0), 0.0, 1.0),
            np.clip(_bridge_slopes(W, Y, prv, nxt, 1.0), 0.0, 1.0))


def _interval(c: np.ndarray, p0: np.ndarray, p1: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return p0[np.searchsorted(c, s, side="right")], p1[np.searchsorted(c, s, side="left")]


class VennAbers(Calibrator):
    r"""Inductive Venn–ABERS: probability intervals [p0, p1] and a merged probability.

    Parameters: ``score_type`` (``"probability"`` default; only the order of the
    scores matters); ``multiclass`` — the form fit on (N, K) scores: ``"ovo"``
    (default; pairwise Venn–ABERS coupled into class probabilities, as in Manokhin's
    multiclass Venn–ABERS and the ``venn-abers`` package) or ``"ovr"`` (one-vs-rest,
    each class's merged probability renormalised). Fitted: ``c_`` (distinct calibration
    scores), ``p0_`` and ``p1_`` (k + 1 values each, one per gap between calibration
    scores). :meth:`transform` returns :math:`p_1/(1 - p_0 + p_1)`;
    :meth:`predict_interval` returns ``(p0, p1)`` (per class pair on (N, K) scores).
    """

    kind = "venn-abers"
    multiclass = "binary"  # class level: the binary calibrator; an instance's multiclass= names its (N, K) form
    _params = ("score_type", "multiclass")
    _state = ("c_", "p0_", "p1_")

    def __init__(self, *, score_type: str = "probability", multiclass: str = "ovo"):
        self.score_type = score_type
        self.multiclass = multiclass  # type: ignore[misc]

    def _check_params(self) -> None:
        super()._check_params()
        if self.multiclass not in MULTICLASS_FORMS:
            raise VeracityError(
                f"multiclass must be 'ovo' (pairwise, the default) or 'ovr' (one-vs-rest), "
                f"got {self.multiclass!r}")

    def fit(self, scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
            sample_weight: Any = None, pos_label: Any = None, **kwargs: Any) -> VennAbers:
        """Fit on held-out rows (see :meth:`Calibrator.fit`, frame form included); (N, K)
        scores fit the ``multiclass`` form."""
        kwargs.update(sample_weight=sample_weight)
        if pos_label is not None:
            kwargs.update(pos_label=pos_label)
        self._check_params()
        frame_form = score is not None or label is not None
        if frame_form:
            kwargs.update(score=score, label=label)
        if frame_form or labels is None or not _is_multiclass(scores):
            return super().fit(scores, labels, **kwargs)  # type: ignore[return-value]
        if self.multiclass == "ovr":
            from ._ovr import OneVsRest

            ovr = OneVsRest(method="venn-abers", score_type=self.score_type,
                            method_params={"multiclass": "ovr"})
            ovr._built_as = self.name  # its errors name the calibrator the user built
            form: Calibrator = ovr
        else:
            form = PairwiseVennAbers(score_type=self.score_type)
        with self._own_settings_spelled():  # the advice names VennAbers(...), the class the user built
            form.fit(scores, labels, **kwargs)
        for stale in self._state:
            self.__dict__.pop(stale, None)
        self._ovr = form
        self.metadata, self.n_classes_ = form.metadata, form.n_classes_
        return self

    def _constructor_with(self, setting: str) -> str:
        # the one-vs-rest form is VennAbers(multiclass='ovr', ...): VennAbers(score_type=...) fits pairwise
        form = "multiclass='ovr', " if self.multiclass == "ovr" else ""
        return f"VennAbers({form}{setting})"

    def _scores(self, scores: Any, *, fitting: bool) -> np.ndarray:
        # the instance's ``multiclass`` names its (N, K) form, which hides the class-level "binary"
        # from the base check: the binary map itself reads 1-D scores only (an (N, 2) matrix would
        # otherwise be mapped column by column, its rows no longer summing to 1)
        s = super()._scores(scores, fitting=fitting)
        if s.ndim == 2:
            raise VeracityError(
                f"this {self.name} was fit on 1-D binary scores but got scores of shape {s.shape} "
                "(multiclass); pass the positive-class column only, or fit it on (N, K) scores for "
                "its multiclass form")
        return s

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        c, ybar, wsum = pooled(s, y, None if w is None else w / float(np.mean(w)))
        self.c_, self.p0_, self.p1_ = _table_of_pooled(c, ybar, wsum)
        assoc = reversed_association(ybar, wsum, s, y, w)
        if assoc is not None:  # both isotonic fits pool the reversed score: near the base rate everywhere
            merged = self.p1_ / (1.0 - self.p0_ + self.p1_)
            shape = (f"its probabilities lie between {float(merged.min()):.4g} and {float(merged.max()):.4g} "
                     f"for every score (the base rate is {float(np.dot(wsum, ybar) / wsum.sum()):.4g})")
            warn(reversed_words("VennAbers", assoc, self.score_type, shape))

    def predict_interval(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(p0, p1)`` for every score: the Venn–ABERS probability interval
        (on (N, K) scores of the pairwise form: one column per class pair, see ``pairs_``)."""
        form = getattr(self, "_ovr", None)
        if form is not None:
            if not isinstance(form, PairwiseVennAbers):
                raise VeracityError("predict_interval of the one-vs-rest form is per class map: "
                                    "use VennAbers(multiclass='ovo') for pairwise intervals")
            return form.predict_interval(scores)
        self._require_fitted()
        s = self._scores(scores, fitting=False)
        return _interval(self.c_, self.p0_, self.p1_, s)

    @property
    def pairs_(self) -> list[tuple[int, int]]:
        form = getattr(self, "_ovr", None)
        if not isinstance(form, PairwiseVennAbers):
            raise AttributeError("pairs_ exists after fitting the pairwise (multiclass='ovo') form")
        return form.pairs_

    def _transform(self, s: np.ndarray) -> np.ndarray:
        p0, p1 = _interval(self.c_, self.p0_, self.p1_, s)
        return p1 / (1.0 - p0 + p1)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        width = self.p1_[:-1] - self.p0_[1:]
        return (f"inductive Venn-ABERS on {self.c_.size} distinct calibration scores; "
                f"median interval width {float(np.median(width)) if width.size else 0.0:.4f}")


def class_pairs(k: int) -> list[tuple[int, int]]:
    """The K(K−1)/2 class pairs (i, j), i < j, in the order (0,1), (0,2), …, (K−2, K−1)."""
    return [(i, j) for i in range(k - 1) for j in range(i + 1, k)]


class PairwiseVennAbers(Calibrator):
    r"""Multiclass Venn–ABERS: one binary predictor per class pair, coupled (see the module doc).

    Fitted on (N, K) scores through ``VennAbers(multiclass="ovo")``; its artifact kind is
    ``"venn-abers-ovo"``. State: ``maps_`` — per pair (i, j) the distinct pairwise
    calibration scores ``c_`` and the bounds ``p0_``, ``p1_``.
    """

    kind = "venn-abers-ovo"
    multiclass = "multiclass"
    _params = ("score_type",)
    _state = ("maps_",)

    def __init__(self, *, score_type: str = "probability"):
        self.score_type = score_type

    @property
    def name(self) -> str:
        # the class users build and load is VennAbers; this pairwise form is internal
        return "VennAbers(multiclass='ovo')"

    def _constructor_with(self, setting: str) -> str:
        return f"VennAbers({setting})"  # the pairwise form is VennAbers' default (N, K) form

    @property
    def pairs_(self) -> list[tuple[int, int]]:
        return class_pairs(self.n_classes_)

    def _pair_scores(self, s: np.ndarray, i: int, j: int) -> np.ndarray:
        """The pairwise score of class j against class i (its order is all that matters)."""
        if self.score_type == "logit":
            return s[:, j] - s[:, i]
        num, den = s[:, j], s[:, i] + s[:, j]
        with np.errstate(invalid="ignore", divide="ignore"):
            r = num / den
        return np.where(den > 0.0, r, 0.5)  # both probabilities 0: no evidence either way

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        k = s.shape[1]
        require_every_class(y, w, k, "multiclass Venn-ABERS")
        self.n_classes_ = k
        maps = []
        for i, j in class_pairs(k):
            rows = (y == i) | (y == j)
            c, p0, p1 = venn_abers_table(self._pair_scores(s[rows], i, j), (y[rows] == j).astype(np.float64),
                                         None if w is None else w[rows])
            maps.append({"c_": c, "p0_": p0, "p1_": p1})
        self.maps_ = maps

    def predict_interval(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        r"""``(p0, p1)``, each (N, K(K−1)/2): the interval of :math:`P(y = j \mid y \in \{i, j\})`
        for every class pair (i, j) in ``pairs_``."""
        self._require_fitted()
        s = self._scores(scores, fitting=False)
        cols = [_interval(m["c_"], m["p0_"], m["p1_"], self._pair_scores(s, i, j))
                for (i, j), m in zip(self.pairs_, self.maps_)]
        return np.column_stack([a for a, _ in cols]), np.column_stack([b for _, b in cols])

    def _transform(self, s: np.ndarray) -> np.ndarray:
        k = s.shape[1]
        inv = np.zeros((s.shape[0], k))  # Σ_{c'} 1 / r_{c|cc'}
        for (i, j), m in zip(self.pairs_, self.maps_):
            p0, p1 = _interval(m["c_"], m["p0_"], m["p1_"], self._pair_scores(s, i, j))
            r_j = p1 / (1.0 - p0 + p1)
            inv[:, j] += 1.0 / r_j
            inv[:, i] += 1.0 / (1.0 - r_j)
        q = 1.0 / (inv - (k - 2))
        return q / q.sum(axis=1, keepdims=True)

    def _state_dict(self) -> dict[str, Any]:
        return {"maps_": [{key: m[key].tolist() for key in ("c_", "p0_", "p1_")} for m in self.maps_]}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.maps_ = [{key: np.asarray(m[key], dtype=np.float64) for key in ("c_", "p0_", "p1_")}
                      for m in state["maps_"]]

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        widths = np.concatenate([m["p1_"][:-1] - m["p0_"][1:] for m in self.maps_])
        return (f"multiclass Venn-ABERS over {self.n_classes_} classes: {len(self.maps_)} pairwise "
                f"predictors coupled into class probabilities; median pairwise interval width "
                f"{float(np.median(widths)) if widths.size else 0.0:.4f}")
