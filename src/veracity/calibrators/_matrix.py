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

Minimised by L-BFGS with the exact gradient, starting from the identity map (vector scaling:
from temperature scaling). Logits of extreme size (1e200, 1e-200: temperature scaling's typical
scale :math:`c` outside [1e-3, 1e3], see :func:`_input_scale`) are fitted as :math:`z/s`, :math:`s` the
power of two with :math:`c < s \le 2c` (exact), and the map is folded back, :math:`W = W'/s`: the same family,
the penalties read on :math:`W'`. On :math:`z` of 1e200 L-BFGS had stayed at the identity (training NLL 171
where the uniform predictor has :math:`\log K`). Where only some rows lie far beyond the others (a tenth at
1e100: the typical scale stays ordinary), the same objective is minimised a second time in the parameters of
the map on those rows' scale (by Newton's method in a trust region, the exact Hessian: L-BFGS took 700
iterations there, 18 s on 20,000 rows of 10 classes, where the far rows' small weight leaves the problem
ill-conditioned; 28 Newton steps, 3 s, and a lower objective), and a third time from the map that fits the
other rows while ranking each far row's label first (a few far rows, :meth:`_Scaling._ranked_start`); the
lowest answer is kept.
Probabilities are turned into logits by :math:`\log p` (clipped at machine epsilon).
Unlike temperature scaling, both may change the argmax.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..core._special import log_softmax, softmax

from ..core._validation import VeracityError
from ._base import Calibrator, require_every_class, warn
from ._temperature import TYPICAL_HI, TYPICAL_LO, TemperatureScaling, array_typical_scale


#: the far rows' logit margin the constrained start asks for (:meth:`_Scaling._ranked_start`), and how many
#: far rows it takes at most
RANKED_MARGIN, RANKED_ROWS = 40.0, 100
#: the most classes for which the fit on the far rows' scale is Newton's method (its Hessian has
#: :math:`(K(K+1))^2` entries; beyond, L-BFGS)
NEWTON_CLASSES = 10
#: :math:`\sum_j |W_{kj}||z_j|` from which a row's logits are summed left to right (:meth:`_Scaling._affine`)
ROUNDING_SHOWS = 2.0 ** 8


def _left_to_right(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``Z @ W.T`` with each row's sum taken left to right, each product rounded (no fused multiply-add;
    ±inf and NaN where a product or partial sum overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        acc = Z[:, :1] * W[:, 0]
        for j in range(1, W.shape[1]):  # K columns, each a vectorised pass over the rows
            acc = acc + Z[:, j:j + 1] * W[:, j]
    return acc


def _input_scale(Z: np.ndarray) -> int:
    r"""The exponent :math:`e` of the scale :math:`s = 2^e` the fit divides the logits by, 0 for none.

    :math:`c` is temperature scaling's typical scale of the logits
    (:func:`~veracity.calibrators._temperature.typical_scale` of the nonzero
    :math:`|z_{ik} - \max_k z_{ik}|`).
    The logits are rescaled where :math:`c` and the same rule read on the entries :math:`|z_{ik}|` both lie
    above 1e3, or both below 1e-3; then :math:`c < 2^e \le 2c`. Never for probabilities
    (:math:`|\log p| \le 36`).

    * :math:`W z + b` does not ignore a shift of :math:`z`: logits with a large common offset and ordinary
      differences (log-likelihoods :math:`10^8 + x`), or the reverse (:math:`1 + 10^{-6}x`), are fitted as
      they are (dividing by either scale alone made the other extreme: matrix NLL 1.38 against 0.79, 0.744
      against 0.592);
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
    The objective is then minimised a second time in the parameters of the map on :math:`z/2^f` (the same
    objective, the same penalties) and the lower answer kept: the optimum there has :math:`W` of order
    :math:`2^{-f}` beside :math:`b` of order 1, which L-BFGS did not reach on :math:`z` (matrix NLL 8e81 and
    inf at 1e100 and 1e300, ABNORMAL; 1.0436 at 1e10 where the optimum is 1.0401, silently).
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
        e = _input_scale(Z)
        if e:
            Z = np.ldexp(Z, -e)  # z / s, exact (s = 2^e); the map is folded back below
        n, k = Z.shape
        # a class without rows would get a bias pushed towards -inf (held only by the penalty): a
        # probability near 0 for a class the deployment data may well hold; refused, as one-vs-rest does
        require_every_class(y, w, k, self.name)
        wt = np.ones(n) if w is None else w
        wt = wt / wt.sum()
        Y = np.zeros((n, k))
        Y[np.arange(n), y] = 1.0
        f = _far_scale(Z)

        def objective(X: np.ndarray, g: int, rows: Any = slice(None)) -> Any:
            """The objective on the parameters of the map on X = Z / 2^g (W' = W'' 2^-g, the same penalties);
            ``rows``: the rows whose log-loss it sums (all)."""
            Xr, wr, Yr, yr = X[rows], wt[rows], Y[rows], y[rows]
            at = np.arange(yr.size)

            def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
                W, b = self._unpack(theta, k)
                with np.errstate(over="ignore", invalid="ignore"):  # a failed trial point: inf or NaN
                    logits = Xr @ W.T + b
                    logp = log_softmax(logits, axis=1)
                    loss = -float(np.dot(wr, logp[at, yr]))
                    G = (np.exp(logp) - Yr) * wr[:, None]
                    GW = G.T @ Xr
                gb = G.sum(axis=0)
                if not g:
                    pen, pW, pb = self._penalty(W, b, k)
                else:
                    pen, pW, pb = self._penalty(np.ldexp(W, -g), b, k)
                    pW = np.ldexp(pW, -g)
                return loss + pen, self._pack_grad(GW + pW, gb + pb, k)

            return fun

        from scipy.optimize import minimize  # 0.15 s to import: load on use

        self._centre = self._centre_of(Z, y, wt, far=bool(f))
        options = {"maxiter": self.max_iter, "ftol": 1e-14, "gtol": 1e-9}
        res = minimize(objective(Z, 0), self._start(k), jac=True, method="L-BFGS-B", options=options)
        n_iter = int(res.nit)
        if f:
            # the same objective, on the scale of the far rows (the start: the identity map there; vector
            # scaling: temperature scaling); the lower of the two answers is kept. Newton (trust-exact) to a
            # gradient of 1e-12, or of 1e-9 where rounding stops it (L-BFGS's gtol)
            Xf = np.ldexp(Z, -f)
            far = None
            if k <= NEWTON_CLASSES:
                try:
                    far = minimize(objective(Xf, f), self._start_on(k, f), jac=True,
                                   hess=self._hessian_on(Xf, wt, f), method="trust-exact",
                                   options={"maxiter": self.max_iter, "gtol": 1e-12})
                except (ValueError, np.linalg.LinAlgError):  # a Hessian of NaN (overflow)
                    far = None
                if far is not None and not far.success:
                    # stopped by rounding (no predicted decrease) where the gradient is nil: converged;
                    # otherwise L-BFGS, as for many classes
                    far = far if np.max(np.abs(far.jac)) <= 1e-9 else None
                    if far is not None:
                        far.success = True
            if far is None:
                far = minimize(objective(Xf, f), self._start_on(k, f), jac=True, method="L-BFGS-B",
                               options=options)
            n_iter += int(far.nit)
            if far.fun < res.fun or not np.isfinite(res.fun) and np.isfinite(far.fun):
                res = far
                res.x = np.concatenate([np.ldexp(res.x[:-k], -f), res.x[-k:]])
            ranked = self._ranked_start(Z, y, wt, objective)
            if ranked is not None:
                # from a map that ranks every far row right (its log-loss 0), the objective itself
                third = minimize(objective(Z, 0), ranked, jac=True, method="L-BFGS-B", options=options)
                n_iter += int(third.nit)
                if third.fun < res.fun or not np.isfinite(res.fun) and np.isfinite(third.fun):
                    res = third
        if not res.success:
            warn(f"{self.name} stopped before convergence ({res.message}); the fit may be rough")
        W, self.b_ = self._unpack(res.x, k)
        self.W_ = np.ldexp(W, -e) if e else W  # W' (z / s) = (W' / s) z, each product exact
        self.n_iter_ = n_iter
        self.converged_ = bool(res.success)

    _centre = 1.0

    def _hessian_on(self, X: np.ndarray, wt: np.ndarray, g: int) -> Any:
        r"""The Hessian of ``objective(X, g)``: :math:`\sum_i w_i\,(\mathrm{diag}\,p_i - p_i p_i^\top)
        \otimes \phi_i\phi_i^\top`, :math:`\phi_i = (x_i, 1)`, plus the penalties'. Rows whose
        :math:`|x_i| < 2^{-20}` (the ordinary rows on the far rows' scale) count in the block of b only:
        it steers Newton's steps, the gradient stays exact, so the minimiser is the same. For
        :math:`K \le` :data:`NEWTON_CLASSES`."""
        k = X.shape[1]
        idx, pen = self._hess_index(k), self._penalty_hess(k, g)
        big = np.flatnonzero(np.max(np.abs(X), axis=1) >= 2.0 ** -20)
        Xg, wg, d = X[big], wt[big], np.arange(k)
        F = np.hstack([Xg, np.ones((big.size, 1))])

        def weighted_cov(L: np.ndarray, w_: np.ndarray) -> np.ndarray:
            """w_i (diag p_i - p_i p_i^T), p_i = softmax(L_i), as an (n, K^2) array."""
            P = softmax(L, axis=1)
            Pw = P * w_[:, None]
            S = -Pw[:, :, None] * P[:, None, :]
            S[:, d, d] += Pw
            return S.reshape(-1, k * k)

        def hess(theta: np.ndarray) -> np.ndarray:
            W, b = self._unpack(theta, k)
            T = np.zeros((k * k, (k + 1) ** 2))
            with np.errstate(over="ignore", invalid="ignore"):
                for lo in range(0, big.size, 1 << 15):  # rows in blocks: bounded memory
                    Fb = F[lo:lo + (1 << 15)]
                    S = weighted_cov(Xg[lo:lo + (1 << 15)] @ W.T + b, wg[lo:lo + (1 << 15)])
                    T += S.T @ (Fb[:, :, None] * Fb[:, None, :]).reshape(-1, (k + 1) ** 2)
                Sb = weighted_cov(np.broadcast_to(b, (1, k)), np.ones(1))  # a small row: softmax(b)
            T = T.reshape(k, k, k + 1, k + 1)
            T[:, :, k, k] += float(wt.sum() - wg.sum()) * Sb.reshape(k, k)
            H = T.transpose(0, 2, 1, 3).reshape(k * (k + 1), k * (k + 1))[np.ix_(idx, idx)]
            H[np.diag_indices_from(H)] += pen
            return H

        return hess

    def _ranked_start(self, Z: np.ndarray, y: np.ndarray, wt: np.ndarray,
                      objective: Any) -> np.ndarray | None:
        r"""The parameters minimising the objective over the other rows subject to every far row (whose
        :math:`\max_k |z_k - \max_j z_j|` exceeds 1e3: :func:`_far_scale`) having its label's logit at
        least :data:`RANKED_MARGIN` and :math:`10^{-6}\max_k|z_k|` above every other (its log-loss then below
        :math:`K e^{-40}`), or None
        where no map does that (or there are more than :data:`RANKED_ROWS` far rows).

        A far row the map ranks wrong costs its size (1e100) times the margin; ranked right, nothing: the
        objective is near a constrained problem, linear constraints on :math:`(W, b)`, that L-BFGS did
        not solve (one wrongly ranked row at 1e100 among 600: matrix NLL 0.863, vector 1.093 against
        0.606 and 0.615). Solved by SLSQP (exact gradients) on the margins divided by each row's
        :math:`\max_k |z_k|`."""
        from scipy.optimize import minimize

        h = 0.5 * Z
        far = np.max(h.max(axis=1, keepdims=True) - h, axis=1) > 0.5 * TYPICAL_HI
        far &= wt > 0
        if not far.any() or far.all() or np.count_nonzero(far) > RANKED_ROWS:
            return None
        k = Z.shape[1]
        m = np.max(np.abs(Z[far]), axis=1)
        U = Z[far] / m[:, None]  # |u| <= 1
        yf = y[far]
        A, c = [], []
        for i in range(yf.size):
            for j in range(k):
                if j != yf[i]:
                    d = np.zeros(k)
                    d[yf[i]], d[j] = 1.0, -1.0
                    A.append(self._pack_grad(np.outer(d, U[i]), d / m[i], k))  # d margin / d theta
                    c.append(max(RANKED_MARGIN / m[i], 1e-6))  # above SLSQP's tolerance
        A_, c_ = np.array(A), np.array(c)
        fun = objective(Z, 0, ~far)
        with np.errstate(over="ignore", invalid="ignore"):
            res = minimize(fun, self._identity(k), jac=True, method="SLSQP",
                           constraints=[{"type": "ineq", "fun": lambda t: A_ @ t - c_, "jac": lambda t: A_}],
                           options={"maxiter": self.max_iter, "ftol": 1e-14})
        if not (res.success and np.isfinite(res.x).all() and np.all(A_ @ res.x >= 0.5 * c_)):
            return None
        x: np.ndarray = res.x
        return x

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
        """The flat gradient from the gradients of W and b."""
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
        """Calibrated logits ``W z + b``; in a row where ``W z`` overflows, logits with the same softmax
        (−inf for a class whose probability is 0 in the limit: see :meth:`_shifted_logits`)."""
        self._require_fitted()
        return self._shifted_logits(self._logit_input(self._scores(scores, fitting=False)))

    def _transform(self, s: np.ndarray) -> np.ndarray:
        return softmax(self._shifted_logits(self._logit_input(s)), axis=1)

    def _shifted_logits(self, Z: np.ndarray) -> np.ndarray:
        r"""Logits with the same softmax as :math:`L = W z + b` and no NaN or :math:`+\infty` in any row.

        :math:`L` as it is where every entry is finite. In a row where :math:`W z` overflows (logits
        near :math:`\pm10^{308}` with weights above 1: :math:`\infty - \infty` gave NaN in the product
        or in the softmax) the product is scaled by powers of two, which is exact: :math:`z = 2^e z'`
        with :math:`|z'| < 1` and :math:`W = 2^f W'` with :math:`|W'| < 1`, so :math:`W z = 2^{e+f} P`
        with :math:`P = W' z'`, :math:`|P_k| \le K`. The row's logits are then

        .. math:: L_k - 2^{e+f}\max_j P_j = 2^{e+f}\,(P_k - \max_j P_j) + b_k

        (the same softmax): an entry whose first term overflows is :math:`-\infty`, probability 0,
        which is the limit; classes that tie on :math:`W z` keep the split their biases give.
        """
        L = self._affine(Z)
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

    def _affine(self, Z: np.ndarray) -> np.ndarray:
        r""":math:`L = W z + b`, the same for a row whatever rows come with it.

        numpy's ``Z @ W.T`` is a BLAS kernel chosen by the number of rows, and some kernels fuse
        multiply-adds: a row's logits then depended on its batch by a rounding of the sum, which
        shows where the products are large (a tie broken or not; a product of ``2 · -1e308`` that
        overflows alone but not inside a fused ``0.5e308 + 2 · -1e308``). Where any
        :math:`\sum_j |W_{kj}||z_j|` reaches :data:`ROUNDING_SHOWS` the row is summed left to right,
        each product rounded, as the exported SQL sums it (:func:`_left_to_right`); below, fused and
        unfused sums differ by less than :math:`K\cdot 2^{-44}` in a logit. A diagonal :math:`W`
        (vector scaling) has one product per logit, exact in any kernel."""
        W = self.W_
        with np.errstate(over="ignore", invalid="ignore"):
            L: np.ndarray = Z @ W.T + self.b_
            if not np.any(W[~np.eye(W.shape[0], dtype=bool)]):
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
        return np.concatenate([np.diag(GW), gb])

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
        return np.concatenate([GW.ravel(), gb])

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
