"""Speed-only guard (passes on the old code too): the demos' MLP training takes Adam's step on one flat
vector of every weight and bias (a few numpy calls a step, not a few per parameter array); the trained
networks are those of the plain per-array loop, bit for bit (``veracity demo splits`` trains twelve of
them: 3.9 s -> 3.0 s of CPU, its printout byte-identical)."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.demos._synth import K, Gaussians, train_mlp


def _plain_adam(x, y, *, hidden, epochs, batch=64, lr=0.005, seed=0):
    """The per-array loop as it was written before the flat vector (the reference)."""
    rng = np.random.default_rng(seed)
    sizes = (x.shape[1], *hidden, K)
    ws = [rng.normal(0.0, np.sqrt(2.0 / a), (a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(b) for b in sizes[1:]]
    params = ws + bs
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    n = len(y)
    onehot = np.eye(K)[y]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            rows = order[start:start + batch]
            step += 1
            h = x[rows]
            acts = [h]
            for w, b in zip(ws[:-1], bs[:-1]):
                h = np.maximum(h @ w + b, 0.0)
                acts.append(h)
            z = h @ ws[-1] + bs[-1]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            delta = (p - onehot[rows]) / len(rows)
            gw = [delta] * len(ws)
            gb = [delta] * len(bs)
            for layer in range(len(ws) - 1, -1, -1):
                gw[layer] = acts[layer].T @ delta
                gb[layer] = delta.sum(axis=0)
                if layer:
                    delta = (delta @ ws[layer].T) * (acts[layer] > 0)
            c1, c2 = 1 - beta1**step, 1 - beta2**step
            for i, (param, g) in enumerate(zip(params, gw + gb)):
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                param -= lr * (m[i] / c1) / (np.sqrt(v[i] / c2) + eps)
    return ws, bs


@pytest.mark.parametrize("hidden, seed, n, batch", [((32, 32), 0, 300, 64), ((48, 16), 3, 257, 50),
                                                     ((8, 24), 7, 129, 64)])
def test_flat_adam_trains_the_same_network_bit_for_bit(hidden, seed, n, batch):
    gen = Gaussians.make(seed=5)
    x, y, _ = gen.sample(n, np.random.default_rng(seed), proba=False)
    model = train_mlp(x, y, hidden=hidden, epochs=4, batch=batch, seed=seed)
    ws, bs = _plain_adam(x, y, hidden=hidden, epochs=4, batch=batch, seed=seed)
    assert model.hidden == hidden and model.seed == seed
    for got, want in zip(model.weights + model.biases, tuple(ws) + tuple(bs), strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
        assert got.tobytes() == want.tobytes()
    # each array is its own (not a view of the training's flat vector)
    assert all(a.base is None for a in model.weights + model.biases)
