"""More discoveries than rows drawn: the title says the most important discoveries are shown (round 35).

The plot draws the table's first rows, the discoveries ordered by importance (evidence × size); its title
said "the 30 of N tested segments with the smallest p-values", which they are not when more than 30 are
discoveries (a large segment with a moderate p outranks a small one with a tiny p).
"""

import re

import numpy as np
import pytest

import veracity as vc
from veracity.plotting._segments import plot_segments

pytest.importorskip("matplotlib")


def _title(fig) -> str:
    return fig.axes[0].get_title(loc="left") or fig.axes[0].get_title()


def test_a_cut_family_of_discoveries_is_named_by_importance():
    rng = np.random.default_rng(35)
    n = 6_000
    a, b = rng.integers(0, 6, n), rng.integers(0, 6, n)
    p = rng.uniform(0.2, 0.8, n)
    # every level of a and b moves the rate: 6 + 6 single segments and 36 pairs, most of them discoveries
    true = np.clip(p + 0.05 * (a - 2.5) + 0.04 * (b - 2.5), 0.01, 0.99)
    y = (rng.random(n) < true).astype(int)
    res = vc.segments(p, y, features={"a": a.astype(str), "b": b.astype(str)}, n_resamples=99, random_state=0)
    found = len(res.discoveries)
    assert found > 10
    fig = plot_segments(res, max_rows=10)
    drawn = res.rows[:10]
    smallest = sorted(r.p_value for r in res.rows if r.sufficient)[:10]
    # the drawn rows are not the ten smallest p-values: the old title's claim was false here
    assert sorted(r.p_value for r in drawn) != smallest
    title = _title(fig)
    assert re.search(rf"the 10 most important of {found} discoveries", title), title
    assert "smallest p-values" not in title
