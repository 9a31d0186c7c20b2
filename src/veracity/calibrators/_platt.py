r"""Platt scaling :math:`p = \sigma(a\,x + b)` fit by log-likelihood (seed 000, seed 004).

``x`` is the raw score for ``score_type="logit"`` and :math:`\mathrm{logit}(p)` for
probabilities (so ``a = 1/τ, b = 0`` is temperature scaling). Platt's (1999)
target smoothing replaces the 0/1 labels by
:math:`t_+ = (N_+ + 1)/(N_+ + 2)` and :math:`t_- = 1/(N_- + 2)`.

A negative slope ``a < 0`` means the calibrated probability *falls* as the score
rises: the map reverses the ranking. Seed 004 warns that sign conventions differ
between implementations, so the direction is checked at fit time: by default a
warning (``on_reversed="warn"``), or an error (``"error"``), or accepted
(``"allow"``); ``reversed_`` records it and :func:`veracity.compare` reports it.
What the warning (or error) says rests on a test of the association (:func:`association`): only
scores whose AUC lies below 1/2 beyond noise are called reversed and told to flip their sign; a
negative slope from scores with no detectable signal (AUC within noise of 1/2, or too few rows of a
class to tell) is said to be just that, where passing ``-score`` would be no repair.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from ..core._special import expit

from ..core._delong import (class_factor, delong_covariance, delong_test, difference_estimate, few_class_rows,
                            few_rows_text, logit_auc_interval, rank_models)
from ..core._text import count_noun
from ..core._validation import VeracityError, VeracityWarning
from ..core._weights import in_user_units
from ._base import Calibrator, warn, warn_certain_contradicted

_CHUNK = 1 << 16
#: a row this many median absolute deviations from a column's median is "far" (see logistic_fit)
_FAR = 1e4


def _loss_grad_hess(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None,
                    theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Σw[softplus(z) − t z], its gradient and Hessian for z = Σ_j θ_j x_j + θ_d (chunked).

    Plain element-wise passes over cache-sized chunks: no BLAS (no thread start-up). A trial point of
    Newton's line search may overflow (rows of 1e300 among logits of order 1, a slope above 1): its loss
    is then inf or NaN, which the line search rejects, and numpy's overflow warnings are not the user's.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _sums(cols, t, w, theta)


def _sums(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None,
          theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """:func:`_loss_grad_hess` as numpy computes it."""
    d = len(cols)
    loss = 0.0
    g = np.zeros(d + 1)
    H = np.zeros((d + 1, d + 1))
    for a in range(0, t.size, _CHUNK):
        xs = [c[a:a + _CHUNK] for c in cols]
        tc = t[a:a + _CHUNK]
        z = np.full(tc.size, theta[d])
        for j in range(d):
            z += theta[j] * xs[j]
        sp = np.abs(z)
        np.negative(sp, out=sp)
        np.exp(sp, out=sp)
        np.log1p(sp, out=sp)
        sp += np.maximum(z, 0.0)               # softplus(z), overflow-free
        p = expit(z)
        sp -= tc * z
        r = p - tc
        q = 1.0 - p
        q *= p
        if w is not None:
            wc = w[a:a + _CHUNK]
            sp *= wc
            r *= wc
            q *= wc
        loss += float(sp.sum())
        g[d] += float(r.sum())
        H[d, d] += float(q.sum())
        for j in range(d):
            qx = q * xs[j]
            g[j] += float((r * xs[j]).sum())
            H[j, d] += float(qx.sum())
            for k in range(j, d):
                H[j, k] += float((qx * xs[k]).sum())
    H = np.triu(H) + np.triu(H, 1).T
    return loss, g, H


def logistic_fit(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None = None, *,
                 theta0: np.ndarray | None = None, tol: float = 1e-10,
                 max_iter: int = 100, robust: bool = True) -> tuple[np.ndarray, int, bool]:
    r"""Unregularised logistic regression by damped Newton (IRLS).

    Minimises :math:`\sum_i w_i[\mathrm{softplus}(z_i) - t_i z_i]`,
    :math:`z_i = \sum_j \theta_j x_{ij} + \theta_d`, for targets :math:`t_i \in [0, 1]`
    (``cols`` are the feature columns; the intercept is added). Returns
    ``(theta, iterations, converged)``; a step that raises the loss is halved.

    Each column is centred and scaled inside the optimiser, so its steps and stopping rule
    see features of order one whatever the scores' magnitude (decision values of 1e5 or 1e11,
    scores of 1e-5); the fitted ``theta`` is mapped back to the columns as given, so the
    map ``Σ θ_j x_j + θ_d`` is exact on the original scale.

    Where the mean or the spread overflows (scores past :math:`10^{154}`, whose squares do), they
    are taken of :math:`x/m`, :math:`m = \max|x|`, and scaled back. A
    constant column (every value equal) is centred on its value: it becomes exactly 0, so
    its coefficient stays 0 and the intercept carries the base rate (the rounding of a
    mean and a standard deviation would otherwise leave noise of ~1e-17 that Newton
    scales up into coefficients of ~1e15).

    When a column has rows beyond :math:`10^4` median absolute deviations of its median (two
    logits of :math:`\pm10^{10}` among logits of order 1), a second fit runs with that column
    centred on its median and scaled by that deviation (raised to
    :math:`\max|x - \mathrm{med}| / 10^{150}` so that squares stay finite), started from the fit
    without those rows (or from ``theta0``); the converged fit of lower loss is returned
    (``robust=False`` skips this).
    """
    d = len(cols)
    centre = np.zeros(d)
    scale = np.ones(d)
    for j, c in enumerate(cols):
        lo, hi = float(np.min(c)), float(np.max(c))
        if lo == hi:  # constant: z = 0 exactly
            centre[j] = lo
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            centre[j], scale[j] = float(np.mean(c)), float(np.std(c))
        if not (np.isfinite(centre[j]) and np.isfinite(scale[j])):  # |x| past ~1e154: x² overflows
            m = max(abs(lo), abs(hi))
            u = c / m
            centre[j], scale[j] = float(np.mean(u)) * m, float(np.std(u)) * m
    scale[~(np.isfinite(scale) & (scale > 0.0))] = 1.0
    std_fit = _scaled_fit(cols, t, w, centre, scale, theta0, tol, max_iter)
    rc, rs = centre.copy(), scale.copy()
    far = _far_rows(cols, rc, rs) if robust else None
    if far is None:
        return std_fit
    # A few rows lie 1e4+ typical spreads away (logits of 1e10 among logits of order 1): the
    # standard deviation is theirs, the other rows shrink to ~1e-10 and their slope lies beyond
    # Newton's reach (it stopped at a ~ 0 with a false "did not converge", or at the warm start
    # with a false "converged"). Fit the other rows alone: where the far rows lie on the right
    # side their loss is 0 to the last bit and their gradient moves nothing, so that fit is the
    # answer. Otherwise also fit every row on the typical spread from there; a far row on the
    # wrong side is the standard fit's case. The converged fit of lower loss wins (the loss is
    # convex: two converged fits agree).
    near = ~far
    tn = t[near]
    wn = None if w is None else w[near]
    pos = float(tn.sum() if wn is None else np.dot(wn, tn))
    neg = float((1.0 - tn).sum() if wn is None else np.dot(wn, 1.0 - tn))
    if not (pos > 0.0 and neg > 0.0):
        return std_fit
    near_fit = logistic_fit([c[near] for c in cols], tn, wn, theta0=theta0, tol=tol, max_iter=max_iter,
                            robust=False)
    if not near_fit[2]:
        return std_fit
    if _far_rows_move_nothing(cols, t, w, far, near_fit[0], tol):
        return near_fit
    robust_fit = _scaled_fit(cols, t, w, rc, rs, near_fit[0], tol, max_iter)
    fits = [f for f in (robust_fit, std_fit) if f[2]] or [std_fit]
    return min(fits, key=lambda f: _exact_loss(cols, t, w, f[0]))


def _far_rows_move_nothing(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None, far: np.ndarray,
                           theta: np.ndarray, tol: float) -> bool:
    r"""Whether the Newton step the far rows' gradient asks of the other rows' optimum ``theta`` is
    below ``tol`` (relative), in the other rows' standardised coordinates:
    :math:`\|H_\text{near}^{-1} g_\text{far}\|_\infty \le \text{tol}\,(1 + \|\theta\|_\infty)`,
    the residual :math:`\sigma(z) - t = (1-t)\sigma(z) - t\,\sigma(-z)` formed without cancellation."""
    d = len(cols)
    near = ~far
    m = np.array([float(np.mean(c[near])) for c in cols])
    sd = np.array([float(np.std(c[near])) for c in cols])
    sd[~(np.isfinite(sd) & (sd > 0.0))] = 1.0
    th = np.append(theta[:d] * sd, theta[d] + np.dot(theta[:d], m))
    with np.errstate(over="ignore", invalid="ignore"):
        xs = [(c - mj) / sj for c, mj, sj in zip(cols, m, sd)]
        z = np.full(t.size, th[d])
        for j in range(d):
            z = z + th[j] * xs[j]
        p = expit(z)
        r = (1.0 - t) * p - t * expit(-z)
        q = p * (1.0 - p)
        if w is not None:
            r = r * w
            q = q * w
        feats = list(xs) + [np.ones(t.size)]
        g = np.array([float(np.sum(r[far] * f[far])) for f in feats])
        H = np.array([[float(np.sum(q[near] * a[near] * b[near])) for b in feats] for a in feats])
    return negligible_step(g, H, th, tol)


def negligible_step(g: np.ndarray, H: np.ndarray, th: np.ndarray, tol: float) -> bool:
    r""":math:`\|H^{-1} g\|_\infty \le \text{tol}\,(1 + \|\theta\|_\infty)` with every number finite: the
    far rows' decision, on array sums here and on a frame's aggregates in ``frames._fit``."""
    if not (np.isfinite(g).all() and np.isfinite(H).all()):
        return False
    try:
        step = np.linalg.solve(H, g)
    except np.linalg.LinAlgError:
        return False
    return bool(np.isfinite(step).all() and np.max(np.abs(step)) <= tol * (1.0 + np.max(np.abs(th))))


def _scaled_fit(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None, centre: np.ndarray,
                scale: np.ndarray, theta0: np.ndarray | None, tol: float,
                max_iter: int) -> tuple[np.ndarray, int, bool]:
    """Newton on the columns ``(x - centre) / scale``; ``theta`` in and out on the original scale."""
    d = len(cols)
    z = [(c - m) / s for c, m, s in zip(cols, centre, scale)]
    start = None
    if theta0 is not None:
        theta0 = np.asarray(theta0, dtype=np.float64)
        start = np.append(theta0[:d] * scale, theta0[d] + np.dot(theta0[:d], centre))
    th, n_iter, ok = newton_logistic(lambda theta: _loss_grad_hess(z, t, w, theta), d, theta0=start,
                                     tol=tol, max_iter=max_iter)
    coef = th[:d] / scale
    return np.append(coef, th[d] - np.dot(coef, centre)), n_iter, ok


def _exact_loss(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None, theta: np.ndarray) -> float:
    """Σ w [t softplus(−z) + (1 − t) softplus(z)] on the original columns (= Σ w[softplus(z) − t z]),
    each side only where its weight is positive, so that an infinite z gives inf, never NaN."""
    d = len(cols)
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.full(t.size, theta[d])
        for j in range(d):
            z = z + theta[j] * cols[j]
        loss = (np.where(t > 0.0, t * np.logaddexp(0.0, -z), 0.0)
                + np.where(t < 1.0, (1.0 - t) * np.logaddexp(0.0, z), 0.0))
        if w is not None:
            loss = np.where(w > 0.0, w * loss, 0.0)
        total = float(loss.sum())
    return total if total == total else math.inf


def _far_rows(cols: list[np.ndarray], centre: np.ndarray, scale: np.ndarray) -> np.ndarray | None:
    """Rows beyond ``_FAR`` median absolute deviations of a column's median, or None when no
    column has any; for such a column ``centre``/``scale`` become its median and deviation (in
    place). The median and deviation come from a strided subsample of ~65k rows."""
    far: np.ndarray | None = None
    for j, c in enumerate(cols):
        sub = c[::max(1, c.size // 65536)]
        med = float(np.median(sub))
        with np.errstate(over="ignore", invalid="ignore"):
            mad = float(np.median(np.abs(sub - med)))
            dev = np.abs(c - med)
        top = float(np.max(dev))
        if not (mad > 0.0 and np.isfinite(mad) and np.isfinite(top)) or top <= _FAR * mad:
            continue
        centre[j], scale[j] = med, max(mad, top / 1e150)
        out = dev > _FAR * mad
        far = out if far is None else far | out
    return far


def newton_logistic(loss_grad_hess: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]], d: int, *,
                    theta0: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 100,
                    losses: Callable[[list[np.ndarray]], list[float]] | None = None
                    ) -> tuple[np.ndarray, int, bool]:
    """:func:`logistic_fit`'s damped Newton on any source of (loss, gradient, Hessian).

    ``loss_grad_hess(theta)`` returns the sums of :func:`_loss_grad_hess` -- from
    arrays, or from one aggregate query over a frame (:mod:`veracity.frames._fit`).
    ``losses(thetas)`` (optional) gives the loss at several points at once (a frame: one query): where
    the full step raises the loss, the halved steps are then tried :data:`_HALVINGS_AT_ONCE` at a time, and
    the first one accepted is evaluated again with its gradient and Hessian -- the same steps as one
    ``loss_grad_hess`` per halving (a separated fit's last step halved 35 times: 35 queries, now 6).
    """
    theta = np.zeros(d + 1) if theta0 is None else np.asarray(theta0, dtype=np.float64).copy()
    loss, g, H = loss_grad_hess(theta)
    for it in range(1, max_iter + 1):
        try:
            step = np.linalg.solve(H + 1e-12 * np.trace(H) * np.eye(d + 1), g)
        except np.linalg.LinAlgError:
            return theta, it, False
        if np.max(np.abs(step)) / (1.0 + np.max(np.abs(theta))) <= 0.1 * np.sqrt(tol):
            # Newton converges quadratically: after a step this small the remaining
            # error is ~step² <= tol/100, so take it without another pass.
            return theta - step, it, True
        bound = loss + 1e-12 * abs(loss)
        scale = 1.0
        for _ in range(60):
            cand = theta - scale * step
            c_loss, c_g, c_H = loss_grad_hess(cand)
            if c_loss <= bound:
                break
            scale *= 0.5
            if losses is not None:
                scale = _first_accepted(losses, theta, step, scale, bound)
                if scale == 0.0:
                    return theta, it, False
                cand = theta - scale * step
                c_loss, c_g, c_H = loss_grad_hess(cand)
                break
        else:
            return theta, it, False
        moved = np.max(np.abs(cand - theta)) / (1.0 + np.max(np.abs(theta)))
        theta, loss, g, H = cand, c_loss, c_g, c_H
        if moved <= tol:
            return theta, it, True
        if np.max(np.abs(theta)) > 1e8:
            return theta, it, False
    return theta, max_iter, False


#: halved Newton steps whose losses one call of ``losses`` evaluates (see :func:`newton_logistic`)
_HALVINGS_AT_ONCE = 8


def _first_accepted(losses: Callable[[list[np.ndarray]], list[float]], theta: np.ndarray, step: np.ndarray,
                    scale: float, bound: float) -> float:
    """The first of the scales ``scale, scale/2, ...`` (59 steps in all after the full one) whose point
    ``theta - scale * step`` has a loss at most ``bound``; 0.0 where none has."""
    scales = [scale * 0.5 ** j for j in range(59)]
    for a in range(0, len(scales), _HALVINGS_AT_ONCE):
        chunk = scales[a:a + _HALVINGS_AT_ONCE]
        for sc, value in zip(chunk, losses([theta - sc * step for sc in chunk])):
            if value <= bound:
                return sc
    return 0.0


def fit_logistic_fast(cols: list[np.ndarray], t: np.ndarray, w: np.ndarray | None, *,
                      tol: float = 1e-10) -> tuple[np.ndarray, int, bool]:
    """:func:`logistic_fit` warm-started from a strided subsample of ~65k rows."""
    theta0 = None
    n = t.size
    if n > 4 * 65536:
        stride = n // 65536
        theta0, _, ok = logistic_fit([c[::stride] for c in cols], t[::stride],
                                     None if w is None else w[::stride], tol=1e-6)
        if not ok:
            theta0 = None
    return logistic_fit(cols, t, w, theta0=theta0, tol=tol)


def separation(x: np.ndarray, y: np.ndarray) -> str | None:
    r"""``"up"`` when every positive's score is at or above every negative's, ``"down"`` for the reverse, else
    None (0/1 labels ``y``; rows of weight 0 already dropped). Then the logistic likelihood of
    :math:`\sigma(a x + b)` has no maximum (it rises as :math:`|a| \to \infty`, ties on the boundary
    included), unless every score is equal (the slope then multiplies 0). Newton stopped where
    :math:`p - t` could no longer be told from 0 in float64 and called that converged."""
    pos, neg = x[y == 1.0], x[y != 1.0]
    if not (pos.size and neg.size) or float(np.min(x)) == float(np.max(x)):
        return None
    if float(np.max(neg)) <= float(np.min(pos)):
        return "up"
    if float(np.max(pos)) <= float(np.min(neg)):
        return "down"
    return None


@dataclass(frozen=True)
class Association:
    r"""How a score goes with the 0/1 labels: the Mann–Whitney AUC
    :math:`\hat A = \sum_{y_i=1}\sum_{y_j=0} w_i w_j ([s_i > s_j] + \tfrac12[s_i = s_j]) / (W_1 W_0)` with
    DeLong's ``level`` interval on the logit scale (:func:`association_interval`). ``few``:
    :func:`veracity.core._delong.few_class_rows`'s text where a class has fewer than 10 rows (weighted:
    Kish's effective size), else "" — no interval is read then.

    ``verdict``: ``"reversed"`` when the interval lies wholly below 1/2, ``"forward"`` wholly above it,
    ``"noise"`` when it holds 1/2 or there are too few rows (a reversal cannot be told from no signal)."""

    auc: float
    low: float
    high: float
    level: float
    few: str

    @property
    def verdict(self) -> str:
        if self.few or not (math.isfinite(self.low) and math.isfinite(self.high)):
            return "noise"
        return "reversed" if self.high < 0.5 else "forward" if self.low > 0.5 else "noise"

    def describe(self) -> str:
        """``AUC 0.482, 95% interval [0.401, 0.563]`` (the interval's ends shown within [0, 1])."""
        if self.few or not (math.isfinite(self.low) and math.isfinite(self.high)):
            rows = self.few or "too few rows of a class for an interval"
            return f"AUC {self.auc:.3f} on {rows}"
        lo, hi = max(self.low, 0.0), min(self.high, 1.0)
        return f"AUC {self.auc:.3f}, {self.level:.0%} interval [{lo:.3f}, {hi:.3f}]"

    def no_signal(self) -> str:
        """The clause for verdict ``"noise"``: no association, so no reversal can be read off the fit."""
        if self.few or not (math.isfinite(self.low) and math.isfinite(self.high)):
            return (f"too few rows of a class to tell the scores' association with the labels from noise "
                    f"({self.describe()}): the fit cannot tell a reversed score from no signal")
        return (f"the scores show no association with the labels here ({self.describe()}): the fit cannot "
                "tell a reversed score from no signal")

    def to_state(self) -> dict[str, Any]:
        """Plain JSON for a calibrator artifact (``state.association_``): an end of the interval that is not a
        number (no interval) is ``None``."""
        def end(v: float) -> float | None:
            return float(v) if math.isfinite(v) else None

        return {"auc": float(self.auc), "low": end(self.low), "high": end(self.high),
                "level": float(self.level), "few": self.few}

    @classmethod
    def from_state(cls, state: Any) -> Association | None:
        """The inverse of :meth:`to_state`; None for an artifact that records no association."""
        if not isinstance(state, dict):
            return None
        nan = float("nan")
        return cls(float(state["auc"]), nan if state.get("low") is None else float(state["low"]),
                   nan if state.get("high") is None else float(state["high"]), float(state["level"]),
                   str(state.get("few", "")))


def association_interval(auc: float, se: float, df: float, level: float) -> tuple[float, float]:
    r"""The :class:`Association`'s interval of :math:`\hat A` with DeLong's standard error ``se``:
    :math:`\operatorname{logit}^{-1}(\operatorname{logit}\hat A
    \pm t_{\nu}\,\mathrm{se}/(\hat A(1 - \hat A)))` (:func:`veracity.core._delong.logit_auc_interval`)
    with :math:`\nu = \min_c \nu_c` = ``df``, the smaller class's rows less one (weighted: Kish's effective
    size less one, :func:`~veracity.core._paired_mean.student_df`) — the interval of
    :func:`veracity.core._delong.auc_interval`. NaN ``se`` (too few rows, or perfect separation) is no
    interval; ``se`` 0 (every score equal) is :math:`[\hat A, \hat A]`.

    It replaced :math:`\hat A \pm t\,\mathrm{se}` on the Welch–Satterthwaite degrees of freedom, which
    under-covered near AUC 0 and 1, where :math:`\hat A`'s law is skewed. Seeded binormal scores, 1,500 draws
    a setting, 95 %: unweighted (60-300 rows) the old interval covered 0.869-0.887 at AUC 0.05 or 0.95 with
    100 rows or fewer, this one 0.941-0.967 across AUC 0.05-0.95; under log-normal weights
    :math:`e^{\sigma Z}` (:math:`\sigma` 0.5, 0.8) the old 0.85-0.90 at AUC 0.05/0.95, this one 0.925-0.948,
    and at :math:`\sigma = 1.2` the old 0.77-0.87, this one 0.91-0.935 there (0.94-0.97 at AUC 0.15-0.85).
    The Kish-size degrees of freedom covered 0.003-0.02 better than the Welch ones at AUC 0.05/0.95 under
    weights (and covered 0.004-0.01 more at AUC 1/2). The verdict reads this interval: at
    :math:`\hat A` near 1/2 it is the AUC scale's to first order: signal-free scores (1,000 seeds of
    tests/calibrators/test_reversed_vs_noise_r30b.py) were called reversed in 2.1 % of fits (exponential
    weights 2.4 %; before 2.5 % and 3.2 %), a reversal of AUC 0.3 on 300 rows in 100 % (98.3 %; before 100 %
    and 98.5 %) of 400."""
    if se != se:
        return float("nan"), float("nan")
    if se == 0.0:
        return auc, auc
    return logit_auc_interval(auc, se * se, df, level)


def association(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, level: float = 0.95) -> Association:
    r"""The score ``x``'s :class:`Association` with the 0/1 labels ``y`` (weights ``w``): DeLong's estimate of
    :math:`\hat A(x) - \hat A(c)` against a constant score c (whose AUC is exactly 1/2 and whose placements,
    all 1/2, carry no variance), so :func:`veracity.core._delong.delong_test` — the one DeLong — gives
    :math:`\hat A - 1/2` with its standard error (0 where x ranks as c does; NaN where there is no variance,
    or none beside :math:`\hat A \ne 1/2`), and :func:`association_interval` the interval, on the smaller of
    the classes' degrees of freedom (:func:`veracity.core._delong.delong_covariance`). Only the warning paths
    call it (one sort of the rows)."""
    if w is not None:  # relative to the largest (both read scale-free): no w² overflow at weights near 1e300
        top = float(w.max()) if w.size else 0.0
        w = w / top if top > 0.0 and math.isfinite(top) else w
    ranked = rank_models([np.zeros(x.shape[0]), x], y, w)
    cov = delong_covariance(ranked, y, w)
    e = delong_test(ranked, cov, 0, 1, level)
    auc = 0.5 + e.value
    low, high = association_interval(auc, e.se, float(np.min(cov.nu)), level)  # NaN if either is
    return Association(auc, low, high, level, few_class_rows(y, w))


@dataclass(frozen=True)
class ClassSums:
    r"""One class's sums for :func:`association_from_sums`: its rows (of positive weight), :math:`\sum w`,
    :math:`\sum w^2`, :math:`\sum w^3` (unweighted: the rows, the rows, None) and the placements' spread
    :math:`S = \sum w^2 (V - \hat A)^2` (unweighted :math:`\sum (V - \hat A)^2`)."""

    rows: int
    total: float
    total_sq: float
    total_cube: float | None
    spread: float


def association_from_sums(auc: float, pos: ClassSums, neg: ClassSums, *, one_level: bool,
                          level: float = 0.95) -> Association:
    r""":func:`association` from sums (a lazy frame's fit, :mod:`veracity.frames._fit`, which holds no rows):
    the same DeLong estimate of :math:`\hat A - 1/2` as :func:`veracity.core._delong.delong_difference`
    against a constant score, whose placements (all 1/2) carry no variance. Per class c, with
    :math:`t_c = \sum w` (unweighted :math:`n_c`),

    .. math:: v_c = \kappa_c\,S_c / t_c^2,\qquad \mathrm{se} = \sqrt{v_1 + v_0}

    (:math:`\kappa_c`, :math:`\nu_c`: :func:`~veracity.core._paired_mean.variance_factor` and
    :func:`~veracity.core._paired_mean.student_df` of the class's weights; unweighted :math:`n_c/(n_c - 1)`
    and :math:`n_c - 1`), the interval :func:`association_interval` of :math:`\hat A`, se and
    :math:`\min(\nu_1, \nu_0)`. No variance (NaN) below two
    rows of a class or a Kish size :math:`(\sum w)^2/\sum w^2` below 2; a variance of 0 beside
    :math:`\hat A \ne 1/2` (perfect separation) is no interval either; ``one_level`` (every score equal: the
    constant's ranking) is exactly :math:`\hat A = 1/2`. ``few``:
    :func:`veracity.core._delong.few_class_rows`'s text from the same sizes."""
    weighted = pos.total_cube is not None
    diff = auc - 0.5
    nan = float("nan")
    kish = [c.total * c.total / c.total_sq if c.total_sq > 0 else 0.0 for c in (pos, neg)]
    if pos.rows < 2 or neg.rows < 2 or (weighted and min(kish) < 2.0 - 1e-9):
        v1 = v0 = nu1 = nu0 = nan
    else:
        def factor(c: ClassSums) -> tuple[float, float]:
            if c.total_cube is None:
                return class_factor(c.rows)
            return class_factor(c.rows, c.total, c.total_sq, c.total_cube / c.total ** 3)

        (k1, nu1), (k0, nu0) = factor(pos), factor(neg)
        v1 = pos.spread * (k1 / (pos.total * pos.total))
        v0 = neg.spread * (k0 / (neg.total * neg.total))
    var = v1 + v0
    if one_level:  # the constant's own ranking: exactly no difference
        diff, var = 0.0, 0.0
    df = float(np.min([nu1, nu0]))  # NaN if either is
    e = difference_estimate(diff, var, lambda: df, level)
    sizes = kish if weighted else [float(pos.rows), float(neg.rows)]
    low, high = association_interval(0.5 + diff, e.se, df, level)
    return Association(0.5 + diff, low, high, level,
                       few_rows_text(sizes[0], sizes[1], weighted, pos.rows + neg.rows))


#: the advice where the scores show no detectable signal (:attr:`Association.verdict` ``"noise"``)
NO_SIGNAL_ADVICE = ("Check the score column (is it the model's score for these rows?), or use more "
                    "calibration rows")
#: the advice where the ranks go the right way but extreme scores pull the fit backwards (``"forward"``)
FAR_ROWS_ADVICE = "Check the rows with extreme scores (negating the scores would reverse a working ranking)"


def separated_message(name: str, side: str, fitted: str, remedy: str) -> str:
    """One line: the score separates the calibration labels, so no finite fit exists."""
    order = "at or above" if side == "up" else "at or below"
    step = "from 0 to 1" if side == "up" else "from 1 down to 0"  # as the score rises
    return (f"{name}: the score separates the calibration labels perfectly (every positive scores {order} "
            f"every negative), so the likelihood has no maximum and the fit stopped at {fitted}: a step "
            f"{step}, every calibration probability 0 or 1. {remedy}")


def smoothed_targets(n_pos: float, n_neg: float) -> tuple[float, float]:
    """Platt's targets :math:`t_+ = (N_+ + 1)/(N_+ + 2)`, :math:`t_- = 1/(N_- + 2)` (their limits 1 and 0 for
    a count beyond the float range: weights near the largest double, summed)."""
    return (n_pos + 1.0) / (n_pos + 2.0) if math.isfinite(n_pos) else 1.0, 1.0 / (n_neg + 2.0)


#: smoothed targets this much closer to 1/2 than one count a row gives are warned (weights that are no counts)
_PULL_WARN = 0.05


def warn_weights_not_counts(n_rows: int, n_rows_pos: float, n_pos: float, n_neg: float, t_pos: float,
                            t_neg: float) -> None:
    r"""Warn when Platt's targets read from the weights as row counts lie more than :data:`_PULL_WARN` closer
    to 1/2 than the rows' own counts put them: :math:`(t^r_+ - t^r_-) - (t_+ - t_-) > 0.05`, with
    :math:`t^r` the targets of :math:`N_\pm` rows. Weights that total far fewer than the rows (normalised to
    sum to 1) then flatten the map towards 1/2 (1,000 rows weighing 1/1000 each: targets 0.6 and 0.4, a map
    within about [0.4, 0.6]); importance weights of mean 1 never come near it. ``n_rows`` rows, ``n_rows_pos``
    of them positive; :math:`N_\pm` = ``n_pos``, ``n_neg``; targets ``t_pos``, ``t_neg``. The array fit and the
    lazy frames' fit (:mod:`veracity.frames._fit`) warn alike through it."""
    r_pos, r_neg = smoothed_targets(float(n_rows_pos), float(n_rows - n_rows_pos))
    if (r_pos - r_neg) - (t_pos - t_neg) <= _PULL_WARN:
        return
    warn(f"PlattScaling(smoothing=True) reads the weights as row counts (as scikit-learn's sigmoid does): "
         f"they total {n_pos:.3g} positives and {n_neg:.3g} negatives over {int(n_rows)} rows, so the targets are "
         f"{t_pos:.3g} and {t_neg:.3g} ({r_pos:.3g} and {r_neg:.3g} at one count a row) and the map is pulled "
         "towards 1/2. If the weights are not counts, scale them to a mean of 1 (w * n / w.sum())")


class PlattScaling(Calibrator):
    r"""Platt scaling :math:`\sigma(a x + b)`, unregularised maximum likelihood.

    Parameters: ``score_type`` (``"probability"`` default; ``"logit"`` for raw
    scores such as ``decision_function``), ``smoothing`` (Platt's
    target smoothing, default False), ``on_reversed`` (``"warn"``, ``"error"`` or
    ``"allow"`` when the fitted slope is negative; the words say whether the rows' AUC is below 1/2 beyond
    noise, within noise of it, or above it — :func:`association` — and ``"error"`` refuses all three).

    Fitted: ``a_``, ``b_``, ``reversed_`` (a < 0), ``n_iter_``, ``converged_``, ``association_`` (a < 0 and
    not ``"allow"``: the rows' :class:`Association`, saved with the map so that :func:`veracity.load` words
    its warning by it; else None).
    """

    kind = "platt"
    multiclass = "binary"
    _params = ("score_type", "smoothing", "on_reversed")
    _state = ("a_", "b_", "reversed_", "n_iter_", "converged_")

    def __init__(self, *, score_type: str = "probability", smoothing: bool = False,
                 on_reversed: str = "warn"):
        self.score_type = score_type
        self.smoothing = smoothing
        self.on_reversed = on_reversed

    def _check_params(self) -> None:
        super()._check_params()
        if self.on_reversed not in ("warn", "error", "allow"):
            raise VeracityError(
                f"on_reversed must be 'warn', 'error' or 'allow', got {self.on_reversed!r}", param="on_reversed")
        if not isinstance(self.smoothing, bool):
            raise VeracityError(f"smoothing must be True or False, got {self.smoothing!r}", param="smoothing")

    @property
    def preserves_order_(self) -> bool:
        return bool(self.a_ > 0)

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        x = self._logit_input(s)
        t = y
        if self.smoothing:
            # N+ and N- are row counts (a weight of k is k rows): totals in the caller's units, not in those of
            # the weights' rescaling by 2^k (one extra row of weight 1e-150 among weights of 1 raised them all
            # by 2^19, and the targets to within 1e-6 of 0/1: the smoothing was switched off)
            n_pos = float(y.sum()) if w is None else in_user_units(float(np.dot(w, y)), self._weight_unit)
            n_neg = float(y.size - y.sum()) if w is None else in_user_units(float(np.dot(w, 1.0 - y)),
                                                                              self._weight_unit)
            t_pos, t_neg = smoothed_targets(n_pos, n_neg)
            if w is not None:
                warn_weights_not_counts(y.size, float(y.sum()), n_pos, n_neg, t_pos, t_neg)
            t = np.where(y == 1.0, t_pos, t_neg)
        side = None if self.smoothing else separation(x, y)  # smoothed targets keep a finite maximum
        theta, n_iter, ok = fit_logistic_fast([np.ascontiguousarray(x)], t, w)
        # a negative slope is told apart from noise by the rows' AUC (only then: one sort of the rows)
        assoc = association(x, y, w) if theta[0] < 0 and self.on_reversed != "allow" else None
        self._set_fit(theta, n_iter, ok, separated=side, assoc=assoc)
        warn_certain_contradicted(self, s, y, w)

    def _set_fit(self, theta: np.ndarray, n_iter: int, ok: bool, *, separated: str | None = None,
                 assoc: Association | None = None) -> None:
        """Record the fitted ``(a, b)``; warn (or refuse) on non-convergence and a reversed slope.

        ``separated`` (``"up"``/``"down"``, see :func:`separation`): the labels are separated by the
        score, so there is no maximum-likelihood fit whatever Newton reported (``converged_`` False).
        ``assoc``: the rows' :func:`association`, which words a negative slope's warning (or error): scores
        reversed beyond noise are told to check their sign; scores with no detectable signal (AUC within noise
        of 1/2) that the slope means nothing; scores whose ranks go the right way that extreme rows pull the
        slope. ``on_reversed="error"`` raises in all three (the fitted map reverses the ranking whatever the
        cause), each with its own words; ``association_`` records it, and :func:`veracity.load` words the
        loaded map's warning by it. A lazy frame's fit passes the same :class:`Association`, from sums
        (:func:`association_from_sums`). None (not tested): the sign advice, in the words of a reversal
        beyond noise."""
        # the advice names a setting by {setting}: each front end spells it (the command line: its flag),
        # or says the rest of the advice where it has none (VeracityWarning's fallback)
        if separated is not None:
            ok = False
            said = separated_message("PlattScaling", separated, f"a = {theta[0]:.3g}", "")
            warn(VeracityWarning(said + "Use {setting} (Platt's targets) or more calibration rows", "smoothing",
                                 value=True, fallback=said + "Use more calibration rows"))
        elif not ok:
            said = (f"PlattScaling did not converge after {n_iter} Newton steps (slope a = "
                    f"{theta[0]:.3g}); the calibration rows may be perfectly separable. Use ")
            warn(VeracityWarning(said + "{setting} or more calibration rows", "smoothing", value=True,
                                 fallback=said + "more calibration rows"))
        a, b = float(theta[0]), float(theta[1])
        if a < 0:
            head = f"PlattScaling fitted a negative slope a = {a:.4g}: higher scores get LOWER probabilities"
            if assoc is not None and assoc.verdict == "noise":
                msg = f"{head}, but {assoc.no_signal()}, so the map means nothing. {NO_SIGNAL_ADVICE}"
            elif assoc is not None and assoc.verdict == "forward":
                msg = (f"{head}, yet the scores rank the labels the right way ({assoc.describe()}): a few "
                       f"scores far from the rest pull the slope negative. {FAR_ROWS_ADVICE}")
            else:  # reversed beyond noise (or untested)
                msg = (f"{head}, which reverses the ranking. Check the score's sign convention "
                       "(e.g. pass -score) before deploying")
            if self.on_reversed == "error":
                raise VeracityError(msg + ", or pass {setting}", param="on_reversed", value="allow")
            if self.on_reversed == "warn":
                warn(VeracityWarning(msg + " ({setting} silences this)", "on_reversed", value="allow",
                                     fallback=msg))
        self.a_, self.b_ = a, b
        self.reversed_ = bool(a < 0)
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(ok)
        self.association_ = assoc if a < 0 else None

    def _state_dict(self) -> dict[str, Any]:
        state = super()._state_dict()
        assoc = getattr(self, "association_", None)
        if assoc is not None:  # the fit's verdict on a negative slope (read by veracity.load)
            state["association_"] = assoc.to_state()
        return state

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.association_ = Association.from_state(state.get("association_"))

    def why_reversed(self) -> tuple[str, str]:
        """``(cause, advice)`` for :func:`veracity.load`'s words on a map of negative slope, by the verdict
        its fit recorded (``association_``, :attr:`Association.verdict`): reversed beyond noise (the sign
        advice), no signal (the map means nothing), or a working ranking pulled backwards by far rows.
        An artifact written before the verdict was recorded: no cause, the sign advice."""
        assoc = getattr(self, "association_", None)
        sign = "check the score's sign convention before applying it"
        if assoc is None:
            return "", sign
        if assoc.verdict == "noise":
            rows = ("too few rows of a class to tell the scores' association with the labels from noise"
                    if assoc.few or not (math.isfinite(assoc.low) and math.isfinite(assoc.high)) else
                    "no association of the scores with the labels")
            return (f", but its fit found {rows} ({assoc.describe()}): it cannot tell a reversed score from "
                    "no signal, so the map means nothing",
                    "check the score column it was fit on, or re-fit it on more calibration rows")
        if assoc.verdict == "forward":
            return (f", yet its fit rows ranked the labels the right way ({assoc.describe()}): a few scores "
                    "far from the rest pulled the slope negative",
                    "check the fit rows with extreme scores and re-fit it (negating the scores would reverse "
                    "a working ranking)")
        return f", and its fit rows ranked the labels backwards beyond noise ({assoc.describe()})", sign

    def transform_logit(self, scores: Any) -> np.ndarray:
        """Calibrated logits ``a·x + b``."""
        self._require_fitted()
        s = self._scores(scores, fitting=False)
        with np.errstate(over="ignore"):  # a logit beyond the float range is +-inf (expit reads it as 1 / 0)
            return self.a_ * self._logit_input(s) + self.b_

    def _transform(self, s: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return expit(self.a_ * self._logit_input(s) + self.b_)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        flag = "  REVERSED (a < 0)" if self.reversed_ else ""
        if not getattr(self, "converged_", True):  # separated rows: the slope is where Newton stopped
            steps = count_noun(int(self.n_iter_), "Newton step")
            flag += (f"  (NOT converged after {steps}: no maximum-likelihood map; the score may separate "
                     "the fit rows)")
        sign = "-" if self.b_ < 0 else "+"
        return f"Platt scaling: p = sigmoid({self.a_:.4f} * x {sign} {abs(self.b_):.4f}){flag}"
