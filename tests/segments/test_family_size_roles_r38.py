"""A segment family too large for one numeric feature is refused at once, in the number its count takes
(session 38; hunt beside "roles").

- ``bins=`` near ``max_segments`` read the bins' printed ends with a table of every pair of bounds: 50,000
  bins took 2 x 2.3 GB, and ``bins=100_000`` on 200,000 rows was killed for memory before the family-size
  refusal was reached. The texts are told apart by counting sets now (guard: the same refusal, in a few MB).
- The refusal read "segments from 1 features at depth 1".
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import veracity as vc


def test_a_family_of_too_many_bins_is_refused_without_a_pairwise_table():
    rng = np.random.default_rng(3806)
    n = 100_000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    x = rng.normal(size=n)
    tracemalloc.start()
    try:
        with pytest.raises(vc.VeracityError) as info:
            vc.segments(p, y, features={"x": x}, bins=50_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "up to 50,001 segments from 1 feature at depth 1 (over max_segments=50,000)" in message, message
    assert peak < 400e6, f"peak {peak / 1e6:.0f} MB"  # the pairwise tables took 2 x 2.5 GB here
