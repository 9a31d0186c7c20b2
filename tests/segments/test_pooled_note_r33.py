"""The note on a categorical feature's pooled levels counts its levels, not its missing rows (session 33).

With fewer than min_count missing rows, the missing rows join ``other``. The note counted them as one more
pooled level of the feature's (non-missing) levels: levels a and b both kept, 10 missing rows, read
"1 of 2 levels pooled into 'other'" (none was); with a rare level c too, "2 of 3 levels" (one was).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import veracity as vc


def _data(levels: list[str], rare: int, missing: int):
    rng = np.random.default_rng(4)
    n = 1_000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = rng.choice(levels, n).astype(object)
    g[:missing] = None
    g[missing:missing + rare] = "c"
    return p, y, g


def _segments(p, y, g, lazy: bool):
    """The segments of feature g, from arrays or from a lazy polars frame (the two routes read levels alike)."""
    if lazy:
        return vc.segments(pl.DataFrame({"p": p, "y": y, "g": list(g)}).lazy(), score="p", label="y",
                           features=["g"])
    return vc.segments(p, y, features={"g": g})


@pytest.mark.parametrize("lazy", [False, True])
def test_missing_rows_pooled_are_not_a_pooled_level(lazy):
    p, y, g = _data(["a", "b"], rare=0, missing=10)
    res = _segments(p, y, g, lazy)
    sizes = {r.segment: r.n for r in res.rows}
    assert sizes == {"g=a": pytest.approx(500, abs=60), "g=b": pytest.approx(500, abs=60), "g=other": 10}
    note = [t for t in res.notes if "'other'" in t]
    assert len(note) == 1 and "levels pooled" not in note[0]
    assert "its 10 missing rows" in note[0] and "no level was pooled" in note[0]


@pytest.mark.parametrize("lazy", [False, True])
def test_a_rare_level_and_missing_rows(lazy):
    p, y, g = _data(["a", "b"], rare=20, missing=10)
    res = _segments(p, y, g, lazy)
    assert res.segment("g=other").n == 30
    note = [t for t in res.notes if "'other'" in t]
    assert len(note) == 1 and "1 of 3 levels pooled into 'other'" in note[0], note
    assert note[0].endswith("and its 10 missing rows)")


def test_no_missing_rows_keeps_the_note():
    p, y, g = _data(["a", "b"], rare=20, missing=0)
    res = vc.segments(p, y, features={"g": g})
    assert any("1 of 3 levels pooled into 'other' — fewer than min_count rows, or beyond max_levels)" in t
               for t in res.notes)
