r"""The objective of vector and matrix scaling; its minimisation where some rows lie far beyond the others.

The objective, on the parameters :math:`\theta = (W, b)` of the map on logits :math:`x` (the rows ``rows``):

.. math:: F(\theta) = -\sum_i w_i \log \mathrm{softmax}(W x_i + b)_{y_i} + \mathrm{penalty}(W, b)

Rows with every :math:`|x_{ik}| < 2^{-40}` (the ordinary rows on the scale of rows far beyond them) enter to
first order in :math:`W x`, through three sums over those rows (their weight per class :math:`c_k`, the
weighted sum :math:`\bar x = \sum_i w_i x_i` and the per-class sums :math:`S_k = \sum_{y_i = k} w_i x_i`):

.. math:: \sum_i w_i \big(\mathrm{lse}(b) - b_{y_i} + p(b)^\top W x_i - (W x_i)_{y_i}\big)
          = -c^\top \log p(b) + p(b)^\top W \bar x - \textstyle\sum_k (W S^\top)_{kk}

(:math:`p(b) = \mathrm{softmax}(b)`); the neglected second-order term is below
:math:`\tfrac12 \max|W x|^2 \le 2^{-60}` for :math:`|W| \le 2^{10}`, so one evaluation costs the big rows
only (the far-scale run had evaluated every row at each of its Newton steps).

Rows far beyond the others (:func:`far_rows`, their :math:`\max_k |x_k - \max_j x_j|` above 1e3) are handled
by :func:`fit_far`, which compares two candidates by the exact objective:

* the map on the far rows' scale (:math:`W` of order :math:`2^{-f}`; Newton's method with the exact
  Hessian, or L-BFGS beyond :data:`~veracity.calibrators._matrix.NEWTON_PARAMS` parameters);
* the *ranked* map (:func:`ranked_fit`): a far row of size :math:`m` ranked wrong costs about :math:`m` times
  its margin and ranked right nothing, so the objective is near the fit of the ordinary rows subject to
  every far row ranking its label first. That is the ordinary rows' fit itself where it ranks them all;
  otherwise SLSQP from it, with the far rows' margins as linear constraints, in the variables
  :math:`e = L^\top(\theta - \theta_0)` (:math:`H = L L^\top` the exact Hessian at the ordinary fit
  :math:`\theta_0`; up to :data:`~veracity.calibrators._matrix.NEWTON_PARAMS` parameters, else
  :math:`e = \theta - \theta_0`), where SLSQP's first quasi-Newton matrix, the identity, is the Hessian: it
  converges in a few steps (from the identity map, in :math:`\theta`, it took 160 evaluations and 28 s on
  20,000 rows of 10 classes with 50 far rows). The first constraints are those of the far rows nearest to
  being ranked wrong (all of them up to :data:`FIRST_PAIRS` margins), after a linear programme has found a
  map that ranks them (:func:`_can_rank`); rows the answer ranks wrong join them, round by round (any
  number of far rows; at most :data:`RANKED_ROWS` ranked wrong by the ordinary rows' fit).

Beyond :data:`SKIP_FAR_SCALE`, where the ranked map is found the far-scale one is not sought (it cannot be
lower: a map ranking every far row by :math:`10^{-80}` of its size costs the ordinary rows nothing). Where
the far rows are only moderately far (at most :data:`POLISH_UP_TO`), neither candidate is exact and L-BFGS
polishes the better one on the objective itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core._special import log_softmax
from ._temperature import TYPICAL_HI

#: the most far rows the ordinary rows' fit may rank wrong for the ranked candidate to be sought
RANKED_ROWS = 100
#: the smallest scaled margin (a far row's margin divided by its :math:`\max_k|x_k|`) the ranked map keeps:
#: above SLSQP's rounding of linear constraints
MARGIN_FLOOR = 1e-10
#: how many margins (far rows times K - 1) the ranked fit's first round takes at most
FIRST_PAIRS = 2000
#: rows below this size enter the far-scale objective to first order
SMALL_ROWS = 2.0 ** -40
#: the far scale beyond which the far-scale candidate is not sought where the ranked one is found
SKIP_FAR_SCALE = 2.0 ** 100
#: the far scale up to which L-BFGS polishes the better candidate on the objective itself
POLISH_UP_TO = 2.0 ** 40


@dataclass(frozen=True, eq=False)
class Result:
    """A candidate: parameters, exact objective, whether its optimiser converged, iterations, message."""

    x: np.ndarray
    fun: float
    success: bool
    nit: int
    message: str


def objective(model: Any, X: np.ndarray, y: np.ndarray, wt: np.ndarray, g: int,
              rows: np.ndarray | None = None, small: float = 0.0) -> Any:
    """``theta -> (F, grad)`` on the parameters of the map on ``X = Z / 2^g`` (the penalties read on
    :math:`W 2^{-g}`); ``rows`` (a mask: all rows where None); rows whose every :math:`|x| <` ``small``
    enter to first order (see the module's docstring)."""
    k = X.shape[1]
    idx = np.arange(X.shape[0]) if rows is None else np.flatnonzero(rows)
    tiny = np.max(np.abs(X[idx]), axis=1) < small
    s_idx, idx = idx[tiny], idx[~tiny]
    Xr, wr, yr = X[idx], wt[idx], y[idx]
    Yr = np.zeros((idx.size, k))
    Yr[np.arange(idx.size), yr] = 1.0
    ws = wt[s_idx]
    counts = np.bincount(y[s_idx], weights=ws, minlength=k)
    xbar = ws @ X[s_idx]
    S = np.zeros((k, k))
    np.add.at(S, y[s_idx], ws[:, None] * X[s_idx])  # row k: the weighted sum of the small rows of class k
    has_small = bool(ws.sum() > 0)
    at = np.arange(idx.size)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        W, b = model._unpack(theta, k)
        with np.errstate(over="ignore", invalid="ignore"):  # a failed trial point: inf or NaN
            logp = log_softmax(Xr @ W.T + b, axis=1)
            loss = -float(np.dot(wr, logp[at, yr]))
            G = (np.exp(logp) - Yr) * wr[:, None]
            GW = G.T @ Xr
            gb = G.sum(axis=0)
            if has_small:
                lb = log_softmax(b)
                pb = np.exp(lb)
                Wx = W @ xbar
                loss += -float(counts @ lb) + float(pb @ Wx) - float(np.sum(W * S))
                GW = GW + np.outer(pb, xbar) - S
                gb = gb + ws.sum() * pb - counts + pb * Wx - pb * float(pb @ Wx)
        if not g:
            pen, pW, pb_ = model._penalty(W, b, k)
        else:
            pen, pW, pb_ = model._penalty(np.ldexp(W, -g), b, k)
            pW = np.ldexp(pW, -g)
        return loss + pen, model._pack_grad(GW + pW, gb + pb_, k)

    return fun


def far_rows(X: np.ndarray) -> np.ndarray:
    r"""The rows whose :math:`\max_k |x_k - \max_j x_j|` exceeds 1e3 (halves: never overflows)."""
    h = 0.5 * X
    return np.asarray(np.max(h.max(axis=1, keepdims=True) - h, axis=1) > 0.5 * TYPICAL_HI)


def fit_far(model: Any, X: np.ndarray, y: np.ndarray, wt: np.ndarray, f: int,
            options: dict[str, Any]) -> Result:
    """The lower of the ranked and the far-scale candidates (module docstring), polished where the far rows
    are only moderately far. ``X``: the logits the fit runs on; ``f``: :func:`_far_scale`'s exponent."""
    from scipy.optimize import minimize

    from ._matrix import newton_fits

    k = X.shape[1]
    exact = objective(model, X, y, wt, 0)
    best, n_iter = ranked_fit(model, X, y, wt, options)
    if best is None or 2.0 ** f <= SKIP_FAR_SCALE:
        # the far rows' scale (where a map ranks every far row, the ranked fit is no higher beyond 2^100: a
        # map ranking them by a margin of 1e-80 of its size costs the ordinary rows nothing)
        Xf = np.ldexp(X, -f)
        on_far = objective(model, Xf, y, wt, f, small=SMALL_ROWS)
        far = None
        if newton_fits(model, k):
            far = newton(on_far, model._hessian_on(Xf, wt, f), model._start_on(k, f), model.max_iter)
            far = far if far.success else None  # otherwise L-BFGS, as for many classes
        if far is None:
            far = minimize(on_far, model._start_on(k, f), jac=True, method="L-BFGS-B", options=options)
        x = np.concatenate([np.ldexp(far.x[:-k], -f), far.x[-k:]])
        n_iter += int(far.nit)
        cand = Result(x, exact(x)[0], bool(far.success), 0, str(far.message))
        if best is None or cand.fun < best.fun or not np.isfinite(best.fun):
            best = cand
    if 2.0 ** f <= POLISH_UP_TO or not np.isfinite(best.fun):
        res = minimize(exact, best.x, jac=True, method="L-BFGS-B", options=options)
        n_iter += int(res.nit)
        if res.success and res.fun < best.fun:
            best = Result(res.x, float(res.fun), True, 0, str(res.message))
    return replace(best, nit=n_iter)


def ranked_fit(model: Any, X: np.ndarray, y: np.ndarray, wt: np.ndarray,
               options: dict[str, Any]) -> tuple[Result | None, int]:
    r"""The minimiser of the objective over the ordinary rows subject to every far row (:func:`far_rows`, of
    positive weight) having its label's logit above every other by :math:`\max(L_i, 10^{-10} m_i)`,
    :math:`m_i = \max_k |x_{ik}|`, :math:`L_i = \ln m_i + 50` (the row's log-loss and its gradient then
    below :math:`e^{-50}`); None where the ordinary rows' fit ranks more than :data:`RANKED_ROWS` of them
    wrong, or where no map does that; and the iterations spent. Its ``fun`` is the exact objective over
    every row."""
    from scipy.optimize import minimize

    from ._matrix import newton_fits

    n, k = X.shape
    big = far_rows(X)
    far = big & (wt > 0)
    if not far.any() or big.all():
        return None, 0
    exact = objective(model, X, y, wt, 0)
    ordinary = objective(model, X, y, wt, 0, rows=~big)
    r0 = minimize(ordinary, model._start(k), jac=True, method="L-BFGS-B", options=options)
    theta0 = np.asarray(r0.x)
    m = np.max(np.abs(X[far]), axis=1)
    U, yf = X[far] / m[:, None], y[far]  # |u| <= 1
    floor = np.maximum((np.log(m) + 50.0) / m, MARGIN_FLOOR)
    nf = yf.size
    # the far rows the ordinary rows' fit ranks wrong, from their margins (A below: 200 MB at 1,000 far rows
    # of 30 classes, built only where the ranked fit is sought)
    W0, b0 = model._unpack(theta0, k)
    M0 = U @ W0.T + b0 / m[:, None]
    short0 = (M0[np.arange(nf), yf][:, None] - M0 < floor[:, None]) & ~np.eye(k, dtype=bool)[yf]
    wrong = np.flatnonzero(short0.any(axis=1))
    nit = int(r0.nit)
    if not wrong.size:
        return Result(theta0, exact(theta0)[0], bool(r0.success), nit, str(r0.message)), nit
    if wrong.size > RANKED_ROWS:
        return None, nit
    pairs_i = np.repeat(np.arange(nf), k - 1)
    pairs_j = (yf[:, None] + 1 + np.arange(k - 1)[None, :]) % k  # every other class
    pairs_j = pairs_j.ravel()
    D = np.zeros((pairs_i.size, k))
    D[np.arange(pairs_i.size), yf[pairs_i]] = 1.0
    D[np.arange(pairs_i.size), pairs_j] = -1.0
    # d margin / d theta, one row per (far row, other class)
    A = model._pack_grad(D[:, :, None] * U[pairs_i][:, None, :], D / m[pairs_i][:, None], k)
    c = floor[pairs_i]

    def wrong_rows(theta: np.ndarray) -> np.ndarray:
        short = A @ theta < c
        return np.unique(pairs_i[short])

    # precondition: e = L^T (theta - theta0), H = L L^T the Hessian at theta0 (SLSQP starts from B = I)
    T = np.eye(theta0.size)
    if newton_fits(model, k):
        H = model._hessian_on(X[~big], wt[~big], 0)(theta0)
        H = H + (1e-10 * float(np.max(np.diag(H))) + 1e-300) * np.eye(theta0.size)
        try:
            from scipy.linalg import solve_triangular

            T = solve_triangular(np.linalg.cholesky(H), np.eye(theta0.size), lower=True).T  # L^-T
        except np.linalg.LinAlgError:
            T = np.eye(theta0.size)

    def in_e(e: np.ndarray) -> tuple[float, np.ndarray]:
        v, grad = ordinary(theta0 + T @ e)
        return v, T.T @ grad

    e = np.zeros(theta0.size)
    # the first constraints: those of the rows ranked wrong and of the nearest to it, up to FIRST_PAIRS
    # pairs (every far row where they are few); then the rows ranked wrong by the answer join them
    active = np.zeros(nf, dtype=bool)
    slack = np.full(nf, np.inf)
    np.minimum.at(slack, pairs_i, A @ theta0 - c)
    active[np.argsort(slack, kind="stable")[:max(FIRST_PAIRS // (k - 1), wrong.size)]] = True
    if not _can_rank(A[active[pairs_i], :-k]):
        return None, nit
    for _ in range(5):
        active[wrong] = True
        sel = active[pairs_i]
        AT, cs = A[sel] @ T, c[sel] - A[sel] @ theta0
        with np.errstate(over="ignore", invalid="ignore"):
            res = minimize(in_e, e, jac=True, method="SLSQP",
                           constraints=[{"type": "ineq", "fun": lambda v: AT @ v - cs, "jac": lambda v: AT}],
                           options={"maxiter": min(model.max_iter, 200), "ftol": 1e-14})
        nit += int(res.nit)
        if not (res.success and np.isfinite(res.x).all()):
            return None, nit
        e = res.x
        theta = theta0 + T @ e
        wrong = wrong_rows(theta)
        wrong = wrong[~active[wrong]]
        if not wrong.size:
            break
    else:
        return None, nit
    if not np.all(A @ theta >= 0.5 * c):
        return None, nit
    return Result(theta, exact(theta)[0], True, nit, str(res.message)), nit


def _can_rank(AW: np.ndarray) -> bool:
    r"""Whether some :math:`W` gives every margin :math:`a^\top \theta_W` (rows of ``AW``) a positive value:
    the linear programme :math:`\max t` subject to :math:`A_W \theta_W \ge t`, :math:`|\theta_W| \le 1`
    (HiGHS) has :math:`t > 10^{-9}`. Without it, SLSQP had run 10,000 evaluations on far rows no map ranks
    (their constraints then met only by intercepts of order :math:`10^{50}`)."""
    from scipy.optimize import linprog

    p = AW.shape[1]
    cost = np.zeros(p + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-AW, np.ones((AW.shape[0], 1))]), b_ub=np.zeros(AW.shape[0]),
                  bounds=[(-1.0, 1.0)] * p + [(None, 1.0)], method="highs")
    return bool(res.status == 0 and -res.fun > 1e-9)


def _newton_step(H: np.ndarray, g: np.ndarray) -> np.ndarray | None:
    r"""The step :math:`-(H + \delta I)^{-1} g`, :math:`\delta = 10^{-12}\max_j H_{jj}` (the shift invariance
    of softmax leaves :math:`H` singular; its null directions carry no gradient), by Cholesky's
    factorisation; where that fails (rounding below :math:`-\delta`), :math:`-V \Lambda^{-1} V^\top g` with
    the eigenvalues below :math:`10^{-12}\lambda_{\max}` raised to it. None where H is not finite. The
    eigendecomposition alone, 9 times Cholesky's :math:`P^3/3` steps, had taken half the far fit at 30
    classes (930 parameters)."""
    if not np.isfinite(H).all():
        return None
    delta = 1e-12 * max(float(np.max(np.diag(H))), 0.0) + 1e-300
    try:
        from scipy.linalg import cho_factor, cho_solve

        return -cho_solve(cho_factor(H + delta * np.eye(H.shape[0]), lower=True, check_finite=False), g)
    except np.linalg.LinAlgError:
        lam, V = np.linalg.eigh(H)
        lam = np.maximum(lam, 1e-12 * max(float(lam.max()), 0.0) + 1e-300)
        return -V @ ((V.T @ g) / lam)


def newton(fun: Any, hess: Any, x0: np.ndarray, max_iter: int) -> Result:
    r"""Newton's method with the exact Hessian for a convex objective: steps
    :math:`-(H + \delta I)^{-1} g` (:func:`_newton_step`), halved until the objective falls by a
    ten-thousandth of the predicted decrease. Converged at a gradient of 1e-12, or of 1e-9 where rounding
    leaves no decrease to find (a step that leaves the objective equal is taken only where it lowers the
    largest gradient entry: such steps, taken regardless, had run to ``max_iter``). (scipy's trust-exact,
    which it replaces, spent half its time estimating singular values in Python: 1.5 s of 1.8 s on 110
    parameters.)"""
    x = np.asarray(x0, dtype=float)
    v, g = fun(x)
    nit = 0
    while nit < max_iter:
        if not np.isfinite(v) or np.max(np.abs(g)) <= 1e-12:
            break
        nit += 1
        with np.errstate(over="ignore", invalid="ignore"):
            d = _newton_step(hess(x), g)
        if d is None:
            break
        slope = float(g @ d)
        t, moved = 1.0, False
        gmax = float(np.max(np.abs(g)))
        while t > 1e-20 and slope < 0:
            vn, gn = fun(x + t * d)
            # a step at an equal objective only where it lowers the gradient (rounding accepted steps that
            # did neither, up to max_iter)
            if np.isfinite(vn) and vn <= v + 1e-4 * t * slope and (vn < v or np.max(np.abs(gn)) < gmax):
                x, v, g, moved = x + t * d, vn, gn, True
                break
            t *= 0.5
        if not moved:
            break
    gmax = float(np.max(np.abs(g))) if np.isfinite(v) else np.inf
    ok = gmax <= 1e-9
    return Result(x, float(v), ok, nit, "converged" if ok else f"stopped at a gradient of {gmax:.3g}")
