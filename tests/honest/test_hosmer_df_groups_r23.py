"""Hosmer-Lemeshow's ``df`` larger than its number of groups is refused in one line (session 23: it was
accepted silently; H sums G terms, so a chi-squared on more degrees of freedom reads a miscalibrated
model's H as small)."""

import numpy as np
import pytest

import veracity as vc


def _data(levels: int | None = None):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 2000)
    if levels:
        p = np.round(p * levels) / levels  # ties: fewer distinct scores than bins
        p = np.clip(p, 0.05, 0.95)
    y = (rng.random(p.size) < p).astype(int)
    return p, y


def test_df_above_the_bins_is_refused(error_line):
    p, y = _data()
    line = error_line(lambda: vc.hosmer_lemeshow(p, y, bins=10, df=12))
    assert "df=12" in line and "bins=10" in line and "df=8" in line


def test_df_above_the_groups_ties_left_is_refused(error_line):
    p, y = _data(levels=4)
    got = vc.hosmer_lemeshow(p, y, bins=10)
    assert got.bins < 10  # the ties merged groups
    line = error_line(lambda: vc.hosmer_lemeshow(p, y, bins=10, df=8))
    assert f"the {got.bins} groups" in line and f"df={max(got.bins - 2, 1)}" in line


def test_df_up_to_the_groups_is_kept():
    p, y = _data()
    for df in (8, 10):
        got = vc.hosmer_lemeshow(p, y, bins=10, df=df)
        assert got.df == df
