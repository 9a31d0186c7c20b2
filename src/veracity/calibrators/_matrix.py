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
where the uniform predictor has :math:`\log K`).
Probabilities are turned into logits by :math:`\log p` (clipped at machine epsilon).
Unlike temperature scaling, both may change the argmax.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..core._special import log_softmax, softmax

from ..core._validation import VeracityError
from ._base import Calibrator, require_every_class, warn
from ._temperature import TYPICAL_HI, TYPICAL_LO, array_typical_scale


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

        def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
            W, b = self._unpack(theta, k)
            logits = Z @ W.T + b
            logp = log_softmax(logits, axis=1)
            loss = -float(np.dot(wt, logp[np.arange(n), y]))
            G = (np.exp(logp) - Y) * wt[:, None]
            GW = G.T @ Z
            gb = G.sum(axis=0)
            pen, pW, pb = self._penalty(W, b, k)
            return loss + pen, self._pack_grad(GW + pW, gb + pb, k)

        from scipy.optimize import minimize  # 0.15 s to import: load on use

        self._centre = self._centre_of(Z, y, wt)
        theta0 = self._start(k)

        res = minimize(fun, theta0, jac=True, method="L-BFGS-B",
                       options={"maxiter": self.max_iter, "ftol": 1e-14, "gtol": 1e-9})
        if not res.success:
            warn(f"{self.name} stopped before convergence ({res.message}); the fit may be rough")
        W, self.b_ = self._unpack(res.x, k)
        self.W_ = np.ldexp(W, -e) if e else W  # W' (z / s) = (W' / s) z, each product exact
        self.n_iter_ = int(res.nit)
        self.converged_ = bool(res.success)

    _centre = 1.0

    def _centre_of(self, Z: np.ndarray, y: np.ndarray, wt: np.ndarray) -> float:
        """The scale the penalty shrinks towards (1: the identity map; vector scaling overrides)."""
        return 1.0

    def _start(self, k: int) -> np.ndarray:
        """The optimiser's start: the identity map (vector scaling: temperature scaling)."""
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

    def _centre_of(self, Z: np.ndarray, y: np.ndarray, wt: np.ndarray) -> float:
        """The inverse temperature t minimising the weighted log-loss of softmax(t z): one scalar,
        convex in t (Newton's method on the exact derivatives, from t = 1)."""
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
