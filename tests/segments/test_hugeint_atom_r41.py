"""Round 41: integers beyond 2**53 (kept exact) put a value that holds a whole bin's rows in a bin of its
own, as every other numeric feature does (docs/segments.md): a zero-inflated id column (0 where there is
none, 90 % of the rows) had every equal-mass pick at 0 and gave one segment of every row, on every route,
and ``vc.SegmentCalibration`` fitted no correction by it."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import veracity as vc


def _data(n=3_000, seed=1):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    zero = rng.uniform(size=n) < 0.9
    ids = np.where(zero, 0, rng.integers(1, 10**6, n) + 2**60)
    y = (rng.uniform(size=n) < np.clip(p + np.where(zero, 0.0, 0.15), 0, 1)).astype(int)
    return p, y, ids, zero, rng.lognormal(0.0, 1.0, n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("route", ["arrays", "polars lazy"])
def test_the_atom_is_a_segment_of_its_own(route, weighted):
    p, y, ids, zero, w = _data()
    sw = w if weighted else None
    if route == "arrays":
        res = vc.segments(p, y, features={"id": ids}, sample_weight=sw, depth=1, n_resamples=9)
    else:
        frame = pl.DataFrame({"p": p, "y": y, "id": ids, "w": w}).lazy()
        res = vc.segments(frame, score="p", label="y", features=["id"],
                          sample_weight="w" if weighted else None, depth=1, n_resamples=9)
    first = min(int(v) for v in ids[~zero])
    atom = res.segment(f"id=[0, {first})")
    assert atom.n == int(zero.sum())
    assert len(res.rows) == 2
    assert res.discoveries  # the planted gap of the nonzero ids is found


def test_the_repair_corrects_by_it():
    p, y, ids, zero, _ = _data()
    seg = vc.SegmentCalibration(features=["id"]).fit(p, y, features={"id": ids})
    assert seg.specs_[0].n_levels == 2 and seg.tau2_[0] > 0
    q = seg.transform(p, features={"id": ids})
    assert abs(np.mean(q[~zero] - y[~zero])) < 0.02  # the nonzero ids, under-predicted by 0.15, repaired
