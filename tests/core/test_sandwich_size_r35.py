"""core._weights.sandwich_size: the effective size a weighted share's spread reads (round 35: one helper for
the selective bound, the conformal floor and the threshold command's precision interval)."""

import numpy as np
import pytest

from veracity.core._weights import kish_size, sandwich_size


def test_it_is_the_definition():
    rng = np.random.default_rng(35)
    w, h = rng.lognormal(0.0, 1.0, 400), rng.random(400) < 0.3
    W, r = w.sum(), w[h].sum() / w.sum()
    expected = r * (1 - r) * W * W / np.dot(w * w, (h - r) ** 2)
    assert float(sandwich_size(W, r, np.dot(w[h], w[h]), np.dot(w[~h], w[~h]))) == pytest.approx(expected, rel=1e-12)


def test_equal_weights_give_the_rows_and_no_spread_gives_inf():
    w, h = np.full(50, 2.0), np.arange(50) < 20
    W, r = w.sum(), w[h].sum() / w.sum()
    size = float(sandwich_size(W, r, np.dot(w[h], w[h]), np.dot(w[~h], w[~h])))
    assert size == pytest.approx(kish_size(w), rel=1e-12) == pytest.approx(50.0)
    assert np.isinf(sandwich_size(W, 0.0, 0.0, np.dot(w, w)))  # every outcome 0: no spread

