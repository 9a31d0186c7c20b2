"""A numeric feature with a value that holds a whole bin's rows (a zero-inflated count) gets that
value as a segment of its own; before, every equal-mass pick fell on the atom and the feature made
one segment of all the rows, hiding a miscalibration of the rest."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import veracity as vc


def _data(n: int = 20_000, seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    purchases = np.where(rng.uniform(size=n) < 0.85, 0.0, rng.gamma(2.0, 3.0, n))
    truth = np.clip(p + np.where(purchases > 0, 0.10, 0.0), 0, 1)  # wrong for buyers only
    y = (rng.uniform(size=n) < truth).astype(int)
    return p, y, purchases


def test_the_atom_is_its_own_segment_and_the_rest_is_found() -> None:
    p, y, purchases = _data()
    res = vc.segments(p, y, features={"purchases": purchases})
    rows = {r.segment: r for r in res.rows}
    zero = [r for r in res.rows if r.n == int((purchases == 0).sum())]
    assert len(zero) == 1, sorted(rows)
    assert not zero[0].discovery
    rest = [r for r in res.rows if r is not zero[0]]
    assert sum(r.n for r in rest) == int((purchases > 0).sum())
    assert any(r.discovery and r.gap > 0.05 for r in rest)


@pytest.mark.parametrize("share", [0.25, 0.5, 0.9])
def test_interior_atoms_and_frames_agree(share: float) -> None:
    rng = np.random.default_rng(11)
    n = 5_000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    x = np.where(rng.uniform(size=n) < share, 3.0, rng.normal(3.0, 1.0, n))  # an atom in the middle
    arr = vc.segments(p, y, features={"x": x})
    lazy = vc.segments(pl.LazyFrame({"p": p, "y": y, "x": x}), score="p", label="y", features=["x"])
    assert [(r.segment, r.n) for r in arr.rows] == [(r.segment, r.n) for r in lazy.rows]
    # [3, next distinct value) holds exactly the rows at 3
    assert int((x == 3.0).sum()) in [r.n for r in arr.rows], [(r.segment, r.n) for r in arr.rows]
    assert sum(r.n for r in arr.rows) == n


def test_no_atom_keeps_equal_mass_bins() -> None:
    rng = np.random.default_rng(5)
    n = 5_000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    res = vc.segments(p, y, features={"x": rng.normal(size=n)}, bins=5)
    assert sorted(r.n for r in res.rows) == [1000] * 5
