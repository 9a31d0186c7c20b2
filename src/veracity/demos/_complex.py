r"""A tiny numpy ComplEx link predictor (Trouillon et al. 2016), as used in seed 000.

Every entity and relation is a vector of ``rank`` complex numbers (``2·rank``
real parameters; ``rank=8`` gives the seed's 16 real dimensions). The score of
a triple is

.. math:: s(h, r, t) = \mathrm{Re}\Big(\sum_k e_{h,k}\, w_{r,k}\, \overline{e_{t,k}}\Big)

and training minimises the logistic loss :math:`\mathrm{softplus}(-y\,s)` with
:math:`y \in \{-1, +1\}`: each epoch pairs every training positive with one
uniform corruption (head or tail replaced by a uniformly drawn entity, re-drawn
while it is itself a training triple) and takes one plain gradient step on the
summed loss of that batch. Nothing loops over triples in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class ComplEx:
    """Fitted embeddings; ``score(h, r, t)`` takes integer index arrays."""

    ent_re: np.ndarray
    ent_im: np.ndarray
    rel_re: np.ndarray
    rel_im: np.ndarray

    def score(self, h: np.ndarray, r: np.ndarray, t: np.ndarray) -> np.ndarray:
        return _score(self.ent_re[h], self.ent_im[h], self.rel_re[r], self.rel_im[r],
                      self.ent_re[t], self.ent_im[t])


def _score(hr: np.ndarray, hi: np.ndarray, rr: np.ndarray, ri: np.ndarray, tr: np.ndarray,
           ti: np.ndarray) -> np.ndarray:
    # Re(h · r · conj(t)), expanded into real parts
    s: np.ndarray = (hr * rr * tr + hi * rr * ti + hr * ri * ti - hi * ri * tr).sum(axis=-1)
    return s


def encode(triples: np.ndarray, n_ent: int, n_rel: int) -> np.ndarray:
    """One integer key per (h, r, t) index triple, for set membership tests."""
    triples = np.asarray(triples, dtype=np.int64)
    keys: np.ndarray = (triples[:, 0] * n_rel + triples[:, 1]) * n_ent + triples[:, 2]
    return keys


def corrupt(
    triples: np.ndarray, n_ent: int, rng: np.random.Generator
) -> np.ndarray:
    """Replace the head or the tail (each with probability ½) by a uniform entity."""
    out = np.array(triples, dtype=np.int64, copy=True)
    side = np.where(rng.random(len(out)) < 0.5, 0, 2)
    out[np.arange(len(out)), side] = rng.integers(0, n_ent, size=len(out))
    return out


def corrupt_avoiding(
    triples: np.ndarray, n_ent: int, n_rel: int, forbidden: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Corrupt every triple, re-drawing (vectorised, round by round) any whose key is forbidden."""
    out = corrupt(triples, n_ent, rng)
    bad = np.isin(encode(out, n_ent, n_rel), forbidden)
    while bad.any():
        out[bad] = corrupt(triples[bad], n_ent, rng)
        bad[bad] = np.isin(encode(out[bad], n_ent, n_rel), forbidden)
    return out


def train_complex(
    triples: np.ndarray,
    n_ent: int,
    n_rel: int,
    *,
    rank: int = 8,
    epochs: int = 1000,
    lr: float = 0.1,
    init_scale: float = 0.1,
    seed: int = 0,
) -> ComplEx:
    """Fit ComplEx to ``triples`` (an (n, 3) array of head, relation, tail indices)."""
    rng = np.random.default_rng(seed)
    triples = np.asarray(triples, dtype=np.int64)
    n = len(triples)
    e_re, e_im = (rng.normal(0.0, init_scale, (n_ent, rank)) for _ in range(2))
    r_re, r_im = (rng.normal(0.0, init_scale, (n_rel, rank)) for _ in range(2))
    known = encode(triples, n_ent, n_rel)
    y = np.concatenate([np.ones(n), -np.ones(n)])
    params = (e_re, e_im, r_re, r_im)
    for _ in range(epochs):
        batch = np.concatenate([triples, corrupt_avoiding(triples, n_ent, n_rel, known, rng)])
        _, grads = loss_and_grads(params, batch, y)
        for param, grad in zip(params, grads):
            param -= lr * grad
    return ComplEx(*params)


def loss_and_grads(
    params: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], batch: np.ndarray,
    y: np.ndarray,
) -> tuple[float, tuple[np.ndarray, ...]]:
    """Summed logistic loss Σ softplus(−y·s) over ``batch`` and its gradient in each array."""
    e_re, e_im, r_re, r_im = params
    h, r, t = batch[:, 0], batch[:, 1], batch[:, 2]
    hr, hi, rr, ri, tr, ti = e_re[h], e_im[h], r_re[r], r_im[r], e_re[t], e_im[t]
    s = _score(hr, hi, rr, ri, tr, ti)
    loss = float(np.logaddexp(0.0, -y * s).sum())
    # d softplus(-y s) / ds = -y · σ(-y s)
    g = (-y / (1.0 + np.exp(y * s)))[:, None]
    g_e_re, g_e_im = np.zeros_like(e_re), np.zeros_like(e_im)
    g_r_re, g_r_im = np.zeros_like(r_re), np.zeros_like(r_im)
    np.add.at(g_e_re, h, g * (rr * tr + ri * ti))
    np.add.at(g_e_im, h, g * (rr * ti - ri * tr))
    np.add.at(g_e_re, t, g * (hr * rr - hi * ri))
    np.add.at(g_e_im, t, g * (hi * rr + hr * ri))
    np.add.at(g_r_re, r, g * (hr * tr + hi * ti))
    np.add.at(g_r_im, r, g * (hr * ti - hi * tr))
    return loss, (g_e_re, g_e_im, g_r_re, g_r_im)
