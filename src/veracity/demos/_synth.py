r"""Synthetic 10-class data with known true probabilities, and small numpy MLPs (seed 003).

Data: class k has prior 1/K and x | k ~ N(μ_k, σ² I) in D = 30 dimensions, so the
true posterior is known exactly:

.. math:: P(k \mid x) = \mathrm{softmax}_k\big(-\lVert x - \mu_k \rVert^2 / 2\sigma^2\big)

(``noise`` multiplies σ; ``noise=1.3`` is the seed's shifted environment.)

Models: two-hidden-layer ReLU networks trained by mini-batch Adam on the
cross-entropy until they fit the training set; everything is vectorised, the
only Python loop is over optimisation steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

K = 10
D = 30
SIGMA = 1.0


@dataclass(frozen=True, eq=False)
class Gaussians:
    """The generating process: class means (K, D) and the noise scale σ."""

    means: np.ndarray
    sigma: float = SIGMA

    @classmethod
    def make(cls, *, separation: float = 0.62, seed: int = 2024) -> Gaussians:
        rng = np.random.default_rng(seed)
        return cls(means=rng.normal(0.0, separation, (K, D)))

    def sample(
        self, n: int, rng: np.random.Generator, *, noise: float = 1.0, proba: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``n`` points: features (n, D), labels (n,), true probabilities (n, K) or None."""
        y = rng.integers(0, K, size=n)
        sigma = self.sigma * noise
        x = self.means[y] + sigma * rng.standard_normal((n, D))
        return x, y, self.true_proba(x, noise=noise) if proba else None

    def true_proba(self, x: np.ndarray, *, noise: float = 1.0) -> np.ndarray:
        sigma = self.sigma * noise
        d2 = ((x[:, None, :] - self.means[None, :, :]) ** 2).sum(-1)
        z = -d2 / (2 * sigma**2)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return p


@dataclass(frozen=True, eq=False)
class MLP:
    """A fitted two-hidden-layer ReLU network; ``logits(x)`` returns (n, K) raw scores."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    hidden: tuple[int, int]
    seed: int

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = x
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            h = np.maximum(h @ w + b, 0.0)
        out: np.ndarray = h @ self.weights[-1] + self.biases[-1]
        return out


def train_mlp(
    x: np.ndarray,
    y: np.ndarray,
    *,
    hidden: tuple[int, int] = (64, 64),
    epochs: int = 40,
    batch: int = 64,
    lr: float = 0.005,
    seed: int = 0,
) -> MLP:
    """Mini-batch Adam on the mean cross-entropy (no regularisation: it is meant to overfit).

    Batches of 64 rows keep every matrix product below OpenBLAS's multi-threading
    threshold, so training stays fast on a busy 2-core machine; the Python loop runs
    over optimisation steps only, never over rows. The weights and biases are views of one
    flat vector θ, so that Adam's elementwise update (:math:`m \\leftarrow \\beta_1 m + (1-\\beta_1) g`,
    :math:`v \\leftarrow \\beta_2 v + (1-\\beta_2) g^2`,
    :math:`\\theta \\leftarrow \\theta - \\eta\\,(m/c_1) / (\\sqrt{v/c_2} + \\epsilon)`) is a few numpy
    calls a step, not a few per parameter array: the same operations in the same order on each
    element, so the same numbers.
    """
    rng = np.random.default_rng(seed)
    sizes = (x.shape[1], *hidden, K)
    init = [rng.normal(0.0, np.sqrt(2.0 / a), (a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    init += [np.zeros(b) for b in sizes[1:]]
    theta = np.concatenate([p.ravel() for p in init])  # every parameter, weights then biases
    grad = np.zeros_like(theta)
    params: list[np.ndarray] = []  # views of theta, and of grad
    grads: list[np.ndarray] = []
    at = 0
    for p in init:
        params.append(theta[at:at + p.size].reshape(p.shape))
        grads.append(grad[at:at + p.size].reshape(p.shape))
        at += p.size
    ws, bs = params[:len(sizes) - 1], params[len(sizes) - 1:]
    gw, gb = grads[:len(sizes) - 1], grads[len(sizes) - 1:]
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    n = len(y)
    onehot = np.eye(K)[y]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            rows = order[start:start + batch]
            step += 1
            # forward
            h = x[rows]
            acts = [h]
            for w, b in zip(ws[:-1], bs[:-1]):
                h = np.maximum(h @ w + b, 0.0)
                acts.append(h)
            z = h @ ws[-1] + bs[-1]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            # backward
            delta = (p - onehot[rows]) / len(rows)
            for layer in range(len(ws) - 1, -1, -1):
                gw[layer][...] = acts[layer].T @ delta
                gb[layer][...] = delta.sum(axis=0)
                if layer:
                    delta = (delta @ ws[layer].T) * (acts[layer] > 0)
            c1, c2 = 1 - beta1**step, 1 - beta2**step
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            step_size = m / c1
            step_size *= lr
            step_size /= np.sqrt(v / c2) + eps
            theta -= step_size
    return MLP(weights=tuple(w.copy() for w in ws), biases=tuple(b.copy() for b in bs), hidden=hidden,
               seed=seed)
