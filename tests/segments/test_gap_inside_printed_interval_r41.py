"""Round 41: a segment whose gap sits on an end of its interval (a rate of 0: the gap's interval starts at
-conf) printed the gap outside the printed interval, "-0.2772 [-0.277, -0.268]": the gap at 4 decimals, the
ends at 3. The ends now take the gap's decimals where the gap would print outside them; otherwise 3, as
before."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import veracity as vc
from veracity.segments._result import row_texts


def _row():
    rng = np.random.default_rng(2)
    p = rng.uniform(0.05, 0.5, 3000)
    g = rng.choice(["a", "b", "c"], 3000)
    y = (rng.uniform(size=3000) < p).astype(int)
    return vc.segments(p, y, features={"g": g}).rows[0]


def test_a_gap_on_its_intervals_end_prints_inside_it():
    row = replace(_row(), conf=0.27717, rate=0.0, gap=-0.27717, ci_low=-0.27717, ci_high=-0.268)
    t = row_texts(row)
    assert t["gap"] == "-0.2772" and t["ci_low"] == "-0.2772" and t["ci_high"] == "-0.2680", t
    shown = [float(t[k]) for k in ("ci_low", "gap", "ci_high")]
    assert shown == sorted(shown)


def test_an_ordinary_interval_keeps_three_decimals():
    row = replace(_row(), conf=0.27717, rate=0.30, gap=0.02283, ci_low=0.0112, ci_high=0.0345)
    t = row_texts(row)
    assert (t["gap"], t["ci_low"], t["ci_high"]) == ("+0.0228", "+0.011", "+0.035")  # (a still-works guard)
