"""Shared data of the calibrator tests."""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc


def informative_logits(n: int = 600, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(z, y)``: ``n`` rows of ``k`` normal logits whose true class is raised by 1.5 (an informative
    model), the data of the extreme-scale tests of temperature, vector and matrix scaling."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    return z, y


def ranked_oracle(Z: np.ndarray, y: np.ndarray, far: np.ndarray, kind: str,
                  mu: float = 0.0) -> tuple[np.ndarray, np.ndarray, float]:
    """Independent reference of vector (``kind="vector"``) or matrix scaling's fit where the rows ``far``
    lie far beyond the others (1e100): a far row ranked wrong costs its size times its margin, ranked right
    nothing, so the optimum is the fit of the other rows whose map ranks every far row right. scipy's SLSQP
    from the identity map on their log-loss (summed, divided by the number of all rows) plus mu/K |b|^2,
    subject to every far row's margins (divided by its max |z|) of at least 1e-9. Returns ``(W, b, F)``,
    F the objective SLSQP reached (a far row so ranked costs below exp(-1e90))."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    n, k = Z.shape
    X, yn = Z[~far], y[~far]
    U = Z[far] / np.abs(Z[far]).max(axis=1, keepdims=True)
    yf = y[far]

    def unpack(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (t[:k * k].reshape(k, k) if kind == "matrix" else np.diag(t[:k])), t[-k:]

    Yn = np.eye(k)[yn]
    pairs = np.eye(k, dtype=bool)[yf] == 0  # (far row, other class)
    fi, fc = np.nonzero(pairs)

    def f(t: np.ndarray) -> tuple[float, np.ndarray]:
        W, b = unpack(t)
        L = X @ W.T + b
        lse = logsumexp(L, axis=1)
        G = (np.exp(L - lse[:, None]) - Yn) / n  # d f / d L
        GW = G.T @ X
        gW = GW.ravel() if kind == "matrix" else np.diag(GW)
        grad = np.concatenate([gW, G.sum(axis=0) + 2 * mu / k * b])
        return float(np.sum(lse - L[np.arange(yn.size), yn]) / n + mu / k * b @ b), grad

    def margins(t: np.ndarray) -> np.ndarray:
        M = U @ unpack(t)[0].T
        return (M[np.arange(yf.size), yf][:, None] - M)[pairs] - 1e-9

    J = np.zeros((fi.size, (k * k if kind == "matrix" else k) + k))  # the margins' Jacobian
    rows = np.arange(fi.size)
    if kind == "matrix":  # margin = (W[y] - W[c]) . u
        J[rows[:, None], yf[fi][:, None] * k + np.arange(k)] = U[fi]
        J[rows[:, None], fc[:, None] * k + np.arange(k)] = -U[fi]
    else:  # margin = v_y u_y - v_c u_c
        J[rows, yf[fi]] = U[fi, yf[fi]]
        J[rows, fc] = -U[fi, fc]

    t0 = np.concatenate([np.eye(k).ravel() if kind == "matrix" else np.ones(k), np.zeros(k)])
    res = minimize(f, t0, jac=True, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": margins, "jac": lambda t: J}],
                   options={"ftol": 1e-14, "maxiter": 2000})
    assert res.success, res.message
    W, b = unpack(res.x)
    return W, b, float(res.fun)


# -- shared by the matrix-scaling tests (r22, r23, r24) ------------------------------------------------------
KINDS = {"matrix": vc.MatrixScaling, "vector": vc.VectorScaling}


def fit_logits(kind: str, Z: np.ndarray, y: np.ndarray, **kw) -> vc.MatrixScaling:
    """A matrix or vector scaling fitted on logits with every warning an error (no "stopped before
    convergence", no overflow), and converged."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = KINDS[kind](score_type="logit", **kw).fit(Z, y)
    assert cal.converged_
    return cal


def log_probs(W: np.ndarray, b: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """log softmax(W z + b) in log-space: W z = (W 2^e)(z / 2^e), each factor exact."""
    from scipy.special import logsumexp

    e = int(np.frexp(np.abs(Z).max())[1])
    L = np.ldexp(Z, -e) @ np.ldexp(W, e).T + b
    return L - logsumexp(L, axis=1, keepdims=True)


def nll(W: np.ndarray, b: np.ndarray, Z: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of the labels under softmax(W z + b) (:func:`log_probs`)."""
    return float(-np.mean(log_probs(W, b, Z)[np.arange(y.size), y]))


def exact_softmax(W: np.ndarray, b: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """softmax(W z + b) of the logits computed exactly (fractions), each difference to the row's largest
    rounded once: the reference for transform() at huge offsets."""
    import math
    from fractions import Fraction

    out = []
    for z in rows.tolist():
        L = [sum((Fraction(w) * Fraction(v) for w, v in zip(Wk, z)), Fraction(bk))
             for Wk, bk in zip(W.tolist(), b.tolist())]
        top = max(L)
        e = [0.0 if top - v > 1000 else math.exp(float(v - top)) for v in L]
        out.append(np.array(e) / sum(e))
    return np.array(out)


def with_map(kind: str, W: np.ndarray, b: np.ndarray):
    """A fitted matrix/vector scaling (``kind``) on K = len(b) classes whose map is set to (W, b)."""
    z, y = informative_logits(300, len(b))
    cal = KINDS[kind](score_type="logit").fit(z, y)
    cal.W_, cal.b_ = W, b
    return cal
