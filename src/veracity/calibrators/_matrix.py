r"""Vector and matrix scaling for multiclass logits (Guo et al. 2017; Kull et al. 2019).

.. math::
    \text{vector: } p = \mathrm{softmax}(v \odot z + b),\qquad
    \text{matrix: } p = \mathrm{softmax}(W z + b)

fit by the mean (weighted) categorical log-loss plus a penalty that keeps them
from over-fitting small calibration sets:

* vector scaling — L2 towards temperature scaling, :math:`v_k = t` for every class with
  :math:`t = 1/T` the fitted inverse temperature (the best single scale, fitted first):
  :math:`\frac{\lambda}{K}\sum_k (v_k - t)^2 + \frac{\mu}{K}\sum_k b_k^2`. Towards
  :math:`v = 1` instead, the penalty grew with the logits' scale: logits 30 times too small needed
  :math:`v \approx 30`, and :math:`\lambda (v - 1)^2` outweighed the log-loss (NLL 0.958 against
  0.777 on 3,000 rows of 4 classes); centred on :math:`t` it shrinks only the classes' differences;
* matrix scaling — off-diagonal and intercept regularisation (ODIR, Kull et
  al. 2019): :math:`\frac{\lambda}{K(K-1)}\sum_{j\ne k} W_{jk}^2 + \frac{\mu}{K}\sum_k b_k^2`.

The fit runs on :math:`z - r`, :math:`r` the weighted median entry (:func:`_reference`), with the penalties
read on the map there, and folds :math:`r` back into :math:`b` (:func:`_fold`): the same family
(:math:`W(z - r\mathbf 1) + b = Wz + b - rW\mathbf 1`), and a common offset of the logits leaves the fit as
it was (the offset moves :math:`r` by itself; before, the penalty read :math:`b` on :math:`z`, so the offset
changed the fit: matrix NLL 0.620 on :math:`10^8 + z`, stopped ABNORMAL, against 0.590; and
:math:`z + 10^{100}` stopped ABNORMAL).
Minimised by L-BFGS with the exact gradient, starting from the identity map (vector scaling:
from temperature scaling). Logits of extreme size (1e200, 1e-200: temperature scaling's typical
scale :math:`c` outside [1e-3, 1e3], see :func:`_input_scale`) are fitted as :math:`z/s`, :math:`s` the
power of two with :math:`c < s \le 2c` (exact), and the map is folded back, :math:`W = W'/s`: the same family,
the penalties read on :math:`W'`. On :math:`z` of 1e200 L-BFGS had stayed at the identity (training NLL 171
where the uniform predictor has :math:`\log K`). Where only some rows lie far beyond the others (a tenth at
1e100: the typical scale stays ordinary), :func:`~veracity.calibrators._matrix_fit.fit_far` compares the map
on those rows' scale (Newton's method, the exact Hessian) with the map that fits the other rows while
ranking each far row's label first; L-BFGS on the logits as they are had stopped ABNORMAL there, and the
far fit cost 4 to 9 times an ordinary fit of the same size (now 1 to 2 times:
``benchmarks/bench_matrix_far_r23.py``). Newton's method there, and the exact Hessian that preconditions the
ranked fit, run up to :data:`NEWTON_PARAMS` parameters (matrix scaling up to 32 classes; until session 24,
10 classes, and beyond L-BFGS took 4 to 7 times the ordinary fit's iterations at 12 to 20 classes, now
1.1 to 1.4 times: ``benchmarks/bench_matrix_far_r24.py``).
``transform`` evaluates :math:`W(z - r\mathbf 1) + b + r(W\mathbf 1 - c)`, :math:`r` the row's largest entry
(smallest where :math:`W\mathbf 1 < 0`) and :math:`c` the largest or smallest row sum, where some rows of
:math:`W` share their sum (:meth:`_Scaling._offset_logits`): :math:`W z + b` at :math:`z + 10^{100}` had
rounded :math:`b` away.
Probabilities are turned into logits by :math:`\log p` (clipped at machine epsilon).
Unlike temperature scaling, both may change the argmax.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..core._row_sums import ROUNDING_SHOWS, equal_row_sums, offset_features, reference_rule, row_reference
from ..core._special import softmax

from ..core._validation import VeracityError
from ._base import Calibrator, require_every_class, warn
from ._matrix_fit import fit_far, objective
from ._temperature import TYPICAL_HI, TYPICAL_LO, TemperatureScaling, array_typical_scale


#: the most parameters (:math:`K(K+1)` for matrix scaling, :math:`2K` for vector scaling) for which the fit
#: on the far rows' scale is Newton's method and the ranked fit is preconditioned by the exact Hessian
#: (:math:`P^2` entries, an eigendecomposition of :math:`P^3/3` steps: 0.1 s at :math:`P = 1056`; beyond,
#: L-BFGS and SLSQP as they are): matrix scaling up to 32 classes, vector scaling up to 528
NEWTON_PARAMS = 1056


def newton_fits(model: Any, k: int) -> bool:
    """Whether the far fit of ``model`` on ``k`` classes runs Newton's method (:data:`NEWTON_PARAMS`)."""
    return int(model._identity(k).size) <= NEWTON_PARAMS


# ROUNDING_SHOWS: the :math:`\sum_j |W_{kj}||z_j|` from which a row's logits are summed left to right
# (:meth:`_Scaling._affine`) and shifted where the rows of W sum alike (core._row_sums, shared with the exports)
_equal_row_sums = equal_row_sums


def _left_to_right(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``Z @ W.T`` with each row's sum taken left to right, each product rounded (no fused multiply-add;
    ±inf and NaN where a product or partial sum overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        acc = Z[:, :1] * W[:, 0]
        for j in range(1, W.shape[1]):  # K columns, each a vectorised pass over the rows
            acc = acc + Z[:, j:j + 1] * W[:, j]
    return acc


def _reference(Z: np.ndarray, wt: np.ndarray) -> float:
    r"""The offset :math:`r` the fit subtracts from every logit: the weighted lower median of the entries
    :math:`z_{ik}` (each weighted as its row; the smallest with at least half the weight at or below it).

    An entry of ``Z``, so a common offset :math:`c` added to every logit (where :math:`z + c` is exact)
    moves it by :math:`c` exactly and leaves :math:`z - r` as it was, bit for bit; a median, so a
    minority of rows far beyond the others does not move it; near the entries' mean, so :math:`z - r` is
    centred as L-BFGS likes it (centred on the median row's largest logit instead, 20,000 rows of 10
    classes took 216 iterations where they take 36)."""
    v = Z.ravel()
    order = np.argsort(v, kind="stable")
    cum = np.cumsum(np.repeat(wt, Z.shape[1])[order])
    return float(v[order[int(np.searchsorted(cum, 0.5 * cum[-1]))]])


def _fold(W: np.ndarray, b: np.ndarray, r: float) -> np.ndarray:
    r"""The intercept of the map on :math:`z` from that on :math:`z - r`:
    :math:`W(z - r\mathbf 1) + b = W z + b - r W\mathbf 1`, less :math:`r` times the midrange of
    :math:`W\mathbf 1` (a shift of every logit: the same softmax), so it is :math:`b` itself where the rows
    of :math:`W` have one sum (the identity; vector scaling with one scale). Where that overflows (an offset
    near the largest double and row sums apart) :math:`b` as it is, the map then exact for rows near
    :math:`r` only."""
    if not r:
        return b
    s = W.sum(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        out: np.ndarray = b - r * (s - 0.5 * (s.max() + s.min()))
    return out if np.isfinite(out).all() else b


def _input_scale(Z: np.ndarray) -> int:
    r"""The exponent :math:`e` of the scale :math:`s = 2^e` the fit divides the logits by, 0 for none.

    :math:`c` is temperature scaling's typical scale of the logits
    (:func:`~veracity.calibrators._temperature.typical_scale` of the nonzero
    :math:`|z_{ik} - \max_k z_{ik}|`).
    The logits are rescaled where :math:`c` and the same rule read on the entries :math:`|z_{ik}|` both lie
    above 1e3, or both below 1e-3; then :math:`c < 2^e \le 2c`. Never for probabilities
    (:math:`|\log p| \le 36`).

    * read on :math:`z - r` (:func:`_reference`): a common offset is gone before (logits
      :math:`1 + 10^{-6}x` are rescaled as :math:`10^{-6}x` is: matrix NLL 0.590 where, fitted as they were,
      0.592, and 0.594 unpenalised, stopped before convergence);
    * scaling up (:math:`e < 0`) only where every :math:`|z|/2^e` stays within 1e6: a majority of rows of
      1e-200 among ordinary ones is fitted as it is (those rows read as near-uniform), since dividing
      would make the others 1e200.
    """
    c = array_typical_scale(Z)
    if not c > 0.0 or TYPICAL_LO <= c <= TYPICAL_HI:
        return 0
    a = array_typical_scale(Z.ravel())
    if not (a > TYPICAL_HI if c > TYPICAL_HI else 0.0 < a < TYPICAL_LO):
        return 0
    e = int(np.frexp(c)[1])
    if e < 0 and np.ldexp(np.abs(Z).max(), -e) > TYPICAL_HI / TYPICAL_LO:
        return 0  # scaling up would make the ordinary rows among tiny ones huge: L-BFGS then fails on them
    return e


def _far_scale(Z: np.ndarray) -> int:
    r"""The exponent :math:`f > 0` of the scale :math:`2^f` of rows far beyond the others, 0 for none.

    Where the largest :math:`|z_{ik} - \max_k z_{ik}|` (of the logits the fit runs on, after
    :func:`_input_scale`) exceeds 1e3, :math:`2^{f-1} \le \max|z - \max_k z| < 2^f`: a tenth of the rows
    at 1e100 among logits of order 1 (their typical size is ordinary, so :func:`_input_scale` leaves them).
    The objective is then minimised by :func:`~veracity.calibrators._matrix_fit.fit_far`, in the parameters of
    the map on :math:`z/2^f` among others: the optimum there has :math:`W` of order :math:`2^{-f}` beside
    :math:`b` of order 1, which L-BFGS did not reach on :math:`z` (matrix NLL 8e81 and inf at 1e100 and 1e300,
    ABNORMAL; 1.0436 at 1e10 where the optimum is 1.0401, silently).
    """
    h = 0.5 * Z
    top = float(np.max(h.max(axis=1, keepdims=True) - h))  # the halves never overflow
    if not 2.0 * top > TYPICAL_HI:
        return 0
    return int(np.frexp(top)[1]) + 1


class _Scaling(Calibrator):
    multiclass = "multiclass"
    _params = ("score_type", "reg_lambda", "reg_mu", "max_iter")
    _state = ("W_", "b_", "n_iter_", "converged_")

    def __init__(self, *, score_type: str = "probability", reg_lambda: float = 1e-3,
                 reg_mu: float = 1e-3, max_iter: int = 1000):
        self.score_type = score_type
        self.reg_lambda = reg_lambda
        self.reg_mu = reg_mu
        self.max_iter = max_iter

    def _check_params(self) -> None:
        super()._check_params()
        for name in ("reg_lambda", "reg_mu"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise VeracityError(f"{name} must be a non-negative number, got {v!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise VeracityError(f"max_iter must be a positive integer, got {self.max_iter!r}", param="max_iter")

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        Z = self._logit_input(s)
        n, k = Z.shape
        # a class without rows would get a bias pushed towards -inf (held only by the penalty): a
        # probability near 0 for a class the deployment data may well hold; refused, as one-vs-rest does
        require_every_class(y, w, k, self.name)
        wt = np.ones(n) if w is None else w
        r = _reference(Z, wt)  # on the weights as given: integer weights sum exactly, as repeated rows count
        wt = wt / wt.sum()
        with np.errstate(over="ignore", invalid="ignore"):
            X = Z - r  # exact where z + c is: a common offset c leaves X as it is
        if not np.isfinite(X).all():  # beyond the largest double: fitted as they are
            r, X = 0.0, Z
        e = _input_scale(X)
        if e:
            X = np.ldexp(X, -e)  # x / s, exact (s = 2^e); the map is folded back below
        f = _far_scale(X)
        from scipy.optimize import minimize  # 0.15 s to import: load on use

        self._centre = self._centre_of(X, y, wt, far=bool(f))
        options = {"maxiter": self.max_iter, "ftol": 1e-14, "gtol": 1e-9}
        if f:
            res = fit_far(self, X, y, wt, f, options)
        else:
            res = minimize(objective(self, X, y, wt, 0), self._start(k), jac=True, method="L-BFGS-B",
                           options=options)
        if not res.success:
            warn(f"{self.name} stopped before convergence ({res.message}); the fit may be rough")
        W, b = self._unpack(res.x, k)
        self.W_ = np.ldexp(W, -e) if e else W  # W' (x / s) = (W' / s) x, each product exact
        self.b_ = _fold(self.W_, b, r)
        self.n_iter_ = int(res.nit)
        self.converged_ = bool(res.success)

    _centre = 1.0

    def _hessian_on(self, X: np.ndarray, wt: np.ndarray, g: int) -> Any:
        r"""The Hessian of ``objective(X, g)``: :math:`\sum_i w_i\,(\mathrm{diag}\,p_i - p_i p_i^\top)
        \otimes \phi_i\phi_i^\top`, :math:`\phi_i = (x_i, 1)`, plus the penalties', on the parameters only
        (:meth:`_hess_index`): a parameter :math:`j` is the entry :math:`(\kappa_j, \alpha_j)` of the map
        :math:`(W \mid b)`, and

        .. math:: H_{jj'} = \sum_i w_i\,[\kappa_j = \kappa_{j'}]\,
                  p_{i\kappa_j}\phi_{i\alpha_j}\phi_{i\alpha_{j'}}
                  - \sum_i w_i\, (p_{i\kappa_j}\phi_{i\alpha_j})(p_{i\kappa_{j'}}\phi_{i\alpha_{j'}}),

        the first term one :math:`m \times m` block per class (:math:`m` parameters each), the second
        :math:`M^\top M`: :math:`n P^2/2 + n P^2/K` products for :math:`P` parameters, where the
        :math:`(K(K+1))^2` entries of the whole Kronecker product had taken :math:`n P^2` for matrix
        scaling and :math:`n K^4` for vector scaling (:math:`P = 2K`). Rows whose :math:`|x_i| < 2^{-20}`
        (the ordinary rows on the far rows' scale) count in the block of b only: it steers Newton's steps,
        the gradient stays exact, so the minimiser is the same. For at most :data:`NEWTON_PARAMS`
        parameters."""
        k = X.shape[1]
        idx, pen = self._hess_index(k), self._penalty_hess(k, g)
        cls_, feat = np.divmod(idx, k + 1)           # parameter j: entry (cls_[j], feat[j]) of (W | b)
        groups = np.argsort(cls_, kind="stable").reshape(k, -1)  # row c: the parameters of class c
        on_b = np.flatnonzero(feat == k)
        on_b = on_b[np.argsort(cls_[on_b])]          # the intercepts, class by class
        big = np.flatnonzero(np.max(np.abs(X), axis=1) >= 2.0 ** -20)
        Xg, wg = X[big], wt[big]
        n_par = idx.size
        step = max(1, (1 << 21) // n_par)             # rows per block: arrays of 2^21 entries at most

        def hess(theta: np.ndarray) -> np.ndarray:
            W, b = self._unpack(theta, k)
            H = np.zeros((n_par, n_par))
            blocks = np.zeros((k, groups.shape[1], groups.shape[1]))
            with np.errstate(over="ignore", invalid="ignore"):
                for lo in range(0, big.size, step):  # rows in blocks: bounded memory
                    Xb, wb = Xg[lo:lo + step], wg[lo:lo + step]
                    F = np.hstack([Xb, np.ones((Xb.shape[0], 1))])[:, feat]     # phi_alpha_j
                    P = softmax(Xb @ W.T + b, axis=1)
                    M = F * (P[:, cls_] * np.sqrt(wb)[:, None])  # sqrt(w) p_kappa_j phi_alpha_j
                    H -= M.T @ M
                    Fc = F[:, groups].transpose(1, 0, 2)                          # (K, rows, m)
                    blocks += (Fc * (P * wb[:, None]).T[:, :, None]).transpose(0, 2, 1) @ Fc
                pb = softmax(b)                                                   # a small row: softmax(b)
            H[groups[:, :, None], groups[:, None, :]] += blocks
            H[np.ix_(on_b, on_b)] += float(wt.sum() - wg.sum()) * (np.diag(pb) - np.outer(pb, pb))
            H[np.diag_indices_from(H)] += pen
            return H

        return hess

    def _centre_of(self, Z: np.ndarray, y: np.ndarray, wt: np.ndarray, far: bool = False) -> float:
        """The scale the penalty shrinks towards (1: the identity map; vector scaling overrides)."""
        return 1.0

    def _start(self, k: int) -> np.ndarray:
        """The optimiser's start: the identity map (vector scaling: temperature scaling)."""
        return self._identity(k)

    def _start_on(self, k: int, f: int) -> np.ndarray:
        """The start of the fit on z / 2^f: the identity map there (vector scaling: temperature scaling)."""
        return self._identity(k)

    @staticmethod
    def _identity(k: int) -> np.ndarray:
        """The parameters of the identity map."""
        raise NotImplementedError  # pragma: no cover

    @staticmethod
    def _unpack(theta: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` from the flat parameter vector."""
        raise NotImplementedError  # pragma: no cover

    @staticmethod
    def _pack_grad(GW: np.ndarray, gb: np.ndarray, k: int) -> np.ndarray:
        """The flat gradient from the gradients of W and b (or a stack of them: leading axes kept)."""
        raise NotImplementedError  # pragma: no cover

    def _penalty(self, W: np.ndarray, b: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
        raise NotImplementedError  # pragma: no cover

    @staticmethod
    def _hess_index(k: int) -> np.ndarray:
        """Where each parameter lies among the :math:`K(K+1)` of the map :math:`(W \\mid b)`, row-major."""
        raise NotImplementedError  # pragma: no cover

    def _penalty_hess(self, k: int, g: int) -> np.ndarray:
        """The penalty's Hessian (diagonal) in the parameters of the map on z / 2^g."""
        raise NotImplementedError  # pragma: no cover

    def transform_logit(self, scores: Any) -> np.ndarray:
        """Calibrated logits ``W z + b``; in a row where ``W z`` overflows, or where a common offset of the
        row is removed exactly (:meth:`_offset_logits`), logits with the same softmax (−inf for a class
        whose probability is 0 in the limit: see :meth:`_shifted_logits`)."""
        self._require_fitted()
        return self._shifted_logits(self._logit_input(self._scores(scores, fitting=False)))

    def _transform(self, s: np.ndarray) -> np.ndarray:
        return softmax(self._shifted_logits(self._logit_input(s)), axis=1)

    def _shifted_logits(self, Z: np.ndarray) -> np.ndarray:
        r"""Logits with the same softmax as :math:`L = W z + b` and no NaN or :math:`+\infty` in any row.

        The logits are first read on :math:`z` less a per-row constant where that is exact
        (:meth:`_offset_logits`). :math:`L` as it is where every entry is finite. In a row where
        :math:`W z` overflows (logits near :math:`\pm10^{308}` with weights above 1:
        :math:`\infty - \infty` gave NaN in the product or in the softmax) the product is scaled by
        powers of two, which is exact: :math:`z = 2^e z'` with :math:`|z'| < 1` and :math:`W = 2^f W'` with :math:`|W'| < 1`, so :math:`W z = 2^{e+f} P`
        with :math:`P = W' z'`, :math:`|P_k| \le K`. The row's logits are then

        .. math:: L_k - 2^{e+f}\max_j P_j = 2^{e+f}\,(P_k - \max_j P_j) + b_k

        (the same softmax): an entry whose first term overflows is :math:`-\infty`, probability 0,
        which is the limit; classes that tie on :math:`W z` keep the split their biases give. Such a row
        is scaled from :math:`z` itself, not from :math:`z` less its reference (whose logits carry the
        term :math:`r(s_k - c)` beside :math:`W(z - r)`), as the exports rescue it.
        """
        L = self._offset_logits(Z)
        bad = ~np.isfinite(L).all(axis=1)
        if not bad.any():
            return L
        Zb = Z[bad]
        e = np.maximum(np.frexp(np.abs(Zb).max(axis=1))[1], 0)[:, None]  # |z / 2^e| < 1, e >= 0
        f = max(int(np.frexp(np.abs(self.W_).max())[1]), 0)              # |W / 2^f| < 1, f >= 0
        P = _left_to_right(np.ldexp(Zb, -e), np.ldexp(self.W_, -f))
        P -= P.max(axis=1, keepdims=True)                                # <= 0, finite
        with np.errstate(over="ignore"):
            P = np.ldexp(np.ldexp(P, e), f)                              # -inf where it overflows
        L[bad] = P + self.b_
        return L

    def _offset_logits(self, Z: np.ndarray) -> np.ndarray:
        r"""Logits with the same softmax as :math:`W z + b`: in the rows where some
        :math:`\sum_j |W_{kj}||z_j|` reaches :data:`ROUNDING_SHOWS`, and where some rows of :math:`W` share
        their exact sum (:func:`~veracity.core._row_sums.reference_rule`, the rule the SQL and ONNX exports
        share, with its error bound),

        .. math:: L'_k = \sum_j W_{kj}(z_j - r) + \max(r, 0)\,(s_k - \max s)
                         + \min(r, 0)\,(s_k - \min s) + b_k

        (:math:`s_k` the sum of row :math:`k`, :math:`r` the row's largest entry; its smallest where every
        :math:`s_k < 0`), summed in that order; :math:`W z + b` (:meth:`_affine`) elsewhere. :math:`L'` is
        :math:`L` less :math:`r c` (:math:`c` the largest sum where :math:`r \ge 0`, the smallest where
        :math:`r < 0`), so the same softmax; where every row has one sum the last two terms are 0.
        Evaluated as :math:`W z + b`, the products of size :math:`|r s|` rounded :math:`b` away: every row
        of :math:`10^{100}` read uniform where the map gives softmax(b), an offset of :math:`10^{8}` moved
        the probabilities by 1e-8, and where only some rows tie on their sum the classes that win at
        :math:`z + 10^{12}` lost their split. Where no two rows share a sum, the class with the extreme
        sum wins a large offset alone, and ``Z`` is read as it is. Until session 25 :math:`r` was the
        lower median, which the exports did not compute, and which lost the winners' differences where it
        lies far from the largest entry. A row whose :math:`z - r` overflows is read as :math:`W z + b`
        (:meth:`_shifted_logits` then scales it), as the exports read it."""
        W = self.W_
        with np.errstate(over="ignore", invalid="ignore"):
            large = ~((np.abs(Z) @ np.abs(W).T) < ROUNDING_SHOWS).all(axis=1)
        rule = reference_rule(W) if large.any() else None
        if rule is None:
            return self._affine(Z, W)
        rows = np.flatnonzero(large)
        r = row_reference(Z[rows], rule.side)  # an entry of the row
        with np.errstate(over="ignore", invalid="ignore"):
            D = Z[rows] - r
        keep = np.isfinite(D).all(axis=1)
        plain = np.ones(Z.shape[0], dtype=bool)
        plain[rows[keep]] = False
        L = np.empty(Z.shape)
        L[plain] = self._affine(Z[plain], W)
        X, Wx = D[keep], W
        if rule.offsets is not None:
            X, Wx = np.concatenate([X, offset_features(r[keep])], axis=1), np.hstack([W, rule.offsets])
        L[rows[keep]] = self._affine(X, Wx)
        return L

    def _affine(self, Z: np.ndarray, W: np.ndarray) -> np.ndarray:
        r""":math:`L = W z + b`, the same for a row whatever rows come with it (``W``: the map's, or with
        the two columns of :meth:`_offset_logits`).

        numpy's ``Z @ W.T`` is a BLAS kernel chosen by the number of rows, and some kernels fuse
        multiply-adds: a row's logits then depended on its batch by a rounding of the sum, which
        shows where the products are large (a tie broken or not; a product of ``2 · -1e308`` that
        overflows alone but not inside a fused ``0.5e308 + 2 · -1e308``). Where any
        :math:`\sum_j |W_{kj}||z_j|` reaches :data:`ROUNDING_SHOWS` the row is summed left to right,
        each product rounded, as the exported SQL sums it (:func:`_left_to_right`); below, fused and
        unfused sums differ by less than :math:`K\cdot 2^{-44}` in a logit. A diagonal :math:`W`
        (vector scaling) has one product per logit, exact in any kernel."""
        with np.errstate(over="ignore", invalid="ignore"):
            L: np.ndarray = Z @ W.T + self.b_
            if not np.any(W[np.eye(W.shape[0], W.shape[1]) == 0.0]):
                return L
            risky = ~((np.abs(Z) @ np.abs(W).T) < ROUNDING_SHOWS).all(axis=1)
            if risky.any():
                L[risky] = _left_to_right(Z[risky], W) + self.b_
        return L

    def __str__(self) -> str:
        # `veracity fit` prints the fitted map: without this it printed the constructor's repr
        if not self._is_fitted():
            return repr(self)

        def shown(v: np.ndarray) -> str:
            items = ", ".join(f"{float(x):.4g}" for x in v[:6])
            return f"[{items}{', ...' if v.size > 6 else ''}]"

        k = int(self.W_.shape[0])
        if self.kind == "vector":
            return (f"vector scaling over {k} classes: p = softmax(v * z + b), v = {shown(np.diag(self.W_))}, "
                    f"b = {shown(self.b_)}")
        off = self.W_ - np.diag(np.diag(self.W_))
        return (f"matrix scaling over {k} classes: p = softmax(W z + b), "
                f"diag(W) = {shown(np.diag(self.W_))}, "
                f"largest off-diagonal |W| = {float(np.max(np.abs(off))):.4g}, b = {shown(self.b_)}")


class VectorScaling(_Scaling):
    r"""Vector scaling :math:`\mathrm{softmax}(v\odot z + b)` with L2 towards temperature scaling.

    Parameters: ``score_type`` (``"probability"`` default, or ``"logit"``), ``reg_lambda`` (on v − t,
    t the inverse temperature fitted first: the penalty does not depend on the logits' scale),
    ``reg_mu`` (on b), ``max_iter``. Fitted: ``W_`` (diagonal, K×K), ``b_``.
    """

    kind = "vector"

    @staticmethod
    def _identity(k: int) -> np.ndarray:
        return np.concatenate([np.ones(k), np.zeros(k)])

    @staticmethod
    def _unpack(theta: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return np.diag(theta[:k]), theta[k:].copy()

    @staticmethod
    def _pack_grad(GW: np.ndarray, gb: np.ndarray, k: int) -> np.ndarray:
        return np.concatenate([np.diagonal(GW, axis1=-2, axis2=-1), gb], axis=-1)

    def _start(self, k: int) -> np.ndarray:
        return np.concatenate([np.full(k, self._centre), np.zeros(k)])

    def _start_on(self, k: int, f: int) -> np.ndarray:
        return np.concatenate([np.full(k, np.ldexp(self._centre, f)), np.zeros(k)])

    def _centre_of(self, Z: np.ndarray, y: np.ndarray, wt: np.ndarray, far: bool = False) -> float:
        """The inverse temperature t minimising the weighted log-loss of softmax(t z): one scalar,
        convex in t (Newton's method on the exact derivatives, from t = 1). With rows far beyond the
        others (:func:`_far_scale`) it is :class:`TemperatureScaling`'s fit, which refits on those rows'
        scale: Newton from t = 1 had stopped at 2^-40 where t = 1.4e-100, and overflowed at 1e300."""
        if far:
            return _temperature_centre(Z, y, wt)
        rows = np.arange(Z.shape[0])
        zy = Z[rows, y]
        t = 1.0
        for _ in range(100):
            p = softmax(t * Z, axis=1)
            mean_z = (p * Z).sum(axis=1)
            grad = float(np.dot(wt, mean_z - zy))  # d/dt of -Σ w log softmax(t z)_y
            curv = float(np.dot(wt, (p * Z * Z).sum(axis=1) - mean_z**2))  # the variance of z under p
            if not curv > 0:
                break
            step = grad / curv
            t_new = t - step
            if not np.isfinite(t_new) or t_new <= 0:
                t_new = t / 2.0  # keep the scale positive
            if abs(t_new - t) <= 1e-12 * max(1.0, abs(t)):
                t = t_new
                break
            t = t_new
        return t if np.isfinite(t) and t > 0 else 1.0

    def _penalty(self, W: np.ndarray, b: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
        v = np.diag(W) - self._centre
        lam, mu = self.reg_lambda / k, self.reg_mu / k
        return (lam * float(v @ v) + mu * float(b @ b), np.diag(2 * lam * v), 2 * mu * b)

    @staticmethod
    def _hess_index(k: int) -> np.ndarray:
        a = np.arange(k) * (k + 1)
        return np.concatenate([a + np.arange(k), a + k])

    def _penalty_hess(self, k: int, g: int) -> np.ndarray:
        return np.concatenate([np.full(k, np.ldexp(2 * self.reg_lambda / k, -2 * g)),
                               np.full(k, 2 * self.reg_mu / k)])


def _temperature_centre(Z: np.ndarray, y: np.ndarray, wt: np.ndarray) -> float:
    """1/T of :class:`TemperatureScaling` fitted on logits ``Z`` (its warnings, about T, are not the
    user's concern here); 1 where it cannot be fitted."""
    import warnings

    ts = TemperatureScaling(score_type="logit")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts._fit(Z, y, wt)
    except VeracityError:
        return 1.0
    t = 1.0 / ts.temperature_
    return t if np.isfinite(t) and t > 0 else 1.0


class MatrixScaling(_Scaling):
    r"""Matrix scaling :math:`\mathrm{softmax}(W z + b)` with ODIR regularisation.

    Parameters: ``score_type`` (``"probability"`` default, or ``"logit"``), ``reg_lambda`` (off-diagonal
    of W), ``reg_mu`` (b), ``max_iter``. Fitted: ``W_`` (K×K), ``b_``.
    """

    kind = "matrix"

    @staticmethod
    def _identity(k: int) -> np.ndarray:
        return np.concatenate([np.eye(k).ravel(), np.zeros(k)])

    @staticmethod
    def _unpack(theta: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return theta[:k * k].reshape(k, k).copy(), theta[k * k:].copy()

    @staticmethod
    def _pack_grad(GW: np.ndarray, gb: np.ndarray, k: int) -> np.ndarray:
        return np.concatenate([GW.reshape(*GW.shape[:-2], k * k), gb], axis=-1)

    def _penalty(self, W: np.ndarray, b: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
        off = W - np.diag(np.diag(W))
        lam = self.reg_lambda / (k * (k - 1))
        mu = self.reg_mu / k
        return (lam * float((off * off).sum()) + mu * float(b @ b), 2 * lam * off, 2 * mu * b)

    @staticmethod
    def _hess_index(k: int) -> np.ndarray:
        a = np.arange(k) * (k + 1)
        return np.concatenate([(a[:, None] + np.arange(k)).ravel(), a + k])

    def _penalty_hess(self, k: int, g: int) -> np.ndarray:
        lam = np.ldexp(2 * self.reg_lambda / (k * (k - 1)), -2 * g)
        return np.concatenate([(lam * (1.0 - np.eye(k))).ravel(), np.full(k, 2 * self.reg_mu / k)])
