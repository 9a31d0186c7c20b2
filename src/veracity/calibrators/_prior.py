r"""Prior (label) shift: re-weight probabilities for a new base rate (seed 004).

When the class-conditional score distributions stay the same and only the base
rate moves from :math:`\pi_\text{old}` to :math:`\pi_\text{new}`, Bayes' rule gives

.. math::
    \mathrm{LR} = \frac{p}{1-p}\cdot\frac{1-\pi_\text{old}}{\pi_\text{old}},\qquad
    p_\text{new} = \frac{\mathrm{LR}\,\pi_\text{new}}{\mathrm{LR}\,\pi_\text{new} + 1 - \pi_\text{new}}

(multiclass: :math:`p_{new,k} \propto p_k\,\pi_{new,k}/\pi_{old,k}`). When the new
prior is unknown, :func:`estimate_prior` finds it from unlabelled deployment
scores by EM (Saerens, Latinne & Decaestecker 2002): adjust, average, repeat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._validation import (VeracityError, as_float_array, check_probabilities, check_same_index,
                                check_weights, row_sum_hint, row_sums_off_one, rows_rounding)
from ..core._display import Display
from ..core._prior_shift import binary_prior_shift
from ._base import warn


def _prior_vector(prior: Any, name: str, k: int) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(prior, dtype=np.float64))
    except (TypeError, ValueError):
        raise VeracityError(f"{name} must be {'a number (the positive rate)' if k == 2 else f'{k} class priors'} "
                            f"strictly between 0 and 1, got {prior!r}", param=name) from None
    if k == 2 and arr.size == 1:
        # the rate itself is checked: 1 − π rounds to 1 for π below ~1e-16, and a rate of 1e-20 is one
        # strictly between 0 and 1 (the formulas read π and 1 − π, never their ratio to each other)
        if not (np.isfinite(arr[0]) and 0.0 < arr[0] < 1.0):
            raise VeracityError(f"{name} must lie strictly between 0 and 1, got {prior!r}", param=name)
        return np.array([1.0 - arr[0], arr[0]])
    if arr.size != k or arr.ndim != 1:
        raise VeracityError(
            f"{name} must be {'one number (the positive rate)' if k == 2 else f'{k} class priors'}, "
            f"got {prior!r}")
    if not np.all(np.isfinite(arr)) or (arr <= 0).any() or (arr >= 1).any():
        raise VeracityError(f"{name} must lie strictly between 0 and 1, got {prior!r}")
    if abs(arr.sum() - 1.0) > 1e-9:
        raise VeracityError(f"{name} class priors must sum to 1, got sum {arr.sum():.6g}")
    return arr


def _check_rows(P: np.ndarray) -> None:
    """(N, K) rows must be probability vectors: a row of zeros would give NaN, and any other row
    that does not sum to 1 would be silently renormalised by the adjustment."""
    sums, bad = row_sums_off_one(P)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        decimals = rows_rounding(P, sums, bad)
        fix = ("Pass class probabilities (e.g. the softmax of the logits), one column per class" if decimals is None
               else row_sum_hint(decimals, P.shape[1]))
        raise VeracityError(
            f"p: multiclass probability rows must sum to 1; {int(bad.sum())} of {sums.size} do not "
            f"(row {i} sums to {float(sums[i]):.6g}). {fix}", param="p")


def _adjust(P: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    Q = P * (new / old)
    return Q / Q.sum(axis=1, keepdims=True)


def adjust_prior(p: Any, old: Any, new: Any) -> Any:
    r"""Probabilities under a new class prior by the likelihood-ratio formula.

    ``p``: binary probabilities (scalar, 1-D or one column; ``old``/``new`` are positive rates)
    or an (N, K) matrix (``old``/``new`` are K priors). Returns the same shape
    (a float for a scalar input).

    >>> round(adjust_prior(0.8, 0.01, 0.10), 4)   # seed 004: LR = 396, odds 44, p = 44/45
    0.9778
    """
    scalar = np.ndim(p) == 0
    arr = as_float_array(np.atleast_1d(p), "p")
    check_probabilities(arr, "p")
    if arr.ndim == 2 and arr.shape[1] == 1:  # one column: the positive class's probability (as calibrators)
        return adjust_prior(arr[:, 0], old, new)[:, None]
    if arr.ndim == 1:
        o = _prior_vector(old, "old", 2)[1]
        nw = _prior_vector(new, "new", 2)[1]
        # p_new = LR·π_new / (LR·π_new + 1 − π_new), LR = p/(1−p) · (1−π_old)/π_old (core._prior_shift)
        out = binary_prior_shift(arr, float(o), float(nw))
        return float(out[0]) if scalar else out
    if arr.ndim != 2:
        raise VeracityError(f"p must be 1-D (binary) or (N, K), got shape {arr.shape}", param="p")
    k = arr.shape[1]
    _check_rows(arr)
    return _adjust(arr, _prior_vector(old, "old", k), _prior_vector(new, "new", k))


@dataclass(frozen=True, eq=False, repr=False)
class PriorEstimate(Display):
    """Result of :func:`estimate_prior`: the new prior (``prior``; a float for binary)."""

    prior: Any
    old: Any
    iterations: int
    converged: bool

    def to_dict(self) -> dict[str, Any]:
        conv = lambda v: v.tolist() if isinstance(v, np.ndarray) else v  # noqa: E731
        return {"prior": conv(self.prior), "old": conv(self.old),
                "iterations": self.iterations, "converged": self.converged}

    def __str__(self) -> str:
        fmt = lambda v: (f"{v:.4f}" if isinstance(v, float)  # noqa: E731
                         else "[" + ", ".join(f"{x:.4f}" for x in v) + "]")
        state = "converged" if self.converged else "NOT converged"
        return (f"EM prior estimate: {fmt(self.old)} -> {fmt(self.prior)} "
                f"({self.iterations} iterations, {state})")


def estimate_prior(p: Any, old: Any, *, sample_weight: Any = None, tol: float = 1e-10,
                   max_iter: int = 10_000) -> PriorEstimate:
    r"""EM estimate of the new class prior from unlabelled scores (Saerens et al. 2002).

    Iterates :math:`\pi^{(t+1)} = \frac1N\sum_i p_\text{new}(x_i;\,\pi^{(t)})` from
    :math:`\pi^{(0)} = \pi_\text{old}` until the prior moves less than ``tol``.
    Then ``adjust_prior(p, old, est.prior)`` gives the adjusted probabilities.

    EM's fixed point maximises the likelihood of the scores
    :math:`L(\pi) = \sum_i w_i \ln(\pi a_i + (1 - \pi) b_i)`,
    :math:`a_i = p_i/\pi_\text{old}`, :math:`b_i = (1 - p_i)/(1 - \pi_\text{old})`
    (:math:`\pi^{(t+1)} - \pi^{(t)} = \pi(1-\pi) L'(\pi) / W`). EM crawls where the classes
    overlap (its rate tends to 1: 10,000 iterations left the estimate 11 % off), so a binary
    prior is the root of the decreasing :math:`L'` found directly, by Newton's method safeguarded by
    bisection on :math:`[10^{-12}, 1 - 10^{-12}]` (``iterations`` counts its steps), to ``tol``.
    A multiclass prior runs EM; one that has not converged after ``max_iter`` iterations warns.
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or not (
            np.isfinite(tol) and tol >= 0):
        raise VeracityError(f"tol must be a number >= 0 (the largest change of the prior that counts as "
                            f"converged), e.g. 1e-10; got {tol!r}", param="tol")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise VeracityError(f"max_iter must be a whole number >= 1, e.g. 10000; got {max_iter!r}",
                            param="max_iter")
    check_same_index(p=p, sample_weight=sample_weight)  # never paired by position
    arr = as_float_array(p, "p")
    check_probabilities(arr, "p")
    if arr.ndim == 2 and arr.shape[1] == 1:  # one column: the positive class's probability (as calibrators)
        arr = arr[:, 0]
    binary = arr.ndim == 1
    P = np.column_stack([1.0 - arr, arr]) if binary else arr
    if P.ndim != 2:
        raise VeracityError(f"p must be 1-D (binary) or (N, K), got shape {arr.shape}", param="p")
    k = P.shape[1]
    if not binary:
        _check_rows(P)
    o = _prior_vector(old, "old", k)
    w = check_weights(sample_weight, P.shape[0])
    wt = np.full(P.shape[0], 1.0 / P.shape[0]) if w is None else w / w.sum()
    if binary:
        pi, it, converged = _binary_root(arr, wt, float(o[1]), float(tol), int(max_iter))
        est = PriorEstimate(prior=pi, old=float(o[1]), iterations=it, converged=converged)
        if not converged:
            _warn_unconverged(est)
        return est
    cur = o.copy()
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        nxt = wt @ _adjust(P, o, cur)
        nxt = np.clip(nxt, 1e-12, 1.0)
        nxt /= nxt.sum()
        if np.max(np.abs(nxt - cur)) <= tol:
            cur = nxt
            converged = True
            break
        cur = nxt
    est = PriorEstimate(prior=cur, old=o, iterations=it, converged=converged)
    if not converged:
        _warn_unconverged(est)
    return est


def _warn_unconverged(est: PriorEstimate) -> None:
    warn(f"estimate_prior did not converge in {est.iterations} iterations (the estimate still moved by "
         f"more than tol); the prior {est.prior if isinstance(est.prior, float) else est.prior.tolist()} "
         "is not the maximum-likelihood one. Raise max_iter")


def _binary_root(p: np.ndarray, wt: np.ndarray, old: float, tol: float,
                 max_iter: int) -> tuple[float, int, bool]:
    r"""The root of :math:`L'(\pi) = \sum_i w_i d_i / (b_i + \pi d_i)`, :math:`d_i = a_i - b_i`
    (decreasing: :math:`L'' = -\sum_i w_i d_i^2 / (b_i + \pi d_i)^2 \le 0`), on
    :math:`[10^{-12}, 1 - 10^{-12}]` (EM's clip): an end when :math:`L'` keeps its sign there.
    Newton from :math:`\pi_\text{old}`, bisecting when a step leaves the bracket; it stops when a
    step moves less than ``tol`` or the bracket holds no double between its ends."""
    a = p / old
    b = (1.0 - p) / (1.0 - old)
    d = a - b

    def slope(pi: float) -> tuple[float, float]:
        r = d / (b + pi * d)   # b + π d = π a + (1 − π) b > 0 for π in (0, 1)
        return float(wt @ r), -float(wt @ (r * r))

    lo, hi = 1e-12, 1.0 - 1e-12
    if slope(lo)[0] <= 0.0:
        return lo, 1, True
    if slope(hi)[0] >= 0.0:
        return hi, 2, True
    x = min(max(old, lo), hi)
    for it in range(1, max_iter + 1):
        g, h = slope(x)
        if g == 0.0:
            return x, it, True
        if g > 0.0:
            lo = x
        else:
            hi = x
        new = x - g / h if h < 0.0 else math.nan
        if not (lo <= new <= hi):
            new = 0.5 * (lo + hi)
        if abs(new - x) <= tol or np.nextafter(lo, 1.0) >= hi:
            return new, it, True
        x = new
    return x, max_iter, False
