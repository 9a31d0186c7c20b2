"""The segments figure's title says what the MCE's sigma is worth and how many segments it draws (session 31).

The MCE's sigma is the largest of many segments' standardised gaps, no z-score: on the demo data after
Platt scaling the title read "MCE 0.0185 (2.5σ)", which reads as evidence, where the text beside it says
p = 0.505 under calibration. And a search of 59 segments drew its 30 smallest p-values with nothing saying
so: the figure read as every segment searched. Now the p-value stands beside the sigma, and a cut family
is named ("shown: the 30 of 59 tested segments with the smallest p-values").
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc
from veracity.plotting._segments import plot_segments

pytest.importorskip("matplotlib")


def _title(fig) -> str:
    return fig.axes[0].get_title(loc="left")


def _calibrated(n: int, levels: int, seed: int):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.random(n) < p).astype(int)
    return p, y, {"a": rng.integers(0, levels, n).astype(str), "b": rng.integers(0, levels, n).astype(str)}


def test_the_mce_sigma_is_shown_with_its_p_value():
    p, y, features = _calibrated(3_000, 3, 1)
    res = vc.segments(p, y, features=features, n_resamples=99, random_state=0)
    title = _title(res.plot())
    # its own p-value under calibration, simulated: large on calibrated data, and printed beside the sigma
    assert res.mce_family_pvalue > 0.05
    found = re.search(r"MCE [0-9.]+ \(([0-9.]+)σ, p = ([0-9.]+) under calibration\)", title)
    assert found, title
    assert float(found[1]) == pytest.approx(res.mce_sigma, abs=0.05)
    assert float(found[2]) == pytest.approx(res.mce_family_pvalue, abs=0.0005)


def test_a_cut_family_says_how_many_segments_it_draws():
    p, y, features = _calibrated(4_000, 6, 2)  # 6 + 6 levels and 36 pairs: 48 segments of >= 50 rows
    res = vc.segments(p, y, features=features, n_resamples=99, random_state=0)
    tested = sum(r.sufficient for r in res.rows)
    assert tested > 30
    fig = plot_segments(res, max_rows=30)
    assert len(fig.axes[0].get_yticklabels()) == 30 and len(res.plot().axes[0].get_yticklabels()) == 30
    assert f"the 30 of {tested} tested segments with the smallest p-values" in _title(fig)
    # all of them drawn: nothing said
    assert "tested segments" not in _title(plot_segments(res, max_rows=100))
