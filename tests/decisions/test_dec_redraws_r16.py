"""simulate_redraws drops the rows of weight 0 from its pool; its refusal of a draw larger than the pool
says so (before: "exceeds the pool of 390 rows" for 400 rows passed, with no word of the 10 dropped)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def test_the_pool_size_in_the_refusal_counts_the_dropped_rows():
    rng = np.random.default_rng(0)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(int)
    w = np.r_[np.zeros(10), np.ones(390)]
    with pytest.raises(vc.VeracityError, match=r"^n_calib \+ n_test = 400 exceeds the pool of 390 rows \(the 400 "
                                               r"rows less 10 of weight 0\); draw fewer rows$"):
        vc.simulate_redraws(p, y, n_calib=200, target=0.9, n_resamples=3, random_state=0, sample_weight=w)
    with pytest.raises(vc.VeracityError, match=r"exceeds the pool of 400 rows; draw fewer rows$"):
        vc.simulate_redraws(p, y, n_calib=201, target=0.9, n_resamples=3, random_state=0)
