"""Round 18: matrix scaling gives a row the same probabilities whatever rows come with it.

numpy's ``Z @ W.T`` picks a BLAS kernel by the number of rows, and some kernels fuse multiply-adds.
Before, a row of logits near ±1e308 read [0.622, 0.378, 0] alone and [0.5, 0.5, 0] in a batch of 64
(``2 · 1e308`` overflows as a product but not inside a fused ``-1e308 + 2 · 1e308``), and the exported
SQL and ONNX, which sum left to right, could match only one of the two.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_overflow_r17 import _fitted, _reference_affine  # noqa: E402

W_TIED = np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
B_TIED = np.array([0.5, 0.0, 0.0])


def _rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    atoms = np.array([0.0, 1.0, -3.5, 1e3, -7e5, 1e100, -1e200, 4.4e307, -8.9e307, 1e308, -1e308, 1.7e308])
    return atoms[rng.integers(0, atoms.size, (n, 3))] * rng.choice([1.0, 0.999], (n, 3))


def test_the_tied_row_is_the_same_alone_and_in_batches():
    cal = _fitted(vc.MatrixScaling, W_TIED, B_TIED)
    row = np.array([[-1e308, 1e308, 0.0]])
    want = _reference_affine(W_TIED, B_TIED, row)[0]           # the limit: the biases split the tie
    assert want[0] == pytest.approx(1 / (1 + np.exp(-0.5)), abs=1e-12)
    for n in (1, 2, 16, 64, 1000):
        batch = np.vstack([row, np.random.default_rng(n).normal(size=(n - 1, 3))])
        np.testing.assert_allclose(cal.transform(batch)[0], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_row_is_the_same_alone_and_in_the_table(seed):
    rng = np.random.default_rng(seed + 10)
    cal = _fitted(vc.MatrixScaling, rng.normal(0.0, 2.0, (3, 3)), rng.normal(0.0, 1.0, 3))
    Z = _rows(400, seed)
    together = cal.transform(Z)
    alone = np.vstack([cal.transform(z[None, :]) for z in Z])
    # the rows of small Σ|W||z| are BLAS's product: a fused sum moves them by an ulp, no more
    np.testing.assert_allclose(together, alone, rtol=0, atol=1e-12)
    L_together = cal.transform_logit(Z)
    L_alone = np.vstack([cal.transform_logit(z[None, :]) for z in Z])
    np.testing.assert_array_equal(np.isfinite(L_together), np.isfinite(L_alone))
    np.testing.assert_allclose(L_together, L_alone, rtol=1e-15, atol=1e-13)


def test_ordinary_logits_keep_the_matrix_product():
    """Rows whose Σ|W||z| stays below 2^8 are the BLAS product itself (no per-column loop)."""
    rng = np.random.default_rng(3)
    cal = _fitted(vc.MatrixScaling, rng.normal(0.0, 1.0, (3, 3)), rng.normal(0.0, 1.0, 3))
    Z = rng.normal(0.0, 3.0, (500, 3))
    np.testing.assert_array_equal(cal.transform_logit(Z), Z @ cal.W_.T + cal.b_)
